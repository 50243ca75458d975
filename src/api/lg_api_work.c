/* lg_api_work.c - a workspace: the data half of the data model (the
 * system is the immutable model half). One workspace per thread holds the
 * parameter values of its calls and the scratch they evaluate in, taken
 * from the system once, so a loop of evaluations takes no lock and
 * allocates nothing; changing a parameter recompiles nothing. */
#include "lg_api_internal.h"

#include <math.h>
#include <string.h>

struct lg_work {
  const lg_system *s;
  double *p;             /* np: this workspace's parameter values */
  api_scratch *sc;       /* its own, for as long as it lives */
};

void lg_work_free(lg_work *w) {
  if (!w) return;
  if (w->sc) api_scratch_give(w->s, w->sc);
  lg_free(w->p);
  lg_free(w);
}

lg_status lg_work_new(const lg_system *s, lg_work **out, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (out) *out = NULL;
  if (!s || !out) {
    lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "lg_work_new: a system and an output are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  lg_status st = api_ready_accel(s, d); /* lg_work_eval compiles the rest */
  lg_work *w = st == LG_OK ? lg_calloc(1, sizeof *w) : NULL;
  if (st == LG_OK && !w) st = LG_ERR_NOMEM;
  if (st == LG_OK) {
    w->s = s;
    w->p = lg_calloc(s->np + 1, sizeof *w->p);
    w->sc = api_scratch_take(s);
    if (!w->p || !w->sc) st = LG_ERR_NOMEM;
  }
  if (st == LG_OK) lg_default_params(s, w->p);
  st = api_end(&c, st, s->lm->file, 0, 0);
  if (st != LG_OK) lg_work_free(w);
  else *out = w;
  return st;
}

const lg_system *lg_work_system(const lg_work *w) { return w ? w->s : NULL; }

double *lg_work_params(lg_work *w) { return w ? w->p : NULL; }

lg_status lg_work_set(lg_work *w, const char *name, double value, lg_diag *diag) {
  if (!w || !name) {
    api_call c;
    lg_diag *d = api_begin(&c, diag);
    lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "lg_work_set: a workspace and a name are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  /* the other values as they are here, and the ones defined from `name`
   * recomputed from its new value */
  size_t np = w->s->np, n = 0;
  const char **names = lg_calloc(np + 1, sizeof *names);
  double *values = lg_calloc(np + 1, sizeof *values), *p = lg_calloc(np + 1, sizeof *p);
  lg_status st = names && values && p ? LG_OK : LG_ERR_NOMEM;
  for (size_t i = 0; st == LG_OK && i < np; i++) {
    const char *pi = lg_parameter_name(w->s, i);
    double dflt = w->s->defaults[i];
    /* a value changed here (not what the model gives) stays as it is */
    if (strcmp(pi, name) != 0 && !(w->p[i] == dflt || (isnan(w->p[i]) && isnan(dflt)))) {
      names[n] = pi;
      values[n++] = w->p[i];
    }
  }
  if (st == LG_OK) {
    names[n] = name;
    values[n++] = value;
    st = lg_params_with(w->s, n, names, values, p, diag);
    if (st == LG_OK) memcpy(w->p, p, np * sizeof *p);
  } else if (diag) {
    lg_diag_clear(diag);
    lg_diag_set(diag, LG_ERR_NOMEM, NULL, 0, 0, "out of memory");
  }
  lg_free(names);
  lg_free(values);
  lg_free(p);
  return st;
}

/* The workspace's parameters into its scratch's tape inputs: checked
 * (NaN where the model gives no value and the caller set none) as the
 * per-call entries check theirs. */
static lg_status load_params(lg_work *w, lg_diag *d) {
  const lg_system *s = w->s;
  for (size_t i = 0; i < s->np; i++)
    if (isnan(w->p[i])) {
      const char *name = lg_parameter_name(s, i);
      lg_diag_set(d, LG_ERR_USAGE, s->lm->file, 0, 0, "parameter '%s' has no value", name);
      lg_diag_hint(d, "give it one with lg_work_set(w, \"%s\", value)", name);
      return LG_ERR_USAGE;
    }
  memcpy(w->sc->w.in + 1 + 2 * s->nq, w->p, s->np * sizeof *w->p);
  w->sc->par = w->p;
  return LG_OK;
}

lg_status lg_work_accel(lg_work *w, double t, const double *q, const double *qd, double *qdd,
                        double *lam, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (!w || !q || !qd || !qdd) {
    lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "lg_work_accel: a workspace, q, q' and qdd are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  lg_status st = load_params(w, d);
  if (st == LG_OK) st = api_accel_in(w->s, w->sc, t, q, qd, qdd, lam, d);
  return api_end(&c, st, w->s->lm->file, w->s->lm->coord_line, w->s->lm->coord_col);
}

lg_status lg_work_eval(lg_work *w, double t, const double *q, const double *qd,
                       const lg_eval_result *r, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (!w || !q || !qd || !r) {
    lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "lg_work_eval: a workspace, q, q' and a result are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  /* everything compiled (a large tree's forms from its links need nothing
   * more), and the scratch grown for it (it may be older) */
  lg_status st = api_eval_by_links(w->s) ? LG_OK : api_ready(w->s, d);
  if (st == LG_OK && api_scratch_fit(w->s, w->sc) != LG_OK) st = LG_ERR_NOMEM;
  if (st == LG_OK) st = load_params(w, d);
  if (st == LG_OK) st = api_eval_in(w->s, w->sc, t, q, qd, r, d);
  return api_end(&c, st, w->s->lm->file, w->s->lm->coord_line, w->s->lm->coord_col);
}

lg_status lg_work_simulate(lg_work *w, const lg_sim_options *o, const double *q0,
                           const double *qd0, lg_sim_callback cb, void *ud, lg_sim_stats *stats,
                           lg_diag *diag) {
  if (!w) return lg_simulate(NULL, o, q0, qd0, NULL, cb, ud, stats, diag);
  return lg_simulate(w->s, o, q0, qd0, w->p, cb, ud, stats, diag);
}
