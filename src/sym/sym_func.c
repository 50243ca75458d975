/* sym_func.c - the elementary functions: names, evaluation, folding of
 * exact identities, and derivative rules, all keyed by the SYM_FUNCS table. */
#include "sym_internal.h"

#include <math.h>
#include <string.h>

typedef struct fn_info {
  const char *name, *c_name, *latex;
  int arity;
} fn_info;

static const fn_info fn_table[SYM_FN_COUNT] = {
#define SYM_FN_ROW(id, name, arity, c, tex) {name, c, tex, arity},
    SYM_FUNCS(SYM_FN_ROW)
#undef SYM_FN_ROW
};

const char *sym_fn_name(sym_fn f) { return fn_table[f].name; }
const char *sym_fn_c_name(sym_fn f) { return fn_table[f].c_name; }
const char *sym_fn_latex(sym_fn f) { return fn_table[f].latex; }
int sym_fn_arity(sym_fn f) { return fn_table[f].arity; }

/* ---- numeric values --------------------------------------------------------- */
double sym_fn_eval(sym_fn f, double a, double b) {
  switch (f) {
  case SYM_FN_SIN: return sin(a);
  case SYM_FN_COS: return cos(a);
  case SYM_FN_TAN: return tan(a);
  case SYM_FN_ASIN: return asin(a);
  case SYM_FN_ACOS: return acos(a);
  case SYM_FN_ATAN: return atan(a);
  case SYM_FN_ATAN2: return atan2(a, b);
  case SYM_FN_SINH: return sinh(a);
  case SYM_FN_COSH: return cosh(a);
  case SYM_FN_TANH: return tanh(a);
  case SYM_FN_EXP: return exp(a);
  case SYM_FN_LOG: return log(a);
  case SYM_FN_SQRT: return sqrt(a);
  case SYM_FN_ABS: return fabs(a);
  case SYM_FN_SIGN: return (a > 0) - (a < 0);
  default: return NAN;
  }
}

/* ---- parity: f(-x) = -f(x) (odd) or f(x) (even) ------------------------------- */
/* Does e read as a negation: a negative number, a product with a negative
 * coefficient, or a sum whose first term is negative? Choosing the sign of
 * the first term makes cos(a - b) and cos(b - a) the same node. */
static int reads_negative(const sym_node *e) {
  switch (e->kind) {
  case SYM_NUM:
  case SYM_FLOAT: return sym_num_sign(e) < 0;
  case SYM_MUL: return sym_num_sign(e->coef) < 0;
  case SYM_ADD: return sym_num_sign(e->coefs[0]) < 0;
  default: return 0;
  }
}

static int parity(sym_fn f) { /* 1 odd, 2 even, 0 neither */
  switch (f) {
  case SYM_FN_SIN: case SYM_FN_TAN: case SYM_FN_ASIN: case SYM_FN_ATAN:
  case SYM_FN_SINH: case SYM_FN_TANH: case SYM_FN_SIGN: return 1;
  case SYM_FN_COS: case SYM_FN_COSH: case SYM_FN_ABS: return 2;
  default: return 0;
  }
}

/* Values at exact zero (only where they are exact). */
static const sym_node *at_zero(sym_ctx *c, sym_fn f) {
  switch (f) {
  case SYM_FN_SIN: case SYM_FN_TAN: case SYM_FN_ASIN: case SYM_FN_ATAN:
  case SYM_FN_SINH: case SYM_FN_TANH: case SYM_FN_ABS: case SYM_FN_SIGN:
    return c->zero;
  case SYM_FN_COS: case SYM_FN_COSH: case SYM_FN_EXP: return c->one;
  default: return NULL;
  }
}

/* sin(k*pi), cos(k*pi) for integer k. */
static const sym_node *at_pi_multiple(sym_ctx *c, sym_fn f, const sym_node *a) {
  int64_t k;
  if (a == c->pi) k = 1;
  else if (a->kind == SYM_MUL && a->nargs == 1 && a->args[0] == c->pi &&
           sym_num_is_small_int(a->coef, &k)) {
  } else return NULL;
  if (f == SYM_FN_SIN || f == SYM_FN_TAN) return c->zero;
  if (f == SYM_FN_COS) return (k % 2) ? c->minus_one : c->one;
  return NULL;
}

