/* lg_api_base.c - version, status names, diagnostics, strings: the parts
 * of the public header that need no model. */
#include "lg_api_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *lg_version(void) { return LAGRANGE_VERSION_STRING; }

int lg_version_number(void) { return LAGRANGE_VERSION_NUMBER; }

const char *lg_status_name(lg_status st) {
  switch (st) {
  case LG_OK: return "ok";
  case LG_ERR_MODEL: return "model error";
  case LG_ERR_NUMERIC: return "numeric error";
  case LG_ERR_NOMEM: return "out of memory";
  case LG_ERR_USAGE: return "usage error";
  case LG_ERR_IO: return "i/o error";
  }
  return "unknown status";
}

const char *lg_diag_text(const lg_diag *d) {
  return d && d->status != LG_OK ? d->text : "";
}

void lg_string_free(char *s) { lg_free(s); }

/* Cleared as far as anyone can tell (no status, no position, empty
 * strings) without writing all of its 2 KB: a memset of the whole struct
 * twice per call was a sixth of a small model's evaluation. */
static void diag_reset(lg_diag *d) {
  d->status = LG_OK;
  d->line = d->col = 0;
  d->file[0] = d->message[0] = d->hint[0] = d->text[0] = 0;
}

lg_diag *api_begin(api_call *c, lg_diag *user) {
  c->d = user ? user : &c->local;
  diag_reset(c->d);
  c->fails = lg_alloc_failures();
  return c->d;
}

lg_status api_end(api_call *c, lg_status st, const char *file, int line, int col) {
  lg_diag *d = c->d;
  if (lg_alloc_failures() != c->fails) {
    char where[sizeof d->file];
    snprintf(where, sizeof where, "%s", d->file[0] ? d->file : file ? file : "");
    st = LG_ERR_NOMEM;
    lg_diag_clear(d); /* replace whatever the failure turned into */
    lg_diag_set(d, LG_ERR_NOMEM, where, 0, 0, "out of memory");
  }
  if (st == LG_OK) {
    diag_reset(d);
    return LG_OK;
  }
  if (d->status == LG_OK) lg_diag_set(d, st, file, 0, 0, "%s", lg_status_name(st));
  d->status = st;
  if (!d->file[0]) snprintf(d->file, sizeof d->file, "%s", file ? file : "lagrange");
  if (d->line <= 0 && st != LG_ERR_NOMEM && st != LG_ERR_USAGE && st != LG_ERR_IO) {
    /* numeric trouble has no single place: point where the caller says */
    d->line = line > 0 ? line : 1;
    d->col = col > 0 ? col : 1;
  }
  lg_diag_format(d, d->text, sizeof d->text);
  return st;
}

static lg_status params(const lg_system *s, const double *p, const double **out, int accel,
                        lg_diag *d) {
  *out = p ? p : s->defaults;
  lg_status st = accel ? api_ready_accel(s, d) : api_ready(s, d);
  if (st != LG_OK || p) return st;
  size_t np = mech_nparams(s->lm->mech);
  for (size_t i = 0; i < np; i++)
    if (isnan(s->defaults[i])) {
      const char *name = mech_param_name(s->lm->mech, i);
      lg_diag_set(d, LG_ERR_USAGE, s->lm->file, 0, 0, "parameter '%s' has no value", name);
      lg_diag_hint(d, "pass the parameters (p) with a value for '%s'", name);
      return LG_ERR_USAGE;
    }
  return LG_OK;
}

lg_status api_params(const lg_system *s, const double *p, const double **out, lg_diag *d) {
  return params(s, p, out, 0, d);
}

lg_status api_params_accel(const lg_system *s, const double *p, const double **out,
                           lg_diag *d) {
  return params(s, p, out, 1, d);
}
