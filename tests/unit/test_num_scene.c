/* test_num_scene.c - the geometry tape of the animation and --plot-xy
 * (num_scene.c over mech_scene.c): point positions and body orientations
 * against the kinematics written by hand, gravity, masses and inertia, the
 * point each point was located from, and `draw` statements. */
#include "lang.h"
#include "mech.h"
#include "num.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A pendulum hanging from a moving pivot, a rigid rod as a body, an input
 * in a location and a parameter set from outside. */
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

static void test_positions(void) {
  lang_model *lm = NULL;
  lg_diag d;
  lg_diag_clear(&d);
  CHECK(lang_load_string("t.lag", MODEL, strlen(MODEL), &lm, &d) == LG_OK);
  if (!lm) return;
  mech_model *mm = lm->mech;
  CHECK(mech_npoints(mm) == 4 && mech_nparticles(mm) == 1 && mech_nbodies(mm) == 1);
  CHECK(mech_point_from(mm, 0) == -1 && mech_point_from(mm, 1) == 0 &&
        mech_point_from(mm, 2) == 1 && mech_point_from(mm, 3) == 1);
  CHECK(mech_point_index(mm, "G") == 3 && mech_point_index(mm, "Q") == -1);
  CHECK(lm->ndraws == 3);
  if (lm->ndraws == 3) {
    CHECK(lm->draws[0].kind == LANG_DRAW_SEGMENT && lm->draws[0].p == 0 && lm->draws[0].q == 2);
    CHECK(lm->draws[1].kind == LANG_DRAW_TRAIL && lm->draws[1].p == 2);
    CHECK(lm->draws[2].kind == LANG_DRAW_TRAIL && lm->draws[2].p == 1);
    CHECK(lm->draws[0].line == 13 && lm->draws[0].col == 1);
  }
  num_setting set[] = {{"l", 1.5}};
  num_scene *sc = NULL;
  CHECK(num_scene_build(mm, set, 1, NULL, &sc, &d) == LG_OK);
  if (!sc) {
    lang_model_free(lm);
    return;
  }
  double *w = num_scene_work(sc), *res = calloc(sc->nout, sizeof *res);
  double t = 0.7, q[2] = {0.3, 0.4}, l = 1.5;
  num_scene_eval(sc, w, t, q, res);
  double s = 0.5 * t, sn = sin(q[1]), cs = cos(q[1]);
  /* A.y in N is (-sin theta, cos theta, 0) */
  double want[12] = {0, 0, 0, q[0], 0, s, q[0] + l * sn, -l * cs, s,
                     q[0] + l / 2 * sn, -l / 2 * cs, s};
  for (int k = 0; k < 12; k++) CHECK_NEAR(res[k], want[k], 1e-14);
  /* R: v_A = R v_N; rows are A's axes in N */
  double R[9] = {cs, sn, 0, -sn, cs, 0, 0, 0, 1};
  for (int k = 0; k < 9; k++) CHECK_NEAR(res[sc->o_rot + k], R[k], 1e-14);
  CHECK_NEAR(res[sc->o_gravity + 1], -9.81, 1e-15);
  CHECK(res[sc->o_gravity] == 0 && res[sc->o_gravity + 2] == 0);
  CHECK_NEAR(res[sc->o_mass], 2.0, 1e-15);
  CHECK_NEAR(res[sc->o_mass + 1], 0.2, 1e-15);
  CHECK_NEAR(res[sc->o_mass + 3], 0.3, 1e-15);
  free(res);
  lg_free(w);
  num_scene_free(sc);
  lang_model_free(lm);
}

int main(void) {
  test_positions();
  return tu_summary("test_num_scene");
}
