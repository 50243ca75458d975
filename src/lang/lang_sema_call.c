/* lang_sema_call.c - function calls: elementary functions, der, and the
 * vector functions dot, cross, norm, pos, vel, angvel. */
#include "lang_sema.h"

#include <string.h>

static const char *const vector_fns[] = {"der", "dot", "cross", "norm", "pos",
                                         "vel", "angvel", "rotate", "body_fixed",
                                         "space_fixed", NULL};

static int arity_ok(sema *S, const lang_expr *e, size_t want) {
  if (e->nargs == want) return 1;
  sema_fail(S, e->line, e->col, "%s() takes %zu argument%s, not %zu", e->text, want,
            want == 1 ? "" : "s", e->nargs);
  return 0;
}

static sema_val scalar_result(const sym_node *s) {
  return (sema_val){VAL_SCALAR, s, {0, NULL}, 0, s != NULL};
}
static sema_val vector_result(mech_vec v) { return (sema_val){VAL_VECTOR, NULL, v, 0, 1}; }
static sema_val failed(void) { return (sema_val){VAL_SCALAR, NULL, {0, NULL}, 0, 0}; }

/* sin(x), atan2(y, x), ... */
static sema_val elementary(sema *S, const lang_expr *e, int fn) {
  if (!arity_ok(S, e, (size_t)sym_fn_arity((sym_fn)fn))) return failed();
  const sym_node *a = sema_scalar(S, e->args[0], "the argument");
  if (!a) return failed();
  const sym_node *b = NULL;
  if (e->nargs == 2 && !(b = sema_scalar(S, e->args[1], "the argument"))) return failed();
  return scalar_result(sym_func(S->c, (sym_fn)fn, a, b));
}

static sema_val der(sema *S, const lang_expr *e) {
  if (!arity_ok(S, e, 1)) return failed();
  sema_val v = sema_expr(S, e->args[0]);
  if (!v.ok) return v;
  if (v.kind == VAL_SCALAR) return scalar_result(sym_dt(S->c, v.s));
  if (v.kind == VAL_VECTOR) return vector_result(mech_vec_dt(S->m, v.v));
  return sema_fail(S, e->line, e->col, "der() needs a scalar or a vector; for a point "
                                       "write vel(P)");
}

static sema_val two_vectors(sema *S, const lang_expr *e, int cross) {
  mech_vec a, b;
  if (!arity_ok(S, e, 2) || !sema_vector(S, e->args[0], "the first argument", &a) ||
      !sema_vector(S, e->args[1], "the second argument", &b))
    return failed();
  if (cross) return vector_result(mech_vec_cross(S->m, a, b));
  return scalar_result(mech_vec_dot(S->m, a, b));
}

static sema_val of_point(sema *S, const lang_expr *e, int velocity) {
  if (!arity_ok(S, e, 1)) return failed();
  int p = sema_point(S, e->args[0], "the argument");
  if (p < 0) return failed();
  return vector_result(velocity ? mech_point_vel(S->m, p) : mech_point_pos(S->m, p));
}

sema_val sema_call(sema *S, const lang_expr *e) {
  int fn = sym_fn_lookup(e->text);
  if (fn >= 0) return elementary(S, e, fn);
  const char *f = e->text;
  if (!strcmp(f, "der")) return der(S, e);
  if (!strcmp(f, "dot")) return two_vectors(S, e, 0);
  if (!strcmp(f, "cross")) return two_vectors(S, e, 1);
  if (!strcmp(f, "norm")) {
    mech_vec a;
    if (!arity_ok(S, e, 1) || !sema_vector(S, e->args[0], "the argument", &a)) return failed();
    return scalar_result(mech_vec_norm(S->m, a));
  }
  if (!strcmp(f, "pos")) return of_point(S, e, 0);
  if (!strcmp(f, "vel")) return of_point(S, e, 1);
  if (!strcmp(f, "angvel")) {
    if (!arity_ok(S, e, 1)) return failed();
    int fr = sema_frame(S, e->args[0], "the argument");
    return fr < 0 ? failed() : vector_result(mech_frame_angvel(S->m, fr));
  }
  for (int i = 0; vector_fns[i]; i++)
    if (!strcmp(f, vector_fns[i]))
      return sema_fail(S, e->line, e->col, "%s() orients a frame: it may only appear as "
                                           "'frame NAME = %s(...)'", f, f);
  /* unknown function: suggest the closest known one */
  const char *best = NULL;
  int bestd = 3;
  for (int i = 0; i < SYM_FN_COUNT; i++) {
    int d = lg_edit_distance(f, sym_fn_name((sym_fn)i), 2);
    if (d < bestd) { bestd = d; best = sym_fn_name((sym_fn)i); }
  }
  for (int i = 0; vector_fns[i]; i++) {
    int d = lg_edit_distance(f, vector_fns[i], 2);
    if (d < bestd) { bestd = d; best = vector_fns[i]; }
  }
  sema_fail(S, e->line, e->col, "unknown function '%s'", f);
  if (best) lg_diag_hint(S->diag, "did you mean '%s'?", best);
  return failed();
}
