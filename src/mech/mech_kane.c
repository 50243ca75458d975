/* mech_kane.c - Kane's method: partial velocities of the (constrained)
 * velocities with respect to the independent speeds, generalized active
 * forces F_r and generalized inertia forces F*_r, F_r + F*_r = 0, written
 * as M u' + C = F.
 *
 * Steps: solve the kinematical equations for q' = k(q, u, t); pick
 * dependent speeds on the velocity-constraint matrix so that they stay
 * solvable over the motion (mech_kane_pivot.c), or take the declared ones,
 * and solve them in terms of the independent ones; substitute both into
 * every velocity before taking partial velocities and time derivatives.
 * mech_kane_derive_all gives the same equations for every speed, as if
 * unconstrained, for the numeric elimination over time (num_kane.c).
 * Energy terms written directly (T =, V =, D =, L =) enter through the
 * chain rule: their generalized forces along q are projected with dq'/du. */
#include "mech_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct kane_ctx {
  mech_model *m;
  sym_ctx *c;
  mech_kane *k;
  const char *file;
  lg_diag *diag;
  size_t n, nu;                 /* coordinates, all speeds */
  const sym_node **uall, **udall; /* nu speeds and their derivatives */
  const sym_node **kfull;       /* n: q' = k(q, u_all, t) */
  const sym_node **from, **to;  /* the substitution q' -> k~, u_D -> expr */
  size_t nsub;
  sym_subst_cache sigma_cache;  /* that substitution, shared by every use */
  sym_atom_value_fn pivot_value; /* optional: a state to pivot at */
  void *pivot_ud;
  int body_rates;               /* quaternions with body rates: norms not rows to eliminate */
  size_t *crow_src;             /* the model's row of each velocity constraint */
} kane_ctx;

static const sym_node **nodes(kane_ctx *K, size_t n) {
  const sym_node **a = lg_arena_alloc(&K->m->arena, (n ? n : 1) * sizeof *a);
  if (!a) K->m->oom = 1;
  for (size_t i = 0; a && i < n; i++) a[i] = sym_int(K->c, 0);
  return a;
}

static lg_status fail(kane_ctx *K, int line, int col, const char *msg, const char *hint) {
  lg_diag_set(K->diag, LG_ERR_MODEL, K->file, line, col, "%s", msg);
  if (hint) lg_diag_hint(K->diag, "%s", hint);
  return LG_ERR_MODEL;
}

/* sigma: q' -> k~(q, u_I, t) and u_D -> u_D(q, u_I, t) */
static const sym_node *sigma(kane_ctx *K, const sym_node *e) {
  return sym_subst_cached(K->c, &K->sigma_cache, e);
}
static const sym_node *sigma_cb(void *ud, const sym_node *e) { return sigma(ud, e); }
static mech_vec sigma_vec(kane_ctx *K, mech_vec v) {
  return mech_vec_map(K->m, v, sigma_cb, K);
}

/* ---- speeds and kinematics ----------------------------------------------------------- */
/* Solve a small block A x = b by Cramer's rule with every determinant and
 * cofactor simplified: for blocks of direction cosines the determinant
 * collapses to a constant and the cofactors to single entries, where
 * elimination would leave nested fractions that never simplify. */
static const sym_node *det3(sym_ctx *c, const sym_node *const *a, int k) {
  if (k == 1) return a[0];
  if (k == 2) return sym_sub(c, sym_mul(c, a[0], a[3]), sym_mul(c, a[1], a[2]));
  const sym_node *t[6] = {
      sym_mulv(c, 3, (const sym_node *[]){a[0], a[4], a[8]}),
      sym_mulv(c, 3, (const sym_node *[]){a[1], a[5], a[6]}),
      sym_mulv(c, 3, (const sym_node *[]){a[2], a[3], a[7]}),
      sym_neg(c, sym_mulv(c, 3, (const sym_node *[]){a[2], a[4], a[6]})),
      sym_neg(c, sym_mulv(c, 3, (const sym_node *[]){a[0], a[5], a[7]})),
      sym_neg(c, sym_mulv(c, 3, (const sym_node *[]){a[1], a[3], a[8]}))};
  return sym_addv(c, 6, t);
}

static int cramer(sym_ctx *c, const sym_node *const *A, const sym_node *const *b, int k,
                  const sym_node **x) {
  const sym_node *det = sym_simplify(c, det3(c, A, k));
  if (!det || sym_is_zero(det)) return 0;
  for (int j = 0; j < k; j++) {
    const sym_node *Aj[9];
    for (int r = 0; r < k; r++)
      for (int s = 0; s < k; s++) Aj[r * k + s] = s == j ? b[r] : A[r * k + s];
    x[j] = sym_simplify(c, sym_div(c, sym_simplify(c, det3(c, Aj, k)), det));
  }
  return 1;
}

/* A k x k block whose rows are orthogonal (A A^T simplifies to a diagonal
 * D): x = A^T D^-1 b. A quaternion's kinematics with body rates, 2 G(e) e'
 * = w and e.e' = 0, is such a block (D = diag(4|e|^2, 4|e|^2, 4|e|^2,
 * |e|^2)): e' = G^T w / (2 |e|^2), where elimination divides by whichever
 * parameter it pivots on and fails where that one is 0. */
static int orthogonal(sym_ctx *c, const sym_node *const *A, const sym_node *const *b, size_t k,
                      const sym_node **x) {
  const sym_node *d[16];
  if (k > 16) return 0;
  for (size_t i = 0; i < k; i++)
    for (size_t j = i; j < k; j++) {
      const sym_node *s = sym_int(c, 0);
      for (size_t l = 0; l < k; l++) s = sym_add(c, s, sym_mul(c, A[i * k + l], A[j * k + l]));
      s = sym_simplify(c, s);
      if (!s || (i != j && !sym_is_zero(s)) || (i == j && sym_is_zero(s))) return 0;
      if (i == j) d[i] = s;
    }
  for (size_t j = 0; j < k; j++) {
    const sym_node *s = sym_int(c, 0);
    for (size_t i = 0; i < k; i++)
      s = sym_add(c, s, sym_div(c, sym_mul(c, A[i * k + j], b[i]), d[i]));
    x[j] = sym_simplify(c, s);
  }
  return 1;
}

