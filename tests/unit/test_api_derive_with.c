/* test_api_derive_with.c - the foundation of the thin command line:
 * lg_model_set (--set) for parameters, values that use them, and inputs;
 * lg_derive_with's options (size, lazy compilation, Kane's pivot state);
 * Kane's own speeds; codegen's options and statistics. Every value is
 * checked against a closed form or against the eager, unset path. */
#include "lagrange.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char PENDULUM[] =
    "coordinates th\n"
    "parameters m = 1, l = 2, g = 9.81, I = m*l^2\n"
    "frame N\n"
    "frame A = rotate(N, N.z, th)\n"
    "point O\n"
    "point P = O + l*A.x\n"
    "particle P mass m\n"
    "gravity -g*N.y\n"
    "initial th = 0.3\n";

/* A bead on a wire spun by an input law phi(t) */
static const char BEAD[] =
    "coordinates r\n"
    "parameters m = 0.2, w = 2\n"
    "inputs phi = w*t\n"
    "frame N\n"
    "frame A = rotate(N, N.z, phi)\n"
    "point O\n"
    "point B = O + r*A.x\n"
    "particle B mass m\n"
    "initial r = 0.5\n";

static lg_model *load(const char *text) {
  lg_model *m = NULL;
  lg_diag d;
  if (lg_model_load_string("t.lag", text, strlen(text), &m, &d) != LG_OK)
    fprintf(stderr, "%s\n", lg_diag_text(&d));
  return m;
}

static void test_set(void) {
  lg_model *m = load(PENDULUM);
  CHECK(m != NULL);
  if (!m) return;
  CHECK(lg_model_nq(m) == 1);
  CHECK_STR(lg_model_coordinate_name(m, 0), "th");
  CHECK(lg_model_coordinate_name(m, 1) == NULL);
  lg_diag d;
  CHECK(lg_model_set(m, "nosuch", 1, &d) == LG_ERR_USAGE);
  CHECK(strstr(d.message, "`set` nosuch") != NULL);
  CHECK(lg_model_set(m, "l", 3, &d) == LG_OK);
  CHECK(lg_model_set(m, "l", 0.5, &d) == LG_OK); /* the later value wins */
  lg_system *s = NULL;
  CHECK(lg_derive(m, LG_LAGRANGE, &s, &d) == LG_OK);
  if (s) {
    double p[4];
    lg_default_params(s, p);
    CHECK(p[1] == 0.5);
    CHECK(fabs(p[3] - 0.25) < 1e-15); /* I = m*l^2 follows the set l */
    /* th'' = -(g/l) cos(th) for this pendulum (P at l*A.x, gravity -y) */
    double q = 0.3, qd = 0, qdd = 0;
    CHECK(lg_eval_accel(s, 0, &q, &qd, NULL, &qdd, NULL, &d) == LG_OK);
    CHECK(fabs(qdd + 9.81 / 0.5 * cos(0.3)) < 1e-12);
  }
  lg_system_free(s);
  lg_model_free(m);
}

static void test_input_set(void) {
  lg_model *m = load(BEAD);
  if (!m) { CHECK(0); return; }
  lg_system *a = NULL, *b = NULL;
  CHECK(lg_derive(m, LG_LAGRANGE, &a, NULL) == LG_OK);
  CHECK(lg_model_set(m, "phi", 0.7, NULL) == LG_OK); /* the input becomes a constant */
  CHECK(lg_derive(m, LG_LAGRANGE, &b, NULL) == LG_OK);
  if (a && b) {
    double r = 0.5, rd = 0.1, ra = 0, rb = 0;
    CHECK(lg_eval_accel(a, 1.0, &r, &rd, NULL, &ra, NULL, NULL) == LG_OK);
    CHECK(lg_eval_accel(b, 1.0, &r, &rd, NULL, &rb, NULL, NULL) == LG_OK);
    CHECK(fabs(ra - 4 * 0.5) < 1e-12); /* r'' = w^2 r while spun */
    CHECK(fabs(rb) < 1e-15);           /* a constant angle: no force on the bead */
    char *code = NULL;
    CHECK(lg_codegen(b, LG_CODE_C, "bead", &code, NULL, NULL) == LG_OK);
    lg_string_free(code);
  }
  lg_system_free(a);
  lg_system_free(b);
  lg_model_free(m);
}

