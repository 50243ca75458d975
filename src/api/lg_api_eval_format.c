/* lg_api_eval_format.c - `lagrange eval`'s report at one state: the
 * values (lg_eval under Lagrange's method, Kane's own evaluation under
 * Kane's) formatted as the command prints them, text or JSON. Kane's
 * path keeps the command's rules: declared speeds given by value (or by
 * the model's `initial` statement) define the velocities, given dependent
 * speeds are checked against the velocity constraints, and dependent
 * speeds chosen at the initial state that cannot be solved at the asked
 * state are chosen there instead (with a note). */
#include "lg_api_internal.h"

#include "cg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- JSON and text pieces ------------------------------------------------------- */
static void json_number(lg_str *o, double x) {
  if (!isfinite(x)) {
    lg_str_puts(o, "null");
  } else {
    char b[LG_DOUBLE_CHARS];
    lg_str_puts(o, lg_fmt_double(b, x));
  }
}

static void json_array(lg_str *o, const char *key, const double *x, size_t n) {
  lg_str_printf(o, ",\n  \"%s\": [", key);
  for (size_t i = 0; i < n; i++) {
    if (i) lg_str_puts(o, ", ");
    json_number(o, x[i]);
  }
  lg_str_putc(o, ']');
}

static void json_matrix(lg_str *o, const char *key, const double *a, size_t rows,
                        size_t cols) {
  lg_str_printf(o, ",\n  \"%s\": [", key);
  for (size_t i = 0; i < rows; i++) {
    lg_str_puts(o, i ? ",\n    [" : "\n    [");
    for (size_t j = 0; j < cols; j++) {
      if (j) lg_str_puts(o, ", ");
      json_number(o, a[i * cols + j]);
    }
    lg_str_putc(o, ']');
  }
  lg_str_putc(o, ']');
}

static void json_names(lg_str *o, const sym_node *const *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (i) lg_str_puts(o, ", ");
    lg_str tmp;
    lg_str_init(&tmp);
    sym_print(&tmp, v[i], SYM_STYLE_TEXT, NULL, NULL);
    lg_str_json(o, tmp.s ? tmp.s : "");
    lg_str_free(&tmp);
  }
}

static void json_coordinates(lg_str *o, const num_system *ns) {
  for (size_t i = 0; i < ns->n; i++) {
    if (i) lg_str_puts(o, ", ");
    lg_str_json(o, ns->coord_names[i]);
  }
}

/* The model's outputs (issue 24): ',\n  "outputs": {"h": 1.5, "r_x": ...}',
 * nothing for a model without any (its report unchanged). */
static void json_outputs(lg_str *o, const lg_system *s, const double *out) {
  size_t nout = lg_noutputs(s);
  if (!nout || !out) return;
  lg_str_puts(o, ",\n  \"outputs\": {");
  for (size_t i = 0; i < nout; i++) {
    if (i) lg_str_puts(o, ", ");
    lg_str_json(o, lg_output_name(s, i));
    lg_str_puts(o, ": ");
    json_number(o, out[i]);
  }
  lg_str_putc(o, '}');
}

/* "name = value" with the shortest round-trip form of the value */
static void put_value(lg_str *o, const char *name, const char *suffix, double x,
                      const char *end) {
  char buf[LG_DOUBLE_CHARS];
  lg_str_printf(o, "%s%s = %s%s", name, suffix, lg_fmt_double(buf, x), end);
}

/* ---- Lagrange's method ------------------------------------------------------------ */
/* Every form of lg_eval_result, in one allocation. */
typedef struct lag_values {
  double *buf, *q, *qd;
  double T, V;
  lg_eval_result r;
} lag_values;

static lg_status lag_alloc(size_t n, size_t m, lag_values *v) {
  size_t N = 2 * n + m;
  size_t total = 2 * n + n + m + n + n * (n + m) + n + N * N + N + n + m;
  v->buf = lg_calloc(total + 1, sizeof *v->buf);
  if (!v->buf) return LG_ERR_NOMEM;
  double *x = v->buf;
  v->q = x, x += n;
  v->qd = x, x += n;
  v->r.qdd = x, x += n;
  v->r.lam = x, x += m;
  v->r.constraint_forces = x, x += n;
  v->r.mass_matrix = x, x += n * (n + m);
  v->r.forcing = x, x += n;
  v->r.mass_matrix_full = x, x += N * N;
  v->r.forcing_full = x, x += N;
  v->r.momenta = x, x += n;
  v->r.residuals = x;
  v->r.T = &v->T;
  v->r.V = &v->V;
  return LG_OK;
}

