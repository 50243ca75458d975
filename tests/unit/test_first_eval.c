/* test_first_eval.c - issue 26: a large tree compiles its first q'' in
 * two steps (only the articulated-body recursion's tape first, everything
 * else on first use of what needs it). The lazy pieces must give the same
 * numbers as the eager path to the last bit: q'' (lg_eval_accel,
 * lg_work_accel, before and after the rest is compiled, and lg_eval's q''
 * the same), every form of lg_eval, on a 40-link URDF arm (full inertias,
 * general axes), on a 12-link 3D chain with an input and on a branched
 * URDF with sliders, a fixed joint and damping (q'' by the recursion on
 * numbers, num_links.c); a short
 * simulation (its pieces compiled last); the first evaluations made from
 * two threads at once; a singular M (the dense solve's diagnostic from
 * every entry); and independently of the tool, M (composite rigid bodies)
 * symmetric with M q'' = f at each state. */
#include "lagrange.h"
#include "lg_api_internal.h" /* (which recursion answered: num_tree->links) */
#include "test_api_util.h"
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An n-link arm as URDF: continuous joints about general axes, links with
 * an offset inertial frame and a full inertia. */
static char *arm_urdf(int n) {
  size_t cap = 2048 + (size_t)n * 1400, len = 0;
  char *s = malloc(cap);
  unsigned x = 26;
  len += (size_t)snprintf(s + len, cap - len,
                          "<?xml version=\"1.0\"?>\n<robot name=\"arm%d\">\n"
                          "  <link name=\"base\"/>\n", n);
  for (int i = 1; i <= n; i++) {
    double a = 0.02 + 0.01 * fabs(tu_rnd(&x)), b = 0.02 + 0.01 * fabs(tu_rnd(&x));
    double c = 0.02 + 0.01 * fabs(tu_rnd(&x));
    double ax = tu_rnd(&x), ay = tu_rnd(&x), az = tu_rnd(&x) + 1.5;
    len += (size_t)snprintf(
        s + len, cap - len,
        "  <link name=\"l%d\">\n    <inertial>\n"
        "      <origin xyz=\"%.6f %.6f %.6f\" rpy=\"%.6f %.6f %.6f\"/>\n"
        "      <mass value=\"%.6f\"/>\n"
        "      <inertia ixx=\"%.6f\" ixy=\"%.6f\" ixz=\"%.6f\" iyy=\"%.6f\" iyz=\"%.6f\""
        " izz=\"%.6f\"/>\n    </inertial>\n  </link>\n"
        "  <joint name=\"j%d\" type=\"continuous\">\n    <parent link=\"%s%.0d\"/>\n"
        "    <child link=\"l%d\"/>\n    <origin xyz=\"%.6f %.6f %.6f\" rpy=\"%.6f %.6f %.6f\"/>\n"
        "    <axis xyz=\"%.6f %.6f %.6f\"/>\n  </joint>\n",
        i, 0.02 * tu_rnd(&x), 0.02 * tu_rnd(&x), 0.1 + 0.05 * tu_rnd(&x), 0.3 * tu_rnd(&x),
        0.3 * tu_rnd(&x), 0.3 * tu_rnd(&x), 1.0 + 0.3 * tu_rnd(&x), a + b, 0.002 * tu_rnd(&x),
        0.002 * tu_rnd(&x), b + c, 0.002 * tu_rnd(&x), a + c, i, i == 1 ? "base" : "l",
        i == 1 ? 0 : i - 1, i, 0.02 * tu_rnd(&x), 0.02 * tu_rnd(&x), i == 1 ? 0.1 : 0.2,
        0.4 * tu_rnd(&x), 0.4 * tu_rnd(&x), 0.4 * tu_rnd(&x), ax, ay, az);
  }
  snprintf(s + len, cap - len, "</robot>\n");
  return s;
}

/* A branched URDF (the articulated-body recursion on numbers, issue 26):
 * a root hinge carrying two arms of four joints each, hinges about
 * general axes and sliders, a fixed joint, damping; 9 coordinates. */
