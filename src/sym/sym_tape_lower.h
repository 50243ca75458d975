/* sym_tape_lower.h - the lowering of expression DAGs to tapes, shared by
 * sym_tape.c (nodes, value numbering, slots) and sym_tape_sums.c (sums).
 * Internal to the symbolic layer. */
#ifndef SYM_TAPE_LOWER_H
#define SYM_TAPE_LOWER_H

#include "sym_internal.h"

struct sum_record;

typedef struct lowering {
  sym_ctx *c;
  sym_instr *code;
  size_t n, cap;
  uint32_t *reg_of; /* node id -> virtual register + 1 (0: not lowered) */
  uint32_t *input_of; /* node id -> input index + 1 */
  const sym_node *missing;
  size_t flops;
  int oom;
  uint32_t *uses; /* node id -> how many sums and products hold it */
  uint32_t *sin_of, *cos_of; /* sum-of-angles node id -> register + 1;
                                sin_of UINT32_MAX: it does not split */
  /* value numbering: an identical instruction is computed once */
  lg_map vn; /* instruction hash -> its register + 1 */
  struct sum_record *recent; /* the last sums lowered (sym_tape_sums.c) */
  size_t nrecent;
} lowering;

/* One instruction (value numbered: an identical one gives its register). */
uint32_t sym_tape_emit(lowering *L, sym_instr in);
uint32_t sym_tape_emit2(lowering *L, sym_op op, uint32_t a, uint32_t b);
uint32_t sym_tape_emit_const(lowering *L, double k);
/* The register of a lowered node. */
uint32_t sym_tape_reg(const lowering *L, const sym_node *n);

/* A sum (sym_tape_sums.c), through the sums lowered before it. */
uint32_t sym_tape_lower_add(lowering *L, const sym_node *e);
/* The memory of sums lowered: start (best effort), and free. */
void sym_tape_remember_sums(lowering *L);
void sym_tape_forget_sums(lowering *L);

#endif
