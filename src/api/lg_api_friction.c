/* lg_api_friction.c - the model's `friction x: F [static Fs]` statements
 * (MODEL-FORMAT 1.1) compiled for lg_simulate: once per system, under its
 * lock, over Lagrange's state [q; q'] (Kane's method without speeds of its
 * own integrates the same state); the levels checked at the run's start
 * (F >= 0, Fs >= F) with its parameters, errors at the statement. */
#include "lg_api_internal.h"

#include <string.h>

void api_friction_free(lg_system *s) {
  if (!s) return;
  num_friction_free(s->friction);
  s->friction = NULL;
  s->friction_built = 0;
}

static lg_status build(lg_system *s, lg_diag *d) {
  const lang_model *lm = s->lm;
  if (s->ks) {
    const lang_friction *f = &lm->frictions[0];
    lg_diag_set(d, LG_ERR_MODEL, lm->file, f->line, f->col,
                "friction is not supported yet under Kane's method with speeds of its own");
    lg_diag_hint(d, "simulate with `method` lagrange, or under Kane's method without "
                    "'speeds' (u = q')");
    return LG_ERR_MODEL;
  }
  num_friction_def *defs = lg_calloc(lm->nfrictions, sizeof *defs);
  if (!defs) return LG_ERR_NOMEM;
  for (size_t i = 0; i < lm->nfrictions; i++)
    defs[i] = (num_friction_def){lm->frictions[i].coord, lm->frictions[i].F,
                                 lm->frictions[i].Fs};
  lg_status st = num_friction_build(lm->mech, s->kane_eom ? s->kane_eom : s->eom, defs,
                                    lm->nfrictions, s->dummy, s->ndummy, &s->friction, d);
  lg_free(defs);
  return st;
}

lg_status api_sim_friction(const lg_system *s, const num_friction **out, lg_diag *d) {
  *out = NULL;
  if (!s->lm->nfrictions) return LG_OK;
  lg_system *mut = (lg_system *)s;
  lg_status st = LG_OK;
  pthread_mutex_lock(&mut->lock);
  if (!mut->friction_built) {
    st = build(mut, d);
    mut->friction_built = st == LG_OK;
  }
  *out = mut->friction;
  pthread_mutex_unlock(&mut->lock);
  return st;
}

lg_status api_friction_check(const lg_system *s, const num_friction *fr, double t,
                             const double *q, const double *qd, lg_diag *d) {
  size_t bad = 0;
  int low = 0;
  lg_status st = num_friction_check(fr, t, q, qd, &bad, &low);
  if (st != LG_ERR_MODEL) return st;
  const lang_friction *f = &s->lm->frictions[bad];
  if (low) {
    lg_diag_set(d, LG_ERR_MODEL, s->lm->file, f->line, f->col, "the static friction level is "
                "below the kinetic one (Fs < F) at the start");
    lg_diag_hint(d, "friction x: F static Fs needs Fs >= F; without 'static', Fs = F");
  } else {
    lg_diag_set(d, LG_ERR_MODEL, s->lm->file, f->line, f->col, "the friction level is "
                "negative (or not a number) at the start");
    lg_diag_hint(d, "friction x: F needs F >= 0 (its direction is always against the motion)");
  }
  return LG_ERR_MODEL;
}
