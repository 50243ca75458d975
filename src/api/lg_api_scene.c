/* lg_api_scene.c - the model's geometry: its points, particles, bodies
 * and `draw` statements, and every point's position and body's
 * orientation at a state (num_scene.c), as `lagrange animate` and
 * `simulate --plot-xy` draw them.
 *
 * The scene's tape is compiled on the first evaluation, under the
 * system's lock (it works on the symbolic context, like printing), and
 * published through an atomic pointer: afterwards every call only reads
 * it. The equations are not needed: a lazily derived system compiles only
 * the picture. Each call evaluates into work memory of its own, taken from a small
 * pool the scene keeps (a short lock of its own), so one system serves
 * any number of threads and a call allocates nothing once the pool holds
 * a work array. */
#include "lg_api_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#define SCENE_POOL_MAX 8

struct api_scene {
  num_scene *sc;          /* the tape over [t, q, params] (its params unused) */
  pthread_mutex_t mu;     /* guards the idle work arrays */
  size_t nidle;
  double *idle[SCENE_POOL_MAX];
};

void api_scene_free(api_scene *a) {
  if (!a) return;
  for (size_t i = 0; i < a->nidle; i++) lg_free(a->idle[i]);
  num_scene_free(a->sc);
  pthread_mutex_destroy(&a->mu);
  lg_free(a);
}

static const char *file_of(const lg_system *s) { return s ? s->lm->file : NULL; }
static int line_of(const lg_system *s) { return s ? s->lm->coord_line : 0; }
static int col_of(const lg_system *s) { return s ? s->lm->coord_col : 0; }

/* ---- what the model declares ------------------------------------------------------- */
size_t lg_npoints(const lg_system *s) { return s ? mech_npoints(s->lm->mech) : 0; }

const char *lg_point_name(const lg_system *s, size_t i) {
  return s && i < mech_npoints(s->lm->mech) ? mech_point_name(s->lm->mech, i) : NULL;
}

long lg_point_index(const lg_system *s, const char *name) {
  return s && name ? mech_point_index(s->lm->mech, name) : -1;
}

long lg_point_from(const lg_system *s, size_t i) {
  return s && i < mech_npoints(s->lm->mech) ? mech_point_from(s->lm->mech, i) : -1;
}

int lg_point_is_particle(const lg_system *s, size_t i) {
  if (!s) return 0;
  const mech_model *mm = s->lm->mech;
  for (size_t k = 0; k < mech_nparticles(mm); k++)
    if (mech_particle_point(mm, k) == (int)i) return 1;
  return 0;
}

size_t lg_nbodies(const lg_system *s) { return s ? mech_nbodies(s->lm->mech) : 0; }

const char *lg_body_frame(const lg_system *s, size_t i) {
  if (!s || i >= mech_nbodies(s->lm->mech)) return NULL;
  int frame;
  mech_body_info(s->lm->mech, i, &frame, NULL, NULL, NULL);
  return mech_frame_name(s->lm->mech, frame);
}

long lg_body_point(const lg_system *s, size_t i) {
  if (!s || i >= mech_nbodies(s->lm->mech)) return -1;
  int point;
  mech_body_info(s->lm->mech, i, NULL, &point, NULL, NULL);
  return point;
}

size_t lg_ndraws(const lg_system *s) { return s ? s->lm->ndraws : 0; }

static int is_shape(const lang_draw *d) {
  return d->kind != LANG_DRAW_SEGMENT && d->kind != LANG_DRAW_TRAIL;
}

/* The shapes among the draws (each has a frame and six numbers in the scene). */
static size_t nshapes(const lg_system *s) {
  size_t n = 0;
  for (size_t i = 0; s && i < s->lm->ndraws; i++) n += (size_t)is_shape(&s->lm->draws[i]);
  return n;
}

