/* num_events.c - the model's `when` statements as tapes (guards and reset
 * values over [t, q, q', params]), their reset maps, and the rates made
 * consistent with velocity constraints after a reset (the constraints'
 * impulsive response, a projection in the mass-matrix metric). */
#include "num.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

void num_events_free(num_events *ev) {
  if (!ev) return;
  sym_tape_free(ev->guard);
  sym_tape_free(ev->reset);
  lg_free(ev->dir);
  lg_free(ev->stop);
  lg_free(ev->off);
  lg_free(ev->target);
  lg_free(ev->where);
  lg_free(ev);
}

static lg_status build(mech_model *mm, const mech_eom *e, const num_event_def *defs,
                       num_events *ev, const num_setting *set, size_t nset, lg_diag *diag) {
  const sym_node **o = lg_malloc((ev->nev + ev->nval + 1) * sizeof *o);
  if (!o) return LG_ERR_NOMEM;
  for (size_t i = 0; i < ev->nev; i++) o[i] = defs[i].g;
  for (size_t i = 0, k = ev->nev; i < ev->nev; i++)
    for (size_t a = 0; a < defs[i].nset; a++) o[k++] = defs[i].value[a];
  lg_status st = num_substitute_inputs(mm, set, nset, o, ev->nev + ev->nval);
  if (st == LG_OK) st = num_state_tape(mm, e, o, ev->nev, "an event", &ev->guard, diag);
  if (st == LG_OK && ev->nval)
    st = num_state_tape(mm, e, o + ev->nev, ev->nval, "an event", &ev->reset, diag);
  lg_free(o);
  return st;
}

lg_status num_events_build(mech_model *mm, const mech_eom *e, const num_event_def *defs,
                           size_t nev, const num_setting *set, size_t nset, num_events **out,
                           lg_diag *diag) {
  *out = NULL;
  num_events *ev = lg_calloc(1, sizeof *ev);
  if (!ev) return LG_ERR_NOMEM;
  ev->nev = nev;
  ev->n = e->n;
  ev->np = mech_nparams(mm);
  for (size_t i = 0; i < nev; i++) ev->nval += defs[i].nset;
  ev->dir = lg_calloc(nev + 1, sizeof *ev->dir);
  ev->stop = lg_calloc(nev + 1, sizeof *ev->stop);
  ev->off = lg_calloc(nev + 1, sizeof *ev->off);
  ev->target = lg_calloc(ev->nval + 1, sizeof *ev->target);
  ev->where = lg_calloc(2 * nev + 1, sizeof *ev->where);
  lg_status st = ev->dir && ev->stop && ev->off && ev->target && ev->where ? LG_OK
                                                                          : LG_ERR_NOMEM;
  for (size_t i = 0, k = 0; st == LG_OK && i < nev; i++) {
    ev->dir[i] = defs[i].dir;
    ev->stop[i] = defs[i].stop;
    ev->off[i] = k;
    ev->where[2 * i] = defs[i].line;
    ev->where[2 * i + 1] = defs[i].col;
    for (size_t a = 0; a < defs[i].nset; a++, k++)
      ev->target[k] = defs[i].target[a] + (defs[i].rate[a] ? (int)ev->n : 0);
    ev->off[i + 1] = k;
  }
  if (st == LG_OK) st = build(mm, e, defs, ev, set, nset, diag);
  if (st != LG_OK) {
    num_events_free(ev);
    return st;
  }
  *out = ev;
  return LG_OK;
}

size_t num_events_work_size(const num_events *ev) {
  size_t slots = ev->guard->nslots;
  if (ev->reset && ev->reset->nslots > slots) slots = ev->reset->nslots;
  return 1 + 2 * ev->n + ev->np + ev->nval + slots + 1;
}

static double *load(const num_events *ev, double *work, double t, const double *q,
                    const double *qd) {
  num_state_load(work, ev->n, ev->params, ev->np, t, q, qd);
  return work + 1 + 2 * ev->n + ev->np; /* then nval values, then the slots */
}

void num_events_guards(const num_events *ev, double *work, double t, const double *q,
                       const double *qd, double *g) {
  double *rest = load(ev, work, t, q, qd);
  sym_tape_eval(ev->guard, work, g, rest + ev->nval);
}

void num_events_apply(const num_events *ev, double *work, size_t i, double t, double *q,
                      double *qd) {
  if (!ev->reset || ev->off[i] == ev->off[i + 1]) return;
  double *val = load(ev, work, t, q, qd);
  sym_tape_eval(ev->reset, work, val, val + ev->nval);
  for (size_t k = ev->off[i]; k < ev->off[i + 1]; k++) {
    int at = ev->target[k];
    if (at < (int)ev->n) q[at] = val[k];
    else qd[at - (int)ev->n] = val[k];
  }
}

/* [[M, -J^T], [J, 0]] [d; mu] = [0; -(J q' + b)], then q' += d: the least
 * change of q' in the metric of M that satisfies the velocity
 * constraints (and so the least kinetic energy of the change). */
lg_status num_events_project_rates(const num_system *s, num_work *w, double t,
                                   const double *q, double *qd) {
  size_t n = s->n, m = s->m, N = n + m;
  if (!m) return LG_OK;
  num_evaluate_dynamics(s, w, t, q, qd);
  double *A = lg_calloc(N * N + N * (n + m) + N + 1, sizeof *A);
  double *MJ = A ? A + N * N : NULL, *rhs = A ? MJ + n * (n + m) : NULL;
  lapack_int *ipiv = lg_malloc((N + 1) * sizeof *ipiv);
  if (!A || !ipiv) {
    lg_free(A);
    lg_free(ipiv);
    return LG_ERR_NOMEM;
  }
  num_mass_matrix(s, w, MJ); /* [M, -J^T] */
  const double *J = w->out + s->o_J;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n + m; j++) A[i * N + j] = MJ[i * (n + m) + j];
  for (size_t r = 0; r < m; r++) {
    for (size_t j = 0; j < n; j++) A[(n + r) * N + j] = J[r * n + j];
    rhs[n + r] = -w->out[s->o_Cd + r];
  }
  int ok = LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)N, 1, A, (lapack_int)N, ipiv, rhs, 1) == 0;
  for (size_t i = 0; ok && i < n; i++) qd[i] += rhs[i];
  lg_free(A);
  lg_free(ipiv);
  return ok ? LG_OK : LG_ERR_NUMERIC;
}

int num_events_fire(const num_events *ev, double *work, const int *fired, double t,
                    double *q, double *qd) {
  for (size_t i = 0; i < ev->nev; i++)
    if (fired[i] && ev->stop[i]) return 1;
  for (size_t i = 0; i < ev->nev; i++)
    if (fired[i]) num_events_apply(ev, work, i, t, q, qd);
  return 0;
}
