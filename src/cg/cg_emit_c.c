/* cg_emit_c.c - the generated C99 file: its functions, solvers and header
 * (the tapes themselves are spelled by cg_emit_tape.c); no allocation, no
 * globals, only <math.h>. */
#include "cg_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LG_VERSION "0.1"


/* ---- functions ------------------------------------------------------------------------------ */
static const char *NAME(const cg_ctx *G) { return G->r->name; }

/* Opening of a generated function: silence unused arguments, fill uu. */
void cg_prologue(cg_ctx *G) {
  lg_str *o = G->src;
  lg_str_puts(o, "  (void)t; (void)x; (void)u; (void)p;\n");
  if (mech_ninputs(G->r->mech))
    lg_str_printf(o, "  double uu[3 * %s_NU];\n  %s_inputs(t, u, p, uu);\n", NAME(G),
                  NAME(G));
}

/* A large tree's full forms from its M and f: [1 0; 0 M] and [q'; f],
 * so that the n^2 entries of M are written (and compiled) once. */
static void emit_full_by_call(cg_ctx *G, cg_func f, const char *doc) {
  const char *N = NAME(G);
  if (f == CG_MASS_FULL)
    lg_str_printf(G->src, "\n/* %s: [1 0; 0 M] with M from %s_mass_matrix */\n"
                  "void %s_mass_matrix_full(double t, const double *x, const double *u, "
                  "const double *p, double *res) {\n"
                  "  enum { n = %s_NQ };\n  double M[n * n];\n"
                  "  %s_mass_matrix(t, x, u, p, M);\n"
                  "  for (int i = 0; i < 4 * n * n; i++) res[i] = 0;\n"
                  "  for (int i = 0; i < n; i++) {\n    res[i * 2 * n + i] = 1;\n"
                  "    for (int j = 0; j < n; j++) res[(n + i) * 2 * n + n + j] = M[i * n + j];\n"
                  "  }\n}\n", doc, N, N, N, N);
  else
    lg_str_printf(G->src, "\n/* %s: [q'; f] with f from %s_forcing */\n"
                  "void %s_forcing_full(double t, const double *x, const double *u, "
                  "const double *p, double *res) {\n"
                  "  %s_forcing(t, x, u, p, res + %s_NQ);\n"
                  "  for (int i = 0; i < %s_NQ; i++) res[i] = x[%s_NQ + i];\n}\n",
                  doc, N, N, N, N, N, N);
}

/* A large tree's momenta: its p is M q' by construction
 * (mech_eom_with_dynamics), so M is not written a second time. */
static void emit_momenta_by_call(cg_ctx *G, const char *doc) {
  const char *N = NAME(G);
  lg_str_printf(G->src, "\n/* %s: M q' with M from %s_mass_matrix */\n"
                "void %s_momenta(double t, const double *x, const double *u, "
                "const double *p, double *res) {\n"
                "  enum { n = %s_NQ };\n  double M[n * n];\n"
                "  %s_mass_matrix(t, x, u, p, M);\n"
                "  for (int i = 0; i < n; i++) {\n    double s = 0;\n"
                "    for (int j = 0; j < n; j++) s += M[i * n + j] * x[n + j];\n"
                "    res[i] = s;\n  }\n}\n", doc, N, N, N, N);
}

static lg_status emit_function(cg_ctx *G, cg_func f, const char *doc) {
  if (f == CG_MASS || f == CG_FORCING || f == CG_ENERGY) { /* a large tree: over its links */
    lg_status st = f == CG_MASS ? cg_emit_links_mass(G, doc)
                   : f == CG_FORCING ? cg_emit_links_forcing(G, doc) : cg_emit_links_energy(G, doc);
    if (st != LG_ERR_MODEL) return st;
  }
  if (G->full_by_call && f == CG_MOMENTA) {
    emit_momenta_by_call(G, doc);
    return LG_OK;
  }
  if (G->full_by_call && (f == CG_MASS_FULL || f == CG_FORCING_FULL)) {
    emit_full_by_call(G, f, doc);
    return LG_OK;
  }
  size_t n;
  const sym_node **outs = cg_outputs(G, f, &n);
  sym_tape *t = NULL;
  lg_status st = outs ? cg_tape(G, outs, n, &t) : LG_ERR_NOMEM;
  lg_free(outs);
  if (st != LG_OK) return st;
  lg_str *o = G->src;
  size_t at = o->len;
  lg_str_printf(o, "\n/* %s (%zu operations) */\nvoid %s_%s(double t, const double *x, "
                   "const double *u, const double *p, double *res) {\n",
                doc, t->flops, NAME(G), cg_function_name(f));
  cg_prologue(G);
  if (!n) lg_str_puts(o, "  (void)res;\n");
  cg_emit_tape(G, t, "res", at);
  lg_str_puts(o, "}\n");
  if (f == CG_MASS_FULL || (f == CG_MASS && G->full_by_call)) G->stats.mass_matrix_full = t->flops;
  if (f == CG_FORCING_FULL || (f == CG_FORCING && G->full_by_call))
    G->stats.forcing_full = t->flops;
  if (f == CG_ENERGY) G->stats.energy = t->flops;
  if (f == CG_CONSTRAINTS) G->stats.constraints = t->flops;
  sym_tape_free(t);
  return LG_OK;
}

