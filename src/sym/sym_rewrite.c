/* sym_rewrite.c - substitution, expansion and the bounded simplifier.
 * Each is a memoized bottom-up rebuild through the smart constructors. */
#include "sym_internal.h"

#include <stdint.h>

#include <string.h>

/* Rebuild e with new children (same kind, same coefficients). */
static const sym_node *rebuild(sym_ctx *c, const sym_node *e,
                               const sym_node *const *args) {
  switch (e->kind) {
  case SYM_ADD: {
    const sym_node *local[65];
    size_t n = (size_t)e->nargs + 1;
    const sym_node **ts = n > 65 ? lg_malloc(n * sizeof *ts) : local;
    if (!ts) return NULL;
    ts[0] = e->coef;
    for (uint32_t i = 0; i < e->nargs; i++) ts[i + 1] = sym_mul(c, e->coefs[i], args[i]);
    const sym_node *r = sym_addv(c, n, ts);
    if (ts != local) lg_free(ts);
    return r;
  }
  case SYM_MUL: {
    const sym_node *local[65];
    size_t n = (size_t)e->nargs + 1;
    const sym_node **fs = n > 65 ? lg_malloc(n * sizeof *fs) : local;
    if (!fs) return NULL;
    fs[0] = e->coef;
    memcpy(fs + 1, args, e->nargs * sizeof *fs);
    const sym_node *r = sym_mulv(c, n, fs);
    if (fs != local) lg_free(fs);
    return r;
  }
  case SYM_POW: return sym_pow(c, args[0], args[1]);
  case SYM_FUNC: return sym_func(c, (sym_fn)e->fn, args[0], e->nargs > 1 ? args[1] : NULL);
  default: return e;
  }
}


typedef struct rewriter {
  sym_ctx *c;
  sym_memo *memo; /* per call (substitution) or the context's (expand, simplify) */
  sym_rewrite_fn fn;
  void *ud;
  int lets; /* substitution: into let definitions too */
  const unsigned char *clean; /* by id: 1 holds nothing to replace (or NULL) */
  size_t nclean;
} rewriter;

static const sym_node *rewrite(rewriter *w, const sym_node *e) {
  if (!e) return NULL;
  if (w->clean && e->id < w->nclean && w->clean[e->id] == 1) return e;
  const sym_node *r = sym_memo_get(w->memo, e->id);
  if (r) return r;
  const sym_node *def = w->lets && !e->nargs ? sym_let_def(w->c, e) : NULL;
  if (def) { /* a let-bound atom: its definition substituted, bound anew */
    const sym_node *to = rewrite(w, def);
    r = !to ? NULL : to == def ? e : sym_let(w->c, to, 0, NULL);
    if (r && !sym_memo_put(w->memo, e->id, r)) r = NULL;
    return r;
  }
  const sym_node *local[64];
  const sym_node **args = e->nargs > 64 ? lg_malloc(e->nargs * sizeof *args) : local;
  if (!args) return NULL;
  int changed = 0;
  for (uint32_t i = 0; i < e->nargs; i++) {
    args[i] = rewrite(w, e->args[i]);
    if (!args[i]) {
      if (args != local) lg_free(args);
      return NULL;
    }
    changed |= args[i] != e->args[i];
  }
  const sym_node *built = changed ? rebuild(w->c, e, args) : e;
  if (args != local) lg_free(args);
  r = built ? w->fn(w->c, w->ud, e, built) : NULL;
  if (r && !sym_memo_put(w->memo, e->id, r)) r = NULL;
  return r;
}

const sym_node *sym_rewrite_bottom_up(sym_ctx *c, const sym_node *e, sym_rewrite_fn fn,
                                      sym_memo *memo) {
  if (!c || !e) return NULL;
  rewriter w = {c, memo, fn, NULL, 0, NULL, 0};
  return rewrite(&w, e);
}

/* ---- substitution ------------------------------------------------------------ */
static const sym_node *subst_fn(sym_ctx *c, void *ud, const sym_node *orig,
                                const sym_node *rebuilt) {
  (void)c;
  const sym_node *to = sym_memo_get(&((sym_subst_cache *)ud)->map, orig->id);
  return to ? to : rebuilt;
}

/* The replacement for a node is looked up before its children are
 * rewritten, so replacements are never rewritten again. */
static const sym_node *subst_node(rewriter *w, const sym_node *e) {
  const sym_node *to = sym_memo_get(&((sym_subst_cache *)w->ud)->map, e->id);
  return to ? to : rewrite(w, e);
}

