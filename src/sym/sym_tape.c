/* sym_tape.c - lowering expression DAGs to a straight-line tape.
 *
 * Every distinct node is computed once (hash-consing already merged equal
 * subexpressions, so the DAG is the common-subexpression elimination), then
 * virtual registers are mapped to a small set of reused slots by liveness
 * (CasADi's live-variable allocator). */
#include "sym_tape_lower.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>



static uint64_t instr_key(const sym_instr *in) {
  uint64_t kbits;
  memcpy(&kbits, &in->k, sizeof kbits);
  uint64_t h = lg_hash_mix(in->op, in->fn);
  h = lg_hash_mix(h, in->a);
  h = lg_hash_mix(h, in->b);
  h = lg_hash_mix(h, (uint64_t)(uint32_t)in->n);
  return lg_hash_mix(h, kbits);
}

static int same_instr(const sym_instr *x, const sym_instr *y) {
  return x->op == y->op && x->fn == y->fn && x->a == y->a && x->b == y->b &&
         x->n == y->n && memcmp(&x->k, &y->k, sizeof x->k) == 0;
}

/* An instruction looked up in the value numbering: the code holds the
 * entries (a value is a register + 1). */
typedef struct vn_probe { const sym_instr *code, *in; } vn_probe;

static int vn_eq(const void *val, const void *probe) {
  const vn_probe *p = probe;
  return same_instr(&p->code[(uintptr_t)val - 1], p->in);
}

static uint32_t emit(lowering *L, sym_instr in) {
  /* after a failed allocation nothing more is emitted: the value numbering
   * must never name an instruction the code array does not hold */
  if (L->oom) return 0;
  if (!lg_grow((void **)&L->code, &L->cap, L->n + 1, sizeof *L->code)) {
    L->oom = 1;
    return 0;
  }
  if (in.op != SYM_OP_OUT) {
    /* the register of an identical earlier instruction (commutative
     * operands ordered) */
    if ((in.op == SYM_OP_ADD || in.op == SYM_OP_MUL) && in.a > in.b) {
      uint32_t t = in.a;
      in.a = in.b;
      in.b = t;
    }
    if (!lg_map_reserve(&L->vn, 1)) {
      L->oom = 1;
      return 0;
    }
    uint64_t key = instr_key(&in);
    vn_probe p = {L->code, &in};
    size_t slot = lg_map_seek(&L->vn, key, vn_eq, &p);
    if (lg_map_val(&L->vn, slot)) return (uint32_t)((uintptr_t)lg_map_val(&L->vn, slot) - 1);
    lg_map_fill(&L->vn, slot, key, (void *)(uintptr_t)(L->n + 1));
  }
  in.r = (uint32_t)L->n;
  L->code[L->n++] = in;
  if (in.op != SYM_OP_CONST && in.op != SYM_OP_INPUT && in.op != SYM_OP_OUT)
    L->flops += in.op == SYM_OP_POWI ? (size_t)(in.n > 1 ? in.n - 1 : 1) : 1;
  return in.r;
}

static uint32_t emit_const(lowering *L, double k) {
  return emit(L, (sym_instr){.op = SYM_OP_CONST, .k = k});
}

static uint32_t emit2(lowering *L, sym_op op, uint32_t a, uint32_t b) {
  return emit(L, (sym_instr){.op = (uint8_t)op, .a = a, .b = b});
}

static uint32_t reg(const lowering *L, const sym_node *n) {
  return L->reg_of[n->id] - 1;
}

uint32_t sym_tape_emit(lowering *L, sym_instr in) { return emit(L, in); }
uint32_t sym_tape_emit2(lowering *L, sym_op op, uint32_t a, uint32_t b) {
  return emit2(L, op, a, b);
}
uint32_t sym_tape_emit_const(lowering *L, double k) { return emit_const(L, k); }
uint32_t sym_tape_reg(const lowering *L, const sym_node *n) { return reg(L, n); }

/* Integer powers up to this magnitude become POWI (its count is an int32);
 * larger ones, and INT64_MIN whose magnitude has no int64, stay POW. */
#define POWI_MAX ((int64_t)1 << 20)

