/* test_num_links.c - a tree's q'' by the articulated-body algorithm on
 * numbers (num_links.c, issue 26) against two independent derivations:
 * the recursion written out as expressions (mech_tree_accel's tape) and
 * the dense Euler-Lagrange equations (M and f differentiated from T and
 * V, M q'' = f solved by LAPACK), to 1e-12 relative, at random states, on
 * hinges about general axes, sliders, a branch, a fixed joint, damping,
 * an input and forces, a multi-coordinate link (a free body in Euler
 * angles); then the cases it leaves to the tape (not a tree of links)
 * and a parameter without a value; simulate's view (num_system_with_tree)
 * takes the same recursion, bit for bit. */
#include "lang.h"
#include "mech.h"
#include "num.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double rnd(unsigned *x) {
  *x = *x * 1103515245u + 12345u;
  return ((*x >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* URDF: continuous joints about general axes with turned origins, a
 * prismatic joint along a general axis, a fixed joint, a branch (two arms
 * on link 2), damping, full inertias in turned inertial frames. */
static const char URDF[] =
    "<?xml version=\"1.0\"?>\n<robot name=\"t\">\n<link name=\"base\"/>\n"
    "<link name=\"a\"><inertial><origin xyz=\"0.01 0.02 0.1\" rpy=\"0.1 0.2 0.3\"/>"
    "<mass value=\"1.3\"/><inertia ixx=\"0.05\" ixy=\"0.002\" ixz=\"-0.001\" iyy=\"0.04\""
    " iyz=\"0.003\" izz=\"0.02\"/></inertial></link>\n"
    "<link name=\"b\"><inertial><origin xyz=\"0.1 0 0.05\" rpy=\"-0.2 0.1 0.4\"/>"
    "<mass value=\"0.9\"/><inertia ixx=\"0.03\" ixy=\"0.001\" ixz=\"0.002\" iyy=\"0.02\""
    " iyz=\"-0.001\" izz=\"0.025\"/></inertial></link>\n"
    "<link name=\"bf\"><inertial><origin xyz=\"0.03 0.01 0\"/>"
    "<mass value=\"0.4\"/><inertia ixx=\"0.004\" iyy=\"0.003\" izz=\"0.002\"/></inertial></link>\n"
    "<link name=\"c1\"><inertial><origin xyz=\"0 0.05 0.1\" rpy=\"0.3 0 0\"/>"
    "<mass value=\"0.7\"/><inertia ixx=\"0.01\" ixy=\"0.0005\" iyy=\"0.012\" izz=\"0.006\"/>"
    "</inertial></link>\n"
    "<link name=\"d1\"><inertial><origin xyz=\"0.02 0 0.08\"/>"
    "<mass value=\"0.5\"/><inertia ixx=\"0.005\" iyy=\"0.006\" izz=\"0.003\"/></inertial></link>\n"
    "<link name=\"c2\"><inertial><origin xyz=\"0 -0.05 0.1\" rpy=\"0 0.3 0.1\"/>"
    "<mass value=\"0.6\"/><inertia ixx=\"0.01\" iyy=\"0.011\" izz=\"0.005\" iyz=\"0.0007\"/>"
    "</inertial></link>\n"
    "<link name=\"d2\"><inertial><origin xyz=\"0 0 0.06\"/>"
    "<mass value=\"0.45\"/><inertia ixx=\"0.004\" iyy=\"0.004\" izz=\"0.002\"/></inertial></link>\n"
    "<joint name=\"j1\" type=\"continuous\"><parent link=\"base\"/><child link=\"a\"/>"
    "<origin xyz=\"0 0 0.1\" rpy=\"0.1 -0.2 0.05\"/><axis xyz=\"0.2 -0.3 1\"/>"
    "<dynamics damping=\"0.3\"/></joint>\n"
    "<joint name=\"j2\" type=\"prismatic\"><parent link=\"a\"/><child link=\"b\"/>"
    "<origin xyz=\"0.05 0 0.2\" rpy=\"0 0.4 0\"/><axis xyz=\"0.6 0.8 0.1\"/>"
    "<limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/></joint>\n"
    "<joint name=\"jf\" type=\"fixed\"><parent link=\"b\"/><child link=\"bf\"/>"
    "<origin xyz=\"0.1 0.05 0\" rpy=\"0.5 0 -0.3\"/></joint>\n"
    "<joint name=\"j3\" type=\"revolute\"><parent link=\"b\"/><child link=\"c1\"/>"
    "<origin xyz=\"0 0.1 0.1\" rpy=\"0.2 0.1 0\"/><axis xyz=\"1 0.2 -0.1\"/>"
    "<limit lower=\"-3\" upper=\"3\" effort=\"10\" velocity=\"1\"/>"
    "<dynamics damping=\"0.2\"/></joint>\n"
    "<joint name=\"j4\" type=\"continuous\"><parent link=\"c1\"/><child link=\"d1\"/>"
    "<origin xyz=\"0 0.02 0.2\" rpy=\"-0.3 0.2 0.1\"/><axis xyz=\"0 1 0.3\"/></joint>\n"
    "<joint name=\"j5\" type=\"continuous\"><parent link=\"b\"/><child link=\"c2\"/>"
    "<origin xyz=\"0 -0.1 0.1\" rpy=\"0 0 0.7\"/><axis xyz=\"0.3 0.1 1\"/></joint>\n"
    "<joint name=\"j6\" type=\"prismatic\"><parent link=\"c2\"/><child link=\"d2\"/>"
    "<origin xyz=\"0 0 0.2\"/><axis xyz=\"0 0 1\"/>"
    "<limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/></joint>\n"
    "</robot>\n";

/* The model language: a free body in Euler angles (one link of six
 * coordinates) carrying a branched pair of pendulums about skew axes, a
 * slider, an input's force, a torque, a damper (D =) and a spring. */
static const char LAG[] =
    "coordinates x y z a b c h1 h2 s1 h3\n"
    "parameters m = 1.5, l = 0.4, g = 9.81, k = 3\n"
    "inputs u = 0.7*sin(3*t)\n"
    "frame N\npoint O\n"
    "frame B = body_fixed(N, zxy, a, b, c)\n"
    "point P = O + x*N.x + y*N.y + z*N.z\n"
    "body B mass m at P inertia (0.1, 0.12, 0.08, 0.01, -0.005, 0.003)\n"
    "frame F1 = rotate(B, B.x + 0.3*B.y - 0.2*B.z, h1)\n"
    "point P1 = P + 0.1*B.z + l*F1.x\n"
    "body F1 mass 0.5*m at P1 inertia (0.01, 0.02, 0.015)\n"
    "frame F2 = rotate(B, 0.2*B.x + B.z, h2)\n"
    "point P2 = P - 0.1*B.x + l*F2.y\n"
    "body F2 mass 0.4*m at P2 inertia (0.012, 0.01, 0.02, 0.001, 0, 0)\n"
    "point Q = P2 + s1*F2.x\n"
    "frame S2 = rotate(F2, F2.z, 0.25)\n"
    "body S2 mass 0.3 at Q inertia (0.002, 0.003, 0.004)\n"
    "frame F3 = rotate(S2, S2.x, h3)\n"
    "point P3 = Q + 0.5*l*F3.z\n"
    "body F3 mass 0.3*m at P3 inertia (0.004, 0.004, 0.002)\n"
    "gravity -g*N.z\n"
    "force P1: u*N.x\n"
    "torque F3: -0.2*h3'*S2.x\n"
    "force h1: u - 0.1*h1'\n"
    "D = 1/2*0.05*s1'^2\n"
    "V = 1/2*k*s1^2\n"
    "spring P1 O: 2, 0.3\n"
    "spring h2: 1.5, 0.1\n";

/* A 12-link 3D chain with an input (test_first_eval's). */
static char *chain(int n) {
  size_t cap = 1024 + (size_t)n * 200, len = 0;
  char *s = malloc(cap);
  len += (size_t)snprintf(s + len, cap - len, "coordinates");
  for (int i = 1; i <= n; i++) len += (size_t)snprintf(s + len, cap - len, " q%d", i);
  len += (size_t)snprintf(s + len, cap - len,
                          "\nparameters m = 1, l = 0.5, g = 9.81\n"
                          "inputs tau = 0.4*sin(2*t)\nframe F0\npoint P0\n");
  const char *axis[3] = {"z", "x", "y"};
  for (int i = 1; i <= n; i++)
    len += (size_t)snprintf(s + len, cap - len,
                            "frame F%d = rotate(F%d, F%d.%s, q%d)\npoint P%d = P%d + l*F%d.x\n"
                            "body F%d mass m*(1 + %d/10) at P%d inertia (0.01, 0.02, 0.03)\n",
                            i, i - 1, i - 1, axis[i % 3], i, i, i - 1, i, i, i, i);
  snprintf(s + len, cap - len, "gravity -g*F0.z\nforce q1: tau - 0.2*q1'\n");
  return s;
}

static double max_rel(const double *a, const double *b, size_t n) {
  double d = 0, s = 0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), s = fmax(s, fabs(b[i]));
  return d / (s > 0 ? s : 1);
}

/* links vs tape vs dense at nstate random states; returns the worst */
static void compare(const char *name, const char *text, size_t want_n) {
  lg_diag d;
  lg_diag_clear(&d);
  lang_model *lm = NULL;
  mech_eom *e = NULL;
  num_system *links = NULL, *tape = NULL, *dense = NULL;
  const sym_node **qdd = NULL;
  CHECK(lang_load_string(name, text, strlen(text), &lm, &d) == LG_OK);
  if (!lm) {
    fprintf(stderr, "%s: %s\n", name, d.message);
    return;
  }
  mech_model *mm = lm->mech;
  CHECK(mech_derive_lagrange(mm, name, &e, &d) == LG_OK);
  if (!e) goto done;
  size_t n = e->n;
  CHECK(n == want_n);
  CHECK(num_system_build_links(mm, e, NULL, 0, &links, &d) == LG_OK && links && links->links);
  CHECK(mech_tree_accel(mm, e, name, &qdd, &d) == LG_OK);
  if (qdd) CHECK(num_system_build_tree(mm, e, qdd, NULL, 0, &tape, &d) == LG_OK);
  CHECK(num_system_build(mm, e, NULL, 0, &dense, &d) == LG_OK);
  if (!links || !tape || !dense) {
    fprintf(stderr, "%s: %s\n", name, d.message);
    goto done;
  }
  /* simulate's view of the dense system takes the same recursion */
  num_system *view = NULL;
  CHECK(num_system_with_tree(mm, e, NULL, 0, dense, &view) == LG_OK && view && view->links &&
        !view->tree);
  num_work wl, wt, wd, wv;
  CHECK(num_work_init(links, &wl) == LG_OK);
  CHECK(num_work_init(tape, &wt) == LG_OK);
  CHECK(num_work_init(dense, &wd) == LG_OK);
  CHECK(view && num_work_init(view, &wv) == LG_OK);
  double *q = calloc(n, sizeof *q), *qd = calloc(n, sizeof *qd), *a = calloc(n, sizeof *a);
  double *b = calloc(n, sizeof *b), *c = calloc(n, sizeof *c), worst_t = 0, worst_d = 0;
  double *Ml = calloc(n * n, sizeof *Ml), *fl = calloc(n, sizeof *fl), *pl = calloc(n, sizeof *pl);
  double Tl = 0, Vl = 0, worst_f = 0;
  CHECK(num_links_has_forms(links->links));
  unsigned x = 7;
  for (int k = 0; k < 6; k++) {
    for (size_t i = 0; i < n; i++) q[i] = 1.5 * rnd(&x), qd[i] = 2 * rnd(&x);
    double t = 0.37 * k;
    CHECK(num_evaluate_tree(links, &wl, t, q, qd, a) == 1);
    CHECK(num_evaluate_tree(tape, &wt, t, q, qd, b) == 1);
    num_evaluate_dynamics(dense, &wd, t, q, qd);
    CHECK(num_solve_accel(dense, &wd, c, NULL, NULL) == LG_OK);
    worst_t = fmax(worst_t, max_rel(a, b, n));
    worst_d = fmax(worst_d, max_rel(a, c, n));
    /* every other form eval reports, on numbers (num_links_eval), against
     * the dense equations' (M and f differentiated from T and V, p = dL/dq',
     * T and V as written out), evaluated on their tape */
    num_links_forms o = {Ml, fl, pl, &Tl, &Vl};
    CHECK(num_links_eval(links->links, wl.in, wl.slots, c, &o) == 1 &&
          memcmp(a, c, n * sizeof *a) == 0);
    num_evaluate(dense, &wd, t, q, qd);
    const double *out = wd.out, Td = out[dense->o_T], Vd = out[dense->o_V];
    double E = fmax(fmax(fabs(Td), fabs(Vd)), 1e-3);
    worst_f = fmax(worst_f, max_rel(Ml, out + dense->o_M, n * n));
    worst_f = fmax(worst_f, max_rel(fl, out + dense->o_f, n));
    worst_f = fmax(worst_f, max_rel(pl, out + dense->o_p, n));
    worst_f = fmax(worst_f, fmax(fabs(Tl - Td), fabs(Vl - Vd)) / E);
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < i; j++) CHECK(Ml[i * n + j] == Ml[j * n + i]);
    /* twice at one state: the same numbers (no state kept between calls) */
    CHECK(num_evaluate_tree(links, &wl, t, q, qd, c) == 1 && memcmp(a, c, n * sizeof *a) == 0);
    CHECK(view && num_evaluate_tree(view, &wv, t, q, qd, c) == 1 &&
          memcmp(a, c, n * sizeof *a) == 0);
  }
  printf("%s (n = %zu): vs the tape %.2e, vs the dense solve %.2e; M, f, p, T, V vs the dense "
         "forms %.2e\n", name, n, worst_t, worst_d, worst_f);
  CHECK(worst_t <= 1e-12);
  CHECK(worst_d <= 1e-12);
  CHECK(worst_f <= 1e-12);
  free(Ml);
  free(fl);
  free(pl);
  free(q);
  free(qd);
  free(a);
  free(b);
  free(c);
  num_work_free(&wl);
  num_work_free(&wt);
  num_work_free(&wd);
  if (view) num_work_free(&wv);
  num_system_free(view);
done:
  num_system_free(links);
  num_system_free(tape);
  num_system_free(dense);
  lang_model_free(lm);
}

