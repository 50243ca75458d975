/* lg_api_system.c - deriving and compiling a system; its queries. */
#include "lg_api_internal.h"

#include "cg.h"

#include <math.h>
#include <string.h>

static lg_status name_speeds(lg_system *s);

void lg_system_free(lg_system *s) {
  if (!s) return;
  for (size_t i = 0; s->speed_names && i < lg_nu(s); i++) lg_free(s->speed_names[i]);
  lg_free(s->speed_names);
  api_sim_free(s);
  api_events_free(s);
  api_friction_free(s);
  api_contact_free(s);
  if (s->sim != s->num) num_system_free(s->sim);
  num_system_free(s->num);
  num_system_free(s->num_tree);
  num_kane_evaluator_free(s->kev);
  num_lin_free(s->lin);
  if (s->sim_lin != s->lin) num_lin_free(s->sim_lin);
  num_kane_system_free(s->ks);
  num_aux_free(s->aux);
  num_outputs_free(s->outs);
  lang_model_free(s->lm);
  lg_free(s->dummy);
  lg_free(s->defaults);
  lg_free(s->kane_qd0);
  api_pool_free(s->pool);
  api_scene_free(s->scene);
  pthread_mutex_destroy(&s->lock);
  lg_free(s);
}

/* The settings every build is given: the model's (lg_model_set), under
 * the system's own names (the model may be freed), then a stand-in value
 * for each parameter that still has none, so the tapes compile; and the
 * parameter values (NaN where none, or where the value uses a parameter
 * without one). */
static lg_status resolve_defaults(lg_system *s, const lg_model *m) {
  mech_model *mm = s->lm->mech;
  size_t np = mech_nparams(mm), ni = mech_ninputs(mm);
  s->defaults = lg_calloc(np + 1, sizeof *s->defaults);
  s->dummy = lg_calloc(m->nset + np + 1, sizeof *s->dummy);
  if (!s->defaults || !s->dummy) return LG_ERR_NOMEM;
  for (size_t k = 0; k < m->nset; k++) {
    const char *own = NULL;
    for (size_t i = 0; i < np && !own; i++)
      if (!strcmp(mech_param_name(mm, i), m->set[k].name)) own = mech_param_name(mm, i);
    for (size_t i = 0; i < ni && !own; i++)
      if (!strcmp(mech_input_name(mm, i), m->set[k].name)) own = mech_input_name(mm, i);
    if (!own) continue; /* (lg_model_set checked every name) */
    s->dummy[s->ndummy].name = own;
    s->dummy[s->ndummy++].value = m->set[k].value;
  }
  s->nsettings = s->ndummy;
  lg_diag local;
  lg_diag_clear(&local);
  /* with the settings, defaults that use a set parameter follow it; when
   * some parameter has no value at all, only the set ones change */
  lg_status st = m->nset ? mech_resolve_params(mm, s->dummy, s->ndummy, s->defaults, &local)
                         : LG_ERR_MODEL;
  if (st == LG_ERR_NOMEM) return st;
  if (st != LG_OK) {
    st = mech_default_params(mm, s->defaults);
    for (size_t i = 0; st == LG_OK && i < np; i++) {
      const mech_setting *set = mech_find_setting(s->dummy, s->ndummy, mech_param_name(mm, i));
      if (set) s->defaults[i] = set->value;
    }
  }
  size_t nset = s->ndummy;
  for (size_t i = 0; st == LG_OK && i < np; i++)
    if (isnan(s->defaults[i]) && !mech_find_setting(s->dummy, nset, mech_param_name(mm, i))) {
      s->dummy[s->ndummy].name = mech_param_name(mm, i);
      s->dummy[s->ndummy++].value = 0.0;
    }
  return st;
}

/* Kane's equations, symbolically: as derived (dependent speeds chosen by
 * pivoting at the model's initial state, or at o's state), collected, and
 * in Lagrange's shape when they share its state. */
