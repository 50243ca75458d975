/* test_sym_core.c - the symbolic core: canonical forms, exact arithmetic,
 * derivatives against central differences, printing round trips through
 * the model parser, tape = direct evaluation, and memory under injected
 * allocation failures. */
#include "lang.h"
#include "sym.h"
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sym_ctx *C;
static const sym_node *x, *y, *z, *q, *qd;

/* ---- helpers ------------------------------------------------------------------------ */
static const sym_node *I(int64_t v) { return sym_int(C, v); }
static const sym_node *add(const sym_node *a, const sym_node *b) { return sym_add(C, a, b); }
static const sym_node *mul(const sym_node *a, const sym_node *b) { return sym_mul(C, a, b); }
static const sym_node *pw(const sym_node *a, int64_t k) { return sym_powi(C, a, k); }
static const sym_node *fn(sym_fn f, const sym_node *a) { return sym_func(C, f, a, NULL); }

static int str_is(const sym_node *e, const char *want) {
  char *s = sym_to_string(e);
  int ok = s && strcmp(s, want) == 0;
  if (!ok) fprintf(stderr, "  printed \"%s\", want \"%s\"\n", s ? s : "(null)", want);
  lg_free(s);
  return ok;
}

static double vals[5];
static int value_of(void *ud, const sym_node *a, double *out) {
  (void)ud;
  const sym_node *atoms[5] = {x, y, z, q, qd};
  for (int i = 0; i < 5; i++)
    if (atoms[i] == a) { *out = vals[i]; return 0; }
  return 1;
}

static double ev(const sym_node *e) {
  double r = NAN;
  sym_eval(C, e, value_of, NULL, &r, NULL);
  return r;
}

/* ---- sym_eval_many: several roots in one walk, each as sym_eval ---------------------- */
static void test_eval_many(void) {
  vals[0] = 0.7, vals[1] = -1.3, vals[2] = 2.5;
  const sym_node *e[4] = {add(x, y), mul(add(x, y), fn(SYM_FN_SIN, z)), x, I(3)};
  double out[4];
  CHECK(sym_eval_many(C, 4, e, value_of, NULL, out, NULL) == LG_OK);
  for (int i = 0; i < 4; i++) CHECK(out[i] == ev(e[i]));
  const sym_node *miss = NULL, *w = sym_symbol(C, "w_unvalued");
  const sym_node *f[2] = {x, add(x, w)};
  CHECK(sym_eval_many(C, 2, f, value_of, NULL, out, &miss) == LG_ERR_MODEL && miss == w);
  CHECK(sym_eval_many(C, 0, NULL, value_of, NULL, out, NULL) == LG_OK);
}

/* ---- canonical forms ---------------------------------------------------------------- */
static void test_canonical(void) {
  CHECK(str_is(add(x, x), "2*x"));
  CHECK(str_is(mul(x, x), "x^2"));
  CHECK(mul(I(0), x) == I(0));
  CHECK(sym_powi(C, x, 1) == x);
  CHECK(sym_powi(C, x, 0) == I(1));
  CHECK(fn(SYM_FN_SIN, I(0)) == I(0));
  CHECK(fn(SYM_FN_COS, I(0)) == I(1));
  CHECK(fn(SYM_FN_COS, sym_neg(C, x)) == fn(SYM_FN_COS, x));
  CHECK(fn(SYM_FN_SIN, sym_neg(C, x)) == sym_neg(C, fn(SYM_FN_SIN, x)));
  CHECK(pw(fn(SYM_FN_SQRT, x), 2) == x);
  CHECK(add(add(x, y), z) == add(x, add(y, z)));        /* flattened */
  CHECK(mul(mul(x, y), z) == mul(z, mul(y, x)));        /* ordered */
  CHECK(add(x, y) == add(y, x));
  CHECK(sym_sub(C, add(x, y), y) == x);
  CHECK(str_is(sym_mul(C, sym_rat(C, 1, 2), sym_symbol(C, "m")), "m/2"));
  CHECK(str_is(mul(I(3), add(x, y)), "3*x + 3*y"));
  CHECK(sym_div(C, x, I(0))->kind == SYM_UNDEF);
  CHECK(add(x, sym_div(C, x, I(0)))->kind == SYM_UNDEF);
  CHECK(sym_is_canonical(add(mul(x, pw(y, 3)), mul(I(2), pw(add(x, z), -2)))));
  /* 0.5*x + 0.5*x: the float coefficients combine to 1.0, which drops */
  CHECK(add(mul(sym_float(C, 0.5), x), mul(sym_float(C, 0.5), x)) == x);
  CHECK(sym_pow(C, I(4), sym_rat(C, 1, 2)) == I(2));
  CHECK(sym_pow(C, I(0), I(-1))->kind == SYM_UNDEF);
}

