/* sym_diff.c - partial and total time derivatives, memoized per node.
 *
 * One recursive rule set serves both: `var` is the atom to differentiate
 * by, or NULL for the total time derivative (d/dt q = q', d/dt t = 1).
 * Recursion depth is bounded by SYM_MAX_DEPTH. */
#include "sym_internal.h"

static const sym_node *deriv(sym_ctx *c, const sym_node *e, const sym_node *var);

/* Is the derivative of e certainly zero? (atom masks: no false zeros) */
static int surely_constant(sym_ctx *c, const sym_node *e, const sym_node *var) {
  if (var) return e != var && !(e->atoms & sym_atom_bit(var));
  return e->max_order == 0 && !(e->atoms & sym_atom_bit(c->time));
}

static const sym_node *deriv_atom(sym_ctx *c, const sym_node *e,
                                  const sym_node *var) {
  if (var) return e == var ? c->one : c->zero;
  if (e->kind == SYM_TIME) return c->one;
  if (e->kind == SYM_COORD) return sym_coord(c, e->v.name, e->order + 1);
  return c->zero;
}

static const sym_node *deriv_add(sym_ctx *c, const sym_node *e,
                                 const sym_node *var) {
  const sym_node *local[64];
  const sym_node **ts = e->nargs > 64 ? lg_malloc(e->nargs * sizeof *ts) : local;
  if (!ts) return NULL;
  for (uint32_t i = 0; i < e->nargs; i++)
    ts[i] = sym_mul(c, e->coefs[i], deriv(c, e->args[i], var));
  const sym_node *r = sym_addv(c, e->nargs, ts);
  if (ts != local) lg_free(ts);
  return r;
}

/* Product rule: sum over i of (prod_{j != i} f_j) * f_i'. */
static const sym_node *deriv_mul(sym_ctx *c, const sym_node *e,
                                 const sym_node *var) {
  uint32_t n = e->nargs;
  const sym_node *local[64];
  const sym_node **buf = (size_t)n * 2 > 64 ? lg_malloc(2 * (size_t)n * sizeof *buf)
                                            : local;
  if (!buf) return NULL;
  const sym_node **terms = buf, **fs = buf + n;
  uint32_t nt = 0;
  terms[0] = c->zero;
  for (uint32_t i = 0; i < n; i++) {
    if (surely_constant(c, e->args[i], var)) continue;
    const sym_node *d = deriv(c, e->args[i], var);
    for (uint32_t j = 0; j < n; j++) fs[j] = j == i ? d : e->args[j];
    terms[nt++] = sym_mulv(c, n, fs);
  }
  const sym_node *r = sym_mul(c, e->coef, sym_addv(c, nt, terms));
  if (buf != local) lg_free(buf);
  return r;
}

static const sym_node *deriv_pow(sym_ctx *c, const sym_node *e,
                                 const sym_node *var) {
  const sym_node *b = e->args[0], *x = e->args[1];
  const sym_node *db = deriv(c, b, var);
  if (surely_constant(c, x, var)) /* x * b^(x-1) * b' */
    return sym_mulv(c, 3, (const sym_node *[]){x, sym_pow(c, b, sym_sub(c, x, c->one)), db});
  /* b^x * (x' log b + x b'/b) */
  const sym_node *dx = deriv(c, x, var);
  const sym_node *lg = sym_func(c, SYM_FN_LOG, b, NULL);
  const sym_node *inner = sym_add(c, sym_mul(c, dx, lg),
                                  sym_mul(c, x, sym_div(c, db, b)));
  return sym_mul(c, e, inner);
}

static const sym_node *deriv_func(sym_ctx *c, const sym_node *e,
                                  const sym_node *var) {
  const sym_node *a = e->args[0], *b = e->nargs > 1 ? e->args[1] : NULL;
  const sym_node *r = c->zero;
  for (uint32_t k = 0; k < e->nargs; k++) {
    if (surely_constant(c, e->args[k], var)) continue;
    const sym_node *p = sym_fn_partial(c, (sym_fn)e->fn, a, b, (int)k);
    r = sym_add(c, r, sym_mul(c, p, deriv(c, e->args[k], var)));
  }
  return r;
}

static const sym_node *deriv(sym_ctx *c, const sym_node *e, const sym_node *var) {
  if (!e) return NULL;
  if (e->kind == SYM_UNDEF) return e;
  if (surely_constant(c, e, var)) return c->zero;
  const sym_node *def = sym_let_def(c, e);
  if (def) { /* a let's derivative: bound too (memoized below) */
    const sym_node *r = sym_memo_get(var ? &c->diff_memo : &c->dt_memo,
                                     var ? ((uint64_t)e->id << 32) | var->id : e->id);
    if (r) return r;
    r = sym_let(c, deriv(c, def, var), 0, NULL);
    if (r && !sym_memo_put(var ? &c->diff_memo : &c->dt_memo,
                           var ? ((uint64_t)e->id << 32) | var->id : e->id, r)) {
      sym_set_error(c, LG_ERR_NOMEM, "out of memory");
      return NULL;
    }
    return r;
  }
  sym_memo *memo = var ? &c->diff_memo : &c->dt_memo;
  uint64_t key = var ? ((uint64_t)e->id << 32) | var->id : e->id;
  const sym_node *r = sym_memo_get(memo, key);
  if (r) return r;
  switch (e->kind) {
  case SYM_ADD: r = deriv_add(c, e, var); break;
  case SYM_MUL: r = deriv_mul(c, e, var); break;
  case SYM_POW: r = deriv_pow(c, e, var); break;
  case SYM_FUNC: r = deriv_func(c, e, var); break;
  default: r = deriv_atom(c, e, var); break;
  }
  if (r && !sym_memo_put(memo, key, r)) {
    sym_set_error(c, LG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  return r;
}

const sym_node *sym_diff(sym_ctx *c, const sym_node *e, const sym_node *var) {
  if (!c || !e || !var) return NULL;
  if (var->kind != SYM_SYMBOL && var->kind != SYM_COORD && var->kind != SYM_TIME)
    return NULL;
  return deriv(c, e, var);
}

const sym_node *sym_dt(sym_ctx *c, const sym_node *e) {
  if (!c || !e) return NULL;
  return deriv(c, e, NULL);
}