/* Rows and variables that couple, as blocks (a row joins the block of the
 * first variable it contains). Returns the block id of each row/var. */
static void find_blocks(const sym_matrix *A, int *rb, int *vb) {
  size_t n = A->rows;
  for (size_t i = 0; i < n; i++) {
    rb[i] = (int)i;          /* rows and variables start in separate blocks */
    vb[i] = (int)(n + i);
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++) {
        if (sym_is_zero(SYM_AT(A, i, j))) continue;
        int m = rb[i] < vb[j] ? rb[i] : vb[j];
        if (rb[i] != m || vb[j] != m) {
          rb[i] = vb[j] = m;
          changed = 1;
        }
      }
  }
}

/* Numeric copies of a matrix at sample states, to guide symbolic pivots:
 * ns samples, sample s entry (i, j) at v[(s * rows + i) * cols + j]. */
typedef struct guide {
  size_t ns, rows, cols;
  const double *v;
} guide;

/* The block (ri x vi, k square) of each sample, packed for
 * sym_matrix_solve_guided; NULL without a guide. */
static double *guide_block(kane_ctx *K, const guide *g, const size_t *ri, const size_t *vi,
                           size_t k) {
  if (!g || !g->ns) return NULL;
  double *b = lg_arena_alloc(&K->m->arena, (g->ns * k * k + 1) * sizeof *b);
  if (!b) K->m->oom = 1;
  for (size_t s = 0; b && s < g->ns; s++)
    for (size_t r = 0; r < k; r++)
      for (size_t c = 0; c < k; c++)
        b[(s * k + r) * k + c] = g->v[(s * g->rows + ri[r]) * g->cols + vi[c]];
  return b;
}

/* Solve rows (linear in the variables xs) for xs: xs = A^-1 (-rows|xs=0),
 * block by block; Cramer for blocks up to 3 (no pivots), elimination with
 * pivots guided by the samples in g (may be NULL) beyond. */
static const sym_node **solve_linear(kane_ctx *K, const sym_node *const *rows,
                                     const sym_node *const *xs, size_t n, int *singular,
                                     const guide *g) {
  sym_matrix *A = sym_matrix_jacobian(K->c, n, rows, n, xs);
  const sym_node **zeros = nodes(K, n), **b = nodes(K, n), **x = nodes(K, n);
  int *rb = lg_arena_alloc(&K->m->arena, (n + 1) * sizeof *rb);
  int *vb = lg_arena_alloc(&K->m->arena, (n + 1) * sizeof *vb);
  size_t *ri = lg_arena_alloc(&K->m->arena, (2 * n + 1) * sizeof *ri), *vi = ri + n;
  if (!A || !zeros || !b || !x || !rb || !vb || !ri) return NULL;
  for (size_t i = 0; i < n; i++) {
    b[i] = sym_neg(K->c, sym_subst(K->c, rows[i], n, xs, zeros));
    for (size_t j = 0; j < n; j++) SYM_AT(A, i, j) = sym_simplify(K->c, SYM_AT(A, i, j));
  }
  find_blocks(A, rb, vb);
  for (size_t blk = 0; blk < 2 * n; blk++) {
    size_t k = 0, kv = 0;
    for (size_t i = 0; i < n; i++) if (rb[i] == (int)blk) ri[k++] = i;
    for (size_t j = 0; j < n; j++) if (vb[j] == (int)blk) vi[kv++] = j;
    if (!k && !kv) continue;
    if (k != kv) { *singular = 1; return NULL; }
    sym_matrix *Ab = sym_matrix_new(K->c, k, k), *bb = sym_matrix_new(K->c, k, 1);
    if (!Ab || !bb) return NULL;
    for (size_t r = 0; r < k; r++) {
      SYM_AT(bb, r, 0) = b[ri[r]];
      for (size_t s = 0; s < k; s++) SYM_AT(Ab, r, s) = SYM_AT(A, ri[r], vi[s]);
    }
    const sym_node *xb[3];
    if (k <= 3 && cramer(K->c, Ab->e, bb->e, (int)k, xb)) {
      for (size_t s = 0; s < k; s++) x[vi[s]] = xb[s];
      continue;
    }
    const sym_node **xo = nodes(K, k);
    if (!xo) return NULL;
    if (k > 3 && orthogonal(K->c, Ab->e, bb->e, k, xo)) {
      for (size_t s = 0; s < k; s++) x[vi[s]] = xo[s];
      continue;
    }
    double *gb = guide_block(K, g, ri, vi, k);
    if (g && g->ns && !gb) return NULL;
    /* kept as eliminated: simplified, the Whipple bicycle's five dependent
     * speeds grew from 810 nodes to 30,000 (5 s, 45 MB of equations) */
    sym_matrix *sol = sym_matrix_solve_guided(K->c, Ab, bb, gb ? g->ns : 0, gb, 0, singular);
    if (!sol) return NULL;
    for (size_t s = 0; s < k; s++) x[vi[s]] = SYM_AT(sol, s, 0);
  }
  return x;
}

/* Whether row r is the unit norm of a quaternion whose four Euler
 * parameters are coordinates (lang: added after the model's own rows). */
static int coordinate_quaternion(const mech_model *m, size_t r) {
  const mech_row *row = &m->rows.v[r];
  for (int i = 0; i < 4; i++)
    if (!row->quat[i] || row->quat[i]->kind != SYM_COORD || row->quat[i]->order != 0) return 0;
  return 1;
}

static size_t count_quaternions(const mech_model *m) {
  size_t nq = 0;
  for (size_t r = 0; r < m->rows.n; r++) nq += (size_t)coordinate_quaternion(m, r);
  return nq;
}

/* The speeds and q' = k(q, u, t). With k speeds for n coordinates, n - k
 * of them quaternions' Euler parameters (body rates as speeds), each
 * quaternion adds the row e0 e0' + e1 e1' + e2 e2' + e3 e3' = 0 (the norm's
 * rate) after the model's k rows: together n rows for the n q'. */
