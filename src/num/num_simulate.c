/* num_simulate.c - integrating x = [q; q'] with SUNDIALS.
 *
 * ARKODE ERKStep (Dormand-Prince 5(4)) for non-stiff problems, CVODE BDF
 * for stiff ones. Constrained models are stabilized by projecting q and
 * q' back onto the manifold after every internal step (the integrator is
 * then reset at the projected state: both are one-step-consistent), or by
 * Baumgarte's terms in the acceleration constraint. */
#include "num.h"

#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

typedef struct sim {
  const num_system *s;
  const num_sim_opts *o;
  num_work w;
  double *qdd, *lam, *C, *Cd;
  lg_diag *diag;
  int failed;
  double fail_t;
  void *mem;
  num_sim_stats *stats;
  SUNContext ctx;
  N_Vector y;
} sim;

/* Baumgarte: J q'' = gc - 2 alpha C' - beta^2 C (holonomic), gc - alpha C (else) */
static void baumgarte(sim *S) {
  const num_system *s = S->s;
  double *out = S->w.out;
  for (size_t r = 0; r < s->m; r++) {
    double C = out[s->o_C + r], Cd = out[s->o_Cd + r];
    out[s->o_gc + r] -= s->row_holonomic[r]
                            ? 2 * S->o->alpha * Cd + S->o->beta * S->o->beta * C
                            : S->o->alpha * C;
  }
}

/* The compiled right-hand side: one call, no tape, no LAPACK. */
static int rhs_jit(sim *S, double t, const double *x, double *dx) {
  if (S->o->jit_rhs(t, x, NULL, S->s->params, dx) == 0) return 0;
  if (!S->failed) {
    S->failed = 1;
    S->fail_t = t;
    lg_diag_set(S->diag, LG_ERR_NUMERIC, NULL, 0, 0, "the mass matrix is singular");
  }
  return -1;
}

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud) {
  sim *S = ud;
  size_t n = S->s->n;
  const double *x = N_VGetArrayPointer(y);
  double *dx = N_VGetArrayPointer(ydot);
  if (S->o->jit_rhs && S->o->stabilize != NUM_STAB_BAUMGARTE) return rhs_jit(S, t, x, dx);
  num_evaluate_dynamics(S->s, &S->w, t, x, x + n);
  if (S->o->stabilize == NUM_STAB_BAUMGARTE) baumgarte(S);
  lg_diag d;
  lg_diag_clear(&d);
  if (num_solve_accel(S->s, &S->w, S->qdd, S->lam, &d) != LG_OK) {
    if (!S->failed) {
      S->failed = 1;
      S->fail_t = t;
      *S->diag = d;
    }
    return -1; /* unrecoverable */
  }
  memcpy(dx, x + n, n * sizeof *dx);
  memcpy(dx + n, S->qdd, n * sizeof *dx);
  return 0;
}

/* ---- integrator set-up ------------------------------------------------------------- */
static int setup(sim *S, double t0) {
  if (S->o->integrator == NUM_INT_DOPRI) {
    S->mem = ERKStepCreate(rhs, t0, S->y, S->ctx);
    if (!S->mem) return 0;
    ERKStepSetTableNum(S->mem, ARKODE_DORMAND_PRINCE_7_4_5);
    ERKStepSStolerances(S->mem, S->o->rtol, S->o->atol);
    ERKStepSetUserData(S->mem, S);
    ERKStepSetMaxNumSteps(S->mem, 1000000);
    ERKStepSetErrFile(S->mem, NULL);
    return 1;
  }
  S->mem = CVodeCreate(CV_BDF, S->ctx);
  if (!S->mem || CVodeInit(S->mem, rhs, t0, S->y) != CV_SUCCESS) return 0;
  CVodeSStolerances(S->mem, S->o->rtol, S->o->atol);
  CVodeSetUserData(S->mem, S);
  CVodeSetMaxNumSteps(S->mem, 1000000);
  CVodeSetErrFile(S->mem, NULL);
  return 1;
}

static int step_to(sim *S, double tout, double *t) {
  if (S->o->integrator == NUM_INT_DOPRI) {
    ERKStepSetStopTime(S->mem, tout);
    return ERKStepEvolve(S->mem, tout, S->y, t, ARK_ONE_STEP);
  }
  CVodeSetStopTime(S->mem, tout);
  return CVode(S->mem, tout, S->y, t, CV_ONE_STEP);
}

static void collect_stats(sim *S, num_sim_stats *st);

/* CVodeReInit zeroes CVODE's counters: bank them first. */
static void restart(sim *S, double t) {
  if (S->o->integrator == NUM_INT_DOPRI) {
    ERKStepReset(S->mem, t, S->y);
    return;
  }
  collect_stats(S, S->stats);
  CVodeReInit(S->mem, t, S->y);
}

static void free_integrator(sim *S) {
  if (!S->mem) return;
  if (S->o->integrator == NUM_INT_DOPRI) ERKStepFree(&S->mem);
  else CVodeFree(&S->mem);
}

static void collect_stats(sim *S, num_sim_stats *st) {
  long nst = 0, nf = 0;
  if (S->o->integrator == NUM_INT_DOPRI) {
    ERKStepGetNumSteps(S->mem, &nst);
    ERKStepGetNumRhsEvals(S->mem, &nf);
  } else {
    CVodeGetNumSteps(S->mem, &nst);
    CVodeGetNumRhsEvals(S->mem, &nf);
  }
  st->steps += nst;
  st->rhs_evals += nf;
}

