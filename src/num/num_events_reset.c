/* num_events_reset.c - the state after an event's resets made consistent
 * with the model's constraints: positions back onto C(q, t) = 0 when a
 * reset moved a coordinate (Gauss-Newton in the mass-matrix metric: the
 * least change of q in the metric of M, as the rates'), or an error at the
 * `when` statement; then the rates by the constraints' impulsive response
 * (num_events_project_rates). */
#include "num.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

/* Past this a reset has broken a configuration constraint (the initial
 * state's test uses the same figure); below it the positions are projected
 * without a word. */
static const double BROKEN_TOL = 1e-9;
static const double POSITION_TOL = 1e-13;

/* The first fired event (statement order) that assigns a coordinate, or -1. */
static long moves_positions(const num_events *ev, const int *fired) {
  for (size_t i = 0; i < ev->nev; i++)
    for (size_t k = ev->off[i]; fired[i] && k < ev->off[i + 1]; k++)
      if (ev->target[k] < (int)ev->n) return (long)i;
  return -1;
}

/* The holonomic rows' largest |C| at (t, q) and which row (-1: none). */
static double worst_row(const num_system *s, num_work *w, double t, const double *q,
                        const double *qd, int *row) {
  num_evaluate_dynamics(s, w, t, q, qd);
  double worst = 0;
  *row = -1;
  for (size_t r = 0; r < s->m; r++) {
    double a = fabs(w->out[s->o_C + r]);
    if (s->row_holonomic[r] && (a > worst || isnan(a))) {
      worst = a;
      *row = (int)r;
    }
  }
  return worst;
}

/* One Gauss-Newton step at the state num_evaluate_dynamics left in w:
 * [[M, -J_h^T], [J_h, 0]] [d; mu] = [0; -C_h] over the k holonomic rows,
 * q += d. 0 when the matrix is singular (or no memory). */
static int position_step(const num_system *s, num_work *w, const int *rows, size_t k,
                         double *q) {
  size_t n = s->n, m = s->m, N = n + k;
  double *A = lg_calloc(N * N + n * (n + m) + N + 1, sizeof *A);
  double *MJ = A ? A + N * N : NULL, *rhs = A ? MJ + n * (n + m) : NULL;
  lapack_int *ipiv = lg_malloc((N + 1) * sizeof *ipiv);
  int ok = A && ipiv;
  if (ok) {
    num_mass_matrix(s, w, MJ); /* [M, -J^T] */
    const double *J = w->out + s->o_J;
    for (size_t i = 0; i < n; i++) {
      for (size_t j = 0; j < n; j++) A[i * N + j] = MJ[i * (n + m) + j];
      for (size_t a = 0; a < k; a++) A[i * N + n + a] = -J[(size_t)rows[a] * n + i];
    }
    for (size_t a = 0; a < k; a++) {
      for (size_t j = 0; j < n; j++) A[(n + a) * N + j] = J[(size_t)rows[a] * n + j];
      rhs[n + a] = -w->out[s->o_C + rows[a]];
    }
    ok = LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)N, 1, A, (lapack_int)N, ipiv, rhs, 1) == 0;
    for (size_t i = 0; ok && i < n; i++) q[i] += rhs[i];
  }
  lg_free(A);
  lg_free(ipiv);
  return ok;
}

static lg_status project_positions(const num_system *s, num_work *w, double t, double *q,
                                   const double *qd) {
  int *rows = lg_calloc(s->m + 1, sizeof *rows);
  if (!rows) return LG_ERR_NOMEM;
  size_t k = 0;
  for (size_t r = 0; r < s->m; r++)
    if (s->row_holonomic[r]) rows[k++] = (int)r;
  lg_status st = LG_ERR_NUMERIC;
  for (int it = 0; it < 50; it++) {
    int row;
    if (worst_row(s, w, t, q, qd, &row) <= POSITION_TOL) {
      st = LG_OK;
      break;
    }
    if (!position_step(s, w, rows, k, q)) break;
  }
  lg_free(rows);
  return st;
}

lg_status num_events_consistent(const num_system *s, num_work *w, const num_events *ev,
                                const int *fired, double t, double *q, double *qd,
                                int project, lg_diag *diag) {
  if (!s->m) return LG_OK;
  long i = moves_positions(ev, fired);
  int row;
  double worst = i >= 0 ? worst_row(s, w, t, q, qd, &row) : 0;
  if (i >= 0 && (worst > BROKEN_TOL || isnan(worst)) && !project) {
    lg_diag_set(diag, LG_ERR_MODEL, NULL, ev->where[2 * i], ev->where[2 * i + 1],
                "at t = %.10g this event's reset moves the coordinates off constraint C%d "
                "(|C%d| = %.3g after it)", t, row + 1, row + 1, worst);
    lg_diag_hint(diag, "assign the other coordinates too so that the constraint still "
                       "holds, or simulate with `project` to move the positions back "
                       "onto it");
    return LG_ERR_MODEL;
  }
  if (i >= 0 && worst > POSITION_TOL && project_positions(s, w, t, q, qd) != LG_OK) {
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, ev->where[2 * i], ev->where[2 * i + 1],
                "at t = %.10g the positions after this event's reset could not be moved "
                "back onto the constraints (Gauss-Newton did not converge)", t);
    lg_diag_hint(diag, "make the reset keep the constraints");
    return LG_ERR_NUMERIC;
  }
  if (num_events_project_rates(s, w, t, q, qd) != LG_OK) {
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                "at t = %.10g the rates after an event could not be made consistent with "
                "the constraints (the augmented mass matrix is singular)", t);
    return LG_ERR_NUMERIC;
  }
  return LG_OK;
}

double num_events_grid_tol(double rtol, double t, double dt) {
  return fmin(rtol, 1e-9) * (fabs(t) + fabs(dt));
}
