/* sym_matrix.c - dense symbolic matrices in the context's arena. */
#include "sym_internal.h"

#include <math.h>
#include <string.h>

sym_matrix *sym_matrix_new(sym_ctx *c, size_t rows, size_t cols) {
  if (!c) return NULL;
  sym_matrix *m = lg_arena_alloc(&c->arena, sizeof *m);
  size_t n = rows * cols;
  const sym_node **e = lg_arena_alloc(&c->arena, (n ? n : 1) * sizeof *e);
  if (!m || !e) {
    sym_set_error(c, LG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  for (size_t i = 0; i < n; i++) e[i] = c->zero;
  m->rows = rows;
  m->cols = cols;
  m->e = e;
  return m;
}

sym_matrix *sym_matrix_identity(sym_ctx *c, size_t n) {
  sym_matrix *m = sym_matrix_new(c, n, n);
  for (size_t i = 0; m && i < n; i++) SYM_AT(m, i, i) = c->one;
  return m;
}

sym_matrix *sym_matrix_transpose(sym_ctx *c, const sym_matrix *a) {
  sym_matrix *m = a ? sym_matrix_new(c, a->cols, a->rows) : NULL;
  for (size_t i = 0; m && i < a->rows; i++)
    for (size_t j = 0; j < a->cols; j++) SYM_AT(m, j, i) = SYM_AT(a, i, j);
  return m;
}

/* res = a * b */
sym_matrix *sym_matrix_mul(sym_ctx *c, const sym_matrix *a, const sym_matrix *b) {
  if (!a || !b || a->cols != b->rows) return NULL;
  sym_matrix *m = sym_matrix_new(c, a->rows, b->cols);
  const sym_node **ts = lg_malloc((a->cols ? a->cols : 1) * sizeof *ts);
  if (!m || !ts) {
    lg_free(ts);
    return NULL;
  }
  for (size_t i = 0; i < a->rows; i++)
    for (size_t j = 0; j < b->cols; j++) {
      for (size_t k = 0; k < a->cols; k++)
        ts[k] = sym_mul(c, SYM_AT(a, i, k), SYM_AT(b, k, j));
      SYM_AT(m, i, j) = sym_addv(c, a->cols, ts);
    }
  lg_free(ts);
  return m;
}

/* res[i][j] = d f_i / d v_j */
sym_matrix *sym_matrix_jacobian(sym_ctx *c, size_t nf, const sym_node *const *f,
                                size_t nv, const sym_node *const *v) {
  sym_matrix *m = sym_matrix_new(c, nf, nv);
  for (size_t i = 0; m && i < nf; i++)
    for (size_t j = 0; j < nv; j++) SYM_AT(m, i, j) = sym_diff(c, f[i], v[j]);
  return m;
}

/* The row (from k) to pivot on in column k: without samples the first
 * entry that does not simplify to zero; with samples (ns numeric copies of
 * the matrix being eliminated, row-major n x n) the nonzero entry whose
 * smallest size relative to its column over the samples is largest, so
 * the pivot chosen stays away from zero wherever the samples say. */
static size_t guided_pivot(sym_ctx *c, sym_matrix *m, size_t k, size_t ns, const double *w,
                           const int *bad, int *err) {
  size_t n = m->rows, piv = n;
  double best = -1;
  for (size_t i = k; i < n; i++) {
    SYM_AT(m, i, k) = sym_simplify(c, SYM_AT(m, i, k));
    if (!SYM_AT(m, i, k)) { *err = 1; return n; }
    if (sym_is_zero(SYM_AT(m, i, k))) continue;
    if (!ns) return i;
    double sc = INFINITY;
    for (size_t s = 0; s < ns; s++) {
      const double *ws = w + s * n * n;
      double mx = 0;
      for (size_t r = k; r < n; r++) mx = fmax(mx, fabs(ws[r * n + k]));
      if (bad[s] || !(mx > 0)) continue;
      sc = fmin(sc, fabs(ws[i * n + k]) / mx);
    }
    if (sc > best) { best = sc; piv = i; }
  }
  return piv;
}

/* The samples follow the symbolic elimination (row swap, then column k
 * cleared); a sample whose pivot is zero stops guiding. */
static void guided_eliminate(double *w, size_t ns, size_t n, size_t k, size_t piv, int *bad) {
  for (size_t s = 0; s < ns; s++) {
    double *ws = w + s * n * n;
    for (size_t j = 0; j < n && piv != k; j++) {
      double t = ws[k * n + j];
      ws[k * n + j] = ws[piv * n + j];
      ws[piv * n + j] = t;
    }
    double p = ws[k * n + k];
    if (!(p != 0) || !isfinite(p)) { bad[s] = 1; continue; }
    for (size_t i = 0; i < n; i++) {
      if (i == k) continue;
      double f = ws[i * n + k] / p;
      for (size_t j = 0; j < n; j++) ws[i * n + j] -= f * ws[k * n + j];
    }
  }
}

/* Gauss-Jordan elimination on [A | B]; the pivots as guided_pivot says.
 * Results are simplified as they are formed so that small systems stay
 * readable. */
sym_matrix *sym_matrix_solve_guided(sym_ctx *c, const sym_matrix *a, const sym_matrix *b,
                                    size_t ns, const double *samples, int simplify,
                                    int *singular) {
  if (singular) *singular = 0;
  if (!a || !b || a->rows != a->cols || b->rows != a->rows) return NULL;
  size_t n = a->rows, nb = b->cols, w = n + nb;
  sym_matrix *m = sym_matrix_new(c, n, w);
  double *ws = ns ? lg_malloc(ns * n * n * sizeof *ws) : NULL;
  int *bad = ns ? lg_calloc(ns, sizeof *bad) : NULL;
  if (!m || (ns && (!ws || !bad))) {
    lg_free(ws);
    lg_free(bad);
    return NULL;
  }
  if (ns) memcpy(ws, samples, ns * n * n * sizeof *ws);
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) SYM_AT(m, i, j) = SYM_AT(a, i, j);
    for (size_t j = 0; j < nb; j++) SYM_AT(m, i, n + j) = SYM_AT(b, i, j);
  }
  for (size_t k = 0; k < n; k++) {
    int err = 0;
    size_t piv = guided_pivot(c, m, k, ns, ws, bad, &err);
    if (piv == n) {
      if (singular && !err) *singular = 1;
      m = NULL;
      break;
    }
    guided_eliminate(ws, ns, n, k, piv, bad);
    for (size_t j = 0; j < w && piv != k; j++) {
      const sym_node *t = SYM_AT(m, k, j);
      SYM_AT(m, k, j) = SYM_AT(m, piv, j);
      SYM_AT(m, piv, j) = t;
    }
    const sym_node *inv = sym_powi(c, SYM_AT(m, k, k), -1);
    for (size_t j = k; j < w; j++) SYM_AT(m, k, j) = sym_mul(c, SYM_AT(m, k, j), inv);
    for (size_t i = 0; i < n; i++) {
      if (i == k || sym_is_zero(SYM_AT(m, i, k))) continue;
      const sym_node *f = SYM_AT(m, i, k);
      for (size_t j = k; j < w; j++)
        SYM_AT(m, i, j) = sym_sub(c, SYM_AT(m, i, j), sym_mul(c, f, SYM_AT(m, k, j)));
    }
  }
  lg_free(ws);
  lg_free(bad);
  sym_matrix *x = m ? sym_matrix_new(c, n, nb) : NULL;
  for (size_t i = 0; x && i < n; i++)
    for (size_t j = 0; j < nb; j++)
      SYM_AT(x, i, j) = simplify ? sym_simplify(c, SYM_AT(m, i, n + j)) : SYM_AT(m, i, n + j);
  return x;
}