static void lag_json(lg_str *o, const lg_system *s, const num_system *ns, double t,
                     const lag_values *v, const double *out) {
  size_t n = ns->n, m = ns->m, N = 2 * n + m;
  const lg_eval_result *r = &v->r;
  lg_str_puts(o, "{\n  \"coordinates\": [");
  json_coordinates(o, ns);
  lg_str_puts(o, "],\n  \"multipliers\": [");
  for (size_t k = 0; k < m; k++) lg_str_printf(o, "%s\"lam%zu\"", k ? ", " : "", k + 1);
  lg_str_puts(o, "],\n  \"t\": ");
  json_number(o, t);
  json_array(o, "q", v->q, n);
  json_array(o, "qd", v->qd, n);
  json_array(o, "qdd", r->qdd, n);
  json_array(o, "lam", r->lam, m);
  json_array(o, "constraint_forces", r->constraint_forces, n);
  json_matrix(o, "mass_matrix", r->mass_matrix, n, n + m);
  json_array(o, "forcing", r->forcing, n);
  json_matrix(o, "mass_matrix_full", r->mass_matrix_full, N, N);
  json_array(o, "forcing_full", r->forcing_full, N);
  lg_str_puts(o, ",\n  \"T\": ");
  json_number(o, v->T);
  lg_str_puts(o, ",\n  \"V\": ");
  json_number(o, v->V);
  json_array(o, "momenta", r->momenta, n);
  json_array(o, "constraint_residuals", r->residuals, m);
  json_outputs(o, s, out);
  lg_str_puts(o, "\n}\n");
}

static void lag_text(lg_str *o, const lg_system *s, const num_system *ns, double t,
                     const lag_values *v, const double *out) {
  put_value(o, "t", "", t, "\n");
  for (size_t i = 0; i < ns->n; i++) {
    put_value(o, ns->coord_names[i], "", v->q[i], ", ");
    put_value(o, ns->coord_names[i], "'", v->qd[i], ", ");
    put_value(o, ns->coord_names[i], "''", v->r.qdd[i], "\n");
  }
  for (size_t k = 0; k < ns->m; k++) {
    char name[32];
    snprintf(name, sizeof name, "lam%zu", k + 1);
    put_value(o, name, "", v->r.lam[k], "\n");
  }
  put_value(o, "T", "", v->T, "\n");
  put_value(o, "V", "", v->V, "\n");
  if (out && lg_noutputs(s)) lg_str_puts(o, "outputs:\n");
  for (size_t i = 0; out && i < lg_noutputs(s); i++) {
    lg_str_puts(o, "  ");
    put_value(o, lg_output_name(s, i), "", out[i], "\n");
  }
}

static lg_status lagrange_report(const lg_system *s, const lg_eval_state *x, const double *p,
                                 lg_format fmt, lg_str *o, lg_diag *d) {
  const num_system *ns = api_num_accel(s); /* (a large tree's num_tree: its names) */
  size_t n = ns->n, m = ns->m;
  lag_values v;
  if (lag_alloc(n, m, &v) != LG_OK) return LG_ERR_NOMEM;
  memcpy(v.q, x->q ? x->q : s->lm->q0, n * sizeof *v.q);
  memcpy(v.qd, x->qd ? x->qd : s->lm->qd0, n * sizeof *v.qd);
  lg_status st = lg_eval(s, x->t, v.q, v.qd, p, &v.r, d);
  size_t nout = lg_noutputs(s);
  double *out = st == LG_OK && nout ? lg_calloc(nout, sizeof *out) : NULL;
  if (st == LG_OK && nout && !out) st = LG_ERR_NOMEM;
  if (st == LG_OK && nout) st = lg_eval_outputs(s, x->t, v.q, v.qd, p, out, d);
  if (st == LG_OK && fmt == LG_FORMAT_JSON) lag_json(o, s, ns, x->t, &v, out);
  else if (st == LG_OK) lag_text(o, s, ns, x->t, &v, out);
  lg_free(out);
  lg_free(v.buf);
  return st;
}