/* uu = [u_k, u_k', u_k''] from the caller's u (held constant) or the laws. */
static lg_status emit_inputs(cg_ctx *G) {
  size_t ni = mech_ninputs(G->r->mech);
  if (!ni) return LG_OK;
  sym_tape *t = NULL;
  lg_status st = cg_inputs_tape(G, &t);
  if (st != LG_OK) return st;
  lg_str *o = G->src;
  size_t at = o->len;
  lg_str_printf(o, "\n/* inputs and their first two time derivatives: from u (held "
                   "constant), or from the model's laws when u is NULL */\n"
                   "static void %s_inputs(double t, const double *u, const double *p, "
                   "double *uu) {\n  const double *x = 0;\n  (void)x; (void)p; (void)t;\n"
                   "  if (u) {\n    for (int k = 0; k < %s_NU; k++) {\n"
                   "      uu[3 * k] = u[k];\n      uu[3 * k + 1] = 0;\n"
                   "      uu[3 * k + 2] = 0;\n    }\n    return;\n  }\n",
                NAME(G), NAME(G));
  cg_emit_tape(G, t, "uu", at);
  lg_str_puts(o, "}\n");
  sym_tape_free(t);
  return LG_OK;
}

/* Dense solvers for the right-hand side, written into the generated file. */
static void emit_solvers(cg_ctx *G, int outs) {
  /* Kane's M alone is symmetric positive definite; Lagrange's augmented
   * system (NAME_rhs, or outputs and multipliers under either method) not */
  int kane = G->r->kane != NULL, aug = G->r->eom->m && (!kane || outs);
  int chol = kane || !G->r->eom->m;
  if (aug) {
    lg_str_printf(G->src,
      "\n/* A z = b in place, A row-major n x n, Gaussian elimination with partial\n"
      "   pivoting. Returns nonzero when A is singular. */\n"
      "static int %s_lu_solve(int n, double *A, double *b) {\n"
      "  for (int k = 0; k < n; k++) {\n"
      "    int piv = k;\n"
      "    for (int i = k + 1; i < n; i++)\n"
      "      if (fabs(A[i * n + k]) > fabs(A[piv * n + k])) piv = i;\n"
      "    if (!(fabs(A[piv * n + k]) > 0)) return 1;\n"
      "    if (piv != k) {\n"
      "      for (int j = 0; j < n; j++) {\n"
      "        double s = A[k * n + j]; A[k * n + j] = A[piv * n + j]; A[piv * n + j] = s;\n"
      "      }\n"
      "      double s = b[k]; b[k] = b[piv]; b[piv] = s;\n"
      "    }\n"
      "    for (int i = k + 1; i < n; i++) {\n"
      "      double l = A[i * n + k] / A[k * n + k];\n"
      "      for (int j = k + 1; j < n; j++) A[i * n + j] -= l * A[k * n + j];\n"
      "      b[i] -= l * b[k];\n"
      "    }\n"
      "  }\n"
      "  for (int i = n - 1; i >= 0; i--) {\n"
      "    double s = b[i];\n"
      "    for (int j = i + 1; j < n; j++) s -= A[i * n + j] * b[j];\n"
      "    b[i] = s / A[i * n + i];\n"
      "  }\n"
      "  return 0;\n"
      "}\n", NAME(G));
  }
  if (!chol) return;
  lg_str_printf(G->src,
      "\n/* M z = b in place by Cholesky (M symmetric positive definite, row-major).\n"
      "   Returns nonzero when M is not positive definite. */\n"
      "static int %s_cholesky_solve(int n, double *M, double *b) {\n"
      "  for (int j = 0; j < n; j++) {\n"
      "    double d = M[j * n + j];\n"
      "    for (int k = 0; k < j; k++) d -= M[j * n + k] * M[j * n + k];\n"
      "    if (!(d > 0)) return 1;\n"
      "    const double inv = 1.0 / sqrt(d);\n"
      "    M[j * n + j] = inv; /* the diagonal keeps its reciprocal */\n"
      "    for (int i = j + 1; i < n; i++) {\n"
      "      double s = M[i * n + j];\n"
      "      for (int k = 0; k < j; k++) s -= M[i * n + k] * M[j * n + k];\n"
      "      M[i * n + j] = s * inv;\n"
      "    }\n"
      "  }\n"
      "  for (int i = 0; i < n; i++) {\n"
      "    double s = b[i];\n"
      "    for (int k = 0; k < i; k++) s -= M[i * n + k] * b[k];\n"
      "    b[i] = s * M[i * n + i];\n"
      "  }\n"
      "  for (int i = n - 1; i >= 0; i--) {\n"
      "    double s = b[i];\n"
      "    for (int k = i + 1; k < n; k++) s -= M[k * n + i] * b[k];\n"
      "    b[i] = s * M[i * n + i];\n"
      "  }\n"
      "  return 0;\n"
      "}\n",
      NAME(G));
}

