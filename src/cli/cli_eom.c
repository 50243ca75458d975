/* cli_eom.c - `lagrange eom`: the equations as text, LaTeX or JSON
 * (printed by the library: mech_print). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cli_eom(const cli_opts *o) {
  lang_model *lm;
  mech_eom *e;
  int rc = cli_load(o, &lm, &e);
  if (rc != CLI_EXIT_OK) return rc;
  /* collected for reading (linear time); small systems expanded first */
  mech_print_simplify(lm->mech, e, NULL);
  mech_kane *k = NULL;
  if (!strcmp(o->method, "kane")) {
    if ((rc = cli_load_kane(o, lm, &k)) != CLI_EXIT_OK) {
      lang_model_free(lm);
      return rc;
    }
    mech_print_simplify(lm->mech, NULL, k);
  }
  lg_str out;
  lg_str_init(&out);
  mech_format fmt = o->json || o->format == CLI_JSON ? MECH_FMT_JSON
                    : o->format == CLI_LATEX         ? MECH_FMT_LATEX
                                                     : MECH_FMT_TEXT;
  if (mech_print(lm->mech, e, k, fmt, &out) != LG_OK) {
    fprintf(stderr, "%s: out of memory while printing\n", o->model);
    rc = CLI_EXIT_MODEL;
  } else {
    fwrite(out.s, 1, out.len, stdout);
  }
  lg_str_free(&out);
  lang_model_free(lm);
  return rc;
}
