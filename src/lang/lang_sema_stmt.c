/* lang_sema_stmt.c - one function per statement kind: declarations go to
 * the symbol table, everything else into the mechanics model. */
#include "lang_sema.h"

#include <stdio.h>
#include <string.h>

/* ---- declarations --------------------------------------------------------------------- */
static lg_status coordinates(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->nitems; i++) {
    const lang_item *it = &st->items[i];
    sema_entry *en = sema_declare(S, it->name, SEMA_COORD, it->line, it->col);
    if (!en) return LG_ERR_MODEL;
    en->index = mech_add_coordinate(S->m, it->name);
    if (en->index < 0) return LG_ERR_NOMEM;
    if (S->out->coord_line == 0) {
      S->out->coord_line = st->line;
      S->out->coord_col = st->col;
    }
  }
  return LG_OK;
}

/* A parameter's value may only use numbers and earlier parameters. */
static int constant_only(sema *S, const sym_node *v, const lang_expr *e, const char *what) {
  if (v->max_order == 0 && !sym_has(v, sym_time(S->c))) return 1;
  sema_fail(S, e->line, e->col, "%s may only use numbers and parameters declared "
                                "before it", what);
  return 0;
}

static lg_status parameters(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->nitems; i++) {
    const lang_item *it = &st->items[i];
    const sym_node *v = NULL;
    if (it->value && (!(v = sema_scalar(S, it->value, "a parameter value")) ||
                      !constant_only(S, v, it->value, "a parameter value")))
      return LG_ERR_MODEL;
    sema_entry *en = sema_declare(S, it->name, SEMA_PARAM, it->line, it->col);
    if (!en) return LG_ERR_MODEL;
    en->index = mech_add_parameter(S->m, it->name, v);
    if (en->index < 0) return LG_ERR_NOMEM;
    mech_param_set_pos(S->m, (size_t)en->index, it->line, it->col);
  }
  return LG_OK;
}

static lg_status inputs(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->nitems; i++) {
    const lang_item *it = &st->items[i];
    const sym_node *law = NULL;
    if (it->value) {
      if (!(law = sema_scalar(S, it->value, "an input law"))) return LG_ERR_MODEL;
      if (law->max_order) {
        sema_fail(S, it->value->line, it->value->col,
                  "an input law may only use t and parameters");
        return LG_ERR_MODEL;
      }
    }
    sema_entry *en = sema_declare(S, it->name, SEMA_INPUT, it->line, it->col);
    if (!en) return LG_ERR_MODEL;
    en->index = mech_add_input(S->m, it->name, law);
    if (en->index < 0) return LG_ERR_NOMEM;
  }
  return LG_OK;
}

static lg_status speeds(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->nitems; i++) {
    const lang_item *it = &st->items[i];
    sema_entry *en = sema_declare(S, it->name, SEMA_SPEED, it->line, it->col);
    if (!en) return LG_ERR_MODEL;
    en->index = mech_add_speed(S->m, it->name);
    if (en->index < 0) return LG_ERR_NOMEM;
  }
  return LG_OK;
}

/* ---- energies and intermediates ------------------------------------------------------- */
static lg_status energy(sema *S, const lang_stmt *st, char which) {
  const char *what = which == 'T' ? "the kinetic energy T" : which == 'V'
                     ? "the potential energy V" : which == 'D' ? "the dissipation D"
                     : "the Lagrangian L";
  if (which == 'L' && S->has_L)
    return sema_fail(S, st->line, st->col, "L is given twice (L = may appear once)"), LG_ERR_MODEL;
  if (which == 'L' && S->has_energy)
    return sema_fail(S, st->line, st->col, "L cannot be combined with %s (line %d)",
                     S->energy_what, S->energy_line), LG_ERR_MODEL;
  if ((which == 'T' || which == 'V') && S->has_L)
    return sema_fail(S, st->line, st->col, "%s cannot be combined with the Lagrangian L "
                     "(line %d)", what, S->L_line), LG_ERR_MODEL;
  const sym_node *e = sema_scalar(S, st->value, what);
  if (!e) return LG_ERR_MODEL;
  if (which == 'T') mech_add_T(S->m, e);
  else if (which == 'V') mech_add_V(S->m, e);
  else if (which == 'D') mech_add_D(S->m, e);
  else mech_set_L(S->m, e);
  if (which == 'L') {
    S->has_L = 1;
    S->L_line = st->line;
  } else if (which != 'D' && !S->has_energy) {
    S->has_energy = 1;
    S->energy_what = which == 'T' ? "T" : "V";
    S->energy_line = st->line;
  }
  return LG_OK;
}

