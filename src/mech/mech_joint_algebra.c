/* mech_joint_algebra.c - spatial algebra on expressions for the link recursion:
 * motion and force transforms between a link and its parent, cross
 * products, 6x6 products and the transform of an inertia (X^T I X). */
#include "mech_joint_internal.h"

#include <string.h>

/* ---- small spatial algebra on expressions ------------------------------------------------- */
sn mj_let(sym_ctx *c, sn e) { return sym_let(c, e, 0, NULL); }

sn mj_dot3(sym_ctx *c, const sn *a, const sn *b) {
  return sym_addv(c, 3, (sn[]){sym_mul(c, a[0], b[0]), sym_mul(c, a[1], b[1]), sym_mul(c, a[2], b[2])});
}

void mj_cross3(sym_ctx *c, const sn *a, const sn *b, sn *o) {
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    o[i] = sym_sub(c, sym_mul(c, a[j], b[k]), sym_mul(c, a[k], b[j]));
  }
}

/* R x and R^T x */
void mj_rot(sym_ctx *c, const sn *R, const sn *x, sn *o, int transpose) {
  for (int i = 0; i < 3; i++) {
    sn r[3] = {R[transpose ? i : 3 * i], R[transpose ? 3 + i : 3 * i + 1], R[transpose ? 6 + i : 3 * i + 2]};
    o[i] = mj_dot3(c, r, x);
  }
}

/* the motion vector m of the parent in the link: (R^T w, R^T (v - d x w)) */
static void motion_in(sym_ctx *c, const jlink *L, const sn *m, sn *o) {
  sn dw[3], t[3];
  mj_cross3(c, L->d, m, dw);
  for (int i = 0; i < 3; i++) t[i] = sym_sub(c, m[3 + i], dw[i]);
  mj_rot(c, L->R, m, o, 1);
  mj_rot(c, L->R, t, o + 3, 1);
}

/* the link's force f in the parent: (R n + d x R f, R f) */
static void force_out(sym_ctx *c, const jlink *L, const sn *f, sn *o) {
  sn rn[3], rf[3], dx[3];
  mj_rot(c, L->R, f, rn, 0);
  mj_rot(c, L->R, f + 3, rf, 0);
  mj_cross3(c, L->d, rf, dx);
  for (int i = 0; i < 3; i++) {
    o[i] = sym_add(c, rn[i], dx[i]);
    o[3 + i] = rf[i];
  }
}

/* v x m (motion) and v x* f (force) */
void mj_cross_motion(sym_ctx *c, const sn *v, const sn *m, sn *o) {
  sn a[3], b[3];
  mj_cross3(c, v, m, o);
  mj_cross3(c, v, m + 3, a);
  mj_cross3(c, v + 3, m, b);
  for (int i = 0; i < 3; i++) o[3 + i] = sym_add(c, a[i], b[i]);
}

void mj_cross_force(sym_ctx *c, const sn *v, const sn *f, sn *o) {
  sn a[3], b[3];
  mj_cross3(c, v, f, a);
  mj_cross3(c, v + 3, f + 3, b);
  for (int i = 0; i < 3; i++) o[i] = sym_add(c, a[i], b[i]);
  mj_cross3(c, v, f + 3, o + 3);
}

sn mj_dot6(sym_ctx *c, const sn *a, const sn *b) {
  sn t[6];
  for (int i = 0; i < 6; i++) t[i] = sym_mul(c, a[i], b[i]);
  return sym_addv(c, 6, t);
}

void mj_times6(sym_ctx *c, const sn *I, const sn *x, sn *y) {
  for (int i = 0; i < 6; i++) y[i] = mj_dot6(c, I + 6 * i, x);
}

/* 3x3 blocks of a 6x6 (row-major) */
static void mj_block(const sn *I, int r, int k, sn *B) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) B[3 * i + j] = I[6 * (3 * r + i) + 3 * k + j];
}

