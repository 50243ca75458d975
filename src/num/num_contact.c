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
/* each contact's tape values: g, g', gc, e, mu, vt, bt, then G = dg/dq (n)
 * and T = dvt/dq' (n); vt the tangential velocity (0 without friction),
 * bt = -(vt' at q'' = 0) */
enum { PER = 7, VT = 5, BT = 6 };
#define PER_N(n) (PER + 2 * (n))

struct num_contact_run {
  const num_contact *ct;
  const num_system *s;
  double atol;
  int *closed, *armed; /* K each */
  int *slip, *sarmed;  /* K each: friction's mode in contact (+1, -1, 0 stick)
                          and whether a slip's guard is live */
  double *ft;          /* K: the friction force at the last solve */
  double *fn;          /* K: the normal force at the last solve */
  double *val;         /* K (PER + n): the tape's values at the last load */
  double *in, *slots, *A, *b, *qdd;
  lapack_int *ipiv;
};

void num_contact_free(num_contact *ct) {
  if (!ct) return;
  sym_tape_free(ct->tape);
  lg_free(ct->fric);
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
  size_t n = e->n, per = PER_N(n);
  const sym_node **o = lg_malloc((K * per + 1) * sizeof *o);
  const sym_node **zero = lg_malloc((n + 1) * sizeof *zero);
  ct->fric = lg_calloc(K + 1, sizeof *ct->fric);
  lg_status st = o && zero && ct->fric ? LG_OK : LG_ERR_NOMEM;
  for (size_t k = 0; st == LG_OK && k < K; k++) ct->fric[k] = defs[k].vt != NULL;
  if (st == LG_OK) {
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
      const sym_node *vt = defs[k].vt ? defs[k].vt : sym_int(c, 0);
      const sym_node *vtd = sym_dt(c, vt);
      const sym_node *vfree = vtd ? sym_subst(c, vtd, n, e->qdd, zero) : NULL;
      ok[VT] = vt;
      ok[BT] = vfree ? sym_neg(c, vfree) : NULL;
      for (size_t i = 0; i < n; i++) ok[PER + i] = sym_diff(c, g, e->q[i]);
      for (size_t i = 0; i < n; i++) ok[PER + n + i] = sym_diff(c, vt, e->qd[i]);
      for (size_t i = 0; i < per; i++)
        if (!ok[i]) st = LG_ERR_NOMEM;
    }
    if (st == LG_OK) st = num_substitute_inputs(mm, set, nset, o, K * per);
    if (st == LG_OK) st = num_state_tape(mm, e, o, K * per, "a contact", &ct->tape, diag);
  }
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
  num_state_load(r->in, n, ct->params, ct->np, t, q, qd);
  sym_tape_eval(ct->tape, r->in, r->val, r->slots);
}

static const double *row(const num_contact_run *r, size_t k) {
  return r->val + k * PER_N(r->ct->n);
}

void num_contact_run_free(num_contact_run *r) {
  if (!r) return;
  lg_free(r->closed);
  lg_free(r->armed);
  lg_free(r->slip);
  lg_free(r->sarmed);
  lg_free(r->ft);
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
  size_t K = ct->K, N = s->n + s->m + 2 * K;
  r->ct = ct;
  r->s = s;
  r->atol = atol;
  r->closed = lg_calloc(K + 1, sizeof *r->closed);
  r->armed = lg_calloc(K + 1, sizeof *r->armed);
  r->slip = lg_calloc(K + 1, sizeof *r->slip);
  r->sarmed = lg_calloc(K + 1, sizeof *r->sarmed);
  r->ft = lg_calloc(K + 1, sizeof *r->ft);
  r->fn = lg_calloc(K + 1, sizeof *r->fn);
  r->val = lg_calloc(K * PER_N(ct->n) + 1, sizeof *r->val);
  r->in = lg_calloc(1 + 2 * ct->n + ct->np, sizeof *r->in);
  r->slots = lg_calloc(ct->tape->nslots + 1, sizeof *r->slots);
  r->A = lg_calloc(N * N + N + 1, sizeof *r->A);
  r->qdd = lg_calloc(N + 1 + ct->n, sizeof *r->qdd); /* and a copy of q' */
  r->ipiv = lg_calloc(N + 1, sizeof *r->ipiv);
  if (!r->closed || !r->armed || !r->slip || !r->sarmed || !r->ft || !r->fn || !r->val || !r->in || !r->slots || !r->A ||
      !r->qdd || !r->ipiv) {
    num_contact_run_free(r);
    return NULL;
  }
  r->b = r->A + N * N;
  return r;
}