static lg_status speeds(kane_ctx *K) {
  mech_model *m = K->m;
  size_t n = K->n, ns = m->speeds.n ? m->speeds.n : n, nq = n - ns;
  K->k->default_speeds = m->speeds.n == 0;
  K->nu = ns;
  K->uall = nodes(K, ns);
  K->udall = nodes(K, ns);
  K->kfull = nodes(K, n);
  if (!K->uall || !K->udall || !K->kfull) return LG_ERR_NOMEM;
  size_t nquat = count_quaternions(m);
  if (m->speeds.n && m->speeds.n != n &&
      (m->speeds.n > n || nq != nquat || !m->kinematics.n)) {
    char msg[200];
    snprintf(msg, sizeof msg, "Kane's method needs one speed per coordinate%s (%zu speed%s "
             "for %zu coordinates)", nquat ? ", or one fewer per quaternion" : "",
             m->speeds.n, m->speeds.n == 1 ? "" : "s", n);
    char hint[300];
    if (nquat && !m->kinematics.n && nq == nquat)
      snprintf(hint, sizeof hint, "with body rates as speeds, give one kinematical equation per "
               "speed: kinematics dot(angvel(B), B.x) = w1, ...");
    else if (nquat)
      snprintf(hint, sizeof hint, "declare %zu speeds (one per coordinate), or %zu (body rates: "
               "one fewer per quaternion, with their kinematical equations)", n, n - nquat);
    else
      snprintf(hint, sizeof hint, "declare %zu speeds, one per coordinate", n);
    return fail(K, m->speeds_line ? m->speeds_line : 1, m->speeds_line ? m->speeds_col : 1,
                msg, hint);
  }
  for (size_t i = 0; i < ns; i++) {
    const char *name = m->speeds.n ? m->speeds.v[i] : m->coords.v[i];
    int base = m->speeds.n ? 0 : 1; /* default: u_i = q_i' */
    K->uall[i] = sym_coord(K->c, name, base);
    K->udall[i] = sym_coord(K->c, name, base + 1);
  }
  if (!m->speeds.n) {
    memcpy(K->kfull, K->uall, n * sizeof *K->kfull);
    return LG_OK;
  }
  /* kinematical rows, default q_i' - u_i, then the quaternions' e.e' */
  const sym_node **rows = nodes(K, n);
  if (!rows) return LG_ERR_NOMEM;
  if (m->kinematics.n && m->kinematics.n != ns) {
    char msg[160];
    snprintf(msg, sizeof msg, "give one kinematical equation per speed (%zu speeds, %zu "
             "equations)", ns, m->kinematics.n);
    return fail(K, m->kinematics.v[0].line, m->kinematics.v[0].col, msg,
                nq ? "one row per speed; each quaternion's e.e' = 0 is added by the tool"
                   : "one row per coordinate, each relating q' and the speeds");
  }
  for (size_t i = 0; i < ns; i++)
    rows[i] = m->kinematics.n ? m->kinematics.v[i].e
                              : sym_sub(K->c, K->k->qd[i], K->uall[i]);
  for (size_t r = 0, i = ns; nq && r < m->rows.n; r++) {
    if (!coordinate_quaternion(m, r)) continue;
    const sym_node *t[4];
    for (int j = 0; j < 4; j++)
      t[j] = sym_mul(K->c, m->rows.v[r].quat[j], sym_dt(K->c, m->rows.v[r].quat[j]));
    rows[i++] = sym_addv(K->c, 4, t);
  }
  K->body_rates = nq != 0;
  int singular = 0;
  const sym_node **kq = solve_linear(K, rows, K->k->qd, n, &singular, NULL);
  if (!kq)
    return singular ? fail(K, m->kinematics.n ? m->kinematics.v[0].line : 1,
                           m->kinematics.n ? m->kinematics.v[0].col : 1,
                           "the kinematical equations cannot be solved for the q'",
                           "each q' must appear, linearly and independently")
                    : LG_ERR_NOMEM;
  memcpy(K->kfull, kq, n * sizeof *kq);
  /* the speeds from (q, q'), for eval's state: the model's own rows */
  const sym_node **us = solve_linear(K, rows, K->uall, ns, &singular, NULL);
  K->k->speed_of_qd = us;
  if (!us)
    return singular ? fail(K, m->kinematics.n ? m->kinematics.v[0].line : 1,
                           m->kinematics.n ? m->kinematics.v[0].col : 1,
                           "the kinematical equations cannot be solved for the speeds",
                           "each speed must appear, linearly and independently")
                    : LG_ERR_NOMEM;
  return LG_OK;
}

/* ---- velocity constraints: dependent speeds ----------------------------------------------- */
/* Velocity-level rows in terms of the speeds (q' -> k).
 * With body rates as speeds a quaternion's norm is left out: its rate
 * e.e' = 0 is one of the kinematical equations, so in the speeds its
 * velocity row vanishes identically (though it need not simplify to an
 * exact 0) and there is no speed for it to eliminate. It stays the model's
 * last holonomic C (columns, drift, the position projection of simulate),
 * with multiplier 0: forces reach e through the partial angular
 * velocities dw/de' = 2 G(e), and G(e) e = 0 (a change of e along itself
 * turns nothing), so no applied or inertia force acts along e, the norm's
 * gradient; Lagrange's equations here form the bodies' inertia forces with
 * the same partial velocities, and their multiplier of the norm is 0 as
 * well (the lam1 column of `lagrange simulate` of the torque-free top is
 * ~1e-16; a naive d/dt dT/de' - dT/de of T(e, e') would give -2T). */
static const sym_node **constraint_rows(kane_ctx *K, size_t *mrows) {
  mech_model *m = K->m;
  size_t r = 0;
  const sym_node **rows = nodes(K, m->rows.n);
  K->crow_src = lg_arena_alloc(&m->arena, (m->rows.n + 1) * sizeof *K->crow_src);
  if (!K->crow_src) rows = NULL;
  for (size_t i = 0; rows && i < m->rows.n; i++) {
    if (K->body_rates && coordinate_quaternion(m, i)) continue;
    K->crow_src[r] = i;
    const sym_node *e = m->rows.v[i].e;
    int has_qd = 0;
    for (size_t j = 0; j < K->n; j++) has_qd |= sym_has(e, K->k->qd[j]);
    for (size_t j = 0; j < K->nu; j++) has_qd |= sym_has(e, K->uall[j]); /* in speeds */
    if (!has_qd) e = sym_dt(K->c, e); /* holonomic: its time derivative */
    rows[r++] = sym_subst(K->c, e, K->n, K->k->qd, K->kfull);
  }
  *mrows = r;
  return rows;
}

