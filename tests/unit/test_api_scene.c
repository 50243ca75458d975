/* test_api_scene.c - the public scene entries (lg_api_scene.c): points,
 * particles, bodies and `draw` statements by name and index; positions,
 * orientations, gravity, masses and inertia at a state against the
 * kinematics written by hand, with the default and the caller's
 * parameters; a batch equal to single calls; the first (compiling) call
 * from many threads at once; a lazily derived system (lg_model_set's
 * value drawn); bad calls. Only lagrange.h is used. */
#include "lagrange.h"
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A pendulum hanging from a moving pivot, a rigid rod as a body, an input
 * in a location (the scene depends on t through it). */
static const char MODEL[] =
    "coordinates x theta\n"
    "parameters m = 1, l = 0.8, g = 9.81, I0 = 0.2\n"
    "inputs s = 0.5*t\n"
    "frame N\n"
    "frame A = rotate(N, N.z, theta)\n"
    "point O\n"
    "point C = O + x*N.x + s*N.z\n"
    "point P = C - l*A.y\n"
    "point G = C - l/2*A.y\n"
    "particle P mass m\n"
    "body A mass 2*m at G inertia (I0, 0.1, 0.3)\n"
    "gravity -g*N.y\n"
    "draw segment O P\n"
    "draw trail P, C\n";

static lg_system *derive(const char *text) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  lg_diag d = {0};
  if (lg_model_load_string("t.lag", text, strlen(text), &m, &d) == LG_OK)
    lg_derive(m, LG_LAGRANGE, &s, &d);
  if (!s) fprintf(stderr, "derive: %s\n", lg_diag_text(&d));
  lg_model_free(m);
  return s;
}

static void test_queries(const lg_system *s) {
  CHECK(lg_npoints(s) == 4 && lg_nbodies(s) == 1 && lg_ndraws(s) == 3);
  CHECK_STR(lg_point_name(s, 0), "O");
  CHECK_STR(lg_point_name(s, 3), "G");
  CHECK(lg_point_name(s, 4) == NULL);
  CHECK(lg_point_index(s, "G") == 3 && lg_point_index(s, "P") == 2);
  CHECK(lg_point_index(s, "Q") == -1 && lg_point_index(s, NULL) == -1);
  CHECK(lg_point_from(s, 0) == -1 && lg_point_from(s, 1) == 0 && lg_point_from(s, 2) == 1 &&
        lg_point_from(s, 3) == 1 && lg_point_from(s, 4) == -1);
  CHECK(lg_point_is_particle(s, 2) == 1 && lg_point_is_particle(s, 3) == 0 &&
        lg_point_is_particle(s, 0) == 0);
  CHECK_STR(lg_body_frame(s, 0), "A");
  CHECK(lg_body_frame(s, 1) == NULL);
  CHECK(lg_body_point(s, 0) == 3 && lg_body_point(s, 1) == -1);
  long a = 7, b = 7;
  CHECK(lg_draw_info(s, 0, &a, &b) == LG_DRAW_SEGMENT && a == 0 && b == 2);
  CHECK(lg_draw_info(s, 1, &a, &b) == LG_DRAW_TRAIL && a == 2 && b == -1);
  CHECK(lg_draw_info(s, 2, &a, NULL) == LG_DRAW_TRAIL && a == 1);
  CHECK(lg_draw_info(s, 3, &a, &b) == -1 && a == -1 && b == -1);
  CHECK(lg_scene_size(s) == 3 * 4 + 16 * 1 + 3);
  /* NULL systems answer "nothing" */
  CHECK(lg_npoints(NULL) == 0 && lg_nbodies(NULL) == 0 && lg_ndraws(NULL) == 0 &&
        lg_scene_size(NULL) == 0 && lg_point_name(NULL, 0) == NULL &&
        lg_point_index(NULL, "O") == -1 && lg_draw_info(NULL, 0, NULL, NULL) == -1);
}

/* The scene at (t, q) with l, against the hand-written kinematics. */
static void check_scene(const double *res, double t, const double *q, double l) {
  double s = 0.5 * t, sn = sin(q[1]), cs = cos(q[1]);
  /* A.y in N is (-sin theta, cos theta, 0) */
  double want[12] = {0, 0, 0, q[0], 0, s, q[0] + l * sn, -l * cs, s,
                     q[0] + l / 2 * sn, -l / 2 * cs, s};
  for (int k = 0; k < 12; k++) CHECK_NEAR(res[k], want[k], 1e-14);
  /* R: v_A = R v_N; rows are A's axes in N */
  double R[9] = {cs, sn, 0, -sn, cs, 0, 0, 0, 1};
  for (int k = 0; k < 9; k++) CHECK_NEAR(res[12 + k], R[k], 1e-14);
  CHECK(res[21] == 0 && res[23] == 0);
  CHECK_NEAR(res[22], -9.81, 1e-15);
  double mI[7] = {2, 0.2, 0.1, 0.3, 0, 0, 0};
  for (int k = 0; k < 7; k++) CHECK_NEAR(res[24 + k], mI[k], 1e-15);
}

