/* mech_vec.c - vectors as sums of per-frame measure numbers, direction
 * cosine matrices between frames, dot, cross and inertial derivatives.
 *
 * Vectors keep the frame each term was written in and are converted only
 * when two terms meet (as SymPy's Vector does): a dot product between
 * frames A and B goes through their nearest common ancestor, not through
 * the inertial frame, which keeps expressions short. */
#include "mech_internal.h"

#include <string.h>

mech_vec mech_vec_zero(void) { return (mech_vec){0, NULL}; }

int mech_vec_is_zero(mech_vec a) {
  for (size_t i = 0; i < a.n; i++)
    for (int k = 0; k < 3; k++)
      if (!sym_is_zero(a.t[i].c[k])) return 0;
  return 1;
}

mech_vec mech_vec_from(mech_model *m, int frame, const sym_node *x,
                       const sym_node *y, const sym_node *z) {
  mech_vterm *t = lg_arena_alloc(&m->arena, sizeof *t);
  if (!t || !x || !y || !z) {
    m->oom = 1;
    return mech_vec_zero();
  }
  t->frame = frame;
  t->c[0] = x;
  t->c[1] = y;
  t->c[2] = z;
  return (mech_vec){1, t};
}

mech_vec mech_vec_unit(mech_model *m, int frame, int axis) {
  const sym_node *z = sym_int(m->c, 0), *o = sym_int(m->c, 1);
  return mech_vec_from(m, frame, axis == 0 ? o : z, axis == 1 ? o : z,
                       axis == 2 ? o : z);
}

/* ---- sums: merge terms frame by frame ------------------------------------------ */
mech_vec mech_vec_add(mech_model *m, mech_vec a, mech_vec b) {
  if (!b.n) return a;
  if (!a.n) return b;
  mech_vterm *t = lg_arena_alloc(&m->arena, (a.n + b.n) * sizeof *t);
  if (!t) {
    m->oom = 1;
    return mech_vec_zero();
  }
  memcpy(t, a.t, a.n * sizeof *t);
  size_t n = a.n;
  for (size_t j = 0; j < b.n; j++) {
    size_t i = 0;
    while (i < n && t[i].frame != b.t[j].frame) i++;
    if (i == n) {
      t[n++] = b.t[j];
      continue;
    }
    for (int k = 0; k < 3; k++) t[i].c[k] = sym_add(m->c, t[i].c[k], b.t[j].c[k]);
  }
  return (mech_vec){n, t};
}

/* k * a, through mech_vec_map with the factor as its context */
typedef struct scale_ctx { sym_ctx *c; const sym_node *k; } scale_ctx;

static const sym_node *scale_one(void *ud, const sym_node *e) {
  const scale_ctx *s = ud;
  return sym_mul(s->c, s->k, e);
}

mech_vec mech_vec_scale(mech_model *m, const sym_node *k, mech_vec a) {
  scale_ctx s = {m->c, k};
  return mech_vec_map(m, a, scale_one, &s);
}

mech_vec mech_vec_sub(mech_model *m, mech_vec a, mech_vec b) {
  return mech_vec_add(m, a, mech_vec_scale(m, sym_int(m->c, -1), b));
}

mech_vec mech_vec_map(mech_model *m, mech_vec a,
                      const sym_node *(*f)(void *ud, const sym_node *e), void *ud) {
  /* mapped into a scratch buffer, kept in the arena at their final count:
   * a partial velocity of a chain's k-th point keeps one of its k terms,
   * and reserving k made the 160-link chain's partial velocities O(n^3)
   * (68 MB of its 300) */
  mech_vterm small[8], *t = a.n <= 8 ? small : lg_malloc(a.n * sizeof *t);
  if (a.n && !t) {
    m->oom = 1;
    return mech_vec_zero();
  }
  size_t n = 0;
  for (size_t i = 0; i < a.n; i++) {
    t[n].frame = a.t[i].frame;
    for (int c = 0; c < 3; c++) t[n].c[c] = f(ud, a.t[i].c[c]);
    /* terms that became zero are dropped: a partial velocity keeps only
     * the frames it moves in, so its dot products stay short */
    n += !(sym_is_zero(t[n].c[0]) && sym_is_zero(t[n].c[1]) && sym_is_zero(t[n].c[2]));
  }
  mech_vterm *kept = n ? lg_arena_alloc(&m->arena, n * sizeof *kept) : NULL;
  if (kept) memcpy(kept, t, n * sizeof *kept);
  if (t != small) lg_free(t);
  if (n && !kept) {
    m->oom = 1;
    return mech_vec_zero();
  }
  return (mech_vec){n, kept};
}

