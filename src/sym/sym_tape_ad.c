/* sym_tape_ad.c - forward-mode automatic differentiation over an
 * evaluation tape: values and K directional derivatives in one sweep.
 *
 * Exact derivatives (to rounding) at the cost of about K tape
 * evaluations, with no symbolic differentiation and no growth of the
 * expression DAG: Jacobians of large systems (linearization, stiff
 * integrators) are taken this way. Slots are reused by the tape, so an
 * instruction's operands are read before its result is written, value
 * and tangent alike.
 */
#include "sym.h"

#include <math.h>
#include <string.h>

/* Partial derivatives of f at (a, b) with value r = f(a, b). */
static void fn_partials(sym_fn f, double a, double b, double r, double *da, double *db) {
  *db = 0;
  switch (f) {
  case SYM_FN_SIN: *da = cos(a); break;
  case SYM_FN_COS: *da = -sin(a); break;
  case SYM_FN_TAN: *da = 1 + r * r; break;
  case SYM_FN_ASIN: *da = 1 / sqrt(1 - a * a); break;
  case SYM_FN_ACOS: *da = -1 / sqrt(1 - a * a); break;
  case SYM_FN_ATAN: *da = 1 / (1 + a * a); break;
  case SYM_FN_ATAN2: { /* atan2(y = a, x = b) */
    double h = a * a + b * b;
    *da = b / h;
    *db = -a / h;
    break;
  }
  case SYM_FN_SINH: *da = cosh(a); break;
  case SYM_FN_COSH: *da = sinh(a); break;
  case SYM_FN_TANH: *da = 1 - r * r; break;
  case SYM_FN_EXP: *da = r; break;
  case SYM_FN_LOG: *da = 1 / a; break;
  case SYM_FN_SQRT: *da = 0.5 / r; break;
  case SYM_FN_ABS: *da = (a > 0) - (a < 0); break;
  case SYM_FN_SIGN: *da = 0; break; /* almost everywhere */
  default: *da = NAN; break;
  }
}

/* res[k] = x * dx[k] + y * dy[k] (res may alias dx or dy) */
static void axpby(double *res, double x, const double *dx, double y, const double *dy,
                  size_t K) {
  for (size_t k = 0; k < K; k++) res[k] = x * dx[k] + y * dy[k];
}

static double powi(double b, int32_t n) {
  double r = 1;
  for (int64_t k = n < 0 ? -(int64_t)n : n; k; k >>= 1, b *= b)
    if (k & 1) r *= b;
  return n < 0 ? 1 / r : r;
}

void sym_tape_eval_fwd(const sym_tape *t, size_t K, const double *in, const double *din,
                       double *out, double *dout, double *w, double *dw) {
  for (size_t i = 0; i < t->ninstr; i++) {
    const sym_instr *s = &t->code[i];
    int binary = s->op == SYM_OP_ADD || s->op == SYM_OP_SUB || s->op == SYM_OP_MUL ||
                 s->op == SYM_OP_DIV || s->op == SYM_OP_POW ||
                 (s->op == SYM_OP_FUNC && sym_fn_arity((sym_fn)s->fn) == 2);
    int unary = s->op == SYM_OP_NEG || s->op == SYM_OP_SQR || s->op == SYM_OP_POWI ||
                s->op == SYM_OP_FUNC;
    double *dr = s->op == SYM_OP_OUT ? NULL : dw + (size_t)s->r * K;
    const double *da = binary || unary ? dw + (size_t)s->a * K : NULL;
    const double *db = binary ? dw + (size_t)s->b * K : da;
    switch (s->op) {
    case SYM_OP_CONST:
      w[s->r] = s->k;
      memset(dr, 0, K * sizeof *dr);
      break;
    case SYM_OP_INPUT:
      w[s->r] = in[s->a];
      memcpy(dr, din + (size_t)s->a * K, K * sizeof *dr);
      break;
    case SYM_OP_ADD:
      axpby(dr, 1, da, 1, db, K);
      w[s->r] = w[s->a] + w[s->b];
      break;
    case SYM_OP_SUB:
      axpby(dr, 1, da, -1, db, K);
      w[s->r] = w[s->a] - w[s->b];
      break;
    case SYM_OP_MUL: {
      double a = w[s->a], b = w[s->b];
      axpby(dr, b, da, a, db, K);
      w[s->r] = a * b;
      break;
    }
    case SYM_OP_DIV: {
      double b = w[s->b], r = w[s->a] / b;
      axpby(dr, 1 / b, da, -r / b, db, K);
      w[s->r] = r;
      break;
    }
    case SYM_OP_NEG:
      axpby(dr, -1, da, 0, da, K);
      w[s->r] = -w[s->a];
      break;
    case SYM_OP_SQR: {
      double a = w[s->a];
      axpby(dr, 2 * a, da, 0, da, K);
      w[s->r] = a * a;
      break;
    }
    case SYM_OP_POWI: {
      double a = w[s->a];
      axpby(dr, s->n * powi(a, s->n - 1), da, 0, da, K);
      w[s->r] = powi(a, s->n);
      break;
    }
    case SYM_OP_POW: {
      double a = w[s->a], b = w[s->b], r = pow(a, b);
      int varies = 0; /* log(a) only where the exponent varies: a may be negative */
      for (size_t k = 0; k < K && !varies; k++) varies = db[k] != 0;
      axpby(dr, b * pow(a, b - 1), da, varies ? r * log(a) : 0, db, K);
      w[s->r] = r;
      break;
    }
    case SYM_OP_FUNC: {
      double a = w[s->a], b = binary ? w[s->b] : 0, r = sym_fn_eval((sym_fn)s->fn, a, b);
      double pa, pb;
      fn_partials((sym_fn)s->fn, a, b, r, &pa, &pb);
      axpby(dr, pa, da, pb, db, K);
      w[s->r] = r;
      break;
    }
    case SYM_OP_OUT:
      out[s->a] = w[s->b];
      memcpy(dout + (size_t)s->a * K, dw + (size_t)s->b * K, K * sizeof *dout);
      break;
    default: break;
    }
  }
}
