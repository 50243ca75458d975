/* lg_api_scratch.c - evaluation scratch a system keeps between calls.
 *
 * Allocating a num_work (six arrays) and the solution vector on every
 * lg_eval* call cost more than the arithmetic for small models (most of
 * a call from Python). A system keeps up to API_POOL_MAX idle scratches:
 * a call takes one under a short lock of the pool's own (not the system's
 * `lock`, which printing holds for long), evaluates without any lock, and
 * gives it back. Two threads never hold the same scratch; a thread that
 * finds the pool empty allocates a new one, so concurrency is unbounded
 * and the pool only bounds what stays allocated. */
#include "lg_api_internal.h"

#include <string.h>

#define API_POOL_MAX 8

struct api_pool {
  pthread_mutex_t mu;
  size_t nidle;
  api_scratch *idle[API_POOL_MAX];
};

static void scratch_free(api_scratch *sc) {
  if (!sc) return;
  num_work_free(&sc->w);
  lg_free(sc->x);
  lg_free(sc);
}

static api_scratch *scratch_new(const num_system *ns) {
  api_scratch *sc = lg_calloc(1, sizeof *sc);
  if (!sc) return NULL;
  sc->x = lg_calloc(ns->n + ns->m + 1, sizeof *sc->x);
  if (!sc->x || num_work_init(ns, &sc->w) != LG_OK) {
    lg_free(sc->x);
    lg_free(sc);
    return NULL;
  }
  sc->nslots = num_system_nslots(ns);
  sc->nout = ns->nout;
  return sc;
}

lg_status api_scratch_fit(const lg_system *s, api_scratch *sc) {
  if (!s->compiled || !s->num) return LG_OK; /* (num_accel's, num_tree's: made for it) */
  size_t need = num_system_nslots(s->num);
  if (s->num_tree && num_system_nslots(s->num_tree) > need) need = num_system_nslots(s->num_tree);
  if (sc->nout < s->num->nout) { /* made for the recursion's tape alone */
    double *out = lg_calloc(s->num->nout + 1, sizeof *out);
    if (!out) return LG_ERR_NOMEM;
    lg_free(sc->w.out);
    sc->w.out = out;
    sc->nout = s->num->nout;
  }
  if (sc->nslots >= need) return LG_OK;
  double *slots = lg_calloc(need + 1, sizeof *slots);
  if (!slots) return LG_ERR_NOMEM;
  lg_free(sc->w.slots);
  sc->w.slots = slots;
  sc->nslots = need;
  return LG_OK;
}

lg_status api_pool_new(api_pool **out) {
  *out = lg_calloc(1, sizeof **out);
  if (!*out) return LG_ERR_NOMEM;
  if (pthread_mutex_init(&(*out)->mu, NULL) != 0) {
    lg_free(*out);
    *out = NULL;
    return LG_ERR_NOMEM;
  }
  return LG_OK;
}

void api_pool_free(api_pool *p) {
  if (!p) return;
  for (size_t i = 0; i < p->nidle; i++) scratch_free(p->idle[i]);
  pthread_mutex_destroy(&p->mu);
  lg_free(p);
}

api_scratch *api_scratch_take(const lg_system *s) {
  api_pool *p = s->pool;
  api_scratch *sc = NULL;
  pthread_mutex_lock(&p->mu);
  if (p->nidle) sc = p->idle[--p->nidle];
  pthread_mutex_unlock(&p->mu);
  if (!sc) sc = scratch_new(api_num_accel(s));
  if (sc && api_scratch_fit(s, sc) != LG_OK) {
    api_scratch_give(s, sc);
    return NULL;
  }
  return sc;
}

void api_scratch_give(const lg_system *s, api_scratch *sc) {
  api_pool *p = s->pool;
  if (!sc) return;
  pthread_mutex_lock(&p->mu);
  if (p->nidle < API_POOL_MAX) {
    p->idle[p->nidle++] = sc;
    sc = NULL;
  }
  pthread_mutex_unlock(&p->mu);
  scratch_free(sc);
}