/* ---- Kane's method ---------------------------------------------------------------- */
static void kane_json(lg_str *o, const lg_system *s, const num_work *w, const mech_kane *k,
                      const num_kane_result *r, double t, const double *q, const double *lam,
                      const double *out) {
  const num_system *ns = s->num;
  size_t n = ns->n, p = k->p, m = ns->m;
  lg_str_puts(o, "{\n  \"method\": \"kane\",\n  \"coordinates\": [");
  json_coordinates(o, ns);
  lg_str_puts(o, "],\n  \"speeds\": [");
  json_names(o, k->u, p);
  lg_str_puts(o, "],\n  \"multipliers\": [");
  for (size_t j = 0; lam && j < m; j++) lg_str_printf(o, "%s\"lam%zu\"", j ? ", " : "", j + 1);
  lg_str_puts(o, "],\n  \"t\": ");
  json_number(o, t);
  json_array(o, "q", q, n);
  json_array(o, "qd", r->qd, n);
  json_array(o, "qdd", r->qdd, n);
  json_array(o, "u", r->u, p);
  json_array(o, "ud", r->ud, p);
  lg_str_puts(o, ",\n  \"dependent_speeds\": [");
  json_names(o, k->udep, k->ndep);
  lg_str_putc(o, ']');
  json_array(o, "udep", r->udep, k->ndep);
  if (lam && m) json_array(o, "lam", lam, m); /* solved from Lagrange's equations */
  else lg_str_puts(o, ",\n  \"lam\": null");
  lg_str_puts(o, ",\n  \"constraint_forces\": null");
  json_matrix(o, "mass_matrix", r->M, p, p);
  json_array(o, "forcing", r->f, p);
  json_matrix(o, "mass_matrix_full", r->Mfull, n + p, n + p);
  json_array(o, "forcing_full", r->ffull, n + p);
  lg_str_puts(o, ",\n  \"T\": ");
  json_number(o, w->out[ns->o_T]);
  lg_str_puts(o, ",\n  \"V\": ");
  json_number(o, w->out[ns->o_V]);
  json_array(o, "momenta", w->out + ns->o_p, n);
  json_outputs(o, s, out);
  lg_str_puts(o, "\n}\n");
}

/* The independent speeds when the model declares speeds: the model's
 * `initial` values (0 where none), then the caller's given ones (NaN:
 * not given). 1 when any is given by either (then the speeds, not q',
 * define the velocities). */
static int given_speeds(const lg_system *s, const mech_kane *k, const double *given,
                        double *u) {
  const lang_model *lm = s->lm;
  int any = 0;
  for (size_t i = 0; !k->default_speeds && i < k->p; i++) {
    u[i] = 0;
    for (size_t j = 0; lm->u0_set && j < lm->nspeeds; j++)
      if (lm->u0_set[j] && !strcmp(mech_speed_name(lm->mech, j), k->u[i]->v.name)) {
        u[i] = lm->u0[j];
        any = 1;
      }
    if (given && !isnan(given[i])) {
      u[i] = given[i];
      any = 1;
    }
  }
  return any;
}

/* A dependent speed given by the caller must be the one the constraints
 * give: Kane's method solves it from the independent ones. */
static lg_status check_dependent(const lg_system *s, const mech_kane *k,
                                 const num_kane_result *r, const double *given, lg_diag *d) {
  for (size_t i = 0; given && !k->default_speeds && i < k->ndep; i++) {
    double want = r->udep[i], got = given[i];
    if (isnan(got) || fabs(got - want) <= 1e-9 * fmax(1, fabs(want))) continue;
    char a[LG_DOUBLE_CHARS], b[LG_DOUBLE_CHARS];
    lg_diag_set(d, LG_ERR_MODEL, s->lm->file, s->lm->coord_line > 0 ? s->lm->coord_line : 1,
                s->lm->coord_col > 0 ? s->lm->coord_col : 1,
                "`state` gives the dependent speed %s = %s, but the velocity constraints "
                "make it %s at this state",
                k->udep[i]->v.name, lg_fmt_double(a, got), lg_fmt_double(b, want));
    lg_diag_hint(d, "Kane's method solves the dependent speeds from the independent ones: "
                    "give only those, or a consistent value");
    return LG_ERR_MODEL;
  }
  return LG_OK;
}

static int any_given(const double *v, size_t n) {
  for (size_t i = 0; v && i < n; i++)
    if (!isnan(v[i])) return 1;
  return 0;
}

/* The dependent speeds chosen at the initial state cannot be solved at
 * (t, q, q'): choose them there (q'' does not depend on the choice),
 * evaluate, and say so in *note. Works on the system's symbolic context:
 * under its lock. *k2 NULL when that fails too (the caller reports its
 * first diagnostic). */
