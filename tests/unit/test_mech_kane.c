/* test_mech_kane.c - Kane's method with nonholonomic constraints: the
 * dependent speeds chosen do not depend on the order of the constraint
 * rows and avoid coefficients that vanish (an upright wheel); speeds the
 * model declares dependent are honoured, and impossible declarations are
 * errors at the declaration; running out of memory anywhere in the
 * derivation is reported as out of memory. */
#include "lang.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static const char *HEAD =
    "coordinates q1 q2 q3 x y z xc yc\n"
    "parameters m = 2, r = 2, g = 9.81, Ia = 0.25, It = 0.125\n"
    "frame N\n"
    "frame A = rotate(N, N.z, q1)\n"
    "frame B = rotate(A, A.x, q2)\n"
    "frame C = rotate(B, B.y, q3)\n"
    "point O\n"
    "point Co = O + x*N.x + y*N.y + z*N.z\n"
    "point P = O + xc*N.x + yc*N.y\n"
    "body C mass m at Co inertia (It, Ia, It)\n"
    "gravity -g*N.z\n"
    "initial q1 = 0.1, q2 = 1.0, z = 2*cos(1.0)\n";
static const char *ROWS[5] = {
    "constraint dot(pos(Co) - pos(P) - r*B.z, N.x)\n",
    "constraint dot(pos(Co) - pos(P) - r*B.z, N.y)\n",
    "constraint dot(pos(Co) - pos(P) - r*B.z, N.z)\n",
    "constraint dot(vel(Co) + cross(angvel(C), -r*B.z), N.x)\n",
    "constraint dot(vel(Co) + cross(angvel(C), -r*B.z), N.y)\n"};

/* The model's initial state for pivoting (as the CLI gives it). */
static int initial_value(void *ud, const sym_node *atom, double *out) {
  const lang_model *lm = ud;
  mech_model *m = lm->mech;
  for (size_t i = 0; i < mech_ncoords(m); i++) {
    if (mech_coord(m, i, 0) == atom) { *out = lm->q0[i]; return 0; }
    if (mech_coord(m, i, 1) == atom) { *out = lm->qd0[i]; return 0; }
  }
  for (size_t i = 0; i < mech_nparams(m); i++) {
    const sym_node *v = mech_param_value(m, i);
    double x;
    if (mech_param(m, i) == atom && v && sym_eval(mech_ctx(m), v, NULL, NULL, &x, NULL) == LG_OK) {
      *out = x;
      return 0;
    }
  }
  return 1;
}

static lang_model *load(const int *order) {
  char src[4096];
  strcpy(src, HEAD);
  for (int i = 0; i < 5; i++) strcat(src, ROWS[order[i]]);
  lang_model *lm = NULL;
  lg_diag d;
  lg_diag_clear(&d);
  if (lang_load_string("disk.lag", src, strlen(src), &lm, &d) != LG_OK) {
    fprintf(stderr, "%s\n", d.message);
    return NULL;
  }
  return lm;
}

/* "x' y' ..." for the dependent speeds */
static void dep_names(const mech_kane *k, char *buf, size_t n) {
  buf[0] = 0;
  for (size_t i = 0; i < k->ndep; i++) {
    lg_str s;
    lg_str_init(&s);
    sym_print(&s, k->udep[i], SYM_STYLE_TEXT, NULL, NULL);
    if (strlen(buf) + (s.s ? strlen(s.s) : 0) + 2 < n) {
      if (i) strcat(buf, " ");
      strcat(buf, s.s ? s.s : "?");
    }
    lg_str_free(&s);
  }
}

