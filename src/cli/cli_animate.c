/* cli_animate.c - `lagrange animate`: simulate exactly as `simulate` does
 * (cli_simulate_with), sample the motion at the display rate, and write one
 * self-contained HTML file that plays it in 3D with three.js.
 *
 * Sampling: frames at t0 + k/fps, each interpolated between the two output
 * rows around it by cubic Hermite interpolation of q (the rows carry q and
 * q'), then every point's position and every body's orientation from
 * lg_scene_eval (the library's scene). Storage is compact: positions as integers in
 * units of 1/30000 of the largest coordinate, quaternions in units of
 * 1e-4, each frame as the difference to the one before (channels that
 * never change are written once). */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern const char cli_asset_three_version[];
extern const unsigned char cli_asset_three[], cli_asset_orbit[], cli_asset_three_licence[],
    cli_asset_player[];
extern const size_t cli_asset_three_len, cli_asset_orbit_len, cli_asset_three_licence_len,
    cli_asset_player_len;

enum { ANIM_MAX_FRAMES = 2000000 };

typedef struct anim {
  cli_sim_client base;       /* first: the client is the anim */
  const cli_opts *o;         /* as given (o->out is the HTML) */
  const lg_system *s;
  double *res;               /* the scene at the last frame (lg_scene_eval's record) */
  double *p;                 /* the parameters: the model's (NaN where it gives none, so
                                a position that needs one is drawn as not finite) */
  size_t n, npoints, nbodies, nshapes, nch;
  size_t *shape;             /* nshapes: the draw index of each shape */
  size_t o_rot, o_gravity, o_mass; /* where the record holds them (lagrange.h) */
  double t0, fps;
  long next;                 /* the next frame's index */
  double *prev, *cur, *q;    /* [t, q, q'] of the last row; this row; q at a frame */
  int have_prev;
  double *frames;            /* nframes x nch */
  size_t nframes, cap;
  unsigned char *trail;      /* npoints */
  lg_out out;                /* the HTML, opened before the run */
  char *path;                /* --out, or the default MODEL.html (owned) */
  int failed;                /* a row was refused (said why): the run fails */
} anim;

static int anim_open(anim *a);

/* ---- quaternions --------------------------------------------------------------------- */
/* res = (x, y, z, w) of the rotation taking body coordinates to inertial
 * ones: the transpose of R (v_body = R v_inertial), row-major. */
static void quaternion(const double *R, double *res) {
  /* W = R^T: W[i][j] = R[j][i] */
  double w00 = R[0], w11 = R[4], w22 = R[8], w01 = R[3], w10 = R[1], w02 = R[6], w20 = R[2],
         w12 = R[7], w21 = R[5];
  double tr = w00 + w11 + w22, s;
  if (tr > 0) {
    s = 2 * sqrt(tr + 1);
    res[3] = s / 4, res[0] = (w21 - w12) / s, res[1] = (w02 - w20) / s, res[2] = (w10 - w01) / s;
  } else if (w00 > w11 && w00 > w22) {
    s = 2 * sqrt(1 + w00 - w11 - w22);
    res[3] = (w21 - w12) / s, res[0] = s / 4, res[1] = (w01 + w10) / s, res[2] = (w02 + w20) / s;
  } else if (w11 > w22) {
    s = 2 * sqrt(1 + w11 - w00 - w22);
    res[3] = (w02 - w20) / s, res[0] = (w01 + w10) / s, res[1] = s / 4, res[2] = (w12 + w21) / s;
  } else {
    s = 2 * sqrt(1 + w22 - w00 - w11);
    res[3] = (w10 - w01) / s, res[0] = (w02 + w20) / s, res[1] = (w12 + w21) / s, res[2] = s / 4;
  }
}

/* ---- frames ----------------------------------------------------------------------------- */
/* Every position and orientation of the scene at t finite, else the
 * first one that is not, named with the time (a frame cannot be drawn,
 * and quantizing it would put the point at the origin without a word). */