/* ---- exact arithmetic beyond int64 --------------------------------------------------- */
static void test_bignum(void) {
  const sym_node *big = sym_mul(C, I(INT64_C(1) << 62), I(INT64_C(1) << 62));
  CHECK(str_is(big, "21267647932558653966460912964485513216"));
  CHECK(sym_div(C, big, I(INT64_C(1) << 62)) == I(INT64_C(1) << 62)); /* demoted */
  const sym_node *third = sym_rat(C, 1, 3), *acc = I(0);
  for (int i = 0; i < 50; i++) acc = add(acc, sym_powi(C, third, i + 1));
  CHECK(acc && acc->kind == SYM_NUM);
  CHECK(fabs(sym_number_value(acc) - 0.5) < 1e-15);
  CHECK(sym_int_str(C, "123456789012345678901234567890") ==
        sym_mul(C, sym_int_str(C, "12345678901234567890123456789"), I(10)));
}

/* ---- derivatives against central differences --------------------------------------- */
static const sym_node *all_functions(void) {
  /* every function of the table, nested and composite, over x, y */
  const sym_node *u = add(mul(sym_rat(C, 1, 3), x), mul(sym_rat(C, 1, 5), y));
  const sym_node *t = I(0);
  for (int f = 0; f < SYM_FN_COUNT; f++) {
    const sym_node *arg = f == SYM_FN_LOG || f == SYM_FN_SQRT ? add(I(2), pw(u, 2)) : u;
    const sym_node *v = f == SYM_FN_ATAN2 ? sym_func(C, (sym_fn)f, y, add(x, I(3)))
                        : f == SYM_FN_SIGN ? mul(fn(SYM_FN_SIGN, add(x, I(5))), x)
                        : fn((sym_fn)f, arg);
    t = add(t, mul(sym_rat(C, 1, f + 2), v));
  }
  t = add(t, sym_pow(C, add(I(2), pw(x, 2)), add(y, sym_rat(C, 1, 3)))); /* symbolic exponent */
  t = add(t, mul(fn(SYM_FN_SIN, mul(x, fn(SYM_FN_COS, y))), fn(SYM_FN_EXP, mul(x, y))));
  return add(t, sym_div(C, mul(x, pw(y, 3)), add(I(4), pw(x, 2))));
}

static void test_derivatives(void) {
  const sym_node *e = all_functions();
  const sym_node *dx = sym_diff(C, e, x), *dy = sym_diff(C, e, y);
  CHECK(sym_diff(C, e, x) == dx); /* memoized: the same node */
  srand(42);
  for (int k = 0; k < 20; k++) {
    vals[0] = -0.5 + (double)rand() / RAND_MAX;
    vals[1] = -0.5 + (double)rand() / RAND_MAX;
    double h = 1e-6, x0 = vals[0], y0 = vals[1];
    vals[0] = x0 + h; double fp = ev(e);
    vals[0] = x0 - h; double fm = ev(e);
    vals[0] = x0;
    CHECK_NEAR(ev(dx), (fp - fm) / (2 * h), 1e-6);
    vals[1] = y0 + h; fp = ev(e);
    vals[1] = y0 - h; fm = ev(e);
    vals[1] = y0;
    CHECK_NEAR(ev(dy), (fp - fm) / (2 * h), 1e-6);
  }
}

