/* cg_gen.c - what each generated function computes, as lists of
 * expressions, and their lowering to SSA tapes (one tape per function, so
 * subexpressions are shared across all of a function's outputs). The
 * spelling of the tapes is in cg_emit_c.c and cg_emit_py.c. */
#include "cg_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- inputs as symbols ------------------------------------------------------------- */
/* Input k, k' and k'' become the symbols $uk, $udk, $uddk (not valid model
 * names, so they never clash); the generated code fills them from the
 * caller's u (derivatives 0) or from the model's laws. */
static const sym_node *input_symbol(sym_ctx *c, size_t k, int order) {
  char buf[32];
  snprintf(buf, sizeof buf, "$u%s%zu", order == 0 ? "" : order == 1 ? "d" : "dd", k);
  return sym_symbol(c, buf);
}

static int substitute_inputs(cg_ctx *G, const sym_node **e, size_t n) {
  size_t ni = mech_ninputs(G->r->mech);
  if (!ni) return 1;
  const sym_node **from = lg_malloc(6 * ni * sizeof *from), **to = from ? from + 3 * ni : NULL;
  if (!from) return 0;
  for (size_t k = 0; k < ni; k++)
    for (int o = 0; o < 3; o++) {
      from[3 * k + o] = mech_input(G->r->mech, k, o);
      to[3 * k + o] = input_symbol(G->c, k, o);
    }
  /* one cache: the entries share their let-bound recursion */
  sym_subst_cache sc;
  int ok = sym_subst_cache_init(&sc, 3 * ni, from, to) == LG_OK, made = ok;
  for (size_t i = 0; ok && i < n; i++) ok = (e[i] = sym_subst_cached(G->c, &sc, e[i])) != NULL;
  if (made) sym_subst_cache_free(&sc);
  lg_free(from);
  return ok;
}

/* ---- tape inputs: t, x (2n), p, uu (3 per input) ---------------------------------------- */
static int make_inputs(cg_ctx *G) {
  const mech_eom *e = G->r->eom;
  const mech_kane *kn = G->r->kane;
  size_t n = e->n, np = mech_nparams(G->r->mech), ni = mech_ninputs(G->r->mech);
  G->nx = kn ? n + kn->p : 2 * n;
  G->nin = 1 + G->nx + np + 3 * ni;
  G->in = lg_malloc(G->nin * sizeof *G->in);
  if (!G->in) return 0;
  size_t k = 0;
  G->in[k++] = sym_time(G->c);
  for (size_t i = 0; i < n; i++) G->in[k++] = e->q[i];
  for (size_t i = 0; i < G->nx - n; i++) G->in[k++] = kn ? kn->u[i] : e->qd[i];
  for (size_t i = 0; i < np; i++) G->in[k++] = mech_param(G->r->mech, i);
  for (size_t i = 0; i < ni; i++)
    for (int o = 0; o < 3; o++) G->in[k++] = input_symbol(G->c, i, o);
  return 1;
}

lg_status cg_tape(cg_ctx *G, const sym_node **outs, size_t n, sym_tape **t) {
  if (!substitute_inputs(G, outs, n)) return LG_ERR_NOMEM;
  const sym_node *missing = NULL;
  lg_status st = sym_tape_build_ssa(G->c, G->nin, G->in, n, outs, t, &missing);
  if (st == LG_ERR_MODEL)
    lg_diag_set(G->diag, LG_ERR_MODEL, NULL, 0, 0, "'%s' cannot be generated as code",
                missing && missing->v.name ? missing->v.name : "?");
  return st;
}

/* [u_k, u_k', u_k''] for every input k from the model's laws, as a tape. */
lg_status cg_inputs_tape(cg_ctx *G, sym_tape **t) {
  mech_model *m = G->r->mech;
  size_t ni = mech_ninputs(m);
  const sym_node **outs = lg_malloc((3 * ni + 1) * sizeof *outs);
  if (!outs) return LG_ERR_NOMEM;
  for (size_t k = 0; k < ni; k++) {
    const sym_node *law = mech_input_law(m, k);
    for (int o = 0; o < 3; o++, law = sym_dt(G->c, law)) outs[3 * k + o] = law;
  }
  lg_status st = cg_tape(G, outs, 3 * ni, t);
  lg_free(outs);
  return st;
}

