/* num_outputs.c - the model's outputs compiled into one tape over the
 * state, the accelerations and the multipliers (the caller solves those at
 * the state: eval's q'' and lam). */
#include "num.h"

#include <string.h>

/* Inputs [t, q, q', params, q'', lam] as atoms (lg_malloc'd). */
static const sym_node **input_atoms(mech_model *mm, const mech_eom *e, num_outputs *o) {
  const sym_node **in = lg_malloc((o->nin ? o->nin : 1) * sizeof *in);
  if (!in) return NULL;
  size_t j = 0;
  in[j++] = sym_time(mech_ctx(mm));
  for (size_t i = 0; i < o->n; i++) in[j++] = e->q[i];
  for (size_t i = 0; i < o->n; i++) in[j++] = e->qd[i];
  for (size_t i = 0; i < o->np; i++) in[j++] = mech_param(mm, i);
  for (size_t i = 0; i < o->n; i++) in[j++] = e->qdd[i];
  for (size_t i = 0; i < o->m; i++) in[j++] = e->lam[i];
  return in;
}

/* The outputs in the tape's terms (inputs replaced by their laws). */
static lg_status expressions(mech_model *mm, const mech_eom *e, const char *file,
                             const num_setting *set, size_t nset, const sym_node **x,
                             size_t nout, lg_diag *diag) {
  lg_status st = mech_outputs_in(mm, e, file, x, diag);
  return st == LG_OK ? num_substitute_inputs(mm, set, nset, x, nout) : st;
}

lg_status num_outputs_build(mech_model *mm, const mech_eom *e, const char *file,
                            const num_setting *set, size_t nset, num_outputs **out,
                            lg_diag *diag) {
  *out = NULL;
  num_outputs *o = lg_calloc(1, sizeof *o);
  if (!o) return LG_ERR_NOMEM;
  o->n = e->n;
  o->m = e->m;
  o->np = mech_nparams(mm);
  o->nout = mech_noutputs(mm);
  o->nin = 1 + 3 * o->n + o->np + o->m;
  if (!o->nout) {
    *out = o;
    return LG_OK;
  }
  const sym_node **x = lg_malloc(o->nout * sizeof *x), **in = input_atoms(mm, e, o);
  const sym_node *missing = NULL;
  lg_status st = x && in ? expressions(mm, e, file, set, nset, x, o->nout, diag) : LG_ERR_NOMEM;
  if (st == LG_OK)
    st = sym_tape_build(mech_ctx(mm), o->nin, in, o->nout, x, &o->tape, &missing);
  if (st == LG_ERR_MODEL) {
    size_t i = 0;
    int line = 0, col = 0;
    while (i < o->nout && missing && !sym_has(x[i], missing)) i++;
    mech_output_pos(mm, i, &line, &col);
    lg_diag_set(diag, LG_ERR_MODEL, file, line, col, "'%s' has no numeric value in output '%s'",
                missing && missing->v.name ? missing->v.name : "?",
                i < o->nout ? mech_output_name(mm, i) : "?");
    lg_diag_hint(diag, "a multiplier beyond the equations' rows (a constraint row that is "
                       "identically zero is dropped)?");
  }
  lg_free(x);
  lg_free(in);
  if (st != LG_OK) {
    num_outputs_free(o);
    return st;
  }
  *out = o;
  return LG_OK;
}

void num_outputs_free(num_outputs *o) {
  if (!o) return;
  sym_tape_free(o->tape);
  lg_free(o);
}

size_t num_outputs_work_size(const num_outputs *o) {
  return o->tape ? o->tape->nslots + 1 : 1;
}

void num_outputs_eval(const num_outputs *o, const double *in, double *res, double *work) {
  if (o->tape) sym_tape_eval(o->tape, in, res, work);
}
