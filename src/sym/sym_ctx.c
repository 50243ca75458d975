/* sym_ctx.c - the context: arena, interning table, memo tables. */
#include "sym_internal.h"

#include <assert.h>

#include <string.h>

/* ---- context lifetime ---------------------------------------------------- */
sym_ctx *sym_ctx_new(void) {
  sym_ctx *c = lg_calloc(1, sizeof *c);
  if (!c) return NULL;
  lg_arena_init(&c->arena);
  /* a model's first thousands of nodes without regrowing */
  if (!lg_map_reserve(&c->table, 2048)) {
    lg_free(c);
    return NULL;
  }
  c->zero = sym_int(c, 0);
  c->one = sym_int(c, 1);
  c->minus_one = sym_int(c, -1);
  c->half = sym_rat(c, 1, 2);
  sym_node u = {0};
  u.kind = SYM_UNDEF;
  c->undef = sym_intern(c, &u);
  sym_node t = {0};
  t.kind = SYM_TIME;
  t.v.name = "t";
  c->time = sym_intern(c, &t);
  c->pi = sym_symbol(c, "pi");
  if (!c->zero || !c->one || !c->minus_one || !c->half || !c->undef ||
      !c->time || !c->pi) {
    sym_ctx_free(c);
    return NULL;
  }
  return c;
}

void sym_ctx_free(sym_ctx *c) {
  if (!c) return;
  for (size_t i = 0; i < c->nbigs; i++) {
    mpq_clear(*c->bigs[i]);
    lg_free(c->bigs[i]);
  }
  lg_free(c->bigs);
  lg_map_free(&c->table);
  lg_map_free(&c->lets);
  lg_map_free(&c->let_of);
  sym_memo_free(&c->diff_memo);
  sym_memo_free(&c->dt_memo);
  sym_memo_free(&c->expand_memo);
  sym_memo_free(&c->simplify_memo);
  sym_memo_free(&c->collect_memo);
  lg_arena_free(&c->arena);
  lg_free(c);
}

size_t sym_ctx_node_count(const sym_ctx *c) { return c->count; }
int sym_ctx_reserve(sym_ctx *c, size_t nodes) { return lg_map_reserve(&c->table, nodes); }
lg_status sym_ctx_error(const sym_ctx *c) { return c->error; }
const char *sym_ctx_error_message(const sym_ctx *c) {
  return c->error_message ? c->error_message : "";
}

void sym_set_error(sym_ctx *c, lg_status st, const char *msg) {
  if (c->error != LG_OK) return;
  c->error = st;
  c->error_message = msg;
}

/* ---- structural hash and shallow equality -------------------------------- */
static uint64_t node_hash(const sym_node *n) {
  uint64_t h = lg_hash_mix(0x5eed, n->kind);
  switch (n->kind) {
  case SYM_NUM: return lg_hash_mix(h, sym_num_hash(n));
  case SYM_FLOAT: {
    double f = n->v.f == 0 ? 0.0 : n->v.f; /* -0.0 and 0.0 intern together */
    uint64_t bits;
    memcpy(&bits, &f, sizeof bits);
    return lg_hash_mix(h, bits);
  }
  case SYM_SYMBOL:
  case SYM_COORD:
    h = lg_hash_mix(h, lg_hash_bytes(n->v.name, strlen(n->v.name)));
    return lg_hash_mix(h, n->order);
  default: break;
  }
  h = lg_hash_mix(h, n->fn);
  h = lg_hash_mix(h, n->nargs);
  if (n->coef) h = lg_hash_mix(h, n->coef->hash);
  for (uint32_t i = 0; i < n->nargs; i++) {
    h = lg_hash_mix(h, n->args[i]->hash);
    if (n->coefs) h = lg_hash_mix(h, n->coefs[i]->hash);
  }
  return h;
}

static int shallow_equal(const sym_node *a, const sym_node *b) {
  if (a->hash != b->hash || a->kind != b->kind || a->nargs != b->nargs ||
      a->fn != b->fn || a->order != b->order || a->coef != b->coef)
    return 0;
  switch (a->kind) {
  case SYM_NUM: return sym_num_equal(a, b);
  case SYM_FLOAT: return a->v.f == b->v.f;
  case SYM_SYMBOL:
  case SYM_COORD: return strcmp(a->v.name, b->v.name) == 0;
  default: break;
  }
  for (uint32_t i = 0; i < a->nargs; i++) {
    if (a->args[i] != b->args[i]) return 0;
    if (a->coefs && a->coefs[i] != b->coefs[i]) return 0;
  }
  return 1;
}

/* ---- interning ----------------------------------------------------------- */
/* Depth and atom mask from the children. */
static void derive_shape(sym_node *n) {
  uint32_t d = 0, mo = 0;
  uint64_t atoms = 0;
  if (n->coef) atoms |= n->coef->atoms;
  for (uint32_t i = 0; i < n->nargs; i++) {
    if (n->args[i]->depth > d) d = n->args[i]->depth;
    if (n->args[i]->max_order > mo) mo = n->args[i]->max_order;
    atoms |= n->args[i]->atoms;
  }
  n->depth = (uint16_t)(d + 1); /* d <= SYM_MAX_DEPTH: deeper nodes are refused */
  n->max_order = (uint16_t)(n->kind == SYM_COORD ? (uint32_t)n->order + 1 : mo);
  n->atoms = atoms;
}