/* ---- the loop ---------------------------------------------------------------------- */
static int emit(sim *S, double t, num_sim_output out, void *ud, num_sim_stats *st, double E0) {
  size_t n = S->s->n, m = S->s->m;
  const double *x = N_VGetArrayPointer(S->y);
  num_evaluate(S->s, &S->w, t, x, x + n); /* all outputs: T and V too */
  memcpy(S->C, S->w.out + S->s->o_C, m * sizeof *S->C);
  memcpy(S->Cd, S->w.out + S->s->o_Cd, m * sizeof *S->Cd);
  double T = S->w.out[S->s->o_T], V = S->w.out[S->s->o_V];
  double drift = fabs(T + V - E0);
  if (drift > st->max_energy_drift || isnan(drift)) st->max_energy_drift = drift;
  for (size_t r = 0; r < m; r++) {
    double a = fmax(fabs(S->C[r]), fabs(S->Cd[r]));
    if (a > st->max_residual || isnan(a)) st->max_residual = a;
  }
  return out ? out(ud, t, x, x + n, T, V, S->C) : 0;
}

static int state_finite(const sim *S) {
  const double *x = N_VGetArrayPointer(S->y);
  for (size_t i = 0; i < 2 * S->s->n; i++)
    if (!isfinite(x[i]) || fabs(x[i]) > 1e100) return 0;
  return 1;
}

static lg_status run(sim *S, num_sim_output out, void *ud, num_sim_stats *st) {
  const num_sim_opts *o = S->o;
  size_t n = S->s->n;
  double t = o->t0, E0;
  double *x = N_VGetArrayPointer(S->y);
  num_evaluate(S->s, &S->w, t, x, x + n);
  E0 = S->w.out[S->s->o_T] + S->w.out[S->s->o_V];
  if (emit(S, t, out, ud, st, E0)) return LG_OK;
  long k = 1;
  int project = S->s->m && o->stabilize == NUM_STAB_PROJECT;
  while (t < o->tf - 1e-12 * fabs(o->tf)) {
    double tout = fmin(o->t0 + (double)k * o->dt, o->tf);
    int flag = step_to(S, tout, &t);
    if (flag < 0 || S->failed || !state_finite(S)) {
      if (!S->failed) {
        lg_diag_set(S->diag, LG_ERR_NUMERIC, NULL, 0, 0,
                    "the integration failed at t = %.10g (%s)", t,
                    flag < 0 ? "the step size collapsed: the solution may blow up"
                             : "the state is no longer finite");
      } else {
        char msg[sizeof S->diag->message + 64];
        snprintf(msg, sizeof msg, "at t = %.10g: %s", S->fail_t, S->diag->message);
        memcpy(S->diag->message, msg, sizeof S->diag->message - 1);
        S->diag->message[sizeof S->diag->message - 1] = 0;
      }
      st->t_end = t;
      return LG_ERR_NUMERIC;
    }
    if (project) {
      lg_diag d;
      lg_diag_clear(&d);
      num_project(S->s, &S->w, t, x, x + n, 1e-12, &d);
      restart(S, t);
    }
    if (t >= tout - 1e-12 * fmax(1, fabs(tout))) {
      k++;
      if (emit(S, t, out, ud, st, E0)) break;
    }
  }
  st->t_end = t;
  return LG_OK;
}

lg_status num_simulate(const num_system *s, const num_sim_opts *o, double *q, double *qd,
                       num_sim_output out, void *ud, num_sim_stats *stats, lg_diag *diag) {
  memset(stats, 0, sizeof *stats);
  if (o->integrator == NUM_INT_IDA)
    return s->m ? num_simulate_ida(s, o, q, qd, out, ud, stats, diag)
                : num_simulate(s, &(num_sim_opts){.t0 = o->t0, .tf = o->tf, .dt = o->dt,
                                                  .rtol = o->rtol, .atol = o->atol,
                                                  .integrator = NUM_INT_BDF},
                               q, qd, out, ud, stats, diag);
  sim S = {.s = s, .o = o, .diag = diag, .stats = stats};
  size_t n = s->n, m = s->m;
  lg_status st = LG_ERR_NOMEM;
  if (num_work_init(s, &S.w) != LG_OK) return st;
  S.qdd = lg_calloc(2 * n + 2 * m + 1, sizeof *S.qdd);
  if (!S.qdd || SUNContext_Create(NULL, &S.ctx) != 0) goto done;
  S.lam = S.qdd + n;
  S.C = S.lam + m;
  S.Cd = S.C + m;
  S.y = N_VNew_Serial((sunindextype)(2 * n), S.ctx);
  if (!S.y) goto done;
  memcpy(N_VGetArrayPointer(S.y), q, n * sizeof *q);
  memcpy(N_VGetArrayPointer(S.y) + n, qd, n * sizeof *qd);
  if (!setup(&S, o->t0)) goto done;
  if (o->integrator == NUM_INT_BDF) {
    SUNMatrix A = SUNDenseMatrix((sunindextype)(2 * n), (sunindextype)(2 * n), S.ctx);
    SUNLinearSolver LS = SUNLinSol_Dense(S.y, A, S.ctx);
    CVodeSetLinearSolver(S.mem, LS, A);
    st = run(&S, out, ud, stats);
    collect_stats(&S, stats);
    free_integrator(&S);
    SUNLinSolFree(LS);
    SUNMatDestroy(A);
  } else {
    st = run(&S, out, ud, stats);
    collect_stats(&S, stats);
  }
  memcpy(q, N_VGetArrayPointer(S.y), n * sizeof *q);
  memcpy(qd, N_VGetArrayPointer(S.y) + n, n * sizeof *qd);
done:
  free_integrator(&S);
  if (S.y) N_VDestroy(S.y);
  if (S.ctx) SUNContext_Free(&S.ctx);
  lg_free(S.qdd);
  num_work_free(&S.w);
  return st;
}
