/* mech_output.c - named outputs (scalars evaluated on the motion) and the
 * system's totals that outputs may use: linear momentum, angular momentum
 * about a point (SymPy's angular_momentum: r x m v for every particle and
 * body mass centre, plus I w for every body) and the mass centre. */
#include "mech_internal.h"

#include <stdio.h>

int mech_add_output(mech_model *m, const char *name, const sym_node *e, int line, int col) {
  mech_output o = {mech_strdup(m, name), e, line, col};
  if (!o.name || !e) return m->oom = 1, -1;
  return MECH_PUSH(m, m->outputs, o);
}

size_t mech_noutputs(const mech_model *m) { return m->outputs.n; }
const char *mech_output_name(const mech_model *m, size_t i) {
  return i < m->outputs.n ? m->outputs.v[i].name : NULL;
}
void mech_output_pos(const mech_model *m, size_t i, int *line, int *col) {
  *line = i < m->outputs.n ? m->outputs.v[i].line : 0;
  *col = i < m->outputs.n ? m->outputs.v[i].col : 0;
}

const sym_node *mech_multiplier_symbol(mech_model *m, size_t r) {
  char name[32];
  snprintf(name, sizeof name, "lam%zu", r + 1);
  return sym_symbol(m->c, name);
}

const sym_node *mech_energy_symbol(mech_model *m, char which) {
  return sym_symbol(m->c, which == 'T' ? "T" : "V");
}

lg_status mech_outputs_in(mech_model *m, const mech_eom *e, const char *file,
                          const sym_node **res, lg_diag *diag) {
  sym_ctx *c = m->c;
  const sym_node **from = NULL, **to = NULL;
  size_t ns = 0;
  lg_status st = mech_speed_values(m, file, &from, &to, &ns, diag);
  const sym_node *ef[2] = {mech_energy_symbol(m, 'T'), mech_energy_symbol(m, 'V')};
  const sym_node *et[2] = {e->T, e->V};
  for (size_t i = 0; st == LG_OK && i < m->outputs.n; i++) {
    res[i] = m->outputs.v[i].e;
    if (e->T && e->V) res[i] = sym_subst(c, res[i], 2, ef, et);
    if (res[i] && ns) res[i] = sym_subst(c, res[i], ns, from, to);
    if (!res[i]) st = LG_ERR_NOMEM;
  }
  return st;
}

size_t mech_nrows(const mech_model *m) { return m->rows.n; }

/* The k-th mass carrier: particles first, then bodies (mass centres). */
static size_t ncarriers(const mech_model *m) { return m->particles.n + m->bodies.n; }
static void carrier(const mech_model *m, size_t k, int *point, const sym_node **mass) {
  if (k < m->particles.n) {
    *point = m->particles.v[k].point;
    *mass = m->particles.v[k].mass;
  } else {
    *point = m->bodies.v[k - m->particles.n].point;
    *mass = m->bodies.v[k - m->particles.n].mass;
  }
}

const sym_node *mech_total_mass(mech_model *m) {
  size_t n = ncarriers(m);
  const sym_node **t = lg_malloc((n + 1) * sizeof *t);
  if (!t) return m->oom = 1, NULL;
  for (size_t k = 0; k < n; k++) {
    int p;
    carrier(m, k, &p, &t[k]);
  }
  const sym_node *r = n ? sym_addv(m->c, n, t) : sym_int(m->c, 0);
  lg_free(t);
  return r;
}

mech_vec mech_momentum(mech_model *m) {
  mech_vec r = mech_vec_zero();
  for (size_t k = 0; k < ncarriers(m); k++) {
    int p;
    const sym_node *mass;
    carrier(m, k, &p, &mass);
    r = mech_vec_add(m, r, mech_vec_scale(m, mass, mech_point_vel(m, p)));
  }
  return r;
}

mech_vec mech_angmom(mech_model *m, int point) {
  sym_ctx *c = m->c;
  mech_vec r = mech_vec_zero(), o = mech_point_pos(m, point);
  for (size_t k = 0; k < ncarriers(m); k++) {
    int p;
    const sym_node *mass;
    carrier(m, k, &p, &mass);
    mech_vec arm = mech_vec_sub(m, mech_point_pos(m, p), o);
    r = mech_vec_add(m, r, mech_vec_cross(m, arm, mech_vec_scale(m, mass, mech_point_vel(m, p))));
  }
  for (size_t b = 0; b < m->bodies.n; b++) {
    const mech_body *B = &m->bodies.v[b];
    const sym_node *w[3], *Iw[3];
    const sym_node *const *I = B->I; /* Ixx Iyy Izz Ixy Iyz Izx */
    const sym_node *Im[9] = {I[0], I[3], I[5], I[3], I[1], I[4], I[5], I[4], I[2]};
    if (!mech_vec_express(m, mech_frame_angvel(m, B->frame), B->frame, w)) {
      m->oom = 1;
      return mech_vec_zero();
    }
    for (int i = 0; i < 3; i++) {
      const sym_node *t[3] = {sym_mul(c, Im[3 * i], w[0]), sym_mul(c, Im[3 * i + 1], w[1]),
                              sym_mul(c, Im[3 * i + 2], w[2])};
      Iw[i] = sym_addv(c, 3, t);
    }
    r = mech_vec_add(m, r, mech_vec_from(m, B->frame, Iw[0], Iw[1], Iw[2]));
  }
  return r;
}

mech_vec mech_mass_center(mech_model *m) {
  mech_vec r = mech_vec_zero();
  for (size_t k = 0; k < ncarriers(m); k++) {
    int p;
    const sym_node *mass;
    carrier(m, k, &p, &mass);
    r = mech_vec_add(m, r, mech_vec_scale(m, mass, mech_point_pos(m, p)));
  }
  return mech_vec_scale(m, sym_div(m->c, sym_int(m->c, 1), mech_total_mass(m)), r);
}
