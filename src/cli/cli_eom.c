/* cli_eom.c - `lagrange eom`: the equations as text, LaTeX or JSON, as
 * lg_print gives them. */
#include "cli.h"

#include <stdio.h>

int cli_eom(const cli_opts *o) {
  lg_model *m;
  int rc = cli_open_model(o, &m);
  if (rc != CLI_EXIT_OK) return rc;
  lg_derive_options opt;
  lg_derive_options_default(&opt);
  opt.lazy = 1; /* printing needs nothing compiled */
  lg_system *s;
  rc = cli_derive(o, m, &opt, &s);
  lg_model_free(m);
  if (rc != CLI_EXIT_OK) return rc;
  lg_format fmt = o->json || o->format == CLI_JSON ? LG_FORMAT_JSON
                  : o->format == CLI_LATEX         ? LG_FORMAT_LATEX
                                                   : LG_FORMAT_TEXT;
  char *text;
  lg_diag d;
  if (lg_print(s, fmt, &text, &d) != LG_OK) {
    rc = cli_report(&d, o->model);
  } else {
    fputs(text, stdout);
    lg_string_free(text);
  }
  lg_system_free(s);
  return rc;
}
