/* mech_joint_frames.c - each hinge's or slider's link turned so that its
 * axis is z (see the comment below). */
#include "mech_joint_internal.h"

#include <math.h>
#include <string.h>

/* ---- each hinge's link on its axis ------------------------------------------------------------
 * A one-coordinate joint whose motion S is a constant pure rotation (a
 * unit axis a, the linear part b = a x (O - P) of a point P on the axis)
 * or a pure translation gets its link frame turned so that the axis is z
 * and, for a hinge, its origin moved onto the axis (Featherstone's link
 * coordinates): then S = e_z (U = IA S is a column of IA, D = S^T U an
 * entry, v x vJ a few products) and R = C Rz(q), whose third column is
 * constant and the others two terms each, where the body frame's R has
 * three terms in every entry. The change is a constant transform (Q, e)
 * per link, applied to the link's R, d, S, cJ and I and to its children's
 * R and d. */
typedef struct reframe { double Q[9], e[3]; int on; } reframe;

static int numbers6(const sn *v, double *x) {
  for (int i = 0; i < 6; i++) {
    if (!sym_is_number(v[i])) return 0;
    x[i] = sym_number_value(v[i]);
  }
  return 1;
}

static int choose_frame(const jlink *L, reframe *f) {
  double s[6];
  f->on = 0;
  if (L->k != 1 || !numbers6(L->S[0], s)) return 0;
  for (int i = 0; i < 6; i++)
    if (!sym_is_zero(L->cJ[i])) return 0;
  double aa = s[0] * s[0] + s[1] * s[1] + s[2] * s[2], bb = s[3] * s[3] + s[4] * s[4] + s[5] * s[5];
  double ab = s[0] * s[3] + s[1] * s[4] + s[2] * s[5], ax[3];
  if (fabs(aa - 1) < 1e-12 && fabs(ab) < 1e-12) { /* a hinge: e = a x b */
    memcpy(ax, s, sizeof ax);
    f->e[0] = s[1] * s[5] - s[2] * s[4];
    f->e[1] = s[2] * s[3] - s[0] * s[5];
    f->e[2] = s[0] * s[4] - s[1] * s[3];
  } else if (aa == 0 && fabs(bb - 1) < 1e-12) { /* a slider */
    memcpy(ax, s + 3, sizeof ax);
    f->e[0] = f->e[1] = f->e[2] = 0;
  } else
    return 0;
  double h[3] = {fabs(ax[0]) > 0.9 ? 0 : 1, fabs(ax[0]) > 0.9 ? 1 : 0, 0};
  double hd = h[0] * ax[0] + h[1] * ax[1] + h[2] * ax[2], u[3], un = 0;
  for (int i = 0; i < 3; i++) {
    u[i] = h[i] - hd * ax[i];
    un += u[i] * u[i];
  }
  un = sqrt(un);
  for (int i = 0; i < 3; i++) u[i] /= un;
  double w[3] = {ax[1] * u[2] - ax[2] * u[1], ax[2] * u[0] - ax[0] * u[2], ax[0] * u[1] - ax[1] * u[0]};
  for (int i = 0; i < 3; i++) { /* columns: u, w, axis */
    f->Q[3 * i] = u[i];
    f->Q[3 * i + 1] = w[i];
    f->Q[3 * i + 2] = ax[i];
  }
  return f->on = 1;
}

static void consts(sym_ctx *c, const double *x, size_t n, sn *o) {
  for (size_t i = 0; i < n; i++) o[i] = x[i] == 0 ? sym_int(c, 0) : sym_float(c, x[i]);
}