static lg_status derive_kane(lg_system *s, const lg_derive_options *o, lg_diag *d) {
  mech_model *mm = s->lm->mech;
  lg_status st = o->at_state ? lang_derive_kane_at(s->lm, s->dummy, s->ndummy, o->t,
                                                   o->q ? o->q : s->lm->q0,
                                                   o->qd ? o->qd : s->lm->qd0,
                                                   &s->kane_raw, d)
                             : lang_derive_kane(s->lm, s->dummy, s->ndummy, &s->kane_raw, d);
  s->simplify_kane = mech_print_wants_simplify(s->lm->ctx, 1);
  if (st == LG_OK && !(s->kane = mech_kane_simplified(mm, s->kane_raw, CG_SIMPLIFY_FOR_CODE)))
    st = LG_ERR_NOMEM;
  double *qd0 = st == LG_OK ? lg_malloc((mech_ncoords(mm) + 1) * sizeof *qd0) : NULL;
  if (qd0 && lang_kane_initial_qd(s->lm, s->kane, s->dummy, s->ndummy, qd0)) s->kane_qd0 = qd0;
  else lg_free(qd0);
  mech_eom *ke = st == LG_OK ? mech_kane_as_eom(mm, s->eom_raw, s->kane_raw) : NULL;
  if (ke && !(s->kane_eom = mech_eom_simplified(mm, ke, CG_SIMPLIFY_FOR_CODE)))
    st = LG_ERR_NOMEM;
  return st;
}

/* Kane's numeric objects: at one state always; for simulation in
 * Lagrange's state when they share it, else in Kane's own [q; u]. */
static lg_status compile_kane(lg_system *s, lg_diag *d) {
  mech_model *mm = s->lm->mech;
  lg_status st = num_kane_evaluator_build(mm, s->kane, s->dummy, s->ndummy, &s->kev, d);
  if (st == LG_OK) num_kane_evaluator_orient(s->kev, s->num); /* gimbal lock's name */
  if (st == LG_OK && s->kane_eom)
    st = num_system_build(mm, s->kane_eom, s->dummy, s->ndummy, &s->sim, d);
  if (st == LG_OK && s->kane_eom) /* simulate's O(n) tree solve, as the command's */
    st = num_system_add_tree(mm, s->kane_eom, s->dummy, s->ndummy, s->sim);
  else if (st == LG_OK)
    st = num_kane_system_build(mm, s->kane, s->eom_num, s->dummy, s->ndummy, &s->ks, d);
  if (st == LG_OK && s->ks) s->ks->orient = s->num;
  return st;
}

/* Everything numeric: afterwards nothing but printing and codegen touches
 * the symbolic context (an allocation failure there would poison it). */
static lg_status compile(lg_system *s, lg_diag *d) {
  mech_model *mm = s->lm->mech;
  lg_status st = api_num_eom(s, d);
  if (st == LG_OK && s->num_tree) { /* q'' came first, from the recursion's tape; */
    st = num_system_build(mm, s->eom_num, s->dummy, s->ndummy, &s->num, d);
    return st; /* and simulate's pieces wait for api_ready_sim */
  }
  if (st == LG_OK) st = num_system_build(mm, s->eom_num, s->dummy, s->ndummy, &s->num, d);
  if (st == LG_OK) /* simulate's O(n) tree solve, as the command's */
    st = num_system_add_tree(mm, s->eom_num, s->dummy, s->ndummy, s->num);
  if (st == LG_OK && s->method == LG_KANE) st = compile_kane(s, d);
  if (!s->sim) s->sim = s->num;
  /* the energy balance over the state simulate integrates */
  if (st == LG_OK)
    st = num_aux_build(mm, s->kane_eom ? s->kane_eom : s->eom_num, s->ks ? s->kane : NULL,
                       s->dummy, s->ndummy, NULL, &s->aux, d);
  s->sim_status = st;
  s->sim_ready = 1;
  return st;
}

