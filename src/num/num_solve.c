/* num_solve.c - the augmented acceleration solve with LAPACK. */
#include "num.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A = [[M, -J^T], [J, 0]], b = [f; gc], column-major (n+m)^2: LAPACK's
 * own layout, so LAPACKE neither copies nor allocates on every call. */
static void assemble(const num_system *s, num_work *w) {
  size_t n = s->n, m = s->m, N = n + m;
  const double *o = w->out;
  memset(w->A, 0, N * N * sizeof *w->A);
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) w->A[j * N + i] = o[s->o_M + i * n + j];
    for (size_t r = 0; r < m; r++) {
      double Jri = o[s->o_J + r * n + i];
      w->A[(n + r) * N + i] = -Jri;
      w->A[i * N + n + r] = Jri;
    }
    w->b[i] = o[s->o_f + i];
  }
  for (size_t r = 0; r < m; r++) w->b[n + r] = o[s->o_gc + r];
}

static int all_finite(const double *x, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* Cholesky solve of the column-major N x N matrix A (lower triangle read
 * and overwritten) and b, in place; nonzero (1 + the column) when A is
 * not positive definite. For the small matrices of most models the
 * reference LAPACK's dposv costs several times its arithmetic in calls
 * (dpotrf2's recursion, dtrsm, dsyrk, lsame, ilaenv): this plain loop is
 * what a right-hand side call wants below SMALL_N (and small_lu below,
 * for dgesv's dgetrf2, dtrsm, dgemm, dlaswp). */
#define SMALL_N 24
static lapack_int small_cholesky(size_t N, double *A, double *b) {
  for (size_t j = 0; j < N; j++) {
    double d = A[j * N + j];
    for (size_t k = 0; k < j; k++) d -= A[k * N + j] * A[k * N + j];
    if (!(d > 0)) return (lapack_int)j + 1;
    double l = sqrt(d);
    A[j * N + j] = l;
    for (size_t i = j + 1; i < N; i++) {
      double v = A[j * N + i];
      for (size_t k = 0; k < j; k++) v -= A[k * N + i] * A[k * N + j];
      A[j * N + i] = v / l;
    }
  }
  for (size_t i = 0; i < N; i++) { /* L y = b */
    double v = b[i];
    for (size_t k = 0; k < i; k++) v -= A[k * N + i] * b[k];
    b[i] = v / A[i * N + i];
  }
  for (size_t i = N; i-- > 0;) { /* L^T x = y */
    double v = b[i];
    for (size_t k = i + 1; k < N; k++) v -= A[i * N + k] * b[k];
    b[i] = v / A[i * N + i];
  }
  return 0;
}

/* LU with partial pivoting (the first largest magnitude, as LAPACK's
 * idamax picks) of the column-major N x N matrix A and the solve of b, in
 * place, for N <= SMALL_N: dgesv's answer without its calls. Returns 0,
 * or 1 + the first column whose pivot is exactly zero (dgetrf's info). */
static lapack_int small_lu(size_t N, double *A, double *b) {
  for (size_t j = 0; j < N; j++) {
    size_t p = j;
    for (size_t i = j + 1; i < N; i++)
      if (fabs(A[j * N + i]) > fabs(A[j * N + p])) p = i;
    if (A[j * N + p] == 0) return (lapack_int)j + 1;
    if (p != j) {
      for (size_t k = 0; k < N; k++) {
        double x = A[k * N + j];
        A[k * N + j] = A[k * N + p];
        A[k * N + p] = x;
      }
      double x = b[j];
      b[j] = b[p];
      b[p] = x;
    }
    double inv = 1 / A[j * N + j];
    for (size_t i = j + 1; i < N; i++) A[j * N + i] *= inv;
    for (size_t k = j + 1; k < N; k++) {
      double a = A[k * N + j];
      if (a != 0)
        for (size_t i = j + 1; i < N; i++) A[k * N + i] -= A[j * N + i] * a;
    }
    for (size_t i = j + 1; i < N; i++) b[i] -= A[j * N + i] * b[j];
  }
  for (size_t i = N; i-- > 0;) {
    double v = b[i];
    for (size_t k = i + 1; k < N; k++) v -= A[k * N + i] * b[k];
    b[i] = v / A[i * N + i];
  }
  return 0;
}

lg_status num_solve_accel(const num_system *s, num_work *w, double *qdd, double *lam,
                          lg_diag *diag) {
  size_t n = s->n, m = s->m, N = n + m;
  assemble(s, w);
  if (!all_finite(w->A, N * N) || !all_finite(w->b, N)) {
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                "the equations are not finite at this state (a division by zero, "
                "or a function outside its domain such as log of a negative number)");
    return LG_ERR_NUMERIC;
  }
  lapack_int info = 1;
  if (!m) { /* M is symmetric, positive definite for a physical system: Cholesky */
    if (N <= SMALL_N) info = small_cholesky(N, w->A, w->b);
    else info = LAPACKE_dposv_work(LAPACK_COL_MAJOR, 'L', (lapack_int)N, 1, w->A,
                                   (lapack_int)N, w->b, (lapack_int)N);
    if (info != 0) assemble(s, w); /* not positive definite: fall back to LU */
  }
  if (info != 0 && N <= SMALL_N) info = small_lu(N, w->A, w->b);
  else if (info != 0)
    info = LAPACKE_dgesv_work(LAPACK_COL_MAJOR, (lapack_int)N, 1, w->A, (lapack_int)N,
                              w->ipiv, w->b, (lapack_int)N);
  w->broke_at = info > 0 ? (long)info - 1 : -1;
  if (info > 0) {
    size_t k = (size_t)info - 1;
    char where[64];
    if (k < n) snprintf(where, sizeof where, "coordinate %s", s->coord_names[k]);
    else snprintf(where, sizeof where, "multiplier lam%zu", k - n + 1);
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                "the %s is singular at this state (elimination breaks down at %s)",
                m ? "augmented mass matrix [[M, -J^T], [J, 0]]" : "mass matrix", where);
    lg_diag_hint(diag, m ? "check that the constraints are independent and that every "
                           "coordinate carries inertia"
                         : "every coordinate needs inertia: check masses and inertias");
    num_orientation_singular(s, w->in + 1, diag); /* gimbal lock, not the masses */
    return LG_ERR_NUMERIC;
  }
  if (info < 0) {
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0, "LAPACK dgesv failed (%d)", (int)info);
    return LG_ERR_NUMERIC;
  }
  memcpy(qdd, w->b, n * sizeof *qdd);
  if (lam) memcpy(lam, w->b + n, m * sizeof *lam);
  return LG_OK;
}

