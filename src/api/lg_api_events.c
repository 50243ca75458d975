/* lg_api_events.c - the model's `when` statements (MODEL-FORMAT 1.1,
 * "Events in detail") compiled for lg_simulate: once per system, under its
 * lock, over Lagrange's state [q; q'] (Kane's method without speeds of
 * its own integrates the same state). */
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
  if (s->ks) {
    const lang_event *e = &lm->events[0];
    lg_diag_set(d, LG_ERR_MODEL, lm->file, e->line, e->col,
                "events are not supported yet under Kane's method with speeds of its own");
    lg_diag_hint(d, "simulate with `method` lagrange");
    return LG_ERR_MODEL;
  }
  lg_status st = api_num_eom(s, d);
  if (st != LG_OK) return st;
  num_event_def *defs = lg_calloc(lm->nevents, sizeof *defs);
  if (!defs) return LG_ERR_NOMEM;
  for (size_t i = 0; i < lm->nevents; i++) {
    const lang_event *e = &lm->events[i];
    defs[i] = (num_event_def){e->g, e->dir, e->stop, e->nset, e->target, e->rate, e->value};
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
