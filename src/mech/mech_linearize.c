/* mech_linearize.c - A and B as expressions of the operating point and the
 * parameters (lagrange linearize --symbolic).
 *
 * The same algebra as the numeric linearization (num_linearize.c), over
 * expressions: the augmented equations Phi = [M q'' - J^T lam - f; J q''
 * - gc] = 0 define q'' and lam, and their derivatives follow from
 * Aug [dq''/dz; dlam/dz] = -dPhi/dz with Aug = [[M, -J^T], [J, 0]]. The
 * dependent coordinates and rates are eliminated through the constraint
 * Jacobians. The split into dependent and independent variables is given
 * (chosen numerically by the caller).
 *
 * Nothing is expanded or simplified: M, f, J are differentiated as derived
 * (memoized chain rule), and every solve is one Gauss-Jordan elimination
 * pivoted on the values at the operating point (sym_matrix_solve_at), so
 * that q'', lam and the columns of dq''/dz are DAGs polynomial in the
 * system's size over M's and f's entries, never an explicit inverse
 * multiplied out. [q''; lam] and [dq''/dz] come from one elimination of
 * [Aug | (f; gc) | -dPhi], dPhi taken with q'' and lam as atoms and the
 * solved q'' and lam put in afterwards, so that they are shared nodes
 * wherever they appear: a printout names them once (mech_print_matrices).
 *
 * Inputs are treated as the numeric linearization treats them: in the
 * dynamics an input r stays an atom (B = d/dr) while its derivatives r',
 * r'' become those of its law; in the constraints it is its law (or its
 * --set value). In the result the coordinates, rates, inputs and t stand
 * for their values at the operating point.
 */
#include "mech_internal.h"

#include <string.h>

/* ---- small matrix helpers ------------------------------------------------------------- */
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

/* The values of the square block of the rows `rows` (NULL: all) and the
 * columns with keep[j] set, of the values v (r x cols, row-major). */
static double *block_values(const double *v, size_t r, size_t cols, const int *rows,
                            const int *keep) {
  size_t k = 0, nr = 0;
  for (size_t j = 0; j < cols; j++) k += keep[j] != 0;
  for (size_t i = 0; i < r; i++) nr += !rows || rows[i];
  double *res = lg_malloc((k * nr + 1) * sizeof *res);
  for (size_t i = 0, a = 0; res && i < r; i++) {
    if (rows && !rows[i]) continue;
    for (size_t j = 0, b = 0; j < cols; j++)
      if (keep[j]) res[a * k + b++] = v[i * cols + j];
    a++;
  }
  return res;
}

/* P (n x k): rows where dep[j] come from d (ndep x k), the others from
 * ind (n - ndep x k), or zero when ind is NULL. */
static sym_matrix *interleave(sym_ctx *c, const int *dep, size_t n, const sym_matrix *ind,
                              const sym_matrix *d, size_t k) {
  sym_matrix *r = sym_matrix_new(c, n, k);
  for (size_t j = 0, a = 0, b = 0; r && j < n; j++) {
    const sym_matrix *src = dep[j] ? d : ind;
    size_t row = dep[j] ? b++ : a++;
    for (size_t col = 0; src && col < k; col++) SYM_AT(r, j, col) = SYM_AT(src, row, col);
  }
  return r;
}

static sym_matrix *negate(sym_ctx *c, const sym_matrix *a) {
  sym_matrix *r = a ? sym_matrix_new(c, a->rows, a->cols) : NULL;
  for (size_t i = 0; r && i < a->rows * a->cols; i++) r->e[i] = sym_neg(c, a->e[i]);
  return r;
}

/* [a | b] */
static sym_matrix *beside(sym_ctx *c, const sym_matrix *a, const sym_matrix *b) {
  sym_matrix *r = a && b ? sym_matrix_new(c, a->rows, a->cols + b->cols) : NULL;
  for (size_t i = 0; r && i < a->rows; i++) {
    for (size_t j = 0; j < a->cols; j++) SYM_AT(r, i, j) = SYM_AT(a, i, j);
    for (size_t j = 0; j < b->cols; j++) SYM_AT(r, i, a->cols + j) = SYM_AT(b, i, j);
  }
  return r;
}

/* columns [from, from + k) of a */
static sym_matrix *slice(sym_ctx *c, const sym_matrix *a, size_t from, size_t k) {
  sym_matrix *r = a ? sym_matrix_new(c, a->rows, k) : NULL;
  for (size_t i = 0; r && i < a->rows; i++)
    for (size_t j = 0; j < k; j++) SYM_AT(r, i, j) = SYM_AT(a, i, from + j);
  return r;
}