/* Kane: what each function returns in the state [q; u]; quantities of
 * Lagrange's (T, V, momenta, constraints) with q' from the kinematics. */
static const sym_node *kq(cg_ctx *G, const sym_node *e) {
  const mech_kane *k = G->r->kane;
  return sym_subst(G->c, e, k->n, k->qd, k->kq);
}

static const sym_node **kane_outputs(cg_ctx *G, cg_func f, size_t *count) {
  const mech_eom *e = G->r->eom;
  const mech_kane *k = G->r->kane;
  size_t n = k->n, p = k->p, m = e->m, X = n + p;
  size_t cnt = f == CG_MASS_FULL ? X * X : f == CG_FORCING_FULL ? X : f == CG_MASS ? p * p
             : f == CG_FORCING ? p : f == CG_RHS ? n + p * p + p : f == CG_ENERGY ? 2
             : f == CG_MOMENTA ? n : f == CG_CONSTRAINTS ? m : m * n;
  const sym_node **o = lg_malloc((cnt ? cnt : 1) * sizeof *o);
  if (!o) return NULL;
  switch (f) {
  case CG_MASS_FULL: memcpy(o, k->mass_matrix_full->e, cnt * sizeof *o); break;
  case CG_FORCING_FULL: memcpy(o, k->forcing_full, cnt * sizeof *o); break;
  case CG_MASS: memcpy(o, k->M->e, cnt * sizeof *o); break;
  case CG_FORCING: memcpy(o, k->f, cnt * sizeof *o); break;
  case CG_RHS: /* [q'; M; f] */
    memcpy(o, k->kq, n * sizeof *o);
    memcpy(o + n, k->M->e, p * p * sizeof *o);
    memcpy(o + n + p * p, k->f, p * sizeof *o);
    break;
  case CG_ENERGY: o[0] = kq(G, e->T); o[1] = kq(G, e->V); break;
  case CG_MOMENTA: for (size_t i = 0; i < n; i++) o[i] = kq(G, e->p[i]); break;
  case CG_CONSTRAINTS: for (size_t i = 0; i < m; i++) o[i] = kq(G, e->C[i]); break;
  default: for (size_t i = 0; i < m * n; i++) o[i] = kq(G, e->J->e[i]); break;
  }
  *count = cnt;
  return o;
}

/* ---- the functions' outputs ----------------------------------------------------------------- */
static const sym_node **lagrange_outputs(cg_ctx *G, cg_func f, size_t *count);

const sym_node **cg_outputs(cg_ctx *G, cg_func f, size_t *count) {
  if (G->r->kane) return kane_outputs(G, f, count);
  return lagrange_outputs(G, f, count);
}

const sym_node **cg_in_state(cg_ctx *G, const sym_node **e, size_t n) {
  const mech_kane *k = G->r->kane;
  if (!k || !n) return e;
  sym_subst_cache sc;
  if (sym_subst_cache_init(&sc, k->n, k->qd, k->kq) != LG_OK) return NULL;
  for (size_t i = 0; i < n; i++) e[i] = sym_subst_cached(G->c, &sc, e[i]);
  sym_subst_cache_free(&sc);
  return e;
}