/* A two-step system's simulate pieces, after compile: the recursion's
 * tape over num (a view of its own, as num is read meanwhile) and the
 * energy balance, as compile makes them for the others. */
static lg_status compile_sim(lg_system *s, lg_diag *d) {
  mech_model *mm = s->lm->mech;
  lg_status st = num_system_with_tree(mm, s->eom_num, s->dummy, s->ndummy, s->num, &s->sim);
  if (st == LG_OK)
    st = num_aux_build(mm, s->eom_num, NULL, s->dummy, s->ndummy, NULL, &s->aux, d);
  return st;
}

lg_status api_ready_sim(const lg_system *s, lg_diag *d) {
  lg_status st = api_ready(s, d);
  if (st != LG_OK || s->sim_ready) return st != LG_OK ? st : s->sim_status;
  lg_system *mut = (lg_system *)s;
  pthread_mutex_lock(&mut->lock);
  if (!mut->sim_ready) {
    lg_diag_clear(&mut->sim_diag);
    mut->sim_status = compile_sim(mut, &mut->sim_diag);
    mut->sim_ready = 1;
  }
  pthread_mutex_unlock(&mut->lock);
  if (s->sim_status != LG_OK && d) *d = s->sim_diag;
  return s->sim_status;
}

/* The dense dynamics (p, f, M and the full forms), derived on first use
 * into eom_raw and, simplified, into eom (mech_eom_need_dynamics; under
 * the system's lock, or before anyone else holds the system). Until then
 * a tree-structured model evaluates, simulates and generates its
 * recursion without the n^2 derivatives. */
static lg_status add_dynamics(void *ud, lg_diag *d) {
  lg_system *s = ud;
  if (s->eom->f) return LG_OK;
  mech_model *mm = s->lm->mech;
  lg_status st = mech_eom_add_dynamics(mm, s->lm->file, s->eom_raw, d);
  if (st == LG_OK &&
      !mech_eom_simplify_dynamics(mm, s->eom_raw, s->eom, CG_SIMPLIFY_FOR_CODE)) {
    lg_diag_set(d, LG_ERR_NOMEM, s->lm->file, 0, 0, "out of memory");
    st = LG_ERR_NOMEM;
  }
  return st;
}

lg_status api_dynamics(lg_system *s, lg_diag *d) {
  lg_status st = api_derived(s, d);
  return st != LG_OK ? st : mech_eom_need_dynamics(s->eom, d);
}

/* A tree taken by its links rather than by its dense equations (issue 26): Lagrange's method,
 * no constraints, and more than API_TREE_DENSE_MAX coordinates, or a URDF robot given by its
 * numbers at any size (the Panda's 7 joints with full inertias took 9 s and 340 MB to derive
 * densely for eval). */
static int by_links(const lg_system *s, size_t nq, size_t nc) {
  return s->method == LG_LAGRANGE && !nc &&
         (nq > API_TREE_DENSE_MAX || mech_num_tree_of(s->lm->mech) != NULL);
}

lg_status api_num_eom(lg_system *s, lg_diag *d) {
  if (s->eom_num) return LG_OK;
  lg_status dst = api_derived(s, d);
  if (dst != LG_OK) return dst;
  mech_model *mm = s->lm->mech;
  if (by_links(s, s->nq, s->nc)) {
    const sym_node **qdd, **M, **f;
    lg_diag ignore;
    lg_diag_clear(&ignore);
    lg_status st = mech_tree_dynamics(mm, &s->eom_first, NULL, &qdd, &M, &f, &ignore);
    if (st == LG_ERR_NOMEM) return st;
    if (st == LG_OK) {
      s->eom_num = mech_eom_with_dynamics(mm, &s->eom_first, M, f, qdd);
      return s->eom_num ? LG_OK : LG_ERR_NOMEM;
    }
  }
  lg_status st = api_dynamics(s, d);
  if (st == LG_OK) s->eom_num = s->eom;
  return st;
}

static int compile_accel(lg_system *s);

