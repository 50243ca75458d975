/* mech_joint.c - a kinematic tree's dynamics in link coordinates.
 *
 * mech_tree.c works in world axes: every link's twist, position and
 * inertia is a function of every joint above it, so its cost per link
 * grows with the depth (and its derivation composes every frame's
 * rotation to the root). Here the model is read as a tree of rigid links,
 * each with its own frame F and origin O (a body's frame and mass
 * centre), joined to its parent link by a transform that depends on the
 * link's own coordinates only:
 *
 *   v_parent = R v_link (F components to the parent's), d = O_parent -> O
 *   in the parent's components, and the joint's motion S (6 x k, per own
 *   q' in F at O) with its rate term cJ = sum_i dS/dq_i q_i' q'.
 *
 * Then Featherstone's articulated-body algorithm (RBDA ch. 7) gives q''
 * with the velocity terms and gravity (the base accelerating at -g) in
 * one outward, one inward and one outward pass, a fixed number of
 * operations per link whatever the depth; the kinetic energy is
 * sum v^T I v / 2 over the links' velocities, the mass matrix is the
 * composite-rigid-body one and the forcing tau - C Newton-Euler's, all in
 * the same link coordinates. Every quantity of a link is let-bound
 * (sym_let), so the next link's quantities use it as one term.
 *
 * The tree is found from the model's structure, not by sampling: the
 * coordinates each frame's rotation and each point's position depend on
 * (its own and its parents'), grouped into links by the carriers that
 * share a set; each link's parent is the link with the largest set inside
 * its own, and the link's own coordinates are the difference. Anything
 * that does not fit (particles alone, a carrier not rigid in its link's
 * frame, kinematics that move with t or inputs, a transform that depends
 * on another link's coordinates) leaves the model to mech_tree.c. */
#include "mech_internal.h"

#include <math.h>
#include <string.h>

typedef const sym_node *sn;
enum { KMAX = 7, NRHS = 7 }; /* joint coordinates (a free joint in a quaternion: 7); D^-1's
                                right-hand sides [u, U^T] */

typedef struct jlink {
  int frame, point, parent;  /* parent link (-1: the inertial frame, origin) */
  size_t k, q[KMAX];         /* own coordinates */
  sn R[9], d[3];
  sn S[KMAX][6], cJ[6];
  sn I[36];                  /* spatial inertia about O in F, (w, v_O) order */
} jlink;

struct mech_joints {
  size_t nl;
  jlink *L;                  /* parents first */
  sn a0[6];                  /* the base's acceleration: (0, -g) */
  sn (*v)[6], (*c)[6];       /* link velocities and v x vJ + cJ */
  sn T, Vg;                  /* kinetic energy; gravity's potential (0 without gravity) */
};

typedef struct bits {
  size_t words;
  uint64_t *w;               /* per object: words each */
} bits;

/* ---- small spatial algebra on expressions ------------------------------------------------- */
static sn let(sym_ctx *c, sn e) { return sym_let(c, e, 0, NULL); }

static sn dot3(sym_ctx *c, const sn *a, const sn *b) {
  return sym_addv(c, 3, (sn[]){sym_mul(c, a[0], b[0]), sym_mul(c, a[1], b[1]), sym_mul(c, a[2], b[2])});
}

static void cross3(sym_ctx *c, const sn *a, const sn *b, sn *o) {
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    o[i] = sym_sub(c, sym_mul(c, a[j], b[k]), sym_mul(c, a[k], b[j]));
  }
}

/* R x and R^T x */
static void rot(sym_ctx *c, const sn *R, const sn *x, sn *o, int transpose) {
  for (int i = 0; i < 3; i++) {
    sn r[3] = {R[transpose ? i : 3 * i], R[transpose ? 3 + i : 3 * i + 1], R[transpose ? 6 + i : 3 * i + 2]};
    o[i] = dot3(c, r, x);
  }
}

/* the motion vector m of the parent in the link: (R^T w, R^T (v - d x w)) */
static void motion_in(sym_ctx *c, const jlink *L, const sn *m, sn *o) {
  sn dw[3], t[3];
  cross3(c, L->d, m, dw);
  for (int i = 0; i < 3; i++) t[i] = sym_sub(c, m[3 + i], dw[i]);
  rot(c, L->R, m, o, 1);
  rot(c, L->R, t, o + 3, 1);
}

/* the link's force f in the parent: (R n + d x R f, R f) */
static void force_out(sym_ctx *c, const jlink *L, const sn *f, sn *o) {
  sn rn[3], rf[3], dx[3];
  rot(c, L->R, f, rn, 0);
  rot(c, L->R, f + 3, rf, 0);
  cross3(c, L->d, rf, dx);
  for (int i = 0; i < 3; i++) {
    o[i] = sym_add(c, rn[i], dx[i]);
    o[3 + i] = rf[i];
  }
}

/* v x m (motion) and v x* f (force) */
static void cross_motion(sym_ctx *c, const sn *v, const sn *m, sn *o) {
  sn a[3], b[3];
  cross3(c, v, m, o);
  cross3(c, v, m + 3, a);
  cross3(c, v + 3, m, b);
  for (int i = 0; i < 3; i++) o[3 + i] = sym_add(c, a[i], b[i]);
}

static void cross_force(sym_ctx *c, const sn *v, const sn *f, sn *o) {
  sn a[3], b[3];
  cross3(c, v, f, a);
  cross3(c, v + 3, f + 3, b);
  for (int i = 0; i < 3; i++) o[i] = sym_add(c, a[i], b[i]);
  cross3(c, v, f + 3, o + 3);
}

static sn dot6(sym_ctx *c, const sn *a, const sn *b) {
  sn t[6];
  for (int i = 0; i < 6; i++) t[i] = sym_mul(c, a[i], b[i]);
  return sym_addv(c, 6, t);
}

static void times6(sym_ctx *c, const sn *I, const sn *x, sn *y) {
  for (int i = 0; i < 6; i++) y[i] = dot6(c, I + 6 * i, x);
}

/* 3x3 blocks of a 6x6 (row-major) */
static void block(const sn *I, int r, int k, sn *B) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) B[3 * i + j] = I[6 * (3 * r + i) + 3 * k + j];
}