static int scene_finite(const anim *a, double t) {
  const char *what = NULL, *name = NULL;
  for (size_t i = 0; !what && i < a->npoints; i++)
    for (int k = 0; k < 3; k++)
      if (!isfinite(a->res[3 * i + k])) what = "point", name = lg_point_name(a->s, i);
  for (size_t b = 0; !what && b < a->nbodies; b++)
    for (int k = 0; k < 9; k++)
      if (!isfinite(a->res[a->o_rot + 9 * b + k]))
        what = "body frame", name = lg_body_frame(a->s, b);
  if (!what) return 1;
  char tb[LG_DOUBLE_CHARS];
  fprintf(stderr, "%s: the %s %s is not finite at t = %s (inf or nan): animate draws finite "
                  "positions only (check its definition and the parameters, or end the run "
                  "before it with --tf)\n", a->o->model, what, name, lg_fmt_double(tb, t));
  return 0;
}

/* One frame at time t from q: positions, then quaternions (the sign kept
 * continuous with the frame before, so differences stay small). */
static int add_frame(anim *a, double t, const double *q) {
  if (a->nframes >= ANIM_MAX_FRAMES ||
      !lg_grow((void **)&a->frames, &a->cap, (a->nframes + 1) * a->nch, sizeof *a->frames)) {
    fprintf(stderr, "lagrange animate: out of memory for %zu frames (lower --fps or --tf)\n",
            a->nframes + 1);
    return 1;
  }
  lg_diag d;
  lg_diag_clear(&d);
  if (lg_scene_eval(a->s, t, q, a->p, a->res, &d) != LG_OK) { /* (compiled at start) */
    cli_report(&d, a->o->model);
    return 1;
  }
  if (!scene_finite(a, t)) return 1;
  double *f = a->frames + a->nframes * a->nch;
  memcpy(f, a->res, 3 * a->npoints * sizeof *f);
  for (size_t b = 0; b < a->nbodies + a->nshapes; b++) {
    double *qb = f + 3 * a->npoints + 4 * b;
    size_t o_rot = a->o_rot + 9 * b;
    if (b >= a->nbodies) lg_draw_shape(a->s, a->shape[b - a->nbodies], NULL, &o_rot, NULL);
    quaternion(a->res + o_rot, qb);
    const double *before = a->nframes ? qb - a->nch : NULL;
    double dot = 0;
    for (int k = 0; before && k < 4; k++) dot += qb[k] * before[k];
    if (dot < 0)
      for (int k = 0; k < 4; k++) qb[k] = -qb[k];
  }
  a->nframes++;
  return 0;
}

/* q at t between the rows prev and cur (cubic Hermite in q and q'). */
static void hermite(const anim *a, double t, double *q) {
  size_t n = a->n;
  double t0 = a->prev[0], h = a->cur[0] - t0;
  if (!(h > 0)) {
    memcpy(q, a->cur + 1, n * sizeof *q);
    return;
  }
  double s = (t - t0) / h, s2 = s * s, s3 = s2 * s;
  double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2,
         h11 = s3 - s2;
  for (size_t i = 0; i < n; i++)
    q[i] = h00 * a->prev[1 + i] + h10 * h * a->prev[1 + n + i] + h01 * a->cur[1 + i] +
           h11 * h * a->cur[1 + n + i];
}

static int on_row(cli_sim_client *c, const lg_sim_point *p) {
  anim *a = (anim *)c;
  size_t n = a->n;
  a->cur[0] = p->t;
  memcpy(a->cur + 1, p->q, n * sizeof *p->q);
  memcpy(a->cur + 1 + n, p->qd, n * sizeof *p->qd);
  if (!a->have_prev) memcpy(a->prev, a->cur, (2 * n + 1) * sizeof *a->cur);
  for (;;) {
    double t = a->t0 + (double)a->next / a->fps;
    if (t > p->t + 1e-9 / a->fps) break;
    hermite(a, t, a->q);
    if (add_frame(a, t, a->q)) {
      a->failed = 1;
      return 1;
    }
    a->next++;
  }
  memcpy(a->prev, a->cur, (2 * n + 1) * sizeof *a->cur);
  a->have_prev = 1;
  return 0;
}

