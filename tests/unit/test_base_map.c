/* test_base_map.c - the one hash map (lg_map): 64-bit keys, hashed keys
 * with the caller's equality (colliding hashes), growth, out of memory. */
#include "lg_base.h"
#include "test_util.h"

#include <stdint.h>
#include <string.h>

static void test_u64_keys(void) {
  lg_map m = {0};
  CHECK(lg_map_get(&m, 0) == NULL); /* an empty map has no slots */
  CHECK(lg_map_get_n(&m, 7) == 0);
  /* consecutive ids, ids in the high half, and key 0 */
  int ok = 1;
  for (uint64_t i = 0; i < 5000; i++) {
    ok &= lg_map_put_n(&m, i, (size_t)i + 1);
    ok &= lg_map_put_n(&m, i << 32, (size_t)i + 10001);
  }
  CHECK(ok);
  CHECK(m.count == 10000 - 1); /* 0 << 32 == 0: replaced, not added */
  CHECK(m.cap >= 2 * m.count && (m.cap & (m.cap - 1)) == 0);
  int right = 1;
  for (uint64_t i = 1; i < 5000; i++)
    right &= lg_map_get_n(&m, i) == i + 1 && lg_map_get_n(&m, i << 32) == i + 10001;
  CHECK(right);
  CHECK(lg_map_get_n(&m, 0) == 10001);
  CHECK(lg_map_get_n(&m, 5000) == 0 && lg_map_get_n(&m, (uint64_t)5000 << 32) == 0);
  /* replace keeps the count */
  size_t count = m.count;
  CHECK(lg_map_put_n(&m, 42, 7) && lg_map_get_n(&m, 42) == 7 && m.count == count);
  /* a NULL value is refused (NULL marks an empty slot) */
  CHECK(!lg_map_put(&m, 43, NULL) && lg_map_get_n(&m, 43) == 44);
  /* the slots hold every entry once */
  size_t seen = 0;
  for (size_t i = 0; i < m.cap; i++) seen += lg_map_val(&m, i) != NULL;
  CHECK(seen == m.count);
  lg_map_free(&m);
  CHECK(m.cap == 0 && m.count == 0 && m.slots == NULL);
  /* a freed map is empty and usable again */
  CHECK(lg_map_put(&m, 1, &m) && lg_map_get(&m, 1) == &m);
  lg_map_free(&m);
}

/* Strings keyed by a deliberately poor hash (its length): every probe
 * compares with the caller's equality. */
static int str_eq(const void *val, const void *probe) { return strcmp(val, probe) == 0; }

static void test_hashed_keys(void) {
  static const char *words[] = {"ab", "cd", "ef", "gh", "abc", "xyz", "q", "", "ab2", "zz"};
  enum { N = sizeof words / sizeof *words };
  lg_map m = {0};
  CHECK(lg_map_find(&m, 2, str_eq, "ab") == NULL); /* nothing allocated yet */
  for (size_t i = 0; i < N; i++) {
    CHECK(lg_map_reserve(&m, 1));
    size_t j = lg_map_seek(&m, strlen(words[i]), str_eq, words[i]);
    CHECK(lg_map_val(&m, j) == NULL);
    lg_map_fill(&m, j, strlen(words[i]), (void *)(uintptr_t)words[i]);
  }
  CHECK(m.count == N);
  int all = 1;
  for (size_t i = 0; i < N; i++) {
    char copy[8];
    strcpy(copy, words[i]); /* equal, not the same pointer */
    all &= lg_map_find(&m, strlen(copy), str_eq, copy) == words[i];
  }
  CHECK(all);
  CHECK(lg_map_find(&m, 2, str_eq, "ba") == NULL);
  CHECK(lg_map_find(&m, 3, str_eq, "ab") == NULL); /* right key, wrong hash */
  /* seek finds an existing key rather than an empty slot */
  CHECK(lg_map_reserve(&m, 1));
  size_t j = lg_map_seek(&m, 2, str_eq, "gh");
  CHECK(lg_map_val(&m, j) == words[3]);
  /* reserving room for many grows once and keeps every entry */
  CHECK(lg_map_reserve(&m, 1000) && m.cap >= 2 * (N + 1000));
  CHECK(lg_map_find(&m, 3, str_eq, "xyz") == words[5]);
  lg_map_free(&m);
}

static void test_out_of_memory(void) {
  lg_map m = {0};
  CHECK(lg_map_put_n(&m, 1, 1));
  for (uint64_t i = 2; m.count * 2 < m.cap; i++) CHECK(lg_map_put_n(&m, i, i));
  size_t cap = m.cap, count = m.count; /* full: the next put must grow */
  lg_alloc_fail_after(0);
  CHECK(!lg_map_put_n(&m, 1000, 5));
  lg_alloc_fail_after(-1);
  CHECK(m.cap == cap && m.count == count && lg_map_get_n(&m, 1) == 1); /* kept */
  CHECK(lg_map_get_n(&m, 1000) == 0);
  CHECK(!lg_map_reserve(&m, SIZE_MAX / 2)); /* a size that would wrap */
  CHECK(m.cap == cap);
  CHECK(lg_map_put_n(&m, 1000, 5) && lg_map_get_n(&m, 1000) == 5);
  lg_map_free(&m);
}

int main(void) {
  test_u64_keys();
  test_hashed_keys();
  test_out_of_memory();
  return tu_summary("test_base_map");
}