/* Not a tree of links (particles alone): LG_ERR_MODEL without a
 * diagnostic, the tape's path still there; a parameter without a value:
 * the error at its declaration. */
static void test_refusals(void) {
  static const char PARTICLES[] =
      "coordinates x y\nparameters m = 1, g = 9.81\nframe N\npoint O\n"
      "point P = O + x*N.x + y*N.y\nparticle P mass m\ngravity -g*N.y\n";
  static const char NOVALUE[] =
      "coordinates q\nparameters m, l = 1, g = 9.81\nframe N\nframe A = rotate(N, N.z, q)\n"
      "point O\npoint P = O + l*A.x\nbody A mass m at P inertia (0.1, 0.1, 0.1)\n"
      "gravity -g*N.y\n";
  lg_diag d;
  lang_model *lm = NULL;
  mech_eom *e = NULL;
  num_system *s = NULL;
  lg_diag_clear(&d);
  CHECK(lang_load_string("p.lag", PARTICLES, strlen(PARTICLES), &lm, &d) == LG_OK);
  if (lm && mech_derive_lagrange(lm->mech, "p.lag", &e, &d) == LG_OK) {
    CHECK(num_system_build_links(lm->mech, e, NULL, 0, &s, &d) == LG_ERR_MODEL && !s);
    CHECK(d.status == LG_OK);
  }
  lang_model_free(lm);
  lm = NULL;
  CHECK(lang_load_string("v.lag", NOVALUE, strlen(NOVALUE), &lm, &d) == LG_OK);
  if (lm && mech_derive_lagrange(lm->mech, "v.lag", &e, &d) == LG_OK) {
    CHECK(num_system_build_links(lm->mech, e, NULL, 0, &s, &d) == LG_ERR_MODEL && !s);
    CHECK(d.status == LG_ERR_MODEL && strstr(d.message, "'m' has no value") && d.line == 2);
    /* with a value given: built, and q'' of a pendulum, -(m g l cos q) / (m l^2 + Izz) */
    mech_setting set = {"m", 2.0};
    lg_diag_clear(&d);
    CHECK(num_system_build_links(lm->mech, e, &set, 1, &s, &d) == LG_OK && s);
    num_work w;
    if (s && num_work_init(s, &w) == LG_OK) {
      double q = 0.3, qd = 1.1, qdd = 0;
      CHECK(num_evaluate_tree(s, &w, 0, &q, &qd, &qdd) == 1);
      CHECK_NEAR(qdd, -(2 * 9.81 * cos(q)) / (2 + 0.1), 1e-14);
      num_work_free(&w);
    }
    num_system_free(s);
  }
  lang_model_free(lm);
}

