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

/* What the loop needs to know of the equations: a first-order system
 * x' = F(t, x) of size dim, what to report at an output point, and an
 * optional projection after each step. Lagrange's equations (x = [q; q'])
 * and Kane's (x = [q; u]) both fill these. */
typedef struct sim sim;
typedef struct observation {
  const double *q, *qd;
  double T, V;
  const double *C, *Cd;   /* m each */
} observation;

struct sim {
  const num_sim_opts *o;
  size_t dim, n, m;
  int (*f)(sim *S, double t, const double *x, double *dx);
  void (*observe)(sim *S, double t, const double *x, observation *ob);
  int (*project)(sim *S, double t, double *x); /* nonzero: x moved */
  const num_system *s;          /* Lagrange */
  const num_kane_system *ks;    /* Kane */
  num_work w;
  double *qdd, *lam, *C, *Cd, *scratch;
  lg_diag *diag;
  int failed;
  double fail_t;
  void *mem;
  num_sim_stats *stats;
  SUNContext ctx;
  N_Vector y;
};

static void mark_failure(sim *S, double t, const lg_diag *d) {
  if (S->failed) return;
  S->failed = 1;
  S->fail_t = t;
  *S->diag = *d;
}

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

/* Lagrange: x = [q; q'], x' = [q'; q''] with q'' from the augmented solve. */
static int lagrange_f(sim *S, double t, const double *x, double *dx) {
  size_t n = S->n;
  if (S->o->jit_rhs && S->o->stabilize != NUM_STAB_BAUMGARTE) return rhs_jit(S, t, x, dx);
  num_evaluate_dynamics(S->s, &S->w, t, x, x + n);
  if (S->o->stabilize == NUM_STAB_BAUMGARTE) baumgarte(S);
  lg_diag d;
  lg_diag_clear(&d);
  if (num_solve_accel(S->s, &S->w, S->qdd, S->lam, &d) != LG_OK) {
    mark_failure(S, t, &d);
    return -1; /* unrecoverable */
  }
  memcpy(dx, x + n, n * sizeof *dx);
  memcpy(dx + n, S->qdd, n * sizeof *dx);
  return 0;
}

static void lagrange_observe(sim *S, double t, const double *x, observation *ob) {
  num_evaluate(S->s, &S->w, t, x, x + S->n); /* all outputs: T and V too */
  *ob = (observation){x, x + S->n, S->w.out[S->s->o_T], S->w.out[S->s->o_V],
                      S->w.out + S->s->o_C, S->w.out + S->s->o_Cd};
}

/* Project when the state has left the manifold by more than a small
 * tolerance; returns whether it moved (the integrator must then restart,
 * which costs its first-same-as-last stage, so drifts below the tolerance
 * are left alone). */
static const double PROJECT_TOL = 1e-11;

static int lagrange_project(sim *S, double t, double *x) {
  const num_system *s = S->s;
  num_evaluate_dynamics(s, &S->w, t, x, x + S->n);
  double worst = 0;
  for (size_t r = 0; r < s->m; r++) {
    double a = fabs(S->w.out[s->o_Cd + r]);
    if (s->row_holonomic[r]) a = fmax(a, fabs(S->w.out[s->o_C + r]));
    worst = fmax(worst, a);
  }
  if (worst <= PROJECT_TOL) return 0;
  lg_diag d;
  lg_diag_clear(&d);
  num_project(s, &S->w, t, x, x + S->n, 1e-13, &d);
  return 1;
}

/* Kane: x = [q; u], x' = [k(q, u); M^-1 f]. */
static int kane_f(sim *S, double t, const double *x, double *dx) {
  lg_diag d;
  lg_diag_clear(&d);
  if (num_kane_rhs(S->ks, S->scratch, t, x, dx, &d) != LG_OK) {
    mark_failure(S, t, &d);
    return -1;
  }
  return 0;
}