static void mul3(sym_ctx *c, const sn *A, const sn *B, sn *o, int at, int bt) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      sn t[3];
      for (int k = 0; k < 3; k++)
        t[k] = sym_mul(c, at ? A[3 * k + i] : A[3 * i + k], bt ? B[3 * j + k] : B[3 * k + j]);
      o[3 * i + j] = sym_addv(c, 3, t);
    }
}

/* R S R^T for the symmetric S: the upper triangle, mirrored */
static void rotate_sym(sym_ctx *c, const sn *R, const sn *S, sn *o) {
  sn t[9];
  mul3(c, S, R, t, 0, 1); /* S R^T */
  for (int i = 0; i < 3; i++)
    for (int j = i; j < 3; j++) {
      sn r[3] = {R[3 * i], R[3 * i + 1], R[3 * i + 2]}, col[3] = {t[j], t[3 + j], t[6 + j]};
      o[3 * i + j] = o[3 * j + i] = dot3(c, r, col);
    }
}

/* Is the symmetric S a multiple of 1? (then R S R^T = S) */
static int scalar3(const sn *S) {
  return S[0] == S[4] && S[0] == S[8] && sym_is_zero(S[1]) && sym_is_zero(S[2]) && sym_is_zero(S[5]);
}

/* X^T I X for the link's transform (I symmetric, in the link; the result
 * in the parent): with A' = R A R^T, B' = R B R^T, M' = R M R^T and
 * D = [d]x: [[A' + D B'^T - B' D - D M' D, B' + D M'], [.., M']]. */
static void inertia_out(sym_ctx *c, const jlink *L, const sn *I, sn *o) {
  sn A[9], B[9], M[9], t[9], A1[9], B1[9], M1[9], z = sym_int(c, 0);
  block(I, 0, 0, A);
  block(I, 0, 1, B);
  block(I, 1, 1, M);
  rotate_sym(c, L->R, A, A1);
  mul3(c, B, L->R, t, 0, 1);
  mul3(c, L->R, t, B1, 0, 0);
  if (scalar3(M)) memcpy(M1, M, sizeof M1); /* m 1 (a body about its mass centre) */
  else rotate_sym(c, L->R, M, M1);
  const sn *d = L->d;
  sn D[9] = {z, sym_neg(c, d[2]), d[1], d[2], z, sym_neg(c, d[0]), sym_neg(c, d[1]), d[0], z};
  /* X = D B'^T, so that D B'^T - B' D = X + X^T (D^T = -D); Y = D M',
   * used by the upper right block and, times D, the symmetric D M' D */
  sn X[9], Y[9];
  mul3(c, D, B1, X, 0, 1);
  mul3(c, D, M1, Y, 0, 0);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      int k = 3 * i + j;
      if (j >= i) {
        sn ydj[3] = {D[j], D[3 + j], D[6 + j]};
        sn ymd = dot3(c, &Y[3 * i], ydj);
        o[6 * i + j] = sym_addv(c, 4, (sn[]){A1[k], X[k], X[3 * j + i], sym_neg(c, ymd)});
        o[6 * (3 + i) + 3 + j] = M1[k];
      }
      o[6 * i + 3 + j] = sym_add(c, B1[k], Y[k]);
    }
  for (int i = 0; i < 6; i++) /* symmetric: one node per pair */
    for (int j = 0; j < i; j++) o[6 * i + j] = o[6 * j + i];
}

static void let_sym6(sym_ctx *c, sn *I) {
  for (int i = 0; i < 6; i++)
    for (int j = i; j < 6; j++) I[6 * i + j] = I[6 * j + i] = let(c, I[6 * i + j]);
}

/* ---- reading the tree from the model ------------------------------------------------------ */
typedef struct reader {
  mech_model *m;
  sym_ctx *c;
  size_t n, words;
  uint64_t *fdep, *pdep;       /* per frame / point: the coordinates it depends on */
  unsigned char *fdone, *pdone, *fmoving, *pmoving;
  sn *banned;                  /* t and the inputs: never in the kinematics of a link */
  size_t nbanned;
  /* every node's dependencies, memoized: words + 1 per node (the last: 1
   * when it holds t or an input) at memo[node] - 1. A world position's
   * terms share their subexpressions with every point below it: asking
   * sym_has once per coordinate and expression was most of the reading */
  lg_map memo, atom;           /* node id -> slot + 1; coordinate or banned atom -> its bit + 1 */
  uint64_t *pool;
  size_t npool, cap;
  int oom;
} reader;

/* The slot of e's dependencies (computed on first use); (size_t)-1: OOM. */
static size_t deps_of(reader *r, sn e) {
  size_t at = lg_map_get_n(&r->memo, e->id);
  if (at) return at - 1;
  size_t W = r->words + 1, k = r->npool;
  if (!lg_grow((void **)&r->pool, &r->cap, (k + 1) * W, sizeof *r->pool)) return (size_t)-1;
  r->npool++;
  memset(r->pool + k * W, 0, W * sizeof *r->pool);
  size_t bit = lg_map_get_n(&r->atom, e->id);
  if (bit) { /* a coordinate (bit <= n) or t, an input */
    if (bit <= r->n) r->pool[k * W + (bit - 1) / 64] |= 1ull << ((bit - 1) % 64);
    else r->pool[k * W + r->words] = 1;
  }
  for (uint32_t i = 0; i < e->nargs; i++) {
    size_t c = deps_of(r, e->args[i]);
    if (c == (size_t)-1) return c;
    for (size_t j = 0; j < W; j++) r->pool[k * W + j] |= r->pool[c * W + j];
  }
  if (!lg_map_put_n(&r->memo, e->id, k + 1)) return (size_t)-1;
  return k;
}

static int depends(reader *r, sn e, uint64_t *w, unsigned char *moving) {
  if (!e) return 0;
  size_t k = deps_of(r, e), W = r->words + 1;
  if (k == (size_t)-1) return r->oom = 1, 0;
  for (size_t j = 0; j < r->words; j++) w[j] |= r->pool[k * W + j];
  if (r->pool[k * W + r->words]) *moving = 1;
  return 1;
}

