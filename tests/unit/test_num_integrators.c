/* test_num_integrators.c - the integrators (num_simulate.c, num_ida.c):
 * the oscillator against its closed form with every integrator, and a
 * particle on a sphere kept on the constraint (IDA, Dormand-Prince with
 * projection) with its energy conserved. */
#include "lang.h"
#include "mech.h"
#include "num.h"
#include "test_util.h"

#include <math.h>
#include <string.h>

static const char OSC[] =
    "coordinates x\nparameters m = 2, k = 8\nT = 1/2*m*x'^2\nV = 1/2*k*x^2\n";

static const char BOWL[] =
    "coordinates q1 q2 q3\nparameters m = 1, g = 9.81, r = 1\n"
    "frame N\npoint O\npoint P = O + q1*N.x + q2*N.y + q3*N.z\n"
    "particle P mass m\ngravity -g*N.z\nconstraint q1^2 + q2^2 + q3^2 = r^2\n";

typedef struct last {
  size_t n;
  int rows;
  double t, q[3], E0, maxdE, maxC;
} last;

static int on_row(void *ud, const num_sim_point *p) {
  last *l = ud;
  if (!l->rows++) l->E0 = p->T + p->V;
  l->t = p->t;
  memcpy(l->q, p->q, l->n * sizeof *p->q);
  if (fabs(p->T + p->V - l->E0) > l->maxdE) l->maxdE = fabs(p->T + p->V - l->E0);
  if (p->C && fabs(p->C[0]) > l->maxC) l->maxC = fabs(p->C[0]);
  return 0;
}

static num_system *build(const char *text, lang_model **lm) {
  mech_eom *e = NULL;
  num_system *s = NULL;
  lg_diag d;
  lg_diag_clear(&d);
  if (lang_load_string("t.lag", text, strlen(text), lm, &d) != LG_OK ||
      mech_derive_lagrange((*lm)->mech, "t.lag", &e, &d) != LG_OK ||
      num_system_build((*lm)->mech, e, NULL, 0, &s, &d) != LG_OK)
    fprintf(stderr, "build: %s\n", d.message);
  return s;
}

static num_sim_opts options(num_integrator integ, double tf) {
  num_sim_opts o;
  memset(&o, 0, sizeof o);
  o.tf = tf;
  o.dt = 0.1;
  o.rtol = o.atol = 1e-10;
  o.integrator = integ;
  o.stabilize = NUM_STAB_PROJECT;
  return o;
}

static void test_oscillator(void) {
  lang_model *lm = NULL;
  num_system *s = build(OSC, &lm);
  CHECK(s != NULL);
  num_integrator all[] = {NUM_INT_DOPRI, NUM_INT_BDF, NUM_INT_IDA};
  for (int k = 0; s && k < 3; k++) {
    num_sim_opts o = options(all[k], 3.0);
    double q = 0.3, qd = 0;
    last l = {.n = 1};
    num_sim_stats st;
    CHECK(num_simulate(s, &o, &q, &qd, on_row, &l, &st, NULL) == LG_OK);
    CHECK(l.rows == 31);
    CHECK_NEAR(l.t, 3.0, 1e-12);
    CHECK_NEAR(l.q[0], 0.3 * cos(2.0 * 3.0), 1e-7); /* w = sqrt(k/m) = 2 */
    CHECK(l.maxdE < 1e-7);
    CHECK(st.steps > 0 && st.rhs_evals >= st.steps);
  }
  num_system_free(s);
  lang_model_free(lm);
}

static void test_sphere(void) {
  lang_model *lm = NULL;
  num_system *s = build(BOWL, &lm);
  CHECK(s != NULL);
  num_integrator all[] = {NUM_INT_IDA, NUM_INT_DOPRI};
  for (int k = 0; s && k < 2; k++) {
    num_sim_opts o = options(all[k], 2.0);
    double q[3] = {0.6, 0.0, -0.8}, qd[3] = {0.0, 1.0, 0.0};
    last l = {.n = 3};
    num_sim_stats st;
    CHECK(num_simulate(s, &o, q, qd, on_row, &l, &st, NULL) == LG_OK);
    CHECK(l.rows == 21);
    CHECK(l.maxC < 1e-8);
    CHECK(l.maxdE < 1e-6);
    CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2], 1.0, 1e-8);
  }
  num_system_free(s);
  lang_model_free(lm);
}

int main(void) {
  test_oscillator();
  test_sphere();
  return tu_summary("test_num_integrators");
}