static const sym_node *diff_one(void *ud, const sym_node *e) {
  const void *const *p = ud;
  return sym_diff((sym_ctx *)p[0], e, (const sym_node *)p[1]);
}

mech_vec mech_vec_diff(mech_model *m, mech_vec a, const sym_node *var) {
  const void *ud[2] = {m->c, var};
  return mech_vec_map(m, a, diff_one, (void *)ud);
}

/* ---- direction cosine matrices ------------------------------------------------------ */
/* res = A * B for 3x3 row-major */
static void mat3_mul(sym_ctx *c, const sym_node *const *A, const sym_node *const *B,
                     const sym_node **res) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const sym_node *t[3];
      for (int k = 0; k < 3; k++) t[k] = sym_mul(c, A[3 * i + k], B[3 * k + j]);
      res[3 * i + j] = sym_addv(c, 3, t);
    }
}

static void mat3_identity(sym_ctx *c, const sym_node **D) {
  for (int i = 0; i < 9; i++) D[i] = sym_int(c, i % 4 == 0);
}

/* The path from `from` to `to` as steps applied to v_from in order: up
 * through the parents to the common ancestor (transposed), then down. */
typedef struct dcm_step { int frame, transpose; } dcm_step;

static size_t dcm_path(const mech_frame *F, int to, int from, dcm_step *st) {
  size_t nu = 0, nd = 0, cap = (size_t)F[to].depth + (size_t)F[from].depth;
  int a = from, b = to;
  while (a != b) {
    if (F[a].depth >= F[b].depth) {
      st[nu++] = (dcm_step){a, 1};
      a = F[a].parent;
    } else { /* down steps fill from the end, reversed below */
      st[cap - 1 - nd++] = (dcm_step){b, 0};
      b = F[b].parent;
    }
  }
  memmove(st + nu, st + cap - nd, nd * sizeof *st);
  return nu + nd;
}

/* acc = R acc for the pending same-axis rotation, then clear it */
static void dcm_flush(mech_model *m, int *axis, const sym_node **angle,
                      const sym_node **acc) {
  if (*axis < 0) return;
  const sym_node *k[3], *R[9], *tmp[9];
  for (int i = 0; i < 3; i++) k[i] = sym_int(m->c, i == *axis);
  mech_rotation_dcm(m->c, k, *angle, R);
  mat3_mul(m->c, R, acc, tmp);
  memcpy(acc, tmp, sizeof tmp);
  *axis = -1;
}

/* Compute D with v_to = D v_from through the nearest common ancestor.
 * Consecutive rotations about one axis compose as one rotation by the sum
 * of their angles, so a chain of relative angles gives cos(q1 + q2), not
 * the product of two matrices multiplied out. */
