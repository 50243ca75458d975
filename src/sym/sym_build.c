/* sym_build.c - the smart constructors: sums, products, powers, functions.
 * Every rewrite here is applied on construction, so canonical forms hold
 * for every node in every context (see sym.h for the forms). */
#include "sym_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- atoms ---------------------------------------------------------------- */
const sym_node *sym_symbol(sym_ctx *c, const char *name) {
  if (!c || !name) return NULL;
  sym_node t = {0};
  t.kind = SYM_SYMBOL;
  t.v.name = name;
  return sym_intern(c, &t);
}

const sym_node *sym_coord(sym_ctx *c, const char *name, int order) {
  if (!c || !name || order < 0 || order > 60000) return NULL;
  sym_node t = {0};
  t.kind = SYM_COORD;
  t.order = (uint16_t)order;
  t.v.name = name;
  return sym_intern(c, &t);
}

const sym_node *sym_time(sym_ctx *c) { return c ? c->time : NULL; }
const sym_node *sym_pi(sym_ctx *c) { return c ? c->pi : NULL; }

/* ---- scratch arrays of (coefficient, term) or (base, exponent) pairs ------ */
typedef struct pair { const sym_node *a, *b; } pair;
typedef struct pairs { pair *p; size_t n, cap; pair local[16]; } pairs;

static void pairs_init(pairs *v) {
  v->p = v->local;
  v->n = 0;
  v->cap = 16;
}

static int pairs_push(pairs *v, const sym_node *a, const sym_node *b) {
  if (v->n == v->cap && !lg_grow_local((void **)&v->p, &v->cap, v->n + 1, sizeof *v->p, v->local))
    return 0;
  v->p[v->n++] = (pair){a, b};
  return 1;
}

static void pairs_free(pairs *v) {
  if (v->p != v->local) lg_free(v->p);
}

/* Sort by the second member (the term / the base): insertion sort for the
 * short lists that dominate, merge sort beyond. */
static void sort_by_b(pair *p, size_t n, pair *tmp) {
  if (n <= 12) {
    for (size_t i = 1; i < n; i++) {
      pair x = p[i];
      size_t j = i;
      while (j > 0 && sym_cmp(p[j - 1].b, x.b) > 0) {
        p[j] = p[j - 1];
        j--;
      }
      p[j] = x;
    }
    return;
  }
  size_t h = n / 2;
  sort_by_b(p, h, tmp);
  sort_by_b(p + h, n - h, tmp);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = sym_cmp(p[i].b, p[j].b) <= 0 ? p[i++] : p[j++];
  while (i < h) tmp[k++] = p[i++];
  while (j < n) tmp[k++] = p[j++];
  memcpy(p, tmp, n * sizeof *p);
}

static int sort_pairs(pairs *v) {
  pair *tmp = v->n > 12 ? lg_malloc(v->n * sizeof *tmp) : NULL;
  if (v->n > 12 && !tmp) return 0;
  sort_by_b(v->p, v->n, tmp);
  lg_free(tmp);
  return 1;
}

/* ---- splitting terms and factors ------------------------------------------ */
void sym_split_coef(sym_ctx *c, const sym_node *e, const sym_node **coef,
                    const sym_node **rest) {
  if (e->kind == SYM_MUL && !sym_is_one(e->coef)) {
    *coef = e->coef;
    if (e->nargs == 1) {
      *rest = e->args[0];
    } else {
      sym_node t = *e;
      t.coef = c->one;
      *rest = sym_intern(c, &t);
    }
    return;
  }
  *coef = c->one;
  *rest = e;
}

void sym_split_pow(sym_ctx *c, const sym_node *e, const sym_node **base,
                   const sym_node **exp) {
  if (e->kind == SYM_POW) {
    *base = e->args[0];
    *exp = e->args[1];
  } else {
    *base = e;
    *exp = c->one;
  }
}