static void test_order_independent(void) {
  static const int orders[4][5] = {{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {3, 0, 4, 1, 2},
                                   {2, 4, 1, 0, 3}};
  char first[256] = "";
  for (int o = 0; o < 4; o++) {
    lang_model *lm = load(orders[o]);
    CHECK(lm != NULL);
    if (!lm) continue;
    mech_kane *k = NULL;
    lg_diag d;
    lg_diag_clear(&d);
    CHECK(mech_derive_kane(lm->mech, "disk.lag", initial_value, lm, &k, &d) == LG_OK);
    if (k) {
      char got[256];
      dep_names(k, got, sizeof got);
      CHECK(k->ndep == 5 && k->p == 3);
      CHECK(strstr(got, "q1'") == NULL); /* its coefficients are r*sin(q2)*... */
      if (!o) strcpy(first, got);
      else CHECK_STR(got, first);
    }
    lang_model_free(lm);
  }
}

/* Declare speeds (default speeds: index = coordinate) and derive. */
static lg_status declare(const int *speeds, int nspeeds, lg_diag *d, char *deps, size_t n) {
  static const int order[5] = {0, 1, 2, 3, 4};
  lang_model *lm = load(order);
  if (!lm) return LG_ERR_IO;
  for (int i = 0; i < nspeeds; i++) mech_declare_dependent_speed(lm->mech, speeds[i], 20 + i, 3);
  mech_kane *k = NULL;
  lg_diag_clear(d);
  lg_status st = mech_derive_kane(lm->mech, "disk.lag", initial_value, lm, &k, d);
  if (k) dep_names(k, deps, n);
  lang_model_free(lm);
  return st;
}

static void test_declared(void) {
  char deps[256] = "";
  lg_diag d;
  /* the yaw rate is possible at the initial lean of 1 rad: honoured */
  static const int yaw[5] = {0, 3, 5, 6, 7};
  CHECK(declare(yaw, 5, &d, deps, sizeof deps) == LG_OK);
  CHECK_STR(deps, "q1' x' z' xc' yc'");
  /* x', y', xc', yc' with the yaw rate instead of z': the z row has
   * only z' and q2', so the declared set is singular */
  static const int bad[5] = {3, 4, 0, 6, 7};
  CHECK(declare(bad, 5, &d, deps, sizeof deps) == LG_ERR_MODEL);
  CHECK(d.line == 20 && d.col == 3);
  CHECK(strstr(d.message, "singular") != NULL);
  static const int few[2] = {3, 4};
  CHECK(declare(few, 2, &d, deps, sizeof deps) == LG_ERR_MODEL);
  CHECK(d.line == 20 && strstr(d.message, "2 dependent speeds declared") != NULL);
  static const int dup[5] = {3, 3, 5, 6, 7};
  CHECK(declare(dup, 5, &d, deps, sizeof deps) == LG_ERR_MODEL);
  CHECK(d.line == 21 && strstr(d.message, "twice") != NULL);
}

/* Every allocation failure during the derivation is out of memory, never
 * "cannot be solved" or a redundant constraint. */
static void test_oom(void) {
  static const int order[5] = {0, 1, 2, 3, 4};
  int seen_ok = 0, bad = 0;
  for (long n = 0; n < 200000 && !seen_ok; n += 1 + n / 64) {
    lang_model *lm = load(order);
    if (!lm) break;
    mech_kane *k = NULL;
    lg_diag d;
    lg_diag_clear(&d);
    lg_alloc_fail_after(n);
    lg_status st = mech_derive_kane(lm->mech, "disk.lag", initial_value, lm, &k, &d);
    lg_alloc_fail_after(-1);
    if (st == LG_OK) seen_ok = 1;
    else if (st != LG_ERR_NOMEM || d.status != LG_ERR_NOMEM) {
      bad++;
      fprintf(stderr, "fail after %ld: status %d: %s\n", n, (int)st, d.message);
    }
    lang_model_free(lm);
  }
  CHECK(seen_ok);
  CHECK(bad == 0);
}

/* The same for the equations over every speed (simulate's elimination). */
static void test_oom_all(void) {
  static const int order[5] = {0, 1, 2, 3, 4};
  int seen_ok = 0, bad = 0;
  for (long n = 0; n < 200000 && !seen_ok; n += 1 + n / 64) {
    lang_model *lm = load(order);
    mech_kane *k = NULL;
    lg_diag d;
    lg_diag_clear(&d);
    if (!lm || mech_derive_kane(lm->mech, "disk.lag", initial_value, lm, &k, &d) != LG_OK) {
      lang_model_free(lm);
      bad++;
      break;
    }
    lg_alloc_fail_after(n);
    lg_status st = mech_kane_derive_all(lm->mech, k, &d);
    lg_alloc_fail_after(-1);
    if (st == LG_OK) seen_ok = k->all && k->A && k->g && k->all->p == 8;
    else if (st != LG_ERR_NOMEM || d.status != LG_ERR_NOMEM) bad++;
    lang_model_free(lm);
  }
  CHECK(seen_ok);
  CHECK(bad == 0);
}

/* A rolling sphere in Euler parameters with its body rates and the
 * centre's velocity as speeds: five speeds for six coordinates (the
 * quaternion's e.e' = 0 completes the kinematics), the norm no velocity
 * constraint, the two rolling rows eliminating vx and vy; out of memory
 * anywhere is out of memory. */
static const char *SPHERE =
    "coordinates x y e0 e1 e2 e3\n"
    "parameters M = 2, r = 0.5, I = 0.2, J = 0.3, K = 0.25\n"
    "frame N\n"
    "frame B = quaternion(N, e0, e1, e2, e3)\n"
    "point O\n"
    "point C = O + x*N.x + y*N.y + r*N.z\n"
    "body B mass M at C inertia (I, J, K)\n"
    "speeds w1 w2 w3 vx vy\n"
    "kinematics dot(angvel(B), B.x) = w1, dot(angvel(B), B.y) = w2,\n"
    "  dot(angvel(B), B.z) = w3, x' = vx, y' = vy\n"
    "constraint dot(vel(C) + cross(angvel(B), -r*N.z), N.x)\n"
    "constraint dot(vel(C) + cross(angvel(B), -r*N.z), N.y)\n"
    "gravity -9.81*N.z\n"
    "initial e0 = 1, w1 = 0.3\n";

static lang_model *load_text(const char *name, const char *src, lg_diag *d) {
  lang_model *lm = NULL;
  lg_diag_clear(d);
  if (lang_load_string(name, src, strlen(src), &lm, d) != LG_OK) return NULL;
  return lm;
}

static void test_quaternion_body_rates(void) {
  lg_diag d;
  lang_model *lm = load_text("sphere.lag", SPHERE, &d);
  CHECK(lm != NULL);
  if (!lm) return;
  mech_kane *k = NULL;
  CHECK(mech_derive_kane(lm->mech, "sphere.lag", initial_value, lm, &k, &d) == LG_OK);
  if (k) {
    CHECK(k->n == 6 && k->nu == 5 && k->p == 3 && k->ndep == 2);
    CHECK(k->mass_matrix_full->rows == 9 && k->mass_matrix_full->cols == 9);
    CHECK(!strcmp(k->udep[0]->v.name, "vx") && !strcmp(k->udep[1]->v.name, "vy"));
    CHECK(mech_kane_derive_all(lm->mech, k, &d) == LG_OK && k->all && k->all->p == 5);
  }
  lang_model_free(lm);
  /* two speeds for a quaternion: an error at the first speed, saying what would do */
  lm = load_text("top.lag",
                 "coordinates e0 e1 e2 e3\nframe N\nframe B = quaternion(N, e0, e1, e2, e3)\n"
                 "point O\nbody B mass 1 at O inertia (1, 2, 3)\nspeeds w1 w2\n"
                 "kinematics dot(angvel(B), B.x) = w1, dot(angvel(B), B.y) = w2\n",
                 &d);
  CHECK(lm != NULL);
  if (lm) {
    CHECK(mech_derive_kane(lm->mech, "top.lag", NULL, NULL, &k, &d) == LG_ERR_MODEL);
    CHECK(d.line == 6 && d.col == 8 && strstr(d.message, "one fewer per quaternion") != NULL);
    CHECK(strstr(d.hint, "declare 4 speeds") != NULL);
    lang_model_free(lm);
  }
  int seen_ok = 0, bad = 0;
  for (long n = 0; n < 400000 && !seen_ok; n += 1 + n / 64) {
    lm = load_text("sphere.lag", SPHERE, &d);
    if (!lm) break;
    k = NULL;
    lg_diag_clear(&d);
    lg_alloc_fail_after(n);
    lg_status st = mech_derive_kane(lm->mech, "sphere.lag", initial_value, lm, &k, &d);
    if (st == LG_OK) st = mech_kane_derive_all(lm->mech, k, &d);
    lg_alloc_fail_after(-1);
    if (st == LG_OK) seen_ok = 1;
    else if (st != LG_ERR_NOMEM || d.status != LG_ERR_NOMEM) {
      bad++;
      fprintf(stderr, "fail after %ld: status %d: %s\n", n, (int)st, d.message);
    }
    lang_model_free(lm);
  }
  CHECK(seen_ok);
  CHECK(bad == 0);
}

int main(void) {
  test_order_independent();
  test_declared();
  test_oom();
  test_oom_all();
  test_quaternion_body_rates();
  return tu_summary("test_mech_kane");
}
