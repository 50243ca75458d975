/* num.h - the numerics layer: compiled evaluation of the equations at a
 * state, dense solves (LAPACK), and integration (SUNDIALS).
 *
 * A num_system is built once from derived equations (mech_eom): parameter
 * values are fixed, inputs are replaced by their laws (or constants), and
 * every quantity is lowered to one evaluation tape. It is immutable after
 * the build; evaluation writes into a caller-owned num_work.
 */
#ifndef LG_NUM_H
#define LG_NUM_H

#include "lg_base.h"
#include "mech.h"
#include "sym.h"

/* name=value overrides from --set (parameters or inputs) */
typedef struct num_setting {
  const char *name;
  double value;
} num_setting;

typedef struct num_system {
  size_t n, m, np;
  const char **coord_names;   /* n */
  const char **param_names;   /* np */
  double *params;             /* np: resolved values */
  sym_tape *tape;             /* inputs: t, q, q', params */
  /* output layout of the tape */
  size_t o_M, o_f, o_J, o_gc, o_T, o_V, o_p, o_C, o_Cd, nout;
  int *row_holonomic;         /* m */
} num_system;

/* Per-evaluation scratch and results (owned by the caller). */
typedef struct num_work {
  double *in, *out, *slots;   /* tape input, output, work */
  double *A, *b;              /* augmented system (n+m)^2 and n+m */
  int *ipiv;
} num_work;

/* Resolve parameter values (defaults in declaration order, then
 * settings), substitute inputs, and compile. Unknown setting names and
 * parameters without a value are LG_ERR_MODEL/LG_ERR_USAGE with diag. */
lg_status num_system_build(mech_model *mm, const mech_eom *e, const num_setting *set,
                           size_t nset, num_system **out, lg_diag *diag);
void num_system_free(num_system *s);

lg_status num_work_init(const num_system *s, num_work *w);
void num_work_free(num_work *w);

/* Evaluate every tape output at (t, q, q'); results in w->out (see o_*). */
void num_evaluate(const num_system *s, num_work *w, double t, const double *q,
                  const double *qd);

/* Solve [[M, -J^T], [J, 0]] [qdd; lam] = [f; gc] after num_evaluate.
 * LG_ERR_NUMERIC when singular (diag names the coordinate or multiplier
 * where elimination broke down). */
lg_status num_solve_accel(const num_system *s, num_work *w, double *qdd, double *lam,
                          lg_diag *diag);

#endif