/* base^k for an integer k != 0, 1 with |k| <= POWI_MAX */
static uint32_t emit_powi(lowering *L, uint32_t base, int64_t k) {
  int64_t m = k < 0 ? -k : k;
  if (m == 1) return k < 0 ? emit2(L, SYM_OP_DIV, emit_const(L, 1.0), base) : base;
  uint32_t r = m == 2 ? emit2(L, SYM_OP_SQR, base, 0)
               : emit(L, (sym_instr){.op = SYM_OP_POWI, .a = base, .n = (int32_t)m});
  return k < 0 ? emit2(L, SYM_OP_DIV, emit_const(L, 1.0), r) : r;
}

static uint32_t lower_pow(lowering *L, const sym_node *e) {
  const sym_node *x = e->args[1];
  uint32_t b = reg(L, e->args[0]);
  int64_t k;
  if (sym_is_integer(x, &k) && k >= -POWI_MAX && k <= POWI_MAX)
    return emit_powi(L, b, k);
  if (x->kind == SYM_NUM && !x->v.rat.big && x->v.rat.den == 2 &&
      (x->v.rat.num == 1 || x->v.rat.num == -1)) {
    uint32_t s = emit(L, (sym_instr){.op = SYM_OP_FUNC, .fn = SYM_FN_SQRT, .a = b});
    return x->v.rat.num == 1 ? s : emit2(L, SYM_OP_DIV, emit_const(L, 1.0), s);
  }
  return emit2(L, SYM_OP_POW, b, reg(L, x));
}

/* Product: numerator factors multiplied, denominator factors divided. */
static uint32_t lower_mul(lowering *L, const sym_node *e) {
  uint32_t acc = UINT32_MAX, den = UINT32_MAX;
  for (uint32_t i = 0; i < e->nargs; i++) {
    const sym_node *f = e->args[i];
    int64_t k;
    if (f->kind == SYM_POW && sym_is_integer(f->args[1], &k) && k < 0 && k >= -POWI_MAX) {
      uint32_t d = emit_powi(L, reg(L, f->args[0]), -k);
      den = den == UINT32_MAX ? d : emit2(L, SYM_OP_MUL, den, d);
      continue;
    }
    uint32_t r = reg(L, f);
    acc = acc == UINT32_MAX ? r : emit2(L, SYM_OP_MUL, acc, r);
  }
  double k = sym_number_value(e->coef);
  if (acc == UINT32_MAX) acc = emit_const(L, k);
  else if (k == -1) acc = emit(L, (sym_instr){.op = SYM_OP_NEG, .a = acc});
  else if (k != 1) acc = emit2(L, SYM_OP_MUL, emit_const(L, k), acc);
  return den == UINT32_MAX ? acc : emit2(L, SYM_OP_DIV, acc, den);
}

/* ---- sin and cos of sums of angles ---------------------------------------------------- *
 * sin(a - b) costs a library call (tens of flops); from the sines and
 * cosines of a and b, which a mechanical system computes anyway, it is
 * three flops. A sum of angles is split into a smaller sum that exists
 * already (the relative angles of a chain nest: q2 + q3 + q4 = (q2 + q3) +
 * q4) and one angle; value numbering shares what sums have in common. */
enum { TRIG_SPLIT_MAX_TERMS = 48 };

static int unit_angle_sum(const sym_node *e) {
  if (e->kind != SYM_ADD || e->nargs < 2 || e->nargs > TRIG_SPLIT_MAX_TERMS ||
      !sym_is_zero(e->coef))
    return 0;
  for (uint32_t i = 0; i < e->nargs; i++)
    if (!sym_num_abs_is_one(e->coefs[i]) || e->coefs[i]->kind != SYM_NUM) return 0;
  return 1;
}

static uint32_t emit_fn(lowering *L, sym_fn fn, uint32_t a) {
  return emit(L, (sym_instr){.op = SYM_OP_FUNC, .fn = (uint8_t)fn, .a = a});
}

