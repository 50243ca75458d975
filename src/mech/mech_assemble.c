/* mech_assemble.c - the inertia of particles and bodies assembled from
 * shared partial velocities, as Kane's method forms it:
 *
 *   M_rs = sum_P m v_r . v_s + sum_B w_r . I . w_s
 *   f_r  = -sum_P m v_r . a0 - sum_B w_r . (I al0 + w x I w)
 *   p_r  = sum_P m v . v_r + sum_B w_r . I w
 *
 * with v_r = dv/dq_r' (w_r likewise) and a0, al0 the accelerations with
 * q'' = 0. For velocities v(q, q', t) obtained by differentiating positions
 * this is exactly d/dt(dT/dq') - dT/dq (Lagrange's equations of the
 * particles' and bodies' T), but every entry is a few dot products of
 * vectors built once, instead of the derivative of an expanded energy.
 * Terms whose dot products coincide are gathered with their masses summed,
 * (m2 + m3)*l1*l2*cos(q1 - q2), so equal mass sums are shared nodes. */
#include "mech_internal.h"

#include <stdint.h>

#include <string.h>

/* One inertia carrier seen from the equations: a point mass (frame < 0) or
 * a body's rotation (frame, inertia). */
typedef struct carrier {
  const sym_node *mass;
  mech_vec v, a0;           /* velocity and acceleration with q'' = 0 */
  mech_vec *vr;             /* n partial velocities */
} carrier;

typedef struct asm_ctx {
  mech_model *m;
  size_t n;                  /* speeds */
  const sym_node *const *u;  /* the speeds: q' (Lagrange) or Kane's u */
  mech_map_fn map;           /* velocities in the speeds (NULL: as they are) */
  void *map_ud;
  sym_subst_cache drop_ud;   /* the speeds' derivatives -> 0, for every carrier */
  sym_subst_cache drop_u;    /* the speeds -> 0: the velocities' parts of their own */
  sym_matrix *Mc;            /* the carriers' part of M */
} asm_ctx;

static const sym_node *drop_ud_cb(void *ud, const sym_node *x) {
  asm_ctx *A = ud;
  return sym_subst_cached(A->m->c, &A->drop_ud, x);
}

static const sym_node *drop_u_cb(void *ud, const sym_node *x) {
  asm_ctx *A = ud;
  return sym_subst_cached(A->m->c, &A->drop_u, x);
}

static mech_vec in_speeds(asm_ctx *A, mech_vec v) {
  return A->map ? mech_vec_map(A->m, v, A->map, A->map_ud) : v;
}

static const sym_node *in_speeds1(asm_ctx *A, const sym_node *x) {
  return A->map ? A->map(A->map_ud, x) : x;
}

static int carrier_point(asm_ctx *A, int point, const sym_node *mass, carrier *cr) {
  mech_model *m = A->m;
  cr->mass = mass;
  cr->v = in_speeds(A, mech_point_vel(m, point));
  cr->a0 = mech_vec_map(m, in_speeds(A, mech_vec_dt(m, cr->v)), drop_ud_cb, A);
  cr->vr = lg_arena_alloc(&m->arena, (A->n ? A->n : 1) * sizeof *cr->vr);
  if (!cr->vr) return 0;
  for (size_t r = 0; r < A->n; r++) cr->vr[r] = mech_vec_diff(m, cr->v, A->u[r]);
  return !m->oom;
}

/* ---- gathering sum of (mass, dot) pairs ------------------------------------------ */
/* Dot products of single vector terms, by content: the partial
 * velocities of the particles down a chain share their terms, so the
 * entries of M ask for the same few products over and over. */
typedef struct term_dot {
  mech_vterm a, b;
  const sym_node *r;
} term_dot;

typedef struct gather {
  term_dot *dots;      /* the cache of term products (kept across sums) */
  size_t ndots, dcap;
  lg_map dot_at;       /* hash of (a, b) -> index in dots + 1 */
  const sym_node **d;  /* distinct dot products */
  size_t *head;        /* per d: its first coefficient in k (index + 1) */
  size_t n, cap;
  const sym_node **k;  /* coefficients, chained per d through next */
  size_t *next, nk, kcap;
  lg_map at;           /* d's id -> its index + 1 */
} gather;

/* k*d added to the list; the coefficients of an equal d are summed once,
 * in gather_sum (summing them one by one would rebuild a sum per term). */
