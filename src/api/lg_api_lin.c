/* lg_api_lin.c - linearization about an operating point (num_linearize.c),
 * as `lagrange linearize` computes it. The linearization's tape is
 * compiled on the first call (under the system's lock) and only read
 * afterwards; every call has its own scratch. Kane's own speeds (x =
 * [q_i; u]) are a change of variables built in the symbolic context, also
 * under the lock. */
#include "lg_api_lin.h"

#include <math.h>
#include <string.h>

lg_status api_lin_compiled(const lg_system *s, const num_lin **out, lg_diag *d) {
  lg_system *mut = (lg_system *)s;
  lg_status st = LG_OK;
  pthread_mutex_lock(&mut->lock);
  if (!mut->lin) st = api_num_eom(mut, d);
  if (!mut->lin && st == LG_OK)
    st = num_lin_build(s->lm->mech, s->eom_num, s->num, s->dummy, s->ndummy, &mut->lin, d);
  *out = mut->lin;
  pthread_mutex_unlock(&mut->lock);
  return st;
}

void api_lin_settings(const lg_system *s, const mech_setting **set, size_t *nset) {
  *set = s->dummy;
  *nset = s->ndummy;
}

/* Under Kane's method with u = q', the rates of Kane's independent speeds
 * are the independent rates; with its own speeds the rates are chosen by
 * pivoting and the result turned into the speeds afterwards. */
static const mech_kane *kane_rates(const lg_system *s, int *iv) {
  const mech_kane *k = s->kane_raw;
  if (!k->default_speeds) return k;
  for (size_t i = 0; i < k->p; i++)
    for (size_t j = 0; j < s->nq; j++)
      /* (the derived coordinates: mech_coord interns, which races with a
       * thread printing under the system's lock) */
      if (!strcmp(k->u[i]->v.name, s->eom->q[j]->v.name)) iv[j] = 1;
  return NULL;
}

void api_lin_free(api_lin *r) {
  lg_free(r->mem);
  lg_free(r->flags);
  r->mem = NULL;
  r->flags = NULL;
}

/* A value given for a variable that turned out dependent must already be
 * consistent. */
static lg_status check_given(const lg_system *s, const api_lin *r, const double *q,
                             const double *qd, lg_diag *d) {
  size_t n = r->n;
  for (size_t j = 0; j < n; j++)
    for (int rate = 0; rate < 2; rate++) {
      const double *v = rate ? qd : q;
      double given = v ? v[j] : NAN, got = (rate ? r->qd : r->q)[j];
      if (isnan(given) || fabs(given - got) <= 1e-9 * (1 + fabs(got))) continue;
      char b1[LG_DOUBLE_CHARS], b2[LG_DOUBLE_CHARS];
      lg_diag_set(d, LG_ERR_MODEL, s->lm->file,
                  s->lm->coord_line > 0 ? s->lm->coord_line : 1,
                  s->lm->coord_col > 0 ? s->lm->coord_col : 1,
                  "the operating point is off the constraints: %s%s = %s is given but the "
                  "constraints need %s", s->num->coord_names[j], rate ? "'" : "",
                  lg_fmt_double(b1, given), lg_fmt_double(b2, got));
      lg_diag_hint(d, "leave it out of `at` to have it solved, or name it with `independent`");
      return LG_ERR_MODEL;
    }
  return LG_OK;
}