/* Kane: x = [q; u], x' = [k(q, u); M^-1 f] */
static void emit_rhs_kane_tail(cg_ctx *G) {
  const mech_kane *k = G->r->kane;
  size_t n = k->n, p = k->p;
  lg_str_printf(G->src, "  int err = %s_cholesky_solve(%zu, A + %zu, A + %zu);\n"
                        "  for (int i = 0; i < %zu; i++) xdot[i] = A[i];\n"
                        "  for (int i = 0; i < %zu; i++) xdot[%zu + i] = A[%zu + i];\n"
                        "  return err;\n}\n",
                NAME(G), p, n, n + p * p, n, p, n, n + p * p);
}

static lg_status recursive_tape(cg_ctx *G, sym_tape **t);

/* A large tree's NAME_rhs in the default set (tree_form): the recursion
 * when its count is below M's and f's and their Cholesky solve's
 * (n^3/3 + 2n^2), as the JIT and simulate choose. */
static lg_status choose_rhs(cg_ctx *G) {
  G->rhs_by_tree = 0;
  if (!G->r->tree_form || G->r->kane || G->r->functions) /* named: each as named */
    return LG_OK;
  size_t n = G->r->eom->n, cnt, solve = n * n * n / 3 + 2 * n * n;
  const sym_node **outs = cg_outputs(G, CG_RHS, &cnt);
  sym_tape *t = NULL, *rt = NULL;
  lg_status st = outs ? cg_tape(G, outs, cnt, &t) : LG_ERR_NOMEM;
  lg_free(outs);
  if (st == LG_OK) st = recursive_tape(G, &rt);
  if (st == LG_OK) G->rhs_by_tree = rt->flops < t->flops + solve;
  sym_tape_free(t);
  sym_tape_free(rt);
  return st;
}

static lg_status emit_rhs(cg_ctx *G) {
  const mech_eom *e = G->r->eom;
  if (G->rhs_by_tree) {
    lg_str_printf(G->src, "\n/* x' = F(t, x, u, p): by %s_rhs_recursive, shorter than the mass\n"
                          "   matrix and its solve for this tree */\n"
                          "int %s_rhs(double t, const double *x, const double *u, const double *p, "
                          "double *xdot) {\n  return %s_rhs_recursive(t, x, u, p, xdot);\n}\n",
                  NAME(G), NAME(G), NAME(G));
    return LG_OK;
  }
  size_t n = e->n, N = n + e->m;
  size_t cnt;
  const sym_node **outs = cg_outputs(G, CG_RHS, &cnt);
  sym_tape *t = NULL;
  lg_status st = outs ? cg_tape(G, outs, cnt, &t) : LG_ERR_NOMEM;
  lg_free(outs);
  if (st != LG_OK) return st;
  lg_str *o = G->src;
  size_t at = o->len;
  lg_str_printf(o, "\n/* x' = F(t, x, u, p) (%zu operations before the solve) */\n"
                   "int %s_rhs(double t, const double *x, const double *u, const double *p, "
                   "double *xdot) {\n  double A[%zu];\n", t->flops, NAME(G), cnt);
  cg_prologue(G);
  cg_emit_tape(G, t, "A", at);
  G->stats.rhs = t->flops;
  if (G->r->kane) {
    emit_rhs_kane_tail(G);
    sym_tape_free(t);
    return LG_OK;
  }
  lg_str_printf(o, "  int err = %s_%s(%zu, A, A + %zu);\n", NAME(G),
                e->m ? "lu_solve" : "cholesky_solve", N, N * N);
  lg_str_printf(o, "  for (int i = 0; i < %zu; i++) {\n    xdot[i] = x[%zu + i];\n"
                   "    xdot[%zu + i] = A[%zu + i];\n  }\n  return err;\n}\n",
                n, n, n, N * N);
  G->stats.rhs = t->flops;
  sym_tape_free(t);
  return LG_OK;
}

