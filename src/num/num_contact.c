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
 * and the energy an impact removes goes into W through the events' jump.
 *
 * Friction (mu): planar contacts have one tangential velocity vt (slip
 * s = +-1, the force -s mu fn along T = dvt/dq'); 3D contacts two, vt =
 * (vt1, vt2) along unit tangents (lang_sema_contact.c), the isotropic
 * cone. Sliding in 3D, the force is -mu fn u along (T1, T2), u = vt/|vt|
 * (smooth while |vt| > 0); u is the stored slip direction while |vt| has
 * not yet grown past the rest threshold after a slip started from rest
 * (then u = -ft/|ft|, along the holding force that broke loose). The stop
 * is located by the guard |vt| - eps, eps = ZENO_HEIGHT atol (the level
 * below which a contact's velocity counts as rest everywhere here), not by
 * vt . vt0 crossing 0: a sliding path that curves (an incline started
 * sideways) turns its velocity by up to 90 degrees and more before it
 * stops, so vt . vt0 may cross 0 while still sliding, and |vt| itself is
 * not smooth at 0 (its square's root would be found to half the digits).
 * At the stop the remaining vt (|vt| <= eps) is removed by a tangential
 * impulse (its tiny energy goes into W), then the contact sticks with two
 * rows T1 q'' = bt1, T2 q'' = bt2 and multipliers ft while |ft| <= mu fn
 * (guard mu fn - |ft|), and slips along -ft when that would be exceeded.
 * An impact first tries to stop the tangential velocity (both rows); when
 * that needs |Lt| > mu Ln it slides, the tangential impulse mu Ln along
 * -vt/|vt| before the impact. */
#include "num.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

enum { ZENO_HEIGHT = 1000 };
/* each contact's tape values: g, g', gc, e, mu, vt, bt, vt2, bt2, then
 * G = dg/dq (n), T = dvt/dq' (n) and T2 = dvt2/dq' (n); vt the tangential
 * velocity (0 without friction), bt = -(vt' at q'' = 0); vt2, bt2 the
 * second tangent's in 3D (0 when planar) */
enum { PER = 9, VT = 5, BT = 6, VT2 = 7, BT2 = 8 };
#define PER_N(n) (PER + 3 * (n))

struct num_contact_run {
  const num_contact *ct;
  const num_system *s;
  double atol;
  int *closed, *armed; /* K each */
  int *slip, *sarmed;  /* K each: friction's mode in contact (+1, -1, 0 stick)
                          and whether a slip's guard is live */
  double *ft;          /* K: the friction force at the last solve */
  double *ft2;         /* K: its second component in 3D */
  double *u;           /* 2 K: a 3D slip's direction in (t1, t2) (slip[k] 1 then) */
  size_t N;            /* the largest augmented system */
  num_friction_run *fr; /* `friction x:` in the same model (its rows last), or NULL */
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
  for (size_t k = 0; st == LG_OK && k < K; k++)
    ct->fric[k] = defs[k].vt ? (defs[k].vt2 ? 2 : 1) : 0;
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
      const sym_node *vt2 = defs[k].vt2 ? defs[k].vt2 : sym_int(c, 0);
      const sym_node *vtd2 = sym_dt(c, vt2);
      const sym_node *vfree2 = vtd2 ? sym_subst(c, vtd2, n, e->qdd, zero) : NULL;
      ok[VT2] = vt2;
      ok[BT2] = vfree2 ? sym_neg(c, vfree2) : NULL;
      for (size_t i = 0; i < n; i++) ok[PER + i] = sym_diff(c, g, e->q[i]);
      for (size_t i = 0; i < n; i++) ok[PER + n + i] = sym_diff(c, vt, e->qd[i]);
      for (size_t i = 0; i < n; i++) ok[PER + 2 * n + i] = sym_diff(c, vt2, e->qd[i]);
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
  lg_free(r->ft2);
  lg_free(r->u);
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
  size_t K = ct->K, N = s->n + s->m + 3 * K;
  r->N = N;
  r->ct = ct;
  r->s = s;
  r->atol = atol;
  r->closed = lg_calloc(K + 1, sizeof *r->closed);
  r->armed = lg_calloc(K + 1, sizeof *r->armed);
  r->slip = lg_calloc(K + 1, sizeof *r->slip);
  r->sarmed = lg_calloc(K + 1, sizeof *r->sarmed);
  r->ft = lg_calloc(K + 1, sizeof *r->ft);
  r->ft2 = lg_calloc(K + 1, sizeof *r->ft2);
  r->u = lg_calloc(2 * K + 1, sizeof *r->u);
  r->fn = lg_calloc(K + 1, sizeof *r->fn);
  r->val = lg_calloc(K * PER_N(ct->n) + 1, sizeof *r->val);
  r->in = lg_calloc(1 + 2 * ct->n + ct->np, sizeof *r->in);
  r->slots = lg_calloc(ct->tape->nslots + 1, sizeof *r->slots);
  r->A = lg_calloc(N * N + N + 1, sizeof *r->A);
  r->qdd = lg_calloc(N + 1 + ct->n, sizeof *r->qdd); /* and a copy of q' */
  r->ipiv = lg_calloc(N + 1, sizeof *r->ipiv);
  if (!r->closed || !r->armed || !r->slip || !r->sarmed || !r->ft || !r->ft2 || !r->u || !r->fn || !r->val || !r->in || !r->slots || !r->A ||
      !r->qdd || !r->ipiv) {
    num_contact_run_free(r);
    return NULL;
  }
  r->b = r->A + N * N;
  return r;
}

/* mu not 0 and some tangential mobility (T or T2 not 0): how many
 * tangents (1 planar, 2 in 3D), else 0 */
static int has_friction(const num_contact_run *r, size_t k) {
  const double *T = row(r, k) + PER + r->ct->n;
  size_t nt = r->ct->fric[k] == 2 ? 2 * r->ct->n : r->ct->n;
  if (row(r, k)[4] == 0) return 0;
  for (size_t i = 0; i < nt; i++)
    if (T[i] != 0) return r->ct->fric[k];
  return 0;
}

static double hypot2(double a, double b) { return sqrt(a * a + b * b); }

/* A sliding 3D contact's direction u = vt/|vt| once the slip is under way
 * (armed), else the one stored when it started. */
static void slip_direction(num_contact_run *r, size_t k) {
  if (!r->closed[k] || !r->slip[k] || !r->sarmed[k] || has_friction(r, k) != 2) return;
  double v1 = row(r, k)[VT], v2 = row(r, k)[VT2], v = hypot2(v1, v2);
  if (v > 0) r->u[2 * k] = v1 / v, r->u[2 * k + 1] = v2 / v;
}

/* Contact k's unknowns in the solve: its normal force when closed (or
 * k == also), and its friction force when that sticks (or k == also with
 * stick set). */
static int rows_of(const num_contact_run *r, size_t k, long also, int stick) {
  if (!r->closed[k] && (long)k != also) return 0;
  int st = (long)k == also ? stick : r->slip[k] == 0;
  return 1 + (st ? has_friction(r, k) : 0);
}

/* The augmented matrix with the rows of the closed contacts (and of
 * contact `also` when it is not negative, its friction sticking when
 * `stick`; else sliding as slip[also] says) after num_evaluate_dynamics;
 * returns its size. The right-hand side is left to the caller. A slipping
 * contact's friction -s mu fn T^T joins its normal column. */
static size_t assemble(num_contact_run *r, const num_work *w, long also, int stick,
                       int with_fr) {
  const num_system *s = r->s;
  size_t n = s->n, m = s->m, N = n + m;
  for (size_t k = 0; k < r->ct->K; k++) N += (size_t)rows_of(r, k, also, stick);
  if (with_fr && r->fr) N += num_friction_nstick(r->fr);
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
    const double *G = row(r, k) + PER, *T = G + n, *T2 = T + n;
    int nt = has_friction(r, k);
    if (rows == 1 && nt == 2) { /* sliding in 3D: -mu fn (u1 T1 + u2 T2) */
      double mu1 = row(r, k)[4] * r->u[2 * k], mu2 = row(r, k)[4] * r->u[2 * k + 1];
      for (size_t i = 0; i < n; i++) {
        A[i * N + a] = -G[i] + (mu1 * T[i] + mu2 * T2[i]);
        A[a * N + i] = G[i];
      }
    } else {
      double smu = rows == 1 && nt ? r->slip[k] * row(r, k)[4] : 0;
      for (size_t i = 0; i < n; i++) {
        A[i * N + a] = -G[i] + smu * T[i];
        A[a * N + i] = G[i];
      }
    }
    a++;
    for (int j = 1; j < rows; j++, a++) {
      const double *Tj = j == 1 ? T : T2;
      for (size_t i = 0; i < n; i++) {
        A[i * N + a] = -Tj[i];
        A[a * N + i] = Tj[i];
      }
    }
  }
  return N;
}

lg_status num_contact_accel(num_contact_run *r, num_work *w, double t, const double *q,
                            const double *qd, double *qdd, double *lam) {
  const num_system *s = r->s;
  size_t n = s->n, m = s->m;
  load(r, t, q, qd);
  for (size_t k = 0; k < r->ct->K; k++) slip_direction(r, k);
  size_t N = assemble(r, w, -1, 0, 1);
  for (size_t i = 0; i < n; i++) r->b[i] = w->out[s->o_f + i];
  for (size_t k = 0; k < m; k++) r->b[n + k] = w->out[s->o_gc + k];
  for (size_t k = 0, a = n + m; k < r->ct->K; k++) {
    int rows = rows_of(r, k, -1, 0);
    if (rows) r->b[a++] = row(r, k)[2];
    if (rows >= 2) r->b[a++] = row(r, k)[BT];
    if (rows == 3) r->b[a++] = row(r, k)[BT2];
  }
  size_t at = n + m; /* friction's rows after the contacts' */
  for (size_t k = 0; k < r->ct->K; k++) at += (size_t)rows_of(r, k, -1, 0);
  if (r->fr) num_friction_fill(r->fr, t, q, qd, r->A, N, r->b, at);
  if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)N, 1, r->A, (lapack_int)N, r->ipiv, r->b, 1))
    return LG_ERR_NUMERIC;
  memcpy(qdd, r->b, n * sizeof *qdd);
  if (m && lam) memcpy(lam, r->b + n, m * sizeof *lam);
  if (r->fr) num_friction_take(r->fr, r->b, at, qdd);
  for (size_t k = 0, a = n + m; k < r->ct->K; k++) {
    int rows = rows_of(r, k, -1, 0);
    r->fn[k] = rows ? r->b[a++] : 0;
    if (has_friction(r, k) == 2) {
      double f = row(r, k)[4] * r->fn[k];
      r->ft[k] = rows == 3 ? r->b[a++] : rows ? -f * r->u[2 * k] : 0;
      r->ft2[k] = rows == 3 ? r->b[a++] : rows ? -f * r->u[2 * k + 1] : 0;
      continue;
    }
    r->ft[k] = rows == 2 ? r->b[a++] : rows ? -r->slip[k] * row(r, k)[4] * r->fn[k] : 0;
    r->ft2[k] = 0;
  }
  return LG_OK;
}