static uint64_t *frame_deps(reader *r, int f) {
  uint64_t *w = r->fdep + (size_t)f * r->words;
  if (r->fdone[f]) return w;
  const mech_frame *F = &r->m->frames.v[f];
  if (F->parent >= 0) {
    uint64_t *p = frame_deps(r, F->parent);
    for (size_t i = 0; i < r->words; i++) w[i] |= p[i];
    r->fmoving[f] |= r->fmoving[F->parent];
    if (F->axis >= 0) depends(r, F->angle, w, &r->fmoving[f]);
    else
      for (int i = 0; i < 9; i++) depends(r, F->R[i], w, &r->fmoving[f]);
  }
  r->fdone[f] = 1;
  return w;
}

static uint64_t *point_deps(reader *r, int p) {
  uint64_t *w = r->pdep + (size_t)p * r->words;
  if (r->pdone[p]) return w;
  mech_vec x = mech_point_pos(r->m, p);
  for (size_t i = 0; i < x.n; i++) {
    uint64_t *f = frame_deps(r, x.t[i].frame);
    int zero = 1;
    for (int k = 0; k < 3; k++) {
      zero &= sym_is_zero(x.t[i].c[k]);
      depends(r, x.t[i].c[k], w, &r->pmoving[p]);
    }
    if (zero) continue;
    for (size_t j = 0; j < r->words; j++) w[j] |= f[j];
    r->pmoving[p] |= r->fmoving[x.t[i].frame];
  }
  r->pdone[p] = 1;
  return w;
}

static size_t popcount(const uint64_t *w, size_t words) {
  size_t k = 0;
  for (size_t i = 0; i < words; i++) k += (size_t)__builtin_popcountll(w[i]);
  return k;
}

static int subset(const uint64_t *a, const uint64_t *b, size_t words) {
  for (size_t i = 0; i < words; i++)
    if (a[i] & ~b[i]) return 0;
  return 1;
}

/* Does e depend on a coordinate outside own (or on t, an input)? */
static int foreign(reader *r, sn e, const uint64_t *own) {
  size_t k = deps_of(r, e), W = r->words + 1;
  if (k == (size_t)-1) return r->oom = 1;
  for (size_t j = 0; j < r->words; j++)
    if (r->pool[k * W + j] & ~(own ? own[j] : 0)) return 1;
  return r->pool[k * W + r->words] != 0;
}

static sn same(void *ud, sn e) {
  (void)ud;
  return e;
}

/* a without its zero terms (a difference of two positions keeps the
 * frames whose terms cancelled) */
static mech_vec nonzero(mech_model *m, mech_vec a) { return mech_vec_map(m, a, same, NULL); }

/* The spatial inertia of carrier (frame f or -1, point p, mass, I) about
 * O in F, added to I6; 0 when it is not fixed in the link. */
static int add_inertia(reader *r, const jlink *L, int f, int p, sn mass, sn const *Ib, sn *I6) {
  mech_model *m = r->m;
  sym_ctx *c = r->c;
  sn cv[3], z = sym_int(c, 0);
  if (!mech_vec_express(m, nonzero(m, mech_vec_sub(m, mech_point_pos(m, p), mech_point_pos(m, L->point))),
                        L->frame, cv))
    return 0;
  for (int i = 0; i < 3; i++)
    if (foreign(r, cv[i], NULL)) return 0;
  sn J[9] = {z, z, z, z, z, z, z, z, z};
  if (f >= 0) {
    const sn *Q = mech_dcm_get(m, L->frame, f);
    if (!Q) return 0;
    sn Qc[9], Jb[9] = {Ib[0], Ib[3], Ib[5], Ib[3], Ib[1], Ib[4], Ib[5], Ib[4], Ib[2]}, t[9];
    memcpy(Qc, Q, sizeof Qc);
    mul3(c, Jb, Qc, t, 0, 1);
    mul3(c, Qc, t, J, 0, 0);
    for (int i = 0; i < 9; i++)
      if (foreign(r, J[i], NULL)) return 0;
  }
  sn cc = dot3(c, cv, cv);
  sn cx[9] = {z, sym_neg(c, cv[2]), cv[1], cv[2], z, sym_neg(c, cv[0]), sym_neg(c, cv[1]), cv[0], z};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      sn a = sym_mul(c, mass, sym_sub(c, i == j ? cc : z, sym_mul(c, cv[i], cv[j])));
      I6[6 * i + j] = sym_addv(c, 3, (sn[]){I6[6 * i + j], a, J[3 * i + j]});
      sn mc = sym_mul(c, mass, cx[3 * i + j]);
      I6[6 * i + 3 + j] = sym_add(c, I6[6 * i + 3 + j], mc);
      I6[6 * (3 + i) + j] = sym_sub(c, I6[6 * (3 + i) + j], mc);
      if (i == j) I6[6 * (3 + i) + 3 + j] = sym_add(c, I6[6 * (3 + i) + 3 + j], mass);
    }
  return 1;
}

/* The rate of a's components as seen in frame pf, term by term in the
 * term's own frame f: c' + w_{f/pf} x c. The same vector as the rate of
 * a's components in pf expressed afterwards, but a link's offset fixed in
 * the link stays a constant times the joint's rates, where R^T d'
 * (R and d' both trigonometric in q) is that constant only through
 * sin^2 + cos^2 = 1, which the canonical forms do not see: the joint's
 * motion S came out depending on q, and every product with it grew. 0
 * when a term's frame is not below pf. */
static int rate_in(mech_model *m, mech_vec a, int pf, mech_vec *out) {
  sym_ctx *c = m->c;
  mech_vec acc = mech_vec_zero();
  for (size_t i = 0; i < a.n; i++) {
    int f = a.t[i].frame, g = f;
    mech_vec w = mech_vec_zero();
    for (; g >= 0 && g != pf; g = m->frames.v[g].parent) w = mech_vec_add(m, w, m->frames.v[g].omega_rel);
    if (g != pf) return 0;
    const sym_node *const *x = a.t[i].c;
    mech_vec own = mech_vec_from(m, f, sym_dt(c, x[0]), sym_dt(c, x[1]), sym_dt(c, x[2]));
    acc = mech_vec_add(m, acc, own);
    w = nonzero(m, w);
    if (w.n) acc = mech_vec_add(m, acc, mech_vec_cross(m, w, mech_vec_from(m, f, x[0], x[1], x[2])));
  }
  *out = acc;
  return !m->oom;
}

