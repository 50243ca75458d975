/* cg_emit_py.c - spelling tapes as a NumPy module (the same functions as
 * the C target, returning arrays). */
#include "cg_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


static void py_input(const cg_ctx *G, lg_str *o, size_t k) {
  size_t nx = G->nx, np = mech_nparams(G->r->mech);
  if (G->nin_base && k >= G->nin_base) lg_str_printf(o, "z[%zu]", k - G->nin_base);
  else if (k == 0) lg_str_puts(o, "t");
  else if (k <= nx) lg_str_printf(o, "x[%zu]", k - 1);
  else if (k <= nx + np) lg_str_printf(o, "p[%zu]", k - 1 - nx);
  else lg_str_printf(o, "uu[%zu]", k - 1 - nx - np);
}

static void py_literal(lg_str *o, double k) {
  if (isnan(k)) lg_str_puts(o, "np.nan");
  else if (isinf(k)) lg_str_puts(o, k > 0 ? "np.inf" : "-np.inf");
  else lg_str_double(o, k);
}

static void py_instr(const cg_ctx *G, lg_str *o, const sym_instr *s, const char *out) {
  if (s->op == SYM_OP_OUT) {
    lg_str_printf(o, "    %s[%u] = v%u\n", out, s->a, s->b);
    return;
  }
  lg_str_printf(o, "    v%u = ", s->r);
  switch (s->op) {
  case SYM_OP_CONST: py_literal(o, s->k); break;
  case SYM_OP_INPUT: py_input(G, o, s->a); break;
  case SYM_OP_ADD: lg_str_printf(o, "v%u + v%u", s->a, s->b); break;
  case SYM_OP_SUB: lg_str_printf(o, "v%u - v%u", s->a, s->b); break;
  case SYM_OP_MUL: lg_str_printf(o, "v%u * v%u", s->a, s->b); break;
  case SYM_OP_DIV: lg_str_printf(o, "v%u / v%u", s->a, s->b); break;
  case SYM_OP_NEG: lg_str_printf(o, "-v%u", s->a); break;
  case SYM_OP_SQR: lg_str_printf(o, "v%u * v%u", s->a, s->a); break;
  case SYM_OP_POWI: lg_str_printf(o, "v%u ** %d", s->a, s->n); break;
  case SYM_OP_POW: lg_str_printf(o, "v%u ** v%u", s->a, s->b); break;
  default: {
    const char *fn = sym_fn_name((sym_fn)s->fn);
    if (s->fn == SYM_FN_ASIN) fn = "arcsin";
    else if (s->fn == SYM_FN_ACOS) fn = "arccos";
    else if (s->fn == SYM_FN_ATAN) fn = "arctan";
    else if (s->fn == SYM_FN_ATAN2) fn = "arctan2";
    if (sym_fn_arity((sym_fn)s->fn) == 2) lg_str_printf(o, "np.%s(v%u, v%u)", fn, s->a, s->b);
    else lg_str_printf(o, "np.%s(v%u)", fn, s->a);
  }
  }
  lg_str_putc(o, '\n');
}

static lg_status py_function(cg_ctx *G, cg_func f, size_t rows, size_t cols) {
  size_t n;
  const sym_node **outs = cg_outputs(G, f, &n);
  sym_tape *t = NULL;
  lg_status st = outs ? cg_tape(G, outs, n, &t) : LG_ERR_NOMEM;
  lg_free(outs);
  if (st != LG_OK) return st;
  lg_str *o = G->src;
  lg_str_printf(o, "\n\ndef %s%s(t, x, u=None, p=DEFAULT_PARAMS):\n",
                f == CG_RHS ? "_rhs_parts" : "", f == CG_RHS ? "" : cg_function_name(f));
  lg_str_printf(o, "    \"\"\"%zu operations after common-subexpression elimination.\"\"\"\n",
                t->flops);
  if (mech_ninputs(G->r->mech)) lg_str_puts(o, "    uu = _inputs(t, u, p)\n");
  lg_str_printf(o, "    res = np.empty(%zu)\n", n);
  for (size_t i = 0; i < t->ninstr; i++) py_instr(G, o, &t->code[i], "res");
  if (cols > 1) lg_str_printf(o, "    return res.reshape(%zu, %zu)\n", rows, cols);
  else lg_str_puts(o, "    return res\n");
  sym_tape_free(t);
  return LG_OK;
}

