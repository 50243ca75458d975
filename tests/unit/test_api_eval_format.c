/* test_api_eval_format.c - lg_eval_format, `lagrange eval`'s report from
 * the library: the text and JSON against lg_eval's values, Kane's speeds
 * (given, from the model's `initial` statement, dependent ones checked),
 * the dependent speeds chosen again where the initial choice is singular
 * (with its note), the usage errors, and every allocation failing in turn
 * (LG_ERR_NOMEM, nothing leaked: LSan). The command's output against this
 * entry byte for byte: tests/cli/test_parity_eval.py. */
#include "lagrange.h"
#include "lg_base.h"
#include "test_models.h"
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* speeds declared, dependent ones first (tests/cli/models/rolling_disk_speeds.lag) */
static const char DISK[] =
    "coordinates x y psi phi\n"
    "speeds ux uy w s\n"
    "parameters m = 2, R = 0.3, Ia = 0.09, It = 0.045\n"
    "kinematics x' = ux, y' = uy, psi' = w, phi' = s\n"
    "frame N\n"
    "frame A = rotate(N, N.z, psi)\n"
    "frame B = rotate(A, A.y, phi)\n"
    "point O\n"
    "point C = O + x*N.x + y*N.y\n"
    "body B mass m at C inertia (It, Ia, It)\n"
    "torque B: -0.1*w*N.z\n"
    "constraint x' - R*phi'*cos(psi)\n"
    "constraint y' - R*phi'*sin(psi)\n"
    "initial psi = 0.3, psi' = 0.7, phi' = 1\n";

/* the initial speeds define the initial velocities (u2 = 0.5: theta' = 1) */
static const char KINIT[] =
    "coordinates x theta\nspeeds u1 u2\nparameters m = 1, M = 0.5, l = 0.8, g = 9.81\n"
    "kinematics x' = u1, theta' = 2*u2\nframe N\nframe A = rotate(N, N.z, -theta)\n"
    "point O\npoint C = O + x*N.x\npoint P = C + l*A.y\nparticle C mass m\n"
    "particle P mass M\ngravity -g*N.y\ninitial theta = 0.1, u2 = 0.5\n";

static int starts(const char *s, const char *prefix) {
  return s && !strncmp(s, prefix, strlen(prefix));
}

static char *report(const lg_system *s, const lg_eval_state *x, lg_format fmt, char **note,
                    lg_diag *d) {
  char *out = NULL;
  lg_status st = lg_eval_format(s, x, NULL, fmt, &out, note, d);
  CHECK((st == LG_OK) == (out != NULL));
  return out;
}

static void put(lg_str *o, const char *name, const char *suffix, double x, const char *end) {
  char b[LG_DOUBLE_CHARS];
  lg_str_printf(o, "%s%s = %s%s", name, suffix, lg_fmt_double(b, x), end);
}

