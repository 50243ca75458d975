/* base_map.c - the library's one hash map (lg_map in lg_base.h). */
#include "lg_base.h"

#include <string.h>

enum { MAP_MIN_CAP = 16 };

int lg_map_grow(lg_map *m, size_t more) {
  if (more > ((size_t)-1) / 4 - m->count) {
    lg_alloc_too_big();
    return 0;
  }
  size_t need = (m->count + more) * 2, ncap = m->cap ? m->cap : MAP_MIN_CAP;
  unsigned shift = m->cap ? m->shift : 64 - 4;
  while (ncap < need) {
    ncap *= 2;
    shift--;
  }
  if (ncap > ((size_t)-1) / sizeof(lg_map_slot)) {
    lg_alloc_too_big();
    return 0;
  }
  if (ncap == m->cap) return 1;
  lg_map_slot *ns = lg_calloc(ncap, sizeof *ns);
  if (!ns) return 0;
  lg_map n = {ns, ncap, m->count, shift};
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].val) continue;
    size_t j = lg_map_home(&n, m->slots[i].key);
    while (ns[j].val) j = (j + 1) & (ncap - 1);
    ns[j] = m->slots[i];
  }
  lg_free(m->slots);
  *m = n;
  return 1;
}

int lg_map_put(lg_map *m, uint64_t key, void *val) {
  if (!val || !lg_map_reserve(m, 1)) return 0;
  size_t mask = m->cap - 1, j = lg_map_home(m, key);
  for (; m->slots[j].val; j = (j + 1) & mask)
    if (m->slots[j].key == key) {
      m->slots[j].val = val;
      return 1;
    }
  lg_map_fill(m, j, key, val);
  return 1;
}

void lg_map_free(lg_map *m) {
  lg_free(m->slots);
  memset(m, 0, sizeof *m);
}
