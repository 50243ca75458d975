/* test_deferred_derive.c - issue 26: a large URDF tree derived lazily
 * (lg_derive_options.lazy) derives no equation at lg_derive: its q'' and
 * eval's forms come from the URDF's numbers (num_links_numbers.c), and the
 * equations are derived by the first call that needs them. Every door must
 * then answer exactly as on a system derived at once: for each public
 * entry, a fresh lazy system calls it FIRST (so that this entry is the one
 * that derives) and its answer is compared, byte for byte or bit for bit,
 * with an eagerly derived system's. The robot: 10 moving joints about
 * general axes (two prismatic, one with damping), a fixed joint carrying a
 * mass, a branch. Also: the system is really deferred (nothing derived
 * after lg_derive_with), is not for Kane's method or a model that imports
 * the URDF, and q'' agrees with the dense Euler-Lagrange solve (1e-12).
 * The same entries on the first 6 of those joints: a URDF robot is taken by its
 * links at any size (the Panda's dense derivation took 9 s). */
#include "lagrange.h"
#include "lg_api_internal.h" /* (derived: was the derivation left for later?) */
#include "test_api_util.h"
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* links l1..l10 (l5 and l9 on prismatic joints), f7 fixed on l7 with a
 * mass, l8 branching from l4 */
static char *robot(int nlinks) {
  size_t cap = 40000, len = 0;
  char *s = malloc(cap);
  unsigned x = 11;
  len += (size_t)snprintf(s + len, cap - len,
                          "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n<link name=\"base\"/>\n");
  for (int i = 1; i <= nlinks; i++) {
    int parent = i == 8 ? 4 : i - 1;
    const char *type = i == 5 || i == 9 ? "prismatic" : i == 3 ? "revolute" : "continuous";
    len += (size_t)snprintf(
        s + len, cap - len,
        "<link name=\"l%d\"><inertial><origin xyz=\"%.4f %.4f %.4f\" rpy=\"%.4f %.4f %.4f\"/>"
        "<mass value=\"%.4f\"/><inertia ixx=\"%.4f\" ixy=\"%.4f\" ixz=\"0.001\" iyy=\"%.4f\""
        " iyz=\"-0.002\" izz=\"%.4f\"/></inertial></link>\n"
        "<joint name=\"j%d\" type=\"%s\"><parent link=\"%s%.0d\"/><child link=\"l%d\"/>"
        "<origin xyz=\"%.4f %.4f %.4f\" rpy=\"%.4f %.4f %.4f\"/><axis xyz=\"%.4f %.4f %.4f\"/>"
        "%s%s</joint>\n",
        i, 0.02 * tu_rnd(&x), 0.02 * tu_rnd(&x), 0.1, 0.3 * tu_rnd(&x), 0.3 * tu_rnd(&x),
        0.3 * tu_rnd(&x), 1 + 0.3 * tu_rnd(&x), 0.05 + 0.01 * tu_rnd(&x), 0.002 * tu_rnd(&x),
        0.06 + 0.01 * tu_rnd(&x), 0.04 + 0.01 * tu_rnd(&x), i, type, parent ? "l" : "base", parent,
        i, 0.02 * tu_rnd(&x), 0.02 * tu_rnd(&x), 0.2, 0.4 * tu_rnd(&x), 0.4 * tu_rnd(&x),
        0.4 * tu_rnd(&x), tu_rnd(&x), tu_rnd(&x), tu_rnd(&x) + 1.5,
        i == 3 ? "<limit lower=\"-2\" upper=\"2\" effort=\"1\" velocity=\"1\"/>" : "",
        i == 2 || i == 9 ? "<dynamics damping=\"0.4\"/>" : "");
    if (i == 7)
      len += (size_t)snprintf(
          s + len, cap - len,
          "<link name=\"f7\"><inertial><origin xyz=\"0.05 0 0.02\"/><mass value=\"0.7\"/>"
          "<inertia ixx=\"0.01\" iyy=\"0.02\" izz=\"0.015\"/></inertial></link>\n"
          "<joint name=\"jf\" type=\"fixed\"><parent link=\"l7\"/><child link=\"f7\"/>"
          "<origin xyz=\"0.1 0.02 0.05\" rpy=\"0.3 -0.2 0.5\"/></joint>\n");
  }
  snprintf(s + len, cap - len, "</robot>\n");
  return s;
}

