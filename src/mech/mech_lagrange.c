/* mech_lagrange.c - the Euler-Lagrange equations with multipliers.
 *
 *   d/dt(dL/dq') - dL/dq = Q + J^T lam,   M q'' - J^T lam = f,   J q'' = g_c
 *
 * d/dt(p) is formed once by the chain rule and split into its q'' part
 * (M q'', M = dp/dq') and the rest, so f = Q + dL/dq - (dp/dt)|q''=0. */
#include "mech_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- energies ------------------------------------------------------------------- */

static const sym_node *total_T(mech_model *m) {
  return sym_add(m->c, m->T, mech_kinetic_energy(m));
}

/* V + gravity: V -= sum m (g . pos) */
static const sym_node *total_V(mech_model *m) {
  const sym_node *V = m->V;
  if (!m->has_gravity) return V;
  for (size_t i = 0; i < m->particles.n; i++) {
    const mech_particle *p = &m->particles.v[i];
    V = sym_sub(m->c, V, sym_mul(m->c, p->mass,
                                 mech_vec_dot(m, m->gravity, mech_point_pos(m, p->point))));
  }
  for (size_t i = 0; i < m->bodies.n; i++) {
    const mech_body *b = &m->bodies.v[i];
    V = sym_sub(m->c, V, sym_mul(m->c, b->mass,
                                 mech_vec_dot(m, m->gravity, mech_point_pos(m, b->point))));
  }
  return V;
}

/* ---- generalized forces --------------------------------------------------------------- */
const sym_node *mech_generalized_force(mech_model *m, size_t j) {
  sym_ctx *c = m->c;
  const sym_node *qd = mech_coord(m, j, 1);
  const sym_node *Q = sym_neg(c, sym_diff(c, m->D, qd));
  for (size_t i = 0; i < m->forces.n; i++) {
    mech_vec pv = mech_vec_diff(m, mech_point_vel(m, m->forces.v[i].target), qd);
    Q = sym_add(c, Q, mech_vec_dot(m, m->forces.v[i].v, pv));
  }
  for (size_t i = 0; i < m->torques.n; i++) {
    mech_vec pw = mech_vec_diff(m, mech_frame_angvel(m, m->torques.v[i].target), qd);
    Q = sym_add(c, Q, mech_vec_dot(m, m->torques.v[i].v, pw));
  }
  for (size_t i = 0; i < m->gen_forces.n; i++)
    if ((size_t)m->gen_forces.v[i].target == j) Q = sym_add(c, Q, m->gen_forces.v[i].s);
  return Q;
}

/* ---- allocation helpers ------------------------------------------------------------------ */
static const sym_node **node_array(mech_model *m, size_t n) {
  const sym_node **a = lg_arena_alloc(&m->arena, (n ? n : 1) * sizeof *a);
  if (!a) m->oom = 1;
  for (size_t i = 0; a && i < n; i++) a[i] = sym_int(m->c, 0);
  return a;
}

/* e with every q'' replaced by 0 */
static const sym_node *drop_qdd(mech_model *m, mech_eom *e, const sym_node *x) {
  const sym_node **zeros = node_array(m, e->n);
  return zeros ? sym_subst(m->c, x, e->n, e->qdd, zeros) : NULL;
}

/* ---- constraints ----------------------------------------------------------------------- */
typedef struct row_info { const sym_node *e; int line, col; mech_row_kind kind; } row_info;

/* Classify a row: q'' is an error, no q' is holonomic, affine in q' is
 * nonholonomic, anything else is an error. */