/* ---- start: the scene, --trail and draw statements ------------------------------------------------ */
static int pick_trails(anim *a) {
  const char *text = a->o->trail;
  for (const char *p = text; p && *p;) {
    const char *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    const char *b = end;
    while (b > p && (b[-1] == ' ' || b[-1] == '\t')) b--;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(b - p < 127 ? b - p : 127), p);
    long k = lg_point_index(a->s, name);
    if (k < 0) {
      fprintf(stderr, "lagrange animate: --trail: unknown point '%s' (the points are", name);
      for (size_t i = 0; i < a->npoints; i++) fprintf(stderr, " %s", lg_point_name(a->s, i));
      fputs(")\n", stderr);
      return CLI_EXIT_USAGE;
    }
    a->trail[k] = 1;
    p = *end ? end + 1 : end;
  }
  for (size_t i = 0; i < lg_ndraws(a->s); i++) {
    long p;
    if (lg_draw_info(a->s, i, &p, NULL) == LG_DRAW_TRAIL) a->trail[p] = 1;
  }
  return CLI_EXIT_OK;
}

static int on_start(cli_sim_client *c, const cli_opts *o, const lg_system *s, double t0,
                    double tf) {
  anim *a = (anim *)c;
  (void)o;
  a->s = s;
  a->n = lg_nq(s);
  a->t0 = t0;
  if ((tf - t0) * a->fps > ANIM_MAX_FRAMES) {
    fprintf(stderr, "lagrange animate: %.0f frames (t = %g to %g at %g fps) is more than %d "
                    "(lower --fps or --tf)\n", (tf - t0) * a->fps, t0, tf, a->fps,
            ANIM_MAX_FRAMES);
    return CLI_EXIT_USAGE;
  }
  a->npoints = lg_npoints(s);
  a->nbodies = lg_nbodies(s);
  a->shape = lg_calloc(lg_ndraws(s) + 1, sizeof *a->shape);
  if (!a->shape) {
    fprintf(stderr, "lagrange animate: out of memory\n");
    return CLI_EXIT_MODEL;
  }
  for (size_t i = 0; i < lg_ndraws(s); i++)
    if (lg_draw_shape(s, i, NULL, NULL, NULL) >= 0) a->shape[a->nshapes++] = i;
  a->nch = 3 * a->npoints + 4 * (a->nbodies + a->nshapes);
  a->o_rot = 3 * a->npoints;
  a->o_gravity = a->o_rot + 9 * a->nbodies;
  a->o_mass = a->o_gravity + 3;
  a->res = lg_calloc(lg_scene_size(s) + 1, sizeof *a->res);
  a->prev = lg_calloc(3 * (2 * a->n + 1), sizeof *a->prev);
  a->trail = lg_calloc(a->npoints + 1, 1);
  a->p = lg_calloc(lg_np(s) + 1, sizeof *a->p);
  if (!a->res || !a->prev || !a->trail || !a->p) {
    fprintf(stderr, "lagrange animate: out of memory\n");
    return CLI_EXIT_MODEL;
  }
  a->cur = a->prev + 2 * a->n + 1;
  a->q = a->cur + 2 * a->n + 1;
  lg_default_params(s, a->p);
  /* the first evaluation compiles the scene: a picture that cannot be
   * made fails before the run (at q = 0, a->q's zeros) */
  lg_diag d;
  lg_diag_clear(&d);
  if (lg_scene_eval(s, t0, a->q, a->p, a->res, &d) != LG_OK) return cli_report(&d, a->o->model);
  if (a->npoints == 0) {
    fprintf(stderr, "%s: the model has no point to draw (animate draws points, particles and "
                    "bodies)\n", a->o->model);
    return CLI_EXIT_MODEL;
  }
  int rc = pick_trails(a);
  return rc == CLI_EXIT_OK ? anim_open(a) : rc;
}

/* ---- the HTML --------------------------------------------------------------------------------- */
/* A JSON string safe inside <script>: '<' as \u003c. */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&') fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

