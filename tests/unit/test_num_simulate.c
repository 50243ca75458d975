/* test_num_simulate.c - the simulation layer through its C API: the
 * energy balance (W' = dE/dt against a difference quotient of E along the
 * motion), the stop event against an exact crossing time, the step
 * budget, the explicit table by tolerance, and lang_scalar_of_text's
 * diagnostics (columns inside the text). */
#include "lang.h"
#include "num.h"
#include "num_internal.h"
#include "test_util.h"

static const char DAMPED[] =
    "coordinates x\n"
    "parameters m = 2, k = 8, c = 0.7\n"
    "inputs F = 0.3*sin(2*t)\n"
    "T = 1/2*m*x'^2\nV = 1/2*k*x^2\nD = 1/2*c*x'^2\n"
    "force x: F\n"
    "initial x = 0.5\n";

typedef struct model {
  lang_model *lm;
  mech_eom *e;
  num_system *s;
  num_aux *a;
} model;

static int load(model *M, const char *src, const char *stop) {
  lg_diag d;
  lg_diag_clear(&d);
  memset(M, 0, sizeof *M);
  const sym_node *g = NULL;
  return lang_load_string("t.lag", src, strlen(src), &M->lm, &d) == LG_OK &&
         mech_derive_lagrange(M->lm->mech, "t.lag", &M->e, &d) == LG_OK &&
         num_system_build(M->lm->mech, M->e, NULL, 0, &M->s, &d) == LG_OK &&
         (!stop || lang_scalar_of_text(M->lm, "--stop-when", stop, strlen(stop), &g, &d) == LG_OK) &&
         num_aux_build(M->lm->mech, M->e, NULL, NULL, 0, g, &M->a, &d) == LG_OK;
}

static void unload(model *M) {
  num_aux_free(M->a);
  num_system_free(M->s);
  lang_model_free(M->lm);
}

/* W' = dE/dt: against a central difference of E along the motion. */
static void test_power(void) {
  model M;
  CHECK(load(&M, DAMPED, NULL));
  if (!M.a) {
    unload(&M);
    return;
  }
  CHECK(M.a->work && (M.a->sources & MECH_WORK_DISSIPATION) &&
        (M.a->sources & MECH_WORK_FORCES));
  num_work w;
  num_aux_work aw;
  CHECK(num_work_init(M.s, &w) == LG_OK && num_aux_work_init(M.a, &aw) == LG_OK);
  double t = 0.4, q = 0.3, v = -0.7, h = 1e-5, qdd, E[2], Wd;
  num_evaluate(M.s, &w, t, &q, &v);
  CHECK(num_solve_accel(M.s, &w, &qdd, NULL, NULL) == LG_OK);
  num_aux_power(M.a, &aw, t, &q, &v, &qdd, NULL, &Wd);
  for (int s = 0; s < 2; s++) { /* E at t -+ h along the motion (Taylor to h^2) */
    double sg = s ? 1 : -1, qs = q + sg * h * v + h * h / 2 * qdd, vs = v + sg * h * qdd;
    num_aux_power(M.a, &aw, t + sg * h, &qs, &vs, NULL, &E[s], NULL);
  }
  CHECK_NEAR(Wd, (E[1] - E[0]) / (2 * h), 1e-7);
  /* by hand: -c x'^2 + F x' */
  CHECK_NEAR(Wd, -0.7 * v * v + 0.3 * sin(0.8) * v, 1e-12);
  num_aux_work_free(&aw);
  num_work_free(&w);
  unload(&M);
}

typedef struct run_log { double t, EW0, worst; int n; } run_log;

static int record(void *ud, const num_sim_point *p) {
  run_log *r = ud;
  if (!r->n++) r->EW0 = p->E - p->W;
  r->t = p->t;
  r->worst = fmax(r->worst, fabs(p->E - p->W - r->EW0));
  return 0;
}

/* E - W conserved by each integrator; the run ends at the stop event. */
static void test_balance_and_stop(void) {
  static const num_integrator ints[] = {NUM_INT_ERK, NUM_INT_DOPRI, NUM_INT_FEHLBERG,
                                        NUM_INT_BDF};
  model M;
  CHECK(load(&M, DAMPED, "x + 0.2"));
  for (size_t i = 0; M.a && i < sizeof ints / sizeof *ints; i++) {
    num_sim_opts o = {.t0 = 0, .tf = 5, .dt = 0.01, .rtol = 1e-10, .atol = 1e-10,
                      .integrator = ints[i], .aux = M.a};
    double q = 0.5, v = 0;
    num_sim_stats st;
    lg_diag d;
    lg_diag_clear(&d);
    run_log r = {0};
    CHECK(num_simulate(M.s, &o, &q, &v, record, &r, &st, &d) == LG_OK);
    CHECK(st.stopped && st.t_end < 2 && fabs(q + 0.2) < 1e-8);
    CHECK(r.worst < 1e-7 && r.t == st.t_end);
  }
  unload(&M);
}

