/* mech_model.c - building a model: coordinates, parameters, inputs,
 * frames, points, masses, loads, energies and constraints. */
#include "mech_internal.h"

#include <stdio.h>
#include <string.h>

mech_model *mech_model_new(sym_ctx *c) {
  mech_model *m = lg_calloc(1, sizeof *m);
  if (!m) return NULL;
  m->c = c;
  lg_arena_init(&m->arena);
  m->T = m->V = m->D = sym_int(c, 0);
  return m;
}

void mech_model_free(mech_model *m) {
  if (!m) return;
  lg_free(m->coords.v);
  lg_free(m->params.v);
  lg_free(m->inputs.v);
  lg_free(m->frames.v);
  lg_free(m->points.v);
  lg_free(m->particles.v);
  lg_free(m->bodies.v);
  lg_free(m->forces.v);
  lg_free(m->torques.v);
  lg_free(m->gen_forces.v);
  lg_free(m->rows.v);
  lg_free(m->speeds.v);
  lg_free(m->dependent.v);
  lg_free(m->kinematics.v);
  lg_free(m->dcms.v);
  lg_free(m->outputs.v);
  lg_free(m->dcm_index);
  lg_arena_free(&m->arena);
  lg_free(m);
}

sym_ctx *mech_ctx(mech_model *m) { return m->c; }

const char *mech_strdup(mech_model *m, const char *s) {
  const char *r = lg_arena_strdup(&m->arena, s, strlen(s));
  if (!r) m->oom = 1;
  return r;
}

/* ---- coordinates, parameters, inputs -------------------------------------------- */
int mech_add_coordinate(mech_model *m, const char *name) {
  const char *n = mech_strdup(m, name);
  return n ? MECH_PUSH(m, m->coords, n) : -1;
}

int mech_add_parameter(mech_model *m, const char *name, const sym_node *value) {
  mech_param_rec p = {mech_strdup(m, name), sym_symbol(m->c, name), value, 0, 0};
  return p.name && p.sym ? MECH_PUSH(m, m->params, p) : -1;
}

/* An input is a function of time (a COORD node named after it), so its
 * derivatives appear where kinematics need them; numbers replace it by
 * its law (or a --set constant) at evaluation time. */
int mech_add_input(mech_model *m, const char *name, const sym_node *law) {
  mech_input_rec in = {mech_strdup(m, name), law ? law : sym_int(m->c, 0)};
  return in.name ? MECH_PUSH(m, m->inputs, in) : -1;
}

size_t mech_ncoords(const mech_model *m) { return m->coords.n; }
const sym_node *mech_coord(const mech_model *m, size_t i, int order) {
  return sym_coord(m->c, m->coords.v[i], order);
}
size_t mech_nparams(const mech_model *m) { return m->params.n; }
const sym_node *mech_param(const mech_model *m, size_t i) { return m->params.v[i].sym; }
const sym_node *mech_param_value(const mech_model *m, size_t i) {
  return m->params.v[i].value;
}
const char *mech_param_name(const mech_model *m, size_t i) { return m->params.v[i].name; }
void mech_param_set_pos(mech_model *m, size_t i, int line, int col) {
  m->params.v[i].line = line;
  m->params.v[i].col = col;
}
void mech_param_pos(const mech_model *m, size_t i, int *line, int *col) {
  *line = m->params.v[i].line;
  *col = m->params.v[i].col;
}
const char *mech_input_name(const mech_model *m, size_t i) { return m->inputs.v[i].name; }
size_t mech_ninputs(const mech_model *m) { return m->inputs.n; }
const sym_node *mech_input(const mech_model *m, size_t i, int order) {
  return sym_coord(m->c, m->inputs.v[i].name, order);
}
const sym_node *mech_input_law(const mech_model *m, size_t i) {
  return m->inputs.v[i].law;
}

/* ---- frames ------------------------------------------------------------------------ */
int mech_add_frame_inertial(mech_model *m, const char *name) {
  mech_frame f = {0};
  f.name = mech_strdup(m, name);
  f.parent = -1;
  f.axis = -1;
  for (int i = 0; i < 9; i++) f.R[i] = sym_int(m->c, i % 4 == 0);
  f.omega_done = 1;
  return f.name ? MECH_PUSH(m, m->frames, f) : -1;
}


/* Are v's measure numbers in `frame` free of coordinates, inputs and t? */
int mech_frame_is_fixed_in(mech_model *m, mech_vec v, int frame) {
  const sym_node *x[3];
  if (!mech_vec_express(m, v, frame, x)) return 0;
  for (int k = 0; k < 3; k++)
    if (x[k]->max_order || sym_has(x[k], sym_time(m->c))) return 0;
  return 1;
}

/* DCM of a frame rotated by angle about unit axis k (parent coordinates):
 * D = cI - s[k]x + (1-c) k k^T, so that v_child = D v_parent. */
