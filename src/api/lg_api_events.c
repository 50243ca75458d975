/* lg_api_events.c - the model's `when` statements (MODEL-FORMAT 1.1,
 * "Events in detail") compiled for lg_simulate: once per system, under its
 * lock, over [t, q, q'] (the model's language). Under Kane's method with
 * speeds of its own the state is [q; u]: the run evaluates them at
 * q' = k(q, u), and after a reset api_kane_reset makes (q, q') consistent
 * with Lagrange's constraints, as under Lagrange's method, and takes the
 * speeds from q' through the kinematical equations (exact: a consistent q'
 * is in the range of k), so both methods give the same motion. */
#include "lg_api_internal.h"

#include <string.h>

void api_events_free(lg_system *s) {
  if (!s) return;
  num_events_free(s->events);
  s->events = NULL;
  s->events_built = 0;
}

static lg_status build(lg_system *s, lg_diag *d) {
  const lang_model *lm = s->lm;
  lg_status st = api_num_eom(s, d);
  if (st != LG_OK) return st;
  num_event_def *defs = lg_calloc(lm->nevents, sizeof *defs);
  if (!defs) return LG_ERR_NOMEM;
  for (size_t i = 0; i < lm->nevents; i++) {
    const lang_event *e = &lm->events[i];
    defs[i] = (num_event_def){e->g,      e->dir,   e->stop,  e->nset,
                              e->target, e->rate, e->value, e->line, e->col};
  }
  st = num_events_build(lm->mech, s->kane_eom ? s->kane_eom : s->eom_num, defs,
                                  lm->nevents, s->dummy, s->ndummy, &s->events, d);
  lg_free(defs);
  return st;
}

lg_status api_sim_events(const lg_system *s, const num_events **out, lg_diag *d) {
  *out = NULL;
  if (!s->lm->nevents) return LG_OK;
  lg_system *mut = (lg_system *)s;
  lg_status st = LG_OK;
  pthread_mutex_lock(&mut->lock);
  if (!mut->events_built) {
    st = build(mut, d);
    mut->events_built = st == LG_OK;
  }
  *out = mut->events;
  pthread_mutex_unlock(&mut->lock);
  return st;
}

lg_status api_kane_reset_init(api_kane_reset *k, const lg_system *s, const num_system *ns,
                              const num_events *ev, const double *par, int project) {
  *k = (api_kane_reset){s, ns, ev, par, project, {0}};
  return num_work_init(ns, &k->w);
}

void api_kane_reset_free(api_kane_reset *k) {
  if (k->s) num_work_free(&k->w);
  k->s = NULL;
}

lg_status api_kane_reset_hook(void *ud, const int *fired, double t, double *q, double *qd,
                         double *u, lg_diag *d) {
  api_kane_reset *k = ud;
  lg_status st = num_events_consistent(k->ns, &k->w, k->ev, fired, t, q, qd, k->project, d);
  if (st != LG_OK) return st;
  num_kane_result r;
  memset(&r, 0, sizeof r);
  st = num_kane_evaluator_run(k->s->kev, k->par, t, q, qd, NULL, 0, &r, d);
  if (st == LG_OK) num_kane_initial_speeds(k->s->kane, &r, u);
  num_kane_result_free(&r);
  return st;
}