static char *branch_urdf(void) {
  size_t cap = 16384, len = 0;
  char *s = malloc(cap);
  unsigned x = 9;
  len += (size_t)snprintf(s + len, cap - len,
                          "<?xml version=\"1.0\"?>\n<robot name=\"branch\">\n"
                          "<link name=\"base\"/>\n");
  for (int i = 0; i <= 9; i++) {
    len += (size_t)snprintf(
        s + len, cap - len,
        "<link name=\"l%d\"><inertial><origin xyz=\"%.4f %.4f %.4f\" rpy=\"%.4f %.4f 0\"/>"
        "<mass value=\"%.4f\"/><inertia ixx=\"0.03\" ixy=\"%.4f\" ixz=\"0.001\" iyy=\"0.025\""
        " iyz=\"%.4f\" izz=\"0.02\"/></inertial></link>\n",
        i, 0.03 * tu_rnd(&x), 0.03 * tu_rnd(&x), 0.1 + 0.03 * tu_rnd(&x), 0.3 * tu_rnd(&x),
        0.3 * tu_rnd(&x), 1.0 + 0.3 * tu_rnd(&x), 0.002 * tu_rnd(&x), 0.002 * tu_rnd(&x));
  }
  for (int i = 0; i <= 9; i++) {
    int parent = i == 0 ? -1 : i == 1 || i == 5 ? 0 : i - 1;
    const char *type = i == 7 ? "fixed" : i % 3 == 2 ? "prismatic" : "continuous";
    char pname[16];
    snprintf(pname, sizeof pname, parent < 0 ? "base" : "l%d", parent);
    len += (size_t)snprintf(
        s + len, cap - len,
        "<joint name=\"j%d\" type=\"%s\"><parent link=\"%s\"/><child link=\"l%d\"/>"
        "<origin xyz=\"%.4f %.4f 0.2\" rpy=\"%.4f %.4f %.4f\"/><axis xyz=\"%.4f %.4f %.4f\"/>"
        "<limit lower=\"-2\" upper=\"2\" effort=\"10\" velocity=\"1\"/>"
        "<dynamics damping=\"%.2f\"/></joint>\n",
        i, type, pname, i, i == 5 ? -0.1 : 0.02 * tu_rnd(&x), 0.03 * tu_rnd(&x), 0.4 * tu_rnd(&x),
        0.4 * tu_rnd(&x), 0.4 * tu_rnd(&x), tu_rnd(&x), tu_rnd(&x), tu_rnd(&x) + 1.5,
        i % 2 ? 0.1 : 0.0);
  }
  snprintf(s + len, cap - len, "</robot>\n");
  return s;
}

/* A planar chain of ten particles in absolute angles: a tree, but not one
 * of links (mech_tree.c's recursion, its tape). */
static const char PARTICLES[] =
    "coordinates a1 a2 a3 a4 a5 a6 a7 a8 a9 a10\n"
    "parameters m = 1, l = 0.3, g = 9.81\nframe N\npoint P0\n"
    "point P1 = P0 + l*(sin(a1)*N.x - cos(a1)*N.y)\npoint P2 = P1 + l*(sin(a2)*N.x - cos(a2)*N.y)\n"
    "point P3 = P2 + l*(sin(a3)*N.x - cos(a3)*N.y)\npoint P4 = P3 + l*(sin(a4)*N.x - cos(a4)*N.y)\n"
    "point P5 = P4 + l*(sin(a5)*N.x - cos(a5)*N.y)\npoint P6 = P5 + l*(sin(a6)*N.x - cos(a6)*N.y)\n"
    "point P7 = P6 + l*(sin(a7)*N.x - cos(a7)*N.y)\npoint P8 = P7 + l*(sin(a8)*N.x - cos(a8)*N.y)\n"
    "point P9 = P8 + l*(sin(a9)*N.x - cos(a9)*N.y)\n"
    "point P10 = P9 + l*(sin(a10)*N.x - cos(a10)*N.y)\n"
    "particle P1 mass m\nparticle P2 mass m\nparticle P3 mass m\nparticle P4 mass m\n"
    "particle P5 mass m\nparticle P6 mass m\nparticle P7 mass m\nparticle P8 mass m\n"
    "particle P9 mass m\nparticle P10 mass 2*m\ngravity -g*N.y\n";

/* A 12-link 3D chain in the model language, driven through an input
 * (bodiless: its last link carries no body, so M is singular). */
