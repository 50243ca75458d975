/* test_api_sim.c - lg_simulate's options and the entries for runs over
 * parameter vectors: stop_when (a stop at a known time, an error at its
 * column), notes (every violated row; projected values), the end state
 * (q_end, qd_end), Kane's own state checked like Lagrange's (issue 23),
 * lg_params_with (derived parameters follow), the name indices,
 * lg_sim_options_check, and several threads on one system with their own
 * parameters. */
#include <pthread.h>

#include "lagrange.h"
#include "test_util.h"

/* a pendulum with a derived parameter: I follows m */
static const char *PEND =
    "coordinates theta\n"
    "parameters m = 1, g = 9.81, l = 1, I = m*l^2/3\n"
    "T = 1/2*I*theta'^2\n"
    "V = -m*g*l/2*cos(theta)\n"
    "initial theta = 0.5\n"
    "simulate 0 to 2 step 0.01\n";

/* a pendulum in Cartesian coordinates started off its rod, with a rate
 * along it (line 7: the constraint) */
static const char *OFF =
    "coordinates x y\n"
    "parameters m = 1, g = 9.81, l = 1\n"
    "frame N\n"
    "point O\n"
    "point P = O + x*N.x + y*N.y\n"
    "particle P mass m\n"
    "constraint x^2 + y^2 = l^2\n"
    "gravity -g*N.y\n"
    "initial x = 1.1, x' = 0.5, y' = 1\n"
    "simulate 0 to 1 step 0.01\n";

static lg_system *derive(const char *text, lg_method method) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  if (lg_model_load_string("t.lag", text, strlen(text), &m, NULL) != LG_OK) return NULL;
  lg_derive(m, method, &s, NULL);
  lg_model_free(m);
  return s;
}

typedef struct notes { int n, violations, projected; char last[1200]; } notes;

static void on_note(void *ud, const char *text) {
  notes *k = ud;
  k->n++;
  k->violations += strstr(text, "violate") != NULL;
  k->projected += strstr(text, ": projected ") != NULL;
  snprintf(k->last, sizeof k->last, "%s", text);
}

static void test_stop_when(void) {
  lg_system *s = derive(PEND, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  CHECK(o.stabilize == LG_STAB_AUTO && o.jit == LG_JIT_OFF && !o.stop_when && !o.note);
  o.stop_when = "t - 0.5";
  double q[1], qd[1];
  o.q_end = q;
  o.qd_end = qd;
  lg_sim_stats st;
  lg_diag d;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, NULL, NULL, &st, &d) == LG_OK);
  CHECK(st.stopped == 1);
  CHECK_NEAR(st.t_end, 0.5, 1e-9);
  CHECK(st.integrator && st.integrator[0]);
  CHECK(strstr(st.energy, "W = 0") != NULL);
  CHECK(st.steps > 0 && st.wall >= 0);
  CHECK(q[0] < 0.5 && q[0] > -0.5 && qd[0] < 0); /* swinging down from 0.5 */
  /* the same text again (compiled once per system) */
  lg_sim_stats st2;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, NULL, NULL, &st2, &d) == LG_OK);
  CHECK(st2.t_end == st.t_end);
  /* a bad text: usage, at its column, in the option's name */
  o.stop_when = "theta + thta";
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, NULL, NULL, &st, &d) == LG_ERR_USAGE);
  CHECK_STR(d.file, "`stop_when`");
  CHECK(d.line == 1 && d.col == 9);
  CHECK(st.integrator && !st.integrator[0]); /* refused before the run */
  CHECK(lg_sim_options_check(s, &o, &d) == LG_ERR_USAGE && d.col == 9);
  o.stop_when = "theta";
  CHECK(lg_sim_options_check(s, &o, &d) == LG_OK);
  o.stop_when = NULL;
  o.tf = o.t0;
  CHECK(lg_sim_options_check(s, &o, &d) == LG_ERR_USAGE && strstr(d.message, "tf") != NULL);
  lg_system_free(s);
}