static void test_eval(const lg_system *s) {
  double res[31], t = 0.7, q[2] = {0.3, 0.4};
  lg_diag d = {0};
  CHECK(lg_scene_eval(s, t, q, NULL, res, &d) == LG_OK);
  check_scene(res, t, q, 0.8);
  double p[4] = {1, 1.5, 9.81, 0.2}; /* the caller's l */
  CHECK(lg_scene_eval(s, t, q, p, res, &d) == LG_OK);
  check_scene(res, t, q, 1.5);
  /* a batch: each state as alone */
  double ts[3] = {0, 0.5, 2}, qs[6] = {0, 0, 1, -0.5, -2, 3}, many[3 * 31];
  CHECK(lg_scene_many(s, 3, ts, qs, p, many, &d) == LG_OK);
  for (int k = 0; k < 3; k++) check_scene(many + 31 * k, ts[k], qs + 2 * k, 1.5);
  CHECK(lg_scene_many(s, 2, NULL, qs, NULL, many, &d) == LG_OK); /* t NULL: 0 */
  check_scene(many + 31, 0, qs + 2, 0.8);
  CHECK(lg_scene_many(s, 0, NULL, NULL, NULL, NULL, &d) == LG_OK);
  /* bad calls */
  CHECK(lg_scene_eval(s, t, NULL, NULL, res, &d) == LG_ERR_USAGE && d.status == LG_ERR_USAGE);
  CHECK(lg_scene_eval(s, t, q, NULL, NULL, &d) == LG_ERR_USAGE);
  CHECK(lg_scene_eval(NULL, t, q, NULL, res, NULL) == LG_ERR_USAGE);
}

/* The first call compiles: many threads making it at once agree. */
typedef struct job { const lg_system *s; int k, ok; } job;

static void *worker(void *arg) {
  job *j = arg;
  double res[31], q[2] = {0.1 * j->k, -0.2 * j->k}, t = 0.25 * j->k;
  j->ok = 1;
  for (int r = 0; r < 200 && j->ok; r++) {
    j->ok = lg_scene_eval(j->s, t, q, NULL, res, NULL) == LG_OK;
    double want = q[0] + 0.8 * sin(q[1]);
    j->ok = j->ok && fabs(res[6] - want) < 1e-14 && res[8] == 0.5 * t;
  }
  return NULL;
}

static void test_threads(void) {
  lg_system *s = derive(MODEL);
  if (!s) {
    CHECK(0);
    return;
  }
  enum { NT = 8 };
  pthread_t th[NT];
  job jobs[NT];
  int started[NT];
  for (int k = 0; k < NT; k++) {
    jobs[k] = (job){s, k, 0};
    started[k] = pthread_create(&th[k], NULL, worker, &jobs[k]) == 0;
  }
  for (int k = 0; k < NT; k++) {
    if (started[k]) pthread_join(th[k], NULL);
    CHECK(started[k] && jobs[k].ok);
  }
  lg_system_free(s);
}

/* A parameter without a value: the defaults cannot serve, p can. */
static void test_valueless(void) {
  static const char text[] =
      "coordinates q\nparameters l\nframe N\nframe A = rotate(N, N.z, q)\npoint O\n"
      "point P = O + l*A.x\nparticle P mass 1\n";
  lg_system *s = derive(text);
  if (!s) {
    CHECK(0);
    return;
  }
  double q = 0.5, res[9], p = 2;
  lg_diag d = {0};
  CHECK(lg_scene_eval(s, 0, &q, NULL, res, &d) == LG_ERR_USAGE &&
        strstr(d.message, "'l'") != NULL);
  CHECK(lg_scene_eval(s, 0, &q, &p, res, &d) == LG_OK);
  CHECK_NEAR(res[3], 2 * cos(q), 1e-15);
  CHECK_NEAR(res[4], 2 * sin(q), 1e-15);
  CHECK(lg_scene_size(s) == 9 && res[6] == 0 && res[7] == 0 && res[8] == 0);
  lg_system_free(s);
}

/* A lazily derived system draws without compiling its equations, the
 * same numbers as an eager one; evaluating afterwards still works. */
static void test_lazy(void) {
  lg_model *m = NULL;
  lg_system *lazy = NULL, *eager = derive(MODEL);
  lg_derive_options o;
  lg_derive_options_default(&o);
  o.lazy = 1;
  CHECK(lg_model_load_string("t.lag", MODEL, strlen(MODEL), &m, NULL) == LG_OK &&
        lg_model_set(m, "l", 1.25, NULL) == LG_OK &&
        lg_derive_with(m, &o, &lazy, NULL) == LG_OK);
  double a[31], b[31], t = 0.3, q[2] = {0.2, -0.7}, p[4] = {1, 1.25, 9.81, 0.2};
  CHECK(lazy && eager && lg_scene_eval(lazy, t, q, NULL, a, NULL) == LG_OK &&
        lg_scene_eval(eager, t, q, p, b, NULL) == LG_OK && memcmp(a, b, sizeof a) == 0);
  if (lazy) check_scene(a, t, q, 1.25);
  double qd[2] = {0, 0}, qdd[2];
  CHECK(lazy && lg_eval_accel(lazy, t, q, qd, NULL, qdd, NULL, NULL) == LG_OK);
  lg_system_free(lazy);
  lg_system_free(eager);
  lg_model_free(m);
}