lg_status sym_subst_cache_init(sym_subst_cache *s, size_t n, const sym_node *const *from,
                               const sym_node *const *to) {
  memset(s, 0, sizeof *s);
  for (size_t i = 0; i < n; i++) {
    /* the memo is seeded too, so inner matches are taken as they are */
    if (!from[i] || !to[i] || !sym_memo_put(&s->map, from[i]->id, to[i]) ||
        !sym_memo_put(&s->memo, from[i]->id, to[i])) {
      sym_subst_cache_free(s);
      return LG_ERR_NOMEM;
    }
  }
  return LG_OK;
}

const sym_node *sym_subst_cached(sym_ctx *c, sym_subst_cache *s, const sym_node *e) {
  if (!c || !e) return NULL;
  rewriter w = {c, &s->memo, subst_fn, s, 1, NULL, 0};
  return subst_node(&w, e);
}

const sym_node *sym_subst_cached_pruned(sym_ctx *c, sym_subst_cache *s, const sym_node *e,
                                        const unsigned char *state, size_t nstate) {
  if (!c || !e) return NULL;
  rewriter w = {c, &s->memo, subst_fn, s, 1, state, nstate};
  return subst_node(&w, e);
}

void sym_subst_cache_free(sym_subst_cache *s) {
  sym_memo_free(&s->map);
  sym_memo_free(&s->memo);
}

const sym_node *sym_subst(sym_ctx *c, const sym_node *e, size_t n,
                          const sym_node *const *from,
                          const sym_node *const *to) {
  if (!c || !e) return NULL;
  sym_subst_cache s;
  if (sym_subst_cache_init(&s, n, from, to) != LG_OK) return NULL;
  const sym_node *r = sym_subst_cached(c, &s, e);
  sym_subst_cache_free(&s);
  return r;
}

/* ---- expansion ---------------------------------------------------------------- */
enum { EXPAND_MAX_TERMS = 20000, EXPAND_MAX_POWER = 12 };

static size_t term_count(const sym_node *e) {
  return e->kind == SYM_ADD ? e->nargs + !sym_is_zero(e->coef) : 1;
}

/* (sum a_i)(sum b_j) -> sum a_i b_j */
static const sym_node *distribute(sym_ctx *c, const sym_node *a, const sym_node *b) {
  if (a->kind != SYM_ADD && b->kind != SYM_ADD) return sym_mul(c, a, b);
  size_t na = term_count(a), nb = term_count(b);
  if (na * nb > EXPAND_MAX_TERMS) return sym_mul(c, a, b);
  const sym_node **ts = lg_malloc(na * nb * sizeof *ts);
  if (!ts) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < na; i++) {
    const sym_node *x = a->kind != SYM_ADD ? a
                        : i < a->nargs ? sym_mul(c, a->coefs[i], a->args[i]) : a->coef;
    for (size_t j = 0; j < nb; j++) {
      const sym_node *y = b->kind != SYM_ADD ? b
                          : j < b->nargs ? sym_mul(c, b->coefs[j], b->args[j]) : b->coef;
      ts[k++] = sym_mul(c, x, y);
    }
  }
  const sym_node *r = sym_addv(c, k, ts);
  lg_free(ts);
  return r;
}

static const sym_node *expand_fn(sym_ctx *c, void *ud, const sym_node *orig,
                                 const sym_node *e) {
  (void)ud;
  (void)orig;
  int64_t n;
  if (e->kind == SYM_MUL) {
    const sym_node *acc = e->coef;
    for (uint32_t i = 0; i < e->nargs && acc; i++) acc = distribute(c, acc, e->args[i]);
    return acc;
  }
  if (e->kind == SYM_POW && e->args[0]->kind == SYM_ADD &&
      sym_is_integer(e->args[1], &n) && n > 1 && n <= EXPAND_MAX_POWER) {
    const sym_node *acc = e->args[0];
    for (int64_t i = 1; i < n && acc; i++) acc = distribute(c, acc, e->args[0]);
    return acc;
  }
  return e;
}

const sym_node *sym_expand(sym_ctx *c, const sym_node *e) {
  return sym_rewrite_bottom_up(c, e, expand_fn, c ? &c->expand_memo : NULL);
}

/* ---- the bounded simplifier ------------------------------------------------------ */
/* Is f = g(u)^k with g = fn and k >= 2? Sets *arg and *k. */
static int is_fn_power(const sym_node *f, sym_fn fn, const sym_node **arg, int64_t *k) {
  if (f->kind != SYM_POW || f->args[0]->kind != SYM_FUNC || f->args[0]->fn != fn)
    return 0;
  if (!sym_is_integer(f->args[1], k) || *k < 2) return 0;
  *arg = f->args[0]->args[0];
  return 1;
}

/* The partner of term t's factor f = s^k (s = sin u or sinh u): t's R =
 * t / s^2 times c^2 (c = cos u or cosh u), or NULL when f is no such power.
 * *hyper says which. */
