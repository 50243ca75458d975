/* test_sym_collect.c - property test of sym_collect: on random sums built
 * to meet every rewrite it makes (angle sums in both orders and signs,
 * sin^2 + cos^2 pairs, parameter coefficients to gather and factor, sums
 * as factors, nested sums), the collected expression equals the original
 * at random values of every atom. Plus the case that broke the generated
 * mass matrix of an 11-link 3D arm: a fold whose result is the sine of a
 * negative-leading argument (sin(q8 - (q7 + q8)) = -sin(q7)). The
 * expansion and the bounded simplifier, which printing also runs, are
 * held to the same property. */
#include "sym.h"
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

enum { NQ = 4, NP = 4, NATOM = 2 * NQ + NP, CASES = 3000, POINTS = 3 };

static sym_ctx *C;
static const sym_node *atom[NATOM]; /* q1..q4, q1'..q4', p1..p4 */
static double val[NATOM];
static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint32_t rnd(uint32_t n) { /* xorshift64*: reproducible everywhere */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (uint32_t)((rng * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

static int value_of(void *ud, const sym_node *a, double *out) {
  (void)ud;
  for (int i = 0; i < NATOM; i++)
    if (atom[i] == a) {
      *out = val[i];
      return 0;
    }
  return 1;
}

static double ev(const sym_node *e) {
  double r = NAN;
  if (sym_eval(C, e, value_of, NULL, &r, NULL) != LG_OK) return NAN;
  return r;
}

/* ---- random pieces ----------------------------------------------------------------- */
static const sym_node *coef(void) { /* a nonzero rational, either sign */
  int64_t num = (int64_t)rnd(7) + 1, den = (int64_t)rnd(3) + 1;
  return sym_rat(C, rnd(2) ? -num : num, den);
}

/* a linear combination of one to three coordinates (often negative-leading) */
static const sym_node *angle(void) {
  const sym_node *a = sym_mul(C, coef(), atom[rnd(NQ)]);
  for (uint32_t k = rnd(3); k > 0; k--) a = sym_add(C, a, sym_mul(C, coef(), atom[rnd(NQ)]));
  return a;
}

static const sym_node *trig(sym_fn f, const sym_node *a) { return sym_func(C, f, a, NULL); }

/* a product of parameters, rates and trigonometric factors */
static const sym_node *monomial(void) {
  const sym_node *m = sym_int(C, 1);
  for (uint32_t k = rnd(4); k > 0; k--) {
    switch (rnd(5)) {
    case 0: m = sym_mul(C, m, sym_powi(C, atom[2 * NQ + rnd(NP)], 1 + (int64_t)rnd(2))); break;
    case 1: m = sym_mul(C, m, atom[NQ + rnd(NQ)]); break;
    case 2: m = sym_mul(C, m, trig(rnd(2) ? SYM_FN_SIN : SYM_FN_COS, angle())); break;
    case 3: m = sym_mul(C, m, sym_powi(C, trig(SYM_FN_SIN, atom[rnd(NQ)]), 2 + (int64_t)rnd(2))); break;
    default: m = sym_mul(C, m, atom[2 * NQ + rnd(NP)]); break;
    }
  }
  return m;
}

/* Terms that the collection rewrites, each with a random common part R */
static const sym_node *pattern(void) {
  const sym_node *R = monomial(), *k = coef(), *k2 = rnd(2) ? k : sym_neg(C, k);
  const sym_node *a = angle(), *b = rnd(3) ? angle() : sym_add(C, a, atom[rnd(NQ)]);
  const sym_node *sa = trig(SYM_FN_SIN, a), *ca = trig(SYM_FN_COS, a);
  const sym_node *sb = trig(SYM_FN_SIN, b), *cb = trig(SYM_FN_COS, b);
  const sym_node *t1, *t2;
  switch (rnd(4)) {
  case 0: t1 = sym_mul(C, ca, cb), t2 = sym_mul(C, sa, sb); break; /* cos(a -+ b) */
  case 1: t1 = sym_mul(C, sa, cb), t2 = sym_mul(C, ca, sb); break; /* sin(a +- b) */
  case 2: /* a R s^2 + b R c^2 */
    t1 = sym_powi(C, sa, 2), t2 = sym_powi(C, ca, 2), k2 = coef();
    break;
  default: /* the same kinematic part with two parameter coefficients */
    t1 = sym_mul(C, atom[2 * NQ + rnd(NP)], ca), t2 = sym_mul(C, atom[2 * NQ + rnd(NP)], ca);
    break;
  }
  return sym_add(C, sym_mul(C, k, sym_mul(C, R, t1)), sym_mul(C, k2, sym_mul(C, R, t2)));
}

static const sym_node *expr(int depth) {
  const sym_node *e = sym_int(C, (int64_t)rnd(3));
  for (uint32_t n = 1 + rnd(5); n > 0; n--) {
    uint32_t kind = rnd(depth > 0 ? 5 : 3);
    const sym_node *t = kind == 0 ? sym_mul(C, coef(), monomial())
                        : kind <= 2 ? pattern()
                        : kind == 3 ? sym_mul(C, monomial(), expr(depth - 1)) /* a sum as a factor */
                                    : sym_mul(C, coef(), trig(SYM_FN_COS, expr(depth - 1)));
    e = sym_add(C, e, t);
  }
  return e;
}

/* ---- the property ------------------------------------------------------------------ */
static int same_value(const sym_node *e, const sym_node *g) {
  for (int p = 0; p < POINTS; p++) {
    for (int i = 0; i < NATOM; i++) val[i] = -2.0 + 4.0 * rnd(1u << 20) / (double)(1u << 20);
    double a = ev(e), b = ev(g);
    if (!(fabs(a - b) <= 1e-10 * (1 + fabs(a)))) {
      char *s = sym_to_string(e), *t = sym_to_string(g);
      fprintf(stderr, "  %s\n  collected to %s\n  %.17g != %.17g\n", s, t, a, b);
      lg_free(s);
      lg_free(t);
      return 0;
    }
  }
  return 1;
}

/* The same property for each rewrite that feeds printing and codegen. */
static void test_random_sums(const sym_node *(*rewrite)(sym_ctx *, const sym_node *), int cases) {
  int bad = 0;
  for (int n = 0; n < cases && bad < 3; n++) {
    const sym_node *e = expr(2), *g = rewrite(C, e);
    if (!g || !same_value(e, g)) bad++;
  }
  CHECK(bad == 0);
}

/* The arm's entry: l*cos(q9)/2 * (sin(q8) cos(q7 + q8) - sin(q7 + q8) cos(q8)) */
static void test_negative_angle_fold(void) {
  const sym_node *q7 = atom[0], *q8 = atom[1], *q9 = atom[2], *l = atom[2 * NQ];
  const sym_node *a = sym_add(C, q7, q8), *half = sym_rat(C, 1, 2);
  const sym_node *R = sym_mul(C, half, sym_mul(C, l, trig(SYM_FN_COS, q9)));
  const sym_node *e = sym_sub(C, sym_mul(C, R, sym_mul(C, trig(SYM_FN_SIN, q8), trig(SYM_FN_COS, a))),
                              sym_mul(C, R, sym_mul(C, trig(SYM_FN_SIN, a), trig(SYM_FN_COS, q8))));
  const sym_node *g = sym_collect(C, e);
  CHECK(g && same_value(e, g));
  /* and it is folded: -l*sin(q7)*cos(q9)/2 */
  CHECK(g == sym_neg(C, sym_mul(C, R, trig(SYM_FN_SIN, q7))));
}

int main(void) {
  C = sym_ctx_new();
  if (!C) return 1;
  static const char *names[NATOM] = {"q1", "q2", "q3", "q4", "q1", "q2", "q3", "q4",
                                     "p1", "p2", "p3", "p4"};
  for (int i = 0; i < NATOM; i++)
    atom[i] = i < NQ ? sym_coord(C, names[i], 0)
              : i < 2 * NQ ? sym_coord(C, names[i], 1)
                           : sym_symbol(C, names[i]);
  test_negative_angle_fold();
  test_random_sums(sym_collect, CASES);
  test_random_sums(sym_expand, CASES / 3);
  test_random_sums(sym_simplify, CASES / 3);
  sym_ctx_free(C);
  return tu_summary("test_sym_collect");
}