static void test_parse_scalar(void) {
  model M;
  CHECK(load(&M, DAMPED, NULL));
  lg_diag d;
  lg_diag_clear(&d);
  const sym_node *g;
  CHECK(lang_scalar_of_text(M.lm, "--stop-when", "x' + xx", strlen("x' + xx"), &g, &d) != LG_OK);
  CHECK(d.line == 1 && d.col == 6);
  lg_diag_clear(&d);
  CHECK(lang_scalar_of_text(M.lm, "--stop-when", "x''", strlen("x''"), &g, &d) != LG_OK);
  lg_diag_clear(&d);
  CHECK(lang_scalar_of_text(M.lm, "--stop-when", "x\ny = 1", strlen("x\ny = 1"), &g, &d) != LG_OK);
  lg_diag_clear(&d);
  CHECK(lang_scalar_of_text(M.lm, "--stop-when", "k*x - F + t", strlen("k*x - F + t"), &g, &d) == LG_OK && g);
  unload(&M);
}

static void test_budget_and_tables(void) {
  num_budget b = {.scale = 1};
  double h = 0;
  int collapsed = 0;
  for (long i = 1; i <= NUM_STEP_CHUNK && !collapsed; i++)
    collapsed = num_budget_add(&b, 1, 1e-3 * (double)i, 10, &h);
  CHECK(!collapsed); /* 1e-3 per step: 1e4 steps to go */
  b = (num_budget){.scale = 1};
  for (long i = 1; i <= NUM_STEP_CHUNK && !collapsed; i++)
    collapsed = num_budget_add(&b, 1, 1e-12 * (double)i, 10, &h);
  CHECK(collapsed && h > 0 && h < 2e-12);
  CHECK(num_erk_for_tolerance(1e-6) == NUM_INT_DOPRI);
  CHECK(num_erk_for_tolerance(1e-10) == NUM_INT_DOPRI);
  CHECK(num_erk_for_tolerance(1e-12) == NUM_INT_FEHLBERG);
  /* the same pace with Adams' budget (5x): 1e-3 per step over 1e5 s is
   * 1e8 steps to go, within it; Runge-Kutta's 2e7 is not */
  for (int adams = 0; adams < 2; adams++) {
    b = (num_budget){.scale = adams ? 5 : 1};
    collapsed = 0;
    for (long i = 1; i <= NUM_STEP_CHUNK && !collapsed; i++)
      collapsed = num_budget_add(&b, 1, 1e-3 * (double)i, 9e4, &h);
    CHECK(collapsed == !adams);
  }
  /* over the limit at a steady step: a long run, not a collapse; a higher
   * limit (--max-steps) lets it go on */
  char cause[300], hint[300];
  b = (num_budget){.scale = 1};
  collapsed = 0;
  for (long i = 1; i <= NUM_STEP_CHUNK && !collapsed; i++)
    collapsed = num_budget_add(&b, 1, 1e-3 * (double)i, 1e5, &h);
  CHECK(collapsed && num_budget_too_long(&b, 5, 1e5, h, 1, cause, sizeof cause, hint,
                                                sizeof hint));
  CHECK(strstr(cause, "long for its tolerance") && strstr(cause, "1e+08 more steps"));
  CHECK(strstr(hint, "`max_steps`") && strstr(hint, "bdf"));
  b = (num_budget){.scale = 1, .limit = 1e9};
  collapsed = 0;
  for (long i = 1; i <= NUM_STEP_CHUNK && !collapsed; i++)
    collapsed = num_budget_add(&b, 1, 1e-3 * (double)i, 1e5, &h);
  CHECK(!collapsed);
  /* the step shrank a millionfold after the first chunk: a collapse */
  b = (num_budget){.scale = 1};
  collapsed = 0;
  for (long i = 1; i <= NUM_STEP_CHUNK; i++)
    collapsed = num_budget_add(&b, 1, 1e-3 * (double)i, 10, &h);
  CHECK(!collapsed);
  for (long i = 1; i <= NUM_STEP_CHUNK && !collapsed; i++)
    collapsed = num_budget_add(&b, 1, 5 + 1e-9 * (double)i, 10, &h);
  CHECK(collapsed && !num_budget_too_long(&b, 5, 10, h, 1, cause, sizeof cause, hint,
                                                 sizeof hint));
  /* the default for an ODE: Adams where it pays, the explicit pair else */
  CHECK(num_resolve_integrator(NUM_INT_ODE, 1e-10, 0, 1000) == NUM_INT_ADAMS);
  CHECK(num_resolve_integrator(NUM_INT_ODE, 1e-10, 0, 20) == NUM_INT_DOPRI);
  CHECK(num_resolve_integrator(NUM_INT_ODE, 1e-10, 1, 1000) == NUM_INT_DOPRI);
  CHECK(num_resolve_integrator(NUM_INT_ODE, 1e-12, 0, 1000) == NUM_INT_FEHLBERG);
  CHECK(num_resolve_integrator(NUM_INT_ODE, 1e-5, 0, 1000) == NUM_INT_DOPRI);
  CHECK(num_resolve_integrator(NUM_INT_ADAMS, 1e-5, 1, 0) == NUM_INT_ADAMS);
  CHECK(num_tolerance_scale(NUM_INT_ODE, NUM_INT_ADAMS) == 0.01);
  CHECK(num_tolerance_scale(NUM_INT_ADAMS, NUM_INT_ADAMS) == 1);
}

int main(void) {
  test_power();
  test_balance_and_stop();
  test_parse_scalar();
  test_budget_and_tables();
  return tu_summary("test_num_simulate");
}