static void test_time_derivative(void) {
  const sym_node *qdd = sym_coord(C, "q", 2), *t = sym_time(C);
  CHECK(sym_dt(C, q) == qd);
  CHECK(sym_dt(C, qd) == qdd);
  CHECK(sym_dt(C, t) == I(1));
  CHECK(sym_dt(C, x) == I(0));
  /* d/dt sin(q t) = cos(q t) (q' t + q) */
  const sym_node *e = fn(SYM_FN_SIN, mul(q, t));
  const sym_node *want = mul(fn(SYM_FN_COS, mul(q, t)), add(mul(qd, t), q));
  CHECK(sym_expand(C, sym_dt(C, e)) == sym_expand(C, want));
  CHECK(sym_diff(C, e, t) == mul(q, fn(SYM_FN_COS, mul(q, t)))); /* explicit t only */
}

/* ---- rewriting --------------------------------------------------------------------------- */
static void test_rewrite(void) {
  const sym_node *from[2] = {x, y}, *to[2] = {y, x};
  CHECK(sym_subst(C, add(x, mul(I(2), y)), 2, from, to) == add(y, mul(I(2), x)));
  const sym_node *fq[1] = {q}, *tq[1] = {I(3)};
  CHECK(sym_subst(C, add(q, qd), 1, fq, tq) == add(I(3), qd)); /* q' stays */
  CHECK(sym_expand(C, pw(add(x, y), 2)) ==
        add(add(pw(x, 2), pw(y, 2)), mul(I(2), mul(x, y))));
  const sym_node *s2 = pw(fn(SYM_FN_SIN, q), 2), *c2 = pw(fn(SYM_FN_COS, q), 2);
  CHECK(sym_simplify(C, mul(x, add(s2, c2))) == x);
  CHECK(sym_simplify(C, add(mul(I(3), mul(y, s2)), mul(I(3), mul(y, c2)))) == mul(I(3), y));
  /* value never changes */
  const sym_node *e = add(mul(add(x, q), add(s2, mul(I(2), c2))), pw(add(y, c2), 2));
  const sym_node *s = sym_simplify(C, e);
  for (int k = 0; k < 5; k++) {
    vals[0] = 0.1 * k; vals[1] = 0.7 - 0.2 * k; vals[3] = 0.3 * k - 1;
    CHECK_NEAR(ev(s), ev(e), 1e-13);
  }
}

/* ---- printing ------------------------------------------------------------------------------ */
static void test_print(void) {
  CHECK(str_is(sym_sub(C, x, y), "x - y"));
  CHECK(str_is(sym_neg(C, pw(x, 2)), "-x^2"));
  CHECK(str_is(pw(add(x, y), -1), "1/(x + y)"));
  CHECK(str_is(fn(SYM_FN_SQRT, x), "sqrt(x)"));
  CHECK(str_is(sym_pow(C, x, sym_rat(C, 3, 2)), "x^(3/2)"));
  CHECK(str_is(sym_float(C, 0.1), "0.1"));
  CHECK(str_is(sym_float(C, 2.0), "2.0"));
  CHECK(str_is(add(qd, sym_coord(C, "q", 2)), "q' + q''"));
  lg_str s;
  lg_str_init(&s);
  sym_print(&s, sym_mul(C, sym_rat(C, 1, 2), mul(x, pw(qd, 2))), SYM_STYLE_LATEX, NULL, NULL);
  CHECK_STR(s.s, "\\frac{x \\dot{q}^{2}}{2}");
  lg_str_clear(&s);
  sym_print(&s, sym_div(C, x, mul(I(2), y)), SYM_STYLE_C, NULL, NULL);
  CHECK_STR(s.s, "0.5*x/y");
  lg_str_free(&s);
}