/* Lagrange's text, line by line from lg_eval's values */
static void test_lagrange_text(void) {
  lg_system *s = derive_text("cart.lag", CART, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  double q[2] = {0.2, 0.3}, qd[2] = {-0.5, 0.25}, qdd[2], T, V;
  lg_eval_result r = {.qdd = qdd, .T = &T, .V = &V};
  CHECK(lg_eval(s, 1.5, q, qd, NULL, &r, NULL) == LG_OK);
  lg_str want;
  lg_str_init(&want);
  put(&want, "t", "", 1.5, "\n");
  for (int i = 0; i < 2; i++) {
    const char *c = lg_coordinate_name(s, (size_t)i);
    put(&want, c, "", q[i], ", ");
    put(&want, c, "'", qd[i], ", ");
    put(&want, c, "''", qdd[i], "\n");
  }
  put(&want, "T", "", T, "\n");
  put(&want, "V", "", V, "\n");
  lg_eval_state x = {.t = 1.5, .q = q, .qd = qd};
  char *note = (char *)"unset";
  char *got = report(s, &x, LG_FORMAT_TEXT, &note, NULL);
  CHECK_STR(got, want.s);
  CHECK(note == NULL);
  lg_string_free(got);
  /* JSON: the keys in the command's order, the values as lg_eval's */
  got = report(s, &x, LG_FORMAT_JSON, NULL, NULL);
  CHECK(starts(got, "{\n  \"coordinates\": [\"x\", \"theta\"],\n  \"multipliers\": [],\n"
                    "  \"t\": 1.5,\n  \"q\": [0.2, 0.3],\n  \"qd\": [-0.5, 0.25],\n"));
  char b[LG_DOUBLE_CHARS], key[80];
  snprintf(key, sizeof key, "\"qdd\": [%s, ", lg_fmt_double(b, qdd[0]));
  CHECK(got && strstr(got, key));
  CHECK(got && strstr(got, "\"constraint_residuals\": []\n}\n"));
  lg_string_free(got);
  /* NULL state: the initial state at t = 0 */
  got = report(s, NULL, LG_FORMAT_TEXT, NULL, NULL);
  CHECK(starts(got, "t = 0\nx = 0, x' = 0, x'' = ") && strstr(got, "theta = 0.1, "));
  lg_string_free(got);
  lg_free(want.s);
  lg_system_free(s);
}

static void test_kane(void) {
  lg_system *s = derive_text("cart.lag", CART, LG_KANE);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(lg_ndependent_speeds(s) == 0 && lg_dependent_speed_name(s, 0) == NULL);
  double q[2] = {0.2, 0.3}, qd[2] = {-0.5, 0.25}, qdd[2];
  CHECK(lg_eval_accel(s, 0, q, qd, NULL, qdd, NULL, NULL) == LG_OK);
  lg_eval_state x = {.q = q, .qd = qd};
  char *text = report(s, &x, LG_FORMAT_TEXT, NULL, NULL);
  char *json = report(s, &x, LG_FORMAT_JSON, NULL, NULL);
  CHECK(text && json && !strcmp(text, json)); /* Kane's report is JSON either way */
  CHECK(starts(json, "{\n  \"method\": \"kane\",\n  \"coordinates\": [\"x\", \"theta\"],\n"
                     "  \"speeds\": [\"x'\", \"theta'\"],\n"));
  char b[LG_DOUBLE_CHARS], key[80];
  snprintf(key, sizeof key, "\"qdd\": [%s, ", lg_fmt_double(b, qdd[0]));
  CHECK(json && strstr(json, key));
  CHECK(json && strstr(json, "\"dependent_speeds\": [],\n  \"udep\": [],\n  \"lam\": null,"));
  lg_string_free(text);
  lg_string_free(json);
  lg_system_free(s);

  /* the model's initial speeds define the velocities; given ones override */
  s = derive_text("kinit.lag", KINIT, LG_KANE);
  CHECK(s != NULL);
  if (!s) return;
  json = report(s, NULL, LG_FORMAT_JSON, NULL, NULL);
  CHECK(json && strstr(json, "\"qd\": [0, 1],") && strstr(json, "\"u\": [0, 0.5],"));
  lg_string_free(json);
  double u[2] = {NAN, 0.25};
  lg_eval_state xu = {.u = u};
  json = report(s, &xu, LG_FORMAT_JSON, NULL, NULL);
  CHECK(json && strstr(json, "\"qd\": [0, 0.5],") && strstr(json, "\"u\": [0, 0.25],"));
  lg_string_free(json);
  lg_system_free(s);
}

static void test_dependent(void) {
  lg_system *s = derive_text("disk.lag", DISK, LG_KANE);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(lg_ndependent_speeds(s) == 2);
  CHECK_STR(lg_dependent_speed_name(s, 0), "ux");
  CHECK_STR(lg_dependent_speed_name(s, 1), "uy");
  CHECK(lg_dependent_speed_name(s, 2) == NULL);
  double q[4] = {0, 0, 0.3, 0}, u[4] = {0.7, 1}, udep[2] = {0.3 * cos(0.3), NAN};
  lg_eval_state x = {.q = q, .u = u, .udep = udep};
  lg_diag d = {0};
  char *json = report(s, &x, LG_FORMAT_JSON, NULL, &d);
  CHECK(json && strstr(json, "\"speeds\": [\"w\", \"s\"],") &&
        strstr(json, "\"dependent_speeds\": [\"ux\", \"uy\"],"));
  lg_string_free(json);
  udep[0] += 0.5; /* inconsistent with the constraints */
  json = report(s, &x, LG_FORMAT_JSON, NULL, &d);
  CHECK(json == NULL && d.status == LG_ERR_MODEL);
  CHECK(strstr(d.message, "`state` gives the dependent speed ux = ") != NULL);
  CHECK(strstr(lg_diag_text(&d), "disk.lag:1:1: ") == lg_diag_text(&d));
  lg_system_free(s);
  /* Lagrange's method has no dependent speeds */
  s = derive_text("disk.lag", DISK, LG_LAGRANGE);
  CHECK(s && lg_ndependent_speeds(s) == 0);
  lg_system_free(s);
}

/* The bowl's q3' (dependent, chosen at q3 = -0.8) cannot be solved where
 * q3 = 0: chosen there instead, with a note; q'' as Lagrange's. */
static void test_chosen_elsewhere(void) {
  lg_system *s = derive_text("bowl.lag", BOWL, LG_KANE), *l = derive_text("bowl.lag", BOWL,
                                                                           LG_LAGRANGE);
  CHECK(s && l);
  if (s && l) {
    double q[3] = {1, 0, 0}, qd[3] = {0, 1, 0.5}, qk[3], ql[3];
    lg_eval_state x = {.q = q, .qd = qd};
    char *note = NULL;
    char *json = report(s, &x, LG_FORMAT_JSON, &note, NULL);
    CHECK(json && !strstr(json, "\"dependent_speeds\": [\"q3'\"]"));
    CHECK(note && strstr(note, "bowl.lag:1:1: note: the dependent speeds q3' chosen at the "
                               "initial state cannot be solved at this state; evaluated with ") ==
                      note);
    /* q'' as Lagrange's (lg_eval_accel, the fixed choice, fails there) */
    CHECK(lg_eval_accel(l, 0, q, qd, NULL, ql, NULL, NULL) == LG_OK);
    const char *at = json ? strstr(json, "\"qdd\": [") : NULL;
    CHECK(at && sscanf(at, "\"qdd\": [%lf, %lf, %lf]", &qk[0], &qk[1], &qk[2]) == 3);
    for (int i = 0; at && i < 3; i++) CHECK_NEAR(qk[i], ql[i], 1e-10);
    lg_string_free(json);
    lg_string_free(note);
    /* a note is never left behind by a failure */
    note = (char *)"unset";
    CHECK(lg_eval_format(s, &x, NULL, LG_FORMAT_LATEX, &json, &note, NULL) == LG_ERR_USAGE);
    CHECK(note == NULL && json == NULL);
  }
  lg_system_free(s);
  lg_system_free(l);
}

/* Threads on one system: the usual path and the choice at the state (under
 * the system's lock) at once give what one thread gets. */
typedef struct job {
  const lg_system *s;
  const char *want[2];
  int bad;
} job;

static void *worker(void *ud) {
  job *j = ud;
  double q[2][3] = {{0.6, 0.1, -0.8}, {1, 0, 0}}, qd[3] = {0, 1, 0.5};
  for (int k = 0; k < 20; k++) {
    lg_eval_state x = {.q = q[k % 2], .qd = qd};
    char *out = NULL;
    if (lg_eval_format(j->s, &x, NULL, LG_FORMAT_JSON, &out, NULL, NULL) != LG_OK ||
        !out || strcmp(out, j->want[k % 2]))
      j->bad++;
    lg_string_free(out);
  }
  return NULL;
}

static void test_threads(void) {
  lg_system *s = derive_text("bowl.lag", BOWL, LG_KANE);
  CHECK(s != NULL);
  if (!s) return;
  double q[2][3] = {{0.6, 0.1, -0.8}, {1, 0, 0}}, qd[3] = {0, 1, 0.5};
  char *want[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    lg_eval_state x = {.q = q[i], .qd = qd};
    CHECK(lg_eval_format(s, &x, NULL, LG_FORMAT_JSON, &want[i], NULL, NULL) == LG_OK);
  }
  if (want[0] && want[1]) {
    job jobs[3];
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
      jobs[i] = (job){s, {want[0], want[1]}, 0};
      CHECK(pthread_create(&th[i], NULL, worker, &jobs[i]) == 0);
    }
    for (int i = 0; i < 3; i++) {
      pthread_join(th[i], NULL);
      CHECK(jobs[i].bad == 0);
    }
  }
  lg_string_free(want[0]);
  lg_string_free(want[1]);
  lg_system_free(s);
}

