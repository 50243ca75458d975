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
 * systems keep the textbook form.
 *
 * Sums are printed through the sums before them, as the tape lowers them
 * (sym_tape_sums.c): a large sum that holds every term of a smaller one
 * (equal coefficients) is printed as that sum plus the rest, the rest
 * split the same way. The entries of a chain's mass matrix in relative
 * angles hold O(n^2) terms each and nest in two directions (M_rs is
 * M_(r+1)s plus row r's terms, those are row r's terms of M_r(s+1) plus
 * one): so split and named, n^2 entries print in O(n^2), not O(n^4). */
#include "sym_internal.h"

#include <stdlib.h>
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

/* ---- splitting sums ----------------------------------------------------------------- */
enum { SPLIT_MIN_TERMS = 6, SPLIT_WINDOW = 4096 };

typedef struct split_rec { const sym_node *e, *a, *b; } split_rec;
typedef struct sum_seen { const sym_node *e; uint64_t sig; } sum_seen;

typedef struct splitter {
  sym_ctx *c;
  sym_memo done;         /* sums split or seen already: each at most once */
  sum_seen *seen;
  size_t nseen, seen_cap;
  split_rec *rec;
  size_t nrec, rec_cap;
  int oom;
} splitter;

static uint64_t term_sig(const sym_node *e) {
  uint64_t s = 0;
  for (uint32_t i = 0; i < e->nargs; i++) s |= (uint64_t)1 << (lg_hash_mix(e->args[i]->id, 5) & 63);
  return s;
}

static int is_sum(const sym_node *e) { return e->kind == SYM_ADD && e->nargs >= 2; }

/* Does every term of a (with its coefficient) appear in b? Both sums keep
 * their terms in one canonical order. */
static int terms_within(const sym_node *a, const sym_node *b) {
  uint32_t j = 0;
  for (uint32_t i = 0; i < a->nargs; i++) {
    while (j < b->nargs && b->args[j] != a->args[i]) j++;
    if (j == b->nargs || b->coefs[j] != a->coefs[i]) return 0;
    j++;
  }
  return sym_is_zero(a->coef);
}

/* The largest recently seen sum inside e (NULL: none). */
static const sym_node *largest_within(const splitter *S, const sym_node *e) {
  uint64_t sig = term_sig(e);
  const sym_node *best = NULL;
  size_t stop = S->nseen > SPLIT_WINDOW ? S->nseen - SPLIT_WINDOW : 0;
  for (size_t i = S->nseen; i-- > stop;) {
    const sym_node *x = S->seen[i].e;
    if (x == e || x->nargs >= e->nargs || (best && x->nargs <= best->nargs)) continue;
    if ((S->seen[i].sig & ~sig) || !terms_within(x, e)) continue;
    best = x;
  }
  return best;
}

static void seen_add(splitter *S, const sym_node *e) {
  if (!lg_grow((void **)&S->seen, &S->seen_cap, S->nseen + 1, sizeof *S->seen)) {
    S->oom = 1;
    return;
  }
  S->seen[S->nseen++] = (sum_seen){e, term_sig(e)};
}

/* e = a + b with a a sum seen before and b the rest, b split in turn.
 * A sum is handled once (the rest of one split can be a sum met before). */
static void split_sum(splitter *S, const sym_node *e, int depth) {
  if (sym_memo_get(&S->done, e->id)) return;
  if (!sym_memo_put(&S->done, e->id, e)) {
    S->oom = 1;
    return;
  }
  const sym_node *a = depth < 64 ? largest_within(S, e) : NULL;
  if (a && a->nargs >= 2) {
    const sym_node **rest = lg_malloc((e->nargs + 1) * sizeof *rest);
    if (!rest) {
      S->oom = 1;
      return;
    }
    size_t k = 0;
    uint32_t j = 0;
    for (uint32_t i = 0; i < e->nargs; i++) {
      if (j < a->nargs && a->args[j] == e->args[i]) {
        j++;
        continue;
      }
      rest[k++] = sym_mul(S->c, e->coefs[i], e->args[i]);
    }
    if (!sym_is_zero(e->coef)) rest[k++] = e->coef;
    const sym_node *b = sym_addv(S->c, k, rest);
    lg_free(rest);
    if (!b || !lg_grow((void **)&S->rec, &S->rec_cap, S->nrec + 1, sizeof *S->rec)) {
      S->oom = 1;
      return;
    }
    S->rec[S->nrec++] = (split_rec){e, a, b};
    if (is_sum(b) && b->nargs >= SPLIT_MIN_TERMS) split_sum(S, b, depth + 1);
  }
  seen_add(S, e);
}