/* print, parse through the model language, compare nodes */
static void test_round_trip(void) {
  const char *exprs[] = {"x*y^2/3 - sin(q)*q'^2", "atan2(y, x + 1) + exp(-x)/sqrt(2 + y^2)",
                         "(x + y)^(1/3) - 0.25*cos(q - x)", "-x^2 + 2^(-y) + abs(x)*sign(y)",
                         "1/(x*y) - log(2 + x^2) + tanh(q)/cosh(y) + sinh(x)"};
  for (size_t i = 0; i < sizeof exprs / sizeof *exprs; i++) {
    char src[512];
    snprintf(src, sizeof src, "coordinates q\nparameters x, y\nV = %s\n", exprs[i]);
    lang_model *m;
    lg_diag d;
    lg_diag_clear(&d);
    if (lang_load_string("t.lag", src, strlen(src), &m, &d) != LG_OK) {
      CHECK(!"model parses");
      continue;
    }
    const sym_node *e = mech_written_V(m->mech);
    char *text = sym_to_string(e);
    /* Both texts in one model, one context: equal nodes make r1 - r2 the
     * exact zero (canonical sums cancel only identical terms). */
    char src2[1200];
    snprintf(src2, sizeof src2, "coordinates q\nparameters x, y\nr1 = %s\nr2 = %s\nV = r1 - r2\n",
             exprs[i], text);
    lg_free(text);
    lang_model *m2;
    CHECK(lang_load_string("t.lag", src2, strlen(src2), &m2, &d) == LG_OK);
    if (m2) {
      CHECK(mech_written_V(m2->mech) == sym_int(m2->ctx, 0));
      lang_model_free(m2);
    }
    lang_model_free(m);
  }
}

/* ---- tapes --------------------------------------------------------------------------------- */
static void test_tape(void) {
  const sym_node *outs[4] = {all_functions(), sym_diff(C, all_functions(), x),
                             mul(pw(add(x, q), 5), pw(y, -3)), add(qd, sym_pow(C, x, sym_rat(C, 2, 7)))};
  const sym_node *in[5] = {x, y, z, q, qd}, *missing = NULL;
  sym_tape *t = NULL;
  CHECK(sym_tape_build(C, 5, in, 4, outs, &t, &missing) == LG_OK);
  if (!t) return;
  CHECK(t->nslots < t->ninstr);
  double *w = malloc(t->nslots * sizeof *w), out[4];
  for (int k = 0; k < 10; k++) {
    for (int i = 0; i < 5; i++) vals[i] = 0.1 + 0.07 * (k + i);
    sym_tape_eval(t, vals, out, w);
    for (int i = 0; i < 4; i++) CHECK_NEAR(out[i], ev(outs[i]), 1e-13);
  }
  free(w);
  sym_tape_free(t);
  /* an atom without an input is reported */
  const sym_node *o1[1] = {add(x, sym_symbol(C, "w"))};
  CHECK(sym_tape_build(C, 1, in, 1, o1, &t, &missing) == LG_ERR_MODEL && missing &&
        strcmp(missing->v.name, "w") == 0);
  /* IEEE rules: log(-1) is NaN, 1/0.0 is inf */
  vals[0] = -1;
  CHECK(isnan(ev(fn(SYM_FN_LOG, x))));
  vals[0] = 0;
  CHECK(isinf(ev(pw(x, -1))));
}

/* sin and cos of sums of angles are lowered through the angle-addition
 * formulas (library calls only for single angles) and agree with direct
 * evaluation; a sum that contains a sum of two of its angles nests. */
static size_t calls(const sym_tape *t) {
  size_t k = 0;
  for (size_t i = 0; i < t->ninstr; i++) k += t->code[i].op == SYM_OP_FUNC;
  return k;
}

