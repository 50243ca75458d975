/* test_num_forms.c - the assembled forms eval reports (num_forms.c), the
 * consistency test of simulate, the augmented solve's diagnostics, and
 * Kane's evaluator against Lagrange's accelerations. */
#include "lang.h"
#include "mech.h"
#include "num.h"
#include "test_util.h"

#include <math.h>
#include <string.h>

static const char BOWL[] =
    "coordinates q1 q2 q3\n"
    "parameters m = 2, g = 9.81, r = 1\n"
    "frame N\npoint O\npoint P = O + q1*N.x + q2*N.y + q3*N.z\n"
    "particle P mass m\ngravity -g*N.z\n"
    "constraint q1^2 + q2^2 + q3^2 = r^2\n";

typedef struct loaded {
  lang_model *lm;
  mech_eom *e;
  num_system *s;
} loaded;

static int load(const char *text, loaded *L) {
  lg_diag d;
  lg_diag_clear(&d);
  memset(L, 0, sizeof *L);
  if (lang_load_string("t.lag", text, strlen(text), &L->lm, &d) != LG_OK ||
      mech_derive_lagrange(L->lm->mech, "t.lag", &L->e, &d) != LG_OK ||
      num_system_build(L->lm->mech, L->e, NULL, 0, &L->s, &d) != LG_OK) {
    fprintf(stderr, "load: %s\n", d.message);
    return 0;
  }
  return 1;
}

static void unload(loaded *L) {
  num_system_free(L->s);
  lang_model_free(L->lm);
}

static void test_forms(void) {
  loaded L;
  CHECK(load(BOWL, &L));
  if (!L.s) return;
  num_work w;
  CHECK(num_work_init(L.s, &w) == LG_OK);
  double q[3] = {0.6, 0.0, -0.8}, qd[3] = {0.3, 1.0, 0.225}, qdd[3], lam[1];
  num_evaluate(L.s, &w, 0.0, q, qd);
  CHECK(num_solve_accel(L.s, &w, qdd, lam, NULL) == LG_OK);
  double MF[49], ff[7], mm[12], cf[3];
  num_mass_matrix_full(L.s, &w, MF);
  num_mass_matrix(L.s, &w, mm);
  num_forcing_full(L.s, &w, qd, ff);
  num_constraint_forces(L.s, &w, lam, cf);
  for (int i = 0; i < 3; i++) {
    CHECK(MF[i * 7 + i] == 1.0 && ff[i] == qd[i]);
    CHECK(MF[(3 + i) * 7 + 3 + i] == 2.0);     /* M = m I */
    CHECK(mm[i * 4 + i] == 2.0);
    CHECK_NEAR(mm[i * 4 + 3], -2 * q[i], 1e-15); /* -J^T, J = 2 q */
    CHECK_NEAR(MF[6 * 7 + 3 + i], 2 * q[i], 1e-15);
    CHECK_NEAR(cf[i], 2 * q[i] * lam[0], 1e-15);
  }
  /* the solution satisfies the full system row by row */
  double x[7] = {qd[0], qd[1], qd[2], qdd[0], qdd[1], qdd[2], lam[0]};
  for (int i = 0; i < 7; i++) {
    double acc = 0;
    for (int j = 0; j < 7; j++) acc += MF[i * 7 + j] * x[j];
    CHECK_NEAR(acc, ff[i], 1e-12);
  }
  /* consistency: on the sphere and tangent, then off, then not tangent */
  double C[1], Cd[1];
  int bad[1];
  CHECK(num_check_consistent(L.s, &w, 0, q, qd, 1e-9, C, Cd, bad) == 0 && bad[0] == 0);
  double off[3] = {0.61, 0.0, -0.8};
  CHECK(num_check_consistent(L.s, &w, 0, off, qd, 1e-9, C, Cd, bad) == 1 && (bad[0] & 1));
  double radial[3] = {0.6, 0.0, -0.8};
  CHECK(num_check_consistent(L.s, &w, 0, q, radial, 1e-9, C, Cd, bad) == 1 && bad[0] == 2);
  CHECK_NEAR(Cd[0], 2 * (0.36 + 0.64), 1e-14);
  num_work_free(&w);
  unload(&L);
}

static void test_singular(void) {
  loaded L;
  CHECK(load("coordinates x y\nparameters m = 1\nT = 1/2*m*x'^2\nV = y^2\n", &L));
  if (!L.s) return;
  num_work w;
  CHECK(num_work_init(L.s, &w) == LG_OK);
  double q[2] = {0, 0}, qdd[2];
  lg_diag d;
  lg_diag_clear(&d);
  num_evaluate(L.s, &w, 0, q, q);
  CHECK(num_solve_accel(L.s, &w, qdd, NULL, &d) == LG_ERR_NUMERIC);
  CHECK(strstr(d.message, "coordinate y") != NULL);
  num_work_free(&w);
  unload(&L);
}

/* Kane's evaluator (built once, run with the parameters per call) gives
 * Lagrange's accelerations for the cart pendulum. */
static void test_kane_evaluator(void) {
  loaded L;
  CHECK(load("coordinates x theta\nparameters m = 1, M = 0.5, l = 0.8, g = 9.81\n"
             "frame N\nframe A = rotate(N, N.z, -theta)\npoint O\npoint C = O + x*N.x\n"
             "point P = C + l*A.y\nparticle C mass m\nparticle P mass M\ngravity -g*N.y\n",
             &L));
  if (!L.s) return;
  mech_kane *k = NULL;
  num_kane_evaluator *ev = NULL;
  lg_diag d;
  lg_diag_clear(&d);
  CHECK(lang_derive_kane(L.lm, NULL, 0, &k, &d) == LG_OK);
  CHECK(num_kane_evaluator_build(L.lm->mech, k, NULL, 0, &ev, &d) == LG_OK);
  num_work w;
  CHECK(num_work_init(L.s, &w) == LG_OK);
  double p[4] = {1, 0.5, 0.8, 9.81};
  for (int trial = 0; trial < 5; trial++) {
    double q[2] = {0.1 * trial, 0.3 - 0.2 * trial}, qd[2] = {0.5, -0.4 + 0.1 * trial};
    double qdd[2];
    num_evaluate(L.s, &w, 0, q, qd);
    CHECK(num_solve_accel(L.s, &w, qdd, NULL, NULL) == LG_OK);
    num_kane_result r;
    CHECK(num_kane_evaluator_run(ev, p, 0, q, qd, NULL, 0, &r, &d) == LG_OK);
    CHECK_NEAR(r.qdd[0], qdd[0], 1e-12);
    CHECK_NEAR(r.qdd[1], qdd[1], 1e-12);
    num_kane_result_free(&r);
  }
  num_work_free(&w);
  num_kane_evaluator_free(ev);
  unload(&L);
}

int main(void) {
  test_forms();
  test_singular();
  test_kane_evaluator();
  return tu_summary("test_num_forms");
}
