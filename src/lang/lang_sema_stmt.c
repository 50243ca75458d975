/* lang_sema_stmt.c - one function per statement kind: declarations go to
 * the symbol table, everything else into the mechanics model. Constraints,
 * kinematics and the initial state are in lang_sema_motion.c. */
#include "lang_sema.h"
#include "lang_urdf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- declarations --------------------------------------------------------------------- */
static lg_status coordinates(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->u.names.n; i++) {
    const lang_ident *id = &st->u.names.v[i];
    sema_entry *en = sema_declare(S, id->text, SEMA_COORD, id->line, id->col);
    if (!en) return LG_ERR_MODEL;
    if ((en->index = mech_add_coordinate(S->m, id->text)) < 0) return LG_ERR_NOMEM;
    if (S->out->coord_line == 0) {
      S->out->coord_line = st->line;
      S->out->coord_col = st->col;
    }
  }
  return LG_OK;
}

/* A parameter's value may only use numbers and earlier parameters. */
static int constant_only(sema *S, const sym_node *v, const lang_expr *e, const char *what) {
  int line, col;
  if (v->max_order == 0 && !sym_has(v, sym_time(S->c))) return 1;
  sema_expr_start(e, &line, &col);
  sema_fail(S, line, col, "%s may only use numbers and parameters declared before it", what);
  return 0;
}

/* A default value that can be computed now must be a finite number. */
static int finite_default(sema *S, const sym_node *v, const lang_expr *e, const char *name) {
  double x;
  int line, col;
  lg_status st = sym_eval(S->c, v, sema_param_default, S, &x, NULL);
  if (st == LG_ERR_NOMEM || S->oom) return sema_nomem(S), 0;
  if (st != LG_OK || isfinite(x)) return 1;
  sema_expr_start(e, &line, &col);
  sema_fail(S, line, col, "the value of '%s' is not a finite number (it evaluates to %s)", name,
            isnan(x) ? "NaN" : "infinity");
  lg_diag_hint(S->diag, "a square root or logarithm of a negative number, or a division by "
                        "zero?");
  return 0;
}

static lg_status parameters(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->u.decls.n; i++) {
    const lang_decl *d = &st->u.decls.v[i];
    const sym_node *v = NULL;
    if (d->value && (!(v = sema_scalar(S, d->value, "a parameter value")) ||
                     !constant_only(S, v, d->value, "a parameter value") ||
                     !finite_default(S, v, d->value, d->name.text)))
      return LG_ERR_MODEL;
    sema_entry *en = sema_declare(S, d->name.text, SEMA_PARAM, d->name.line, d->name.col);
    if (!en) return LG_ERR_MODEL;
    if ((en->index = mech_add_parameter(S->m, d->name.text, v)) < 0) return LG_ERR_NOMEM;
    mech_param_set_pos(S->m, (size_t)en->index, d->name.line, d->name.col);
  }
  return LG_OK;
}

static lg_status inputs(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->u.decls.n; i++) {
    const lang_decl *d = &st->u.decls.v[i];
    const sym_node *law = NULL;
    if (d->value) {
      if (!(law = sema_scalar(S, d->value, "an input law"))) return LG_ERR_MODEL;
      if (law->max_order) {
        int line, col;
        sema_expr_start(d->value, &line, &col);
        sema_fail(S, line, col, "an input law may only use t and parameters");
        return LG_ERR_MODEL;
      }
    }
    sema_entry *en = sema_declare(S, d->name.text, SEMA_INPUT, d->name.line, d->name.col);
    if (!en) return LG_ERR_MODEL;
    if ((en->index = mech_add_input(S->m, d->name.text, law)) < 0) return LG_ERR_NOMEM;
  }
  return LG_OK;
}

static lg_status speeds(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->u.names.n; i++) {
    const lang_ident *id = &st->u.names.v[i];
    sema_entry *en = sema_declare(S, id->text, SEMA_SPEED, id->line, id->col);
    if (!en) return LG_ERR_MODEL;
    if ((en->index = mech_add_speed(S->m, id->text)) < 0 ||
        !lang_model_fit_speeds(S->out, (size_t)en->index + 1))
      return LG_ERR_NOMEM;
    mech_speed_pos(S->m, id->line, id->col);
  }
  return LG_OK;
}

