/* linearize.c - lg_linearize about a model's initial state, printed as
 * JSON with the keys of `lagrange linearize --json` it shares (state, x0,
 * A, B), for the install test to compare.
 *
 *   linearize MODEL lagrange|kane */
#include <lagrange.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void matrix(const char *key, const double *a, size_t rows, size_t cols) {
  printf(",\n\"%s\": [", key);
  for (size_t i = 0; i < rows; i++) {
    printf("%s[", i ? ", " : "");
    for (size_t j = 0; j < cols; j++) printf("%s%.17g", j ? ", " : "", a[i * cols + j]);
    printf("]");
  }
  printf("]");
}

int main(int argc, char **argv) {
  lg_diag d = {0};
  lg_model *m = NULL;
  lg_system *s = NULL;
  if (argc < 3) return 2;
  lg_method method = strcmp(argv[2], "kane") == 0 ? LG_KANE : LG_LAGRANGE;
  if (lg_model_load_file(argv[1], &m, &d) || lg_derive(m, method, &s, &d)) {
    fprintf(stderr, "%s\n", lg_diag_text(&d));
    lg_model_free(m);
    return 1;
  }
  size_t n = lg_nq(s), nr = lg_ninputs(s), nx;
  size_t *state = calloc(2 * n + 1, sizeof *state);
  double *buf = calloc(4 * n * n + 2 * n * (nr + 1) + nr + 1, sizeof *buf);
  lg_linearization L = {.state = state, .A = buf, .B = buf + 4 * n * n,
                        .x0 = buf + 4 * n * n + 2 * n * nr, .r0 = buf + 4 * n * n + 2 * n * (nr + 1)};
  lg_status st = lg_linearize(s, 0.0, NULL, NULL, NULL, NULL, &L, &d);
  int rc = st == LG_OK ? 0 : st == LG_ERR_USAGE ? 3 : 1;
  if (rc) fprintf(stderr, "%s\n", lg_diag_text(&d));
  nx = L.nx;
  if (!rc) {
    printf("{\"state\": [");
    for (size_t k = 0; k < nx; k++) /* q, q', or Kane's own speed */
      printf("%s\"%s%s\"", k ? ", " : "",
             state[k] < 2 * n ? lg_coordinate_name(s, state[k] % n)
                              : lg_speed_name(s, state[k] - 2 * n),
             state[k] < n || state[k] >= 2 * n ? "" : "'");
    printf("]");
    matrix("x0", L.x0, 1, nx);
    matrix("A", L.A, nx, nx);
    matrix("B", L.B, nx, nr);
    printf("\n}\n");
  }
  free(state);
  free(buf);
  lg_system_free(s);
  lg_model_free(m);
  return rc;
}