static char *chain_lag_with(int n, int bodiless);
static char *chain_lag(int n) { return chain_lag_with(n, 0); }
static char *chain_lag_with(int n, int bodiless) {
  size_t cap = 1024 + (size_t)n * 200, len = 0;
  char *s = malloc(cap);
  len += (size_t)snprintf(s + len, cap - len, "coordinates");
  for (int i = 1; i <= n; i++) len += (size_t)snprintf(s + len, cap - len, " q%d", i);
  len += (size_t)snprintf(s + len, cap - len,
                          "\nparameters m = 1, l = 0.5, g = 9.81\n"
                          "inputs tau = 0.4*sin(2*t)\nframe F0\npoint P0\n");
  const char *axis[3] = {"z", "x", "y"};
  for (int i = 1; i <= n; i++) {
    len += (size_t)snprintf(s + len, cap - len,
                            "frame F%d = rotate(F%d, F%d.%s, q%d)\n"
                            "point P%d = P%d + l*F%d.x\n",
                            i, i - 1, i - 1, axis[i % 3], i, i, i - 1, i);
    if (!bodiless || i < n)
      len += (size_t)snprintf(s + len, cap - len,
                              "body F%d mass m*(1 + %d/10) at P%d inertia (0.01, 0.02, 0.03)\n",
                              i, i, i);
  }
  snprintf(s + len, cap - len, "gravity -g*F0.z\nforce q1: tau - 0.2*q1'\n");
  return s;
}

enum { NSTATE = 3 };

static void state(size_t n, int k, double *q, double *qd) {
  unsigned x = 100u + (unsigned)k;
  for (size_t i = 0; i < n; i++) q[i] = 1.2 * tu_rnd(&x), qd[i] = tu_rnd(&x);
}

typedef struct job {
  const lg_system *s;
  size_t n;
  double *qdd; /* NSTATE * n */
  int ok;
} job;

/* The first evaluations of a lazy system, from one of two threads. */
static void *first_accels(void *arg) {
  job *j = arg;
  lg_work *w = NULL;
  double *q = calloc(j->n, sizeof *q), *qd = calloc(j->n, sizeof *qd);
  j->ok = lg_work_new(j->s, &w, NULL) == LG_OK;
  for (int k = 0; j->ok && k < NSTATE; k++) {
    state(j->n, k, q, qd);
    j->ok = lg_work_accel(w, 0.3 * k, q, qd, j->qdd + k * j->n, NULL, NULL) == LG_OK;
  }
  lg_work_free(w);
  free(q);
  free(qd);
  return NULL;
}

/* links: the first q'' by the recursion on numbers (num_links.c), else
 * (a tree not of links: particles) by the recursion's tape */
