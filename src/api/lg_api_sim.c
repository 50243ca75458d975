/* lg_api_sim.c - integration over time, as `lagrange simulate` does it. */
#include "lg_api_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* An initial state further off a constraint than this is refused. */
static const double CONSISTENT_TOL = 1e-9;

void lg_sim_options_default(const lg_system *s, lg_sim_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->t0 = s ? s->lm->t0 : 0;
  o->tf = s ? s->lm->tf : 10;
  o->dt = s ? s->lm->dt : 0.01;
  o->rtol = o->atol = 1e-10;
  o->integrator = LG_INT_AUTO;
  o->stabilize = LG_STAB_PROJECT;
  o->max_rows = LG_SIM_MAX_ROWS;
}

/* A usage error about an option, named in the caller's terms: the fields
 * of lg_sim_options, which are also Model.simulate's arguments. */
static lg_status bad_option(const lg_system *s, lg_diag *d, const char *hint, const char *fmt,
                            ...) __attribute__((format(printf, 4, 5)));
static lg_status bad_option(const lg_system *s, lg_diag *d, const char *hint, const char *fmt,
                            ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lg_diag_set(d, LG_ERR_USAGE, s->lm->file, 0, 0, "simulation options: %s", msg);
  if (hint) lg_diag_hint(d, "%s", hint);
  return LG_ERR_USAGE;
}

/* Every option in range, before anything runs: an infinite or NaN time
 * would run forever (or not at all), and the output is bounded as the
 * command's (`simulate --max-rows`). */
static lg_status check_options(const lg_system *s, const lg_sim_options *o, lg_diag *d) {
  const struct { const char *name; double v; } times[] = {{"t0", o->t0}, {"tf", o->tf},
                                                         {"dt", o->dt}};
  for (size_t i = 0; i < sizeof times / sizeof *times; i++)
    if (!isfinite(times[i].v))
      return bad_option(s, d, NULL, "%s must be a finite number, not %g",
                        times[i].name, times[i].v);
  if (!(o->tf > o->t0))
    return bad_option(s, d, "the run goes from t0 to a later tf",
                      "tf (%g) must be greater than t0 (%g)", o->tf, o->t0);
  if (!(o->dt > 0)) return bad_option(s, d, NULL, "dt must be positive, not %g", o->dt);
  if (!(o->rtol > 0 && o->atol > 0 && isfinite(o->rtol) && isfinite(o->atol)))
    return bad_option(s, d, NULL, "rtol and atol must be positive finite numbers, not %g and %g",
                      o->rtol, o->atol);
  if ((unsigned)o->stabilize > LG_STAB_NONE || (unsigned)o->integrator > LG_INT_ADAMS)
    return bad_option(s, d, "use the values of lg_integrator and lg_stabilize",
                      "unknown integrator (%d) or stabilization (%d)", (int)o->integrator,
                      (int)o->stabilize);
  if (!(o->max_steps >= 0) || !isfinite(o->max_steps))
    return bad_option(s, d, NULL, "max_steps must be a finite number >= 0, not %g", o->max_steps);
  if (o->stabilize == LG_STAB_BAUMGARTE && !(isfinite(o->alpha) && isfinite(o->beta)))
    return bad_option(s, d, NULL, "Baumgarte's alpha and beta must be finite, not %g and %g",
                      o->alpha, o->beta);
  size_t limit = o->max_rows ? o->max_rows : LG_SIM_MAX_ROWS;
  double rows = ceil((o->tf - o->t0) / o->dt) + 1; /* inf when tf - t0 overflows */
  if (!(rows <= (double)limit))
    return bad_option(s, d, "raise max_rows, or use a larger dt",
                      "this run would give %.15g rows (t = %g to %g every %g), more than "
                      "the limit max_rows = %zu", rows, o->t0, o->tf, o->dt, limit);
  return LG_OK;
}

