/* mech_linearize.c - A and B as expressions of the operating point and the
 * parameters (lagrange linearize --symbolic).
 *
 * The same algebra as the numeric linearization (num_linearize.c), over
 * expressions: q'' and lam solved from the augmented system, their
 * derivatives by implicit differentiation of Phi = [M q'' - J^T lam - f;
 * J q'' - gc], the dependent coordinates and rates eliminated through the
 * constraint Jacobians. The split into dependent and independent variables
 * is given (chosen numerically by the caller). The coordinates and rates
 * in the result stand for their values at the operating point, the inputs
 * for theirs.
 */
#include "mech_internal.h"

#include <string.h>

/* a (r x c) with the columns where keep[j] == want, in order */
static sym_matrix *columns(sym_ctx *c, const sym_matrix *a, const int *keep, int want) {
  size_t k = 0;
  for (size_t j = 0; j < a->cols; j++) k += (keep[j] != 0) == want;
  sym_matrix *r = sym_matrix_new(c, a->rows, k);
  for (size_t i = 0; r && i < a->rows; i++)
    for (size_t j = 0, col = 0; j < a->cols; j++)
      if ((keep[j] != 0) == want) SYM_AT(r, i, col++) = SYM_AT(a, i, j);
  return r;
}

/* P (n x k): rows where dep[j] come from d (ndep x k), the others from
 * ind (n - ndep x k). */
static sym_matrix *interleave(sym_ctx *c, const int *dep, size_t n, const sym_matrix *ind,
                              const sym_matrix *d, size_t k) {
  sym_matrix *r = sym_matrix_new(c, n, k);
  for (size_t j = 0, a = 0, b = 0; r && j < n; j++) {
    const sym_matrix *src = dep[j] ? d : ind;
    size_t row = dep[j] ? b++ : a++;
    for (size_t col = 0; col < k; col++) SYM_AT(r, j, col) = src ? SYM_AT(src, row, col) : NULL;
  }
  return r;
}

static sym_matrix *negate(sym_ctx *c, const sym_matrix *a) {
  sym_matrix *r = sym_matrix_new(c, a->rows, a->cols);
  for (size_t i = 0; r && i < a->rows * a->cols; i++) r->e[i] = sym_neg(c, a->e[i]);
  return r;
}

/* The augmented matrix and Phi with q'' and lam as atoms. */
static sym_matrix *augmented(sym_ctx *c, const mech_eom *e) {
  size_t n = e->n, m = e->m, N = n + m;
  sym_matrix *a = sym_matrix_new(c, N, N);
  for (size_t i = 0; a && i < N; i++)
    for (size_t j = 0; j < N; j++) {
      const sym_node *v = sym_int(c, 0);
      if (i < n && j < n) v = SYM_AT(e->M, i, j);
      else if (i < n) v = sym_neg(c, SYM_AT(e->J, j - n, i));
      else if (j < n) v = SYM_AT(e->J, i - n, j);
      SYM_AT(a, i, j) = v;
    }
  return a;
}

static const sym_node *phi(sym_ctx *c, const mech_eom *e, size_t k) {
  size_t n = e->n;
  const sym_node *acc = sym_int(c, 0);
  if (k < n) {
    for (size_t j = 0; j < n; j++) acc = sym_add(c, acc, sym_mul(c, SYM_AT(e->M, k, j), e->qdd[j]));
    for (size_t r = 0; r < e->m; r++)
      acc = sym_sub(c, acc, sym_mul(c, SYM_AT(e->J, r, k), e->lam[r]));
    return sym_sub(c, acc, e->f[k]);
  }
  for (size_t j = 0; j < n; j++)
    acc = sym_add(c, acc, sym_mul(c, SYM_AT(e->J, k - n, j), e->qdd[j]));
  return sym_sub(c, acc, e->gc[k - n]);
}

