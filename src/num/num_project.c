/* num_project.c - residuals and projection onto the constraint manifold. */
#include "num.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void num_residuals(const num_system *s, num_work *w, double t, const double *q,
                   const double *qd, double *C, double *Cd) {
  num_evaluate_dynamics(s, w, t, q, qd);
  for (size_t r = 0; r < s->m; r++) {
    if (C) C[r] = w->out[s->o_C + r];
    if (Cd) Cd[r] = w->out[s->o_Cd + r];
  }
}

/* x -= J_sel^T (J_sel J_sel^T)^-1 res over the selected rows: 1, or 0 when
 * J_sel J_sel^T is singular, -1 out of memory. */
static int least_change_step(const num_system *s, num_work *w, const int *rows,
                             size_t k, const double *res, double *x) {
  size_t n = s->n;
  const double *J = w->out + s->o_J;
  lg_scratch_mark mark = lg_scratch_get_mark(&w->scratch);
  double *G = lg_scratch_alloc(&w->scratch, (k * k + k + 1) * sizeof *G);
  double *y = G ? G + k * k : NULL;
  lapack_int *ipiv = lg_scratch_alloc(&w->scratch, (k + 1) * sizeof *ipiv);
  if (!G || !ipiv) {
    lg_scratch_release(&w->scratch, mark);
    return -1;
  }
  for (size_t a = 0; a < k; a++) {
    y[a] = res[a];
    for (size_t b = 0; b < k; b++) {
      double acc = 0;
      for (size_t j = 0; j < n; j++) acc += J[rows[a] * n + j] * J[rows[b] * n + j];
      G[a * k + b] = acc;
    }
  }
  int ok = LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)k, 1, G, (lapack_int)k, ipiv, y, 1) == 0;
  for (size_t j = 0; ok && j < n; j++)
    for (size_t a = 0; a < k; a++) x[j] -= J[rows[a] * n + j] * y[a];
  lg_scratch_release(&w->scratch, mark);
  return ok;
}

static double max_abs(const double *x, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) m = fabs(x[i]) > m || isnan(x[i]) ? fabs(x[i]) : m;
  return m;
}

static lg_status project(const num_system *s, num_work *w, double t, double *q, double *qd,
                         double tol, int *rows, double *res, double *C, lg_diag *diag) {
  size_t m = s->m, k = 0;
  for (size_t r = 0; r < m; r++)
    if (s->row_holonomic[r]) rows[k++] = (int)r;
  for (int it = 0; k && it < 50; it++) {
    num_residuals(s, w, t, q, qd, C, NULL);
    for (size_t a = 0; a < k; a++) res[a] = C[rows[a]];
    if (max_abs(res, k) <= tol) break;
    int step = least_change_step(s, w, rows, k, res, q);
    if (step < 0) return LG_ERR_NOMEM;
    if (!step || it == 49) {
      lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                  "could not move the initial state onto the constraints "
                  "(Newton did not converge; residual %.3g)", max_abs(res, k));
      lg_diag_hint(diag, "start closer to a consistent configuration");
      return LG_ERR_NUMERIC;
    }
  }
  /* velocities: J q' + b is affine in q', so one step is exact */
  num_residuals(s, w, t, q, qd, NULL, C);
  for (size_t r = 0; r < m; r++) rows[r] = (int)r;
  int step = least_change_step(s, w, rows, m, C, qd);
  if (step < 0) return LG_ERR_NOMEM;
  if (!step) {
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                "the constraint Jacobian is rank deficient at the initial state");
    return LG_ERR_NUMERIC;
  }
  return LG_OK;
}

lg_status num_project(const num_system *s, num_work *w, double t, double *q, double *qd,
                      double tol, lg_diag *diag) {
  size_t m = s->m;
  if (!m) return LG_OK;
  lg_scratch_mark mark = lg_scratch_get_mark(&w->scratch);
  int *rows = lg_scratch_alloc(&w->scratch, m * sizeof *rows);
  double *res = lg_scratch_alloc(&w->scratch, 2 * m * sizeof *res);
  lg_status st = rows && res ? project(s, w, t, q, qd, tol, rows, res, res + m, diag)
                             : LG_ERR_NOMEM;
  if (st == LG_ERR_NOMEM) lg_diag_set(diag, LG_ERR_NOMEM, NULL, 0, 0, "out of memory");
  lg_scratch_release(&w->scratch, mark);
  return st;
}
