/* test_num_project.c - projection onto the constraint manifold
 * (num_project.c): a point off a sphere moves radially onto it (the least
 * change), its velocity onto the tangent plane, and a state already on
 * the manifold does not move. */
#include "lang.h"
#include "mech.h"
#include "num.h"
#include "test_util.h"

#include <math.h>
#include <string.h>

static const char BOWL[] =
    "coordinates q1 q2 q3\nparameters m = 1, g = 9.81, r = 2\n"
    "frame N\npoint O\npoint P = O + q1*N.x + q2*N.y + q3*N.z\n"
    "particle P mass m\ngravity -g*N.z\nconstraint q1^2 + q2^2 + q3^2 = r^2\n";

int main(void) {
  lang_model *lm = NULL;
  mech_eom *e = NULL;
  num_system *s = NULL;
  lg_diag d;
  lg_diag_clear(&d);
  CHECK(lang_load_string("b.lag", BOWL, strlen(BOWL), &lm, &d) == LG_OK);
  CHECK(mech_derive_lagrange(lm->mech, "b.lag", &e, &d) == LG_OK);
  CHECK(num_system_build(lm->mech, e, NULL, 0, &s, &d) == LG_OK);
  num_work w;
  CHECK(num_work_init(s, &w) == LG_OK);
  double q[3] = {1.0, 1.0, -1.5}, qd[3] = {0.3, -0.2, 0.5}, C, Cd;
  double len = sqrt(1 + 1 + 2.25);
  CHECK(num_project(s, &w, 0, q, qd, 1e-12, &d) == LG_OK);
  num_residuals(s, &w, 0, q, qd, &C, &Cd);
  CHECK(fabs(C) < 1e-12 && fabs(Cd) < 1e-12);
  /* radially: q = 2 q0 / |q0| */
  CHECK_NEAR(q[0], 2.0 / len, 1e-10);
  CHECK_NEAR(q[2], -3.0 / len, 1e-10);
  /* the velocity lost only its normal part */
  double nrm[3] = {q[0] / 2, q[1] / 2, q[2] / 2}, v0[3] = {0.3, -0.2, 0.5};
  double vn = v0[0] * nrm[0] + v0[1] * nrm[1] + v0[2] * nrm[2];
  for (int i = 0; i < 3; i++) CHECK_NEAR(qd[i], v0[i] - vn * nrm[i], 1e-10);
  /* on the manifold: nothing moves */
  double q2[3], qd2[3];
  memcpy(q2, q, sizeof q2);
  memcpy(qd2, qd, sizeof qd2);
  CHECK(num_project(s, &w, 0, q2, qd2, 1e-12, &d) == LG_OK);
  for (int i = 0; i < 3; i++) CHECK(fabs(q2[i] - q[i]) < 1e-14 && fabs(qd2[i] - qd[i]) < 1e-14);
  num_work_free(&w);
  num_system_free(s);
  lang_model_free(lm);
  return tu_summary("test_num_project");
}