/* Copy a template into the arena (args and coefs inline after it). */
static sym_node *materialize(sym_ctx *c, const sym_node *t, uint64_t hash) {
  size_t extra = (size_t)t->nargs * sizeof(sym_node *) * (t->coefs ? 2 : 1);
  sym_node *n = lg_arena_alloc(&c->arena, sizeof *n + extra);
  if (!n) return NULL;
  *n = *t;
  n->hash = hash;
  const sym_node **args = (const sym_node **)(n + 1);
  if (t->nargs) memcpy(args, t->args, t->nargs * sizeof *args);
  n->args = t->nargs ? args : NULL;
  if (t->coefs) {
    memcpy(args + t->nargs, t->coefs, t->nargs * sizeof *args);
    n->coefs = args + t->nargs;
  }
  if ((t->kind == SYM_SYMBOL || t->kind == SYM_COORD) && t->v.name) {
    n->v.name = lg_arena_strdup(&c->arena, t->v.name, strlen(t->v.name));
    if (!n->v.name) return NULL;
  }
  return n;
}

static int node_eq(const void *val, const void *probe) { return shallow_equal(val, probe); }

const sym_node *sym_intern(sym_ctx *c, const sym_node *tmpl) {
  sym_node probe = *tmpl;
  probe.hash = node_hash(&probe);
  if (!lg_map_reserve(&c->table, 1)) {
    sym_set_error(c, LG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  size_t j = lg_map_seek(&c->table, probe.hash, node_eq, &probe);
  if (lg_map_val(&c->table, j)) return lg_map_val(&c->table, j);
  derive_shape(&probe);
  if (probe.depth > SYM_MAX_DEPTH) {
    sym_set_error(c, LG_ERR_MODEL, "expression nested too deeply");
    return NULL;
  }
  sym_node *n = materialize(c, &probe, probe.hash);
  if (!n) {
    sym_set_error(c, LG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  n->id = (uint32_t)c->count++;
#ifdef LG_CHECK_CANONICAL
  /* every constructor builds canonical nodes: a rewrite that breaks the
   * form breaks hash-consing (equal values, different nodes) silently */
  assert(sym_node_is_canonical(n));
#endif
  if (n->kind == SYM_SYMBOL || n->kind == SYM_COORD || n->kind == SYM_TIME)
    n->atoms = sym_atom_bit(n);
  lg_map_fill(&c->table, j, n->hash, n);
  return n;
}

const sym_node *sym_find(const sym_ctx *c, const sym_node *tmpl) {
  sym_node probe = *tmpl;
  probe.hash = node_hash(&probe);
  return lg_map_find(&c->table, probe.hash, node_eq, &probe);
}

void sym_ctx_forget_rewrites(sym_ctx *c) {
  sym_memo_free(&c->expand_memo);
  sym_memo_free(&c->simplify_memo);
  sym_memo_free(&c->collect_memo);
}

/* ---- iterative post-order traversal -------------------------------------- */
/* Children of a node in visiting order: coef (if any), then args, coefs. */
static const sym_node *child(const sym_node *n, uint32_t i) {
  uint32_t k = 0;
  if (n->coef) {
    if (i == 0) return n->coef;
    k = 1;
  }
  if (i - k < n->nargs) return n->args[i - k];
  return NULL;
}

typedef struct visit_frame { const sym_node *n; uint32_t next; } visit_frame;

int sym_postorder_many(size_t nroots, const sym_node *const *roots,
                       sym_visit_fn visit, void *ud) {
  /* seen: a set of node pointers keyed by id (ids are unique per context) */
  sym_memo seen = {0};
  visit_frame *stack = NULL;
  size_t cap = 0, top = 0;
  int ok = 1;
  for (size_t r = 0; ok && r < nroots; r++) {
    const sym_node *root = roots[r];
    if (sym_memo_get(&seen, root->id)) continue;
    ok = lg_grow((void **)&stack, &cap, 1, sizeof *stack) &&
         sym_memo_put(&seen, root->id, root);
    if (ok) stack[top++] = (visit_frame){root, 0};
    while (ok && top) {
      visit_frame *f = &stack[top - 1];
      const sym_node *ch = child(f->n, f->next);
      if (ch) {
        f->next++;
        if (sym_memo_get(&seen, ch->id)) continue;
        ok = sym_memo_put(&seen, ch->id, ch) &&
             lg_grow((void **)&stack, &cap, top + 1, sizeof *stack);
        if (ok) stack[top++] = (visit_frame){ch, 0};
        continue;
      }
      ok = visit(ud, f->n);
      top--;
    }
  }
  lg_free(stack);
  sym_memo_free(&seen);
  return ok;
}

int sym_postorder(const sym_node *root, sym_visit_fn visit, void *ud) {
  return sym_postorder_many(1, &root, visit, ud);
}
