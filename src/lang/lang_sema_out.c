/* lang_sema_out.c - `output NAME = EXPR [in FRAME]` and what only outputs
 * may use: the energies T and V, the multipliers lam1..lamm, and the
 * totals momentum(), angmom(P), mass_center() (MODEL-FORMAT 1.1). The
 * outputs are stored in the mechanics model as scalars (a vector output as
 * NAME_x, NAME_y, NAME_z: its measure numbers in FRAME). */
#include "lang_sema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sema_val failed(void) { return (sema_val){VAL_SCALAR, NULL, {0, NULL}, 0, 0}; }

/* lamK with K >= 1 (digits only, no leading zero): K, else 0. */
static unsigned long multiplier_index(const char *s) {
  if (strncmp(s, "lam", 3) || s[3] < '1' || s[3] > '9' || strlen(s) > 12) return 0;
  for (const char *p = s + 3; *p; p++)
    if (*p < '0' || *p > '9') return 0;
  return strtoul(s + 3, NULL, 10);
}

sema_val sema_output_name(sema *S, const char *name, int line, int col, int *ok) {
  unsigned long k = multiplier_index(name);
  int energy = !strcmp(name, "T") || !strcmp(name, "V");
  *ok = energy || k;
  if (!*ok) return failed();
  if (!S->in_output) {
    sema_fail(S, line, col, "'%s' (%s) may only appear in an output", name,
              energy ? (name[0] == 'T' ? "the kinetic energy" : "the potential energy")
                     : "a multiplier");
    lg_diag_hint(S->diag, "output h = %s", name);
    return failed();
  }
  if (energy) {
    if (S->has_L) {
      sema_fail(S, line, col, "'%s' is not known in a model given by its Lagrangian L (line %d)",
                name, sema_line(S, S->L_line, NULL));
      return failed();
    }
    return (sema_val){VAL_SCALAR, mech_energy_symbol(S->m, name[0]), {0, NULL}, 0, 1};
  }
  size_t rows = mech_nrows(S->m);
  if (k > rows) {
    if (rows) sema_fail(S, line, col, "'%s': the model has %zu constraint row%s (lam1..lam%zu)",
                        name, rows, rows == 1 ? "" : "s", rows);
    else sema_fail(S, line, col, "'%s': the model has no constraints, so no multipliers", name);
    return failed();
  }
  return (sema_val){VAL_SCALAR, mech_multiplier_symbol(S->m, k - 1), {0, NULL}, 0, 1};
}

/* Totals need masses: particles or bodies, with a total that is not 0. */
static int has_mass(sema *S, const lang_expr *e) {
  const char *fn = lang_func_name(e->u.call.fn);
  if (mech_nparticles(S->m) + mech_nbodies(S->m) == 0) {
    sema_fail(S, e->line, e->col, "%s() needs particles or bodies; this model gives its "
              "energy by %s", fn, S->has_L ? "L =" : "T =");
    lg_diag_hint(S->diag, "declare the masses: particle P mass m");
    return 0;
  }
  const sym_node *M = mech_total_mass(S->m);
  double v = NAN;
  if (!M) return sema_nomem(S), 0;
  /* a mass without a value yet (a parameter set later) passes */
  if (sym_eval(S->c, M, sema_param_default, S, &v, NULL) == LG_OK && v == 0) {
    sema_fail(S, e->line, e->col, "%s() needs a total mass that is not 0", fn);
    return 0;
  }
  return 1;
}

sema_val sema_output_call(sema *S, const lang_expr *e) {
  const char *fn = lang_func_name(e->u.call.fn);
  mech_vec v;
  if (!S->in_output) {
    sema_fail(S, e->line, e->col, "%s() may only appear in an output", fn);
    lg_diag_hint(S->diag, "output h = %s", lang_func_usage(e->u.call.fn));
    return failed();
  }
  if (!has_mass(S, e)) return failed();
  if (e->u.call.fn == LANG_FN_ANGMOM) {
    int p = sema_point(S, e->u.call.args[0], "the argument of angmom()");
    if (p < 0) return failed();
    v = mech_angmom(S->m, p);
  } else {
    v = e->u.call.fn == LANG_FN_MOMENTUM ? mech_momentum(S->m) : mech_mass_center(S->m);
  }
  if (mech_model_oom(S->m)) return sema_nomem(S);
  return (sema_val){VAL_VECTOR, NULL, v, 0, 1};
}

