/* num_scene.c - the model's geometry as numbers over time: every point's
 * position and every body's orientation in the inertial frame, compiled
 * to one tape over [t, q, params] (the animation and `--plot-xy`), plus
 * what does not move: gravity, the bodies' masses and inertia. */
#include "num.h"

#include <string.h>

/* The outputs in the layout num.h documents (NULL on OOM). */
static const sym_node **scene_outputs(mech_model *mm, num_scene *sc,
                                      const num_scene_extra *x) {
  sym_ctx *c = mech_ctx(mm);
  const sym_node **o = lg_calloc(sc->nout + 1, sizeof *o);
  if (!o) return NULL;
  for (size_t i = 0; i < sc->npoints; i++)
    if (!mech_vec_express(mm, mech_point_pos(mm, (int)i), 0, o + 3 * i)) goto oom;
  for (size_t b = 0; b < sc->nbodies; b++) {
    int frame;
    mech_body_info(mm, b, &frame, NULL, o + sc->o_mass + 7 * b, o + sc->o_mass + 7 * b + 1);
    if (!mech_frame_rotation(mm, frame, o + sc->o_rot + 9 * b)) goto oom;
  }
  if (!mech_gravity_inertial(mm, o + sc->o_gravity)) goto oom;
  for (size_t f = 0; x && f < x->nframes; f++) {
    const sym_node **R = o + sc->o_extra + 9 * f;
    if (x->frames[f] >= 0 && !mech_frame_rotation(mm, x->frames[f], R)) goto oom;
    for (int k = 0; x->frames[f] < 0 && k < 9; k++) R[k] = sym_int(c, k % 4 == 0);
  }
  for (size_t j = 0; x && j < x->nscalars; j++)
    o[sc->o_extra + 9 * x->nframes + j] = x->scalars[j];
  for (size_t j = 0; j < sc->nout; j++)
    if (!o[j]) o[j] = sym_int(c, 0);
  return o;
oom:
  lg_free(o);
  return NULL;
}

static lg_status scene_tape(mech_model *mm, const num_setting *set, size_t nset,
                            const num_scene_extra *x, num_scene *sc, lg_diag *diag) {
  sym_ctx *c = mech_ctx(mm);
  const sym_node **o = scene_outputs(mm, sc, x);
  const sym_node **in = lg_malloc(sc->nin * sizeof *in);
  lg_status st = o && in ? num_substitute_inputs(mm, set, nset, o, sc->nout) : LG_ERR_NOMEM;
  if (st == LG_OK) {
    in[0] = sym_time(c);
    for (size_t i = 0; i < sc->n; i++) in[1 + i] = mech_coord(mm, i, 0);
    for (size_t i = 0; i < sc->np; i++) in[1 + sc->n + i] = mech_param(mm, i);
    const sym_node *missing = NULL;
    st = sym_tape_build(c, sc->nin, in, sc->nout, o, &sc->tape, &missing);
    if (st == LG_ERR_MODEL)
      lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0, "the picture of the model needs '%s', "
                  "which has no value there", missing && missing->v.name ? missing->v.name : "?");
  }
  lg_free(o);
  lg_free(in);
  return st;
}

lg_status num_scene_build(mech_model *mm, const num_setting *set, size_t nset,
                          const num_scene_extra *extra, num_scene **out, lg_diag *diag) {
  *out = NULL;
  num_scene *sc = lg_calloc(1, sizeof *sc);
  if (!sc) return LG_ERR_NOMEM;
  sc->n = mech_ncoords(mm);
  sc->np = mech_nparams(mm);
  sc->npoints = mech_npoints(mm);
  sc->nbodies = mech_nbodies(mm);
  sc->nin = 1 + sc->n + sc->np;
  sc->o_rot = 3 * sc->npoints;
  sc->o_gravity = sc->o_rot + 9 * sc->nbodies;
  sc->o_mass = sc->o_gravity + 3;
  sc->o_extra = sc->o_mass + 7 * sc->nbodies;
  sc->nout = sc->o_extra + (extra ? 9 * extra->nframes + extra->nscalars : 0);
  sc->params = lg_calloc(sc->np + 1, sizeof *sc->params);
  lg_status st = sc->params ? mech_resolve_params(mm, set, nset, sc->params, diag)
                            : LG_ERR_NOMEM;
  if (st == LG_OK) st = scene_tape(mm, set, nset, extra, sc, diag);
  if (st != LG_OK) {
    num_scene_free(sc);
    return st;
  }
  *out = sc;
  return LG_OK;
}

void num_scene_free(num_scene *sc) {
  if (!sc) return;
  sym_tape_free(sc->tape);
  lg_free(sc->params);
  lg_free(sc);
}

double *num_scene_work(const num_scene *sc) {
  return lg_calloc(sc->nin + sc->tape->nslots + 1, sizeof(double));
}

void num_scene_eval(const num_scene *sc, double *work, double t, const double *q,
                    double *res) {
  double *in = work, *slots = work + sc->nin;
  in[0] = t;
  memcpy(in + 1, q, sc->n * sizeof *q);
  memcpy(in + 1 + sc->n, sc->params, sc->np * sizeof *in);
  sym_tape_eval(sc->tape, in, res, slots);
}