void mech_rotation_dcm(sym_ctx *c, const sym_node *const *k, const sym_node *angle,
                       const sym_node **D) {
  const sym_node *co = sym_func(c, SYM_FN_COS, angle, NULL);
  const sym_node *si = sym_func(c, SYM_FN_SIN, angle, NULL);
  const sym_node *omc = sym_sub(c, sym_int(c, 1), co);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const sym_node *e = sym_mul(c, omc, sym_mul(c, k[i], k[j]));
      if (i == j) e = sym_add(c, e, co);
      else {
        /* [k]x[i][j]: (0,1)=-kz (0,2)=ky (1,0)=kz (1,2)=-kx (2,0)=-ky (2,1)=kx */
        int l = 3 - i - j, sgn = ((j - i + 3) % 3 == 1) ? -1 : 1;
        e = sym_sub(c, e, sym_mul(c, sym_mul(c, sym_int(c, sgn), k[l]), si));
      }
      D[3 * i + j] = e;
    }
}

/* A rotation about +-e_i of the parent is marked (axis i, +-angle), so
 * direction cosines can merge consecutive rotations about one axis. */
static void simple_axis(sym_ctx *c, const sym_node *const *k, const sym_node *angle,
                        mech_frame *f) {
  f->axis = -1;
  int nz = 0, at = 0;
  for (int i = 0; i < 3; i++)
    if (!sym_is_zero(k[i])) nz++, at = i;
  if (nz != 1 || k[at]->kind != SYM_NUM) return;
  double v = sym_number_value(k[at]);
  if (v != 1 && v != -1) return;
  f->axis = at;
  f->angle = v > 0 ? angle : sym_neg(c, angle);
}

int mech_add_frame_rotate(mech_model *m, const char *name, int parent, mech_vec axis,
                          const sym_node *angle) {
  if (!mech_frame_is_fixed_in(m, axis, parent)) return -2;
  const sym_node *k[3];
  if (!mech_vec_express(m, axis, parent, k)) return -1;
  const sym_node *norm = mech_vec_norm(m, axis);
  for (int i = 0; i < 3; i++) k[i] = sym_div(m->c, k[i], norm);
  mech_frame f = {0};
  f.name = mech_strdup(m, name);
  f.parent = parent;
  f.depth = m->frames.v[parent].depth + 1;
  mech_rotation_dcm(m->c, k, angle, f.R);
  simple_axis(m->c, k, angle, &f);
  int idx = (int)m->frames.n;
  const sym_node *rate = sym_dt(m->c, angle);
  f.omega_rel = mech_vec_from(m, idx, sym_mul(m->c, rate, k[0]),
                              sym_mul(m->c, rate, k[1]), sym_mul(m->c, rate, k[2]));
  return f.name && !m->oom ? MECH_PUSH(m, m->frames, f) : -1;
}

/* Euler parameters (e0 scalar; SymPy's orient_quaternion): the parent's
 * vectors in the child are v_child = C^T v_parent with
 * C = (e0^2 - e.e) I + 2 e e^T + 2 e0 [e]x, and the angular velocity
 * relative to the parent, in the child, is 2 (e0 e' - e0' e - e x e'). */
int mech_add_frame_quaternion(mech_model *m, const char *name, int parent,
                              const sym_node *const e[4]) {
  sym_ctx *c = m->c;
  const sym_node *two = sym_int(c, 2);
  const sym_node *sq[4];
  for (int i = 0; i < 4; i++) sq[i] = sym_mul(c, e[i], e[i]);
  mech_frame f = {0};
  f.name = mech_strdup(m, name);
  f.parent = parent;
  f.axis = -1;
  f.depth = m->frames.v[parent].depth + 1;
  for (int i = 0; i < 3; i++) {
    /* diagonal: e0^2 + ei^2 - ej^2 - ek^2 */
    const sym_node *d = sym_add(c, sq[0], sq[1 + i]);
    for (int j = 0; j < 3; j++)
      if (j != i) d = sym_sub(c, d, sq[1 + j]);
    f.R[4 * i] = d;
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      if (i == j) continue;
      /* C[i][j] = 2 (ei ej - e0 ek eps_ijk); R = C^T: R[i][j] = C[j][i] */
      int k = 3 - i - j, sgn = ((j - i + 3) % 3 == 1) ? 1 : -1; /* eps_ijk */
      const sym_node *ee = sym_mul(c, e[1 + i], e[1 + j]);
      const sym_node *ek = sym_mul(c, e[0], e[1 + k]);
      const sym_node *Cij = sym_mul(c, two, sgn > 0 ? sym_sub(c, ee, ek) : sym_add(c, ee, ek));
      f.R[3 * j + i] = Cij;
    }
  const sym_node *d[4], *w[3];
  for (int i = 0; i < 4; i++) d[i] = sym_dt(c, e[i]);
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    const sym_node *x = sym_sub(c, sym_mul(c, e[0], d[1 + i]), sym_mul(c, d[0], e[1 + i]));
    x = sym_sub(c, x, sym_sub(c, sym_mul(c, e[1 + j], d[1 + k]), sym_mul(c, e[1 + k], d[1 + j])));
    w[i] = sym_mul(c, two, x);
  }
  int idx = (int)m->frames.n;
  f.omega_rel = mech_vec_from(m, idx, w[0], w[1], w[2]);
  return f.name && !m->oom ? MECH_PUSH(m, m->frames, f) : -1;
}

