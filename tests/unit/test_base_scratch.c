/* test_base_scratch.c - the mark/release scratch stack: alignment, nested
 * marks, growth into new chunks with earlier blocks intact, a warm path
 * that allocates nothing, and allocation failures. */
#include "lg_base.h"
#include "test_util.h"

#include <stdint.h>
#include <string.h>

static void fill(unsigned char *p, size_t n, unsigned char v) { memset(p, v, n); }

static int all(const unsigned char *p, size_t n, unsigned char v) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != v) return 0;
  return 1;
}

int main(void) {
  lg_scratch s;
  lg_scratch_init(&s);
  lg_scratch_mark m0 = lg_scratch_get_mark(&s);
  unsigned char *a = lg_scratch_alloc(&s, 100);
  CHECK(a && ((uintptr_t)a & 15) == 0);
  fill(a, 100, 1);
  lg_scratch_mark m1 = lg_scratch_get_mark(&s);
  unsigned char *b = lg_scratch_alloc(&s, 3000), *c = lg_scratch_alloc(&s, 50000);
  CHECK(b && c && ((uintptr_t)c & 15) == 0);
  fill(b, 3000, 2);
  fill(c, 50000, 3);
  CHECK(all(a, 100, 1) && all(b, 3000, 2)); /* growth moved nothing */
  lg_scratch_release(&s, m1);
  unsigned char *b2 = lg_scratch_alloc(&s, 3000);
  CHECK(b2 == b && all(a, 100, 1)); /* the same memory again, a untouched */
  lg_scratch_release(&s, m0);
  /* warm: the same sequence allocates nothing */
  lg_alloc_fail_after(0);
  unsigned char *a3 = lg_scratch_alloc(&s, 100), *b3 = lg_scratch_alloc(&s, 3000),
                *c3 = lg_scratch_alloc(&s, 50000);
  lg_alloc_fail_after(-1);
  CHECK(a3 == a && b3 == b && c3 != NULL);
  lg_scratch_release(&s, m0);
  /* a block larger than every kept chunk needs memory: refused cleanly */
  lg_alloc_fail_after(0);
  CHECK(lg_scratch_alloc(&s, 1 << 22) == NULL);
  lg_alloc_fail_after(-1);
  CHECK(lg_scratch_alloc(&s, 1 << 22) != NULL);
  CHECK(lg_scratch_alloc(&s, (size_t)-1) == NULL); /* a size that would wrap */
  lg_scratch_free(&s);
  lg_scratch_free(&s); /* twice is safe */
  return tu_summary("test_base_scratch");
}
