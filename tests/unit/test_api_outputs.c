/* test_api_outputs.c - lg_noutputs, lg_output_name, lg_eval_outputs: the
 * output columns (a vector as three), values against closed forms (the rod
 * tension of a Cartesian pendulum from its multiplier, angular momentum,
 * q'' equal to lg_eval_accel's) under both methods, lazily derived systems,
 * threads, and bad calls. */
#include "lagrange.h"
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

static const char PENDULUM[] =
    "coordinates x y\n"
    "parameters m = 1.3, g = 9.81, l = 0.8\n"
    "frame N\n"
    "point O\n"
    "point P = O + x*N.x + y*N.y\n"
    "particle P mass m\n"
    "gravity -g*N.y\n"
    "constraint x^2 + y^2 - l^2\n"
    "output tension = -2*l*lam1\n"
    "output h = angmom(O) in N\n"
    "output acc = x''\n"
    "initial x = 0.2, y = -0.7745966692414834\n";

static lg_system *derive(const char *text, lg_method method, int lazy) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  lg_diag d;
  lg_derive_options o;
  lg_derive_options_default(&o);
  o.method = method;
  o.lazy = lazy;
  if (lg_model_load_string("o.lag", text, strlen(text), &m, &d) != LG_OK ||
      lg_derive_with(m, &o, &s, &d) != LG_OK)
    fprintf(stderr, "%s\n", lg_diag_text(&d));
  lg_model_free(m);
  return s;
}

static void state(double th, double w, double *q, double *qd) {
  q[0] = 0.8 * sin(th);
  q[1] = -0.8 * cos(th);
  qd[0] = 0.8 * w * cos(th);
  qd[1] = 0.8 * w * sin(th);
}

static void test_pendulum(lg_method method, int lazy) {
  lg_system *s = derive(PENDULUM, method, lazy);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(lg_noutputs(s) == 5);
  CHECK_STR(lg_output_name(s, 0), "tension");
  CHECK_STR(lg_output_name(s, 1), "h_x");
  CHECK_STR(lg_output_name(s, 3), "h_z");
  CHECK_STR(lg_output_name(s, 4), "acc");
  CHECK(lg_output_name(s, 5) == NULL);
  const double ths[] = {0.3, -0.6, 0.0, 2.9}, ws[] = {1.1, 0.4, 0.0, -2.5};
  for (int k = 0; k < 4; k++) {
    double q[2], qd[2], out[5], qdd[2];
    lg_diag d;
    state(ths[k], ws[k], q, qd);
    CHECK(lg_eval_outputs(s, 0.1, q, qd, NULL, out, &d) == LG_OK);
    CHECK_NEAR(out[0], 1.3 * (9.81 * cos(ths[k]) + 0.8 * ws[k] * ws[k]), 1e-12);
    CHECK(out[1] == 0 && out[2] == 0);
    CHECK_NEAR(out[3], 1.3 * 0.64 * ws[k], 1e-14);
    CHECK(lg_eval_accel(s, 0.1, q, qd, NULL, qdd, NULL, &d) == LG_OK);
    CHECK(out[4] == qdd[0]);
  }
  /* parameters by value: twice the mass, twice the tension */
  double p[3] = {2.6, 9.81, 0.8}, q[2], qd[2], out[5];
  state(0.3, 1.1, q, qd);
  CHECK(lg_eval_outputs(s, 0, q, qd, p, out, NULL) == LG_OK);
  CHECK_NEAR(out[0], 2.6 * (9.81 * cos(0.3) + 0.8 * 1.21), 1e-12);
  /* bad calls */
  lg_diag d;
  CHECK(lg_eval_outputs(s, 0, NULL, qd, NULL, out, &d) == LG_ERR_USAGE);
  CHECK(lg_eval_outputs(s, 0, q, qd, NULL, NULL, &d) == LG_ERR_USAGE);
  CHECK(lg_eval_outputs(NULL, 0, q, qd, NULL, out, &d) == LG_ERR_USAGE);
  CHECK(lg_noutputs(NULL) == 0 && lg_output_name(NULL, 0) == NULL);
  lg_system_free(s);
}

static void *worker(void *ud) {
  lg_system *s = ud;
  long bad = 0;
  for (int k = 0; k < 200; k++) {
    double q[2], qd[2], out[5], th = 0.001 * k;
    state(th, 0.5, q, qd);
    if (lg_eval_outputs(s, 0, q, qd, NULL, out, NULL) != LG_OK ||
        fabs(out[0] - 1.3 * (9.81 * cos(th) + 0.8 * 0.25)) > 1e-12)
      bad++;
  }
  return (void *)bad;
}

/* The first call compiles the outputs: from several threads at once. */
static void test_threads(void) {
  lg_system *s = derive(PENDULUM, LG_LAGRANGE, 1);
  CHECK(s != NULL);
  if (!s) return;
  pthread_t th[4];
  for (int i = 0; i < 4; i++) CHECK(pthread_create(&th[i], NULL, worker, s) == 0);
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(th[i], &r);
    CHECK(r == NULL);
  }
  lg_system_free(s);
}

static void test_none(void) {
  lg_system *s = derive("coordinates x\nT = x'^2/2\nV = x^2/2\n", LG_LAGRANGE, 0);
  CHECK(s != NULL);
  if (!s) return;
  double q = 1, qd = 0;
  CHECK(lg_noutputs(s) == 0);
  CHECK(lg_eval_outputs(s, 0, &q, &qd, NULL, NULL, NULL) == LG_OK);
  lg_system_free(s);
  /* T and V of a model given by them */
  s = derive("coordinates x\nT = x'^2/2\nV = 3*x^2/2\noutput e = T + V\n", LG_LAGRANGE, 0);
  CHECK(s != NULL);
  if (!s) return;
  double e = 0;
  qd = 2;
  CHECK(lg_eval_outputs(s, 0, &q, &qd, NULL, &e, NULL) == LG_OK);
  CHECK(e == 2 + 1.5);
  lg_system_free(s);
}

int main(void) {
  test_pendulum(LG_LAGRANGE, 0);
  test_pendulum(LG_KANE, 0);
  test_pendulum(LG_LAGRANGE, 1);
  test_threads();
  test_none();
  return tu_summary("test_api_outputs");
}