static void test_tape_angle_sums(void) {
  const sym_node *xy = sym_sub(C, x, y), *xyz = add(add(x, y), sym_neg(C, z));
  const sym_node *outs[6] = {fn(SYM_FN_SIN, xy), fn(SYM_FN_COS, xy), fn(SYM_FN_SIN, add(x, y)),
                             fn(SYM_FN_COS, xyz), fn(SYM_FN_SIN, xyz),
                             fn(SYM_FN_SIN, add(mul(I(2), x), y))}; /* 2x + y: a call */
  const sym_node *in[5] = {x, y, z, q, qd}, *missing = NULL;
  sym_tape *t = NULL;
  CHECK(sym_tape_build(C, 5, in, 6, outs, &t, &missing) == LG_OK);
  if (!t) return;
  CHECK(calls(t) == 7); /* sin, cos of x, y, z, and sin(2x + y) */
  double *w = malloc(t->nslots * sizeof *w), out[6];
  for (int k = 0; k < 20; k++) {
    for (int i = 0; i < 5; i++) vals[i] = -3 + 0.37 * k + 0.9 * i;
    sym_tape_eval(t, vals, out, w);
    for (int i = 0; i < 6; i++) CHECK_NEAR(out[i], ev(outs[i]), 1e-14);
  }
  free(w);
  sym_tape_free(t);
}

/* ---- matrices ------------------------------------------------------------------------------ */
static void test_matrix(void) {
  sym_matrix *A = sym_matrix_new(C, 2, 2), *b = sym_matrix_new(C, 2, 1);
  SYM_AT(A, 0, 0) = x; SYM_AT(A, 0, 1) = y; SYM_AT(A, 1, 0) = I(1); SYM_AT(A, 1, 1) = z;
  SYM_AT(b, 0, 0) = I(1); SYM_AT(b, 1, 0) = q;
  int singular = 0;
  sym_matrix *s = sym_matrix_solve(C, A, b, &singular);
  CHECK(s && !singular);
  sym_matrix *r = s ? sym_matrix_mul(C, A, s) : NULL;
  vals[0] = 0.7; vals[1] = 0.2; vals[2] = 1.3; vals[3] = -0.4;
  CHECK(r && fabs(ev(SYM_AT(r, 0, 0)) - 1) < 1e-12 && fabs(ev(SYM_AT(r, 1, 0)) + 0.4) < 1e-12);
  sym_matrix *T = sym_matrix_transpose(C, A);
  CHECK(T && SYM_AT(T, 0, 1) == I(1));
  const sym_node *f[2] = {mul(x, y), fn(SYM_FN_SIN, x)}, *v[2] = {x, y};
  sym_matrix *J = sym_matrix_jacobian(C, 2, f, 2, v);
  CHECK(J && SYM_AT(J, 0, 0) == y && SYM_AT(J, 1, 1) == I(0));
  SYM_AT(A, 0, 0) = I(0); SYM_AT(A, 0, 1) = I(0);
  CHECK(!sym_matrix_solve(C, A, b, &singular) && singular);
}

/* sym_matrix_solve_at: pivots where the values at the point are largest
 * (a zero leading entry there is passed over), nothing expanded: a dense
 * 10 x 10 system of distinct expressions solves to a DAG of O(n^3) nodes. */
