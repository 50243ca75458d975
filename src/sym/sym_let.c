/* sym_let.c - let-bound atoms: a name for an expression, kept whole.
 *
 * Canonical sums and products flatten: a recursion x_k = x_{k-1} + d_k
 * written with sym_add is one sum of k terms at every k, and its cost on
 * a tape grows with k unless the sharing of sums finds the earlier ones.
 * An atom bound to x_{k-1} stops the flattening: x_k = atom + d_k.
 * The atom carries its definition's atom mask and coordinate order, so
 * that derivatives are never taken as zero by the quick tests; sym_diff
 * and sym_dt differentiate the definition, sym_eval evaluates it, and the
 * tape lowers it when the atom is first reached. */
#include "sym_internal.h"

#include <stdio.h>
#include <string.h>

/* "$let" and the hash in 16 lower-case hex digits. */
static void let_name(char name[48], uint64_t h) {
  static const char hex[] = "0123456789abcdef";
  memcpy(name, "$let", 4);
  for (int i = 0; i < 16; i++) name[4 + i] = hex[(h >> (60 - 4 * i)) & 15];
  name[20] = 0;
}

const sym_node *sym_let(sym_ctx *c, const sym_node *def, size_t nexcl,
                        const sym_node *const *excl) {
  if (!c || !def) return NULL;
  if (def->kind != SYM_ADD && def->kind != SYM_MUL && def->kind != SYM_POW &&
      def->kind != SYM_FUNC)
    return def;
  for (size_t i = 0; i < nexcl; i++)
    if (excl[i] && (def->atoms & sym_atom_bit(excl[i])) && sym_has(def, excl[i])) return def;
  /* one atom per definition: a second build of the same recursion in this
   * context (the library's numeric system, then codegen) names it alike,
   * so the code it generates is the same byte for byte */
  const sym_node *old = lg_map_get(&c->let_of, def->id);
  if (old) return old;
  /* named by the definition's structural hash, not by the order of
   * creation: two front doors that build the same recursions in another
   * order (the numeric system first, or codegen first) name every atom
   * alike, and canonical sums order their terms alike. A name already
   * bound to another definition (a hash collision) takes a suffix. */
  char name[48];
  const sym_node *a = NULL;
  for (unsigned k = 0; !a || lg_map_get(&c->lets, a->id); k++) {
    if (k) snprintf(name, sizeof name, "$let%016llx_%u", (unsigned long long)def->hash, k);
    else let_name(name, def->hash); /* (snprintf's "$let%016llx", without its cost) */
    if (!(a = sym_symbol(c, name))) break;
  }
  if (!a || !lg_map_put(&c->lets, a->id, (void *)def) ||
      !lg_map_put(&c->let_of, def->id, (void *)a)) {
    sym_set_error(c, LG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  c->nlets++;
  sym_node *w = (sym_node *)a; /* fresh: nothing holds it yet */
  w->atoms |= def->atoms;
  w->max_order = def->max_order;
  return a;
}
