/* cli_sweep_pool.c - the runs of a sweep on a pool of threads: each takes
 * the next run, computes its row with its own integrator memory and
 * scratch (sweep_run), and hands it to the ordered writer. The main
 * thread reports progress until every worker is done. */
#include "cli_sweep.h"

#include <time.h>

typedef struct pool {
  const sweep_ctx *c;
  sweep_out *w;
  pthread_mutex_t lock;   /* next, w */
  size_t next;
  int oom;
} pool;

static void *worker(void *arg) {
  pool *p = arg;
  lg_str row;
  lg_str_init(&row);
  for (;;) {
    pthread_mutex_lock(&p->lock);
    size_t k = p->next < p->w->runs ? p->next++ : p->w->runs;
    pthread_mutex_unlock(&p->lock);
    if (k >= p->w->runs) break;
    int ok = sweep_run(p->c, k, &row);
    char *text = row.oom ? NULL : lg_str_take(&row);
    lg_str_free(&row);
    lg_str_init(&row);
    pthread_mutex_lock(&p->lock);
    sweep_out_put(p->w, k, text, ok);
    pthread_mutex_unlock(&p->lock);
  }
  lg_str_free(&row);
  return NULL;
}

static int all_done(pool *p) {
  pthread_mutex_lock(&p->lock);
  int done = p->w->done == p->w->runs;
  sweep_out_progress(p->w, 0);
  pthread_mutex_unlock(&p->lock);
  return done;
}

int sweep_pool(const sweep_ctx *c, sweep_out *w, size_t jobs) {
  pool p = {.c = c, .w = w};
  if (jobs > w->runs) jobs = w->runs;
  if (jobs < 1) jobs = 1;
  pthread_t *t = lg_calloc(jobs, sizeof *t);
  if (!t || pthread_mutex_init(&p.lock, NULL) != 0) {
    lg_free(t);
    return 0;
  }
  size_t started = 0;
  while (started < jobs && pthread_create(&t[started], NULL, worker, &p) == 0) started++;
  if (!started) worker(&p); /* no thread could start: this one does it all */
  while (started && !all_done(&p)) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  for (size_t i = 0; i < started; i++) pthread_join(t[i], NULL);
  sweep_out_progress(w, 1);
  pthread_mutex_destroy(&p.lock);
  lg_free(t);
  return 1;
}
