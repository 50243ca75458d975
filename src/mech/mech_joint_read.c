/* mech_joint_read.c - a tree of rigid links read from the model's frames,
 * points and carriers (see mech_joint.c): which coordinates each depends
 * on, the links and their parents, each joint's R, d, S, cJ and each
 * link's spatial inertia. */
#include "mech_joint_internal.h"

#include <string.h>

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
    mj_mul3(c, Jb, Qc, t, 0, 1);
    mj_mul3(c, Qc, t, J, 0, 0);
    for (int i = 0; i < 9; i++)
      if (foreign(r, J[i], NULL)) return 0;
  }
  sn cc = mj_dot3(c, cv, cv);
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
    mj_rot(c, L->R, dd, vJ + 3, 1);
  }
  sn z = sym_int(c, 0);
  for (int j = 0; j < 6; j++) {
    vJ[j] = mj_let(c, vJ[j]);
    L->cJ[j] = z;
  }
  for (size_t i = 0; i < L->k; i++) {
    sn q = mech_coord(m, L->q[i], 0), qd = mech_coord(m, L->q[i], 1);
    for (int j = 0; j < 6; j++) {
      L->S[i][j] = mj_let(c, sym_diff(c, vJ[j], qd));
      L->cJ[j] = sym_add(c, L->cJ[j], sym_mul(c, sym_diff(c, vJ[j], q), qd));
      if (foreign(r, L->S[i][j], own)) return 0;
    }
  }
  for (int j = 0; j < 6; j++) L->cJ[j] = mj_let(c, L->cJ[j]);
  return !sym_ctx_error(c);
}

typedef struct carrier { int frame, point; sn mass; const sn *I; size_t link; } carrier;

int mj_read_tree(mech_model *m, mech_joints *J) {
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
    if (ok) mj_let_sym6(r.c, x->I);
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
