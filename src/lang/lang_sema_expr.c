/* lang_sema_expr.c - typing and evaluating expressions: scalars become
 * symbolic expressions, vectors become mech vectors; mixing them is an
 * error at the operator. */
#include "lang_sema.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sema_val scalar_val(const sym_node *s) {
  return (sema_val){VAL_SCALAR, s, {0, NULL}, 0, s != NULL};
}
static sema_val vector_val(mech_vec v) { return (sema_val){VAL_VECTOR, NULL, v, 0, 1}; }

static const char *kind_name(sema_vkind k) {
  switch (k) {
  case VAL_SCALAR: return "a scalar";
  case VAL_VECTOR: return "a vector";
  case VAL_POINT: return "a point";
  default: return "a frame";
  }
}

/* ---- leaves ------------------------------------------------------------------------ */
/* A literal: integers stay exact (any length); a double must be finite. */
static sema_val number(sema *S, const lang_expr *e) {
  const char *text = e->u.number.text;
  if (!e->u.number.is_double) return scalar_val(sym_int_str(S->c, text));
  double v = strtod(text, NULL);
  if (!isfinite(v)) {
    sema_val r = sema_fail(S, e->line, e->col,
                           "the number '%.40s%s' is too large: it overflows a double", text,
                           strlen(text) > 40 ? "..." : "");
    lg_diag_hint(S->diag, "doubles end near 1.8e308; change the units");
    return r;
  }
  return scalar_val(sym_float(S->c, v));
}

static sema_val name_value(sema *S, const char *name, int line, int col) {
  if (strcmp(name, "t") == 0) return scalar_val(sym_time(S->c));
  if (strcmp(name, "pi") == 0) return scalar_val(sym_pi(S->c));
  sema_entry *en = sema_lookup(S, name);
  if (!en) {
    int special = 0;
    sema_val v = sema_output_name(S, name, line, col, &special);
    return special ? v : sema_unknown(S, name, line, col);
  }
  switch (en->kind) {
  case SEMA_COORD: return scalar_val(mech_coord(S->m, (size_t)en->index, 0));
  case SEMA_PARAM: return scalar_val(mech_param(S->m, (size_t)en->index));
  case SEMA_INPUT: return scalar_val(mech_input(S->m, (size_t)en->index, 0));
  case SEMA_SPEED: return scalar_val(sym_coord(S->c, en->name, 0));
  case SEMA_SCALAR: return scalar_val(en->scalar);
  case SEMA_VECTOR: return vector_val(en->vec);
  case SEMA_FRAME: return (sema_val){VAL_FRAME, NULL, {0, NULL}, en->index, 1};
  default: {
    sema_val v = {VAL_POINT, NULL, mech_point_pos(S->m, en->index), en->index, 1};
    return v;
  }
  }
}

/* q' and q'': coordinates, inputs and speeds by name; intermediates by der. */
static sema_val prime(sema *S, const lang_expr *e) {
  const lang_expr *x = e->u.prime.arg;
  int count = e->u.prime.count;
  if (x->kind != LANG_EXPR_NAME)
    return sema_fail(S, e->line, e->col, "' applies to a name; write der(...) for the "
                                         "derivative of an expression");
  const char *name = x->u.name;
  sema_entry *en = sema_lookup(S, name);
  if (!en && strcmp(name, "t") && strcmp(name, "pi")) return sema_unknown(S, name, x->line, x->col);
  if (!en || en->kind == SEMA_PARAM)
    return sema_fail(S, e->line, e->col, "'%s' is a constant: it has no time derivative", name);
  if (en->kind == SEMA_COORD || en->kind == SEMA_INPUT || en->kind == SEMA_SPEED)
    return scalar_val(sym_coord(S->c, en->name, count));
  sema_val v = name_value(S, name, x->line, x->col);
  for (int k = 0; v.ok && k < count; k++) {
    if (v.kind == VAL_SCALAR) v.s = sym_dt(S->c, v.s);
    else if (v.kind == VAL_VECTOR) v.v = mech_vec_dt(S->m, v.v);
    else return sema_fail(S, e->line, e->col, "'%s' is %s: it has no time derivative",
                          name, kind_name(v.kind));
  }
  return v;
}

