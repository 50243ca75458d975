/* lg_api_lin.c - linearization about an operating point (num_linearize.c),
 * as `lagrange linearize` computes it. The linearization's tape is
 * compiled on the first call (under the system's lock) and only read
 * afterwards; every call has its own scratch. */
#include "lg_api_internal.h"

#include <math.h>
#include <string.h>

/* The compiled linearization, built once. */
static lg_status compiled(const lg_system *s, const num_lin **out, lg_diag *d) {
  lg_system *mut = (lg_system *)s;
  lg_status st = LG_OK;
  pthread_mutex_lock(&mut->lock);
  if (!mut->lin)
    st = num_lin_build(s->lm->mech, s->eom, s->num, s->dummy, s->ndummy, &mut->lin, d);
  *out = mut->lin;
  pthread_mutex_unlock(&mut->lock);
  return st;
}

/* Under Kane's method (u = q'), the rates of Kane's independent speeds are
 * the independent rates. */
static lg_status kane_rates(const lg_system *s, int *iv, lg_diag *d) {
  const mech_kane *k = s->kane;
  if (!k->default_speeds) {
    lg_diag_set(d, LG_ERR_USAGE, s->lm->file, 0, 0,
                "linearizing under Kane's method needs the default speeds u = q' (this "
                "model declares its own speeds)");
    lg_diag_hint(d, "derive with LG_LAGRANGE");
    return LG_ERR_USAGE;
  }
  for (size_t i = 0; i < k->p; i++)
    for (size_t j = 0; j < s->nq; j++)
      if (k->u[i] == k->qd[j]) iv[j] = 1;
  return LG_OK;
}

/* x = [independent q; independent q'] as indices into [q; q'] */
static void state_of(const num_lin_point *pt, size_t n, size_t *state) {
  size_t k = 0;
  for (size_t j = 0; j < n; j++)
    if (!pt->dep_q[j]) state[k++] = j;
  for (size_t j = 0; j < n; j++)
    if (!pt->dep_v[j]) state[k++] = n + j;
}

static lg_status linearize(const lg_system *s, const num_lin *L0, double t, double *x,
                           const double *par, int *flags, lg_linearization *res,
                           lg_diag *d) {
  size_t n = s->nq;
  num_system ns = *s->num; /* the tapes shared, the parameters the call's */
  ns.params = (double *)par;
  num_lin L = *L0;
  L.s = &ns;
  num_work w;
  if (num_work_init(&ns, &w) != LG_OK) return LG_ERR_NOMEM;
  num_lin_point pt = {t, x, x + n, flags, flags + n, flags + 2 * n, flags + 3 * n, 0, 0};
  double none[2]; /* B and r0 may be NULL without inputs */
  num_lin_result r = {.nr = L.nr, .A = res->A, .B = res->B ? res->B : none,
                      .x0 = res->x0, .r0 = res->r0 ? res->r0 : none + 1};
  lg_status st = num_lin_operating_point(&L, &w, &pt, d);
  if (st == LG_OK) st = num_linearize(&L, &w, &pt, &r, d);
  if (st == LG_OK) {
    res->nx = r.nx;
    res->nr = L.nr;
    state_of(&pt, n, res->state);
    if (res->q) memcpy(res->q, x, n * sizeof *x);
    if (res->qd) memcpy(res->qd, x + n, n * sizeof *x);
  }
  num_work_free(&w);
  return st;
}

static lg_status run(const lg_system *s, double t, const double *q, const double *qd,
                     const double *p, const int *independent, lg_linearization *res,
                     lg_diag *d) {
  size_t n = s->nq;
  const double *par = NULL;
  const num_lin *L = NULL;
  lg_status st = api_params(s, p, &par, d);
  if (st == LG_OK) st = compiled(s, &L, d);
  double *x = lg_calloc(2 * n + 1, sizeof *x);
  int *flags = lg_calloc(4 * n + 1, sizeof *flags); /* indep q, v; dep q, v */
  if (st == LG_OK && (!x || !flags)) st = LG_ERR_NOMEM;
  if (st == LG_OK) {
    memcpy(x, q ? q : s->lm->q0, n * sizeof *x);
    memcpy(x + n, qd ? qd : s->lm->qd0, n * sizeof *x);
    for (size_t j = 0; independent && j < 2 * n; j++) flags[j] = independent[j] != 0;
    if (s->method == LG_KANE) st = kane_rates(s, flags + n, d);
  }
  if (st == LG_OK) st = linearize(s, L, t, x, par, flags, res, d);
  lg_free(x);
  lg_free(flags);
  return st;
}

lg_status lg_linearize(const lg_system *s, double t, const double *q, const double *qd,
                       const double *p, const int *independent, lg_linearization *res,
                       lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (!s || !res || !res->state || !res->A || !res->x0 ||
      ((!res->B || !res->r0) && lg_ninputs(s))) {
    lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
                "lg_linearize: a system and the room for state, A, B, x0 and r0 are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  lg_status st = run(s, t, q, qd, p, independent, res, d);
  return api_end(&c, st, s->lm->file, s->lm->coord_line, s->lm->coord_col);
}
