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

/* R S R^T for a rotation in the (i, j) plane (fixing axis k) of the
 * symmetric 3x3 block of I at (b, b): the (i, j) part by the double angle,
 * (m + h', m - h', b') with m and h the mean and half difference of the
 * diagonal, 12 operations where the products take 27. */
static void rot_sym_block(sym_ctx *c, const jstage *st, sn c2, sn s2, const sn *I, int b, sn *o) {
  int i = (st->ax + 1) % 3 + b, j = (st->ax + 2) % 3 + b, k = st->ax + b;
  sn half = sym_rat(c, 1, 2), Sii = I[6 * i + i], Sjj = I[6 * j + j], Sij = I[6 * i + j];
  sn m = sym_mul(c, half, sym_add(c, Sii, Sjj)), h = mj_let(c, sym_mul(c, half, sym_sub(c, Sii, Sjj)));
  sn h1 = mj_let(c, sym_sub(c, sym_mul(c, c2, h), sym_mul(c, s2, Sij)));
  m = mj_let(c, m);
  o[6 * i + i] = sym_add(c, m, h1);
  o[6 * j + j] = sym_sub(c, m, h1);
  o[6 * i + j] = o[6 * j + i] = sym_add(c, sym_mul(c, s2, h), sym_mul(c, c2, Sij));
  sn Sik = I[6 * i + k], Sjk = I[6 * j + k];
  o[6 * i + k] = o[6 * k + i] = sym_sub(c, sym_mul(c, st->c, Sik), sym_mul(c, st->s, Sjk));
  o[6 * j + k] = o[6 * k + j] = sym_add(c, sym_mul(c, st->s, Sik), sym_mul(c, st->c, Sjk));
  o[6 * k + k] = I[6 * k + k];
}

/* X^T I X for a rotation step by a general angle: both symmetric blocks by
 * the double angle, the coupling block R B R^T row pairs then column pairs */
static void rot_inertia(sym_ctx *c, const jstage *st, const sn *I, sn *o) {
  sn c2 = mj_let(c, sym_mul(c, sym_sub(c, st->c, st->s), sym_add(c, st->c, st->s)));
  sn s2 = mj_let(c, sym_mul(c, sym_int(c, 2), sym_mul(c, st->c, st->s)));
  rot_sym_block(c, st, c2, s2, I, 0, o);
  rot_sym_block(c, st, c2, s2, I, 3, o);
  int i = (st->ax + 1) % 3, j = (st->ax + 2) % 3, k = st->ax;
  sn B[9], B1[9];
  for (int r = 0; r < 3; r++)
    for (int q = 0; q < 3; q++) B[3 * r + q] = I[6 * r + 3 + q];
  for (int q = 0; q < 3; q++) { /* R B */
    B1[3 * i + q] = mj_let(c, sym_sub(c, sym_mul(c, st->c, B[3 * i + q]), sym_mul(c, st->s, B[3 * j + q])));
    B1[3 * j + q] = mj_let(c, sym_add(c, sym_mul(c, st->s, B[3 * i + q]), sym_mul(c, st->c, B[3 * j + q])));
    B1[3 * k + q] = B[3 * k + q];
  }
  for (int r = 0; r < 3; r++) { /* (R B) R^T */
    sn bi = B1[3 * r + i], bj = B1[3 * r + j];
    o[6 * r + 3 + i] = sym_sub(c, sym_mul(c, st->c, bi), sym_mul(c, st->s, bj));
    o[6 * r + 3 + j] = sym_add(c, sym_mul(c, st->s, bi), sym_mul(c, st->c, bj));
    o[6 * r + 3 + k] = B1[3 * r + k];
    for (int q = 0; q < 3; q++) o[6 * (3 + q) + r] = o[6 * r + 3 + q];
  }
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
    /* the double angle where each symmetric block's (i, j) part is full;
     * else the products, which skip the zeros, are cheaper */
    int dense = st->rot, i = (st->ax + 1) % 3, j = (st->ax + 2) % 3;
    for (int b = 0; dense && b <= 3; b += 3)
      dense &= !sym_is_zero(x[6 * (b + i) + b + i]) && !sym_is_zero(x[6 * (b + j) + b + j]) &&
               !sym_is_zero(x[6 * (b + i) + b + j]);
    if (st->rot && dense && !sym_is_zero(st->c) && !sym_is_zero(st->s))
      rot_inertia(c, st, x, o);
    else {
      jlink P;
      step_link(c, st, &P);
      inertia_out(c, &P, x, o);
    }
    mj_let_sym6(c, o);
    memcpy(x, o, sizeof x);
  }
}