/* R, d, S and cJ of link L (parent frame pf, point pp; -1: the inertial
 * frame and the origin). */
static int joint(reader *r, jlink *L, int pf, int pp, const uint64_t *own) {
  mech_model *m = r->m;
  sym_ctx *c = r->c;
  const sn *R = mech_dcm_get(m, pf, L->frame);
  if (!R) return 0;
  memcpy(L->R, R, sizeof L->R);
  mech_vec dv = mech_point_pos(m, L->point);
  if (pp >= 0) dv = mech_vec_sub(m, dv, mech_point_pos(m, pp));
  dv = nonzero(m, dv);
  if (!mech_vec_express(m, dv, pf, L->d)) return 0;
  for (int i = 0; i < 9; i++)
    if (foreign(r, L->R[i], own)) return 0;
  for (int i = 0; i < 3; i++)
    if (foreign(r, L->d[i], own)) return 0;
  /* the rotation relative to the parent frame: its frames' own rates */
  mech_vec w = mech_vec_zero();
  int g = L->frame;
  for (; g >= 0 && g != pf; g = m->frames.v[g].parent) w = mech_vec_add(m, w, m->frames.v[g].omega_rel);
  if (g != pf) return 0;
  sn vJ[6], dd[3];
  if (!mech_vec_express(m, nonzero(m, w), L->frame, vJ)) return 0;
  mech_vec rate;
  if (rate_in(m, dv, pf, &rate)) {
    if (!mech_vec_express(m, nonzero(m, rate), L->frame, vJ + 3)) return 0;
  } else { /* a term outside the parent's frames: R^T d' */
    for (int i = 0; i < 3; i++) dd[i] = sym_dt(c, L->d[i]);
    rot(c, L->R, dd, vJ + 3, 1);
  }
  sn z = sym_int(c, 0);
  for (int j = 0; j < 6; j++) {
    vJ[j] = let(c, vJ[j]);
    L->cJ[j] = z;
  }
  for (size_t i = 0; i < L->k; i++) {
    sn q = mech_coord(m, L->q[i], 0), qd = mech_coord(m, L->q[i], 1);
    for (int j = 0; j < 6; j++) {
      L->S[i][j] = let(c, sym_diff(c, vJ[j], qd));
      L->cJ[j] = sym_add(c, L->cJ[j], sym_mul(c, sym_diff(c, vJ[j], q), qd));
      if (foreign(r, L->S[i][j], own)) return 0;
    }
  }
  for (int j = 0; j < 6; j++) L->cJ[j] = let(c, L->cJ[j]);
  return !sym_ctx_error(c);
}

typedef struct carrier { int frame, point; sn mass; const sn *I; size_t link; } carrier;