/* mu not 0 and some tangential mobility (T not 0) */
static int has_friction(const num_contact_run *r, size_t k) {
  const double *T = row(r, k) + PER + r->ct->n;
  if (row(r, k)[4] == 0) return 0;
  for (size_t i = 0; i < r->ct->n; i++)
    if (T[i] != 0) return 1;
  return 0;
}

/* Contact k's unknowns in the solve: its normal force when closed (or
 * k == also), and its friction force when that sticks (or k == also with
 * stick set). */
static int rows_of(const num_contact_run *r, size_t k, long also, int stick) {
  if (!r->closed[k] && (long)k != also) return 0;
  int st = has_friction(r, k) && ((long)k == also ? stick : r->slip[k] == 0);
  return 1 + st;
}

/* The augmented matrix with the rows of the closed contacts (and of
 * contact `also` when it is not negative, its friction sticking when
 * `stick`; else sliding as slip[also] says) after num_evaluate_dynamics;
 * returns its size. The right-hand side is left to the caller. A slipping
 * contact's friction -s mu fn T^T joins its normal column. */
static size_t assemble(num_contact_run *r, const num_work *w, long also, int stick) {
  const num_system *s = r->s;
  size_t n = s->n, m = s->m, N = n + m;
  for (size_t k = 0; k < r->ct->K; k++) N += (size_t)rows_of(r, k, also, stick);
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
    int rows = rows_of(r, k, also, stick);
    if (!rows) continue;
    const double *G = row(r, k) + PER, *T = G + n;
    double smu = rows == 1 && has_friction(r, k) ? r->slip[k] * row(r, k)[4] : 0;
    for (size_t i = 0; i < n; i++) {
      A[i * N + a] = -G[i] + smu * T[i];
      A[a * N + i] = G[i];
    }
    a++;
    if (rows == 2) {
      for (size_t i = 0; i < n; i++) {
        A[i * N + a] = -T[i];
        A[a * N + i] = T[i];
      }
      a++;
    }
  }
  return N;
}

lg_status num_contact_accel(num_contact_run *r, num_work *w, double t, const double *q,
                            const double *qd, double *qdd, double *lam) {
  const num_system *s = r->s;
  size_t n = s->n, m = s->m;
  load(r, t, q, qd);
  size_t N = assemble(r, w, -1, 0);
  for (size_t i = 0; i < n; i++) r->b[i] = w->out[s->o_f + i];
  for (size_t k = 0; k < m; k++) r->b[n + k] = w->out[s->o_gc + k];
  for (size_t k = 0, a = n + m; k < r->ct->K; k++) {
    int rows = rows_of(r, k, -1, 0);
    if (rows) r->b[a++] = row(r, k)[2];
    if (rows == 2) r->b[a++] = row(r, k)[BT];
  }
  if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)N, 1, r->A, (lapack_int)N, r->ipiv, r->b, 1))
    return LG_ERR_NUMERIC;
  memcpy(qdd, r->b, n * sizeof *qdd);
  if (m && lam) memcpy(lam, r->b + n, m * sizeof *lam);
  for (size_t k = 0, a = n + m; k < r->ct->K; k++) {
    int rows = rows_of(r, k, -1, 0);
    r->fn[k] = rows ? r->b[a++] : 0;
    r->ft[k] = rows == 2 ? r->b[a++] : rows ? -r->slip[k] * row(r, k)[4] * r->fn[k] : 0;
  }
  return LG_OK;
}