/* Gauss-Jordan elimination on [A | B] with partial pivoting on the values
 * at one point (val: A there, followed through every step): in column k
 * the row whose value is largest in magnitude. Nothing is simplified or
 * expanded, so each entry of the result is a DAG of O(n) new nodes over
 * the entries before it, O(n^2 (n + cols)) nodes in all. */
sym_matrix *sym_matrix_solve_at(sym_ctx *c, const sym_matrix *a, const sym_matrix *b,
                                const double *val, int *singular) {
  if (singular) *singular = 0;
  if (!a || !b || !val || a->rows != a->cols || b->rows != a->rows) return NULL;
  size_t n = a->rows, nb = b->cols, w = n + nb;
  sym_matrix *m = sym_matrix_new(c, n, w);
  double *v = lg_malloc((n * n + 1) * sizeof *v);
  if (!m || !v) {
    lg_free(v);
    return NULL;
  }
  memcpy(v, val, n * n * sizeof *v);
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) SYM_AT(m, i, j) = SYM_AT(a, i, j);
    for (size_t j = 0; j < nb; j++) SYM_AT(m, i, n + j) = SYM_AT(b, i, j);
  }
  for (size_t k = 0; m && k < n; k++) {
    size_t piv = n;
    double best = 0;
    for (size_t i = k; i < n; i++)
      if (!sym_is_zero(SYM_AT(m, i, k)) && fabs(v[i * n + k]) > best) {
        best = fabs(v[i * n + k]);
        piv = i;
      }
    if (piv == n || !isfinite(best)) {
      if (singular) *singular = 1;
      m = NULL;
      break;
    }
    for (size_t j = 0; j < w && piv != k; j++) {
      const sym_node *t = SYM_AT(m, k, j);
      SYM_AT(m, k, j) = SYM_AT(m, piv, j);
      SYM_AT(m, piv, j) = t;
      if (j >= n) continue;
      double tv = v[k * n + j];
      v[k * n + j] = v[piv * n + j];
      v[piv * n + j] = tv;
    }
    const sym_node *inv = sym_powi(c, SYM_AT(m, k, k), -1);
    double pv = v[k * n + k];
    for (size_t j = k; j < w; j++) SYM_AT(m, k, j) = sym_mul(c, SYM_AT(m, k, j), inv);
    for (size_t j = k; j < n; j++) v[k * n + j] /= pv;
    for (size_t i = 0; i < n; i++) {
      if (i == k || sym_is_zero(SYM_AT(m, i, k))) continue;
      const sym_node *f = SYM_AT(m, i, k);
      double fv = v[i * n + k];
      for (size_t j = k; j < w; j++)
        if (!sym_is_zero(SYM_AT(m, k, j)))
          SYM_AT(m, i, j) = sym_sub(c, SYM_AT(m, i, j), sym_mul(c, f, SYM_AT(m, k, j)));
      for (size_t j = k; j < n; j++) v[i * n + j] -= fv * v[k * n + j];
    }
  }
  lg_free(v);
  sym_matrix *x = m ? sym_matrix_new(c, n, nb) : NULL;
  for (size_t i = 0; x && i < n; i++)
    for (size_t j = 0; j < nb; j++) SYM_AT(x, i, j) = SYM_AT(m, i, n + j);
  return x;
}

sym_matrix *sym_matrix_solve(sym_ctx *c, const sym_matrix *a, const sym_matrix *b,
                             int *singular) {
  return sym_matrix_solve_guided(c, a, b, 0, NULL, 1, singular);
}
