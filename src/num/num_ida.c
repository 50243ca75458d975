/* num_ida.c - constrained models as a DAE with IDA, in the stabilized
 * index-2 form of Gear, Gupta and Leimkuhler (GGL):
 *
 *   q' = v + G^T mu          G = dC/dq over the holonomic rows
 *   M(q) v' - J^T lam = f    the dynamics
 *   0 = C(q, t)              position level (holonomic rows)
 *   0 = J v + b              velocity level (every row)
 *   W' = dE/dt(q, v, v')     the work of everything not in V (when any)
 *
 * so that both the position and the velocity constraints hold along the
 * solution (mu vanishes on it). lam and mu are algebraic and left out of
 * the error test.
 *
 * Output points are interpolated (IDA_NORMAL), never reached with a stop
 * time: stopping exactly at each output time leaves a last step of
 * round-off size (1e-15), and the next step starts from it; the Newton
 * matrix of an index-2 system has a condition number ~ 1/h^2, so at such
 * an h the iteration cannot converge, IDA cuts h further, and the run
 * grinds a million steps at t = 0.06 (the particle in a bowl). */
#include "num_internal.h"

#include <ida/ida.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

typedef struct dae {
  const num_system *s;
  const num_sim_opts *o;
  num_work w;
  num_aux_work aw;
  size_t nh;      /* holonomic rows */
  int *hrows;     /* their indices */
  size_t N;       /* unknowns: 2n + m + nh (+1 for W) */
  int work;
  int nroots;     /* stop_when's g (when there is one), then the events' */
  int *fired;     /* nroots flags, then nroots directions */
  double *evw;    /* the events' scratch */
  double w_jump;  /* the energy resets changed (added to W) */
} dae;

/* y = [q (n), v (n), lam (m), mu (nh), W] */
static int residual(sunrealtype t, N_Vector y, N_Vector yp, N_Vector res, void *ud) {
  dae *D = ud;
  const num_system *s = D->s;
  size_t n = s->n, m = s->m;
  const double *Y = N_VGetArrayPointer(y), *Yp = N_VGetArrayPointer(yp);
  double *R = N_VGetArrayPointer(res);
  const double *q = Y, *v = Y + n, *lam = Y + 2 * n, *mu = Y + 2 * n + m;
  num_evaluate_dynamics(s, &D->w, t, q, v);
  const double *o = D->w.out, *J = o + s->o_J;
  for (size_t i = 0; i < n; i++) {
    double g = 0, dyn = -o[s->o_f + i];
    for (size_t k = 0; k < D->nh; k++) g += J[(size_t)D->hrows[k] * n + i] * mu[k];
    R[i] = Yp[i] - v[i] - g;
    for (size_t j = 0; j < n; j++) dyn += o[s->o_M + i * n + j] * Yp[n + j];
    for (size_t r = 0; r < m; r++) dyn -= J[r * n + i] * lam[r];
    R[n + i] = dyn;
  }
  for (size_t r = 0; r < m; r++) R[2 * n + r] = o[s->o_Cd + r];
  for (size_t k = 0; k < D->nh; k++) R[2 * n + m + k] = o[s->o_C + (size_t)D->hrows[k]];
  if (D->work) {
    double Wd;
    num_aux_power(D->o->aux, &D->aw, t, q, v, Yp + n, NULL, &Wd);
    R[D->N - 1] = Yp[D->N - 1] - Wd;
  }
  for (size_t i = 0; i < D->N; i++)
    if (!isfinite(R[i])) return 1; /* recoverable: IDA retries with a smaller step */
  return 0;
}

/* dF/dy + cj dF/dy' of the residual above, exact: the dynamics rows are
 * Phi's first n rows at (q'' = v', lam) and the q' rows' -G^T mu term is
 * Phi's lam part at (q'' = 0, lam = mu) minus its value at (0, 0) (Phi is
 * linear in lam); all three by forward AD (num_lin_phi_jacobian). W's row
 * keeps only cj (nothing depends on W). */