/* q' += dq' so that contact k's normal velocity becomes v (the closed
 * contacts' stay 0, the velocity constraints hold). */
static lg_status impulse_as(num_contact_run *r, num_work *w, size_t k, double v, int stick,
                            double t, const double *q, double *qd, double *Ln, double *Lt) {
  const num_system *s = r->s;
  size_t n = s->n, m = s->m;
  num_evaluate_dynamics(s, w, t, q, qd);
  load(r, t, q, qd);
  size_t N = assemble(r, w, (long)k, stick);
  memset(r->b, 0, N * sizeof *r->b);
  for (size_t j = 0; j < m; j++) r->b[n + j] = -w->out[s->o_Cd + j];
  size_t at = 0; /* where contact k's impulses are among the unknowns */
  for (size_t j = 0, a = n + m; j < r->ct->K; j++) {
    int rows = rows_of(r, j, (long)k, stick);
    if (!rows) continue;
    if (j == k) at = a;
    r->b[a++] = (j == k ? v : 0) - row(r, j)[1];
    if (rows == 2) r->b[a++] = -row(r, j)[VT];
  }
  if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)N, 1, r->A, (lapack_int)N, r->ipiv, r->b, 1))
    return LG_ERR_NUMERIC;
  size_t an = at;
  *Ln = r->b[an];
  *Lt = rows_of(r, k, (long)k, stick) == 2 ? r->b[an + 1] : 0;
  for (size_t i = 0; i < n; i++) qd[i] += r->b[i];
  return LG_OK;
}

/* The impulse that makes contact k's normal velocity v: with friction,
 * the tangential impulse that stops the sliding when it is within mu times
 * the normal one, else mu times it against the sliding (Coulomb's law
 * for the impulses, the slip direction taken as the one before). */
