/* num_contact.c - `contact P plane O n restitution e` (MODEL-FORMAT 1.1):
 * a unilateral constraint g(q, t) = dot(pos(P) - pos(O), n/|n|) >= 0,
 * open or closed, switched by events (frictionless so far).
 *
 * Open: nothing acts; the guard g fires on a downward crossing (an
 * arrival). An arrival is an impact: the normal velocity g' after is -e
 * times before (Newton), through the impulse G^T Lambda in the
 * mass-matrix metric with the model's velocity constraints and the closed
 * contacts kept (G = dg/dq):
 *   [[M, -J^T, -G^T], [J, 0, 0], [G, 0, 0]] [dq'; mu; Lambda] = [0; -(J q' + b); v+ - g'].
 * Zeno: impacts that accumulate (a ball coming to rest) would take
 * infinitely many events in finite time. After an impact whose rebound
 * could rise no higher than ZENO_HEIGHT times the absolute tolerance
 * (v+^2 <= 2 |a| h, a the normal acceleration the free motion would have
 * there, pressing into the plane), the impact is made plastic (v+ = 0) and
 * the contact closes: the run ends with a bounded number of events (with
 * e = 0.8 from 1 m at atol 1e-12, about 50).
 * Closed: g = 0 is one more holonomic constraint whose multiplier is the
 * normal force fn (g'' = G q'' - gc = 0 as a row of the acceleration
 * solve); its guard fn fires when the force would turn negative
 * (lift-off: the contact opens). W' = dE/dt along the motion (num_aux),
 * and the energy an impact removes goes into W through the events' jump. */
#include "num.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

enum { ZENO_HEIGHT = 1000 };
enum { PER = 5 }; /* g, g', gc, e, mu; then G (n) */

struct num_contact_run {
  const num_contact *ct;
  const num_system *s;
  double atol;
  int *closed, *armed; /* K each */
  double *fn;          /* K: the normal force at the last solve */
  double *val;         /* K (PER + n): the tape's values at the last load */
  double *in, *slots, *A, *b, *qdd;
  lapack_int *ipiv;
};

void num_contact_free(num_contact *ct) {
  if (!ct) return;
  sym_tape_free(ct->tape);
  lg_free(ct);
}

lg_status num_contact_build(mech_model *mm, const mech_eom *e, const num_contact_def *defs,
                            size_t K, const num_setting *set, size_t nset, num_contact **out,
                            lg_diag *diag) {
  *out = NULL;
  num_contact *ct = lg_calloc(1, sizeof *ct);
  if (!ct) return LG_ERR_NOMEM;
  ct->K = K;
  ct->n = e->n;
  ct->np = mech_nparams(mm);
  sym_ctx *c = mech_ctx(mm);
  size_t n = e->n, nin = 1 + 2 * n + ct->np, per = PER + n;
  const sym_node **in = lg_malloc(nin * sizeof *in);
  const sym_node **o = lg_malloc((K * per + 1) * sizeof *o);
  const sym_node **zero = lg_malloc((n + 1) * sizeof *zero);
  lg_status st = in && o && zero ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) {
    size_t j = 0;
    in[j++] = sym_time(c);
    for (size_t i = 0; i < n; i++) in[j++] = e->q[i];
    for (size_t i = 0; i < n; i++) in[j++] = e->qd[i];
    for (size_t i = 0; i < ct->np; i++) in[j++] = mech_param(mm, i);
    for (size_t i = 0; i < n; i++) zero[i] = sym_int(c, 0);
    for (size_t k = 0; k < K && st == LG_OK; k++) {
      const sym_node **ok = o + k * per, *g = defs[k].g;
      const sym_node *gd = sym_dt(c, g), *gdd = gd ? sym_dt(c, gd) : NULL;
      const sym_node *free = gdd ? sym_subst(c, gdd, n, e->qdd, zero) : NULL;
      ok[0] = g;
      ok[1] = gd;
      ok[2] = free ? sym_neg(c, free) : NULL;
      ok[3] = defs[k].e;
      ok[4] = defs[k].mu ? defs[k].mu : sym_int(c, 0);
      for (size_t i = 0; i < n; i++) ok[PER + i] = sym_diff(c, g, e->q[i]);
      for (size_t i = 0; i < per; i++)
        if (!ok[i]) st = LG_ERR_NOMEM;
    }
    const sym_node *missing = NULL;
    if (st == LG_OK) st = num_substitute_inputs(mm, set, nset, o, K * per);
    if (st == LG_OK) st = sym_tape_build(c, nin, in, K * per, o, &ct->tape, &missing);
    if (st == LG_ERR_MODEL)
      lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0, "a contact uses '%s', which has no numeric "
                  "value", missing && missing->v.name ? missing->v.name : "?");
  }
  lg_free(in);
  lg_free(o);
  lg_free(zero);
  if (st != LG_OK) {
    num_contact_free(ct);
    return st;
  }
  *out = ct;
  return LG_OK;
}