static int read_tree(mech_model *m, mech_joints *J) {
  reader r = {.m = m, .c = m->c, .n = mech_ncoords(m)};
  size_t n = r.n, nf = m->frames.n, np = m->points.n, nk = m->particles.n + m->bodies.n;
  if (!n || !m->bodies.n) return 0;
  r.words = n / 64 + 1;
  r.fdep = lg_calloc((nf + 1) * r.words, sizeof *r.fdep);
  r.pdep = lg_calloc((np + 1) * r.words, sizeof *r.pdep);
  r.fdone = lg_calloc(nf + 1, 4);
  r.pdone = lg_calloc(np + 1, 4);
  r.fmoving = r.fdone + nf + 1;
  r.pmoving = r.pdone + np + 1;
  r.nbanned = 1 + 3 * mech_ninputs(m);
  r.banned = lg_calloc(r.nbanned, sizeof *r.banned);
  carrier *K = lg_calloc(nk + 1, sizeof *K);
  size_t *link_of = lg_calloc(nk + 1, sizeof *link_of), *rep = lg_calloc(nk + 1, sizeof *rep);
  uint64_t *cdep = lg_calloc((nk + 1) * r.words, sizeof *cdep);
  int ok = r.fdep && r.pdep && r.fdone && r.pdone && r.banned && K && link_of && rep && cdep;
  if (ok) {
    r.banned[0] = sym_time(r.c);
    for (size_t i = 0; i + 1 < r.nbanned; i++) r.banned[1 + i] = mech_input(m, i / 3, (int)(i % 3));
    for (size_t i = 0; ok && i < n; i++) ok = lg_map_put_n(&r.atom, mech_coord(m, i, 0)->id, i + 1);
    for (size_t i = 0; ok && i < r.nbanned; i++) ok = lg_map_put_n(&r.atom, r.banned[i]->id, n + 1);
  }
  /* the carriers and the coordinates each moves with */
  for (size_t k = 0; ok && k < nk; k++) {
    if (k < m->particles.n) K[k] = (carrier){-1, m->particles.v[k].point, m->particles.v[k].mass, NULL, 0};
    else {
      const mech_body *b = &m->bodies.v[k - m->particles.n];
      K[k] = (carrier){b->frame, b->point, b->mass, b->I, 0};
    }
    uint64_t *w = cdep + k * r.words, *p = point_deps(&r, K[k].point);
    for (size_t i = 0; i < r.words; i++) w[i] = p[i];
    if (r.pmoving[K[k].point]) ok = 0;
    if (K[k].frame >= 0) {
      uint64_t *f = frame_deps(&r, K[k].frame);
      for (size_t i = 0; i < r.words; i++) w[i] |= f[i];
      if (r.fmoving[K[k].frame]) ok = 0;
    }
  }
  /* links: the carriers of one set, represented by its first body */
  size_t nl = 0;
  for (size_t k = 0; ok && k < nk; k++) {
    const uint64_t *w = cdep + k * r.words;
    if (!popcount(w, r.words)) { link_of[k] = (size_t)-1; continue; } /* fixed: no inertia */
    size_t l = 0;
    while (l < nl && memcmp(cdep + rep[l] * r.words, w, r.words * sizeof *w)) l++;
    if (l == nl) rep[nl++] = k;
    else if (K[rep[l]].frame < 0 && K[k].frame >= 0) rep[l] = k;
    link_of[k] = l;
  }
  jlink *L = ok ? lg_arena_alloc(&m->arena, (nl + 1) * sizeof *L) : NULL;
  size_t *order = lg_calloc(nl + 1, sizeof *order);
  uint64_t *covered = lg_calloc(r.words, sizeof *covered), *own = lg_calloc(r.words, sizeof *own);
  ok = ok && L && order && covered && own && nl;
  /* parents first: by the size of the set */
  for (size_t i = 0; ok && i < nl; i++) {
    order[i] = i;
    if (K[rep[i]].frame < 0) ok = 0; /* particles alone: no frame for the link */
  }
  for (size_t i = 1; ok && i < nl; i++)
    for (size_t j = i; j > 0 && popcount(cdep + rep[order[j - 1]] * r.words, r.words) >
                                    popcount(cdep + rep[order[j]] * r.words, r.words); j--) {
      size_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  size_t *pos = lg_calloc(nl + 1, sizeof *pos);
  ok = ok && pos;
  for (size_t i = 0; ok && i < nl; i++) pos[order[i]] = i;
  for (size_t i = 0; ok && i < nl; i++) {
    size_t l = order[i];
    const uint64_t *w = cdep + rep[l] * r.words;
    jlink *x = &L[i];
    memset(x, 0, sizeof *x);
    x->frame = K[rep[l]].frame;
    x->point = K[rep[l]].point;
    x->parent = -1;
    size_t best = 0;
    for (size_t j = 0; j < i; j++) { /* the largest set inside this one; every other inside it */
      const uint64_t *u = cdep + rep[order[j]] * r.words;
      if (!subset(u, w, r.words)) continue;
      if (x->parent < 0 || popcount(u, r.words) > best) {
        if (x->parent >= 0 && !subset(cdep + rep[order[x->parent]] * r.words, u, r.words)) ok = 0;
        x->parent = (int)j;
        best = popcount(u, r.words);
      } else if (!subset(u, cdep + rep[order[x->parent]] * r.words, r.words)) ok = 0;
    }
    const uint64_t *pw = x->parent >= 0 ? cdep + rep[order[x->parent]] * r.words : NULL;
    for (size_t j = 0; j < r.words; j++) own[j] = w[j] & ~(pw ? pw[j] : 0);
    for (size_t q = 0; ok && q < n; q++) {
      if (!(own[q / 64] >> (q % 64) & 1)) continue;
      if (covered[q / 64] >> (q % 64) & 1 || x->k == KMAX) ok = 0;
      else x->q[x->k++] = q;
      covered[q / 64] |= 1ull << (q % 64);
    }
    if (!x->k) ok = 0;
    const jlink *p = x->parent >= 0 ? &L[x->parent] : NULL;
    ok = ok && joint(&r, x, p ? p->frame : 0, p ? p->point : -1, own);
    sn z = sym_int(r.c, 0);
    for (int j = 0; j < 36; j++) x->I[j] = z;
    for (size_t k = 0; ok && k < nk; k++)
      if (link_of[k] == l)
        ok = add_inertia(&r, x, K[k].frame, K[k].point, K[k].mass, K[k].I, x->I);
    if (ok) let_sym6(r.c, x->I);
  }
  ok = ok && popcount(covered, r.words) == n && !r.oom;
  if (ok) {
    J->nl = nl;
    J->L = L;
  }
  lg_free(pos);
  lg_free(order);
  lg_free(covered);
  lg_free(own);
  lg_free(r.fdep);
  lg_free(r.pdep);
  lg_free(r.fdone);
  lg_free(r.pdone);
  lg_free(r.banned);
  lg_map_free(&r.memo);
  lg_map_free(&r.atom);
  lg_free(r.pool);
  lg_free(K);
  lg_free(link_of);
  lg_free(rep);
  lg_free(cdep);
  return ok && !m->oom && !sym_ctx_error(m->c);
}

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
  mul3(c, C, Rz, E, 0, 0);
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

static int axis_frames(mech_model *m, mech_joints *J) {
  sym_ctx *c = m->c;
  size_t nl = J->nl;
  reframe *F = lg_calloc(nl + 1, sizeof *F);
  if (!F) return 0;
  for (size_t i = 0; i < nl; i++) choose_frame(&J->L[i], &F[i]);
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
    rot(c, L->R, e, Re, 0);
    for (int k = 0; k < 3; k++) dn[k] = sym_sub(c, sym_add(c, L->d[k], Re[k]), ep[k]);
    rot(c, Qp, dn, L->d, 1);
    mul3(c, L->R, Q, t, 0, 0);
    mul3(c, Qp, t, L->R, 1, 0);
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
    sn me[3];
    for (int k = 0; k < 3; k++) me[k] = sym_neg(c, e[k]);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) pseudo.R[3 * a + b] = Q[3 * b + a];
    rot(c, Q, me, pseudo.d, 1);
    sn In[36];
    inertia_out(c, &pseudo, L->I, In);
    memcpy(L->I, In, sizeof In);
    let_sym6(c, L->I);
  }
  for (size_t i = 0; i < nl; i++)
    if (F[i].on && !sym_is_zero(J->L[i].S[0][2])) split_rotation(m, &J->L[i]);
  lg_free(F);
  return !sym_ctx_error(c);
}