void mj_mul3(sym_ctx *c, const sn *A, const sn *B, sn *o, int at, int bt) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      sn t[3];
      for (int k = 0; k < 3; k++)
        t[k] = sym_mul(c, at ? A[3 * k + i] : A[3 * i + k], bt ? B[3 * j + k] : B[3 * k + j]);
      o[3 * i + j] = sym_addv(c, 3, t);
    }
}

/* R S R^T for the symmetric S: the upper triangle, mirrored */
static void mj_rotate_sym(sym_ctx *c, const sn *R, const sn *S, sn *o) {
  sn t[9];
  mj_mul3(c, S, R, t, 0, 1); /* S R^T */
  for (int i = 0; i < 3; i++)
    for (int j = i; j < 3; j++) {
      sn r[3] = {R[3 * i], R[3 * i + 1], R[3 * i + 2]}, col[3] = {t[j], t[3 + j], t[6 + j]};
      o[3 * i + j] = o[3 * j + i] = mj_dot3(c, r, col);
    }
}

/* Is the symmetric S a multiple of 1? (then R S R^T = S) */
static int mj_scalar3(const sn *S) {
  return S[0] == S[4] && S[0] == S[8] && sym_is_zero(S[1]) && sym_is_zero(S[2]) && sym_is_zero(S[5]);
}

/* X^T I X for the link's transform (I symmetric, in the link; the result
 * in the parent): with A' = R A R^T, B' = R B R^T, M' = R M R^T and
 * D = [d]x: [[A' + D B'^T - B' D - D M' D, B' + D M'], [.., M']]. */
static void inertia_out(sym_ctx *c, const jlink *L, const sn *I, sn *o) {
  sn A[9], B[9], M[9], t[9], A1[9], B1[9], M1[9], z = sym_int(c, 0);
  mj_block(I, 0, 0, A);
  mj_block(I, 0, 1, B);
  mj_block(I, 1, 1, M);
  mj_rotate_sym(c, L->R, A, A1);
  mj_mul3(c, B, L->R, t, 0, 1);
  mj_mul3(c, L->R, t, B1, 0, 0);
  if (mj_scalar3(M)) memcpy(M1, M, sizeof M1); /* m 1 (a body about its mass centre) */
  else mj_rotate_sym(c, L->R, M, M1);
  const sn *d = L->d;
  sn D[9] = {z, sym_neg(c, d[2]), d[1], d[2], z, sym_neg(c, d[0]), sym_neg(c, d[1]), d[0], z};
  /* X = D B'^T, so that D B'^T - B' D = X + X^T (D^T = -D); Y = D M',
   * used by the upper right block and, times D, the symmetric D M' D */
  sn X[9], Y[9];
  mj_mul3(c, D, B1, X, 0, 1);
  mj_mul3(c, D, M1, Y, 0, 0);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      int k = 3 * i + j;
      if (j >= i) {
        sn ydj[3] = {D[j], D[3 + j], D[6 + j]};
        sn ymd = mj_dot3(c, &Y[3 * i], ydj);
        o[6 * i + j] = sym_addv(c, 4, (sn[]){A1[k], X[k], X[3 * j + i], sym_neg(c, ymd)});
        o[6 * (3 + i) + 3 + j] = M1[k];
      }
      o[6 * i + 3 + j] = sym_add(c, B1[k], Y[k]);
    }
  for (int i = 0; i < 6; i++) /* symmetric: one node per pair */
    for (int j = 0; j < i; j++) o[6 * i + j] = o[6 * j + i];
}

void mj_let_sym6(sym_ctx *c, sn *I) {
  for (int i = 0; i < 6; i++)
    for (int j = i; j < 6; j++) I[6 * i + j] = I[6 * j + i] = mj_let(c, I[6 * i + j]);
}

