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
  /* collected for reading (linear time); small systems expanded first,
   * decided before anything else grows the context (as lg_print) */
  int expand_eom = mech_print_wants_simplify(mech_ctx(lm->mech), 0);
  mech_kane *k = NULL;
  if (!strcmp(o->method, "kane") && (rc = cli_load_kane(o, lm, &k)) != CLI_EXIT_OK) {
    lang_model_free(lm);
    return rc;
  }
  int expand_kane = k && mech_print_wants_simplify(mech_ctx(lm->mech), 1);
  const mech_eom *pe = e;
  const mech_kane *pk = NULL, *none_k;
  const mech_eom *none_e;
  lg_status st = mech_print_simplified(lm->mech, e, NULL, expand_eom, 0, &pe, &none_k);
  if (st == LG_OK && k) st = mech_print_simplified(lm->mech, NULL, k, 0, expand_kane, &none_e, &pk);
  if (st != LG_OK) {
    fprintf(stderr, "%s: out of memory\n", o->model);
    lang_model_free(lm);
    return CLI_EXIT_MODEL;
  }
  lg_str out;
  lg_str_init(&out);
  mech_format fmt = o->json || o->format == CLI_JSON ? MECH_FMT_JSON
                    : o->format == CLI_LATEX         ? MECH_FMT_LATEX
                                                     : MECH_FMT_TEXT;
  if (mech_print(lm->mech, pe, pk, fmt, &out) != LG_OK) {
    fprintf(stderr, "%s: out of memory while printing\n", o->model);
    rc = CLI_EXIT_MODEL;
  } else {
    fwrite(out.s, 1, out.len, stdout);
  }
  lg_str_free(&out);
  lang_model_free(lm);
  return rc;
}
