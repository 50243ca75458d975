/* cg_internal.h - shared by the code generator's files. */
#ifndef LG_CG_INTERNAL_H
#define LG_CG_INTERNAL_H

#include "cg.h"

/* The generated functions, in the order they are written. */
typedef enum cg_func {
  CG_MASS_FULL, CG_FORCING_FULL, CG_MASS, CG_FORCING, CG_RHS, CG_ENERGY,
  CG_MOMENTA, CG_CONSTRAINTS, CG_CONSTRAINT_JACOBIAN, CG_NFUNCS,
  CG_RHS_JACOBIAN = CG_NFUNCS, /* C only, written after the others */
  CG_RHS_RECURSIVE,            /* C only, Lagrange's trees, only when asked */
  CG_OUTPUTS, CG_MULTIPLIERS   /* by default under Lagrange's method in C when the model
                                  has outputs; else when asked (Kane's, Python) */
} cg_func;

/* Does the request ask for function f (a cg_func)? */
/* Past this many coordinates a tree's default set leaves rhs_jacobian out:
 * its exact form differentiates the whole recursion once per state and
 * input (n^2 times the recursion's length: 2 million lines of C at 40
 * links, where the rest is 10^5); asked for by name, it is written. */
enum { CG_TREE_JACOBIAN_MAX = 16 };

static inline int cg_wants(const cg_request *r, int f) {
  if (f == CG_RHS_JACOBIAN && !r->functions && r->tree_form && r->eom &&
      r->eom->n > CG_TREE_JACOBIAN_MAX)
    return 0;
  if (f == CG_RHS_RECURSIVE)
    return (r->functions >> f & 1u) || (!r->functions && r->tree_form && !r->kane);
  if (f == CG_OUTPUTS || f == CG_MULTIPLIERS)
    return (r->functions >> f & 1u) || (!r->functions && mech_noutputs(r->mech) && !r->kane);
  return !r->functions || (r->functions >> f & 1u);
}

typedef struct cg_ctx {
  const cg_request *r;
  sym_ctx *c;
  lg_diag *diag;
  lg_str *src, *hdr;
  const sym_node **in;  /* tape inputs: t, x, params, input symbols */
  size_t nin;
  size_t nx;            /* state size: 2n (Lagrange) or n + p (Kane) */
  double *params;       /* resolved defaults */
  size_t nin_base;      /* inputs from here on are z[k - nin_base] (0: none) */
  size_t npieces;       /* functions a long tape was split into, so far */
  int rhs_by_tree;      /* NAME_rhs calls NAME_rhs_recursive (tree_form) */
  int full_by_call;     /* NAME_mass_matrix_full and NAME_forcing_full call NAME_mass_matrix
                           and NAME_forcing (a large tree without constraints: M once) */
  unsigned links_helpers; /* cg_emit_links.c's helpers written so far (bits) */
  int links_fn;           /* NAME_links written */
  cg_stats stats;
} cg_ctx;

/* The expressions function f returns (caller frees the array). */
const sym_node **cg_outputs(cg_ctx *G, cg_func f, size_t *count);
/* Lagrange's augmented system as NAME_rhs solves it ([[M, -J^T], [J, 0]]
 * row-major, then [f; gc]); under Kane's method with q' = k(q, u, t), so
 * over Kane's state x = [q; u] (caller frees). */
const sym_node **cg_aug_outputs(cg_ctx *G, size_t *count);
/* e[0..n) in place with q' from Kane's kinematics under Kane's method (a
 * no-op otherwise); returns e, or NULL out of memory. */
const sym_node **cg_in_state(cg_ctx *G, const sym_node **e, size_t n);
/* The model's outputs as one tape over [t, x, p, uu, z = (q'', lam)]:
 * the accelerations and multipliers are inputs beyond the usual ones, from
 * G->nin_base on (set here; the caller emits the tape, then sets it back
 * to 0). Shared by the C and NumPy emitters. */
lg_status cg_outputs_tape(cg_ctx *G, sym_tape **out);
/* Lower them (inputs replaced by symbols) to an SSA tape. */
lg_status cg_tape(cg_ctx *G, const sym_node **outs, size_t n, sym_tape **t);

/* The inputs' laws and two derivatives, for the NULL-u case. */
lg_status cg_inputs_tape(cg_ctx *G, sym_tape **t);

/* Tape t as statements at the end of G->src, results in out[] (a long
 * tape: calls of functions inserted at fn_start, where the function being
 * written begins). */
void cg_emit_tape(cg_ctx *G, const sym_tape *t, const char *out, size_t fn_start);
/* Opening of a generated function (t, x, u, p): unused arguments
 * silenced, the inputs uu filled. */
void cg_prologue(cg_ctx *G);
/* A large tree's NAME_mass_matrix, NAME_forcing and NAME_energy computed
 * over its links (cg_emit_links.c): LG_ERR_MODEL when the model has no
 * link tree (then written as expressions). */
lg_status cg_emit_links_mass(cg_ctx *G, const char *doc);
lg_status cg_emit_links_forcing(cg_ctx *G, const char *doc);
lg_status cg_emit_links_energy(cg_ctx *G, const char *doc);
/* A double as a C literal (NAN, INFINITY included). */
void cg_literal(lg_str *o, double k);

/* User text (paths, names) in generated code (cg_text.c): as the text of
 * a C block comment (put it between characters other than '*' and '/'),
 * and as the inside of a Python string literal or docstring. */
void cg_c_comment_text(lg_str *o, const char *s);
void cg_py_string_text(lg_str *o, const char *s);

lg_status cg_emit_c(cg_ctx *G);
lg_status cg_emit_python(cg_ctx *G);

#endif
