/* sym_collect.c - sums written as a textbook writes them, in time linear
 * in the size of each sum (one hash lookup per term and factor pair):
 *
 *  - angle sums folded where two terms become one:
 *      k R cos a cos b + k R sin a sin b -> k R cos(a - b)   (and a + b),
 *      k R sin a cos b + k R cos a sin b -> k R sin(a + b)   (and a - b);
 *  - sin^2 + cos^2 = 1:  a R s^2 + b R c^2 -> b R + (a - b) R s^2;
 *  - terms with the same kinematic part (the factors holding coordinates
 *    or time) gathered, their parameter coefficients summed and factored:
 *      l1*m1*cos(q1) + l1*m2*cos(q1) -> l1*(m1 + m2)*cos(q1).
 *
 * Every pass looks at each term once; nothing loops to a fixed point. */
#include "sym_internal.h"

#include <stdlib.h>
#include <string.h>

enum { FOLD_PASSES = 4, FACTOR_DEPTH = 12 };

/* A term is k*t with k numeric and t free of a numeric coefficient, as
 * in a canonical sum. A fold can give t a coefficient (sin(q8 - (q7 + q8))
 * is -sin(q7)); set_term moves it into k, so that every step that reads
 * t's factors (gathering, the partner search) sees the whole term. */
typedef struct term { const sym_node *k, *t; int dead; } term;

static int set_term(sym_ctx *c, term *x, const sym_node *k, const sym_node *t) {
  if (!k || !t) return 0;
  const sym_node *kt, *rest;
  sym_split_coef(c, t, &kt, &rest);
  x->k = sym_mul(c, k, kt);
  x->t = rest;
  return x->k && x->t;
}

/* The factors of a product (or the node itself). */
static const sym_node *const *factors(const sym_node *t, uint32_t *n,
                                      const sym_node **one) {
  if (t->kind == SYM_MUL) {
    *n = t->nargs;
    return t->args;
  }
  *one = t;
  *n = 1;
  return one;
}

static int is_fn(const sym_node *f, sym_fn fn) {
  return f->kind == SYM_FUNC && f->fn == fn;
}

/* Index of the live term equal to t, or -1. The map (term node id ->
 * address of its slot) is built once per pass; slots changed since hold
 * another node and do not match. */
static int find(const term *ts, size_t n, const sym_memo *map, const sym_node *t) {
  const sym_node *hit = sym_memo_get(map, t->id);
  if (!hit) return -1;
  /* the memo stores &ts[i].t cast away: recover i by pointer arithmetic */
  size_t i = (size_t)((const term *)(const void *)hit - ts);
  return i < n && !ts[i].dead && ts[i].t == t ? (int)i : -1;
}

static int build_map(const term *ts, size_t n, sym_memo *map) {
  for (size_t i = 0; i < n; i++)
    if (!ts[i].dead && !sym_memo_put(map, ts[i].t->id, (const sym_node *)(const void *)&ts[i]))
      return 0;
  return 1;
}

/* ---- angle sums ---------------------------------------------------------- */
/* For term i holding f(a)*g(b), the partner R*f'(a)*g'(b) and the result. */
static int fold_pair(sym_ctx *c, term *ts, size_t n, const sym_memo *map, size_t i,
                     const sym_node *fa, const sym_node *gb) {
  const sym_node *a = fa->args[0], *b = gb->args[0];
  const sym_node *R = sym_div(c, ts[i].t, sym_mul(c, fa, gb));
  int cc = is_fn(fa, SYM_FN_COS) && is_fn(gb, SYM_FN_COS);
  int sc = is_fn(fa, SYM_FN_SIN) && is_fn(gb, SYM_FN_COS);
  if (!cc && !sc) return 0;
  sym_fn pf = cc ? SYM_FN_SIN : SYM_FN_COS;
  const sym_node *partner = sym_mul(c, R, sym_mul(c, sym_func(c, pf, a, NULL),
                                                  sym_func(c, SYM_FN_SIN, b, NULL)));
  if (!partner) return 0;
  int j = find(ts, n, map, partner);
  if (j < 0 || (size_t)j == i) return 0;
  int same = ts[j].k == ts[i].k;
  if (!same && ts[j].k != sym_neg(c, ts[i].k)) return 0;
  /* cos a cos b +- sin a sin b = cos(a -+ b); sin a cos b +- cos a sin b = sin(a +- b) */
  const sym_node *arg = (cc == same) ? sym_sub(c, a, b) : sym_add(c, a, b);
  ts[j].dead = 1;
  return set_term(c, &ts[i], ts[i].k,
                  sym_mul(c, R, sym_func(c, cc ? SYM_FN_COS : SYM_FN_SIN, arg, NULL)));
}

