/* cli_common.c - loading a model, reporting diagnostics, JSON pieces. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The library names an option in its callers' terms, in backquotes
 * (`rtol`, `stop_when`); on the command line that is the flag --rtol,
 * --stop-when. Rewrites s in place (it grows by at most one byte per
 * quote pair, within size). */
static void options_as_flags(char *s, size_t size) {
  char out[1024];
  size_t k = 0;
  for (const char *p = s; *p && k + 3 < sizeof out; p++) {
    const char *end = *p == '`' ? strchr(p + 1, '`') : NULL;
    size_t len = end ? (size_t)(end - p - 1) : 0;
    int word = end && len > 0 && len < 40;
    for (size_t i = 1; word && i <= len; i++)
      word = (p[i] >= 'a' && p[i] <= 'z') || p[i] == '_';
    if (!word) {
      out[k++] = *p;
      continue;
    }
    if (k + len + 3 >= sizeof out) break;
    out[k++] = '-';
    out[k++] = '-';
    for (size_t i = 1; i <= len; i++) out[k++] = p[i] == '_' ? '-' : p[i];
    p = end;
  }
  if (k >= size) k = size - 1; /* (size > 0: the diagnostic's arrays) */
  memcpy(s, out, k);
  s[k] = 0;
}

/* A library diagnostic as the command line says it (options as flags). */
void cli_diag_as_flags(lg_diag *d) {
  options_as_flags(d->message, sizeof d->message);
  options_as_flags(d->hint, sizeof d->hint);
}

void cli_format_diag(const lg_diag *d, const lang_model *m, const char *file, char *buf,
                     size_t size) {
  lg_diag loc = *d;
  cli_diag_as_flags(&loc);
  if (!loc.file[0]) snprintf(loc.file, sizeof loc.file, "%s", file ? file : "lagrange");
  if (loc.line <= 0 && d->status != LG_ERR_USAGE) {
    /* numeric trouble has no single place: point at the coordinates */
    loc.line = m && m->coord_line > 0 ? m->coord_line : 1;
    loc.col = m && m->coord_col > 0 ? m->coord_col : 1;
  }
  /* an allocation failed on the way: whatever a layer made of it (Kane's
   * "cannot solve"), the cause is memory */
  if (d->status == LG_ERR_NOMEM || lg_alloc_failures() > 0) {
    snprintf(loc.message, sizeof loc.message, "out of memory");
    loc.hint[0] = 0;
  } else if (!loc.message[0]) { /* a failure that left no diagnostic: never an empty line */
    snprintf(loc.message, sizeof loc.message, "internal error: a step failed without saying "
             "why (please report this model)");
  }
  lg_diag_format(&loc, buf, size);
}

int cli_report_lm(const lg_diag *d, const lang_model *m, const char *file) {
  char buf[1200];
  cli_format_diag(d, m, file, buf, sizeof buf);
  if (d->status == LG_ERR_USAGE) {
    lg_diag loc = *d;
    cli_diag_as_flags(&loc);
    fprintf(stderr, "lagrange: %s\n", loc.message);
  }
  else fprintf(stderr, "%s\n", buf);
  return d->status == LG_ERR_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_MODEL;
}

int cli_report(const lg_diag *d, const char *file) { return cli_report_lm(d, NULL, file); }

int cli_open_model(const cli_opts *o, lg_model **m) {
  lg_diag d;
  *m = NULL;
  /* read here, so that standard input is called <stdin> in messages */
  char *src = NULL;
  size_t len = 0;
  lg_diag_clear(&d);
  lg_status st = lg_read_input(o->model_stdin ? "-" : o->model, o->model, LG_INPUT_LIMIT, &src,
                               &len, &d);
  if (st == LG_OK) st = lg_model_load_string(o->model, src, len, m, &d);
  lg_free(src);
  if (st != LG_OK) return cli_report(&d, o->model);
  for (size_t k = 0; k < o->nset; k++)
    if (lg_model_set(*m, o->set[k].name, o->set[k].value, &d) != LG_OK) {
      lg_model_free(*m);
      *m = NULL;
      return cli_report(&d, o->model);
    }
  for (size_t i = 0; i < lg_model_nnotes(*m); i++) fprintf(stderr, "%s\n", lg_model_note(*m, i));
  return CLI_EXIT_OK;
}

int cli_derive(const cli_opts *o, const lg_model *m, const lg_derive_options *opt,
               lg_system **s) {
  lg_derive_options def;
  lg_derive_options_default(&def);
  if (!opt) opt = &def;
  lg_derive_options with = *opt;
  with.method = strcmp(o->method, "kane") ? LG_LAGRANGE : LG_KANE;
  lg_diag d;
  lg_status st = lg_derive_with(m, &with, s, &d);
  return st == LG_OK ? CLI_EXIT_OK : cli_report(&d, o->model);
}

