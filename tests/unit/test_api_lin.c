/* test_api_lin.c - the linearize and equilibria entries of lagrange.h:
 * lg_linearize_format (text, JSON, symbolic; the completed point of a
 * constrained model; notes; a given value off the constraints), lg_linearize
 * with Kane's own speeds, lg_equilibria (points in order, stability,
 * eigenvalues in closed form, free coordinates, the box, equations that
 * depend on t) and lg_equilibria_format; bad calls. */
#include "lagrange.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* The pendulum: equilibria at 0 (marginal, +-i sqrt(g/l)) and pi. */
static const char PENDULUM[] =
    "coordinates th\n"
    "parameters m = 1, l = 2, g = 9.81\n"
    "frame N\n"
    "frame A = rotate(N, N.z, th)\n"
    "point O\n"
    "point P = O - l*A.y\n"
    "particle P mass m\n"
    "gravity -g*N.y\n"
    "initial th = 0.3\n";

/* A cart (cyclic x) carrying the pendulum. */
static const char CART[] =
    "coordinates x th\n"
    "parameters m = 1, M = 2, l = 1, g = 9.81\n"
    "frame N\n"
    "frame A = rotate(N, N.z, th)\n"
    "point O\n"
    "point C = O + x*N.x\n"
    "point P = C - l*A.y\n"
    "particle C mass M\n"
    "particle P mass m\n"
    "gravity -g*N.y\n";

/* A particle on a sphere of radius 1: z dependent. */
static const char BOWL[] =
    "coordinates x y z\n"
    "parameters m = 1, g = 9.81\n"
    "frame N\n"
    "point O\n"
    "point P = O + x*N.x + y*N.y + z*N.z\n"
    "particle P mass m\n"
    "gravity -g*N.z\n"
    "constraint x^2 + y^2 + z^2 = 1\n"
    "initial x = 0.6, z = -0.8\n";

/* Kapitza's pendulum: the pivot at a*cos(w*t). */
static const char KAPITZA[] =
    "coordinates th\n"
    "parameters m = 1, l = 1, g = 9.81, a = 0.05, w = 200\n"
    "frame N\n"
    "point O\n"
    "point S = O + a*cos(w*t)*N.y\n"
    "point P = S + l*sin(th)*N.x - l*cos(th)*N.y\n"
    "particle P mass m\n"
    "gravity -g*N.y\n";

/* A free spinning body with its own speeds (Kane: x = [q; u]). */
static const char SPEEDS[] =
    "coordinates th\n"
    "speeds w\n"
    "parameters I = 2, c = 0.5\n"
    "kinematics th' = w\n"
    "frame N\n"
    "frame A = rotate(N, N.z, th)\n"
    "point O\n"
    "body A mass 1 at O inertia (1, 1, I)\n"
    "torque A: -c*w*N.z\n"
    "initial th' = 1\n";

static lg_system *derive(const char *name, const char *text, lg_method method) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  lg_diag d;
  if (lg_model_load_string(name, text, strlen(text), &m, &d) != LG_OK ||
      lg_derive(m, method, &s, &d) != LG_OK)
    fprintf(stderr, "%s\n", lg_diag_text(&d));
  lg_model_free(m);
  return s;
}

static void test_format_text(void) {
  lg_system *s = derive("pendulum.lag", PENDULUM, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  lg_lin_options o;
  lg_lin_options_default(&o);
  CHECK(o.size == sizeof o && o.q == NULL && !o.symbolic);
  double q[1] = {0}, qd[1] = {NAN};
  o.q = q;
  o.qd = qd;
  char *text = NULL, *notes = NULL;
  lg_diag d;
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_TEXT, &text, &notes, &d) == LG_OK);
  /* th'' = -(g/l) th: A = [[0, 1], [-4.905, 0]], eigenvalues +-i sqrt(4.905) */
  CHECK(text && strstr(text, "state: th, th'\nx0: 0, 0\ninputs: (none)\n\nA (2 x 2):\n"
                             "  [0, 1]\n  [-4.905, 0]\n") != NULL);
  CHECK(text && strstr(text, "B (2 x 0): the model has no inputs\n") != NULL);
  CHECK(text && strstr(text, "natural frequency 2.21472 rad/s, damping ratio ") != NULL);
  CHECK(notes && notes[0] == 0); /* an equilibrium: nothing to say */
  lg_string_free(text);
  lg_string_free(notes);
  /* at the initial state (th = 0.3): not an equilibrium */
  lg_lin_options_default(&o);
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_JSON, &text, &notes, &d) == LG_OK);
  CHECK(text && strstr(text, "{\n  \"state\": [\"th\", \"th'\"],\n  \"inputs\": [],\n"
                              "  \"dependent\": [],\n  \"x0\": [0.3, 0],\n") == text);
  CHECK(text && strstr(text, "\"modes\": [\n    {\"natural_frequency\": ") != NULL);
  CHECK(notes && strstr(notes, "pendulum.lag: warning: the operating point is not an "
                               "equilibrium") == notes && strstr(notes, "th'' = ") != NULL);
  lg_string_free(text);
  lg_string_free(notes);
  /* notes not wanted; symbolic in every format */
  o.symbolic = 1;
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_TEXT, &text, NULL, &d) == LG_OK);
  CHECK(text && strncmp(text, "state: th, th'\n", 15) == 0 && strstr(text, "A (2 x 2)"));
  lg_string_free(text);
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_LATEX, &text, NULL, &d) == LG_OK);
  CHECK(text && strstr(text, "\\begin{bmatrix}") != NULL);
  lg_string_free(text);
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_JSON, &text, NULL, &d) == LG_OK);
  CHECK(text && strstr(text, "\"parameters\": {\"m\": 1, \"l\": 2, \"g\": 9.81}") != NULL);
  lg_string_free(text);
  /* bad calls: LaTeX without symbolic, options without size, no output */
  o.symbolic = 0;
  text = (char *)1;
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_LATEX, &text, &notes, &d) == LG_ERR_USAGE);
  CHECK(text == NULL && notes == NULL);
  o.size = 0;
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_TEXT, &text, NULL, &d) == LG_ERR_USAGE);
  lg_lin_options_default(&o);
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_TEXT, NULL, NULL, &d) == LG_ERR_USAGE);
  CHECK(lg_linearize_format(NULL, &o, LG_FORMAT_TEXT, &text, NULL, NULL) == LG_ERR_USAGE);
  lg_system_free(s);
}

