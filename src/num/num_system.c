/* num_system.c - compiling derived equations into one evaluation tape:
 * parameter values resolved, inputs replaced by their laws. */
#include "num.h"

#include <math.h>
#include <string.h>

static lg_status check_settings(mech_model *mm, const num_setting *set, size_t nset,
                                lg_diag *diag) {
  for (size_t k = 0; k < nset; k++) {
    int found = 0;
    for (size_t i = 0; i < mech_nparams(mm) && !found; i++)
      found = strcmp(mech_param_name(mm, i), set[k].name) == 0;
    for (size_t i = 0; i < mech_ninputs(mm) && !found; i++)
      found = strcmp(mech_input_name(mm, i), set[k].name) == 0;
    if (!found) {
      lg_diag_set(diag, LG_ERR_USAGE, NULL, 0, 0,
                  "`set` %s: the model has no parameter or input named '%s'",
                  set[k].name, set[k].name);
      return LG_ERR_USAGE;
    }
  }
  return LG_OK;
}

/* ---- outputs ---------------------------------------------------------------------------- */
/* Everything eval and simulate need, in one list; o_* give the offsets.
 * The dynamics come last, lowered first as a group of their own
 * (sym_tape_build_grouped), so the full tape computes M and f with
 * exactly the instructions of the dynamics tape (eval's q'' and accel's
 * agree to the last bit; lowering the outputs last first was not enough:
 * the sums' order follows use counts, which T, V and p changed). */
/* M (n x n) and f (n) given apart (e's). */
static const sym_node **collect_outputs(sym_ctx *c, num_system *s, const mech_eom *e,
                                        const sym_node *const *M, const sym_node *const *f) {
  size_t n = e->n, m = e->m, k = 0;
  s->o_T = k++;
  s->o_V = k++;
  s->o_p = k; k += n;
  s->o_M = k; k += n * n;
  s->o_f = k; k += n;
  s->o_J = k; k += m * n;
  s->o_gc = k; k += m;
  s->o_C = k; k += m;
  s->o_Cd = k; k += m;
  s->ndyn = k - s->o_M; /* from o_M on: what the right-hand side needs */
  s->nout = k;
  const sym_node **o = lg_malloc((k ? k : 1) * sizeof *o);
  if (!o) return NULL;
  memcpy(o + s->o_M, M, n * n * sizeof *o);
  memcpy(o + s->o_f, f, n * sizeof *o);
  if (m) memcpy(o + s->o_J, e->J->e, m * n * sizeof *o);
  if (m) memcpy(o + s->o_gc, e->gc, m * sizeof *o);
  o[s->o_T] = e->T;
  o[s->o_V] = e->V;
  memcpy(o + s->o_p, e->p, n * sizeof *o);
  for (size_t r = 0; r < m; r++) {
    o[s->o_C + r] = e->C[r];
    /* velocity-level residual: C' for a holonomic row, the row itself else */
    o[s->o_Cd + r] = e->kind[r] == MECH_HOLONOMIC ? sym_dt(c, e->C[r]) : e->C[r];
  }
  return o;
}

/* Replace inputs u, u', u'' by their laws (or --set constants). */
lg_status num_substitute_inputs(mech_model *mm, const num_setting *set, size_t nset,
                                   const sym_node **o, size_t nout) {
  sym_ctx *c = mech_ctx(mm);
  size_t ni = mech_ninputs(mm);
  if (!ni) return LG_OK;
  const sym_node **from = lg_malloc(3 * ni * sizeof *from);
  const sym_node **to = lg_malloc(3 * ni * sizeof *to);
  lg_status st = from && to ? LG_OK : LG_ERR_NOMEM;
  for (size_t i = 0; st == LG_OK && i < ni; i++) {
    const num_setting *s = mech_find_setting(set, nset, mech_input_name(mm, i));
    const sym_node *law = s ? sym_float(c, s->value) : mech_input_law(mm, i);
    for (int k = 0; k < 3; k++) {
      from[3 * i + k] = mech_input(mm, i, k);
      to[3 * i + k] = law;
      law = sym_dt(c, law);
    }
  }
  /* one cache for every output: they share their let-bound recursion;
   * an output without an input (M, most often) is its own result, and
   * telling which those are is cheaper than walking them (best effort) */
  unsigned char *has = st == LG_OK ? lg_malloc(nout + 1) : NULL, *state = NULL;
  size_t nstate = 0;
  if (has && sym_has_any(c, nout, o, 3 * ni, from, has, &state, &nstate) != LG_OK) {
    lg_free(has);
    has = NULL;
  }
  sym_subst_cache sc;
  if (st == LG_OK) st = sym_subst_cache_init(&sc, 3 * ni, from, to);
  int made = st == LG_OK;
  for (size_t j = 0; st == LG_OK && j < nout; j++) {
    if (has && !has[j]) continue;
    o[j] = state ? sym_subst_cached_pruned(c, &sc, o[j], state, nstate)
                 : sym_subst_cached(c, &sc, o[j]);
    if (!o[j]) st = LG_ERR_NOMEM;
  }
  if (made) sym_subst_cache_free(&sc);
  lg_free(has);
  lg_free(state);
  lg_free(from);
  lg_free(to);
  return st;
}

