/* mech_work.c - what does work on a model besides its potential V: the
 * sources that make W (the work since t0) nonzero, and the energy E whose
 * balance E - W the simulation reports.
 *
 * E is T + V, or the energy function h = sum q_i' dL/dq_i' - L for a
 * model given as `L =`. Along the exact motion
 *   dh/dt = -dL/dt|explicit + (Q + J^T lam) . q'
 * so E changes only through explicit time dependence, generalized forces
 * (dissipation, forces, torques, inputs), moving constraints, and the
 * difference E - h (nonzero when T has terms that are not quadratic in the
 * q', as time-dependent kinematics give).
 *
 * The constraint forces J^T lam do power lam.(J q'); on the motion
 * J q' + b = 0, so that is -lam.b: zero for a holonomic row of a fixed
 * constraint (b = dC/dt = 0), nonzero for one that moves (b = dC/dt|explicit)
 * and for a nonholonomic row with a term that multiplies no rate (b =
 * the row at q' = 0, as in x' = k*y or a ball on a turntable). */
#include "mech_internal.h"

/* h = sum q_i' p_i - L */
static const sym_node *energy_function(mech_model *m, const mech_eom *e) {
  sym_ctx *c = m->c;
  const sym_node *h = sym_neg(c, e->L);
  for (size_t i = 0; i < e->n; i++) h = sym_add(c, h, sym_mul(c, e->qd[i], e->p[i]));
  return h;
}

const sym_node *mech_energy(mech_model *m, const mech_eom *e) {
  return m->L ? energy_function(m, e) : sym_add(m->c, e->T, e->V);
}

/* Does x depend on t, directly or through an input? */
static int time_dependent(mech_model *m, const sym_node *x) {
  if (sym_has(x, sym_time(m->c))) return 1;
  for (size_t i = 0; i < m->inputs.n; i++)
    for (int k = 0; k < 3; k++)
      if (sym_has(x, mech_input(m, i, k))) return 1;
  return 0;
}

/* E - h is zero exactly when T is a quadratic form in the q' (scleronomic
 * kinematics); small expressions are simplified to show it. */
static int energy_is_h(mech_model *m, const mech_eom *e) {
  if (m->L || e->quadratic_T) return 1;
  const sym_node *d = sym_sub(m->c, mech_energy(m, e), energy_function(m, e));
  if (d && !sym_is_zero(d) && sym_dag_size(d) < 4000) d = sym_expand(m->c, d);
  if (d && !sym_is_zero(d) && sym_dag_size(d) < 4000) d = sym_simplify(m->c, d);
  return d && sym_is_zero(d);
}

/* A nonholonomic row a(q, t).q' + b(q, t): is b (the row at q' = 0) zero? */
static int affine_term(mech_model *m, const mech_eom *e, size_t r) {
  if (e->kind[r] != MECH_NONHOLONOMIC) return 0;
  const sym_node **zero = lg_malloc((e->n + 1) * sizeof *zero);
  if (!zero) return 0;
  for (size_t i = 0; i < e->n; i++) zero[i] = sym_int(m->c, 0);
  const sym_node *b = sym_subst(m->c, e->C[r], e->n, e->qd, zero);
  lg_free(zero);
  if (b && !sym_is_zero(b) && sym_dag_size(b) < 4000) b = sym_expand(m->c, b);
  if (b && !sym_is_zero(b) && sym_dag_size(b) < 4000) b = sym_simplify(m->c, b);
  return b && !sym_is_zero(b);
}

unsigned mech_work_sources(mech_model *m, const mech_eom *e) {
  unsigned w = 0;
  if (!sym_is_zero(m->D)) w |= MECH_WORK_DISSIPATION;
  if (m->forces.n || m->torques.n || m->gen_forces.n) w |= MECH_WORK_FORCES;
  for (size_t r = 0; r < e->m; r++)
    if (time_dependent(m, e->C[r])) w |= MECH_WORK_MOVING;
    else if (affine_term(m, e, r)) w |= MECH_WORK_AFFINE;
  if (time_dependent(m, e->L)) w |= MECH_WORK_TIME;
  if (!energy_is_h(m, e)) w |= MECH_WORK_NOT_H;
  return w;
}
