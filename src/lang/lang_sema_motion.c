/* lang_sema_motion.c - the statements about motion itself: constraints,
 * kinematical equations, the initial state and the time span. */
#include "lang_sema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static sema_val scalar_of(const sym_node *s) {
  return (sema_val){VAL_SCALAR, s, {0, NULL}, 0, s != NULL};
}

/* ---- constraints ------------------------------------------------------------------------- */
static int add_note(sema *S, int line, int col, const char *msg) {
  lang_model *o = S->out;
  if (!lg_grow((void **)&o->notes, &o->notes_cap, o->nnotes + 1, sizeof *o->notes)) return 0;
  lg_str s;
  lg_str_init(&s);
  lg_str_printf(&s, "%s:%d:%d: note: %s", S->file, line, col, msg);
  if (s.oom) {
    lg_str_free(&s);
    return 0;
  }
  o->notes[o->nnotes++] = lg_str_take(&s);
  return 1;
}

/* One scalar row of a constraint (axis 'x'..'z' of a vector constraint,
 * or 0): identically zero rows are an error (dropped with a note from a
 * vector), and a row must hold a coordinate or a speed. */
static lg_status add_row(sema *S, const sym_node *row, int line, int col, char axis) {
  const sym_node *s = row ? sym_simplify(S->c, row) : NULL;
  int order;
  char along[48] = "";
  if (!s) return LG_ERR_NOMEM;
  if (axis) snprintf(along, sizeof along, "'s row along the inertial %c axis", axis);
  if (sym_is_zero(s) && axis) {
    char msg[128];
    snprintf(msg, sizeof msg, "the constraint%s is identically zero and was dropped", along);
    return add_note(S, line, col, msg) ? LG_OK : LG_ERR_NOMEM;
  }
  if (sym_is_zero(s)) {
    sema_fail(S, line, col, "this constraint is identically zero");
    lg_diag_hint(S->diag, "it holds whatever the motion: remove it");
    return LG_ERR_MODEL;
  }
  if (!sema_motion_atom(S, scalar_of(s), 0, &order)) {
    sema_fail(S, line, col, "the constraint%s constrains no coordinate: it is %s", along,
              s->max_order || sym_has(s, sym_time(S->c)) ? "a function of t only" : "a constant");
    lg_diag_hint(S->diag, "a constraint relates the coordinates or their velocities: "
                          "constraint x^2 + y^2 = l^2");
    return LG_ERR_MODEL;
  }
  return mech_add_constraint(S->m, row, line, col) < 0 ? LG_ERR_NOMEM : LG_OK;
}

/* e0^2 + e1^2 + e2^2 + e3^2 - 1 of each quaternion frame, in declaration
 * order, after the model's own rows (MODEL-FORMAT 1.1). A quaternion of t
 * alone constrains nothing: its norm is the model's business. */
lg_status sema_quaternion_norms(sema *S) {
  for (size_t i = 0; i < S->nnorms; i++) {
    const sym_node *row = S->norms[i].row;
    if (!row->max_order) continue;
    size_t before = mech_nrows(S->m);
    lg_status st = add_row(S, row, S->norms[i].line, S->norms[i].col, 0);
    if (st != LG_OK) return st;
    if (mech_nrows(S->m) > before) mech_mark_quaternion_norm(S->m, S->norms[i].e);
  }
  return LG_OK;
}

/* constraint lhs [= rhs]: located at the start of lhs. */
lg_status sema_constraint(sema *S, const lang_stmt *st) {
  const lang_equation *c = &st->u.constraint;
  int line, col;
  sema_expr_start(c->lhs, &line, &col);
  sema_val a = sema_expr(S, c->lhs);
  if (!a.ok) return LG_ERR_MODEL;
  if (c->rhs) {
    sema_val b = sema_expr(S, c->rhs);
    if (!b.ok) return LG_ERR_MODEL;
    if (a.kind != b.kind || (a.kind != VAL_SCALAR && a.kind != VAL_VECTOR)) {
      int rl, rc;
      sema_expr_start(c->rhs, &rl, &rc);
      sema_fail(S, rl, rc, "both sides of a constraint must be scalars or both vectors");
      return LG_ERR_MODEL;
    }
    if (a.kind == VAL_SCALAR) a.s = sym_sub(S->c, a.s, b.s);
    else a.v = mech_vec_sub(S->m, a.v, b.v);
  }
  if (a.kind == VAL_SCALAR) return add_row(S, a.s, line, col, 0);
  if (a.kind != VAL_VECTOR) {
    sema_fail(S, line, col, "a constraint is a scalar or a vector, not %s",
              a.kind == VAL_POINT ? "a point" : "a frame");
    return LG_ERR_MODEL;
  }
  /* one row per axis of the inertial frame, zero rows dropped */
  const sym_node *rows[3];
  if (!mech_vec_express(S->m, a.v, 0, rows)) return LG_ERR_NOMEM;
  for (int k = 0; k < 3; k++) {
    lg_status s = add_row(S, rows[k], line, col, (char)('x' + k));
    if (s != LG_OK) return s;
  }
  return LG_OK;
}

