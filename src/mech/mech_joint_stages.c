/* mech_joint_stages.c - a hinge's transform to its parent as steps about
 * and along single axes.
 *
 * A hinge link (S = e_z, R = C Rz(q)) with numeric C and a constant
 * offset d is written as
 *
 *   Tz(dp) Rz(gamma) Tx(a) Rx(alpha) Tz(dc) Rz(q + beta)
 *
 * (parent's side first): the common normal of the parent's z axis and
 * the hinge's axis, as Denavit and Hartenberg's parameters with the two
 * extra ones a branch needs. Each step moves a spatial vector with a few
 * products, and a step that is zero is left out; with the axes of
 * mech_joint_frames.c dp and gamma vanish for the first child, and a
 * right angle alpha costs nothing (its rotation is a signed permutation).
 * Carrying an articulated inertia through them costs about 200 operations
 * where the product with the full R costs about 340.
 *
 * The parameters are found numerically and kept only when the steps
 * compose back to (C, d) to 1e-12; anything else keeps R and d. */
#include "mech_joint_internal.h"

#include <math.h>
#include <string.h>

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const double *a, const double *b, double *o) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Below this an angle is rounding: a generated arm's common normals give
 * gamma and beta of 1e-15 where they are 0 in exact arithmetic, and such a
 * step would cost its products for nothing. Snapping moves R by at most
 * this much, well inside the 1e-12 the composition is checked to. */
#define ANGLE_EPS 1e-13

/* cos and sin of an angle, exactly 0 and +-1 at right angles (a rotation
 * by them is then a permutation, with no operation) */
static void cos_sin(double x, double *c, double *s) {
  *c = cos(x);
  *s = sin(x);
  if (fabs(*s) < ANGLE_EPS) *s = 0, *c = *c > 0 ? 1 : -1;
  if (fabs(*c) < ANGLE_EPS) *c = 0, *s = *s > 0 ? 1 : -1;
}

/* x = Rot(ax, c, s) x */
static void rotate(int ax, double c, double s, double *x) {
  int i = (ax + 1) % 3, j = (ax + 2) % 3;
  double xi = x[i], xj = x[j];
  x[i] = c * xi - s * xj;
  x[j] = s * xi + c * xj;
}

typedef struct dh {
  double dp, cg, sg, a, ca, sa, dc, beta;
} dh;

/* The parameters of (C, d): 0 when the steps do not compose back to them. */
static int decompose(const double *C, const double *d, dh *p) {
  double u[3] = {C[2], C[5], C[8]}, ez[3] = {0, 0, 1}, xc[3] = {C[0], C[3], C[6]}, n[3], t[3];
  double dd = u[0] * u[0] + u[1] * u[1]; /* |ez x u|^2 */
  double s = 0, tc;
  if (dd > 1e-12) { /* the closest points of z and the hinge's line d + t u */
    double ab = u[2], wb = -dot3(d, u), wa = -d[2];
    s = (ab * wb - wa) / dd;
    tc = (wb - ab * wa) / dd;
  } else
    tc = -d[2] / u[2]; /* parallel: the normal at the parent's origin */
  for (int k = 0; k < 3; k++) n[k] = d[k] + tc * u[k] - (k == 2 ? s : 0);
  p->a = sqrt(dot3(n, n));
  if (p->a < 1e-13) {
    p->a = 0;
    cross3(ez, u, n);
    double nn = sqrt(dot3(n, n));
    if (nn < 1e-9) n[0] = 1, n[1] = n[2] = 0, nn = 1;
    for (int k = 0; k < 3; k++) n[k] /= nn;
  } else
    for (int k = 0; k < 3; k++) n[k] /= p->a;
  p->dp = fabs(s) < 1e-13 ? 0 : s;
  p->dc = fabs(tc) < 1e-13 ? 0 : -tc;
  cos_sin(atan2(n[1], n[0]), &p->cg, &p->sg);
  cross3(ez, u, t);
  cos_sin(atan2(dot3(t, n), u[2]), &p->ca, &p->sa);
  cross3(n, xc, t);
  p->beta = atan2(dot3(t, u), dot3(n, xc));
  if (fabs(p->beta) < ANGLE_EPS) p->beta = 0;
  /* back: R = Rz(g) Rx(a) Rz(b) column by column, d = dp z + Rz(g) (a x + Rx(a) dc z) */
  double cb = cos(p->beta), sb = sin(p->beta), err = 0;
  for (int col = 0; col < 3; col++) {
    double v[3] = {col == 0, col == 1, col == 2};
    rotate(2, cb, sb, v);
    rotate(0, p->ca, p->sa, v);
    rotate(2, p->cg, p->sg, v);
    for (int k = 0; k < 3; k++) err = fmax(err, fabs(v[k] - C[3 * k + col]));
  }
  double v[3] = {0, 0, p->dc};
  rotate(0, p->ca, p->sa, v);
  v[0] += p->a;
  rotate(2, p->cg, p->sg, v);
  v[2] += p->dp;
  for (int k = 0; k < 3; k++) err = fmax(err, fabs(v[k] - d[k]) / (1 + fabs(d[k])));
  return err < 1e-12;
}

static int push(jlink *L, int rot, int ax, sn c, sn s, sn t) {
  if (L->nst == SMAX) return 0;
  L->st[L->nst++] = (jstage){rot, ax, c, s, t};
  return 1;
}

static sn num(sym_ctx *c, double x) {
  return x == 0 ? sym_int(c, 0) : x == 1 ? sym_int(c, 1) : x == -1 ? sym_int(c, -1) : sym_float(c, x);
}

int mj_joint_stages(mech_model *m, mech_joints *J) {
  sym_ctx *c = m->c;
  for (size_t i = 0; i < J->nl; i++) {
    jlink *L = &J->L[i];
    if (L->k != 1) continue;
    int ez = 1;
    for (int k = 0; k < 6; k++) ez &= L->S[0][k] == sym_int(c, k == 2) && sym_is_zero(L->cJ[k]);
    double C[9], d[3], C1[9], d1[3], err = 0;
    if (!ez || !mj_joint_at(m, L, 0, C, d) || !mj_joint_at(m, L, 0.7, C1, d1)) continue;
    for (int k = 0; k < 3; k++) err = fmax(err, fabs(d1[k] - d[k])); /* d constant */
    dh p;
    if (err > 1e-12 || !decompose(C, d, &p)) continue;
    sn q = mech_coord(m, L->q[0], 0), z = sym_int(c, 0);
    if (p.beta != 0) q = sym_add(c, q, sym_float(c, p.beta));
    int ok = 1;
    if (p.dp != 0) ok &= push(L, 0, 2, z, z, num(c, p.dp));
    if (p.sg != 0 || p.cg != 1) ok &= push(L, 1, 2, num(c, p.cg), num(c, p.sg), z);
    if (p.a != 0) ok &= push(L, 0, 0, z, z, num(c, p.a));
    if (p.sa != 0 || p.ca != 1) ok &= push(L, 1, 0, num(c, p.ca), num(c, p.sa), z);
    if (p.dc != 0) ok &= push(L, 0, 2, z, z, num(c, p.dc));
    ok &= push(L, 1, 2, mj_let(c, sym_func(c, SYM_FN_COS, q, NULL)),
               mj_let(c, sym_func(c, SYM_FN_SIN, q, NULL)), z);
    if (!ok) L->nst = 0;
  }
  return !sym_ctx_error(c);
}