/* dependent u3, u4: speeds declared before, each named once. */
static lg_status dependent(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->u.names.n; i++) {
    const lang_ident *id = &st->u.names.v[i];
    sema_entry *en = sema_lookup(S, id->text);
    if (!en) return sema_unknown(S, id->text, id->line, id->col), LG_ERR_MODEL;
    if (en->kind != SEMA_SPEED) {
      sema_fail(S, id->line, id->col, "'%s' is not a speed: 'dependent' names speeds", id->text);
      lg_diag_hint(S->diag, "declare the speeds first: speeds u1 u2 u3, then dependent u3");
      return LG_ERR_MODEL;
    }
    for (size_t k = 0; k < mech_ndeclared_dependent(S->m); k++) {
      int line, col;
      if (mech_declared_dependent(S->m, k, &line, &col) != (size_t)en->index) continue;
      if (S->x) lang_expanded_position(S->x, &line, &col);
      sema_fail(S, id->line, id->col, "'%s' is already declared dependent at %d:%d", id->text,
                line, col);
      lg_diag_hint(S->diag, "name each dependent speed once");
      return LG_ERR_MODEL;
    }
    if (mech_declare_dependent_speed(S->m, en->index, id->line, id->col) < 0) return LG_ERR_NOMEM;
  }
  return LG_OK;
}

/* ---- energies and intermediates ------------------------------------------------------- */
static lg_status energy(sema *S, const lang_stmt *st, char which) {
  const char *what = S->rule_what;
  if (which == 'L' && S->has_L)
    return sema_fail(S, st->line, st->col, "L is given twice (L = may appear once)"), LG_ERR_MODEL;
  if (which == 'L' && S->has_energy)
    return sema_fail(S, st->line, st->col, "L cannot be combined with %s (line %d)",
                     S->energy_what, sema_line(S, S->energy_line, NULL)), LG_ERR_MODEL;
  if ((which == 'T' || which == 'V') && S->has_L)
    return sema_fail(S, st->line, st->col, "%s cannot be combined with the Lagrangian L "
                     "(line %d)", what, sema_line(S, S->L_line, NULL)), LG_ERR_MODEL;
  const sym_node *e = sema_scalar(S, st->u.named.value, what);
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
              what, sema_line(S, S->L_line, NULL));
    return 0;
  }
  if (!S->has_energy) {
    S->has_energy = 1;
    S->energy_what = what;
    S->energy_line = st->line;
  }
  return 1;
}

/* The energy a name assigns (T V D L), or 0. */
static char energy_name(const char *n) {
  return n[0] && !n[1] && strchr("TVDL", n[0]) ? n[0] : 0;
}

/* name = value: an energy, or a named intermediate (which may hold any
 * derivative up to q'': the places it is used are checked). */
