/* mech_tree.c - q'' = M^-1 f in O(n) operations for a kinematic tree.
 *
 * When every coordinate q_r moves a set K(r) of the particles and bodies as
 * one rigid motion (a twist s_r: angular velocity w_r and the velocity v_r
 * of the body point at the origin, both per unit q_r') and the sets K(r)
 * are nested or disjoint, the mass matrix is M = sum_k J_k^T I_k J_k with
 * J_k's columns the twists of the coordinates above carrier k: the
 * structure of a tree of joints, in world coordinates. Then M x = b is
 * solved by the articulated-body recursion with no velocity terms
 * (Featherstone's ABA at q' = 0 and tau = b): an inward pass of 6x6
 * articulated inertias, an outward pass of accelerations; a few hundred
 * operations a coordinate, where the Cholesky solve of the dense M costs
 * n^3 / 6 and M itself O(n^2). b = tau - C: the velocity terms and gravity
 * C by the recursive Newton-Euler pass at q'' = 0 (twists and their rates
 * outward, gravity as an acceleration of the base, each carrier's
 * I a + v x* I v inward), tau of V, dissipation, forces, torques and
 * `force q:` directly: O(n) in all. Where the motion is not a tree of
 * rigid twists alone (kinematics that move with t, declared speeds), b is
 * the derived forcing f (O(n^2) for a chain) and only the solve changes.
 *
 * The recursion is built as expressions over the tree's twists and
 * inertias, so that the tape's common subexpressions and constant folding
 * apply: a planar chain's twists have three zero components, and every
 * product with them vanishes symbolically.
 *
 * Which twist: a rigid body in K(r) fixes w_r; for particles alone the
 * candidates are no rotation and the partial angular velocity of each
 * frame, and the one that moves every carrier of K(r) rigidly (checked at
 * random values of every atom) is taken. The absolute-angle chain's q_r
 * translates the particles beyond link r (w_r = 0); the relative-angle
 * chain's rotates them about its joint. */
#include "mech_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { NSAMPLE = 2 };

typedef struct carrier {
  const sym_node *mass;
  const sym_node *p[3];          /* world position (mass centre) */
  const sym_node *J[6];          /* bodies: rotational inertia in world axes (xx yy zz xy yz zx) */
  int body;
  const sym_node *(*v)[3];       /* n: dv/dq_r' in world axes */
  const sym_node *(*w)[3];       /* n: dw/dq_r' (bodies) */
  double *vv, *ww, *pv;          /* values at the samples: [s][r][3], [s][3] */
} carrier;

typedef struct tree {
  mech_model *m;
  sym_ctx *c;
  size_t n, nc;
  carrier *cr;
  unsigned char *in;             /* in[r * nc + k]: carrier k moves with q_r */
  size_t *size;                  /* |K(r)| */
  int *parent, *order;           /* parent coordinate (-1: root); order: parents first */
  const sym_node *(*s)[6];       /* twists (w, v_O) */
  const sym_node *(*W)[9];       /* frames.n: world DCMs, v_N = W v_f, link to link (NULL: not yet) */
  const sym_node *(*P)[3];       /* points.n: world positions, point to point (NULL: not yet) */
  int scleronomic;               /* every carrier's velocity is sum_r twist_r q_r' */
  double *qdv;                   /* the q' at the samples: [s][r] */
  const sym_node **excl;         /* the inputs (every order): never let-bound */
  size_t nexcl;
  lg_diag *diag;
  const char *file;
} tree;

/* e as a let-bound atom (sym_let): the recursion's quantities of one link
 * stay one term in the next link's, instead of sums flattened over every
 * link above (or below), whose cost grew with n. Inputs are substituted
 * into the equations afterwards, so nothing holding one is bound. */
static const sym_node *let(tree *T, const sym_node *e) {
  return sym_let(T->c, e, T->nexcl, T->excl);
}

/* ---- values at random atoms ------------------------------------------------------------ */
typedef struct sample { uint64_t seed; } sample;

/* Every atom gets a value from a hash of its name, kind and order, in
 * [0.3, 1.3): the same atom, the same value, within one sample. */