/* sin and cos of k*x + rest (k = +-1) from those of x and rest */
static void add_angle(lowering *L, int k, uint32_t sx, uint32_t cx, uint32_t *s, uint32_t *c) {
  uint32_t sr = *s, cr = *c;
  uint32_t a = emit2(L, SYM_OP_MUL, sr, cx), b = emit2(L, SYM_OP_MUL, cr, sx);
  uint32_t p = emit2(L, SYM_OP_MUL, cr, cx), q = emit2(L, SYM_OP_MUL, sr, sx);
  *s = emit2(L, k > 0 ? SYM_OP_ADD : SYM_OP_SUB, a, b);
  *c = emit2(L, k > 0 ? SYM_OP_SUB : SYM_OP_ADD, p, q);
}

/* e without its term i, when that sum exists in the context (with two or
 * more terms); NULL otherwise. */
static const sym_node *sum_without(const lowering *L, const sym_node *e, uint32_t i) {
  const sym_node *args[TRIG_SPLIT_MAX_TERMS], *coefs[TRIG_SPLIT_MAX_TERMS];
  uint32_t n = 0;
  for (uint32_t j = 0; j < e->nargs; j++)
    if (j != i) args[n] = e->args[j], coefs[n++] = e->coefs[j];
  if (n < 2) return NULL;
  sym_node t = {0};
  t.kind = SYM_ADD;
  t.coef = e->coef;
  t.nargs = n;
  t.args = args;
  t.coefs = coefs;
  return sym_find(L->c, &t);
}

/* Registers of sin(e) and cos(e) for a sum of +-angles e; 0 when it does
 * not split (the caller calls sin or cos itself). depth <= the terms. */
static int angle_sum(lowering *L, const sym_node *e, uint32_t *s, uint32_t *c) {
  if (L->sin_of[e->id] == UINT32_MAX) return 0;
  if (L->sin_of[e->id]) {
    *s = L->sin_of[e->id] - 1;
    *c = L->cos_of[e->id] - 1;
    return 1;
  }
  int done = 0;
  if (e->nargs == 2) {
    int k0 = sym_num_sign(e->coefs[0]), k1 = sym_num_sign(e->coefs[1]);
    uint32_t x0 = reg(L, e->args[0]), x1 = reg(L, e->args[1]);
    *s = emit_fn(L, SYM_FN_SIN, x0);
    *c = emit_fn(L, SYM_FN_COS, x0);
    if (k0 < 0) *s = emit(L, (sym_instr){.op = SYM_OP_NEG, .a = *s});
    add_angle(L, k1, emit_fn(L, SYM_FN_SIN, x1), emit_fn(L, SYM_FN_COS, x1), s, c);
    done = 1;
  }
  for (uint32_t i = e->nargs; !done && i-- > 0;) {
    const sym_node *rest = sum_without(L, e, i);
    if (!rest || !angle_sum(L, rest, s, c)) continue;
    uint32_t x = reg(L, e->args[i]);
    add_angle(L, sym_num_sign(e->coefs[i]), emit_fn(L, SYM_FN_SIN, x),
              emit_fn(L, SYM_FN_COS, x), s, c);
    done = 1;
  }
  L->sin_of[e->id] = done ? *s + 1 : UINT32_MAX;
  if (done) L->cos_of[e->id] = *c + 1;
  return done;
}

/* sin(e) or cos(e): from the angles of a sum where that splits */
static uint32_t lower_trig(lowering *L, const sym_node *f) {
  const sym_node *x = f->args[0];
  uint32_t s, c;
  if (L->sin_of && unit_angle_sum(x) && angle_sum(L, x, &s, &c))
    return f->fn == SYM_FN_SIN ? s : c;
  return emit_fn(L, (sym_fn)f->fn, reg(L, x));
}

static int count_uses(void *ud, const sym_node *e) {
  lowering *L = ud;
  if (e->kind == SYM_ADD || e->kind == SYM_MUL)
    for (uint32_t i = 0; i < e->nargs; i++) L->uses[e->args[i]->id]++;
  return 1;
}

static int lower_visit(void *ud, const sym_node *e);

/* A node's children in sym_postorder's order: coef (if any), then args. */
static const sym_node *lower_child(const sym_node *n, uint32_t i) {
  if (n->coef) {
    if (i == 0) return n->coef;
    i--;
  }
  return i < n->nargs ? n->args[i] : NULL;
}

