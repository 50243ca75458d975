/* base_double.c - the shortest decimal form of a double that reads back
 * exactly (lg_fmt_double): the string that trying %.Ng for N = 1, 2, ...
 * until strtod gives x back would print.
 *
 * simulate and sweep write millions of numbers, and each printf or strtod
 * of a double costs a fraction of a microsecond (two thirds of a small
 * model's run went there). The fast path scales |x| to 17 integer digits
 * in extended precision (a 64-bit significand: within 0.03 of a unit of
 * the 17th digit), rounds to 15, 16 and 17 digits itself, and decides
 * whether a rounding reads back by comparing its distance from x with half
 * the gap to x's neighbouring doubles. When a rounding or a comparison
 * falls within the error margin of its boundary (a few values in a
 * hundred), or the platform's long double is not wider than a double, the
 * exact path decides with printf and strtod. */
#include "lg_base.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the exact path ------------------------------------------------------------------ */
/* If some N <= 15 reads back, the correctly rounded 15-digit form is that
 * form padded with zeros (a double's half-ulp is below 5e-16 relative), so
 * N is the count of its digits before the trailing zeros; otherwise 16 or
 * 17 digits: three conversions at most. Subnormals, with fewer bits, try
 * every N. */
static int significant_digits(const char *e) { /* "d.ddde+XX" */
  int k = 0, last = 0;
  for (const char *c = e; *c && *c != 'e'; c++)
    if (*c >= '0' && *c <= '9') {
      k++;
      if (*c != '0') last = k;
    }
  return last ? last : 1;
}

static const char *fmt_exact(char buf[LG_DOUBLE_CHARS], double x) {
  int prec = 17;
  if (x != 0 && fabs(x) < DBL_MIN) {
    for (prec = 1; prec < 17; prec++) {
      snprintf(buf, LG_DOUBLE_CHARS, "%.*g", prec, x);
      if (strtod(buf, NULL) == x) return buf;
    }
  } else {
    for (int p = 15; p <= 16; p++) {
      snprintf(buf, LG_DOUBLE_CHARS, "%.*e", p - 1, x);
      if (strtod(buf, NULL) == x) {
        prec = p == 15 ? significant_digits(buf) : 16;
        break;
      }
    }
  }
  snprintf(buf, LG_DOUBLE_CHARS, "%.*g", prec, x);
  return buf;
}

/* ---- %.Pg from digits ------------------------------------------------------------------ */
/* Writes what printf's %.Pg prints for the value 0.d1d2...dD x 10^(X+1)
 * (D digits, no trailing zeros, D <= P): style f when -4 <= X < P,
 * style e otherwise, trailing zeros and a bare point removed. */
static void write_g(char *o, int negative, const char *d, int D, int X, int P) {
  if (negative) *o++ = '-';
  if (X < -4 || X >= P) {
    *o++ = d[0];
    if (D > 1) {
      *o++ = '.';
      memcpy(o, d + 1, (size_t)(D - 1));
      o += D - 1;
    }
    *o++ = 'e';
    *o++ = X < 0 ? '-' : '+';
    int a = X < 0 ? -X : X;
    if (a >= 100) *o++ = (char)('0' + a / 100);
    *o++ = (char)('0' + a / 10 % 10);
    *o++ = (char)('0' + a % 10);
  } else if (X >= 0) {
    for (int i = 0; i <= X; i++) *o++ = i < D ? d[i] : '0';
    if (D > X + 1) {
      *o++ = '.';
      memcpy(o, d + X + 1, (size_t)(D - X - 1));
      o += D - X - 1;
    }
  } else {
    *o++ = '0';
    *o++ = '.';
    for (int i = 0; i < -X - 1; i++) *o++ = '0';
    memcpy(o, d, (size_t)D);
    o += D;
  }
  *o = 0;
}

#if LDBL_MANT_DIG >= 64
/* 10^k in extended precision for |k| <= 383, within about 1.5 units in
 * its last place: an exact small power times a correctly rounded large one. */
static long double pow10_ext(int k) {
  static const long double small[32] = {
      1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,  1e10L,
      1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L,
      1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L, 1e28L, 1e29L, 1e30L, 1e31L};
  static const long double big[24] = {
      1e-384L, 1e-352L, 1e-320L, 1e-288L, 1e-256L, 1e-224L, 1e-192L, 1e-160L,
      1e-128L, 1e-96L,  1e-64L,  1e-32L,  1e0L,    1e32L,   1e64L,   1e96L,
      1e128L,  1e160L,  1e192L,  1e224L,  1e256L,  1e288L,  1e320L,  1e352L};
  int j = (k + 384) / 32, r = (k + 384) % 32;
  return small[r] * big[j];
}

