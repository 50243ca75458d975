/* base_arena.c - chunked bump allocator: one free releases everything. */
#include "lg_base.h"

#include <string.h>

struct lg_arena_chunk {
  lg_arena_chunk *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
};

enum { ARENA_CHUNK = 64 * 1024 };

void lg_arena_init(lg_arena *a) {
  a->head = NULL;
  a->used_total = 0;
}

void lg_arena_free(lg_arena *a) {
  lg_arena_chunk *c = a->head;
  while (c) {
    lg_arena_chunk *n = c->next;
    lg_free(c);
    c = n;
  }
  a->head = NULL;
  a->used_total = 0;
}

void *lg_arena_alloc(lg_arena *a, size_t n) {
  /* rounding up and the chunk header must not wrap */
  if (n > (size_t)-1 / 2 - sizeof(lg_arena_chunk)) return lg_alloc_too_big();
  n = (n + 15) & ~(size_t)15;
  lg_arena_chunk *c = a->head;
  if (!c || c->size - c->used < n) {
    size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;
    c = lg_malloc(sizeof(lg_arena_chunk) + size);
    if (!c) return NULL;
    c->size = size;
    c->used = 0;
    /* A big one-off block goes behind the head so the head keeps its room. */
    if (a->head && n > ARENA_CHUNK) {
      c->next = a->head->next;
      a->head->next = c;
    } else {
      c->next = a->head;
      a->head = c;
    }
  }
  void *p = c->data + c->used;
  c->used += n;
  a->used_total += n;
  return p;
}

char *lg_arena_strdup(lg_arena *a, const char *s, size_t n) {
  char *r = n < (size_t)-1 ? lg_arena_alloc(a, n + 1) : lg_alloc_too_big();
  if (!r) return NULL;
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}