/* Lagrange's equations: eom_raw as derived, eom collected. */
static lg_status derive_equations(lg_system *s, lg_diag *d) {
  /* a large tree's T from its links (the dense T composes every rotation
   * to the root); the printed equations get the expanded one */
  int flags = by_links(s, mech_ncoords(s->lm->mech), 0) ? MECH_DERIVE_JOINT_T : 0;
  lg_status st = mech_derive_lagrange_with(s->lm->mech, s->lm->file, flags, &s->eom_raw, d);
  if (st == LG_OK) {
    s->eom_raw->dynamics = add_dynamics;
    s->eom_raw->dynamics_ud = s;
    s->simplify_eom = mech_print_wants_simplify(s->lm->ctx, 0);
  }
  if (st == LG_OK &&
      !(s->eom = mech_eom_simplified(s->lm->mech, s->eom_raw, CG_SIMPLIFY_FOR_CODE)))
    st = LG_ERR_NOMEM;
  if (st == LG_OK) s->eom_first = *s->eom;
  return st;
}

lg_status api_derived(const lg_system *s, lg_diag *d) {
  if (!s->derived) {
    lg_system *mut = (lg_system *)s;
    pthread_mutex_lock(&mut->lock);
    if (!mut->derived) {
      lg_diag_clear(&mut->derive_diag);
      mut->derive_status = derive_equations(mut, &mut->derive_diag);
      mut->derived = 1;
    }
    pthread_mutex_unlock(&mut->lock);
  }
  if (s->derive_status != LG_OK && d) *d = s->derive_diag;
  return s->derive_status;
}

/* Can lg_derive leave the equations for later (see lg_system.derived)? A
 * lazily derived large tree under Lagrange's method, given by its numbers,
 * whose q'' those numbers give (a parameter without a value, an input
 * that is not a number: derived now, and the usual path says why). */
static int defer_derivation(lg_system *s, const lg_derive_options *o) {
  mech_model *mm = s->lm->mech;
  if (!o->lazy || o->method != LG_LAGRANGE || !mech_num_tree_of(mm)) return 0;
  lg_diag ignore;
  lg_diag_clear(&ignore);
  s->nq = mech_ncoords(mm);
  s->np = mech_nparams(mm);
  if (num_system_build_links(mm, NULL, s->dummy, s->ndummy, &s->num_tree, &ignore) != LG_OK)
    return 0;
  s->accel_tried = 1;
  s->accel_ready = 1;
  return 1;
}

static lg_status derive(const lg_model *m, const lg_derive_options *o, lg_system *s,
                        lg_diag *d) {
  s->method = o->method;
  s->lm = api_model_take_parse(m);
  lg_status st = s->lm ? LG_OK : lang_load_string(m->name, m->text, m->len, &s->lm, d);
  if (st == LG_OK) st = resolve_defaults(s, m);
  if (st == LG_OK && defer_derivation(s, o)) return LG_OK;
  if (st == LG_OK) st = derive_equations(s, d);
  s->derive_status = st;
  s->derived = 1;
  /* Kane's method starts from Lagrange's dense equations */
  if (st == LG_OK && o->method == LG_KANE) st = api_dynamics(s, d);
  if (st == LG_OK) {
    s->nq = s->eom->n;
    s->nc = s->eom->m;
    s->np = mech_nparams(s->lm->mech);
  }
  if (st == LG_OK && o->method == LG_KANE) st = derive_kane(s, o, d);
  if (st == LG_OK) st = name_speeds(s);
  if (st == LG_OK && !o->lazy) {
    /* a large tree in the lazy one's steps: the same tapes, the same q'' */
    if (compile_accel(s)) s->accel_ready = 1;
    st = compile(s, d);
    s->compile_status = st;
    s->compiled = 1;
    if (st == LG_OK && !s->sim_ready) {
      s->sim_status = st = compile_sim(s, d);
      s->sim_ready = 1;
    }
  }
  return st;
}

