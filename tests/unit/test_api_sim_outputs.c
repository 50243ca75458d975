/* test_api_sim_outputs.c - issue 24 through the C library: lg_output_select
 * (names, vector columns, order, errors) and lg_sim_point.lam / .outputs
 * along lg_simulate under both methods: each row's values equal
 * lg_eval_outputs and lg_eval's multipliers at the row's state, the rod
 * tension of a Cartesian pendulum m (g cos(theta) + l theta'^2). */
#include "lagrange.h"
#include "test_util.h"

#include <math.h>
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
    "initial x = 0.2, y = -0.7745966692414834\n"
    "simulate 0 to 1 step 0.1\n";

static lg_system *derive(const char *text, lg_method method) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  lg_diag d;
  lg_derive_options o;
  lg_derive_options_default(&o);
  o.method = method;
  if (lg_model_load_string("so.lag", text, strlen(text), &m, &d) != LG_OK ||
      lg_derive_with(m, &o, &s, &d) != LG_OK)
    fprintf(stderr, "%s\n", lg_diag_text(&d));
  lg_model_free(m);
  return s;
}

static void test_select(void) {
  lg_system *s = derive(PENDULUM, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  size_t cols[8], count = 99;
  lg_diag d;
  CHECK(lg_output_select(s, NULL, cols, 8, &count, &d) == LG_OK);
  CHECK(count == 5);
  for (size_t i = 0; i < count && i < 5; i++) CHECK(cols[i] == i);
  CHECK(lg_output_select(s, " acc , h", cols, 8, &count, &d) == LG_OK);
  CHECK(count == 4 && cols[0] == 4 && cols[1] == 1 && cols[2] == 2 && cols[3] == 3);
  CHECK(lg_output_select(s, "h_z,tension", cols, 8, &count, &d) == LG_OK);
  CHECK(count == 2 && cols[0] == 3 && cols[1] == 0);
  CHECK(lg_output_select(s, "nope", cols, 8, &count, &d) == LG_ERR_USAGE);
  CHECK(strstr(lg_diag_text(&d), "outputs") != NULL && strstr(lg_diag_text(&d), "nope"));
  CHECK(lg_output_select(s, "acc, acc", cols, 8, &count, &d) == LG_ERR_USAGE);
  CHECK(lg_output_select(s, "h, h_x", cols, 8, &count, &d) == LG_ERR_USAGE);
  CHECK(lg_output_select(s, "acc,,h", cols, 8, &count, &d) == LG_ERR_USAGE);
  CHECK(lg_output_select(s, "h", cols, 2, &count, &d) == LG_ERR_USAGE); /* no room */
  lg_system_free(s);
}

typedef struct rows {
  const lg_system *s;
  size_t n, nout;
  int with_outputs, with_lam;
  double worst_out, worst_lam, worst_tension;
} rows;

static int row(void *ud, const lg_sim_point *p) {
  rows *r = ud;
  r->n++;
  double out[5], qdd[2], lam[1];
  lg_diag d;
  if (lg_eval_outputs(r->s, p->t, p->q, p->qd, NULL, out, &d) != LG_OK ||
      lg_eval_accel(r->s, p->t, p->q, p->qd, NULL, qdd, lam, &d) != LG_OK) {
    r->worst_out = INFINITY;
    return 0;
  }
  if (r->with_outputs) {
    if (!p->outputs || p->noutputs != r->nout) r->worst_out = INFINITY;
    /* the selection "acc, tension" */
    else {
      r->worst_out = fmax(r->worst_out, fabs(p->outputs[0] - out[4]) / fmax(1, fabs(out[4])));
      r->worst_out = fmax(r->worst_out, fabs(p->outputs[1] - out[0]) / fmax(1, fabs(out[0])));
    }
  } else if (p->outputs) r->worst_out = INFINITY;
  if (r->with_lam) {
    if (!p->lam) r->worst_lam = INFINITY;
    else r->worst_lam = fmax(r->worst_lam, fabs(p->lam[0] - lam[0]) / fmax(1, fabs(lam[0])));
    /* the tension m (g cos(theta) + l theta'^2), theta from the downward vertical */
    double l = 0.8, th = atan2(p->q[0], -p->q[1]);
    double w = (p->q[0] * p->qd[1] - p->q[1] * p->qd[0]) / (l * l);
    double ten = 1.3 * (9.81 * cos(th) + l * w * w);
    if (p->lam)
      r->worst_tension = fmax(r->worst_tension, fabs(-2 * l * p->lam[0] - ten) / ten);
  } else if (p->lam) r->worst_lam = INFINITY;
  return 0;
}

static void test_run(lg_method method, int outputs, int multipliers) {
  lg_system *s = derive(PENDULUM, method);
  CHECK(s != NULL);
  if (!s) return;
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.outputs = outputs;
  o.output_names = "acc, tension";
  o.multipliers = multipliers;
  rows r = {s, 0, 2, outputs, multipliers, 0, 0, 0};
  lg_sim_stats st;
  lg_diag d;
  lg_status rc = lg_simulate(s, &o, NULL, NULL, NULL, row, &r, &st, &d);
  if (rc != LG_OK) fprintf(stderr, "%s\n", lg_diag_text(&d));
  CHECK(rc == LG_OK);
  CHECK(r.n == 11);
  CHECK(r.worst_out < 1e-9);
  CHECK(r.worst_lam < 1e-9);
  CHECK(r.worst_tension < 1e-6);
  /* a bad selection is refused before the run, naming `outputs` */
  o.output_names = "acc, nope";
  r.n = 0;
  if (outputs) {
    CHECK(lg_simulate(s, &o, NULL, NULL, NULL, row, &r, &st, &d) == LG_ERR_USAGE);
    CHECK(strstr(lg_diag_text(&d), "nope") != NULL);
  }
  lg_system_free(s);
}

int main(void) {
  test_select();
  for (int method = 0; method < 2; method++) {
    lg_method m = method ? LG_KANE : LG_LAGRANGE;
    test_run(m, 1, 1);
    test_run(m, 1, 0);
    test_run(m, 0, 1);
    test_run(m, 0, 0);
  }
  return tu_summary("test_api_sim_outputs");
}