static lg_status classify_row(mech_model *m, mech_eom *e, const mech_row *r,
                              const char *file, mech_row_kind *kind, lg_diag *diag) {
  int has_qd = 0;
  for (size_t i = 0; i < e->n; i++) {
    if (sym_has(r->e, e->qdd[i])) {
      lg_diag_set(diag, LG_ERR_MODEL, file, r->line, r->col,
                  "constraint contains the acceleration %s''", e->q[i]->v.name);
      lg_diag_hint(diag, "write the constraint on positions or velocities; "
                         "it is differentiated automatically");
      return LG_ERR_MODEL;
    }
    has_qd |= sym_has(r->e, e->qd[i]);
  }
  *kind = has_qd ? MECH_NONHOLONOMIC : MECH_HOLONOMIC;
  for (size_t i = 0; has_qd && i < e->n; i++)
    for (size_t j = i; j < e->n; j++) {
      const sym_node *d2 = sym_diff(m->c, sym_diff(m->c, r->e, e->qd[i]), e->qd[j]);
      if (d2 && !sym_is_zero(sym_simplify(m->c, d2))) {
        lg_diag_set(diag, LG_ERR_MODEL, file, r->line, r->col,
                    "constraint is not linear in the velocities (it contains %s' "
                    "nonlinearly)", e->q[i]->v.name);
        lg_diag_hint(diag, "a velocity constraint must read a(q,t).q' + b(q,t) = 0");
        return LG_ERR_MODEL;
      }
    }
  return LG_OK;
}

static lg_status derive_constraints(mech_model *m, mech_eom *e, const char *file,
                                    lg_diag *diag) {
  row_info *rows = lg_arena_alloc(&m->arena, (m->rows.n + 1) * sizeof *rows);
  if (!rows) return LG_ERR_NOMEM;
  size_t k = 0;
  for (size_t r = 0; r < m->rows.n; r++) {
    const mech_row *row = &m->rows.v[r];
    mech_row_kind kind;
    lg_status st = classify_row(m, e, row, file, &kind, diag);
    if (st != LG_OK) return st;
    rows[k++] = (row_info){row->e, row->line, row->col, kind};
  }
  e->m = k;
  e->J = sym_matrix_new(m->c, k, e->n);
  e->gc = node_array(m, k);
  e->C = node_array(m, k);
  e->kind = lg_arena_alloc(&m->arena, (k + 1) * sizeof *e->kind);
  e->row_line = lg_arena_alloc(&m->arena, (k + 1) * sizeof(int));
  e->row_col = lg_arena_alloc(&m->arena, (k + 1) * sizeof(int));
  if (!e->J || !e->gc || !e->C || !e->kind || !e->row_line || !e->row_col)
    return LG_ERR_NOMEM;
  for (size_t r = 0; r < k; r++) {
    const sym_node *C = rows[r].e, *vel = C;
    e->C[r] = C;
    e->kind[r] = rows[r].kind;
    e->row_line[r] = rows[r].line;
    e->row_col[r] = rows[r].col;
    if (rows[r].kind == MECH_HOLONOMIC) vel = sym_dt(m->c, C);
    for (size_t j = 0; j < e->n; j++) SYM_AT(e->J, r, j) = sym_diff(m->c, vel, e->qd[j]);
    e->gc[r] = sym_neg(m->c, drop_qdd(m, e, sym_dt(m->c, vel)));
  }
  return LG_OK;
}

/* ---- the dynamic equations ---------------------------------------------------------------- */
static lg_status check_model(mech_model *m, const char *file, lg_diag *diag) {
  if (m->coords.n == 0) {
    lg_diag_set(diag, LG_ERR_MODEL, file, 1, 1, "the model declares no coordinates");
    lg_diag_hint(diag, "add a line such as 'coordinates x theta'");
    return LG_ERR_MODEL;
  }
  return LG_OK;
}

/* T, V and L: cheap next to the derivatives below (what the energy
 * balance and the tree recursion's callers read). */
static lg_status derive_energies(mech_model *m, mech_eom *e, int joint_T) {
  sym_ctx *c = m->c;
  mech_joints *J = joint_T && !m->L ? mech_joints_of(m) : NULL;
  e->T_joint = J != NULL;
  e->T = m->L ? NULL : J ? sym_add(c, m->T, mech_joints_energy(J)) : total_T(m);
  e->V = m->L ? NULL : J ? sym_add(c, m->V, mech_joints_gravity_potential(J)) : total_V(m);
  e->L = m->L ? m->L : sym_sub(c, e->T, e->V);
  if (m->L) { /* T and V are not separable from a given Lagrangian */
    e->T = sym_int(c, 0);
    e->V = sym_int(c, 0);
  }
  return e->L && e->T && e->V ? LG_OK : LG_ERR_NOMEM;
}