static void compare(const char *name, const char *text, int links) {
  lg_system *eager = tu_derive(name, text, 0, LG_LAGRANGE),
            *lazy = tu_derive(name, text, 1, LG_LAGRANGE),
            *lazy2 = tu_derive(name, text, 1, LG_LAGRANGE),
            *lazy3 = tu_derive(name, text, 1, LG_LAGRANGE);
  CHECK(eager && lazy && lazy2 && lazy3);
  if (!eager || !lazy || !lazy2 || !lazy3) goto done;
  size_t n = lg_nq(eager), size = lg_eval_record_size(eager);
  CHECK(n > 8 && lg_nq(lazy) == n && lg_nc(eager) == 0);
  double *q = calloc(n, sizeof *q), *qd = calloc(n, sizeof *qd);
  double *a = calloc(NSTATE * n, sizeof *a), *b = calloc(NSTATE * n, sizeof *b);
  double *c = calloc(NSTATE * n, sizeof *c), *ta = calloc(NSTATE * n, sizeof *ta);
  double *tb = calloc(NSTATE * n, sizeof *tb);
  double *ra = calloc(size, sizeof *ra), *rb = calloc(size, sizeof *rb);
  /* q'' first (only the dynamics tape compiled), then every form (the rest
   * compiled), then q'' again */
  int ok = 1;
  for (int k = 0; k < NSTATE; k++) {
    state(n, k, q, qd);
    ok &= lg_eval_accel(eager, 0.3 * k, q, qd, NULL, a + k * n, NULL, NULL) == LG_OK;
    ok &= lg_eval_accel(lazy, 0.3 * k, q, qd, NULL, b + k * n, NULL, NULL) == LG_OK;
  }
  CHECK(ok);
  CHECK(memcmp(a, b, NSTATE * n * sizeof *a) == 0);
  CHECK(lazy->num_tree && eager->num_tree && !lazy->compiled);
  CHECK(lazy->num_tree && (lazy->num_tree->links != NULL) == links);
  CHECK(lazy->num_tree && (lazy->num_tree->tree != NULL) == !links);
  for (int k = 0; k < NSTATE; k++) {
    state(n, k, q, qd);
    double t = 0.3 * k;
    ok &= lg_eval_many(eager, 1, &t, q, qd, NULL, ra, NULL) == LG_OK;
    ok &= lg_eval_many(lazy, 1, &t, q, qd, NULL, rb, NULL) == LG_OK;
    CHECK(ok && memcmp(ra, rb, size * sizeof *ra) == 0);
    /* a tree of links: every form from the links on numbers, nothing else
     * compiled (issue 26) */
    CHECK(!links || !lazy->compiled);
    /* independently: p = M q', T = q'.M q' / 2 */
    {
      const double *M = ra + 2 * n, *p = ra + 3 * n + n * n + 4 * n * n + 2 * n;
      double T = ra[size - 2], Tq = 0, perr = 0, pscale = 1e-3;
      for (size_t i = 0; i < n; i++) {
        double x = 0;
        for (size_t j2 = 0; j2 < n; j2++) x += M[i * n + j2] * qd[j2];
        perr = fmax(perr, fabs(x - p[i]));
        pscale = fmax(pscale, fabs(x));
        Tq += qd[i] * x / 2;
      }
      CHECK(perr <= 1e-12 * pscale && fabs(T - Tq) <= 1e-12 * fmax(fabs(T), 1e-3));
    }
    /* lg_eval with only some forms (the full ones without M or f): the
     * record's numbers, bit for bit */
    {
      size_t N = 2 * n;
      double *Mf = calloc(N * N, sizeof *Mf), *ff = calloc(N, sizeof *ff),
             *pm = calloc(n, sizeof *pm);
      lg_eval_result r = {0};
      r.mass_matrix_full = Mf, r.forcing_full = ff, r.momenta = pm;
      CHECK(lg_eval(lazy, t, q, qd, NULL, &r, NULL) == LG_OK);
      CHECK(memcmp(Mf, ra + 2 * n + n * n + n, N * N * sizeof *Mf) == 0 &&
            memcmp(ff, ra + 2 * n + n * n + n + N * N, N * sizeof *ff) == 0 &&
            memcmp(pm, ra + 2 * n + n * n + n + N * N + N, n * sizeof *pm) == 0);
      free(Mf), free(ff), free(pm);
    }
    /* eval's q'' is accel's, to the last bit (both the recursion's) */
    CHECK(memcmp(ra, a + k * n, n * sizeof *ra) == 0);
    /* independently (M by composite rigid bodies, q'' by the articulated-
     * body recursion): M symmetric, M q'' = f */
    const double *M = ra + 2 * n, *f = M + n * n;
    double asym = 0, res = 0, scale = 0;
    for (size_t i = 0; i < n; i++) {
      double r = -f[i];
      for (size_t j2 = 0; j2 < n; j2++) {
        asym = fmax(asym, fabs(M[i * n + j2] - M[j2 * n + i]));
        r += M[i * n + j2] * ra[j2];
        scale = fmax(scale, fabs(M[i * n + j2] * ra[j2]));
      }
      res = fmax(res, fabs(r));
    }
    CHECK(asym == 0 && res <= 1e-9 * (1 + scale));
    ok &= lg_eval_accel(lazy, t, q, qd, NULL, c + k * n, NULL, NULL) == LG_OK;
  }
  CHECK(ok && memcmp(a, c, NSTATE * n * sizeof *a) == 0);
  /* a workspace made before the rest was compiled, then every form */
  {
    lg_work *w = NULL;
    CHECK(lg_work_new(lazy3, &w, NULL) == LG_OK);
    state(n, 1, q, qd);
    double t = 0.3;
    CHECK(lg_work_accel(w, t, q, qd, c, NULL, NULL) == LG_OK &&
          memcmp(c, a + n, n * sizeof *c) == 0);
    lg_eval_result r = {0};
    double *M = calloc(n * n, sizeof *M), *f = calloc(n, sizeof *f), T = 0, V = 0;
    r.qdd = c, r.mass_matrix = M, r.forcing = f, r.T = &T, r.V = &V;
    CHECK(lg_work_eval(w, t, q, qd, &r, NULL) == LG_OK);
    lg_eval_many(eager, 1, &t, q, qd, NULL, ra, NULL);
    CHECK(memcmp(c, ra, n * sizeof *c) == 0 && memcmp(M, ra + 2 * n, n * n * sizeof *M) == 0 &&
          memcmp(f, ra + 2 * n + n * n, n * sizeof *f) == 0);
    CHECK(T == ra[size - 2] && V == ra[size - 1]);
    free(M);
    free(f);
    lg_work_free(w);
  }
  /* simulate's pieces (the recursion's tape, the energy balance) come
   * last: the same run, step for step, as the eager system's */
  {
    double *qa = calloc(n, sizeof *qa), *qb = calloc(n, sizeof *qb);
    lg_sim_options o;
    lg_sim_stats sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    lg_sim_options_default(eager, &o);
    o.tf = 0.02;
    o.dt = 0.01;
    state(n, 2, q, qd);
    o.q_end = qa;
    int ran = lg_simulate(eager, &o, q, qd, NULL, NULL, NULL, &sa, NULL) == LG_OK;
    o.q_end = qb;
    ran &= lg_simulate(lazy, &o, q, qd, NULL, NULL, NULL, &sb, NULL) == LG_OK;
    CHECK(ran);
    CHECK(memcmp(qa, qb, n * sizeof *qa) == 0 && sa.steps == sb.steps && sa.steps > 0 &&
          sa.rhs_evals == sb.rhs_evals && sa.max_energy_drift == sb.max_energy_drift &&
          sa.energy_scale == sb.energy_scale && sa.energy_scale > 0);
    /* the run's energy balance holds (an independent check: the drift is
     * the integrator's error, small against the energies) */
    CHECK(sb.max_energy_drift <= 1e-4 * sb.energy_scale);
    free(qa);
    free(qb);
  }
  /* every form again once everything is compiled (simulate): the same */
  {
    state(n, 0, q, qd);
    double t = 0;
    CHECK(lazy->compiled);
    CHECK(lg_eval_many(lazy, 1, &t, q, qd, NULL, rb, NULL) == LG_OK);
    CHECK(lg_eval_many(eager, 1, &t, q, qd, NULL, ra, NULL) == LG_OK);
    CHECK(memcmp(ra, rb, size * sizeof *ra) == 0);
  }
  /* every form asked first (the two steps in one call), then q'' */
  {
    lg_system *lazy4 = tu_derive(name, text, 1, LG_LAGRANGE);
    state(n, 0, q, qd);
    double t = 0;
    CHECK(lazy4 && lg_eval_many(lazy4, 1, &t, q, qd, NULL, rb, NULL) == LG_OK);
    CHECK(!links || (lazy4 && !lazy4->compiled)); /* (the links' forms alone) */
    CHECK(lg_eval_many(eager, 1, &t, q, qd, NULL, ra, NULL) == LG_OK);
    CHECK(memcmp(ra, rb, size * sizeof *ra) == 0);
    CHECK(lazy4 && lg_eval_accel(lazy4, t, q, qd, NULL, c, NULL, NULL) == LG_OK &&
          memcmp(c, a, n * sizeof *c) == 0);
    lg_system_free(lazy4);
  }
  /* two threads make the first evaluations of one lazy system at once */
  {
    job j1 = {lazy2, n, ta, 0}, j2 = {lazy2, n, tb, 0};
    pthread_t t1, t2;
    int made = pthread_create(&t1, NULL, first_accels, &j1) == 0;
    made &= pthread_create(&t2, NULL, first_accels, &j2) == 0;
    CHECK(made);
    if (made) {
      pthread_join(t1, NULL);
      pthread_join(t2, NULL);
      CHECK(j1.ok && j2.ok);
      CHECK(memcmp(ta, a, NSTATE * n * sizeof *a) == 0 &&
            memcmp(tb, a, NSTATE * n * sizeof *a) == 0);
    }
  }
  free(q), free(qd), free(a), free(b), free(c), free(ta), free(tb), free(ra), free(rb);
done:
  lg_system_free(eager);
  lg_system_free(lazy);
  lg_system_free(lazy2);
  lg_system_free(lazy3);
}