static void html_text(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '<') fputs("&lt;", f);
    else if (*s == '>') fputs("&gt;", f);
    else if (*s == '&') fputs("&amp;", f);
    else if (*s == '"') fputs("&quot;", f);
    else fputc(*s, f);
  }
}

/* ---- the picture's geometry -------------------------------------------------------------- */
typedef struct anim_box {
  double lo[3], hi[3], center[3], extent[3], size, up[3], low, unit;
} anim_box;

/* A box with the body's inertia about its frame's axes (products of
 * inertia ignored): Ixx = m (Y^2 + Z^2) / 12, so X^2 = 6 (Iyy + Izz - Ixx) / m. */
static void body_size(const double *mI, double size, double *res) {
  double m = mI[0];
  for (int k = 0; k < 3; k++) {
    double x2 = m > 0 ? 6 * (mI[1 + (k + 1) % 3] + mI[1 + (k + 2) % 3] - mI[1 + k]) / m : 0;
    double x = x2 > 0 && isfinite(x2) ? sqrt(x2) : 0.1 * size;
    res[k] = x < 0.03 * size ? 0.03 * size : x > 3 * size ? 3 * size : x;
  }
}

/* How far shape j reaches from the points it hangs on (*pa, *pb; -1:
 * none): its sizes' length and its offset's. */
static double shape_reach(const anim *a, size_t j, long *pa, long *pb) {
  size_t o_val;
  lg_draw_info(a->s, a->shape[j], pa, pb);
  lg_draw_shape(a->s, a->shape[j], NULL, NULL, &o_val);
  const double *v = a->res + o_val;
  return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
         sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
}

/* The motion's bounding box, the up direction (against gravity; without
 * gravity the axis after the thinnest one, so the camera looks across the
 * plane of a planar motion), the ground level and the position unit. */
