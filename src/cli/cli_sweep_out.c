/* cli_sweep_out.c - a sweep's rows in run order whatever the order they
 * are finished in (threads, ranks), and the progress line on a terminal. */
#include "cli_sweep.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

double sweep_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int sweep_out_init(sweep_out *w, FILE *f, size_t runs) {
  memset(w, 0, sizeof *w);
  w->f = f;
  w->runs = runs;
  w->pending = lg_calloc(runs, sizeof *w->pending);
  w->start = w->last_report = sweep_now();
  w->tty = isatty(2);
  return w->pending != NULL;
}

void sweep_out_put(sweep_out *w, size_t k, char *row, int ok) {
  if (k >= w->runs || w->pending[k]) { /* never: each run once */
    lg_free(row);
    return;
  }
  if (!row) { /* out of memory making the row: still one line for run k */
    char buf[64];
    snprintf(buf, sizeof buf, "%zu,failed: out of memory\n", k);
    row = lg_strdup(buf);
    ok = 0;
  }
  w->done++;
  w->failed += !ok;
  w->pending[k] = row ? row : (char *)"";
  while (w->next < w->runs && w->pending[w->next]) {
    char *r = w->pending[w->next];
    fputs(r, w->f);
    if (*r) lg_free(r);
    w->pending[w->next++] = (char *)""; /* written */
  }
}

void sweep_out_progress(sweep_out *w, int final) {
  if (!w->tty) return;
  double now = sweep_now();
  if (final) {
    fputs("\r                                                                  \r", stderr);
    return;
  }
  if (now - w->last_report < 0.2) return;
  w->last_report = now;
  double el = now - w->start;
  double left = w->done ? el / (double)w->done * (double)(w->runs - w->done) : 0;
  fprintf(stderr, "\rsweep: %zu/%zu runs, %zu failed, %s%.0f s left   ", w->done, w->runs,
          w->failed, w->done ? "" : "~", left);
}

void sweep_out_free(sweep_out *w) {
  for (size_t k = w->next; k < w->runs && w->pending; k++)
    if (w->pending[k] && *w->pending[k]) lg_free(w->pending[k]);
  lg_free(w->pending);
  w->pending = NULL;
}
