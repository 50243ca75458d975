/* test_util.h - a tiny test harness: CHECK macros and a summary line.
 * Each test binary prints "N passed, N failed" and exits nonzero on failure. */
#ifndef LG_TEST_UTIL_H
#define LG_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int tu_passed, tu_failed;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (cond) tu_passed++;                                                 \
    else {                                                                 \
      tu_failed++;                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                      \
  } while (0)

#define CHECK_STR(got, want)                                               \
  do {                                                                     \
    const char *g_ = (got), *w_ = (want);                                  \
    if (g_ && w_ && strcmp(g_, w_) == 0) tu_passed++;                      \
    else {                                                                 \
      tu_failed++;                                                         \
      fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
              g_ ? g_ : "(null)", w_ ? w_ : "(null)");                     \
    }                                                                      \
  } while (0)

#define CHECK_NEAR(got, want, tol)                                         \
  do {                                                                     \
    double g_ = (got), w_ = (want);                                        \
    double s_ = fabs(w_) > 1 ? fabs(w_) : 1;                               \
    if (fabs(g_ - w_) <= (tol) * s_) tu_passed++;                          \
    else {                                                                 \
      tu_failed++;                                                         \
      fprintf(stderr, "%s:%d: got %.17g, want %.17g\n", __FILE__, __LINE__, \
              g_, w_);                                                     \
    }                                                                      \
  } while (0)

static inline int tu_summary(const char *name) {
  printf("%s: %d passed, %d failed\n", name, tu_passed, tu_failed);
  return tu_failed ? 1 : 0;
}

#endif
