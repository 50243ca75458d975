/* num_ida.c - constrained models as a DAE with IDA, in the stabilized
 * index-2 form of Gear, Gupta and Leimkuhler (GGL):
 *
 *   q' = v + G^T mu          G = dC/dq over the holonomic rows
 *   M(q) v' - J^T lam = f    the dynamics
 *   0 = C(q, t)              position level (holonomic rows)
 *   0 = J v + b              velocity level (every row)
 *
 * so that both the position and the velocity constraints hold along the
 * solution (mu vanishes on it). lam and mu are algebraic and left out of
 * the error test. */
#include "num.h"

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
  num_work w;
  size_t nh;      /* holonomic rows */
  int *hrows;     /* their indices */
} dae;

/* y = [q (n), v (n), lam (m), mu (nh)] */
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
  for (size_t i = 0; i < 2 * n + m + D->nh; i++)
    if (!isfinite(R[i])) return 1; /* recoverable: IDA retries with a smaller step */
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
                                ida_run *I, lg_diag *diag) {
  const num_system *s = D->s;
  size_t n = s->n, m = s->m, N = 2 * n + m + D->nh;
  double *Y = N_VGetArrayPointer(I->y), *Yp = N_VGetArrayPointer(I->yp);
  double *id = N_VGetArrayPointer(I->id);
  memset(Y, 0, N * sizeof *Y);
  memset(Yp, 0, N * sizeof *Yp);
  memcpy(Y, q, n * sizeof *q);
  memcpy(Y + n, qd, n * sizeof *qd);
  memcpy(Yp, qd, n * sizeof *qd);
  num_evaluate(s, &D->w, t0, q, qd);
  lg_status st = num_solve_accel(s, &D->w, Yp + n, Y + 2 * n, diag);
  for (size_t i = 0; i < N; i++) id[i] = i < 2 * n ? 1.0 : 0.0;
  return st;
}

static lg_status setup(dae *D, const num_sim_opts *o, const double *q, const double *qd,
                       ida_run *I, lg_diag *diag) {
  size_t N = 2 * D->s->n + D->s->m + D->nh;
  if (SUNContext_Create(NULL, &I->ctx) != 0) return LG_ERR_NOMEM;
  I->y = N_VNew_Serial((sunindextype)N, I->ctx);
  I->yp = N_VNew_Serial((sunindextype)N, I->ctx);
  I->id = N_VNew_Serial((sunindextype)N, I->ctx);
  if (!I->y || !I->yp || !I->id) return LG_ERR_NOMEM;
  lg_status st = initial_values(D, o->t0, q, qd, I, diag);
  if (st != LG_OK) return st;
  I->mem = IDACreate(I->ctx);
  if (!I->mem || IDAInit(I->mem, residual, o->t0, I->y, I->yp) != IDA_SUCCESS)
    return LG_ERR_NOMEM;
  /* The multipliers are left out of the error test, but Newton's
   * convergence test still weighs them: a differential-variable atol of
   * 1e-10 on them makes it fail at once. They get a looser one. */
  I->atol = N_VNew_Serial((sunindextype)N, I->ctx);
  if (!I->atol) return LG_ERR_NOMEM;
  for (size_t i = 0; i < N; i++)
    N_VGetArrayPointer(I->atol)[i] = i < 2 * D->s->n ? o->atol : fmax(o->atol, 1e-6);
  IDASVtolerances(I->mem, o->rtol, I->atol);
  IDASetUserData(I->mem, D);
  IDASetId(I->mem, I->id);
  IDASetSuppressAlg(I->mem, SUNTRUE);
  /* IDA's own first step is tiny at tight tolerances, and on an index-2
   * system the Newton matrix is then too ill-conditioned to converge
   * (condition ~ 1/h^2): start from a moderate step and let the error test
   * shrink it if it must. */
  IDASetInitStep(I->mem, fmin(1e-4, o->dt));
  IDASetMaxNumSteps(I->mem, 1000000);
  IDASetErrFile(I->mem, NULL);
  I->A = SUNDenseMatrix((sunindextype)N, (sunindextype)N, I->ctx);
  I->LS = I->A ? SUNLinSol_Dense(I->y, I->A, I->ctx) : NULL;
  if (!I->LS || IDASetLinearSolver(I->mem, I->LS, I->A) != IDA_SUCCESS) return LG_ERR_NOMEM;
  return LG_OK;
}

