/* test_api.c - the public library (lagrange.h): results against closed
 * forms, the error paths, two threads on one system, and every public
 * entry under fault injection (each allocation in turn fails: the entry
 * must say LG_ERR_NOMEM and leak nothing; LSan checks the leaks). */
#include "lagrange.h"
#include "lg_base.h"
#include "test_models.h"
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char SPRING[] =
    "coordinates x\n"
    "parameters m = 2, k = 8\n"
    "T = 1/2*m*x'^2\n"
    "V = 1/2*k*x^2\n"
    "initial x = 0.3\n";

/* ---- results ----------------------------------------------------------------------- */
static void test_version(void) {
  CHECK_STR(lg_version(), LAGRANGE_VERSION_STRING);
  char want[32];
  snprintf(want, sizeof want, "%d.%d.", LAGRANGE_VERSION_MAJOR, LAGRANGE_VERSION_MINOR);
  CHECK(strncmp(lg_version(), want, strlen(want)) == 0);
  CHECK(lg_version_number() == LAGRANGE_VERSION_NUMBER);
  snprintf(want, sizeof want, "%d.%d.%d", lg_version_number() / 10000,
           lg_version_number() / 100 % 100, lg_version_number() % 100);
  CHECK_STR(lg_version(), want);
  CHECK_STR(lg_status_name(LG_ERR_NOMEM), "out of memory");
  CHECK_STR(lg_diag_text(NULL), "");
}

/* The cart pendulum against Gros's closed form. */
static void test_cart_pendulum(lg_method method) {
  lg_system *s = derive_text("cart.lag", CART, method);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(lg_nq(s) == 2 && lg_nc(s) == 0 && lg_np(s) == 4);
  CHECK_STR(lg_coordinate_name(s, 1), "theta");
  CHECK_STR(lg_parameter_name(s, 3), "g");
  CHECK(lg_coordinate_name(s, 2) == NULL);
  double p[4], q[2], qd[2];
  lg_default_params(s, p);
  CHECK(p[0] == 1 && p[1] == 0.5 && p[2] == 0.8 && p[3] == 9.81);
  lg_initial_state(s, q, qd);
  CHECK(q[0] == 0 && q[1] == 0.1 && qd[0] == 0 && qd[1] == 0);
  p[2] = 0.7; /* l */
  double th = 0.3, thd = -0.4, qq[2] = {0.2, th}, qqd[2] = {0.5, thd}, qdd[2];
  CHECK(lg_eval_accel(s, 0.0, qq, qqd, p, qdd, NULL, NULL) == LG_OK);
  double m = 1, M = 0.5, l = 0.7, g = 9.81;
  double a = M + m, b = M * l * cos(th), c = M * l * l;
  double f1 = M * l * thd * thd * sin(th), f2 = M * g * l * sin(th);
  double det = a * c - b * b;
  CHECK_NEAR(qdd[0], (c * f1 - b * f2) / det, 1e-12);
  CHECK_NEAR(qdd[1], (a * f2 - b * f1) / det, 1e-12);
  lg_system_free(s);
}