static int fold_term(sym_ctx *c, term *ts, size_t n, const sym_memo *map, size_t i) {
  uint32_t nf;
  const sym_node *one;
  const sym_node *const *fs = factors(ts[i].t, &nf, &one);
  for (uint32_t x = 0; x < nf; x++) {
    if (!is_fn(fs[x], SYM_FN_COS) && !is_fn(fs[x], SYM_FN_SIN)) continue;
    for (uint32_t y = 0; y < nf; y++)
      if (y != x && is_fn(fs[y], SYM_FN_COS) && fold_pair(c, ts, n, map, i, fs[x], fs[y]))
        return 1;
  }
  return 0;
}

/* ---- sin^2 + cos^2 ------------------------------------------------------- */
static int pythagoras_term(sym_ctx *c, term *ts, size_t n, const sym_memo *map, size_t i) {
  uint32_t nf;
  const sym_node *one;
  const sym_node *const *fs = factors(ts[i].t, &nf, &one);
  for (uint32_t x = 0; x < nf; x++) {
    const sym_node *f = fs[x];
    int64_t k;
    if (f->kind != SYM_POW || !is_fn(f->args[0], SYM_FN_SIN) ||
        !sym_is_integer(f->args[1], &k) || k < 2)
      continue;
    const sym_node *s2 = sym_powi(c, f->args[0], 2);
    const sym_node *R = sym_div(c, ts[i].t, s2);
    const sym_node *c2 = sym_powi(c, sym_func(c, SYM_FN_COS, f->args[0]->args[0], NULL), 2);
    int j = find(ts, n, map, sym_mul(c, R, c2));
    if (j < 0) continue;
    /* a R s^2 + b R c^2 = b R + (a - b) R s^2 */
    const sym_node *a = ts[i].k, *b = ts[j].k;
    return set_term(c, &ts[i], sym_sub(c, a, b), ts[i].t) && set_term(c, &ts[j], b, R);
  }
  return 0;
}

/* One pass of f over the live terms; returns 1 when something changed. */
static int pass(sym_ctx *c, term *ts, size_t n,
                int (*f)(sym_ctx *, term *, size_t, const sym_memo *, size_t), int *err) {
  sym_memo map = {0};
  if (!build_map(ts, n, &map)) {
    *err = 1;
    return 0;
  }
  int hit = 0;
  for (size_t i = 0; i < n; i++)
    if (!ts[i].dead && f(c, ts, n, &map, i)) hit = 1;
  sym_memo_free(&map);
  return hit;
}

/* ---- gathering by kinematic part --------------------------------------------- */
static int is_param(sym_ctx *c, const sym_node *f) {
  return f->max_order == 0 && !sym_has(f, sym_time(c));
}

/* e = k * res with k the numeric content of the sum e: the common
 * absolute value of its coefficients (else 1), negative when they all are. */