/* ---- the pieces, inputs treated as the numeric linearization does ----------------------- */
typedef struct lin_parts {
  const sym_node **J;   /* m x n, inputs by their laws */
  const sym_node **gc;  /* m */
  const sym_node **Cd;  /* m: each row's velocity form */
  const sym_node **M;   /* n x n, input derivatives by their laws' */
  const sym_node **f;   /* n */
} lin_parts;

/* from/to for the inputs' orders lo..2: order k becomes the k-th time
 * derivative of the law (the --set value when set). */
static size_t input_map(mech_model *m, const mech_setting *set, size_t nset, int lo,
                        const sym_node **from, const sym_node **to) {
  sym_ctx *c = m->c;
  size_t k = 0;
  for (size_t i = 0; i < m->inputs.n; i++) {
    const mech_setting *s = mech_find_setting(set, nset, mech_input_name(m, i));
    const sym_node *law = s ? sym_float(c, s->value) : mech_input_law(m, i);
    for (int order = 0; order <= 2; order++) {
      if (order >= lo) {
        from[k] = mech_input(m, i, order);
        to[k++] = law;
      }
      law = sym_dt(c, law);
    }
  }
  return k;
}

static lg_status subst_all(sym_ctx *c, size_t nmap, const sym_node **from, const sym_node **to,
                           const sym_node **v, size_t k) {
  if (!nmap) return LG_OK;
  sym_subst_cache sc;
  if (sym_subst_cache_init(&sc, nmap, from, to) != LG_OK) return LG_ERR_NOMEM;
  for (size_t i = 0; i < k; i++) v[i] = sym_subst_cached(c, &sc, v[i]);
  sym_subst_cache_free(&sc);
  return sym_ctx_error(c);
}

static lg_status make_parts(mech_model *m, const mech_eom *e, const mech_setting *set,
                            size_t nset, lin_parts *p) {
  sym_ctx *c = m->c;
  size_t n = e->n, mm = e->m, ni = m->inputs.n;
  const sym_node **all = lg_arena_alloc(&m->arena, (mm * n + 2 * mm + n * n + n + 1) *
                                                       sizeof *all);
  const sym_node **from = lg_malloc((3 * ni + 1) * sizeof *from);
  const sym_node **to = lg_malloc((3 * ni + 1) * sizeof *to);
  lg_status st = all && from && to ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) {
    p->J = all;
    p->gc = p->J + mm * n;
    p->Cd = p->gc + mm;
    p->M = p->Cd + mm;
    p->f = p->M + n * n;
    if (mm) memcpy(p->J, e->J->e, mm * n * sizeof *all);
    for (size_t r = 0; r < mm; r++) {
      p->gc[r] = e->gc[r];
      p->Cd[r] = e->kind[r] == MECH_HOLONOMIC ? sym_dt(c, e->C[r]) : e->C[r];
    }
    memcpy(p->M, e->M->e, n * n * sizeof *all);
    memcpy(p->f, e->f, n * sizeof *all);
    size_t k = input_map(m, set, nset, 0, from, to);
    st = subst_all(c, k, from, to, p->J, mm * n + 2 * mm);
  }
  if (st == LG_OK) {
    size_t k = input_map(m, set, nset, 1, from, to);
    st = subst_all(c, k, from, to, p->M, n * n + n);
  }
  lg_free(from);
  lg_free(to);
  return st == LG_OK ? sym_ctx_error(c) : st;
}

/* ---- q'', lam and their derivatives --------------------------------------------------- */
/* Row k of Phi with q'' and lam as atoms. */
static const sym_node *phi(sym_ctx *c, const mech_eom *e, const lin_parts *p, size_t k) {
  size_t n = e->n, mm = e->m;
  const sym_node *acc = sym_int(c, 0);
  if (k < n) {
    for (size_t j = 0; j < n; j++) acc = sym_add(c, acc, sym_mul(c, p->M[k * n + j], e->qdd[j]));
    for (size_t r = 0; r < mm; r++) acc = sym_sub(c, acc, sym_mul(c, p->J[r * n + k], e->lam[r]));
    return sym_sub(c, acc, p->f[k]);
  }
  for (size_t j = 0; j < n; j++)
    acc = sym_add(c, acc, sym_mul(c, p->J[(k - n) * n + j], e->qdd[j]));
  return sym_sub(c, acc, p->gc[k - n]);
}

/* G (n x (2n + nr)) = dq''/d[q, q', r], with q'' and lam solved: one
 * elimination of [Aug | (f; gc) | -dPhi]. aug_val: Aug at the point. */
