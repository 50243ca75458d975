/* num_simulate.c - integrating x = [q; q'] (or Kane's [q; u]) with SUNDIALS.
 *
 * ARKODE ERKStep for non-stiff problems (Dormand-Prince 5(4), Verner
 * 6(5) or Fehlberg 8(7), by default chosen by the tolerance), CVODE BDF
 * for stiff ones. Constrained models are stabilized by projecting q and
 * q' back onto the manifold: after an explicit step (the integrator is
 * then reset at the projected state: a one-step method loses nothing), or
 * inside CVODE's step through its projection interface (a restart would
 * throw away the BDF history and start again at order 1 with a tiny
 * step, which cost the bowl three million steps); or by Baumgarte's terms
 * in the acceleration constraint. When the model has sources of work, W
 * (the work since t0) is one more state component, W' = dE/dt. */
#include "num_internal.h"

#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <float.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#include <sunmatrix/sunmatrix_dense.h>

/* What the loop needs to know of the equations: a first-order system
 * x' = F(t, x) of size dim (n positions, nv velocities, then W when
 * integrated), what to report at an output point, and an optional
 * projection. Lagrange's equations (x = [q; q']) and Kane's (x = [q; u])
 * both fill these. */
typedef struct sim sim;
typedef struct observation {
  const double *q, *qd;
  double T, V;
  const double *C, *Cd;   /* m each */
} observation;

struct sim {
  const num_sim_opts *o;
  num_integrator integ;         /* resolved (NUM_INT_ERK -> its table) */
  size_t dim, n, nv, m;
  int work;                     /* x[n + nv] is W */
  int (*f)(sim *S, double t, const double *x, double *dx);
  void (*observe)(sim *S, double t, const double *x, observation *ob);
  int (*project)(sim *S, double t, double *x); /* nonzero: x moved */
  const num_system *s;          /* Lagrange */
  const num_kane_system *ks;    /* Kane */
  num_work w;
  num_aux_work aw;
  double *qdd, *lam, *scratch;
  double norm0;                 /* 1-norm of the augmented matrix at t0 */
  double size0;                 /* max |x| at t0 */
  lg_diag *diag;
  int failed;
  double fail_t;
  void *mem;
  SUNNonlinearSolver nls;       /* Adams' fixed-point iteration */
  num_sim_stats *stats;
  SUNContext ctx;
  N_Vector y;
  num_rhs_fn jit;               /* the compiled right-hand side, once there is one */
  double *evw;                  /* the events' scratch, then their root flags */
  double *evqd;                 /* Kane: q' = k(q, u) for the events (n) */
  double *held, held_t;         /* an output row not yet written (dim; flush_held) */
  int held_on;
  long base_steps, base_rhs;    /* the counters just after the last restart */
  int *fired;
  int nroots;                   /* stop_when's g (when there is one), then the events' */
  double w_jump;                /* the energy resets changed (added to W) */
  num_friction_run *fr;         /* friction's modes (num_friction.c), or NULL */
  num_contact_run *ct;          /* the contacts' modes (num_contact.c), or NULL */
  double *fn;                   /* their normal forces at an output point */
  unsigned poll_in;             /* right-hand sides until the next jit_poll */
  void *fix;                    /* ERKStep without roots: an event's accurate state */
  N_Vector yc, gv;              /* its step-end state; the guards (nroots) */
};

static void mark_failure(sim *S, double t, const lg_diag *d) {
  if (S->failed) return;
  S->failed = 1;
  S->fail_t = t;
  *S->diag = *d;
}