/* Successive rotations about the new frame's axes (body) or the parent's
 * fixed axes (space: the same as body rotations in reverse order). The
 * two intermediate frames are named NAME'1 and NAME'2 (not user names). */
int mech_add_frame_euler(mech_model *m, const char *name, int parent, mech_rot kind,
                         const int seq[3], const sym_node *const angles[3]) {
  int s[3], f = parent;
  const sym_node *a[3];
  for (int i = 0; i < 3; i++) {
    int j = kind == MECH_ROT_BODY ? i : 2 - i;
    s[i] = seq[j];
    a[i] = angles[j];
  }
  for (int i = 0; i < 3 && f >= 0; i++) {
    char buf[300];
    snprintf(buf, sizeof buf, i == 2 ? "%s" : "%s'%d", name, i + 1);
    f = mech_add_frame_rotate(m, buf, f, mech_vec_unit(m, f, s[i]), a[i]);
  }
  if (f >= 0) { /* for the diagnosis of its singularity (mech_frame_euler) */
    mech_frame *F = &m->frames.v[f];
    for (int i = 0; i < 3; i++) {
      F->euler_seq[i] = (char)('x' + seq[i]);
      F->euler_angle[i] = angles[i];
    }
    F->euler_seq[3] = 0;
    F->euler_space = kind == MECH_ROT_SPACE;
    F->euler_parent = parent;
  }
  return f;
}

size_t mech_nframes(const mech_model *m) { return m->frames.n; }

int mech_frame_euler(const mech_model *m, int frame, char seq[4], int *space, int *parent,
                     const sym_node *angles[3]) {
  const mech_frame *F = &m->frames.v[frame];
  if (!F->euler_seq[0]) return 0;
  memcpy(seq, F->euler_seq, 4);
  *space = F->euler_space;
  *parent = F->euler_parent;
  for (int i = 0; i < 3; i++) angles[i] = F->euler_angle[i];
  return 1;
}

mech_vec mech_frame_angvel(mech_model *m, int frame) {
  mech_frame *F = &m->frames.v[frame];
  if (F->omega_done) return F->omega;
  /* The sum of the relative rates along the path to the root, expressed
   * at once in the frame itself: each through the merged direction
   * cosines, never through products of the intermediate rotations. */
  mech_vec rel = mech_vec_zero();
  for (int f = frame; m->frames.v[f].parent >= 0; f = m->frames.v[f].parent)
    rel = mech_vec_add(m, rel, m->frames.v[f].omega_rel);
  const sym_node *w[3];
  if (!mech_vec_express(m, rel, frame, w)) {
    m->oom = 1;
    return mech_vec_zero();
  }
  F = &m->frames.v[frame];
  F->omega = mech_vec_from(m, frame, w[0], w[1], w[2]);
  F->omega_done = 1;
  return F->omega;
}

/* ---- points and masses ------------------------------------------------------------- */
int mech_add_point(mech_model *m, const char *name, int from, mech_vec offset) {
  mech_point p = {0};
  p.name = mech_strdup(m, name);
  p.from = m->points.n == 0 ? -1 : from;
  p.pos = m->points.n == 0 ? mech_vec_zero()
                           : mech_vec_add(m, m->points.v[from].pos, offset);
  return p.name ? MECH_PUSH(m, m->points, p) : -1;
}

void mech_point_set_pos(mech_model *m, int point, mech_vec pos) {
  m->points.v[point].pos = pos;
  m->points.v[point].vel_done = 0;
}

mech_vec mech_point_pos(const mech_model *m, int point) { return m->points.v[point].pos; }

mech_vec mech_point_vel(mech_model *m, int point) {
  mech_point *p = &m->points.v[point];
  if (!p->vel_done) {
    mech_vec v = mech_vec_dt(m, p->pos);
    p = &m->points.v[point];
    p->vel = v;
    p->vel_done = 1;
  }
  return p->vel;
}

int mech_add_particle(mech_model *m, int point, const sym_node *mass) {
  mech_particle p = {point, mass};
  return MECH_PUSH(m, m->particles, p);
}