/* `draw` shapes: kinds, points, the frame's rotation and the numbers
 * (sizes from the parameters, offsets) where lg_draw_shape says; the
 * scene grows by 15 per shape. */
static void test_shapes(void) {
  char text[2048];
  snprintf(text, sizeof text, "%s%s", MODEL,
           "draw disk C in A axis y radius l/4 width 0.05\n"
           "draw capsule C P radius 0.02\n"
           "draw box G in A size 0.1, l, 0.2 at 0, 0.5, -1\n"
           "draw sphere P radius 0.1\n"
           "draw cylinder O in N axis z radius 0.3 length 2\n");
  lg_system *s = derive(text);
  CHECK(s != NULL);
  if (!s) return;
  size_t base = 3 * 4 + 16 * 1 + 3, o_rot, o_val;
  int axis;
  long a, b;
  CHECK(lg_ndraws(s) == 8 && lg_scene_size(s) == base + 15 * 5);
  CHECK(lg_draw_shape(s, 0, &axis, &o_rot, &o_val) == -1 && o_rot == 0 && o_val == 0);
  CHECK(lg_draw_info(s, 3, &a, &b) == LG_DRAW_DISK && a == 1 && b == -1);
  CHECK(lg_draw_shape(s, 3, &axis, &o_rot, &o_val) == LG_DRAW_DISK && axis == 1 &&
        o_rot == base && o_val == base + 45);
  CHECK(lg_draw_info(s, 4, &a, &b) == LG_DRAW_CAPSULE && a == 1 && b == 2);
  CHECK(lg_draw_shape(s, 5, &axis, &o_rot, &o_val) == LG_DRAW_BOX && o_rot == base + 18 &&
        o_val == base + 45 + 12);
  CHECK(lg_draw_shape(s, 6, NULL, NULL, NULL) == LG_DRAW_SPHERE);
  CHECK(lg_draw_shape(s, 7, &axis, NULL, NULL) == LG_DRAW_CYLINDER && axis == 2);
  CHECK(lg_draw_shape(s, 8, &axis, &o_rot, &o_val) == -1);
  double res[128], q[2] = {0.1, 0.4};
  CHECK(lg_scene_eval(s, 0, q, NULL, res, NULL) == LG_OK);
  /* the disk in A: A's R as the body's; l/4 = 0.2, width 0.05 */
  CHECK(memcmp(res + base, res + 3 * 4, 9 * sizeof *res) == 0);
  CHECK_NEAR(res[base + 45], 0.2, 1e-15);
  CHECK_NEAR(res[base + 46], 0.05, 1e-15);
  CHECK(res[base + 47] == 0 && res[base + 48] == 0 && res[base + 49] == 0);
  const double *box = res + base + 45 + 12;
  CHECK(box[0] == 0.1 && box[1] == 0.8 && box[2] == 0.2 && box[3] == 0 && box[4] == 0.5 &&
        box[5] == -1);
  /* the sphere without a frame and the cylinder in N: the identity */
  for (int k = 0; k < 9; k++) {
    CHECK(res[base + 27 + k] == (k % 4 == 0));
    CHECK(res[base + 36 + k] == (k % 4 == 0));
  }
  lg_system_free(s);
  static const char *const bad[] = {
      "draw disk C radius 1\n",          /* no frame, no axis */
      "draw box G in A size 1, 2\n",     /* two sizes */
      "draw capsule C radius 1\n",       /* one point */
      "draw disk C in A axis w radius 1\n",
      "draw sphere C\n",                 /* no radius */
      "draw sphere C radius 1 at 1, 2, 3\n", /* an offset without a frame */
      "draw disk C in Q axis y radius 1\n"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    lg_model *m = NULL;
    lg_diag d = {0};
    snprintf(text, sizeof text, "%s%s", MODEL, bad[i]);
    CHECK(lg_model_load_string("t.lag", text, strlen(text), &m, &d) == LG_ERR_MODEL && !m &&
          d.line == 15);
    lg_model_free(m);
  }
}

int main(void) {
  test_shapes();
  lg_system *s = derive(MODEL);
  CHECK(s != NULL);
  if (s) {
    test_queries(s);
    test_eval(s);
  }
  lg_system_free(s);
  test_threads();
  test_valueless();
  test_lazy();
  return tu_summary("test_api_scene");
}