/* The sphere: [[I,0,0],[0,M,-J^T],[0,J,0]] [q'; q''; lam] = [q'; f; gc]. */
static void test_constrained(void) {
  lg_system *s = derive_text("bowl.lag", BOWL, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(lg_nq(s) == 3 && lg_nc(s) == 1);
  double q[3] = {0.6, 0.0, -0.8}, qd[3] = {0.0, 1.0, 0.0}, qdd[3], lam[1];
  double MF[49], ff[7], cf[3], T, V, res[1];
  lg_eval_result r = {.qdd = qdd, .lam = lam, .mass_matrix_full = MF, .forcing_full = ff,
                      .constraint_forces = cf, .T = &T, .V = &V, .residuals = res};
  CHECK(lg_eval(s, 0.0, q, qd, NULL, &r, NULL) == LG_OK);
  double x[7] = {qd[0], qd[1], qd[2], qdd[0], qdd[1], qdd[2], lam[0]};
  for (int i = 0; i < 7; i++) {
    double acc = 0;
    for (int j = 0; j < 7; j++) acc += MF[i * 7 + j] * x[j];
    CHECK_NEAR(acc, ff[i], 1e-12);
  }
  CHECK_NEAR(T, 0.5, 1e-14);
  CHECK_NEAR(V, 9.81 * -0.8, 1e-14);
  CHECK_NEAR(res[0], 0.0, 1e-14);
  /* J^T lam with J = 2 q */
  for (int i = 0; i < 3; i++) CHECK_NEAR(cf[i], 2 * q[i] * lam[0], 1e-12);
  double qdd2[3], lam2[1];
  CHECK(lg_eval_accel(s, 0.0, q, qd, NULL, qdd2, lam2, NULL) == LG_OK);
  for (int i = 0; i < 3; i++) CHECK(qdd2[i] == qdd[i]);
  CHECK(lam2[0] == lam[0]);
  lg_system_free(s);
}

static void test_errors(void) {
  lg_model *m = (lg_model *)&m;
  const char bad[] = "coordinates x\nT = 1/2*m*x'^2\n";
  CHECK(lg_model_load_string("bad.lag", bad, strlen(bad), &m, NULL) == LG_ERR_MODEL);
  CHECK(m == NULL);
  lg_diag d = {0};
  CHECK(lg_model_load_string("bad.lag", bad, strlen(bad), &m, &d) == LG_ERR_MODEL);
  CHECK(d.status == LG_ERR_MODEL && d.line == 2);
  CHECK(strncmp(lg_diag_text(&d), "bad.lag:2:", 10) == 0);
  CHECK(lg_model_load_file("/nonexistent/x.lag", &m, &d) == LG_ERR_IO);
  CHECK(strstr(lg_diag_text(&d), "/nonexistent/x.lag") != NULL);
  CHECK(lg_model_load_file(NULL, &m, NULL) == LG_ERR_USAGE);
  CHECK(lg_derive(NULL, LG_LAGRANGE, NULL, &d) == LG_ERR_USAGE);
  /* a singular mass matrix: no inertia on y */
  const char sing[] = "coordinates x y\nparameters m = 1\nT = 1/2*m*x'^2\nV = y^2\n";
  lg_system *s = derive_text("sing.lag", sing, LG_LAGRANGE);
  CHECK(s != NULL);
  double q[2] = {0, 0}, qdd[2];
  CHECK(lg_eval_accel(s, 0, q, q, NULL, qdd, NULL, &d) == LG_ERR_NUMERIC);
  CHECK(strncmp(lg_diag_text(&d), "sing.lag:1:", 11) == 0);
  CHECK(lg_eval_accel(s, 0, q, q, NULL, qdd, NULL, NULL) == LG_ERR_NUMERIC);
  lg_system_free(s);
  /* a parameter without a value: derivable, then p is needed */
  const char free_k[] = "coordinates x\nparameters m = 1, k\nT = 1/2*m*x'^2\nV = k*x^2/2\n";
  s = derive_text("k.lag", free_k, LG_LAGRANGE);
  CHECK(s != NULL);
  double p[2];
  lg_default_params(s, p);
  CHECK(p[0] == 1 && isnan(p[1]));
  double x = 0.5, v = 0, a;
  CHECK(lg_eval_accel(s, 0, &x, &v, NULL, &a, NULL, &d) == LG_ERR_USAGE);
  CHECK(strstr(lg_diag_text(&d), "'k'") != NULL);
  p[1] = 4;
  CHECK(lg_eval_accel(s, 0, &x, &v, p, &a, NULL, &d) == LG_OK);
  CHECK_NEAR(a, -2.0, 1e-15);
  CHECK(d.status == LG_OK && lg_diag_text(&d)[0] == 0);
  lg_system_free(s);
  /* a value written with a valueless parameter has none either */
  const char dep[] = "coordinates x\nparameters m = 1, k, c = 2*k\nT = 1/2*m*x'^2\n"
                     "V = c*x^2/2\n";
  s = derive_text("c.lag", dep, LG_LAGRANGE);
  CHECK(s != NULL);
  double pc[3] = {0, 0, 0};
  lg_default_params(s, pc);
  CHECK(pc[0] == 1 && isnan(pc[1]) && isnan(pc[2]));
  CHECK(lg_eval_accel(s, 0, &x, &v, NULL, &a, NULL, &d) == LG_ERR_USAGE);
  pc[1] = 1, pc[2] = 6;
  CHECK(lg_eval_accel(s, 0, &x, &v, pc, &a, NULL, NULL) == LG_OK);
  CHECK_NEAR(a, -3.0, 1e-15);
  lg_system_free(s);
  lg_system_free(NULL);
  lg_model_free(NULL);
  lg_string_free(NULL);
}

/* ---- simulation, printing, code ------------------------------------------------------ */
typedef struct trace {
  int calls;
  double t, x, E, W;
} trace;

static int on_row(void *ud, const lg_sim_point *p) {
  trace *tr = ud;
  tr->calls++;
  tr->t = p->t;
  tr->x = p->q[0];
  tr->E = p->E;
  tr->W = p->W;
  return 0;
}

static void test_simulate(void) {
  lg_system *s = derive_text("spring.lag", SPRING, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  lg_sim_options o;
  lg_sim_options_default(s, &o);
  o.tf = 1.0;
  o.dt = 0.25;
  trace tr = {0};
  lg_sim_stats st;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, on_row, &tr, &st, NULL) == LG_OK);
  CHECK(tr.calls == 5);
  CHECK_NEAR(tr.t, 1.0, 1e-15);
  CHECK_NEAR(tr.x, 0.3 * cos(2.0), 1e-8); /* w = sqrt(k/m) = 2 */
  CHECK_NEAR(tr.E, 0.5 * 8 * 0.09, 1e-9); /* conservative: E constant, W = 0 */
  CHECK(tr.W == 0);
  double p[2] = {2, 32}, x0 = 1, v0 = 0; /* w = 4 */
  tr.calls = 0;
  CHECK(lg_simulate(s, &o, &x0, &v0, p, on_row, &tr, NULL, NULL) == LG_OK);
  CHECK_NEAR(tr.x, cos(4.0), 1e-8);
  o.dt = -1;
  CHECK(lg_simulate(s, &o, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == LG_ERR_USAGE);
  lg_system_free(s);
  /* off the sphere: refused, then projected */
  s = derive_text("bowl.lag", BOWL, LG_LAGRANGE);
  lg_sim_options_default(s, &o);
  o.tf = 0.1;
  double q[3] = {0.7, 0, -0.8};
  lg_diag d = {0};
  CHECK(lg_simulate(s, &o, q, NULL, NULL, NULL, NULL, NULL, &d) == LG_ERR_MODEL);
  CHECK(strncmp(lg_diag_text(&d), "bowl.lag:8:", 11) == 0);
  o.project = 1;
  CHECK(lg_simulate(s, &o, q, NULL, NULL, NULL, NULL, NULL, &d) == LG_OK);
  lg_system_free(s);
}

static void test_print_codegen(void) {
  lg_system *s = derive_text("cart.lag", CART, LG_LAGRANGE);
  char *text = NULL, *src = NULL, *hdr = NULL;
  CHECK(lg_print(s, LG_FORMAT_TEXT, &text, NULL) == LG_OK);
  CHECK(text && strstr(text, "(M + m)*x'' + M*l*cos(theta)*theta''"));
  lg_string_free(text);
  CHECK(lg_print(s, LG_FORMAT_JSON, &text, NULL) == LG_OK);
  CHECK(text && text[0] == '{' && strstr(text, "\"mass_matrix_full\""));
  lg_string_free(text);
  CHECK(lg_print(s, LG_FORMAT_LATEX, &text, NULL) == LG_OK);
  CHECK(text && strstr(text, "\\documentclass"));
  lg_string_free(text);
  CHECK(lg_codegen(s, LG_CODE_C, "cart", &src, &hdr, NULL) == LG_OK);
  CHECK(src && strstr(src, "cart_rhs(") && hdr && strstr(hdr, "cart_NQ"));
  lg_string_free(src);
  lg_string_free(hdr);
  CHECK(lg_codegen(s, LG_CODE_PYTHON, NULL, &src, &hdr, NULL) == LG_OK);
  CHECK(src && strstr(src, "import numpy") && hdr == NULL);
  lg_string_free(src);
  CHECK(lg_codegen(s, LG_CODE_C, "9bad", &src, NULL, NULL) == LG_ERR_USAGE);
  lg_system_free(s);
}

/* ---- linearization ------------------------------------------------------------------- */
/* The cart pendulum upright: x = [x, theta, x', theta'], A = [[0, I], [M0^-1 K, 0]]
 * with M0 = [[M+m, M l], [M l, M l^2]] and K = [[0, 0], [0, M g l]]. */
static void test_linearize(lg_method method) {
  lg_system *s = derive_text("cart.lag", CART, method);
  CHECK(s != NULL && lg_ninputs(s) == 0);
  size_t state[4];
  double A[16], x0[4], q[2] = {0.3, 0.0}, qd[2] = {0, 0};
  lg_linearization L = {.state = state, .A = A, .x0 = x0};
  CHECK(lg_linearize(s, 0, q, qd, NULL, NULL, &L, NULL) == LG_OK);
  CHECK(L.nx == 4 && L.nr == 0);
  for (size_t k = 0; k < 4; k++) CHECK(state[k] == k);
  double m = 1, M = 0.5, l = 0.8, g = 9.81, det = (M + m) * M * l * l - M * l * M * l;
  /* M0^-1 = [[M l^2, -M l], [-M l, M + m]] / det; column theta of K: M g l */
  CHECK_NEAR(A[2 * 4 + 1], -M * l * M * g * l / det, 1e-12); /* dx''/dtheta */
  CHECK_NEAR(A[3 * 4 + 1], (M + m) * M * g * l / det, 1e-12); /* dtheta''/dtheta */
  CHECK_NEAR(A[0 * 4 + 2], 1.0, 1e-15);
  CHECK_NEAR(A[2 * 4 + 0], 0.0, 1e-15);
  CHECK_NEAR(x0[0], 0.3, 1e-15);
  lg_system_free(s);
}

/* On the sphere: one coordinate and one rate are dependent. */
static void test_linearize_constrained(void) {
  lg_system *s = derive_text("bowl.lag", BOWL, LG_LAGRANGE);
  size_t state[6];
  double A[36], x0[6], qc[3], qdc[3];
  double q[3] = {0.0, 0.0, -1.2}, qd[3] = {0, 0, 0}; /* off the sphere: completed */
  int indep[6] = {1, 1, 0, 1, 1, 0};
  lg_linearization L = {.state = state, .A = A, .x0 = x0, .q = qc, .qd = qdc};
  lg_diag d = {0};
  CHECK(lg_linearize(s, 0, q, qd, NULL, indep, &L, &d) == LG_OK);
  CHECK(L.nx == 4);
  CHECK(state[0] == 0 && state[1] == 1 && state[2] == 3 && state[3] == 4);
  CHECK_NEAR(qc[2], -1.0, 1e-12); /* q3 solved onto the sphere */
  /* small oscillations at the bottom: q1'' = -(g/r) q1 */
  CHECK_NEAR(A[2 * 4 + 0], -9.81, 1e-9);
  CHECK_NEAR(A[3 * 4 + 1], -9.81, 1e-9);
  lg_linearization bad = {.state = state};
  CHECK(lg_linearize(s, 0, q, qd, NULL, NULL, &bad, &d) == LG_ERR_USAGE);
  lg_system_free(s);
}

/* ---- threads ----------------------------------------------------------------------------- */
typedef struct job {
  const lg_system *s;
  double qdd[400];
  int ok;
} job;

static void *evaluate_many(void *ud) {
  job *j = ud;
  j->ok = 1;
  for (int k = 0; k < 200; k++) {
    double q[2] = {0.01 * k, 0.02 * k}, qd[2] = {0.1, -0.03 * k};
    j->ok &= lg_eval_accel(j->s, 0.0, q, qd, NULL, j->qdd + 2 * k, NULL, NULL) == LG_OK;
  }
  return NULL;
}

static void test_threads(lg_method method) {
  lg_system *s = derive_text("cart.lag", CART, method);
  job a = {.s = s}, b = {.s = s}, ref = {.s = s};
  evaluate_many(&ref);
  pthread_t ta, tb;
  CHECK(pthread_create(&ta, NULL, evaluate_many, &a) == 0);
  CHECK(pthread_create(&tb, NULL, evaluate_many, &b) == 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  CHECK(a.ok && b.ok && ref.ok);
  CHECK(memcmp(a.qdd, ref.qdd, sizeof a.qdd) == 0);
  CHECK(memcmp(b.qdd, ref.qdd, sizeof b.qdd) == 0);
  lg_system_free(s);
}

/* Evaluation, simulation (Kane's own [q; u] with a dependent speed),
 * linearization (compiled by whichever thread comes first), printing and
 * code generation on one system from three threads. */
static void *simulate_twice(void *ud) {
  job *j = ud;
  size_t state[6];
  double A[36], x0[6];
  lg_linearization L = {.state = state, .A = A, .x0 = x0};
  if (lg_linearize(j->s, 0, NULL, NULL, NULL, NULL, &L, NULL) != LG_OK) return NULL;
  lg_sim_options o;
  lg_sim_options_default(j->s, &o);
  o.tf = 0.2;
  trace tr = {0};
  j->ok = lg_simulate(j->s, &o, NULL, NULL, NULL, on_row, &tr, NULL, NULL) == LG_OK;
  j->qdd[0] = tr.x;
  j->ok &= lg_simulate(j->s, &o, NULL, NULL, NULL, on_row, &tr, NULL, NULL) == LG_OK;
  j->qdd[1] = tr.x;
  return NULL;
}

static void *print_and_generate(void *ud) {
  job *j = ud;
  char *text = NULL, *src = NULL;
  size_t state[6];
  double A[36], x0[6];
  lg_linearization L = {.state = state, .A = A, .x0 = x0};
  j->ok = lg_print(j->s, LG_FORMAT_JSON, &text, NULL) == LG_OK &&
          lg_linearize(j->s, 0, NULL, NULL, NULL, NULL, &L, NULL) == LG_OK &&
          lg_codegen(j->s, LG_CODE_C, "b", &src, NULL, NULL) == LG_OK;
  lg_string_free(text);
  lg_string_free(src);
  return NULL;
}

static void *evaluate_bowl(void *ud) {
  job *j = ud;
  j->ok = 1;
  for (int k = 0; k < 100; k++) {
    double q[3] = {0.6, 0.01 * k, -0.8}, qd[3] = {0.0, 1.0, 0.01 * k};
    j->ok &= lg_eval_accel(j->s, 0.0, q, qd, NULL, j->qdd + 3 * k, NULL, NULL) == LG_OK;
  }
  return NULL;
}

static void test_threads_mixed(void) {
  lg_system *s = derive_text("bowl.lag", BOWL, LG_KANE);
  job a = {.s = s}, b = {.s = s}, c = {.s = s}, ref = {.s = s};
  pthread_t ta, tb, tc;
  CHECK(pthread_create(&ta, NULL, evaluate_bowl, &a) == 0);
  CHECK(pthread_create(&tb, NULL, simulate_twice, &b) == 0);
  CHECK(pthread_create(&tc, NULL, print_and_generate, &c) == 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  pthread_join(tc, NULL);
  evaluate_bowl(&ref);
  CHECK(a.ok && b.ok && c.ok && ref.ok);
  CHECK(memcmp(a.qdd, ref.qdd, 300 * sizeof *a.qdd) == 0);
  CHECK(b.qdd[0] == b.qdd[1]); /* the same run twice */
  lg_system_free(s);
}

/* ---- out of memory ---------------------------------------------------------------------- */
/* Make the k-th allocation fail for k = 0, 1, ... until the call succeeds:
 * every failing run must be LG_ERR_NOMEM with the diagnostic saying so. */
typedef lg_status (*entry_fn)(void *ud, lg_diag *d);

static void fault_inject(const char *what, entry_fn f, void *ud) {
  int wrong = 0;
  long k;
  for (k = 0; k < 200000; k++) {
    lg_diag d = {0};
    lg_alloc_fail_after(k);
    lg_status st = f(ud, k % 2 ? &d : NULL);
    lg_alloc_fail_after(-1);
    if (st == LG_OK) break;
    if (st != LG_ERR_NOMEM || (k % 2 && (d.status != LG_ERR_NOMEM ||
                                         !strstr(lg_diag_text(&d), "out of memory")))) {
      if (!wrong++)
        fprintf(stderr, "%s: allocation %ld failed: status %d (%s)\n", what, k, (int)st,
                lg_diag_text(&d));
    }
  }
  CHECK(wrong == 0);
  CHECK(k > 0 && k < 200000);
  if (getenv("LG_TEST_VERBOSE")) fprintf(stderr, "%s: %ld allocations\n", what, k);
}

typedef struct ctx {
  const char *text;
  const char *path;
  lg_method method;
  lg_system *s;
  lg_format fmt;
  lg_code_lang lang;
} ctx;

static lg_status do_load(void *ud, lg_diag *d) {
  ctx *c = ud;
  lg_model *m = NULL;
  lg_status st = c->path ? lg_model_load_file(c->path, &m, d)
                         : lg_model_load_string("x.lag", c->text, strlen(c->text), &m, d);
  CHECK((st == LG_OK) == (m != NULL));
  lg_model_free(m);
  return st;
}

static lg_model *loaded;

static lg_status do_derive_only(void *ud, lg_diag *d) {
  ctx *c = ud;
  lg_system *s = NULL;
  lg_status st = lg_derive(loaded, c->method, &s, d);
  CHECK((st == LG_OK) == (s != NULL));
  lg_system_free(s);
  return st;
}

static lg_status do_eval(void *ud, lg_diag *d) {
  ctx *c = ud;
  double q[3] = {0.6, 0.1, -0.8}, qd[3] = {0.1, 1, 0.2}, out[3], lam[3], M[81], cf[3];
  lg_eval_result r = {.qdd = out, .lam = lam, .mass_matrix_full = M, .constraint_forces = cf};
  lg_status a = lg_eval_accel(c->s, 0.0, q, qd, NULL, out, lam, d);
  if (a != LG_OK) return a;
  return lg_eval(c->s, 0.0, q, qd, NULL, &r, d);
}

static lg_status do_simulate(void *ud, lg_diag *d) {
  ctx *c = ud;
  lg_sim_options o;
  lg_sim_options_default(c->s, &o);
  o.tf = o.t0 + 0.02;
  return lg_simulate(c->s, &o, NULL, NULL, NULL, NULL, NULL, NULL, d);
}

static lg_status do_linearize(void *ud, lg_diag *d) {
  ctx *c = ud;
  size_t state[6];
  double A[36], x0[6], B[6], r0[1];
  lg_linearization L = {.state = state, .A = A, .x0 = x0, .B = B, .r0 = r0};
  return lg_linearize(c->s, 0, NULL, NULL, NULL, NULL, &L, d);
}

static lg_status do_print(void *ud, lg_diag *d) {
  ctx *c = ud;
  char *out = NULL;
  lg_status st = lg_print(c->s, c->fmt, &out, d);
  CHECK((st == LG_OK) == (out != NULL));
  lg_string_free(out);
  return st;
}

static lg_status do_codegen(void *ud, lg_diag *d) {
  ctx *c = ud;
  char *src = NULL, *hdr = NULL;
  lg_status st = lg_codegen(c->s, c->lang, "m", &src, &hdr, d);
  CHECK((st == LG_OK) == (src != NULL));
  lg_string_free(src);
  lg_string_free(hdr);
  return st;
}

static void test_out_of_memory(const char *name, const char *text, lg_method method) {
  char what[64];
  ctx c = {.text = text, .method = method};
  snprintf(what, sizeof what, "%s load_string", name);
  fault_inject(what, do_load, &c);
  CHECK(lg_model_load_string("x.lag", text, strlen(text), &loaded, NULL) == LG_OK);
  snprintf(what, sizeof what, "%s derive", name);
  fault_inject(what, do_derive_only, &c);
  CHECK(lg_derive(loaded, method, &c.s, NULL) == LG_OK);
  snprintf(what, sizeof what, "%s eval", name);
  fault_inject(what, do_eval, &c);
  snprintf(what, sizeof what, "%s simulate", name);
  fault_inject(what, do_simulate, &c);
  snprintf(what, sizeof what, "%s linearize", name);
  fault_inject(what, do_linearize, &c);
  for (c.fmt = LG_FORMAT_TEXT; c.fmt <= LG_FORMAT_JSON; c.fmt++) {
    snprintf(what, sizeof what, "%s print %d", name, (int)c.fmt);
    fault_inject(what, do_print, &c);
  }
  c.lang = LG_CODE_C;
  snprintf(what, sizeof what, "%s codegen", name);
  fault_inject(what, do_codegen, &c);
  lg_system_free(c.s);
  lg_model_free(loaded);
}

static void test_load_file_oom(void) {
  char path[] = "/tmp/lg-test-api-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  FILE *f = fdopen(fd, "w");
  fputs(SPRING, f);
  fclose(f);
  ctx c = {.path = path};
  fault_inject("load_file", do_load, &c);
  remove(path);
}

int main(void) {
  test_version();
  test_cart_pendulum(LG_LAGRANGE);
  test_cart_pendulum(LG_KANE);
  test_constrained();
  test_errors();
  test_simulate();
  test_linearize(LG_LAGRANGE);
  test_linearize(LG_KANE);
  test_linearize_constrained();
  test_print_codegen();
  test_threads(LG_LAGRANGE);
  test_threads(LG_KANE);
  test_threads_mixed();
  test_load_file_oom();
  test_out_of_memory("spring", SPRING, LG_LAGRANGE);
  test_out_of_memory("spring kane", SPRING, LG_KANE);
  test_out_of_memory("bowl", BOWL, LG_LAGRANGE);
  test_out_of_memory("bowl kane", BOWL, LG_KANE);
  test_out_of_memory("cart kane", CART, LG_KANE);
  return tu_summary("test_api");
}