static sema_val member(sema *S, const lang_expr *e) {
  sema_val f = sema_expr(S, e->u.member.arg);
  char axis = e->u.member.axis;
  if (!f.ok) return f;
  if (f.kind != VAL_FRAME)
    return sema_fail(S, e->line, e->col, "'.%c' needs a frame on its left, not %s", axis,
                     kind_name(f.kind));
  return vector_val(mech_vec_unit(S->m, f.index, axis - 'x'));
}

/* The divisor at e is zero once simplified. */
static sema_val division_by_zero(sema *S, const lang_expr *e) {
  sema_val r = sema_fail(S, e->line, e->col, "division by zero");
  lg_diag_hint(S->diag, "the divisor simplifies to 0");
  return r;
}

/* ---- operators ---------------------------------------------------------------------- */
static sema_val check_undefined(sema *S, const lang_expr *e, sema_val v) {
  if (v.ok && v.kind == VAL_SCALAR && v.s && v.s->kind == SYM_UNDEF)
    return division_by_zero(S, e);
  if (v.ok && v.kind == VAL_SCALAR && !v.s) {
    if (sym_ctx_error(S->c) == LG_ERR_MODEL)
      return sema_fail(S, e->line, e->col, "expression nested too deeply");
    return sema_nomem(S);
  }
  return v;
}

static sema_val add_sub(sema *S, const lang_expr *e, sema_val a, sema_val b, int sub) {
  sym_ctx *c = S->c;
  if (a.kind == VAL_SCALAR && b.kind == VAL_SCALAR)
    return scalar_val(sub ? sym_sub(c, a.s, b.s) : sym_add(c, a.s, b.s));
  if (a.kind == VAL_VECTOR && b.kind == VAL_VECTOR)
    return vector_val(sub ? mech_vec_sub(S->m, a.v, b.v) : mech_vec_add(S->m, a.v, b.v));
  if (a.kind == VAL_POINT && b.kind == VAL_VECTOR) {
    a.v = sub ? mech_vec_sub(S->m, a.v, b.v) : mech_vec_add(S->m, a.v, b.v);
    a.index = -1; /* a new, unnamed location */
    return a;
  }
  if ((a.kind == VAL_SCALAR) != (b.kind == VAL_SCALAR) &&
      (a.kind == VAL_VECTOR || b.kind == VAL_VECTOR))
    return sema_fail(S, e->line, e->col, "cannot %s a scalar and a vector",
                     sub ? "subtract" : "add");
  return sema_fail(S, e->line, e->col, "cannot %s %s and %s", sub ? "subtract" : "add",
                   kind_name(a.kind), kind_name(b.kind));
}

static sema_val mul_div(sema *S, const lang_expr *e, sema_val a, sema_val b, int div) {
  sym_ctx *c = S->c;
  if (a.kind == VAL_SCALAR && b.kind == VAL_SCALAR)
    return scalar_val(div ? sym_div(c, a.s, b.s) : sym_mul(c, a.s, b.s));
  if (a.kind == VAL_VECTOR && b.kind == VAL_SCALAR) {
    const sym_node *k = div ? sym_div(c, sym_int(c, 1), b.s) : b.s;
    if (k && k->kind == SYM_UNDEF) return division_by_zero(S, e);
    return vector_val(mech_vec_scale(S->m, k, a.v));
  }
  if (!div && a.kind == VAL_SCALAR && b.kind == VAL_VECTOR)
    return vector_val(mech_vec_scale(S->m, a.s, b.v));
  if (a.kind == VAL_VECTOR && b.kind == VAL_VECTOR)
    return sema_fail(S, e->line, e->col, "cannot %s two vectors (use dot(a, b) or cross(a, b))",
                     div ? "divide" : "multiply");
  return sema_fail(S, e->line, e->col, "cannot %s %s by %s", div ? "divide" : "multiply",
                   kind_name(a.kind), kind_name(b.kind));
}

/* a + b - c ...: scalars are summed in one canonical sum (fast even for
 * very long statements); vectors and points term by term. */
