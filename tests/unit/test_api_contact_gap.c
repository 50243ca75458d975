/* test_api_contact_gap.c - lg_simulate with contacts on an inequality of
 * the configuration (`contact A >= B [restitution e]`, `<=`): a pendulum
 * stopped by `contact q >= 0.5` (plastic) rests there with contact1_fn =
 * m g l sin(0.5), the static torque; a mass dropped onto `contact 0.25 <=
 * y` bounces with e and lands at sqrt(2 h / g); the parse and sema errors
 * (`>` for `>=`, friction, q', `contact limits` without an import) and a
 * start violating the stop at their line:col; the point contact's form
 * still reads. */
#include <math.h>

#include "lagrange.h"
#include "test_util.h"

static const char *PEND =
    "coordinates q\n"
    "parameters m = 1.5, g = 9.81, l = 0.8\n"
    "frame N\n"
    "point O\n"
    "point P = O + l*sin(q)*N.x - l*cos(q)*N.y\n"
    "particle P mass m\n"
    "gravity -g*N.y\n"
    "contact q >= 0.5\n"
    "initial q = 1.2\n"
    "simulate 0 to 2 step 0.01\n";

static const char *DROP =
    "coordinates y\n"
    "parameters m = 2, g = 9.81, e = 0.5\n"
    "frame N\n"
    "point O\n"
    "point P = O + y*N.y\n"
    "particle P mass m\n"
    "gravity -g*N.y\n"
    "contact 0.25 <= y restitution e\n"
    "initial y = 1.25\n"
    "simulate 0 to 0.8 step 0.01\n";

enum { MAXP = 1000 };
typedef struct rec { int n; size_t nc; double t[MAXP], q[MAXP], qd[MAXP], fn[MAXP]; } rec;

static int on_point(void *ud, const lg_sim_point *p) {
  rec *r = ud;
  if (r->n < MAXP) {
    r->nc = p->ncontact;
    r->t[r->n] = p->t;
    r->q[r->n] = p->q[0];
    r->qd[r->n] = p->qd[0];
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

static void test_pendulum(lg_method method) {
  lg_system *s = derive("pend.lag", PEND, method);
  if (!s) return;
  CHECK(lg_ncontact_columns(s) == 1 && !strcmp(lg_contact_column(s, 0), "contact1_fn"));
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.rtol = 1e-10;
  o.atol = 1e-12;
  static rec r;
  memset(&r, 0, sizeof r);
  lg_sim_stats st;
  lg_diag d;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_point, &r, &st, &d) == LG_OK);
  CHECK(st.impacts == 1 && st.liftoffs == 0 && r.nc == 1);
  double fn = 1.5 * 9.81 * 0.8 * sin(0.5);
  CHECK_NEAR(r.q[r.n - 1], 0.5, 1e-9);
  CHECK(fabs(r.qd[r.n - 1]) < 1e-9);
  CHECK_NEAR(r.fn[r.n - 1], fn, 1e-8);
  CHECK(r.fn[0] == 0);
  /* a start beyond the stop: an error at the contact's line */
  double q0 = 0.4, qd0 = 0;
  CHECK(lg_simulate(s, &o, &q0, &qd0, NULL, on_point, &r, NULL, &d) == LG_ERR_MODEL);
  CHECK(d.line == 8 && d.col == 1 && strstr(d.message, "does not hold at the start"));
  lg_system_free(s);
}

static void test_drop(lg_method method) {
  lg_system *s = derive("drop.lag", DROP, method);
  if (!s) return;
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.rtol = 1e-10;
  o.atol = 1e-12;
  static rec r;
  memset(&r, 0, sizeof r);
  lg_sim_stats st;
  lg_diag d;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_point, &r, &st, &d) == LG_OK);
  double t1 = sqrt(2 / 9.81), v1 = 9.81 * t1;
  int at = -1;
  for (int i = 0; i + 1 < r.n && at < 0; i++)
    if (r.t[i] == r.t[i + 1]) at = i;
  CHECK(at > 0);
  if (at > 0) {
    CHECK_NEAR(r.t[at], t1, 1e-8);
    CHECK_NEAR(r.q[at], 0.25, 1e-9);
    CHECK_NEAR(r.qd[at], -v1, 1e-7);
    CHECK_NEAR(r.qd[at + 1], 0.5 * v1, 1e-7);
  }
  CHECK(st.impacts == 1); /* the next one at t1 + 2 (e v1)/g = 0.9 s */
  lg_system_free(s);
}

/* The model text of PEND with its line 8 replaced by `line`. */
static void error_at(const char *line, int eline, int ecol, const char *msg) {
  char text[1024];
  const char *p = strstr(PEND, "contact q >= 0.5\n");
  int head = (int)(p - PEND);
  snprintf(text, sizeof text, "%.*s%s%s", head, PEND, line, p + strlen("contact q >= 0.5\n"));
  lg_model *m = NULL;
  lg_diag d;
  CHECK(lg_model_load_string("err.lag", text, strlen(text), &m, &d) == LG_ERR_MODEL);
  CHECK(d.line == eline && d.col == ecol && strstr(d.message, msg) && d.hint[0]);
  if (!(d.line == eline && d.col == ecol && strstr(d.message, msg)))
    fprintf(stderr, "  %s -> %d:%d %s\n", line, d.line, d.col, d.message);
  lg_model_free(m);
}

int main(void) {
  test_pendulum(LG_LAGRANGE);
  test_pendulum(LG_KANE);
  test_drop(LG_LAGRANGE);
  test_drop(LG_KANE);
  error_at("contact q > 0.5\n", 8, 11, "write '>='");
  error_at("contact q <= 0.5 friction 0.2\n", 8, 18, "takes no friction");
  error_at("contact q' >= 0\n", 8, 9, "velocity q'");
  error_at("contact limits\n", 8, 1, "imports none");
  error_at("contact l >= 0\n", 8, 11, "does not depend on the coordinates");
  error_at("contact P O N.y restitution 1\n", 8, 11, "'plane' after the point");
  return tu_summary("test_api_contact_gap");
}
