/* base_scratch.c - a mark/release stack for the scratch of evaluation
 * paths (projection at every step, solves): a call marks, allocates what
 * it needs, and releases to its mark when done. Chunks are kept after a
 * release, so once a path has run it allocates nothing again. */
#include "lg_base.h"

struct lg_scratch_chunk {
  lg_scratch_chunk *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
};

enum { SCRATCH_FIRST = 4096 };

void lg_scratch_init(lg_scratch *s) { s->first = s->cur = NULL; }

void lg_scratch_free(lg_scratch *s) {
  for (lg_scratch_chunk *c = s->first, *n; c; c = n) {
    n = c->next;
    lg_free(c);
  }
  s->first = s->cur = NULL;
}

lg_scratch_mark lg_scratch_get_mark(const lg_scratch *s) {
  lg_scratch_mark m = {s->cur, s->cur ? s->cur->used : 0};
  return m;
}

void lg_scratch_release(lg_scratch *s, lg_scratch_mark m) {
  s->cur = m.chunk ? m.chunk : s->first;
  if (s->cur) s->cur->used = m.chunk ? m.used : 0;
}

/* A chunk for n bytes after the current one: the next kept chunk when it
 * is big enough, else a new one linked in after the current (the chunks
 * after it stay for later). */
static lg_scratch_chunk *next_chunk(lg_scratch *s, size_t n) {
  lg_scratch_chunk *c = s->cur, *nx = c ? c->next : s->first;
  if (nx && nx->size >= n) {
    nx->used = 0;
    return nx;
  }
  size_t size = c ? 2 * c->size : SCRATCH_FIRST;
  if (size < n) size = n;
  lg_scratch_chunk *fresh = lg_malloc(sizeof *fresh + size);
  if (!fresh) return NULL;
  fresh->size = size;
  fresh->used = 0;
  fresh->next = nx;
  if (c) c->next = fresh;
  else s->first = fresh;
  return fresh;
}

void *lg_scratch_alloc(lg_scratch *s, size_t n) {
  if (n > (size_t)-1 / 4 - sizeof(lg_scratch_chunk)) return lg_alloc_too_big();
  n = (n + 15) & ~(size_t)15;
  if (!s->cur && s->first && s->first->size >= n) { /* the first chunk, after a release */
    s->cur = s->first;
    s->cur->used = 0;
  }
  if (!s->cur || s->cur->size - s->cur->used < n) {
    lg_scratch_chunk *c = next_chunk(s, n);
    if (!c) return NULL;
    s->cur = c;
  }
  void *p = s->cur->data + s->cur->used;
  s->cur->used += n;
  return p;
}