static lg_status derive_dynamics(mech_model *m, mech_eom *e) {
  sym_ctx *c = m->c;
  size_t n = e->n;
  e->p = node_array(m, n);
  e->f = node_array(m, n);
  e->M = sym_matrix_new(c, n, n);
  if (!e->p || !e->f || !e->M || !e->L) return LG_ERR_NOMEM;
  /* The Euler-Lagrange derivative of the energies as written (and of
   * gravity's potential); the particles' and bodies' kinetic energy is
   * assembled from their partial velocities (mech_assemble.c). */
  const sym_node *E = m->L ? m->L : sym_sub(c, m->T, e->V);
  for (size_t i = 0; i < n; i++) {
    e->p[i] = sym_diff(c, E, e->qd[i]);
    for (size_t j = 0; j < n; j++) SYM_AT(e->M, i, j) = sym_diff(c, e->p[i], e->qd[j]);
    const sym_node *rest = drop_qdd(m, e, sym_dt(c, e->p[i]));
    e->f[i] = sym_add(c, mech_generalized_force(m, i),
                      sym_sub(c, sym_diff(c, E, e->q[i]), rest));
  }
  if (!m->L && !mech_assemble_inertia(m, e)) return LG_ERR_NOMEM;
  return LG_OK;
}

/* [M, -J^T] and the full forms. */
static lg_status assemble(mech_model *m, mech_eom *e) {
  sym_ctx *c = m->c;
  size_t n = e->n, k = e->m, N = 2 * n + k;
  e->mass_matrix = sym_matrix_new(c, n, n + k);
  e->mass_matrix_full = sym_matrix_new(c, N, N);
  e->forcing_full = node_array(m, N);
  if (!e->mass_matrix || !e->mass_matrix_full || !e->forcing_full)
    return LG_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) {
    SYM_AT(e->mass_matrix_full, i, i) = sym_int(c, 1);
    e->forcing_full[i] = e->qd[i];
    e->forcing_full[n + i] = e->f[i];
    for (size_t j = 0; j < n; j++) {
      SYM_AT(e->mass_matrix, i, j) = SYM_AT(e->M, i, j);
      SYM_AT(e->mass_matrix_full, n + i, n + j) = SYM_AT(e->M, i, j);
    }
    for (size_t r = 0; r < k; r++) {
      const sym_node *mjt = sym_neg(c, SYM_AT(e->J, r, i));
      SYM_AT(e->mass_matrix, i, n + r) = mjt;
      SYM_AT(e->mass_matrix_full, n + i, 2 * n + r) = mjt;
      SYM_AT(e->mass_matrix_full, 2 * n + r, n + i) = SYM_AT(e->J, r, i);
    }
  }
  for (size_t r = 0; r < k; r++) e->forcing_full[2 * n + r] = e->gc[r];
  return LG_OK;
}

static lg_status make_symbols(mech_model *m, mech_eom *e) {
  size_t n = m->coords.n;
  e->n = n;
  e->q = node_array(m, n);
  e->qd = node_array(m, n);
  e->qdd = node_array(m, n);
  e->lam = node_array(m, m->rows.n);
  if (!e->q || !e->qd || !e->qdd || !e->lam) return LG_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) {
    e->q[i] = mech_coord(m, i, 0);
    e->qd[i] = mech_coord(m, i, 1);
    e->qdd[i] = mech_coord(m, i, 2);
  }
  for (size_t r = 0; r < m->rows.n; r++) {
    char name[32];
    snprintf(name, sizeof name, "lam%zu", r + 1);
    e->lam[r] = sym_symbol(m->c, name);
  }
  return LG_OK;
}

/* Under Lagrange's method a speed stands for its value from the
 * kinematical equations: every expression the derivation reads gets the
 * speeds replaced (and restored afterwards: Kane's method wants them). */
typedef struct saved_model {
  const sym_node *T, *V, *D, *L;
  mech_load *forces, *torques, *gen;
  mech_row *rows;
} saved_model;

static const sym_node *subst_cb(void *ud, const sym_node *e) {
  const void *const *a = ud;
  return sym_subst((sym_ctx *)a[0], e, *(const size_t *)a[1], a[2], a[3]);
}

/* memcpy that accepts the NULL arrays of empty lists */
static void copy_items(void *dst, const void *src, size_t n, size_t size) {
  if (n) memcpy(dst, src, n * size);
}

