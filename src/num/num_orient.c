/* num_orient.c - telling an orientation singularity from a missing
 * inertia. A frame oriented by three Euler angles (body_fixed or
 * space_fixed) loses a degree of freedom where its first and third
 * rotations turn about the same axis (gimbal lock): at middle angle 0 or
 * pi for a symmetric sequence (zxz), +-pi/2 for one of three different
 * axes (zyx). The mass matrix is singular there however the masses are
 * chosen; the fix is another sequence, not the masses. */
#include "num.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

lg_status num_system_add_orientations(mech_model *mm, const mech_eom *e, num_system *s) {
  size_t nf = mech_nframes(mm), k = 0;
  s->neuler = 0;
  s->euler = lg_calloc(nf + 1, sizeof *s->euler);
  if (!s->euler) return LG_ERR_NOMEM;
  for (size_t f = 0; f < nf; f++) {
    num_euler *E = &s->euler[k];
    const sym_node *a[3];
    int parent;
    if (!mech_frame_euler(mm, (int)f, E->seq, &E->space, &parent, a)) continue;
    snprintf(E->frame, sizeof E->frame, "%s", mech_frame_name(mm, (int)f));
    snprintf(E->parent, sizeof E->parent, "%s", mech_frame_name(mm, parent));
    for (int i = 0; i < 3; i++) {
      E->coord[i] = -1;
      for (size_t j = 0; j < e->n; j++)
        if (a[i] == e->q[j]) E->coord[i] = (int)j;
    }
    if (E->coord[1] >= 0) k++; /* the middle angle is a coordinate: it can be read */
  }
  s->neuler = k;
  return LG_OK;
}

/* How far from singular: |sin| of the middle angle for a symmetric
 * sequence, |cos| for three different axes. */
static double distance(const num_euler *E, double a) {
  return E->seq[0] == E->seq[2] ? fabs(sin(a)) : fabs(cos(a));
}

int num_orientation_singular(const num_system *s, const double *q, lg_diag *diag) {
  return num_orientation_singular_as(s, q, NULL, diag);
}

int num_orientation_singular_as(const num_system *s, const double *q, const char *what,
                                lg_diag *diag) {
  if (!s) return 0;
  const num_euler *E = NULL;
  for (size_t i = 0; i < s->neuler; i++)
    if (distance(&s->euler[i], q[s->euler[i].coord[1]]) < 1e-6 &&
        (!E || distance(&s->euler[i], q[s->euler[i].coord[1]]) <
                   distance(E, q[E->coord[1]])))
      E = &s->euler[i];
  if (!E) return 0;
  const char *mid = s->coord_names[E->coord[1]];
  char names[3][128], other[4];
  for (int i = 0; i < 3; i++)
    snprintf(names[i], sizeof names[i], "%s",
             E->coord[i] >= 0 ? s->coord_names[E->coord[i]] : "...");
  int sym = E->seq[0] == E->seq[2];
  /* another sequence, singular elsewhere: abc -> acb; aba -> abc */
  other[0] = E->seq[0];
  other[1] = sym ? E->seq[1] : E->seq[2];
  other[2] = sym ? (char)('x' + 'y' + 'z' - E->seq[0] - E->seq[1]) : E->seq[1];
  other[3] = 0;
  const char *how = E->space ? "space_fixed" : "body_fixed";
  if (!diag) return 1;
  diag->status = LG_OK; /* this replaces the generic message */
  lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
              "%s is singular at this state: frame %s's Euler angles %s(%s, %s, %s, %s, "
              "%s) are at their singularity %s = %.6g (%s(%s) = 0: the first and third "
              "rotations turn about one axis, gimbal lock), not for want of mass or inertia",
              what ? what : s->m ? "the augmented mass matrix [[M, -J^T], [J, 0]]" : "the mass matrix",
              E->frame,
              how, E->parent, E->seq, names[0], names[1], names[2], mid, q[E->coord[1]],
              sym ? "sin" : "cos", mid);
  lg_diag_hint(diag, "orient %s by another sequence, one whose singularity this motion "
                     "avoids: e.g. %s(%s, %s, ...), singular where its middle angle is +-pi/2",
               E->frame, how, E->parent, other);
  return 1;
}
