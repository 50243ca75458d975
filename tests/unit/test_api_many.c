/* test_api_many.c - the batch and packed entries of lagrange.h
 * (lg_eval_many, lg_eval_accel_many, lg_eval_packed, lg_eval_accel_packed):
 * their records against lg_eval field by field, t per state, count 0, the
 * error paths (the failing state named), three threads on one system
 * sharing its scratch pool, and out-of-memory on a fresh system. */
#include "lagrange.h"
#include "lg_base.h"
#include "test_models.h"
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* driven by sin(t); singular where x = 1 */
static const char DRIVEN[] =
    "coordinates x\n"
    "parameters m = 2\n"
    "T = 1/2*m*(1 - x)^2*x'^2\n"
    "force x: sin(t)\n";

#define MAXN 4
#define MAXREC 512
#define NSTATES 6

/* state k of a test batch: near the initial state, t = 0.1 k */
static void state(const lg_system *s, int k, double *t, double *q, double *qd) {
  size_t n = lg_nq(s);
  lg_initial_state(s, q, qd);
  for (size_t i = 0; i < n; i++) {
    q[i] += 0.03 * (double)((k + 1) * (int)(i + 2) % 7) - 0.1;
    qd[i] += 0.05 * (double)((k + 3) * (int)(i + 1) % 5) - 0.1;
  }
  *t = 0.1 * k;
}

/* lg_eval's fields laid out as lagrange.h documents the record */
static void eval_record(const lg_system *s, double t, const double *q, const double *qd,
                        double *rec) {
  size_t n = lg_nq(s), m = lg_nc(s), N = 2 * n + m;
  lg_eval_result r;
  r.qdd = rec;
  r.lam = rec + n;
  r.constraint_forces = rec + n + m;
  r.mass_matrix = rec + 2 * n + m;
  r.forcing = r.mass_matrix + n * (n + m);
  r.mass_matrix_full = r.forcing + n;
  r.forcing_full = r.mass_matrix_full + N * N;
  r.momenta = r.forcing_full + N;
  r.residuals = r.momenta + n;
  r.T = r.residuals + m;
  r.V = r.T + 1;
  CHECK(lg_eval(s, t, q, qd, NULL, &r, NULL) == LG_OK);
  CHECK((size_t)(r.V + 1 - rec) == lg_eval_record_size(s));
}

/* bitwise equal, NaN equal to NaN (Kane's multipliers) */
static int same(const double *a, const double *b, size_t k) {
  for (size_t i = 0; i < k; i++)
    if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i])))) return 0;
  return 1;
}

static void test_records(const char *text, lg_method method) {
  lg_system *s = derive_text("m.lag", text, method);
  CHECK(s != NULL);
  if (!s) return;
  size_t n = lg_nq(s), m = lg_nc(s), size = lg_eval_record_size(s);
  CHECK(size <= MAXREC && n <= MAXN);
  double t[NSTATES], q[NSTATES * MAXN], qd[NSTATES * MAXN];
  for (int k = 0; k < NSTATES; k++) state(s, k, t + k, q + k * n, qd + k * n);
  static double out[NSTATES * MAXREC], want[MAXREC];
  double qdd[NSTATES * MAXN], lam[NSTATES * MAXN], one[MAXN], onelam[MAXN];
  CHECK(lg_eval_many(s, NSTATES, t, q, qd, NULL, out, NULL) == LG_OK);
  CHECK(lg_eval_accel_many(s, NSTATES, t, q, qd, NULL, qdd, lam, NULL) == LG_OK);
  for (int k = 0; k < NSTATES; k++) {
    eval_record(s, t[k], q + k * n, qd + k * n, want);
    CHECK(same(out + k * size, want, size));
    CHECK(lg_eval_accel(s, t[k], q + k * n, qd + k * n, NULL, one, onelam, NULL) == LG_OK);
    CHECK(same(qdd + k * n, one, n) && same(lam + k * m, onelam, m));
    CHECK(same(qdd + k * n, want, n));
    /* packed: [t, q, q'] */
    double x[1 + 2 * MAXN], rec[MAXREC], acc[MAXN];
    x[0] = t[k];
    memcpy(x + 1, q + k * n, n * sizeof *x);
    memcpy(x + 1 + n, qd + k * n, n * sizeof *x);
    CHECK(lg_eval_packed(s, x, rec) == LG_OK && same(rec, want, size));
    CHECK(lg_eval_accel_packed(s, x, acc) == LG_OK && same(acc, one, n));
  }
  /* t NULL is t = 0 everywhere; count 0 writes nothing */
  CHECK(lg_eval_many(s, 1, NULL, q, qd, NULL, out, NULL) == LG_OK);
  eval_record(s, 0.0, q, qd, want);
  CHECK(same(out, want, size));
  out[0] = 42;
  CHECK(lg_eval_many(s, 0, NULL, NULL, NULL, NULL, NULL, NULL) == LG_OK);
  CHECK(lg_eval_accel_many(s, 0, t, q, qd, NULL, out, NULL, NULL) == LG_OK && out[0] == 42);
  lg_system_free(s);
}