static void test_params_with(void) {
  lg_system *s = derive(PEND, LG_LAGRANGE);
  if (!s) return;
  CHECK(lg_parameter_index(s, "g") == 1 && lg_parameter_index(s, "nope") == -1);
  CHECK(lg_coordinate_index(s, "theta") == 0 && lg_coordinate_index(s, "g") == -1);
  size_t np = lg_np(s);
  double p[8], def[8];
  CHECK(np == 4 && lg_parameter_index(s, "I") == 3);
  lg_default_params(s, def);
  const char *names[] = {"m"};
  double vals[] = {3};
  CHECK(lg_params_with(s, 0, NULL, NULL, p, NULL) == LG_OK && p[0] == def[0] && p[3] == def[3]);
  CHECK(lg_params_with(s, 1, names, vals, p, NULL) == LG_OK);
  CHECK(p[0] == 3 && p[1] == def[1]);
  CHECK_NEAR(p[3], 1.0, 1e-15); /* I = m l^2 / 3 followed m */
  const char *bad[] = {"nope"};
  lg_diag d;
  CHECK(lg_params_with(s, 1, bad, vals, p, &d) == LG_ERR_USAGE && strstr(d.message, "nope"));
  int line, col;
  lg_coordinates_position(s, &line, &col);
  CHECK(line == 1 && col >= 1);
  lg_system_free(s);
}

static void test_initial_state(lg_method method) {
  lg_system *s = derive(OFF, method);
  CHECK(s != NULL);
  if (!s) return;
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  notes k = {0};
  o.note = on_note;
  o.note_ud = &k;
  lg_sim_stats st;
  lg_diag d;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, NULL, NULL, &st, &d) == LG_ERR_MODEL);
  CHECK(d.line == 7 && strstr(d.message, "violates constraint C1") != NULL);
  CHECK(strstr(d.hint, "`project`") != NULL);
  CHECK(k.violations == 2 && st.noted == 1); /* position and velocity level */
  o.project = 1;
  k = (notes){0};
  double q[2], qd[2];
  o.q_end = q;
  o.qd_end = qd;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, NULL, NULL, &st, &d) == LG_OK);
  CHECK(k.projected == 2 && k.violations == 0); /* x and x' */
  CHECK(st.max_residual < 1e-8);
  CHECK_NEAR(q[0] * q[0] + q[1] * q[1], 1.0, 1e-8);
  CHECK(fabs(q[0] * qd[0] + q[1] * qd[1]) < 1e-7);
  lg_system_free(s);
}

/* threads on one system, each its own parameters: the end states equal
 * those of one thread */
typedef struct job { const lg_system *s; double m, end; lg_status st; } job;

static void *run_job(void *arg) {
  job *j = arg;
  const char *names[] = {"m"};
  double p[8], q[1], qd[1];
  j->st = lg_params_with(j->s, 1, names, &j->m, p, NULL);
  lg_sim_options o;
  lg_sim_options_default(j->s, &o);
  o.tf = 1;
  o.stop_when = "theta + 0.2";
  o.q_end = q;
  o.qd_end = qd;
  if (j->st == LG_OK) j->st = lg_simulate(j->s, &o, NULL, NULL, p, NULL, NULL, NULL, NULL);
  j->end = qd[0];
  return NULL;
}

static void test_threads(void) {
  lg_system *s = derive(PEND, LG_LAGRANGE);
  if (!s) return;
  job one[4], many[4];
  pthread_t t[4];
  for (int i = 0; i < 4; i++) {
    one[i] = (job){s, 1 + i, 0, LG_OK};
    run_job(&one[i]);
    many[i] = (job){s, 1 + i, 0, LG_OK};
  }
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, run_job, &many[i]);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 4; i++) CHECK(one[i].st == LG_OK && many[i].end == one[i].end);
  lg_system_free(s);
}

int main(void) {
  test_stop_when();
  test_params_with();
  test_initial_state(LG_LAGRANGE);
  test_initial_state(LG_KANE);
  test_threads();
  return tu_summary("test_api_sim");
}