/* ---- the passes ------------------------------------------------------------------------------ */
/* velocities, their bias accelerations and the energy: shared by all */
static int velocities(mech_model *m, mech_joints *J) {
  sym_ctx *c = m->c;
  size_t nl = J->nl;
  J->v = lg_arena_alloc(&m->arena, (nl + 1) * sizeof *J->v);
  J->c = lg_arena_alloc(&m->arena, (nl + 1) * sizeof *J->c);
  if (!J->v || !J->c) return 0;
  sn z = sym_int(c, 0), T = z;
  for (size_t i = 0; i < nl; i++) {
    const jlink *L = &J->L[i];
    sn vx[6], vJ[6], x[6], Iv[6];
    if (L->parent >= 0) motion_in(c, L, J->v[L->parent], vx);
    for (int j = 0; j < 6; j++) {
      vJ[j] = z;
      for (size_t k = 0; k < L->k; k++) vJ[j] = sym_add(c, vJ[j], sym_mul(c, L->S[k][j], mech_coord(m, L->q[k], 1)));
      vJ[j] = let(c, vJ[j]);
      J->v[i][j] = let(c, L->parent >= 0 ? sym_add(c, vx[j], vJ[j]) : vJ[j]);
    }
    cross_motion(c, J->v[i], vJ, x);
    for (int j = 0; j < 6; j++) J->c[i][j] = let(c, sym_add(c, L->cJ[j], x[j]));
    times6(c, L->I, J->v[i], Iv);
    T = sym_add(c, T, sym_mul(c, sym_rat(c, 1, 2), dot6(c, J->v[i], Iv)));
  }
  J->T = T;
  J->Vg = z;
  for (int i = 0; i < 6; i++) J->a0[i] = z;
  if (!m->has_gravity) return !sym_ctx_error(c);
  sn g[3];
  if (!mech_vec_express(m, m->gravity, 0, g)) return 0;
  for (int i = 0; i < 3; i++) J->a0[3 + i] = sym_neg(c, g[i]);
  /* -g . sum (m p_O + W (m c)): each link's world rotation W and origin
   * p composed from its parent's, one step a link */
  sn (*W)[9] = lg_calloc(nl + 1, sizeof *W), (*p)[3] = lg_calloc(nl + 1, sizeof *p);
  int ok = W && p;
  sn V = z;
  for (size_t i = 0; ok && i < nl; i++) {
    const jlink *L = &J->L[i];
    sn Wd[3], mc[3] = {sym_neg(c, L->I[11]), L->I[5], L->I[9]}, Wmc[3];
    if (L->parent < 0) {
      memcpy(W[i], L->R, sizeof W[i]);
      memcpy(p[i], L->d, sizeof p[i]);
    } else {
      mul3(c, W[L->parent], L->R, W[i], 0, 0);
      rot(c, W[L->parent], L->d, Wd, 0);
      for (int k = 0; k < 3; k++) p[i][k] = sym_add(c, p[L->parent][k], Wd[k]);
    }
    for (int k = 0; k < 9; k++) W[i][k] = let(c, W[i][k]);
    for (int k = 0; k < 3; k++) p[i][k] = let(c, p[i][k]);
    rot(c, W[i], mc, Wmc, 0);
    for (int k = 0; k < 3; k++) Wmc[k] = sym_add(c, Wmc[k], sym_mul(c, L->I[21], p[i][k]));
    V = sym_sub(c, V, dot3(c, g, Wmc));
  }
  J->Vg = V;
  lg_free(W);
  lg_free(p);
  return ok && !sym_ctx_error(c);
}

/* tau: Q - dV/dq (gravity is the base's acceleration) */
static sn tau(mech_model *m, size_t q) {
  return sym_sub(m->c, mech_generalized_force(m, q), sym_diff(m->c, m->V, mech_coord(m, q, 0)));
}

/* x = D^-1 b for the k x k symmetric D (Gauss-Jordan on expressions, each
 * step bound); k == 1 the one division. */
static void solve_small(sym_ctx *c, size_t k, sn D[KMAX][KMAX], sn b[KMAX][NRHS], size_t nb) {
  for (size_t p = 0; p < k; p++) {
    sn inv = let(c, sym_powi(c, D[p][p], -1));
    for (size_t j = p; j < k; j++) D[p][j] = let(c, sym_mul(c, D[p][j], inv));
    for (size_t j = 0; j < nb; j++) b[p][j] = let(c, sym_mul(c, b[p][j], inv));
    for (size_t i = 0; i < k; i++) {
      if (i == p) continue;
      sn f = D[i][p];
      for (size_t j = p; j < k; j++) D[i][j] = let(c, sym_sub(c, D[i][j], sym_mul(c, f, D[p][j])));
      for (size_t j = 0; j < nb; j++) b[i][j] = let(c, sym_sub(c, b[i][j], sym_mul(c, f, b[p][j])));
    }
  }
}

/* Constraint rows on a root link's own coordinates (a free joint's
 * quaternion norm): the rows, their right-hand sides g (J q'' = g) and the
 * root link each binds (-1: a row the recursion cannot take). */
typedef struct jrows {
  size_t m, n;
  const sym_node *const *J, *const *g;
  int *link;
} jrows;

/* q'' of root link i under its rows: with D' = D + Jc^T Jc (invertible
 * where D is singular along what the rows fix, as a quaternion's scale),
 * q'' = D'^-1 (r + Jc^T g + Jc^T lam) and Jc q'' = g gives lam: the same
 * solution as [D, -Jc^T; Jc, 0], an augmented Lagrangian at the root. */
static int root_rows(sym_ctx *c, const jlink *L, size_t i, const jrows *R, sn U[KMAX][6],
                     const sn *ap, const sym_node **qdd, sn r0[KMAX]) {
  size_t k = L->k, mc = 0, rows[NRHS];
  for (size_t r = 0; r < R->m; r++)
    if (R->link[r] == (int)i) {
      if (mc + 1 == NRHS) return 0;
      rows[mc++] = r;
    }
  sn D[KMAX][KMAX], b[KMAX][NRHS], Jc[NRHS][KMAX];
  for (size_t a = 0; a < mc; a++)
    for (size_t x = 0; x < k; x++) Jc[a][x] = R->J[rows[a] * R->n + L->q[x]];
  for (size_t x = 0; x < k; x++) {
    for (size_t y = 0; y < k; y++) {
      sn d = dot6(c, L->S[x], U[y]);
      for (size_t a = 0; a < mc; a++) d = sym_add(c, d, sym_mul(c, Jc[a][x], Jc[a][y]));
      D[x][y] = let(c, d);
    }
    sn rhs = r0[x];
    for (size_t a = 0; a < mc; a++) {
      rhs = sym_add(c, rhs, sym_mul(c, Jc[a][x], R->g[rows[a]]));
      b[x][1 + a] = Jc[a][x];
    }
    b[x][0] = let(c, rhs);
  }
  (void)ap;
  solve_small(c, k, D, b, 1 + mc);
  /* (Jc D'^-1 Jc^T) lam = g - Jc D'^-1 (r + Jc^T g) */
  sn Sm[KMAX][KMAX], l[KMAX][NRHS];
  for (size_t a = 0; a < mc; a++) {
    sn rhs = R->g[rows[a]];
    for (size_t x = 0; x < k; x++) rhs = sym_sub(c, rhs, sym_mul(c, Jc[a][x], b[x][0]));
    l[a][0] = let(c, rhs);
    for (size_t e = 0; e < mc; e++) {
      sn v = sym_int(c, 0);
      for (size_t x = 0; x < k; x++) v = sym_add(c, v, sym_mul(c, Jc[a][x], b[x][1 + e]));
      Sm[a][e] = let(c, v);
    }
  }
  solve_small(c, mc, Sm, l, 1);
  for (size_t x = 0; x < k; x++) {
    sn v = b[x][0];
    for (size_t a = 0; a < mc; a++) v = sym_add(c, v, sym_mul(c, b[x][1 + a], l[a][0]));
    qdd[L->q[x]] = let(c, v);
  }
  return !sym_ctx_error(c);
}

