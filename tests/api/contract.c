/* contract.c - a program written against ../shared/API.md alone (no other
 * name from lagrange.h): evaluates a model at the state given on the
 * command line and prints "qdd v..." and "lam v..." lines.
 *
 *   contract MODEL lagrange|kane T q1 .. qn qd1 .. qdn */
#include <lagrange.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(lg_diag *d) {
  fprintf(stderr, "%s\n", lg_diag_text(d));
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  lg_diag d = {0};
  lg_model *m = NULL;
  lg_system *s = NULL;
  lg_method method = strcmp(argv[2], "kane") == 0 ? LG_KANE : LG_LAGRANGE;
  if (lg_model_load_file(argv[1], &m, &d) != LG_OK) return fail(&d);
  if (lg_derive(m, method, &s, &d) != LG_OK) {
    lg_model_free(m);
    return fail(&d);
  }
  lg_model_free(m); /* the system does not need it */
  size_t n = lg_nq(s), nc = lg_nc(s), np = lg_np(s), i;
  if ((size_t)argc != 4 + 2 * n) {
    fprintf(stderr, "want %zu state values:", 2 * n);
    for (i = 0; i < n; i++) fprintf(stderr, " %s", lg_coordinate_name(s, i));
    fprintf(stderr, "\n");
    lg_system_free(s);
    return 2;
  }
  double *x = calloc(4 * n + nc + np + 1, sizeof *x);
  double *q = x, *qd = x + n, *qdd = x + 2 * n, *lam = x + 3 * n, *p = x + 3 * n + nc;
  for (i = 0; i < 2 * n; i++) x[i] = strtod(argv[4 + i], NULL);
  lg_default_params(s, p);
  for (i = 0; i < np; i++)
    if (!lg_parameter_name(s, i)) return 3;
  lg_status st = lg_eval_accel(s, strtod(argv[3], NULL), q, qd, p, qdd, lam, &d);
  if (st == LG_OK) {
    printf("version %s %d.%d\nqdd", lg_version(), LAGRANGE_VERSION_MAJOR,
           LAGRANGE_VERSION_MINOR);
    for (i = 0; i < n; i++) printf(" %.17g", qdd[i]);
    printf("\nlam");
    for (i = 0; i < nc; i++) printf(" %.17g", lam[i]);
    printf("\n");
  } else {
    fail(&d);
  }
  free(x);
  lg_system_free(s);
  return st == LG_OK ? 0 : st == LG_ERR_NUMERIC ? 4 : 1;
}