static int by_terms(const void *x, const void *y) {
  const sym_node *a = *(const sym_node *const *)x, *b = *(const sym_node *const *)y;
  if (a->nargs != b->nargs) return a->nargs < b->nargs ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

/* Every large sum of the printout, smallest first (so that the larger
 * find the smaller), split through those before it. */
static int plan_splits(sym_ctx *c, const planner *p, splitter *S) {
  S->c = c;
  size_t k = 0;
  const sym_node **sums = lg_malloc((p->count + 1) * sizeof *sums);
  if (!sums) return 0;
  for (size_t i = 0; i < p->count; i++)
    if (is_sum(p->order[i]) && p->order[i]->nargs >= SPLIT_MIN_TERMS) sums[k++] = p->order[i];
  qsort(sums, k, sizeof *sums, by_terms);
  for (size_t i = 0; i < k && !S->oom; i++) split_sum(S, sums[i], 0);
  lg_free(sums);
  return !S->oom && sym_ctx_error(c) == LG_OK;
}

/* ---- the order with splits: a split sum's children are its two parts ----------------- */
static uint32_t kids(const sym_share *s, const sym_node *e) {
  return e->id < s->ids && s->split_a[e->id] ? 2 : e->nargs;
}

static const sym_node *kid(const sym_share *s, const sym_node *e, uint32_t i) {
  if (e->id < s->ids && s->split_a[e->id]) return i ? s->split_b[e->id] : s->split_a[e->id];
  return e->args[i];
}

/* Postorder of the roots through the split parts (iterative: deep DAGs). */
static int postorder_split(const sym_share *s, const sym_node *const *roots, size_t nroots,
                           planner *p) {
  typedef struct frame { const sym_node *e; uint32_t next; } frame;
  uint8_t *state = lg_calloc(s->ids ? s->ids : 1, 1);
  frame *st = NULL;
  size_t n = 0, cap = 0;
  int ok = state != NULL;
  for (size_t r = 0; ok && r < nroots; r++) {
    if (state[roots[r]->id]) continue;
    if (!lg_grow((void **)&st, &cap, n + 1, sizeof *st)) ok = 0;
    else st[n++] = (frame){roots[r], 0}, state[roots[r]->id] = 1;
    while (ok && n) {
      frame *f = &st[n - 1];
      if (f->next < kids(s, f->e)) {
        const sym_node *ch = kid(s, f->e, f->next++);
        if (state[ch->id]) continue;
        state[ch->id] = 1;
        if (!lg_grow((void **)&st, &cap, n + 1, sizeof *st)) ok = 0;
        else st[n++] = (frame){ch, 0};
        continue;
      }
      const sym_node *e = f->e;
      n--;
      if (!lg_grow((void **)&p->order, &p->cap, p->count + 1, sizeof *p->order)) ok = 0;
      else p->order[p->count++] = e;
      for (uint32_t i = 0; ok && i < kids(s, e); i++) {
        uint32_t *u = &p->uses[kid(s, e, i)->id];
        if (*u < UINT32_MAX) (*u)++;
      }
    }
  }
  lg_free(state);
  lg_free(st);
  return ok;
}

int sym_share_split(const sym_share *s, const sym_node *e, const sym_node **a,
                    const sym_node **b) {
  if (!s || !s->split_a || e->id >= s->ids || !s->split_a[e->id]) return 0;
  *a = s->split_a[e->id];
  *b = s->split_b[e->id];
  return 1;
}

lg_status sym_share_plan(sym_ctx *c, const sym_node *const *roots, size_t nroots,
                         size_t min_chars, size_t budget, sym_share *out) {
  memset(out, 0, sizeof *out);
  size_t ids = sym_ctx_node_count(c);
  planner p = {NULL, 0, 0, lg_calloc(ids ? ids : 1, sizeof *p.uses)};
  uint32_t *chars = lg_calloc(ids ? ids : 1, sizeof *chars);
  splitter S = {0};
  lg_status st = LG_ERR_NOMEM;
  if (!p.uses || !chars || !sym_postorder_many(nroots, roots, record, &p)) goto done;
  /* tree sizes without names: small printouts stay as they are */
  size_t total = 0;
  for (size_t i = 0; i < p.count; i++) {
    const sym_node *e = p.order[i];
    size_t s = own_chars(e);
    for (uint32_t a = 0; a < e->nargs; a++) s = sat_add(s, chars[e->args[a]->id]);
    chars[e->id] = sat32(s);
  }
  for (size_t r = 0; r < nroots; r++) total = sat_add(total, chars[roots[r]->id]);
  if (total <= budget) {
    st = LG_OK;
    goto done;
  }
  /* large: split the sums (new nodes), then plan again through the parts */
  if (!plan_splits(c, &p, &S)) goto done;
  ids = sym_ctx_node_count(c);
  lg_free(p.uses);
  lg_free(chars);
  p.count = 0;
  p.uses = lg_calloc(ids ? ids : 1, sizeof *p.uses);
  chars = lg_calloc(ids ? ids : 1, sizeof *chars);
  out->name_of = lg_calloc(ids ? ids : 1, sizeof *out->name_of);
  out->split_a = lg_calloc(ids ? ids : 1, sizeof *out->split_a);
  out->split_b = lg_calloc(ids ? ids : 1, sizeof *out->split_b);
  out->ids = ids;
  if (!p.uses || !chars || !out->name_of || !out->split_a || !out->split_b) goto done;
  for (size_t i = 0; i < S.nrec; i++) {
    out->split_a[S.rec[i].e->id] = S.rec[i].a;
    out->split_b[S.rec[i].e->id] = S.rec[i].b;
  }
  if (!postorder_split(out, roots, nroots, &p)) goto done;
  /* a root written in several places (an entry of M in the equations,
   * mass_matrix and mass_matrix_full) is used once per place */
  for (size_t r = 0; r < nroots; r++)
    if (p.uses[roots[r]->id] < UINT32_MAX) p.uses[roots[r]->id]++;
  /* a denominator x^-k is printed through its base x: x is then used
   * wherever the denominator is (parents come after children) */
  for (size_t i = p.count; i-- > 0;) {
    const sym_node *e = p.order[i];
    if (e->kind == SYM_POW && !nameable(e) && p.uses[e->id] > 1) {
      uint32_t *u = &p.uses[e->args[0]->id];
      *u = *u > UINT32_MAX - p.uses[e->id] ? UINT32_MAX : *u + p.uses[e->id] - 1;
    }
  }
  st = LG_OK;
  choose_prefix(out, &p);
  for (size_t i = 0; i < p.count; i++) {
    const sym_node *e = p.order[i];
    int split = e->id < out->ids && out->split_a[e->id];
    size_t s = split ? 7 : own_chars(e); /* "(a + b)" */
    for (uint32_t a = 0; a < kids(out, e); a++) {
      const sym_node *ch = kid(out, e, a);
      s = sat_add(s, out->name_of[ch->id] ? name_chars(out->name_of[ch->id]) : chars[ch->id]);
    }
    chars[e->id] = sat32(s);
    /* a split sum stands for six terms or more: named when shared, however
     * short its parts print */
    if (p.uses[e->id] < 2 || (s < min_chars && !split) || !nameable(e)) continue;
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
  lg_free(S.seen);
  lg_free(S.rec);
  sym_memo_free(&S.done);
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
  lg_free(s->split_a);
  lg_free(s->split_b);
  lg_free(s->named);
  memset(s, 0, sizeof *s);
}