/* Bodies, particles and gravity are energy terms too: no L with them. */
static int no_lagrangian(sema *S, const lang_stmt *st, const char *what) {
  if (S->has_L) {
    sema_fail(S, st->line, st->col, "%s cannot be combined with the Lagrangian L (line %d)",
              what, S->L_line);
    return 0;
  }
  if (!S->has_energy) {
    S->has_energy = 1;
    S->energy_what = what;
    S->energy_line = st->line;
  }
  return 1;
}

static lg_status assign(sema *S, const lang_stmt *st) {
  const char *n = st->name;
  if (!strcmp(n, "T") || !strcmp(n, "V") || !strcmp(n, "D") || !strcmp(n, "L"))
    return energy(S, st, n[0]);
  sema_val v = sema_expr(S, st->value);
  if (!v.ok) return LG_ERR_MODEL;
  if (v.kind != VAL_SCALAR && v.kind != VAL_VECTOR) {
    sema_fail(S, st->value->line, st->value->col, "an intermediate must be a scalar or a "
              "vector (declare points with 'point' and frames with 'frame')");
    return LG_ERR_MODEL;
  }
  sema_entry *en = sema_declare(S, n, v.kind == VAL_SCALAR ? SEMA_SCALAR : SEMA_VECTOR,
                                st->name_line, st->name_col);
  if (!en) return LG_ERR_MODEL;
  en->scalar = v.s;
  en->vec = v.v;
  return LG_OK;
}

/* ---- frames and points --------------------------------------------------------------- */
/* "zxy" -> {2, 0, 1}; consecutive axes must differ (the 12 sequences). */
static int parse_seq(const char *s, int seq[3]) {
  if (strlen(s) != 3) return 0;
  for (int i = 0; i < 3; i++) {
    if (s[i] < 'x' || s[i] > 'z') return 0;
    seq[i] = s[i] - 'x';
  }
  return seq[0] != seq[1] && seq[1] != seq[2];
}

static int orient_euler(sema *S, const lang_stmt *st, const lang_expr *call, int parent) {
  int seq[3];
  const lang_expr *sq = call->args[1];
  if (sq->kind != LANG_EXPR_NAME || !parse_seq(sq->text, seq)) {
    sema_fail(S, sq->line, sq->col, "expected a rotation sequence such as zxy or zxz");
    lg_diag_hint(S->diag, "three axes from x, y, z, no axis twice in a row");
    return -1;
  }
  const sym_node *a[3];
  for (int i = 0; i < 3; i++)
    if (!(a[i] = sema_scalar(S, call->args[2 + i], "an angle"))) return -1;
  mech_rot kind = strcmp(call->text, "body_fixed") == 0 ? MECH_ROT_BODY : MECH_ROT_SPACE;
  return mech_add_frame_euler(S->m, st->name, parent, kind, seq, a);
}

static int orient(sema *S, const lang_stmt *st) {
  const lang_expr *call = st->value;
  int rot = call->kind == LANG_EXPR_CALL && !strcmp(call->text, "rotate");
  int euler = call->kind == LANG_EXPR_CALL && (!strcmp(call->text, "body_fixed") ||
                                               !strcmp(call->text, "space_fixed"));
  if (!rot && !euler) {
    sema_fail(S, call->line, call->col, "a frame is defined by rotate(...), body_fixed(...) "
                                        "or space_fixed(...)");
    lg_diag_hint(S->diag, "for example: frame A = rotate(N, N.z, q1)");
    return -1;
  }
  if (call->nargs != (rot ? 3u : 5u)) {
    sema_fail(S, call->line, call->col, "%s() takes %d arguments, not %zu", call->text,
              rot ? 3 : 5, call->nargs);
    return -1;
  }
  int parent = sema_frame(S, call->args[0], "the first argument");
  if (parent < 0) return -1;
  if (euler) return orient_euler(S, st, call, parent);
  mech_vec axis;
  const sym_node *angle;
  if (!sema_vector(S, call->args[1], "the axis", &axis) ||
      !(angle = sema_scalar(S, call->args[2], "the angle")))
    return -1;
  if (mech_vec_is_zero(axis)) {
    sema_fail(S, call->args[1]->line, call->args[1]->col, "the rotation axis is zero");
    return -1;
  }
  int f = mech_add_frame_rotate(S->m, st->name, parent, axis, angle);
  if (f == -2)
    sema_fail(S, call->args[1]->line, call->args[1]->col,
              "the axis must be fixed in frame '%s' (its components there may not change "
              "with time)", call->args[0]->text);
  return f;
}