/* ---- sums ----------------------------------------------------------------- */
/* Gather the terms of the operands into c0 and (coef, term) pairs. */
static const sym_node *add_gather(sym_ctx *c, size_t n,
                                  const sym_node *const *terms,
                                  const sym_node **c0, pairs *v) {
  for (size_t i = 0; i < n; i++) {
    const sym_node *e = terms[i];
    if (!e) return NULL;
    if (e->kind == SYM_UNDEF) return c->undef;
    if (sym_is_number(e)) {
      *c0 = sym_num_add(c, *c0, e);
    } else if (e->kind == SYM_ADD) {
      *c0 = sym_num_add(c, *c0, e->coef);
      for (uint32_t k = 0; k < e->nargs; k++)
        if (!pairs_push(v, e->coefs[k], e->args[k])) return NULL;
    } else {
      const sym_node *k, *r;
      sym_split_coef(c, e, &k, &r);
      if (!r || !pairs_push(v, k, r)) return NULL;
    }
    if (!*c0) return NULL;
  }
  return c->one; /* success marker */
}

/* Sort, combine like terms, drop zeros; compacts v in place. */
static int add_combine(sym_ctx *c, pairs *v) {
  if (!sort_pairs(v)) return 0;
  size_t out = 0;
  for (size_t i = 0; i < v->n;) {
    const sym_node *k = v->p[i].a, *t = v->p[i].b;
    size_t j = i + 1;
    for (; j < v->n && v->p[j].b == t; j++) k = sym_num_add(c, k, v->p[j].a);
    if (!k) return 0;
    if (!sym_is_zero(k)) v->p[out++] = (pair){k, t};
    i = j;
  }
  v->n = out;
  return 1;
}

/* coef * term for a term that is not a number and not MUL with coef != 1. */
static const sym_node *scale_term(sym_ctx *c, const sym_node *k,
                                  const sym_node *t) {
  if (sym_is_one(k)) return t;
  sym_node m = {0};
  m.kind = SYM_MUL;
  m.coef = k;
  if (t->kind == SYM_MUL) {
    m.nargs = t->nargs;
    m.args = t->args;
  } else {
    m.nargs = 1;
    m.args = &t;
  }
  return sym_intern(c, &m);
}

const sym_node *sym_addv(sym_ctx *c, size_t n, const sym_node *const *terms) {
  if (!c) return NULL;
  pairs v;
  pairs_init(&v);
  const sym_node *c0 = c->zero, *res = NULL;
  const sym_node *ok = add_gather(c, n, terms, &c0, &v);
  if (ok != c->one) {
    pairs_free(&v);
    return ok;
  }
  if (!add_combine(c, &v)) goto done;
  if (sym_is_zero(c0) && v.n > 0) c0 = c->zero; /* x + 0.0 -> x */
  if (v.n == 0) {
    res = c0;
  } else if (v.n == 1 && sym_is_zero(c0)) {
    res = scale_term(c, v.p[0].a, v.p[0].b);
  } else {
    const sym_node *local[128];
    const sym_node **ts = v.n > 64 ? lg_malloc(2 * v.n * sizeof *ts) : local;
    if (!ts) goto done;
    const sym_node **ks = ts + v.n;
    for (size_t i = 0; i < v.n; i++) {
      ks[i] = v.p[i].a;
      ts[i] = v.p[i].b;
    }
    sym_node t = {0};
    t.kind = SYM_ADD;
    t.coef = c0;
    t.nargs = (uint32_t)v.n;
    t.args = ts;
    t.coefs = ks;
    res = sym_intern(c, &t);
    if (ts != local) lg_free(ts);
  }
done:
  pairs_free(&v);
  return res;
}

const sym_node *sym_add(sym_ctx *c, const sym_node *a, const sym_node *b) {
  if (!a || !b) return NULL;
  if (sym_is_number(a) && sym_is_number(b)) return sym_num_add(c, a, b);
  if (sym_is_zero(a) && a->kind == SYM_NUM) return b;
  if (sym_is_zero(b) && b->kind == SYM_NUM) return a;
  const sym_node *t[2] = {a, b};
  return sym_addv(c, 2, t);
}