static void load(num_contact_run *r, double t, const double *q, const double *qd) {
  const num_contact *ct = r->ct;
  size_t n = ct->n;
  r->in[0] = t;
  memcpy(r->in + 1, q, n * sizeof *q);
  memcpy(r->in + 1 + n, qd, n * sizeof *qd);
  if (ct->np) memcpy(r->in + 1 + 2 * n, ct->params, ct->np * sizeof *r->in);
  sym_tape_eval(ct->tape, r->in, r->val, r->slots);
}

static const double *row(const num_contact_run *r, size_t k) {
  return r->val + k * (PER + r->ct->n);
}

void num_contact_run_free(num_contact_run *r) {
  if (!r) return;
  lg_free(r->closed);
  lg_free(r->armed);
  lg_free(r->fn);
  lg_free(r->val);
  lg_free(r->in);
  lg_free(r->slots);
  lg_free(r->A);
  lg_free(r->qdd);
  lg_free(r->ipiv);
  lg_free(r);
}

num_contact_run *num_contact_run_new(const num_contact *ct, const num_system *s, double atol) {
  num_contact_run *r = lg_calloc(1, sizeof *r);
  if (!r) return NULL;
  size_t K = ct->K, N = s->n + s->m + K;
  r->ct = ct;
  r->s = s;
  r->atol = atol;
  r->closed = lg_calloc(K + 1, sizeof *r->closed);
  r->armed = lg_calloc(K + 1, sizeof *r->armed);
  r->fn = lg_calloc(K + 1, sizeof *r->fn);
  r->val = lg_calloc(K * (PER + ct->n) + 1, sizeof *r->val);
  r->in = lg_calloc(1 + 2 * ct->n + ct->np, sizeof *r->in);
  r->slots = lg_calloc(ct->tape->nslots + 1, sizeof *r->slots);
  r->A = lg_calloc(N * N + N + 1, sizeof *r->A);
  r->qdd = lg_calloc(N + 1, sizeof *r->qdd);
  r->ipiv = lg_calloc(N + 1, sizeof *r->ipiv);
  if (!r->closed || !r->armed || !r->fn || !r->val || !r->in || !r->slots || !r->A ||
      !r->qdd || !r->ipiv) {
    num_contact_run_free(r);
    return NULL;
  }
  r->b = r->A + N * N;
  return r;
}

/* The augmented matrix with the rows of the closed contacts (and of
 * contact `also` when it is not negative) after num_evaluate_dynamics;
 * returns its size. The right-hand side is left to the caller. */
static size_t assemble(num_contact_run *r, const num_work *w, long also) {
  const num_system *s = r->s;
  size_t n = s->n, m = s->m, N = n + m;
  for (size_t k = 0; k < r->ct->K; k++) N += r->closed[k] || (long)k == also;
  double *A = r->A;
  const double *o = w->out;
  memset(A, 0, N * N * sizeof *A); /* row-major */
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) A[i * N + j] = o[s->o_M + i * n + j];
    for (size_t k = 0; k < m; k++) {
      A[i * N + n + k] = -o[s->o_J + k * n + i];
      A[(n + k) * N + i] = o[s->o_J + k * n + i];
    }
  }
  for (size_t k = 0, a = n + m; k < r->ct->K; k++) {
    if (!r->closed[k] && (long)k != also) continue;
    const double *G = row(r, k) + PER;
    for (size_t i = 0; i < n; i++) {
      A[i * N + a] = -G[i];
      A[a * N + i] = G[i];
    }
    a++;
  }
  return N;
}