static int gather_put(gather *g, const sym_node *k, const sym_node *d, sym_ctx *c) {
  (void)c;
  if (!d || sym_is_zero(d)) return d != NULL;
  size_t i = lg_map_get_n(&g->at, d->id);
  if (!i) {
    size_t cap = g->cap; /* head and d share their capacity */
    if (!lg_grow((void **)&g->head, &cap, g->n + 1, sizeof *g->head)) return 0;
    if (!lg_grow((void **)&g->d, &g->cap, g->n + 1, sizeof *g->d)) return 0;
    g->d[g->n] = d;
    g->head[g->n++] = 0;
    i = g->n;
    if (!lg_map_put_n(&g->at, d->id, i)) return 0;
  }
  size_t kc = g->kcap; /* next and k share theirs */
  if (!lg_grow((void **)&g->next, &kc, g->nk + 1, sizeof *g->next)) return 0;
  if (!lg_grow((void **)&g->k, &g->kcap, g->nk + 1, sizeof *g->k)) return 0;
  g->k[g->nk] = k;
  g->next[g->nk] = g->head[i - 1];
  g->head[i - 1] = ++g->nk;
  return 1;
}

static uint64_t term_hash(uint64_t h, const mech_vterm *t) {
  h = lg_hash_mix(h, (uint64_t)t->frame);
  for (int k = 0; k < 3; k++) h = lg_hash_mix(h, t->c[k]->id);
  return h;
}

static int same_term(const mech_vterm *x, const mech_vterm *y) {
  return x->frame == y->frame && x->c[0] == y->c[0] && x->c[1] == y->c[1] && x->c[2] == y->c[2];
}

/* a.b for single terms, computed once per distinct pair */
static const sym_node *term_dot_cached(gather *g, mech_model *m, const mech_vterm *a,
                                       const mech_vterm *b) {
  uint64_t h = term_hash(term_hash(0x70d, a), b);
  size_t i = lg_map_get_n(&g->dot_at, h);
  if (i && same_term(&g->dots[i - 1].a, a) && same_term(&g->dots[i - 1].b, b))
    return g->dots[i - 1].r;
  mech_vec ta = {1, a}, tb = {1, b};
  const sym_node *r = mech_vec_dot(m, ta, tb);
  if (!r || i) return r; /* a hash collision: computed, not cached */
  if (!lg_grow((void **)&g->dots, &g->dcap, g->ndots + 1, sizeof *g->dots)) return NULL;
  g->dots[g->ndots++] = (term_dot){*a, *b, r};
  if (!lg_map_put_n(&g->dot_at, h, g->ndots)) return NULL;
  return r;
}

/* k a.b, split into the dot products of the frames' terms: particles
 * whose velocities share a term share its dot product and its mass sum. */
static int gather_dot(gather *g, mech_model *m, const sym_node *k, mech_vec a, mech_vec b) {
  for (size_t i = 0; i < a.n; i++)
    for (size_t j = 0; j < b.n; j++)
      if (!gather_put(g, k, term_dot_cached(g, m, &a.t[i], &b.t[j]), m->c)) return 0;
  return 1;
}

/* res = sum k_i d_i, and the list emptied */
static const sym_node *gather_sum(gather *g, sym_ctx *c) {
  const sym_node **ks = lg_malloc((g->nk + 1) * sizeof *ks);
  if (!ks) return NULL;
  for (size_t i = 0; i < g->n; i++) {
    size_t m = 0;
    for (size_t x = g->head[i]; x; x = g->next[x - 1]) ks[m++] = g->k[x - 1];
    g->d[i] = sym_mul(c, sym_addv(c, m, ks), g->d[i]);
  }
  lg_free(ks);
  const sym_node *r = sym_addv(c, g->n, g->d);
  g->n = g->nk = 0;
  lg_map_free(&g->at);
  return r;
}

static void gather_free(gather *g) {
  lg_free(g->dots);
  lg_map_free(&g->dot_at);
  lg_free(g->k);
  lg_free(g->next);
  lg_free(g->head);
  lg_free(g->d);
  lg_map_free(&g->at);
}

/* ---- bodies: rotation in the body frame ------------------------------------------ */
typedef struct rot {
  const sym_node *w[3], *Iw[3], *rhs[3]; /* rhs = I al0 + w x I w */
  const sym_node *(*wr)[3];              /* n partial angular velocities */
} rot;

/* res = I x for the symmetric inertia I (Ixx, Iyy, Izz, Ixy, Iyz, Izx) */
static void inertia_times(sym_ctx *c, const sym_node *const *I, const sym_node *const *x,
                          const sym_node **res) {
  const sym_node *Im[9] = {I[0], I[3], I[5], I[3], I[1], I[4], I[5], I[4], I[2]};
  for (int i = 0; i < 3; i++)
    res[i] = sym_addv(c, 3, (const sym_node *[]){sym_mul(c, Im[3 * i], x[0]),
                                                 sym_mul(c, Im[3 * i + 1], x[1]),
                                                 sym_mul(c, Im[3 * i + 2], x[2])});
}

