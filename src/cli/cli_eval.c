/* cli_eval.c - `lagrange eval`: everything evaluated at one state, as the
 * library reports it (lg_eval_format); the command reads --state by the
 * system's names and prints. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The state of --state over the model's initial one (Kane's speeds NaN:
 * not given), then the report; prints errors, returns the exit code. */
static int report(const cli_opts *o, const lg_system *s) {
  size_t n = lg_nq(s), nu = lg_nu(s), nd = lg_ndependent_speeds(s);
  double *buf = lg_calloc(2 * n + nu + nd + 1, sizeof *buf);
  if (!buf) {
    fprintf(stderr, "%s: out of memory\n", o->model);
    return CLI_EXIT_MODEL;
  }
  double *q = buf, *qd = buf + n, *u = buf + 2 * n, *udep = u + nu;
  lg_initial_state(s, q, qd);
  for (size_t i = 0; i < nu + nd; i++) u[i] = NAN;
  lg_eval_state x = {.t = o->t, .q = q, .qd = qd, .u = u, .udep = udep};
  lg_diag d;
  int rc = lg_check_params(s, NULL, &d) == LG_OK ? CLI_EXIT_OK : cli_report(&d, o->model);
  if (rc == CLI_EXIT_OK && o->state)
    rc = cli_parse_system_state("eval", "--state", o->state, o->model, s, q, qd,
                                u, udep);
  char *out = NULL, *note = NULL;
  lg_status st = LG_OK;
  if (rc == CLI_EXIT_OK)
    st = lg_eval_format(s, &x, NULL, o->json ? LG_FORMAT_JSON : LG_FORMAT_TEXT, &out, &note,
                        &d);
  if (note) fprintf(stderr, "%s\n", note);
  if (rc == CLI_EXIT_OK && st != LG_OK) rc = cli_report(&d, o->model);
  else if (rc == CLI_EXIT_OK) fputs(out, stdout);
  lg_string_free(out);
  lg_string_free(note);
  lg_free(buf);
  return rc;
}

int cli_eval(const cli_opts *o) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  int rc = cli_open_model(o, &m);
  /* lazy: the report compiles what it reads (a large tree's forms come
   * from its links on numbers, issue 26: no dense forms to build) */
  lg_derive_options lazy;
  lg_derive_options_default(&lazy);
  lazy.lazy = 1;
  if (rc == CLI_EXIT_OK) rc = cli_derive(o, m, &lazy, &s);
  lg_model_free(m);
  if (rc == CLI_EXIT_OK) rc = report(o, s);
  lg_system_free(s);
  return rc;
}