const sym_node *sym_fn_fold(sym_ctx *c, sym_fn f, const sym_node *a,
                            const sym_node *b) {
  /* numeric arguments: doubles fold to a double when the value is finite */
  if (a->kind == SYM_FLOAT && (!b || sym_is_number(b))) {
    double r = sym_fn_eval(f, a->v.f, b ? sym_number_value(b) : 0);
    return isfinite(r) ? sym_float(c, r) : NULL;
  }
  if (f == SYM_FN_ATAN2) {
    if (sym_is_zero(a) && b->kind == SYM_NUM && sym_num_sign(b) > 0) return c->zero;
    return NULL;
  }
  if (a->kind == SYM_NUM) {
    if (sym_is_zero(a)) return at_zero(c, f);
    if (f == SYM_FN_LOG && sym_is_one(a)) return c->zero;
    if (f == SYM_FN_ACOS && sym_is_one(a)) return c->zero;
    if (f == SYM_FN_ABS) return sym_num_sign(a) < 0 ? sym_num_neg(c, a) : a;
    if (f == SYM_FN_SIGN) return sym_int(c, sym_num_sign(a));
  }
  const sym_node *r = at_pi_multiple(c, f, a);
  if (r) return r;
  /* inverse pairs that are exact on the reals */
  if (f == SYM_FN_LOG && a->kind == SYM_FUNC && a->fn == SYM_FN_EXP) return a->args[0];
  if (f == SYM_FN_EXP && a->kind == SYM_FUNC && a->fn == SYM_FN_LOG) return a->args[0];
  if (f == SYM_FN_ABS && a->kind == SYM_FUNC && a->fn == SYM_FN_ABS) return a;
  int par = parity(f);
  if (par && reads_negative(a)) {
    const sym_node *pos = sym_func(c, f, sym_neg(c, a), NULL);
    return par == 1 ? sym_neg(c, pos) : pos;
  }
  return NULL;
}

/* ---- derivative rules: d f(a, b) / d (a or b) ------------------------------- */
const sym_node *sym_fn_partial(sym_ctx *c, sym_fn f, const sym_node *a,
                               const sym_node *b, int which) {
  const sym_node *one = c->one;
  switch (f) {
  case SYM_FN_SIN: return sym_func(c, SYM_FN_COS, a, NULL);
  case SYM_FN_COS: return sym_neg(c, sym_func(c, SYM_FN_SIN, a, NULL));
  case SYM_FN_TAN:
    return sym_add(c, one, sym_powi(c, sym_func(c, SYM_FN_TAN, a, NULL), 2));
  case SYM_FN_ASIN:
    return sym_pow(c, sym_sub(c, one, sym_powi(c, a, 2)), sym_rat(c, -1, 2));
  case SYM_FN_ACOS:
    return sym_neg(c, sym_pow(c, sym_sub(c, one, sym_powi(c, a, 2)),
                              sym_rat(c, -1, 2)));
  case SYM_FN_ATAN: return sym_powi(c, sym_add(c, one, sym_powi(c, a, 2)), -1);
  case SYM_FN_ATAN2: {
    /* atan2(y, x): d/dy = x/(x^2+y^2), d/dx = -y/(x^2+y^2) */
    const sym_node *r2 = sym_add(c, sym_powi(c, a, 2), sym_powi(c, b, 2));
    const sym_node *num = which == 0 ? b : sym_neg(c, a);
    return sym_div(c, num, r2);
  }
  case SYM_FN_SINH: return sym_func(c, SYM_FN_COSH, a, NULL);
  case SYM_FN_COSH: return sym_func(c, SYM_FN_SINH, a, NULL);
  case SYM_FN_TANH:
    return sym_sub(c, one, sym_powi(c, sym_func(c, SYM_FN_TANH, a, NULL), 2));
  case SYM_FN_EXP: return sym_func(c, SYM_FN_EXP, a, NULL);
  case SYM_FN_LOG: return sym_powi(c, a, -1);
  case SYM_FN_SQRT: return sym_div(c, c->half, sym_pow(c, a, c->half));
  case SYM_FN_ABS: return sym_func(c, SYM_FN_SIGN, a, NULL);
  case SYM_FN_SIGN: return c->zero; /* almost everywhere */
  default: return NULL;
  }
}
