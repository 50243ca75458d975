/* sym_order.c - the canonical order of nodes, and simple queries. */
#include "sym_internal.h"

#include <string.h>

/* ---- predicates ---------------------------------------------------------- */
int sym_is_number(const sym_node *e) {
  return e && (e->kind == SYM_NUM || e->kind == SYM_FLOAT);
}

int sym_is_zero(const sym_node *e) {
  if (!e) return 0;
  if (e->kind == SYM_FLOAT) return e->v.f == 0;
  return e->kind == SYM_NUM && !e->v.rat.big && e->v.rat.num == 0;
}

int sym_is_one(const sym_node *e) {
  if (!e) return 0;
  if (e->kind == SYM_FLOAT) return e->v.f == 1;
  return e->kind == SYM_NUM && !e->v.rat.big && e->v.rat.num == 1 &&
         e->v.rat.den == 1;
}

int sym_is_integer(const sym_node *e, int64_t *out) {
  return e && e->kind == SYM_NUM && sym_num_is_small_int(e, out);
}

int sym_is_negative_number(const sym_node *e) {
  return sym_is_number(e) && sym_num_sign(e) < 0;
}

/* ---- order ------------------------------------------------------------------ */
/* Numbers first, then parameters, coordinates, time, functions, sums and
 * products: so 2*m*l^2*q1'' and x + sin(x) read naturally. */
static int kind_rank(const sym_node *e) {
  switch (e->kind) {
  case SYM_NUM: case SYM_FLOAT: return 0;
  case SYM_SYMBOL: return 1;
  case SYM_COORD: return 2;
  case SYM_TIME: return 3;
  case SYM_FUNC: return 4;
  case SYM_ADD: return 5;
  case SYM_MUL: return 6;
  case SYM_POW: return 7;
  default: return 8;
  }
}

static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

/* Compare two nodes that are not powers. */
static int cmp_plain(const sym_node *a, const sym_node *b) {
  int ra = kind_rank(a), rb = kind_rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (a->kind) {
  case SYM_NUM: case SYM_FLOAT: return sym_num_cmp(a, b);
  case SYM_SYMBOL: return strcmp(a->v.name, b->v.name);
  case SYM_COORD: {
    int s = strcmp(a->v.name, b->v.name);
    return s ? s : (a->order > b->order) - (a->order < b->order);
  }
  case SYM_FUNC:
    if (a->fn != b->fn) return a->fn < b->fn ? -1 : 1;
    for (uint32_t i = 0; i < a->nargs; i++) {
      int s = sym_cmp(a->args[i], b->args[i]);
      if (s) return s;
    }
    return 0;
  default:
    /* sums and products: by structural hash; a collision of two different
     * nodes falls back to creation order, which is deterministic too. */
    if (a->hash != b->hash) return cmp_u64(a->hash, b->hash);
    return cmp_u64(a->id, b->id);
  }
}

int sym_cmp(const sym_node *a, const sym_node *b) {
  if (a == b) return 0;
  /* a power sorts by its base, then its exponent: x < x^2 < y */
  const sym_node *ba = a->kind == SYM_POW ? a->args[0] : a;
  const sym_node *bb = b->kind == SYM_POW ? b->args[0] : b;
  if (ba != bb) {
    if (a->kind == SYM_POW || b->kind == SYM_POW) return sym_cmp(ba, bb);
    return cmp_plain(a, b);
  }
  /* same base: the plain one (exponent 1) first, then by exponent */
  if (a->kind != SYM_POW) return -1;
  if (b->kind != SYM_POW) return 1;
  return sym_cmp(a->args[1], b->args[1]);
}

/* ---- containment ----------------------------------------------------------- */
/* Explicit stack with a visited set: DAGs can be exponentially larger as
 * trees, and the atom mask prunes most branches. */
int sym_has(const sym_node *e, const sym_node *x) {
  uint64_t bit = sym_atom_bit(x);
  if (e == x) return 1;
  if (!(e->atoms & bit)) return 0;
  const sym_node *local[64], **stack = local;
  size_t top = 0, cap = 64;
  sym_memo seen = {0};
  int found = 0;
  stack[top++] = e;
  while (top && !found) {
    const sym_node *n = stack[--top];
    if (n == x) { found = 1; break; }
    if (!(n->atoms & bit) || sym_memo_get(&seen, n->id)) continue;
    sym_memo_put(&seen, n->id, n);
    if (!lg_grow_local((void **)&stack, &cap, top + n->nargs + 1, sizeof *stack, local)) break;
    for (uint32_t i = 0; i < n->nargs; i++) stack[top++] = n->args[i];
  }
  if (stack != local) lg_free(stack);
  sym_memo_free(&seen);
  return found;
}

