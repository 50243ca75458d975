/* test_api_contact.c - lg_simulate with `contact` and `friction`
 * (MODEL-FORMAT 1.1): lg_ncontact_columns and lg_contact_column, lg_sim_point.contact (the normal
 * force, 0 while open, m g at rest), lg_sim_stats.impacts, liftoffs and
 * friction_switches; the Coulomb oscillator's stop in the band; a system
 * simulated twice gives the same points (the compiled tapes are kept);
 * a 3D slide (the friction cone's columns contactK_ft1, contactK_ft2);
 * errors at the statement's line:col. */
#include <math.h>

#include "lagrange.h"
#include "test_util.h"

static const char *DROP =
    "coordinates y\n"
    "parameters m = 2, g = 9.81, e = 0\n"
    "frame N\n"
    "point O\n"
    "point P = O + y*N.y\n"
    "particle P mass m\n"
    "gravity -g*N.y\n"
    "contact P plane O N.y restitution e\n"
    "initial y = 1\n"
    "simulate 0 to 1 step 0.01\n";

static const char *COULOMB =
    "coordinates x\n"
    "parameters m = 2, k = 50, F = 3\n"
    "T = 1/2*m*x'^2\n"
    "spring x: k, 0\n"
    "friction x: F\n"
    "initial x = 0.5\n"
    "simulate 0 to 3 step 0.01\n";

/* 3D: launched at (3, -2) on the floor z = 0, stops at |v0|/(mu g) */
static const char *SLIDE3 =
    "coordinates x y z\n"
    "parameters m = 2, g = 9.81, mu = 0.4\n"
    "frame N\n"
    "point O\n"
    "point P = O + x*N.x + y*N.y + z*N.z\n"
    "particle P mass m\n"
    "gravity -g*N.z\n"
    "contact P plane O N.z restitution 0 friction mu\n"
    "initial x' = 3, y' = -2\n"
    "simulate 0 to 1.5 step 0.01\n";

enum { MAXP = 1000 };
typedef struct rec { int n; size_t nc; double t[MAXP], y[MAXP], fn[MAXP]; } rec;

static int on_point(void *ud, const lg_sim_point *p) {
  rec *r = ud;
  if (r->n < MAXP) {
    r->nc = p->ncontact;
    r->t[r->n] = p->t;
    r->y[r->n] = p->q[0];
    r->fn[r->n] = p->contact ? p->contact[0] : NAN;
    r->n++;
  }
  return 0;
}

static lg_system *derive(const char *name, const char *text, lg_method method) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  CHECK(lg_model_load_string(name, text, strlen(text), &m, NULL) == LG_OK);
  if (!m) return NULL;
  CHECK(lg_derive(m, method, &s, NULL) == LG_OK);
  lg_model_free(m);
  return s;
}

static void test_drop(lg_method method) {
  lg_system *s = derive("drop.lag", DROP, method);
  if (!s) return;
  CHECK(lg_ncontact_columns(s) == 1 && !strcmp(lg_contact_column(s, 0), "contact1_fn") && !lg_contact_column(s, 1));
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.rtol = 1e-10;
  o.atol = 1e-12;
  static rec r, r2;
  memset(&r, 0, sizeof r);
  memset(&r2, 0, sizeof r2);
  lg_sim_stats st;
  lg_diag d;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_point, &r, &st, &d) == LG_OK);
  double t1 = sqrt(2 / 9.81);
  CHECK(r.nc == 1 && st.impacts == 1 && st.liftoffs == 0 && st.events == 1);
  int at = -1;
  for (int i = 0; i + 1 < r.n; i++)
    if (r.t[i] == r.t[i + 1]) at = i;
  CHECK(at > 0);
  if (at > 0) {
    CHECK_NEAR(r.t[at], t1, 1e-8);
    CHECK(r.fn[at] == 0);
    CHECK_NEAR(r.fn[at + 1], 2 * 9.81, 1e-9);
    CHECK_NEAR(r.fn[r.n - 1], 2 * 9.81, 1e-9);
    CHECK(fabs(r.y[r.n - 1]) < 1e-9);
  }
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_point, &r2, NULL, &d) == LG_OK);
  CHECK(r2.n == r.n && !memcmp(r2.t, r.t, sizeof r.t) && !memcmp(r2.fn, r.fn, sizeof r.fn));
  /* a start below the plane: an error at the contact's line */
  double q0 = -0.5, qd0 = 0;
  CHECK(lg_simulate(s, &o, &q0, &qd0, NULL, on_point, &r2, NULL, &d) == LG_ERR_MODEL);
  CHECK(d.line == 8 && d.col == 1);
  lg_system_free(s);
}