static void test_matrix_solve_at(void) {
  sym_matrix *A = sym_matrix_new(C, 2, 2), *b = sym_matrix_new(C, 2, 1);
  SYM_AT(A, 0, 0) = x; SYM_AT(A, 0, 1) = y; SYM_AT(A, 1, 0) = I(1); SYM_AT(A, 1, 1) = z;
  SYM_AT(b, 0, 0) = I(1); SYM_AT(b, 1, 0) = q;
  vals[0] = 0; vals[1] = 0.2; vals[2] = 1.3; vals[3] = -0.4;
  double at[4] = {0, 0.2, 1, 1.3};
  int singular = 1;
  sym_matrix *s = sym_matrix_solve_at(C, A, b, at, &singular);
  sym_matrix *r = s ? sym_matrix_mul(C, A, s) : NULL;
  CHECK(s && !singular);
  CHECK(r && fabs(ev(SYM_AT(r, 0, 0)) - 1) < 1e-12 && fabs(ev(SYM_AT(r, 1, 0)) + 0.4) < 1e-12);
  CHECK(s && isfinite(ev(SYM_AT(s, 0, 0)))); /* not pivoted on x = 0 */
  SYM_AT(A, 1, 0) = x; SYM_AT(A, 1, 1) = y; /* rows equal: singular at any point */
  double twice[4] = {0.7, 0.2, 0.7, 0.2};
  CHECK(!sym_matrix_solve_at(C, A, b, twice, &singular) && singular);
  enum { N = 10 };
  sym_matrix *D = sym_matrix_new(C, N, N), *ones = sym_matrix_new(C, N, 1);
  double dv[N * N];
  vals[0] = 0.3; vals[1] = -0.7;
  for (int i = 0; i < N; i++) {
    SYM_AT(ones, i, 0) = I(1);
    for (int j = 0; j < N; j++) {
      const sym_node *e = fn(SYM_FN_SIN, add(mul(I(i + 1), x), mul(I(j + 2), y)));
      SYM_AT(D, i, j) = i == j ? add(e, I(3)) : e;
      dv[i * N + j] = ev(SYM_AT(D, i, j));
    }
  }
  s = sym_matrix_solve_at(C, D, ones, dv, &singular);
  r = s ? sym_matrix_mul(C, D, s) : NULL;
  CHECK(s && !singular && sym_dag_size_many(N, s->e) < 4 * N * N * N);
  for (int i = 0; r && i < N; i++) CHECK_NEAR(ev(SYM_AT(r, i, 0)), 1, 1e-12);
}

/* ---- out of memory ------------------------------------------------------------------------- */
static void test_fault_injection(void) {
  const char *src = "coordinates x theta\nparameters m = 1, M = 0.5, l = 0.8, g = 9.81\n"
                    "frame N\nframe A = rotate(N, N.z, -theta)\npoint O\n"
                    "point C = O + x*N.x\npoint P = C + l*A.y\nparticle C mass m\n"
                    "particle P mass M\ngravity -g*N.y\nconstraint x - sin(t)\n";
  int survived = 0;
  for (long n = 0; n < 4000; n += 7) {
    lg_alloc_fail_after(n);
    lang_model *m = NULL;
    lg_diag d;
    lg_diag_clear(&d);
    if (lang_load_string("f.lag", src, strlen(src), &m, &d) == LG_OK) {
      mech_eom *e;
      lg_diag_clear(&d);
      if (mech_derive_lagrange(m->mech, "f.lag", &e, &d) == LG_OK) survived++;
      lang_model_free(m);
    }
    lg_alloc_fail_after(-1);
  }
  CHECK(survived > 0); /* and, under ASan/LSan, no crash and no leak */
}

/* ---- which expressions hold an atom (sym_has_any), and the pruned substitution ------- */
static void test_has_any(void) {
  const sym_node *inner = add(mul(x, y), fn(SYM_FN_SIN, q));
  const sym_node *a = sym_let(C, inner, 0, NULL); /* x inside, behind a let */
  const sym_node *roots[5] = {add(a, z), mul(y, z), x, add(pw(y, 2), fn(SYM_FN_COS, z)),
                              mul(a, qd)};
  const sym_node *from[1] = {x}, *to[1] = {I(2)};
  unsigned char has[5] = {9, 9, 9, 9, 9}, *state = NULL;
  size_t nstate = 0;
  CHECK(sym_has_any(C, 5, roots, 1, from, has, &state, &nstate) == LG_OK && state);
  CHECK(has[0] == 1 && has[1] == 0 && has[2] == 1 && has[3] == 0 && has[4] == 1);
  if (!state) return;
  CHECK(state[y->id] == 1 && state[x->id] == 2 && state[a->id] == 2);
  /* the pruned substitution gives what the plain one gives, node for node */
  for (int r = 0; r < 5; r++) {
    sym_subst_cache s1, s2;
    CHECK(sym_subst_cache_init(&s1, 1, from, to) == LG_OK);
    CHECK(sym_subst_cache_init(&s2, 1, from, to) == LG_OK);
    const sym_node *plain = sym_subst_cached(C, &s1, roots[r]);
    const sym_node *pruned = sym_subst_cached_pruned(C, &s2, roots[r], state, nstate);
    CHECK(plain && plain == pruned);
    CHECK((plain == roots[r]) == !has[r]);
    sym_subst_cache_free(&s1);
    sym_subst_cache_free(&s2);
  }
  lg_free(state);
}