lg_status api_ready(const lg_system *s, lg_diag *d) {
  if (s->compiled) return s->compile_status;
  lg_system *mut = (lg_system *)s;
  pthread_mutex_lock(&mut->lock);
  if (!mut->compiled) {
    /* a large tree in two steps even when q'' alone was not asked first:
     * simulate's pieces then still wait for api_ready_sim */
    if (!mut->accel_ready && compile_accel(mut)) mut->accel_ready = 1;
    lg_diag_clear(&mut->compile_diag);
    mut->compile_status = compile(mut, &mut->compile_diag);
    mut->compiled = 1;
  }
  pthread_mutex_unlock(&mut->lock);
  if (s->compile_status != LG_OK && d) *d = s->compile_diag;
  return s->compile_status;
}

/* The first step of a large tree (issue 26): the tree's q'' by the
 * articulated-body recursion and only its tape, which is all
 * lg_eval_accel evaluates (M and f by composite rigid bodies, the full
 * tape, simulate's pieces and the rest wait for api_ready). 0: not such a
 * system (or it is not a tree, or something in q'' has no value):
 * everything is compiled at once, q'' by the dense solve. */
static int compile_accel(lg_system *s) {
  /* (whether or not codegen made eom_num first: the same q'' either way) */
  if (s->accel_tried || !by_links(s, s->nq, s->nc)) return 0;
  s->accel_tried = 1;
  mech_model *mm = s->lm->mech;
  lg_diag ignore;
  lg_diag_clear(&ignore);
  /* the recursion on numbers over the links (num_links.c), else its
   * expressions (mech_tree.c's world-axes tree) lowered to a tape */
  lg_status st = num_system_build_links(mm, s->eom, s->dummy, s->ndummy, &s->num_tree, &ignore);
  if (st == LG_OK) return 1;
  if (st != LG_ERR_MODEL || ignore.status != LG_OK) return 0; /* (memory; no value) */
  const sym_node **qdd;
  if (mech_tree_accel(mm, s->eom, NULL, &qdd, &ignore) != LG_OK) return 0;
  lg_diag_clear(&ignore);
  return num_system_build_tree(mm, s->eom, qdd, s->dummy, s->ndummy, &s->num_tree, &ignore) ==
         LG_OK;
}

lg_status api_ready_accel(const lg_system *s, lg_diag *d) {
  if (s->accel_ready) return LG_OK;
  if (s->compiled) return api_ready(s, d);
  lg_system *mut = (lg_system *)s;
  pthread_mutex_lock(&mut->lock);
  if (!mut->compiled && !mut->accel_ready && compile_accel(mut)) mut->accel_ready = 1;
  pthread_mutex_unlock(&mut->lock);
  return s->accel_ready ? LG_OK : api_ready(s, d);
}

void lg_derive_options_default(lg_derive_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->method = LG_LAGRANGE;
}

lg_status lg_derive_with(const lg_model *m, const lg_derive_options *o, lg_system **out,
                         lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (out) *out = NULL;
  /* an options struct from a newer caller may be larger; an older
   * caller's smaller one is read as far as it goes, the rest defaults */
  lg_derive_options opt;
  lg_derive_options_default(&opt);
  if (o && o->size >= sizeof(size_t))
    memcpy(&opt, o, o->size < sizeof opt ? o->size : sizeof opt);
  opt.size = sizeof opt;
  if (!m || !out || !o || o->size < sizeof(size_t) ||
      (opt.method != LG_LAGRANGE && opt.method != LG_KANE)) {
    lg_diag_set(d, LG_ERR_USAGE, m ? m->name : NULL, 0, 0,
                "lg_derive: a model, an output and a method (LG_LAGRANGE or LG_KANE) "
                "are needed (options from lg_derive_options_default)");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  lg_system *s = lg_calloc(1, sizeof *s);
  if (!s) return api_end(&c, LG_ERR_NOMEM, m->name, 0, 0);
  /* recursive: api_derived is called with and without it held */
  pthread_mutexattr_t attr;
  int locked = pthread_mutexattr_init(&attr) == 0;
  if (locked && pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) != 0) {
    pthread_mutexattr_destroy(&attr);
    locked = 0;
  }
  if (locked) {
    locked = pthread_mutex_init(&s->lock, &attr) == 0;
    pthread_mutexattr_destroy(&attr);
  }
  if (!locked) {
    lg_free(s);
    lg_diag_set(d, LG_ERR_NOMEM, m->name, 0, 0, "cannot create a lock");
    return api_end(&c, LG_ERR_NOMEM, m->name, 0, 0);
  }
  lg_status st = api_pool_new(&s->pool);
  if (st == LG_OK) st = derive(m, &opt, s, d);
  st = api_end(&c, st, m->name, m->coord_line, m->coord_col);
  if (st != LG_OK) lg_system_free(s);
  else *out = s;
  return st;
}