enum { N = 10 };
static double Q[N], QD[N], P[1];
static size_t NQ = N; /* the robot's coordinates (N or fewer: arrays of N, zeros after NQ) */

/* One entry's answer as bytes (a string, or numbers as they are). */
typedef struct answer {
  char *bytes;
  size_t len;
} answer;

static void keep(answer *a, const void *p, size_t len) {
  a->bytes = malloc(len + 1);
  memcpy(a->bytes, p, len);
  a->len = len;
}

static void keep_string(answer *a, char *s) {
  if (s) keep(a, s, strlen(s));
  else a->bytes = NULL, a->len = 0;
  lg_string_free(s);
}

typedef struct sim_rows {
  double buf[4000];
  size_t n;
} sim_rows;

static int on_point(void *ud, const lg_sim_point *p) {
  sim_rows *r = ud;
  if (r->n + 2 * NQ + 3 > 4000) return 1;
  r->buf[r->n++] = p->t;
  memcpy(r->buf + r->n, p->q, NQ * sizeof *p->q);
  memcpy(r->buf + r->n + NQ, p->qd, NQ * sizeof *p->qd);
  r->n += 2 * NQ;
  r->buf[r->n++] = p->E;
  r->buf[r->n++] = p->W;
  return 0;
}

/* entry k on s: its answer (status first) */
static int entry(int k, const lg_system *s, answer *a) {
  lg_diag d;
  lg_status st = LG_OK;
  char *out = NULL, *note = NULL, *hdr = NULL;
  switch (k) {
  case 0: { /* lg_eval: every form */
    double qdd[N] = {0}, M[N * N] = {0}, f[N] = {0}, p[N] = {0}, T = 0, V = 0;
    lg_eval_result r = {0};
    r.qdd = qdd, r.mass_matrix = M, r.forcing = f, r.momenta = p, r.T = &T, r.V = &V;
    st = lg_eval(s, 0.3, Q, QD, P, &r, &d);
    double all[N + N * N + 2 * N + 2];
    memcpy(all, qdd, sizeof qdd);
    memcpy(all + N, M, sizeof M);
    memcpy(all + N + N * N, f, sizeof f);
    memcpy(all + 2 * N + N * N, p, sizeof p);
    all[3 * N + N * N] = T, all[3 * N + N * N + 1] = V;
    keep(a, all, sizeof all);
    break;
  }
  case 1: { /* lg_eval_accel */
    double qdd[N] = {0};
    st = lg_eval_accel(s, 0.3, Q, QD, P, qdd, NULL, &d);
    keep(a, qdd, sizeof qdd);
    break;
  }
  case 2: /* lg_print */
    st = lg_print(s, LG_FORMAT_TEXT, &out, &d);
    keep_string(a, out);
    break;
  case 3: /* lg_codegen (the default functions) */
    st = lg_codegen(s, LG_CODE_C, "r", &out, &hdr, &d);
    lg_string_free(hdr);
    keep_string(a, out);
    break;
  case 4: /* lg_codegen_functions (the recursion alone) */
    st = lg_codegen_functions(s, LG_CODE_C, "r", "rhs_recursive", &out, &hdr, &d);
    lg_string_free(hdr);
    keep_string(a, out);
    break;
  case 5: { /* lg_linearize_format */
    lg_lin_options o;
    lg_lin_options_default(&o);
    o.q = Q, o.qd = QD;
    st = lg_linearize_format(s, &o, LG_FORMAT_JSON, &out, &note, &d);
    lg_string_free(note);
    keep_string(a, out);
    break;
  }
  case 6: { /* lg_simulate */
    lg_sim_options o;
    lg_sim_options_default(s, &o);
    o.t0 = 0, o.tf = 0.2, o.dt = 0.05;
    sim_rows *r = calloc(1, sizeof *r);
    st = lg_simulate(s, &o, Q, QD, P, on_point, r, NULL, &d);
    keep(a, r->buf, r->n * sizeof *r->buf);
    free(r);
    break;
  }
  case 7: { /* lg_eval_format (eval --json) */
    lg_eval_state x = {0};
    x.t = 0.3, x.q = Q, x.qd = QD;
    st = lg_eval_format(s, &x, P, LG_FORMAT_JSON, &out, &note, &d);
    lg_string_free(note);
    keep_string(a, out);
    break;
  }
  case 8: { /* lg_work_new + lg_work_eval */
    lg_work *w = NULL;
    double qdd[N] = {0}, M[N * N] = {0};
    lg_eval_result r = {0};
    r.qdd = qdd, r.mass_matrix = M;
    st = lg_work_new(s, &w, &d);
    if (st == LG_OK) st = lg_work_eval(w, 0.3, Q, QD, &r, &d);
    lg_work_free(w);
    double all[N + N * N];
    memcpy(all, qdd, sizeof qdd);
    memcpy(all + N, M, sizeof M);
    keep(a, all, sizeof all);
    break;
  }
  case 9: { /* lg_scene_eval */
    size_t k = lg_scene_size(s);
    double *o = calloc(k + 1, sizeof *o);
    st = lg_scene_eval(s, 0.3, Q, P, o, &d);
    keep(a, o, k * sizeof *o);
    free(o);
    break;
  }
  default: return 0;
  }
  if (st != LG_OK) fprintf(stderr, "entry %d: %s\n", k, d.text);
  return st == LG_OK;
}