static lg_status replace_speeds(mech_model *m, const char *file, saved_model *sv,
                                lg_diag *diag) {
  const sym_node **from, **to;
  size_t n;
  memset(sv, 0, sizeof *sv);
  lg_status st = mech_speed_values(m, file, &from, &to, &n, diag);
  if (st != LG_OK || !n) return st;
  *sv = (saved_model){m->T, m->V, m->D, m->L, NULL, NULL, NULL, NULL};
  size_t nf = m->forces.n, nt = m->torques.n, ng = m->gen_forces.n, nr = m->rows.n;
  sv->forces = lg_arena_alloc(&m->arena, (nf + nt + ng + 1) * sizeof(mech_load));
  sv->rows = lg_arena_alloc(&m->arena, (nr + 1) * sizeof(mech_row));
  if (!sv->forces || !sv->rows) return LG_ERR_NOMEM;
  sv->torques = sv->forces + nf;
  sv->gen = sv->torques + nt;
  copy_items(sv->forces, m->forces.v, nf, sizeof(mech_load));
  copy_items(sv->torques, m->torques.v, nt, sizeof(mech_load));
  copy_items(sv->gen, m->gen_forces.v, ng, sizeof(mech_load));
  copy_items(sv->rows, m->rows.v, nr, sizeof(mech_row));
  const void *ud[4] = {m->c, &n, from, to};
  m->T = subst_cb(ud, m->T);
  m->V = subst_cb(ud, m->V);
  m->D = subst_cb(ud, m->D);
  if (m->L) m->L = subst_cb(ud, m->L);
  for (size_t i = 0; i < nf; i++) m->forces.v[i].v = mech_vec_map(m, m->forces.v[i].v, subst_cb, ud);
  for (size_t i = 0; i < nt; i++) m->torques.v[i].v = mech_vec_map(m, m->torques.v[i].v, subst_cb, ud);
  for (size_t i = 0; i < ng; i++) m->gen_forces.v[i].s = subst_cb(ud, m->gen_forces.v[i].s);
  for (size_t i = 0; i < nr; i++) m->rows.v[i].e = subst_cb(ud, m->rows.v[i].e);
  return LG_OK;
}

static void restore_speeds(mech_model *m, const saved_model *sv) {
  if (!sv->rows) return;
  m->T = sv->T;
  m->V = sv->V;
  m->D = sv->D;
  m->L = sv->L;
  copy_items(m->forces.v, sv->forces, m->forces.n, sizeof(mech_load));
  copy_items(m->torques.v, sv->torques, m->torques.n, sizeof(mech_load));
  copy_items(m->gen_forces.v, sv->gen, m->gen_forces.n, sizeof(mech_load));
  copy_items(m->rows.v, sv->rows, m->rows.n, sizeof(mech_row));
}

static lg_status derive(mech_model *m, const char *file, int dense, mech_eom **out,
                        lg_diag *diag);
static lg_status derived(mech_model *m, const char *file, lg_diag *diag);

lg_status mech_derive_lagrange(mech_model *m, const char *file, mech_eom **out,
                               lg_diag *diag) {
  return mech_derive_lagrange_with(m, file, 1, out, diag);
}

lg_status mech_derive_lagrange_with(mech_model *m, const char *file, int dense,
                                    mech_eom **out, lg_diag *diag) {
  *out = NULL;
  lg_status st = check_model(m, file, diag);
  if (st != LG_OK) return st;
  saved_model sv;
  st = replace_speeds(m, file, &sv, diag);
  if (st == LG_OK) st = derive(m, file, dense, out, diag);
  restore_speeds(m, &sv);
  return st;
}

lg_status mech_eom_add_dynamics(mech_model *m, const char *file, mech_eom *e,
                                lg_diag *diag) {
  if (e->f) return LG_OK;
  if (e->T_joint) { /* the printed equations' T and V: expanded, as every model's */
    e->T = total_T(m);
    e->V = total_V(m);
    e->L = e->T ? sym_sub(m->c, e->T, e->V) : NULL;
    if (!e->L) return LG_ERR_NOMEM;
    e->T_joint = 0;
  }
  saved_model sv;
  lg_status st = replace_speeds(m, file, &sv, diag);
  if (st == LG_OK) st = derive_dynamics(m, e);
  if (st == LG_OK) st = assemble(m, e);
  restore_speeds(m, &sv);
  if (st == LG_OK) st = derived(m, file, diag);
  if (st != LG_OK) { /* all or nothing: readers test f */
    e->f = NULL;
    e->p = NULL;
    e->M = e->mass_matrix = e->mass_matrix_full = NULL;
    e->forcing_full = NULL;
  }
  return st;
}