static lg_status to_num_options(const lg_system *s, const lg_sim_options *o,
                                num_sim_opts *so, lg_diag *d) {
  memset(so, 0, sizeof *so);
  lg_status st = check_options(s, o, d);
  if (st != LG_OK) return st;
  so->t0 = o->t0;
  so->tf = o->tf;
  so->dt = o->dt;
  so->rtol = o->rtol;
  so->atol = o->atol;
  so->alpha = o->alpha;
  so->max_steps = o->max_steps;
  so->beta = o->beta;
  static const num_stabilize stab[] = {NUM_STAB_PROJECT, NUM_STAB_BAUMGARTE, NUM_STAB_NONE};
  static const num_integrator integ[] = {NUM_INT_ODE,    NUM_INT_DOPRI, NUM_INT_BDF,
                                         NUM_INT_IDA,    NUM_INT_ERK,   NUM_INT_VERNER,
                                         NUM_INT_FEHLBERG, NUM_INT_ADAMS};
  so->stabilize = stab[o->stabilize];
  so->integrator = integ[o->integrator];
  /* as simulate: IDA for a constrained model unless a stabilization of the
   * ODE is asked for; Kane's [q; u] has no algebraic part */
  if (o->integrator == LG_INT_AUTO && s->nc && o->stabilize == LG_STAB_PROJECT &&
      !s->ks)
    so->integrator = NUM_INT_IDA;
  return LG_OK;
}

/* Refuse an initial state off the constraints, or move it onto them. */
static lg_status check_initial(const lg_system *s, const num_system *ns, int project,
                               double t0, double *q, double *qd, lg_diag *d) {
  size_t m = ns->m;
  if (!m) return LG_OK;
  num_work w;
  if (num_work_init(ns, &w) != LG_OK) return LG_ERR_NOMEM;
  double *C = lg_calloc(2 * m, sizeof *C);
  int *bad = lg_calloc(m, sizeof *bad);
  lg_status st = C && bad ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK && project) st = num_project(ns, &w, t0, q, qd, 1e-12, d);
  if (st == LG_OK && num_check_consistent(ns, &w, t0, q, qd, CONSISTENT_TOL, C, C + m, bad)) {
    size_t r = 0;
    while (!bad[r]) r++;
    const mech_eom *e = s->eom;
    lg_diag_set(d, LG_ERR_MODEL, s->lm->file, e->row_line[r], e->row_col[r],
                "the initial %s violate constraint C%zu: %s = %.6g",
                bad[r] & 1 ? "state" : "velocities", r + 1,
                bad[r] & 1 ? "its value" : "its velocity form", bad[r] & 1 ? C[r] : C[m + r]);
    lg_diag_hint(d, "set lg_sim_options.project to move it onto the constraints");
    st = LG_ERR_MODEL;
  }
  lg_free(C);
  lg_free(bad);
  num_work_free(&w);
  return st;
}

/* The exact Jacobian of the simulated equations, compiled once (NULL
 * when it cannot be: the integrator then uses difference quotients, as
 * the command does). */
static lg_status sim_jacobian(const lg_system *s, const num_lin **out, lg_diag *d) {
  lg_system *mut = (lg_system *)s;
  pthread_mutex_lock(&mut->lock);
  if (!mut->sim_lin) {
    lg_diag local;
    lg_diag_clear(&local);
    const mech_eom *e = s->kane_eom ? s->kane_eom : s->eom;
    if (num_lin_build(s->lm->mech, e, s->sim, s->dummy, s->ndummy, &mut->sim_lin, &local) !=
        LG_OK)
      mut->sim_lin = NULL;
  }
  *out = mut->sim_lin;
  pthread_mutex_unlock(&mut->lock);
  (void)d;
  return LG_OK;
}

/* The caller's callback over the layer's output points. */
typedef struct relay {
  lg_sim_callback cb;
  void *ud;
} relay;

static int relay_point(void *ud, const num_sim_point *p) {
  const relay *r = ud;
  lg_sim_point pt = {p->t, p->q, p->qd, p->T, p->V, p->E, p->W, p->C};
  return r->cb(r->ud, &pt);
}