static int exact_jacobian(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector rr,
                          SUNMatrix Jm, void *ud, N_Vector t1, N_Vector t2, N_Vector t3) {
  (void)rr, (void)t1, (void)t2, (void)t3;
  dae *D = ud;
  const num_system *s = D->s;
  const num_lin *L = D->o->jac;
  size_t n = s->n, m = s->m, N1 = n + m, K = 2 * n + L->nr;
  const double *Y = N_VGetArrayPointer(y), *Yp = N_VGetArrayPointer(yp);
  const double *q = Y, *v = Y + n, *lam = Y + 2 * n, *mu = Y + 2 * n + m;
  double *P = lg_calloc(3 * N1 * K + m * K + n + 2 * m + 1, sizeof *P);
  if (!P) return -1;
  double *P0 = P + N1 * K, *Pm = P0 + N1 * K, *dcd = Pm + N1 * K, *zero = dcd + m * K;
  double *mut = zero + n; /* mu spread over the rows (holonomic ones) */
  for (size_t k = 0; k < D->nh; k++) mut[D->hrows[k]] = mu[k];
  lg_status st = num_lin_phi_jacobian(L, t, q, v, Yp + n, lam, P, dcd);
  if (st == LG_OK) st = num_lin_phi_jacobian(L, t, q, v, zero, mut, Pm, NULL);
  if (st == LG_OK) st = num_lin_phi_jacobian(L, t, q, v, zero, zero + n, P0, NULL);
  if (st != LG_OK) {
    lg_free(P);
    return -1;
  }
  num_evaluate_dynamics(s, &D->w, t, q, v);
  const double *o = D->w.out, *J = o + s->o_J;
  SUNMatZero(Jm);
  for (size_t i = 0; i < n; i++) {
    /* q' - v - G^T mu */
    SM_ELEMENT_D(Jm, i, i) = cj;
    SM_ELEMENT_D(Jm, i, n + i) = -1;
    for (size_t j = 0; j < n; j++) SM_ELEMENT_D(Jm, i, j) += Pm[i * K + j] - P0[i * K + j];
    for (size_t k = 0; k < D->nh; k++)
      SM_ELEMENT_D(Jm, i, 2 * n + m + k) = -J[(size_t)D->hrows[k] * n + i];
    /* M v' - J^T lam - f */
    for (size_t j = 0; j < n; j++) {
      SM_ELEMENT_D(Jm, n + i, j) = P[i * K + j];
      SM_ELEMENT_D(Jm, n + i, n + j) = P[i * K + n + j] + cj * o[s->o_M + i * n + j];
    }
    for (size_t r = 0; r < m; r++) SM_ELEMENT_D(Jm, n + i, 2 * n + r) = -J[r * n + i];
  }
  for (size_t r = 0; r < m; r++) /* J v + b */
    for (size_t j = 0; j < 2 * n; j++) SM_ELEMENT_D(Jm, 2 * n + r, j) = dcd[r * K + j];
  for (size_t k = 0; k < D->nh; k++) /* C(q) */
    for (size_t j = 0; j < n; j++)
      SM_ELEMENT_D(Jm, 2 * n + m + k, j) = J[(size_t)D->hrows[k] * n + j];
  if (D->work) SM_ELEMENT_D(Jm, D->N - 1, D->N - 1) = cj;
  lg_free(P);
  return 0;
}

static int root(sunrealtype t, N_Vector y, N_Vector yp, sunrealtype *g, void *ud) {
  (void)yp;
  dae *D = ud;
  const double *Y = N_VGetArrayPointer(y);
  int k = 0;
  if (D->o->aux && D->o->aux->event) g[k++] = num_aux_event(D->o->aux, &D->aw, t, Y, Y + D->s->n);
  if (D->o->events) num_events_guards(D->o->events, D->evw, t, Y, Y + D->s->n, g + k);
  for (int i = 0; i < D->nroots; i++)
    if (!isfinite(g[i])) return 1;
  return 0;
}

typedef struct ida_run {
  void *mem;
  SUNContext ctx;
  N_Vector y, yp, id, atol;
  SUNMatrix A;
  SUNLinearSolver LS;
} ida_run;

static void ida_free(ida_run *I) {
  if (I->mem) IDAFree(&I->mem);
  if (I->LS) SUNLinSolFree(I->LS);
  if (I->A) SUNMatDestroy(I->A);
  if (I->y) N_VDestroy(I->y);
  if (I->yp) N_VDestroy(I->yp);
  if (I->id) N_VDestroy(I->id);
  if (I->atol) N_VDestroy(I->atol);
  if (I->ctx) SUNContext_Free(&I->ctx);
}