/* W' = dE/dt at the state x with the velocities' derivatives dx + n. */
static void add_power(sim *S, double t, const double *x, double *dx) {
  if (!S->work) return;
  num_aux_power(S->o->aux, &S->aw, t, x, x + S->n, dx + S->n, NULL, dx + S->n + S->nv);
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

/* A compiled right-hand side being built in the background is asked for
 * this often (a waitpid: about a microsecond). */
enum { JIT_POLL_EVERY = 256 };

static void poll_jit(sim *S, double t) {
  if (--S->poll_in) return;
  S->poll_in = JIT_POLL_EVERY;
  if ((S->jit = S->o->jit_poll(S->o->jit_ud))) {
    S->stats->jit = 1;
    S->stats->jit_t = t;
  }
}

/* The compiled right-hand side: one call, no tape, no LAPACK. */
static int rhs_jit(sim *S, double t, const double *x, double *dx) {
  if (S->jit(t, x, NULL, S->s->params, dx) == 0) return 0;
  if (!S->failed) {
    S->failed = 1;
    S->fail_t = t;
    lg_diag_set(S->diag, LG_ERR_NUMERIC, NULL, 0, 0, "the mass matrix is singular");
  }
  return -1;
}

/* With friction (num_friction.c) or contacts (num_contact.c): their
 * holding rows, or the closed contacts' rows, in every solve (no compiled
 * right-hand side, no O(n) tree). */
static int augmented_f(sim *S, double t, const double *x, double *dx) {
  size_t n = S->n;
  num_evaluate_dynamics(S->s, &S->w, t, x, x + n);
  if (S->o->stabilize == NUM_STAB_BAUMGARTE) baumgarte(S);
  lg_status st = S->fr ? num_friction_accel(S->fr, &S->w, t, x, x + n, S->qdd, S->lam)
                       : num_contact_accel(S->ct, &S->w, t, x, x + n, S->qdd, S->lam);
  if (st != LG_OK) {
    lg_diag d;
    lg_diag_set(&d, LG_ERR_NUMERIC, NULL, 0, 0, "the mass matrix with %s rows is singular",
                S->fr ? "friction's holding" : "the contacts'");
    mark_failure(S, t, &d);
    return -1;
  }
  memcpy(dx, x + n, n * sizeof *dx);
  memcpy(dx + n, S->qdd, n * sizeof *dx);
  add_power(S, t, x, dx);
  return 0;
}

/* Lagrange: x = [q; q'], x' = [q'; q''] with q'' from the augmented solve. */
static int lagrange_f(sim *S, double t, const double *x, double *dx) {
  size_t n = S->n;
  if (S->fr || S->ct) return augmented_f(S, t, x, dx);
  if (!S->jit && S->o->jit_poll) poll_jit(S, t);
  if (S->jit && S->o->stabilize != NUM_STAB_BAUMGARTE) {
    if (rhs_jit(S, t, x, dx)) return -1;
    add_power(S, t, x, dx);
    return 0;
  }
  if ((S->s->tree || S->s->links) && /* O(n) */
      num_evaluate_tree(S->s, &S->w, t, x, x + n, S->qdd)) {
    memcpy(dx, x + n, n * sizeof *dx);
    memcpy(dx + n, S->qdd, n * sizeof *dx);
    add_power(S, t, x, dx);
    return 0;
  }
  num_evaluate_dynamics(S->s, &S->w, t, x, x + n);
  if (S->o->stabilize == NUM_STAB_BAUMGARTE) baumgarte(S);
  lg_diag d;
  lg_diag_clear(&d);
  if (num_solve_accel(S->s, &S->w, S->qdd, S->lam, &d) != LG_OK) {
    if (!S->failed) {
      long k = S->w.broke_at;
      if (k >= (long)n) S->stats->fail_row = (int)(k - (long)n);
      else if (k >= 0) S->stats->fail_coord = (int)k;
    }
    mark_failure(S, t, &d);
    return -1; /* unrecoverable */
  }
  memcpy(dx, x + n, n * sizeof *dx);
  memcpy(dx + n, S->qdd, n * sizeof *dx);
  add_power(S, t, x, dx);
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

/* CVODE's projection: corr = P(y) - y on the q, q' part. */
static int cvode_project(sunrealtype t, N_Vector ycur, N_Vector corr, sunrealtype eps,
                         N_Vector err, void *ud) {
  (void)eps;
  (void)err;
  sim *S = ud;
  const double *y = N_VGetArrayPointer(ycur);
  double *c = N_VGetArrayPointer(corr);
  size_t k = 2 * S->n;
  memcpy(c, y, S->dim * sizeof *c);
  lg_diag d;
  lg_diag_clear(&d);
  if (num_project(S->s, &S->w, t, c, c + S->n, 1e-13, &d) != LG_OK) return 1;
  for (size_t i = 0; i < k; i++) c[i] -= y[i];
  for (size_t i = k; i < S->dim; i++) c[i] = 0;
  return 0; /* CVODE adds corr to ycur itself */
}

/* Kane's state back onto the configuration constraints (the caller's). */
static int kane_project(sim *S, double t, double *x) {
  return S->o->kane_project(S->o->kane_project_ud, t, x, x + S->n);
}

/* Kane: x = [q; u], x' = [k(q, u); M^-1 f]. */
static int kane_f(sim *S, double t, const double *x, double *dx) {
  lg_diag d;
  lg_diag_clear(&d);
  if (num_kane_rhs(S->ks, S->scratch, t, x, dx, &d) != LG_OK) {
    mark_failure(S, t, &d);
    return -1;
  }
  add_power(S, t, x, dx);
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

/* The rates the events see: Lagrange's q' is in x; Kane's is k(q, u),
 * into S->evqd. */
static double *event_rates(sim *S, double t, double *x) {
  if (!S->ks) return x + S->n;
  num_kane_observe(S->ks, S->scratch, t, x);
  memcpy(S->evqd, S->scratch + S->ks->o_out + S->ks->o_kq, S->n * sizeof *S->evqd);
  return S->evqd;
}

static int root(sunrealtype t, N_Vector y, sunrealtype *g, void *ud) {
  sim *S = ud;
  double *x = N_VGetArrayPointer(y);
  int k = 0;
  if (S->o->aux && S->o->aux->event) g[k++] = num_aux_event(S->o->aux, &S->aw, t, x, x + S->n);
  if (S->o->events) {
    num_events_guards(S->o->events, S->evw, t, x, event_rates(S, t, x), g + k);
    k += (int)S->o->events->nev;
  }
  if (S->fr) {
    num_friction_guards(S->fr, &S->w, t, x, x + S->n, g + k);
    k += 2 * (int)S->o->friction->nf;
  }
  if (S->ct) num_contact_guards(S->ct, &S->w, t, x, x + S->n, g + k);
  for (int i = 0; i < S->nroots; i++)
    if (!isfinite(g[i])) return 1;
  return 0;
}

/* The directions: stop_when's either way, an event's by its `<` or `>`. */
static void root_directions(const sim *S, int *dir) {
  int k = 0;
  if (S->o->aux && S->o->aux->event) dir[k++] = 0;
  for (size_t i = 0; S->o->events && i < S->o->events->nev; i++) dir[k++] = S->o->events->dir[i];
  for (size_t i = 0; S->fr && i < 2 * S->o->friction->nf; i++) dir[k++] = -1;
  for (size_t i = 0; S->ct && i < 3 * S->o->contact->K; i++) dir[k++] = -1;
}

/* Interpolated output: Dormand-Prince on an ODE that is not projected
 * steps freely and ARKODE's dense output (Hermite, degree 5, about one
 * extra right-hand side per output) gives the rows, instead of stopping at
 * every output time (which caps the step at dt). Adams (never projected)
 * interpolates its own Nordsieck history at no cost. Projection needs
 * every step's end; for the 8th-order table the degree-5 interpolant
 * costs about four right-hand sides per output and is less accurate than
 * its steps. */
static int interpolates(const sim *S) {
  return (S->integ == NUM_INT_DOPRI && !S->project) || S->integ == NUM_INT_ADAMS;
}

/* ---- integrator set-up ------------------------------------------------------------- */
/* ARKODE's table of each explicit method (the run's and the event states' steppers) */
static const ARKODE_ERKTableID erk_table[] = {
    [NUM_INT_DOPRI] = ARKODE_DORMAND_PRINCE_7_4_5,
    [NUM_INT_VERNER] = ARKODE_VERNER_8_5_6,
    [NUM_INT_FEHLBERG] = ARKODE_FEHLBERG_13_7_8};

static int setup_erk(sim *S, double t0) {
  S->mem = ERKStepCreate(rhs, t0, S->y, S->ctx);
  if (!S->mem) return 0;
  ERKStepSetTableNum(S->mem, erk_table[S->integ]);
  ERKStepSStolerances(S->mem, S->o->rtol, S->o->atol);
  ERKStepSetUserData(S->mem, S);
  /* the loop keeps its own budget, a chunk at a time when interpolating */
  ERKStepSetMaxNumSteps(S->mem, interpolates(S) ? NUM_STEP_CHUNK : -1);
  if (interpolates(S)) {
    ERKStepSetStopTime(S->mem, S->o->tf);
    ERKStepSetInterpolantDegree(S->mem, ARK_INTERP_MAX_DEGREE);
  }
  ERKStepSetErrFile(S->mem, NULL);
  if (S->nroots) {
    int *d = S->fired + S->nroots;
    root_directions(S, d);
    ERKStepRootInit(S->mem, S->nroots, root);
    ERKStepSetRootDirection(S->mem, d);
  }
  return 1;
}

/* CVODE's Jacobian of x' = [q'; q''(q, q'); W'] : [[0, I, 0], [G_q, G_v, 0],
 * [0, 0, 0]] with G exact (AD over the augmented equations). W' is left out
 * of the Newton matrix: nothing depends on W, so Newton still converges in
 * its row, and the dynamics rows are exact. */
static int exact_jacobian(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *ud,
                          N_Vector t1, N_Vector t2, N_Vector t3) {
  (void)fy, (void)t1, (void)t2, (void)t3;
  sim *S = ud;
  const num_lin *L = S->o->jac;
  size_t n = S->n, cols = 2 * n + L->nr;
  const double *x = N_VGetArrayPointer(y);
  double *G = lg_malloc((n * cols + 1) * sizeof *G);
  if (!G) return -1;
  lg_status st = num_lin_accel_jacobian(L, &S->w, t, x, x + n, G, NULL);
  SUNMatZero(J);
  for (size_t i = 0; st == LG_OK && i < n; i++) {
    SM_ELEMENT_D(J, i, n + i) = 1;
    for (size_t j = 0; j < 2 * n; j++) SM_ELEMENT_D(J, n + i, j) = G[i * cols + j];
  }
  lg_free(G);
  return st == LG_OK ? 0 : 1; /* a singular point: let CVODE cut the step */
}

/* CVODE: BDF with Newton's method (the linear solver is attached by
 * integrate), or Adams-Moulton with fixed-point iteration, which needs no
 * Jacobian and converges in one or two right-hand sides on a non-stiff
 * motion. */
static int setup_cvode(sim *S, double t0) {
  int adams = S->integ == NUM_INT_ADAMS;
  S->mem = CVodeCreate(adams ? CV_ADAMS : CV_BDF, S->ctx);
  if (!S->mem || CVodeInit(S->mem, rhs, t0, S->y) != CV_SUCCESS) return 0;
  if (adams) {
    S->nls = SUNNonlinSol_FixedPoint(S->y, 0, S->ctx);
    if (!S->nls || CVodeSetNonlinearSolver(S->mem, S->nls) != CV_SUCCESS) return 0;
    CVodeSetStopTime(S->mem, S->o->tf);
  }
  double k = num_tolerance_scale(S->o->integrator, S->integ);
  CVodeSStolerances(S->mem, k * S->o->rtol, k * S->o->atol);
  CVodeSetUserData(S->mem, S);
  CVodeSetMaxNumSteps(S->mem, interpolates(S) ? NUM_STEP_CHUNK : -1);
  CVodeSetErrFile(S->mem, NULL);
  if (S->nroots) {
    int *d = S->fired + S->nroots;
    root_directions(S, d);
    CVodeRootInit(S->mem, S->nroots, root);
    CVodeSetRootDirection(S->mem, d);
  }
  if (S->project == lagrange_project) {
    CVodeSetProjFn(S->mem, cvode_project);
    S->project = NULL; /* inside the step now */
  }
  return 1;
}

enum { COLLAPSED = 1000 };

/* Advance towards tout (one step, or to tout when interpolating), keeping
 * the step budget; COLLAPSED when the steps no longer make progress. */
static int step_to(sim *S, double tout, double *t, num_budget *b, double *h) {
  int flag, erk = num_is_erk(S->integ);
  if (interpolates(S)) {
    for (;;) {
      long before = 0, after = 0;
      if (erk) {
        ERKStepGetNumSteps(S->mem, &before);
        flag = ERKStepEvolve(S->mem, tout, S->y, t, ARK_NORMAL);
        ERKStepGetNumSteps(S->mem, &after);
      } else {
        CVodeGetNumSteps(S->mem, &before);
        flag = CVode(S->mem, tout, S->y, t, CV_NORMAL);
        CVodeGetNumSteps(S->mem, &after);
      }
      if (num_budget_add(b, after - before, *t, S->o->tf, h)) return COLLAPSED;
      if (flag != (erk ? ARK_TOO_MUCH_WORK : CV_TOO_MUCH_WORK)) return flag;
    }
  }
  if (num_is_erk(S->integ)) {
    ERKStepSetStopTime(S->mem, tout);
    flag = ERKStepEvolve(S->mem, tout, S->y, t, ARK_ONE_STEP);
  } else {
    CVodeSetStopTime(S->mem, tout);
    flag = CVode(S->mem, tout, S->y, t, CV_ONE_STEP);
  }
  return flag >= 0 && num_budget_add(b, 1, *t, S->o->tf, h) ? COLLAPSED : flag;
}

static void free_integrator(sim *S) {
  if (S->fix) ERKStepFree(&S->fix);
  if (S->yc) N_VDestroy(S->yc);
  if (S->gv) N_VDestroy(S->gv);
  S->yc = S->gv = NULL;
  if (S->mem && num_is_erk(S->integ)) ERKStepFree(&S->mem);
  else if (S->mem) CVodeFree(&S->mem);
  if (S->nls) SUNNonlinSolFree(S->nls);
  S->nls = NULL;
}

static void counters(sim *S, long *nst, long *nf) {
  *nst = *nf = 0;
  if (num_is_erk(S->integ)) {
    ERKStepGetNumSteps(S->mem, nst);
    ERKStepGetNumRhsEvals(S->mem, nf);
  } else {
    CVodeGetNumSteps(S->mem, nst);
    CVodeGetNumRhsEvals(S->mem, nf);
  }
}

/* The integrator's counts since the last restart (which may zero them). */
static void collect_stats(sim *S, num_sim_stats *st) {
  long nst, nf;
  counters(S, &nst, &nf);
  st->steps += nst - S->base_steps;
  st->rhs_evals += nf - S->base_rhs;
}

/* ---- the loop ---------------------------------------------------------------------- */
typedef struct loop_state {
  num_sim_output out;
  void *ud;
  double ref;
  int have_ref;
} loop_state;

static int emit_at(sim *S, double t, const double *x, loop_state *L) {
  observation ob;
  S->observe(S, t, x, &ob);
  num_sim_point p = {t, ob.q, ob.qd, ob.T, ob.V, ob.T + ob.V, 0, ob.C, NULL};
  if (S->ct) {
    num_contact_forces(S->ct, &S->w, t, x, x + S->n, S->fn);
    p.fn = S->fn;
  }
  if (S->o->aux) num_aux_power(S->o->aux, &S->aw, t, x, x + S->n, NULL, &p.E, NULL);
  if (S->work) p.W = x[S->n + S->nv];
  p.W += S->w_jump;
  num_tally(S->stats, &p, ob.Cd, S->m, &L->ref, &L->have_ref);
  return L->out ? L->out(L->ud, &p) : 0;
}

static int emit(sim *S, double t, loop_state *L) {
  return emit_at(S, t, N_VGetArrayPointer(S->y), L);
}

/* With events an output row waits (in S->held) until the integrator has
 * moved on: an event found within num_events_grid_tol of it takes its
 * place (MODEL-FORMAT 1.1). Returns the callback's stop. */
static int flush_held(sim *S, loop_state *L) {
  if (!S->held_on) return 0;
  S->held_on = 0;
  return emit_at(S, S->held_t, S->held, L);
}

static int state_finite(const sim *S) {
  const double *x = N_VGetArrayPointer(S->y);
  for (size_t i = 0; i < S->dim; i++)
    if (!isfinite(x[i]) || fabs(x[i]) > 1e100) return 0;
  return 1;
}

static double state_size(const sim *S) {
  const double *x = N_VGetArrayPointer(S->y);
  double m = 0;
  for (size_t i = 0; i < S->n + S->nv; i++) m = fmax(m, fabs(x[i]));
  return m;
}

/* The component with the largest weighted local error: the likely culprit
 * of a step-size collapse (a coordinate, through its value or rate). */
static void blame_component(sim *S) {
  N_Vector e = N_VClone(S->y), w = N_VClone(S->y);
  int ok = e && w;
  if (ok && num_is_erk(S->integ))
    ok = ERKStepGetEstLocalErrors(S->mem, e) == 0 && ERKStepGetErrWeights(S->mem, w) == 0;
  else if (ok)
    ok = CVodeGetEstLocalErrors(S->mem, e) == 0 && CVodeGetErrWeights(S->mem, w) == 0;
  if (ok) {
    const double *E = N_VGetArrayPointer(e), *W = N_VGetArrayPointer(w);
    double best = -1;
    for (size_t i = 0; i < S->n + S->nv; i++)
      if (fabs(E[i] * W[i]) > best) {
        best = fabs(E[i] * W[i]);
        S->stats->fail_coord = (int)(i < S->n ? i : i - S->n) % (int)S->n;
      }
  }
  if (e) N_VDestroy(e);
  if (w) N_VDestroy(w);
}

/* A collapse where the (augmented) mass matrix is nearly singular says so
 * and blames the unknown with the smallest pivot. */
static int near_singular(sim *S, double t, char *cause, size_t size) {
  if (!S->s || !(S->norm0 > 0)) return 0;
  const double *x = N_VGetArrayPointer(S->y);
  long k;
  double pivot, norm;
  num_evaluate_dynamics(S->s, &S->w, t, x, x + S->n);
  double rc = num_accel_rcond(S->s, &S->w, &k, &pivot, &norm);
  double rel = fmin(rc, pivot / S->norm0);
  if (!(rel < 1e-8) || k < 0) return 0;
  S->stats->fail_coord = k < (long)S->n ? (int)k : -1;
  S->stats->fail_row = k < (long)S->n ? -1 : (int)(k - (long)S->n);
  snprintf(cause, size, "the %s is nearly singular here (smallest pivot %.2g of the "
                        "matrix's norm at t0)",
           S->m ? "augmented mass matrix [[M, -J^T], [J, 0]]" : "mass matrix", rel);
  return 1;
}

static lg_status failure(sim *S, double t, int flag, double h, const num_budget *b) {
  num_sim_stats *st = S->stats;
  char cause[sizeof S->diag->message];
  if (S->failed) {
    t = S->fail_t;
    snprintf(cause, sizeof cause, "%s", S->diag->message);
    char hint[sizeof S->diag->hint];
    memcpy(hint, S->diag->hint, sizeof hint);
    num_fail(S->diag, st, t, cause, hint[0] ? hint : NULL);
    return LG_ERR_NUMERIC;
  }
  if (flag == 0 || flag == 1 || flag == 2) { /* made progress: blow-up or collapse */
    /* a vanishing inertia is the cause when it is there, even when the
     * rates have already grown without bound on the way to it */
    int finite = state_finite(S);
    if (finite) blame_component(S);
    if (finite && near_singular(S, t, cause, sizeof cause)) {
      num_fail(S->diag, st, t, cause,
               "the motion reaches a configuration where the inertia of a coordinate "
               "vanishes: check masses, inertias and constraints there, or end the run "
               "before it with `stop_when`");
      return LG_ERR_NUMERIC;
    }
    if (!finite || state_size(S) > 1e6 * fmax(1, S->size0)) {
      num_fail(S->diag, st, t, "the state grows without bound or is no longer finite (the solution blows up)",
               "check the model's forces and initial state; a finite-time blow-up cannot "
               "be integrated past");
      return LG_ERR_NUMERIC;
    }
    char hint[sizeof S->diag->hint];
    if (num_budget_too_long(b, t, S->o->tf, h, S->integ != NUM_INT_BDF, cause, sizeof cause,
                            hint, sizeof hint)) {
      st->fail_coord = -1; /* no coordinate is at fault */
      num_fail(S->diag, st, t, cause, hint);
      return LG_ERR_NUMERIC;
    }
    snprintf(cause, sizeof cause, "the step size collapsed to h = %.3g (the motion is "
                                  "singular or very stiff here)", h);
  } else {
    blame_component(S);
    snprintf(cause, sizeof cause, "the integrator gave up (SUNDIALS flag %d): the motion "
                                  "may be singular or blow up", flag);
  }
  num_fail(S->diag, st, t, cause,
           S->integ == NUM_INT_BDF
               ? "try `integrator` dopri, or loosen `rtol`/`atol`"
               : "try `integrator` bdf (stiff motion) or ida (constrained), or loosen `rtol`/`atol`");
  return LG_ERR_NUMERIC;
}

static int at_root(sim *S, int flag) {
  return flag == (num_is_erk(S->integ) ? ARK_ROOT_RETURN : CV_ROOT_RETURN);
}

/* ---- accurate event states (Verner, Fehlberg) --------------------------------------- */
/* At a root ERKStep returns its Hermite interpolant (degree <= 5), far
 * less accurate than the 6th/8th-order steps. From the step's end
 * (tc, yc), accurate to the tolerance, a second ERKStep without roots
 * integrates back to tr into S->y (its counts are added to the stats). */
static int integrate_back(sim *S, double tc, double tr) {
  if (tr == tc) {
    N_VScale(1, S->yc, S->y);
    return 1;
  }
  if (!S->fix) {
    if (!(S->fix = ERKStepCreate(rhs, tc, S->yc, S->ctx))) return 0;
    ERKStepSetTableNum(S->fix, erk_table[S->integ]);
    ERKStepSStolerances(S->fix, S->o->rtol, S->o->atol);
    ERKStepSetUserData(S->fix, S);
    ERKStepSetErrFile(S->fix, NULL);
    ERKStepSetMaxNumSteps(S->fix, 1000);
  } else if (ERKStepReInit(S->fix, rhs, tc, S->yc) != ARK_SUCCESS) {
    return 0;
  }
  ERKStepSetInitStep(S->fix, tr - tc); /* within the accepted step: one step */
  ERKStepSetStopTime(S->fix, tr);
  double t = tc;
  int flag = ERKStepEvolve(S->fix, tr, S->y, &t, ARK_NORMAL);
  long nst = 0, nf = 0;
  ERKStepGetNumSteps(S->fix, &nst);
  ERKStepGetNumRhsEvals(S->fix, &nf);
  S->stats->steps += nst;
  S->stats->rhs_evals += nf;
  return flag >= 0 && !S->failed;
}

/* The guard i at (t, y). */
static double guard_at(sim *S, int i, double t, N_Vector y) {
  double *g = N_VGetArrayPointer(S->gv);
  return root(t, y, g, S) == 0 ? g[i] : NAN;
}

/* The root at *t found by ERKStep's Verner or Fehlberg: S->y replaced by
 * the accurate state there, and *t moved by secant steps on the first
 * fired guard until that state is on g = 0 (to the tolerance). Falls back
 * to the interpolant when anything fails. */
static void refine_root(sim *S, double *t) {
  if (!num_is_erk(S->integ) || S->integ == NUM_INT_DOPRI) return;
  int *info = S->fired, i = 0;
  ERKStepGetRootInfo(S->mem, info);
  while (i < S->nroots && !info[i]) i++;
  if (i == S->nroots) return;
  if (!S->yc && !(S->yc = N_VClone(S->y))) return;
  if (!S->gv && !(S->gv = N_VNew_Serial((sunindextype)S->nroots, S->ctx))) return;
  double tc = *t;
  if (ERKStepGetCurrentTime(S->mem, &tc) != ARK_SUCCESS ||
      ERKStepGetDky(S->mem, tc, 0, S->yc) != ARK_SUCCESS)
    return;
  N_Vector keep = N_VClone(S->y);
  if (!keep) return;
  N_VScale(1, S->y, keep);
  lg_diag d0 = *S->diag;
  double t0 = tc, g0 = guard_at(S, i, tc, S->yc), tr = *t, g = NAN;
  int ok = 1;
  for (int it = 0; ok; it++) {
    if (!(ok = integrate_back(S, tc, tr))) break;
    g = guard_at(S, i, tr, S->y);
    if (!isfinite(g) || g == 0 || it == 2 || g == g0) break;
    double tn = tr - g * (tr - t0) / (g - g0);
    if (!isfinite(tn) || fabs(tn - *t) > fabs(tc - *t) + fabs(tc) * 1e-12 ||
        fabs(tn - tr) <= 4 * DBL_EPSILON * fmax(1, fabs(tr)))
      break;
    t0 = tr, g0 = g, tr = tn;
  }
  if (ok && isfinite(g)) {
    *t = tr;
  } else {
    N_VScale(1, keep, S->y); /* the interpolant, as before */
    S->failed = 0;
    *S->diag = d0;
  }
  N_VDestroy(keep);
}

/* The integrator restarted at (t, y) after a reset. */
static void restart(sim *S, double t) {
  collect_stats(S, S->stats); /* CVodeReInit zeroes the counters */
  if (num_is_erk(S->integ)) ERKStepReset(S->mem, t, S->y);
  else CVodeReInit(S->mem, t, S->y);
  counters(S, &S->base_steps, &S->base_rhs);
}

/* E at the state x (T + V without an energy balance). */
static double energy_at(sim *S, double t, const double *x) {
  double E;
  if (S->o->aux) {
    num_aux_power(S->o->aux, &S->aw, t, x, x + S->n, NULL, &E, NULL);
    return E;
  }
  observation ob;
  S->observe(S, t, x, &ob);
  return ob.T + ob.V;
}

/* The state after the resets made consistent (num_events_consistent;
 * Kane's through the caller, who also takes u from q'). */
static lg_status after_resets(sim *S, const int *fired, double t, double *x, double *qd,
                              lg_diag *d) {
  if (!S->ks)
    return S->s ? num_events_consistent(S->s, &S->w, S->o->events, fired, t, x, qd,
                                        S->o->events_project, d)
                : LG_OK;
  if (S->o->kane_reset)
    return S->o->kane_reset(S->o->kane_reset_ud, fired, t, x, qd, x + S->n, d);
  lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "events under Kane's method need kane_reset");
  return LG_ERR_USAGE;
}

/* A root: stop_when's ends the run (1); the model's events fire as one
 * group: the row before, then a stop (1) or the resets, the state made
 * consistent with the constraints, the energy change into W, a restart
 * and the row after (0; 2: an error in S->diag, the run ends). */
static int at_events(sim *S, double t, loop_state *L) {
  int *info = S->fired;
  if (num_is_erk(S->integ)) ERKStepGetRootInfo(S->mem, info);
  else CVodeGetRootInfo(S->mem, info);
  int k0 = S->o->aux && S->o->aux->event ? 1 : 0;
  double *x = N_VGetArrayPointer(S->y);
  if (k0 && info[0]) {
    S->stats->stopped = 1;
    emit(S, t, L);
    return 1;
  }
  const num_events *ev = S->o->events;
  S->stats->events++;
  if (emit(S, t, L)) return 1;
  double E0 = energy_at(S, t, x), *qd = event_rates(S, t, x);
  if (ev && num_events_fire(ev, S->evw, info + k0, t, x, qd)) {
    S->stats->stopped = 1;
    return 1;
  }
  lg_diag d;
  lg_diag_clear(&d);
  if (ev && after_resets(S, info + k0, t, x, qd, &d) != LG_OK) {
    S->stats->t_end = t;
    *S->diag = d;
    return 2;
  }
  int k1 = k0 + (ev ? (int)ev->nev : 0);
  if (S->fr) /* after the resets: a coordinate at rest stays at rest */
    S->stats->friction_switches += num_friction_switch(S->fr, &S->w, info + k1, t, x, x + S->n);
  if (S->fr) k1 += 2 * (int)S->o->friction->nf;
  if (S->ct) {
    double h = 0;
    if (num_is_erk(S->integ)) ERKStepGetLastStep(S->mem, &h);
    else CVodeGetLastStep(S->mem, &h);
    if (num_contact_switch(S->ct, &S->w, info + k1, t, fabs(h), x, x + S->n,
                           &S->stats->impacts, &S->stats->liftoffs,
                           &S->stats->friction_switches) && S->fr)
      S->stats->friction_switches += num_friction_recheck(S->fr, &S->w, t, x, x + S->n);
  }
  double dE = energy_at(S, t, x) - E0;
  S->w_jump += dE;
  S->stats->event_work += dE;
  restart(S, t);
  return emit(S, t, L) ? 1 : 0;
}

static lg_status run(sim *S, loop_state *L) {
  const num_sim_opts *o = S->o;
  num_sim_stats *st = S->stats;
  double t = o->t0, h = 0;
  double *x = N_VGetArrayPointer(S->y);
  num_budget b = {0, t, S->integ == NUM_INT_ADAMS ? 5 : 1, o->max_steps, 0};
  S->size0 = state_size(S);
  if (S->s) {
    long k;
    double pivot;
    num_evaluate_dynamics(S->s, &S->w, t, x, x + S->n);
    num_accel_rcond(S->s, &S->w, &k, &pivot, &S->norm0);
  }
  if (emit(S, t, L)) return LG_OK;
  long k = 1;
  while (t < o->tf - 1e-12 * fabs(o->tf)) {
    double tout = fmin(o->t0 + (double)k * o->dt, o->tf);
    int flag = step_to(S, tout, &t, &b, &h);
    int collapsed = flag == COLLAPSED;
    if (collapsed) flag = 0;
    if (flag < 0 || S->failed || !state_finite(S) || collapsed) {
      flush_held(S, L);
      return failure(S, t, flag, h, &b);
    }
    if (at_root(S, flag)) {
      refine_root(S, &t);
      if (S->held_on && fabs(t - S->held_t) <= num_events_grid_tol(o->rtol, S->held_t, o->dt))
        S->held_on = 0; /* the event's rows take the output row's place */
      if (flush_held(S, L)) break;
      int r = at_events(S, t, L);
      if (r == 2) return S->diag->status;
      if (r) break;
      if (fabs(t - tout) <= num_events_grid_tol(o->rtol, tout, o->dt)) { /* likewise */
        if (tout >= o->tf) break; /* the last row's: the run ends here */
        k++;
      }
      continue;
    }
    if (S->project && S->project(S, t, x)) {
      if (num_is_erk(S->integ)) ERKStepReset(S->mem, t, S->y);
    }
    if (t >= tout - 1e-12 * fmax(1, fabs(tout))) {
      k++;
      if (flush_held(S, L)) break;
      if (S->held) {
        memcpy(S->held, x, S->dim * sizeof *x);
        S->held_t = t;
        S->held_on = 1;
      } else if (emit(S, t, L)) {
        break;
      }
    }
  }
  flush_held(S, L);
  st->t_end = t;
  return LG_OK;
}

/* z = a x + b y for the integrators' short vectors, computed exactly as
 * the serial N_Vector's LinearSum (c (x + y) when a = b, c (x - y) when
 * a = -b; every other case of it rounds as a x + b y), without its chain
 * of calls: CVODE's Adams predictor alone makes q (q + 1) / 2 of them a
 * step, at order q up to 12 (wrms_norm likewise). */
/* Set up SUNDIALS for S (dim, hooks filled), integrate from x0 (updated
 * to the last state), free everything. */
static lg_status integrate(sim *S, double *x0, num_sim_output out, void *ud) {
  lg_status st = LG_ERR_NOMEM;
  SUNMatrix A = NULL;
  SUNLinearSolver LS = NULL;
  loop_state L = {out, ud, 0, 0};
  if (S->o->aux && num_aux_work_init(S->o->aux, &S->aw) != LG_OK) return st;
  S->nroots = (S->o->aux && S->o->aux->event ? 1 : 0) +
              (S->o->events ? (int)S->o->events->nev : 0) +
              (S->o->friction && S->s ? 2 * (int)S->o->friction->nf : 0) +
              (S->o->contact && S->s ? 3 * (int)S->o->contact->K : 0);
  if (S->o->contact && S->s) {
    S->fn = lg_calloc(num_contact_ncolumns(S->o->contact) + 1, sizeof *S->fn);
    if (!S->fn || !(S->ct = num_contact_run_new(S->o->contact, S->s, S->o->atol))) goto done;
  }
  if (S->o->friction && S->s) {
    if (!(S->fr = num_friction_run_new(S->o->friction, S->s))) goto done;
    if (S->ct && num_contact_with_friction(S->ct, S->fr) != LG_OK) goto done;
    num_friction_start(S->fr, &S->w, S->o->t0, x0, x0 + S->n);
  }
  if (S->ct) { /* then friction's modes with the contacts closed */
    num_contact_start(S->ct, &S->w, S->o->t0, x0, x0 + S->n);
    if (S->fr) num_friction_recheck(S->fr, &S->w, S->o->t0, x0, x0 + S->n);
  }
  S->fired = lg_calloc(2 * (size_t)S->nroots + 1, sizeof *S->fired);
  S->evw = S->o->events ? lg_calloc(num_events_work_size(S->o->events), sizeof *S->evw) : NULL;
  S->evqd = S->o->events && S->ks ? lg_calloc(S->n + 1, sizeof *S->evqd) : NULL;
  S->held = S->nroots ? lg_calloc(S->dim + 1, sizeof *S->held) : NULL;
  if (!S->fired || (S->o->events && !S->evw) || (S->o->events && S->ks && !S->evqd) ||
      (S->nroots && !S->held))
    goto done;
  if (SUNContext_Create(NULL, &S->ctx) != 0) goto done;
  S->y = N_VNew_Serial((sunindextype)S->dim, S->ctx);
  if (!S->y) goto done;
  num_lean_vector_ops(S->y); /* the integrators' vectors are its clones */
  memcpy(N_VGetArrayPointer(S->y), x0, S->dim * sizeof *x0);
  if (!(num_is_erk(S->integ) ? setup_erk(S, S->o->t0) : setup_cvode(S, S->o->t0))) goto done;
  if (S->integ == NUM_INT_BDF) {
    A = SUNDenseMatrix((sunindextype)S->dim, (sunindextype)S->dim, S->ctx);
    LS = A ? SUNLinSol_Dense(S->y, A, S->ctx) : NULL;
    if (!LS || CVodeSetLinearSolver(S->mem, LS, A) != CV_SUCCESS) goto done;
    if (S->o->jac && S->s && S->o->stabilize != NUM_STAB_BAUMGARTE)
      CVodeSetJacFn(S->mem, exact_jacobian);
  }
  st = run(S, &L);
  collect_stats(S, S->stats);
  memcpy(x0, N_VGetArrayPointer(S->y), S->dim * sizeof *x0);
done:
  free_integrator(S);
  if (LS) SUNLinSolFree(LS);
  if (A) SUNMatDestroy(A);
  if (S->y) N_VDestroy(S->y);
  if (S->ctx) SUNContext_Free(&S->ctx);
  num_aux_work_free(&S->aw);
  lg_free(S->fired);
  lg_free(S->evw);
  num_friction_run_free(S->fr);
  S->fr = NULL;
  num_contact_run_free(S->ct);
  S->ct = NULL;
  lg_free(S->fn);
  S->fn = NULL;
  lg_free(S->evqd);
  lg_free(S->held);
  return st;
}

static void init_stats(num_sim_stats *st, const num_sim_opts *o, num_integrator integ,
                       int projects, size_t cost) {
  memset(st, 0, sizeof *st);
  st->integrator = num_resolve_integrator(integ, o->rtol, projects, cost);
  st->fail_row = st->fail_coord = -1;
  st->t_end = o->t0;
}

lg_status num_simulate(const num_system *s, const num_sim_opts *o, double *q, double *qd,
                       num_sim_output out, void *ud, num_sim_stats *stats, lg_diag *diag) {
  if (o->integrator == NUM_INT_IDA && s->m && !o->friction && !o->contact) /* else BDF */
    return num_simulate_ida(s, o, q, qd, out, ud, stats, diag);
  size_t n = s->n, m = s->m;
  int projects = m && o->stabilize == NUM_STAB_PROJECT;
  init_stats(stats, o, o->integrator == NUM_INT_IDA ? NUM_INT_BDF : o->integrator, projects,
             s->dyn->ninstr);
  if (projects && stats->integrator == NUM_INT_ADAMS) {
    lg_diag_set(diag, LG_ERR_USAGE, NULL, 0, 0, "the Adams integrator cannot project the "
                "motion onto the constraints (CVODE projects only inside BDF steps)");
    lg_diag_hint(diag, "use another `integrator` (ida, bdf, dopri), or `stabilize` "
                       "baumgarte:ALPHA,BETA or none");
    return LG_ERR_USAGE;
  }
  int work = o->aux && o->aux->work;
  sim S = {.o = o, .integ = stats->integrator, .dim = 2 * n + (size_t)work, .n = n,
           .nv = n, .m = m, .work = work, .f = lagrange_f, .observe = lagrange_observe,
           .s = s, .diag = diag, .stats = stats, .jit = o->jit_rhs, .poll_in = 1};
  if (projects) S.project = lagrange_project;
  if (S.jit) {
    stats->jit = 1;
    stats->jit_t = o->t0;
  }
  lg_status st = LG_ERR_NOMEM;
  double *x = lg_calloc(S.dim + 1, sizeof *x);
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
  /* no algebraic part: IDA's request becomes BDF */
  num_integrator asked = o->integrator == NUM_INT_IDA ? NUM_INT_BDF : o->integrator;
  int projects = o->kane_project && o->stabilize == NUM_STAB_PROJECT;
  init_stats(stats, o, asked, projects, k->dyn->ninstr);
  projects = projects && num_is_erk(stats->integrator); /* a step's end, then a restart */
  int work = o->aux && o->aux->work;
  sim S = {.o = o, .integ = stats->integrator, .dim = k->n + k->p + (size_t)work,
           .n = k->n, .nv = k->p, .m = k->m, .work = work, .f = kane_f,
           .observe = kane_observe, .ks = k, .diag = diag, .stats = stats};
  if (projects) S.project = kane_project;
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