/* A large tree whose M is singular everywhere (a bodiless last link):
 * the recursion's q'' is not finite, and every entry reports the dense
 * solve's diagnostic, lazy or not, whichever call comes first. */
static void singular(void) {
  char *text = chain_lag_with(10, 1);
  lg_system *eager = tu_derive("bodiless.lag", text, 0, LG_LAGRANGE),
            *lazy = tu_derive("bodiless.lag", text, 1, LG_LAGRANGE),
            *lazy2 = tu_derive("bodiless.lag", text, 1, LG_LAGRANGE);
  CHECK(eager && lazy && lazy2);
  if (eager && lazy && lazy2) {
    size_t n = lg_nq(eager);
    double q[10] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}, qd[10] = {0}, qdd[10];
    lg_diag d1, d2, d3, d4;
    lg_eval_result r = {0};
    r.qdd = qdd;
    CHECK(n == 10);
    CHECK(lg_eval_accel(eager, 0, q, qd, NULL, qdd, NULL, &d1) == LG_ERR_NUMERIC);
    CHECK(lg_eval_accel(lazy, 0, q, qd, NULL, qdd, NULL, &d2) == LG_ERR_NUMERIC);
    CHECK(lg_eval(lazy2, 0, q, qd, NULL, &r, &d3) == LG_ERR_NUMERIC);
    CHECK(lg_eval_accel(lazy2, 0, q, qd, NULL, qdd, NULL, &d4) == LG_ERR_NUMERIC);
    CHECK(strstr(d1.text, "mass matrix is singular") != NULL);
    CHECK(!strcmp(d1.text, d2.text) && !strcmp(d1.text, d3.text) && !strcmp(d1.text, d4.text));
  }
  lg_system_free(eager);
  lg_system_free(lazy);
  lg_system_free(lazy2);
  free(text);
}