lg_status mech_linearize(mech_model *m, const mech_eom *e, const int *dep_q, const int *dep_v,
                         sym_matrix **A, sym_matrix **B) {
  sym_ctx *c = m->c;
  size_t n = e->n, mm = e->m, N = n + mm, nr = m->inputs.n, mh = 0, nqi, nui;
  for (size_t r = 0; r < mm; r++) mh += e->kind[r] == MECH_HOLONOMIC;
  nqi = n - mh;
  nui = n - mm;
  int sing = 0;
  /* q'' and lam, and X = -Aug^-1 [Phi_q | Phi_v | Phi_r] with them in place */
  sym_matrix *aug = augmented(c, e), *rhs = sym_matrix_new(c, N, 1);
  sym_matrix *dphi = sym_matrix_new(c, N, 2 * n + nr);
  const sym_node **from = lg_malloc((N + 1) * sizeof *from), **to = lg_malloc((N + 1) * sizeof *to);
  if (!aug || !rhs || !dphi || !from || !to) goto oom;
  for (size_t i = 0; i < N; i++) SYM_AT(rhs, i, 0) = i < n ? e->f[i] : e->gc[i - n];
  sym_matrix *sol = sym_matrix_solve(c, aug, rhs, &sing);
  if (!sol) goto fail;
  for (size_t i = 0; i < N; i++) {
    from[i] = i < n ? e->qdd[i] : e->lam[i - n];
    to[i] = sym_simplify(c, SYM_AT(sol, i, 0));
  }
  for (size_t i = 0; i < N; i++) {
    const sym_node *row = phi(c, e, i);
    for (size_t j = 0; j < 2 * n + nr; j++) {
      const sym_node *v = j < n ? e->q[j] : j < 2 * n ? e->qd[j - n] : mech_input(m, j - 2 * n, 0);
      SYM_AT(dphi, i, j) = sym_subst(c, sym_neg(c, sym_diff(c, row, v)), N, from, to);
    }
  }
  sym_matrix *X = sym_matrix_solve(c, aug, dphi, &sing);
  if (!X) goto fail;
  /* dq = P_q dq_i through the holonomic rows of J */
  sym_matrix *Pq = sym_matrix_identity(c, n);
  if (mh) {
    sym_matrix *Jh = sym_matrix_new(c, mh, n);
    for (size_t r = 0, k = 0; Jh && r < mm; r++)
      if (e->kind[r] == MECH_HOLONOMIC) {
        for (size_t j = 0; j < n; j++) SYM_AT(Jh, k, j) = SYM_AT(e->J, r, j);
        k++;
      }
    sym_matrix *D = Jh ? sym_matrix_solve(c, columns(c, Jh, dep_q, 1),
                                          negate(c, columns(c, Jh, dep_q, 0)), &sing) : NULL;
    if (!D) goto fail;
    Pq = interleave(c, dep_q, n, sym_matrix_identity(c, nqi), D, nqi);
  }
  /* dq' = Vq dq + Vu du_i through every row's velocity form */
  sym_matrix *Vq = sym_matrix_new(c, n, n), *Vu = sym_matrix_identity(c, n);
  if (!Pq || !Vq || !Vu) goto oom;
  if (mm) {
    sym_matrix *Cdq = sym_matrix_new(c, mm, n);
    for (size_t r = 0; Cdq && r < mm; r++) {
      const sym_node *cd = e->kind[r] == MECH_HOLONOMIC ? sym_dt(c, e->C[r]) : e->C[r];
      for (size_t j = 0; j < n; j++) SYM_AT(Cdq, r, j) = sym_diff(c, cd, e->q[j]);
    }
    const sym_matrix *AD = columns(c, e->J, dep_v, 1);
    sym_matrix *Dq = Cdq ? sym_matrix_solve(c, AD, negate(c, Cdq), &sing) : NULL;
    sym_matrix *Du = sym_matrix_solve(c, AD, negate(c, columns(c, e->J, dep_v, 0)), &sing);
    if (!Dq || !Du) goto fail;
    Vq = interleave(c, dep_v, n, NULL, Dq, n);
    for (size_t i = 0; Vq && i < n * n; i++)
      if (!Vq->e[i]) Vq->e[i] = sym_int(c, 0);
    Vu = interleave(c, dep_v, n, sym_matrix_identity(c, nui), Du, nui);
  }
  if (!Vq || !Vu) goto oom;
  /* A = [[rows q_i of (Q | Vu)], [rows u_i of (Gq Pq + Gv Q | Gv Vu)]], B likewise */
  sym_matrix *Gq = sym_matrix_new(c, n, n), *Gv = sym_matrix_new(c, n, n);
  sym_matrix *Gr = sym_matrix_new(c, n, nr ? nr : 1);
  if (!Gq || !Gv || !Gr) goto oom;
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) {
      SYM_AT(Gq, i, j) = SYM_AT(X, i, j);
      SYM_AT(Gv, i, j) = SYM_AT(X, i, n + j);
    }
    for (size_t j = 0; j < nr; j++) SYM_AT(Gr, i, j) = SYM_AT(X, i, 2 * n + j);
  }
  sym_matrix *Q = sym_matrix_mul(c, Vq, Pq), *GP = sym_matrix_mul(c, Gq, Pq);
  sym_matrix *GQ = Q ? sym_matrix_mul(c, Gv, Q) : NULL, *GV = sym_matrix_mul(c, Gv, Vu);
  size_t nx = nqi + nui;
  *A = sym_matrix_new(c, nx, nx);
  *B = sym_matrix_new(c, nx, nr);
  if (!Q || !GP || !GQ || !GV || !*A || !*B) goto oom;
  for (size_t j = 0, a = 0, u = nqi; j < n; j++) {
    if (!dep_q[j]) {
      for (size_t col = 0; col < nqi; col++) SYM_AT(*A, a, col) = SYM_AT(Q, j, col);
      for (size_t col = 0; col < nui; col++) SYM_AT(*A, a, nqi + col) = SYM_AT(Vu, j, col);
      for (size_t col = 0; col < nr; col++) SYM_AT(*B, a, col) = sym_int(c, 0);
      a++;
    }
    if (!dep_v[j]) {
      for (size_t col = 0; col < nqi; col++)
        SYM_AT(*A, u, col) = sym_add(c, SYM_AT(GP, j, col), SYM_AT(GQ, j, col));
      for (size_t col = 0; col < nui; col++) SYM_AT(*A, u, nqi + col) = SYM_AT(GV, j, col);
      for (size_t col = 0; col < nr; col++) SYM_AT(*B, u, col) = SYM_AT(Gr, j, col);
      u++;
    }
  }
  *A = sym_matrix_map(c, *A, sym_simplify);
  if (nr) *B = sym_matrix_map(c, *B, sym_simplify);
  lg_free(from);
  lg_free(to);
  return *A && *B && sym_ctx_error(c) == LG_OK ? LG_OK : LG_ERR_NOMEM;
fail:
  lg_free(from);
  lg_free(to);
  return sing ? LG_ERR_NUMERIC : LG_ERR_NOMEM;
oom:
  lg_free(from);
  lg_free(to);
  return LG_ERR_NOMEM;
}