static lg_status frame(sema *S, const lang_stmt *st) {
  int f;
  if (S->nframes == 0) {
    if (st->value) {
      sema_fail(S, st->value->line, st->value->col, "the first frame is the inertial frame: "
                                                    "it cannot be rotated");
      return LG_ERR_MODEL;
    }
    f = mech_add_frame_inertial(S->m, st->name);
  } else if (!st->value) {
    sema_fail(S, st->line, st->col, "frame '%s' needs an orientation", st->name);
    lg_diag_hint(S->diag, "frame %s = rotate(N, N.z, q1)", st->name);
    return LG_ERR_MODEL;
  } else if ((f = orient(S, st)) < 0) {
    return LG_ERR_MODEL;
  }
  sema_entry *en = sema_declare(S, st->name, SEMA_FRAME, st->name_line, st->name_col);
  if (!en) return LG_ERR_MODEL;
  en->index = f;
  S->nframes++;
  return LG_OK;
}

static lg_status point(sema *S, const lang_stmt *st) {
  int from = 0;
  mech_vec pos = mech_vec_zero();
  if (S->npoints == 0 && st->value) {
    sema_fail(S, st->value->line, st->value->col, "the first point is the origin: it takes "
                                                  "no location");
    return LG_ERR_MODEL;
  }
  if (S->npoints > 0) {
    if (!st->value) {
      sema_fail(S, st->line, st->col, "point '%s' needs a location", st->name);
      lg_diag_hint(S->diag, "point %s = O + l*A.x", st->name);
      return LG_ERR_MODEL;
    }
    sema_val v = sema_expr(S, st->value);
    if (!v.ok) return LG_ERR_MODEL;
    if (v.kind != VAL_POINT) {
      sema_fail(S, st->value->line, st->value->col, "a point is located from another point "
                "(O + vector), not by %s", v.kind == VAL_VECTOR ? "a vector alone" : "this");
      lg_diag_hint(S->diag, "point %s = O + ...", st->name);
      return LG_ERR_MODEL;
    }
    pos = v.v;
  }
  int p = mech_add_point(S->m, st->name, from, mech_vec_zero());
  sema_entry *en = sema_declare(S, st->name, SEMA_POINT, st->name_line, st->name_col);
  if (!en || p < 0) return LG_ERR_MODEL;
  mech_point_set_pos(S->m, p, pos);
  en->index = p;
  S->npoints++;
  return LG_OK;
}

/* ---- masses --------------------------------------------------------------------------- */
static int named(sema *S, const char *name, int line, int col, sema_kind want,
                 const char *what) {
  sema_entry *en = sema_lookup(S, name);
  if (!en) {
    sema_unknown(S, name, line, col);
    return -1;
  }
  if (en->kind != want) {
    sema_fail(S, line, col, "'%s' is not a %s", name, what);
    return -1;
  }
  return en->index;
}

static lg_status particle(sema *S, const lang_stmt *st) {
  int p = named(S, st->name, st->name_line, st->name_col, SEMA_POINT, "point");
  const sym_node *mass;
  if (p < 0 || !(mass = sema_scalar(S, st->value, "a mass")) ||
      !no_lagrangian(S, st, "a particle"))
    return LG_ERR_MODEL;
  mech_add_particle(S->m, p, mass);
  return LG_OK;
}

static lg_status body(sema *S, const lang_stmt *st) {
  int f = named(S, st->name, st->name_line, st->name_col, SEMA_FRAME, "frame");
  if (f < 0) return LG_ERR_MODEL;
  sema_entry *fe = sema_lookup(S, st->name);
  if (fe->has_body) {
    sema_fail(S, st->name_line, st->name_col, "frame '%s' already carries a body", st->name);
    lg_diag_hint(S->diag, "a frame carries at most one body: add a frame for the second");
    return LG_ERR_MODEL;
  }
  int p = named(S, st->point, st->point_line, st->point_col, SEMA_POINT, "point");
  const sym_node *mass;
  if (p < 0 || !(mass = sema_scalar(S, st->value, "a mass"))) return LG_ERR_MODEL;
  if (st->ninertia != 3 && st->ninertia != 6) {
    sema_fail(S, st->line, st->col, "inertia takes 3 (Ixx, Iyy, Izz) or 6 (Ixx, Iyy, Izz, "
              "Ixy, Iyz, Izx) components, not %zu", st->ninertia);
    return LG_ERR_MODEL;
  }
  const sym_node *I[6];
  for (size_t i = 0; i < 6; i++) {
    I[i] = sym_int(S->c, 0);
    if (i < st->ninertia && !(I[i] = sema_scalar(S, st->inertia[i], "an inertia")))
      return LG_ERR_MODEL;
  }
  if (!no_lagrangian(S, st, "a body")) return LG_ERR_MODEL;
  mech_add_body(S->m, f, mass, p, I);
  fe->has_body = 1;
  return LG_OK;
}

