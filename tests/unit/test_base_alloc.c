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

static void test_grow_local_and_push(void) {
  int local[4] = {1, 2, 3, 4}, *v = local;
  size_t cap = 4;
  CHECK(lg_grow_local((void **)&v, &cap, 4, sizeof *v, local) && v == local); /* fits */
  CHECK(lg_grow_local((void **)&v, &cap, 5, sizeof *v, local) && v != local && cap >= 5);
  CHECK(v[0] == 1 && v[3] == 4); /* the local elements moved */
  int *heap = v;
  CHECK(lg_grow_local((void **)&v, &cap, 100, sizeof *v, local) && cap >= 100);
  v[99] = 9;
  CHECK(v[1] == 2 && v[99] == 9 && (v == heap || v != local));
  lg_free(v);
  /* failure keeps the local buffer */
  v = local;
  cap = 4;
  lg_alloc_fail_after(0);
  CHECK(!lg_grow_local((void **)&v, &cap, 5, sizeof *v, local));
  lg_alloc_fail_after(-1);
  CHECK(v == local && cap == 4);

  double *d = NULL;
  size_t n = 0, dcap = 0;
  int ok = 1;
  for (int i = 0; i < 100; i++) ok &= LG_PUSH(d, n, dcap, 0.5 * i);
  CHECK(ok && n == 100 && dcap >= 100 && d[0] == 0 && d[99] == 49.5);
  lg_alloc_fail_after(0);
  size_t full = dcap;
  while (n < full) LG_PUSH(d, n, dcap, 1.0); /* fills without allocating */
  CHECK(!LG_PUSH(d, n, dcap, 2.0) && n == full && dcap == full);
  lg_alloc_fail_after(-1);
  lg_free(d);
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
  test_grow_local_and_push();
  test_strings();
  return tu_summary("test_base_alloc");
}