lg_status num_contact_accel(num_contact_run *r, num_work *w, double t, const double *q,
                            const double *qd, double *qdd, double *lam) {
  const num_system *s = r->s;
  size_t n = s->n, m = s->m;
  load(r, t, q, qd);
  size_t N = assemble(r, w, -1);
  for (size_t i = 0; i < n; i++) r->b[i] = w->out[s->o_f + i];
  for (size_t k = 0; k < m; k++) r->b[n + k] = w->out[s->o_gc + k];
  for (size_t k = 0, a = n + m; k < r->ct->K; k++)
    if (r->closed[k]) r->b[a++] = row(r, k)[2];
  if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)N, 1, r->A, (lapack_int)N, r->ipiv, r->b, 1))
    return LG_ERR_NUMERIC;
  memcpy(qdd, r->b, n * sizeof *qdd);
  if (m && lam) memcpy(lam, r->b + n, m * sizeof *lam);
  for (size_t k = 0, a = n + m; k < r->ct->K; k++)
    r->fn[k] = r->closed[k] ? r->b[a++] : 0;
  return LG_OK;
}

/* q' += dq' so that contact k's normal velocity becomes v (the closed
 * contacts' stay 0, the velocity constraints hold). */
static lg_status impulse(num_contact_run *r, num_work *w, size_t k, double v, double t,
                         const double *q, double *qd) {
  const num_system *s = r->s;
  size_t n = s->n, m = s->m;
  num_evaluate_dynamics(s, w, t, q, qd);
  load(r, t, q, qd);
  size_t N = assemble(r, w, (long)k);
  memset(r->b, 0, N * sizeof *r->b);
  for (size_t j = 0; j < m; j++) r->b[n + j] = -w->out[s->o_Cd + j];
  for (size_t j = 0, a = n + m; j < r->ct->K; j++) {
    if (!r->closed[j] && j != k) continue;
    r->b[a++] = (j == k ? v : 0) - row(r, j)[1];
  }
  if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)N, 1, r->A, (lapack_int)N, r->ipiv, r->b, 1))
    return LG_ERR_NUMERIC;
  for (size_t i = 0; i < n; i++) qd[i] += r->b[i];
  return LG_OK;
}

/* g'' of contact k at the state with the other contacts as they are and k
 * open (the free motion's normal acceleration). */
static double free_accel(num_contact_run *r, num_work *w, size_t k, double t, const double *q,
                         const double *qd) {
  int keep = r->closed[k];
  r->closed[k] = 0;
  num_evaluate_dynamics(r->s, w, t, q, qd);
  double a = NAN;
  if (num_contact_accel(r, w, t, q, qd, r->qdd, r->qdd + r->s->n) == LG_OK) {
    const double *G = row(r, k) + PER;
    a = -row(r, k)[2];
    for (size_t i = 0; i < r->s->n; i++) a += G[i] * r->qdd[i];
  }
  r->closed[k] = keep;
  return a;
}

/* Close contact k at rest (plastic) when the free motion presses into the
 * plane; returns whether it closed. */
static int close_if_pressed(num_contact_run *r, num_work *w, size_t k, double t,
                            const double *q, double *qd) {
  double a = free_accel(r, w, k, t, q, qd);
  if (!(a < 0)) return 0;
  if (impulse(r, w, k, 0, t, q, qd) != LG_OK) return 0;
  r->closed[k] = 1;
  return 1;
}