static void kane_observe(sim *S, double t, const double *x, observation *ob) {
  const num_kane_system *k = S->ks;
  num_kane_observe(k, S->scratch, t, x);
  const double *o = S->scratch + k->o_out;
  *ob = (observation){x, o + k->o_kq, o[k->o_T], o[k->o_V], o + k->o_C, o + k->o_C};
}

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud) {
  sim *S = ud;
  return S->f(S, t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
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
  observation ob;
  S->observe(S, t, N_VGetArrayPointer(S->y), &ob);
  double drift = fabs(ob.T + ob.V - E0);
  if (drift > st->max_energy_drift || isnan(drift)) st->max_energy_drift = drift;
  for (size_t r = 0; r < S->m; r++) {
    double a = fmax(fabs(ob.C[r]), fabs(ob.Cd[r]));
    if (a > st->max_residual || isnan(a)) st->max_residual = a;
  }
  return out ? out(ud, t, ob.q, ob.qd, ob.T, ob.V, ob.C) : 0;
}

enum { MAX_STEPS_PER_OUTPUT = 1000000 };

static int state_finite(const sim *S) {
  const double *x = N_VGetArrayPointer(S->y);
  for (size_t i = 0; i < S->dim; i++)
    if (!isfinite(x[i]) || fabs(x[i]) > 1e100) return 0;
  return 1;
}

static lg_status run(sim *S, num_sim_output out, void *ud, num_sim_stats *st) {
  const num_sim_opts *o = S->o;
  double t = o->t0;
  double *x = N_VGetArrayPointer(S->y);
  observation ob;
  S->observe(S, t, x, &ob);
  double E0 = ob.T + ob.V;
  if (emit(S, t, out, ud, st, E0)) return LG_OK;
  long k = 1, since_output = 0;
  while (t < o->tf - 1e-12 * fabs(o->tf)) {
    double tout = fmin(o->t0 + (double)k * o->dt, o->tf);
    int flag = step_to(S, tout, &t);
    /* a million steps between two output points: the steps have collapsed */
    if (++since_output > MAX_STEPS_PER_OUTPUT) flag = -1;
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
    if (S->project && S->project(S, t, x)) restart(S, t);
    if (t >= tout - 1e-12 * fmax(1, fabs(tout))) {
      k++;
      since_output = 0;
      if (emit(S, t, out, ud, st, E0)) break;
    }
  }
  st->t_end = t;
  return LG_OK;
}

/* Set up SUNDIALS for S (dim, hooks filled), integrate from x0 (updated
 * to the last state), free everything. */
static lg_status integrate(sim *S, double *x0, num_sim_output out, void *ud) {
  lg_status st = LG_ERR_NOMEM;
  SUNMatrix A = NULL;
  SUNLinearSolver LS = NULL;
  if (SUNContext_Create(NULL, &S->ctx) != 0) return st;
  S->y = N_VNew_Serial((sunindextype)S->dim, S->ctx);
  if (!S->y) goto done;
  memcpy(N_VGetArrayPointer(S->y), x0, S->dim * sizeof *x0);
  if (!setup(S, S->o->t0)) goto done;
  if (S->o->integrator == NUM_INT_BDF) {
    A = SUNDenseMatrix((sunindextype)S->dim, (sunindextype)S->dim, S->ctx);
    LS = A ? SUNLinSol_Dense(S->y, A, S->ctx) : NULL;
    if (!LS || CVodeSetLinearSolver(S->mem, LS, A) != CV_SUCCESS) goto done;
  }
  st = run(S, out, ud, S->stats);
  collect_stats(S, S->stats);
  memcpy(x0, N_VGetArrayPointer(S->y), S->dim * sizeof *x0);
done:
  free_integrator(S);
  if (LS) SUNLinSolFree(LS);
  if (A) SUNMatDestroy(A);
  if (S->y) N_VDestroy(S->y);
  if (S->ctx) SUNContext_Free(&S->ctx);
  return st;
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
  size_t n = s->n, m = s->m;
  sim S = {.o = o, .dim = 2 * n, .n = n, .m = m, .f = lagrange_f,
           .observe = lagrange_observe, .s = s, .diag = diag, .stats = stats};
  if (m && o->stabilize == NUM_STAB_PROJECT) S.project = lagrange_project;
  lg_status st = LG_ERR_NOMEM;
  double *x = lg_calloc(2 * n + 1, sizeof *x);
  S.qdd = lg_calloc(n + m + 1, sizeof *S.qdd);
  if (x && S.qdd && num_work_init(s, &S.w) == LG_OK) {
    S.lam = S.qdd + n;
    memcpy(x, q, n * sizeof *q);
    memcpy(x + n, qd, n * sizeof *qd);
    st = integrate(&S, x, out, ud);
    memcpy(q, x, n * sizeof *q);
    memcpy(qd, x + n, n * sizeof *qd);
    num_work_free(&S.w);
  }
  lg_free(x);
  lg_free(S.qdd);
  return st;
}

lg_status num_simulate_kane(const num_kane_system *k, const num_sim_opts *o, double *q,
                            double *u, num_sim_output out, void *ud, num_sim_stats *stats,
                            lg_diag *diag) {
  memset(stats, 0, sizeof *stats);
  num_sim_opts ko = *o;
  if (ko.integrator == NUM_INT_IDA) ko.integrator = NUM_INT_BDF; /* no algebraic part */
  sim S = {.o = &ko, .dim = k->n + k->p, .n = k->n, .m = k->m, .f = kane_f,
           .observe = kane_observe, .ks = k, .diag = diag, .stats = stats};
  lg_status st = LG_ERR_NOMEM;
  double *x = lg_calloc(S.dim + 1, sizeof *x);
  S.scratch = num_kane_scratch(k);
  if (x && S.scratch) {
    memcpy(x, q, k->n * sizeof *q);
    memcpy(x + k->n, u, k->p * sizeof *u);
    st = integrate(&S, x, out, ud);
    memcpy(q, x, k->n * sizeof *q);
    memcpy(u, x + k->n, k->p * sizeof *u);
  }
  lg_free(x);
  lg_free(S.scratch);
  return st;
}
