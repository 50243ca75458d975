/* lg_api_eval.c - the equations at one state. Every call evaluates into
 * scratch memory of its own: one system serves many threads at once. */
#include "lg_api_internal.h"

#include <math.h>
#include <string.h>

/* Scratch for one evaluation of the compiled Lagrange equations, with
 * the call's parameter values in the tape's inputs. */
static lg_status work_for(const num_system *ns, const double *p, num_work *w) {
  if (num_work_init(ns, w) != LG_OK) return LG_ERR_NOMEM;
  memcpy(w->in + 1 + 2 * ns->n, p, ns->np * sizeof *p);
  return LG_OK;
}

/* Kane's accelerations: the time derivative of q' along the motion. */
static lg_status kane_accel(const lg_system *s, double t, const double *q, const double *qd,
                            const double *p, double *qdd, double *lam, lg_diag *d) {
  num_kane_result r;
  lg_status st = num_kane_evaluator_run(s->kev, p, t, q, qd, NULL, 0, &r, d);
  if (st != LG_OK) return st;
  memcpy(qdd, r.qdd, s->num->n * sizeof *qdd);
  for (size_t k = 0; lam && k < s->num->m; k++) lam[k] = NAN;
  num_kane_result_free(&r);
  return LG_OK;
}

static lg_status check_args(const lg_system *s, const double *q, const double *qd,
                            const void *res, lg_diag *d) {
  if (s && q && qd && res) return LG_OK;
  lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
              "a system, q, q' and an output are needed");
  return LG_ERR_USAGE;
}

static const char *file_of(const lg_system *s) { return s ? s->lm->file : NULL; }
static int line_of(const lg_system *s) { return s ? s->lm->coord_line : 0; }
static int col_of(const lg_system *s) { return s ? s->lm->coord_col : 0; }

lg_status lg_eval_accel(const lg_system *s, double t, const double *q, const double *qd,
                        const double *p, double *qdd, double *lam, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  lg_status st = check_args(s, q, qd, qdd, d);
  const double *par = NULL;
  if (st == LG_OK) st = api_params(s, p, &par, d);
  if (st == LG_OK && s->method == LG_KANE) {
    st = kane_accel(s, t, q, qd, par, qdd, lam, d);
  } else if (st == LG_OK) {
    num_work w;
    st = work_for(s->num, par, &w);
    if (st == LG_OK) {
      num_evaluate_dynamics(s->num, &w, t, q, qd);
      st = num_solve_accel(s->num, &w, qdd, lam, d);
      num_work_free(&w);
    }
  }
  return api_end(&c, st, file_of(s), line_of(s), col_of(s));
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

static lg_status eval_all(const lg_system *s, double t, const double *q, const double *qd,
                          const double *par, const lg_eval_result *r, lg_diag *d) {
  size_t n = s->num->n, m = s->num->m;
  num_work w;
  lg_status st = work_for(s->num, par, &w);
  if (st != LG_OK) return st;
  /* J^T lam needs the multipliers even when the caller wants only forces */
  double *qdd = lg_malloc((n + 1) * sizeof *qdd), *lam = lg_malloc((m + 1) * sizeof *lam);
  if (!qdd || !lam) st = LG_ERR_NOMEM;
  if (st == LG_OK) {
    num_evaluate(s->num, &w, t, q, qd);
    /* Kane's method has no multipliers: NaN, and so J^T lam */
    if (s->method == LG_KANE) st = kane_accel(s, t, q, qd, par, qdd, lam, d);
    else st = num_solve_accel(s->num, &w, qdd, lam, d);
  }
  if (st == LG_OK) {
    lg_eval_result all = *r;
    all.lam = lam;
    forms(s->num, &w, qd, &all);
    if (r->qdd) memcpy(r->qdd, qdd, n * sizeof *qdd);
    if (r->lam) memcpy(r->lam, lam, m * sizeof *lam);
  }
  lg_free(qdd);
  lg_free(lam);
  num_work_free(&w);
  return st;
}

lg_status lg_eval(const lg_system *s, double t, const double *q, const double *qd,
                  const double *p, const lg_eval_result *r, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  lg_status st = check_args(s, q, qd, r, d);
  const double *par = NULL;
  if (st == LG_OK) st = api_params(s, p, &par, d);
  if (st == LG_OK) st = eval_all(s, t, q, qd, par, r, d);
  return api_end(&c, st, file_of(s), line_of(s), col_of(s));
}