static void geometry(const anim *a, anim_box *g) {
  double maxabs = 0;
  for (int k = 0; k < 3; k++) g->lo[k] = INFINITY, g->hi[k] = -INFINITY;
  for (size_t f = 0; f < a->nframes; f++)
    for (size_t i = 0; i < a->npoints; i++)
      for (int k = 0; k < 3; k++) {
        double x = a->frames[f * a->nch + 3 * i + k];
        if (!isfinite(x)) continue;
        if (x < g->lo[k]) g->lo[k] = x;
        if (x > g->hi[k]) g->hi[k] = x;
        if (fabs(x) > maxabs) maxabs = fabs(x);
      }
  for (int k = 0; k < 3; k++)
    if (!(g->hi[k] >= g->lo[k])) g->lo[k] = g->hi[k] = 0;
  g->size = 0;
  for (int k = 0; k < 3; k++)
    if (g->hi[k] - g->lo[k] > g->size) g->size = g->hi[k] - g->lo[k];
  if (!(g->size > 0)) g->size = maxabs > 0 ? maxabs : 1;
  /* the bodies' boxes are part of the picture */
  for (size_t b = 0; b < a->nbodies; b++) {
    long point = lg_body_point(a->s, b);
    double sz[3];
    body_size(a->res + a->o_mass + 7 * b, g->size, sz);
    double r = sqrt(sz[0] * sz[0] + sz[1] * sz[1] + sz[2] * sz[2]) / 2;
    for (int k = 0; k < 3; k++) {
      double lo = INFINITY, hi = -INFINITY;
      for (size_t f = 0; f < a->nframes; f++) {
        double x = a->frames[f * a->nch + 3 * (size_t)point + k];
        if (isfinite(x) && x < lo) lo = x;
        if (isfinite(x) && x > hi) hi = x;
      }
      if (lo - r < g->lo[k]) g->lo[k] = lo - r;
      if (hi + r > g->hi[k]) g->hi[k] = hi + r;
    }
  }
  /* and so are the shapes: each point they hang on, widened by their reach */
  for (size_t j = 0; j < a->nshapes; j++) {
    long pa, pb;
    double r = shape_reach(a, j, &pa, &pb);
    if (!isfinite(r)) continue;
    for (int e = 0; e < 2; e++) {
      long point = e ? pb : pa;
      for (size_t f = 0; point >= 0 && f < a->nframes; f++)
        for (int k = 0; k < 3; k++) {
          double x = a->frames[f * a->nch + 3 * (size_t)point + k];
          if (isfinite(x) && x - r < g->lo[k]) g->lo[k] = x - r;
          if (isfinite(x) && x + r > g->hi[k]) g->hi[k] = x + r;
        }
    }
  }
  g->size = 0;
  for (int k = 0; k < 3; k++) {
    g->center[k] = (g->lo[k] + g->hi[k]) / 2;
    g->extent[k] = g->hi[k] - g->lo[k];
    if (g->extent[k] > g->size) g->size = g->extent[k];
  }
  if (!(g->size > 0)) g->size = maxabs > 0 ? maxabs : 1;
  g->unit = (maxabs > 0 ? maxabs : 1) / 30000;
  const double *grav = a->res + a->o_gravity;
  double gn = sqrt(grav[0] * grav[0] + grav[1] * grav[1] + grav[2] * grav[2]);
  int thin = 0;
  for (int k = 1; k < 3; k++)
    if (g->extent[k] < g->extent[thin]) thin = k;
  for (int k = 0; k < 3; k++)
    g->up[k] = gn > 0 && isfinite(gn) ? -grav[k] / gn : (k == (thin + 2) % 3 ? 1 : 0);
  g->low = INFINITY;
  for (size_t f = 0; f < a->nframes; f++)
    for (size_t i = 0; i < a->npoints; i++) {
      const double *x = a->frames + f * a->nch + 3 * i;
      double h = x[0] * g->up[0] + x[1] * g->up[1] + x[2] * g->up[2];
      if (isfinite(h) && h < g->low) g->low = h;
    }
  /* the shapes stand on the ground too (a wheel's rim, not its centre) */
  for (size_t j = 0; j < a->nshapes; j++) {
    long pa, pb;
    double r = shape_reach(a, j, &pa, &pb);
    for (int e = 0; e < 2 && isfinite(r); e++) {
      long point = e ? pb : pa;
      for (size_t f = 0; point >= 0 && f < a->nframes; f++) {
        const double *x = a->frames + f * a->nch + 3 * (size_t)point;
        double h = x[0] * g->up[0] + x[1] * g->up[1] + x[2] * g->up[2] - r;
        if (isfinite(h) && h < g->low) g->low = h;
      }
    }
  }
  if (!isfinite(g->low)) g->low = 0;
  g->low -= (a->nshapes ? 0.002 : 0.05) * g->size; /* shapes touch their ground */
}

/* ---- the data ----------------------------------------------------------------------------------- */
static long quant(const anim *a, const anim_box *g, size_t f, size_t c) {
  double x = a->frames[f * a->nch + c] / (c < 3 * a->npoints ? g->unit : 1e-4);
  return isfinite(x) && fabs(x) < 1e15 ? (long)llround(x) : 0;
}

static void vec3(FILE *f, const char *key, const double *v) {
  fprintf(f, ",\"%s\":[%.6g,%.6g,%.6g]", key, v[0], v[1], v[2]);
}

