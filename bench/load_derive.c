/* load_derive.c - issue 26: the two steps before the first evaluation, timed
 * alone (lg_model_load_file, then lg_derive_with with lazy = 1), best of
 * `repeats` runs in one process, CPU milliseconds. Run by hand:
 *
 *   make -j2 all
 *   /usr/bin/python3 -c 'import sys; sys.path[:0]=["bench","tests/cli"]; import peers;
 *     open("/tmp/arm40.urdf","w").write(peers.arm_urdf(40))'
 *   gcc -O2 -Isrc/api -Isrc/base bench/load_derive.c -Lbuild -l:liblagrange.so.0 \
 *     -Wl,-rpath,$PWD/build -o /tmp/load_derive
 *   /tmp/load_derive /tmp/arm40.urdf [repeats] [only]
 *
 * `only` = 1 times the load alone, 2 the derive alone (the load done once),
 * for a profiler; 0 (the default) both. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lagrange.h"

static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL [repeats] [only]\n", argv[0]);
    return 2;
  }
  int reps = argc > 2 ? atoi(argv[2]) : 5, only = argc > 3 ? atoi(argv[3]) : 0;
  double best[2] = {1e300, 1e300};
  lg_diag d;
  lg_model *keep = NULL;
  if (only == 2 && lg_model_load_file(argv[1], &keep, &d) != LG_OK) {
    fprintf(stderr, "%s\n", d.text);
    return 1;
  }
  for (int r = 0; r < reps; r++) {
    lg_model *m = keep;
    lg_system *s = NULL;
    double t0 = cpu();
    if (!keep && lg_model_load_file(argv[1], &m, &d) != LG_OK) {
      fprintf(stderr, "%s\n", d.text);
      return 1;
    }
    double t1 = cpu();
    if (only != 1) {
      lg_derive_options o;
      lg_derive_options_default(&o);
      o.lazy = 1;
      if (lg_derive_with(m, &o, &s, &d) != LG_OK) {
        fprintf(stderr, "%s\n", d.text);
        return 1;
      }
    }
    double t2 = cpu();
    if (t1 - t0 < best[0]) best[0] = t1 - t0;
    if (t2 - t1 < best[1]) best[1] = t2 - t1;
    lg_system_free(s);
    if (!keep) lg_model_free(m);
  }
  lg_model_free(keep);
  printf("load %.2f ms  derive (lazy) %.2f ms  sum %.2f ms  (CPU, best of %d)\n", best[0], best[1],
         best[0] + best[1], reps);
  return 0;
}