/* Split the speeds by dep[] into independent u and dependent udep and
 * solve the velocity rows for udep, pivots guided by the samples of A. */
static lg_status solve_dependent(kane_ctx *K, const sym_node *const *rows, const int *dep, const double *vals, size_t ns, size_t m) {
  mech_kane *k = K->k;
  size_t nu = K->nu;
  k->p = nu - m;
  k->ndep = m;
  k->u = nodes(K, k->p);
  k->ud = nodes(K, k->p);
  k->udep = nodes(K, m);
  size_t *col = lg_arena_alloc(&K->m->arena, (m + 1) * sizeof *col);
  if (!k->u || !k->ud || !k->udep || !col) return LG_ERR_NOMEM;
  for (size_t c = 0, a = 0, b = 0; c < nu; c++) {
    if (dep[c]) {
      col[b] = c;
      k->udep[b++] = K->uall[c];
    } else {
      k->u[a] = K->uall[c];
      k->ud[a++] = K->udall[c];
    }
  }
  if (!m) return LG_OK;
  double *gv = lg_arena_alloc(&K->m->arena, (ns * m * m + 1) * sizeof *gv);
  if (!gv) return LG_ERR_NOMEM;
  for (size_t s = 0; s < ns; s++) /* A's dependent columns at each sample */
    for (size_t i = 0; i < m; i++)
      for (size_t d = 0; d < m; d++) gv[(s * m + i) * m + d] = vals[(s * m + i) * nu + col[d]];
  guide g = {ns, m, m, gv};
  int singular = 0;
  k->udep_expr = solve_linear(K, rows, k->udep, m, &singular, &g);
  if (k->udep_expr) return LG_OK;
  return singular ? fail(K, K->m->rows.v[K->crow_src[0]].line, K->m->rows.v[K->crow_src[0]].col,
                         "the velocity constraints cannot be solved for the dependent speeds",
                         "remove redundant constraints")
                  : LG_ERR_NOMEM;
}

/* The first constraint row that depends on the ones before it (at every
 * sample), as an error at its statement. */
static lg_status redundant_row(kane_ctx *K, const double *vals, size_t ns, size_t m, size_t nu,
                               int *dep) {
  size_t r = 0;
  for (; r < m; r++) {
    memset(dep, 0, nu * sizeof *dep);
    size_t got = mech_kane_pick(vals, ns, m, r + 1, nu, NULL, dep);
    if (got == (size_t)-1) return LG_ERR_NOMEM;
    if (got < r + 1) break;
  }
  if (r >= m) r = m - 1;
  return fail(K, K->m->rows.v[K->crow_src[r]].line, K->m->rows.v[K->crow_src[r]].col,
              "this constraint depends on the others (no speed left to eliminate)",
              "remove redundant constraints for Kane's method");
}

/* The speeds the model declares dependent: dep[] from them, checked to be
 * m distinct speeds whose columns of A are regular (at the sample states
 * and at the initial state). */
static lg_status declared_dependent(kane_ctx *K, const double *vals, size_t ns, size_t m,
                                    size_t nu, int *dep) {
  size_t nd = mech_ndeclared_dependent(K->m);
  int line0, col0, line, col;
  mech_declared_dependent(K->m, 0, &line0, &col0);
  int *allowed = lg_arena_alloc(&K->m->arena, (nu + 1) * sizeof *allowed);
  if (!allowed) return LG_ERR_NOMEM;
  memset(allowed, 0, (nu + 1) * sizeof *allowed);
  for (size_t d = 0; d < nd; d++) {
    size_t sp = mech_declared_dependent(K->m, d, &line, &col);
    if (sp >= nu || allowed[sp])
      return fail(K, line, col, sp >= nu ? "not a speed of this model" : "speed declared dependent twice", NULL);
    allowed[sp] = 1;
  }
  char msg[160];
  if (nd != m) {
    snprintf(msg, sizeof msg, "%zu dependent speed%s declared, but the constraints have %zu row%s",
             nd, nd == 1 ? "" : "s", m, m == 1 ? "" : "s");
    return fail(K, line0, col0, msg, "declare one dependent speed per constraint row");
  }
  memset(dep, 0, nu * sizeof *dep);
  size_t got = mech_kane_pick(vals, ns, m, m, nu, allowed, dep);
  if (got == (size_t)-1) return LG_ERR_NOMEM;
  if (got == m) { /* also regular at the initial state, when the rows are there */
    int *d0 = lg_arena_alloc(&K->m->arena, (nu + 1) * sizeof *d0);
    if (!d0) return LG_ERR_NOMEM;
    memset(d0, 0, (nu + 1) * sizeof *d0);
    if (mech_kane_pick(vals, 1, m, m, nu, NULL, d0) == m) {
      memset(d0, 0, (nu + 1) * sizeof *d0);
      if (mech_kane_pick(vals, 1, m, m, nu, allowed, d0) < m) got = 0;
    }
  }
  if (got < m)
    return fail(K, line0, col0,
                "the velocity constraints cannot be solved for the declared dependent speeds "
                "(their coefficients form a singular matrix)",
                "declare speeds whose coefficients in the constraints are independent");
  return LG_OK;
}

/* Dependent speeds: declared, or chosen to stay sound over the motion
 * (mech_kane_pivot.c); then solved symbolically with pivots guided by the
 * same samples. */