static void data_scene(FILE *f, const anim *a, const anim_box *g) {
  const lg_system *s = a->s;
  fprintf(f, ",\"points\":[");
  for (size_t i = 0; i < a->npoints; i++) {
    fprintf(f, "%s{\"name\":", i ? "," : "");
    json_str(f, lg_point_name(s, i));
    fprintf(f, ",\"from\":%ld,\"particle\":%s}", lg_point_from(s, i),
            lg_point_is_particle(s, i) ? "true" : "false");
  }
  fprintf(f, "],\"bodies\":[");
  for (size_t b = 0; b < a->nbodies; b++) {
    double sz[3];
    body_size(a->res + a->o_mass + 7 * b, g->size, sz);
    fprintf(f, "%s{\"frame\":", b ? "," : "");
    json_str(f, lg_body_frame(s, b));
    fprintf(f, ",\"point\":%ld", lg_body_point(s, b));
    vec3(f, "size", sz);
    fputc('}', f);
  }
  fprintf(f, "],\"segments\":[");
  int first = 1;
  for (size_t i = 0; i < a->npoints; i++)
    if (lg_point_from(s, i) >= 0) {
      fprintf(f, "%s[%zu,%ld]", first ? "" : ",", i, lg_point_from(s, i));
      first = 0;
    }
  for (size_t i = 0; i < lg_ndraws(s); i++) {
    long p, q;
    if (lg_draw_info(s, i, &p, &q) == LG_DRAW_SEGMENT) {
      fprintf(f, "%s[%ld,%ld]", first ? "" : ",", p, q);
      first = 0;
    }
  }
  fprintf(f, "],\"shapes\":[");
  static const char *const kinds[] = {"segment", "trail", "sphere", "capsule", "cylinder",
                                      "disk", "box"};
  for (size_t j = 0; j < a->nshapes; j++) {
    long pa, pb;
    int axis;
    size_t o_val;
    int kind = lg_draw_info(s, a->shape[j], &pa, &pb);
    lg_draw_shape(s, a->shape[j], &axis, NULL, &o_val);
    fprintf(f, "%s{\"kind\":\"%s\",\"a\":%ld,\"b\":%ld,\"axis\":%d", j ? "," : "",
            kinds[kind], pa, pb, axis);
    vec3(f, "size", a->res + o_val);
    vec3(f, "at", a->res + o_val + 3);
    fputc('}', f);
  }
  fprintf(f, "],\"trails\":[");
  first = 1;
  for (size_t i = 0; i < a->npoints; i++)
    if (a->trail[i]) {
      fprintf(f, "%s%zu", first ? "" : ",", i);
      first = 0;
    }
  fputc(']', f);
}

/* Frame 0 whole, then per frame the changes of the channels that vary. */
static int data_motion(FILE *f, const anim *a, const anim_box *g) {
  size_t nch = a->nch, nv = 0;
  unsigned char *varies = lg_calloc(nch + 1, 1);
  if (!varies) return 0;
  fprintf(f, ",\"channels\":%zu,\"frames\":%zu,\"unit\":%.9g,\"qunit\":1e-4,\"base\":[", nch,
          a->nframes, g->unit);
  for (size_t c = 0; c < nch; c++) fprintf(f, "%s%ld", c ? "," : "", quant(a, g, 0, c));
  fprintf(f, "],\"varying\":[");
  for (size_t c = 0; c < nch; c++) {
    long v0 = quant(a, g, 0, c);
    for (size_t k = 1; k < a->nframes && !varies[c]; k++) varies[c] = quant(a, g, k, c) != v0;
    if (varies[c]) fprintf(f, "%s%zu", nv++ ? "," : "", c);
  }
  fprintf(f, "],\"delta\":[");
  int first = 1;
  for (size_t k = 1; k < a->nframes; k++)
    for (size_t c = 0; c < nch; c++) {
      if (!varies[c]) continue;
      fprintf(f, "%s%ld", first ? "" : ",", quant(a, g, k, c) - quant(a, g, k - 1, c));
      first = 0;
    }
  fputs("]}", f);
  lg_free(varies);
  return 1;
}

/* ---- the page ------------------------------------------------------------------------------------ */
static const char page_style[] =
    "html,body{margin:0;height:100%;overflow:hidden;font:13px sans-serif;background:#f4f4f0}\n"
    "#lg-view{position:absolute;top:0;left:0;right:0;bottom:44px}\n"
    "#lg-controls{position:absolute;left:0;right:0;bottom:0;height:44px;display:flex;"
    "align-items:center;gap:10px;padding:0 10px;background:#e4e4de;box-sizing:border-box}\n"
    "#lg-time{flex:1}\n#lg-clock{min-width:9em;font-variant-numeric:tabular-nums}\n"
    "#lg-title{position:absolute;top:6px;left:10px;color:#333;pointer-events:none}\n"
    "#lg-status{position:absolute;top:24px;left:10px;color:#777;pointer-events:none}\n"
    "#lg-status.error{color:#b00;font-weight:bold}\n";