lg_status cg_outputs_tape(cg_ctx *G, sym_tape **out) {
  const mech_eom *e = G->r->eom;
  mech_model *m = G->r->mech;
  size_t nout = mech_noutputs(m), n = e->n;
  const sym_node **x = lg_malloc((nout + 1) * sizeof *x);
  const sym_node **in = lg_malloc((G->nin + n + e->m + 1) * sizeof *in);
  *out = NULL;
  lg_status st = x && in ? mech_outputs_in(m, e, G->r->model_path, x, G->diag) : LG_ERR_NOMEM;
  if (st == LG_OK && !cg_in_state(G, x, nout)) st = LG_ERR_NOMEM;
  if (st == LG_OK) {
    const sym_node **saved = G->in;
    size_t saved_n = G->nin;
    memcpy(in, G->in, G->nin * sizeof *in);
    for (size_t i = 0; i < n; i++) in[G->nin + i] = e->qdd[i];
    for (size_t r = 0; r < e->m; r++) in[G->nin + n + r] = e->lam[r];
    G->in = in;
    G->nin = saved_n + n + e->m;
    G->nin_base = saved_n;
    st = cg_tape(G, x, nout, out);
    G->in = saved;
    G->nin = saved_n;
  }
  lg_free(x);
  lg_free(in);
  return st;
}

const sym_node **cg_aug_outputs(cg_ctx *G, size_t *count) {
  const sym_node **o = lagrange_outputs(G, CG_RHS, count);
  if (o && !cg_in_state(G, o, *count)) {
    lg_free(o);
    return NULL;
  }
  return o;
}

static const sym_node **lagrange_outputs(cg_ctx *G, cg_func f, size_t *count) {
  const mech_eom *e = G->r->eom;
  size_t n = e->n, m = e->m, N = n + m, F = 2 * n + m, k = 0;
  size_t cnt = f == CG_MASS_FULL ? F * F : f == CG_FORCING_FULL ? F
             : f == CG_MASS ? n * N : f == CG_FORCING ? n : f == CG_RHS ? N * N + N
             : f == CG_ENERGY ? 2 : f == CG_MOMENTA ? n : f == CG_CONSTRAINTS ? m : m * n;
  const sym_node **o = lg_malloc((cnt ? cnt : 1) * sizeof *o);
  if (!o) return NULL;
  const sym_node *zero = sym_int(G->c, 0);
  switch (f) {
  case CG_MASS_FULL: memcpy(o, e->mass_matrix_full->e, cnt * sizeof *o); break;
  case CG_FORCING_FULL: memcpy(o, e->forcing_full, cnt * sizeof *o); break;
  case CG_MASS: memcpy(o, e->mass_matrix->e, cnt * sizeof *o); break;
  case CG_FORCING: memcpy(o, e->f, cnt * sizeof *o); break;
  case CG_RHS: /* [[M, -J^T], [J, 0]] row-major, then [f; gc] */
    for (size_t i = 0; i < N; i++)
      for (size_t j = 0; j < N; j++)
        o[k++] = i < n ? SYM_AT(e->mass_matrix, i, j)
                       : j < n ? SYM_AT(e->J, i - n, j) : zero;
    for (size_t i = 0; i < N; i++) o[k++] = i < n ? e->f[i] : e->gc[i - n];
    break;
  case CG_ENERGY: o[0] = e->T; o[1] = e->V; break;
  case CG_MOMENTA: memcpy(o, e->p, cnt * sizeof *o); break;
  case CG_CONSTRAINTS: if (m) memcpy(o, e->C, cnt * sizeof *o); break;
  default: if (m) memcpy(o, e->J->e, cnt * sizeof *o); break;
  }
  *count = cnt;
  return o;
}

/* ---- driver ------------------------------------------------------------------------------- */
static const char *const function_names[CG_FUNCTION_COUNT] = {
    "mass_matrix_full", "forcing_full", "mass_matrix", "forcing", "rhs",
    "energy", "momenta", "constraints", "constraint_jacobian", "rhs_jacobian",
    "rhs_recursive", "outputs", "multipliers"};

const char *cg_function_name(int f) {
  return f >= 0 && f < CG_FUNCTION_COUNT ? function_names[f] : NULL;
}

int cg_function_lookup(const char *name) {
  for (int f = 0; f < CG_FUNCTION_COUNT; f++)
    if (!strcmp(function_names[f], name)) return f;
  return -1;
}

