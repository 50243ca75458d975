/* accel.c - the lagrange library in a few lines: load a model, derive its
 * equations of motion, print the accelerations (and multipliers) at the
 * model's initial state.
 *
 *   cc accel.c $(pkg-config --cflags --libs lagrange) -o accel
 *   ./accel examples/cart_pendulum.lag [kane]
 */
#include <lagrange.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: accel MODEL [kane]\n");
    return 2;
  }
  lg_method method = argc > 2 && !strcmp(argv[2], "kane") ? LG_KANE : LG_LAGRANGE;
  lg_diag d = {0};
  lg_model *m = NULL;
  lg_system *s = NULL;
  if (lg_model_load_file(argv[1], &m, &d) != LG_OK || lg_derive(m, method, &s, &d) != LG_OK) {
    fprintf(stderr, "%s\n", lg_diag_text(&d));
    lg_model_free(m);
    return 1;
  }
  size_t n = lg_nq(s), nc = lg_nc(s);
  double *buf = calloc(4 * n + nc + 1, sizeof *buf);
  double *q = buf, *qd = buf + n, *qdd = buf + 2 * n, *lam = buf + 3 * n;
  lg_initial_state(s, q, qd);
  int rc = 0;
  if (lg_eval_accel(s, 0.0, q, qd, NULL, qdd, lam, &d) != LG_OK) {
    fprintf(stderr, "%s\n", lg_diag_text(&d));
    rc = 1;
  }
  for (size_t i = 0; rc == 0 && i < n; i++)
    printf("%s'' = %.17g\n", lg_coordinate_name(s, i), qdd[i]);
  for (size_t k = 0; rc == 0 && k < nc; k++) printf("lam%zu = %.17g\n", k + 1, lam[k]);
  free(buf);
  lg_system_free(s);
  lg_model_free(m);
  return rc;
}
