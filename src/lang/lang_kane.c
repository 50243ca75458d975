/* lang_kane.c - Kane's method on a loaded model: the dependent speeds are
 * chosen by partial pivoting at a state (the model's initial one unless
 * given, with the parameters' values), so they stay well conditioned where
 * a simulation starts. The command line and the library both derive
 * through here. */
#include "lang.h"

#include <math.h>
#include <string.h>

typedef struct pivot_state {
  const lang_model *lm;
  const double *q, *qd;
  double t;
  const double *params;   /* NULL: parameters unknown */
} pivot_state;

/* The value of an atom at the initial state (0 when found, 1 else). */
static int pivot_value(void *ud, const sym_node *atom, double *out) {
  const pivot_state *ps = ud;
  mech_model *m = ps->lm->mech;
  for (size_t i = 0; i < mech_ncoords(m); i++) {
    if (mech_coord(m, i, 0) == atom) { *out = ps->q[i]; return 0; }
    if (mech_coord(m, i, 1) == atom) { *out = ps->qd[i]; return 0; }
  }
  for (size_t i = 0; ps->params && i < mech_nparams(m); i++)
    if (mech_param(m, i) == atom) { *out = ps->params[i]; return 0; }
  if (atom->kind == SYM_TIME) { *out = ps->t; return 0; }
  return 1;
}

lg_status lang_derive_kane(lang_model *lm, const mech_setting *set, size_t nset,
                           mech_kane **out, lg_diag *diag) {
  return lang_derive_kane_at(lm, set, nset, lm->t0, lm->q0, lm->qd0, out, diag);
}

lg_status lang_derive_kane_at(lang_model *lm, const mech_setting *set, size_t nset,
                              double t, const double *q, const double *qd,
                              mech_kane **out, lg_diag *diag) {
  lg_diag pd;
  lg_diag_clear(&pd);
  double *params = lg_calloc(mech_nparams(lm->mech) + 1, sizeof *params);
  if (!params) return LG_ERR_NOMEM;
  pivot_state ps = {lm, q, qd, t, params};
  /* parameters that cannot be resolved: pivot without their values */
  if (mech_resolve_params(lm->mech, set, nset, params, &pd) != LG_OK) ps.params = NULL;
  lg_status st = mech_derive_kane(lm->mech, lm->file, pivot_value, &ps, out, diag);
  lg_free(params);
  return st;
}

/* The independent speeds' values, then pivot_value's */
typedef struct speed_state {
  pivot_state ps;
  const mech_kane *k;
  const double *u;
} speed_state;

static int speed_value(void *ud, const sym_node *atom, double *out) {
  speed_state *ss = ud;
  for (size_t i = 0; i < ss->k->p; i++)
    if (ss->k->u[i] == atom) {
      *out = ss->u[i];
      return 0;
    }
  return pivot_value(&ss->ps, atom, out);
}

int lang_kane_initial_qd(const lang_model *lm, const mech_kane *k, const mech_setting *set,
                         size_t nset, double *qd) {
  if (!k || k->default_speeds || !lm->u0_set || !k->kq) return 0;
  size_t n = k->n, np = mech_nparams(lm->mech);
  double *buf = lg_calloc(k->p + np + n + 1, sizeof *buf), *u = buf, *par = u + k->p, *v = par + np;
  if (!buf) return 0;
  int any = 0;
  for (size_t i = 0; i < k->p; i++)
    for (size_t j = 0; j < lm->nspeeds; j++)
      if (lm->u0_set[j] && !strcmp(mech_speed_name(lm->mech, j), k->u[i]->v.name)) {
        u[i] = lm->u0[j];
        any = 1;
      }
  lg_diag pd;
  lg_diag_clear(&pd);
  speed_state ss = {{lm, lm->q0, lm->qd0, lm->t0, par}, k, u};
  int ok = any && mech_resolve_params(lm->mech, set, nset, par, &pd) == LG_OK &&
           sym_eval_many(mech_ctx(lm->mech), n, k->kq, speed_value, &ss, v, NULL) == LG_OK;
  for (size_t i = 0; ok && i < n; i++) ok = isfinite(v[i]);
  if (ok) memcpy(qd, v, n * sizeof *qd);
  lg_free(buf);
  return ok;
}
