/* sym_tape_sums.c - lowering sums: the order of their terms, and the
 * sharing of sums lowered before. */
#include "sym_tape_lower.h"

#include <stdlib.h>
#include <string.h>

/* The order in which a sum's terms (or a product's factors) are
 * accumulated: the most used first (ties: as stored). Value numbering then
 * shares the partial sums: the terms common to many sums form a prefix
 * that is computed once (M_rs and M_r+1,s of a chain share all but a few
 * terms). Returns a heap array (NULL: stored order). */
typedef struct ranked { uint32_t uses, index; } ranked;

static int by_uses(const void *x, const void *y) { /* most used first, then as stored */
  const ranked *a = x, *b = y;
  if (a->uses != b->uses) return a->uses > b->uses ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

static uint32_t *use_order(const lowering *L, const sym_node *e) {
  if (!L->uses || e->nargs < 3) return NULL;
  /* a sort, not an insertion: the Whipple bicycle's Kane equations hold
   * sums of tens of thousands of terms (insertion took 12 s of 19) */
  ranked *r = lg_malloc(e->nargs * sizeof *r);
  uint32_t *ix = lg_malloc(e->nargs * sizeof *ix);
  if (!r || !ix) {
    lg_free(r);
    lg_free(ix);
    return NULL;
  }
  for (uint32_t i = 0; i < e->nargs; i++) r[i] = (ranked){L->uses[e->args[i]->id], i};
  qsort(r, e->nargs, sizeof *r, by_uses);
  for (uint32_t i = 0; i < e->nargs; i++) ix[i] = r[i].index;
  lg_free(r);
  return ix;
}

/* ---- sums: sharing the sums computed before ------------------------------------------ *
 * Value numbering shares a common prefix of two sums, but the entries of a
 * chain's mass matrix in relative angles nest in two directions: M_rs is
 * M_(r+1)s plus row r's terms, and those are row r's terms of M_r(s+1)
 * plus one. So a sum is lowered as the largest recently lowered sum whose
 * terms (with equal coefficients) it contains, plus the rest, found the
 * same way; each partial result is remembered in turn. Outputs are lowered
 * last first, so the smaller sums of such families come before the larger.
 * The relative chain's right-hand side fell from 14,405 / 75,250 to
 * 6,545 / 18,166 operations at n = 24 / 40 (growth n^3.2 -> n^2.0). */
typedef struct sum_term { uint32_t reg; double k; } sum_term;
typedef struct sum_record {
  uint32_t reg, count;
  uint64_t sig; /* a bit per term (reg mod 64): a subset's bits are a subset */
  sum_term *t;
} sum_record;

enum { SUM_WINDOW = 512, SUM_MAX_SEARCH = 4096, SUM_MAX_PARTS = 8 };

static uint64_t term_bit(uint32_t reg) { return (uint64_t)1 << (lg_hash_mix(reg, 7) & 63); }

/* k1 t1 + k2 t2 + ... in the given order (UINT32_MAX: no terms) */
static uint32_t accumulate(lowering *L, const sum_term *t, size_t n) {
  uint32_t acc = UINT32_MAX;
  for (size_t i = 0; i < n; i++) {
    double k = t[i].k;
    uint32_t x = t[i].reg;
    if (acc == UINT32_MAX) {
      acc = k == 1 ? x : k == -1 ? sym_tape_emit(L, (sym_instr){.op = SYM_OP_NEG, .a = x})
                                 : sym_tape_emit2(L, SYM_OP_MUL, sym_tape_emit_const(L, k), x);
    } else if (k == 1 || k == -1) {
      acc = sym_tape_emit2(L, k == 1 ? SYM_OP_ADD : SYM_OP_SUB, acc, x);
    } else {
      acc = sym_tape_emit2(L, SYM_OP_ADD, acc, sym_tape_emit2(L, SYM_OP_MUL, sym_tape_emit_const(L, k), x));
    }
  }
  return acc;
}

/* The terms as a set: reg -> index + 1 (the first term of a register). */
static int set_build(lg_map *S, const sum_term *t, size_t n) {
  if (!lg_map_reserve(S, n)) return 0;
  for (size_t i = 0; i < n; i++)
    if (!lg_map_get(S, t[i].reg) && !lg_map_put_n(S, t[i].reg, i + 1)) return 0;
  return 1;
}

static long set_find(const lg_map *S, uint32_t reg) { return (long)lg_map_get_n(S, reg) - 1; }

/* The largest remembered sum inside the terms not yet covered (part < 0),
 * with equal coefficients; -1 if none. */
static long largest_inside(const lowering *L, const sum_term *t, const lg_map *S,
                           const int *part, size_t left, uint64_t sig) {
  long best = -1;
  for (size_t r = 0; r < L->nrecent; r++) {
    const sum_record *R = &L->recent[r];
    if (R->count < 2 || R->count > left || (best >= 0 && R->count <= L->recent[best].count) ||
        (R->sig & ~sig))
      continue;
    size_t i = 0;
    for (; i < R->count; i++) {
      long at = set_find(S, R->t[i].reg);
      if (at < 0 || part[at] >= 0 || t[at].k != R->t[i].k) break;
    }
    if (i == R->count) best = (long)r;
  }
  return best;
}

/* Remember the terms of t whose part is < 0 or >= from as the sum in reg. */
static void remember(lowering *L, const sum_term *t, const int *part, size_t n, int from,
                     uint32_t reg) {
  size_t count = 0;
  for (size_t i = 0; i < n; i++) count += part[i] < 0 || part[i] >= from;
  if (count < 2 || count > SUM_MAX_SEARCH || !L->recent) return;
  sum_term *copy = lg_malloc(count * sizeof *copy);
  if (!copy) return;
  uint64_t sig = 0;
  for (size_t i = 0, c = 0; i < n; i++)
    if (part[i] < 0 || part[i] >= from) {
      copy[c++] = t[i];
      sig |= term_bit(t[i].reg);
    }
  if (L->nrecent == SUM_WINDOW) { /* drop the oldest */
    lg_free(L->recent[0].t);
    memmove(L->recent, L->recent + 1, (SUM_WINDOW - 1) * sizeof *L->recent);
    L->nrecent--;
  }
  L->recent[L->nrecent++] = (sum_record){reg, (uint32_t)count, sig, copy};
}

/* The sum of n terms (n >= 3), through remembered sums where they fit. */
static uint32_t lower_terms(lowering *L, sum_term *t, size_t n) {
  lg_map S = {0};
  int *part = lg_malloc(n * sizeof *part);
  sum_term *rest = lg_malloc(n * sizeof *rest);
  if (!part || !rest || n > SUM_MAX_SEARCH || !L->recent || !set_build(&S, t, n)) {
    uint32_t r = accumulate(L, t, n);
    lg_free(part);
    lg_free(rest);
    lg_map_free(&S);
    return r;
  }
  uint32_t parts[SUM_MAX_PARTS];
  int nparts = 0;
  size_t left = n;
  uint64_t sig = 0;
  for (size_t i = 0; i < n; i++) part[i] = -1, sig |= term_bit(t[i].reg);
  while (nparts < SUM_MAX_PARTS && left >= 2) {
    long r = largest_inside(L, t, &S, part, left, sig);
    if (r < 0) break;
    const sum_record *R = &L->recent[r];
    for (size_t i = 0; i < R->count; i++) part[set_find(&S, R->t[i].reg)] = nparts;
    parts[nparts++] = R->reg;
    left -= R->count;
    sig = 0;
    for (size_t i = 0; i < n; i++) if (part[i] < 0) sig |= term_bit(t[i].reg);
  }
  size_t nr = 0;
  for (size_t i = 0; i < n; i++) if (part[i] < 0) rest[nr++] = t[i];
  uint32_t acc = accumulate(L, rest, nr);
  remember(L, t, part, n, nparts, acc);
  for (int p = nparts - 1; p >= 0; p--) { /* innermost (last found) first */
    acc = acc == UINT32_MAX ? parts[p] : sym_tape_emit2(L, SYM_OP_ADD, acc, parts[p]);
    remember(L, t, part, n, p, acc);
  }
  lg_free(part);
  lg_free(rest);
  lg_map_free(&S);
  return acc;
}

uint32_t sym_tape_lower_add(lowering *L, const sym_node *e) {
  uint32_t *ix = use_order(L, e);
  sum_term *t = lg_malloc((e->nargs + 1) * sizeof *t);
  if (!t) {
    lg_free(ix);
    L->oom = 1;
    return 0;
  }
  for (uint32_t n = 0; n < e->nargs; n++) {
    uint32_t i = ix ? ix[n] : n;
    t[n] = (sum_term){sym_tape_reg(L, e->args[i]), sym_number_value(e->coefs[i])};
  }
  lg_free(ix);
  uint32_t acc = e->nargs >= 3 ? lower_terms(L, t, e->nargs) : accumulate(L, t, e->nargs);
  lg_free(t);
  if (!sym_is_zero(e->coef))
    acc = sym_tape_emit2(L, SYM_OP_ADD, acc, sym_tape_emit_const(L, sym_number_value(e->coef)));
  return acc;
}


void sym_tape_remember_sums(lowering *L) {
  L->recent = lg_malloc(SUM_WINDOW * sizeof *L->recent);
  L->nrecent = 0;
}

void sym_tape_forget_sums(lowering *L) {
  for (size_t i = 0; L->recent && i < L->nrecent; i++) lg_free(L->recent[i].t);
  lg_free(L->recent);
  L->recent = NULL;
  L->nrecent = 0;
}