static lg_status py_inputs(cg_ctx *G) {
  size_t ni = mech_ninputs(G->r->mech);
  if (!ni) return LG_OK;
  sym_tape *t = NULL;
  lg_status st = cg_inputs_tape(G, &t);
  if (st != LG_OK) return st;
  lg_str *o = G->src;
  lg_str_printf(o, "\n\ndef _inputs(t, u, p):\n    uu = np.zeros(%zu)\n"
                   "    if u is not None:\n        uu[0::3] = u\n        return uu\n", 3 * ni);
  for (size_t i = 0; i < t->ninstr; i++) py_instr(G, o, &t->code[i], "uu");
  lg_str_puts(o, "    return uu\n");
  sym_tape_free(t);
  return LG_OK;
}

static void py_string(lg_str *o, size_t i, const char *s);

/* ---- outputs and multipliers: q'' and lam solved from Lagrange's equations ---------- */
/* Only when asked for (--functions): the module's default set is unchanged. */
static int py_asked(const cg_ctx *G, int f) { return G->r->functions >> f & 1u; }

/* _aug(t, x, u, p): z = [q''; lam] from [[M, -J^T], [J, 0]] z = [f; gc]
 * (under Kane's method at q' = k(q, u)). */
static lg_status py_aug(cg_ctx *G) {
  const mech_eom *e = G->r->eom;
  size_t N = e->n + e->m, cnt;
  const sym_node **outs = cg_aug_outputs(G, &cnt);
  sym_tape *t = NULL;
  lg_status st = outs ? cg_tape(G, outs, cnt, &t) : LG_ERR_NOMEM;
  lg_free(outs);
  if (st != LG_OK) return st;
  lg_str *o = G->src;
  lg_str_printf(o, "\n\ndef _aug(t, x, u, p):\n"
                   "    \"\"\"[q''; lam] solved from Lagrange's equations at (t, x)%s.\"\"\"\n",
                G->r->kane ? " with q' = k(q, u)" : "");
  if (mech_ninputs(G->r->mech)) lg_str_puts(o, "    uu = _inputs(t, u, p)\n");
  lg_str_printf(o, "    res = np.empty(%zu)\n", cnt);
  for (size_t i = 0; i < t->ninstr; i++) py_instr(G, o, &t->code[i], "res");
  lg_str_printf(o, "    return np.linalg.solve(res[:%zu].reshape(%zu, %zu), res[%zu:])\n",
                N * N, N, N, N * N);
  sym_tape_free(t);
  if (py_asked(G, CG_MULTIPLIERS))
    lg_str_printf(o, "\n\ndef multipliers(t, x, u=None, p=DEFAULT_PARAMS):\n"
                     "    \"\"\"lam (NC): the multipliers at (t, x), solved as rhs solves "
                     "them.\"\"\"\n    return _aug(t, x, u, p)[%zu:]\n", e->n);
  return LG_OK;
}

static lg_status py_outputs(cg_ctx *G) {
  mech_model *m = G->r->mech;
  size_t nout = mech_noutputs(m);
  sym_tape *t = NULL;
  lg_status st = cg_outputs_tape(G, &t); /* over [t, x, p, uu, z = (q'', lam)] */
  if (st == LG_OK) {
    lg_str *o = G->src;
    lg_str_puts(o, "\n\nOUTPUTS = [");
    for (size_t i = 0; i < nout; i++) py_string(o, i, mech_output_name(m, i));
    lg_str_printf(o, "]\n\n\ndef outputs(t, x, u=None, p=DEFAULT_PARAMS):\n"
                     "    \"\"\"The model's outputs at (t, x) (OUTPUTS, CSV column order), q'' "
                     "and lam solved as rhs solves them.\"\"\"\n"
                     "    z = _aug(t, x, u, p)\n");
    if (mech_ninputs(m)) lg_str_puts(o, "    uu = _inputs(t, u, p)\n");
    lg_str_printf(o, "    out = np.empty(%zu)\n", nout);
    for (size_t i = 0; i < t->ninstr; i++) py_instr(G, o, &t->code[i], "out");
    lg_str_puts(o, "    return out\n");
  }
  G->nin_base = 0;
  sym_tape_free(t);
  return st;
}