static sym_matrix *accel_jacobian(mech_model *m, const mech_eom *e, const lin_parts *p,
                                  const double *aug_val, int *sing) {
  sym_ctx *c = m->c;
  size_t n = e->n, mm = e->m, N = n + mm, nr = m->inputs.n, K = 2 * n + nr;
  sym_matrix *aug = sym_matrix_new(c, N, N), *rhs = sym_matrix_new(c, N, 1 + K);
  if (!aug || !rhs) return NULL;
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < N; j++) {
      const sym_node *v = sym_int(c, 0);
      if (i < n && j < n) v = p->M[i * n + j];
      else if (i < n) v = sym_neg(c, p->J[(j - n) * n + i]);
      else if (j < n) v = p->J[(i - n) * n + j];
      SYM_AT(aug, i, j) = v;
    }
  for (size_t i = 0; i < N; i++) {
    SYM_AT(rhs, i, 0) = i < n ? p->f[i] : p->gc[i - n];
    const sym_node *row = phi(c, e, p, i);
    for (size_t j = 0; j < K; j++) {
      const sym_node *v = j < n ? e->q[j] : j < 2 * n ? e->qd[j - n] : mech_input(m, j - 2 * n, 0);
      SYM_AT(rhs, i, 1 + j) = sym_neg(c, sym_diff(c, row, v));
    }
  }
  sym_matrix *x = sym_matrix_solve_at(c, aug, rhs, aug_val, sing);
  const sym_node **from = lg_malloc((N + 1) * sizeof *from), **to = lg_malloc((N + 1) * sizeof *to);
  sym_matrix *G = x ? sym_matrix_new(c, n, K) : NULL;
  sym_subst_cache sc;
  int ok = G && from && to;
  for (size_t i = 0; ok && i < N; i++) {
    from[i] = i < n ? e->qdd[i] : e->lam[i - n];
    to[i] = SYM_AT(x, i, 0);
  }
  ok = ok && sym_subst_cache_init(&sc, N, from, to) == LG_OK;
  for (size_t i = 0; ok && i < n; i++)
    for (size_t j = 0; j < K; j++) SYM_AT(G, i, j) = sym_subst_cached(c, &sc, SYM_AT(x, i, 1 + j));
  if (ok) sym_subst_cache_free(&sc);
  lg_free(from);
  lg_free(to);
  return ok ? G : NULL;
}

/* ---- eliminating the dependent variables ---------------------------------------------- */
/* P_q (n x nqi): dq = P_q dq_i through the holonomic rows of J. */
static sym_matrix *holonomic_map(mech_model *m, const mech_eom *e, const lin_parts *p,
                                 const double *J_val, const int *dep_q, size_t nqi, int *sing) {
  sym_ctx *c = m->c;
  size_t n = e->n, mm = e->m, mh = 0;
  int *hol = lg_calloc(mm + 1, sizeof *hol);
  if (!hol) return NULL;
  for (size_t r = 0; r < mm; r++) mh += hol[r] = e->kind[r] == MECH_HOLONOMIC;
  sym_matrix *res = NULL, *Jh = mh ? sym_matrix_new(c, mh, n) : NULL;
  if (!mh) res = sym_matrix_identity(c, n);
  for (size_t r = 0, k = 0; Jh && r < mm; r++)
    if (hol[r]) {
      for (size_t j = 0; j < n; j++) SYM_AT(Jh, k, j) = p->J[r * n + j];
      k++;
    }
  double *v = Jh ? block_values(J_val, mm, n, hol, dep_q) : NULL;
  sym_matrix *D = v ? sym_matrix_solve_at(c, columns(c, Jh, dep_q, 1),
                                          negate(c, columns(c, Jh, dep_q, 0)), v, sing) : NULL;
  if (D) res = interleave(c, dep_q, n, sym_matrix_identity(c, nqi), D, nqi);
  lg_free(v);
  lg_free(hol);
  return res;
}

/* dq' = Vq dq + Vu du_i through every row's velocity form J q' + ... = 0:
 * one elimination of [J_D | -dCd/dq | -J_I]. */
