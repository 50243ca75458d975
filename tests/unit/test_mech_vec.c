/* test_mech_vec.c - vectors in rotating frames: measure numbers, dot and
 * cross products, norms and inertial time derivatives, evaluated at a
 * state and compared with the closed forms. */
#include "mech.h"
#include "sym.h"
#include "test_util.h"

#include <math.h>

static sym_ctx *C;
static mech_model *M;
static const sym_node *q, *qd;
static const double QV = 0.7, QDV = -1.3;

static int value_of(void *ud, const sym_node *a, double *out) {
  (void)ud;
  if (a == q) { *out = QV; return 0; }
  if (a == qd) { *out = QDV; return 0; }
  return 1;
}

static double ev(const sym_node *e) {
  double v = NAN;
  if (!e || sym_eval(C, e, value_of, NULL, &v, NULL) != LG_OK) return NAN;
  return v;
}

/* measure numbers of v in frame f, evaluated */
static void in_frame(mech_vec v, int f, double out[3]) {
  const sym_node *c[3];
  if (!mech_vec_express(M, v, f, c)) {
    out[0] = out[1] = out[2] = NAN;
    return;
  }
  for (int i = 0; i < 3; i++) out[i] = ev(c[i]);
}

int main(void) {
  C = sym_ctx_new();
  M = mech_model_new(C);
  CHECK(mech_add_coordinate(M, "q") == 0);
  q = mech_coord(M, 0, 0);
  qd = mech_coord(M, 0, 1);
  int N = mech_add_frame_inertial(M, "N");
  int A = mech_add_frame_rotate(M, "A", N, mech_vec_unit(M, N, 2), q);
  CHECK(N == 0 && A == 1);
  mech_vec Ax = mech_vec_unit(M, A, 0), Ay = mech_vec_unit(M, A, 1);
  mech_vec Nx = mech_vec_unit(M, N, 0), Ny = mech_vec_unit(M, N, 1);
  double v[3];
  /* A.x in N: (cos q, sin q, 0) */
  in_frame(Ax, N, v);
  CHECK_NEAR(v[0], cos(QV), 1e-15);
  CHECK_NEAR(v[1], sin(QV), 1e-15);
  CHECK_NEAR(v[2], 0, 1e-15);
  /* N.x in A: (cos q, -sin q, 0) */
  in_frame(Nx, A, v);
  CHECK_NEAR(v[0], cos(QV), 1e-15);
  CHECK_NEAR(v[1], -sin(QV), 1e-15);
  CHECK_NEAR(ev(mech_vec_dot(M, Ax, Nx)), cos(QV), 1e-15);
  CHECK_NEAR(ev(mech_vec_dot(M, Ax, Ay)), 0, 1e-15);
  /* N.x x N.y = N.z, A.x x N.y = cos q N.z */
  in_frame(mech_vec_cross(M, Nx, Ny), N, v);
  CHECK(v[0] == 0 && v[1] == 0 && v[2] == 1);
  in_frame(mech_vec_cross(M, Ax, Ny), N, v);
  CHECK_NEAR(v[2], cos(QV), 1e-15);
  /* |3 A.x + 4 N.y| */
  mech_vec w = mech_vec_add(M, mech_vec_scale(M, sym_int(C, 3), Ax),
                            mech_vec_scale(M, sym_int(C, 4), Ny));
  CHECK_NEAR(ev(mech_vec_norm(M, w)), sqrt(9 + 16 + 24 * sin(QV)), 1e-14);
  /* d/dt A.x = q' A.y (in N: q' (-sin q, cos q, 0)) */
  in_frame(mech_vec_dt(M, Ax), N, v);
  CHECK_NEAR(v[0], -QDV * sin(QV), 1e-14);
  CHECK_NEAR(v[1], QDV * cos(QV), 1e-14);
  /* the angular velocity of A is q' N.z; A.x - A.x is zero */
  in_frame(mech_frame_angvel(M, A), N, v);
  CHECK_NEAR(v[2], QDV, 1e-15);
  CHECK(mech_vec_is_zero(mech_vec_sub(M, Ax, Ax)));
  /* partial derivatives act on measure numbers: d(q^2 N.x + A.x)/dq =
   * 2q N.x (A.x's numbers in A are constant) */
  mech_vec u = mech_vec_add(M, mech_vec_scale(M, sym_powi(C, q, 2), Nx), Ax);
  in_frame(mech_vec_diff(M, u, q), N, v);
  CHECK_NEAR(v[0], 2 * QV, 1e-15);
  CHECK_NEAR(v[1], 0, 1e-15);
  mech_model_free(M);
  sym_ctx_free(C);
  return tu_summary("test_mech_vec");
}
