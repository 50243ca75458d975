/* mech_params.c - numeric parameter values: defaults in declaration order
 * (a default may use earlier parameters), overridden by settings. */
#include "mech.h"

#include <math.h>
#include <string.h>

typedef struct param_env { mech_model *mm; const double *val; size_t upto; } param_env;

static int param_value(void *ud, const sym_node *atom, double *out) {
  const param_env *pe = ud;
  for (size_t i = 0; i < pe->upto; i++)
    if (mech_param(pe->mm, i) == atom) {
      *out = pe->val[i];
      return isnan(pe->val[i]);
    }
  return 1;
}

const mech_setting *mech_find_setting(const mech_setting *set, size_t nset,
                                      const char *name) {
  for (size_t i = nset; i-- > 0;) /* the last --set wins */
    if (strcmp(set[i].name, name) == 0) return &set[i];
  return NULL;
}

/* strict: a default that uses a valueless parameter is an error; else
 * it is NaN too. */
static lg_status resolve(mech_model *mm, const mech_setting *set, size_t nset, double *val,
                         lg_diag *diag, int strict) {
  sym_ctx *c = mech_ctx(mm);
  size_t np = mech_nparams(mm);
  for (size_t i = 0; i < np; i++) {
    const mech_setting *s = mech_find_setting(set, nset, mech_param_name(mm, i));
    const sym_node *def = mech_param_value(mm, i);
    val[i] = NAN;
    if (s) {
      val[i] = s->value;
      continue;
    }
    if (!def) continue;
    param_env pe = {mm, val, i};
    const sym_node *missing = NULL;
    lg_status st = sym_eval(c, def, param_value, &pe, &val[i], &missing);
    if (st == LG_ERR_NOMEM) return st;
    if (st != LG_OK && !strict) {
      val[i] = NAN;
      continue;
    }
    if (st != LG_OK) {
      int line, col;
      mech_param_pos(mm, i, &line, &col);
      lg_diag_set(diag, LG_ERR_MODEL, NULL, line, col,
                  "the value of parameter '%s' uses '%s', which has no value",
                  mech_param_name(mm, i), missing ? missing->v.name : "?");
      lg_diag_hint(diag, "give '%s' a value, or `set` one", missing ? missing->v.name : "?");
      return LG_ERR_MODEL;
    }
  }
  return LG_OK;
}

lg_status mech_resolve_params(mech_model *mm, const mech_setting *set, size_t nset,
                              double *val, lg_diag *diag) {
  return resolve(mm, set, nset, val, diag, 1);
}

lg_status mech_default_params(mech_model *mm, double *val) {
  return resolve(mm, NULL, 0, val, NULL, 0);
}