/* The energy balance with the call's parameters (tapes shared). */
static num_aux aux_for(const lg_system *s, const double *par) {
  num_aux a = *s->aux;
  a.params = (double *)par;
  return a;
}

/* Kane's own state [q; u] (every speed when some are dependent): the
 * initial speeds come from q' through the kinematical equations. */
static lg_status simulate_kane(const lg_system *s, const num_sim_opts *so, double *q,
                               double *qd, const double *par, relay *rl,
                               num_sim_stats *stats, lg_diag *d) {
  num_kane_result r;
  lg_status st = num_kane_evaluator_run(s->kev, par, so->t0, q, qd, NULL, 0, &r, d);
  if (st != LG_OK) return st;
  double *u0 = lg_calloc(s->ks->p + 1, sizeof *u0);
  if (u0) {
    num_kane_initial_speeds(s->kane, &r, u0);
    num_kane_system ks = *s->ks; /* the tapes shared, the parameters the call's */
    ks.params = (double *)par;
    st = num_simulate_kane(&ks, so, q, u0, relay_point, rl, stats, d);
  } else {
    st = LG_ERR_NOMEM;
  }
  lg_free(u0);
  num_kane_result_free(&r);
  return st;
}

static lg_status simulate(const lg_system *s, const lg_sim_options *o, double *q,
                          double *qd, const double *par, relay *rl, num_sim_stats *stats,
                          lg_diag *d) {
  num_sim_opts so;
  lg_status st = to_num_options(s, o, &so, d);
  if (st != LG_OK) return st;
  num_aux aux = aux_for(s, par);
  so.aux = &aux;
  if (s->ks) return simulate_kane(s, &so, q, qd, par, rl, stats, d);
  num_system ns = *s->sim; /* the tapes shared, the parameters the call's */
  ns.params = (double *)par;
  /* BDF and IDA take the exact Jacobian, as the command's simulate */
  const num_lin *L = NULL;
  num_lin jac;
  if ((so.integrator == NUM_INT_BDF || so.integrator == NUM_INT_IDA) &&
      so.stabilize != NUM_STAB_BAUMGARTE && sim_jacobian(s, &L, d) == LG_OK && L) {
    jac = *L;
    jac.s = &ns;
    so.jac = &jac;
  }
  st = check_initial(s, &ns, o->project, so.t0, q, qd, d);
  if (st == LG_OK) st = num_simulate(&ns, &so, q, qd, relay_point, rl, stats, d);
  return st;
}

static int no_output(void *ud, const lg_sim_point *p) {
  (void)ud, (void)p;
  return 0;
}

lg_status lg_simulate(const lg_system *s, const lg_sim_options *o, const double *q0,
                      const double *qd0, const double *p, lg_sim_callback cb, void *ud,
                      lg_sim_stats *stats, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (!s) {
    lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "lg_simulate: a system is needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  lg_sim_options def;
  if (!cb) cb = no_output;
  if (!o) {
    lg_sim_options_default(s, &def);
    o = &def;
  }
  size_t n = s->nq;
  const double *par = NULL;
  double *x = lg_calloc(2 * n + 1, sizeof *x);
  lg_status st = x ? api_params(s, p, &par, d) : LG_ERR_NOMEM;
  num_sim_stats ns;
  memset(&ns, 0, sizeof ns);
  if (st == LG_OK) {
    memcpy(x, q0 ? q0 : s->lm->q0, n * sizeof *x);
    memcpy(x + n, qd0 ? qd0 : s->lm->qd0, n * sizeof *x);
    relay rl = {cb, ud};
    st = simulate(s, o, x, x + n, par, &rl, &ns, d);
  }
  lg_free(x);
  if (stats) {
    stats->steps = ns.steps;
    stats->rhs_evals = ns.rhs_evals;
    stats->t_end = ns.t_end;
    stats->max_energy_drift = ns.max_energy_drift;
    stats->max_residual = ns.max_residual;
  }
  return api_end(&c, st, s->lm->file, s->lm->coord_line, s->lm->coord_col);
}
