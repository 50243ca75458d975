/* num_loop.c - bookkeeping shared by the ODE and DAE loops: the step
 * budget, the energy balance at output points, failure messages, and the
 * integrators' names. */
#include "num_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double budget_limit(const num_budget *b) {
  return (b->limit > 0 ? b->limit : NUM_MAX_PROJECTED) * (b->scale > 0 ? b->scale : 1);
}

int num_budget_add(num_budget *b, long steps, double t, double tf, double *h_avg) {
  b->steps += steps;
  if (b->steps < NUM_STEP_CHUNK) return 0;
  double h = (t - b->t_mark) / (double)b->steps;
  b->steps = 0;
  b->t_mark = t;
  *h_avg = h;
  if (!(b->h_first > 0)) b->h_first = h;
  return !(h > 0) || (tf - t) / h > budget_limit(b);
}

/* A collapse shrinks the step by orders of magnitude on the way to a
 * singular or stiff place; a long run keeps the step it started with. A
 * hundredfold is well beyond the variation of a smooth motion's steps. */
int num_budget_too_long(const num_budget *b, double t, double tf, double h, int stiff_possible,
                        char *cause, size_t size, char *hint, size_t hint_size) {
  if (!(h > 0) || !(b->h_first > 0) || h < 1e-2 * b->h_first) return 0;
  snprintf(cause, size, "reaching t = %.6g at steps of about h = %.3g (steady since the start) "
                        "would take %.3g more steps, more than the limit of %.3g: the run is "
                        "long for its tolerance%s", tf, h, (tf - t) / h, budget_limit(b),
           stiff_possible ? ", or the motion is stiff" : "");
  snprintf(hint, hint_size, "raise the limit with `max_steps` N, shorten the run (`tf`), or "
                            "loosen `rtol`/`atol` for larger steps%s",
           stiff_possible ? "; for a stiff motion try `integrator` bdf" : "");
  return 1;
}

void num_tally(num_sim_stats *st, const num_sim_point *p, const double *Cd, size_t m,
               double *ref, int *have_ref) {
  double balance = p->E - p->W;
  if (!*have_ref) {
    *ref = balance;
    *have_ref = 1;
  }
  double drift = fabs(balance - *ref);
  if (drift > st->max_energy_drift || isnan(drift)) st->max_energy_drift = drift;
  /* |T| + |V| too: E may stay near 0 while T and V trade large amounts */
  double scale = fmax(fabs(p->T) + fabs(p->V), fmax(fabs(p->E), fabs(p->W)));
  st->energy_scale = fmax(st->energy_scale, scale);
  for (size_t r = 0; r < m; r++) {
    double a = fmax(fabs(p->C[r]), fabs(Cd[r]));
    if (a > st->max_residual || isnan(a)) st->max_residual = a;
  }
}

void num_fail(lg_diag *d, num_sim_stats *st, double t, const char *cause, const char *hint) {
  char c[sizeof d->message], h[sizeof d->hint];
  snprintf(c, sizeof c, "%s", cause); /* cause and hint may live in d */
  snprintf(h, sizeof h, "%s", hint ? hint : "");
  st->t_end = t;
  lg_diag_clear(d);
  lg_diag_set(d, LG_ERR_NUMERIC, NULL, 0, 0, "the integration failed at t = %.10g (%s): %s",
              t, num_integrator_name(st->integrator), c);
  if (h[0]) lg_diag_hint(d, "%s", h);
}

int num_is_erk(num_integrator i) {
  return i == NUM_INT_ERK || i == NUM_INT_DOPRI || i == NUM_INT_VERNER ||
         i == NUM_INT_FEHLBERG;
}

/* Measured on the Kepler orbit, the double pendulum and the 3-link chain
 * (bench/RESULTS.md, "Moved from the README"): above 1e-11 Dormand-Prince
 * (with dense output) needs about half the right-hand sides of Fehlberg
 * 8(7); from 1e-12 on Fehlberg is as cheap or cheaper and 10-100x more accurate. */