/* ---- transforms, one step at a time when the link has steps --------------------------------- */
/* step s as a link of its own: R a rotation about one axis, or d along one */
static void step_link(sym_ctx *c, const jstage *s, jlink *P) {
  sn z = sym_int(c, 0), one = sym_int(c, 1);
  for (int k = 0; k < 9; k++) P->R[k] = k % 4 == 0 ? one : z;
  for (int k = 0; k < 3; k++) P->d[k] = z;
  P->nst = 0;
  int i = (s->ax + 1) % 3, j = (s->ax + 2) % 3;
  if (s->rot) {
    P->R[3 * i + i] = P->R[3 * j + j] = s->c;
    P->R[3 * i + j] = sym_neg(c, s->s);
    P->R[3 * j + i] = s->s;
  } else
    P->d[s->ax] = s->t;
}

/* A 6-vector through L's steps one at a time: inward (a motion from the
 * parent, the parent's side first) or outward (a force to the parent). */
static void through_steps(sym_ctx *c, const jlink *L, const sn *in, sn *o, int outward,
                          void (*step)(sym_ctx *, const jlink *, const sn *, sn *)) {
  sn x[6];
  memcpy(x, in, sizeof x);
  for (int n = 0; n < L->nst; n++) {
    jlink P;
    step_link(c, &L->st[outward ? L->nst - 1 - n : n], &P);
    step(c, &P, x, o);
    for (int j = 0; j < 6; j++) x[j] = mj_let(c, o[j]);
  }
  memcpy(o, x, sizeof x);
}

void mj_motion_in(sym_ctx *c, const jlink *L, const sn *m, sn *o) {
  if (L->nst) through_steps(c, L, m, o, 0, motion_in);
  else motion_in(c, L, m, o);
}

void mj_force_out(sym_ctx *c, const jlink *L, const sn *f, sn *o) {
  if (L->nst) through_steps(c, L, f, o, 1, force_out);
  else force_out(c, L, f, o);
}

/* A rotation by (c, s) in the (i, j) plane (fixing axis k) carried through
 * an inertia by its factors: s^2, c s, 2 c s, c^2 - s^2 and half of it
 * (numbers for a constant angle; each bound once for a joint's angle). */
typedef struct rfac {
  sn c, s, ss, cs, tcs, cc_ss, hcc;
} rfac;

static void rot_factors(sym_ctx *c, const jstage *st, rfac *f) {
  f->c = st->c;
  f->s = st->s;
  f->ss = mj_let(c, sym_mul(c, st->s, st->s));
  f->cs = mj_let(c, sym_mul(c, st->c, st->s));
  f->tcs = mj_let(c, sym_mul(c, sym_int(c, 2), f->cs));
  f->cc_ss = mj_let(c, sym_sub(c, sym_mul(c, st->c, st->c), f->ss));
  f->hcc = mj_let(c, sym_mul(c, sym_rat(c, 1, 2), f->cc_ss));
}

/* R B R^T of the 2x2 [[a, b], [e, f]] in the plane: with D = a - f and
 * X = s^2 D + c s (b + e), the diagonal is (a - X, f + X) and the off-diagonal
 * c s D + (c^2 - s^2) (b + e) / 2 +- (b - e) / 2; for a symmetric block
 * (b = e) 9 operations where the products take 12 (24 unsymmetric). The
 * sums are bound before a number multiplies them (a canonical product
 * would spread the number over the terms). */
static void rot_2x2(sym_ctx *c, const rfac *r, sn a, sn b, sn e, sn f, sn *oa, sn *ob, sn *oe, sn *of) {
  sn D = mj_let(c, sym_sub(c, a, f)), X, m;
  if (b == e) {
    X = mj_let(c, sym_add(c, sym_mul(c, r->ss, D), sym_mul(c, r->tcs, b)));
    *ob = *oe = sym_add(c, sym_mul(c, r->cs, D), sym_mul(c, r->cc_ss, b));
  } else {
    sn sbe = mj_let(c, sym_add(c, b, e)), dbe = mj_let(c, sym_sub(c, b, e));
    X = mj_let(c, sym_add(c, sym_mul(c, r->ss, D), sym_mul(c, r->cs, sbe)));
    m = mj_let(c, sym_add(c, sym_mul(c, r->cs, D), sym_mul(c, r->hcc, sbe)));
    sn h = mj_let(c, sym_mul(c, sym_rat(c, 1, 2), dbe));
    *ob = sym_add(c, m, h);
    *oe = sym_sub(c, m, h);
  }
  *oa = sym_sub(c, a, X);
  *of = sym_add(c, f, X);
}

