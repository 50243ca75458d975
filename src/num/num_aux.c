/* num_aux.c - what a simulation evaluates besides the equations of
 * motion: the energy E and its rate along the motion, W' = dE/dt (the
 * power of everything not in V, integrated into W so that E - W is
 * conserved), and the event function of --stop-when.
 *
 * dE/dt is formed symbolically (the chain rule through q, q', t) and
 * evaluated with the solved accelerations: along the motion it equals
 * -dL/dt|explicit + (Q + J^T lam) . q' + d/dt(E - h), whichever of those
 * terms the model has. Under Kane's method the state is [q; u]: E and g
 * are rewritten with q' = k(q, u, t), and dE/dt then takes u'. With
 * dependent speeds the state Kane's method integrates holds every speed
 * (num_kane_system: u_all), so E is written in all of them (k->all), not
 * in the independent ones alone, whose slots would read other speeds. */
#include "num.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* e with q' replaced by Kane's kinematics (k NULL: unchanged) */
static const sym_node *in_state(sym_ctx *c, const mech_kane *k, const sym_node *e) {
  return k && e ? sym_subst(c, e, k->n, k->qd, k->kq) : e;
}

/* Tape inputs [t, q, v, params, v']: v = q' (Lagrange) or the speeds. */
static const sym_node **input_atoms(mech_model *mm, const mech_eom *e, const mech_kane *k,
                                    num_aux *a) {
  const sym_node **in = lg_malloc((1 + a->n + 2 * a->nv + a->np) * sizeof *in);
  if (!in) return NULL;
  size_t j = 0;
  in[j++] = sym_time(mech_ctx(mm));
  for (size_t i = 0; i < a->n; i++) in[j++] = e->q[i];
  for (size_t i = 0; i < a->nv; i++) in[j++] = k ? k->u[i] : e->qd[i];
  for (size_t i = 0; i < a->np; i++) in[j++] = mech_param(mm, i);
  for (size_t i = 0; i < a->nv; i++) in[j++] = k ? k->ud[i] : e->qdd[i];
  return in;
}

/* E and W' from the links on numbers (num_links_energy) where the model is a URDF robot alone
 * (mech_num_tree_of: T the links', V gravity's) under Lagrange's method, without constraints,
 * and only forces, torques and dissipation do work: the tape of dE/dt would be the chain rule
 * through every link (arm40: 14,000 operations, interpreted at every right-hand side, 90% of
 * a simulation's time). W' = q' . (M q'' + C + G) by Newton-Euler at the solved q'' still
 * checks the recursion that solved for q''. */
static void try_links(mech_model *mm, const mech_eom *e, const mech_kane *k,
                      const num_setting *set, size_t nset, num_aux *a) {
  if (k || e->m || !mech_num_tree_of(mm) ||
      (a->sources & ~(unsigned)(MECH_WORK_DISSIPATION | MECH_WORK_FORCES)))
    return;
  lg_diag ignored;
  num_links *L = NULL;
  if (num_links_build(mm, e, set, nset, a->params, &L, &ignored) == LG_OK &&
      num_links_has_forms(L))
    a->links = L;
  else
    num_links_free(L);
}

static lg_status build_tapes(mech_model *mm, const mech_eom *e, const mech_kane *k,
                             const num_setting *set, size_t nset, const sym_node *stop,
                             num_aux *a, lg_diag *diag) {
  sym_ctx *c = mech_ctx(mm);
  const sym_node *E = a->links ? sym_int(c, 0) : in_state(c, k, mech_energy(mm, e));
  const sym_node *o[3] = {E, a->links ? E : in_state(c, k, sym_dt(c, E)), in_state(c, k, stop)};
  const sym_node **in = input_atoms(mm, e, k, a);
  lg_status st = in && o[0] && o[1] ? num_substitute_inputs(mm, set, nset, o, stop ? 3 : 2)
                                     : LG_ERR_NOMEM;
  const sym_node *missing = NULL;
  size_t nin = 1 + a->n + 2 * a->nv + a->np;
  if (st == LG_OK && !a->links) st = sym_tape_build(c, nin, in, 2, o, &a->power, &missing);
  if (st == LG_OK && stop)
    st = sym_tape_build(c, nin - a->nv, in, 1, o + 2, &a->event, &missing);
  if (st == LG_ERR_MODEL)
    lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0, "'%s' has no numeric value",
                missing && missing->v.name ? missing->v.name : "?");
  lg_free(in);
  return st;
}

/* E = h could not be shown symbolically (a large model): check it at a
 * few pseudo-random states instead (E - h is a polynomial in the q', so a
 * nonzero one shows at almost any state). Returns 1 when E = h there. */
static int energy_is_h_numerically(mech_model *mm, const mech_eom *e, const num_aux *a,
                                   const num_setting *set, size_t nset) {
  sym_ctx *c = mech_ctx(mm);
  const sym_node *d = sym_sub(c, mech_energy(mm, e), sym_neg(c, e->L));
  for (size_t i = 0; d && i < e->n; i++) d = sym_sub(c, d, sym_mul(c, e->qd[i], e->p[i]));
  num_aux lag = *a;
  lag.nv = e->n; /* over Lagrange's [t, q, q', params] whatever the state */
  const sym_node **in = input_atoms(mm, e, NULL, &lag);
  sym_tape *tape = NULL;
  const sym_node *missing = NULL;
  size_t nin = 1 + 2 * e->n + a->np;
  int same = 0;
  if (d && in && num_substitute_inputs(mm, set, nset, &d, 1) == LG_OK &&
      sym_tape_build(c, nin, in, 1, &d, &tape, &missing) == LG_OK) {
    double *x = lg_calloc(nin + e->n, sizeof *x), *w = lg_calloc(tape->nslots + 1, sizeof *w);
    unsigned seed = 12345u;
    same = x && w;
    for (int k = 0; same && k < 3; k++) {
      for (size_t i = 0; i < nin; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = 0.1 + (double)(seed >> 16 & 0x7fff) / 32768.0;
      }
      memcpy(x + 1 + 2 * e->n, a->params, a->np * sizeof *x);
      double r;
      sym_tape_eval(tape, x, &r, w);
      same = fabs(r) <= 1e-10;
    }
    lg_free(x);
    lg_free(w);
  }
  sym_tape_free(tape);
  lg_free(in);
  return same;
}