/* ---- the right-hand side of a kinematic tree, O(n) (mech_tree.c) ------------------------ */
static lg_status recursive_tape(cg_ctx *G, sym_tape **t) {
  const mech_eom *e = G->r->eom;
  size_t n = e->n;
  const sym_node **qdd = e->tree_qdd;
  lg_status st = qdd ? LG_OK : mech_tree_accel(G->r->mech, e, G->r->model_path, &qdd, G->diag);
  if (st != LG_OK) return st;
  const sym_node **outs = lg_malloc((2 * n + 1) * sizeof *outs);
  if (!outs) return LG_ERR_NOMEM;
  memcpy(outs, e->qd, n * sizeof *outs);
  memcpy(outs + n, qdd, n * sizeof *outs);
  st = cg_tape(G, outs, 2 * n, t);
  lg_free(outs);
  return st;
}

static lg_status emit_rhs_recursive(cg_ctx *G) {
  const mech_eom *e = G->r->eom;
  size_t n = e->n;
  sym_tape *t = NULL;
  lg_status st = recursive_tape(G, &t);
  if (st != LG_OK) return st;
  lg_str *o = G->src;
  size_t at = o->len;
  lg_str_printf(o, "\n/* x' = F(t, x, u, p) through the kinematic tree: Newton-Euler at q'' = 0\n"
                   "   for the velocity terms and gravity, then the articulated-body recursion\n"
                   "   for q'' = M^-1 (tau - C) (%zu operations in all) */\n"
                   "int %s_rhs_recursive(double t, const double *x, const double *u, "
                   "const double *p,\n    double *xdot) {\n", t->flops, NAME(G));
  cg_prologue(G);
  cg_emit_tape(G, t, "xdot", at);
  lg_str_printf(o, "  for (int i = %zu; i < %zu; i++)\n    if (!isfinite(xdot[i])) return 1;\n"
                   "  return 0;\n}\n", n, 2 * n);
  G->stats.rhs_recursive = t->flops;
  sym_tape_free(t);
  return LG_OK;
}

/* ---- the exact Jacobian of the right-hand side (Lagrange's state) --------------------
 * Phi = [M q'' - J^T lam - f; J q'' - gc] = 0 defines q'' and lam; with z =
 * [q''; lam] solved as in NAME_rhs, dz/dy = -Aug^-1 dPhi/dy for y = x, u.
 * dPhi/dy is one tape over (t, x, p, uu) and z (the extra inputs). */
static const sym_node *phi_row(sym_ctx *c, const mech_eom *e, size_t k) {
  size_t n = e->n;
  const sym_node *acc = sym_int(c, 0);
  const sym_matrix *A = e->mass_matrix; /* [M, -J^T] */
  if (k < n) {
    for (size_t j = 0; j < n; j++) acc = sym_add(c, acc, sym_mul(c, SYM_AT(A, k, j), e->qdd[j]));
    for (size_t r = 0; r < e->m; r++)
      acc = sym_add(c, acc, sym_mul(c, SYM_AT(A, k, n + r), e->lam[r]));
    return sym_sub(c, acc, e->f[k]);
  }
  for (size_t j = 0; j < n; j++) acc = sym_add(c, acc, sym_mul(c, SYM_AT(e->J, k - n, j), e->qdd[j]));
  return sym_sub(c, acc, e->gc[k - n]);
}

static lg_status jacobian_tape(cg_ctx *G, sym_tape **t, size_t *ncols) {
  const mech_eom *e = G->r->eom;
  mech_model *m = G->r->mech;
  size_t n = e->n, N = n + e->m, nu = mech_ninputs(m), K = 2 * n + nu;
  const sym_node **outs = lg_malloc((N * K + 1) * sizeof *outs);
  const sym_node **in = lg_malloc((G->nin + N + 1) * sizeof *in);
  if (!outs || !in) {
    lg_free(outs);
    lg_free(in);
    return LG_ERR_NOMEM;
  }
  for (size_t i = 0; i < N; i++) {
    const sym_node *row = phi_row(G->c, e, i);
    for (size_t j = 0; j < K; j++) {
      const sym_node *v = j < n ? e->q[j] : j < 2 * n ? e->qd[j - n] : mech_input(m, j - 2 * n, 0);
      outs[i * K + j] = sym_diff(G->c, row, v);
    }
  }
  memcpy(in, G->in, G->nin * sizeof *in);
  for (size_t i = 0; i < N; i++) in[G->nin + i] = i < n ? e->qdd[i] : e->lam[i - n];
  const sym_node **saved = G->in;
  size_t saved_n = G->nin;
  G->in = in;
  G->nin = saved_n + N;
  G->nin_base = saved_n;
  lg_status st = cg_tape(G, outs, N * K, t);
  G->in = saved;
  G->nin = saved_n;
  lg_free(outs);
  lg_free(in);
  *ncols = K;
  return st;
}