static int random_atom(void *ud, const sym_node *a, double *out) {
  const sample *s = ud;
  uint64_t h = s->seed ^ ((uint64_t)a->kind << 32) ^ (uint64_t)a->order;
  for (const char *p = a->v.name ? a->v.name : ""; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
  h = lg_hash_mix(h, 11);
  *out = 0.3 + (double)(h >> 11) / 9007199254740992.0;
  return 0;
}

/* n values in one walk (sym_eval's scratch is the size of the context,
 * which the dense equations have made large: one walk per value cost the
 * 40-link arm seconds) */
static int values(tree *T, const sym_node *const *e, size_t n, int s, double *out) {
  sample smp = {0x9e3779b97f4a7c15ull * (uint64_t)(s + 1)};
  return sym_eval_many(T->c, n, e, random_atom, &smp, out, NULL) == LG_OK;
}

static int values3(tree *T, const sym_node *const *e, int s, double *out) {
  return values(T, e, 3, s, out);
}

static int fail(tree *T, const char *why, const char *name) {
  lg_diag_set(T->diag, LG_ERR_MODEL, T->file, 0, 0, "no recursive right-hand side: %s%s%s", why,
              name ? " " : "", name ? name : "");
  lg_diag_hint(T->diag, "it needs particles and bodies on a kinematic tree of the coordinates, "
                        "no constraints, and T written through them (not T =, L =); "
                        "the rhs function works for every model");
  return 0;
}

/* ---- world components, link to link ---------------------------------------------------------
 * mech_vec_express composes a frame's DCM to the inertial frame from the
 * frame upwards, afresh for every frame: a 3D chain's k-th link costs k
 * matrix products that no other link shares, and every quantity of the
 * recursion grew with n. Here a frame's world DCM is its parent's times
 * the one step between them (consecutive rotations about one axis still
 * one step: cos(q1 + q2)), so each link adds one product. */
static const sym_node *const *world_dcm(tree *T, int f) {
  mech_model *m = T->m;
  const mech_frame *F = m->frames.v;
  if (T->W[f][0]) return T->W[f];
  int base = F[f].parent, root = f;
  while (base >= 0 && F[f].axis >= 0 && F[base].axis == F[f].axis) base = F[base].parent;
  while (F[root].parent >= 0) root = F[root].parent;
  const sym_node *const *L = mech_dcm_get(m, base <= 0 || root != 0 ? 0 : base, f);
  if (!L) return NULL;
  if (base <= 0 || root != 0) { /* the step from the inertial frame itself */
    const sym_node *Wf[9];
    for (int i = 0; i < 9; i++)
      if (!(Wf[i] = let(T, L[i]))) return NULL;
    memcpy(T->W[f], Wf, sizeof Wf);
    return T->W[f];
  }
  const sym_node *Lc[9];
  memcpy(Lc, L, sizeof Lc); /* (mech_dcm_get may move its table) */
  const sym_node *const *P = world_dcm(T, base);
  if (!P) return NULL;
  const sym_node *Wf[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      Wf[3 * i + j] = let(T, sym_addv(T->c, 3, (const sym_node *[]){sym_mul(T->c, P[3 * i], Lc[j]),
                                                            sym_mul(T->c, P[3 * i + 1], Lc[3 + j]),
                                                            sym_mul(T->c, P[3 * i + 2], Lc[6 + j])}));
  for (int i = 0; i < 9; i++)
    if (!Wf[i]) return NULL;
  memcpy(T->W[f], Wf, sizeof Wf);
  return T->W[f];
}

/* a in world (frame 0) components, as mech_vec_express(m, a, 0, out). */
static int world(tree *T, mech_vec a, const sym_node **out) {
  sym_ctx *c = T->c;
  const sym_node **ts = lg_malloc((3 * a.n + 1) * sizeof *ts);
  if (!ts) return 0;
  int ok = 1;
  for (size_t i = 0; ok && i < a.n; i++) {
    const sym_node *const *x = a.t[i].c;
    if (a.t[i].frame == 0) {
      for (int k = 0; k < 3; k++) ts[k * a.n + i] = x[k];
      continue;
    }
    const sym_node *const *D = world_dcm(T, a.t[i].frame);
    ok = D != NULL;
    for (int k = 0; ok && k < 3; k++)
      ts[k * a.n + i] = sym_addv(c, 3, (const sym_node *[]){sym_mul(c, D[3 * k], x[0]),
                                                            sym_mul(c, D[3 * k + 1], x[1]),
                                                            sym_mul(c, D[3 * k + 2], x[2])});
  }
  for (int k = 0; ok && k < 3; k++) ok = (out[k] = sym_addv(c, a.n, ts + k * a.n)) != NULL;
  lg_free(ts);
  return ok;
}

/* A point's world position, as the point it was written from plus the
 * offset between them (pos - pos_from, the same vector), bound: the k-th
 * link's position is one sum over its own offset, not over every link
 * above it. */
static int world_pos(tree *T, int point, const sym_node **out) {
  mech_model *m = T->m;
  if (T->P[point][0]) {
    memcpy(out, T->P[point], 3 * sizeof *out);
    return 1;
  }
  int from = mech_point_from(m, (size_t)point);
  const sym_node *x[3];
  if (from < 0 || from >= point) {
    if (!world(T, mech_point_pos(m, point), x)) return 0;
  } else {
    const sym_node *b[3], *d[3];
    mech_vec off = mech_vec_sub(m, mech_point_pos(m, point), mech_point_pos(m, from));
    if (!world_pos(T, from, b) || !world(T, off, d)) return 0;
    for (int i = 0; i < 3; i++) x[i] = sym_add(T->c, b[i], d[i]);
  }
  for (int i = 0; i < 3; i++)
    if (!(out[i] = T->P[point][i] = let(T, x[i]))) return 0;
  return 1;
}

/* ---- the carriers and their partial velocities ------------------------------------------------ */
static int add_carrier(tree *T, carrier *k, int point, int frame, const sym_node *mass,
                       const sym_node *const *I) {
  mech_model *m = T->m;
  k->mass = mass;
  k->body = frame >= 0;
  k->v = lg_arena_alloc(&m->arena, T->n * sizeof *k->v);
  k->w = lg_arena_alloc(&m->arena, T->n * sizeof *k->w);
  k->vv = lg_arena_alloc(&m->arena, NSAMPLE * T->n * 3 * sizeof *k->vv);
  k->ww = lg_arena_alloc(&m->arena, NSAMPLE * T->n * 3 * sizeof *k->ww);
  k->pv = lg_arena_alloc(&m->arena, NSAMPLE * 3 * sizeof *k->pv);
  if (!k->v || !k->w || !k->vv || !k->ww || !k->pv) return 0;
  if (!world_pos(T, point, k->p)) return 0;
  mech_vec v = mech_point_vel(m, point), w = k->body ? mech_frame_angvel(m, frame) : mech_vec_zero();
  for (size_t r = 0; r < T->n; r++) {
    const sym_node *qd = mech_coord(m, r, 1);
    if (!world(T, mech_vec_diff(m, v, qd), k->v[r]) ||
        !world(T, mech_vec_diff(m, w, qd), k->w[r]))
      return 0;
  }
  if (k->body) { /* J = sum I_ij b_i b_j^T with b_i the body axes in world components */
    const sym_node *b[3][3];
    for (int i = 0; i < 3; i++)
      if (!world(T, mech_vec_unit(m, frame, i), b[i])) return 0;
    const sym_node *Ib[9] = {I[0], I[3], I[5], I[3], I[1], I[4], I[5], I[4], I[2]};
    static const int at[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {2, 0}};
    for (int e = 0; e < 6; e++) {
      const sym_node *acc = sym_int(T->c, 0);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          acc = sym_add(T->c, acc, sym_mulv(T->c, 3, (const sym_node *[]){
                                                         Ib[3 * i + j], b[i][at[e][0]],
                                                         b[j][at[e][1]]}));
      k->J[e] = acc;
    }
  }
  for (int s = 0; s < NSAMPLE; s++)
    if (!values3(T, k->p, s, k->pv + 3 * s) ||
        !values(T, (const sym_node *const *)k->v, 3 * T->n, s, k->vv + s * T->n * 3) ||
        !values(T, (const sym_node *const *)k->w, 3 * T->n, s, k->ww + s * T->n * 3))
      return 0;
  return !m->oom;
}

static double scale_of(const double *x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  return s;
}

/* K(r) from the samples: the carriers with a partial velocity along q_r'. */
static void moved_sets(tree *T) {
  for (size_t r = 0; r < T->n; r++) {
    T->size[r] = 0;
    for (size_t k = 0; k < T->nc; k++) {
      const carrier *c = &T->cr[k];
      double big = 0;
      for (int s = 0; s < NSAMPLE; s++) {
        big = fmax(big, scale_of(c->vv + (s * T->n + r) * 3, 3));
        big = fmax(big, scale_of(c->ww + (s * T->n + r) * 3, 3));
      }
      T->in[r * T->nc + k] = big > 1e-12;
      T->size[r] += T->in[r * T->nc + k];
    }
  }
}

/* Is every carrier's velocity (and a body's angular velocity) the sum of
 * its partial velocities times the q' (no motion of its own in t)? */
static int scleronomic(tree *T) {
  mech_model *m = T->m;
  const sym_node **qd = lg_malloc((T->n + 1) * sizeof *qd);
  int got = qd != NULL;
  for (size_t r = 0; got && r < T->n; r++) qd[r] = mech_coord(m, r, 1);
  for (int s = 0; got && s < NSAMPLE; s++) got = values(T, qd, T->n, s, T->qdv + s * T->n);
  lg_free(qd);
  if (!got) return 0;
  for (size_t k = 0; k < T->nc; k++) {
    const carrier *c = &T->cr[k];
    const sym_node *v[3], *w[3];
    int point = k < m->particles.n ? m->particles.v[k].point : m->bodies.v[k - m->particles.n].point;
    mech_vec wv = c->body ? mech_frame_angvel(m, m->bodies.v[k - m->particles.n].frame)
                          : mech_vec_zero();
    if (!world(T, mech_point_vel(m, point), v) || !world(T, wv, w))
      return 0;
    for (int s = 0; s < NSAMPLE; s++) {
      double vv[3], ww[3], qd;
      if (!values3(T, v, s, vv) || !values3(T, w, s, ww)) return 0;
      for (size_t r = 0; r < T->n; r++) {
        qd = T->qdv[s * T->n + r];
        for (int i = 0; i < 3; i++) {
          vv[i] -= c->vv[(s * T->n + r) * 3 + i] * qd;
          ww[i] -= c->ww[(s * T->n + r) * 3 + i] * qd;
        }
      }
      if (scale_of(vv, 3) > 1e-10 || scale_of(ww, 3) > 1e-10) return 0;
    }
  }
  return 1;
}

/* Nested or disjoint; parents: the smallest strictly larger set, or among
 * equal sets (several coordinates of one joint) the one before. */
static int build_tree(tree *T) {
  size_t n = T->n, nc = T->nc;
  for (size_t r = 0; r < n; r++) {
    if (!T->size[r]) return fail(T, "nothing moves with the coordinate", mech_coord(T->m, r, 0)->v.name);
    T->parent[r] = -1;
    for (size_t s = 0; s < n; s++) {
      if (s == r) continue;
      size_t common = 0;
      for (size_t k = 0; k < nc; k++) common += T->in[r * nc + k] && T->in[s * nc + k];
      if (!common) continue;
      if (common != T->size[r] && common != T->size[s])
        return fail(T, "the carriers moved by two coordinates overlap without nesting:",
                    mech_coord(T->m, r, 0)->v.name);
      int above = T->size[s] > T->size[r] || (T->size[s] == T->size[r] && s < r);
      if (!above) continue;
      int p = T->parent[r];
      if (p < 0 || T->size[s] < T->size[p] || (T->size[s] == T->size[p] && s > (size_t)p))
        T->parent[r] = (int)s;
    }
  }
  /* parents first: by decreasing set size, then index (a parent's set is
   * larger, or equal with a smaller index) */
  for (size_t i = 0; i < n; i++) T->order[i] = (int)i;
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0; j--) {
      int a = T->order[j - 1], b = T->order[j];
      if (T->size[a] > T->size[b] || (T->size[a] == T->size[b] && a < b)) break;
      T->order[j - 1] = b;
      T->order[j] = a;
    }
  return 1;
}

/* ---- twists --------------------------------------------------------------------------------- */
static void cross(const double *a, const double *b, double *o) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Does w (values wv[s][3]) move every carrier of K(r) rigidly? */
static int rigid_with(tree *T, size_t r, const double *wv) {
  size_t n = T->n, k0 = 0;
  while (!T->in[r * T->nc + k0]) k0++;
  for (int s = 0; s < NSAMPLE; s++) {
    const double *w = wv + 3 * s;
    double vo[3], t[3];
    const carrier *c0 = &T->cr[k0];
    cross(w, c0->pv + 3 * s, t);
    for (int i = 0; i < 3; i++) vo[i] = c0->vv[(s * n + r) * 3 + i] - t[i];
    for (size_t k = 0; k < T->nc; k++) {
      if (!T->in[r * T->nc + k]) continue;
      const carrier *c = &T->cr[k];
      cross(w, c->pv + 3 * s, t);
      const double *v = c->vv + (s * n + r) * 3, *cw = c->ww + (s * n + r) * 3;
      double tol = 1e-9 * (1 + scale_of(v, 3) + scale_of(vo, 3) + scale_of(t, 3));
      for (int i = 0; i < 3; i++) {
        if (fabs(v[i] - vo[i] - t[i]) > tol) return 0;
        if (c->body && fabs(cw[i] - w[i]) > 1e-9 * (1 + scale_of(w, 3))) return 0;
      }
    }
  }
  return 1;
}

static int twist(tree *T, size_t r) {
  mech_model *m = T->m;
  sym_ctx *c = T->c;
  const sym_node *qd = mech_coord(m, r, 1), *zero = sym_int(c, 0);
  const sym_node *w[3] = {zero, zero, zero};
  double wv[3 * NSAMPLE] = {0};
  int found = 0;
  for (size_t k = 0; k < T->nc && !found; k++) /* a body fixes it */
    if (T->in[r * T->nc + k] && T->cr[k].body) {
      memcpy(w, T->cr[k].w[r], sizeof w);
      for (int s = 0; s < NSAMPLE; s++) memcpy(wv + 3 * s, T->cr[k].ww + (s * T->n + r) * 3, 3 * sizeof *wv);
      found = rigid_with(T, r, wv) ? 1 : -1;
    }
  for (size_t f = 0; !found && f <= m->frames.n; f++) { /* no rotation, then each frame's */
    if (f) {
      if (!world(T, mech_vec_diff(m, mech_frame_angvel(m, (int)f - 1), qd), w))
        return 0;
      for (int s = 0; s < NSAMPLE; s++)
        if (!values3(T, w, s, wv + 3 * s)) return 0;
      if (scale_of(wv, 3 * NSAMPLE) < 1e-12) continue;
    }
    if (rigid_with(T, r, wv)) found = 1;
  }
  if (found != 1)
    return fail(T, "the coordinate does not move its carriers as one rigid body:",
                mech_coord(m, r, 0)->v.name);
  size_t k0 = 0;
  while (!T->in[r * T->nc + k0]) k0++;
  const carrier *c0 = &T->cr[k0];
  for (int i = 0; i < 3; i++) { /* v_O = v_k0 - w x p_k0 */
    int j = (i + 1) % 3, l = (i + 2) % 3;
    const sym_node *wxp = sym_sub(c, sym_mul(c, w[j], c0->p[l]), sym_mul(c, w[l], c0->p[j]));
    T->s[r][i] = w[i];
    T->s[r][3 + i] = sym_sub(c, c0->v[r][i], wxp);
  }
  return 1;
}

/* ---- the recursion ----------------------------------------------------------------------------- */
/* Symmetric 6x6 as its 36 entries (both halves point to the same nodes). */
typedef struct six { const sym_node *a[36]; } six;

/* The spatial inertia of a carrier about the origin in the twist's
 * convention (w, v_O): [[J - m [p]x^2, m [p]x], [-m [p]x, m 1]]. */
static void carrier_inertia(sym_ctx *c, const carrier *k, six *I) {
  const sym_node *m = k->mass, *const *p = k->p, *zero = sym_int(c, 0);
  const sym_node *px[9] = {zero, sym_neg(c, p[2]), p[1], p[2], zero, sym_neg(c, p[0]),
                           sym_neg(c, p[1]), p[0], zero};
  const sym_node *pp = sym_addv(c, 3, (const sym_node *[]){sym_mul(c, p[0], p[0]),
                                                           sym_mul(c, p[1], p[1]),
                                                           sym_mul(c, p[2], p[2])});
  static const int jat[3][3] = {{0, 3, 5}, {3, 1, 4}, {5, 4, 2}};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      /* -[p]x^2 = |p|^2 1 - p p^T */
      const sym_node *a = sym_sub(c, i == j ? pp : zero, sym_mul(c, p[i], p[j]));
      a = sym_mul(c, m, a);
      if (k->body) a = sym_add(c, a, k->J[jat[i][j]]);
      I->a[i * 6 + j] = a;
      I->a[i * 6 + 3 + j] = sym_mul(c, m, px[3 * i + j]);
      I->a[(3 + i) * 6 + j] = sym_neg(c, I->a[i * 6 + 3 + j]);
      I->a[(3 + i) * 6 + 3 + j] = i == j ? m : zero;
    }
}