/* The column `col` must be a new name among outputs and the model's names. */
static int column_free(sema *S, const lang_ident *id, const char *col) {
  for (size_t i = 0; i < mech_noutputs(S->m); i++) {
    if (strcmp(mech_output_name(S->m, i), col)) continue;
    int line, c;
    mech_output_pos(S->m, i, &line, &c);
    sema_fail(S, id->line, id->col, "the output column '%s' is already an output (%d:%d)", col,
              line, c);
    return 0;
  }
  if (strcmp(col, id->text) && sema_lookup(S, col)) {
    sema_fail(S, id->line, id->col, "the output column '%s' is already a name in the model",
              col);
    lg_diag_hint(S->diag, "choose another output name");
    return 0;
  }
  return 1;
}

lg_status sema_output(sema *S, const lang_stmt *st) {
  const lang_ident *id = &st->u.output.name, *fr = &st->u.output.frame;
  const lang_expr *x = st->u.output.value;
  char what[96];
  snprintf(what, sizeof what, "output '%.60s'", id->text);
  S->rule = SEMA_RULE_ANY;
  S->rule_what = what;
  S->in_output = 1;
  sema_val v = sema_expr(S, x);
  S->in_output = 0;
  if (!v.ok) return LG_ERR_MODEL;
  if (v.kind != VAL_SCALAR && v.kind != VAL_VECTOR) {
    sema_fail(S, x->line, x->col, "an output is a scalar or a vector, not %s",
              v.kind == VAL_POINT ? "a point (write pos(P) in N)" : "a frame");
    return LG_ERR_MODEL;
  }
  if (v.kind == VAL_SCALAR && fr->text) {
    sema_fail(S, fr->line, fr->col, "'in %s' gives a vector's measure numbers, but output '%s' "
              "is a scalar", fr->text, id->text);
    return LG_ERR_MODEL;
  }
  if (v.kind == VAL_VECTOR && !fr->text) {
    sema_fail(S, x->line, x->col, "output '%s' is a vector: name the frame of its measure "
              "numbers", id->text);
    lg_diag_hint(S->diag, "output %s = ... in N", id->text);
    return LG_ERR_MODEL;
  }
  if (v.kind == VAL_SCALAR) {
    if (!column_free(S, id, id->text)) return LG_ERR_MODEL;
    if (mech_add_output(S->m, id->text, v.s, id->line, id->col) < 0) return LG_ERR_NOMEM;
  } else {
    sema_entry *fe = sema_lookup(S, fr->text);
    const sym_node *c[3];
    if (!fe) return sema_unknown(S, fr->text, fr->line, fr->col), LG_ERR_MODEL;
    if (fe->kind != SEMA_FRAME) {
      sema_fail(S, fr->line, fr->col, "'%s' is not a frame", fr->text);
      return LG_ERR_MODEL;
    }
    if (!mech_vec_express(S->m, v.v, fe->index, c)) return sema_nomem(S), LG_ERR_NOMEM;
    for (int k = 0; k < 3; k++) {
      char col[80];
      snprintf(col, sizeof col, "%.60s_%c", id->text, 'x' + k);
      if (!column_free(S, id, col)) return LG_ERR_MODEL;
      if (mech_add_output(S->m, col, c[k], id->line, id->col) < 0) return LG_ERR_NOMEM;
    }
  }
  sema_entry *en = sema_declare(S, id->text, v.kind == VAL_SCALAR ? SEMA_SCALAR : SEMA_VECTOR,
                                id->line, id->col);
  if (!en) return LG_ERR_MODEL;
  en->scalar = v.s;
  en->vec = v.v;
  return LG_OK;
}