/* Item i of a list of names: ["a", "b"] */
static void py_string(lg_str *o, size_t i, const char *s) {
  lg_str_puts(o, i ? ", \"" : "\"");
  cg_py_string_text(o, s);
  lg_str_putc(o, '"');
}

lg_status cg_emit_python(cg_ctx *G) {
  const mech_eom *e = G->r->eom;
  mech_model *m = G->r->mech;
  size_t n = e->n, k = e->m, N = n + k, F = 2 * n + k;
  lg_str *o = G->src;
  lg_str_puts(o, "\"\"\"");
  cg_py_string_text(o, G->r->name);
  lg_str_puts(o, " - generated by lagrange from ");
  cg_py_string_text(o, G->r->model_path);
  lg_str_printf(o, ". Do not edit.\n\n"
                   "State x = [q; q'], u = inputs (or None for the model's laws),\n"
                   "p = parameters in declaration order.\"\"\"\nimport numpy as np\n\n"
                   "NQ, NC, NU, NP = %zu, %zu, %zu, %zu\n", n, k, mech_ninputs(m),
                mech_nparams(m));
  lg_str_puts(o, "COORDINATES = [");
  for (size_t i = 0; i < n; i++) py_string(o, i, e->q[i]->v.name);
  lg_str_puts(o, "]\nPARAMETERS = [");
  for (size_t i = 0; i < mech_nparams(m); i++) py_string(o, i, mech_param_name(m, i));
  lg_str_puts(o, "]\nDEFAULT_PARAMS = np.array([");
  for (size_t i = 0; i < mech_nparams(m); i++) {
    if (i) lg_str_puts(o, ", ");
    py_literal(o, G->params[i]);
  }
  lg_str_puts(o, "], dtype=float)\n");
  lg_status st = py_inputs(G);
  size_t shape[CG_NFUNCS][2] = {{F, F}, {F, 1}, {n, N}, {n, 1}, {N * N + N, 1}, {2, 1},
                                {n, 1}, {k, 1}, {k, n}};
  const mech_kane *kn = G->r->kane;
  size_t P = kn ? kn->p : 0, X = n + P;
  if (kn) { /* x = [q; u] */
    size_t ks[CG_NFUNCS][2] = {{X, X}, {X, 1}, {P, P}, {P, 1}, {n + P * P + P, 1}, {2, 1},
                               {n, 1}, {k, 1}, {k, n}};
    memcpy(shape, ks, sizeof shape);
  }
  for (int f = 0; st == LG_OK && f < CG_NFUNCS; f++)
    if (cg_wants(G->r, f)) st = py_function(G, (cg_func)f, shape[f][0], shape[f][1]);
  if (st == LG_OK && (py_asked(G, CG_OUTPUTS) || py_asked(G, CG_MULTIPLIERS))) st = py_aug(G);
  if (st == LG_OK && py_asked(G, CG_OUTPUTS)) st = py_outputs(G);
  if (st != LG_OK || !cg_wants(G->r, CG_RHS)) return st;
  if (kn) {
    lg_str_printf(o, "\n\ndef rhs(t, x, u=None, p=DEFAULT_PARAMS):\n"
                     "    \"\"\"x' = F(t, x, u, p) for Kane's state x = [q; u].\"\"\"\n"
                     "    r = _rhs_parts(t, x, u, p)\n"
                     "    M = r[%zu:%zu].reshape(%zu, %zu)\n"
                     "    return np.concatenate([r[:%zu], np.linalg.solve(M, r[%zu:])])\n",
                  n, n + P * P, P, P, n, n + P * P);
    return st;
  }
  lg_str_printf(o, "\n\ndef rhs(t, x, u=None, p=DEFAULT_PARAMS):\n"
                   "    \"\"\"x' = F(t, x, u, p).\"\"\"\n"
                   "    ab = _rhs_parts(t, x, u, p)\n"
                   "    A = ab[:%zu].reshape(%zu, %zu)\n"
                   "    z = np.linalg.solve(A, ab[%zu:])\n"
                   "    return np.concatenate([np.asarray(x, dtype=float)[%zu:], z[:%zu]])\n",
                N * N, N, N, N * N, n, n);
  return st;
}