static lg_status emit_rhs_jacobian(cg_ctx *G) {
  const mech_eom *e = G->r->eom;
  size_t n = e->n, N = n + e->m, nu = mech_ninputs(G->r->mech), K, cnt;
  const sym_node **outs = cg_outputs(G, CG_RHS, &cnt);
  sym_tape *rt = NULL, *jt = NULL;
  lg_status st = outs ? cg_tape(G, outs, cnt, &rt) : LG_ERR_NOMEM;
  lg_free(outs);
  if (st == LG_OK) st = jacobian_tape(G, &jt, &K);
  if (st != LG_OK) {
    G->nin_base = 0;
    sym_tape_free(rt);
    return st;
  }
  lg_str *o = G->src;
  size_t at = o->len;
  const char *NM = NAME(G);
  lg_str_printf(o, "\n/* A Z = B in place, A n x n and B n x k row-major, Gaussian elimination\n"
                   "   with partial pivoting. Returns nonzero when A is singular. */\n"
                   "static int %s_lu_solve_k(int n, int k, double *A, double *B) {\n"
                   "  for (int c = 0; c < n; c++) {\n    int piv = c;\n"
                   "    for (int i = c + 1; i < n; i++)\n"
                   "      if (fabs(A[i * n + c]) > fabs(A[piv * n + c])) piv = i;\n"
                   "    if (!(fabs(A[piv * n + c]) > 0)) return 1;\n"
                   "    for (int j = 0; piv != c && j < n; j++) {\n"
                   "      double s = A[c * n + j]; A[c * n + j] = A[piv * n + j]; A[piv * n + j] = s;\n"
                   "    }\n"
                   "    for (int j = 0; piv != c && j < k; j++) {\n"
                   "      double s = B[c * k + j]; B[c * k + j] = B[piv * k + j]; B[piv * k + j] = s;\n"
                   "    }\n"
                   "    for (int i = c + 1; i < n; i++) {\n"
                   "      double l = A[i * n + c] / A[c * n + c];\n"
                   "      for (int j = c + 1; j < n; j++) A[i * n + j] -= l * A[c * n + j];\n"
                   "      for (int j = 0; j < k; j++) B[i * k + j] -= l * B[c * k + j];\n"
                   "    }\n  }\n"
                   "  for (int i = n - 1; i >= 0; i--)\n"
                   "    for (int j = 0; j < k; j++) {\n"
                   "      double s = B[i * k + j];\n"
                   "      for (int c = i + 1; c < n; c++) s -= A[i * n + c] * B[c * k + j];\n"
                   "      B[i * k + j] = s / A[i * n + i];\n"
                   "    }\n  return 0;\n}\n", NM);
  lg_str_printf(o, "\n/* Jx = dx'/dx (2n x 2n), Ju = dx'/du (2n x NU; may be NULL), row-major,\n"
                   "   exact: dz/dy = -Aug^-1 dPhi/dy (%zu + %zu operations) */\n"
                   "int %s_rhs_jacobian(double t, const double *x, const double *u, "
                   "const double *p, double *Jx, double *Ju) {\n"
                   "  static const int N = %zu, K = %zu;\n"
                   "  double A[%zu], Aug[%zu], D[%zu];\n", rt->flops, jt->flops, NM, N, K, cnt,
                N * N, N * K);
  cg_prologue(G);
  lg_str_puts(o, "  { /* the augmented system, as in the right-hand side */\n");
  cg_emit_tape(G, rt, "A", at);
  lg_str_puts(o, "  }\n");
  lg_str_printf(o, "  for (int i = 0; i < N * N; i++) Aug[i] = A[i];\n"
                   "  if (%s_lu_solve_k(N, 1, A, A + N * N)) return 1;\n"
                   "  const double *z = A + N * N; /* [q''; lam] */\n  (void)z;\n"
                   "  { /* dPhi/d[x, u] at z */\n", NM);
  cg_emit_tape(G, jt, "D", at);
  lg_str_puts(o, "  }\n");
  lg_str_printf(o, "  for (int i = 0; i < N * K; i++) D[i] = -D[i];\n"
                   "  if (%s_lu_solve_k(N, K, Aug, D)) return 1;\n"
                   "  for (int i = 0; i < %zu; i++)\n    for (int j = 0; j < %zu; j++) {\n"
                   "      Jx[i * %zu + j] = j == %zu + i;\n"
                   "      Jx[(%zu + i) * %zu + j] = D[i * K + j];\n    }\n",
                NM, n, 2 * n, 2 * n, n, n, 2 * n);
  if (nu)
    lg_str_printf(o, "  for (int i = 0; Ju && i < %zu; i++)\n    for (int k = 0; k < %zu; k++) {\n"
                     "      Ju[i * %zu + k] = 0;\n"
                     "      Ju[(%zu + i) * %zu + k] = D[i * K + %zu + k];\n    }\n",
                  n, nu, nu, n, nu, 2 * n);
  else
    lg_str_puts(o, "  (void)Ju;\n");
  lg_str_puts(o, "  return 0;\n}\n");
  G->nin_base = 0;
  sym_tape_free(rt);
  sym_tape_free(jt);
  return LG_OK;
}

