/* test_api_work.c - workspaces (lg_work): parameters by name with the
 * values defined from them following, accelerations against the closed
 * form of a pendulum, the same numbers as the per-call entries, a warm
 * evaluation that allocates nothing, four threads with four lengths on one
 * system, simulation, a parameter without a value, bad calls. */
#include "lagrange.h"
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void lg_alloc_fail_after(long n); /* (the base layer's, for this test) */

static const char PENDULUM[] =
    "coordinates th\n"
    "parameters m = 1, l = 2, g = 9.81, I = m*l^2, k\n"
    "frame N\n"
    "frame A = rotate(N, N.z, th)\n"
    "point O\n"
    "point P = O + l*A.x\n"
    "particle P mass m\n"
    "gravity -g*N.y\n"
    "V = k*th^2/2\n";

static lg_system *derive(lg_method method) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  if (lg_model_load_string("pend.lag", PENDULUM, strlen(PENDULUM), &m, NULL) == LG_OK)
    lg_derive(m, method, &s, NULL);
  lg_model_free(m);
  return s;
}

typedef struct job {
  lg_system *s;
  double l, err;
} job;

static void *run(void *arg) {
  job *j = arg;
  lg_work *w = NULL;
  j->err = 1;
  if (lg_work_new(j->s, &w, NULL) != LG_OK) return NULL;
  lg_work_set(w, "k", 0, NULL);
  lg_work_set(w, "l", j->l, NULL);
  double worst = 0;
  for (int i = 0; i < 2000; i++) {
    double th = -1 + i * 1e-3, thd = 0.1, thdd;
    if (lg_work_accel(w, 0, &th, &thd, &thdd, NULL, NULL) != LG_OK) return NULL;
    double want = -9.81 / j->l * cos(th);
    if (fabs(thdd - want) > worst) worst = fabs(thdd - want);
  }
  lg_work_free(w);
  j->err = worst;
  return NULL;
}

static void test_method(lg_method method) {
  lg_system *s = derive(method);
  CHECK(s != NULL);
  if (!s) return;
  lg_work *w = NULL;
  lg_diag d;
  CHECK(lg_work_new(s, &w, &d) == LG_OK && lg_work_system(w) == s);
  double *p = lg_work_params(w);
  CHECK(p[1] == 2 && p[3] == 4 && isnan(p[4])); /* I = m l^2, k has no value */
  double th = 0.3, thd = 0.2, thdd = 0;
  CHECK(lg_work_accel(w, 0, &th, &thd, &thdd, NULL, &d) == LG_ERR_USAGE);
  CHECK(strstr(d.message, "'k'") && strstr(d.hint, "lg_work_set"));
  CHECK(lg_work_set(w, "k", 0.5, &d) == LG_OK);
  CHECK(lg_work_set(w, "l", 0.5, &d) == LG_OK);
  CHECK(p[1] == 0.5 && fabs(p[3] - 0.25) < 1e-15 && p[4] == 0.5); /* I follows, k stays */
  CHECK(lg_work_set(w, "nosuch", 1, &d) == LG_ERR_USAGE && strstr(d.message, "nosuch"));
  CHECK(lg_work_accel(w, 0, &th, &thd, &thdd, NULL, &d) == LG_OK);
  /* m l^2 th'' = -m g l cos th - k th */
  CHECK(fabs(thdd - (-9.81 / 0.5 * cos(0.3) - 0.5 * 0.3 / 0.25)) < 1e-12);
  /* the same numbers as the per-call entry with the same vector */
  double once = 0;
  CHECK(lg_eval_accel(s, 0, &th, &thd, p, &once, NULL, NULL) == LG_OK && once == thdd);
  double T = 0, V = 0, qdd = 0;
  lg_eval_result r = {0};
  r.T = &T;
  r.V = &V;
  r.qdd = &qdd;
  CHECK(lg_work_eval(w, 0, &th, &thd, &r, &d) == LG_OK && qdd == thdd);
  CHECK(fabs(T - 0.5 * 0.25 * 0.04) < 1e-15);
  /* warm: evaluating allocates nothing (Lagrange's equations; Kane's
   * evaluator still allocates its result per state) */
  lg_alloc_fail_after(0);
  lg_status warm = lg_work_accel(w, 0, &th, &thd, &thdd, NULL, NULL);
  lg_alloc_fail_after(-1);
  CHECK(warm == LG_OK || method == LG_KANE);
  /* a simulation with the workspace's parameters is lg_simulate's with p */
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.tf = 0.5;
  o.dt = 0.1;
  lg_sim_stats a, b;
  CHECK(lg_work_simulate(w, &o, &th, &thd, NULL, NULL, &a, &d) == LG_OK);
  CHECK(lg_simulate(s, &o, &th, &thd, p, NULL, NULL, &b, &d) == LG_OK);
  CHECK(a.steps == b.steps && a.max_energy_drift == b.max_energy_drift);
  lg_work_free(w);
  /* threads, each with its own workspace and length, on one system */
  job jobs[4] = {{s, 0.5, 0}, {s, 1.0, 0}, {s, 1.5, 0}, {s, 3.0, 0}};
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, run, &jobs[i]);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 4; i++) CHECK(jobs[i].err < 1e-12);
  lg_system_free(s);
}

int main(void) {
  test_method(LG_LAGRANGE);
  test_method(LG_KANE);
  lg_work *w = (lg_work *)1;
  CHECK(lg_work_new(NULL, &w, NULL) == LG_ERR_USAGE && w == NULL);
  CHECK(lg_work_accel(NULL, 0, NULL, NULL, NULL, NULL, NULL) == LG_ERR_USAGE);
  CHECK(lg_work_set(NULL, "l", 1, NULL) == LG_ERR_USAGE);
  lg_work_free(NULL);
  CHECK(lg_work_params(NULL) == NULL && lg_work_system(NULL) == NULL);
  return tu_summary("test_api_work");
}