static void test_coulomb(lg_method method) {
  lg_system *s = derive("coulomb.lag", COULOMB, method);
  if (!s) return;
  CHECK(lg_ncontact_columns(s) == 0 && !lg_contact_column(s, 0));
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.rtol = 1e-10;
  o.atol = 1e-12;
  static rec r;
  memset(&r, 0, sizeof r);
  lg_sim_stats st;
  lg_diag d;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_point, &r, &st, &d) == LG_OK);
  /* amplitudes 0.5, -0.38, 0.26, -0.14, 0.02: four switches, at rest at 0.02 */
  CHECK(st.friction_switches == 4 && st.events == 4 && r.nc == 0);
  CHECK_NEAR(r.y[r.n - 1], 0.02, 1e-8);
  /* a negative level: an error at the friction statement */
  double p[3] = {2, 50, -1};
  CHECK(lg_simulate(s, &o, NULL, NULL, p, on_point, &r, NULL, &d) == LG_ERR_MODEL);
  CHECK(d.line == 5 && d.col == 1);
  lg_system_free(s);
}

static int on_slide(void *ud, const lg_sim_point *p) {
  double *last = ud; /* t, x, y, fn, ft1, ft2, and the largest |ft| */
  last[0] = p->t;
  last[1] = p->q[0];
  last[2] = p->q[1];
  for (size_t i = 0; i < 3 && i < p->ncontact; i++) last[3 + i] = p->contact[i];
  double ft = p->ncontact == 3 ? hypot(p->contact[1], p->contact[2]) : NAN;
  if (!(ft <= last[6])) last[6] = ft;
  return 0;
}

static void test_slide3(lg_method method) {
  lg_system *s = derive("slide3.lag", SLIDE3, method);
  if (!s) return;
  CHECK(lg_ncontact_columns(s) == 3 && !strcmp(lg_contact_column(s, 0), "contact1_fn") &&
        !strcmp(lg_contact_column(s, 1), "contact1_ft1") &&
        !strcmp(lg_contact_column(s, 2), "contact1_ft2") && !lg_contact_column(s, 3));
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.rtol = 1e-10;
  o.atol = 1e-12;
  double last[7] = {0};
  lg_sim_stats st;
  lg_diag d;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_slide, last, &st, &d) == LG_OK);
  double mu = 0.4, g = 9.81, v = sqrt(13), dist = v * v / (2 * mu * g);
  CHECK(st.friction_switches == 1 && st.impacts == 0 && st.events == 1);
  CHECK_NEAR(last[1], dist * 3 / v, 1e-8);
  CHECK_NEAR(last[2], -dist * 2 / v, 1e-8);
  CHECK_NEAR(last[3], 2 * g, 1e-9);
  CHECK(fabs(last[4]) < 1e-9 && fabs(last[5]) < 1e-9); /* stuck: nothing to hold */
  CHECK_NEAR(last[6], mu * 2 * g, 1e-9);               /* sliding: mu fn */
  lg_system_free(s);
}

int main(void) {
  test_slide3(LG_LAGRANGE);
  test_slide3(LG_KANE);
  test_drop(LG_LAGRANGE);
  test_drop(LG_KANE);
  test_coulomb(LG_LAGRANGE);
  test_coulomb(LG_KANE);
  return tu_summary("test_api_contact");
}