/* ---- kinematics -------------------------------------------------------------------------- */
/* The coordinate whose q' the row holds other than linearly, or NULL. */
static const char *nonlinear_in_qd(sema *S, const sym_node *row) {
  size_t n = mech_ncoords(S->m);
  for (size_t i = 0; i < n; i++) {
    const sym_node *qi = mech_coord(S->m, i, 1), *d;
    if (!qi || !sym_has(row, qi) || !(d = sym_diff(S->c, row, qi))) continue;
    for (size_t j = 0; j < n; j++) {
      const sym_node *qj = mech_coord(S->m, j, 1), *d2;
      if (!qj || !sym_has(d, qj) || !(d2 = sym_diff(S->c, d, qj))) continue;
      if (!sym_is_zero(sym_simplify(S->c, d2))) return mech_coord(S->m, i, 0)->v.name;
    }
  }
  return NULL;
}

/* kinematics q1' = u1, ...: rows lhs - rhs, linear in the q' (Kane's
 * method solves them for the q'). */
lg_status sema_kinematics(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->u.kinematics.n; i++) {
    const lang_equation *q = &st->u.kinematics.v[i];
    const sym_node *l = sema_scalar(S, q->lhs, "a kinematical equation");
    const sym_node *r = l ? sema_scalar(S, q->rhs, "a kinematical equation") : NULL;
    const sym_node *row;
    const char *bad;
    int line, col;
    if (!r) return LG_ERR_MODEL;
    if (!(row = sym_sub(S->c, l, r))) return LG_ERR_NOMEM;
    sema_expr_start(q->lhs, &line, &col);
    if ((bad = nonlinear_in_qd(S, row))) {
      sema_fail(S, line, col, "the kinematical equation is not linear in the q' (it holds "
                "%s' nonlinearly)", bad);
      lg_diag_hint(S->diag, "kinematical equations are linear in the q': q1' = u1, or "
                            "a(q)*q1' + b(q)*q2' = u1");
      return LG_ERR_MODEL;
    }
    if (mech_add_kinematic(S->m, row, line, col) < 0) return LG_ERR_NOMEM;
  }
  return LG_OK;
}

/* ---- initial state and time span ----------------------------------------------------------- */
int sema_param_default(void *ud, const sym_node *atom, double *out) {
  sema *S = ud;
  for (size_t i = 0; i < mech_nparams(S->m); i++) {
    if (mech_param(S->m, i) != atom) continue;
    const sym_node *v = mech_param_value(S->m, i);
    lg_status st = v ? sym_eval(S->c, v, sema_param_default, S, out, NULL) : LG_ERR_MODEL;
    if (st == LG_ERR_NOMEM) S->oom = 1;
    return st != LG_OK;
  }
  return 1;
}

/* A finite number, or an expression of parameters with default values. */
static int constant_value(sema *S, const lang_expr *e, const char *what, double *out) {
  const sym_node *v = sema_scalar(S, e, what);
  const sym_node *missing = NULL;
  int line, col;
  lg_status st;
  if (!v) return 0;
  sema_expr_start(e, &line, &col);
  st = v->max_order ? LG_ERR_MODEL : sym_eval(S->c, v, sema_param_default, S, out, &missing);
  if (st == LG_ERR_NOMEM || S->oom) return sema_nomem(S), 0;
  if (st != LG_OK) {
    sema_fail(S, line, col, "%s must be a number (parameters with values allowed)", what);
    return 0;
  }
  if (!isfinite(*out)) {
    sema_fail(S, line, col, "%s is not a finite number (it evaluates to %s)", what,
              isnan(*out) ? "NaN" : "infinity");
    lg_diag_hint(S->diag, "a square root or logarithm of a negative number, or a division by "
                          "zero?");
    return 0;
  }
  return 1;
}

/* initial x = 0.1, x' = 0, u1 = 0.3: coordinates, their first derivatives
 * and speeds. */
lg_status sema_initial(sema *S, const lang_stmt *st) {
  for (size_t i = 0; i < st->u.initial.n; i++) {
    const lang_init *it = &st->u.initial.v[i];
    const lang_ident *id = &it->name;
    sema_entry *en = sema_lookup(S, id->text);
    double v;
    if (!en) return sema_unknown(S, id->text, id->line, id->col), LG_ERR_MODEL;
    if (!((en->kind == SEMA_COORD && it->primes <= 1) || (en->kind == SEMA_SPEED && !it->primes))) {
      sema_fail(S, id->line, id->col, "initial values are given for coordinates, their first "
                "derivatives and speeds");
      lg_diag_hint(S->diag, "initial x = 0.1, x' = 0, u1 = 0.3");
      return LG_ERR_MODEL;
    }
    if (!constant_value(S, it->value, "an initial value", &v)) return LG_ERR_MODEL;
    if (en->kind == SEMA_SPEED) {
      if (!lang_model_fit_speeds(S->out, (size_t)en->index + 1)) return LG_ERR_NOMEM;
      S->out->u0[en->index] = v;
      S->out->u0_set[en->index] = 1;
      continue;
    }
    if (!lang_model_fit(S->out, (size_t)en->index + 1)) return LG_ERR_NOMEM;
    (it->primes ? S->out->qd0 : S->out->q0)[en->index] = v;
  }
  return LG_OK;
}

lg_status sema_simulate(sema *S, const lang_stmt *st) {
  lang_model *o = S->out;
  if (!constant_value(S, st->u.simulate.start, "the start time", &o->t0) ||
      !constant_value(S, st->u.simulate.stop, "the end time", &o->tf) ||
      (st->u.simulate.step && !constant_value(S, st->u.simulate.step, "the output step", &o->dt)))
    return LG_ERR_MODEL;
  if (!(o->tf > o->t0) || !(o->dt > 0)) {
    sema_fail(S, st->line, st->col, "simulate needs start < end and a positive step");
    return LG_ERR_MODEL;
  }
  o->has_simulate = 1;
  return LG_OK;
}