static void test_format_constrained(void) {
  lg_system *s = derive("bowl.lag", BOWL, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  lg_lin_options o;
  lg_lin_options_default(&o);
  double q[3] = {0.3, 0.2, NAN}, qd[3] = {NAN, NAN, NAN};
  o.q = q;
  o.qd = qd;
  char *text = NULL, *notes = NULL;
  lg_diag d;
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_TEXT, &text, &notes, &d) == LG_OK);
  /* z solved onto the sphere from the initial -0.8: -sqrt(1 - 0.13) */
  const char *want = "  q: x = 0.3, y = 0.2, z = -0.93273790530888";
  CHECK(text && strstr(text, "operating point (completed onto the constraints):\n") != NULL);
  const char *z = text ? strstr(text, want) : NULL;
  CHECK(z != NULL);
  CHECK(z && fabs(strtod(z + 27, NULL) + sqrt(0.87)) < 1e-15);
  CHECK(z && strncmp(strchr(z + 27, ' '), " (dependent)\n", 13) == 0);
  CHECK(text && strstr(text, "  q': x' = 0, y' = 0, z' = 0 (dependent)\n") != NULL);
  CHECK(text && strstr(text, "  branch: z solved by Newton's method from z = -0.8 ") != NULL);
  CHECK(notes && strstr(notes, "not an equilibrium") != NULL);
  lg_string_free(text);
  lg_string_free(notes);
  /* a given dependent value off the constraints: LG_ERR_MODEL naming it */
  q[2] = 0.5;
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_TEXT, &text, &notes, &d) == LG_ERR_MODEL);
  CHECK(text == NULL && notes == NULL);
  CHECK(strstr(d.message, "z = 0.5 is given") != NULL && strstr(d.hint, "`at`") != NULL);
  CHECK(d.line > 0 && strcmp(d.file, "bowl.lag") == 0);
  /* consistent: accepted */
  q[2] = -sqrt(0.87);
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_JSON, &text, NULL, &d) == LG_OK);
  CHECK(text && strstr(text, "\"dependent\": [\"z\", \"z'\"]") != NULL);
  lg_string_free(text);
  lg_system_free(s);
}

static void test_kane_speeds(void) {
  lg_system *s = derive("speeds.lag", SPEEDS, LG_KANE);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(lg_kane_own_state(s) == 1 && lg_nu(s) == 1);
  size_t state[2];
  double A[4], x0[2];
  lg_linearization L = {.state = state, .A = A, .x0 = x0};
  lg_diag d;
  CHECK(lg_linearize(s, 0, NULL, NULL, NULL, NULL, &L, &d) == LG_OK);
  /* x = [th; w]: th' = w, w' = -(c/I) w */
  CHECK(L.nx == 2 && state[0] == 0 && state[1] == 2 * 1 + 0);
  CHECK_STR(lg_speed_name(s, state[1] - 2), "w");
  CHECK_NEAR(A[0 * 2 + 1], 1.0, 1e-14);
  CHECK_NEAR(A[1 * 2 + 1], -0.25, 1e-14);
  CHECK_NEAR(A[1 * 2 + 0], 0.0, 1e-14);
  CHECK_NEAR(x0[1], 1.0, 1e-15);
  lg_lin_options o;
  lg_lin_options_default(&o);
  char *text = NULL;
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_TEXT, &text, NULL, &d) == LG_OK);
  CHECK(text && strncmp(text, "state: th, w\nx0: 0, 1\n", 22) == 0);
  lg_string_free(text);
  o.symbolic = 1;
  CHECK(lg_linearize_format(s, &o, LG_FORMAT_TEXT, &text, NULL, &d) == LG_ERR_USAGE);
  CHECK(strstr(d.message, "speeds") != NULL);
  lg_system_free(s);
}