lg_status lg_derive(const lg_model *m, lg_method method, lg_system **out, lg_diag *diag) {
  lg_derive_options o;
  lg_derive_options_default(&o);
  o.method = method;
  return lg_derive_with(m, &o, out, diag);
}

lg_method lg_system_method(const lg_system *s) { return s ? s->method : LG_LAGRANGE; }
size_t lg_nq(const lg_system *s) { return s ? s->nq : 0; }
size_t lg_nc(const lg_system *s) { return s ? s->nc : 0; }
size_t lg_np(const lg_system *s) { return s ? s->np : 0; }

const char *lg_coordinate_name(const lg_system *s, size_t i) {
  return s && i < s->nq ? mech_coord(s->lm->mech, i, 0)->v.name : NULL;
}

const char *lg_parameter_name(const lg_system *s, size_t i) {
  return s && i < s->np ? mech_param_name(s->lm->mech, i) : NULL;
}

int lg_kane_own_state(const lg_system *s) {
  return s && s->method == LG_KANE && s->kane && !s->kane_eom;
}

size_t lg_nu(const lg_system *s) { return lg_kane_own_state(s) ? s->kane->p : 0; }

const char *lg_speed_name(const lg_system *s, size_t i) {
  return i < lg_nu(s) && s->speed_names ? s->speed_names[i] : NULL;
}

/* The independent speeds' names: a declared speed's own ("w"), or, when
 * the speeds are the rates of the coordinates, the rate ("x'"), as eval
 * names them. */
static lg_status name_speeds(lg_system *s) {
  size_t nu = lg_nu(s);
  if (!nu) return LG_OK;
  s->speed_names = lg_calloc(nu, sizeof *s->speed_names);
  if (!s->speed_names) return LG_ERR_NOMEM;
  for (size_t i = 0; i < nu; i++) {
    const sym_node *u = s->kane->u[i];
    int rate = u->kind == SYM_COORD && u->order == 1;
    size_t len = strlen(u->v.name);
    if (!(s->speed_names[i] = lg_malloc(len + 2))) return LG_ERR_NOMEM;
    memcpy(s->speed_names[i], u->v.name, len);
    s->speed_names[i][len] = rate ? '\'' : 0;
    s->speed_names[i][len + 1] = 0;
  }
  return LG_OK;
}

size_t lg_ninputs(const lg_system *s) { return s ? mech_ninputs(s->lm->mech) : 0; }

const char *lg_input_name(const lg_system *s, size_t i) {
  return s && i < mech_ninputs(s->lm->mech) ? mech_input_name(s->lm->mech, i) : NULL;
}

void lg_default_params(const lg_system *s, double *p) {
  if (s && p) memcpy(p, s->defaults, s->np * sizeof *p);
}

void lg_initial_state(const lg_system *s, double *q, double *qd) {
  if (!s) return;
  if (q) memcpy(q, s->lm->q0, s->nq * sizeof *q);
  if (qd) memcpy(qd, s->kane_qd0 ? s->kane_qd0 : s->lm->qd0, s->nq * sizeof *qd);
}