/* The command's report (lg_eval_format) of a large tree of links, every
 * form from the links: a parameter without a value is an error at its
 * declaration when the equations use it, and never read when not. */
static void valueless(void) {
  char *text = chain_lag(12), *t2 = malloc(strlen(text) + 16);
  const char *at = strstr(text, "parameters m = 1,");
  CHECK(at != NULL);
  if (!at) {
    free(text), free(t2);
    return;
  }
  sprintf(t2, "%.*sparameters k, m,%s", (int)(at - text), text,
          at + strlen("parameters m = 1,"));
  lg_system *s = tu_derive("novalue.lag", t2, 1, LG_LAGRANGE);
  CHECK(s != NULL);
  if (s) {
    char *out = NULL;
    lg_diag d;
    CHECK(lg_eval_format(s, NULL, NULL, LG_FORMAT_TEXT, &out, NULL, &d) == LG_ERR_MODEL);
    CHECK(strstr(d.text, "'m' has no value") && d.line == 2);
    CHECK(!s->compiled && s->num_tree && s->num_tree->links);
    size_t np = lg_np(s);
    double *p = calloc(np, sizeof *p);
    lg_default_params(s, p);
    for (size_t i = 0; i < np; i++)
      if (!strcmp(lg_parameter_name(s, i), "m")) p[i] = 1.0;
    CHECK(lg_eval_format(s, NULL, p, LG_FORMAT_TEXT, &out, NULL, &d) == LG_OK && out &&
          strstr(out, "T = "));
    lg_string_free(out);
    free(p);
  }
  lg_system_free(s);
  free(text), free(t2);
}

int main(void) {
  char *arm = arm_urdf(40), *chain = chain_lag(12), *branch = branch_urdf();
  compare("arm40.urdf", arm, 1);
  compare("chain12.lag", chain, 1);
  compare("branch.urdf", branch, 1);
  compare("particles.lag", PARTICLES, 0);
  free(arm);
  free(chain);
  free(branch);
  singular();
  valueless();
  return tu_summary("test_first_eval");
}