static int velocity_maps(mech_model *m, const mech_eom *e, const lin_parts *p, const double *J_val,
                         const int *dep_v, size_t nui, sym_matrix **Vq, sym_matrix **Vu,
                         int *sing) {
  sym_ctx *c = m->c;
  size_t n = e->n, mm = e->m;
  if (!mm) {
    *Vq = sym_matrix_new(c, n, n);
    *Vu = sym_matrix_identity(c, n);
    return *Vq && *Vu;
  }
  sym_matrix J = {mm, n, p->J}, *Cdq = sym_matrix_new(c, mm, n);
  for (size_t r = 0; Cdq && r < mm; r++)
    for (size_t j = 0; j < n; j++) SYM_AT(Cdq, r, j) = sym_diff(c, p->Cd[r], e->q[j]);
  double *v = block_values(J_val, mm, n, NULL, dep_v);
  sym_matrix *rhs = beside(c, negate(c, Cdq), negate(c, columns(c, &J, dep_v, 0)));
  sym_matrix *X = v && rhs ? sym_matrix_solve_at(c, columns(c, &J, dep_v, 1), rhs, v, sing) : NULL;
  lg_free(v);
  if (!X) return 0;
  *Vq = interleave(c, dep_v, n, NULL, slice(c, X, 0, n), n);
  *Vu = interleave(c, dep_v, n, sym_matrix_identity(c, nui), slice(c, X, n, nui), nui);
  return *Vq && *Vu;
}

/* ---- A and B ---------------------------------------------------------------------------- */
/* A = [[rows q_i of (Q | Vu)], [rows u_i of (Gq Pq + Gv Q | Gv Vu)]], B's
 * rows u_i from Gr, with Q = Vq Pq. */
static lg_status assemble(mech_model *m, const mech_eom *e, const sym_matrix *G,
                          const sym_matrix *Pq, const sym_matrix *Vq, const sym_matrix *Vu,
                          const int *dep_q, const int *dep_v, size_t nqi, size_t nui,
                          sym_matrix **A, sym_matrix **B) {
  sym_ctx *c = m->c;
  size_t n = e->n, nr = m->inputs.n, nx = nqi + nui;
  sym_matrix *Gq = slice(c, G, 0, n), *Gv = slice(c, G, n, n), *Gr = slice(c, G, 2 * n, nr);
  sym_matrix *Q = sym_matrix_mul(c, Vq, Pq), *GP = sym_matrix_mul(c, Gq, Pq);
  sym_matrix *GQ = Q ? sym_matrix_mul(c, Gv, Q) : NULL, *GV = sym_matrix_mul(c, Gv, Vu);
  *A = sym_matrix_new(c, nx, nx);
  *B = sym_matrix_new(c, nx, nr);
  if (!Gr || !Q || !GP || !GQ || !GV || !*A || !*B) return LG_ERR_NOMEM;
  for (size_t j = 0, a = 0, u = nqi; j < n; j++) {
    if (!dep_q[j]) {
      for (size_t col = 0; col < nqi; col++) SYM_AT(*A, a, col) = SYM_AT(Q, j, col);
      for (size_t col = 0; col < nui; col++) SYM_AT(*A, a, nqi + col) = SYM_AT(Vu, j, col);
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
  return sym_ctx_error(c);
}

lg_status mech_linearize(mech_model *m, const mech_eom *e, const mech_lin_guide *g,
                         const int *dep_q, const int *dep_v, sym_matrix **A, sym_matrix **B) {
  sym_ctx *c = m->c;
  size_t n = e->n, mm = e->m, N = n + mm, mh = 0;
  for (size_t r = 0; r < mm; r++) mh += e->kind[r] == MECH_HOLONOMIC;
  size_t nqi = n - mh, nui = n - mm;
  *A = *B = NULL;
  int sing = 0;
  lin_parts p;
  lg_status st = make_parts(m, e, g->set, g->nset, &p);
  if (st != LG_OK) return st;
  /* Aug's values at the point guide the pivots */
  double *aug = lg_calloc(N * N + 1, sizeof *aug);
  if (!aug) return LG_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) aug[i * N + j] = g->M[i * n + j];
    for (size_t r = 0; r < mm; r++) {
      aug[i * N + n + r] = -g->J[r * n + i];
      aug[(n + r) * N + i] = g->J[r * n + i];
    }
  }
  sym_matrix *G = accel_jacobian(m, e, &p, aug, &sing);
  lg_free(aug);
  sym_matrix *Pq = G ? holonomic_map(m, e, &p, g->J, dep_q, nqi, &sing) : NULL, *Vq = NULL,
             *Vu = NULL;
  if (Pq && velocity_maps(m, e, &p, g->J, dep_v, nui, &Vq, &Vu, &sing))
    st = assemble(m, e, G, Pq, Vq, Vu, dep_q, dep_v, nqi, nui, A, B);
  else
    st = sing ? LG_ERR_NUMERIC : LG_ERR_NOMEM;
  return st == LG_OK ? sym_ctx_error(c) : st;
}