/* The URDF by its numbers (num_links_numbers.c: no expression read) with
 * an input's and gravity's values given as settings, against the dense
 * solve with the same settings; a model that imports the URDF keeps no
 * numbers (it may add anything). */
static void urdf_numbers(void) {
  lg_diag d;
  lg_diag_clear(&d);
  lang_model *lm = NULL;
  mech_eom *e = NULL;
  num_system *links = NULL, *dense = NULL;
  CHECK(lang_load_string("t.urdf", URDF, strlen(URDF), &lm, &d) == LG_OK);
  if (!lm) return;
  CHECK(mech_num_tree_of(lm->mech) != NULL);
  /* built from the numbers before anything is derived (no eom) */
  mech_setting set[2] = {{"tau_j3", 0.5}, {"g", 3.0}};
  CHECK(num_system_build_links(lm->mech, NULL, set, 2, &links, &d) == LG_OK && links);
  CHECK(mech_derive_lagrange(lm->mech, "t.urdf", &e, &d) == LG_OK);
  CHECK(e && num_system_build(lm->mech, e, set, 2, &dense, &d) == LG_OK);
  if (links && dense) {
    num_work wl, wd;
    CHECK(num_work_init(links, &wl) == LG_OK && num_work_init(dense, &wd) == LG_OK);
    double q[6], qd[6], a[6], c[6], worst = 0;
    unsigned x = 3;
    for (int k = 0; k < 4; k++) {
      for (int i = 0; i < 6; i++) q[i] = rnd(&x), qd[i] = 2 * rnd(&x);
      CHECK(num_evaluate_tree(links, &wl, 0.1 * k, q, qd, a) == 1);
      num_evaluate_dynamics(dense, &wd, 0.1 * k, q, qd);
      CHECK(num_solve_accel(dense, &wd, c, NULL, NULL) == LG_OK);
      worst = fmax(worst, max_rel(a, c, 6));
    }
    printf("t.urdf by its numbers, tau_j3 = 0.5, g = 3: vs the dense solve %.2e\n", worst);
    CHECK(worst <= 1e-12);
    num_work_free(&wl);
    num_work_free(&wd);
  }
  num_system_free(links);
  num_system_free(dense);
  lang_model_free(lm);
  FILE *f = fopen("tnl_t.urdf", "w");
  if (f) {
    fputs(URDF, f);
    fclose(f);
    const char *imp = "import \"tnl_t.urdf\"\n";
    lm = NULL;
    CHECK(lang_load_string("tnl_i.lag", imp, strlen(imp), &lm, &d) == LG_OK && lm &&
          !mech_num_tree_of(lm->mech));
    lang_model_free(lm);
    remove("tnl_t.urdf");
  }
}