num_integrator num_erk_for_tolerance(double rtol) {
  return rtol <= 1e-11 ? NUM_INT_FEHLBERG : NUM_INT_DOPRI;
}

/* The default for an ODE (NUM_INT_ODE). Measured on the chains of bench/
 * (n = 3, 12) and seven examples, 10 s, error at t = 10 against Fehlberg
 * at 1e-13 (bench/RESULTS.md, "Moved from the README"): CVODE's
 * Adams-Moulton, run at a tolerance 100 times tighter than asked, errs
 * about as much as or less than Dormand-Prince at the asked tolerance (within 4x on the worst
 * example, 60x less on the 12-link chain) with 2.5 to 13 times fewer
 * right-hand sides (one or two per step, high orders). But its step costs
 * CVODE about 2-3 us of bookkeeping (the Nordsieck history, order and step
 * selection), which a cheap right-hand side does not repay: 200 s of the
 * cart pendulum (25 tape instructions) take 2.6x Dormand-Prince's CPU time,
 * the double pendulum (109) and the free rigid body (137) the same, the
 * 3-link chain (101) 0.9x, the 6-link (369) 0.7x, the 12-link (1,419)
 * 0.5x. Below 1e-11 its tightened tolerance would near round-off, and
 * Fehlberg 8(7) is the choice; above 1e-6 Dormand-Prince is as cheap. */
static const double ADAMS_FROM = 1e-6, ADAMS_TO = 1e-11, ADAMS_TIGHTER = 100;
static const size_t ADAMS_MIN_COST = 100;

num_integrator num_resolve_integrator(num_integrator i, double rtol, int projects, size_t cost) {
  if (i == NUM_INT_ODE)
    return rtol <= ADAMS_FROM && rtol > ADAMS_TO && !projects && cost >= ADAMS_MIN_COST
               ? NUM_INT_ADAMS
               : num_erk_for_tolerance(rtol);
  return i == NUM_INT_ERK ? num_erk_for_tolerance(rtol) : i;
}

double num_tolerance_scale(num_integrator asked, num_integrator resolved) {
  return asked == NUM_INT_ODE && resolved == NUM_INT_ADAMS ? 1 / ADAMS_TIGHTER : 1;
}

/* IDA's BDF steps keep their local error within the tolerance, but over
 * a run of a constrained model the errors add up to some 10-300 times it
 * (the four-bar at rtol = atol = 1e-10: 3.2e-8 of its largest rate after
 * 2 s, against a run at 1e-13; bench/accuracy.py). Run at 1/10 of the
 * asked tolerance, so that the error is within 100 times the one asked
 * for (the four-bar: 2.2e-9; 4.2e-9 with its crank three times faster),
 * at about the same cost. Not 1/100: at 1e-12 a motion that runs into a
 * singular configuration (tests/cli/sim/shrinking_rod.lag) creeps up to
 * it at steps of 5e-8 until the step budget ends it, instead of the step
 * collapse that names the constraint. Never tighter than 1e-13, where
 * double precision ends. */
static const double IDA_TIGHTER = 10, IDA_FLOOR = 1e-13;

double num_ida_tolerance(double tol) { return fmin(tol, fmax(tol / IDA_TIGHTER, IDA_FLOOR)); }

const char *num_integrator_name(num_integrator i) {
  switch (i) {
  case NUM_INT_DOPRI: return "ARKODE Dormand-Prince 5(4)";
  case NUM_INT_VERNER: return "ARKODE Verner 6(5)";
  case NUM_INT_FEHLBERG: return "ARKODE Fehlberg 8(7)";
  case NUM_INT_BDF: return "CVODE BDF";
  case NUM_INT_ADAMS: return "CVODE Adams";
  case NUM_INT_IDA: return "IDA";
  default: return "ARKODE explicit Runge-Kutta";
  }
}