static void six_add(sym_ctx *c, six *A, const six *B) {
  for (int i = 0; i < 36; i++) A->a[i] = sym_add(c, A->a[i], B->a[i]);
}

static const sym_node *dot6(sym_ctx *c, const sym_node *const *a, const sym_node *const *b) {
  const sym_node *t[6];
  for (int i = 0; i < 6; i++) t[i] = sym_mul(c, a[i], b[i]);
  return sym_addv(c, 6, t);
}

/* I x for the symmetric 6x6 I. */
static void six_times(sym_ctx *c, const six *I, const sym_node *const *x, const sym_node **y) {
  for (int j = 0; j < 6; j++) y[j] = dot6(c, &I->a[6 * j], x);
}

/* v x* f for the twist v = (w, v_O) and the wrench f = (n_O, f):
 * (w x n + v_O x f, w x f). */
static void cross_force(sym_ctx *c, const sym_node *const *v, const sym_node *const *f,
                        const sym_node **y) {
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, l = (i + 2) % 3;
    y[i] = sym_addv(c, 4, (const sym_node *[]){
        sym_mul(c, v[j], f[l]), sym_neg(c, sym_mul(c, v[l], f[j])),
        sym_mul(c, v[3 + j], f[3 + l]), sym_neg(c, sym_mul(c, v[3 + l], f[3 + j]))});
    y[3 + i] = sym_sub(c, sym_mul(c, v[j], f[3 + l]), sym_mul(c, v[l], f[3 + j]));
  }
}

