/* lg_api_system.c - deriving and compiling a system; its queries. */
#include "lg_api_internal.h"

#include "cg.h"

#include <math.h>
#include <string.h>

void lg_system_free(lg_system *s) {
  if (!s) return;
  num_system_free(s->num);
  if (s->sim != s->num) num_system_free(s->sim);
  num_kane_evaluator_free(s->kev);
  num_lin_free(s->lin);
  if (s->sim_lin != s->lin) num_lin_free(s->sim_lin);
  num_kane_system_free(s->ks);
  num_aux_free(s->aux);
  lang_model_free(s->lm);
  lg_free(s->dummy);
  lg_free(s->defaults);
  api_pool_free(s->pool);
  api_scene_free(s->scene);
  pthread_mutex_destroy(&s->lock);
  lg_free(s);
}

/* The model's parameter values (NaN where none, or where the value uses
 * a parameter without one), and a stand-in value
 * for each valueless one so the tapes compile: every evaluation passes
 * the real parameter vector. */
static lg_status resolve_defaults(lg_system *s) {
  mech_model *mm = s->lm->mech;
  size_t np = mech_nparams(mm);
  s->defaults = lg_calloc(np + 1, sizeof *s->defaults);
  s->dummy = lg_calloc(np + 1, sizeof *s->dummy);
  if (!s->defaults || !s->dummy) return LG_ERR_NOMEM;
  lg_status st = mech_default_params(mm, s->defaults);
  for (size_t i = 0; st == LG_OK && i < np; i++)
    if (isnan(s->defaults[i])) {
      s->dummy[s->ndummy].name = mech_param_name(mm, i);
      s->dummy[s->ndummy++].value = 0.0;
    }
  return st;
}

/* Kane's equations: at one state always; for simulation in Lagrange's
 * state when they share it, else in Kane's own [q; u]. Everything is
 * built here: afterwards nothing but printing and codegen touches the
 * symbolic context (an allocation failure there would poison it). */
static lg_status derive_kane(lg_system *s, lg_diag *d) {
  mech_model *mm = s->lm->mech;
  lg_status st = lang_derive_kane(s->lm, s->dummy, s->ndummy, &s->kane_raw, d);
  s->simplify_kane = mech_print_wants_simplify(s->lm->ctx, 1);
  if (st == LG_OK && !(s->kane = mech_kane_simplified(mm, s->kane_raw, CG_SIMPLIFY_FOR_CODE)))
    st = LG_ERR_NOMEM;
  if (st == LG_OK)
    st = num_kane_evaluator_build(mm, s->kane, s->dummy, s->ndummy, &s->kev, d);
  mech_eom *ke = st == LG_OK ? mech_kane_as_eom(mm, s->eom_raw, s->kane_raw) : NULL;
  if (ke && !(s->kane_eom = mech_eom_simplified(mm, ke, CG_SIMPLIFY_FOR_CODE)))
    st = LG_ERR_NOMEM;
  if (st == LG_OK && s->kane_eom)
    st = num_system_build(mm, s->kane_eom, s->dummy, s->ndummy, &s->sim, d);
  if (st == LG_OK && s->kane_eom) /* simulate's O(n) tree solve, as the command's */
    st = num_system_add_tree(mm, s->kane_eom, s->dummy, s->ndummy, s->sim);
  else if (st == LG_OK)
    st = num_kane_system_build(mm, s->kane, s->eom, s->dummy, s->ndummy, &s->ks, d);
  return st;
}

static lg_status derive(const lg_model *m, lg_method method, lg_system *s, lg_diag *d) {
  s->method = method;
  lg_status st = lang_load_string(m->name, m->text, m->len, &s->lm, d);
  if (st == LG_OK) st = mech_derive_lagrange(s->lm->mech, s->lm->file, &s->eom_raw, d);
  if (st == LG_OK) s->simplify_eom = mech_print_wants_simplify(s->lm->ctx, 0);
  if (st == LG_OK &&
      !(s->eom = mech_eom_simplified(s->lm->mech, s->eom_raw, CG_SIMPLIFY_FOR_CODE)))
    st = LG_ERR_NOMEM;
  if (st == LG_OK) st = resolve_defaults(s);
  if (st == LG_OK)
    st = num_system_build(s->lm->mech, s->eom, s->dummy, s->ndummy, &s->num, d);
  if (st == LG_OK) /* simulate's O(n) tree solve, as the command's */
    st = num_system_add_tree(s->lm->mech, s->eom, s->dummy, s->ndummy, s->num);
  if (st == LG_OK && method == LG_KANE) st = derive_kane(s, d);
  if (!s->sim) s->sim = s->num;
  /* the energy balance over the state simulate integrates */
  if (st == LG_OK)
    st = num_aux_build(s->lm->mech, s->kane_eom ? s->kane_eom : s->eom, s->ks ? s->kane : NULL,
                       s->dummy, s->ndummy, NULL, &s->aux, d);
  return st;
}

lg_status lg_derive(const lg_model *m, lg_method method, lg_system **out, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  lg_status st = LG_OK;
  if (out) *out = NULL;
  if (!m || !out || (method != LG_LAGRANGE && method != LG_KANE)) {
    lg_diag_set(d, LG_ERR_USAGE, m ? m->name : NULL, 0, 0,
                "lg_derive: a model, an output and a method (LG_LAGRANGE or LG_KANE) "
                "are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  lg_system *s = lg_calloc(1, sizeof *s);
  if (!s) return api_end(&c, LG_ERR_NOMEM, m->name, 0, 0);
  if (pthread_mutex_init(&s->lock, NULL) != 0) {
    lg_free(s);
    lg_diag_set(d, LG_ERR_NOMEM, m->name, 0, 0, "cannot create a lock");
    return api_end(&c, LG_ERR_NOMEM, m->name, 0, 0);
  }
  st = api_pool_new(&s->pool);
  if (st == LG_OK) st = derive(m, method, s, d);
  st = api_end(&c, st, m->name, m->lm->coord_line, m->lm->coord_col);
  if (st != LG_OK) lg_system_free(s);
  else *out = s;
  return st;
}

lg_method lg_system_method(const lg_system *s) { return s ? s->method : LG_LAGRANGE; }
size_t lg_nq(const lg_system *s) { return s ? s->num->n : 0; }
size_t lg_nc(const lg_system *s) { return s ? s->num->m : 0; }
size_t lg_np(const lg_system *s) { return s ? s->num->np : 0; }

const char *lg_coordinate_name(const lg_system *s, size_t i) {
  return s && i < s->num->n ? s->num->coord_names[i] : NULL;
}

const char *lg_parameter_name(const lg_system *s, size_t i) {
  return s && i < s->num->np ? s->num->param_names[i] : NULL;
}

size_t lg_ninputs(const lg_system *s) { return s ? mech_ninputs(s->lm->mech) : 0; }

const char *lg_input_name(const lg_system *s, size_t i) {
  return s && i < mech_ninputs(s->lm->mech) ? mech_input_name(s->lm->mech, i) : NULL;
}

void lg_default_params(const lg_system *s, double *p) {
  if (s && p) memcpy(p, s->defaults, s->num->np * sizeof *p);
}

void lg_initial_state(const lg_system *s, double *q, double *qd) {
  if (!s) return;
  if (q) memcpy(q, s->lm->q0, s->num->n * sizeof *q);
  if (qd) memcpy(qd, s->lm->qd0, s->num->n * sizeof *qd);
}