static int random_value(void *ud, const sym_node *a, double *out) {
  uint64_t h = *(const uint64_t *)ud ^ ((uint64_t)a->kind << 32) ^ (uint64_t)a->order;
  for (const char *p = a->v.name ? a->v.name : ""; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
  h = lg_hash_mix(h, 17);
  *out = 0.3 + (double)(h >> 11) / 9007199254740992.0;
  return 0;
}

/* R as C Rz(q) when it is that at two random points: C = R at q = 0. */
static void split_rotation(mech_model *m, jlink *L) {
  sym_ctx *c = m->c;
  sn q = mech_coord(m, L->q[0], 0), zero = sym_int(c, 0), C[9], Rz[9], E[9];
  for (int i = 0; i < 9; i++)
    if (!(C[i] = sym_subst(c, L->R[i], 1, &q, &zero))) return;
  sn cq = sym_func(c, SYM_FN_COS, q, NULL), sq = sym_func(c, SYM_FN_SIN, q, NULL);
  sn Rzv[9] = {cq, sym_neg(c, sq), zero, sq, cq, zero, zero, zero, sym_int(c, 1)};
  memcpy(Rz, Rzv, sizeof Rz);
  mj_mul3(c, C, Rz, E, 0, 0);
  sn both[18];
  memcpy(both, L->R, sizeof L->R);
  memcpy(both + 9, E, sizeof E);
  for (uint64_t seed = 1; seed <= 2; seed++) {
    double v[18];
    uint64_t sd = 0x9e3779b97f4a7c15ull * seed;
    if (sym_eval_many(c, 18, both, random_value, &sd, v, NULL) != LG_OK) return;
    for (int i = 0; i < 9; i++)
      if (!(fabs(v[i] - v[9 + i]) <= 1e-12 * (1 + fabs(v[i])))) return;
  }
  memcpy(L->R, E, sizeof E);
}

/* ---- Denavit-Hartenberg axes ----------------------------------------------------------------
 * A hinge's x axis and origin on its axis are free. Taken along the common
 * normal to its first hinge child's axis, with the origin at the normal's
 * foot (a leaf: its parent's normal, from the foot on its own axis), the
 * child's transform is Tx(a) Rx(alpha) Tz(d) Rz(q + beta) with no rotation
 * about the parent's z and no offset along it (mj_joint_stages), where a
 * general constant rotation costs a full 3x3 product on every articulated
 * inertia carried to the parent. */
typedef struct at_q { sn q; double v; } at_q;
static int q_value(void *ud, const sym_node *a, double *out) {
  const at_q *x = ud;
  if (a != x->q) return 1;
  *out = x->v;
  return 0;
}

int mj_joint_at(mech_model *m, const jlink *L, double q0, double *C, double *d) {
  sn e[12];
  double v[12];
  at_q x = {mech_coord(m, L->q[0], 0), q0};
  memcpy(e, L->R, 9 * sizeof *e);
  memcpy(e + 9, L->d, 3 * sizeof *e);
  if (sym_eval_many(m->c, 12, e, q_value, &x, v, NULL) != LG_OK) return 0;
  for (int i = 0; i < 12; i++)
    if (!isfinite(v[i])) return 0;
  memcpy(C, v, 9 * sizeof *C);
  memcpy(d, v + 9, 3 * sizeof *d);
  return 1;
}
static int at_zero(mech_model *m, const jlink *L, double *C, double *d) {
  return mj_joint_at(m, L, 0, C, d);
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const double *a, const double *b, double *o) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}
static int unit3(double *x) {
  double n = sqrt(dot3(x, x));
  if (!(n > 1e-9)) return 0;
  for (int i = 0; i < 3; i++) x[i] /= n;
  return 1;
}

/* The line of c's axis (point p, unit direction u) in its parent's old
 * axes: R_c(q) keeps the axis, so q = 0 tells it. */
static int child_axis(mech_model *m, const jlink *L, const reframe *f, double *p, double *u) {
  double C[9], d[3];
  if (!f->on || !at_zero(m, L, C, d)) return 0;
  double a[3] = {f->Q[2], f->Q[5], f->Q[8]};
  for (int i = 0; i < 3; i++) {
    u[i] = dot3(&C[3 * i], a);
    p[i] = d[i] + dot3(&C[3 * i], f->e);
  }
  return 1;
}

/* The closest points of the lines P + s a and Q + t b (unit a, b): 0 when parallel. */
static int closest(const double *P, const double *a, const double *Q, const double *b, double *s,
                   double *t) {
  double w[3] = {P[0] - Q[0], P[1] - Q[1], P[2] - Q[2]}, ab = dot3(a, b), dd = 1 - ab * ab;
  if (!(dd > 1e-12)) return 0;
  *s = (ab * dot3(w, b) - dot3(w, a)) / dd;
  *t = (dot3(w, b) - ab * dot3(w, a)) / dd;
  return 1;
}

static void set_x(reframe *f, const double *u) {
  double a[3] = {f->Q[2], f->Q[5], f->Q[8]}, w[3];
  cross3(a, u, w);
  for (int i = 0; i < 3; i++) {
    f->Q[3 * i] = u[i];
    f->Q[3 * i + 1] = w[i];
  }
}

static int is_hinge(const jlink *L, const reframe *f) {
  return f->on && L->k == 1 && !sym_is_zero(L->S[0][0]) + !sym_is_zero(L->S[0][1]) + !sym_is_zero(L->S[0][2]);
}