static int dcm_compute(mech_model *m, int to, int from, const sym_node **D) {
  const mech_frame *F = m->frames.v;
  size_t cap = (size_t)F[to].depth + (size_t)F[from].depth + 1;
  dcm_step *st = lg_malloc(cap * sizeof *st);
  if (!st) return 0;
  size_t n = dcm_path(F, to, from, st);
  const sym_node *angle = NULL, *tmp[9];
  int axis = -1;
  mat3_identity(m->c, D);
  for (size_t i = 0; i < n; i++) {
    const mech_frame *f = &F[st[i].frame];
    if (f->axis >= 0) {
      const sym_node *a = st[i].transpose ? sym_neg(m->c, f->angle) : f->angle;
      if (axis != f->axis) dcm_flush(m, &axis, &angle, D);
      angle = axis < 0 ? a : sym_add(m->c, angle, a);
      axis = f->axis;
      continue;
    }
    dcm_flush(m, &axis, &angle, D);
    const sym_node *R[9];
    for (int j = 0; j < 9; j++) R[j] = st[i].transpose ? f->R[3 * (j % 3) + j / 3] : f->R[j];
    mat3_mul(m->c, R, D, tmp);
    memcpy(D, tmp, sizeof tmp);
  }
  dcm_flush(m, &axis, &angle, D);
  lg_free(st);
  return 1;
}

/* The index table is square in the frame count; it is rebuilt when frames
 * were added since it was made. */
static int dcm_index_fit(mech_model *m) {
  size_t n = m->frames.n;
  if (m->dcm_dim == n) return 1;
  int *idx = lg_calloc(n * n, sizeof *idx);
  if (!idx) return 0;
  for (size_t i = 0; i < m->dcms.n; i++)
    idx[(size_t)m->dcms.v[i].to * n + (size_t)m->dcms.v[i].from] = (int)i + 1;
  lg_free(m->dcm_index);
  m->dcm_index = idx;
  m->dcm_dim = n;
  return 1;
}

const sym_node *const *mech_dcm_get(mech_model *m, int to, int from) {
  if (!dcm_index_fit(m)) {
    m->oom = 1;
    return NULL;
  }
  int *slot = &m->dcm_index[(size_t)to * m->dcm_dim + (size_t)from];
  if (*slot) return m->dcms.v[*slot - 1].D;
  mech_dcm d = {to, from, {0}};
  if (!dcm_compute(m, to, from, d.D)) {
    m->oom = 1;
    return NULL;
  }
  int k = MECH_PUSH(m, m->dcms, d);
  if (k < 0) return NULL;
  *slot = k + 1;
  return m->dcms.v[k].D;
}

/* res = D x */
static void apply(sym_ctx *c, const sym_node *const *D, const sym_node *const *x,
                  const sym_node **res) {
  for (int i = 0; i < 3; i++) {
    const sym_node *t[3] = {sym_mul(c, D[3 * i], x[0]), sym_mul(c, D[3 * i + 1], x[1]),
                            sym_mul(c, D[3 * i + 2], x[2])};
    res[i] = sym_addv(c, 3, t);
  }
}

int mech_vec_express(mech_model *m, mech_vec a, int frame, const sym_node **out) {
  const sym_node *local[3 * 16], **ts = local;
  if (a.n > 16 && !(ts = lg_malloc(3 * a.n * sizeof *ts))) return 0;
  for (size_t i = 0; i < a.n; i++) {
    const sym_node **x = ts + 3 * i;
    if (a.t[i].frame == frame) {
      memcpy(x, a.t[i].c, 3 * sizeof *x);
    } else {
      const sym_node *const *D = mech_dcm_get(m, frame, a.t[i].frame);
      if (!D) {
        if (ts != local) lg_free(ts);
        return 0;
      }
      apply(m->c, D, a.t[i].c, x);
    }
  }
  /* component k of every term, summed once */
  const sym_node **col = lg_malloc((a.n + 1) * sizeof *col);
  for (int k = 0; k < 3; k++) {
    for (size_t i = 0; col && i < a.n; i++) col[i] = ts[3 * i + k];
    out[k] = col ? sym_addv(m->c, a.n, col) : NULL;
  }
  lg_free(col);
  if (ts != local) lg_free(ts);
  return out[0] && out[1] && out[2];
}

/* ---- products ---------------------------------------------------------------------- */
/* All products are gathered and summed once: incremental sums would cost
 * a quadratic number of canonicalizations for long vectors. */
