/* cli_common.c - opening and deriving a model through the library,
 * reporting its diagnostics, JSON pieces. */
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

void cli_format_diag(const lg_diag *d, const char *file, char *buf, size_t size) {
  lg_diag loc = *d;
  cli_diag_as_flags(&loc);
  if (!loc.file[0]) snprintf(loc.file, sizeof loc.file, "%s", file ? file : "lagrange");
  if (loc.line <= 0 && d->status != LG_ERR_USAGE) { /* (the library places model errors) */
    loc.line = 1;
    loc.col = 1;
  }
  if (d->status == LG_ERR_NOMEM) {
    snprintf(loc.message, sizeof loc.message, "out of memory");
    loc.hint[0] = 0;
  } else if (!loc.message[0]) { /* a failure that left no diagnostic: never an empty line */
    snprintf(loc.message, sizeof loc.message, "internal error: a step failed without saying "
             "why (please report this model)");
  }
  lg_diag_format(&loc, buf, size);
}

int cli_report(const lg_diag *d, const char *file) {
  char buf[1200];
  cli_format_diag(d, file, buf, sizeof buf);
  if (d->status == LG_ERR_USAGE) {
    lg_diag loc = *d;
    cli_diag_as_flags(&loc);
    fprintf(stderr, "lagrange: %s\n", loc.message);
  } else {
    fprintf(stderr, "%s\n", buf);
  }
  return d->status == LG_ERR_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_MODEL;
}

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

void cli_json_string(lg_str *out, const char *s) { lg_str_json(out, s); }

void cli_json_number(lg_str *out, double x) {
  if (!isfinite(x)) lg_str_puts(out, "null");
  else {
    char b[LG_DOUBLE_CHARS];
    lg_str_puts(out, lg_fmt_double(b, x));
  }
}
