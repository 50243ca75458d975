/* ab_fd.c - two builds of lagrange's generated right-hand side of one robot (A and B,
 * `codegen --name A` and `--name B`), timed in alternation in one process, as vs_fd.c times
 * lagrange against MuJoCo: each round a block of about 2 ms of A's calls and one of B's (the
 * order flips every round); prints each side's best round (ns per call) and the median over
 * rounds of B / A. For measuring a change to the generated code on a shared machine.
 *
 *   gcc -O2 -I DIR -DFN=rhs_recursive ab_fd.c DIR/A.c DIR/B.c -lm -o ab
 *   ab STATES [ROUNDS]      (STATES as lg_fd.c reads them: x, then the inputs, a line each) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "A.h"
#include "B.h"
#include "states.h"

#ifndef FN
#define FN rhs_recursive
#endif
#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)

typedef int (*rhs_fn)(double, const double *, const double *, const double *, double *);

static const double *ST, *P;
static int W, NS;
static double *XD, sink;

static double block(rhs_fn f, long iters) {
  double t0 = now();
  for (long i = 0; i < iters; i++) {
    const double *x = ST + (size_t)(i % NS) * (size_t)W;
    f(0, x, x + 2 * A_NQ, P, XD);
    sink += XD[2 * A_NQ - 1];
  }
  return (now() - t0) / (double)iters;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: ab STATES [ROUNDS]\n");
    return 2;
  }
  int rounds = argc > 2 ? atoi(argv[2]) : 60;
  if (rounds < 1) rounds = 1;
  W = 2 * A_NQ + A_NU;
  double *st = read_states(argv[1], W, &NS), *p = malloc(sizeof(double) * (A_NP + 1));
  XD = malloc(sizeof(double) * 2 * A_NQ);
  if (!st || NS == 0 || !p || !XD) {
    fprintf(stderr, "ab: no states\n");
    return 1;
  }
  ST = st;
  P = p;
  A_default_params(p);
  rhs_fn fa = CAT(A, FN), fb = CAT(B, FN);
  long iters = 1;
  while (block(fa, iters) * (double)iters < 2e-3) iters *= 2;
  double *r = malloc(sizeof(double) * (size_t)rounds), ba = 1e30, bb = 1e30;
  for (int k = 0; k < rounds; k++) {
    double ta, tb;
    if (k & 1) {
      tb = block(fb, iters);
      ta = block(fa, iters);
    } else {
      ta = block(fa, iters);
      tb = block(fb, iters);
    }
    r[k] = tb / ta;
    if (ta < ba) ba = ta;
    if (tb < bb) bb = tb;
  }
  qsort(r, (size_t)rounds, sizeof *r, cmp_double);
  printf("A %.1f\nB %.1f\nB/A %.3f\n", ba * 1e9, bb * 1e9, r[rounds / 2]);
  fprintf(stderr, "%s", sink == 12345.678 ? "." : "");
  free(r);
  free(st);
  free(p);
  free(XD);
  return 0;
}