/* Each entry first on a fresh lazy system (deferred: nothing derived
 * yet), then simulate and eval: each the eager system's answer. */
static void orders(const char *name, const char *text, const lg_system *eager, int deferred) {
  answer sim = {0}, ev = {0};
  CHECK(entry(6, eager, &sim) && entry(0, eager, &ev));
  for (int k = 0;; k++) {
    answer want = {0}, got = {0}, after_sim = {0}, after_ev = {0};
    if (!entry(k, eager, &want)) {
      if (k < 10) CHECK(0);
      free(want.bytes);
      break;
    }
    lg_system *s = tu_derive(name, text, 1, LG_LAGRANGE);
    CHECK(s && (s->derived == 0) == (deferred != 0));
    CHECK(s && entry(k, s, &got));
    CHECK(want.len == got.len && want.len && !memcmp(want.bytes, got.bytes, want.len));
    if (want.len != got.len || (want.len && memcmp(want.bytes, got.bytes, want.len)))
      fprintf(stderr, "%s entry %d: the lazy system answers differently\n", name, k);
    /* again, now derived: the same; then simulate and eval after it */
    answer again = {0};
    CHECK(s && entry(k, s, &again) && again.len == got.len &&
          !memcmp(again.bytes, got.bytes, got.len));
    CHECK(s && entry(6, s, &after_sim) && after_sim.len == sim.len &&
          !memcmp(after_sim.bytes, sim.bytes, sim.len));
    CHECK(s && entry(0, s, &after_ev) && after_ev.len == ev.len &&
          !memcmp(after_ev.bytes, ev.bytes, ev.len));
    if (memcmp(after_sim.bytes, sim.bytes, sim.len) || memcmp(after_ev.bytes, ev.bytes, ev.len))
      fprintf(stderr, "%s: simulate or eval after entry %d differ\n", name, k);
    free(want.bytes);
    free(got.bytes);
    free(again.bytes);
    free(after_sim.bytes);
    free(after_ev.bytes);
    lg_system_free(s);
  }
  free(sim.bytes);
  free(ev.bytes);
}

/* Four entries at once on one fresh deferred system (one of them derives
 * it, the others wait or need nothing): the same answers. */
typedef struct job {
  int k;
  const lg_system *s;
  answer a;
  int ok;
} job;

static void *run_job(void *ud) {
  job *j = ud;
  j->ok = entry(j->k, j->s, &j->a);
  return NULL;
}

static void threads(const char *urdf, const lg_system *eager) {
  static const int kinds[4] = {2, 6, 0, 4}; /* print, simulate, eval, codegen */
  lg_system *s = tu_derive("r.urdf", urdf, 1, LG_LAGRANGE);
  CHECK(s && !s->derived);
  if (!s) return;
  job jobs[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    jobs[i] = (job){kinds[i], s, {0}, 0};
    CHECK(pthread_create(&th[i], NULL, run_job, &jobs[i]) == 0);
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++) {
    answer want = {0};
    CHECK(jobs[i].ok && entry(jobs[i].k, eager, &want));
    CHECK(want.len == jobs[i].a.len && !memcmp(want.bytes, jobs[i].a.bytes, want.len));
    if (want.len != jobs[i].a.len || memcmp(want.bytes, jobs[i].a.bytes, want.len))
      fprintf(stderr, "entry %d (on a thread): the deferred system answers differently\n",
              jobs[i].k);
    free(want.bytes);
    free(jobs[i].a.bytes);
  }
  lg_system_free(s);
}