/* A URDF robot's energy balance in a simulation (num_aux.c) takes E = T + V and
 * W' = q' . (M q'' + C + G) from the links on numbers (num_links_energy) instead of the tape
 * of E and its chain-rule derivative dE/dt: both against that tape, at random q, q' and
 * (since dE/dt is an identity in q'') random q'', with an input and gravity set. */
static void urdf_energy(void) {
  lg_diag d;
  lg_diag_clear(&d);
  lang_model *lm = NULL;
  mech_eom *e = NULL;
  num_aux *aux = NULL;
  sym_tape *tape = NULL;
  CHECK(lang_load_string("t.urdf", URDF, strlen(URDF), &lm, &d) == LG_OK);
  if (!lm) return;
  mech_model *mm = lm->mech;
  mech_setting set[2] = {{"tau_j3", 0.5}, {"g", 3.0}};
  CHECK(mech_derive_lagrange(mm, "t.urdf", &e, &d) == LG_OK && e);
  CHECK(e && num_aux_build(mm, e, NULL, set, 2, NULL, &aux, &d) == LG_OK && aux);
  CHECK(aux && aux->links && !aux->power && aux->work);
  size_t n = e ? e->n : 0, np = mech_nparams(mm), nin = 1 + 3 * n + np;
  sym_ctx *c = mech_ctx(mm);
  const sym_node **in = calloc(nin, sizeof *in), *missing = NULL;
  if (e && aux && in) {
    const sym_node *E = mech_energy(mm, e), *o[2] = {E, sym_dt(c, E)};
    size_t j = 0;
    in[j++] = sym_time(c);
    for (size_t i = 0; i < n; i++) in[j++] = e->q[i];
    for (size_t i = 0; i < n; i++) in[j++] = e->qd[i];
    for (size_t i = 0; i < np; i++) in[j++] = mech_param(mm, i);
    for (size_t i = 0; i < n; i++) in[j++] = e->qdd[i];
    CHECK(num_substitute_inputs(mm, set, 2, o, 2) == LG_OK);
    CHECK(sym_tape_build(c, nin, in, 2, o, &tape, &missing) == LG_OK && tape);
  }
  num_aux_work aw;
  if (tape && num_aux_work_init(aux, &aw) == LG_OK) {
    double *x = calloc(nin, sizeof *x), *slots = calloc(tape->nslots + 1, sizeof *slots);
    double worst_E = 0, worst_W = 0;
    unsigned r = 17;
    for (int k = 0; x && slots && k < 6; k++) {
      x[0] = 0.1 * k;
      for (size_t i = 1; i < nin; i++) x[i] = 2 * rnd(&r);
      memcpy(x + 1 + 2 * n, aux->params, np * sizeof *x);
      double want[2], E, Wd;
      sym_tape_eval(tape, x, want, slots);
      num_aux_power(aux, &aw, x[0], x + 1, x + 1 + n, x + 1 + 2 * n + np, &E, &Wd);
      worst_E = fmax(worst_E, fabs(E - want[0]) / (1 + fabs(want[0])));
      worst_W = fmax(worst_W, fabs(Wd - want[1]) / (1 + fabs(want[1])));
    }
    printf("t.urdf energy balance on the links: E %.2e, dE/dt %.2e from the tape's\n", worst_E,
           worst_W);
    CHECK(x && slots && worst_E <= 1e-12 && worst_W <= 1e-12);
    free(x);
    free(slots);
    num_aux_work_free(&aw);
  }
  free(in);
  sym_tape_free(tape);
  num_aux_free(aux);
  lang_model_free(lm);
}

int main(void) {
  urdf_numbers();
  urdf_energy();
  compare("t.urdf", URDF, 6);
  compare("t.lag", LAG, 10);
  char *c = chain(12);
  compare("chain.lag", c, 12);
  free(c);
  test_refusals();
  return tu_summary("test_num_links");
}