/* ---- loads ------------------------------------------------------------------------------ */
static lg_status gravity(sema *S, const lang_stmt *st) {
  mech_vec g;
  if (S->has_gravity) {
    sema_fail(S, st->line, st->col, "gravity is given twice");
    return LG_ERR_MODEL;
  }
  if (!sema_vector(S, st->value, "gravity", &g) || !no_lagrangian(S, st, "gravity"))
    return LG_ERR_MODEL;
  mech_set_gravity(S->m, g);
  S->has_gravity = 1;
  return LG_OK;
}

static lg_status force(sema *S, const lang_stmt *st) {
  sema_entry *en = sema_lookup(S, st->name);
  if (!en) return sema_unknown(S, st->name, st->name_line, st->name_col), LG_ERR_MODEL;
  if (en->kind == SEMA_COORD) {
    const sym_node *q = sema_scalar(S, st->value, "a generalized force on a coordinate");
    if (!q) return LG_ERR_MODEL;
    mech_add_gen_force(S->m, en->index, q);
    return LG_OK;
  }
  if (en->kind != SEMA_POINT) {
    sema_fail(S, st->name_line, st->name_col, "a force acts on a point or a coordinate; "
              "'%s' is neither", st->name);
    return LG_ERR_MODEL;
  }
  mech_vec f;
  if (!sema_vector(S, st->value, "a force on a point", &f)) return LG_ERR_MODEL;
  mech_add_force(S->m, en->index, f);
  return LG_OK;
}

static lg_status torque(sema *S, const lang_stmt *st) {
  int fr = named(S, st->name, st->name_line, st->name_col, SEMA_FRAME, "frame");
  mech_vec t;
  if (fr < 0 || !sema_vector(S, st->value, "a torque", &t)) return LG_ERR_MODEL;
  mech_add_torque(S->m, fr, t);
  return LG_OK;
}

/* ---- constraints ------------------------------------------------------------------------- */
static int add_note(sema *S, int line, int col, const char *msg) {
  lang_model *o = S->out;
  char **nn = lg_realloc(o->notes, (o->nnotes + 1) * sizeof *nn);
  if (!nn) return 0;
  o->notes = nn;
  lg_str s;
  lg_str_init(&s);
  lg_str_printf(&s, "%s:%d:%d: note: %s", S->file, line, col, msg);
  o->notes[o->nnotes++] = lg_str_take(&s);
  return 1;
}

static lg_status constraint(sema *S, const lang_stmt *st) {
  sema_val a = sema_expr(S, st->value);
  if (!a.ok) return LG_ERR_MODEL;
  if (st->rhs) {
    sema_val b = sema_expr(S, st->rhs);
    if (!b.ok) return LG_ERR_MODEL;
    if (a.kind != b.kind || (a.kind != VAL_SCALAR && a.kind != VAL_VECTOR)) {
      sema_fail(S, st->rhs->line, st->rhs->col, "both sides of a constraint must be scalars "
                                                "or both vectors");
      return LG_ERR_MODEL;
    }
    if (a.kind == VAL_SCALAR) a.s = sym_sub(S->c, a.s, b.s);
    else a.v = mech_vec_sub(S->m, a.v, b.v);
  }
  if (a.kind == VAL_SCALAR) {
    if (sym_is_zero(sym_simplify(S->c, a.s))) {
      sema_fail(S, st->value->line, st->value->col, "this constraint is identically zero");
      return LG_ERR_MODEL;
    }
    mech_add_constraint(S->m, a.s, st->value->line, st->value->col);
    return LG_OK;
  }
  if (a.kind != VAL_VECTOR) {
    sema_fail(S, st->value->line, st->value->col, "a constraint is a scalar or a vector");
    return LG_ERR_MODEL;
  }
  /* one row per axis of the inertial frame, zero rows dropped */
  const sym_node *rows[3];
  if (!mech_vec_express(S->m, a.v, 0, rows)) return LG_ERR_NOMEM;
  for (int k = 0; k < 3; k++) {
    if (sym_is_zero(sym_simplify(S->c, rows[k]))) {
      char msg[128];
      snprintf(msg, sizeof msg, "the constraint's row along the inertial %c axis is "
                                "identically zero and was dropped", 'x' + k);
      add_note(S, st->value->line, st->value->col, msg);
      continue;
    }
    mech_add_constraint(S->m, rows[k], st->value->line, st->value->col);
  }
  return LG_OK;
}