static lg_status dependent_speeds(kane_ctx *K) {
  size_t m, nu = K->nu, ns = 0;
  const sym_node **rows = constraint_rows(K, &m);
  int *dep = lg_arena_alloc(&K->m->arena, (nu + 1) * sizeof *dep);
  if (!rows || !dep) return LG_ERR_NOMEM;
  K->k->crow = rows;
  memset(dep, 0, (nu + 1) * sizeof *dep);
  if (m > nu)
    return fail(K, K->m->rows.v[K->crow_src[nu]].line, K->m->rows.v[K->crow_src[nu]].col,
                "more constraints than speeds", "remove redundant constraints");
  sym_matrix *A = sym_matrix_jacobian(K->c, m, rows, nu, K->uall);
  if (!A) return LG_ERR_NOMEM;
  for (size_t i = 0; i < m * nu; i++) A->e[i] = sym_simplify(K->c, A->e[i]);
  double *vals = m ? mech_kane_sample(K->c, A, K->k->q, K->n, K->pivot_value, K->pivot_ud, &ns)
                   : NULL;
  if (m && !vals) return LG_ERR_NOMEM;
  lg_status st = LG_OK;
  if (m && mech_ndeclared_dependent(K->m)) st = declared_dependent(K, vals, ns, m, nu, dep);
  else if (m) {
    size_t got = mech_kane_pick(vals, ns, m, m, nu, NULL, dep);
    if (got == (size_t)-1) st = LG_ERR_NOMEM;
    else if (got < m) st = redundant_row(K, vals, ns, m, nu, dep);
  }
  if (st == LG_OK) st = solve_dependent(K, rows, dep, vals, ns, m);
  lg_free(vals);
  return st;
}

/* speed_of_qd as speeds() left it follows the declared speeds; eval
 * needs the independent ones, in k->u's order. */
static lg_status independent_of_qd(kane_ctx *K) {
  mech_kane *k = K->k;
  if (k->default_speeds || !k->speed_of_qd) return LG_OK;
  const sym_node **ind = nodes(K, k->p);
  if (!ind) return LG_ERR_NOMEM;
  for (size_t i = 0; i < k->p; i++)
    for (size_t j = 0; j < K->nu; j++)
      if (K->uall[j] == k->u[i]) ind[i] = k->speed_of_qd[j];
  k->speed_of_qd = ind;
  return LG_OK;
}

/* sigma maps each q' to k~ (k with the dependent speeds substituted) and
 * each dependent speed to its expression. */
static lg_status make_sigma(kane_ctx *K) {
  mech_kane *k = K->k;
  size_t n = K->n, m = k->ndep;
  K->from = nodes(K, n + m);
  K->to = nodes(K, n + m);
  k->kq = nodes(K, n);
  if (!K->from || !K->to || !k->kq) return LG_ERR_NOMEM;
  for (size_t j = 0; j < n; j++)
    k->kq[j] = m ? sym_subst(K->c, K->kfull[j], m, k->udep, k->udep_expr) : K->kfull[j];
  K->nsub = 0;
  for (size_t j = 0; j < n; j++) {
    if (k->kq[j] == k->qd[j]) continue; /* default speed, independent: identity */
    K->from[K->nsub] = k->qd[j];
    K->to[K->nsub++] = k->kq[j];
  }
  for (size_t d = 0; d < m; d++) {
    if (k->udep[d]->order >= 1 && k->default_speeds) continue; /* it is a q': done above */
    K->from[K->nsub] = k->udep[d];
    K->to[K->nsub++] = k->udep_expr[d];
  }
  return sym_subst_cache_init(&K->sigma_cache, K->nsub, K->from, K->to);
}

/* ---- generalized active and inertia forces ---------------------------------------------- */
/* Sum over coordinates of Q_j dq_j'/du_r: how a force along q enters. */
static const sym_node *along_q(kane_ctx *K, const sym_node *const *Q, size_t r) {
  const sym_node *acc = sym_int(K->c, 0);
  for (size_t j = 0; j < K->n; j++)
    acc = sym_add(K->c, acc, sym_mul(K->c, Q[j], sym_diff(K->c, K->k->kq[j], K->k->u[r])));
  return acc;
}

/* -(d/dt dE/dq' - dE/dq) for E = T (or L), per coordinate, in the speeds. */
static int energy_inertia(kane_ctx *K, const sym_node *E, const sym_node **out) {
  const mech_kane *k = K->k;
  /* q'' -> d/dt k~, then q' -> k~ */
  const sym_node **qdd = lg_malloc((2 * K->n + 1) * sizeof *qdd), **kdot = qdd + K->n;
  if (!qdd) return 0;
  for (size_t i = 0; i < K->n; i++) {
    qdd[i] = sym_coord(K->c, k->q[i]->v.name, 2);
    kdot[i] = sigma(K, sym_dt(K->c, k->kq[i]));
  }
  for (size_t j = 0; j < K->n; j++) {
    const sym_node *p = sym_diff(K->c, E, k->qd[j]);
    const sym_node *lag = sym_sub(K->c, sym_dt(K->c, p), sym_diff(K->c, E, k->q[j]));
    out[j] = sym_neg(K->c, sigma(K, sym_subst(K->c, lag, K->n, qdd, kdot)));
  }
  lg_free(qdd);
  return 1;
}

/* F_r: loads at points and frames, gravity, and the energy terms. */
static const sym_node *active_force(kane_ctx *K, size_t r, const sym_node *const *Qq) {
  mech_model *m = K->m;
  const sym_node *u = K->k->u[r], *F = along_q(K, Qq, r);
  for (size_t i = 0; i < m->forces.n; i++) {
    mech_vec vr = mech_vec_diff(m, sigma_vec(K, mech_point_vel(m, m->forces.v[i].target)), u);
    F = sym_add(K->c, F, mech_vec_dot(m, sigma_vec(K, m->forces.v[i].v), vr));
  }
  for (size_t i = 0; i < m->torques.n; i++) {
    mech_vec wr = mech_vec_diff(m, sigma_vec(K, mech_frame_angvel(m, m->torques.v[i].target)), u);
    F = sym_add(K->c, F, mech_vec_dot(m, sigma_vec(K, m->torques.v[i].v), wr));
  }
  if (!m->has_gravity) return F;
  for (size_t i = 0; i < m->particles.n; i++) {
    const mech_particle *pa = &m->particles.v[i];
    mech_vec vr = mech_vec_diff(m, sigma_vec(K, mech_point_vel(m, pa->point)), u);
    F = sym_add(K->c, F, sym_mul(K->c, pa->mass, mech_vec_dot(m, m->gravity, vr)));
  }
  for (size_t i = 0; i < m->bodies.n; i++) {
    const mech_body *b = &m->bodies.v[i];
    mech_vec vr = mech_vec_diff(m, sigma_vec(K, mech_point_vel(m, b->point)), u);
    F = sym_add(K->c, F, sym_mul(K->c, b->mass, mech_vec_dot(m, m->gravity, vr)));
  }
  return F;
}

