/* lg_api_print.c - the equations printed, and turned into C or NumPy.
 * Both work on the system's symbolic expressions (simplified on first use,
 * as the command line does), so they hold the system's lock. */
#include "lg_api_internal.h"

#include "cg.h"

#include <string.h>

/* As `lagrange eom`: the printed form, made once from the equations as
 * derived (decided right after deriving: lg_derive records it), beside
 * them. */
static lg_status prepare_print(lg_system *s) {
  if (s->printed) return LG_OK;
  mech_model *mm = s->lm->mech;
  lg_status st = api_dynamics(s, NULL);
  if (st == LG_OK) st = mech_print_simplified(mm, s->eom_raw, NULL, s->simplify_eom, 0, &s->print_eom,
                                       &(const mech_kane *){NULL});
  if (st == LG_OK && s->kane_raw)
    st = mech_print_simplified(mm, NULL, s->kane_raw, 0, s->simplify_kane,
                               &(const mech_eom *){NULL}, &s->print_kane);
  s->printed = st == LG_OK;
  return st;
}

lg_status lg_print(const lg_system *s, lg_format fmt, char **out, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (out) *out = NULL;
  if (!s || !out || (unsigned)fmt > LG_FORMAT_JSON) {
    lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
                "lg_print: a system, an output and a format are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  lg_system *mut = (lg_system *)s;
  static const mech_format formats[] = {MECH_FMT_TEXT, MECH_FMT_LATEX, MECH_FMT_JSON};
  lg_str buf;
  lg_str_init(&buf);
  pthread_mutex_lock(&mut->lock);
  lg_status st = prepare_print(mut);
  if (st == LG_OK)
    st = mech_print(s->lm->mech, s->print_eom, s->method == LG_KANE ? s->print_kane : NULL,
                    formats[fmt], &buf);
  pthread_mutex_unlock(&mut->lock);
  char *text = st == LG_OK ? lg_str_take(&buf) : NULL;
  lg_str_free(&buf);
  st = api_end(&c, st, s->lm->file, 0, 0);
  if (st != LG_OK) lg_free(text);
  else *out = text;
  return st;
}