static lg_status assign(sema *S, const lang_stmt *st) {
  const lang_named *a = &st->u.named;
  char which = energy_name(a->name.text);
  if (which) return energy(S, st, which);
  S->rule = SEMA_RULE_ANY;
  sema_val v = sema_expr(S, a->value);
  if (!v.ok) return LG_ERR_MODEL;
  if (v.kind != VAL_SCALAR && v.kind != VAL_VECTOR) {
    sema_fail(S, a->value->line, a->value->col, "an intermediate must be a scalar or a "
              "vector (declare points with 'point' and frames with 'frame')");
    return LG_ERR_MODEL;
  }
  sema_entry *en = sema_declare(S, a->name.text, v.kind == VAL_SCALAR ? SEMA_SCALAR : SEMA_VECTOR,
                                a->name.line, a->name.col);
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

/* An orientation angle: a function of the coordinates and t only. */
static const sym_node *angle(sema *S, const lang_expr *e, const char *what) {
  S->rule = SEMA_RULE_POSITION;
  S->rule_what = what;
  const sym_node *a = sema_scalar(S, e, what);
  S->rule = SEMA_RULE_NO_ACCEL;
  return a;
}

static int orient_euler(sema *S, const lang_stmt *st, const lang_expr *call, int parent) {
  int seq[3];
  const lang_expr *sq = call->u.call.args[1];
  if (sq->kind != LANG_EXPR_NAME || !parse_seq(sq->u.name, seq)) {
    sema_fail(S, sq->line, sq->col, "expected a rotation sequence such as zxy or zxz");
    lg_diag_hint(S->diag, "three axes from x, y, z, no axis twice in a row");
    return -1;
  }
  const sym_node *a[3];
  for (int i = 0; i < 3; i++)
    if (!(a[i] = angle(S, call->u.call.args[2 + i], "an Euler angle"))) return -1;
  mech_rot kind = call->u.call.fn == LANG_FN_BODY_FIXED ? MECH_ROT_BODY : MECH_ROT_SPACE;
  return mech_add_frame_euler(S->m, st->u.named.name.text, parent, kind, seq, a);
}

/* quaternion(A, e0, e1, e2, e3): its unit norm is kept for the constraints. */
static int orient_quaternion(sema *S, const lang_stmt *st, const lang_expr *call, int parent) {
  const sym_node *e[4];
  for (int i = 0; i < 4; i++)
    if (!(e[i] = angle(S, call->u.call.args[1 + i], "an Euler parameter"))) return -1;
  if (!lg_grow((void **)&S->norms, &S->norms_cap, S->nnorms + 1, sizeof *S->norms)) {
    sema_nomem(S);
    return -1;
  }
  const sym_node *row = sym_int(S->c, -1);
  for (int i = 0; i < 4; i++) row = sym_add(S->c, row, sym_mul(S->c, e[i], e[i]));
  S->norms[S->nnorms++] = (struct sema_norm){row, {e[0], e[1], e[2], e[3]}, call->line, call->col};
  return mech_add_frame_quaternion(S->m, st->u.named.name.text, parent, e);
}

static int orient(sema *S, const lang_stmt *st) {
  const lang_expr *call = st->u.named.value;
  lang_func fn = call->kind == LANG_EXPR_CALL ? call->u.call.fn : LANG_FN_COUNT;
  if (fn != LANG_FN_ROTATE && fn != LANG_FN_BODY_FIXED && fn != LANG_FN_SPACE_FIXED &&
      fn != LANG_FN_QUATERNION) {
    int line, col;
    sema_expr_start(call, &line, &col);
    sema_fail(S, line, col, "a frame is defined by rotate(...), body_fixed(...), "
                            "space_fixed(...) or quaternion(...)");
    lg_diag_hint(S->diag, "for example: frame A = rotate(N, N.z, q1)");
    return -1;
  }
  const lang_expr *const *args = (const lang_expr *const *)call->u.call.args;
  int parent = sema_frame(S, args[0], "the first argument");
  if (parent < 0) return -1;
  if (fn == LANG_FN_QUATERNION) return orient_quaternion(S, st, call, parent);
  if (fn != LANG_FN_ROTATE) return orient_euler(S, st, call, parent);
  mech_vec axis;
  const sym_node *a;
  int ok;
  S->rule = SEMA_RULE_POSITION;
  S->rule_what = "the rotation axis";
  ok = sema_vector(S, args[1], "the axis", &axis);
  S->rule = SEMA_RULE_NO_ACCEL;
  if (!ok || !(a = angle(S, args[2], "the rotation angle"))) return -1;
  if (mech_vec_is_zero(axis)) {
    sema_fail(S, args[1]->line, args[1]->col, "the rotation axis is zero");
    return -1;
  }
  int f = mech_add_frame_rotate(S->m, st->u.named.name.text, parent, axis, a);
  if (f == -2) {
    int line, col;
    sema_expr_start(args[1], &line, &col);
    sema_fail(S, line, col, "the axis must be fixed in frame '%s' (its components there may "
              "not change with time)", args[0]->kind == LANG_EXPR_NAME ? args[0]->u.name : "?");
  }
  return f;
}

static lg_status frame(sema *S, const lang_stmt *st) {
  const lang_named *d = &st->u.named;
  int f;
  if (S->nframes == 0) {
    if (d->value) {
      sema_fail(S, d->value->line, d->value->col, "the first frame is the inertial frame: "
                                                  "it cannot be rotated");
      return LG_ERR_MODEL;
    }
    f = mech_add_frame_inertial(S->m, d->name.text);
  } else if (!d->value) {
    sema_fail(S, st->line, st->col, "frame '%s' needs an orientation", d->name.text);
    lg_diag_hint(S->diag, "frame %s = rotate(N, N.z, q1)", d->name.text);
    return LG_ERR_MODEL;
  } else if ((f = orient(S, st)) < 0) {
    return S->diag->status != LG_OK ? LG_ERR_MODEL : LG_ERR_NOMEM;
  }
  if (f < 0) return LG_ERR_NOMEM;
  sema_entry *en = sema_declare(S, d->name.text, SEMA_FRAME, d->name.line, d->name.col);
  if (!en) return LG_ERR_MODEL;
  en->index = f;
  S->nframes++;
  return LG_OK;
}

/* The location of a point other than the origin: a point plus vectors,
 * depending on the coordinates and t only. */
static int location(sema *S, const lang_stmt *st, mech_vec *pos) {
  const lang_named *d = &st->u.named;
  char what[96];
  if (!d->value) {
    sema_fail(S, st->line, st->col, "point '%s' needs a location", d->name.text);
    lg_diag_hint(S->diag, "point %s = O + l*A.x", d->name.text);
    return 0;
  }
  snprintf(what, sizeof what, "the location of point '%.60s'", d->name.text);
  S->rule = SEMA_RULE_POSITION;
  S->rule_what = what;
  sema_val v = sema_expr(S, d->value);
  S->rule_what = NULL;
  if (!v.ok) return 0;
  if (v.kind != VAL_POINT) {
    sema_fail(S, d->value->line, d->value->col, "a point is located from another point "
              "(O + vector), not by %s", v.kind == VAL_VECTOR ? "a vector alone" : "this");
    lg_diag_hint(S->diag, "point %s = O + ...", d->name.text);
    return 0;
  }
  *pos = v.v;
  return 1;
}

/* The point a location starts from, as written (`C + l*A.y` -> C), for
 * the animation's segments; -1 when it does not start with a point name.
 * The descent follows first operands of sums only: bounded by the tree's
 * depth limit. */
static int located_from(sema *S, const lang_expr *e) {
  while (e && e->kind == LANG_EXPR_SUM) e = e->u.chain.terms[0].e;
  if (!e || e->kind != LANG_EXPR_NAME) return -1;
  sema_entry *en = sema_lookup(S, e->u.name);
  return en && en->kind == SEMA_POINT ? en->index : -1;
}

static lg_status point(sema *S, const lang_stmt *st) {
  const lang_named *d = &st->u.named;
  mech_vec pos = mech_vec_zero();
  if (S->npoints == 0 && d->value) {
    sema_fail(S, d->value->line, d->value->col, "the first point is the origin: it takes "
                                                "no location");
    return LG_ERR_MODEL;
  }
  if (S->npoints > 0 && !location(S, st, &pos)) return LG_ERR_MODEL;
  int p = mech_add_point(S->m, d->name.text, 0, mech_vec_zero());
  if (p < 0) return LG_ERR_NOMEM;
  sema_entry *en = sema_declare(S, d->name.text, SEMA_POINT, d->name.line, d->name.col);
  if (!en) return LG_ERR_MODEL;
  mech_point_set_pos(S->m, p, pos);
  mech_point_set_from(S->m, (size_t)p, S->npoints > 0 ? located_from(S, d->value) : -1);
  en->index = p;
  S->npoints++;
  return LG_OK;
}

/* ---- masses --------------------------------------------------------------------------- */
static int named(sema *S, const lang_ident *id, sema_kind want, const char *what) {
  sema_entry *en = sema_lookup(S, id->text);
  if (!en) {
    sema_unknown(S, id->text, id->line, id->col);
    return -1;
  }
  if (en->kind != want) {
    sema_fail(S, id->line, id->col, "'%s' is not a %s", id->text, what);
    return -1;
  }
  return en->index;
}

static lg_status particle(sema *S, const lang_stmt *st) {
  int p = named(S, &st->u.particle.point, SEMA_POINT, "point");
  const sym_node *mass;
  if (p < 0 || !(mass = sema_scalar(S, st->u.particle.mass, "a mass")) ||
      !no_lagrangian(S, st, "a particle"))
    return LG_ERR_MODEL;
  return mech_add_particle(S->m, p, mass) < 0 ? LG_ERR_NOMEM : LG_OK;
}

static lg_status body(sema *S, const lang_stmt *st) {
  const lang_ident *fid = &st->u.body.frame;
  int f = named(S, fid, SEMA_FRAME, "frame");
  if (f < 0) return LG_ERR_MODEL;
  sema_entry *fe = sema_lookup(S, fid->text);
  if (fe->has_body) {
    sema_fail(S, fid->line, fid->col, "frame '%s' already carries a body", fid->text);
    lg_diag_hint(S->diag, "a frame carries at most one body: add a frame for the second");
    return LG_ERR_MODEL;
  }
  int p = named(S, &st->u.body.at, SEMA_POINT, "point");
  const sym_node *mass;
  if (p < 0 || !(mass = sema_scalar(S, st->u.body.mass, "a mass"))) return LG_ERR_MODEL;
  const sym_node *I[6];
  for (int i = 0; i < 6; i++) {
    I[i] = sym_int(S->c, 0);
    if (i < st->u.body.ninertia && !(I[i] = sema_scalar(S, st->u.body.inertia[i], "an inertia")))
      return LG_ERR_MODEL;
  }
  if (!no_lagrangian(S, st, "a body")) return LG_ERR_MODEL;
  if (mech_add_body(S->m, f, mass, p, I) < 0) return LG_ERR_NOMEM;
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
  if (!sema_vector(S, st->u.gravity, "gravity", &g) || !no_lagrangian(S, st, "gravity"))
    return LG_ERR_MODEL;
  mech_set_gravity(S->m, g);
  S->has_gravity = 1;
  return LG_OK;
}

static lg_status force(sema *S, const lang_stmt *st) {
  const lang_ident *id = &st->u.load.target;
  sema_entry *en = sema_lookup(S, id->text);
  if (!en) return sema_unknown(S, id->text, id->line, id->col), LG_ERR_MODEL;
  if (en->kind == SEMA_COORD) {
    S->rule_what = "the generalized force";
    const sym_node *q = sema_scalar(S, st->u.load.value, "a generalized force on a coordinate");
    if (!q) return LG_ERR_MODEL;
    mech_add_gen_force(S->m, en->index, q);
    return LG_OK;
  }
  if (en->kind != SEMA_POINT) {
    sema_fail(S, id->line, id->col, "a force acts on a point or a coordinate; '%s' is neither",
              id->text);
    return LG_ERR_MODEL;
  }
  mech_vec f;
  if (!sema_vector(S, st->u.load.value, "a force on a point", &f)) return LG_ERR_MODEL;
  mech_add_force(S->m, en->index, f);
  return LG_OK;
}

static lg_status torque(sema *S, const lang_stmt *st) {
  int fr = named(S, &st->u.load.target, SEMA_FRAME, "frame");
  mech_vec t;
  if (fr < 0 || !sema_vector(S, st->u.load.value, "a torque", &t)) return LG_ERR_MODEL;
  mech_add_torque(S->m, fr, t);
  return LG_OK;
}

/* ---- force elements: spring and damper ------------------------------------------------ */
/* The element's first name, and its second when written: two distinct
 * points, or one coordinate. *pq gets the scalar the element acts on:
 * |PQ| or the coordinate. */
static int element_target(sema *S, const lang_stmt *st, const char *what, const sym_node **x) {
  const lang_ident *a = &st->u.element.a, *b = &st->u.element.b;
  sema_entry *ea = sema_lookup(S, a->text), *eb;
  if (!ea) return sema_unknown(S, a->text, a->line, a->col), 0;
  if (!b->text) {
    if (ea->kind == SEMA_COORD) {
      *x = mech_coord(S->m, (size_t)ea->index, 0);
      return 1;
    }
    sema_fail(S, a->line, a->col, "a %s acts on a coordinate or between two points; '%s' is "
              "not a coordinate", what, a->text);
    if (ea->kind == SEMA_POINT)
      lg_diag_hint(S->diag, "name the second point: %s %s Q: ...", what, a->text);
    return 0;
  }
  if (!(eb = sema_lookup(S, b->text))) return sema_unknown(S, b->text, b->line, b->col), 0;
  if (ea->kind != SEMA_POINT || eb->kind != SEMA_POINT) {
    const lang_ident *bad = ea->kind != SEMA_POINT ? a : b;
    sema_fail(S, bad->line, bad->col, "a %s between two names joins points; '%s' is not a "
              "point", what, bad->text);
    if (ea->kind == SEMA_COORD) lg_diag_hint(S->diag, "on a coordinate: %s %s: ...", what, a->text);
    return 0;
  }
  if (ea->index == eb->index) {
    sema_fail(S, b->line, b->col, "a %s joins two different points, not '%s' to itself", what,
              b->text);
    return 0;
  }
  *x = mech_vec_norm(S->m, mech_vec_sub(S->m, mech_point_pos(S->m, eb->index),
                                        mech_point_pos(S->m, ea->index)));
  return *x != NULL || (sema_nomem(S), 0);
}

/* spring: V += k/2 (x - x0)^2, x = |PQ| or q */
static lg_status spring(sema *S, const lang_stmt *st) {
  sym_ctx *c = S->c;
  const sym_node *x, *k, *x0;
  S->rule_what = "a spring's stiffness";
  if (!element_target(S, st, "spring", &x) ||
      !(k = sema_scalar(S, st->u.element.k, "a spring's stiffness")))
    return LG_ERR_MODEL;
  S->rule_what = st->u.element.b.text ? "a spring's rest length" : "a spring's rest value";
  if (!(x0 = sema_scalar(S, st->u.element.x0, S->rule_what)) || !no_lagrangian(S, st, "a spring"))
    return LG_ERR_MODEL;
  const sym_node *v = sym_mul(c, sym_div(c, k, sym_int(c, 2)),
                              sym_pow(c, sym_sub(c, x, x0), sym_int(c, 2)));
  if (!v) return sema_nomem(S), LG_ERR_NOMEM;
  mech_add_V(S->m, v);
  return LG_OK;
}

/* damper: D += c/2 (dx/dt)^2, x = |PQ| or q */
static lg_status damper(sema *S, const lang_stmt *st) {
  sym_ctx *c = S->c;
  const sym_node *x, *k;
  S->rule_what = "a damper's coefficient";
  if (!element_target(S, st, "damper", &x) ||
      !(k = sema_scalar(S, st->u.element.k, "a damper's coefficient")))
    return LG_ERR_MODEL;
  const sym_node *d = sym_mul(c, sym_div(c, k, sym_int(c, 2)),
                              sym_pow(c, sym_dt(c, x), sym_int(c, 2)));
  if (!d) return sema_nomem(S), LG_ERR_NOMEM;
  mech_add_D(S->m, d);
  return LG_OK;
}

/* ---- draw (the animation) -------------------------------------------------------------- */
/* A shape: its points, frame, axis and sizes (lang_parse.c: draw_shape). */
static lg_status draw_shape(sema *S, const lang_stmt *st) {
  static const char *const names[] = {"sphere", "capsule", "cylinder", "disk", "box"};
  static const lang_draw_kind kinds[] = {LANG_DRAW_SPHERE, LANG_DRAW_CAPSULE, LANG_DRAW_CYLINDER,
                                         LANG_DRAW_DISK, LANG_DRAW_BOX};
  const char *what = st->u.draw.what.text;
  lang_draw d = {LANG_DRAW_SPHERE, -1, -1, st->line, st->col, -1, 0, {NULL}, {NULL}};
  for (int i = 0; i < 5; i++)
    if (!strcmp(what, names[i])) d.kind = kinds[i];
  const lang_ident *v = st->u.draw.v, *fr = &st->u.draw.frame, *ax = &st->u.draw.axis;
  int two = st->u.draw.n == 2;
  if ((d.p = named(S, &v[0], SEMA_POINT, "point")) < 0) return LG_ERR_MODEL;
  if (two && (d.q = named(S, &v[1], SEMA_POINT, "point")) < 0) return LG_ERR_MODEL;
  if (fr->text && (d.frame = named(S, fr, SEMA_FRAME, "frame")) < 0) return LG_ERR_MODEL;
  const char *need = NULL;
  int between = d.kind == LANG_DRAW_CAPSULE || (d.kind == LANG_DRAW_CYLINDER && two);
  if (d.kind == LANG_DRAW_CAPSULE && !two) need = "two points: draw capsule P Q radius r";
  else if (two && !between) need = "one point (a capsule or a cylinder joins two)";
  else if (between && (fr->text || ax->text || st->u.draw.at[0] || st->u.draw.val[1]))
    need = "its two points and a radius only: draw capsule P Q radius r";
  else if ((d.kind == LANG_DRAW_DISK || (d.kind == LANG_DRAW_CYLINDER && !two)) &&
           (!fr->text || !ax->text))
    need = "a frame and an axis: draw disk P in B axis y radius r";
  else if (d.kind == LANG_DRAW_BOX && (!fr->text || !st->u.draw.val[2]))
    need = "a frame and its size: draw box P in B size a, b, c";
  else if (d.kind != LANG_DRAW_BOX && (!st->u.draw.val[0] || st->u.draw.val[2]))
    need = "a radius (and no size): radius r";
  else if (d.kind == LANG_DRAW_CYLINDER && !two && !st->u.draw.val[1])
    need = "a length: draw cylinder P in B axis z radius r length l";
  else if (st->u.draw.at[0] && !fr->text)
    need = "a frame for its offset: in B at x, y, z";
  else if (d.kind == LANG_DRAW_SPHERE && st->u.draw.val[1])
    need = "a radius only";
  if (need) {
    sema_fail(S, st->u.draw.what.line, st->u.draw.what.col, "'draw %s' needs %s", what, need);
    return LG_ERR_MODEL;
  }
  if (ax->text) {
    d.axis = !strcmp(ax->text, "x") ? 0 : !strcmp(ax->text, "y") ? 1 : !strcmp(ax->text, "z") ? 2
                                                                                            : -1;
    if (d.axis < 0) {
      sema_fail(S, ax->line, ax->col, "the axis of a shape is x, y or z (of its frame), not "
                "'%s'", ax->text);
      return LG_ERR_MODEL;
    }
  }
  for (int k = 0; k < 3; k++) {
    if (st->u.draw.val[k] && !(d.val[k] = sema_scalar(S, st->u.draw.val[k], "a shape's size")))
      return LG_ERR_MODEL;
    if (st->u.draw.at[k] && !(d.at[k] = sema_scalar(S, st->u.draw.at[k], "a shape's offset")))
      return LG_ERR_MODEL;
  }
  if (!LG_PUSH(S->out->draws, S->out->ndraws, S->out->draws_cap, d)) return LG_ERR_NOMEM;
  return LG_OK;
}

static lg_status draw(sema *S, const lang_stmt *st) {
  lang_model *lm = S->out;
  int segment = !strcmp(st->u.draw.what.text, "segment");
  if (!segment && strcmp(st->u.draw.what.text, "trail")) return draw_shape(S, st);
  int pts[2] = {-1, -1};
  for (size_t i = 0; i < st->u.draw.n; i++) {
    const lang_ident *id = &st->u.draw.v[i];
    int p = named(S, id, SEMA_POINT, "point");
    if (p < 0 && !S->diag->hint[0]) lg_diag_hint(S->diag, "draw names points: draw trail P");
    if (p < 0) return LG_ERR_MODEL;
    if (segment && i < 2) pts[i] = p;
    if (segment && i < 1) continue;
    lang_draw d = {segment ? LANG_DRAW_SEGMENT : LANG_DRAW_TRAIL, segment ? pts[0] : p,
                   segment ? pts[1] : -1, st->line, st->col, -1, 0, {NULL}, {NULL}};
    if (!LG_PUSH(lm->draws, lm->ndraws, lm->draws_cap, d)) return LG_ERR_NOMEM;
  }
  return LG_OK;
}

/* ---- dispatch --------------------------------------------------------------------------- */
/* What each statement's expressions are, for messages about them. */
static const char *what_of(const lang_stmt *st) {
  static const char *const what[LANG_STMT_COUNT] = {
      [LANG_STMT_PARAMETERS] = "a parameter value", [LANG_STMT_INPUTS] = "an input law",
      [LANG_STMT_FRAME] = "a frame's axis",        [LANG_STMT_POINT] = "a point's location",
      [LANG_STMT_PARTICLE] = "a mass",             [LANG_STMT_BODY] = "a body's mass or inertia",
      [LANG_STMT_GRAVITY] = "gravity",             [LANG_STMT_FORCE] = "a force",
      [LANG_STMT_TORQUE] = "a torque",             [LANG_STMT_CONSTRAINT] = "the constraint",
      [LANG_STMT_KINEMATICS] = "a kinematical equation",
      [LANG_STMT_INITIAL] = "an initial value",    [LANG_STMT_SIMULATE] = "the time span"};
  if (st->kind == LANG_STMT_ASSIGN) {
    switch (energy_name(st->u.named.name.text)) {
    case 'T': return "the kinetic energy T";
    case 'V': return "the potential energy V";
    case 'D': return "the dissipation function D";
    case 'L': return "the Lagrangian L";
    default: return NULL;
    }
  }
  return (unsigned)st->kind < LANG_STMT_COUNT ? what[st->kind] : NULL;
}

lg_status sema_statement(sema *S, const lang_stmt *st) {
  S->rule = SEMA_RULE_NO_ACCEL;
  S->rule_what = what_of(st);
  switch (st->kind) {
  case LANG_STMT_COORDINATES: return coordinates(S, st);
  case LANG_STMT_PARAMETERS: return parameters(S, st);
  case LANG_STMT_INPUTS: return inputs(S, st);
  case LANG_STMT_ASSIGN: return assign(S, st);
  case LANG_STMT_FRAME: return frame(S, st);
  case LANG_STMT_POINT: return point(S, st);
  case LANG_STMT_PARTICLE: return particle(S, st);
  case LANG_STMT_BODY: return body(S, st);
  case LANG_STMT_GRAVITY: return gravity(S, st);
  case LANG_STMT_FORCE: return force(S, st);
  case LANG_STMT_TORQUE: return torque(S, st);
  case LANG_STMT_CONSTRAINT: return sema_constraint(S, st);
  case LANG_STMT_SPEEDS: return speeds(S, st);
  case LANG_STMT_DEPENDENT: return dependent(S, st);
  case LANG_STMT_KINEMATICS: return sema_kinematics(S, st);
  case LANG_STMT_INITIAL: return sema_initial(S, st);
  case LANG_STMT_SIMULATE: return sema_simulate(S, st);
  case LANG_STMT_DRAW: return draw(S, st);
  case LANG_STMT_SPRING: return spring(S, st);
  case LANG_STMT_DAMPER: return damper(S, st);
  case LANG_STMT_OUTPUT: return sema_output(S, st);
  case LANG_STMT_WHEN: return sema_when(S, st);
  case LANG_STMT_FRICTION: return sema_friction(S, st);
  case LANG_STMT_CONTACT: return sema_contact(S, st);
  default: return LG_OK;
  }
}
