/* mech_kane_pivot.c - which speeds Kane's method makes dependent.
 *
 * The velocity constraints A(q, t) u + b = 0 are solved for m of the
 * speeds. The choice must hold over the whole motion, not only where it is
 * made: a pivot such as r*sin(lean) that is large at the initial state
 * vanishes when a wheel stands upright, and the eliminated equations then
 * divide by zero there. So A is evaluated at several configurations (the
 * initial state, all coordinates zero, and pseudo-random configurations
 * near the initial one, the same for every run) and the columns are
 * chosen greedily as in QR with column pivoting, scoring each column by its
 * WORST residual norm over the samples. A column whose coefficients vanish
 * somewhere loses to one that stays away from zero everywhere. Column
 * norms and their residuals under orthogonal reflections do not depend on
 * the order of the rows, so neither does the choice (the order of the
 * constraint statements); ties go to the speed declared first. */
#include "mech_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { NSAMPLES = 16 };

typedef struct sampler {
  const sym_node *const *q;
  size_t n;
  sym_atom_value_fn pv;
  void *pud;
  const double *qs; /* coordinate values of this sample, NULL: the initial state */
} sampler;

/* A value for a parameter or input nobody gave: fixed per name, generic. */
static double generic_value(const char *name) {
  uint32_t h = 2166136261u;
  for (; name && *name; name++) h = (h ^ (uint8_t)*name) * 16777619u;
  return 0.5 + (double)(h % 1000u) / 1000.0;
}

static int sample_value(void *ud, const sym_node *atom, double *out) {
  const sampler *S = ud;
  for (size_t i = 0; S->qs && i < S->n; i++)
    if (atom == S->q[i]) {
      *out = S->qs[i];
      return 0;
    }
  if (S->pv && S->pv(S->pud, atom, out) == 0) return 0;
  if (atom->kind == SYM_TIME) *out = 0;
  else if (atom->kind == SYM_COORD) *out = atom->order ? 0.5 : 0; /* no state given */
  else *out = generic_value(atom->v.name);
  return 0;
}

/* The coordinates of sample s: s = 1 all zero (where the pivots that
 * vanish, like the sine of a lean angle, usually do), s >= 2 the initial
 * ones moved by up to 0.5 in each (a fixed linear congruential sequence):
 * near the start, where the motion goes first. */
static void sample_coords(const sampler *S0, size_t s, double *qs) {
  uint64_t x = 0x9e3779b97f4a7c15ull * (s + 1);
  for (size_t i = 0; i < S0->n; i++) {
    double q0 = 0;
    sample_value((void *)S0, S0->q[i], &q0);
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    double r = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
    qs[i] = s == 1 ? 0 : q0 + r - 0.5;
  }
}

double *mech_kane_sample(sym_ctx *c, const sym_matrix *A, const sym_node *const *q, size_t n,
                         sym_atom_value_fn pv, void *pud, size_t *ns) {
  size_t m = A->rows, nu = A->cols, per = m * nu;
  double *vals = lg_malloc((NSAMPLES * per + 1) * sizeof *vals);
  double *qs = lg_malloc((n + 1) * sizeof *qs);
  *ns = NSAMPLES;
  if (!vals || !qs) {
    lg_free(vals);
    lg_free(qs);
    return NULL;
  }
  sampler S0 = {q, n, pv, pud, NULL};
  for (size_t s = 0; s < NSAMPLES; s++) {
    sampler S = S0;
    if (s) {
      sample_coords(&S0, s, qs);
      S.qs = qs;
    }
    for (size_t e = 0; e < per; e++) {
      double v = NAN;
      if (sym_eval(c, A->e[e], sample_value, &S, &v, NULL) != LG_OK) v = NAN;
      vals[s * per + e] = v;
    }
  }
  lg_free(qs);
  return vals;
}

/* Norm of column j of W (m x nu) from row k down. */
static double col_norm(const double *W, size_t m, size_t nu, size_t k, size_t j) {
  double s = 0;
  for (size_t i = k; i < m; i++) s += W[i * nu + j] * W[i * nu + j];
  return sqrt(s);
}

/* Reflect rows k.. of W so that column j has zeros below row k. */
static void householder(double *W, size_t m, size_t nu, size_t k, size_t j, double *v) {
  double norm = col_norm(W, m, nu, k, j);
  if (norm == 0) return;
  double x0 = W[k * nu + j], alpha = x0 > 0 ? -norm : norm, vv = 0;
  for (size_t i = k; i < m; i++) v[i] = W[i * nu + j] - (i == k ? alpha : 0);
  for (size_t i = k; i < m; i++) vv += v[i] * v[i];
  if (vv == 0) return;
  for (size_t c = 0; c < nu; c++) {
    double d = 0;
    for (size_t i = k; i < m; i++) d += v[i] * W[i * nu + c];
    d *= 2 / vv;
    for (size_t i = k; i < m; i++) W[i * nu + c] -= d * v[i];
  }
}

