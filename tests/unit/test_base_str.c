/* test_base_str.c - growable strings, shortest round-trip doubles, JSON
 * strings, arenas and diagnostics. */
#include "lg_base.h"
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_str(void) {
  lg_str b;
  lg_str_init(&b);
  lg_str_puts(&b, "x = ");
  lg_str_printf(&b, "%d", 42);
  lg_str_putc(&b, ';');
  CHECK_STR(b.s, "x = 42;");
  CHECK(b.len == 7);
  lg_str_clear(&b);
  CHECK(b.len == 0 && b.s[0] == 0);
  for (int i = 0; i < 10000; i++) lg_str_putc(&b, 'a');
  CHECK(b.len == 10000 && !b.oom);
  char *t = lg_str_take(&b);
  CHECK(t && t[9999] == 'a' && t[10000] == 0 && b.s == NULL);
  lg_free(t);
  /* an append that cannot allocate marks the string and is dropped */
  lg_alloc_fail_after(0);
  lg_str_puts(&b, "lost");
  lg_alloc_fail_after(-1);
  CHECK(b.oom);
  lg_str_puts(&b, "also lost");
  CHECK(b.len == 0);
  lg_str_free(&b);
}

/* The definition: the first N = 1, 2, ... whose %.Ng reads back. */
static void shortest_by_definition(char *buf, double x) {
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, LG_DOUBLE_CHARS, "%.*g", prec, x);
    if (strtod(buf, NULL) == x) return;
  }
}

/* lg_fmt_double takes three conversions, not up to seventeen: the same
 * strings for random bit patterns (subnormals included), short decimals
 * and values across the exponent range. */
static void test_doubles_fast_equals_definition(void) {
  char want[LG_DOUBLE_CHARS], got[LG_DOUBLE_CHARS];
  uint64_t s = 0x9e3779b97f4a7c15u;
  int bad = 0;
  for (int i = 0; i < 400000; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17; /* xorshift64 */
    double x;
    if (i % 4 == 0) memcpy(&x, &s, sizeof x);
    else if (i % 4 == 1) x = (double)(s % 100000) / (double)(1 + s % 1000000000);
    else if (i % 4 == 2) x = ldexp((double)(s >> 11) / 9007199254740992.0, (int)(s % 2100) - 1074);
    else x = nextafter(ldexp(1.0, (int)(s % 2098) - 1074), s & 2 ? 0.0 : INFINITY) *
             (s & 4 ? 1 : -1); /* powers of two and their neighbours */
    if (x != x || x - x != 0) continue; /* nan, inf */
    shortest_by_definition(want, x);
    bad += strcmp(want, lg_fmt_double(got, x)) != 0;
  }
  CHECK(bad == 0);
  /* powers of ten and their neighbours (the scaling's digit-count
   * boundaries), the extremes, exact integers near 2^53 */
  bad = 0;
  for (int k = -323; k <= 308; k++) {
    char text[16];
    snprintf(text, sizeof text, "1e%d", k);
    double p = strtod(text, NULL);
    double xs[] = {p, nextafter(p, 0.0), nextafter(p, INFINITY), -p, 5 * p, 9.5 * p};
    for (size_t j = 0; j < sizeof xs / sizeof *xs; j++) {
      if (xs[j] != xs[j] || xs[j] - xs[j] != 0) continue;
      shortest_by_definition(want, xs[j]);
      bad += strcmp(want, lg_fmt_double(got, xs[j])) != 0;
    }
  }
  double edges[] = {DBL_MAX, DBL_MIN, -DBL_MIN, 4.9e-324, 9007199254740992.0,
                    9007199254740993.0, 1e16 - 1, 1e17 - 16, 0.1, 2.5, 1e23, 5e-324};
  for (size_t j = 0; j < sizeof edges / sizeof *edges; j++) {
    shortest_by_definition(want, edges[j]);
    bad += strcmp(want, lg_fmt_double(got, edges[j])) != 0;
  }
  CHECK(bad == 0);
}

static void test_doubles(void) {
  char buf[LG_DOUBLE_CHARS];
  CHECK_STR(lg_fmt_double(buf, 0.6), "0.6");
  CHECK_STR(lg_fmt_double(buf, 1.0), "1");
  CHECK_STR(lg_fmt_double(buf, 0.03), "0.03");
  /* every printed value reads back exactly */
  double xs[] = {0.1 + 0.2, 1.0 / 3.0, 6.02214076e23, -2.5e-300, 9.81, 1e15 + 0.5};
  for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
    CHECK(strtod(lg_fmt_double(buf, xs[i]), NULL) == xs[i]);
  lg_str b;
  lg_str_init(&b);
  lg_str_double(&b, 1.0); /* reads back as a double: 1.0, not 1 */
  CHECK(strchr(b.s, '.') || strchr(b.s, 'e'));
  lg_str_clear(&b);
  lg_str_json(&b, "a\"b\\c\n");
  CHECK_STR(b.s, "\"a\\\"b\\\\c\\u000a\"");
  lg_str_free(&b);
}

static void test_arena(void) {
  lg_arena a;
  lg_arena_init(&a);
  char *p = lg_arena_alloc(&a, 3), *q = lg_arena_alloc(&a, 100000); /* beyond a chunk */
  CHECK(p && q && ((uintptr_t)p % 16) == 0 && ((uintptr_t)q % 16) == 0);
  memset(q, 1, 100000);
  char *s = lg_arena_strdup(&a, "hello world", 5);
  CHECK_STR(s, "hello");
  lg_arena_free(&a);
}

static void test_diag(void) {
  lg_diag d;
  lg_diag_clear(&d);
  lg_diag_set(&d, LG_ERR_MODEL, "m.lag", 3, 7, "unknown name '%s'", "thta");
  lg_diag_hint(&d, "did you mean '%s'?", "theta");
  lg_diag_set(&d, LG_ERR_NUMERIC, "other", 1, 1, "later"); /* the first error wins */
  char buf[256];
  lg_diag_format(&d, buf, sizeof buf);
  CHECK_STR(buf, "m.lag:3:7: unknown name 'thta' (did you mean 'theta'?)");
  CHECK(d.status == LG_ERR_MODEL);
  lg_diag_clear(&d);
  lg_diag_set(&d, LG_ERR_IO, "f", 0, 0, "cannot read");
  lg_diag_format(&d, buf, sizeof buf);
  CHECK_STR(buf, "f: cannot read");
  lg_diag_set(NULL, LG_ERR_IO, "f", 0, 0, "ignored"); /* NULL diag: nothing */
  lg_diag_hint(NULL, "ignored");
}

int main(void) {
  test_str();
  test_doubles();
  test_doubles_fast_equals_definition();
  test_arena();
  test_diag();
  return tu_summary("test_base_str");
}