static const sym_node *partner_of(sym_ctx *c, const sym_node *t, const sym_node *f,
                                  int *hyper) {
  const sym_node *u;
  int64_t k;
  *hyper = 0;
  if (!is_fn_power(f, SYM_FN_SIN, &u, &k)) {
    if (!is_fn_power(f, SYM_FN_SINH, &u, &k)) return NULL;
    *hyper = 1;
  }
  const sym_node *R = sym_div(c, t, sym_powi(c, f->args[0], 2));
  const sym_node *cf = sym_func(c, *hyper ? SYM_FN_COSH : SYM_FN_COS, u, NULL);
  return sym_mul(c, R, sym_powi(c, cf, 2));
}

/* Partners by (term id, factor index), across the rounds of one sum: each
 * is built once (building them for every term in every round made the
 * delta robot's Kane equations take 0.1 s to simplify). A factor that is
 * no power of a sine maps to the term itself, which is never a partner. */
typedef struct partners { sym_memo by_factor; lg_map index; } partners;

static const sym_node *cached_partner(sym_ctx *c, partners *P, const sym_node *t, uint32_t j,
                                      const sym_node *f, int *hyper) {
  uint64_t key = ((uint64_t)t->id << 8) | (j < 255 ? j : 255);
  const sym_node *p = j < 255 ? sym_memo_get(&P->by_factor, key) : NULL;
  if (p) {
    *hyper = f->kind == SYM_POW && f->args[0]->kind == SYM_FUNC && f->args[0]->fn == SYM_FN_SINH;
    return p == t ? NULL : p;
  }
  p = partner_of(c, t, f, hyper);
  if (j < 255) sym_memo_put(&P->by_factor, key, p ? p : t);
  return p;
}

/* In the sum (k_i, t_i): find a term a*R*s^2 and a term b*R*c^2 and replace
 * them by b*R + (a-b)*R*s^2 (s = sin u, c = cos u; also cosh^2 - sinh^2).
 * Each step removes one c^2 term, so the loop ends. The first such pair in
 * term, factor, partner order, as a plain scan finds it. */
static const sym_node *pythagoras_once(sym_ctx *c, partners *P, const sym_node *e, int *hit) {
  lg_map_free(&P->index); /* the terms of this round: id -> index + 1 */
  for (uint32_t m = 0; m < e->nargs; m++)
    if (!lg_map_put_n(&P->index, e->args[m]->id, (size_t)m + 1))
      return e; /* out of memory: no simplification */
  for (uint32_t i = 0; i < e->nargs; i++) {
    const sym_node *t = e->args[i];
    const sym_node *fs1 = t->kind == SYM_MUL ? NULL : t;
    uint32_t nf = t->kind == SYM_MUL ? t->nargs : 1;
    for (uint32_t j = 0; j < nf; j++) {
      int hyper;
      const sym_node *partner = cached_partner(c, P, t, j, fs1 ? fs1 : t->args[j], &hyper);
      if (!partner) continue;
      size_t at = lg_map_get_n(&P->index, partner->id);
      if (!at || e->args[at - 1] != partner) continue;
      uint32_t m = (uint32_t)at - 1;
      const sym_node *a = e->coefs[i], *b = e->coefs[m];
      const sym_node *R = sym_div(c, t, sym_powi(c, (fs1 ? fs1 : t->args[j])->args[0], 2));
      /* sin: a R s^2 + b R c^2 = b R + (a-b) R s^2
         sinh: a R sh^2 + b R ch^2 = b R + (a+b) R sh^2 */
      const sym_node *ks = hyper ? sym_add(c, a, b) : sym_sub(c, a, b);
      const sym_node *rest = sym_sub(c, e, sym_add(c, sym_mul(c, a, t), sym_mul(c, b, partner)));
      *hit = 1;
      return sym_addv(c, 3, (const sym_node *[]){rest, sym_mul(c, b, R), sym_mul(c, ks, t)});
    }
  }
  return e;
}

static const sym_node *simplify_fn(sym_ctx *c, void *ud, const sym_node *orig,
                                   const sym_node *e) {
  (void)ud;
  (void)orig;
  e = expand_fn(c, NULL, orig, e);
  partners P;
  memset(&P, 0, sizeof P);
  for (int round = 0; e && e->kind == SYM_ADD && round < 64; round++) {
    int hit = 0;
    e = pythagoras_once(c, &P, e, &hit);
    if (!hit) break;
  }
  sym_memo_free(&P.by_factor);
  lg_map_free(&P.index);
  return e;
}

const sym_node *sym_simplify(sym_ctx *c, const sym_node *e) {
  return sym_rewrite_bottom_up(c, e, simplify_fn, c ? &c->simplify_memo : NULL);
}