/* Error bound of the scaled value s, in units of its last (17th) digit. */
#define SCALE_ERR 0.03L

enum { AMBIGUOUS = -1, NO = 0, YES = 1 };

static const uint64_t POW10[18] = {1,
                                   10,
                                   100,
                                   1000,
                                   10000,
                                   100000,
                                   1000000,
                                   10000000,
                                   100000000,
                                   1000000000,
                                   10000000000u,
                                   100000000000u,
                                   1000000000000u,
                                   10000000000000u,
                                   100000000000000u,
                                   1000000000000000u,
                                   10000000000000000u,
                                   100000000000000000u};

/* The p-digit rounding (p = 15, 16, 17) of s = N + f (N its integer part,
 * 0 <= f < 1; s in [1e16, 1e17) holds x's 17 leading digits) into *M, and
 * whether it reads back as x: its distance from s against half the gap to
 * x's neighbours (h above; h / 2 below a power of two). Anything within
 * the error margin of a rounding tie or of the gap is AMBIGUOUS. Integer
 * arithmetic but for f. */
static int rounding_reads_back(uint64_t N, long double f, int p, long double h, int pow2,
                               uint64_t *M) {
  uint64_t unit = POW10[17 - p], r = N % unit;
  long double below = (long double)r + f; /* s minus the rounding down */
  long double half = (long double)unit / 2;
  if (fabsl(below - half) < SCALE_ERR) return AMBIGUOUS;
  int up = below > half;
  *M = N / unit + (uint64_t)up;
  long double dist = up ? (long double)unit - below : below; /* |M * unit - s| */
  long double gap = !up && pow2 ? h / 2 : h;
  if (fabsl(dist - gap) < SCALE_ERR + gap * 1e-15L) return AMBIGUOUS;
  return dist < gap ? YES : NO;
}

/* The fast path: 1 with buf written, 0 to leave x to the exact path. */
static int fmt_fast(char buf[LG_DOUBLE_CHARS], double x) {
  double a = fabs(x);
  if (!(a >= DBL_MIN) || a > DBL_MAX) return 0;
  int e2;
  double m = frexp(a, &e2);
  /* 10^X <= a < 10^(X+1), estimated from the binary exponent, then fixed */
  int X = (int)floor((e2 - 1) * 0.30102999566398120);
  long double s = (long double)a * pow10_ext(16 - X);
  if (s >= 1e17L) s = (long double)a * pow10_ext(16 - ++X);
  else if (s < 1e16L) s = (long double)a * pow10_ext(16 - --X);
  if (s < 1e16L || s >= 1e17L) return 0;
  uint64_t N = (uint64_t)s;
  long double f = s - (long double)N;
  /* half the gap between x and its neighbours, in units of s */
  long double h = ldexpl(pow10_ext(16 - X), e2 - 54);
  int pow2 = m == 0.5;
  for (int p = 15; p <= 17; p++) {
    uint64_t M;
    int r = rounding_reads_back(N, f, p, h, pow2, &M);
    if (r == AMBIGUOUS) return 0;
    if (r == NO) continue;
    char d[24];
    int D = p, Xr = X;
    if (M == POW10[p]) M /= 10, Xr++; /* rounded up to 10^p */
    for (int i = D - 1; i >= 0; i--, M /= 10) d[i] = (char)('0' + M % 10);
    while (D > 1 && d[D - 1] == '0') D--;
    write_g(buf, x < 0, d, D, Xr, p == 15 ? D : p);
    return 1;
  }
  return 0;
}
#else
static int fmt_fast(char buf[LG_DOUBLE_CHARS], double x) {
  (void)buf, (void)x;
  return 0;
}
#endif

const char *lg_fmt_double(char buf[LG_DOUBLE_CHARS], double x) {
  if (isnan(x)) return strcpy(buf, "nan");
  if (isinf(x)) return strcpy(buf, x > 0 ? "inf" : "-inf");
  if (x == 0) return strcpy(buf, signbit(x) ? "-0" : "0");
  return fmt_fast(buf, x) ? buf : fmt_exact(buf, x);
}
