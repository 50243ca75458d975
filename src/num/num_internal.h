/* num_internal.h - pieces shared by the ODE loop (num_simulate.c) and the
 * DAE loop (num_ida.c). */
#ifndef LG_NUM_INTERNAL_H
#define LG_NUM_INTERNAL_H

#include "num.h"

#include <sundials/sundials_nvector.h>

/* Steps between two output points before the loop asks whether the run
 * still makes progress: if the steps of the last chunk, continued, would
 * need more than the limit (num_sim_opts.max_steps, default
 * NUM_MAX_PROJECTED) to reach tf, the run stops with a message instead of
 * grinding: either the step size has collapsed, or the run is too long
 * for the step size its tolerance needs. */
enum { NUM_STEP_CHUNK = 5000 };
#define NUM_MAX_PROJECTED 2e7

typedef struct num_budget {
  long steps;      /* since the last check */
  double t_mark;   /* time at the last check */
  double scale;    /* the limit times this (0: 1): Adams takes 3-5x more,
                      much cheaper steps than Runge-Kutta */
  double limit;    /* projected steps allowed (0: NUM_MAX_PROJECTED) */
  double h_first;  /* the mean step of the first chunk (0: not yet) */
} num_budget;

/* Count steps that reached t; nonzero when reaching tf would take more
 * steps than the limit (h_avg set to the mean step of the last chunk). */
int num_budget_add(num_budget *b, long steps, double t, double tf, double *h_avg);
/* After num_budget_add said so: when the step size h has not shrunk much
 * since the first chunk, nothing collapsed: the run is long for the limit
 * at its tolerance (or, for an integrator that is not made for stiff
 * motion, stiff: stiff_possible). cause and hint then get messages that
 * say so, with how many steps it would take and the option that raises
 * the limit; returns 0 (a collapse) otherwise. */
int num_budget_too_long(const num_budget *b, double t, double tf, double h, int stiff_possible,
                        char *cause, size_t size, char *hint, size_t hint_size);

/* Energy balance and residual bookkeeping at an output point: ref holds
 * E0 - W0 after the first call (set *have_ref = 0 before it). */
void num_tally(num_sim_stats *st, const num_sim_point *p, const double *Cd, size_t m,
               double *ref, int *have_ref);

/* The failure message: "the integration failed at t = ... (INTEGRATOR):
 * CAUSE" with a hint. */
void num_fail(lg_diag *d, num_sim_stats *st, double t, const char *cause, const char *hint);

/* Replace a serial vector's LinearSum and WRMSNorm (num_nvector.c) by
 * versions with the same results and without the call overhead; clones
 * (the integrators' work vectors) inherit them. */
void num_lean_vector_ops(N_Vector y);

/* Wall-clock-free ordering of the ERK tables. */
int num_is_erk(num_integrator i);

#endif
