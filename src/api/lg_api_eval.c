/* lg_api_eval.c - the equations at one state, or at many. Every call
 * evaluates into scratch memory of its own, taken from the system's pool
 * (lg_api_scratch.c): one system serves many threads at once, and a call
 * allocates nothing once the pool holds a scratch. */
#include "lg_api_internal.h"

#include <math.h>
#include <string.h>

/* Kane's accelerations: the time derivative of q' along the motion. */
static lg_status kane_accel(const lg_system *s, double t, const double *q, const double *qd,
                            const double *p, double *qdd, double *lam, lg_diag *d) {
  num_kane_result r;
  lg_status st = num_kane_evaluator_run(s->kev, p, t, q, qd, NULL, 0, &r, d);
  if (st != LG_OK) return st;
  memcpy(qdd, r.qdd, s->nq * sizeof *qdd);
  for (size_t k = 0; lam && k < s->nc; k++) lam[k] = NAN;
  num_kane_result_free(&r);
  return LG_OK;
}

static const char *file_of(const lg_system *s) { return s ? s->lm->file : NULL; }
static int line_of(const lg_system *s) { return s ? s->lm->coord_line : 0; }
static int col_of(const lg_system *s) { return s ? s->lm->coord_col : 0; }

/* The checks every entry makes, and a scratch with the call's parameter
 * values in the tape's inputs (*sc NULL when count is 0). */
static lg_status begin(const lg_system *s, size_t count, const double *q, const double *qd,
                       const void *res, const double *p, int accel, api_scratch **sc,
                       lg_diag *d) {
  *sc = NULL;
  if (!s || (count && (!q || !qd || !res))) {
    lg_diag_set(d, LG_ERR_USAGE, file_of(s), 0, 0,
                "a system, q, q' and an output are needed");
    return LG_ERR_USAGE;
  }
  const double *par = NULL;
  /* q'' alone compiles only what it needs (api_ready_accel) */
  lg_status st = api_params_accel(s, p, &par, d);
  /* every form: a large tree's from its links (api_eval_by_links), else
   * everything compiled */
  if (st == LG_OK && !accel && !api_eval_by_links(s)) st = api_params(s, p, &par, d);
  if (st != LG_OK || !count) return st;
  *sc = api_scratch_take(s);
  if (!*sc) return LG_ERR_NOMEM;
  memcpy((*sc)->w.in + 1 + 2 * s->nq, par, s->np * sizeof *par);
  (*sc)->par = par;
  return LG_OK;
}

lg_status api_solve_qdd(const lg_system *s, api_scratch *sc, double t, const double *q,
                        const double *qd, double *x, int evaluated, lg_diag *d) {
  if (s->num_tree && num_evaluate_tree(s->num_tree, &sc->w, t, q, qd, x)) return LG_OK;
  if (!evaluated) {
    /* the dense solve: the rest compiled (a large tree's q'' not finite) */
    lg_status st = api_ready(s, d);
    if (st == LG_OK && api_scratch_fit(s, sc) != LG_OK) st = LG_ERR_NOMEM;
    if (st != LG_OK) return st;
    num_evaluate_dynamics(s->num, &sc->w, t, q, qd);
  }
  return num_solve_accel(s->num, &sc->w, x, x + s->nq, d);
}

/* q'' (and lam when not NULL) at one state. */
static lg_status accel_one(const lg_system *s, api_scratch *sc, double t, const double *q,
                           const double *qd, double *qdd, double *lam, lg_diag *d) {
  if (s->method == LG_KANE) return kane_accel(s, t, q, qd, sc->par, qdd, lam, d);
  size_t n = s->nq, m = s->nc;
  lg_status st = api_solve_qdd(s, sc, t, q, qd, sc->x, 0, d);
  if (st != LG_OK) return st;
  memcpy(qdd, sc->x, n * sizeof *qdd);
  if (lam) memcpy(lam, sc->x + n, m * sizeof *lam);
  return LG_OK;
}