lg_status mech_eom_need_dynamics(const mech_eom *e, lg_diag *d) {
  if (e->f) return LG_OK;
  if (!e->dynamics) {
    lg_diag_set(d, LG_ERR_MODEL, NULL, 0, 0, "the equations were derived without their "
                "mass matrix and forcing");
    return LG_ERR_MODEL;
  }
  return e->dynamics(e->dynamics_ud, d);
}

static lg_status derived(mech_model *m, const char *file, lg_diag *diag) {
  if (m->oom || sym_ctx_error(m->c) != LG_OK) {
    lg_status st = sym_ctx_error(m->c) == LG_ERR_MODEL ? LG_ERR_MODEL : LG_ERR_NOMEM;
    lg_diag_set(diag, st, file, 0, 0, "%s",
                st == LG_ERR_MODEL ? sym_ctx_error_message(m->c) : "out of memory");
    return diag && diag->status != LG_OK ? diag->status : st;
  }
  return LG_OK;
}

static lg_status derive(mech_model *m, const char *file, int dense, mech_eom **out,
                        lg_diag *diag) {
  lg_status st;
  mech_eom *e = lg_arena_alloc(&m->arena, sizeof *e);
  if (!e) return LG_ERR_NOMEM;
  memset(e, 0, sizeof *e);
  if ((st = make_symbols(m, e)) != LG_OK) return st;
  if ((st = derive_constraints(m, e, file, diag)) != LG_OK) return st;
  if ((st = derive_energies(m, e, dense & MECH_DERIVE_JOINT_T)) != LG_OK) return st;
  dense &= 1;
  if (dense && (st = derive_dynamics(m, e)) != LG_OK) return st;
  if (dense && (st = assemble(m, e)) != LG_OK) return st;
  if ((st = derived(m, file, diag)) != LG_OK) return st;
  *out = e;
  return LG_OK;
}

/* ---- readable output ---------------------------------------------------------------------- */
/* Expanded (when at most max_dag nodes, and only if that does not grow
 * it), then collected: the collection is linear, so every size gets it. */
/* Expansion that multiplies an entry out past this many times its size
 * is not worth simplifying: the result is kept only when it is no larger,
 * and sin^2 + cos^2 searches over the expanded sums cost far more (a
 * fuzzed model with nested rotations spent a second here on an entry of
 * a few hundred nodes). */
enum { EXPAND_GROWTH_MAX = 8 };

const sym_node *mech_simplify_entry(sym_ctx *c, const sym_node *x, size_t max_dag) {
  if (!x) return x;
  size_t n = max_dag ? sym_dag_size(x) : 0;
  if (n && n <= max_dag) {
    const sym_node *ex = sym_expand(c, x);
    if (ex && sym_dag_size(ex) <= EXPAND_GROWTH_MAX * n + 64) {
      const sym_node *s = sym_simplify(c, x);
      if (s && sym_dag_size(s) <= n) x = s;
    }
  }
  const sym_node *g = sym_collect(c, x);
  return g ? g : x;
}

/* A copy of a[0..n) in the arena, each entry simplified (NULL stays NULL). */
static const sym_node **simplified_array(mech_model *m, const sym_node *const *a, size_t n,
                                         size_t max_dag) {
  if (!a) return NULL;
  const sym_node **b = lg_arena_alloc(&m->arena, (n ? n : 1) * sizeof *b);
  if (!b) {
    m->oom = 1;
    return NULL;
  }
  for (size_t i = 0; i < n; i++) b[i] = mech_simplify_entry(m->c, a[i], max_dag);
  return b;
}

static sym_matrix *simplified_matrix(mech_model *m, const sym_matrix *x, size_t max_dag) {
  if (!x) return NULL;
  sym_matrix *y = sym_matrix_new(m->c, x->rows, x->cols);
  const sym_node **e = simplified_array(m, x->e, x->rows * x->cols, max_dag);
  if (!y || !e) {
    m->oom = 1;
    return NULL;
  }
  y->e = e;
  return y;
}

