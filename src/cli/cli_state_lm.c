/* cli_state_lm.c - linearize's --at read against the internal model
 * (lang_model, mech_kane): what `eval --state` used before it became a
 * client of lagrange.h. Delete this file once linearize reads its state by
 * the system's names (cli_parse_system_state, cli_values.c). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cli_parse_state(const char *cmd, const char *opt, const char *s, const lang_model *lm,
                    double *q, double *qd, const mech_kane *kane, double *u, int *have_u) {
  cli_assign *a = NULL;
  size_t n = 0;
  int rc = cli_parse_assignments(cmd, opt, s, &a, &n);
  for (size_t i = 0; rc == CLI_EXIT_OK && i < n; i++) {
    const char *name = a[i].name;
    int k = lang_coord_index(lm, name), su = -1;
    for (size_t j = 0; kane && u && !kane->default_speeds && j < kane->p; j++)
      if (!strcmp(kane->u[j]->v.name, name)) su = (int)j;
    if (su >= 0 && !a[i].primes) {
      u[su] = a[i].value;
      if (have_u) *have_u = 1;
    } else if (k >= 0) {
      (a[i].primes ? qd : q)[k] = a[i].value;
    } else {
      fprintf(stderr, "lagrange %s: %s: '%s' is not a coordinate of %s\n", cmd, opt, name,
              lm->file);
      rc = CLI_EXIT_USAGE;
    }
  }
  cli_assignments_free(a, n);
  return rc;
}