/* b = tau - C(q, q') with gravity: Newton-Euler at q'' = 0 over the tree. */
static int tree_forcing(tree *T, const six *I, const int *owner, const sym_node **b) {
  mech_model *m = T->m;
  sym_ctx *c = T->c;
  size_t n = T->n;
  const sym_node *(*V)[6] = lg_calloc(n, sizeof *V), *(*A)[6] = lg_calloc(n, sizeof *A);
  const sym_node *(*F)[6] = lg_calloc(n, sizeof *F);
  int ok = V && A && F;
  const sym_node *zero = sym_int(c, 0), *base[6] = {zero, zero, zero, zero, zero, zero};
  if (ok && m->has_gravity) { /* gravity: the base accelerating at -g */
    const sym_node *g[3];
    ok = world(T, m->gravity, g);
    for (int i = 0; ok && i < 3; i++) base[3 + i] = sym_neg(c, g[i]);
  }
  for (size_t i = 0; ok && i < n; i++) { /* outward: twists and accelerations at q'' = 0 */
    int r = T->order[i], p = T->parent[r];
    const sym_node *qd = mech_coord(m, (size_t)r, 1);
    /* s' (s depends on q and t only): as V_p x s when the twist moves with
     * the parent's body (Featherstone's joint axes; checked at random
     * values), else the derivative of s itself */
    const sym_node *sdt[6], *sdx[6], *vp[6];
    for (int j = 0; j < 6; j++) {
      sdt[j] = sym_dt(c, T->s[r][j]);
      vp[j] = p < 0 ? zero : V[p][j];
    }
    for (int j = 0; j < 3; j++) {
      int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const sym_node *const *w = vp;
      const sym_node *const *v = vp + 3;
      const sym_node *const *sw = T->s[r];
      const sym_node *const *sv = T->s[r] + 3;
      sdx[j] = sym_sub(c, sym_mul(c, w[j1], sw[j2]), sym_mul(c, w[j2], sw[j1]));
      sdx[3 + j] = sym_addv(c, 4, (const sym_node *[]){
          sym_mul(c, w[j1], sv[j2]), sym_neg(c, sym_mul(c, w[j2], sv[j1])),
          sym_mul(c, v[j1], sw[j2]), sym_neg(c, sym_mul(c, v[j2], sw[j1]))});
    }
    int rigid = 1;
    for (int s = 0; rigid && s < NSAMPLE; s++) {
      double a[6], b2[6];
      rigid = values(T, sdt, 6, s, a) && values(T, sdx, 6, s, b2);
      for (int j = 0; rigid && j < 6; j++)
        rigid = fabs(a[j] - b2[j]) <= 1e-9 * (1 + scale_of(a, 6));
    }
    for (int j = 0; j < 6; j++) {
      const sym_node *sd = rigid ? sdx[j] : sdt[j];
      V[r][j] = let(T, sym_add(c, p < 0 ? zero : V[p][j], sym_mul(c, T->s[r][j], qd)));
      A[r][j] = let(T, sym_add(c, p < 0 ? base[j] : A[p][j], sym_mul(c, sd, qd)));
      F[r][j] = zero;
    }
  }
  for (size_t k = 0; ok && k < T->nc; k++) { /* each carrier: I a + v x* I v */
    int r = owner[k];
    if (r < 0) continue;
    const sym_node *Ia[6], *Iv[6], *x[6];
    six_times(c, &I[k], A[r], Ia);
    six_times(c, &I[k], V[r], Iv);
    cross_force(c, V[r], Iv, x);
    for (int j = 0; j < 6; j++) F[r][j] = sym_addv(c, 3, (const sym_node *[]){F[r][j], Ia[j], x[j]});
  }
  for (size_t i = n; ok && i-- > 0;) { /* inward: C_r = s_r . F_r */
    int r = T->order[i], p = T->parent[r];
    for (int j = 0; j < 6; j++) F[r][j] = let(T, F[r][j]); /* every child added */
    const sym_node *tau = sym_sub(c, mech_generalized_force(m, (size_t)r),
                                  sym_diff(c, m->V, mech_coord(m, (size_t)r, 0)));
    b[r] = sym_sub(c, tau, dot6(c, T->s[r], F[r]));
    if (p >= 0)
      for (int j = 0; j < 6; j++) F[p][j] = sym_add(c, F[p][j], F[r][j]);
  }
  lg_free(V);
  lg_free(A);
  lg_free(F);
  return ok && !m->oom;
}