const sym_node *sym_neg(sym_ctx *c, const sym_node *a) {
  return sym_mul(c, c ? c->minus_one : NULL, a);
}

const sym_node *sym_sub(sym_ctx *c, const sym_node *a, const sym_node *b) {
  return sym_add(c, a, sym_neg(c, b));
}

/* ---- products --------------------------------------------------------------- */
/* Gather factors into a numeric coefficient and (exponent, base) pairs. */
static const sym_node *mul_gather(sym_ctx *c, size_t n,
                                  const sym_node *const *fs,
                                  const sym_node **k, pairs *v) {
  for (size_t i = 0; i < n; i++) {
    const sym_node *e = fs[i];
    if (!e) return NULL;
    if (e->kind == SYM_UNDEF) return c->undef;
    if (sym_is_number(e)) {
      *k = sym_num_mul(c, *k, e);
    } else if (e->kind == SYM_MUL) {
      *k = sym_num_mul(c, *k, e->coef);
      for (uint32_t j = 0; j < e->nargs; j++) {
        const sym_node *b, *x;
        sym_split_pow(c, e->args[j], &b, &x);
        if (!pairs_push(v, x, b)) return NULL;
      }
    } else {
      const sym_node *b, *x;
      sym_split_pow(c, e, &b, &x);
      if (!pairs_push(v, x, b)) return NULL;
    }
    if (!*k) return NULL;
  }
  return c->one;
}

/* Merge equal bases (adding exponents) and rebuild each factor with
 * sym_pow; numeric results fold into *k. Returns 0 on OOM, 2 when a power
 * produced a product and the gather must run again. */
static int mul_combine(sym_ctx *c, pairs *v, const sym_node **k) {
  if (!sort_pairs(v)) return 0;
  size_t out = 0;
  int again = 0;
  for (size_t i = 0; i < v->n;) {
    const sym_node *x = v->p[i].a, *b = v->p[i].b;
    size_t j = i + 1;
    for (; j < v->n && v->p[j].b == b; j++) x = sym_add(c, x, v->p[j].a);
    const sym_node *f = sym_pow(c, b, x);
    if (!f) return 0;
    i = j;
    if (sym_is_number(f) || f->kind == SYM_UNDEF) {
      *k = sym_num_mul(c, *k, f);
      if (!*k) return 0;
      continue;
    }
    if (f->kind == SYM_MUL) again = 1;
    v->p[out++] = (pair){c->one, f};
  }
  v->n = out;
  return again ? 2 : 1;
}

static const sym_node *mul_finish(sym_ctx *c, const sym_node *k, pairs *v) {
  if (k->kind == SYM_UNDEF) return k;
  if (sym_is_zero(k) || v->n == 0) return sym_is_zero(k) ? c->zero : k;
  if (v->n == 1 && sym_is_one(k)) return v->p[0].b;
  /* A number times a sum distributes (as SymPy's Mul does): 2*(x+y). */
  if (v->n == 1 && v->p[0].b->kind == SYM_ADD) {
    const sym_node *s = v->p[0].b;
    const sym_node *local[33];
    size_t m = (size_t)s->nargs + 1;
    const sym_node **ts = m > 33 ? lg_malloc(m * sizeof *ts) : local;
    if (!ts) return NULL;
    ts[0] = sym_num_mul(c, k, s->coef);
    for (uint32_t i = 0; i < s->nargs; i++) {
      const sym_node *kk = sym_num_mul(c, k, s->coefs[i]);
      ts[i + 1] = kk ? scale_term(c, kk, s->args[i]) : NULL;
    }
    const sym_node *r = sym_addv(c, m, ts);
    if (ts != local) lg_free(ts);
    return r;
  }
  const sym_node *local[64];
  const sym_node **fs = v->n > 64 ? lg_malloc(v->n * sizeof *fs) : local;
  if (!fs) return NULL;
  for (size_t i = 0; i < v->n; i++) fs[i] = v->p[i].b;
  sym_node t = {0};
  t.kind = SYM_MUL;
  t.coef = k;
  t.nargs = (uint32_t)v->n;
  t.args = fs;
  const sym_node *r = sym_intern(c, &t);
  if (fs != local) lg_free(fs);
  return r;
}