/* Energy and residuals at an output point, then the caller's callback. */
static int deliver(dae *D, double t, const double *Y, num_sim_output out, void *ud,
                   num_sim_stats *st, double E0, double *C, double *Cd) {
  const num_system *s = D->s;
  num_evaluate(s, &D->w, t, Y, Y + s->n); /* all outputs: T and V too */
  memcpy(C, D->w.out + s->o_C, s->m * sizeof *C);
  memcpy(Cd, D->w.out + s->o_Cd, s->m * sizeof *Cd);
  double T = D->w.out[s->o_T], V = D->w.out[s->o_V];
  double drift = fabs(T + V - E0);
  if (drift > st->max_energy_drift || isnan(drift)) st->max_energy_drift = drift;
  for (size_t r = 0; r < s->m; r++) {
    double a = fmax(fabs(C[r]), fabs(Cd[r]));
    if (a > st->max_residual || isnan(a)) st->max_residual = a;
  }
  return out ? out(ud, t, Y, Y + s->n, T, V, C) : 0;
}

static lg_status march(dae *D, const num_sim_opts *o, ida_run *I, num_sim_output out,
                       void *ud, num_sim_stats *st, lg_diag *diag) {
  const num_system *s = D->s;
  double *Y = N_VGetArrayPointer(I->y);
  double C[s->m + 1], Cd[s->m + 1];
  num_evaluate(s, &D->w, o->t0, Y, Y + s->n);
  double E0 = D->w.out[s->o_T] + D->w.out[s->o_V], t = o->t0;
  if (deliver(D, t, Y, out, ud, st, E0, C, Cd)) return LG_OK;
  for (long k = 1; t < o->tf - 1e-12 * fabs(o->tf); k++) {
    double tout = fmin(o->t0 + (double)k * o->dt, o->tf);
    IDASetStopTime(I->mem, tout);
    int flag = IDASolve(I->mem, tout, &t, I->y, I->yp, IDA_NORMAL);
    if (flag < 0) {
      lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                  "at t = %.10g: IDA failed (flag %d: %s)", t, flag,
                  flag == IDA_CONV_FAIL || flag == IDA_ERR_FAIL
                      ? "no convergence: the motion may be singular or blow up"
                      : "the residual could not be evaluated: the state is no longer finite");
      st->t_end = t;
      return LG_ERR_NUMERIC;
    }
    if (deliver(D, t, Y, out, ud, st, E0, C, Cd)) break;
  }
  st->t_end = t;
  return LG_OK;
}

lg_status num_simulate_ida(const num_system *s, const num_sim_opts *o, double *q,
                           double *qd, num_sim_output out, void *ud, num_sim_stats *stats,
                           lg_diag *diag) {
  dae D = {.s = s};
  ida_run I = {0};
  lg_status st = num_work_init(s, &D.w);
  if (st != LG_OK) return st;
  D.hrows = lg_calloc(s->m + 1, sizeof *D.hrows);
  if (!D.hrows) st = LG_ERR_NOMEM;
  for (size_t r = 0; st == LG_OK && r < s->m; r++)
    if (s->row_holonomic[r]) D.hrows[D.nh++] = (int)r;
  if (st == LG_OK) st = setup(&D, o, q, qd, &I, diag);
  if (st == LG_OK) {
    st = march(&D, o, &I, out, ud, stats, diag);
    long nst = 0, nre = 0;
    IDAGetNumSteps(I.mem, &nst);
    IDAGetNumResEvals(I.mem, &nre);
    stats->steps = nst;
    stats->rhs_evals = nre;
    memcpy(q, N_VGetArrayPointer(I.y), s->n * sizeof *q);
    memcpy(qd, N_VGetArrayPointer(I.y) + s->n, s->n * sizeof *qd);
  }
  ida_free(&I);
  lg_free(D.hrows);
  num_work_free(&D.w);
  return st;
}