static int draw_kind(lang_draw_kind k) {
  switch (k) {
  case LANG_DRAW_SEGMENT: return LG_DRAW_SEGMENT;
  case LANG_DRAW_TRAIL: return LG_DRAW_TRAIL;
  case LANG_DRAW_SPHERE: return LG_DRAW_SPHERE;
  case LANG_DRAW_CAPSULE: return LG_DRAW_CAPSULE;
  case LANG_DRAW_CYLINDER: return LG_DRAW_CYLINDER;
  case LANG_DRAW_DISK: return LG_DRAW_DISK;
  case LANG_DRAW_BOX: return LG_DRAW_BOX;
  }
  return -1;
}

int lg_draw_info(const lg_system *s, size_t i, long *a, long *b) {
  if (a) *a = -1;
  if (b) *b = -1;
  if (!s || i >= s->lm->ndraws) return -1;
  const lang_draw *dr = &s->lm->draws[i];
  if (a) *a = dr->p;
  if (b && dr->kind != LANG_DRAW_TRAIL) *b = dr->q;
  return draw_kind(dr->kind);
}

int lg_draw_shape(const lg_system *s, size_t i, int *axis, size_t *o_rot, size_t *o_val) {
  if (axis) *axis = 0;
  if (o_rot) *o_rot = 0;
  if (o_val) *o_val = 0;
  if (!s || i >= s->lm->ndraws || !is_shape(&s->lm->draws[i])) return -1;
  size_t j = 0, ns = nshapes(s);
  for (size_t k = 0; k < i; k++) j += (size_t)is_shape(&s->lm->draws[k]);
  size_t base = 3 * mech_npoints(s->lm->mech) + 16 * mech_nbodies(s->lm->mech) + 3;
  if (axis) *axis = s->lm->draws[i].axis;
  if (o_rot) *o_rot = base + 9 * j;
  if (o_val) *o_val = base + 9 * ns + 6 * j;
  return draw_kind(s->lm->draws[i].kind);
}

/* ---- the compiled scene ------------------------------------------------------------- */
size_t lg_scene_size(const lg_system *s) {
  if (!s) return 0;
  size_t np = mech_npoints(s->lm->mech), nb = mech_nbodies(s->lm->mech);
  return 3 * np + 9 * nb + 3 + 7 * nb + 15 * nshapes(s); /* num_scene's nout */
}

/* The shapes' frames and numbers for num_scene_build (NULL arrays when
 * there are none); lg_free both. */
static lg_status shape_extra(const lg_system *s, num_scene_extra *x, int **frames,
                             const sym_node ***vals) {
  size_t ns = nshapes(s);
  memset(x, 0, sizeof *x);
  *frames = NULL;
  *vals = NULL;
  if (!ns) return LG_OK;
  *frames = lg_calloc(ns, sizeof **frames);
  *vals = lg_calloc(6 * ns, sizeof **vals);
  if (!*frames || !*vals) return LG_ERR_NOMEM;
  size_t j = 0;
  for (size_t i = 0; i < s->lm->ndraws; i++) {
    const lang_draw *d = &s->lm->draws[i];
    if (!is_shape(d)) continue;
    (*frames)[j] = d->frame;
    for (int k = 0; k < 3; k++) (*vals)[6 * j + k] = d->val[k], (*vals)[6 * j + 3 + k] = d->at[k];
    j++;
  }
  x->nframes = ns;
  x->nscalars = 6 * ns;
  x->frames = *frames;
  x->scalars = *vals;
  return LG_OK;
}

/* The scene of s, compiled by the first caller (under the system's lock:
 * the symbolic context is shared with printing and code generation). The
 * parameters given by the call replace the tape's at every evaluation;
 * the build resolves them as the other compiled objects do. */