static int body_rotation(asm_ctx *A, const mech_body *b, rot *R) {
  mech_model *m = A->m;
  sym_ctx *c = m->c;
  if (!mech_vec_express(m, in_speeds(A, mech_frame_angvel(m, b->frame)), b->frame, R->w))
    return 0;
  const sym_node *al[3], *Ia[3];
  for (int i = 0; i < 3; i++) al[i] = drop_ud_cb(A, in_speeds1(A, sym_dt(c, R->w[i])));
  inertia_times(c, b->I, R->w, R->Iw);
  inertia_times(c, b->I, al, Ia);
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, l = (i + 2) % 3;
    const sym_node *cross = sym_sub(c, sym_mul(c, R->w[j], R->Iw[l]),
                                    sym_mul(c, R->w[l], R->Iw[j]));
    R->rhs[i] = sym_add(c, Ia[i], cross);
  }
  R->wr = lg_arena_alloc(&m->arena, (A->n ? A->n : 1) * sizeof *R->wr);
  if (!R->wr) return 0;
  for (size_t r = 0; r < A->n; r++)
    for (int i = 0; i < 3; i++) R->wr[r][i] = sym_diff(c, R->w[i], A->u[r]);
  return !m->oom;
}

static const sym_node *dot3(sym_ctx *c, const sym_node *const *a, const sym_node *const *b) {
  return sym_addv(c, 3, (const sym_node *[]){sym_mul(c, a[0], b[0]), sym_mul(c, a[1], b[1]),
                                             sym_mul(c, a[2], b[2])});
}

/* ---- the assembly ------------------------------------------------------------------ */
static int collect_carriers(asm_ctx *A, carrier **pc, size_t *pnc, rot **pr) {
  mech_model *m = A->m;
  size_t np = m->particles.n, nb = m->bodies.n;
  carrier *cr = lg_arena_alloc(&m->arena, (np + nb + 1) * sizeof *cr);
  rot *R = lg_arena_alloc(&m->arena, (nb + 1) * sizeof *R);
  if (!cr || !R) return 0;
  for (size_t i = 0; i < np; i++)
    if (!carrier_point(A, m->particles.v[i].point, m->particles.v[i].mass, &cr[i])) return 0;
  for (size_t i = 0; i < nb; i++) {
    const mech_body *b = &m->bodies.v[i];
    if (!carrier_point(A, b->point, b->mass, &cr[np + i]) || !body_rotation(A, b, &R[i]))
      return 0;
  }
  *pc = cr;
  *pnc = np + nb;
  *pr = R;
  return 1;
}

/* M_rs (r <= s, mirrored) of the carriers */
static int assemble_M(asm_ctx *A, const carrier *cr, size_t nc, const rot *R, size_t nb,
                      sym_matrix *M, gather *g) {
  sym_ctx *c = A->m->c;
  for (size_t r = 0; r < A->n; r++)
    for (size_t s = r; s < A->n; s++) {
      for (size_t i = 0; i < nc; i++)
        if (!gather_dot(g, A->m, cr[i].mass, cr[i].vr[r], cr[i].vr[s]))
          return 0;
      for (size_t b = 0; b < nb; b++) {
        const sym_node *Iws[3];
        inertia_times(c, A->m->bodies.v[b].I, R[b].wr[s], Iws);
        if (!gather_put(g, sym_int(c, 1), dot3(c, R[b].wr[r], Iws), c)) return 0;
      }
      const sym_node *x = gather_sum(g, c);
      SYM_AT(A->Mc, r, s) = SYM_AT(A->Mc, s, r) = x;
      SYM_AT(M, r, s) = sym_add(c, SYM_AT(M, r, s), x);
      if (s != r) SYM_AT(M, s, r) = SYM_AT(M, r, s);
    }
  return 1;
}

/* sum m v . v_r + w_r . I w, as the velocities are linear in the speeds
 * (v = sum_s v_s u_s + v0): sum_s M_rs u_s + (m v0 . v_r + w_r . I w0),
 * with M's entries as shared nodes (the expanded dot products are O(n)
 * terms each on a chain, and printed momenta then grew as n^3). */