/* Consistent y, y' from (q, q'): accelerations and multipliers solved. */
static lg_status initial_values(dae *D, double t0, const double *q, const double *qd,
                                ida_run *I, num_sim_stats *st, lg_diag *diag) {
  const num_system *s = D->s;
  size_t n = s->n, N = D->N;
  double *Y = N_VGetArrayPointer(I->y), *Yp = N_VGetArrayPointer(I->yp);
  double *id = N_VGetArrayPointer(I->id);
  memset(Y, 0, N * sizeof *Y);
  memset(Yp, 0, N * sizeof *Yp);
  memcpy(Y, q, n * sizeof *q);
  memcpy(Y + n, qd, n * sizeof *qd);
  memcpy(Yp, qd, n * sizeof *qd);
  num_evaluate(s, &D->w, t0, q, qd);
  lg_status r = num_solve_accel(s, &D->w, Yp + n, Y + 2 * n, diag);
  if (r != LG_OK) {
    long k = D->w.broke_at;
    if (k >= (long)n) st->fail_row = (int)(k - (long)n);
    else if (k >= 0) st->fail_coord = (int)k;
    return r;
  }
  for (size_t i = 0; i < N; i++) id[i] = i < 2 * n ? 1.0 : 0.0;
  if (D->work) {
    id[N - 1] = 1.0;
    num_aux_power(D->o->aux, &D->aw, t0, q, qd, Yp + n, NULL, &Yp[N - 1]);
  }
  return LG_OK;
}

static lg_status setup(dae *D, const num_sim_opts *o, const double *q, const double *qd,
                       ida_run *I, num_sim_stats *st, lg_diag *diag) {
  size_t N = D->N, n = D->s->n;
  if (SUNContext_Create(NULL, &I->ctx) != 0) return LG_ERR_NOMEM;
  I->y = N_VNew_Serial((sunindextype)N, I->ctx);
  I->yp = N_VNew_Serial((sunindextype)N, I->ctx);
  I->id = N_VNew_Serial((sunindextype)N, I->ctx);
  I->atol = N_VNew_Serial((sunindextype)N, I->ctx);
  if (!I->y || !I->yp || !I->id || !I->atol) return LG_ERR_NOMEM;
  num_lean_vector_ops(I->y); /* IDA's work vectors are its clones */
  num_lean_vector_ops(I->yp);
  lg_status r = initial_values(D, o->t0, q, qd, I, st, diag);
  if (r != LG_OK) return r;
  I->mem = IDACreate(I->ctx);
  if (!I->mem || IDAInit(I->mem, residual, o->t0, I->y, I->yp) != IDA_SUCCESS)
    return LG_ERR_NOMEM;
  /* The multipliers are left out of the error test, but Newton's
   * convergence test still weighs them: a differential-variable atol of
   * 1e-10 on them makes it fail at once. They get a looser one. */
  double *at = N_VGetArrayPointer(I->atol);
  double atol = num_ida_tolerance(o->atol);
  for (size_t i = 0; i < N; i++) at[i] = i < 2 * n || (D->work && i == N - 1) ? atol
                                                                    : fmax(o->atol, 1e-6);
  IDASVtolerances(I->mem, num_ida_tolerance(o->rtol), I->atol);
  IDASetUserData(I->mem, D);
  IDASetId(I->mem, I->id);
  IDASetSuppressAlg(I->mem, SUNTRUE);
  /* IDA's own first step is tiny at tight tolerances, where the index-2
   * Newton matrix is ill-conditioned: start from a moderate step and let
   * the error test shrink it if it must. */
  IDASetInitStep(I->mem, fmin(1e-4, o->dt));
  IDASetMaxNumSteps(I->mem, NUM_STEP_CHUNK);
  IDASetErrFile(I->mem, NULL);
  if (D->nroots) {
    int *dir = D->fired + D->nroots, k = 0;
    if (o->aux && o->aux->event) dir[k++] = 0;
    for (size_t i = 0; o->events && i < o->events->nev; i++) dir[k++] = o->events->dir[i];
    IDARootInit(I->mem, D->nroots, root);
    IDASetRootDirection(I->mem, dir);
  }
  I->A = SUNDenseMatrix((sunindextype)N, (sunindextype)N, I->ctx);
  I->LS = I->A ? SUNLinSol_Dense(I->y, I->A, I->ctx) : NULL;
  if (!I->LS || IDASetLinearSolver(I->mem, I->LS, I->A) != IDA_SUCCESS) return LG_ERR_NOMEM;
  if (o->jac) IDASetJacFn(I->mem, exact_jacobian);
  return LG_OK;
}