int mech_add_body(mech_model *m, int frame, const sym_node *mass, int point,
                  const sym_node *const inertia[6]) {
  mech_body b = {frame, point, mass, {0}};
  memcpy(b.I, inertia, sizeof b.I);
  return MECH_PUSH(m, m->bodies, b);
}

/* ---- energies and loads -------------------------------------------------------------- */
void mech_add_T(mech_model *m, const sym_node *e) { m->T = sym_add(m->c, m->T, e); m->has_T = 1; }
void mech_add_V(mech_model *m, const sym_node *e) { m->V = sym_add(m->c, m->V, e); m->has_V = 1; }
void mech_add_D(mech_model *m, const sym_node *e) { m->D = sym_add(m->c, m->D, e); }
void mech_set_L(mech_model *m, const sym_node *e) { m->L = e; }
void mech_set_gravity(mech_model *m, mech_vec g) { m->gravity = g; m->has_gravity = 1; }
const sym_node *mech_written_V(const mech_model *m) { return m->V; }

void mech_add_force(mech_model *m, int point, mech_vec f) {
  mech_load l = {point, f, NULL};
  MECH_PUSH(m, m->forces, l);
}

void mech_add_torque(mech_model *m, int frame, mech_vec t) {
  mech_load l = {frame, t, NULL};
  MECH_PUSH(m, m->torques, l);
}

void mech_add_gen_force(mech_model *m, int coord, const sym_node *q) {
  mech_load l = {coord, mech_vec_zero(), q};
  MECH_PUSH(m, m->gen_forces, l);
}

int mech_add_speed(mech_model *m, const char *name) {
  const char *n = mech_strdup(m, name);
  return n ? MECH_PUSH(m, m->speeds, n) : -1;
}

const char *mech_speed_name(const mech_model *m, size_t i) { return m->speeds.v[i]; }

void mech_speed_pos(mech_model *m, int line, int col) {
  if (m->speeds_line) return;
  m->speeds_line = line;
  m->speeds_col = col;
}

int mech_declare_dependent_speed(mech_model *m, int speed, int line, int col) {
  mech_dep_decl d = {speed, line, col};
  return MECH_PUSH(m, m->dependent, d);
}

size_t mech_declared_dependent(const mech_model *m, size_t k, int *line, int *col) {
  if (k >= m->dependent.n) return (size_t)-1;
  if (line) *line = m->dependent.v[k].line;
  if (col) *col = m->dependent.v[k].col;
  return (size_t)m->dependent.v[k].speed;
}

size_t mech_ndeclared_dependent(const mech_model *m) { return m->dependent.n; }

int mech_add_kinematic(mech_model *m, const sym_node *row, int line, int col) {
  mech_row r = {.e = row, .line = line, .col = col};
  return MECH_PUSH(m, m->kinematics, r);
}

int mech_add_constraint(mech_model *m, const sym_node *row, int line, int col) {
  mech_row r = {.e = row, .line = line, .col = col};
  return MECH_PUSH(m, m->rows, r);
}

void mech_mark_quaternion_norm(mech_model *m, const sym_node *const e[4]) {
  if (!m->rows.n) return;
  for (int i = 0; i < 4; i++) m->rows.v[m->rows.n - 1].quat[i] = e[i];
}

int mech_model_oom(const mech_model *m) { return m->oom; }

void mech_remap_positions(mech_model *m, void (*f)(void *ud, int *line, int *col), void *ud) {
  for (size_t i = 0; i < m->rows.n; i++) f(ud, &m->rows.v[i].line, &m->rows.v[i].col);
  if (m->speeds_line) f(ud, &m->speeds_line, &m->speeds_col);
  for (size_t i = 0; i < m->kinematics.n; i++)
    f(ud, &m->kinematics.v[i].line, &m->kinematics.v[i].col);
  for (size_t i = 0; i < m->dependent.n; i++)
    f(ud, &m->dependent.v[i].line, &m->dependent.v[i].col);
  for (size_t i = 0; i < m->outputs.n; i++) f(ud, &m->outputs.v[i].line, &m->outputs.v[i].col);
  for (size_t i = 0; i < m->params.n; i++)
    if (m->params.v[i].line > 0) f(ud, &m->params.v[i].line, &m->params.v[i].col);
}

int mech_set_num_tree(mech_model *m, const mech_num_link *link, size_t n, size_t g) {
  mech_num_link *copy = n ? lg_arena_alloc(&m->arena, n * sizeof *copy) : NULL;
  if (n && !copy) return 0;
  if (n) memcpy(copy, link, n * sizeof *copy);
  m->num_tree.link = copy;
  m->num_tree.n = n;
  m->num_tree.g = g;
  return 1;
}

const mech_num_tree *mech_num_tree_of(const mech_model *m) {
  return m && m->num_tree.n ? &m->num_tree : NULL;
}