/* Along each coordinate: the active Q from V, D and `force q:` (Qq), and
 * the inertia terms of a written T or L (Iq). */
static lg_status coordinate_forces(kane_ctx *K, const sym_node **Qq, const sym_node **Iq) {
  mech_model *m = K->m;
  const mech_kane *k = K->k;
  const sym_node **inertia = lg_malloc((K->n + 1) * sizeof *inertia);
  if (!inertia) return LG_ERR_NOMEM;
  const sym_node *E = m->L ? m->L : (m->has_T ? m->T : NULL);
  if (E && !energy_inertia(K, E, inertia)) {
    lg_free(inertia);
    return LG_ERR_NOMEM;
  }
  for (size_t j = 0; j < K->n; j++) {
    const sym_node *Q = sym_neg(K->c, sym_diff(K->c, m->V, k->q[j]));
    if (m->L) Q = sym_int(K->c, 0); /* V is inside L */
    Q = sym_sub(K->c, Q, sym_diff(K->c, m->D, k->qd[j]));
    for (size_t i = 0; i < m->gen_forces.n; i++)
      if ((size_t)m->gen_forces.v[i].target == j) Q = sym_add(K->c, Q, m->gen_forces.v[i].s);
    Qq[j] = sigma(K, Q);
    Iq[j] = E ? inertia[j] : sym_int(K->c, 0);
  }
  lg_free(inertia);
  return LG_OK;
}

/* ---- assembly ---------------------------------------------------------------------------- */
static lg_status finish_full(kane_ctx *K);

static lg_status assemble(kane_ctx *K) {
  mech_kane *k = K->k;
  sym_ctx *c = K->c;
  size_t n = K->n, p = k->p;
  const sym_node **Qq = nodes(K, n), **Iq = nodes(K, n), **zeros = nodes(K, p);
  k->M = sym_matrix_new(c, p, p);
  k->C = nodes(K, p);
  k->F = nodes(K, p);
  k->f = nodes(K, p);
  k->qdd = nodes(K, n);
  if (!Qq || !Iq || !zeros || !k->M || !k->C || !k->F || !k->f || !k->qdd)
    return LG_ERR_NOMEM;
  coordinate_forces(K, Qq, Iq);
  /* the particles' and bodies' -F*_r = M u' + C, assembled from shared
   * partial velocities as Lagrange's are (there f = -C) */
  const sym_node **minus_C = nodes(K, p);
  if (!minus_C) return LG_ERR_NOMEM;
  for (size_t r = 0; r < p; r++) {
    minus_C[r] = sym_int(c, 0);
    for (size_t s = 0; s < p; s++) SYM_AT(k->M, r, s) = sym_int(c, 0);
  }
  if (!mech_assemble_inertia_in(K->m, p, k->u, k->ud, sigma_cb, K, k->M, minus_C, NULL))
    return LG_ERR_NOMEM;
  for (size_t r = 0; r < p; r++) { /* and the inertia of a written T or L */
    const sym_node *Fq = along_q(K, Iq, r);
    k->F[r] = active_force(K, r, Qq);
    for (size_t s = 0; s < p; s++)
      SYM_AT(k->M, r, s) = sym_sub(c, SYM_AT(k->M, r, s), sym_diff(c, Fq, k->ud[s]));
    k->C[r] = sym_sub(c, sym_neg(c, minus_C[r]), sym_subst(c, Fq, p, k->ud, zeros));
    k->f[r] = sym_sub(c, k->F[r], k->C[r]);
  }
  return finish_full(K);
}

/* q'' and the full state [q; u_I]: q' = k~ (kinematics solved, M_k = I),
 * M u' = f. */
static lg_status finish_full(kane_ctx *K) {
  mech_kane *k = K->k;
  sym_ctx *c = K->c;
  size_t n = K->n, p = k->p;
  for (size_t j = 0; j < n; j++) k->qdd[j] = sigma(K, sym_dt(c, k->kq[j]));
  k->mass_matrix_full = sym_matrix_new(c, n + p, n + p);
  k->forcing_full = nodes(K, n + p);
  if (!k->mass_matrix_full || !k->forcing_full) return LG_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) {
    SYM_AT(k->mass_matrix_full, i, i) = sym_int(c, 1);
    k->forcing_full[i] = k->kq[i];
  }
  for (size_t r = 0; r < p; r++) {
    for (size_t s = 0; s < p; s++) SYM_AT(k->mass_matrix_full, n + r, n + s) = SYM_AT(k->M, r, s);
    k->forcing_full[n + r] = k->f[r];
  }
  return LG_OK;
}

/* ---- dependent speeds eliminated from the equations of every speed ---------------------- */
/* With u_all = T u_I + t0 (T = d u_all / d u_I: the identity's rows for the
 * independent speeds, the solved dependent speeds' coefficients for the
 * others), the equations of every speed, M_all u_all' = f_all, reduce to
 *   T^T M_all T u_I' = T^T (f_all - M_all (T' u_I + t0')),  F = T^T F_all,
 * which is Kane's F_r + F*_r = 0 with the nonholonomic partial velocities
 * v~_r = sum_j v_j T_jr. Each entry is a few products of shared nodes:
 * substituting the dependent speeds into every velocity before
 * differentiating (the unconstrained path) multiplies the solved speeds'
 * expressions out through every product (the Whipple bicycle: 5 s, 45 MB
 * printed). */