/* ---- outputs and multipliers: q'' and lam solved as in NAME_rhs ---------------------------- */
/* The rhs tape into A, the solve, z = A + N*N = [q''; lam]. */
static void solve_block(cg_ctx *G, const sym_tape *t, size_t cnt, size_t at) {
  const mech_eom *e = G->r->eom;
  size_t N = e->n + e->m;
  lg_str *o = G->src;
  lg_str_printf(o, "  double A[%zu];\n", cnt);
  cg_prologue(G);
  cg_emit_tape(G, t, "A", at);
  lg_str_printf(o, "  int err = %s_%s(%zu, A, A + %zu);\n  const double *z = A + %zu;\n"
                   "  (void)z;\n", NAME(G), e->m ? "lu_solve" : "cholesky_solve", N, N * N,
                N * N);
}

static lg_status emit_multipliers(cg_ctx *G) {
  const mech_eom *e = G->r->eom;
  size_t cnt;
  const sym_node **outs = cg_aug_outputs(G, &cnt);
  sym_tape *t = NULL;
  lg_status st = outs ? cg_tape(G, outs, cnt, &t) : LG_ERR_NOMEM;
  lg_free(outs);
  if (st != LG_OK) return st;
  lg_str *o = G->src;
  size_t at = o->len;
  lg_str_printf(o, "\n/* lam (NC): the multipliers at (t, x), as NAME_rhs solves them */\n"
                   "int %s_multipliers(double t, const double *x, const double *u, "
                   "const double *p, double *lam) {\n", NAME(G));
  solve_block(G, t, cnt, at);
  lg_str_printf(o, "  for (int i = 0; i < %zu; i++) lam[i] = z[%zu + i];\n", e->m, e->n);
  if (!e->m) lg_str_puts(o, "  (void)lam;\n");
  lg_str_puts(o, "  return err;\n}\n");
  sym_tape_free(t);
  return LG_OK;
}

static lg_status emit_outputs(cg_ctx *G) {
  mech_model *m = G->r->mech;
  size_t cnt, nout = mech_noutputs(m);
  const sym_node **outs = cg_aug_outputs(G, &cnt);
  sym_tape *t = NULL, *ot = NULL;
  lg_status st = outs ? cg_tape(G, outs, cnt, &t) : LG_ERR_NOMEM;
  if (st == LG_OK) st = cg_outputs_tape(G, &ot); /* over [t, x, p, uu, z = (q'', lam)] */
  if (st == LG_OK) {
    lg_str *o = G->src;
    size_t at = o->len;
    lg_str_printf(o, "\n/* out (NOUT): the model's outputs at (t, x), q'' and lam solved as "
                     "in NAME_rhs */\nint %s_outputs(double t, const double *x, const double *u, "
                     "const double *p, double *out) {\n", NAME(G));
    solve_block(G, t, cnt, at);
    if (!nout) lg_str_puts(o, "  (void)out;\n");
    lg_str_puts(o, "  {\n"); /* its own names, apart from the solve's */
    cg_emit_tape(G, ot, "out", at);
    lg_str_puts(o, "  }\n  return err;\n}\n");
  }
  G->nin_base = 0;
  sym_tape_free(t);
  sym_tape_free(ot);
  lg_free(outs);
  return st;
}

