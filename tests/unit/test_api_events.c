/* test_api_events.c - lg_simulate with the model's `when` statements
 * (MODEL-FORMAT 1.1, "Events in detail"): the bouncing ball's impacts at
 * the closed-form times with two points each (before and after), the
 * restitution applied to the rate, E - W conserved, lg_sim_stats.events;
 * a stop event; the same under Kane's method (also with a speed of its
 * own: state [q; u]) and with BDF; a reset that breaks a configuration
 * constraint (refused at its `when`, projected with `project`); a system
 * simulated twice gives the same points (the compiled events are kept). */
#include <math.h>

#include "lagrange.h"
#include "test_util.h"

static const char *BALL =
    "coordinates y\n"
    "parameters m = 1, g = 9.81, e = 0.8\n"
    "T = 1/2*m*y'^2\n"
    "V = m*g*y\n"
    "initial y = 1\n"
    "when y < 0: y' = -e*y'\n"
    "when y > 0.9: stop\n"
    "simulate 0 to 2 step 0.01\n";

enum { MAXP = 1000 };
typedef struct rec { int n; double t[MAXP], y[MAXP], yd[MAXP], bal[MAXP]; } rec;

static int on_point(void *ud, const lg_sim_point *p) {
  rec *r = ud;
  if (r->n < MAXP) {
    r->t[r->n] = p->t;
    r->y[r->n] = p->q[0];
    r->yd[r->n] = p->qd[0];
    r->bal[r->n] = p->E - p->W;
    r->n++;
  }
  return 0;
}

static void test_ball(lg_method method, lg_integrator integ) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  CHECK(lg_model_load_string("ball.lag", BALL, strlen(BALL), &m, NULL) == LG_OK);
  if (!m) return;
  CHECK(lg_derive(m, method, &s, NULL) == LG_OK);
  lg_model_free(m);
  if (!s) return;
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.rtol = 1e-10;
  o.atol = 1e-12;
  o.integrator = integ;
  static rec r, r2;
  memset(&r, 0, sizeof r);
  memset(&r2, 0, sizeof r2);
  lg_sim_stats st;
  lg_diag d;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_point, &r, &st, &d) == LG_OK);
  double g = 9.81, e = 0.8, t1 = sqrt(2 / g), v1 = g * t1;
  double t2 = t1 + 2 * e * v1 / g;
  /* impacts at t1 and t2, then the rise past 0.9 never comes (apex 0.64,
   * 0.41): no stop; the group of rows at t1 */
  int at1 = -1, at2 = -1;
  for (int i = 0; i + 1 < r.n; i++)
    if (r.t[i] == r.t[i + 1]) {
      if (at1 < 0) at1 = i;
      else if (at2 < 0) at2 = i;
    }
  CHECK(at1 >= 0 && at2 >= 0);
  if (at1 < 0 || at2 < 0) return;
  CHECK_NEAR(r.t[at1], t1, 1e-8);
  CHECK_NEAR(r.t[at2], t2, 1e-8);
  CHECK_NEAR(r.yd[at1 + 1], -e * r.yd[at1], 1e-9);
  CHECK_NEAR(r.yd[at1], -v1, 1e-8);
  CHECK(st.events >= 2 && !st.stopped);
  CHECK_NEAR(st.event_work, -(1 - pow(e, 2 * (double)st.events)) * g, 1e-7);
  for (int i = 0; i < r.n; i++) CHECK_NEAR(r.bal[i], r.bal[0], 1e-8);
  /* the compiled events are the system's: a second run is the same */
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_point, &r2, NULL, &d) == LG_OK);
  CHECK(r2.n == r.n && !memcmp(r2.t, r.t, sizeof r.t) && !memcmp(r2.yd, r.yd, sizeof r.yd));
  /* thrown up from the floor: the stop at y = 0.9 going up */
  double q0 = 0, qd0 = 5;
  memset(&r, 0, sizeof r);
  CHECK(lg_simulate(s, &o, &q0, &qd0, NULL, on_point, &r, &st, &d) == LG_OK);
  double ts = (5 - sqrt(25 - 2 * g * 0.9)) / g;
  CHECK(st.stopped && st.events == 1);
  CHECK_NEAR(r.t[r.n - 1], ts, 1e-8);
  CHECK(r.n >= 2 && r.t[r.n - 2] < r.t[r.n - 1]);
  lg_system_free(s);
}

/* The ball under Kane's method with a speed of its own, v = y'/2 (state
 * [y; v]): the guard and the reset are written in y and y', evaluated at
 * y' = 2 v, and v after the reset is taken back from y'. */