/* The articulated-body algorithm: q'' for every coordinate. */
static int aba(mech_model *m, mech_joints *J, const jrows *R, const sym_node **qdd) {
  sym_ctx *c = m->c;
  size_t nl = J->nl;
  sn (*IA)[36] = lg_calloc(nl + 1, sizeof *IA), (*pA)[6] = lg_calloc(nl + 1, sizeof *pA);
  sn (*U)[KMAX][6] = lg_calloc(nl + 1, sizeof *U), (*u)[KMAX] = lg_calloc(nl + 1, sizeof *u);
  sn (*DU)[KMAX][6] = lg_calloc(nl + 1, sizeof *DU), (*Du)[KMAX] = lg_calloc(nl + 1, sizeof *Du);
  sn (*a)[6] = lg_calloc(nl + 1, sizeof *a);
  int ok = IA && pA && U && u && DU && Du && a;
  sn z = sym_int(c, 0);
  for (size_t i = 0; ok && i < nl; i++) {
    sn Iv[6];
    memcpy(IA[i], J->L[i].I, sizeof IA[i]);
    times6(c, J->L[i].I, J->v[i], Iv);
    cross_force(c, J->v[i], Iv, pA[i]);
  }
  for (size_t i = nl; ok && i-- > 0;) { /* inward */
    const jlink *L = &J->L[i];
    size_t k = L->k;
    let_sym6(c, IA[i]);
    for (int j = 0; j < 6; j++) pA[i][j] = let(c, pA[i][j]);
    sn D[KMAX][KMAX], b[KMAX][NRHS];
    for (size_t r = 0; r < k; r++) {
      sn Us[6];
      times6(c, IA[i], L->S[r], Us);
      for (int j = 0; j < 6; j++) U[i][r][j] = let(c, Us[j]);
      u[i][r] = let(c, sym_sub(c, tau(m, L->q[r]), dot6(c, L->S[r], pA[i])));
    }
    for (size_t r = 0; r < k; r++)
      for (size_t s = 0; s < k; s++) D[r][s] = s < r ? D[s][r] : let(c, dot6(c, L->S[r], U[i][s]));
    /* D^-1 [u, U^T]: the solve of every right-hand side at once */
    for (size_t r = 0; r < k; r++) {
      b[r][0] = u[i][r];
      for (int j = 0; j < 6; j++) b[r][1 + j] = U[i][r][j];
    }
    solve_small(c, k, D, b, NRHS);
    for (size_t r = 0; r < k; r++) {
      Du[i][r] = b[r][0];
      for (int j = 0; j < 6; j++) DU[i][r][j] = b[r][1 + j];
    }
    if (L->parent < 0) continue;
    sn Ia[36], pa[6], Ic[6], out[36], fo[6];
    for (int x = 0; x < 6; x++)
      for (int y = 0; y < 6; y++) {
        sn s = IA[i][6 * x + y];
        for (size_t r = 0; r < k; r++) s = sym_sub(c, s, sym_mul(c, U[i][r][x], DU[i][r][y]));
        Ia[6 * x + y] = s;
      }
    for (int x = 0; x < 6; x++)
      for (int y = 0; y < x; y++) Ia[6 * x + y] = Ia[6 * y + x];
    let_sym6(c, Ia);
    times6(c, Ia, J->c[i], Ic);
    for (int j = 0; j < 6; j++) {
      pa[j] = sym_add(c, pA[i][j], Ic[j]);
      for (size_t r = 0; r < k; r++) pa[j] = sym_add(c, pa[j], sym_mul(c, U[i][r][j], Du[i][r]));
      pa[j] = let(c, pa[j]);
    }
    inertia_out(c, L, Ia, out);
    force_out(c, L, pa, fo);
    sn *P = IA[L->parent];
    for (int j = 0; j < 36; j++) P[j] = sym_add(c, P[j], out[j]);
    for (int j = 0; j < 6; j++) pA[L->parent][j] = sym_add(c, pA[L->parent][j], fo[j]);
  }
  for (size_t i = 0; ok && i < nl; i++) { /* outward */
    const jlink *L = &J->L[i];
    sn ap[6];
    motion_in(c, L, L->parent >= 0 ? a[L->parent] : J->a0, ap);
    for (int j = 0; j < 6; j++) ap[j] = let(c, sym_add(c, ap[j], J->c[i][j]));
    int bound = 0;
    for (size_t r = 0; R && r < R->m; r++) bound |= R->link[r] == (int)i;
    if (bound) { /* a root under constraint rows: r = u - U^T a' */
      sn r0[KMAX];
      for (size_t r = 0; r < L->k; r++) {
        sn x = u[i][r];
        for (int j = 0; j < 6; j++) x = sym_sub(c, x, sym_mul(c, U[i][r][j], ap[j]));
        r0[r] = let(c, x);
      }
      ok = root_rows(c, L, i, R, U[i], ap, qdd, r0);
    } else
      for (size_t r = 0; r < L->k; r++) { /* q'' = D^-1 u - (D^-1 U^T) a' */
        sn x = Du[i][r];
        for (int j = 0; j < 6; j++) x = sym_sub(c, x, sym_mul(c, DU[i][r][j], ap[j]));
        qdd[L->q[r]] = let(c, x);
      }
    for (int j = 0; j < 6; j++) {
      sn x = ap[j];
      for (size_t r = 0; r < L->k; r++) x = sym_add(c, x, sym_mul(c, L->S[r][j], qdd[L->q[r]]));
      a[i][j] = let(c, x);
    }
  }
  (void)z;
  lg_free(IA);
  lg_free(pA);
  lg_free(U);
  lg_free(u);
  lg_free(DU);
  lg_free(Du);
  lg_free(a);
  return ok && !sym_ctx_error(c);
}