static void emit_params(cg_ctx *G) {
  mech_model *m = G->r->mech;
  lg_str *o = G->src;
  lg_str_printf(o, "\nvoid %s_default_params(double *p) {\n", NAME(G));
  if (!mech_nparams(m)) lg_str_puts(o, "  (void)p;\n");
  for (size_t i = 0; i < mech_nparams(m); i++) {
    lg_str_printf(o, "  p[%zu] = ", i);
    cg_literal(o, G->params[i]);
    lg_str_puts(o, "; /* ");
    cg_c_comment_text(o, mech_param_name(m, i));
    lg_str_printf(o, "%s */\n", isnan(G->params[i]) ? ": no value in the model" : "");
  }
  lg_str_puts(o, "}\n");
}

/* ---- the header ------------------------------------------------------------------------------- */
/* " name" in the header's comment that lists the names */
static void names_word(lg_str *h, const char *name) {
  lg_str_putc(h, ' ');
  cg_c_comment_text(h, name);
}

static void emit_header(cg_ctx *G) {
  lg_str *h = G->hdr;
  const mech_eom *e = G->r->eom;
  mech_model *m = G->r->mech;
  const char *N = NAME(G);
  lg_str_printf(h, "/* %s.h - generated by lagrange %s from ", N, LG_VERSION);
  cg_c_comment_text(h, G->r->model_path);
  lg_str_printf(h, ". Do not edit.\n"
                   "   Dependency-free C99: no allocation, no globals, only <math.h>.\n"
                   "   State x = [q; q'] (2*%s_NQ). u = inputs in declaration order, or NULL\n"
                   "   for the model's own laws (given u are held constant: u' = 0).\n"
                   "   p = parameters in declaration order (see %s_default_params). */\n",
                N, N);
  lg_str_printf(h, "#ifndef %s_H\n#define %s_H\n\n", N, N);
  lg_str_printf(h, "enum { %s_NQ = %zu, %s_NC = %zu, %s_NU = %zu, %s_NP = %zu };\n", N,
                e->n, N, e->m, N, mech_ninputs(m), N, mech_nparams(m));
  if (G->r->kane)
    lg_str_printf(h, "/* Kane's method: the state is x = [q; u] with %s_NS independent speeds\n"
                     "   (not [q; q']); mass_matrix is M (NS x NS), forcing is F - C. */\n"
                     "enum { %s_NS = %zu, %s_NX = %zu };\n",
                  N, N, G->r->kane->p, N, e->n + G->r->kane->p);
  lg_str_putc(h, '\n');
  lg_str_puts(h, "/* coordinates:");
  for (size_t i = 0; i < e->n; i++) names_word(h, e->q[i]->v.name);
  lg_str_puts(h, "\n   parameters:");
  for (size_t i = 0; i < mech_nparams(m); i++) names_word(h, mech_param_name(m, i));
  lg_str_puts(h, "\n   inputs:");
  for (size_t i = 0; i < mech_ninputs(m); i++) names_word(h, mech_input_name(m, i));
  lg_str_puts(h, " */\n\n");
  lg_str_printf(h, "void %s_default_params(double *p);     /* declaration order */\n", N);
  if (cg_wants(G->r, CG_RHS))
    lg_str_printf(h, "/* Returns 0, or nonzero when the (augmented) mass matrix is singular. */\n"
                     "int  %s_rhs(double t, const double *x, const double *u, const double *p,\n"
                     "            double *xdot);\n", N);
  static const char *const docs[CG_NFUNCS] = {
      "(2n+m)^2 row-major [[I,0,0],[0,M,-J^T],[0,J,0]]", "2n+m: [q'; f; g_c]",
      "n x (n+m) row-major [M, -J^T]", "n: f", NULL, "2: [T, V]", "n: dL/dq'",
      "m: constraint residuals", "m x n row-major: J"};
  for (int f = 0; f < CG_NFUNCS; f++) {
    if (f == CG_RHS || !cg_wants(G->r, f)) continue;
    lg_str_printf(h, "/* %s */\nvoid %s_%s(double t, const double *x, const double *u,\n"
                     "    const double *p, double *res);\n", docs[f], N, cg_function_name(f));
  }
  if (!G->r->kane && cg_wants(G->r, CG_RHS_JACOBIAN))
    lg_str_printf(h, "/* The exact Jacobian of %s_rhs: Jx = dx'/dx (2n x 2n) and Ju = dx'/du\n"
                     "   (2n x NU, may be NULL), row-major, u held constant. Returns nonzero\n"
                     "   when the (augmented) mass matrix is singular. */\n"
                     "int  %s_rhs_jacobian(double t, const double *x, const double *u,\n"
                     "    const double *p, double *Jx, double *Ju);\n", N, N);
  if (cg_wants(G->r, CG_MULTIPLIERS))
    lg_str_printf(h, "/* lam (%s_NC): the multipliers at (t, x), q'' and lam solved as in\n"
                     "   %s_rhs%s. Returns nonzero when the augmented mass matrix is singular. */\n"
                     "int  %s_multipliers(double t, const double *x, const double *u,\n"
                     "    const double *p, double *lam);\n", N, N,
                  G->r->kane ? " for Lagrange's equations at q' = k(q, u)" : "", N);
  if (cg_wants(G->r, CG_OUTPUTS)) {
    lg_str_printf(h, "/* out (%s_NOUT): the model's outputs at (t, x), in CSV column order:", N);
    for (size_t i = 0; i < mech_noutputs(m); i++) names_word(h, mech_output_name(m, i));
    lg_str_printf(h, ".\n   Returns nonzero when the augmented mass matrix is singular. */\n"
                     "enum { %s_NOUT = %zu };\n"
                     "int  %s_outputs(double t, const double *x, const double *u,\n"
                     "    const double *p, double *out);\n", N, mech_noutputs(m), N);
  }
  if (!G->r->kane && cg_wants(G->r, CG_RHS_RECURSIVE))
    lg_str_printf(h, "/* x' as %s_rhs, q'' by the articulated-body recursion over the model's\n"
                     "   kinematic tree (O(n) besides the forcing). Returns nonzero when the\n"
                     "   mass matrix is singular. */\n"
                     "int  %s_rhs_recursive(double t, const double *x, const double *u,\n"
                     "    const double *p, double *xdot);\n", N, N);
  lg_str_printf(h, "\n#endif\n");
}