static const sym_node *content(sym_ctx *c, const sym_node *e, const sym_node **k) {
  *k = c->one;
  if (!e || e->kind != SYM_ADD || !sym_is_zero(e->coef)) return e;
  int neg = 1, same = 1;
  const sym_node *a0 = e->coefs[0]->kind == SYM_NUM ? e->coefs[0] : NULL;
  if (!a0) return e;
  if (sym_num_sign(a0) < 0) a0 = sym_num_neg(c, a0);
  for (uint32_t i = 0; i < e->nargs; i++) {
    const sym_node *x = e->coefs[i];
    if (x->kind != SYM_NUM) return e;
    neg &= sym_num_sign(x) < 0;
    same &= x == a0 || sym_num_neg(c, x) == a0;
  }
  const sym_node *kk = same ? a0 : c->one;
  if (neg) kk = sym_num_neg(c, kk);
  if (sym_is_one(kk)) return e;
  *k = kk;
  return sym_mul(c, sym_pow(c, kk, c->minus_one), e);
}

/* t = P * K with P the parameter factors and K the rest */
static void split_kinematic(sym_ctx *c, const sym_node *t, const sym_node **P,
                            const sym_node **K) {
  uint32_t nf;
  const sym_node *one;
  const sym_node *p, *k = sym_int(c, 1);
  sym_split_coef(c, t, &p, &t); /* (1 for a term of a canonical sum) */
  const sym_node *const *fs = factors(t, &nf, &one);
  for (uint32_t i = 0; i < nf; i++) {
    /* a sum stays a factor of K: multiplying it by the numeric
     * coefficient would distribute it again */
    if (fs[i]->kind == SYM_ADD) { /* its numeric content joins P */
      const sym_node *kk, *x = content(c, fs[i], &kk);
      p = sym_mul(c, p, kk);
      k = sym_mul(c, k, x);
    } else if (is_param(c, fs[i])) {
      p = sym_mul(c, p, fs[i]);
    } else {
      k = sym_mul(c, k, fs[i]);
    }
  }
  *P = p;
  *K = k;
}

/* k * a * b without distributing k over a sum a */
static const sym_node *scaled(sym_ctx *c, const sym_node *k, const sym_node *a,
                              const sym_node *b) {
  return sym_mul(c, k, sym_mul(c, a, b));
}

/* Does the product t hold base b to a positive integer power? */
static int holds(sym_ctx *c, const sym_node *t, const sym_node *b0) {
  uint32_t nf;
  const sym_node *one;
  const sym_node *const *fs = factors(t, &nf, &one);
  for (uint32_t j = 0; j < nf; j++) {
    const sym_node *b, *x;
    int64_t k;
    sym_split_pow(c, fs[j], &b, &x);
    if (b == b0 && sym_is_integer(x, &k) && k >= 1) return 1;
  }
  return 0;
}

/* Greedy Horner on a sum of parameter monomials: pull out the base found
 * in most terms (ties: the first in sym_cmp order), at its least power. */