static const char *BALL_V =
    "coordinates y\n"
    "speeds v\n"
    "parameters m = 1, g = 9.81, e = 0.8\n"
    "frame N\n"
    "point O\n"
    "point P = O + y*N.y\n"
    "particle P mass m\n"
    "gravity -g*N.y\n"
    "kinematics y' = 2*v\n"
    "initial y = 1\n"
    "when y < 0: y' = -e*y'\n"
    "simulate 0 to 2 step 0.01\n";

static void test_ball_speeds(lg_integrator integ) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  lg_diag d;
  CHECK(lg_model_load_string("ball_v.lag", BALL_V, strlen(BALL_V), &m, &d) == LG_OK);
  if (!m) return;
  CHECK(lg_derive(m, LG_KANE, &s, &d) == LG_OK);
  lg_model_free(m);
  if (!s) return;
  CHECK(lg_kane_own_state(s));
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.rtol = 1e-10;
  o.atol = 1e-12;
  o.integrator = integ;
  static rec r;
  memset(&r, 0, sizeof r);
  lg_sim_stats st;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_point, &r, &st, &d) == LG_OK);
  double g = 9.81, e = 0.8, v = sqrt(2 * g), t = v / g;
  int k = 0;
  for (int i = 0; i + 1 < r.n; i++)
    if (r.t[i] == r.t[i + 1]) {
      CHECK_NEAR(r.t[i], t, 1e-8);
      CHECK_NEAR(r.yd[i], -v, 1e-8);
      CHECK_NEAR(r.yd[i + 1], -e * r.yd[i], 1e-9);
      v *= e;
      t += 2 * v / g;
      k++;
    }
  CHECK(k == 3 && st.events == 3); /* t = 0.45, 1.17, 1.75 */
  for (int i = 0; i < r.n; i++) CHECK_NEAR(r.bal[i], r.bal[0], 1e-8);
  lg_system_free(s);
}

/* A reset that moves a coordinate off x^2 + y^2 = 1: LG_ERR_MODEL at the
 * `when` (line 6, column 1) without `project`; with it the bob back on the
 * circle at the nearest point (M = I), under both methods. */
static const char *TELE =
    "coordinates x y\n"
    "T = 1/2*(x'^2 + y'^2)\n"
    "V = 9.81*y\n"
    "constraint x^2 + y^2 - 1\n"
    "initial x = 0.6, y = -0.8\n"
    "when x > 0.5: x = 0.4\n"
    "simulate 0 to 2 step 0.01\n";

typedef struct circ { int n, after; double t[MAXP], x[MAXP], y[MAXP]; } circ;

static int on_circ(void *ud, const lg_sim_point *p) {
  circ *c = ud;
  if (c->n < MAXP) {
    c->t[c->n] = p->t;
    c->x[c->n] = p->q[0];
    c->y[c->n] = p->q[1];
    c->n++;
  }
  return 0;
}

static void test_teleport(lg_method method) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  lg_diag d;
  CHECK(lg_model_load_string("tele.lag", TELE, strlen(TELE), &m, &d) == LG_OK);
  if (!m) return;
  CHECK(lg_derive(m, method, &s, &d) == LG_OK);
  lg_model_free(m);
  if (!s) return;
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.rtol = 1e-10;
  o.atol = 1e-12;
  static circ c;
  memset(&c, 0, sizeof c);
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_circ, &c, NULL, &d) == LG_ERR_MODEL);
  CHECK(d.line == 6 && d.col == 1 && strstr(d.message, "constraint C1"));
  o.project = 1;
  memset(&c, 0, sizeof c);
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_circ, &c, NULL, &d) == LG_OK);
  int k = 0;
  for (int i = 0; i + 1 < c.n; i++)
    if (c.t[i] == c.t[i + 1]) {
      double r = hypot(0.4, c.y[i]);
      CHECK_NEAR(c.x[i], 0.5, 1e-8);
      CHECK_NEAR(c.x[i + 1], 0.4 / r, 1e-12);
      CHECK_NEAR(c.y[i + 1], c.y[i] / r, 1e-12);
      k++;
    }
  CHECK(k >= 1);
  lg_system_free(s);
}

int main(void) {
  test_teleport(LG_LAGRANGE);
  test_teleport(LG_KANE);
  test_ball_speeds(LG_INT_AUTO);
  test_ball_speeds(LG_INT_BDF);
  test_ball(LG_LAGRANGE, LG_INT_AUTO);
  test_ball(LG_KANE, LG_INT_AUTO);
  test_ball(LG_LAGRANGE, LG_INT_BDF);
  test_ball(LG_LAGRANGE, LG_INT_DOPRI);
  return tu_summary("test_api_events");
}