static void test_errors(void) {
  char *out = (char *)"unset";
  lg_diag d = {0};
  CHECK(lg_eval_format(NULL, NULL, NULL, LG_FORMAT_TEXT, &out, NULL, &d) == LG_ERR_USAGE);
  CHECK(out == NULL && d.status == LG_ERR_USAGE);
  lg_system *s = derive_text("cart.lag", CART, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(lg_eval_format(s, NULL, NULL, LG_FORMAT_TEXT, NULL, NULL, NULL) == LG_ERR_USAGE);
  CHECK(lg_eval_format(s, NULL, NULL, (lg_format)7, &out, NULL, NULL) == LG_ERR_USAGE);
  lg_system_free(s);
  /* a parameter without a value: p is needed */
  static const char NOVAL[] = "coordinates x\nparameters m, k = 2\nT = 1/2*m*x'^2\n"
                              "V = 1/2*k*x^2\n";
  s = derive_text("noval.lag", NOVAL, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(lg_eval_format(s, NULL, NULL, LG_FORMAT_TEXT, &out, NULL, &d) == LG_ERR_MODEL);
  CHECK_STR(lg_diag_text(&d), "noval.lag:2:12: parameter 'm' has no value (give it one in the "
                              "model ('m = 1') or in the call's parameters (`set` m=1))");
  CHECK(lg_check_params(s, NULL, &d) == LG_ERR_MODEL && d.line == 2);
  double p[2] = {2, 8};
  CHECK(lg_check_params(s, p, &d) == LG_OK);
  CHECK(lg_check_params(NULL, p, &d) == LG_ERR_USAGE);
  CHECK(lg_eval_format(s, NULL, p, LG_FORMAT_TEXT, &out, NULL, &d) == LG_OK);
  CHECK(out && strstr(out, "x'' = -0\n") != NULL);
  lg_string_free(out);
  lg_system_free(s);
  /* a parameter without a value that the equations do not use is not needed */
  static const char UNUSED[] = "coordinates x\nparameters m = 1, c\nT = 1/2*m*x'^2\n";
  s = derive_text("unused.lag", UNUSED, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(lg_eval_format(s, NULL, NULL, LG_FORMAT_TEXT, &out, NULL, &d) == LG_OK);
  CHECK_STR(out, "t = 0\nx = 0, x' = 0, x'' = 0\nT = 0\nV = 0\n");
  lg_string_free(out);
  /* a singular mass matrix: LG_ERR_NUMERIC at the coordinates */
  static const char SING[] = "coordinates x y\nT = 1/2*(x' + y')^2\nV = x^2\n";
  lg_system_free(s);
  s = derive_text("sing.lag", SING, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(lg_eval_format(s, NULL, NULL, LG_FORMAT_JSON, &out, NULL, &d) == LG_ERR_NUMERIC);
  CHECK(out == NULL && d.line == 1);
  lg_system_free(s);
}

/* ---- out of memory ---------------------------------------------------------------------- */
typedef struct oom {
  const lg_system *s;
  lg_eval_state x;
  lg_format fmt;
} oom;

static void fault_inject(const char *what, oom *c) {
  int wrong = 0;
  long k;
  for (k = 0; k < 200000; k++) {
    lg_diag d = {0};
    char *out = NULL, *note = NULL;
    lg_alloc_fail_after(k);
    lg_status st = lg_eval_format(c->s, &c->x, NULL, c->fmt, &out, &note, k % 2 ? &d : NULL);
    lg_alloc_fail_after(-1);
    lg_string_free(out);
    lg_string_free(note);
    if (st == LG_OK) break;
    if (st != LG_ERR_NOMEM || out || note ||
        (k % 2 && (d.status != LG_ERR_NOMEM || !strstr(lg_diag_text(&d), "out of memory")))) {
      if (!wrong++)
        fprintf(stderr, "%s: allocation %ld failed: status %d (%s)\n", what, k, (int)st,
                lg_diag_text(&d));
    }
  }
  CHECK(wrong == 0);
  CHECK(k > 0 && k < 200000);
}

static void test_out_of_memory(void) {
  static const struct {
    const char *name, *text;
    lg_method method;
    lg_format fmt;
  } cases[] = {{"cart", CART, LG_LAGRANGE, LG_FORMAT_TEXT},
               {"cart json", CART, LG_LAGRANGE, LG_FORMAT_JSON},
               {"bowl json", BOWL, LG_LAGRANGE, LG_FORMAT_JSON},
               {"cart kane", CART, LG_KANE, LG_FORMAT_JSON},
               {"disk kane", DISK, LG_KANE, LG_FORMAT_JSON}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    lg_system *s = derive_text(cases[i].name, cases[i].text, cases[i].method);
    CHECK(s != NULL);
    if (!s) continue;
    oom c = {.s = s, .fmt = cases[i].fmt};
    fault_inject(cases[i].name, &c);
    lg_system_free(s);
  }
}

/* The choice at the state under failing allocations: a fresh system each
 * time (a failure inside the symbolic context may spoil it for later
 * choices, as for lg_print). */
static void test_out_of_memory_elsewhere(void) {
  double q[3] = {1, 0, 0}, qd[3] = {0, 1, 0.5};
  int wrong = 0;
  long k;
  for (k = 0; k < 100000; k++) {
    lg_system *s = derive_text("bowl.lag", BOWL, LG_KANE);
    if (!s) break;
    lg_diag d = {0};
    char *out = NULL, *note = NULL;
    lg_eval_state x = {.q = q, .qd = qd};
    lg_alloc_fail_after(k);
    lg_status st = lg_eval_format(s, &x, NULL, LG_FORMAT_JSON, &out, &note, &d);
    lg_alloc_fail_after(-1);
    int done = st == LG_OK && out && note;
    lg_string_free(out);
    lg_string_free(note);
    lg_system_free(s);
    if (done) break;
    if (st != LG_ERR_NOMEM && !wrong++)
      fprintf(stderr, "bowl elsewhere: allocation %ld failed: status %d (%s)\n", k, (int)st,
              lg_diag_text(&d));
  }
  CHECK(wrong == 0);
  CHECK(k > 0 && k < 100000);
}

int main(void) {
  test_lagrange_text();
  test_kane();
  test_dependent();
  test_chosen_elsewhere();
  test_threads();
  test_errors();
  test_out_of_memory();
  test_out_of_memory_elsewhere();
  return tu_summary("test_api_eval_format");
}