lg_status cg_parse_functions(const char *text, int c_lagrange, unsigned *out, lg_diag *d) {
  *out = 0;
  if (!text) return LG_OK;
  for (const char *s = text; *s;) {
    s += strspn(s, ", \t");
    size_t n = strcspn(s, ", \t");
    if (!n) break;
    char word[64] = {0};
    int f = n < sizeof word ? (memcpy(word, s, n), cg_function_lookup(word)) : -1;
    if (f < 0) {
      lg_str names;
      lg_str_init(&names);
      for (int i = 0; i < CG_FUNCTION_COUNT; i++)
        lg_str_printf(&names, "%s%s", i ? ", " : "", cg_function_name(i));
      lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "`functions`: no function '%.*s'",
                  n > 64 ? 64 : (int)n, s);
      lg_diag_hint(d, "choose from %s", names.s ? names.s : "");
      lg_str_free(&names);
      return LG_ERR_USAGE;
    }
    if (!c_lagrange && (f == CG_RHS_JACOBIAN || f == CG_RHS_RECURSIVE)) {
      lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "`functions` %s is written in C for Lagrange's "
                  "method only", word);
      lg_diag_hint(d, "drop it, or generate C under Lagrange's method");
      return LG_ERR_USAGE;
    }
    *out |= 1u << f;
    s += n;
  }
  if (!*out) {
    lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "`functions` names no function");
    lg_diag_hint(d, "name one, e.g. rhs");
    return LG_ERR_USAGE;
  }
  return LG_OK;
}

int cg_identifier_ok(const char *s) {
  if (!s || !*s || (*s >= '0' && *s <= '9')) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || *s == '_'))
      return 0;
  return 1;
}

char *cg_default_name(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strcspn(base, ".");
  char *s = lg_malloc(len + 2);
  if (!s) return NULL;
  size_t k = 0;
  if (len == 0 || (base[0] >= '0' && base[0] <= '9')) s[k++] = 'm';
  for (size_t i = 0; i < len; i++) {
    char ch = base[i];
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
             (ch >= '0' && ch <= '9') || ch == '_';
    s[k++] = ok ? ch : '_';
  }
  s[k] = 0;
  return s;
}

lg_status cg_generate(const cg_request *r, cg_lang lang, lg_str *src, lg_str *hdr,
                      cg_stats *stats, lg_diag *diag) {
  cg_ctx G = {.r = r, .c = mech_ctx(r->mech), .diag = diag, .src = src, .hdr = hdr};
  if (!cg_identifier_ok(r->name)) { /* it is spelled into code as it is */
    lg_diag_set(diag, LG_ERR_USAGE, NULL, 0, 0, "the generated code's name must be a C "
                "identifier (letters, digits and '_', not starting with a digit)");
    return LG_ERR_USAGE;
  }
  size_t np = mech_nparams(r->mech);
  G.params = lg_calloc(np + 1, sizeof *G.params);
  lg_status st = G.params && make_inputs(&G) ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) st = mech_resolve_params(r->mech, r->set, r->nset, G.params, diag);
  /* the dense equations only when a function reads them (derived on first
   * use: a tree's rhs_recursive alone never builds them) */
  int dense = 0;
  for (int f = 0; f < CG_FUNCTION_COUNT; f++)
    if (cg_wants(r, f) && f != CG_ENERGY && f != CG_CONSTRAINTS &&
        f != CG_CONSTRAINT_JACOBIAN && f != CG_RHS_RECURSIVE)
      dense = 1;
  if (st == LG_OK && (dense || r->kane)) st = mech_eom_need_dynamics(r->eom, diag);
  if (st == LG_OK) st = lang == CG_C ? cg_emit_c(&G) : cg_emit_python(&G);
  if (st == LG_OK && (src->oom || (hdr && hdr->oom))) st = LG_ERR_NOMEM;
  if (stats) *stats = G.stats;
  lg_free(G.params);
  lg_free(G.in);
  return st;
}