/* M x = b through the tree: x (n nodes). */
/* M by composite rigid bodies (world axes, so each subtree's inertia is
 * the sum of its carriers'): M_rj = s_j . (I^c_r s_r) for r and each
 * coordinate j above it; O(n * depth) entries of a dozen operations. */
static int composite(tree *T, const six *Ic, const int *owner, const sym_node **M) {
  sym_ctx *c = T->c;
  size_t n = T->n;
  six *C = lg_calloc(n + 1, sizeof *C);
  if (!C) return 0;
  const sym_node *zero = sym_int(c, 0);
  for (size_t r = 0; r < n; r++)
    for (int i = 0; i < 36; i++) C[r].a[i] = zero;
  for (size_t i = 0; i < n * n; i++) M[i] = zero;
  for (size_t k = 0; k < T->nc; k++)
    if (owner[k] >= 0) six_add(c, &C[owner[k]], &Ic[k]);
  for (size_t i = n; i-- > 0;) { /* leaves first */
    int r = T->order[i], p = T->parent[r];
    if (p >= 0) six_add(c, &C[p], &C[r]);
  }
  for (size_t r = 0; r < n; r++) {
    const sym_node *F[6];
    six_times(c, &C[r], T->s[r], F);
    for (int j = (int)r; j >= 0; j = T->parent[j]) {
      const sym_node *v = dot6(c, T->s[j], F);
      M[r * n + (size_t)j] = v;
      M[(size_t)j * n + r] = v;
    }
  }
  lg_free(C);
  return !sym_ctx_error(c);
}

