/* test_base_alloc.c - the allocation entry point: fault injection, the
 * per-thread failure count, growth, hashing and edit distance. */
#include "lg_base.h"
#include "test_util.h"

#include <stdint.h>
#include <stdlib.h>

static void test_fault_injection(void) {
  unsigned long before = lg_alloc_failures();
  lg_alloc_fail_after(2);
  void *a = lg_malloc(8), *b = lg_calloc(2, 8), *c = lg_malloc(8), *d = lg_strdup("x");
  lg_alloc_fail_after(-1);
  CHECK(a && b);
  CHECK(c == NULL && d == NULL); /* every allocation after the countdown fails */
  CHECK(lg_alloc_failures() == before + 2);
  void *e = lg_realloc(NULL, 16);
  CHECK(e != NULL);
  CHECK(lg_alloc_failures() == before + 2);
  lg_free(a);
  lg_free(b);
  lg_free(e);
  lg_free(NULL);
}

static void test_grow(void) {
  int *v = NULL;
  size_t cap = 0;
  CHECK(lg_grow((void **)&v, &cap, 3, sizeof *v) && cap >= 3);
  size_t old = cap;
  CHECK(lg_grow((void **)&v, &cap, 2, sizeof *v) && cap == old); /* no shrink */
  CHECK(lg_grow((void **)&v, &cap, 1000, sizeof *v) && cap >= 1000);
  for (int i = 0; i < 1000; i++) v[i] = i;
  lg_alloc_fail_after(0);
  size_t c2 = cap;
  CHECK(!lg_grow((void **)&v, &cap, 5000, sizeof *v)); /* failure keeps the buffer */
  lg_alloc_fail_after(-1);
  CHECK(cap == c2 && v[999] == 999);
  CHECK(!lg_grow((void **)&v, &cap, SIZE_MAX / 2, sizeof *v)); /* overflow refused */
  lg_free(v);
}

static void test_strings(void) {
  char *s = lg_strndup("abcdef", 3);
  CHECK_STR(s, "abc");
  lg_free(s);
  CHECK(lg_hash_bytes("ab", 2) == lg_hash_bytes("ab", 2));
  CHECK(lg_hash_bytes("ab", 2) != lg_hash_bytes("ba", 2));
  CHECK(lg_edit_distance("theta", "thta", 3) == 1);
  CHECK(lg_edit_distance("kitten", "sitting", 5) == 3);
  CHECK(lg_edit_distance("", "abc", 5) == 3);
}

int main(void) {
  test_fault_injection();
  test_grow();
  test_strings();
  return tu_summary("test_base_alloc");
}