/* Everything else eval reports, from the evaluated tape. */
static void forms(const num_system *ns, const num_work *w, const double *qd,
                  const lg_eval_result *r) {
  size_t n = ns->n, m = ns->m;
  if (r->constraint_forces && r->lam) num_constraint_forces(ns, w, r->lam, r->constraint_forces);
  if (r->mass_matrix) num_mass_matrix(ns, w, r->mass_matrix);
  if (r->forcing) memcpy(r->forcing, w->out + ns->o_f, n * sizeof *r->forcing);
  if (r->mass_matrix_full) num_mass_matrix_full(ns, w, r->mass_matrix_full);
  if (r->forcing_full) num_forcing_full(ns, w, qd, r->forcing_full);
  if (r->momenta) memcpy(r->momenta, w->out + ns->o_p, n * sizeof *r->momenta);
  if (r->residuals) memcpy(r->residuals, w->out + ns->o_C, m * sizeof *r->residuals);
  if (r->T) *r->T = w->out[ns->o_T];
  if (r->V) *r->V = w->out[ns->o_V];
}

/* Every form of a large tree from its links (api_eval_by_links): q''
 * and the rest from one evaluation of the links' data; where q'' is not
 * finite, the dense solve's (and its diagnostic). No multipliers (m = 0). */
static lg_status eval_links(const lg_system *s, api_scratch *sc, double t, const double *q,
                            const double *qd, const lg_eval_result *r, lg_diag *d) {
  size_t n = s->nq, N = 2 * n;
  num_work *w = &sc->w;
  double *x = sc->x;
  /* M into the caller's [M] (m = 0), else the full form's from w->A */
  double *M = r->mass_matrix ? r->mass_matrix : r->mass_matrix_full ? w->A : NULL;
  num_links_forms o = {M, r->forcing ? r->forcing : r->forcing_full ? r->forcing_full + n : NULL,
                       r->momenta, r->T, r->V};
  w->in[0] = t;
  memcpy(w->in + 1, q, n * sizeof *q);
  memcpy(w->in + 1 + n, qd, n * sizeof *qd);
  int finite = num_links_eval(s->num_tree->links, w->in, w->slots, x, &o);
  if (r->mass_matrix_full) {
    double *F = r->mass_matrix_full;
    memset(F, 0, N * N * sizeof *F);
    for (size_t i = 0; i < n; i++) {
      F[i * N + i] = 1.0;
      memcpy(F + (n + i) * N + n, M + i * n, n * sizeof *F);
    }
  }
  if (r->forcing_full) {
    memcpy(r->forcing_full, qd, n * sizeof *qd);
    if (r->forcing) memcpy(r->forcing_full + n, r->forcing, n * sizeof *qd);
  }
  if (r->constraint_forces) memset(r->constraint_forces, 0, n * sizeof *x);
  /* (w->A is the dense solve's from here) */
  lg_status st = finite ? LG_OK : api_solve_qdd(s, sc, t, q, qd, x, 0, d);
  if (st == LG_OK && r->qdd) memcpy(r->qdd, x, n * sizeof *x);
  return st;
}

/* Every form at one state. J^T lam needs the multipliers even when the
 * caller wants only the forces: they are solved into sc->x. */
static lg_status eval_one(const lg_system *s, api_scratch *sc, double t, const double *q,
                          const double *qd, const lg_eval_result *r, lg_diag *d) {
  if (api_eval_by_links(s)) return eval_links(s, sc, t, q, qd, r, d);
  size_t n = s->nq, m = s->nc;
  double *x = sc->x;
  num_evaluate(s->num, &sc->w, t, q, qd);
  /* Kane's method has no multipliers: NaN, and so J^T lam */
  lg_status st = s->method == LG_KANE ? kane_accel(s, t, q, qd, sc->par, x, x + n, d)
                                      : api_solve_qdd(s, sc, t, q, qd, x, 1, d);
  if (st != LG_OK) return st;
  lg_eval_result all = *r;
  all.lam = x + n;
  forms(s->num, &sc->w, qd, &all);
  if (r->qdd) memcpy(r->qdd, x, n * sizeof *x);
  if (r->lam) memcpy(r->lam, x + n, m * sizeof *x);
  return LG_OK;
}

lg_status lg_eval_accel(const lg_system *s, double t, const double *q, const double *qd,
                        const double *p, double *qdd, double *lam, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  api_scratch *sc;
  lg_status st = begin(s, 1, q, qd, qdd, p, 1, &sc, d);
  if (st == LG_OK) st = accel_one(s, sc, t, q, qd, qdd, lam, d);
  if (sc) api_scratch_give(s, sc);
  return api_end(&c, st, file_of(s), line_of(s), col_of(s));
}