static lg_status reduce(kane_ctx *K) {
  mech_kane *k = K->k;
  mech_model *m = K->m;
  sym_ctx *c = K->c;
  size_t nu = K->nu, p = k->p, d = k->ndep;
  lg_status st = mech_kane_derive_all(m, k, K->diag);
  if (st != LG_OK) return st;
  const mech_kane *a = k->all;
  sym_matrix *T = sym_matrix_new(c, nu, p);
  const sym_node **t0 = nodes(K, nu), **acc = nodes(K, nu), **rhs = nodes(K, nu);
  const sym_node **zeros = nodes(K, p);
  k->M = sym_matrix_new(c, p, p);
  k->C = nodes(K, p);
  k->F = nodes(K, p);
  k->f = nodes(K, p);
  k->qdd = nodes(K, K->n);
  if (!T || !t0 || !acc || !rhs || !zeros || !k->M || !k->C || !k->F || !k->f || !k->qdd)
    return LG_ERR_NOMEM;
  for (size_t j = 0; j < nu; j++) {
    size_t r = 0, e = 0;
    while (r < p && k->u[r] != K->uall[j]) r++;
    while (r == p && e < d && k->udep[e] != K->uall[j]) e++;
    for (size_t s = 0; s < p; s++)
      SYM_AT(T, j, s) = r < p ? sym_int(c, s == r) : sym_diff(c, k->udep_expr[e], k->u[s]);
    if (r == p && e < d) t0[j] = sym_subst(c, k->udep_expr[e], p, k->u, zeros);
  }
  /* T' u_I + t0' along the motion: q' = k~, u_D = u_D(q, u_I, t) */
  for (size_t j = 0; j < nu; j++) {
    const sym_node *x = sym_dt(c, t0[j]);
    for (size_t s = 0; s < p; s++) x = sym_add(c, x, sym_mul(c, sym_dt(c, SYM_AT(T, j, s)), k->u[s]));
    acc[j] = sigma(K, x);
  }
  for (size_t j = 0; j < nu; j++) { /* f_all - M_all acc, f_all at u_D = u_D(q, u_I, t) */
    const sym_node *x = sigma(K, a->f[j]);
    for (size_t l = 0; l < nu; l++) x = sym_sub(c, x, sym_mul(c, sigma(K, SYM_AT(a->M, j, l)), acc[l]));
    rhs[j] = x;
  }
  for (size_t r = 0; r < p; r++) {
    const sym_node *F = sym_int(c, 0), *f = sym_int(c, 0);
    for (size_t j = 0; j < nu; j++) {
      F = sym_add(c, F, sym_mul(c, SYM_AT(T, j, r), sigma(K, a->F[j])));
      f = sym_add(c, f, sym_mul(c, SYM_AT(T, j, r), rhs[j]));
    }
    k->F[r] = F;
    k->f[r] = f;
    k->C[r] = sym_sub(c, F, f);
    for (size_t s = r; s < p; s++) {
      const sym_node *x = sym_int(c, 0);
      for (size_t j = 0; j < nu; j++) {
        const sym_node *MT = sym_int(c, 0);
        for (size_t l = 0; l < nu; l++)
          MT = sym_add(c, MT, sym_mul(c, sigma(K, SYM_AT(a->M, j, l)), SYM_AT(T, l, s)));
        x = sym_add(c, x, sym_mul(c, SYM_AT(T, j, r), MT));
      }
      SYM_AT(k->M, r, s) = SYM_AT(k->M, s, r) = x;
    }
  }
  return finish_full(K);
}

lg_status mech_derive_kane(mech_model *m, const char *file, sym_atom_value_fn pivot_value,
                           void *pivot_ud, mech_kane **out, lg_diag *diag) {
  *out = NULL;
  if (m->coords.n == 0) {
    lg_diag_set(diag, LG_ERR_MODEL, file, 1, 1, "the model declares no coordinates");
    return LG_ERR_MODEL;
  }
  mech_kane *k = lg_arena_alloc(&m->arena, sizeof *k);
  if (!k) return LG_ERR_NOMEM;
  memset(k, 0, sizeof *k);
  kane_ctx K = {.m = m, .c = m->c, .k = k, .file = file, .diag = diag, .n = m->coords.n,
               .pivot_value = pivot_value, .pivot_ud = pivot_ud};
  k->n = K.n;
  k->q = nodes(&K, K.n);
  k->qd = nodes(&K, K.n);
  if (!k->q || !k->qd) return LG_ERR_NOMEM;
  for (size_t i = 0; i < K.n; i++) {
    k->q[i] = mech_coord(m, i, 0);
    k->qd[i] = mech_coord(m, i, 1);
  }
  lg_status st = speeds(&K);
  if (st == LG_OK) st = dependent_speeds(&K);
  if (st == LG_OK) st = independent_of_qd(&K);
  k->nu = K.nu;
  k->uall = K.uall;
  k->udall = K.udall;
  k->kq_all = K.kfull;
  if (st == LG_OK) st = make_sigma(&K);
  if (st == LG_OK) st = k->ndep ? reduce(&K) : assemble(&K);
  sym_subst_cache_free(&K.sigma_cache);
  if (st == LG_OK && k->default_speeds) k->speed_of_qd = k->u;
  /* running out of memory may surface as any failure above */
  if (st == LG_ERR_NOMEM || m->oom || sym_ctx_error(m->c) == LG_ERR_NOMEM ||
      (st == LG_OK && sym_ctx_error(m->c) != LG_OK)) {
    lg_diag_set(diag, LG_ERR_NOMEM, file, 0, 0, "out of memory");
    st = LG_ERR_NOMEM;
  }
  if (st == LG_OK) *out = k;
  return st;
}

/* The velocity constraints over time: d/dt crow = A u' + g, g with u' = 0
 * and q' = k(q, u_all, t). */
static lg_status constraint_rates(kane_ctx *K, mech_kane *k) {
  size_t m = k->ndep, nu = k->nu, n = k->n;
  const sym_node **zeros = nodes(K, nu);
  k->A = sym_matrix_jacobian(K->c, m, k->crow, nu, k->uall);
  k->g = nodes(K, m);
  if (!zeros || !k->A || !k->g) return LG_ERR_NOMEM;
  for (size_t i = 0; i < m; i++) {
    const sym_node *d = sym_subst(K->c, sym_dt(K->c, k->crow[i]), nu, k->udall, zeros);
    k->g[i] = sym_subst(K->c, d, n, k->qd, k->kq_all);
  }
  return LG_OK;
}

