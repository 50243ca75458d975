/* lg_base.h - the base layer: allocation, arenas, diagnostics, strings.
 *
 * Every other layer stands on this one. Nothing here prints or exits.
 * All allocation in the project goes through lg_malloc/lg_realloc so that a
 * test build can make the Nth allocation fail (lg_alloc_fail_after).
 */
#ifndef LG_BASE_H
#define LG_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LG_PI 3.14159265358979323846

/* ---- status codes and diagnostics -------------------------------------- */
/* lg_status and lg_diag are the public ones (one definition, in the
 * installed header, which includes nothing internal). */
#include "lagrange.h"

/* ---- allocation -------------------------------------------------------- */
/* malloc/realloc/free with optional fault injection. Return NULL on failure. */
void *lg_malloc(size_t n);
void *lg_calloc(size_t count, size_t size);
void *lg_realloc(void *p, size_t n);
void lg_free(void *p);
char *lg_strdup(const char *s);
char *lg_strndup(const char *s, size_t n);
/* Make the allocation after `n` more successful ones fail (n < 0: never).
 * For tests, from one thread. */
void lg_alloc_fail_after(long n);
/* How many allocations have failed in the calling thread so far (injected
 * or real): the public entries compare it before and after a call to
 * report out of memory as LG_ERR_NOMEM whatever the layer below said. */
unsigned long lg_alloc_failures(void);
/* A size that cannot be computed without wrapping (count * size, n + 1):
 * counted as a failed allocation, NULL returned; nothing is asked of
 * malloc, so a wrapped size never becomes a small buffer. */
void *lg_alloc_too_big(void);
/* The library's one growable array: grow *buf (element size `elem`,
 * capacity *cap elements) so it holds at least `need` elements, doubling;
 * 0 on out of memory (*buf and *cap kept). Arrays that share one count
 * grow one after another from copies of the capacity. */
int lg_grow(void **buf, size_t *cap, size_t need, size_t elem);
/* The same for an array that starts in a caller's buffer `local` (on the
 * stack, *cap elements): the first growth copies it to the heap. Free
 * *buf only when it is not `local`. */
int lg_grow_local(void **buf, size_t *cap, size_t need, size_t elem, const void *local);
/* Append x to the array `buf` of `n` elements and capacity `cap` (lvalues:
 * n and cap are updated); 0 on out of memory. */
#define LG_PUSH(buf, n, cap, x)                                                    \
  (lg_grow((void **)&(buf), &(cap), (n) + 1, sizeof *(buf)) ? ((buf)[(n)++] = (x), 1) \
                                                            : 0)

/* ---- scratch stack (base_scratch.c) ------------------------------------- */
/* Mark, allocate (16-byte aligned, NULL when out of memory), release to
 * the mark: everything allocated after the mark is given back at once,
 * and the memory is kept for the next use (a warm path allocates
 * nothing). Marks nest like a stack; release them in reverse order. */
typedef struct lg_scratch_chunk lg_scratch_chunk;
typedef struct lg_scratch {
  lg_scratch_chunk *first, *cur;
} lg_scratch;
typedef struct lg_scratch_mark {
  lg_scratch_chunk *chunk;
  size_t used;
} lg_scratch_mark;
void lg_scratch_init(lg_scratch *s);
void lg_scratch_free(lg_scratch *s);
lg_scratch_mark lg_scratch_get_mark(const lg_scratch *s);
void *lg_scratch_alloc(lg_scratch *s, size_t n);
void lg_scratch_release(lg_scratch *s, lg_scratch_mark m);

/* ---- arenas ------------------------------------------------------------ */
/* A bump allocator in chunks. Freeing the arena frees every allocation. */
typedef struct lg_arena_chunk lg_arena_chunk;
typedef struct lg_arena {
  lg_arena_chunk *head;
  size_t used_total;
} lg_arena;