static void dh_axes(mech_model *m, mech_joints *J, reframe *F) {
  for (size_t i = 0; i < J->nl; i++) {
    jlink *L = &J->L[i];
    reframe *f = &F[i];
    if (!is_hinge(L, f)) continue;
    double a[3] = {f->Q[2], f->Q[5], f->Q[8]}, p[3], u[3], s, t, n[3];
    size_t c = i + 1;
    while (c < J->nl && (J->L[c].parent != (int)i || !is_hinge(&J->L[c], &F[c]))) c++;
    if (c < J->nl && child_axis(m, &J->L[c], &F[c], p, u)) {
      if (closest(f->e, a, p, u, &s, &t)) {
        for (int k = 0; k < 3; k++) n[k] = p[k] + t * u[k] - f->e[k] - s * a[k];
        if (!unit3(n)) cross3(a, u, n); /* the axes meet */
        if (!unit3(n)) continue;
        for (int k = 0; k < 3; k++) f->e[k] += s * a[k];
      } else { /* parallel: the normal through the old origin's foot */
        double w[3] = {p[0] - f->e[0], p[1] - f->e[1], p[2] - f->e[2]}, wa = dot3(w, a);
        for (int k = 0; k < 3; k++) n[k] = w[k] - wa * a[k];
        if (!unit3(n)) continue;
      }
      set_x(f, n);
      continue;
    }
    /* a leaf: the foot of its parent's normal, and the parent's x */
    int pi = L->parent;
    if (pi < 0 || !is_hinge(&J->L[pi], &F[pi])) continue;
    const reframe *g = &F[pi];
    double C[9], d[3], ap[3] = {g->Q[2], g->Q[5], g->Q[8]}, xp[3] = {g->Q[0], g->Q[3], g->Q[6]};
    if (!child_axis(m, L, f, p, u) || !at_zero(m, L, C, d)) continue;
    if (closest(g->e, ap, p, u, &s, &t))
      for (int k = 0; k < 3; k++) f->e[k] += t * a[k];
    for (int k = 0; k < 3; k++) n[k] = C[k] * xp[0] + C[3 + k] * xp[1] + C[6 + k] * xp[2];
    if (fabs(dot3(n, a)) < 1e-9 && unit3(n)) set_x(f, n);
  }
}

int mj_axis_frames(mech_model *m, mech_joints *J) {
  sym_ctx *c = m->c;
  size_t nl = J->nl;
  reframe *F = lg_calloc(nl + 1, sizeof *F);
  if (!F) return 0;
  for (size_t i = 0; i < nl; i++) choose_frame(&J->L[i], &F[i]);
  dh_axes(m, J, F);
  static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, O3[3] = {0, 0, 0};
  for (size_t i = 0; i < nl; i++) {
    jlink *L = &J->L[i];
    const reframe *own = &F[i], *par = L->parent >= 0 ? &F[L->parent] : NULL;
    if (!own->on && !(par && par->on)) continue;
    sn Q[9], e[3], Qp[9], ep[3], t[9], Re[3], dn[3];
    consts(c, own->on ? own->Q : I3, 9, Q);
    consts(c, own->on ? own->e : O3, 3, e);
    consts(c, par && par->on ? par->Q : I3, 9, Qp);
    consts(c, par && par->on ? par->e : O3, 3, ep);
    /* R' = Qp^T R Q, d' = Qp^T (d + R e - ep) */
    mj_rot(c, L->R, e, Re, 0);
    for (int k = 0; k < 3; k++) dn[k] = sym_sub(c, sym_add(c, L->d[k], Re[k]), ep[k]);
    mj_rot(c, Qp, dn, L->d, 1);
    mj_mul3(c, L->R, Q, t, 0, 0);
    mj_mul3(c, Qp, t, L->R, 1, 0);
    if (!own->on) continue;
    /* S is e_z (angular for a hinge, linear for a slider) exactly, cJ 0:
     * Q^T a computed would leave rounding where the zeros are */
    int hinge = !sym_is_zero(L->S[0][0]) || !sym_is_zero(L->S[0][1]) || !sym_is_zero(L->S[0][2]);
    for (int k = 0; k < 6; k++) {
      L->S[0][k] = sym_int(c, k == (hinge ? 2 : 5));
      L->cJ[k] = sym_int(c, 0);
    }
    /* I about O + e in F Q: the old link seen from the new (R = Q^T, d = -Q^T e) */
    jlink pseudo;
    pseudo.nst = 0;
    sn me[3];
    for (int k = 0; k < 3; k++) me[k] = sym_neg(c, e[k]);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) pseudo.R[3 * a + b] = Q[3 * b + a];
    mj_rot(c, Q, me, pseudo.d, 1);
    sn In[36];
    mj_inertia_out(c, &pseudo, L->I, In);
    memcpy(L->I, In, sizeof In);
    mj_let_sym6(c, L->I);
  }
  for (size_t i = 0; i < nl; i++)
    if (F[i].on && !sym_is_zero(J->L[i].S[0][2])) split_rotation(m, &J->L[i]);
  lg_free(F);
  return !sym_ctx_error(c) && mj_joint_stages(m, J);
}