/* ---- let-bound atoms: a name kept whole in sums and products ------------------------ */
static void test_let(void) {
  const sym_node *s = add(mul(x, y), fn(SYM_FN_SIN, q));
  const sym_node *a = sym_let(C, s, 0, NULL);
  CHECK(a && a != s && a->kind == SYM_SYMBOL);
  CHECK(sym_let(C, x, 0, NULL) == x);                 /* an atom is its own name */
  CHECK(sym_let(C, s, 0, NULL) == a);                 /* one atom per definition */
  const sym_node *ex[1] = {y};
  CHECK(sym_let(C, s, 1, ex) == s);                   /* bound to nothing that holds y */
  const sym_node *sum = add(a, z);                    /* not flattened: 2 terms, not 3 */
  CHECK(sum->kind == SYM_ADD && sum->nargs == 2);
  for (int k = 0; k < 5; k++) {
    vals[0] = 0.3 + 0.11 * k, vals[1] = -0.7 + 0.05 * k, vals[2] = 1.1, vals[3] = 0.4 * k;
    CHECK_NEAR(ev(sum), ev(add(s, z)), 1e-15);        /* sym_eval sees through */
    CHECK_NEAR(ev(sym_diff(C, mul(a, a), x)), ev(sym_diff(C, mul(s, s), x)), 1e-14);
    CHECK_NEAR(ev(sym_diff(C, a, q)), ev(fn(SYM_FN_COS, q)), 1e-15);
  }
  /* the tape computes the definition once, where the atom is first reached */
  const sym_node *in[5] = {x, y, z, q, qd}, *outs[2] = {sum, mul(a, pw(z, 2))}, *missing = NULL;
  sym_tape *t = NULL;
  CHECK(sym_tape_build(C, 5, in, 2, outs, &t, &missing) == LG_OK);
  if (!t) return;
  double *w = malloc(t->nslots * sizeof *w), out[2];
  vals[0] = 0.9, vals[1] = 0.2, vals[2] = -1.4, vals[3] = 0.6;
  sym_tape_eval(t, vals, out, w);
  CHECK_NEAR(out[0], ev(add(s, z)), 1e-15);
  CHECK_NEAR(out[1], ev(mul(s, pw(z, 2))), 1e-15);
  free(w);
  sym_tape_free(t);
}

/* ---- sym_mul of a number and an expression ------------------------------------------
 * Its shortcut against the general product (sym_mulv: gather, sort, combine)
 * in a twin context: every number times every expression gives the same
 * node (same printed form, same id) and the two contexts grow node for node
 * (the same nodes interned in the same order), whichever side the number is. */