static double frob(const double *W, size_t m, size_t nu) {
  double s = 0;
  for (size_t e = 0; e < m * nu; e++) s += W[e] * W[e];
  return sqrt(s);
}

/* When every column left vanishes at one sample or another (a particle
 * on a sphere: no speed can be dependent everywhere), the best column at
 * the first usable sample (the initial state when it is usable). */
static size_t fallback(const double *W, size_t use, size_t rows, size_t nu, size_t k,
                       const int *allowed, const int *dep, const double *F) {
  size_t jb = nu;
  double best = 1e-10;
  for (size_t j = 0; use && j < nu; j++) {
    if (dep[j] || (allowed && !allowed[j])) continue;
    double sc = col_norm(W, rows, nu, k, j) / F[0];
    if (sc > best * (1 + 1e-9)) { best = sc; jb = j; }
  }
  return jb;
}

/* The numeric rank of w (rows x nu) by plain column pivoting (tmp, v:
 * scratch). */
static size_t rank_of(const double *w, size_t rows, size_t nu, double F, double *tmp, double *v) {
  memcpy(tmp, w, rows * nu * sizeof *tmp);
  size_t rank = 0;
  for (; rank < rows; rank++) {
    size_t jb = 0;
    double nb = -1;
    for (size_t j = 0; j < nu; j++) {
      double cn = col_norm(tmp, rows, nu, rank, j);
      if (cn > nb) { nb = cn; jb = j; }
    }
    if (!(nb > 1e-10 * F)) break;
    householder(tmp, rows, nu, rank, jb, v);
  }
  return rank;
}

/* Copy the usable samples (finite, rows independent) into W, their norms
 * into F; returns how many, *best_rank the highest rank seen. */
static size_t usable(const double *vals, size_t ns, size_t m_all, size_t rows, size_t nu,
                     double *W, double *F, double *tmp, double *v, size_t *best_rank) {
  size_t use = 0;
  *best_rank = 0;
  for (size_t s = 0; s < ns; s++) {
    double *w = W + use * rows * nu;
    int finite = 1;
    for (size_t e = 0; e < rows * nu; e++) {
      w[e] = vals[s * m_all * nu + e];
      finite &= isfinite(w[e]) != 0;
    }
    if (!finite) continue;
    F[use] = frob(w, rows, nu);
    size_t rank = rank_of(w, rows, nu, F[use], tmp, v);
    if (rank > *best_rank) *best_rank = rank;
    if (rank == rows) use++;
  }
  return use;
}

/* The column for step k: the largest worst-case residual over the samples
 * (ties: the first speed), or the fallback when every one vanishes
 * somewhere; nu when none is left. */
static size_t best_column(const double *W, size_t use, size_t rows, size_t nu, size_t k,
                          const int *allowed, const int *dep, const double *F) {
  size_t jb = nu;
  double best = 0;
  for (size_t j = 0; j < nu; j++) {
    if (dep[j] || (allowed && !allowed[j])) continue;
    double sc = INFINITY;
    for (size_t s = 0; s < use; s++)
      sc = fmin(sc, col_norm(W + s * rows * nu, rows, nu, k, j) / F[s]);
    if (sc > best * (1 + 1e-9)) { best = sc; jb = j; }
  }
  return best > 1e-10 ? jb : fallback(W, use, rows, nu, k, allowed, dep, F);
}

/* Greedy choice on the first `rows` rows (stride nu) of each usable sample;
 * only columns with allowed[j] (NULL: all). Returns how many columns could
 * be chosen (rows when the constraints are independent there); dep[j] = 1
 * marks them. A sample where the rows are not independent (a singular
 * configuration, or non-finite values) is skipped; when none is usable the
 * highest rank seen is returned. */
size_t mech_kane_pick(const double *vals, size_t ns, size_t m_all, size_t rows, size_t nu,
                      const int *allowed, int *dep) {
  double *W = lg_malloc((ns * rows * nu + 1) * sizeof *W);
  double *F = lg_malloc((ns + 1) * sizeof *F);
  double *tmp = lg_malloc((rows * nu + rows + 1) * sizeof *tmp);
  size_t k = 0, best_rank = 0, use = 0;
  if (!W || !F || !tmp) k = (size_t)-1;
  else {
    double *v = tmp + rows * nu;
    use = usable(vals, ns, m_all, rows, nu, W, F, tmp, v, &best_rank);
    for (; use && k < rows; k++) {
      size_t jb = best_column(W, use, rows, nu, k, allowed, dep, F);
      if (jb == nu) break;
      dep[jb] = 1;
      for (size_t s = 0; s < use; s++) householder(W + s * rows * nu, rows, nu, k, jb, v);
    }
    if (!use) k = best_rank < rows ? best_rank : rows - 1;
  }
  lg_free(W);
  lg_free(F);
  lg_free(tmp);
  return k;
}
