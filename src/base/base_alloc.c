/* base_alloc.c - the one allocation entry point, with fault injection. */
#include "lg_base.h"

#include <stdlib.h>
#include <string.h>

/* Countdown to an injected failure; negative means never fail. */
static long fail_countdown = -1;

/* Failed allocations in this thread (see lg_alloc_failures). */
static _Thread_local unsigned long failures;

void lg_alloc_fail_after(long n) { fail_countdown = n; }

unsigned long lg_alloc_failures(void) { return failures; }

static int injected_failure(void) {
  if (fail_countdown < 0) return 0;
  if (fail_countdown == 0) {
    failures++;
    return 1;
  }
  fail_countdown--;
  return 0;
}

static void *counted(void *p) {
  if (!p) failures++;
  return p;
}

void *lg_malloc(size_t n) {
  if (injected_failure()) return NULL;
  return counted(malloc(n ? n : 1));
}

void *lg_calloc(size_t count, size_t size) {
  if (injected_failure()) return NULL;
  return counted(calloc(count ? count : 1, size ? size : 1));
}

void *lg_realloc(void *p, size_t n) {
  if (injected_failure()) return NULL;
  return counted(realloc(p, n ? n : 1));
}

void lg_free(void *p) { free(p); }

void *lg_alloc_too_big(void) {
  failures++;
  return NULL;
}

char *lg_strndup(const char *s, size_t n) {
  if (n == (size_t)-1) return lg_alloc_too_big(); /* n + 1 would wrap to 0 */
  char *r = lg_malloc(n + 1);
  if (!r) return NULL;
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}

char *lg_strdup(const char *s) { return lg_strndup(s, strlen(s)); }

int lg_grow(void **buf, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 1;
  size_t ncap = *cap ? *cap : 8;
  while (ncap < need) {
    if (elem && ncap > ((size_t)-1) / 2 / elem) {
      lg_alloc_too_big();
      return 0;
    }
    ncap *= 2;
  }
  void *nb = lg_realloc(*buf, ncap * elem);
  if (!nb) return 0;
  *buf = nb;
  *cap = ncap;
  return 1;
}

int lg_grow_local(void **buf, size_t *cap, size_t need, size_t elem, const void *local) {
  if (need <= *cap) return 1;
  if (*buf != local) return lg_grow(buf, cap, need, elem);
  void *nb = NULL;
  size_t ncap = *cap;
  if (!lg_grow(&nb, &ncap, need, elem)) return 0;
  memcpy(nb, local, *cap * elem);
  *buf = nb;
  *cap = ncap;
  return 1;
}

uint64_t lg_hash_bytes(const void *p, size_t n) {
  /* FNV-1a: deterministic across runs and machines. */
  const unsigned char *s = p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 1099511628211ull;
  }
  return h;
}

int lg_edit_distance(const char *a, const char *b, int cap) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return cap + 1;
  int prev[65], cur[65];
  for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
      int del = prev[j] + 1, ins = cur[j - 1] + 1;
      int m = sub < del ? sub : del;
      cur[j] = m < ins ? m : ins;
    }
    memcpy(prev, cur, sizeof(int) * (lb + 1));
  }
  return prev[lb];
}