lg_status mech_kane_derive_all(mech_model *m, mech_kane *k, lg_diag *diag) {
  if (k->all || !k->ndep) return LG_OK;
  mech_kane *a = lg_arena_alloc(&m->arena, sizeof *a);
  if (!a) return LG_ERR_NOMEM;
  memset(a, 0, sizeof *a);
  *a = (mech_kane){.n = k->n, .p = k->nu, .q = k->q, .qd = k->qd, .u = k->uall,
                   .ud = k->udall, .default_speeds = k->default_speeds, .nu = k->nu,
                   .uall = k->uall, .udall = k->udall, .kq_all = k->kq_all};
  kane_ctx K = {.m = m, .c = m->c, .k = a, .diag = diag, .n = k->n, .nu = k->nu,
                .uall = k->uall, .udall = k->udall, .kfull = k->kq_all};
  lg_status st = make_sigma(&K);
  if (st == LG_OK) st = assemble(&K);
  sym_subst_cache_free(&K.sigma_cache);
  if (st == LG_OK) st = constraint_rates(&K, k);
  if (st == LG_ERR_NOMEM || m->oom || sym_ctx_error(m->c) != LG_OK) {
    lg_diag_set(diag, LG_ERR_NOMEM, NULL, 0, 0, "out of memory");
    return LG_ERR_NOMEM;
  }
  if (st == LG_OK) k->all = a;
  return st;
}

static const sym_node **kane_copy(mech_model *m, const sym_node *const *a, size_t n,
                                  size_t max_dag) {
  const sym_node **b = lg_arena_alloc(&m->arena, (n ? n : 1) * sizeof *b);
  if (!b) return NULL;
  for (size_t i = 0; i < n; i++) b[i] = mech_simplify_entry(m->c, a[i], max_dag);
  return b;
}

static sym_matrix *kane_copy_matrix(mech_model *m, const sym_matrix *x, size_t max_dag) {
  sym_matrix *y = sym_matrix_new(m->c, x->rows, x->cols);
  const sym_node **e = kane_copy(m, x->e, x->rows * x->cols, max_dag);
  if (!y || !e) return NULL;
  y->e = e;
  return y;
}

mech_kane *mech_kane_simplified(mech_model *m, const mech_kane *k, size_t max_dag) {
  mech_kane *s = lg_arena_alloc(&m->arena, sizeof *s);
  if (!s) return NULL;
  *s = *k; /* speeds, dependent speeds and the numeric elimination shared */
  size_t N = k->n + k->p;
  s->M = kane_copy_matrix(m, k->M, max_dag);
  s->mass_matrix_full = kane_copy_matrix(m, k->mass_matrix_full, max_dag);
  s->C = kane_copy(m, k->C, k->p, max_dag);
  s->F = kane_copy(m, k->F, k->p, max_dag);
  s->f = kane_copy(m, k->f, k->p, max_dag);
  s->forcing_full = kane_copy(m, k->forcing_full, N, max_dag);
  s->kq = kane_copy(m, k->kq, k->n, max_dag);
  s->qdd = kane_copy(m, k->qdd, k->n, max_dag);
  int lost = !s->M || !s->mass_matrix_full || !s->C || !s->F || !s->f || !s->forcing_full ||
             !s->kq || !s->qdd;
  if (lost) m->oom = 1;
  return lost || sym_ctx_error(m->c) != LG_OK ? NULL : s;
}

/* With u = q' and no constraints, Kane's M u' = f has the shape of
 * Lagrange's M q'' = f: the same state, so simulation and code generation
 * can run on Kane's matrices. NULL otherwise. */
mech_eom *mech_kane_as_eom(mech_model *m, const mech_eom *lag, const mech_kane *k) {
  if (!k->default_speeds || k->ndep || lag->m || k->p != lag->n) return NULL;
  mech_eom *e = lg_arena_alloc(&m->arena, sizeof *e);
  if (!e) return NULL;
  *e = *lag;
  e->M = k->M;
  e->f = k->f;
  sym_matrix *mm = sym_matrix_new(m->c, e->n, e->n);
  sym_matrix *mf = sym_matrix_new(m->c, 2 * e->n, 2 * e->n);
  const sym_node **ff = lg_arena_alloc(&m->arena, 2 * e->n * sizeof *ff);
  if (!mm || !mf || !ff) return NULL;
  for (size_t i = 0; i < e->n; i++) {
    SYM_AT(mf, i, i) = sym_int(m->c, 1);
    ff[i] = e->qd[i];
    ff[e->n + i] = k->f[i];
    for (size_t j = 0; j < e->n; j++) {
      SYM_AT(mm, i, j) = SYM_AT(k->M, i, j);
      SYM_AT(mf, e->n + i, e->n + j) = SYM_AT(k->M, i, j);
    }
  }
  e->mass_matrix = mm;
  e->mass_matrix_full = mf;
  e->forcing_full = ff;
  return e;
}

/* ---- speeds under Lagrange's method ------------------------------------------------------ */
/* The speeds (and their derivatives) as functions of q, q', t from the
 * kinematical equations, for Lagrange's method, where a speed stands for
 * its value. *n is 0 when the model declares no speeds. */
lg_status mech_speed_values(mech_model *m, const char *file, const sym_node ***from,
                            const sym_node ***to, size_t *n, lg_diag *diag) {
  *n = 0;
  if (!m->speeds.n) return LG_OK;
  mech_kane k;
  memset(&k, 0, sizeof k);
  kane_ctx K = {.m = m, .c = m->c, .k = &k, .file = file, .diag = diag, .n = m->coords.n};
  k.n = K.n;
  k.qd = nodes(&K, K.n);
  if (!k.qd) return LG_ERR_NOMEM;
  for (size_t i = 0; i < K.n; i++) k.qd[i] = mech_coord(m, i, 1);
  lg_status st = speeds(&K);
  if (st != LG_OK) return st;
  const sym_node **f = nodes(&K, 2 * K.nu), **t = nodes(&K, 2 * K.nu);
  if (!f || !t) return LG_ERR_NOMEM;
  for (size_t i = 0; i < K.nu; i++) {
    f[i] = K.uall[i];
    t[i] = k.speed_of_qd[i];
    f[K.nu + i] = K.udall[i];
    t[K.nu + i] = sym_dt(m->c, k.speed_of_qd[i]);
  }
  *from = f;
  *to = t;
  *n = 2 * K.nu;
  return LG_OK;
}