static void page_head(FILE *f, const anim *a) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
  html_text(f, a->o->model);
  fprintf(f, " - lagrange animate</title>\n<meta name=\"generator\" content=\"lagrange %s\">\n"
             "<style>\n%s</style>\n</head>\n<body>\n<div id=\"lg-view\"></div>\n"
             "<div id=\"lg-title\">", lg_version(), page_style);
  const char *slash = strrchr(a->o->model, '/');
  html_text(f, slash ? slash + 1 : a->o->model);
  fputs(" &middot; drag: rotate, right-drag: pan, wheel: zoom, space: play/pause</div>\n"
        "<div id=\"lg-status\">loading</div>\n<div id=\"lg-controls\">\n"
        "<button id=\"lg-play\" type=\"button\">Pause</button>\n"
        "<input id=\"lg-time\" type=\"range\" min=\"0\" max=\"0\" step=\"1\" value=\"0\" "
        "aria-label=\"time\">\n<span id=\"lg-clock\">t = 0</span>\n"
        "<label>speed <select id=\"lg-speed\"><option value=\"0.1\">0.1x</option>"
        "<option value=\"0.25\">0.25x</option><option value=\"0.5\">0.5x</option>"
        "<option value=\"1\" selected>1x</option><option value=\"2\">2x</option>"
        "<option value=\"4\">4x</option></select></label>\n</div>\n", f);
}

/* The licence of three.js (Debian's copyright file) travels with its copy. */
static void page_scripts(FILE *f) {
  fprintf(f, "<script type=\"text/plain\" id=\"three-licence\">\nthree.js r111, Debian package "
             "libjs-three %s, embedded unmodified (three.min.js and "
             "examples/js/controls/OrbitControls.js). Its licence:\n\n", cli_asset_three_version);
  fwrite(cli_asset_three_licence, 1, cli_asset_three_licence_len, f);
  fputs("</script>\n<script>\n", f);
  fwrite(cli_asset_three, 1, cli_asset_three_len, f);
  fputs("\n</script>\n<script>\n", f);
  fwrite(cli_asset_orbit, 1, cli_asset_orbit_len, f);
  fputs("\n</script>\n", f);
}

/* The picture's numbers finite (JSON has no inf): positions near the
 * largest double can still make the extent or the grid overflow. */
static int box_finite(const anim_box *g) {
  int ok = isfinite(1.5 * g->size) && isfinite(g->low) && isfinite(g->unit);
  for (int k = 0; k < 3; k++) ok = ok && isfinite(g->center[k]) && isfinite(g->extent[k]);
  return ok;
}

static int anim_html(FILE *f, const anim *a, const anim_box *gp) {
  const anim_box g = *gp;
  page_head(f, a);
  page_scripts(f);
  fputs("<script type=\"application/json\" id=\"lg-data\">\n{\"model\":", f);
  json_str(f, a->o->model);
  fprintf(f, ",\"t0\":%.9g,\"fps\":%.9g,\"size\":%.6g,\"gridSize\":%.6g,\"low\":%.6g", a->t0,
          a->fps, g.size, 1.5 * g.size, g.low);
  vec3(f, "center", g.center);
  vec3(f, "extent", g.extent);
  vec3(f, "up", g.up);
  data_scene(f, a, &g);
  if (!data_motion(f, a, &g)) return 0;
  fputs("\n</script>\n<script>\n", f);
  fwrite(cli_asset_player, 1, cli_asset_player_len, f);
  fputs("\n</script>\n</body>\n</html>\n", f);
  return 1;
}

/* MODEL.lag -> MODEL.html in the current folder (stdin: model.html). */
static char *default_name(const cli_opts *o) {
  const char *base = o->model_stdin ? "model" : strrchr(o->model, '/');
  base = base ? (o->model_stdin ? base : base + 1) : o->model;
  const char *dot = strrchr(base, '.');
  size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
  lg_str b;
  lg_str_init(&b);
  lg_str_printf(&b, "%.*s.html", (int)len, base);
  char *s = b.oom ? NULL : lg_str_take(&b);
  lg_str_free(&b);
  return s;
}

