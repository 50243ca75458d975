/* sym_internal.h - what the files of the symbolic core share. */
#ifndef LG_SYM_INTERNAL_H
#define LG_SYM_INTERNAL_H

#include "sym.h"

#include <gmp.h>


struct sym_ctx {
  lg_arena arena;
  /* interning table: node hash -> node (shallow equality) */
  lg_map table;
  size_t count;
  /* big rationals to mpq_clear when the context dies */
  mpq_t **bigs;
  size_t nbigs, bigs_cap;
  /* memoized derivatives: key = (node id, var id) */
  sym_memo diff_memo, dt_memo;
  /* memoized rewrites: each node's expansion/simplification is computed once */
  sym_memo expand_memo, simplify_memo, collect_memo;
  /* cached constants */
  const sym_node *zero, *one, *minus_one, *half, *undef, *time, *pi;
  lg_status error;
  const char *error_message;
  /* sym_let: bound atom id -> its definition, and definition id -> its atom
   * (sym_let.c) */
  lg_map lets, let_of;
  size_t nlets;
};

/* The definition bound to a sym_let atom, or NULL. */
static inline const sym_node *sym_let_def(const sym_ctx *c, const sym_node *e) {
  return e->kind == SYM_SYMBOL && c->nlets ? lg_map_get(&c->lets, e->id) : NULL;
}

/* Intern a node described by `tmpl` (args/coefs may point to temporary
 * arrays: they are copied). Computes hash, depth and atom mask. */
const sym_node *sym_intern(sym_ctx *c, const sym_node *tmpl);
/* The interned node equal to tmpl, or NULL: never creates one. */
const sym_node *sym_find(const sym_ctx *c, const sym_node *tmpl);
void sym_set_error(sym_ctx *c, lg_status st, const char *msg);

/* ---- exact and float numbers (sym_num.c) ---- */
const sym_node *sym_num_add(sym_ctx *c, const sym_node *a, const sym_node *b);
const sym_node *sym_num_mul(sym_ctx *c, const sym_node *a, const sym_node *b);
const sym_node *sym_num_neg(sym_ctx *c, const sym_node *a);
/* a^n for an integer n (UNDEF for 0^negative). */
const sym_node *sym_num_powi(sym_ctx *c, const sym_node *a, int64_t n);
/* Exact rational root: a^(p/q) when it is rational, else NULL. */
const sym_node *sym_num_root(sym_ctx *c, const sym_node *a, int64_t p, int64_t q);
int sym_num_cmp(const sym_node *a, const sym_node *b); /* numeric order */
int sym_num_sign(const sym_node *a);
uint64_t sym_num_hash(const sym_node *n);
int sym_num_equal(const sym_node *a, const sym_node *b);
/* Denominator of an exact rational is 1 and it fits int64. */
int sym_num_is_small_int(const sym_node *a, int64_t *out);
/* Text of an exact rational ("3", "-2/5"), appended. */
void sym_num_print(lg_str *out, const sym_node *a);
/* |numerator| (part 0) or denominator (part 1), appended. */
void sym_num_print_part(lg_str *out, const sym_node *a, int part);
int sym_num_den_is_one(const sym_node *a);  /* true for floats too */
int sym_num_abs_is_one(const sym_node *a);

/* ---- pieces of canonical forms ---- */
/* Split a term into numeric coefficient and the rest: 3*x*y -> 3, x*y. */
void sym_split_coef(sym_ctx *c, const sym_node *e, const sym_node **coef,
                    const sym_node **rest);
/* Split a factor into base and exponent: x^2 -> x, 2; y -> y, 1. */
void sym_split_pow(sym_ctx *c, const sym_node *e, const sym_node **base,
                   const sym_node **exp);

/* ---- function folding and derivatives (sym_func.c) ---- */
/* Fold f(a[,b]) when an exact or numeric identity applies, else NULL. */
const sym_node *sym_fn_fold(sym_ctx *c, sym_fn f, const sym_node *a,
                            const sym_node *b);
/* d f(a,b) / d a (which = 0) or / d b (which = 1), as an expression. */
const sym_node *sym_fn_partial(sym_ctx *c, sym_fn f, const sym_node *a,
                               const sym_node *b, int which);

/* Post-order visit of a DAG without recursion: calls visit(node) once per
 * distinct node, children first. Returns 0 on OOM. */
typedef int (*sym_visit_fn)(void *ud, const sym_node *n);
int sym_postorder(const sym_node *root, sym_visit_fn visit, void *ud);
/* The same over several roots, each shared node visited once. */
int sym_postorder_many(size_t nroots, const sym_node *const *roots,
                       sym_visit_fn visit, void *ud);

/* A memoized bottom-up rebuild through the smart constructors:
 * fn(orig, rebuilt) gives each node's final form (sym_rewrite.c). */
typedef const sym_node *(*sym_rewrite_fn)(sym_ctx *c, void *ud, const sym_node *orig,
                                          const sym_node *rebuilt);
const sym_node *sym_rewrite_bottom_up(sym_ctx *c, const sym_node *e, sym_rewrite_fn fn,
                                      sym_memo *memo);

/* The atom-mask bit of an atom. */
static inline uint64_t sym_atom_bit(const sym_node *atom) {
  return 1ull << (atom->hash % 64);
}

#endif