const sym_node *mech_vec_dot(mech_model *m, mech_vec a, mech_vec b) {
  const sym_node **ts = lg_malloc((3 * a.n + 1) * sizeof *ts);
  if (!ts) {
    m->oom = 1;
    return NULL;
  }
  size_t k = 0;
  for (size_t i = 0; i < a.n; i++) {
    const sym_node *y[3];
    if (!mech_vec_express(m, b, a.t[i].frame, y)) {
      lg_free(ts);
      return NULL;
    }
    for (int c = 0; c < 3; c++) ts[k++] = sym_mul(m->c, a.t[i].c[c], y[c]);
  }
  const sym_node *r = sym_addv(m->c, k, ts);
  lg_free(ts);
  return r;
}

static void cross3(sym_ctx *c, const sym_node *const *x, const sym_node *const *y,
                   const sym_node **r) {
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    r[i] = sym_sub(c, sym_mul(c, x[j], y[k]), sym_mul(c, x[k], y[j]));
  }
}

mech_vec mech_vec_cross(mech_model *m, mech_vec a, mech_vec b) {
  mech_vec acc = mech_vec_zero();
  for (size_t i = 0; i < a.n; i++) {
    const sym_node *y[3], *r[3];
    if (!mech_vec_express(m, b, a.t[i].frame, y)) {
      m->oom = 1;
      return acc;
    }
    cross3(m->c, a.t[i].c, y, r);
    acc = mech_vec_add(m, acc, mech_vec_from(m, a.t[i].frame, r[0], r[1], r[2]));
  }
  return acc;
}

const sym_node *mech_vec_norm(mech_model *m, mech_vec a) {
  return sym_func(m->c, SYM_FN_SQRT, mech_vec_dot(m, a, a), NULL);
}

/* ---- inertial time derivative: d/dt v = sum (c' + w_F x c) in F --------------------- */
/* Appends v's terms to the growable buf (count *n, capacity *cap). */
static int append_terms(mech_vterm **buf, size_t *n, size_t *cap, mech_vec v) {
  if (!lg_grow((void **)buf, cap, *n + v.n, sizeof **buf)) return 0;
  if (v.n) memcpy(*buf + *n, v.t, v.n * sizeof **buf);
  *n += v.n;
  return 1;
}

/* The sum of n terms, same frames merged, in the arena. One allocation of
 * the final size: summing k parts pairwise (mech_vec_add) left O(k^2) of
 * intermediate terms behind, 25 MB of the 160-link chain's velocities. */
static mech_vec merged(mech_model *m, const mech_vterm *t, size_t n) {
  mech_vterm *r = n ? lg_arena_alloc(&m->arena, n * sizeof *r) : NULL;
  if (n && !r) {
    m->oom = 1;
    return mech_vec_zero();
  }
  size_t k = 0;
  for (size_t j = 0; j < n; j++) {
    size_t i = 0;
    while (i < k && r[i].frame != t[j].frame) i++;
    if (i == k) {
      r[k++] = t[j];
      continue;
    }
    for (int c = 0; c < 3; c++) r[i].c[c] = sym_add(m->c, r[i].c[c], t[j].c[c]);
  }
  return (mech_vec){k, r};
}

mech_vec mech_vec_dt(mech_model *m, mech_vec a) {
  mech_vterm *buf = NULL;
  size_t n = 0, cap = 0;
  int ok = 1;
  for (size_t i = 0; ok && i < a.n; i++) {
    const mech_vterm *t = &a.t[i];
    ok = append_terms(&buf, &n, &cap,
                      mech_vec_from(m, t->frame, sym_dt(m->c, t->c[0]),
                                    sym_dt(m->c, t->c[1]), sym_dt(m->c, t->c[2])));
    if (!ok || t->frame == 0) continue;
    mech_vec here = {1, t};
    ok = append_terms(&buf, &n, &cap, mech_vec_cross(m, mech_frame_angvel(m, t->frame), here));
  }
  mech_vec r = ok ? merged(m, buf, n) : mech_vec_zero();
  if (!ok) m->oom = 1;
  lg_free(buf);
  return r;
}