/* lower_visit over the roots in post-order (sym_postorder_many's), but
 * never into a node lowered already: lower_visit sets reg_of only after
 * every child was visited, so all of a lowered node's descendants are
 * lowered, and a full walk would do nothing under it. The same
 * instructions in the same order, without walking the lowered part of
 * the graph again for every let's definition (and with reg_of as the set
 * of nodes seen: a node is lowered as soon as its subtree is done, and a
 * DAG reaches no node on the stack from below it). */
static int lower_all(lowering *L, size_t nroots, const sym_node *const *roots) {
  struct frame { const sym_node *n; uint32_t next; } *stack = NULL;
  size_t cap = 0, top = 0;
  int ok = 1;
  for (size_t r = 0; ok && r < nroots; r++) {
    if (L->reg_of[roots[r]->id]) continue;
    ok = lg_grow((void **)&stack, &cap, 1, sizeof *stack);
    if (ok) stack[top++] = (struct frame){roots[r], 0};
    while (ok && top) {
      struct frame *f = &stack[top - 1];
      const sym_node *ch = lower_child(f->n, f->next);
      if (ch) {
        f->next++;
        if (L->reg_of[ch->id]) continue;
        ok = lg_grow((void **)&stack, &cap, top + 1, sizeof *stack);
        if (ok) stack[top++] = (struct frame){ch, 0};
        continue;
      }
      ok = lower_visit(L, f->n);
      top--;
    }
  }
  lg_free(stack);
  return ok;
}

static int lower_visit(void *ud, const sym_node *e) {
  lowering *L = ud;
  uint32_t r;
  if (L->reg_of[e->id]) return 1; /* lowered for an earlier output */
  switch (e->kind) {
  case SYM_NUM:
  case SYM_FLOAT: r = emit_const(L, sym_number_value(e)); break;
  case SYM_UNDEF: r = emit_const(L, NAN); break;
  case SYM_SYMBOL:
  case SYM_COORD:
  case SYM_TIME:
    if (!L->input_of[e->id] && sym_let_def(L->c, e)) { /* a let: its definition, once */
      const sym_node *def = sym_let_def(L->c, e);
      if (!lower_all(L, 1, &def)) return 0;
      r = reg(L, def);
      break;
    }
    if (L->input_of[e->id]) {
      r = emit(L, (sym_instr){.op = SYM_OP_INPUT, .a = L->input_of[e->id] - 1});
    } else if (e == L->c->pi) {
      r = emit_const(L, LG_PI);
    } else {
      if (!L->missing) L->missing = e;
      r = emit_const(L, NAN);
    }
    break;
  case SYM_ADD: r = sym_tape_lower_add(L, e); break;
  case SYM_MUL: r = lower_mul(L, e); break;
  case SYM_POW: r = lower_pow(L, e); break;
  case SYM_FUNC:
    if (e->fn == SYM_FN_SIN || e->fn == SYM_FN_COS) {
      r = lower_trig(L, e);
      break;
    }
    r = emit(L, (sym_instr){.op = SYM_OP_FUNC, .fn = e->fn, .a = reg(L, e->args[0]),
                            .b = e->nargs > 1 ? reg(L, e->args[1]) : 0});
    break;
  default: r = emit_const(L, NAN);
  }
  L->reg_of[e->id] = r + 1;
  return !L->oom;
}

/* ---- slot allocation by liveness -------------------------------------------------- */
static int uses_a(const sym_instr *in) {
  return in->op != SYM_OP_CONST && in->op != SYM_OP_INPUT;
}
static int uses_b(const sym_instr *in) {
  return in->op == SYM_OP_ADD || in->op == SYM_OP_SUB || in->op == SYM_OP_MUL ||
         in->op == SYM_OP_DIV || in->op == SYM_OP_POW ||
         (in->op == SYM_OP_FUNC && sym_fn_arity((sym_fn)in->fn) == 2);
}