/* ---- build ------------------------------------------------------------------------------- */
/* A parameter without a value is an error only when the equations use it. */
static lg_status check_valueless(mech_model *mm, const num_system *s,
                                 const sym_node *const *o, size_t from, lg_diag *diag) {
  for (size_t i = 0; i < s->np; i++) {
    if (!isnan(s->params[i])) continue;
    for (size_t j = from; j < s->nout; j++) {
      if (!sym_has(o[j], mech_param(mm, i))) continue;
      int line, col;
      mech_param_pos(mm, i, &line, &col);
      lg_diag_set(diag, LG_ERR_MODEL, NULL, line, col,
                  "parameter '%s' has no value", s->param_names[i]);
      lg_diag_hint(diag, "give it one in the model ('%s = 1') or in the "
                         "call's parameters (`set` %s=1)", s->param_names[i], s->param_names[i]);
      return LG_ERR_MODEL;
    }
  }
  return LG_OK;
}

/* The tapes' inputs: t, q, q', params (lg_malloc'd, nin of them). */
static const sym_node **tape_inputs(mech_model *mm, const num_system *s, const mech_eom *e,
                                    size_t *nin) {
  *nin = 1 + 2 * s->n + s->np;
  const sym_node **in = lg_malloc(*nin * sizeof *in);
  if (!in) return NULL;
  in[0] = sym_time(mech_ctx(mm));
  for (size_t i = 0; i < s->n; i++) {
    in[1 + i] = e->q[i];
    in[1 + s->n + i] = e->qd[i];
  }
  for (size_t i = 0; i < s->np; i++) in[1 + 2 * s->n + i] = mech_param(mm, i);
  return in;
}

/* The tapes: full (every output) and dyn (from o_M on), as asked. */
static lg_status compile(mech_model *mm, num_system *s, const mech_eom *e,
                         const sym_node *const *o, int full, int dyn, lg_diag *diag) {
  sym_ctx *c = mech_ctx(mm);
  size_t nin;
  const sym_node **in = tape_inputs(mm, s, e, &nin);
  if (!in) return LG_ERR_NOMEM;
  const sym_node *missing = NULL;
  lg_status st =
      full ? sym_tape_build_grouped(c, nin, in, s->nout, o, s->ndyn, &s->tape, &missing) : LG_OK;
  if (st == LG_OK && dyn)
    st = sym_tape_build(c, nin, in, s->ndyn, o + s->o_M, &s->dyn, &missing);
  lg_free(in);
  if (st == LG_ERR_MODEL)
    lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0,
                "'%s' has no numeric value in the equations",
                missing && missing->v.name ? missing->v.name : "?");
  return st;
}

static lg_status build_tree_tape(mech_model *mm, const mech_eom *e, const num_setting *set,
                                 size_t nset, const sym_node *const *qdd, num_system *s,
                                 int check, lg_diag *diag);

static lg_status build(mech_model *mm, const mech_eom *e, const sym_node *const *M,
                       const sym_node *const *f, const num_setting *set,
                       size_t nset, num_system **out, lg_diag *diag,
                       const sym_node *const *qdd, int links) {
  *out = NULL;
  lg_status st = check_settings(mm, set, nset, diag);
  if (st != LG_OK) return st;
  num_system *s = lg_calloc(1, sizeof *s);
  if (!s) return LG_ERR_NOMEM;
  s->n = e ? e->n : mech_ncoords(mm); /* (e NULL: links by their numbers) */
  s->m = e ? e->m : 0;
  s->np = mech_nparams(mm);
  s->coord_names = lg_calloc(s->n + 1, sizeof *s->coord_names);
  s->param_names = lg_calloc(s->np + 1, sizeof *s->param_names);
  s->params = lg_calloc(s->np + 1, sizeof *s->params);
  s->row_holonomic = lg_calloc(s->m + 1, sizeof *s->row_holonomic);
  const sym_node **o = NULL;
  if (!s->coord_names || !s->param_names || !s->params || !s->row_holonomic) {
    st = LG_ERR_NOMEM;
    goto done;
  }
  for (size_t i = 0; i < s->n; i++) s->coord_names[i] = (e ? e->q[i] : mech_coord(mm, i, 0))->v.name;
  for (size_t i = 0; i < s->np; i++) s->param_names[i] = mech_param_name(mm, i);
  for (size_t r = 0; r < s->m; r++) s->row_holonomic[r] = e->kind[r] == MECH_HOLONOMIC;
  if ((st = mech_resolve_params(mm, set, nset, s->params, diag)) != LG_OK) goto done;
  if (links) { /* the recursion on numbers alone */
    st = num_links_build(mm, e, set, nset, s->params, &s->links, diag);
    goto done;
  }
  if (qdd) { /* the recursion's tape alone */
    st = build_tree_tape(mm, e, set, nset, qdd, s, 1, diag);
    goto done;
  }
  o = collect_outputs(mech_ctx(mm), s, e, M, f);
  if (!o) { st = LG_ERR_NOMEM; goto done; }
  if ((st = num_substitute_inputs(mm, set, nset, o, s->nout)) != LG_OK) goto done;
  if ((st = check_valueless(mm, s, o, 0, diag)) != LG_OK) goto done;
  st = compile(mm, s, e, o, 1, 1, diag);
  if (st == LG_OK) st = num_system_add_orientations(mm, e, s);
done:
  lg_free(o);
  if (st != LG_OK) {
    num_system_free(s);
    return st;
  }
  *out = s;
  return LG_OK;
}