const sym_node *sym_mulv(sym_ctx *c, size_t n, const sym_node *const *fs) {
  if (!c) return NULL;
  pairs v;
  pairs_init(&v);
  const sym_node *k = c->one, *res = NULL;
  const sym_node *ok = mul_gather(c, n, fs, &k, &v);
  if (ok != c->one) {
    pairs_free(&v);
    return ok;
  }
  int st = mul_combine(c, &v, &k);
  if (st == 2) {
    /* A power split into a product (e.g. (2*x)^2): gather once more. */
    const sym_node *local[32];
    size_t m = v.n + 1;
    const sym_node **again = m > 32 ? lg_malloc(m * sizeof *again) : local;
    if (again) {
      again[0] = k;
      for (size_t i = 0; i < v.n; i++) again[i + 1] = v.p[i].b;
      res = sym_mulv(c, m, again);
      if (again != local) lg_free(again);
    }
  } else if (st == 1) {
    res = mul_finish(c, k, &v);
  }
  pairs_free(&v);
  return res;
}

/* k * x for a number k and a canonical x that is not a number: what
 * sym_mulv gives (the same nodes, interned in the same order), without
 * gathering, sorting and rebuilding x's factors, which are already sorted
 * with distinct bases and come back from sym_pow as themselves. */
static const sym_node *mul_by_number(sym_ctx *c, const sym_node *k, const sym_node *x) {
  if (x->kind == SYM_UNDEF) return c->undef;
  const sym_node *const *fs = &x;
  size_t n = 1;
  if (x->kind == SYM_MUL) {
    k = sym_num_mul(c, k, x->coef); /* the product commutes exactly */
    if (!k) return NULL;
    fs = x->args;
    n = x->nargs;
  }
  if (k->kind == SYM_UNDEF) return k;
  if (sym_is_zero(k)) return c->zero;
  if (n == 1 && sym_is_one(k)) return fs[0];
  pairs v;
  pairs_init(&v);
  if (n == 1 && fs[0]->kind == SYM_ADD) {
    v.p[0] = (pair){c->one, fs[0]};
    v.n = 1;
    return mul_finish(c, k, &v);
  }
  sym_node t = {0};
  t.kind = SYM_MUL;
  t.coef = k;
  t.nargs = (uint32_t)n;
  t.args = fs;
  return sym_intern(c, &t);
}

const sym_node *sym_mul(sym_ctx *c, const sym_node *a, const sym_node *b) {
  if (!a || !b) return NULL;
  int na = sym_is_number(a), nb = sym_is_number(b);
  if (na && nb) return sym_num_mul(c, a, b);
  if (sym_is_one(a) && a->kind == SYM_NUM) return b;
  if (sym_is_one(b) && b->kind == SYM_NUM) return a;
  if (na) return mul_by_number(c, a, b);
  if (nb) return mul_by_number(c, b, a);
  const sym_node *t[2] = {a, b};
  return sym_mulv(c, 2, t);
}

const sym_node *sym_div(sym_ctx *c, const sym_node *a, const sym_node *b) {
  return sym_mul(c, a, sym_pow(c, b, c ? c->minus_one : NULL));
}

/* ---- powers ----------------------------------------------------------------- */
enum { MAX_EXACT_POWER = 4096 };