static lg_status kane_elsewhere(const lg_system *s, const double *par, double t,
                                const double *q, const double *qd, const mech_kane **k2,
                                num_kane_result *r, char **note) {
  lg_system *mut = (lg_system *)s;
  mech_model *mm = s->lm->mech;
  size_t np = mech_nparams(mm);
  lg_diag d;
  lg_diag_clear(&d);
  *k2 = NULL;
  mech_setting *set = lg_calloc(np + 1, sizeof *set);
  if (!set) return LG_ERR_NOMEM;
  for (size_t i = 0; i < np; i++) {
    set[i].name = mech_param_name(mm, i);
    set[i].value = par[i];
  }
  mech_kane *raw = NULL;
  const mech_kane *k = NULL;
  num_kane_evaluator *ev = NULL;
  pthread_mutex_lock(&mut->lock);
  lg_status st = lang_derive_kane_at(s->lm, set, np, t, q, qd, &raw, &d);
  if (st == LG_OK && !(k = mech_kane_simplified(mm, raw, CG_SIMPLIFY_FOR_CODE)))
    st = LG_ERR_NOMEM;
  if (st == LG_OK) st = num_kane_evaluator_build(mm, k, s->dummy, s->ndummy, &ev, &d);
  pthread_mutex_unlock(&mut->lock);
  lg_free(set);
  if (st == LG_OK) st = num_kane_evaluator_run(ev, par, t, q, qd, NULL, 0, r, &d);
  num_kane_evaluator_free(ev);
  if (st != LG_OK) return st;
  lg_str a, b;
  lg_str_init(&a);
  lg_str_init(&b);
  for (size_t i = 0; i < s->kane->ndep; i++) {
    lg_str_puts(&a, i ? ", " : "");
    sym_print(&a, s->kane->udep[i], SYM_STYLE_TEXT, NULL, NULL);
  }
  for (size_t i = 0; i < k->ndep; i++) {
    lg_str_puts(&b, i ? ", " : "");
    sym_print(&b, k->udep[i], SYM_STYLE_TEXT, NULL, NULL);
  }
  lg_str msg;
  lg_str_init(&msg);
  lg_str_printf(&msg, "%s:%d:%d: note: the dependent speeds %s chosen at the initial state "
                "cannot be solved at this state; evaluated with %s dependent",
                s->lm->file, s->lm->coord_line > 0 ? s->lm->coord_line : 1,
                s->lm->coord_col > 0 ? s->lm->coord_col : 1, a.s ? a.s : "", b.s ? b.s : "");
  lg_str_free(&a);
  lg_str_free(&b);
  if (note) *note = lg_str_take(&msg);
  lg_str_free(&msg);
  *k2 = k;
  return LG_OK;
}

static lg_status kane_report(const lg_system *s, const lg_eval_state *x, const double *par,
                             lg_str *o, char **note, lg_diag *d) {
  const mech_kane *k = s->kane;
  size_t n = s->num->n;
  const double *q = x->q ? x->q : s->lm->q0, *qd = x->qd ? x->qd : s->lm->qd0;
  double *u = lg_calloc(k->p + 1, sizeof *u);
  if (!u) return LG_ERR_NOMEM;
  int have_u = given_speeds(s, k, x->u, u);
  const double *udep = k->default_speeds ? NULL : x->udep;
  num_kane_result r;
  lg_status st = num_kane_evaluator_run(s->kev, par, x->t, q, qd, u, have_u, &r, d);
  lg_free(u);
  int have_r = st == LG_OK; /* (a failed run frees its result) */
  if (st == LG_ERR_NUMERIC && k->ndep && !have_u && !any_given(udep, k->ndep) &&
      !mech_ndeclared_dependent(s->lm->mech)) {
    const mech_kane *k2;
    if (kane_elsewhere(s, par, x->t, q, qd, &k2, &r, note) == LG_OK) {
      st = LG_OK;
      have_r = 1;
      k = k2;
      lg_diag_clear(d);
    }
  }
  if (st == LG_OK) st = check_dependent(s, k, &r, udep, d);
  api_scratch *sc = st == LG_OK ? api_scratch_take(s) : NULL;
  if (st == LG_OK && !sc) st = LG_ERR_NOMEM;
  size_t m = s->nc, nout = lg_noutputs(s);
  double *extra = st == LG_OK && (m || nout) ? lg_calloc(m + nout, sizeof *extra) : NULL;
  if (st == LG_OK && (m || nout) && !extra) st = LG_ERR_NOMEM;
  if (st == LG_OK) memcpy(sc->w.in + 1 + 2 * n, par, s->num->np * sizeof *par);
  if (st == LG_OK && extra) { /* the multipliers (Lagrange's equations) and the outputs */
    sc->par = par;
    lg_status es = api_state_extras(s, sc, x->t, q, r.qd, m ? extra : NULL,
                                     nout ? extra + m : NULL, d);
    if (es == LG_ERR_NUMERIC) { /* singular there: no values, the report stands */
      for (size_t i = 0; i < m + nout; i++) extra[i] = NAN;
      lg_diag_clear(d);
    } else {
      st = es;
    }
  }
  if (st == LG_OK) { /* T, V and the momenta from the Lagrangian at (q, q') */
    num_evaluate(s->num, &sc->w, x->t, q, r.qd);
    kane_json(o, s, &sc->w, k, &r, x->t, q, m ? extra : NULL, extra ? extra + m : NULL);
  }
  lg_free(extra);
  api_scratch_give(s, sc);
  if (have_r) num_kane_result_free(&r);
  return st;
}