void lg_arena_init(lg_arena *a);
void lg_arena_free(lg_arena *a);
/* Aligned to 16 bytes; NULL when out of memory. */
void *lg_arena_alloc(lg_arena *a, size_t n);
char *lg_arena_strdup(lg_arena *a, const char *s, size_t n);

/* ---- growable strings -------------------------------------------------- */
typedef struct lg_str {
  char *s;      /* always NUL-terminated when non-NULL */
  size_t len;
  size_t cap;
  int oom;      /* set once an append failed; later appends are ignored */
} lg_str;

void lg_str_init(lg_str *b);
void lg_str_free(lg_str *b);
void lg_str_clear(lg_str *b);
void lg_str_putc(lg_str *b, char c);
void lg_str_puts(lg_str *b, const char *s);
void lg_str_putn(lg_str *b, const char *s, size_t n);
void lg_str_printf(lg_str *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lg_str_vprintf(lg_str *b, const char *fmt, va_list ap);
/* Append a double in the shortest form that reads back to the same value,
 * always with '.', 'e' or "inf" so that it reads back as a double (1.0). */
void lg_str_double(lg_str *b, double x);
/* The shortest "%.Ng" form of x that strtod reads back to x exactly
 * (0.6, 0.03, 1, 1e+300, nan, inf); returns buf. Numbers in text, JSON and
 * CSV output are printed this way. */
#define LG_DOUBLE_CHARS 32
const char *lg_fmt_double(char buf[LG_DOUBLE_CHARS], double x);
/* s as a JSON string literal (quotes, escapes). */
void lg_str_json(lg_str *b, const char *s);
/* Returns the buffer (caller owns it, free with lg_free) and resets b. */
char *lg_str_take(lg_str *b);

/* ---- diagnostics ------------------------------------------------------- */
/* A structured diagnostic (lg_diag, in lagrange.h): where, what, and how to
 * fix it. The library fills one in; only the CLI prints it. */
void lg_diag_clear(lg_diag *d);
/* Record an error (the first one wins: later calls do not overwrite). */
void lg_diag_set(lg_diag *d, lg_status st, const char *file, int line, int col,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void lg_diag_hint(lg_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "file:line:col: message (hint)" into buf. */
void lg_diag_format(const lg_diag *d, char *buf, size_t n);

/* ---- files (base_file.c) ----------------------------------------------- */
/* The registry of temporary files (is_dir = 0) and private folders
 * (is_dir = 1) to remove when a signal ends the process. Register returns
 * a slot (-1 when full or the path is too long); forget frees it. */
int lg_temp_register(const char *path, int is_dir);
void lg_temp_forget(int slot);
/* Forget every slot but these (a forked helper that owns only its own
 * temporaries). */
void lg_temp_keep_only(const int *slots, size_t n);
/* Unlink every registered file, then rmdir every folder. Uses only
 * async-signal-safe calls. */
void lg_temp_remove_all(void);

/* Model input: the whole of `path` ("-": standard input) into *buf
 * (NUL-terminated; free with lg_free), named `name` in diagnostics. More
 * than `limit` bytes is LG_ERR_IO (stopping there: /dev/zero ends at once);
 * a NUL byte is LG_ERR_MODEL at its line:col; a lone CR (classic Mac line
 * end) becomes LF, which keeps every position. */
#define LG_INPUT_LIMIT ((size_t)64 << 20)
lg_status lg_read_input(const char *path, const char *name, size_t limit, char **buf,
                        size_t *len, lg_diag *d);

/* ---- the hash map (base_map.c) ------------------------------------------ */
/* The library's one hash table: open addressing with linear probing, at
 * most half full, a power-of-two capacity that doubles, each slot's key and
 * value side by side (one cache line per probe; nothing allocated per
 * entry). Zero it to start; lg_map_free
 * frees it. A value is never NULL (NULL marks an empty slot); small
 * integers are stored as values with lg_map_put_n / lg_map_get_n.
 * A map is keyed one of two ways, never both:
 *  - by a 64-bit key (a node id, a pointer, two ids in one): lg_map_get,
 *    lg_map_put (equal keys are the same key);
 *  - by a 64-bit hash of a larger key, with the caller's equality (keys may
 *    share a hash): lg_map_find; to insert, lg_map_reserve, then lg_map_seek
 *    gives the key's slot or the empty slot where it goes, and lg_map_fill
 *    stores it there (nothing may be added in between).
 * Slots 0..cap-1 whose val is non-NULL are the entries, in no meaningful
 * order (for freeing what the values own: lg_map_val). */
typedef struct lg_map_slot {
  uint64_t key; /* the key or the hash */
  void *val;    /* NULL: an empty slot */
} lg_map_slot;
typedef struct lg_map {
  lg_map_slot *slots;
  size_t cap, count;
  unsigned shift; /* 64 - log2(cap) */
} lg_map;

/* Make room for `more` new entries; 0 on out of memory (the map is kept). */
int lg_map_grow(lg_map *m, size_t more);
static inline int lg_map_reserve(lg_map *m, size_t more) {
  /* count <= cap / 2 always: no wrap-around */
  return more <= m->cap / 2 - m->count || lg_map_grow(m, more);
}
void lg_map_free(lg_map *m);
/* The home slot of a key: Fibonacci hashing (the top bits of key * 2^64/phi)
 * spreads consecutive ids and ids packed in either half alike. */
static inline size_t lg_map_home(const lg_map *m, uint64_t key) {
  return (size_t)((key * 0x9e3779b97f4a7c15ull) >> m->shift);
}
/* -- keyed by a 64-bit key -- */
static inline void *lg_map_get(const lg_map *m, uint64_t key) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  for (size_t j = lg_map_home(m, key); m->slots[j].val; j = (j + 1) & mask)
    if (m->slots[j].key == key) return m->slots[j].val;
  return NULL;
}
/* Slot j's value (NULL: empty), j < cap. */
static inline void *lg_map_val(const lg_map *m, size_t j) { return m->slots[j].val; }
/* Insert or replace (val non-NULL); 0 on out of memory. */
int lg_map_put(lg_map *m, uint64_t key, void *val);
/* size_t values, never 0 (an index + 1, a count): 0 when absent. */
static inline size_t lg_map_get_n(const lg_map *m, uint64_t key) {
  return (size_t)(uintptr_t)lg_map_get(m, key);
}
static inline int lg_map_put_n(lg_map *m, uint64_t key, size_t v) {
  return lg_map_put(m, key, (void *)(uintptr_t)v);
}
/* -- keyed by a hash and the caller's equality -- */
/* eq(val, probe): nonzero when the entry val is the key that probe describes. */
typedef int (*lg_map_eq)(const void *val, const void *probe);
/* The slot holding the key, or the empty slot where it goes (cap > 0:
 * after lg_map_reserve). Inline: a constant eq is inlined too. */
static inline size_t lg_map_seek(const lg_map *m, uint64_t hash, lg_map_eq eq,
                                 const void *probe) {
  size_t mask = m->cap - 1, j = lg_map_home(m, hash);
  for (; m->slots[j].val; j = (j + 1) & mask)
    if (m->slots[j].key == hash && eq(m->slots[j].val, probe)) break;
  return j;
}
static inline void *lg_map_find(const lg_map *m, uint64_t hash, lg_map_eq eq,
                                const void *probe) {
  return m->cap ? m->slots[lg_map_seek(m, hash, eq, probe)].val : NULL;
}
/* Store a new entry in the empty slot lg_map_seek gave. */
static inline void lg_map_fill(lg_map *m, size_t slot, uint64_t hash, void *val) {
  m->slots[slot].key = hash;
  m->slots[slot].val = val;
  m->count++;
}

/* ---- hashing ----------------------------------------------------------- */
static inline uint64_t lg_hash_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}
uint64_t lg_hash_bytes(const void *p, size_t n);

/* Edit distance for "did you mean" hints (capped at `cap`). */
int lg_edit_distance(const char *a, const char *b, int cap);

#endif
