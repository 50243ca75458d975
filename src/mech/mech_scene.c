/* mech_scene.c - what a picture of the model shows: its points (and the
 * point each was located from), particles, bodies with their frames and
 * inertia, and the direction of gravity. Read-only queries for the
 * animation and the plots (num_scene.c compiles them). */
#include "mech_internal.h"

#include <string.h>

size_t mech_npoints(const mech_model *m) { return m->points.n; }
const char *mech_point_name(const mech_model *m, size_t i) { return m->points.v[i].name; }
int mech_point_from(const mech_model *m, size_t point) { return m->points.v[point].from; }

void mech_point_set_from(mech_model *m, size_t point, int from) {
  m->points.v[point].from = from >= 0 && (size_t)from < m->points.n ? from : -1;
}

int mech_point_index(const mech_model *m, const char *name) {
  for (size_t i = 0; i < m->points.n; i++)
    if (!strcmp(m->points.v[i].name, name)) return (int)i;
  return -1;
}

size_t mech_nparticles(const mech_model *m) { return m->particles.n; }
int mech_particle_point(const mech_model *m, size_t i) { return m->particles.v[i].point; }
size_t mech_nbodies(const mech_model *m) { return m->bodies.n; }

void mech_body_info(const mech_model *m, size_t i, int *frame, int *point,
                    const sym_node **mass, const sym_node **inertia) {
  const mech_body *b = &m->bodies.v[i];
  if (frame) *frame = b->frame;
  if (point) *point = b->point;
  if (mass) *mass = b->mass;
  if (inertia) memcpy(inertia, b->I, sizeof b->I);
}

const char *mech_frame_name(const mech_model *m, int frame) { return m->frames.v[frame].name; }

int mech_frame_rotation(mech_model *m, int frame, const sym_node **res) {
  const sym_node *const *D = mech_dcm_get(m, frame, 0);
  if (!D) return 0;
  memcpy(res, D, 9 * sizeof *res);
  return 1;
}

int mech_gravity_inertial(mech_model *m, const sym_node **res) {
  if (!m->has_gravity || m->frames.n == 0) {
    for (int k = 0; k < 3; k++) res[k] = sym_int(m->c, 0);
    return 1;
  }
  return mech_vec_express(m, m->gravity, 0, res);
}