/* Energy and residuals at an output point, then the caller's callback. */
static int deliver(dae *D, double t, const double *Y, num_sim_output out, void *ud,
                   num_sim_stats *st, double *ref, int *have_ref) {
  const num_system *s = D->s;
  num_evaluate(s, &D->w, t, Y, Y + s->n); /* all outputs: T and V too */
  const double *o = D->w.out;
  num_sim_point p = {t, Y, Y + s->n, o[s->o_T], o[s->o_V], o[s->o_T] + o[s->o_V], 0,
                     o + s->o_C};
  if (D->o->aux) num_aux_power(D->o->aux, &D->aw, t, Y, Y + s->n, NULL, &p.E, NULL);
  if (D->work) p.W = Y[D->N - 1];
  p.W += D->w_jump;
  num_tally(st, &p, o + s->o_Cd, s->m, ref, have_ref);
  return out ? out(ud, &p) : 0;
}

/* The component with the largest weighted local error: a constraint row
 * (through its multiplier) or a coordinate. */
static void blame(dae *D, ida_run *I, num_sim_stats *st) {
  N_Vector e = N_VClone(I->y), w = N_VClone(I->y);
  size_t n = D->s->n, m = D->s->m;
  if (e && w && IDAGetEstLocalErrors(I->mem, e) == 0 && IDAGetErrWeights(I->mem, w) == 0) {
    const double *E = N_VGetArrayPointer(e), *W = N_VGetArrayPointer(w);
    double best = -1;
    for (size_t i = 0; i < 2 * n + m + D->nh; i++) {
      double a = fabs(E[i] * W[i]);
      if (!(a > best)) continue;
      best = a;
      st->fail_coord = i < 2 * n ? (int)(i % n) : -1;
      st->fail_row = i < 2 * n ? -1 : i < 2 * n + m ? (int)(i - 2 * n)
                                                    : D->hrows[i - 2 * n - m];
    }
  }
  if (e) N_VDestroy(e);
  if (w) N_VDestroy(w);
}

static lg_status ida_failure(dae *D, ida_run *I, num_sim_stats *st, double t, int flag,
                             double h, const num_budget *b, lg_diag *diag) {
  char cause[sizeof diag->message];
  const char *why;
  switch (flag) {
  case IDA_CONV_FAIL: why = "Newton's iteration did not converge"; break;
  case IDA_ERR_FAIL: why = "the error test failed repeatedly"; break;
  case IDA_LSETUP_FAIL: case IDA_LSOLVE_FAIL:
    why = "the iteration matrix is singular (redundant constraints or a coordinate "
          "without inertia?)";
    break;
  case IDA_RES_FAIL: case IDA_REP_RES_ERR: case IDA_FIRST_RES_FAIL:
    why = "the residual is not finite";
    break;
  default: why = NULL;
  }
  char hint[sizeof diag->hint];
  if (!why && flag == IDA_TOO_MUCH_WORK &&
      num_budget_too_long(b, t, D->o->tf, h, 0, cause, sizeof cause, hint, sizeof hint)) {
    st->fail_coord = st->fail_row = -1; /* nothing is at fault */
    num_fail(diag, st, t, cause, hint);
    return LG_ERR_NUMERIC;
  }
  if (why) snprintf(cause, sizeof cause, "%s (flag %d)", why, flag);
  else snprintf(cause, sizeof cause, "the step size collapsed to h = %.3g (the motion is "
                                     "singular or very stiff here)", h);
  blame(D, I, st);
  num_fail(diag, st, t, cause, "try `integrator` dopri (the ODE with projection onto the "
                               "constraints) or loosen `rtol`/`atol`");
  return LG_ERR_NUMERIC;
}

/* One output interval; IDA's step budget is a chunk, renewed while the
 * steps still make progress. */
static int solve_to(ida_run *I, double tout, double *t, num_budget *b, double *h,
                    double tf) {
  for (;;) {
    long before = 0, after = 0;
    IDAGetNumSteps(I->mem, &before);
    int flag = IDASolve(I->mem, tout, t, I->y, I->yp, IDA_NORMAL);
    IDAGetNumSteps(I->mem, &after);
    if (num_budget_add(b, after - before, *t, tf, h)) return IDA_TOO_MUCH_WORK;
    if (flag != IDA_TOO_MUCH_WORK) return flag;
  }
}

