/* test_cg_jit.c - the generated C right-hand side, compiled by the system
 * compiler and loaded (cg_jit.c), against the evaluation tape and the
 * LAPACK solve (num): the same accelerations at random states, with and
 * without constraints, and with the parameters passed in; a chain compiles
 * as the kinematic tree's O(n) recursion, a constrained model densely. */
#include "cg.h"
#include "lang.h"
#include "mech.h"
#include "num.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static const char CART[] =
    "coordinates x theta\nparameters m = 1, M = 0.5, l = 0.8, g = 9.81\n"
    "frame N\nframe A = rotate(N, N.z, -theta)\npoint O\npoint C = O + x*N.x\n"
    "point P = C + l*A.y\nparticle C mass m\nparticle P mass M\ngravity -g*N.y\n";

static const char BOWL[] =
    "coordinates q1 q2 q3\nparameters m = 2, g = 9.81, r = 1\n"
    "frame N\npoint O\npoint P = O + q1*N.x + q2*N.y + q3*N.z\n"
    "particle P mass m\ngravity -g*N.z\nconstraint q1^2 + q2^2 + q3^2 = r^2\n";

/* An n-link chain in absolute angles: a kinematic tree whose O(n)
 * recursion is shorter than the dense solve from about six links on. */
static void chain_text(char *buf, size_t size, int n) {
  size_t k = (size_t)snprintf(buf, size, "coordinates");
  for (int i = 1; i <= n; i++) k += (size_t)snprintf(buf + k, size - k, " q%d", i);
  k += (size_t)snprintf(buf + k, size - k, "\nparameters g = 9.81, m = 1.1, l = 0.6\n"
                                           "frame N\npoint O\n");
  for (int i = 1; i <= n; i++)
    k += (size_t)snprintf(buf + k, size - k,
                          "frame A%d = rotate(N, N.z, q%d)\npoint P%d = %s%.0d - l*A%d.y\n"
                          "particle P%d mass %d*m\n",
                          i, i, i, i == 1 ? "O" : "P", i - 1, i, i, 1 + i % 3);
  snprintf(buf + k, size - k, "gravity -g*N.y\n");
}

static void compare(const char *name, const char *text, int tree) {
  lang_model *lm = NULL;
  mech_eom *e = NULL;
  num_system *s = NULL;
  lg_diag d;
  lg_diag_clear(&d);
  CHECK(lang_load_string(name, text, strlen(text), &lm, &d) == LG_OK);
  CHECK(mech_derive_lagrange(lm->mech, name, &e, &d) == LG_OK);
  CHECK(num_system_build(lm->mech, e, NULL, 0, &s, &d) == LG_OK);
  cg_request r = {"t", name, lm->mech, e, NULL, NULL, 0, NULL, 1};
  cg_jit jit = {0};
  lg_status st = cg_jit_compile(&r, &jit, &d);
  CHECK(st == LG_OK);
  if (st != LG_OK) fprintf(stderr, "%s: %s\n", name, d.message);
  if (tree >= 0) CHECK(jit.tree == tree); /* the O(n) recursion where it is a tree and shorter */
  num_work w;
  CHECK(num_work_init(s, &w) == LG_OK);
  size_t n = s->n;
  double x[32], xdot[32], qdd[16], lam[16];
  srand(7);
  for (int trial = 0; st == LG_OK && trial < 20; trial++) {
    for (size_t i = 0; i < 2 * n; i++) x[i] = 2.0 * rand() / RAND_MAX - 1.0;
    num_evaluate(s, &w, 0.1 * trial, x, x + n);
    CHECK(num_solve_accel(s, &w, qdd, lam, NULL) == LG_OK);
    CHECK(jit.rhs(0.1 * trial, x, NULL, s->params, xdot) == 0);
    for (size_t i = 0; i < n; i++) {
      CHECK(xdot[i] == x[n + i]);
      CHECK_NEAR(xdot[n + i], qdd[i], 1e-10);
    }
  }
  num_work_free(&w);
  cg_jit_free(&jit);
  num_system_free(s);
  lang_model_free(lm);
}

int main(void) {
  compare("cart.lag", CART, -1);
  compare("bowl.lag", BOWL, 0);
  char chain[4096];
  chain_text(chain, sizeof chain, 10);
  compare("chain10.lag", chain, 1);
  return tu_summary("test_cg_jit");
}