static void test_lazy(void) {
  lg_model *m = load(PENDULUM);
  if (!m) { CHECK(0); return; }
  lg_derive_options o;
  lg_derive_options_default(&o);
  CHECK(o.size == sizeof o && o.method == LG_LAGRANGE && !o.lazy);
  lg_system *eager = NULL, *lazy = NULL;
  CHECK(lg_derive_with(m, &o, &eager, NULL) == LG_OK);
  o.lazy = 1;
  CHECK(lg_derive_with(m, &o, &lazy, NULL) == LG_OK);
  if (eager && lazy) {
    CHECK(lg_nq(lazy) == 1 && lg_np(lazy) == 4 && lg_nc(lazy) == 0);
    CHECK_STR(lg_coordinate_name(lazy, 0), "th");
    char *pe = NULL, *pl = NULL;
    CHECK(lg_print(lazy, LG_FORMAT_TEXT, &pl, NULL) == LG_OK);
    CHECK(lg_print(eager, LG_FORMAT_TEXT, &pe, NULL) == LG_OK);
    CHECK(pe && pl && !strcmp(pe, pl));
    lg_string_free(pe);
    lg_string_free(pl);
    size_t rs = lg_eval_record_size(lazy);
    double q = 0.4, qd = -0.2, *ra = calloc(rs, sizeof *ra), *rb = calloc(rs, sizeof *rb);
    CHECK(lg_eval_many(lazy, 1, NULL, &q, &qd, NULL, ra, NULL) == LG_OK);
    CHECK(lg_eval_many(eager, 1, NULL, &q, &qd, NULL, rb, NULL) == LG_OK);
    CHECK(ra && rb && !memcmp(ra, rb, rs * sizeof *ra));
    free(ra);
    free(rb);
  }
  lg_system_free(eager);
  lg_system_free(lazy);
  /* a size of 0 (an uninitialized struct) is refused */
  lg_derive_options bad;
  memset(&bad, 0, sizeof bad);
  lg_system *s = NULL;
  lg_diag d;
  CHECK(lg_derive_with(m, &bad, &s, &d) == LG_ERR_USAGE && s == NULL);
  CHECK(lg_derive_with(m, NULL, &s, &d) == LG_ERR_USAGE && s == NULL);
  lg_model_free(m);
}

/* A rolling disk with speeds of its own under Kane's method: the state is
 * [q; u] and the speeds are named. */
static void test_kane_speeds(void) {
  lg_model *m = NULL;
  lg_diag d;
  if (lg_model_load_file("tests/cli/models/rolling_disk_speeds.lag", &m, &d) != LG_OK) {
    fprintf(stderr, "%s\n", lg_diag_text(&d));
    CHECK(0);
    return;
  }
  lg_system *k = NULL, *l = NULL;
  CHECK(lg_derive(m, LG_KANE, &k, &d) == LG_OK);
  CHECK(lg_derive(m, LG_LAGRANGE, &l, &d) == LG_OK);
  if (k && l) {
    CHECK(lg_kane_own_state(k) == 1);
    CHECK(lg_nu(k) > 0 && lg_nu(k) < lg_nq(k));
    CHECK(lg_speed_name(k, 0) != NULL && lg_speed_name(k, lg_nu(k)) == NULL);
    CHECK(lg_kane_own_state(l) == 0 && lg_nu(l) == 0 && lg_speed_name(l, 0) == NULL);
  }
  lg_system_free(k);
  lg_system_free(l);
  lg_model_free(m);
}

static void test_codegen_with(void) {
  lg_model *m = load(PENDULUM);
  lg_system *s = NULL;
  if (!m || lg_derive(m, LG_LAGRANGE, &s, NULL) != LG_OK) { CHECK(0); lg_model_free(m); return; }
  lg_codegen_options o;
  lg_codegen_options_default(&o);
  o.name = "pend";
  o.functions = "rhs, energy";
  o.header_name = "gen/pend.h";
  char *src = NULL, *hdr = NULL;
  lg_codegen_stats st;
  lg_diag d;
  /* a slash cannot be in the included name */
  CHECK(lg_codegen_with(s, &o, &src, &hdr, &st, &d) == LG_ERR_USAGE && !src && !hdr);
  CHECK(strstr(d.message, "`header_name`") != NULL);
  o.header_name = "pend_gen.h";
  CHECK(lg_codegen_with(s, &o, &src, &hdr, &st, &d) == LG_OK);
  CHECK(src && strstr(src, "#include \"pend_gen.h\"") && strstr(src, "pend_rhs"));
  CHECK(hdr != NULL);
  CHECK(st.n == 2 && !strcmp(st.count[0].function, "rhs") && st.count[0].operations > 0 &&
        !strcmp(st.count[1].function, "energy"));
  lg_string_free(src);
  lg_string_free(hdr);
  CHECK(lg_codegen_check_functions("rhs, nosuch", LG_CODE_C, LG_LAGRANGE, &d) == LG_ERR_USAGE);
  CHECK(lg_codegen_check_functions("rhs_recursive", LG_CODE_PYTHON, LG_LAGRANGE, &d) ==
        LG_ERR_USAGE);
  CHECK(lg_codegen_check_functions("rhs_recursive", LG_CODE_C, LG_LAGRANGE, &d) == LG_OK);
  CHECK(lg_codegen_name_ok("a_1") && !lg_codegen_name_ok("1a") && !lg_codegen_name_ok(NULL));
  char *name = lg_codegen_default_name("dir/my-model.lag");
  CHECK_STR(name, "my_model");
  lg_string_free(name);
  lg_system_free(s);
  lg_model_free(m);
}

int main(void) {
  test_set();
  test_input_set();
  test_lazy();
  test_kane_speeds();
  test_codegen_with();
  return tu_summary("test_api_derive_with");
}
