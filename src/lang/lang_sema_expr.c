/* lang_sema_expr.c - typing and evaluating expressions: scalars become
 * symbolic expressions, vectors become mech vectors; mixing them is an
 * error at the operator. */
#include "lang_sema.h"

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
static sema_val number(sema *S, const lang_expr *e) {
  if (!e->is_float) {
    const sym_node *k = sym_int_str(S->c, e->text);
    return scalar_val(k);
  }
  return scalar_val(sym_float(S->c, strtod(e->text, NULL)));
}

static sema_val name_value(sema *S, const char *name, int line, int col) {
  if (strcmp(name, "t") == 0) return scalar_val(sym_time(S->c));
  if (strcmp(name, "pi") == 0) return scalar_val(sym_pi(S->c));
  sema_entry *en = sema_lookup(S, name);
  if (!en) return sema_unknown(S, name, line, col);
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
  const lang_expr *x = e->operand;
  if (x->kind != LANG_EXPR_NAME)
    return sema_fail(S, e->line, e->col, "' applies to a name; write der(...) for the "
                                         "derivative of an expression");
  sema_entry *en = sema_lookup(S, x->text);
  if (!en && strcmp(x->text, "t") && strcmp(x->text, "pi"))
    return sema_unknown(S, x->text, x->line, x->col);
  if (!en || en->kind == SEMA_PARAM)
    return sema_fail(S, e->line, e->col, "'%s' is a constant: it has no time derivative",
                     x->text);
  if (en->kind == SEMA_COORD || en->kind == SEMA_INPUT || en->kind == SEMA_SPEED)
    return scalar_val(sym_coord(S->c, en->name, e->primes));
  sema_val v = name_value(S, x->text, x->line, x->col);
  for (int k = 0; v.ok && k < e->primes; k++) {
    if (v.kind == VAL_SCALAR) v.s = sym_dt(S->c, v.s);
    else if (v.kind == VAL_VECTOR) v.v = mech_vec_dt(S->m, v.v);
    else return sema_fail(S, e->line, e->col, "'%s' is %s: it has no time derivative",
                          x->text, kind_name(v.kind));
  }
  return v;
}

static sema_val member(sema *S, const lang_expr *e) {
  sema_val f = sema_expr(S, e->operand);
  if (!f.ok) return f;
  if (f.kind != VAL_FRAME)
    return sema_fail(S, e->line, e->col, "'.%c' needs a frame on its left, not %s",
                     e->member, kind_name(f.kind));
  return vector_val(mech_vec_unit(S->m, f.index, e->member - 'x'));
}

/* ---- operators ---------------------------------------------------------------------- */
static sema_val check_undefined(sema *S, const lang_expr *e, sema_val v) {
  if (v.ok && v.kind == VAL_SCALAR && v.s && v.s->kind == SYM_UNDEF)
    return sema_fail(S, e->line, e->col, "division by zero");
  if (v.ok && v.kind == VAL_SCALAR && !v.s)
    return sema_fail(S, e->line, e->col, "%s",
                     sym_ctx_error(S->c) == LG_ERR_MODEL ? "expression nested too deeply"
                                                         : "out of memory");
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
    if (k && k->kind == SYM_UNDEF) return sema_fail(S, e->line, e->col, "division by zero");
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
  sema_val acc = sema_expr(S, e->args[0]);
  const sym_node **terms = lg_malloc(e->nargs * sizeof *terms);
  if (!terms) return sema_fail(S, e->line, e->col, "out of memory");
  size_t nt = 0;
  if (acc.ok && acc.kind == VAL_SCALAR) terms[nt++] = acc.s;
  for (size_t i = 1; acc.ok && i < e->nargs; i++) {
    sema_val b = sema_expr(S, e->args[i]);
    if (!b.ok) { acc = b; break; }
    lang_expr at = *e;
    at.line = e->op_line[i];
    at.col = e->op_col[i];
    if (acc.kind == VAL_SCALAR && b.kind == VAL_SCALAR)
      terms[nt++] = e->ops[i] == '-' ? sym_neg(S->c, b.s) : b.s;
    else if (acc.kind == VAL_SCALAR && nt > 1)
      acc = add_sub(S, &at, scalar_val(sym_addv(S->c, nt, terms)), b, e->ops[i] == '-');
    else
      acc = add_sub(S, &at, acc, b, e->ops[i] == '-');
  }
  if (acc.ok && acc.kind == VAL_SCALAR) acc = scalar_val(sym_addv(S->c, nt, terms));
  lg_free(terms);
  return acc;
}

static sema_val product(sema *S, const lang_expr *e) {
  sema_val acc = sema_expr(S, e->args[0]);
  for (size_t i = 1; acc.ok && i < e->nargs; i++) {
    sema_val b = sema_expr(S, e->args[i]);
    if (!b.ok) return b;
    lang_expr at = *e;
    at.line = e->op_line[i];
    at.col = e->op_col[i];
    acc = check_undefined(S, &at, mul_div(S, &at, acc, b, e->ops[i] == '/'));
  }
  return acc;
}

static sema_val power(sema *S, const lang_expr *e) {
  sema_val a = sema_expr(S, e->lhs);
  if (!a.ok) return a;
  sema_val b = sema_expr(S, e->rhs);
  if (!b.ok) return b;
  if (a.kind != VAL_SCALAR || b.kind != VAL_SCALAR)
    return sema_fail(S, e->line, e->col, "'^' needs scalars, not %s and %s",
                     kind_name(a.kind), kind_name(b.kind));
  return scalar_val(sym_pow(S->c, a.s, b.s));
}

static sema_val negate(sema *S, const lang_expr *e) {
  sema_val a = sema_expr(S, e->operand);
  if (!a.ok || e->op == '+') return a;
  if (a.kind == VAL_SCALAR) return scalar_val(sym_neg(S->c, a.s));
  if (a.kind == VAL_VECTOR) return vector_val(mech_vec_scale(S->m, sym_int(S->c, -1), a.v));
  return sema_fail(S, e->line, e->col, "cannot negate %s", kind_name(a.kind));
}

sema_val sema_call(sema *S, const lang_expr *e);

sema_val sema_expr(sema *S, const lang_expr *e) {
  sema_val v;
  switch (e->kind) {
  case LANG_EXPR_NUMBER: v = number(S, e); break;
  case LANG_EXPR_NAME: v = name_value(S, e->text, e->line, e->col); break;
  case LANG_EXPR_PRIME: v = prime(S, e); break;
  case LANG_EXPR_MEMBER: v = member(S, e); break;
  case LANG_EXPR_CALL: v = sema_call(S, e); break;
  case LANG_EXPR_UNARY: v = negate(S, e); break;
  case LANG_EXPR_SUM: v = sum(S, e); break;
  case LANG_EXPR_PRODUCT: v = product(S, e); break;
  default: v = power(S, e); break;
  }
  return check_undefined(S, e, v);
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
