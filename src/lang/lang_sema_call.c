/* lang_sema_call.c - function calls: the elementary functions (the symbolic
 * core's table), der, and the vector functions dot, cross, norm, pos, vel,
 * angvel. The parser has checked the number of arguments. */
#include "lang_sema.h"

#include <string.h>

static sema_val scalar_result(const sym_node *s) {
  return (sema_val){VAL_SCALAR, s, {0, NULL}, 0, s != NULL};
}
static sema_val vector_result(mech_vec v) { return (sema_val){VAL_VECTOR, NULL, v, 0, 1}; }
static sema_val failed(void) { return (sema_val){VAL_SCALAR, NULL, {0, NULL}, 0, 0}; }

/* sin(x), atan2(y, x), ... */
static sema_val elementary(sema *S, const lang_expr *e) {
  sym_fn fn = (sym_fn)e->u.call.fn;
  const sym_node *a = sema_scalar(S, e->u.call.args[0], "the argument");
  if (!a) return failed();
  const sym_node *b = NULL;
  if (e->u.call.nargs == 2 && !(b = sema_scalar(S, e->u.call.args[1], "the argument")))
    return failed();
  return scalar_result(sym_func(S->c, fn, a, b));
}

static sema_val der(sema *S, const lang_expr *e) {
  sema_val v = sema_expr(S, e->u.call.args[0]);
  if (!v.ok) return v;
  if (v.kind == VAL_SCALAR) return scalar_result(sym_dt(S->c, v.s));
  if (v.kind == VAL_VECTOR) return vector_result(mech_vec_dt(S->m, v.v));
  return sema_fail(S, e->line, e->col, "der() needs a scalar or a vector; for a point "
                                       "write vel(P)");
}

static sema_val two_vectors(sema *S, const lang_expr *e, int cross) {
  mech_vec a, b;
  if (!sema_vector(S, e->u.call.args[0], "the first argument", &a) ||
      !sema_vector(S, e->u.call.args[1], "the second argument", &b))
    return failed();
  if (cross) return vector_result(mech_vec_cross(S->m, a, b));
  return scalar_result(mech_vec_dot(S->m, a, b));
}

static sema_val of_point(sema *S, const lang_expr *e, int velocity) {
  int p = sema_point(S, e->u.call.args[0], "the argument");
  if (p < 0) return failed();
  return vector_result(velocity ? mech_point_vel(S->m, p) : mech_point_pos(S->m, p));
}

sema_val sema_call(sema *S, const lang_expr *e) {
  lang_func f = e->u.call.fn;
  mech_vec a;
  int fr;
  if (lang_func_is_elementary(f)) return elementary(S, e);
  switch (f) {
  case LANG_FN_DER: return der(S, e);
  case LANG_FN_DOT: return two_vectors(S, e, 0);
  case LANG_FN_CROSS: return two_vectors(S, e, 1);
  case LANG_FN_NORM:
    if (!sema_vector(S, e->u.call.args[0], "the argument", &a)) return failed();
    return scalar_result(mech_vec_norm(S->m, a));
  case LANG_FN_POS: return of_point(S, e, 0);
  case LANG_FN_VEL: return of_point(S, e, 1);
  case LANG_FN_ANGVEL:
    fr = sema_frame(S, e->u.call.args[0], "the argument");
    return fr < 0 ? failed() : vector_result(mech_frame_angvel(S->m, fr));
  case LANG_FN_MOMENTUM:
  case LANG_FN_ANGMOM:
  case LANG_FN_MASS_CENTER: return sema_output_call(S, e);
  default:
    return sema_fail(S, e->line, e->col, "%s() orients a frame: it may only appear as "
                     "'frame NAME = %s(...)'", lang_func_name(f), lang_func_name(f));
  }
}