/* q' += dq' so that contact k's normal velocity becomes v (the closed
 * contacts' stay 0, the velocity constraints hold). */
static lg_status impulse_as(num_contact_run *r, num_work *w, size_t k, double v, int stick,
                            double t, const double *q, double *qd, double *Ln, double *Lt) {
  /* Lt: 2, the second 0 unless sticking in 3D */
  const num_system *s = r->s;
  size_t n = s->n, m = s->m;
  num_evaluate_dynamics(s, w, t, q, qd);
  load(r, t, q, qd);
  size_t N = assemble(r, w, (long)k, stick, 0);
  memset(r->b, 0, N * sizeof *r->b);
  for (size_t j = 0; j < m; j++) r->b[n + j] = -w->out[s->o_Cd + j];
  size_t at = 0; /* where contact k's impulses are among the unknowns */
  for (size_t j = 0, a = n + m; j < r->ct->K; j++) {
    int rows = rows_of(r, j, (long)k, stick);
    if (!rows) continue;
    if (j == k) at = a;
    r->b[a++] = (j == k ? v : 0) - row(r, j)[1];
    if (rows >= 2) r->b[a++] = -row(r, j)[VT];
    if (rows == 3) r->b[a++] = -row(r, j)[VT2];
  }
  if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)N, 1, r->A, (lapack_int)N, r->ipiv, r->b, 1))
    return LG_ERR_NUMERIC;
  size_t an = at;
  *Ln = r->b[an];
  int rk = rows_of(r, k, (long)k, stick);
  Lt[0] = rk >= 2 ? r->b[an + 1] : 0;
  Lt[1] = rk == 3 ? r->b[an + 2] : 0;
  for (size_t i = 0; i < n; i++) qd[i] += r->b[i];
  return LG_OK;
}