static lg_status impulse(num_contact_run *r, num_work *w, size_t k, double v, double t,
                         const double *q, double *qd) {
  double Ln = 0, Lt = 0;
  if (!has_friction(r, k)) return impulse_as(r, w, k, v, 0, t, q, qd, &Ln, &Lt);
  size_t n = r->s->n;
  double *keep = r->qdd + r->s->n + r->s->m + 2 * r->ct->K + 1;
  memcpy(keep, qd, n * sizeof *qd);
  load(r, t, q, qd);
  double vt = row(r, k)[VT], mu = row(r, k)[4];
  lg_status st = impulse_as(r, w, k, v, 1, t, q, qd, &Ln, &Lt);
  if (st != LG_OK || fabs(Lt) <= mu * Ln) return st;
  memcpy(qd, keep, n * sizeof *qd);
  int save = r->slip[k];
  r->slip[k] = vt > 0 ? 1 : -1;
  st = impulse_as(r, w, k, v, 0, t, q, qd, &Ln, &Lt);
  r->slip[k] = save;
  return st;
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

/* Friction's mode in closed contact k: slipping along the tangential
 * velocity when there is one; at rest, sticking when the holding force is
 * within mu fn, else slipping against it. Returns whether it changed. */
static int settle_friction(num_contact_run *r, num_work *w, size_t k, double t,
                           const double *q, const double *qd) {
  load(r, t, q, qd);
  if (!has_friction(r, k)) return 0;
  int was = r->slip[k];
  double vt = row(r, k)[VT];
  r->sarmed[k] = 0;
  if (fabs(vt) > ZENO_HEIGHT * r->atol) {
    r->slip[k] = vt > 0 ? 1 : -1;
    r->sarmed[k] = 1;
    return r->slip[k] != was;
  }
  r->slip[k] = 0;
  num_evaluate_dynamics(r->s, w, t, q, qd);
  if (num_contact_accel(r, w, t, q, qd, r->qdd, r->qdd + r->s->n) == LG_OK &&
      fabs(r->ft[k]) > row(r, k)[4] * r->fn[k])
    r->slip[k] = r->ft[k] > 0 ? -1 : 1;
  return r->slip[k] != was;
}

/* Close contact k at rest (plastic) when the free motion presses into the
 * plane; returns whether it closed. */
static int close_if_pressed(num_contact_run *r, num_work *w, size_t k, double t,
                            const double *q, double *qd) {
  double a = free_accel(r, w, k, t, q, qd);
  if (!(a < 0)) return 0;
  if (impulse(r, w, k, 0, t, q, qd) != LG_OK) return 0;
  r->closed[k] = 1;
  settle_friction(r, w, k, t, q, qd);
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
    double *gk = g + 3 * k;
    gk[1] = gk[2] = 1; /* friction's guards: live in closed contact */
    if (r->closed[k]) {
      gk[0] = r->fn[k];
      if (!has_friction(r, k)) continue;
      if (r->slip[k]) { /* slipping: until s vt reaches 0 (armed as in friction.c) */
        double v = r->slip[k] * row(r, k)[VT];
        if (!r->sarmed[k] && v > 0) r->sarmed[k] = 1;
        if (r->sarmed[k]) gk[1] = v;
      } else { /* sticking: until |ft| reaches mu fn */
        double lim = row(r, k)[4] * r->fn[k];
        gk[1] = lim - r->ft[k];
        gk[2] = lim + r->ft[k];
      }
      continue;
    }
    /* After an impact or a lift-off g starts at (about) 0 moving away:
     * the guard reads 1 until the gap has opened or the point turns back
     * towards the plane, so that the restart is never taken for an
     * arrival. */
    double gap = row(r, k)[0];
    if (!r->armed[k] && (gap > 0 || row(r, k)[1] < 0)) r->armed[k] = 1;
    gk[0] = r->armed[k] ? gap : 1;
  }
}

int num_contact_switch(num_contact_run *r, num_work *w, const int *fired, double t,
                       double h, const double *q, double *qd, long *impacts, long *liftoffs,
                       long *slips) {
  int changed = 0;
  for (size_t k = 0; k < r->ct->K; k++) {
    if (r->closed[k] && !fired[3 * k] && (fired[3 * k + 1] || fired[3 * k + 2])) {
      changed++;
      if (r->slip[k]) *slips += settle_friction(r, w, k, t, q, qd); /* came to rest */
      else { /* the holding force reached mu fn: slip against it */
        num_evaluate_dynamics(r->s, w, t, q, qd);
        num_contact_accel(r, w, t, q, qd, r->qdd, r->qdd + r->s->n);
        r->slip[k] = r->ft[k] > 0 ? -1 : 1;
        r->sarmed[k] = 0;
        ++*slips;
      }
      continue;
    }
    if (!fired[3 * k]) continue;
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
                        const double *qd, double *out) {
  int any = 0;
  for (size_t k = 0; k < r->ct->K; k++) any |= r->closed[k];
  if (any) {
    num_evaluate_dynamics(r->s, w, t, q, qd);
    if (num_contact_accel(r, w, t, q, qd, r->qdd, r->qdd + r->s->n) != LG_OK)
      for (size_t k = 0; k < r->ct->K; k++) r->fn[k] = r->ft[k] = NAN;
  }
  for (size_t k = 0, j = 0; k < r->ct->K; k++) {
    out[j++] = r->closed[k] ? r->fn[k] : 0;
    if (r->ct->fric[k]) out[j++] = r->closed[k] ? r->ft[k] : 0;
  }
}

size_t num_contact_ncolumns(const num_contact *ct) {
  size_t c = ct->K;
  for (size_t k = 0; k < ct->K; k++) c += ct->fric[k] != 0;
  return c;
}
