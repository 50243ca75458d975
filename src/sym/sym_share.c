/* sym_share.c - which shared subexpressions a printout should name.
 *
 * Printing a DAG as a tree repeats every shared node once per use, and
 * the repetition compounds: the Kane equations of the delta robot are a
 * few thousand nodes but 4.6 GB as trees. A printout that names each
 * shared subexpression worth naming (`z1 = ...`, used as z1 afterwards)
 * is linear in the DAG: every named node is written once, and every node
 * written inline is either used once or shorter than `min_chars`.
 *
 * The plan mirrors how sym_print walks a node (sum terms with their
 * coefficients, denominators printed through their base), and sizes are
 * the text form's length, estimated. Nothing is named when the whole
 * printout written as trees stays within `budget` characters: small
 * systems keep the textbook form. */
#include "sym_internal.h"

#include <string.h>

typedef struct planner {
  const sym_node **order; /* postorder: children before parents */
  size_t count, cap;
  uint32_t *uses;         /* by node id: parents in the DAG of the roots */
} planner;

static int record(void *ud, const sym_node *n) {
  planner *p = ud;
  if (!lg_grow((void **)&p->order, &p->cap, p->count + 1, sizeof *p->order)) return 0;
  p->order[p->count++] = n;
  for (uint32_t i = 0; i < n->nargs; i++)
    if (p->uses[n->args[i]->id] < UINT32_MAX) p->uses[n->args[i]->id]++;
  return 1;
}

/* Does atom name `a` read as prefix followed by digits only? */
static int clashes(const char *a, const char *prefix) {
  size_t k = strlen(prefix);
  if (strncmp(a, prefix, k) || !a[k]) return 0;
  for (a += k; *a; a++)
    if (*a < '0' || *a > '9') return 0;
  return 1;
}

/* z, or zz, zzz, ...: the first prefix no atom's name clashes with. */
static void choose_prefix(sym_share *s, const planner *p) {
  strcpy(s->prefix, "z");
  for (size_t len = 1; len + 1 < sizeof s->prefix; len++) {
    int clash = 0;
    for (size_t i = 0; i < p->count && !clash; i++) {
      const sym_node *e = p->order[i];
      clash = (e->kind == SYM_SYMBOL || e->kind == SYM_COORD) && clashes(e->v.name, s->prefix);
    }
    if (!clash) return;
    s->prefix[len] = 'z';
    s->prefix[len + 1] = 0;
  }
}

static size_t sat_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

/* sizes per node are kept in 32 bits (saturating): the plan's arrays are
 * as long as the context, millions of nodes for a large system */
static uint32_t sat32(size_t a) { return a > UINT32_MAX ? UINT32_MAX : (uint32_t)a; }

/* Printed length of a node's own symbols (names, operators, parentheses,
 * coefficients), without its children. */
static size_t own_chars(const sym_node *e) {
  switch (e->kind) {
  case SYM_SYMBOL:
  case SYM_COORD: return strlen(e->v.name) + e->order;
  case SYM_NUM:
  case SYM_FLOAT: return 3;
  case SYM_ADD: return 5 * (size_t)e->nargs + 3;   /* " + ", "2*", parentheses */
  case SYM_MUL: return 2 * (size_t)e->nargs + 3;
  case SYM_POW: return 4;
  case SYM_FUNC: return 6;
  default: return 1;
  }
}

/* A node the printer reaches through print() (so a name can stand for
 * it): not an atom or number, not a denominator x^-k (printed through
 * its base by the product printer). */
static int nameable(const sym_node *e) {
  if (e->kind == SYM_POW) return !sym_is_negative_number(e->args[1]);
  return e->kind == SYM_ADD || e->kind == SYM_MUL || e->kind == SYM_FUNC;
}

static size_t name_chars(size_t k) {
  size_t d = 1;
  while (k >= 10) k /= 10, d++;
  return d + 1;
}

lg_status sym_share_plan(sym_ctx *c, const sym_node *const *roots, size_t nroots,
                         size_t min_chars, size_t budget, sym_share *out) {
  memset(out, 0, sizeof *out);
  size_t ids = sym_ctx_node_count(c);
  planner p = {NULL, 0, 0, lg_calloc(ids ? ids : 1, sizeof *p.uses)};
  uint32_t *chars = lg_calloc(ids ? ids : 1, sizeof *chars);
  out->name_of = lg_calloc(ids ? ids : 1, sizeof *out->name_of);
  out->ids = ids;
  lg_status st = LG_ERR_NOMEM;
  if (!p.uses || !chars || !out->name_of || !sym_postorder_many(nroots, roots, record, &p))
    goto done;
  /* a denominator x^-k is printed through its base x: x is then used
   * wherever the denominator is (parents come after children) */
  for (size_t i = p.count; i-- > 0;) {
    const sym_node *e = p.order[i];
    if (e->kind == SYM_POW && !nameable(e) && p.uses[e->id] > 1) {
      uint32_t *u = &p.uses[e->args[0]->id];
      *u = *u > UINT32_MAX - p.uses[e->id] ? UINT32_MAX : *u + p.uses[e->id] - 1;
    }
  }
  /* tree sizes, first without names: small printouts stay as they are */
  size_t total = 0;
  for (size_t i = 0; i < p.count; i++) {
    const sym_node *e = p.order[i];
    size_t s = own_chars(e);
    for (uint32_t a = 0; a < e->nargs; a++) s = sat_add(s, chars[e->args[a]->id]);
    chars[e->id] = sat32(s);
  }
  for (size_t r = 0; r < nroots; r++) total = sat_add(total, chars[roots[r]->id]);
  st = LG_OK;
  if (total <= budget) goto done;
  choose_prefix(out, &p);
  for (size_t i = 0; i < p.count; i++) {
    const sym_node *e = p.order[i];
    size_t s = own_chars(e);
    for (uint32_t a = 0; a < e->nargs; a++) {
      const sym_node *ch = e->args[a];
      s = sat_add(s, out->name_of[ch->id] ? name_chars(out->name_of[ch->id]) : chars[ch->id]);
    }
    chars[e->id] = sat32(s);
    if (p.uses[e->id] < 2 || s < min_chars || !nameable(e)) continue;
    if (!lg_grow((void **)&out->named, &out->cap, out->count + 1, sizeof *out->named)) {
      st = LG_ERR_NOMEM;
      goto done;
    }
    out->named[out->count++] = e;
    out->name_of[e->id] = (uint32_t)out->count;
  }
done:
  lg_free(p.order);
  lg_free(p.uses);
  lg_free(chars);
  if (st != LG_OK) sym_share_free(out);
  return st;
}

size_t sym_share_index(const sym_share *s, const sym_node *e) {
  if (!s || !s->name_of || e->id >= s->ids) return 0;
  size_t k = s->name_of[e->id];
  return k && s->named[k - 1] == e ? k : 0; /* ids are per context: check the node */
}

void sym_share_free(sym_share *s) {
  lg_free(s->name_of);
  lg_free(s->named);
  memset(s, 0, sizeof *s);
}
