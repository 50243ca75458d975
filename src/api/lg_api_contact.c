/* lg_api_contact.c - the model's `contact` statements (MODEL-FORMAT 1.1)
 * compiled for lg_simulate once per system, under its lock, over
 * Lagrange's state (Kane's method without speeds of its own integrates
 * the same state); a start below a plane is an error at its statement. */
#include "lg_api_internal.h"

#include <stdio.h>
#include <string.h>

void api_contact_free(lg_system *s) {
  if (!s) return;
  num_contact_free(s->contact);
  s->contact = NULL;
  s->contact_built = 0;
}

static lg_status refuse(const lg_system *s, const lang_contact *c, const char *what,
                        const char *hint, lg_diag *d) {
  lg_diag_set(d, LG_ERR_MODEL, s->lm->file, c->line, c->col, "%s", what);
  lg_diag_hint(d, "%s", hint);
  return LG_ERR_MODEL;
}

static lg_status build(lg_system *s, lg_diag *d) {
  const lang_model *lm = s->lm;
  const lang_contact *c0 = &lm->contacts[0];
  if (s->ks)
    return refuse(s, c0, "contact is not supported yet under Kane's method with speeds of its own",
                  "simulate with `method` lagrange, or under Kane's method without 'speeds'", d);
  num_contact_def *defs = lg_calloc(lm->ncontacts, sizeof *defs);
  if (!defs) return LG_ERR_NOMEM;
  for (size_t i = 0; i < lm->ncontacts; i++)
    defs[i] = (num_contact_def){lm->contacts[i].g, lm->contacts[i].e, lm->contacts[i].mu,
                                lm->contacts[i].vt, lm->contacts[i].vt2};
  lg_status st = num_contact_build(lm->mech, s->kane_eom ? s->kane_eom : s->eom, defs,
                                   lm->ncontacts, s->dummy, s->ndummy, &s->contact, d);
  lg_free(defs);
  return st;
}

lg_status api_sim_contact(const lg_system *s, const num_contact **out, lg_diag *d) {
  *out = NULL;
  if (!s->lm->ncontacts) return LG_OK;
  lg_system *mut = (lg_system *)s;
  lg_status st = LG_OK;
  pthread_mutex_lock(&mut->lock);
  if (!mut->contact_built) {
    st = build(mut, d);
    mut->contact_built = st == LG_OK;
  }
  *out = mut->contact;
  pthread_mutex_unlock(&mut->lock);
  return st;
}

lg_status api_contact_check(const lg_system *s, const num_contact *ct, double t,
                            const double *q, const double *qd, double atol, lg_diag *d) {
  size_t below = 0;
  lg_status st = num_contact_check(ct, t, q, qd, atol, &below);
  if (st != LG_ERR_MODEL) return st;
  const lang_contact *c = &s->lm->contacts[below];
  if (c->kind == LANG_CONTACT_PLANE)
    return refuse(s, c, "the contact's point starts below its plane",
                  "start with the point on or above the plane (g = dot(pos(P) - pos(O), n) >= 0)",
                  d);
  char what[200];
  snprintf(what, sizeof what, "%s does not hold at the start", c->what);
  return refuse(s, c, what,
                c->kind == LANG_CONTACT_LIMIT
                    ? "start the joint inside its limits (its 'initial' value)"
                    : "start with the inequality holding ('initial'): the gap may be 0, not "
                      "negative",
                d);
}

size_t lg_ncontact_columns(const lg_system *s) {
  size_t c = 0;
  for (size_t k = 0; s && k < s->lm->ncontacts; k++) c += s->lm->contacts[k].vt ? (s->lm->contacts[k].vt2 ? 3 : 2) : 1;
  return c;
}

const char *lg_contact_column(const lg_system *s, size_t i) {
  for (size_t k = 0; s && k < s->lm->ncontacts; k++) {
    const lang_contact *c = &s->lm->contacts[k];
    if (i == 0) return c->fn_name;
    if (c->vt && i == 1) return c->ft_name;
    if (c->vt2 && i == 2) return c->ft2_name;
    i -= c->vt ? (c->vt2 ? 3 : 2) : 1;
  }
  return NULL;
}