/* Kinematical equations are typed here; Kane's method uses them. */
static lg_status kinematics(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->nitems; i++) {
    const lang_item *it = &st->items[i];
    const sym_node *l = sema_scalar(S, it->lhs, "a kinematical equation");
    const sym_node *r = l ? sema_scalar(S, it->value, "a kinematical equation") : NULL;
    if (!r) return LG_ERR_MODEL;
    mech_add_kinematic(S->m, sym_sub(S->c, l, r), it->line, it->col);
  }
  return LG_OK;
}

/* ---- initial state and time span ----------------------------------------------------------- */
static int param_default(void *ud, const sym_node *atom, double *out) {
  sema *S = ud;
  for (size_t i = 0; i < mech_nparams(S->m); i++) {
    if (mech_param(S->m, i) != atom) continue;
    const sym_node *v = mech_param_value(S->m, i);
    return v ? sym_eval(S->c, v, param_default, S, out, NULL) != LG_OK : 1;
  }
  return 1;
}

/* A number, or an expression of parameters with default values. */
static int constant_value(sema *S, const lang_expr *e, const char *what, double *out) {
  const sym_node *v = sema_scalar(S, e, what);
  if (!v) return 0;
  const sym_node *missing = NULL;
  if (v->max_order || sym_eval(S->c, v, param_default, S, out, &missing) != LG_OK) {
    sema_fail(S, e->line, e->col, "%s must be a number (parameters with values allowed)",
              what);
    return 0;
  }
  return 1;
}

static lg_status initial(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->nitems; i++) {
    const lang_item *it = &st->items[i];
    sema_entry *en = sema_lookup(S, it->name);
    if (!en) return sema_unknown(S, it->name, it->line, it->col), LG_ERR_MODEL;
    if (en->kind != SEMA_COORD || it->primes > 1) {
      sema_fail(S, it->line, it->col, "initial values are given for coordinates and their "
                "first derivatives (x = 0.1, x' = 0)");
      return LG_ERR_MODEL;
    }
    double v;
    if (!constant_value(S, it->value, "an initial value", &v)) return LG_ERR_MODEL;
    if (!lang_model_fit(S->out, (size_t)en->index + 1)) return LG_ERR_NOMEM;
    (it->primes ? S->out->qd0 : S->out->q0)[en->index] = v;
  }
  return LG_OK;
}

static lg_status simulate(sema *S, const lang_stmt *st) {
  lang_model *o = S->out;
  if (!constant_value(S, st->value, "the start time", &o->t0) ||
      !constant_value(S, st->rhs, "the end time", &o->tf) ||
      (st->step && !constant_value(S, st->step, "the output step", &o->dt)))
    return LG_ERR_MODEL;
  if (!(o->tf > o->t0) || !(o->dt > 0)) {
    sema_fail(S, st->line, st->col, "simulate needs start < end and a positive step");
    return LG_ERR_MODEL;
  }
  o->has_simulate = 1;
  return LG_OK;
}

lg_status sema_statement(sema *S, const lang_stmt *st) {
  switch (st->kind) {
  case LANG_ST_COORDINATES: return coordinates(S, st);
  case LANG_ST_PARAMETERS: return parameters(S, st);
  case LANG_ST_INPUTS: return inputs(S, st);
  case LANG_ST_ASSIGN: return assign(S, st);
  case LANG_ST_FRAME: return frame(S, st);
  case LANG_ST_POINT: return point(S, st);
  case LANG_ST_PARTICLE: return particle(S, st);
  case LANG_ST_BODY: return body(S, st);
  case LANG_ST_GRAVITY: return gravity(S, st);
  case LANG_ST_FORCE: return force(S, st);
  case LANG_ST_TORQUE: return torque(S, st);
  case LANG_ST_CONSTRAINT: return constraint(S, st);
  case LANG_ST_SPEEDS: return speeds(S, st);
  case LANG_ST_KINEMATICS: return kinematics(S, st);
  case LANG_ST_INITIAL: return initial(S, st);
  case LANG_ST_SIMULATE: return simulate(S, st);
  default: return LG_OK;
  }
}