lg_status num_system_build(mech_model *mm, const mech_eom *e, const num_setting *set,
                           size_t nset, num_system **out, lg_diag *diag) {
  return build(mm, e, e->M->e, e->f, set, nset, out, diag, NULL, 0);
}

lg_status num_system_build_tree(mech_model *mm, const mech_eom *e, const sym_node *const *qdd,
                                const num_setting *set, size_t nset, num_system **out,
                                lg_diag *diag) {
  if (e->m || !qdd) return LG_ERR_USAGE;
  return build(mm, e, NULL, NULL, set, nset, out, diag, qdd, 0);
}

lg_status num_system_build_links(mech_model *mm, const mech_eom *e, const num_setting *set,
                                 size_t nset, num_system **out, lg_diag *diag) {
  if (e ? e->m != 0 : !mech_num_tree_of(mm)) return LG_ERR_MODEL;
  return build(mm, e, NULL, NULL, set, nset, out, diag, NULL, 1);
}

lg_status num_system_with_tree(mech_model *mm, const mech_eom *e, const num_setting *set,
                               size_t nset, const num_system *s, num_system **out) {
  *out = NULL;
  if (s->tree) return LG_ERR_USAGE;
  num_system *x = lg_malloc(sizeof *x);
  if (!x) return LG_ERR_NOMEM;
  *x = *s;
  x->borrowed = 2;
  x->links = NULL;
  /* the recursion on numbers (num_links.c) where it can be built, as the
   * large tree's first q'' (the same q'' as lg_eval_accel), else its tape */
  lg_status st =
      s->m ? LG_ERR_MODEL : num_links_build(mm, e, set, nset, s->params, &x->links, NULL);
  if (st == LG_OK || st == LG_ERR_NOMEM) {
    if (st != LG_OK) num_system_free(x);
    else *out = x;
    return st;
  }
  st = num_system_add_tree(mm, e, set, nset, x);
  if (st != LG_OK) {
    num_system_free(x);
    return st;
  }
  *out = x;
  return LG_OK;
}

size_t num_system_nslots(const num_system *s) {
  size_t slots = s->dyn ? s->dyn->nslots : 0;
  if (s->tape && s->tape->nslots > slots) slots = s->tape->nslots;
  if (s->tree && s->tree->nslots > slots) slots = s->tree->nslots;
  if (num_links_nslots(s->links) > slots) slots = num_links_nslots(s->links);
  return slots;
}

/* s->tree from q'' (inputs substituted as for every other tape). check:
 * a parameter without a value or a missing value is an error (diag), else
 * the tree is just left out. */
static lg_status build_tree_tape(mech_model *mm, const mech_eom *e, const num_setting *set,
                                 size_t nset, const sym_node *const *qdd, num_system *s,
                                 int check, lg_diag *diag) {
  size_t nin, n = s->n;
  lg_status st = LG_OK;
  const sym_node **in = tape_inputs(mm, s, e, &nin), **o = lg_malloc((n + 1) * sizeof *o);
  if (!in || !o) st = LG_ERR_NOMEM;
  if (st == LG_OK) {
    memcpy(o, qdd, n * sizeof *o);
    st = num_substitute_inputs(mm, set, nset, o, n);
  }
  if (st == LG_OK && check) {
    size_t nout = s->nout;
    s->nout = n; /* (check_valueless reads outputs 0..nout) */
    st = check_valueless(mm, s, o, 0, diag);
    s->nout = nout;
  }
  const sym_node *missing = NULL;
  if (st == LG_OK) st = sym_tape_build(mech_ctx(mm), nin, in, n, o, &s->tree, &missing);
  if (st == LG_ERR_MODEL && check)
    lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0, "'%s' has no numeric value in the equations",
                missing && missing->v.name ? missing->v.name : "?");
  else if (st == LG_ERR_MODEL) st = LG_OK; /* something without a value: keep the dense solve */
  lg_free(in);
  lg_free(o);
  return st;
}