static double energy_at(dae *D, double t, const double *Y) {
  double E;
  if (D->o->aux) {
    num_aux_power(D->o->aux, &D->aw, t, Y, Y + D->s->n, NULL, &E, NULL);
    return E;
  }
  num_evaluate(D->s, &D->w, t, Y, Y + D->s->n);
  return D->w.out[D->s->o_T] + D->w.out[D->s->o_V];
}

/* A root (see num_simulate.c, at_events): 1 ends the run, 0 goes on
 * from the reset state (IDA restarted at consistent y, y'); -2: the reset
 * broke a constraint (diag at its `when`), -1: IDA could not restart. */
static int at_events(dae *D, ida_run *I, double t, num_sim_output out, void *ud,
                     num_sim_stats *st, double *ref, int *have_ref, lg_diag *diag) {
  int *info = D->fired, k0 = D->o->aux && D->o->aux->event ? 1 : 0;
  double *Y = N_VGetArrayPointer(I->y);
  size_t n = D->s->n;
  IDAGetRootInfo(I->mem, info);
  if (k0 && info[0]) {
    st->stopped = 1;
    deliver(D, t, Y, out, ud, st, ref, have_ref);
    return 1;
  }
  st->events++;
  if (deliver(D, t, Y, out, ud, st, ref, have_ref)) return 1;
  double *q = lg_malloc((2 * n + 1) * sizeof *q);
  if (!q) return 1;
  memcpy(q, Y, 2 * n * sizeof *q);
  if (num_events_fire(D->o->events, D->evw, info + k0, t, q, q + n)) {
    st->stopped = 1;
    lg_free(q);
    return 1;
  }
  double E0 = energy_at(D, t, Y), Wnow = D->work ? Y[D->N - 1] : 0;
  lg_diag d;
  lg_diag_clear(&d);
  lg_status r = num_events_consistent(D->s, &D->w, D->o->events, info + k0, t, q, q + n,
                                      D->o->events_project, &d);
  if (r != LG_OK) { /* the reset's own error, at its `when` */
    lg_free(q);
    st->t_end = t;
    *diag = d;
    return -2;
  }
  r = initial_values(D, t, q, q + n, I, st, &d);
  lg_free(q);
  if (r != LG_OK) {
    *diag = d;
    return -1;
  }
  if (D->work) Y[D->N - 1] = Wnow;
  double dE = energy_at(D, t, Y) - E0;
  D->w_jump += dE;
  st->event_work += dE;
  long nst = 0, nre = 0; /* IDAReInit zeroes the counters: keep them */
  IDAGetNumSteps(I->mem, &nst);
  IDAGetNumResEvals(I->mem, &nre);
  st->steps += nst;
  st->rhs_evals += nre;
  IDAReInit(I->mem, t, I->y, I->yp);
  return deliver(D, t, Y, out, ud, st, ref, have_ref) ? 1 : 0;
}

/* The row held back at held_t (when *on), now written. */
static int flush(dae *D, int *on, double held_t, const double *held, num_sim_output out,
                 void *ud, num_sim_stats *st, double *ref, int *have_ref) {
  if (!*on) return 0;
  *on = 0;
  return deliver(D, held_t, held, out, ud, st, ref, have_ref);
}