static int allocate_slots(sym_tape *t) {
  size_t n = t->ninstr;
  uint32_t *last = lg_calloc(n, sizeof *last), *slot = lg_calloc(n, sizeof *slot);
  uint32_t *free_list = lg_malloc(n * sizeof *free_list);
  if (!last || !slot || !free_list) {
    lg_free(last); lg_free(slot); lg_free(free_list);
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    sym_instr *in = &t->code[i];
    if (uses_a(in) && in->op != SYM_OP_OUT) last[in->a] = (uint32_t)i;
    if (in->op == SYM_OP_OUT) last[in->b] = (uint32_t)i;
    if (uses_b(in)) last[in->b] = (uint32_t)i;
  }
  size_t nfree = 0, nslots = 0;
  for (size_t i = 0; i < n; i++) {
    sym_instr *in = &t->code[i];
    /* read operands (virtual -> physical), then release dead ones */
    uint32_t va = in->a, vb = in->b;
    if (in->op == SYM_OP_OUT) in->b = slot[vb];
    else if (uses_a(in)) in->a = slot[va];
    if (uses_b(in)) in->b = slot[vb];
    if (in->op == SYM_OP_OUT) {
      if (last[vb] == i) free_list[nfree++] = slot[vb];
      continue;
    }
    if (uses_a(in) && last[va] == i) free_list[nfree++] = slot[va];
    if (uses_b(in) && last[vb] == i && !(uses_a(in) && va == vb))
      free_list[nfree++] = slot[vb];
    slot[i] = nfree ? free_list[--nfree] : (uint32_t)nslots++;
    in->r = slot[i];
  }
  t->nslots = nslots ? nslots : 1;
  lg_free(last); lg_free(slot); lg_free(free_list);
  return 1;
}

/* ---- public API ---------------------------------------------------------------------- */
/* Drop instructions whose results nothing uses (constants lowered for
 * exponents and coefficients that were folded into other instructions),
 * renumbering the virtual registers. Recounts flops. */
static int eliminate_dead(sym_tape *t) {
  size_t n = t->ninstr, k = 0;
  uint8_t *live = lg_calloc(n + 1, 1);
  uint32_t *to = lg_malloc((n + 1) * sizeof *to);
  if (!live || !to) {
    lg_free(live);
    lg_free(to);
    return 0;
  }
  for (size_t i = n; i-- > 0;) {
    sym_instr *in = &t->code[i];
    if (in->op == SYM_OP_OUT) {
      live[i] = 1;
      live[in->b] = 1;
      continue;
    }
    if (!live[i]) continue;
    if (uses_a(in)) live[in->a] = 1;
    if (uses_b(in)) live[in->b] = 1;
  }
  t->flops = 0;
  for (size_t i = 0; i < n; i++) {
    if (!live[i]) continue;
    sym_instr in = t->code[i];
    if (in.op == SYM_OP_OUT) in.b = to[in.b];
    else {
      if (uses_a(&in)) in.a = to[in.a];
      if (uses_b(&in)) in.b = to[in.b];
      in.r = (uint32_t)k;
      if (in.op != SYM_OP_CONST && in.op != SYM_OP_INPUT)
        t->flops += in.op == SYM_OP_POWI ? (size_t)(in.n > 1 ? in.n - 1 : 1) : 1;
    }
    to[i] = (uint32_t)k;
    t->code[k++] = in;
  }
  t->ninstr = k;
  lg_free(live);
  lg_free(to);
  return 1;
}

/* Every result in its own register (r = instruction index): for code
 * generation, where the C compiler allocates registers itself. */
static void keep_registers(sym_tape *t) {
  for (size_t i = 0; i < t->ninstr; i++) t->code[i].r = (uint32_t)i;
  t->nslots = t->ninstr ? t->ninstr : 1;
}

static lg_status tape_build(sym_ctx *c, size_t ninputs, const sym_node *const *inputs,
                            size_t noutputs, const sym_node *const *outputs, size_t ngroup,
                            sym_tape **out, const sym_node **missing, int reuse);

lg_status sym_tape_build(sym_ctx *c, size_t ninputs, const sym_node *const *inputs,
                         size_t noutputs, const sym_node *const *outputs,
                         sym_tape **out, const sym_node **missing) {
  return tape_build(c, ninputs, inputs, noutputs, outputs, 0, out, missing, 1);
}

lg_status sym_tape_build_grouped(sym_ctx *c, size_t ninputs, const sym_node *const *inputs,
                                 size_t noutputs, const sym_node *const *outputs, size_t ngroup,
                                 sym_tape **out, const sym_node **missing) {
  return tape_build(c, ninputs, inputs, noutputs, outputs, ngroup < noutputs ? ngroup : 0, out,
                    missing, 1);
}