lg_status num_system_add_tree(mech_model *mm, const mech_eom *e, const num_setting *set,
                              size_t nset, num_system *s) {
  if (s->m || s->tree) return LG_OK;
  lg_diag ignore;
  lg_diag_clear(&ignore);
  const sym_node **qdd;
  lg_status st = e->tree_qdd ? LG_OK : mech_tree_accel(mm, e, NULL, &qdd, &ignore);
  if (e->tree_qdd) qdd = e->tree_qdd;
  if (st != LG_OK) return st == LG_ERR_NOMEM ? st : LG_OK; /* not a tree: the dense solve */
  size_t n = s->n;
  st = build_tree_tape(mm, e, set, nset, qdd, s, 0, NULL);
  /* worth it when it is shorter than the dense path: M and f, then the
   * Cholesky factorization and solve (n^3/3 + 2 n^2 operations) */
  if (s->tree && s->tree->ninstr > s->dyn->ninstr + n * n * n / 3 + 2 * n * n) {
    sym_tape_free(s->tree);
    s->tree = NULL;
  }
  return st;
}

void num_system_free(num_system *s) {
  if (!s) return;
  if (s->borrowed != 2) sym_tape_free(s->tape);
  sym_tape_free(s->tree);
  if (s->borrowed != 1) num_links_free(s->links);
  if (s->borrowed) {
    lg_free(s);
    return;
  }
  sym_tape_free(s->dyn);
  lg_free(s->coord_names);
  lg_free(s->param_names);
  lg_free(s->params);
  lg_free(s->row_holonomic);
  lg_free(s->euler);
  lg_free(s);
}

/* ---- evaluation ------------------------------------------------------------------------------ */
lg_status num_work_init(const num_system *s, num_work *w) {
  size_t N = s->n + s->m;
  memset(w, 0, sizeof *w);
  w->in = lg_calloc(1 + 2 * s->n + s->np, sizeof *w->in);
  w->out = lg_calloc(s->nout + 1, sizeof *w->out);
  w->slots = lg_calloc(num_system_nslots(s) + 1, sizeof *w->slots);
  w->A = lg_calloc(N * N + 1, sizeof *w->A);
  w->b = lg_calloc(N + 1, sizeof *w->b);
  w->ipiv = lg_calloc(N + 1, sizeof *w->ipiv);
  if (!w->in || !w->out || !w->slots || !w->A || !w->b || !w->ipiv) {
    num_work_free(w);
    return LG_ERR_NOMEM;
  }
  memcpy(w->in + 1 + 2 * s->n, s->params, s->np * sizeof *s->params);
  return LG_OK;
}

void num_work_free(num_work *w) {
  lg_scratch_free(&w->scratch);
  lg_free(w->in);
  lg_free(w->out);
  lg_free(w->slots);
  lg_free(w->A);
  lg_free(w->b);
  lg_free(w->ipiv);
  memset(w, 0, sizeof *w);
}

void num_evaluate(const num_system *s, num_work *w, double t, const double *q,
                  const double *qd) {
  w->in[0] = t;
  memcpy(w->in + 1, q, s->n * sizeof *q);
  memcpy(w->in + 1 + s->n, qd, s->n * sizeof *qd);
  sym_tape_eval(s->tape, w->in, w->out, w->slots);
}

int num_evaluate_tree(const num_system *s, num_work *w, double t, const double *q,
                      const double *qd, double *qdd) {
  w->in[0] = t;
  memcpy(w->in + 1, q, s->n * sizeof *q);
  memcpy(w->in + 1 + s->n, qd, s->n * sizeof *qd);
  if (s->links) return num_links_accel(s->links, w->in, w->slots, qdd);
  sym_tape_eval(s->tree, w->in, qdd, w->slots);
  for (size_t i = 0; i < s->n; i++)
    if (!isfinite(qdd[i])) return 0;
  return 1;
}

void num_evaluate_dynamics(const num_system *s, num_work *w, double t, const double *q,
                           const double *qd) {
  w->in[0] = t;
  memcpy(w->in + 1, q, s->n * sizeof *q);
  memcpy(w->in + 1 + s->n, qd, s->n * sizeof *qd);
  sym_tape_eval(s->dyn, w->in, w->out + s->o_M, w->slots);
}