static const sym_node *pow_numbers(sym_ctx *c, const sym_node *b,
                                   const sym_node *e) {
  int64_t n;
  if (b->kind == SYM_FLOAT || e->kind == SYM_FLOAT) {
    double r = pow(sym_number_value(b), sym_number_value(e));
    return isfinite(r) ? sym_float(c, r) : NULL;
  }
  if (sym_num_is_small_int(e, &n)) {
    if (sym_is_zero(b) && n < 0) return c->undef;
    if (n > MAX_EXACT_POWER || n < -MAX_EXACT_POWER) return NULL;
    return sym_num_powi(c, b, n);
  }
  /* rational exponent p/q: exact only when the root is rational */
  if (!e->v.rat.big && !b->v.rat.big)
    return sym_num_root(c, b, e->v.rat.num, e->v.rat.den);
  return NULL;
}

static const sym_node *make_pow(sym_ctx *c, const sym_node *b,
                                const sym_node *e) {
  sym_node t = {0};
  const sym_node *args[2] = {b, e};
  t.kind = SYM_POW;
  t.nargs = 2;
  t.args = args;
  return sym_intern(c, &t);
}

const sym_node *sym_pow(sym_ctx *c, const sym_node *b, const sym_node *e) {
  if (!c || !b || !e) return NULL;
  if (b->kind == SYM_UNDEF || e->kind == SYM_UNDEF) return c->undef;
  if (sym_is_zero(e)) return e->kind == SYM_FLOAT ? sym_float(c, 1.0) : c->one;
  if (sym_is_one(e) && e->kind == SYM_NUM) return b;
  if (sym_is_one(b) && b->kind == SYM_NUM) return c->one;
  if (sym_is_zero(b) && b->kind == SYM_NUM && sym_is_number(e))
    return sym_num_sign(e) > 0 ? c->zero : c->undef;
  if (sym_is_number(b) && sym_is_number(e)) {
    const sym_node *r = pow_numbers(c, b, e);
    if (r || sym_ctx_error(c)) return r;
    return make_pow(c, b, e);
  }
  int64_t n;
  int int_exp = sym_is_integer(e, &n);
  /* (x^a)^n = x^(a*n) for integer n; so sqrt(x)^2 = x. */
  if (b->kind == SYM_POW && int_exp)
    return sym_pow(c, b->args[0], sym_mul(c, b->args[1], e));
  /* (k * prod f)^n = k^n * prod f^n for integer n. */
  if (b->kind == SYM_MUL && int_exp) {
    const sym_node *local[32];
    size_t m = b->nargs + 1;
    const sym_node **fs = m > 32 ? lg_malloc(m * sizeof *fs) : local;
    if (!fs) return NULL;
    fs[0] = sym_pow(c, b->coef, e);
    for (uint32_t i = 0; i < b->nargs; i++) fs[i + 1] = sym_pow(c, b->args[i], e);
    const sym_node *r = sym_mulv(c, m, fs);
    if (fs != local) lg_free(fs);
    return r;
  }
  return make_pow(c, b, e);
}

const sym_node *sym_powi(sym_ctx *c, const sym_node *base, int64_t e) {
  return sym_pow(c, base, sym_int(c, e));
}

/* ---- functions ------------------------------------------------------------- */
const sym_node *sym_func(sym_ctx *c, sym_fn f, const sym_node *a,
                         const sym_node *b) {
  if (!c || !a || (unsigned)f >= SYM_FN_COUNT) return NULL;
  int arity = sym_fn_arity(f);
  if (arity == 2 && !b) return NULL;
  if (a->kind == SYM_UNDEF || (b && b->kind == SYM_UNDEF)) return c->undef;
  if (f == SYM_FN_SQRT) return sym_pow(c, a, c->half);
  const sym_node *r = sym_fn_fold(c, f, a, arity == 2 ? b : NULL);
  if (r || sym_ctx_error(c)) return r;
  const sym_node *args[2] = {a, b};
  sym_node t = {0};
  t.kind = SYM_FUNC;
  t.fn = (uint8_t)f;
  t.nargs = (uint32_t)arity;
  t.args = args;
  return sym_intern(c, &t);
}