static void test_time_and_errors(void) {
  lg_system *s = derive_text("driven.lag", DRIVEN, LG_LAGRANGE);
  CHECK(s != NULL);
  if (!s) return;
  /* m (1 - x)^2 x'' - m (1 - x) x'^2 = sin(t) at x' = 0: x'' = sin t / (m (1 - x)^2) */
  double t[3] = {0.3, 1.1, 2.0}, q[3] = {0.5, 0.0, -1.0}, qd[3] = {0, 0, 0}, qdd[3];
  CHECK(lg_eval_accel_many(s, 3, t, q, qd, NULL, qdd, NULL, NULL) == LG_OK);
  for (int k = 0; k < 3; k++) CHECK_NEAR(qdd[k], sin(t[k]) / (2 * pow(1 - q[k], 2)), 1e-14);
  /* the third state is singular: stop there, name it, keep what came before */
  double bad[3] = {0.5, 0.0, 1.0}, out[3 * MAXREC];
  size_t size = lg_eval_record_size(s);
  lg_diag d = {0};
  qdd[0] = qdd[1] = NAN;
  CHECK(lg_eval_accel_many(s, 3, t, bad, qd, NULL, qdd, NULL, &d) == LG_ERR_NUMERIC);
  CHECK(strstr(lg_diag_text(&d), "(state 2 of the batch)") != NULL);
  CHECK(strncmp(lg_diag_text(&d), "driven.lag:", 11) == 0);
  CHECK(isfinite(qdd[0]) && isfinite(qdd[1]));
  CHECK(lg_eval_many(s, 3, t, bad, qd, NULL, out, &d) == LG_ERR_NUMERIC);
  CHECK(strstr(lg_diag_text(&d), "(state 2 of the batch)") != NULL);
  CHECK(isfinite(out[size]));
  double x[3] = {0.0, 1.0, 0.0};
  CHECK(lg_eval_packed(s, x, out) == LG_ERR_NUMERIC);
  CHECK(lg_eval_accel_packed(s, x, out) == LG_ERR_NUMERIC);
  /* usage */
  CHECK(lg_eval_many(s, 1, NULL, NULL, qd, NULL, out, &d) == LG_ERR_USAGE);
  CHECK(lg_eval_accel_many(s, 2, NULL, q, qd, NULL, NULL, NULL, &d) == LG_ERR_USAGE);
  CHECK(lg_eval_many(NULL, 1, NULL, q, qd, NULL, out, NULL) == LG_ERR_USAGE);
  CHECK(lg_eval_packed(NULL, x, out) == LG_ERR_USAGE);
  CHECK(lg_eval_packed(s, NULL, out) == LG_ERR_USAGE);
  CHECK(lg_eval_record_size(NULL) == 0);
  lg_system_free(s);
}

/* ---- threads: the scratch pool under contention ----------------------------------------- */
typedef struct job {
  const lg_system *s;
  double out[64 * MAXREC];
  int ok;
} job;

static void *eval_batches(void *ud) {
  job *j = ud;
  size_t n = lg_nq(j->s), size = lg_eval_record_size(j->s);
  j->ok = 1;
  for (int k = 0; k < 64; k++) {
    double t, q[MAXN], qd[MAXN];
    state(j->s, k, &t, q, qd);
    j->ok &= lg_eval_many(j->s, 1, &t, q, qd, NULL, j->out + k * size, NULL) == LG_OK;
    (void)n;
  }
  return NULL;
}

static void test_threads(lg_method method) {
  lg_system *s = derive_text("bowl.lag", BOWL, method);
  static job a, b, c, ref;
  a.s = b.s = c.s = ref.s = s;
  eval_batches(&ref);
  pthread_t ta, tb, tc;
  CHECK(pthread_create(&ta, NULL, eval_batches, &a) == 0);
  CHECK(pthread_create(&tb, NULL, eval_batches, &b) == 0);
  CHECK(pthread_create(&tc, NULL, eval_batches, &c) == 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  pthread_join(tc, NULL);
  size_t k = 64 * lg_eval_record_size(s);
  CHECK(a.ok && b.ok && c.ok && ref.ok);
  CHECK(same(a.out, ref.out, k) && same(b.out, ref.out, k) && same(c.out, ref.out, k));
  lg_system_free(s);
}

/* ---- out of memory: the first call on a fresh system allocates its scratch ---------------- */
static void test_out_of_memory(lg_method method) {
  lg_model *m = NULL;
  CHECK(lg_model_load_string("bowl.lag", BOWL, strlen(BOWL), &m, NULL) == LG_OK);
  int wrong = 0;
  long k;
  for (k = 0; k < 1000; k++) {
    lg_system *s = NULL;
    CHECK(lg_derive(m, method, &s, NULL) == LG_OK);
    double t = 0, q[3], qd[3], out[MAXREC];
    lg_initial_state(s, q, qd);
    lg_diag d = {0};
    lg_alloc_fail_after(k);
    lg_status st = lg_eval_many(s, 1, &t, q, qd, NULL, out, &d);
    lg_alloc_fail_after(-1);
    lg_system_free(s);
    if (st == LG_OK) break;
    if (st != LG_ERR_NOMEM || !strstr(lg_diag_text(&d), "out of memory")) wrong++;
  }
  CHECK(wrong == 0);
  CHECK(k > 0 && k < 1000);
  lg_model_free(m);
}

int main(void) {
  test_records(CART, LG_LAGRANGE);
  test_records(CART, LG_KANE);
  test_records(BOWL, LG_LAGRANGE);
  test_records(BOWL, LG_KANE);
  test_time_and_errors();
  test_threads(LG_LAGRANGE);
  test_threads(LG_KANE);
  test_out_of_memory(LG_LAGRANGE);
  test_out_of_memory(LG_KANE);
  return tu_summary("test_api_many");
}