mech_eom *mech_eom_with_dynamics(mech_model *m, const mech_eom *e, const sym_node *const *M,
                                 const sym_node *const *f, const sym_node **qdd) {
  sym_ctx *c = m->c;
  size_t n = e->n;
  mech_eom *x = lg_arena_alloc(&m->arena, sizeof *x);
  if (!x || e->m) return NULL;
  *x = *e;
  x->dynamics = NULL;
  x->tree_qdd = qdd;
  x->quadratic_T = 1;
  x->M = sym_matrix_new(c, n, n);
  x->f = node_array(m, n);
  x->p = node_array(m, n);
  if (!x->M || !x->f || !x->p) return NULL;
  for (size_t i = 0; i < n; i++) {
    x->f[i] = f[i];
    const sym_node *pi = sym_int(c, 0);
    for (size_t j = 0; j < n; j++) {
      SYM_AT(x->M, i, j) = M[i * n + j];
      pi = sym_add(c, pi, sym_mul(c, M[i * n + j], e->qd[j]));
    }
    x->p[i] = pi;
  }
  if (assemble(m, x) != LG_OK || m->oom || sym_ctx_error(c) != LG_OK) return NULL;
  return x;
}

int mech_eom_simplify_dynamics(mech_model *m, const mech_eom *e, mech_eom *s,
                                size_t max_dag) {
  if (s->f || !e->f) return 1;
  if (s->T_joint && !e->T_joint) {
    s->T = mech_simplify_entry(m->c, e->T, max_dag);
    s->V = mech_simplify_entry(m->c, e->V, max_dag);
    s->L = e->L;
    s->T_joint = 0;
  }
  sym_matrix *M = simplified_matrix(m, e->M, max_dag);
  sym_matrix *mm = simplified_matrix(m, e->mass_matrix, max_dag);
  sym_matrix *mf = simplified_matrix(m, e->mass_matrix_full, max_dag);
  const sym_node **f = simplified_array(m, e->f, e->n, max_dag);
  const sym_node **ff = simplified_array(m, e->forcing_full, 2 * e->n + e->m, max_dag);
  const sym_node **p = simplified_array(m, e->p, e->n, max_dag);
  if (!M || !mm || !mf || !f || !ff || !p || m->oom || sym_ctx_error(m->c) != LG_OK) return 0;
  s->M = M;
  s->mass_matrix = mm;
  s->mass_matrix_full = mf;
  s->forcing_full = ff;
  s->p = p;
  s->f = f; /* last: readers test f */
  return 1;
}

mech_eom *mech_eom_simplified(mech_model *m, const mech_eom *e, size_t max_dag) {
  mech_eom *s = lg_arena_alloc(&m->arena, sizeof *s);
  if (!s) return NULL;
  *s = *e; /* symbols, row kinds and positions shared: they never change */
  s->M = simplified_matrix(m, e->M, max_dag);
  s->J = simplified_matrix(m, e->J, max_dag);
  s->mass_matrix = simplified_matrix(m, e->mass_matrix, max_dag);
  s->mass_matrix_full = simplified_matrix(m, e->mass_matrix_full, max_dag);
  s->f = simplified_array(m, e->f, e->n, max_dag);
  s->gc = simplified_array(m, e->gc, e->m, max_dag);
  s->forcing_full = simplified_array(m, e->forcing_full, 2 * e->n + e->m, max_dag);
  s->p = simplified_array(m, e->p, e->n, max_dag);
  s->T = mech_simplify_entry(m->c, e->T, max_dag);
  s->V = mech_simplify_entry(m->c, e->V, max_dag);
  int lost = (e->M && !s->M) || (e->J && !s->J) || (e->mass_matrix && !s->mass_matrix) ||
             (e->mass_matrix_full && !s->mass_matrix_full) || (e->f && !s->f) ||
             (e->gc && !s->gc) || (e->forcing_full && !s->forcing_full) || (e->p && !s->p);
  return lost || m->oom || sym_ctx_error(m->c) != LG_OK ? NULL : s;
}
