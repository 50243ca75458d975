/* num_forms.c - the matrices `eval` reports, assembled from one evaluation
 * (w->out after num_evaluate), and the consistency test of a state. The
 * command line and the library both read them from here. */
#include "num.h"

#include <math.h>
#include <string.h>

static double M_at(const num_system *s, const num_work *w, size_t i, size_t j) {
  return w->out[s->o_M + i * s->n + j];
}

static double J_at(const num_system *s, const num_work *w, size_t r, size_t j) {
  return w->out[s->o_J + r * s->n + j];
}

/* res = J^T lam (n) */
void num_constraint_forces(const num_system *s, const num_work *w, const double *lam,
                           double *res) {
  for (size_t i = 0; i < s->n; i++) {
    res[i] = 0;
    for (size_t r = 0; r < s->m; r++) res[i] += J_at(s, w, r, i) * lam[r];
  }
}

/* res = [M, -J^T], n x (n+m) row-major */
void num_mass_matrix(const num_system *s, const num_work *w, double *res) {
  size_t n = s->n, m = s->m, cols = n + m;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < cols; j++)
      res[i * cols + j] = j < n ? M_at(s, w, i, j) : -J_at(s, w, j - n, i);
}

/* res = [[I, 0, 0], [0, M, -J^T], [0, J, 0]], (2n+m)^2 row-major */
void num_mass_matrix_full(const num_system *s, const num_work *w, double *res) {
  size_t n = s->n, m = s->m, N = 2 * n + m;
  memset(res, 0, N * N * sizeof *res);
  for (size_t i = 0; i < n; i++) res[i * N + i] = 1.0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n + m; j++)
      res[(n + i) * N + n + j] = j < n ? M_at(s, w, i, j) : -J_at(s, w, j - n, i);
  for (size_t r = 0; r < m; r++)
    for (size_t j = 0; j < n; j++) res[(2 * n + r) * N + n + j] = J_at(s, w, r, j);
}

/* res = [q'; f; gc] (2n+m) */
void num_forcing_full(const num_system *s, const num_work *w, const double *qd,
                      double *res) {
  size_t n = s->n;
  memcpy(res, qd, n * sizeof *res);
  memcpy(res + n, w->out + s->o_f, n * sizeof *res);
  memcpy(res + 2 * n, w->out + s->o_gc, s->m * sizeof *res);
}

/* Violations of the constraints at (t, q, q') beyond tol: bad[r] has bit 1
 * for the position level (holonomic rows), bit 2 for the velocity level. */
size_t num_check_consistent(const num_system *s, num_work *w, double t, const double *q,
                            const double *qd, double tol, double *C, double *Cd, int *bad) {
  size_t count = 0;
  num_residuals(s, w, t, q, qd, C, Cd);
  for (size_t r = 0; r < s->m; r++) {
    bad[r] = (s->row_holonomic[r] && !(fabs(C[r]) <= tol) ? 1 : 0) |
             (!(fabs(Cd[r]) <= tol) ? 2 : 0);
    count += bad[r] != 0;
  }
  return count;
}