/* The impulse that makes contact k's normal velocity v: with friction,
 * the tangential impulse that stops the sliding when it is within mu times
 * the normal one, else mu times it against the sliding (Coulomb's law
 * for the impulses, the slip direction taken as the one before). */
static lg_status impulse(num_contact_run *r, num_work *w, size_t k, double v, double t,
                         const double *q, double *qd) {
  double Ln = 0, Lt[2] = {0, 0};
  load(r, t, q, qd);
  int nt = has_friction(r, k);
  if (!nt) return impulse_as(r, w, k, v, 0, t, q, qd, &Ln, Lt);
  size_t n = r->s->n;
  double *keep = r->qdd + r->N + 1;
  memcpy(keep, qd, n * sizeof *qd);
  double vt = row(r, k)[VT], vt2 = row(r, k)[VT2], mu = row(r, k)[4];
  lg_status st = impulse_as(r, w, k, v, 1, t, q, qd, &Ln, Lt);
  if (st != LG_OK) return st;
  if (nt == 1 ? fabs(Lt[0]) <= mu * Ln : hypot2(Lt[0], Lt[1]) <= mu * Ln) return st;
  memcpy(qd, keep, n * sizeof *qd);
  int save = r->slip[k];
  double su[2] = {r->u[2 * k], r->u[2 * k + 1]};
  if (nt == 1) r->slip[k] = vt > 0 ? 1 : -1;
  else { /* against vt before (against the sticking impulse when vt is 0) */
    double a = hypot2(vt, vt2), b = hypot2(Lt[0], Lt[1]);
    r->slip[k] = 1;
    r->u[2 * k] = a > 0 ? vt / a : -Lt[0] / b;
    r->u[2 * k + 1] = a > 0 ? vt2 / a : -Lt[1] / b;
  }
  st = impulse_as(r, w, k, v, 0, t, q, qd, &Ln, Lt);
  r->slip[k] = save;
  r->u[2 * k] = su[0];
  r->u[2 * k + 1] = su[1];
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
static int settle_rest(num_contact_run *r, num_work *w, size_t k, double t, const double *q,
                       double *qd);

static int settle_friction(num_contact_run *r, num_work *w, size_t k, double t,
                           const double *q, double *qd) {
  load(r, t, q, qd);
  int nt = has_friction(r, k);
  if (!nt) return 0;
  int was = r->slip[k];
  double vt = row(r, k)[VT];
  if (nt == 2) {
    double vt2 = row(r, k)[VT2], v = hypot2(vt, vt2);
    if (v > ZENO_HEIGHT * r->atol) {
      r->slip[k] = 1;
      r->sarmed[k] = 1;
      r->u[2 * k] = vt / v;
      r->u[2 * k + 1] = vt2 / v;
      return r->slip[k] != was;
    }
    return settle_rest(r, w, k, t, q, qd);
  }
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

/* A 3D slip about to start along the holding force's -ft (at the last
 * solve): u = -ft/|ft|, the guard armed once |vt| has grown. */
static void slip_from_rest(num_contact_run *r, size_t k) {
  double f = hypot2(r->ft[k], r->ft2[k]);
  r->slip[k] = 1;
  r->sarmed[k] = 0;
  r->u[2 * k] = f > 0 ? -r->ft[k] / f : 1;
  r->u[2 * k + 1] = f > 0 ? -r->ft2[k] / f : 0;
}

/* Closed 3D contact k at rest (|vt| <= eps): the rest of vt removed by a
 * tangential impulse (the normal velocity kept), then sticking when the
 * holding force is within the cone, else slipping along -ft. Returns
 * whether the mode changed. */
static int settle_rest(num_contact_run *r, num_work *w, size_t k, double t, const double *q,
                       double *qd) {
  int was = r->slip[k];
  double Ln, Lt[2];
  load(r, t, q, qd);
  impulse_as(r, w, k, row(r, k)[1], 1, t, q, qd, &Ln, Lt);
  r->slip[k] = 0;
  r->sarmed[k] = 0;
  num_evaluate_dynamics(r->s, w, t, q, qd);
  if (num_contact_accel(r, w, t, q, qd, r->qdd, r->qdd + r->s->n) == LG_OK &&
      hypot2(r->ft[k], r->ft2[k]) > row(r, k)[4] * r->fn[k])
    slip_from_rest(r, k);
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
      int nt = has_friction(r, k);
      if (!nt) continue;
      if (nt == 2 && r->slip[k]) { /* sliding in 3D: until |vt| falls to eps */
        double eps = ZENO_HEIGHT * r->atol;
        double v = hypot2(row(r, k)[VT], row(r, k)[VT2]) - eps;
        if (!r->sarmed[k] && v > 0) r->sarmed[k] = 1;
        if (r->sarmed[k]) gk[1] = v;
      } else if (nt == 2) /* sticking in 3D: until |ft| reaches mu fn */
        gk[1] = row(r, k)[4] * r->fn[k] - hypot2(r->ft[k], r->ft2[k]);
      else if (r->slip[k]) { /* slipping: until s vt reaches 0 (armed as in friction.c) */
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
      if (has_friction(r, k) == 2) {
        if (r->slip[k]) *slips += settle_rest(r, w, k, t, q, qd); /* came to rest */
        else {
          num_evaluate_dynamics(r->s, w, t, q, qd);
          num_contact_accel(r, w, t, q, qd, r->qdd, r->qdd + r->s->n);
          slip_from_rest(r, k);
          ++*slips;
        }
      } else if (r->slip[k]) *slips += settle_friction(r, w, k, t, q, qd); /* came to rest */
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
      for (size_t k = 0; k < r->ct->K; k++) r->fn[k] = r->ft[k] = r->ft2[k] = NAN;
  }
  for (size_t k = 0, j = 0; k < r->ct->K; k++) {
    out[j++] = r->closed[k] ? r->fn[k] : 0;
    if (r->ct->fric[k]) out[j++] = r->closed[k] ? r->ft[k] : 0;
    if (r->ct->fric[k] == 2) out[j++] = r->closed[k] ? r->ft2[k] : 0;
  }
}

size_t num_contact_ncolumns(const num_contact *ct) {
  size_t c = ct->K;
  for (size_t k = 0; k < ct->K; k++) c += ct->fric[k];
  return c;
}

lg_status num_contact_with_friction(num_contact_run *r, num_friction_run *fr) {
  size_t N = r->N + num_friction_count(fr);
  double *A = lg_calloc(N * N + N + 1, sizeof *A);
  double *qdd = lg_calloc(N + 1 + r->ct->n, sizeof *qdd);
  lapack_int *ipiv = lg_calloc(N + 1, sizeof *ipiv);
  if (!A || !qdd || !ipiv) {
    lg_free(A);
    lg_free(qdd);
    lg_free(ipiv);
    return LG_ERR_NOMEM;
  }
  lg_free(r->A);
  lg_free(r->qdd);
  lg_free(r->ipiv);
  r->A = A;
  r->b = A + N * N;
  r->qdd = qdd;
  r->ipiv = ipiv;
  r->N = N;
  r->fr = fr;
  num_friction_set_contact(fr, r);
  return LG_OK;
}