/* The augmented matrix's reciprocal condition number (1-norm, LAPACK's
 * estimate) after num_evaluate*, and the unknown whose pivot is smallest
 * (a coordinate i < n or a multiplier n + r): where a motion that slows
 * the integrator to a halt has become singular. pivot and norm: the
 * smallest pivot's magnitude and the 1-norm (the condition number of a
 * 1 x 1 matrix is 1, however small: compare the pivot with the norm at
 * t0). */
double num_accel_rcond(const num_system *s, num_work *w, long *where, double *pivot,
                       double *norm) {
  size_t N = s->n + s->m;
  assemble(s, w);
  *where = -1;
  *pivot = *norm = 0;
  if (!all_finite(w->A, N * N)) return 0;
  double anorm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', (lapack_int)N, (lapack_int)N, w->A,
                                (lapack_int)N);
  lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)N, (lapack_int)N, w->A,
                                   (lapack_int)N, w->ipiv);
  double best = INFINITY, rcond = 0;
  for (size_t k = 0; k < N; k++)
    if (fabs(w->A[k * N + k]) < best) {
      best = fabs(w->A[k * N + k]);
      *where = (long)k;
    }
  *pivot = best;
  *norm = anorm;
  if (info < 0 || info > 0) return 0;
  if (LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', (lapack_int)N, w->A, (lapack_int)N, anorm,
                     &rcond) != 0)
    return 0;
  return rcond;
}