/* The model file ("-": stdin, named <stdin>) through the bounded reader
 * (LG_INPUT_LIMIT, NUL bytes, lone CRs), then the language. */
static lg_status load_model(const cli_opts *o, lang_model **lm, lg_diag *d) {
  char *src;
  size_t len;
  lg_status st = lg_read_input(o->model_stdin ? "-" : o->model, o->model, LG_INPUT_LIMIT, &src,
                               &len, d);
  if (st != LG_OK) return st;
  st = lang_load_string(o->model, src, len, lm, d);
  lg_free(src);
  return st;
}

/* Every --set names a parameter or an input of the model (every
 * subcommand checks, as eval always did). */
static int settings_known(const cli_opts *o, const lang_model *lm) {
  const mech_model *m = lm->mech;
  for (size_t k = 0; k < o->nset; k++) {
    int found = 0;
    for (size_t i = 0; i < mech_nparams(m) && !found; i++)
      found = !strcmp(mech_param_name(m, i), o->set[k].name);
    for (size_t i = 0; i < mech_ninputs(m) && !found; i++)
      found = !strcmp(mech_input_name(m, i), o->set[k].name);
    if (!found) {
      fprintf(stderr, "lagrange: --set %s: the model has no parameter or input named '%s'\n",
              o->set[k].name, o->set[k].name);
      return 0;
    }
  }
  return 1;
}

int cli_load(const cli_opts *o, lang_model **lm, mech_eom **eom) {
  lg_diag d;
  lg_diag_clear(&d);
  *lm = NULL;
  *eom = NULL;
  lg_status st = load_model(o, lm, &d);
  if (st != LG_OK) return cli_report_lm(&d, NULL, o->model);
  if (!settings_known(o, *lm)) {
    lang_model_free(*lm);
    *lm = NULL;
    return CLI_EXIT_USAGE;
  }
  for (size_t i = 0; i < (*lm)->nnotes; i++) fprintf(stderr, "%s\n", (*lm)->notes[i]);
  st = mech_derive_lagrange((*lm)->mech, o->model, eom, &d);
  if (st != LG_OK) {
    int rc = cli_report_lm(&d, *lm, o->model);
    lang_model_free(*lm);
    *lm = NULL;
    return rc;
  }
  return CLI_EXIT_OK;
}

int cli_load_kane(const cli_opts *o, lang_model *lm, mech_kane **k) {
  return cli_load_kane_at(o, lm, lm->t0, lm->q0, lm->qd0, k);
}

int cli_load_kane_at(const cli_opts *o, lang_model *lm, double t, const double *q,
                     const double *qd, mech_kane **k) {
  lg_diag d;
  lg_diag_clear(&d);
  lg_status st = lang_derive_kane_at(lm, o->set, o->nset, t, q, qd, k, &d);
  return st == LG_OK ? CLI_EXIT_OK : cli_report_lm(&d, lm, o->model);
}

/* For simulate and codegen: Kane's equations where they share Lagrange's
 * state, else a clear refusal. */
int cli_method_eom(const cli_opts *o, lang_model *lm, mech_eom **e, mech_kane **kane_out) {
  if (kane_out) *kane_out = NULL;
  if (strcmp(o->method, "kane") != 0) return CLI_EXIT_OK;
  mech_kane *k;
  int rc = cli_load_kane(o, lm, &k);
  if (rc != CLI_EXIT_OK) return rc;
  mech_eom *ke = mech_kane_as_eom(lm->mech, *e, k);
  if (!ke) {
    if (kane_out) { /* the caller handles Kane's own state [q; u] */
      *kane_out = k;
      return CLI_EXIT_OK;
    }
    fprintf(stderr, "%s:%d:%d: codegen --method kane needs u = q' and no constraints (this "
                    "model has speeds or constraints); use --method lagrange\n",
            o->model, lm->coord_line > 0 ? lm->coord_line : 1,
            lm->coord_col > 0 ? lm->coord_col : 1);
    return CLI_EXIT_MODEL;
  }
  *e = ke;
  return CLI_EXIT_OK;
}

void cli_json_string(lg_str *out, const char *s) { lg_str_json(out, s); }

void cli_json_number(lg_str *out, double x) {
  if (!isfinite(x)) lg_str_puts(out, "null");
  else {
    char b[LG_DOUBLE_CHARS];
    lg_str_puts(out, lg_fmt_double(b, x));
  }
}

int cli_initial_speeds(const lang_model *lm, const mech_kane *k, double *u) {
  int any = 0;
  for (size_t i = 0; k && !k->default_speeds && i < k->p; i++) {
    u[i] = 0;
    for (size_t j = 0; lm->u0_set && j < lm->nspeeds; j++)
      if (lm->u0_set[j] && !strcmp(mech_speed_name(lm->mech, j), k->u[i]->v.name)) {
        u[i] = lm->u0[j];
        any = 1;
      }
  }
  return any;
}