/* ---- parameters ------------------------------------------------------------------- */
static int uses(const sym_node *const *e, size_t count, const sym_node *x) {
  for (size_t i = 0; i < count; i++)
    if (sym_has(e[i], x)) return 1;
  return 0;
}

/* The call's parameter values: p, or the defaults, where a parameter
 * without a value is an error only when the equations use it (as the
 * command always said: at the parameter, saying how to give one); an
 * unused one's NaN is never read. */
static lg_status params_of(const lg_system *s, const double *p, const double **par,
                           lg_diag *d) {
  /* a large tree's forms from its links (api_eval_by_links): nothing more */
  lg_status st = api_ready_accel(s, d);
  if (st == LG_OK && !api_eval_by_links(s)) st = api_ready(s, d);
  *par = p ? p : s->defaults;
  if (st != LG_OK || p) return st;
  mech_model *mm = s->lm->mech;
  const num_links *links = api_eval_by_links(s) ? s->num_tree->links : NULL;
  const mech_eom *e = s->eom_num; /* (api_ready made it, unless links) */
  size_t n = s->nq, m = s->nc;
  for (size_t i = 0; i < s->np; i++) {
    if (!isnan(s->defaults[i])) continue;
    const sym_node *x = mech_param(mm, i);
    if (links ? !num_links_uses_param(links, i)
              : !sym_has(e->T, x) && !sym_has(e->V, x) && !uses(e->M->e, n * n, x) &&
                    !uses(e->f, n, x) && !uses(e->p, n, x) &&
                    !(m && uses(e->J->e, m * n, x)) && !uses(e->gc, m, x) && !uses(e->C, m, x))
      continue;
    int line, col;
    const char *name = mech_param_name(mm, i);
    mech_param_pos(mm, i, &line, &col);
    lg_diag_set(d, LG_ERR_MODEL, s->lm->file, line, col, "parameter '%s' has no value", name);
    lg_diag_hint(d, "give it one in the model ('%s = 1') or in the call's parameters (`set` "
                    "%s=1)", name, name);
    return LG_ERR_MODEL;
  }
  return LG_OK;
}

lg_status lg_check_params(const lg_system *s, const double *p, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (!s) {
    lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "lg_check_params: a system is needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  const double *par;
  lg_status st = params_of(s, p, &par, d);
  return api_end(&c, st, s->lm->file, s->lm->coord_line, s->lm->coord_col);
}

/* ---- the entry -------------------------------------------------------------------- */
lg_status lg_eval_format(const lg_system *s, const lg_eval_state *state, const double *p,
                         lg_format fmt, char **out, char **note, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (out) *out = NULL;
  if (note) *note = NULL;
  if (!s || !out || (fmt != LG_FORMAT_TEXT && fmt != LG_FORMAT_JSON)) {
    lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
                "lg_eval_format: a system, an output and a format (LG_FORMAT_TEXT or "
                "LG_FORMAT_JSON) are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  const lg_eval_state initial = {0};
  const lg_eval_state *x = state ? state : &initial;
  const double *par = NULL;
  lg_status st = params_of(s, p, &par, d);
  lg_str o;
  lg_str_init(&o);
  if (st == LG_OK && s->method == LG_KANE) st = kane_report(s, x, par, &o, note, d);
  else if (st == LG_OK) st = lagrange_report(s, x, par, fmt, &o, d);
  char *text = st == LG_OK ? lg_str_take(&o) : NULL;
  lg_str_free(&o);
  st = api_end(&c, st, s->lm->file, s->lm->coord_line, s->lm->coord_col);
  if (st != LG_OK) {
    lg_free(text);
    if (note) {
      lg_free(*note);
      *note = NULL;
    }
  } else {
    *out = text;
  }
  return st;
}

/* ---- Kane's dependent speeds ------------------------------------------------------ */
size_t lg_ndependent_speeds(const lg_system *s) {
  return s && s->method == LG_KANE && s->kane ? s->kane->ndep : 0;
}

const char *lg_dependent_speed_name(const lg_system *s, size_t i) {
  if (i >= lg_ndependent_speeds(s) || s->kane->default_speeds) return NULL;
  return s->kane->udep[i]->v.name;
}