lg_status cg_emit_c(cg_ctx *G) {
  static const char *const docs[CG_NFUNCS] = {
      "mass_matrix_full", "forcing_full", "[M, -J^T]", "f", NULL, "[T, V]",
      "generalized momenta dL/dq'", "constraint residuals", "constraint Jacobian J"};
  const char *N = NAME(G);
  if (G->r->header && !cg_include_name_ok(G->r->header)) {
    lg_diag_set(G->diag, LG_ERR_USAGE, NULL, 0, 0, "the header's file name cannot be written "
                "in an #include line (it has a quote, backslash, slash, control byte or "
                "two question marks)");
    lg_diag_hint(G->diag, "name the output file with letters, digits, '.', '-' and '_'");
    return LG_ERR_USAGE;
  }
  emit_header(G);
  lg_str_printf(G->src, "/* %s.c - generated by lagrange %s from ", N, LG_VERSION);
  cg_c_comment_text(G->src, G->r->model_path);
  lg_str_puts(G->src, ". Do not edit. */\n");
  if (G->r->header) lg_str_printf(G->src, "#include \"%s\"\n", G->r->header);
  else lg_str_printf(G->src, "#include \"%s.h\"\n", N);
  lg_str_puts(G->src, "\n#include <math.h>\n\n"
                      "#define lg_sign(v) ((double)(((v) > 0) - ((v) < 0)))\n");
  emit_params(G);
  lg_status st = emit_inputs(G);
  int jac = !G->r->kane && cg_wants(G->r, CG_RHS_JACOBIAN);
  int outs = cg_wants(G->r, CG_OUTPUTS) || cg_wants(G->r, CG_MULTIPLIERS);
  if (st == LG_OK) st = choose_rhs(G);
  G->full_by_call = G->r->tree_form && !G->r->kane && !G->r->eom->m &&
                    cg_wants(G->r, CG_MASS) && cg_wants(G->r, CG_FORCING);
  if (st == LG_OK && ((cg_wants(G->r, CG_RHS) && !G->rhs_by_tree) || outs))
    emit_solvers(G, outs); /* rhs_jacobian has its own */
  for (int f = 0; st == LG_OK && f < CG_NFUNCS; f++)
    if (cg_wants(G->r, f))
      st = f == CG_RHS ? emit_rhs(G) : emit_function(G, (cg_func)f, docs[f]);
  if (st == LG_OK && jac) st = emit_rhs_jacobian(G);
  if (st == LG_OK && !G->r->kane && cg_wants(G->r, CG_RHS_RECURSIVE)) st = emit_rhs_recursive(G);
  if (st == LG_OK && cg_wants(G->r, CG_MULTIPLIERS)) st = emit_multipliers(G);
  if (st == LG_OK && cg_wants(G->r, CG_OUTPUTS)) st = emit_outputs(G);
  return st;
}