lg_status api_lin_run(const lg_system *s, double t, const double *q, const double *qd,
                      const double *par, const int *independent, int given, api_lin *r,
                      lg_diag *d) {
  size_t n = s->nq, nr = mech_ninputs(s->lm->mech), nx = 2 * n, cols = 2 * n + nr;
  memset(r, 0, sizeof *r);
  r->n = n;
  r->t = t;
  lg_status st = api_lin_compiled(s, &r->L, d);
  if (st != LG_OK) return st;
  r->mem = lg_calloc(6 * n + nx * nx + nx * (nr + 1) + nr + 3 * n * n + n * cols + 1,
                     sizeof *r->mem);
  r->flags = lg_calloc(4 * n + 1, sizeof *r->flags);
  if (!r->mem || !r->flags) {
    api_lin_free(r);
    return LG_ERR_NOMEM;
  }
  r->q = r->mem;
  r->qd = r->q + n;
  r->guess = r->qd + n;
  r->qdd = r->guess + 2 * n;
  r->x0 = r->qdd + n;
  r->A = r->x0 + nx;
  r->B = r->A + nx * nx;
  r->r0 = r->B + nx * nr;
  r->Pq = r->r0 + nr;
  r->Q = r->Pq + n * n;
  r->Vu = r->Q + n * n;
  r->G = r->Vu + n * n;
  r->indep_q = r->flags;
  r->indep_v = r->indep_q + n;
  r->dep_q = r->indep_v + n;
  r->dep_v = r->dep_q + n;
  for (size_t j = 0; j < n; j++) {
    double a = q ? q[j] : NAN, b = qd ? qd[j] : NAN;
    r->q[j] = r->guess[j] = isnan(a) ? s->lm->q0[j] : a;
    r->qd[j] = r->guess[n + j] = isnan(b) ? s->lm->qd0[j] : b;
  }
  for (size_t j = 0; independent && j < n; j++) {
    r->indep_q[j] = independent[j] != 0;
    r->indep_v[j] = independent[n + j] != 0;
  }
  if (s->method == LG_KANE) r->kane = kane_rates(s, r->indep_v);
  /* the tapes shared, the parameters the call's */
  r->ns = *s->num;
  r->ns.params = (double *)par;
  num_lin L = *r->L;
  L.s = &r->ns;
  num_work w;
  if (num_work_init(&r->ns, &w) != LG_OK) {
    api_lin_free(r);
    return LG_ERR_NOMEM;
  }
  num_lin_point pt = {t, r->q, r->qd, r->indep_q, r->indep_v, r->dep_q, r->dep_v, 0, 0};
  num_lin_result res = {0, nr, r->A, r->B, r->x0, r->r0, r->Pq, r->Q, r->Vu, r->G, r->qdd};
  st = num_lin_operating_point(&L, &w, &pt, d);
  if (st == LG_OK && given) st = check_given(s, r, q, qd, d);
  if (st == LG_OK) st = num_linearize(&L, &w, &pt, &res, d);
  if (st == LG_OK && r->kane) {
    const mech_setting *set;
    size_t nset;
    api_lin_settings(s, &set, &nset);
    lg_system *mut = (lg_system *)s;
    pthread_mutex_lock(&mut->lock);
    st = num_lin_to_speeds(&L, s->lm->mech, set, nset, r->kane->speed_of_qd, r->kane->p, &pt,
                           &res, d);
    pthread_mutex_unlock(&mut->lock);
  }
  num_work_free(&w);
  if (st != LG_OK) {
    api_lin_free(r);
    return st;
  }
  r->nx = res.nx;
  r->nr = nr;
  r->nqi = pt.nqi;
  r->nui = pt.nui;
  return LG_OK;
}

void api_lin_state_name(lg_str *o, const lg_system *s, const api_lin *r, size_t a) {
  size_t seen = 0, n = r->n;
  int rate = a >= r->nqi;
  if (rate && r->kane) {
    sym_print(o, r->kane->u[a - r->nqi], SYM_STYLE_TEXT, NULL, NULL);
    return;
  }
  const int *dep = rate ? r->dep_v : r->dep_q;
  size_t want = rate ? a - r->nqi : a;
  for (size_t j = 0; j < n; j++) {
    if (dep[j]) continue;
    if (seen++ == want) {
      lg_str_printf(o, "%s%s", s->num->coord_names[j], rate ? "'" : "");
      return;
    }
  }
}

void api_json_number(lg_str *o, double x) {
  if (!isfinite(x)) lg_str_puts(o, "null");
  else {
    char b[LG_DOUBLE_CHARS];
    lg_str_puts(o, lg_fmt_double(b, x));
  }
}

/* x = [independent q; independent q' (or Kane's speeds)] as indices into
 * [q; q'; u] */
static void state_of(const api_lin *r, size_t *state) {
  size_t k = 0, n = r->n;
  for (size_t j = 0; j < n; j++)
    if (!r->dep_q[j]) state[k++] = j;
  if (r->kane) {
    for (size_t i = 0; i < r->nui; i++) state[k++] = 2 * n + i;
    return;
  }
  for (size_t j = 0; j < n; j++)
    if (!r->dep_v[j]) state[k++] = n + j;
}

static lg_status run(const lg_system *s, double t, const double *q, const double *qd,
                     const double *p, const int *independent, lg_linearization *res,
                     lg_diag *d) {
  const double *par = NULL;
  lg_status st = api_params(s, p, &par, d);
  api_lin r;
  if (st == LG_OK) st = api_lin_run(s, t, q, qd, par, independent, 0, &r, d);
  if (st != LG_OK) return st;
  size_t n = r.n, nx = r.nx, nr = r.nr;
  res->nx = nx;
  res->nr = nr;
  memcpy(res->A, r.A, nx * nx * sizeof *r.A);
  memcpy(res->x0, r.x0, nx * sizeof *r.x0);
  if (nr) {
    memcpy(res->B, r.B, nx * nr * sizeof *r.B);
    memcpy(res->r0, r.r0, nr * sizeof *r.r0);
  }
  state_of(&r, res->state);
  if (res->q) memcpy(res->q, r.q, n * sizeof *r.q);
  if (res->qd) memcpy(res->qd, r.qd, n * sizeof *r.qd);
  api_lin_free(&r);
  return LG_OK;
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
