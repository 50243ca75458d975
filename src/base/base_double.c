/* base_double.c - the shortest decimal form of a double that reads back
 * exactly (lg_fmt_double): the string that trying %.Ng for N = 1, 2, ...
 * until strtod gives x back would print.
 *
 * simulate and sweep write millions of numbers, and each printf or strtod
 * of a double costs a fraction of a microsecond (two thirds of a small
 * model's run went there). The fast path scales |x| to its 17 leading
 * digits in 128-bit fixed point with a generated table of powers of ten
 * (base_pow10.c), rounds to 15, 16 and 17 digits itself, and decides
 * whether a rounding reads back by comparing its distance from x with half
 * the gap to x's neighbouring doubles, in integers. Only a call within
 * about 1e-18 of a rounding tie or of the gap (an exact tie, in practice),
 * a subnormal, or a compiler without 128-bit integers takes the exact
 * path: printf and strtod. */
#include "lg_base.h"
#include "base_pow10.h"

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

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

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

/* How far (in units of 2^-sh of the scaled value) the computed T and G may
 * be from the exact ones: T's truncation and P's rounding (< 2), G's
 * truncation (< 1). Closer calls go to the exact path. */
#define MARGIN 4

enum { AMBIGUOUS = -1, NO = 0, YES = 1 };

/* The rounding of s = T 2^-sh (N its 17-digit integer part) to a multiple
 * of unit (10^(17 - p)) into *M (in units), and whether it reads back as x:
 * its distance from s against the half gap G (G / 2 below a power of two
 * when rounding down). */
static inline int rounding(u128 T, uint64_t N, int sh, u128 G, int pow2, uint64_t unit,
                           uint64_t *M) {
  uint64_t down = N / unit * unit;
  u128 U = (u128)unit << sh, half = U >> 1, below = T - ((u128)down << sh);
  if ((below > half ? below - half : half - below) <= MARGIN) return AMBIGUOUS;
  int up = below > half;
  u128 dist = up ? U - below : below, gap = !up && pow2 ? G >> 1 : G;
  if ((dist > gap ? dist - gap : gap - dist) <= MARGIN) return AMBIGUOUS;
  *M = down / unit + (uint64_t)up;
  return dist < gap ? YES : NO;
}

/* The fast path: 1 with buf written, 0 to leave x to the exact path.
 *
 * |x| = m 2^e (m the 53-bit significand) is scaled by 10^k (k = 16 - X,
 * 10^X <= |x| < 10^(X+1)) in fixed point: T = (2 m P) >> 64 with the table's
 * 128-bit P (10^k = P 2^E), so s = |x| 10^k = T 2^-sh, sh = -(e + E + 63),
 * to within 2 units of 2^-sh (about 1e-19 of the 17th digit), and
 * N = T >> sh holds x's 17 leading digits. Half the gap between x and its
 * neighbours, 2^(e-1) 10^k, is G = P >> 64 in the same units (half of
 * that below a power of two). A rounding to p = 15, 16, 17 digits reads
 * back as x when its distance from s is below that half gap; a rounding
 * tie or a distance within MARGIN of the half gap is left to printf. */
static int fmt_fast(char buf[LG_DOUBLE_CHARS], double x) {
  double a = fabs(x);
  if (!(a >= DBL_MIN) || a > DBL_MAX) return 0;
  uint64_t bits;
  memcpy(&bits, &a, sizeof bits);
  int be = (int)(bits >> 52);
  uint64_t frac = bits & ((1ull << 52) - 1), m = frac | (1ull << 52);
  int e = be - 1075, pow2 = frac == 0;
  /* floor(log10(2^(be-1023))) <= X: 78913 / 2^18 is log10(2) to 6 digits */
  int X = ((be - 1023) * 78913) >> 18;
  for (int tries = 0; tries < 3; tries++) {
    int k = 16 - X;
    if (k < LG_POW10_MIN || k > LG_POW10_MAX) return 0;
    const lg_pow10 *P = &lg_pow10_128[k - LG_POW10_MIN];
    u128 T = (u128)(2 * m) * P->hi + (((u128)(2 * m) * P->lo) >> 64);
    int sh = -(e + P->e + 63);
    if (sh < 8 || sh > 100) return 0;
    uint64_t N = (uint64_t)(T >> sh);
    if (N >= POW10[17]) { X++; continue; }
    if (N < POW10[16]) { X--; continue; }
    u128 G = P->hi;
    uint64_t M;
    int p = 15, r = rounding(T, N, sh, G, pow2, 100, &M); /* constant units: no division */
    if (r == NO) r = rounding(T, N, sh, G, pow2, 10, &M), p = 16;
    if (r == NO) r = rounding(T, N, sh, G, pow2, 1, &M), p = 17;
    if (r != YES) return 0;
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
