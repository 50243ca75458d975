/* sym_eval.c - direct numeric evaluation by walking the DAG once.
 * The reference against which the tape is tested; simulation uses tapes. */
#include "sym_internal.h"

#include <math.h>

typedef struct eval_state {
  sym_ctx *c;
  sym_memo lets_done; /* let atoms evaluated (their definitions' walks are not repeated) */
  double *val;          /* by node id */
  sym_atom_value_fn fn;
  void *ud;
  const sym_node *missing;
} eval_state;

static double value_of(const eval_state *s, const sym_node *n) {
  return s->val[n->id];
}

static int eval_visit(void *ud, const sym_node *n);

static double eval_node(eval_state *s, const sym_node *n) {
  double r, x;
  const sym_node *def = sym_let_def(s->c, n);
  if (def) { /* a let-bound atom: its definition, once per evaluation */
    if (sym_memo_get(&s->lets_done, n->id)) return s->val[n->id];
    if (!sym_postorder(def, eval_visit, s) || !sym_memo_put(&s->lets_done, n->id, n)) return NAN;
    return s->val[def->id];
  }
  switch (n->kind) {
  case SYM_NUM:
  case SYM_FLOAT: return sym_number_value(n);
  case SYM_UNDEF: return NAN;
  case SYM_SYMBOL:
  case SYM_COORD:
  case SYM_TIME:
    if (s->fn(s->ud, n, &x) != 0) {
      if (n->kind == SYM_SYMBOL && n->v.name[0] == 'p' && n->v.name[1] == 'i' &&
          !n->v.name[2])
        return LG_PI;
      if (!s->missing) s->missing = n;
      return NAN;
    }
    return x;
  case SYM_ADD:
    r = sym_number_value(n->coef);
    for (uint32_t i = 0; i < n->nargs; i++)
      r += sym_number_value(n->coefs[i]) * value_of(s, n->args[i]);
    return r;
  case SYM_MUL:
    r = sym_number_value(n->coef);
    for (uint32_t i = 0; i < n->nargs; i++) r *= value_of(s, n->args[i]);
    return r;
  case SYM_POW: {
    int64_t k;
    double b = value_of(s, n->args[0]);
    if (sym_is_integer(n->args[1], &k) && k == -1) return 1.0 / b;
    if (n->args[1] == NULL) return NAN;
    return pow(b, value_of(s, n->args[1]));
  }
  case SYM_FUNC:
    return sym_fn_eval((sym_fn)n->fn, value_of(s, n->args[0]),
                       n->nargs > 1 ? value_of(s, n->args[1]) : 0);
  default: return NAN;
  }
}

static int eval_visit(void *ud, const sym_node *n) {
  eval_state *s = ud;
  s->val[n->id] = eval_node(s, n);
  return 1;
}

lg_status sym_eval(sym_ctx *c, const sym_node *e, sym_atom_value_fn val,
                   void *ud, double *out, const sym_node **missing) {
  if (!c || !e) return LG_ERR_NOMEM;
  eval_state s = {c, {0}, lg_malloc(c->count * sizeof(double)), val, ud, NULL};
  if (!s.val) return LG_ERR_NOMEM;
  /* numbers in exponents and coefficients are leaves the walk also visits */
  int ok = sym_postorder(e, eval_visit, &s);
  *out = ok ? s.val[e->id] : NAN;
  lg_free(s.val);
  sym_memo_free(&s.lets_done);
  if (!ok) return LG_ERR_NOMEM;
  if (missing) *missing = s.missing;
  return s.missing ? LG_ERR_MODEL : LG_OK;
}

lg_status sym_eval_many(sym_ctx *c, size_t n, const sym_node *const *e, sym_atom_value_fn val,
                        void *ud, double *out, const sym_node **missing) {
  if (!c) return LG_ERR_NOMEM;
  for (size_t i = 0; i < n; i++)
    if (!e[i]) return LG_ERR_NOMEM;
  eval_state s = {c, {0}, lg_malloc((c->count + 1) * sizeof(double)), val, ud, NULL};
  if (!s.val) return LG_ERR_NOMEM;
  int ok = sym_postorder_many(n, e, eval_visit, &s);
  for (size_t i = 0; i < n; i++) out[i] = ok ? s.val[e[i]->id] : NAN;
  lg_free(s.val);
  sym_memo_free(&s.lets_done);
  if (!ok) return LG_ERR_NOMEM;
  if (missing) *missing = s.missing;
  return s.missing ? LG_ERR_MODEL : LG_OK;
}
