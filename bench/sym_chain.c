/* sym_chain.c - micro-benchmark of the symbolic core alone.
 *
 * Builds the Lagrangian of the planar n-link pendulum (absolute angles,
 * point masses m at the joints, links of length l) straight through the
 * sym C API, then differentiates it twice the way Lagrange's method does:
 * p = dL/dq', M = dp/dq', d/dt p, dL/dq. Prints the time per stage. */
#include "sym.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run(int n) {
  double t0 = now();
  sym_ctx *c = sym_ctx_new();
  const sym_node *m = sym_symbol(c, "m"), *l = sym_symbol(c, "l"), *g = sym_symbol(c, "g");
  const sym_node **q = malloc(3 * (size_t)n * sizeof *q), **qd = q + n, **qdd = q + 2 * n;
  char name[16];
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "q%d", i + 1);
    q[i] = sym_coord(c, name, 0);
    qd[i] = sym_coord(c, name, 1);
    qdd[i] = sym_coord(c, name, 2);
  }
  /* positions, velocities by sym_dt, energies */
  const sym_node *x = sym_int(c, 0), *y = sym_int(c, 0), *T = sym_int(c, 0), *V = sym_int(c, 0);
  for (int k = 0; k < n; k++) {
    x = sym_add(c, x, sym_mul(c, l, sym_func(c, SYM_FN_SIN, q[k], NULL)));
    y = sym_sub(c, y, sym_mul(c, l, sym_func(c, SYM_FN_COS, q[k], NULL)));
    const sym_node *v2 = sym_add(c, sym_powi(c, sym_dt(c, x), 2), sym_powi(c, sym_dt(c, y), 2));
    T = sym_add(c, T, sym_mul(c, sym_mul(c, sym_rat(c, 1, 2), m), v2));
    V = sym_add(c, V, sym_mul(c, sym_mul(c, m, g), y));
  }
  const sym_node *L = sym_sub(c, T, V);
  double t1 = now();
  /* first and second derivatives */
  const sym_node **zeros = malloc((size_t)n * sizeof *zeros);
  for (int i = 0; i < n; i++) zeros[i] = sym_int(c, 0);
  size_t touched = 0;
  for (int i = 0; i < n; i++) {
    const sym_node *p = sym_diff(c, L, qd[i]);
    for (int j = 0; j < n; j++) touched += sym_diff(c, p, qd[j]) != NULL;
    const sym_node *f = sym_sub(c, sym_diff(c, L, q[i]),
                                sym_subst(c, sym_dt(c, p), (size_t)n, qdd, zeros));
    touched += f != NULL;
  }
  double t2 = now();
  printf("| %3d | %9.3f | %9.3f | %9.3f | %9zu |\n", n, 1e3 * (t1 - t0), 1e3 * (t2 - t1),
         1e3 * (t2 - t0), sym_ctx_node_count(c));
  free(zeros);
  free(q);
  sym_ctx_free(c);
}

int main(int argc, char **argv) {
  printf("| n | build L (ms) | derive M, f (ms) | total (ms) | nodes |\n");
  printf("|---|---|---|---|---|\n");
  if (argc > 1) {
    run(atoi(argv[1]));
    return 0;
  }
  int sizes[] = {5, 10, 20, 40};
  for (int i = 0; i < 4; i++) run(sizes[i]);
  return 0;
}