static void test_equilibria(void) {
  lg_system *s = derive("cart.lag", CART, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  lg_equilibria_result *r = NULL;
  lg_diag d;
  CHECK(lg_equilibria(s, NULL, &r, &d) == LG_OK);
  CHECK(r && r->n == 2 && r->count == 2 && !r->time_dependent && r->warning == NULL);
  if (r && r->count == 2) {
    CHECK(r->free[0] == 1 && r->free[1] == 0); /* x is cyclic */
    CHECK(r->lo[0] == -10 && r->hi[0] == 10);
    CHECK_NEAR(r->lo[1], -PI, 1e-15);
    /* in order of q: th = 0, then pi */
    CHECK_NEAR(r->points[0].q[1], 0.0, 1e-12);
    CHECK_NEAR(r->points[1].q[1], PI, 1e-12);
    CHECK_STR(r->points[0].stability, "marginal");
    CHECK_STR(r->points[1].stability, "unstable");
    CHECK(r->points[0].neig == 4 && r->points[0].family_dim == 0);
    /* the bottom: w^2 = (M + m) g / (M l) */
    double w = sqrt(3 * 9.81 / 2), big = 0;
    for (size_t i = 0; i < r->points[0].neig; i++)
      big = fmax(big, fabs(r->points[0].eig_im[i]));
    CHECK_NEAR(big, w, 1e-10);
  }
  char *text = NULL;
  CHECK(lg_equilibria_format(s, r, LG_FORMAT_TEXT, &text, &d) == LG_OK);
  CHECK(text && strncmp(text, "free: x\nequilibria:\n  x = 0, th = 0: marginal\n", 46) == 0);
  lg_string_free(text);
  CHECK(lg_equilibria_format(s, r, LG_FORMAT_JSON, &text, &d) == LG_OK);
  CHECK(text && strstr(text, "{\n  \"coordinates\": [\"x\", \"th\"],\n  \"free\": [\"x\"],\n"
                             "  \"equilibria\": [\n    {\"q\": [0, 0], \"stability\": "
                             "\"marginal\"") == text);
  lg_string_free(text);
  CHECK(lg_equilibria_format(s, r, LG_FORMAT_LATEX, &text, &d) == LG_ERR_USAGE);
  lg_equilibria_free(r);
  /* a box that holds only the top; an empty box */
  lg_equilibria_options o;
  lg_equilibria_options_default(&o);
  CHECK(o.size == sizeof o && o.lo == NULL && o.t == 0);
  double lo[2] = {NAN, 1}, hi[2] = {NAN, 4};
  o.lo = lo;
  o.hi = hi;
  CHECK(lg_equilibria(s, &o, &r, &d) == LG_OK);
  CHECK(r && r->count == 1 && fabs(r->points[0].q[1] - PI) < 1e-12);
  CHECK(lg_equilibria_format(s, r, LG_FORMAT_TEXT, &text, &d) == LG_OK);
  lg_string_free(text);
  lg_equilibria_free(r);
  lo[1] = 4;
  hi[1] = 1;
  r = (lg_equilibria_result *)1;
  CHECK(lg_equilibria(s, &o, &r, &d) == LG_ERR_USAGE && r == NULL);
  CHECK(strstr(d.message, "th") != NULL);
  o.size = 1;
  CHECK(lg_equilibria(s, &o, &r, &d) == LG_ERR_USAGE);
  CHECK(lg_equilibria(NULL, NULL, &r, &d) == LG_ERR_USAGE);
  lg_equilibria_free(NULL);
  lg_system_free(s);
}

static void test_time(void) {
  lg_system *s = derive("kapitza.lag", KAPITZA, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  lg_equilibria_options o;
  lg_equilibria_options_default(&o);
  o.t = 0.3;
  lg_equilibria_result *r = NULL;
  lg_diag d;
  CHECK(lg_equilibria(s, &o, &r, &d) == LG_OK);
  CHECK(r && r->time_dependent && r->t == 0.3 && r->warning);
  CHECK(r && r->warning && strstr(r->warning, "kapitza.lag: warning: the equations depend on t") &&
        strstr(r->warning, "t = 0.3 (`t`)"));
  /* frozen at t: the bottom oscillates at sqrt(g - a w^2 cos(w t)) */
  double rate = sqrt(9.81 - 0.05 * 200 * 200 * cos(200 * 0.3));
  CHECK(r && r->count == 2 && fabs(r->points[0].q[0]) < 1e-12 &&
        fabs(fabs(r->points[0].eig_im[0]) - rate) < 1e-9 * rate);
  lg_equilibria_free(r);
  lg_system_free(s);
  s = derive("pendulum.lag", PENDULUM, LG_KANE);
  CHECK(s && lg_equilibria(s, NULL, &r, &d) == LG_OK && !r->time_dependent && !r->warning);
  lg_equilibria_free(r);
  lg_system_free(s);
}

int main(void) {
  test_format_text();
  test_format_constrained();
  test_kane_speeds();
  test_equilibria();
  test_time();
  return tu_summary("test_api_lin");
}