lg_status sym_tape_build_ssa(sym_ctx *c, size_t ninputs, const sym_node *const *inputs,
                             size_t noutputs, const sym_node *const *outputs,
                             sym_tape **out, const sym_node **missing) {
  return tape_build(c, ninputs, inputs, noutputs, outputs, 0, out, missing, 0);
}


static lg_status tape_build(sym_ctx *c, size_t ninputs, const sym_node *const *inputs,
                            size_t noutputs, const sym_node *const *outputs, size_t ngroup,
                            sym_tape **out, const sym_node **missing, int reuse) {
  *out = NULL;
  if (missing) *missing = NULL;
  lowering L = {.c = c};
  L.reg_of = lg_calloc(c->count + 1, sizeof *L.reg_of);
  L.input_of = lg_calloc(c->count + 1, sizeof *L.input_of);
  sym_tape *t = lg_calloc(1, sizeof *t);
  lg_status st = LG_OK;
  if (!L.reg_of || !L.input_of || !t) { st = LG_ERR_NOMEM; goto fail; }
  for (size_t i = 0; i < ninputs; i++)
    if (inputs[i]) L.input_of[inputs[i]->id] = (uint32_t)i + 1;
  for (size_t i = 0; i < noutputs; i++)
    if (!outputs[i]) { st = LG_ERR_NOMEM; goto fail; }
  /* use counts for the accumulation order (best effort: without them the
   * stored order is used) */
  L.uses = lg_calloc(c->count + 1, sizeof *L.uses);
  /* best effort too: without them sin and cos of sums are library calls */
  L.sin_of = lg_calloc(c->count + 1, sizeof *L.sin_of);
  L.cos_of = lg_calloc(c->count + 1, sizeof *L.cos_of);
  if (!L.sin_of || !L.cos_of) {
    lg_free(L.sin_of);
    lg_free(L.cos_of);
    L.sin_of = L.cos_of = NULL;
  }
  /* a group (the last ngroup outputs) is counted and lowered first on its
   * own: its instructions are then those of its own tape */
  const sym_node *const *first = ngroup ? outputs + noutputs - ngroup : outputs;
  if (L.uses && !sym_postorder_many(ngroup ? ngroup : noutputs, first, count_uses, &L)) {
    lg_free(L.uses);
    L.uses = NULL;
  }
  sym_tape_remember_sums(&L); /* best effort as well */
  /* last output first: the smaller sums of a nested family come first */
  const sym_node **backwards = lg_malloc((noutputs + 1) * sizeof *backwards);
  if (!backwards) { st = LG_ERR_NOMEM; goto fail; }
  for (size_t i = 0; i < noutputs; i++) backwards[i] = outputs[noutputs - 1 - i];
  int lowered = 1;
  if (ngroup) {
    lowered = lower_all(&L, ngroup, backwards);
    if (L.uses) { /* the rest as before: uses over every output */
      memset(L.uses, 0, (c->count + 1) * sizeof *L.uses);
      if (!sym_postorder_many(noutputs, outputs, count_uses, &L)) {
        lg_free(L.uses);
        L.uses = NULL;
      }
    }
  }
  lowered = lowered && lower_all(&L, noutputs, backwards);
  lg_free(backwards);
  sym_tape_forget_sums(&L);
  if (!lowered || L.oom) {
    st = LG_ERR_NOMEM;
    goto fail;
  }
  for (size_t i = 0; i < noutputs; i++)
    emit(&L, (sym_instr){.op = SYM_OP_OUT, .a = (uint32_t)i, .b = reg(&L, outputs[i])});
  if (L.oom) { st = LG_ERR_NOMEM; goto fail; }
  t->code = L.code;
  t->ninstr = L.n;
  t->ninputs = ninputs;
  t->noutputs = noutputs;
  t->flops = L.flops;
  L.code = NULL;
  if (!eliminate_dead(t)) { st = LG_ERR_NOMEM; goto fail; }
  if (reuse && !allocate_slots(t)) { st = LG_ERR_NOMEM; goto fail; }
  if (!reuse) keep_registers(t);
  if (L.missing) {
    if (missing) *missing = L.missing;
    st = LG_ERR_MODEL;
    goto fail;
  }
  lg_free(L.reg_of);
  lg_free(L.input_of);
  lg_free(L.uses);
  lg_free(L.sin_of);
  lg_free(L.cos_of);
  lg_map_free(&L.vn);
  *out = t;
  return LG_OK;
fail:
  sym_tape_forget_sums(&L);
  lg_free(L.code);
  lg_free(L.reg_of);
  lg_free(L.input_of);
  lg_free(L.uses);
  lg_free(L.sin_of);
  lg_free(L.cos_of);
  lg_map_free(&L.vn);
  sym_tape_free(t);
  return st;
}

