/* lg_api_outputs.c - the model's outputs (`output NAME = ...`) at a state:
 * compiled on first use (num_outputs.c, under the system's lock), then
 * evaluated with q'' and the multipliers solved at the state. */
#include "lg_api_internal.h"

#include <math.h>
#include <string.h>

size_t lg_noutputs(const lg_system *s) { return s ? mech_noutputs(s->lm->mech) : 0; }

const char *lg_output_name(const lg_system *s, size_t i) {
  return s ? mech_output_name(s->lm->mech, i) : NULL;
}

lg_status api_outputs(const lg_system *s, const num_outputs **out, lg_diag *d) {
  lg_system *mut = (lg_system *)s;
  lg_status st = LG_OK;
  if ((*out = s->outs)) return LG_OK;
  pthread_mutex_lock(&mut->lock);
  if (!mut->outs) {
    num_outputs *o = NULL;
    st = num_outputs_build(s->lm->mech, s->eom, s->lm->file, s->dummy, s->ndummy, &o, d);
    mut->outs = o;
  }
  *out = mut->outs;
  pthread_mutex_unlock(&mut->lock);
  return st;
}

lg_status api_outputs_at(const lg_system *s, double t, const double *q, const double *qd,
                         const double *par, const double *qdd, const double *lam, double *res,
                         lg_diag *d) {
  const num_outputs *o;
  lg_status st = api_outputs(s, &o, d);
  if (st != LG_OK || !o->nout) return st;
  size_t n = o->n, np = o->np, m = o->m;
  double *in = lg_malloc((o->nin + num_outputs_work_size(o)) * sizeof *in);
  if (!in) return LG_ERR_NOMEM;
  in[0] = t;
  memcpy(in + 1, q, n * sizeof *in);
  memcpy(in + 1 + n, qd, n * sizeof *in);
  if (np) memcpy(in + 1 + 2 * n, par, np * sizeof *in);
  memcpy(in + 1 + 2 * n + np, qdd, n * sizeof *in);
  for (size_t r = 0; r < m; r++) in[1 + 3 * n + np + r] = lam ? lam[r] : NAN;
  num_outputs_eval(o, in, res, in + o->nin);
  lg_free(in);
  return LG_OK;
}

/* q'' and lam at the state into x (n + m): Lagrange's solve; under Kane's
 * method q'' is Kane's (lam still from Lagrange's equations). */
static lg_status solve(const lg_system *s, api_scratch *sc, double t, const double *q,
                       const double *qd, lg_diag *d) {
  size_t n = s->nq, m = s->nc;
  lg_status st = LG_OK;
  if (s->method != LG_KANE || m) {
    num_evaluate_dynamics(s->num, &sc->w, t, q, qd);
    st = num_solve_accel(s->num, &sc->w, sc->x, sc->x + n, d);
  }
  if (st == LG_OK && s->method == LG_KANE) {
    num_kane_result r;
    st = num_kane_evaluator_run(s->kev, sc->par, t, q, qd, NULL, 0, &r, d);
    if (st != LG_OK) return st;
    memcpy(sc->x, r.qdd, n * sizeof *sc->x);
    num_kane_result_free(&r);
  }
  return st;
}

lg_status lg_eval_outputs(const lg_system *s, double t, const double *q, const double *qd,
                          const double *p, double *out, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  const double *par = NULL;
  const num_outputs *o = NULL;
  api_scratch *sc = NULL;
  lg_status st = LG_OK;
  if (!s || !q || !qd || (!out && lg_noutputs(s))) {
    lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
                "lg_eval_outputs: a system, q, q' and an output are needed");
    st = LG_ERR_USAGE;
  }
  if (st == LG_OK) st = api_params(s, p, &par, d);
  if (st == LG_OK) st = api_outputs(s, &o, d);
  if (st == LG_OK && o->nout) {
    if (!(sc = api_scratch_take(s))) st = LG_ERR_NOMEM;
    if (st == LG_OK) {
      memcpy(sc->w.in + 1 + 2 * s->nq, par, s->np * sizeof *par);
      sc->par = par;
      st = solve(s, sc, t, q, qd, d);
    }
    if (st == LG_OK) st = api_outputs_at(s, t, q, qd, par, sc->x, sc->x + s->nq, out, d);
    api_scratch_give(s, sc);
  }
  return api_end(&c, st, s ? s->lm->file : NULL, s ? s->lm->coord_line : 0,
                 s ? s->lm->coord_col : 0);
}