static sema_val sum(sema *S, const lang_expr *e) {
  size_t n = e->u.chain.n;
  const lang_operand *t = e->u.chain.terms;
  sema_val acc = sema_expr(S, t[0].e);
  const sym_node **terms = lg_malloc(n * sizeof *terms);
  if (!terms) return sema_nomem(S);
  size_t nt = 0;
  if (acc.ok && acc.kind == VAL_SCALAR) terms[nt++] = acc.s;
  for (size_t i = 1; acc.ok && i < n; i++) {
    sema_val b = sema_expr(S, t[i].e);
    if (!b.ok) { acc = b; break; }
    lang_expr at = *e;
    at.line = t[i].line;
    at.col = t[i].col;
    if (acc.kind == VAL_SCALAR && b.kind == VAL_SCALAR)
      terms[nt++] = t[i].op == '-' ? sym_neg(S->c, b.s) : b.s;
    else if (acc.kind == VAL_SCALAR && nt > 1)
      acc = add_sub(S, &at, scalar_val(sym_addv(S->c, nt, terms)), b, t[i].op == '-');
    else
      acc = add_sub(S, &at, acc, b, t[i].op == '-');
  }
  if (acc.ok && acc.kind == VAL_SCALAR) acc = scalar_val(sym_addv(S->c, nt, terms));
  lg_free(terms);
  return acc;
}

static sema_val product(sema *S, const lang_expr *e) {
  const lang_operand *t = e->u.chain.terms;
  sema_val acc = sema_expr(S, t[0].e);
  for (size_t i = 1; acc.ok && i < e->u.chain.n; i++) {
    sema_val b = sema_expr(S, t[i].e);
    if (!b.ok) return b;
    lang_expr at = *e;
    at.line = t[i].line;
    at.col = t[i].col;
    acc = check_undefined(S, &at, mul_div(S, &at, acc, b, t[i].op == '/'));
  }
  return acc;
}

static sema_val power(sema *S, const lang_expr *e) {
  sema_val a = sema_expr(S, e->u.power.base);
  if (!a.ok) return a;
  sema_val b = sema_expr(S, e->u.power.exponent);
  if (!b.ok) return b;
  if (a.kind != VAL_SCALAR || b.kind != VAL_SCALAR)
    return sema_fail(S, e->line, e->col, "'^' needs scalars, not %s and %s",
                     kind_name(a.kind), kind_name(b.kind));
  return scalar_val(sym_pow(S->c, a.s, b.s));
}

static sema_val negate(sema *S, const lang_expr *e) {
  sema_val a = sema_expr(S, e->u.unary.arg);
  if (!a.ok || e->u.unary.op == '+') return a;
  if (a.kind == VAL_SCALAR) return scalar_val(sym_neg(S->c, a.s));
  if (a.kind == VAL_VECTOR) return vector_val(mech_vec_scale(S->m, sym_int(S->c, -1), a.v));
  return sema_fail(S, e->line, e->col, "cannot negate %s", kind_name(a.kind));
}

sema_val sema_call(sema *S, const lang_expr *e);

/* ---- time derivatives: what each place may hold (sema_rule) ----------------------------- */
/* 1 + the highest derivative order of any coordinate-like atom in v. */
static uint32_t val_order(sema_val v) {
  uint32_t o = 0;
  if (v.kind == VAL_SCALAR) return v.s ? v.s->max_order : 0;
  if (v.kind != VAL_VECTOR && v.kind != VAL_POINT) return 0;
  for (size_t i = 0; i < v.v.n; i++)
    for (int k = 0; k < 3; k++)
      if (v.v.t[i].c[k] && v.v.t[i].c[k]->max_order > o) o = v.v.t[i].c[k]->max_order;
  return o;
}

static int val_has(sema_val v, const sym_node *atom) {
  if (v.kind == VAL_SCALAR) return v.s && sym_has(v.s, atom);
  for (size_t i = 0; i < v.v.n; i++)
    for (int k = 0; k < 3; k++)
      if (v.v.t[i].c[k] && sym_has(v.v.t[i].c[k], atom)) return 1;
  return 0;
}

const sema_entry *sema_motion_atom(sema *S, sema_val v, int min, int *order) {
  int top = (int)val_order(v); /* atoms of order < top may occur */
  for (size_t i = 0; i < S->nnames; i++) {
    const sema_entry *en = &S->names[i];
    int shift = en->kind == SEMA_SPEED ? 1 : en->kind == SEMA_COORD ? 0 : -1;
    if (shift < 0) continue;
    for (int k = min - shift > 0 ? min - shift : 0; k < top; k++) {
      const sym_node *a = sym_coord(S->c, en->name, k);
      if (a && val_has(v, a)) {
        *order = k;
        return en;
      }
    }
  }
  return NULL;
}

/* Does e's value v break the rule of the place it is in? The first node
 * that does is reported, at its start. */