static int solve(tree *T, const mech_eom *e, const sym_node **x, const sym_node **Mout,
                 const sym_node **fout) {
  sym_ctx *c = T->c;
  size_t n = T->n;
  six *Ic = lg_calloc(T->nc + 1, sizeof *Ic);
  int *owner = lg_calloc(T->nc + 1, sizeof *owner);
  const sym_node **b = lg_calloc(n + 1, sizeof *b);
  if (!Ic || !owner || !b) {
    lg_free(Ic);
    lg_free(owner);
    lg_free(b);
    return 0;
  }
  for (size_t k = 0; k < T->nc; k++) { /* each carrier to its deepest coordinate */
    owner[k] = -1;
    for (size_t i = 0; i < n; i++) {
      int r = T->order[i];
      if (T->in[(size_t)r * T->nc + k]) owner[k] = r;
    }
    carrier_inertia(c, &T->cr[k], &Ic[k]);
  }
  int okb = 1;
  if (T->scleronomic) okb = tree_forcing(T, Ic, owner, b);
  else memcpy(b, e->f, n * sizeof *b);
  if (okb && Mout) okb = composite(T, Ic, owner, Mout);
  if (okb && fout) memcpy(fout, b, n * sizeof *b);
  six *IA = lg_calloc(n, sizeof *IA);
  const sym_node *(*pA)[6] = lg_calloc(n, sizeof *pA), *(*U)[6] = lg_calloc(n, sizeof *U);
  const sym_node **D = lg_calloc(n, sizeof *D), **u = lg_calloc(n, sizeof *u);
  const sym_node *(*a)[6] = lg_calloc(n, sizeof *a);
  int ok = okb && IA && pA && U && D && u && a;
  const sym_node *zero = sym_int(c, 0);
  for (size_t r = 0; ok && r < n; r++) {
    for (int i = 0; i < 36; i++) IA[r].a[i] = zero;
    for (int i = 0; i < 6; i++) pA[r][i] = zero;
  }
  for (size_t k = 0; ok && k < T->nc; k++)
    if (owner[k] >= 0) six_add(c, &IA[owner[k]], &Ic[k]); /* (a carrier that never moves: none) */
  for (size_t i = n; ok && i-- > 0;) { /* inward: leaves first */
    int r = T->order[i], p = T->parent[r];
    const sym_node *const *s = T->s[r];
    for (int j = 0; j < 6; j++) { /* every child added: bound, upper half mirrored */
      for (int l = j; l < 6; l++) IA[r].a[6 * l + j] = IA[r].a[6 * j + l] = let(T, IA[r].a[6 * j + l]);
      pA[r][j] = let(T, pA[r][j]);
    }
    for (int j = 0; j < 6; j++) U[r][j] = let(T, dot6(c, &IA[r].a[6 * j], s)); /* IA symmetric */
    D[r] = let(T, dot6(c, s, U[r]));
    u[r] = let(T, sym_sub(c, b[r], dot6(c, s, pA[r])));
    if (p < 0) continue;
    const sym_node *inv = let(T, sym_powi(c, D[r], -1)), *ud = let(T, sym_mul(c, u[r], inv));
    for (int j = 0; j < 6; j++) {
      for (int l = 0; l < 6; l++)
        IA[p].a[6 * j + l] = sym_add(c, IA[p].a[6 * j + l],
                                     sym_sub(c, IA[r].a[6 * j + l],
                                             sym_mulv(c, 3, (const sym_node *[]){U[r][j], U[r][l], inv})));
      pA[p][j] = sym_addv(c, 3, (const sym_node *[]){pA[p][j], pA[r][j], sym_mul(c, U[r][j], ud)});
    }
  }
  for (size_t i = 0; ok && i < n; i++) { /* outward: roots first */
    int r = T->order[i], p = T->parent[r];
    const sym_node *const *ap = p < 0 ? NULL : a[p];
    const sym_node *num = ap ? sym_sub(c, u[r], dot6(c, U[r], ap)) : u[r];
    /* In 3D, a_r = (D_r a_p + s_r num) / D_r: a product, so that the
     * accelerations of the links above are not flattened into every a_r
     * (r terms a component, which the tape's sharing of sums stops
     * finding past about 24 links). Planar twists keep the plain sum:
     * their sums stay shared and the product costs more. */
    const sym_node *inv = sym_powi(c, D[r], -1);
    x[r] = let(T, sym_mul(c, num, inv));
    for (int j = 0; j < 6; j++)
      a[r][j] = let(T, sym_add(c, ap ? ap[j] : zero, sym_mul(c, T->s[r][j], x[r])));
  }
  lg_free(Ic);
  lg_free(owner);
  lg_free(b);
  lg_free(IA);
  lg_free(pA);
  lg_free(U);
  lg_free(D);
  lg_free(u);
  lg_free(a);
  return ok && !sym_ctx_error(c);
}

