/* sym_num.c - exact rationals (int64 fast path, GMP on overflow) and
 * doubles. A rational whose numerator and denominator fit in int64 is
 * always stored small, so equal values intern to the same node. */
#include "sym_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- construction -------------------------------------------------------- */
static int64_t gcd64(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a;
  uint64_t y = b < 0 ? -(uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t r = x % y;
    x = y;
    y = r;
  }
  return (int64_t)x;
}

static const sym_node *make_small(sym_ctx *c, int64_t num, int64_t den) {
  sym_node t = {0};
  t.kind = SYM_NUM;
  t.v.rat.num = num;
  t.v.rat.den = den;
  return sym_intern(c, &t);
}

/* Intern an mpq (canonical); small when it fits. Takes ownership of q's
 * value by copying it. */
static const sym_node *make_big(sym_ctx *c, const mpq_t q) {
  if (mpz_fits_slong_p(mpq_numref(q)) && mpz_fits_slong_p(mpq_denref(q)))
    return make_small(c, mpz_get_si(mpq_numref(q)), mpz_get_si(mpq_denref(q)));
  mpq_t *big = lg_malloc(sizeof *big);
  if (!big || !lg_grow((void **)&c->bigs, &c->bigs_cap, c->nbigs + 1,
                       sizeof *c->bigs)) {
    lg_free(big);
    sym_set_error(c, LG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  mpq_init(*big);
  mpq_set(*big, q);
  c->bigs[c->nbigs++] = big;
  sym_node t = {0};
  t.kind = SYM_NUM;
  t.v.rat.big = big;
  const sym_node *n = sym_intern(c, &t);
  /* When an equal big number already existed, ours stays in the list and
   * is cleared with the context: harmless. */
  return n;
}

const sym_node *sym_rat(sym_ctx *c, int64_t num, int64_t den) {
  if (!c) return NULL;
  if (den == 0) return c->undef;
  if (num == INT64_MIN || den == INT64_MIN) {
    mpq_t q;
    mpq_init(q);
    mpz_set_si(mpq_numref(q), num);
    mpz_set_si(mpq_denref(q), den);
    mpq_canonicalize(q);
    const sym_node *r = make_big(c, q);
    mpq_clear(q);
    return r;
  }
  if (den < 0) {
    num = -num;
    den = -den;
  }
  int64_t g = gcd64(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  return make_small(c, num, num == 0 ? 1 : den);
}

const sym_node *sym_int(sym_ctx *c, int64_t v) { return sym_rat(c, v, 1); }

const sym_node *sym_int_str(sym_ctx *c, const char *digits) {
  mpq_t q;
  mpq_init(q);
  if (mpz_set_str(mpq_numref(q), digits, 10) != 0) {
    mpq_clear(q);
    return c->undef;
  }
  const sym_node *r = make_big(c, q);
  mpq_clear(q);
  return r;
}

const sym_node *sym_float(sym_ctx *c, double v) {
  if (!c) return NULL;
  sym_node t = {0};
  t.kind = SYM_FLOAT;
  t.v.f = v == 0 ? 0.0 : v;
  return sym_intern(c, &t);
}

/* ---- conversion helpers --------------------------------------------------- */
static void to_mpq(mpq_t out, const sym_node *a) {
  if (a->v.rat.big) {
    mpq_set(out, *(mpq_t *)a->v.rat.big);
  } else {
    mpz_set_si(mpq_numref(out), a->v.rat.num);
    mpz_set_si(mpq_denref(out), a->v.rat.den);
  }
}

double sym_number_value(const sym_node *e) {
  if (e->kind == SYM_FLOAT) return e->v.f;
  if (e->kind != SYM_NUM) return NAN;
  if (e->v.rat.big) return mpq_get_d(*(mpq_t *)e->v.rat.big);
  return (double)e->v.rat.num / (double)e->v.rat.den;
}

uint64_t sym_num_hash(const sym_node *n) {
  if (!n->v.rat.big)
    return lg_hash_mix((uint64_t)n->v.rat.num, (uint64_t)n->v.rat.den);
  char *s = mpq_get_str(NULL, 16, *(mpq_t *)n->v.rat.big);
  uint64_t h = lg_hash_bytes(s, strlen(s));
  void (*freefn)(void *, size_t);
  mp_get_memory_functions(NULL, NULL, &freefn);
  freefn(s, strlen(s) + 1);
  return h;
}

int sym_num_equal(const sym_node *a, const sym_node *b) {
  if (!a->v.rat.big && !b->v.rat.big)
    return a->v.rat.num == b->v.rat.num && a->v.rat.den == b->v.rat.den;
  if (a->v.rat.big && b->v.rat.big)
    return mpq_equal(*(mpq_t *)a->v.rat.big, *(mpq_t *)b->v.rat.big);
  return 0; /* small and big never hold the same value */
}

int sym_num_is_small_int(const sym_node *a, int64_t *out) {
  if (a->kind != SYM_NUM || a->v.rat.big || a->v.rat.den != 1) return 0;
  if (out) *out = a->v.rat.num;
  return 1;
}

int sym_num_sign(const sym_node *a) {
  if (a->kind == SYM_FLOAT) return (a->v.f > 0) - (a->v.f < 0);
  if (a->v.rat.big) return mpq_sgn(*(mpq_t *)a->v.rat.big);
  return (a->v.rat.num > 0) - (a->v.rat.num < 0);
}

/* ---- arithmetic ------------------------------------------------------------ */
typedef void (*mpq_op)(mpq_t, const mpq_t, const mpq_t);

static const sym_node *big_op(sym_ctx *c, const sym_node *a, const sym_node *b,
                              mpq_op op) {
  mpq_t x, y, r;
  mpq_inits(x, y, r, NULL);
  to_mpq(x, a);
  to_mpq(y, b);
  op(r, x, y);
  const sym_node *res = make_big(c, r);
  mpq_clears(x, y, r, NULL);
  return res;
}

const sym_node *sym_num_add(sym_ctx *c, const sym_node *a, const sym_node *b) {
  if (a->kind == SYM_UNDEF || b->kind == SYM_UNDEF) return c->undef;
  /* the common cases, without interning a new number */
  if (a == c->zero) return b;
  if (b == c->zero) return a;
  if (a->kind == SYM_FLOAT || b->kind == SYM_FLOAT)
    return sym_float(c, sym_number_value(a) + sym_number_value(b));
  if (!a->v.rat.big && !b->v.rat.big) {
    int64_t an = a->v.rat.num, ad = a->v.rat.den;
    int64_t bn = b->v.rat.num, bd = b->v.rat.den;
    int64_t x, y, n, d;
    if (!__builtin_mul_overflow(an, bd, &x) &&
        !__builtin_mul_overflow(bn, ad, &y) &&
        !__builtin_add_overflow(x, y, &n) &&
        !__builtin_mul_overflow(ad, bd, &d))
      return sym_rat(c, n, d);
  }
  return big_op(c, a, b, mpq_add);
}

const sym_node *sym_num_mul(sym_ctx *c, const sym_node *a, const sym_node *b) {
  if (a->kind == SYM_UNDEF || b->kind == SYM_UNDEF) return c->undef;
  if (a == c->one) return b;
  if (b == c->one) return a;
  if (a == c->zero || b == c->zero) return c->zero;
  if (a->kind == SYM_FLOAT || b->kind == SYM_FLOAT)
    return sym_float(c, sym_number_value(a) * sym_number_value(b));
  if (!a->v.rat.big && !b->v.rat.big) {
    int64_t n, d;
    if (!__builtin_mul_overflow(a->v.rat.num, b->v.rat.num, &n) &&
        !__builtin_mul_overflow(a->v.rat.den, b->v.rat.den, &d))
      return sym_rat(c, n, d);
  }
  return big_op(c, a, b, mpq_mul);
}

const sym_node *sym_num_neg(sym_ctx *c, const sym_node *a) {
  return sym_num_mul(c, c->minus_one, a);
}

static const sym_node *num_inv(sym_ctx *c, const sym_node *a) {
  if (a->kind == SYM_FLOAT) return sym_float(c, 1.0 / a->v.f);
  if (sym_num_sign(a) == 0) return c->undef;
  if (!a->v.rat.big) return sym_rat(c, a->v.rat.den, a->v.rat.num);
  mpq_t r;
  mpq_init(r);
  mpq_inv(r, *(mpq_t *)a->v.rat.big);
  const sym_node *res = make_big(c, r);
  mpq_clear(r);
  return res;
}

const sym_node *sym_num_powi(sym_ctx *c, const sym_node *a, int64_t n) {
  if (a->kind == SYM_FLOAT) return sym_float(c, pow(a->v.f, (double)n));
  if (n == 0) return c->one;
  if (n < 0) {
    if (n == INT64_MIN) return c->undef;
    a = num_inv(c, a);
    if (!a || a->kind == SYM_UNDEF) return a;
    n = -n;
  }
  /* Square-and-multiply; exponents are bounded by the caller. */
  const sym_node *r = c->one, *p = a;
  while (n && r && p) {
    if (n & 1) r = sym_num_mul(c, r, p);
    n >>= 1;
    if (n) p = sym_num_mul(c, p, p);
  }
  return r;
}

/* Integer k-th root of a non-negative int64 when exact. */
static int exact_root(int64_t v, int64_t k, int64_t *out) {
  if (v < 0) return 0;
  double g = pow((double)v, 1.0 / (double)k);
  for (int64_t cand = (int64_t)g - 1; cand <= (int64_t)g + 1; cand++) {
    if (cand < 0) continue;
    int64_t p = 1;
    int ok = 1;
    for (int64_t i = 0; i < k && ok; i++) ok = !__builtin_mul_overflow(p, cand, &p);
    if (ok && p == v) {
      *out = cand;
      return 1;
    }
  }
  return 0;
}

const sym_node *sym_num_root(sym_ctx *c, const sym_node *a, int64_t p, int64_t q) {
  if (a->kind != SYM_NUM || a->v.rat.big || q <= 1 || q > 64) return NULL;
  int64_t rn, rd;
  if (a->v.rat.num < 0) return NULL; /* stay real: no odd roots of negatives */
  if (!exact_root(a->v.rat.num, q, &rn) || !exact_root(a->v.rat.den, q, &rd))
    return NULL;
  return sym_num_powi(c, sym_rat(c, rn, rd), p);
}

int sym_num_cmp(const sym_node *a, const sym_node *b) {
  if (a->kind == SYM_FLOAT || b->kind == SYM_FLOAT) {
    double x = sym_number_value(a), y = sym_number_value(b);
    if (x != y) return x < y ? -1 : 1;
    return (a->kind == SYM_FLOAT) - (b->kind == SYM_FLOAT);
  }
  if (!a->v.rat.big && !b->v.rat.big) {
    __int128 x = (__int128)a->v.rat.num * b->v.rat.den;
    __int128 y = (__int128)b->v.rat.num * a->v.rat.den;
    return (x > y) - (x < y);
  }
  mpq_t x, y;
  mpq_inits(x, y, NULL);
  to_mpq(x, a);
  to_mpq(y, b);
  int r = mpq_cmp(x, y);
  mpq_clears(x, y, NULL);
  return (r > 0) - (r < 0);
}

void sym_num_print(lg_str *out, const sym_node *a) {
  if (!a->v.rat.big) {
    if (a->v.rat.den == 1) lg_str_printf(out, "%lld", (long long)a->v.rat.num);
    else lg_str_printf(out, "%lld/%lld", (long long)a->v.rat.num,
                       (long long)a->v.rat.den);
    return;
  }
  char *s = mpq_get_str(NULL, 10, *(mpq_t *)a->v.rat.big);
  lg_str_puts(out, s);
  void (*freefn)(void *, size_t);
  mp_get_memory_functions(NULL, NULL, &freefn);
  freefn(s, strlen(s) + 1);
}

/* |numerator| (part 0) or denominator (part 1) of an exact rational. */
void sym_num_print_part(lg_str *out, const sym_node *a, int part) {
  if (!a->v.rat.big) {
    int64_t v = part ? a->v.rat.den : a->v.rat.num;
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    char buf[24], *p = buf + sizeof buf;
    do *--p = (char)('0' + u % 10); while ((u /= 10));
    lg_str_putn(out, p, (size_t)(buf + sizeof buf - p));
    return;
  }
  mpz_t z;
  mpz_init(z);
  if (part) mpz_set(z, mpq_denref(*(mpq_t *)a->v.rat.big));
  else mpz_abs(z, mpq_numref(*(mpq_t *)a->v.rat.big));
  char *s = mpz_get_str(NULL, 10, z);
  lg_str_puts(out, s);
  void (*freefn)(void *, size_t);
  mp_get_memory_functions(NULL, NULL, &freefn);
  freefn(s, strlen(s) + 1);
  mpz_clear(z);
}

int sym_num_den_is_one(const sym_node *a) {
  if (a->kind != SYM_NUM) return 1;
  if (!a->v.rat.big) return a->v.rat.den == 1;
  return mpz_cmp_ui(mpq_denref(*(mpq_t *)a->v.rat.big), 1) == 0;
}

int sym_num_abs_is_one(const sym_node *a) {
  if (a->kind == SYM_FLOAT) return a->v.f == 1 || a->v.f == -1;
  return !a->v.rat.big && a->v.rat.den == 1 &&
         (a->v.rat.num == 1 || a->v.rat.num == -1);
}
