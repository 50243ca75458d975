/* states.h - what the peers' harnesses (lg_fd.c, mj_fd.c, vs_fd.c) share:
 * process CPU time, and a file of states (whitespace-separated numbers,
 * w per state) read into one array. */
#ifndef PEERS_STATES_H
#define PEERS_STATES_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* NULL when the file cannot be read; *count whole states */
static double *read_states(const char *path, int w, int *count) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  int cap = 16, n = 0;
  double *s = malloc((size_t)cap * (size_t)w * sizeof *s);
  for (;;) {
    if (n == cap) s = realloc(s, (size_t)(cap *= 2) * (size_t)w * sizeof *s);
    int k = 0;
    while (k < w && fscanf(f, "%lf", &s[(size_t)n * (size_t)w + (size_t)k]) == 1) k++;
    if (k < w) break;
    n++;
  }
  fclose(f);
  *count = n;
  return s;
}

#endif