/* Which roots hold any of x (the nodes themselves, through arguments and
 * let definitions, as substitution walks): one walk for every root, with
 * a state per node id (0 not seen, 1 without, 2 with) instead of a map. */
lg_status sym_has_any(const sym_ctx *c, size_t nroots, const sym_node *const *roots,
                      size_t nx, const sym_node *const *x, unsigned char *has,
                      unsigned char **state, size_t *nstate) {
  size_t count = sym_ctx_node_count(c);
  unsigned char *st = lg_calloc(count + 1, 1);
  struct frame { const sym_node *n; uint32_t next; } *stack = NULL;
  size_t cap = 0, top = 0;
  if (state) *state = NULL;
  if (!st) return LG_ERR_NOMEM;
  for (size_t i = 0; i < nx; i++)
    if (x[i] && x[i]->id < count) st[x[i]->id] = 2;
  int ok = 1;
  for (size_t r = 0; ok && r < nroots; r++) {
    if (!roots[r] || roots[r]->id >= count) { has[r] = 1; continue; } /* (unknown: yes) */
    if (!st[roots[r]->id]) {
      ok = lg_grow((void **)&stack, &cap, 1, sizeof *stack);
      if (ok) stack[top++] = (struct frame){roots[r], 0};
    }
    while (ok && top) {
      struct frame *f = &stack[top - 1];
      const sym_node *n = f->n, *def = n->nargs ? NULL : sym_let_def(c, n);
      uint32_t nch = def ? 1 : n->nargs;
      if (f->next < nch && st[n->id] != 2) {
        const sym_node *ch = def ? def : n->args[f->next];
        f->next++;
        if (ch->id >= count) st[n->id] = 2;
        else if (st[ch->id] == 2) st[n->id] = 2;
        else if (!st[ch->id]) {
          ok = lg_grow((void **)&stack, &cap, top + 1, sizeof *stack);
          if (ok) stack[top++] = (struct frame){ch, 0};
        }
        continue;
      }
      if (st[n->id] != 2) st[n->id] = 1;
      top--;
      if (top && st[n->id] == 2) st[stack[top - 1].n->id] = 2;
    }
    has[r] = st[roots[r]->id] == 2;
  }
  lg_free(stack);
  if (ok && state) {
    *state = st;
    *nstate = count;
  } else {
    lg_free(st);
  }
  return ok ? LG_OK : LG_ERR_NOMEM;
}

/* ---- canonical-form check (used by tests and debug builds) ----------------- */
/* One node's own invariants, its children taken as canonical. */
int sym_node_is_canonical(const sym_node *n) {
  int ok = 1;
  if (n->kind == SYM_ADD) {
    if (n->nargs < 1 || (n->nargs == 1 && sym_is_zero(n->coef))) ok = 0;
    for (uint32_t i = 0; i < n->nargs; i++) {
      const sym_node *t = n->args[i];
      if (sym_is_number(t) || t->kind == SYM_ADD || sym_is_zero(n->coefs[i])) ok = 0;
      if (t->kind == SYM_MUL && !sym_is_one(t->coef)) ok = 0;
      if (i && sym_cmp(n->args[i - 1], t) >= 0) ok = 0;
    }
  } else if (n->kind == SYM_MUL) {
    if (sym_is_zero(n->coef) || (n->nargs == 1 && sym_is_one(n->coef))) ok = 0;
    for (uint32_t i = 0; i < n->nargs; i++) {
      const sym_node *f = n->args[i];
      if (f->kind == SYM_MUL || sym_is_number(f)) ok = 0;
      if (i && sym_cmp(n->args[i - 1], f) >= 0) ok = 0;
    }
  } else if (n->kind == SYM_POW) {
    if (sym_is_zero(n->args[1]) || sym_is_one(n->args[1])) ok = 0;
  }
  return ok;
}

static int canonical_visit(void *ud, const sym_node *n) {
  if (!sym_node_is_canonical(n)) *(int *)ud = 0;
  return 1;
}

int sym_is_canonical(const sym_node *e) {
  int ok = 1;
  if (!sym_postorder(e, canonical_visit, &ok)) return 0;
  return ok;
}

static int count_visit(void *ud, const sym_node *n) {
  (void)n;
  (*(size_t *)ud)++;
  return 1;
}

size_t sym_dag_size(const sym_node *e) {
  size_t n = 0;
  sym_postorder(e, count_visit, &n);
  return n;
}

size_t sym_dag_size_many(size_t n, const sym_node *const *roots) {
  size_t k = 0;
  sym_postorder_many(n, roots, count_visit, &k);
  return k;
}
