/* test_api_bounds.c - sizes and ranges the library must refuse rather
 * than compute with: a text length that wraps len + 1, sizes in the base
 * layer that wrap before an allocation, and simulation options that would
 * run forever or without bound (an infinite or NaN time, t0 >= tf, more
 * output points than max_rows). Each refusal is an error status with a
 * message naming the argument, never a crash (ASan checks the overflows). */
#include "lagrange.h"
#include "lg_base.h"
#include "test_models.h"
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const char SPRING[] =
    "coordinates x\n"
    "parameters m = 2, k = 8\n"
    "T = 1/2*m*x'^2\n"
    "V = 1/2*k*x^2\n"
    "initial x = 0.3\n";

/* ---- the C API's lengths ------------------------------------------------------------ */
static void test_load_string_len(void) {
  lg_model *m = (lg_model *)&m;
  lg_diag d = {0};
  /* SIZE_MAX: len + 1 wrapped to 0 and the copy overran the heap */
  CHECK(lg_model_load_string("big.lag", SPRING, SIZE_MAX, &m, &d) == LG_ERR_USAGE);
  CHECK(m == NULL);
  CHECK(strstr(lg_diag_text(&d), "len") != NULL);
  CHECK(strstr(lg_diag_text(&d), "64 MB") != NULL);
  /* past the bound of a model file, nothing is read (the text is short) */
  CHECK(lg_model_load_string("big.lag", SPRING, LG_INPUT_LIMIT + 1, &m, NULL) ==
        LG_ERR_USAGE);
  CHECK(lg_model_load_string(NULL, SPRING, SIZE_MAX - 1, &m, &d) == LG_ERR_USAGE);
  CHECK(strncmp(lg_diag_text(&d), "<string>:", 9) == 0);
  /* the exact length still loads */
  CHECK(lg_model_load_string("ok.lag", SPRING, strlen(SPRING), &m, &d) == LG_OK);
  lg_model_free(m);
}

/* ---- the base layer's sizes -------------------------------------------------------- */
static void test_base_sizes(void) {
  unsigned long before = lg_alloc_failures();
  CHECK(lg_strndup("abc", SIZE_MAX) == NULL); /* n + 1 wrapped to 0 */
  CHECK(lg_alloc_failures() == before + 1);   /* reported as out of memory */
  lg_arena a;
  lg_arena_init(&a);
  CHECK(lg_arena_alloc(&a, SIZE_MAX) == NULL);     /* rounding up wrapped to 0 */
  CHECK(lg_arena_alloc(&a, SIZE_MAX - 8) == NULL); /* so did the chunk header */
  CHECK(lg_arena_strdup(&a, "abc", SIZE_MAX) == NULL);
  char *ok = lg_arena_strdup(&a, "abc", 3);
  CHECK(ok && strcmp(ok, "abc") == 0);
  lg_arena_free(&a);
  lg_str b;
  lg_str_init(&b);
  lg_str_puts(&b, "ab");
  lg_str_putn(&b, "c", SIZE_MAX - 1); /* len + n + 1 wrapped */
  CHECK(b.oom && b.len == 2 && strcmp(b.s, "ab") == 0);
  lg_str_free(&b);
  size_t cap = 0;
  void *v = NULL;
  before = lg_alloc_failures();
  CHECK(!lg_grow(&v, &cap, SIZE_MAX / 2, 8));
  CHECK(lg_alloc_failures() == before + 1 && v == NULL);
}

/* ---- simulation options ------------------------------------------------------------ */
typedef struct counter {
  long calls, stop_after;
} counter;

/* Stops the run after stop_after points: a run the library should have
 * refused ends quickly instead of running for hours. */
static int count(void *ud, const lg_sim_point *p) {
  (void)p;
  counter *c = ud;
  return ++c->calls >= c->stop_after;
}

/* lg_simulate with o refused as a usage error naming `field`, before any
 * output point. */
static void refused(const lg_system *s, const lg_sim_options *o, const char *field,
                    const char *also) {
  counter c = {0, 3};
  lg_diag d = {0};
  lg_status st = lg_simulate(s, o, NULL, NULL, NULL, count, &c, NULL, &d);
  CHECK(st == LG_ERR_USAGE);
  CHECK(c.calls == 0);
  const char *text = lg_diag_text(&d);
  CHECK(strstr(text, field) != NULL);
  CHECK(strstr(text, also) != NULL);
  CHECK(strstr(text, "--") == NULL); /* the library's terms, not the command's flags */
  if (st != LG_ERR_USAGE || !strstr(text, field) || !strstr(text, also))
    fprintf(stderr, "  (%s: got \"%s\")\n", field, text);
}

static void test_sim_times(void) {
  lg_system *s = derive_text("spring.lag", SPRING, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  CHECK(o.max_rows == LG_SIM_MAX_ROWS);
  o.tf = INFINITY;
  refused(s, &o, "tf", "finite");
  o.tf = NAN;
  refused(s, &o, "tf", "finite");
  o.tf = -INFINITY;
  refused(s, &o, "tf", "finite");
  lg_sim_options_default(s, &o);
  o.t0 = -INFINITY;
  refused(s, &o, "t0", "finite");
  o.t0 = NAN;
  refused(s, &o, "t0", "finite");
  lg_sim_options_default(s, &o);
  o.dt = INFINITY;
  refused(s, &o, "dt", "finite");
  o.dt = 0;
  refused(s, &o, "dt", "positive");
  lg_sim_options_default(s, &o);
  o.t0 = o.tf = 2;
  refused(s, &o, "tf", "greater than t0");
  o.t0 = 3;
  refused(s, &o, "tf", "greater than t0");
  lg_sim_options_default(s, &o);
  o.rtol = INFINITY;
  refused(s, &o, "rtol", "positive");
  lg_sim_options_default(s, &o);
  o.stabilize = LG_STAB_BAUMGARTE;
  o.alpha = NAN;
  refused(s, &o, "alpha", "finite");
  lg_system_free(s);
}

static void test_sim_rows(void) {
  lg_system *s = derive_text("spring.lag", SPRING, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.tf = 1e6; /* 1e8 + 1 points of dt 0.01: more than LG_SIM_MAX_ROWS */
  refused(s, &o, "max_rows", "10000000");
  o.max_rows = 0; /* a zeroed field means the default bound */
  refused(s, &o, "max_rows", "larger dt");
  o.tf = 1e300; /* (tf - t0)/dt overflows to inf */
  refused(s, &o, "max_rows", "rows");
  o.t0 = -1e308, o.tf = 1e308; /* tf - t0 itself overflows */
  refused(s, &o, "max_rows", "rows");
  /* a lower bound: t = 0 to 1 every 0.25 is 5 points */
  lg_sim_options_default(s, &o);
  o.tf = 1.0;
  o.dt = 0.25;
  o.max_rows = 4;
  refused(s, &o, "max_rows = 4", "5 rows");
  o.max_rows = 5;
  counter c = {0, 1000};
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, count, &c, NULL, NULL) == LG_OK);
  CHECK(c.calls == 5);
  lg_system_free(s);
}

int main(void) {
  test_load_string_len();
  test_base_sizes();
  test_sim_times();
  test_sim_rows();
  return tu_summary("test_api_bounds");
}