static int twin_exprs(sym_ctx *c, const sym_node **e) {
  const sym_node *a = sym_symbol(c, "a"), *b = sym_symbol(c, "b"), *t = sym_coord(c, "q", 0);
  const sym_node *s = sym_func(c, SYM_FN_SIN, t, NULL), *co = sym_func(c, SYM_FN_COS, t, NULL);
  const sym_node *h = sym_float(c, 0.3), *r = sym_rat(c, 2, 3), *sq = sym_pow(c, a, sym_rat(c, 1, 2));
  int n = 0;
  e[n++] = a;
  e[n++] = s;
  e[n++] = sym_powi(c, b, 3);
  e[n++] = sq;
  e[n++] = sym_mul(c, a, b);                                    /* coefficient 1 */
  e[n++] = sym_mulv(c, 3, (const sym_node *[]){h, a, co});      /* float coefficient */
  e[n++] = sym_mulv(c, 3, (const sym_node *[]){r, sq, s});      /* rational, a power */
  e[n++] = sym_add(c, a, b);                                    /* sums distribute */
  e[n++] = sym_addv(c, 3, (const sym_node *[]){h, sym_mul(c, r, s), sym_mul(c, h, co)});
  e[n++] = sym_addv(c, 2, (const sym_node *[]){sym_mul(c, a, s), sym_mul(c, sym_float(c, -1.5), b)});
  e[n++] = sym_func(c, SYM_FN_ATAN2, a, b);
  e[n++] = sym_powi(c, sym_int(c, 0), -1); /* undefined */
  return n;
}

static void test_mul_by_number(void) {
  sym_ctx *A = sym_ctx_new(), *B = sym_ctx_new();
  const sym_node *ea[16], *eb[16];
  int n = twin_exprs(A, ea);
  CHECK(twin_exprs(B, eb) == n && sym_ctx_node_count(A) == sym_ctx_node_count(B));
  double fl[] = {0.0, 1.0, -1.0, 0.7, -2.5, 1e300, 3.0};
  int64_t rn[][2] = {{0, 1}, {1, 1}, {-1, 1}, {3, 2}, {-7, 5}, {INT64_MAX, 1}};
  int bad = 0, tried = 0;
  for (int side = 0; side < 2; side++)
    for (int k = 0; k < 13; k++)
      for (int i = 0; i < n; i++) {
        const sym_node *ka = k < 7 ? sym_float(A, fl[k]) : sym_rat(A, rn[k - 7][0], rn[k - 7][1]);
        const sym_node *kb = k < 7 ? sym_float(B, fl[k]) : sym_rat(B, rn[k - 7][0], rn[k - 7][1]);
        const sym_node *ga = side ? sym_mulv(A, 2, (const sym_node *[]){ea[i], ka})
                                  : sym_mulv(A, 2, (const sym_node *[]){ka, ea[i]});
        const sym_node *gb = side ? sym_mul(B, eb[i], kb) : sym_mul(B, kb, eb[i]);
        char *sa = ga ? sym_to_string(ga) : NULL, *sb = gb ? sym_to_string(gb) : NULL;
        if (!sa || !sb || strcmp(sa, sb) != 0 || ga->id != gb->id ||
            sym_ctx_node_count(A) != sym_ctx_node_count(B)) {
          if (!bad++) fprintf(stderr, "mul_by_number: %s vs %s\n", sa ? sa : "?", sb ? sb : "?");
        }
        tried++;
        lg_free(sa), lg_free(sb);
      }
  CHECK(bad == 0 && tried == 2 * 13 * n);
  sym_ctx_free(A);
  sym_ctx_free(B);
}

int main(void) {
  C = sym_ctx_new();
  x = sym_symbol(C, "x"); y = sym_symbol(C, "y"); z = sym_symbol(C, "z");
  q = sym_coord(C, "q", 0); qd = sym_coord(C, "q", 1);
  test_canonical();
  test_eval_many();
  test_bignum();
  test_derivatives();
  test_time_derivative();
  test_rewrite();
  test_print();
  test_round_trip();
  test_tape();
  test_let();
  test_has_any();
  test_tape_angle_sums();
  test_matrix();
  test_matrix_solve_at();
  test_mul_by_number();
  sym_ctx_free(C);
  test_fault_injection();
  return tu_summary("test_sym_core");
}