static lg_status march(dae *D, const num_sim_opts *o, ida_run *I, num_sim_output out,
                       void *ud, num_sim_stats *st, lg_diag *diag) {
  const double *Y = N_VGetArrayPointer(I->y);
  double t = o->t0, ref = 0, h = 0;
  int have_ref = 0;
  num_budget b = {0, t, 1, o->max_steps, 0};
  if (deliver(D, t, Y, out, ud, st, &ref, &have_ref)) return LG_OK;
  /* with events a row waits until IDA has moved on: an event within
   * num_events_grid_tol of it takes its place (see num_simulate.c) */
  double *held = D->nroots ? lg_malloc(D->N * sizeof *held) : NULL, held_t = 0;
  int held_on = 0, stop = 0;
  lg_status ret = D->nroots && !held ? LG_ERR_NOMEM : LG_OK;
  for (long k = 1; ret == LG_OK && !stop && t < o->tf - 1e-12 * fabs(o->tf); k++) {
    double tout = fmin(o->t0 + (double)k * o->dt, o->tf);
    int flag = solve_to(I, tout, &t, &b, &h, o->tf);
    if (flag < 0) {
      (void)flush(D, &held_on, held_t, held, out, ud, st, &ref, &have_ref);
      ret = ida_failure(D, I, st, t, flag, h, &b, diag);
      break;
    }
    if (flag == IDA_ROOT_RETURN) {
      if (held_on && fabs(t - held_t) <= num_events_grid_tol(o->rtol, held_t, o->dt))
        held_on = 0; /* the event's rows take the output row's place */
      if (flush(D, &held_on, held_t, held, out, ud, st, &ref, &have_ref)) break;
      int r = at_events(D, I, t, out, ud, st, &ref, &have_ref, diag);
      if (r == -2) ret = diag->status;
      else if (r < 0) {
        num_fail(diag, st, t, diag->message, NULL);
        ret = LG_ERR_NUMERIC;
      }
      stop = r != 0;
      if (fabs(t - tout) > num_events_grid_tol(o->rtol, tout, o->dt))
        k--; /* the same output time next, unless the event took its place */
      else if (tout >= o->tf)
        stop = 1; /* it took the last row's: the run ends here */
      continue;
    }
    if (flush(D, &held_on, held_t, held, out, ud, st, &ref, &have_ref)) break;
    if (held) {
      memcpy(held, Y, D->N * sizeof *held);
      held_t = t;
      held_on = 1;
    } else if (deliver(D, t, Y, out, ud, st, &ref, &have_ref)) {
      break;
    }
  }
  if (ret == LG_OK) {
    (void)flush(D, &held_on, held_t, held, out, ud, st, &ref, &have_ref);
    st->t_end = t;
  }
  lg_free(held);
  return ret;
}

static lg_status run(dae *D, const num_sim_opts *o, double *q, double *qd,
                     num_sim_output out, void *ud, num_sim_stats *stats, lg_diag *diag) {
  ida_run I = {0};
  lg_status st = setup(D, o, q, qd, &I, stats, diag);
  if (st == LG_ERR_NUMERIC) {
    char cause[sizeof diag->message];
    memcpy(cause, diag->message, sizeof cause);
    num_fail(diag, stats, o->t0, cause, diag->hint[0] ? diag->hint : NULL);
  }
  if (st == LG_OK) {
    st = march(D, o, &I, out, ud, stats, diag);
    long nst = 0, nre = 0;
    IDAGetNumSteps(I.mem, &nst);
    IDAGetNumResEvals(I.mem, &nre);
    stats->steps += nst;
    stats->rhs_evals += nre;
    memcpy(q, N_VGetArrayPointer(I.y), D->s->n * sizeof *q);
    memcpy(qd, N_VGetArrayPointer(I.y) + D->s->n, D->s->n * sizeof *qd);
  }
  ida_free(&I);
  return st;
}

lg_status num_simulate_ida(const num_system *s, const num_sim_opts *o, double *q,
                           double *qd, num_sim_output out, void *ud, num_sim_stats *stats,
                           lg_diag *diag) {
  memset(stats, 0, sizeof *stats);
  stats->integrator = NUM_INT_IDA;
  stats->fail_row = stats->fail_coord = -1;
  stats->t_end = o->t0;
  dae D = {.s = s, .o = o, .work = o->aux && o->aux->work};
  lg_status st = num_work_init(s, &D.w);
  if (st != LG_OK) return st;
  if (o->aux && num_aux_work_init(o->aux, &D.aw) != LG_OK) st = LG_ERR_NOMEM;
  D.hrows = lg_calloc(s->m + 1, sizeof *D.hrows);
  if (!D.hrows) st = LG_ERR_NOMEM;
  for (size_t r = 0; st == LG_OK && r < s->m; r++)
    if (s->row_holonomic[r]) D.hrows[D.nh++] = (int)r;
  D.N = 2 * s->n + s->m + D.nh + (size_t)D.work;
  D.nroots = (o->aux && o->aux->event ? 1 : 0) + (o->events ? (int)o->events->nev : 0);
  D.fired = lg_calloc(2 * (size_t)D.nroots + 1, sizeof *D.fired);
  D.evw = o->events ? lg_calloc(num_events_work_size(o->events), sizeof *D.evw) : NULL;
  if (!D.fired || (o->events && !D.evw)) st = LG_ERR_NOMEM;
  if (st == LG_OK) st = run(&D, o, q, qd, out, ud, stats, diag);
  lg_free(D.hrows);
  lg_free(D.fired);
  lg_free(D.evw);
  num_aux_work_free(&D.aw);
  num_work_free(&D.w);
  return st;
}
