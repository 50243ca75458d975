/* rhs_harness.c - one driver for every right-hand side the benchmarks
 * compare (lagrange's generated C, SymPy's generated C, the hand-written
 * articulated-body algorithm): the same states, the same calling loop.
 *
 * The implementations come from a generated glue file (bench/codegen.py)
 * that defines bench_nq, bench_np, bench_nimpl, bench_names, bench_fn and
 * bench_params. States are read from STATES (one state x = [q; q'] a line).
 *
 * usage: rhs_harness check STATES   prints every implementation's xdot
 *        rhs_harness time STATES [S]  prints "name ns-per-call" per impl
 * (process CPU time, best of 9 repetitions of at least S s each, 0.05). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*rhs_fn)(const double *x, const double *p, double *xdot);
extern const int bench_nq, bench_np, bench_nimpl;
extern const char *const bench_names[];
extern const rhs_fn bench_fn[];
void bench_params(double *p);

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double *read_states(const char *path, int nx, int *count) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  int cap = 16, n = 0;
  double *s = malloc((size_t)cap * (size_t)nx * sizeof *s);
  for (;;) {
    if (n == cap) s = realloc(s, (size_t)(cap *= 2) * (size_t)nx * sizeof *s);
    int k = 0;
    while (k < nx && fscanf(f, "%lf", &s[(size_t)n * (size_t)nx + (size_t)k]) == 1) k++;
    if (k < nx) break;
    n++;
  }
  fclose(f);
  *count = n;
  return s;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) return 2;
  const double rep_s = argc == 4 ? atof(argv[3]) : 0.05;
  const int nx = 2 * bench_nq;
  int ns = 0;
  double *states = read_states(argv[2], nx, &ns);
  double *p = malloc((size_t)bench_np * sizeof *p), *xd = malloc((size_t)nx * sizeof *xd);
  if (!states || ns == 0) return 1;
  bench_params(p);
  if (!strcmp(argv[1], "check")) {
    for (int k = 0; k < bench_nimpl; k++)
      for (int s = 0; s < ns; s++) {
        int rc = bench_fn[k](states + (size_t)s * (size_t)nx, p, xd);
        printf("%s %d %d", bench_names[k], s, rc);
        for (int i = 0; i < nx; i++) printf(" %.17g", xd[i]);
        printf("\n");
      }
    return 0;
  }
  for (int k = 0; k < bench_nimpl; k++) {
    double best = 1e300, sink = 0;
    for (int rep = 0; rep < 9; rep++) {
      long calls = 0;
      double t0 = now(), t1;
      do { /* all states in turn */
        for (int s = 0; s < ns; s++, calls++) {
          bench_fn[k](states + (size_t)s * (size_t)nx, p, xd);
          sink += xd[nx - 1];
        }
        t1 = now();
      } while (t1 - t0 < rep_s);
      if ((t1 - t0) / (double)calls < best) best = (t1 - t0) / (double)calls;
    }
    printf("%s %.1f %g\n", bench_names[k], best * 1e9, sink);
  }
  free(states);
  free(p);
  free(xd);
  return 0;
}