int main(void) {
  char *urdf = robot(N);
  unsigned x = 5;
  for (int i = 0; i < N; i++) Q[i] = 0.8 * tu_rnd(&x), QD[i] = tu_rnd(&x);
  P[0] = 9.81;
  lg_system *eager = tu_derive("r.urdf", urdf, 0, LG_LAGRANGE);
  CHECK(eager && lg_nq(eager) == N);
  if (!eager) return tu_summary("test_deferred_derive");
  /* deferred: nothing derived, yet names, q'' and every form */
  lg_system *lazy = tu_derive("r.urdf", urdf, 1, LG_LAGRANGE);
  CHECK(lazy && !lazy->derived && !lazy->eom && lg_nq(lazy) == N && lg_np(lazy) == 1);
  for (size_t i = 0; lazy && i < N; i++)
    CHECK(!strcmp(lg_coordinate_name(lazy, i), lg_coordinate_name(eager, i)));
  /* q'' against the dense Euler-Lagrange solve (M q'' = f from the
   * eager system's dense forms, solved here) */
  double M[N * N], f[N], qdd[N];
  lg_eval_result r = {0};
  r.mass_matrix = M, r.forcing = f;
  CHECK(lg_eval(eager, 0.3, Q, QD, P, &r, NULL) == LG_OK);
  CHECK(lazy && lg_eval_accel(lazy, 0.3, Q, QD, P, qdd, NULL, NULL) == LG_OK);
  double worst = 0, scale = 0;
  for (int i = 0; i < N; i++) {
    double Mq = 0;
    for (int j = 0; j < N; j++) Mq += M[i * N + j] * qdd[j];
    worst = fmax(worst, fabs(Mq - f[i]));
    scale = fmax(scale, fabs(f[i]));
  }
  printf("deferred q'': |M q'' - f| %.2e (|f| %.2e)\n", worst, scale);
  CHECK(worst <= 1e-12 * (scale > 1 ? scale : 1));
  CHECK(lazy && !lazy->derived); /* (q'' and eval's forms derive nothing) */
  lg_system_free(lazy);
  orders("r.urdf", urdf, eager, 1);
  threads(urdf, eager);
  /* not deferred: Kane's method, a model importing the URDF, eager */
  lg_system *k = tu_derive("r.urdf", urdf, 1, LG_KANE);
  CHECK(k && k->derived);
  lg_system_free(k);
  CHECK(eager->derived);
  FILE *fh = fopen("tdd_r.urdf", "w");
  if (fh) {
    fputs(urdf, fh);
    fclose(fh);
    const char *imp = "import \"tdd_r.urdf\"\n";
    lg_system *i = tu_derive("tdd_i.lag", imp, 1, LG_LAGRANGE);
    CHECK(i && i->derived && lg_nq(i) == N);
    lg_system_free(i);
    /* derived at once but lazily compiled: the same answers whatever ran
     * first (a print used to change simulate's energy, a codegen its q'') */
    lg_system *ie = tu_derive("tdd_i.lag", imp, 0, LG_LAGRANGE);
    CHECK(ie != NULL);
    if (ie) orders("tdd_i.lag", imp, ie, 0);
    lg_system_free(ie);
    remove("tdd_r.urdf");
  }
  lg_system_free(eager);
  free(urdf);
  /* six joints (a revolute with limits, a prismatic, damping): deferred as well */
  NQ = 6;
  char *small = robot(6);
  lg_system *e6 = tu_derive("r6.urdf", small, 0, LG_LAGRANGE);
  CHECK(e6 && lg_nq(e6) == 6);
  lg_system *l6 = tu_derive("r6.urdf", small, 1, LG_LAGRANGE);
  CHECK(l6 && !l6->derived && lg_nq(l6) == 6);
  lg_system_free(l6);
  if (e6) orders("r6.urdf", small, e6, 1);
  lg_system_free(e6);
  free(small);
  return tu_summary("test_deferred_derive");
}
