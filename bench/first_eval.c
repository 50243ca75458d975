/* first_eval.c - issue 26's latency: from a model file (a .urdf) to the
 * first evaluation on the tape, without a C compiler. Run by hand:
 *
 *   make -j2 all
 *   /usr/bin/python3 -c 'import sys; sys.path[:0]=["bench","tests/cli"]; import peers;
 *     open("/tmp/arm40.urdf","w").write(peers.arm_urdf(40))'
 *   gcc -O2 -Isrc/api -Isrc/base bench/first_eval.c -Lbuild -l:liblagrange.so.0 \
 *     -Wl,-rpath,$PWD/build -o /tmp/first_eval
 *   /tmp/first_eval /tmp/arm40.urdf [repeats]
 *
 * Prints the wall and CPU milliseconds of each step (best of `repeats`
 * runs, 5 by default): lg_model_load_file, lg_derive_with (lazy), the
 * first lg_eval_accel, then lg_work_new and lg_work_accel, then a full
 * lg_eval (M, f, T, V, ...), which builds what the first q'' left out. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lagrange.h"

static double now(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

enum { LOAD, DERIVE, ACCEL, WORKNEW, WORKACCEL, EVAL, NSTEP };
static const char *names[NSTEP] = {"load", "derive (lazy)", "first lg_eval_accel",
                                   "lg_work_new", "lg_work_accel", "first lg_eval (all forms)"};

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL [repeats]\n", argv[0]);
    return 2;
  }
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  double best[NSTEP][2];
  for (int k = 0; k < NSTEP; k++) best[k][0] = best[k][1] = 1e300;
  double check = 0;
  for (int r = 0; r < reps; r++) {
    double t[NSTEP + 1][2];
    lg_diag d;
    lg_model *m = NULL;
    lg_system *s = NULL;
    lg_work *w = NULL;
    t[0][0] = now(CLOCK_MONOTONIC), t[0][1] = now(CLOCK_PROCESS_CPUTIME_ID);
    if (lg_model_load_file(argv[1], &m, &d) != LG_OK) {
      fprintf(stderr, "%s\n", d.text);
      return 1;
    }
    t[1][0] = now(CLOCK_MONOTONIC), t[1][1] = now(CLOCK_PROCESS_CPUTIME_ID);
    lg_derive_options o;
    lg_derive_options_default(&o);
    o.lazy = 1;
    if (lg_derive_with(m, &o, &s, &d) != LG_OK) {
      fprintf(stderr, "%s\n", d.text);
      return 1;
    }
    t[2][0] = now(CLOCK_MONOTONIC), t[2][1] = now(CLOCK_PROCESS_CPUTIME_ID);
    size_t n = lg_nq(s);
    double *q = calloc(n + 1, sizeof *q), *qd = calloc(n + 1, sizeof *qd),
           *qdd = calloc(n + 1, sizeof *qdd), *M = calloc(n * n + 1, sizeof *M);
    for (size_t i = 0; i < n; i++) q[i] = 0.1 * (double)(i % 7) - 0.3, qd[i] = 0.05 * (double)(i % 5);
    if (lg_eval_accel(s, 0, q, qd, NULL, qdd, NULL, &d) != LG_OK) {
      fprintf(stderr, "%s\n", d.text);
      return 1;
    }
    t[3][0] = now(CLOCK_MONOTONIC), t[3][1] = now(CLOCK_PROCESS_CPUTIME_ID);
    if (lg_work_new(s, &w, &d) != LG_OK) {
      fprintf(stderr, "%s\n", d.text);
      return 1;
    }
    t[4][0] = now(CLOCK_MONOTONIC), t[4][1] = now(CLOCK_PROCESS_CPUTIME_ID);
    if (lg_work_accel(w, 0, q, qd, qdd, NULL, &d) != LG_OK) {
      fprintf(stderr, "%s\n", d.text);
      return 1;
    }
    t[5][0] = now(CLOCK_MONOTONIC), t[5][1] = now(CLOCK_PROCESS_CPUTIME_ID);
    double T = 0;
    lg_eval_result er = {0};
    er.mass_matrix = M;
    er.T = &T;
    if (lg_eval(s, 0, q, qd, NULL, &er, &d) != LG_OK) {
      fprintf(stderr, "%s\n", d.text);
      return 1;
    }
    t[6][0] = now(CLOCK_MONOTONIC), t[6][1] = now(CLOCK_PROCESS_CPUTIME_ID);
    for (int k = 0; k < NSTEP; k++)
      for (int c = 0; c < 2; c++)
        if (t[k + 1][c] - t[k][c] < best[k][c]) best[k][c] = t[k + 1][c] - t[k][c];
    check = qdd[n - 1] + T;
    lg_work_free(w);
    lg_system_free(s);
    lg_model_free(m);
    free(q), free(qd), free(qdd), free(M);
  }
  printf("%-28s %10s %10s\n", "step (best of runs)", "wall ms", "cpu ms");
  double tot[2] = {0, 0};
  for (int k = 0; k < NSTEP; k++) {
    printf("%-28s %10.2f %10.2f\n", names[k], best[k][0], best[k][1]);
    if (k <= ACCEL) tot[0] += best[k][0], tot[1] += best[k][1];
  }
  printf("%-28s %10.2f %10.2f\n", "file to first q''", tot[0], tot[1]);
  printf("(check %.17g)\n", check);
  return 0;
}
