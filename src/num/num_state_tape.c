/* num_state_tape.c - tapes over the state [t, q, q', parameters]: what the
 * events' guards and resets, friction's levels and the contacts' rows are
 * compiled to, and the input vector they are evaluated at. */
#include "num.h"

#include <string.h>

lg_status num_state_tape(mech_model *mm, const mech_eom *e, const sym_node *const *o, size_t no,
                         const char *what, sym_tape **out, lg_diag *diag) {
  sym_ctx *c = mech_ctx(mm);
  size_t n = e->n, np = mech_nparams(mm), j = 0;
  const sym_node **in = lg_malloc((1 + 2 * n + np) * sizeof *in);
  if (!in) return LG_ERR_NOMEM;
  in[j++] = sym_time(c);
  for (size_t i = 0; i < n; i++) in[j++] = e->q[i];
  for (size_t i = 0; i < n; i++) in[j++] = e->qd[i];
  for (size_t i = 0; i < np; i++) in[j++] = mech_param(mm, i);
  const sym_node *missing = NULL;
  lg_status st = sym_tape_build(c, j, in, no, o, out, &missing);
  if (st == LG_ERR_MODEL)
    lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0, "%s uses '%s', which has no numeric value", what,
                missing && missing->v.name ? missing->v.name : "?");
  lg_free(in);
  return st;
}

void num_state_load(double *in, size_t n, const double *params, size_t np, double t,
                    const double *q, const double *qd) {
  in[0] = t;
  memcpy(in + 1, q, n * sizeof *q);
  memcpy(in + 1 + n, qd, n * sizeof *qd);
  if (np) memcpy(in + 1 + 2 * n, params, np * sizeof *params);
}