/* Open the HTML before simulating, so a bad path fails at once. */
static int anim_open(anim *a) {
  lg_diag d;
  lg_diag_clear(&d);
  return lg_out_open(&a->out, a->path, &d) == LG_OK ? CLI_EXIT_OK : cli_report_io(&d);
}

static int anim_write(anim *a) {
  lg_diag d;
  lg_diag_clear(&d);
  anim_box g;
  geometry(a, &g);
  if (!box_finite(&g)) {
    lg_out_abort(&a->out);
    fprintf(stderr, "%s: the motion spans more than the largest number: animate cannot "
                    "scale it to the screen (check the parameters and the points' "
                    "definitions)\n", a->o->model);
    return CLI_EXIT_MODEL;
  }
  if (!anim_html(a->out.f, a, &g)) {
    lg_out_abort(&a->out);
    fprintf(stderr, "lagrange animate: out of memory\n");
    return CLI_EXIT_MODEL;
  }
  int direct = lg_out_direct(&a->out);
  char *target = lg_strdup(lg_out_target(&a->out));
  if (lg_out_commit(&a->out, &d) != LG_OK) {
    lg_free(target);
    return cli_report_io(&d);
  }
  struct stat st;
  if (!direct && target && stat(target, &st) == 0)
    fprintf(stderr, "%s: wrote %s (%zu frames at %g fps, %lld bytes)\n", a->o->model, a->path,
            a->nframes, a->fps, (long long)st.st_size);
  else
    fprintf(stderr, "%s: wrote %s (%zu frames at %g fps)\n", a->o->model, a->path, a->nframes,
            a->fps);
  lg_free(target);
  return CLI_EXIT_OK;
}

static int on_finish(cli_sim_client *c, int rc) {
  anim *a = (anim *)c;
  if (rc == CLI_EXIT_OK && a->failed) rc = CLI_EXIT_MODEL; /* a row stopped the run */
  if (rc == CLI_EXIT_OK && a->nframes == 0) {
    fprintf(stderr, "lagrange animate: the run gave no frame\n");
    rc = CLI_EXIT_MODEL;
  }
  if (rc == CLI_EXIT_OK) rc = anim_write(a);
  else lg_out_abort(&a->out);
  return rc;
}

static void anim_free(anim *a) {
  lg_out_abort(&a->out);
  lg_free(a->path);
  lg_free(a->res);
  lg_free(a->p);
  lg_free(a->prev);
  lg_free(a->frames);
  lg_free(a->trail);
  lg_free(a->shape);
}

int cli_animate(const cli_opts *o) {
  if (!cli_asset_three_len || !cli_asset_orbit_len) {
    fprintf(stderr, "lagrange animate: this lagrange was built without three.js (install "
                    "Debian's libjs-three, or run scripts/install-deps.sh, then rebuild)\n");
    return CLI_EXIT_MODEL;
  }
  anim a;
  memset(&a, 0, sizeof a);
  a.base.start = on_start;
  a.base.row = on_row;
  a.base.finish = on_finish;
  a.o = o;
  a.fps = o->fps > 0 ? o->fps : 60;
  a.path = o->out ? lg_strdup(o->out) : default_name(o);
  if (!a.path) {
    fprintf(stderr, "lagrange animate: out of memory\n");
    return CLI_EXIT_MODEL;
  }
  const char *const outs[] = {a.path, o->plot};
  const char *const labels[] = {o->out ? "--out" : "the default output", "--plot"};
  cli_opts so = *o; /* simulate's options; the CSV is not written */
  so.out = NULL;
  so.no_csv = 1;
  int rc = cli_check_outputs(o, outs, labels, 2);
  if (rc == CLI_EXIT_OK) rc = cli_simulate_with(&so, &a.base);
  anim_free(&a);
  return rc;
}