static lg_status scene_of(const lg_system *s, api_scene **out, lg_diag *d) {
  lg_system *mut = (lg_system *)s;
  *out = atomic_load_explicit(&mut->scene, memory_order_acquire);
  if (*out) return LG_OK;
  lg_status st = LG_OK;
  pthread_mutex_lock(&mut->lock);
  api_scene *a = atomic_load_explicit(&mut->scene, memory_order_relaxed);
  if (!a) {
    a = lg_calloc(1, sizeof *a);
    if (!a) {
      st = LG_ERR_NOMEM;
    } else if (pthread_mutex_init(&a->mu, NULL) != 0) {
      lg_free(a);
      a = NULL;
      st = LG_ERR_NOMEM;
    } else {
      num_scene_extra x;
      int *frames;
      const sym_node **vals;
      st = shape_extra(s, &x, &frames, &vals);
      if (st == LG_OK) st = num_scene_build(s->lm->mech, s->dummy, s->ndummy, &x, &a->sc, d);
      lg_free(frames);
      lg_free((void *)vals);
      if (st == LG_OK) atomic_store_explicit(&mut->scene, a, memory_order_release);
      else api_scene_free(a), a = NULL;
    }
  }
  pthread_mutex_unlock(&mut->lock);
  *out = a;
  return st;
}

/* p, or the defaults (LG_ERR_USAGE when one has no value): api_params
 * without compiling a lazily derived system's equations, which the
 * picture does not need. */
static lg_status scene_params(const lg_system *s, const double *p, const double **out,
                              lg_diag *d) {
  *out = p ? p : s->defaults;
  for (size_t i = 0; !p && i < s->np; i++)
    if (isnan(s->defaults[i])) {
      const char *name = lg_parameter_name(s, i);
      lg_diag_set(d, LG_ERR_USAGE, s->lm->file, 0, 0, "parameter '%s' has no value", name);
      lg_diag_hint(d, "pass the parameters (p) with a value for '%s'", name);
      return LG_ERR_USAGE;
    }
  return LG_OK;
}

static double *work_take(api_scene *a) {
  double *w = NULL;
  pthread_mutex_lock(&a->mu);
  if (a->nidle) w = a->idle[--a->nidle];
  pthread_mutex_unlock(&a->mu);
  return w ? w : num_scene_work(a->sc);
}

static void work_give(api_scene *a, double *w) {
  if (!w) return;
  pthread_mutex_lock(&a->mu);
  if (a->nidle < SCENE_POOL_MAX) {
    a->idle[a->nidle++] = w;
    w = NULL;
  }
  pthread_mutex_unlock(&a->mu);
  lg_free(w);
}

lg_status lg_scene_many(const lg_system *s, size_t count, const double *t, const double *q,
                        const double *p, double *out, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  lg_status st = LG_OK;
  if (!s || (count && (!out || (!q && lg_nq(s) > 0)))) {
    lg_diag_set(d, LG_ERR_USAGE, file_of(s), 0, 0, "a system, q and an output are needed");
    st = LG_ERR_USAGE;
  }
  const double *par = NULL;
  if (st == LG_OK && count) st = scene_params(s, p, &par, d);
  api_scene *a = NULL;
  if (st == LG_OK && count) st = scene_of(s, &a, d);
  double *w = a ? work_take(a) : NULL;
  if (a && !w) st = LG_ERR_NOMEM;
  if (st == LG_OK && a) {
    num_scene sc = *a->sc; /* the tape shared, the parameters the call's */
    sc.params = (double *)par;
    size_t n = sc.n, size = sc.nout;
    for (size_t k = 0; k < count; k++) /* (no coordinates: any array will do) */
      num_scene_eval(&sc, w, t ? t[k] : 0.0, n ? q + k * n : w, out + k * size);
  }
  if (a) work_give(a, w);
  return api_end(&c, st, file_of(s), line_of(s), col_of(s));
}

lg_status lg_scene_eval(const lg_system *s, double t, const double *q, const double *p,
                        double *out, lg_diag *diag) {
  return lg_scene_many(s, 1, &t, q, p, out, diag);
}