/* (c x - s y, s x + c y) */
static void rot_pair(sym_ctx *c, const rfac *r, sn x, sn y, sn *ox, sn *oy) {
  *ox = sym_sub(c, sym_mul(c, r->c, x), sym_mul(c, r->s, y));
  *oy = sym_add(c, sym_mul(c, r->s, x), sym_mul(c, r->c, y));
}

/* X^T I X for a rotation step by a general angle (R in each 3x3 block:
 * R A R^T, R B R^T, R M R^T), the (i, j) parts of the blocks by rot_2x2,
 * the rows and columns along k by pairs; zeros (an articulated inertia's
 * row and column along its joint) fold away. */
static void rot_inertia(sym_ctx *c, const jstage *st, const sn *I, sn *o) {
  rfac r;
  rot_factors(c, st, &r);
  int i = (st->ax + 1) % 3, j = (st->ax + 2) % 3, k = st->ax;
#define E(x, y) (6 * (x) + (y))
  for (int b = 0; b <= 3; b += 3) { /* the symmetric A (b = 0) and M (b = 3) */
    sn oa, ob, oe, of;
    rot_2x2(c, &r, I[E(b + i, b + i)], I[E(b + i, b + j)], I[E(b + i, b + j)], I[E(b + j, b + j)], &oa, &ob, &oe, &of);
    o[E(b + i, b + i)] = oa;
    o[E(b + j, b + j)] = of;
    o[E(b + i, b + j)] = o[E(b + j, b + i)] = ob;
    sn x, y;
    rot_pair(c, &r, I[E(b + i, b + k)], I[E(b + j, b + k)], &x, &y);
    o[E(b + i, b + k)] = o[E(b + k, b + i)] = x;
    o[E(b + j, b + k)] = o[E(b + k, b + j)] = y;
    o[E(b + k, b + k)] = I[E(b + k, b + k)];
  }
  /* B (rows 0-2, columns 3-5), and B^T below */
  sn B[9];
  rot_2x2(c, &r, I[E(i, 3 + i)], I[E(i, 3 + j)], I[E(j, 3 + i)], I[E(j, 3 + j)], &B[3 * i + i], &B[3 * i + j],
          &B[3 * j + i], &B[3 * j + j]);
  rot_pair(c, &r, I[E(i, 3 + k)], I[E(j, 3 + k)], &B[3 * i + k], &B[3 * j + k]); /* R on column k */
  rot_pair(c, &r, I[E(k, 3 + i)], I[E(k, 3 + j)], &B[3 * k + i], &B[3 * k + j]); /* row k times R^T */
  B[3 * k + k] = I[E(k, 3 + k)];
  for (int x = 0; x < 3; x++)
    for (int y = 0; y < 3; y++) o[E(x, 3 + y)] = o[E(3 + y, x)] = B[3 * x + y];
#undef E
}

void mj_inertia_out(sym_ctx *c, const jlink *L, const sn *I, sn *o) {
  if (!L->nst) {
    inertia_out(c, L, I, o);
    return;
  }
  sn x[36];
  memcpy(x, I, sizeof x);
  for (int k = L->nst; k-- > 0;) {
    const jstage *st = &L->st[k];
    /* a general angle by its factors; a right angle (a signed
     * permutation) and a translation by the products, which fold */
    if (st->rot && !sym_is_zero(st->c) && !sym_is_zero(st->s)) rot_inertia(c, st, x, o);
    else {
      jlink P;
      step_link(c, st, &P);
      inertia_out(c, &P, x, o);
    }
    mj_let_sym6(c, o);
    memcpy(x, o, sizeof x);
  }
}