/* M by composite rigid bodies, f = tau - C by Newton-Euler at q'' = 0. */
static int mass_and_forcing(mech_model *m, mech_joints *J, size_t n, const sym_node **M,
                            const sym_node **f) {
  sym_ctx *c = m->c;
  size_t nl = J->nl;
  sn (*Ic)[36] = lg_calloc(nl + 1, sizeof *Ic), (*F)[6] = lg_calloc(nl + 1, sizeof *F);
  sn (*a)[6] = lg_calloc(nl + 1, sizeof *a);
  int ok = Ic && F && a;
  sn z = sym_int(c, 0);
  for (size_t i = 0; ok && i < n * n; i++) M[i] = z;
  for (size_t i = 0; ok && i < nl; i++) {
    const jlink *L = &J->L[i];
    sn Ia[6], Iv[6], x[6];
    memcpy(Ic[i], L->I, sizeof Ic[i]);
    motion_in(c, L, L->parent >= 0 ? a[L->parent] : J->a0, a[i]);
    for (int j = 0; j < 6; j++) a[i][j] = let(c, sym_add(c, a[i][j], J->c[i][j]));
    times6(c, L->I, a[i], Ia);
    times6(c, L->I, J->v[i], Iv);
    cross_force(c, J->v[i], Iv, x);
    for (int j = 0; j < 6; j++) F[i][j] = sym_add(c, Ia[j], x[j]);
  }
  for (size_t i = nl; ok && i-- > 0;) {
    const jlink *L = &J->L[i];
    let_sym6(c, Ic[i]);
    for (int j = 0; j < 6; j++) F[i][j] = let(c, F[i][j]);
    for (size_t r = 0; r < L->k; r++) f[L->q[r]] = sym_sub(c, tau(m, L->q[r]), dot6(c, L->S[r], F[i]));
    if (L->parent < 0) continue;
    sn out[36], fo[6];
    inertia_out(c, L, Ic[i], out);
    force_out(c, L, F[i], fo);
    for (int j = 0; j < 36; j++) Ic[L->parent][j] = sym_add(c, Ic[L->parent][j], out[j]);
    for (int j = 0; j < 6; j++) F[L->parent][j] = sym_add(c, F[L->parent][j], fo[j]);
  }
  for (size_t i = 0; ok && i < nl; i++) { /* each link's column block, carried to the root */
    const jlink *L = &J->L[i];
    for (size_t r = 0; r < L->k; r++) {
      sn G[6], t[6];
      times6(c, Ic[i], L->S[r], G);
      for (size_t l = i, first = 1;; first = 0) {
        const jlink *A = &J->L[l];
        for (size_t s = 0; s < A->k; s++) {
          if (first && s > r) continue;
          sn v = dot6(c, A->S[s], G);
          M[L->q[r] * n + A->q[s]] = M[A->q[s] * n + L->q[r]] = v;
        }
        if (A->parent < 0) break;
        force_out(c, A, G, t);
        for (int j = 0; j < 6; j++) G[j] = let(c, t[j]);
        l = (size_t)A->parent;
      }
    }
  }
  lg_free(Ic);
  lg_free(F);
  lg_free(a);
  return ok && !sym_ctx_error(c);
}

/* ---- entry points ----------------------------------------------------------------------------- */
mech_joints *mech_joints_of(mech_model *m) {
  if (m->joints_done) return m->joints;
  m->joints_done = 1;
  if (m->L || m->has_T || m->speeds.n) return NULL;
  mech_joints *J = lg_arena_alloc(&m->arena, sizeof *J);
  if (!J) return NULL;
  memset(J, 0, sizeof *J);
  if (!read_tree(m, J) || !axis_frames(m, J) || !velocities(m, J)) return NULL;
  return m->joints = J;
}

const sym_node *mech_joints_energy(mech_joints *J) { return J ? J->T : NULL; }

const sym_node *mech_joints_gravity_potential(mech_joints *J) { return J ? J->Vg : NULL; }

/* Each row's root link: every coordinate it involves the own of one root. */
static int rows_on_roots(mech_joints *J, jrows *R) {
  for (size_t r = 0; r < R->m; r++) {
    R->link[r] = -1;
    for (size_t q = 0; q < R->n; q++) {
      if (sym_is_zero(R->J[r * R->n + q])) continue;
      int at = -1;
      for (size_t i = 0; i < J->nl && at < 0; i++)
        for (size_t x = 0; x < J->L[i].k; x++)
          if (J->L[i].q[x] == q) at = (int)i;
      if (at < 0 || J->L[at].parent >= 0 || (R->link[r] >= 0 && R->link[r] != at)) return 0;
      R->link[r] = at;
    }
    if (R->link[r] < 0) return 0;
  }
  return 1;
}

lg_status mech_joints_dynamics(mech_model *m, mech_joints *J, const mech_eom *e,
                               const sym_node ***qdd, const sym_node ***M, const sym_node ***f) {
  size_t n = e->n;
  const sym_node **x = lg_arena_alloc(&m->arena, (n + 1) * sizeof *x);
  if (!x) return LG_ERR_NOMEM;
  jrows R = {e->m, n, e->m ? e->J->e : NULL, e->gc, NULL};
  if (e->m) {
    if (M || f) return LG_ERR_MODEL; /* the dense forms of a constrained tree: not here */
    R.link = lg_arena_alloc(&m->arena, e->m * sizeof *R.link);
    if (!R.link) return LG_ERR_NOMEM;
    if (!rows_on_roots(J, &R)) return LG_ERR_MODEL;
  }
  if (!aba(m, J, e->m ? &R : NULL, x)) return m->oom ? LG_ERR_NOMEM : LG_ERR_MODEL;
  *qdd = x;
  if (M || f) {
    const sym_node **Mm = lg_arena_alloc(&m->arena, (n * n + 1) * sizeof *Mm);
    const sym_node **ff = lg_arena_alloc(&m->arena, (n + 1) * sizeof *ff);
    if (!Mm || !ff) return LG_ERR_NOMEM;
    if (!mass_and_forcing(m, J, n, Mm, ff)) return m->oom ? LG_ERR_NOMEM : LG_ERR_MODEL;
    if (M) *M = Mm;
    if (f) *f = ff;
  }
  return LG_OK;
}