static const sym_node *factor_params(sym_ctx *c, const sym_node *e, int depth) {
  if (!e || e->kind != SYM_ADD || depth >= FACTOR_DEPTH) return e;
  const sym_node *best = NULL;
  size_t best_n = 1;
  lg_map count = {0}; /* base id -> the terms it is in */
  for (uint32_t i = 0; i < e->nargs; i++) {
    uint32_t nf;
    const sym_node *one;
    const sym_node *const *fs = factors(e->args[i], &nf, &one);
    for (uint32_t j = 0; j < nf; j++) {
      const sym_node *b, *x;
      int64_t k;
      sym_split_pow(c, fs[j], &b, &x);
      if (!sym_is_integer(x, &k) || k < 1) continue;
      size_t m = lg_map_get_n(&count, b->id) + 1;
      lg_map_put_n(&count, b->id, m);
      if (m > best_n || (m == best_n && best && sym_cmp(b, best) < 0)) best = b, best_n = m;
    }
  }
  lg_map_free(&count);
  if (!best) return e;
  int64_t emin = INT64_MAX;
  for (uint32_t i = 0; i < e->nargs; i++) {
    uint32_t nf;
    const sym_node *one;
    const sym_node *const *fs = factors(e->args[i], &nf, &one);
    for (uint32_t j = 0; j < nf; j++) {
      const sym_node *b, *x;
      int64_t k;
      sym_split_pow(c, fs[j], &b, &x);
      if (b == best && sym_is_integer(x, &k) && k >= 1 && k < emin) emin = k;
    }
  }
  const sym_node *xe = sym_powi(c, best, emin);
  const sym_node **in = lg_malloc((e->nargs + 1) * 2 * sizeof *in);
  if (!in) return NULL;
  const sym_node **out = in + e->nargs + 1;
  size_t ni = 0, no = 0;
  out[no++] = e->coef;
  for (uint32_t i = 0; i < e->nargs; i++) {
    const sym_node *t = sym_mul(c, e->coefs[i], e->args[i]);
    const sym_node *q = sym_div(c, t, xe);
    if (holds(c, e->args[i], best)) in[ni++] = q;
    else out[no++] = t;
  }
  const sym_node *k, *inner = factor_params(c, sym_addv(c, ni, in), depth + 1);
  const sym_node *rest = factor_params(c, sym_addv(c, no, out), depth + 1);
  lg_free(in);
  inner = content(c, inner, &k);
  return sym_add(c, scaled(c, k, xe, inner), rest);
}

/* ---- one sum ------------------------------------------------------------------ */
static int by_kinematic(const void *x, const void *y) {
  const term *a = x, *b = y;
  return a->t->id < b->t->id ? -1 : a->t->id > b->t->id;
}

/* Terms (k, t) gathered by kinematic part: res = sum_K (sum P) K */
static const sym_node *gather(sym_ctx *c, term *ts, size_t n) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (ts[i].dead) continue;
    const sym_node *P, *K;
    split_kinematic(c, ts[i].t, &P, &K);
    ts[m++] = (term){sym_mul(c, ts[i].k, P), K, 0};
  }
  qsort(ts, m, sizeof *ts, by_kinematic);
  const sym_node **out = lg_malloc((m + 1) * sizeof *out);
  if (!out) return NULL;
  size_t no = 0;
  for (size_t i = 0; i < m;) {
    size_t j = i;
    while (j < m && ts[j].t == ts[i].t) j++;
    const sym_node **ks = lg_malloc((j - i) * sizeof *ks);
    if (!ks) break;
    for (size_t l = i; l < j; l++) ks[l - i] = ts[l].k;
    const sym_node *k, *P = factor_params(c, sym_addv(c, j - i, ks), 0);
    lg_free(ks);
    P = content(c, P, &k);
    out[no++] = scaled(c, k, P, ts[i].t);
    i = j;
  }
  const sym_node *r = sym_addv(c, no, out);
  lg_free(out);
  return r;
}

static const sym_node *collect_sum(sym_ctx *c, const sym_node *e) {
  size_t n = e->nargs + 1;
  term *ts = lg_malloc(n * sizeof *ts);
  if (!ts) return NULL;
  for (uint32_t i = 0; i < e->nargs; i++) ts[i] = (term){e->coefs[i], e->args[i], 0};
  ts[e->nargs] = (term){e->coef, c->one, sym_is_zero(e->coef)};
  int err = 0;
  for (int r = 0; r < FOLD_PASSES && pass(c, ts, n, fold_term, &err); r++) {}
  pass(c, ts, n, pythagoras_term, &err);
  const sym_node *res = err ? NULL : gather(c, ts, n);
  lg_free(ts);
  return res;
}

static const sym_node *collect_fn(sym_ctx *c, void *ud, const sym_node *orig,
                                  const sym_node *e) {
  (void)ud;
  (void)orig;
  return e->kind == SYM_ADD ? collect_sum(c, e) : e;
}

const sym_node *sym_collect(sym_ctx *c, const sym_node *e) {
  return sym_rewrite_bottom_up(c, e, collect_fn, c ? &c->collect_memo : NULL);
}