void sym_tape_free(sym_tape *t) {
  if (!t) return;
  lg_free(t->code);
  lg_free(t);
}

/* The interpreter's dispatch. With GNU C (gcc, clang) every handler ends
 * in its own indirect jump through a table of label addresses, which the
 * branch predictor learns per handler: 1.3-2x faster than one switch on
 * the 12-link chain's tape (1,419 instructions). Other compilers get the
 * switch; the handlers are the same text. */
#if defined(__GNUC__)
#define TAPE_DISPATCH() goto *go[s->op];
#define TAPE_OP(name) op_##name:
#define TAPE_NEXT()                                                                               \
  do {                                                                                            \
    if (++s == end) return;                                                                       \
    goto *go[s->op];                                                                              \
  } while (0)
#else
#define TAPE_DISPATCH() switch (s->op)
#define TAPE_OP(name) case SYM_OP_##name:
#define TAPE_NEXT() break
#endif

void sym_tape_eval(const sym_tape *t, const double *in, double *out, double *w) {
  const sym_instr *s = t->code, *end = s + t->ninstr;
#if defined(__GNUC__)
  static const void *const go[] = {
      [SYM_OP_CONST] = &&op_CONST, [SYM_OP_INPUT] = &&op_INPUT, [SYM_OP_ADD] = &&op_ADD,
      [SYM_OP_SUB] = &&op_SUB,     [SYM_OP_MUL] = &&op_MUL,     [SYM_OP_DIV] = &&op_DIV,
      [SYM_OP_NEG] = &&op_NEG,     [SYM_OP_SQR] = &&op_SQR,     [SYM_OP_POWI] = &&op_POWI,
      [SYM_OP_POW] = &&op_POW,     [SYM_OP_FUNC] = &&op_FUNC,   [SYM_OP_OUT] = &&op_OUT};
  if (s == end) return;
#else
  for (; s < end; s++)
#endif
  TAPE_DISPATCH() {
    TAPE_OP(CONST) w[s->r] = s->k; TAPE_NEXT();
    TAPE_OP(INPUT) w[s->r] = in[s->a]; TAPE_NEXT();
    TAPE_OP(ADD) w[s->r] = w[s->a] + w[s->b]; TAPE_NEXT();
    TAPE_OP(SUB) w[s->r] = w[s->a] - w[s->b]; TAPE_NEXT();
    TAPE_OP(MUL) w[s->r] = w[s->a] * w[s->b]; TAPE_NEXT();
    TAPE_OP(DIV) w[s->r] = w[s->a] / w[s->b]; TAPE_NEXT();
    TAPE_OP(NEG) w[s->r] = -w[s->a]; TAPE_NEXT();
    TAPE_OP(SQR) w[s->r] = w[s->a] * w[s->a]; TAPE_NEXT();
    TAPE_OP(POWI) {
      double b = w[s->a], r = 1;
      for (int32_t k = s->n; k; k >>= 1, b *= b)
        if (k & 1) r *= b;
      w[s->r] = r;
      TAPE_NEXT();
    }
    TAPE_OP(POW) w[s->r] = pow(w[s->a], w[s->b]); TAPE_NEXT();
    TAPE_OP(FUNC) w[s->r] = sym_fn_eval((sym_fn)s->fn, w[s->a], w[s->b]); TAPE_NEXT();
    TAPE_OP(OUT) out[s->a] = w[s->b]; TAPE_NEXT();
  }
}
#undef TAPE_DISPATCH
#undef TAPE_OP
#undef TAPE_NEXT
