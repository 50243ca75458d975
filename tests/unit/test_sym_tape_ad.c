/* test_sym_tape_ad.c - forward-mode AD over tapes against the symbolic
 * derivatives (sym_diff) of the same expressions, evaluated on tapes. */
#include "sym.h"
#include "test_util.h"

#include <stdlib.h>

static sym_ctx *C;
static const sym_node *x, *y, *z;

/* Every operation the tape has: sums, products, quotients, integer and
 * real powers, and each elementary function (atan2 with two arguments). */
static void build(const sym_node **e, size_t *n) {
  const sym_node *half = sym_rat(C, 1, 2);
  size_t k = 0;
  e[k++] = sym_add(C, sym_mul(C, x, y), sym_powi(C, z, 3));
  e[k++] = sym_div(C, sym_sub(C, x, y), sym_add(C, sym_powi(C, z, 2), sym_int(C, 2)));
  e[k++] = sym_pow(C, sym_add(C, x, sym_int(C, 3)), y);          /* varying exponent */
  e[k++] = sym_pow(C, sym_add(C, sym_powi(C, x, 2), sym_int(C, 1)), half);
  e[k++] = sym_powi(C, sym_add(C, x, z), -3);
  e[k++] = sym_neg(C, sym_mul(C, sym_float(C, 2.5), sym_powi(C, y, 2)));
  for (int f = 0; f < SYM_FN_COUNT; f++) {
    /* arguments kept inside each function's domain at the test points */
    const sym_node *a = sym_mul(C, sym_rat(C, 1, 3), sym_add(C, x, sym_mul(C, y, z)));
    if (f == SYM_FN_LOG || f == SYM_FN_SQRT) a = sym_add(C, sym_int(C, 2), a);
    const sym_node *b = f == SYM_FN_ATAN2 ? sym_add(C, z, sym_int(C, 2)) : NULL;
    e[k++] = sym_mul(C, y, sym_func(C, (sym_fn)f, a, b));
  }
  *n = k;
}

int main(void) {
  C = sym_ctx_new();
  x = sym_symbol(C, "x");
  y = sym_symbol(C, "y");
  z = sym_symbol(C, "z");
  const sym_node *in[3] = {x, y, z}, *e[64], *d[64 * 3];
  size_t n = 0;
  build(e, &n);
  for (size_t i = 0; i < n; i++)
    for (int v = 0; v < 3; v++) d[i * 3 + (size_t)v] = sym_diff(C, e[i], in[v]);
  sym_tape *te = NULL, *td = NULL;
  const sym_node *missing = NULL;
  CHECK(sym_tape_build(C, 3, in, n, e, &te, &missing) == LG_OK);
  CHECK(sym_tape_build(C, 3, in, 3 * n, d, &td, &missing) == LG_OK);
  if (!te || !td) return 1;
  double *w = calloc(te->nslots + 1, sizeof *w), *dw = calloc(3 * te->nslots + 3, sizeof *dw);
  double *ws = calloc(td->nslots + 1, sizeof *ws);
  double out[64], dout[64 * 3], ref[64 * 3], plain[64];
  double din[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  srand(3);
  for (int trial = 0; trial < 20; trial++) {
    double v[3];
    for (int j = 0; j < 3; j++) v[j] = 0.2 + 0.6 * rand() / (double)RAND_MAX;
    sym_tape_eval_fwd(te, 3, v, din, out, dout, w, dw);
    sym_tape_eval(td, v, ref, ws);
    sym_tape_eval(te, v, plain, w);
    for (size_t i = 0; i < n; i++) {
      CHECK_NEAR(out[i], plain[i], 1e-15);
      for (int k = 0; k < 3; k++) CHECK_NEAR(dout[i * 3 + (size_t)k], ref[i * 3 + (size_t)k], 1e-12);
    }
  }
  /* a direction that is a combination of the inputs: the directional derivative */
  double v[3] = {0.3, 0.7, 0.5}, dir[3] = {1, -2, 0.5};
  sym_tape_eval_fwd(te, 1, v, dir, out, dout, w, dw);
  sym_tape_eval(td, v, ref, ws);
  for (size_t i = 0; i < n; i++)
    CHECK_NEAR(dout[i], ref[i * 3] - 2 * ref[i * 3 + 1] + 0.5 * ref[i * 3 + 2], 1e-12);
  free(w);
  free(dw);
  free(ws);
  sym_tape_free(te);
  sym_tape_free(td);
  sym_ctx_free(C);
  return tu_summary("test_sym_tape_ad");
}