static sema_val check_motion(sema *S, const lang_expr *e, sema_val v) {
  static const int min_of[] = {[SEMA_RULE_ANY] = 3, [SEMA_RULE_NO_ACCEL] = 2,
                               [SEMA_RULE_POSITION] = 1};
  int min = min_of[S->rule], order = 0, line, col, motion;
  const sema_entry *en;
  const char *what = S->rule_what ? S->rule_what : "this expression";
  char name[80];
  if (!v.ok || val_order(v) < (uint32_t)min) return v;
  if (!(en = sema_motion_atom(S, v, min, &order))) return v;
  snprintf(name, sizeof name, "%.60s%.*s", en->name, order, "'''");
  motion = order + (en->kind == SEMA_SPEED);
  sema_expr_start(e, &line, &col);
  if (motion >= 3) {
    sema_fail(S, line, col, "%s is a third time derivative: it has no meaning in a model", name);
    lg_diag_hint(S->diag, "the equations of motion are of second order; use q, q' and t");
  } else if (S->rule == SEMA_RULE_NO_ACCEL) {
    sema_fail(S, line, col, "%s contains %s %s", what,
              en->kind == SEMA_SPEED ? "the speed derivative" : "the acceleration", name);
    lg_diag_hint(S->diag, "accelerations are allowed nowhere in a model: the equations of "
                          "motion supply them; use q, q' and t");
  } else {
    sema_fail(S, line, col, "%s contains %s %s", what,
              en->kind == SEMA_SPEED ? "the speed" : order == 1 ? "the velocity"
                                                                : "the acceleration", name);
    lg_diag_hint(S->diag, "a position or an orientation depends on the coordinates and t "
                          "only");
  }
  return (sema_val){VAL_SCALAR, NULL, {0, NULL}, 0, 0};
}

sema_val sema_expr(sema *S, const lang_expr *e) {
  sema_val v;
  switch (e->kind) {
  case LANG_EXPR_NUMBER: return check_undefined(S, e, number(S, e));
  case LANG_EXPR_NAME: v = name_value(S, e->u.name, e->line, e->col); break;
  case LANG_EXPR_PRIME: v = prime(S, e); break;
  case LANG_EXPR_MEMBER: return member(S, e);
  case LANG_EXPR_CALL: v = sema_call(S, e); break;
  case LANG_EXPR_UNARY: return check_undefined(S, e, negate(S, e));
  case LANG_EXPR_SUM: return check_undefined(S, e, sum(S, e));
  case LANG_EXPR_PRODUCT: return check_undefined(S, e, product(S, e));
  default: return check_undefined(S, e, power(S, e));
  }
  /* only names, primes and calls bring in derivatives: operators keep the
   * orders of their operands */
  return check_motion(S, e, check_undefined(S, e, v));
}

/* ---- typed accessors ------------------------------------------------------------------- */
const sym_node *sema_scalar(sema *S, const lang_expr *e, const char *what) {
  sema_val v = sema_expr(S, e);
  if (!v.ok) return NULL;
  if (v.kind != VAL_SCALAR) {
    sema_fail(S, e->line, e->col, "%s must be a scalar, but this is %s", what,
              kind_name(v.kind));
    return NULL;
  }
  return v.s;
}

int sema_vector(sema *S, const lang_expr *e, const char *what, mech_vec *out) {
  sema_val v = sema_expr(S, e);
  if (!v.ok) return 0;
  if (v.kind != VAL_VECTOR) {
    sema_fail(S, e->line, e->col, "%s must be a vector, but this is %s", what,
              kind_name(v.kind));
    return 0;
  }
  *out = v.v;
  return 1;
}

int sema_frame(sema *S, const lang_expr *e, const char *what) {
  sema_val v = sema_expr(S, e);
  if (!v.ok) return -1;
  if (v.kind != VAL_FRAME) {
    sema_fail(S, e->line, e->col, "%s must be a frame, but this is %s", what,
              kind_name(v.kind));
    return -1;
  }
  return v.index;
}

int sema_point(sema *S, const lang_expr *e, const char *what) {
  sema_val v = sema_expr(S, e);
  if (!v.ok) return -1;
  if (v.kind != VAL_POINT || v.index < 0) {
    sema_fail(S, e->line, e->col, "%s must be a declared point, but this is %s", what,
              v.kind == VAL_POINT ? "a location (declare it: point P = ...)"
                                  : kind_name(v.kind));
    return -1;
  }
  return v.index;
}