lg_status lg_eval(const lg_system *s, double t, const double *q, const double *qd,
                  const double *p, const lg_eval_result *r, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  api_scratch *sc;
  lg_status st = begin(s, 1, q, qd, r, p, 0, &sc, d);
  if (st == LG_OK) st = eval_one(s, sc, t, q, qd, r, d);
  if (sc) api_scratch_give(s, sc);
  return api_end(&c, st, file_of(s), line_of(s), col_of(s));
}

/* For a workspace (lg_api_work.c): one state with a scratch it holds, its
 * parameters already in the scratch's tape inputs. */
lg_status api_accel_in(const lg_system *s, api_scratch *sc, double t, const double *q,
                       const double *qd, double *qdd, double *lam, lg_diag *d) {
  return accel_one(s, sc, t, q, qd, qdd, lam, d);
}

lg_status api_eval_in(const lg_system *s, api_scratch *sc, double t, const double *q,
                      const double *qd, const lg_eval_result *r, lg_diag *d) {
  return eval_one(s, sc, t, q, qd, r, d);
}

/* ---- many states ------------------------------------------------------------------- */
/* Where each form sits in one record of lg_eval_many (the order of
 * lg_eval_result, documented in lagrange.h). */
static lg_eval_result record_at(size_t n, size_t m, double *rec) {
  size_t N = 2 * n + m;
  lg_eval_result r;
  r.qdd = rec;
  r.lam = r.qdd + n;
  r.constraint_forces = r.lam + m;
  r.mass_matrix = r.constraint_forces + n;
  r.forcing = r.mass_matrix + n * (n + m);
  r.mass_matrix_full = r.forcing + n;
  r.forcing_full = r.mass_matrix_full + N * N;
  r.momenta = r.forcing_full + N;
  r.residuals = r.momenta + n;
  r.T = r.residuals + m;
  r.V = r.T + 1;
  return r;
}

size_t lg_eval_record_size(const lg_system *s) {
  if (!s) return 0;
  size_t n = s->nq, m = s->nc, N = 2 * n + m;
  return 4 * n + 2 * m + n * (n + m) + N * N + N + 2;
}

/* A batch stops at its first failure: the diagnostic says which state. */
static void name_state(lg_diag *d, size_t k) {
  size_t len = strlen(d->message);
  if (len < sizeof d->message)
    snprintf(d->message + len, sizeof d->message - len, " (state %zu of the batch)", k);
}

lg_status lg_eval_many(const lg_system *s, size_t count, const double *t, const double *q,
                       const double *qd, const double *p, double *out, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  api_scratch *sc;
  lg_status st = begin(s, count, q, qd, out, p, 0, &sc, d);
  size_t n = s ? s->nq : 0, size = lg_eval_record_size(s);
  for (size_t k = 0; st == LG_OK && k < count; k++) {
    lg_eval_result r = record_at(n, s->nc, out + k * size);
    st = eval_one(s, sc, t ? t[k] : 0.0, q + k * n, qd + k * n, &r, d);
    if (st != LG_OK) name_state(d, k);
  }
  if (sc) api_scratch_give(s, sc);
  return api_end(&c, st, file_of(s), line_of(s), col_of(s));
}

lg_status lg_eval_accel_many(const lg_system *s, size_t count, const double *t,
                             const double *q, const double *qd, const double *p, double *qdd,
                             double *lam, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  api_scratch *sc;
  lg_status st = begin(s, count, q, qd, qdd, p, 1, &sc, d);
  size_t n = s ? s->nq : 0, m = s ? s->nc : 0;
  for (size_t k = 0; st == LG_OK && k < count; k++) {
    st = accel_one(s, sc, t ? t[k] : 0.0, q + k * n, qd + k * n, qdd + k * n,
                   lam ? lam + k * m : NULL, d);
    if (st != LG_OK) name_state(d, k);
  }
  if (sc) api_scratch_give(s, sc);
  return api_end(&c, st, file_of(s), line_of(s), col_of(s));
}

/* ---- packed: the fewest arguments ------------------------------------------------- */
lg_status lg_eval_packed(const lg_system *s, const double *x, double *out) {
  size_t n = s ? s->nq : 0;
  return lg_eval_many(s, 1, x, x ? x + 1 : NULL, x ? x + 1 + n : NULL, NULL, out, NULL);
}

lg_status lg_eval_accel_packed(const lg_system *s, const double *x, double *qdd) {
  size_t n = s ? s->nq : 0;
  return lg_eval_accel_many(s, 1, x, x ? x + 1 : NULL, x ? x + 1 + n : NULL, NULL, qdd, NULL,
                            NULL);
}