lg_status num_aux_build(mech_model *mm, const mech_eom *e, const mech_kane *k,
                        const num_setting *set, size_t nset, const sym_node *stop,
                        num_aux **out, lg_diag *diag) {
  *out = NULL;
  if (k && k->ndep) { /* the state over time is [q; u_all] (num_kane_system) */
    lg_status st = mech_kane_derive_all(mm, (mech_kane *)k, diag);
    if (st != LG_OK) return st;
    k = k->all;
  }
  num_aux *a = lg_calloc(1, sizeof *a);
  if (!a) return LG_ERR_NOMEM;
  a->n = e->n;
  a->nv = k ? k->p : e->n;
  a->np = mech_nparams(mm);
  a->params = lg_calloc(a->np + 1, sizeof *a->params);
  a->sources = mech_work_sources(mm, e);
  a->work = a->sources != 0;
  lg_status st = a->params ? mech_resolve_params(mm, set, nset, a->params, diag)
                           : LG_ERR_NOMEM;
  if (st == LG_OK && (a->sources & MECH_WORK_NOT_H) &&
      energy_is_h_numerically(mm, e, a, set, nset))
    a->sources &= ~(unsigned)MECH_WORK_NOT_H;
  a->work = a->sources != 0;
  if (st == LG_OK) try_links(mm, e, k, set, nset, a);
  if (st == LG_OK) st = build_tapes(mm, e, k, set, nset, stop, a, diag);
  if (st != LG_OK) {
    num_aux_free(a);
    return st;
  }
  *out = a;
  return LG_OK;
}

void num_aux_free(num_aux *a) {
  if (!a) return;
  sym_tape_free(a->power);
  sym_tape_free(a->event);
  num_links_free(a->links);
  lg_free(a->params);
  lg_free(a);
}

lg_status num_aux_work_init(const num_aux *a, num_aux_work *w) {
  size_t nin = 1 + a->n + 2 * a->nv + a->np;
  size_t slots = a->links ? num_links_nslots(a->links) : a->power->nslots;
  if (a->event && a->event->nslots > slots) slots = a->event->nslots;
  w->in = lg_calloc(nin, sizeof *w->in);
  w->slots = lg_calloc(slots + 1, sizeof *w->slots);
  if (!w->in || !w->slots) {
    num_aux_work_free(w);
    return LG_ERR_NOMEM;
  }
  memcpy(w->in + 1 + a->n + a->nv, a->params, a->np * sizeof *a->params);
  return LG_OK;
}

void num_aux_work_free(num_aux_work *w) {
  lg_free(w->in);
  lg_free(w->slots);
  memset(w, 0, sizeof *w);
}

static void load(const num_aux *a, num_aux_work *w, double t, const double *q,
                 const double *v, const double *vd) {
  w->in[0] = t;
  memcpy(w->in + 1, q, a->n * sizeof *q);
  memcpy(w->in + 1 + a->n, v, a->nv * sizeof *v);
  double *acc = w->in + 1 + a->n + a->nv + a->np;
  if (vd) memcpy(acc, vd, a->nv * sizeof *vd);
  else memset(acc, 0, a->nv * sizeof *acc);
}

void num_aux_power(const num_aux *a, num_aux_work *w, double t, const double *q,
                   const double *v, const double *vd, double *E, double *Wd) {
  double o[2];
  load(a, w, t, q, v, vd);
  if (a->links) { /* [t, q, q', params] begins the tape's inputs */
    num_links_energy(a->links, w->in, w->in + 1 + a->n + a->nv + a->np, w->slots, E, Wd);
    return;
  }
  sym_tape_eval(a->power, w->in, o, w->slots);
  if (E) *E = o[0];
  if (Wd) *Wd = o[1];
}

double num_aux_event(const num_aux *a, num_aux_work *w, double t, const double *q,
                     const double *v) {
  double g = NAN;
  load(a, w, t, q, v, NULL);
  if (a->event) sym_tape_eval(a->event, w->in, &g, w->slots);
  return g;
}

/* The sources as a phrase for the summary line. */
void num_aux_describe(const num_aux *a, char *buf, size_t size) {
  static const char *const what[] = {"dissipation D", "applied forces and torques",
                                     "moving constraints", "explicit time dependence of L",
                                     "moving kinematics (E = T + V is not h)",
                                     ("constraint forces of affine velocity constraints "
                                      "(J q' + b = 0: power -lam.b)")};
  if (!a->sources) {
    snprintf(buf, size, "conservative: W = 0");
    return;
  }
  size_t k = (size_t)snprintf(buf, size, "work by");
  for (int i = 0, first = 1; i < 6 && k < size; i++)
    if (a->sources & (1u << i)) {
      k += (size_t)snprintf(buf + k, size - k, "%s%s", first ? " " : ", ", what[i]);
      first = 0;
    }
}