static const sym_node *momentum(asm_ctx *A, const carrier *cr, size_t nc, const rot *R,
                                size_t nb, size_t r, gather *g) {
  sym_ctx *c = A->m->c;
  for (size_t i = 0; i < nc; i++)
    if (!gather_dot(g, A->m, cr[i].mass, cr[i].vr[r], mech_vec_map(A->m, cr[i].v, drop_u_cb, A)))
      return NULL;
  for (size_t b = 0; b < nb; b++) {
    const sym_node *w0[3], *Iw0[3];
    for (int k = 0; k < 3; k++) w0[k] = drop_u_cb(A, R[b].w[k]);
    inertia_times(c, A->m->bodies.v[b].I, w0, Iw0);
    if (!gather_put(g, sym_int(c, 1), dot3(c, R[b].wr[r], Iw0), c)) return NULL;
  }
  const sym_node *p = gather_sum(g, c);
  for (size_t s = 0; s < A->n; s++) p = sym_add(c, p, sym_mul(c, SYM_AT(A->Mc, r, s), A->u[s]));
  return p;
}

/* f_r -= sum m v_r . a0 + w_r . rhs;  p_r += sum m v . v_r + w_r . I w */
static int assemble_f_p(asm_ctx *A, const carrier *cr, size_t nc, const rot *R, size_t nb,
                        const sym_node **f, const sym_node **p, gather *g) {
  sym_ctx *c = A->m->c;
  for (size_t r = 0; r < A->n; r++) {
    for (size_t i = 0; i < nc; i++)
      if (!gather_dot(g, A->m, cr[i].mass, cr[i].vr[r], cr[i].a0)) return 0;
    for (size_t b = 0; b < nb; b++)
      if (!gather_put(g, sym_int(c, 1), dot3(c, R[b].wr[r], R[b].rhs), c)) return 0;
    f[r] = sym_sub(c, f[r], gather_sum(g, c));
    const sym_node *pr = p ? momentum(A, cr, nc, R, nb, r, g) : NULL;
    if (p && !pr) return 0;
    if (p) p[r] = sym_add(c, p[r], pr);
  }
  return 1;
}

/* T of the particles and bodies, 1/2 m v.v + 1/2 w.I.w, gathered by the
 * dot products of the velocities' terms like the entries of M. */
const sym_node *mech_kinetic_energy(mech_model *m) {
  sym_ctx *c = m->c;
  const sym_node *half = sym_rat(c, 1, 2);
  gather g = {0};
  int ok = 1;
  for (size_t i = 0; ok && i < m->particles.n; i++) {
    mech_vec v = mech_point_vel(m, m->particles.v[i].point);
    ok = gather_dot(&g, m, sym_mul(c, half, m->particles.v[i].mass), v, v);
  }
  for (size_t i = 0; ok && i < m->bodies.n; i++) {
    const mech_body *b = &m->bodies.v[i];
    mech_vec v = mech_point_vel(m, b->point);
    const sym_node *w[3], *Iw[3];
    ok = gather_dot(&g, m, sym_mul(c, half, b->mass), v, v) &&
         mech_vec_express(m, mech_frame_angvel(m, b->frame), b->frame, w);
    if (!ok) break;
    inertia_times(c, b->I, w, Iw);
    ok = gather_put(&g, half, dot3(c, w, Iw), c);
  }
  const sym_node *T = ok ? gather_sum(&g, c) : NULL;
  gather_free(&g);
  return T;
}

int mech_assemble_inertia_in(mech_model *m, size_t n, const sym_node *const *u,
                             const sym_node *const *ud, mech_map_fn map, void *map_ud,
                             sym_matrix *M, const sym_node **f, const sym_node **p) {
  asm_ctx A = {m, n, u, map, map_ud, {{0}, {0}}, {{0}, {0}}, sym_matrix_new(m->c, n, n)};
  const sym_node **zeros = lg_arena_alloc(&m->arena, (n + 1) * sizeof *zeros);
  if (!zeros || !A.Mc) return 0;
  for (size_t i = 0; i < n; i++) zeros[i] = sym_int(m->c, 0);
  if (sym_subst_cache_init(&A.drop_ud, n, ud, zeros) != LG_OK) return 0;
  if (sym_subst_cache_init(&A.drop_u, n, u, zeros) != LG_OK) {
    sym_subst_cache_free(&A.drop_ud);
    return 0;
  }
  carrier *cr;
  rot *R;
  size_t nc;
  gather g = {0};
  int ok = collect_carriers(&A, &cr, &nc, &R) &&
           assemble_M(&A, cr, nc, R, m->bodies.n, M, &g) &&
           assemble_f_p(&A, cr, nc, R, m->bodies.n, f, p, &g);
  gather_free(&g);
  sym_subst_cache_free(&A.drop_ud);
  sym_subst_cache_free(&A.drop_u);
  return ok && !m->oom;
}

int mech_assemble_inertia(mech_model *m, mech_eom *e) {
  return mech_assemble_inertia_in(m, e->n, e->qd, e->qdd, NULL, NULL, e->M, e->f, e->p);
}