lg_status num_contact_check(const num_contact *ct, double t, const double *q,
                            const double *qd, double atol, size_t *below) {
  num_system none = {0};
  none.n = ct->n;
  num_contact_run *r = num_contact_run_new(ct, &none, atol);
  if (!r) return LG_ERR_NOMEM;
  load(r, t, q, qd);
  lg_status st = LG_OK;
  for (size_t k = 0; k < ct->K && st == LG_OK; k++)
    if (row(r, k)[0] < -ZENO_HEIGHT * atol) {
      *below = k;
      st = LG_ERR_MODEL;
    }
  num_contact_run_free(r);
  return st;
}

void num_contact_start(num_contact_run *r, num_work *w, double t, const double *q,
                       double *qd) {
  load(r, t, q, qd);
  double tol = ZENO_HEIGHT * r->atol;
  for (size_t k = 0; k < r->ct->K; k++) {
    double g = row(r, k)[0], gd = row(r, k)[1];
    r->armed[k] = g > tol;
    if (g <= tol && gd <= 0 && fabs(gd) <= tol) close_if_pressed(r, w, k, t, q, qd);
    load(r, t, q, qd);
  }
}

void num_contact_guards(num_contact_run *r, num_work *w, double t, const double *q,
                        const double *qd, double *g) {
  const num_contact *ct = r->ct;
  int any = 0;
  for (size_t k = 0; k < ct->K; k++) any |= r->closed[k];
  if (any) {
    num_evaluate_dynamics(r->s, w, t, q, qd);
    if (num_contact_accel(r, w, t, q, qd, r->qdd, r->qdd + r->s->n) != LG_OK)
      for (size_t k = 0; k < ct->K; k++) r->fn[k] = NAN;
  } else
    load(r, t, q, qd);
  for (size_t k = 0; k < ct->K; k++) {
    if (r->closed[k]) {
      g[k] = r->fn[k];
      continue;
    }
    /* After an impact or a lift-off g starts at (about) 0 moving away:
     * the guard reads 1 until the gap has opened or the point turns back
     * towards the plane, so that the restart is never taken for an
     * arrival. */
    double gap = row(r, k)[0];
    if (!r->armed[k] && (gap > 0 || row(r, k)[1] < 0)) r->armed[k] = 1;
    g[k] = r->armed[k] ? gap : 1;
  }
}

int num_contact_switch(num_contact_run *r, num_work *w, const int *fired, double t,
                       double h, const double *q, double *qd, long *impacts, long *liftoffs) {
  int changed = 0;
  for (size_t k = 0; k < r->ct->K; k++) {
    if (!fired[k]) continue;
    changed++;
    if (r->closed[k]) { /* the normal force reached 0: lift-off */
      r->closed[k] = 0;
      r->armed[k] = 0;
      r->fn[k] = 0;
      ++*liftoffs;
      continue;
    }
    load(r, t, q, qd);
    double vm = row(r, k)[1], e = row(r, k)[3];
    r->armed[k] = 0;
    ++*impacts;
    if (!(vm < 0)) continue; /* grazing: nothing to stop */
    double vp = -e * vm, a = free_accel(r, w, k, t, q, qd);
    (void)h;
    /* comes to rest: a rebound lower than the tolerance resolves */
    if (a < 0 && vp * vp <= 2 * -a * ZENO_HEIGHT * r->atol) {
      if (close_if_pressed(r, w, k, t, q, qd)) continue;
    }
    impulse(r, w, k, vp, t, q, qd);
  }
  return changed;
}

void num_contact_forces(num_contact_run *r, num_work *w, double t, const double *q,
                        const double *qd, double *fn) {
  int any = 0;
  for (size_t k = 0; k < r->ct->K; k++) any |= r->closed[k];
  if (any) {
    num_evaluate_dynamics(r->s, w, t, q, qd);
    if (num_contact_accel(r, w, t, q, qd, r->qdd, r->qdd + r->s->n) != LG_OK)
      for (size_t k = 0; k < r->ct->K; k++) r->fn[k] = NAN;
  }
  for (size_t k = 0; k < r->ct->K; k++) fn[k] = r->closed[k] ? r->fn[k] : 0;
}
