/* lg_fd.c - lagrange's generated right-hand side of a robot, for bench/peers.py.
 *
 *   lg_fd check STATES      one line of x' (2 nq numbers) per state
 *   lg_fd time STATES [S]   "rhs NS": ns per call
 * The generated code comes in through a glue file bench/peers.py writes (lg_nq, lg_nu,
 * lg_np, lg_rhs, lg_params): `lagrange codegen ROBOT.urdf --functions rhs_recursive` (or
 * `rhs` where there is no recursion). STATES: lines of x = [q; q'] (2 nq) then the inputs u
 * (nu: the joint torques). A call reads x, u, p and writes x' = [q'; q'']; the loop passes
 * pointers into the precomputed states (no copy). Times are process CPU time, best of 9
 * repetitions of at least S s (default 0.05) each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "states.h"

extern const int lg_nq, lg_nu, lg_np;
int lg_rhs(double t, const double *x, const double *u, const double *p, double *xdot);
void lg_params(double *p);

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  int nx = 2 * lg_nq, w = nx + lg_nu, ns = 0;
  double *st = read_states(argv[2], w, &ns);
  double *p = malloc(sizeof(double) * (size_t)(lg_np + 1));
  double *xd = malloc(sizeof(double) * (size_t)nx);
  if (!st || ns == 0) return 1;
  lg_params(p);
  if (!strcmp(argv[1], "check")) {
    for (int s = 0; s < ns; s++) {
      const double *x = st + (size_t)s * (size_t)w;
      int rc = lg_rhs(0, x, x + nx, p, xd);
      if (rc) printf("singular\n");
      else
        for (int i = 0; i < nx; i++) printf("%s%.17g", i ? " " : "", xd[i]);
      printf("\n");
    }
  } else {
    double rep = argc >= 4 ? atof(argv[3]) : 0.05, best = 1e30, sink = 0;
    long iters = 1;
    for (;;) {
      double t0 = now();
      for (long i = 0; i < iters; i++) {
        const double *x = st + (size_t)(i % ns) * (size_t)w;
        lg_rhs(0, x, x + nx, p, xd);
        sink += xd[nx - 1];
      }
      if (now() - t0 >= rep) break;
      iters *= 2;
    }
    for (int r = 0; r < 9; r++) {
      double t0 = now();
      for (long i = 0; i < iters; i++) {
        const double *x = st + (size_t)(i % ns) * (size_t)w;
        lg_rhs(0, x, x + nx, p, xd);
        sink += xd[nx - 1];
      }
      double t = (now() - t0) / (double)iters;
      if (t < best) best = t;
    }
    printf("rhs %.1f\n", best * 1e9);
    if (sink == 1.2345e300) printf("!\n"); /* keep the calls */
  }
  free(st);
  free(p);
  free(xd);
  return 0;
}