lg_status mech_tree_accel(mech_model *m, const mech_eom *e, const char *file,
                          const sym_node ***out, lg_diag *diag) {
  return mech_tree_dynamics(m, e, file, out, NULL, NULL, diag);
}

lg_status mech_tree_dynamics(mech_model *m, const mech_eom *e, const char *file,
                             const sym_node ***out, const sym_node ***Mout,
                             const sym_node ***fout, lg_diag *diag) {
  *out = NULL;
  if (Mout) *Mout = NULL;
  if (fout) *fout = NULL;
  tree T = {.m = m, .c = m->c, .n = e->n, .diag = diag, .file = file};
  mech_joints *J = m->L || m->has_T ? NULL : mech_joints_of(m); /* link coordinates first */
  if (J) {
    lg_status st = mech_joints_dynamics(m, J, e, out, Mout, fout);
    if (st != LG_ERR_MODEL) return st;
  }
  if (e->m) {
    fail(&T, "the model has constraints", NULL);
    return LG_ERR_MODEL;
  }
  if (m->L || m->has_T) {
    fail(&T, "T or L is written directly", NULL);
    return LG_ERR_MODEL;
  }
  T.nc = m->particles.n + m->bodies.n;
  size_t n = T.n, nc = T.nc;
  T.cr = lg_arena_alloc(&m->arena, (nc + 1) * sizeof *T.cr);
  T.in = lg_arena_alloc(&m->arena, n * nc + 1);
  T.size = lg_arena_alloc(&m->arena, (n + 1) * sizeof *T.size);
  T.parent = lg_arena_alloc(&m->arena, (n + 1) * sizeof *T.parent);
  T.order = lg_arena_alloc(&m->arena, (n + 1) * sizeof *T.order);
  T.s = lg_arena_alloc(&m->arena, (n + 1) * sizeof *T.s);
  const sym_node **x = lg_arena_alloc(&m->arena, (n + 1) * sizeof *x);
  T.W = lg_arena_alloc(&m->arena, (m->frames.n + 1) * sizeof *T.W);
  T.P = lg_arena_alloc(&m->arena, (m->points.n + 1) * sizeof *T.P);
  if (!T.P) return LG_ERR_NOMEM;
  memset(T.P, 0, (m->points.n + 1) * sizeof *T.P);
  if (!T.cr || !T.in || !T.size || !T.parent || !T.order || !T.s || !x || !T.W) return LG_ERR_NOMEM;
  memset(T.W, 0, (m->frames.n + 1) * sizeof *T.W);
  T.qdv = lg_arena_alloc(&m->arena, (NSAMPLE * n + 1) * sizeof *T.qdv);
  T.nexcl = 3 * mech_ninputs(m);
  T.excl = lg_arena_alloc(&m->arena, (T.nexcl + 1) * sizeof *T.excl);
  if (!T.qdv || !T.excl) return LG_ERR_NOMEM;
  for (size_t i = 0; i < T.nexcl; i++) T.excl[i] = mech_input(m, i / 3, (int)(i % 3));
  memset(T.cr, 0, (nc + 1) * sizeof *T.cr);
  int ok = 1;
  for (size_t i = 0; ok && i < m->particles.n; i++)
    ok = add_carrier(&T, &T.cr[i], m->particles.v[i].point, -1, m->particles.v[i].mass, NULL);
  for (size_t i = 0; ok && i < m->bodies.n; i++) {
    const mech_body *b = &m->bodies.v[i];
    ok = add_carrier(&T, &T.cr[m->particles.n + i], b->point, b->frame, b->mass, b->I);
  }
  if (!ok) {
    if (diag->status == LG_OK) fail(&T, "a position or velocity has no numeric value", NULL);
    return m->oom ? LG_ERR_NOMEM : LG_ERR_MODEL;
  }
  moved_sets(&T);
  if (!build_tree(&T)) return LG_ERR_MODEL;
  for (size_t r = 0; r < n; r++)
    if (!twist(&T, r)) return m->oom ? LG_ERR_NOMEM : LG_ERR_MODEL;
  T.scleronomic = !m->speeds.n && scleronomic(&T);
  if (!T.scleronomic && (Mout || fout)) {
    fail(&T, "the kinematics move with t or through declared speeds", NULL);
    return LG_ERR_MODEL;
  }
  if (!T.scleronomic) { /* b is the derived forcing */
    lg_status st = mech_eom_need_dynamics(e, diag);
    if (st != LG_OK) return st;
  }
  const sym_node **M = Mout ? lg_arena_alloc(&m->arena, (n * n + 1) * sizeof *M) : NULL;
  const sym_node **f = fout ? lg_arena_alloc(&m->arena, (n + 1) * sizeof *f) : NULL;
  if ((Mout && !M) || (fout && !f)) return LG_ERR_NOMEM;
  if (!solve(&T, e, x, M, f)) return LG_ERR_NOMEM;
  if (Mout) *Mout = M;
  if (fout) *fout = f;
  *out = x;
  return LG_OK;
}
