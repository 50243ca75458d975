/* num_equilibria.c - static equilibria in a box: every state with all rates
 * zero where the accelerations vanish (and the holonomic constraints hold),
 * found by damped Gauss-Newton from a deterministic set of starts, each
 * reported once.
 *
 * A solution set that is not isolated (a chain of springs without an
 * anchor can sit anywhere along the line) would give a different point
 * for every start. Where the Jacobian of the conditions is rank deficient
 * and the solutions do continue along its null space, the point stands
 * for a family of that dimension: one representative is reported with the
 * family's directions, later starts that land on the family are dropped,
 * and once a family is known the search ends after FAMILY_STALL starts in
 * a row find nothing new (every start may land on it). */
#include "num.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what a coordinate is --------------------------------------------------------------- */
/* Does q appear in e outside every sin/cos/tan? (iterative DAG walk) */
static int outside_trig(const sym_node *e, const sym_node *q, unsigned char *seen,
                        const sym_node **stack, size_t cap) {
  size_t top = 0;
  stack[top++] = e;
  while (top) {
    const sym_node *x = stack[--top];
    if (!x || seen[x->id]) continue;
    seen[x->id] = 1;
    if (x == q) return 1;
    if (x->kind == SYM_FUNC &&
        (x->fn == SYM_FN_SIN || x->fn == SYM_FN_COS || x->fn == SYM_FN_TAN))
      continue;
    if (!(x->atoms & q->atoms)) continue; /* bloom mask: q is not inside */
    if (x->kind == SYM_ADD || x->kind == SYM_MUL)
      for (uint32_t i = 0; i < x->nargs && top < cap; i++) stack[top++] = x->args[i];
    else if (x->kind == SYM_POW || x->kind == SYM_FUNC)
      for (uint32_t i = 0; i < x->nargs && top < cap; i++) stack[top++] = x->args[i];
  }
  return 0;
}

lg_status num_coord_roles(mech_model *mm, const mech_eom *e, int *role) {
  sym_ctx *c = mech_ctx(mm);
  size_t n = e->n, m = e->m, total = n * n + n + m * n + 2 * m + 2, cap = sym_ctx_node_count(c) + 1;
  const sym_node **all = lg_malloc(total * sizeof *all);
  unsigned char *seen = lg_malloc(cap);
  const sym_node **stack = lg_malloc(cap * sizeof *stack);
  if (!all || !seen || !stack) {
    lg_free(all);
    lg_free(seen);
    lg_free(stack);
    return LG_ERR_NOMEM;
  }
  size_t k = 0;
  for (size_t i = 0; i < n * n; i++) all[k++] = e->M->e[i];
  for (size_t i = 0; i < n; i++) all[k++] = e->f[i];
  for (size_t i = 0; i < m * n; i++) all[k++] = e->J->e[i];
  for (size_t r = 0; r < m; r++) {
    all[k++] = e->gc[r];
    all[k++] = e->C[r];
  }
  all[k++] = e->V;
  for (size_t j = 0; j < n; j++) {
    int present = 0, bare = 0;
    for (size_t i = 0; i < k && !bare; i++) {
      if (!all[i] || !sym_has(all[i], e->q[j])) continue;
      present = 1;
      memset(seen, 0, cap);
      bare = outside_trig(all[i], e->q[j], seen, stack, cap);
    }
    role[j] = !present ? NUM_COORD_FREE : bare ? NUM_COORD_PLAIN : NUM_COORD_ANGLE;
  }
  lg_free(all);
  lg_free(seen);
  lg_free(stack);
  return LG_OK;
}

/* ---- Gauss-Newton on R(q) = [q''(q, 0); C_h(q)] ------------------------------------------ */
typedef struct eq_ctx {
  const num_lin *L;
  num_work *w;
  double t;
  const int *free;       /* held at their value */
  size_t n, mh, nv;      /* coordinates, holonomic rows, variables */
  double *qd, *G, *R, *JR, *JtJ, *g, *qdd, *lam;
  lg_diag *why;          /* the solve's diagnostic, or NULL */
} eq_ctx;

/* R and its Jacobian over the variables (the coordinates not free). */
static int residual(eq_ctx *E, const double *q, int with_jac) {
  const num_system *s = E->L->s;
  size_t n = E->n, m = s->m, cols = 2 * n + E->L->nr;
  num_evaluate(s, E->w, E->t, q, E->qd);
  if (num_solve_accel(s, E->w, E->qdd, E->lam, E->why) != LG_OK) return 0;
  num_evaluate(s, E->w, E->t, q, E->qd);
  size_t k = 0;
  memcpy(E->R, E->qdd, n * sizeof *E->R);
  k = n;
  for (size_t r = 0; r < m; r++)
    if (s->row_holonomic[r]) E->R[k++] = E->w->out[s->o_C + r];
  if (!with_jac) return 1;
  /* J rows of C_h before the Jacobian call overwrites the work outputs */
  for (size_t r = 0, h = 0; r < m; r++) {
    if (!s->row_holonomic[r]) continue;
    for (size_t j = 0, v = 0; j < n; j++)
      if (!E->free[j]) E->JR[(n + h) * E->nv + v++] = E->w->out[s->o_J + r * n + j];
    h++;
  }
  if (num_lin_accel_jacobian(E->L, E->w, E->t, q, E->qd, E->G, NULL) != LG_OK) return 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0, v = 0; j < n; j++)
      if (!E->free[j]) E->JR[i * E->nv + v++] = E->G[i * cols + j];
  return 1;
}

static double norm2(const double *x, size_t n) {
  double a = 0;
  for (size_t i = 0; i < n; i++) a += x[i] * x[i];
  return sqrt(a);
}

/* Levenberg-Marquardt from q; 1 when it converged to a root. */
static int newton(eq_ctx *E, double *q) {
  size_t n = E->n, nv = E->nv, nres = n + E->mh;
  double mu = 1e-8, *trial = E->g + nv;
  if (!residual(E, q, 1)) return 0;
  double rn = norm2(E->R, nres);
  for (int it = 0; it < 80; it++) {
    if (rn < 1e-11) return 1;
    /* (JR^T JR + mu I) dq = -JR^T R */
    for (size_t a = 0; a < nv; a++) {
      double acc = 0;
      for (size_t i = 0; i < nres; i++) acc += E->JR[i * nv + a] * E->R[i];
      E->g[a] = -acc;
      for (size_t b = 0; b < nv; b++) {
        double s = 0;
        for (size_t i = 0; i < nres; i++) s += E->JR[i * nv + a] * E->JR[i * nv + b];
        E->JtJ[a * nv + b] = s + (a == b ? mu * (1 + s) : 0);
      }
    }
    lapack_int ipiv[1];
    (void)ipiv;
    if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)nv, 1, E->JtJ, (lapack_int)nv, E->g,
                      1) != 0)
      return 0;
    memcpy(trial, q, n * sizeof *q);
    for (size_t j = 0, v = 0; j < n; j++)
      if (!E->free[j]) trial[j] += E->g[v++];
    if (residual(E, trial, 0) && norm2(E->R, nres) < rn) {
      memcpy(q, trial, n * sizeof *q);
      mu = mu > 1e-12 ? mu / 10 : mu;
      if (!residual(E, q, 1)) return 0;
      rn = norm2(E->R, nres);
      if (norm2(E->g, nv) < 1e-14 * (1 + norm2(q, n))) return rn < 1e-8;
    } else {
      mu *= 10;
      if (mu > 1e8) return 0;
      if (!residual(E, q, 1)) return 0;
    }
  }
  return rn < 1e-11;
}

/* ---- the search ---------------------------------------------------------------------------- */
static double wrap_angle(double a) {
  double r = fmod(a, 2 * LG_PI);
  if (r > LG_PI + 1e-9) r -= 2 * LG_PI;
  if (r <= -LG_PI + 1e-9) r += 2 * LG_PI;
  if (fabs(r - LG_PI) <= 1e-9) r = LG_PI; /* (-pi, pi]: -pi is reported as pi */
  return r;
}

/* A deterministic low-discrepancy point in [0,1)^d (Halton). */
static double halton(size_t i, int base) {
  double f = 1, r = 0;
  for (size_t k = i + 1; k; k /= (size_t)base) {
    f /= base;
    r += f * (double)(k % (size_t)base);
  }
  return r;
}

static int already(const double *found, size_t nfound, const double *q, size_t n) {
  for (size_t k = 0; k < nfound; k++) {
    double d = 0;
    for (size_t j = 0; j < n; j++) d = fmax(d, fabs(found[k * n + j] - q[j]));
    if (d < 1e-8) return 1;
  }
  return 0;
}

static const int primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};

/* ---- families of equilibria ------------------------------------------------------------------ */
/* A singular value below RANK_TOL times the largest counts as zero; a
 * family's direction is confirmed by a solution FAMILY_STEP along it. */
#define RANK_TOL 1e-8
#define FAMILY_STEP 1e-3
enum { FAMILY_STALL = 100, CONTINUATION_STEPS = 8 };

typedef struct eq_search {
  eq_ctx *E;
  const num_equil_opts *o;
  num_equil_found *f;
  size_t cap;
  double *scratch;       /* JR's copy, singular values, V^T, trial points */
  int *pivot;            /* n per found entry: the family's pivot coordinates */
  double *unc;           /* per found entry: how far off the root it may be */
  double err;            /* null_space's: |R| / the smallest singular value */
} eq_search;

/* The null space of JR at q (R and JR evaluated there): dim (nv - rank)
 * directions over the n coordinates in reduced row-echelon form (each has
 * 1 at its pivot coordinate, where the others are 0), zero at the free
 * coordinates. 0 when the evaluation or the SVD fails. */
static int null_space(eq_search *S, const double *q, size_t *dim, double *dir, int *piv) {
  eq_ctx *E = S->E;
  size_t n = E->n, nv = E->nv, nres = n + E->mh;
  *dim = 0;
  S->err = INFINITY;
  if (!nv) return 1;
  if (!residual(E, q, 1)) return 0;
  double *a = S->scratch, *sv = a + nres * nv, *vt = sv + nv, *sup = vt + nv * nv;
  memcpy(a, E->JR, nres * nv * sizeof *a);
  if (LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', (lapack_int)nres, (lapack_int)nv, a,
                     (lapack_int)nv, sv, NULL, 1, vt, (lapack_int)nv, sup) != 0)
    return 0;
  if (!isfinite(sv[0])) return 0;
  size_t rank = 0;
  for (size_t i = 0; i < nv; i++) rank += sv[i] > RANK_TOL * sv[0] && sv[0] > 0;
  S->err = sv[nv - 1] > 0 ? norm2(E->R, nres) / sv[nv - 1] : INFINITY;
  size_t d = nv - rank;
  double *N = vt + rank * nv; /* d x nv */
  for (size_t r = 0; r < d; r++) { /* Gauss-Jordan, pivots the first of the largest entries */
    size_t best = 0;
    double big = 0;
    for (size_t c = 0; c < nv; c++) big = fmax(big, fabs(N[r * nv + c]));
    if (!(big > 0) || !isfinite(big)) return 0;
    while (best + 1 < nv && fabs(N[r * nv + best]) < (1 - 1e-6) * big) best++;
    double p = N[r * nv + best];
    for (size_t c = 0; c < nv; c++) N[r * nv + c] /= p;
    for (size_t k = 0; k < d; k++) {
      double f = k == r ? 0 : N[k * nv + best];
      for (size_t c = 0; c < nv && f != 0; c++) N[k * nv + c] -= f * N[r * nv + c];
    }
    piv[r] = (int)best;
  }
  for (size_t r = 0; r < d; r++) /* over the n coordinates, to 12 digits (1, not 0.99..97) */
    for (size_t j = 0, v = 0; j < n; j++) {
      double x = E->free[j] ? 0 : N[r * nv + v++];
      char b[32];
      snprintf(b, sizeof b, "%.12g", x);
      dir[r * n + j] = fabs(x) < 1e-12 ? 0 : strtod(b, NULL);
    }
  for (size_t r = 0; r < d; r++) /* pivots as coordinate indices */
    for (size_t j = 0, v = 0; j < n; j++)
      if (!E->free[j] && (int)v++ == piv[r]) {
        piv[r] = (int)j;
        break;
      }
  *dim = d;
  return 1;
}

/* q wrapped into the search's ranges; 0 when it is outside the box. */
static int settle(const num_equil_opts *o, double *q, size_t n) {
  int inside = 1;
  for (size_t j = 0; j < n; j++) {
    if (o->angle[j]) q[j] = wrap_angle(q[j]);
    if (!o->free[j] && (q[j] < o->lo[j] - 1e-9 || q[j] > o->hi[j] + 1e-9)) inside = 0;
  }
  return inside;
}

/* Do the solutions continue from q along every direction? (Not for an
 * isolated equilibrium that is only degenerate, as the bottom of x^4.) */
static int continues(eq_search *S, const double *q, size_t dim, const double *dir) {
  eq_ctx *E = S->E;
  size_t n = E->n;
  double *x = S->scratch + (n + E->mh) * E->nv + E->nv + E->nv * E->nv + E->nv;
  for (size_t r = 0; r < dim; r++) {
    double h = FAMILY_STEP * (1 + norm2(q, n)), dist = 0;
    for (size_t j = 0; j < n; j++) x[j] = q[j] + h * dir[r * n + j];
    if (!newton(E, x)) return 0;
    for (size_t j = 0; j < n; j++) dist += (x[j] - q[j]) * (x[j] - q[j]);
    if (sqrt(dist) < h / 2) return 0;
  }
  return 1;
}

/* The step from a to b, angles the short way round. */
static void step_between(const num_equil_opts *o, const double *a, const double *b, size_t n,
                         double *d) {
  for (size_t j = 0; j < n; j++) d[j] = o->angle[j] ? wrap_angle(b[j] - a[j]) : b[j] - a[j];
}

/* Is q on family k? Affine families (the cheap test, `curved` 0): q - p
 * in the span of the directions. Curved ones: the solutions followed from
 * q towards p (each point of the segment projected by Gauss-Newton) move
 * continuously to p. */
static int on_family(eq_search *S, size_t k, const double *q, int curved) {
  eq_ctx *E = S->E;
  size_t n = E->n, dim = S->f->dim[k];
  const double *p = S->f->q + k * n, *dir = S->f->dir + k * n * n;
  const int *piv = S->pivot + k * n;
  double *d = S->scratch + (n + E->mh) * E->nv + E->nv + E->nv * E->nv + E->nv, *x = d + n;
  double *prev = x + n, off = 0, len = 0;
  step_between(S->o, p, q, n, d);
  for (size_t j = 0; j < n; j++) {
    double r = d[j];
    for (size_t a = 0; a < dim; a++) r -= d[piv[a]] * dir[a * n + j];
    off = fmax(off, fabs(r));
    len = fmax(len, fabs(d[j]));
  }
  if (!curved) return off <= 1e-6 * (1 + len);
  memcpy(prev, q, n * sizeof *prev);
  for (int i = 1; i <= CONTINUATION_STEPS; i++) {
    double jump = 0;
    for (size_t j = 0; j < n; j++) x[j] = q[j] - d[j] * i / CONTINUATION_STEPS;
    if (!newton(E, x)) return 0;
    for (size_t j = 0; j < n; j++) jump = fmax(jump, fabs(x[j] - prev[j]));
    if (jump > 3 * len / CONTINUATION_STEPS + 1e-9) return 0;
    memcpy(prev, x, n * sizeof *prev);
  }
  step_between(S->o, p, prev, n, d);
  return norm2(d, n) < 1e-6 * (1 + len);
}

/* The family's representative: q moved along the directions to put the
 * pivot coordinates at 0, when that is still an equilibrium in the box
 * (an affine family, as a translation), else q itself. */
static void representative(eq_search *S, double *q, size_t dim, const double *dir,
                           const int *piv) {
  eq_ctx *E = S->E;
  size_t n = E->n;
  double *x = S->scratch + (n + E->mh) * E->nv + E->nv + E->nv * E->nv + E->nv;
  memcpy(x, q, n * sizeof *x);
  for (size_t a = 0; a < dim; a++) {
    double c = q[piv[a]];
    for (size_t j = 0; j < n; j++) x[j] -= c * dir[a * n + j];
  }
  if (!residual(E, x, 0) || norm2(E->R, n + E->mh) > 1e-9 || !newton(E, x) ||
      !settle(S->o, x, n))
    return;
  memcpy(q, x, n * sizeof *q);
}

/* ---- the list of what was found ---------------------------------------------------------- */
void num_equil_found_free(num_equil_found *f) {
  lg_free(f->q);
  lg_free(f->dim);
  lg_free(f->dir);
  memset(f, 0, sizeof *f);
}

static int push(eq_search *S, const double *q, size_t dim, const double *dir, const int *piv,
                double unc) {
  size_t n = S->E->n, k = S->f->count;
  /* five arrays of `count` entries (q, pivot: n numbers each; dir: n * n) */
  size_t c[4] = {S->cap, S->cap, S->cap, S->cap};
  if (!lg_grow((void **)&S->f->q, &c[0], k + 1, n * sizeof *S->f->q) ||
      !lg_grow((void **)&S->f->dim, &c[1], k + 1, sizeof *S->f->dim) ||
      !lg_grow((void **)&S->f->dir, &c[2], k + 1, n * n * sizeof *S->f->dir) ||
      !lg_grow((void **)&S->pivot, &c[3], k + 1, n * sizeof *S->pivot) ||
      !lg_grow((void **)&S->unc, &S->cap, k + 1, sizeof *S->unc))
    return 0;
  memcpy(S->f->q + k * n, q, n * sizeof *q);
  S->f->dim[k] = dim;
  memset(S->f->dir + k * n * n, 0, n * n * sizeof *dir);
  if (dim) memcpy(S->f->dir + k * n * n, dir, dim * n * sizeof *dir);
  if (dim) memcpy(S->pivot + k * n, piv, dim * sizeof *piv);
  S->unc[k] = unc;
  S->f->count++;
  return 1;
}

/* A converged q: 1 when it adds an equilibrium or a family, 0 when it was
 * known, -1 out of memory. */
static int consider(eq_search *S, double *q, double *dir, int *piv) {
  size_t n = S->E->n, dim = 0;
  if (already(S->f->q, S->f->count, q, n)) return 0;
  if (!null_space(S, q, &dim, dir, piv)) dim = 0; /* no SVD: reported as isolated */
  for (int curved = 0; curved < 2; curved++) /* every affine test first: they are cheap */
    for (size_t k = 0; dim && k < S->f->count; k++)
      if (S->f->dim[k] == dim && on_family(S, k, q, curved)) return 0;
  if (dim && !continues(S, q, dim, dir)) dim = 0;
  /* an isolated root that Gauss-Newton only approaches slowly (the bottom
   * of x^4) leaves a cloud of points: the same root within their errors */
  double unc = fmin(S->err, FAMILY_STEP * (1 + norm2(q, n)));
  for (size_t k = 0; !dim && k < S->f->count; k++) {
    double d = 0;
    for (size_t j = 0; j < n; j++) d = fmax(d, fabs(S->f->q[k * n + j] - q[j]));
    if (!S->f->dim[k] && d < 10 * fmax(unc, S->unc[k])) return 0;
  }
  if (dim) {
    representative(S, q, dim, dir, piv);
    if (already(S->f->q, S->f->count, q, n)) return 0;
  }
  return push(S, q, dim, dir, piv, unc) ? 1 : -1;
}

/* ---- the starts ------------------------------------------------------------------------------ */
/* Why the first start that could not be evaluated failed. */
typedef struct eq_fail {
  int seen;
  long broke_at;  /* the unknown where elimination broke down, or -1 */
  double *q;      /* that start (n) */
  lg_diag why;
} eq_fail;

/* Start i of the Halton set filling the box, the free coordinates at 0. */
static void start_point(const num_equil_opts *o, size_t n, size_t i, double *q) {
  for (size_t j = 0, v = 0; j < n; j++) {
    if (o->free[j]) { q[j] = 0; continue; }
    double u = halton(i, primes[v++ % 16]);
    q[j] = o->lo[j] + u * (o->hi[j] - o->lo[j]);
  }
}

/* Can the accelerations be solved for at q? The first failure's reason
 * is kept: when every start fails, that is the answer. */
static int evaluable(eq_ctx *E, const double *q, eq_fail *F) {
  E->why = F->seen ? NULL : &F->why;
  E->w->broke_at = -1;
  int ok = residual(E, q, 0);
  E->why = NULL;
  if (!ok && !F->seen) {
    F->seen = 1;
    F->broke_at = E->w->broke_at;
    memcpy(F->q, q, E->n * sizeof *q);
  }
  return ok;
}

/* Every start failed to evaluate: the matrix is singular (or the
 * equations not finite) wherever the search looked. */
static void report_unsolvable(const num_system *s, const eq_fail *F, lg_diag *diag) {
  long broke_at = F->broke_at;
  const double *q0 = F->q;
  if (broke_at < 0 || (size_t)broke_at >= s->n + s->m) {
    if (F->why.status != LG_OK) *diag = F->why;
    else lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0, "the accelerations cannot be solved "
                     "for at any state the search started from");
    return;
  }
  char where[160], at[512];
  size_t k = (size_t)broke_at, len = 0;
  if (k < s->n) snprintf(where, sizeof where, "coordinate %s", s->coord_names[k]);
  else snprintf(where, sizeof where, "multiplier lam%zu", k - s->n + 1);
  at[0] = 0;
  for (size_t j = 0; j < s->n && len + 64 < sizeof at; j++)
    len += (size_t)snprintf(at + len, sizeof at - len, "%s%s = %.6g", j ? ", " : "",
                            s->coord_names[j], q0[j]);
  lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
              "the %s is singular at every state the search started from (elimination "
              "breaks down at %s; the first start: %s), so no equilibrium can be solved for",
              s->m ? "augmented mass matrix [[M, -J^T], [J, 0]]" : "mass matrix", where, at);
  lg_diag_hint(diag, s->m ? "check that the constraints are independent and that every "
                            "coordinate carries inertia"
                          : "every coordinate needs inertia: check masses and inertias");
  num_orientation_singular(s, q0, diag); /* gimbal lock, not the masses */
}

lg_status num_equilibria(const num_lin *L, num_work *w, const num_equil_opts *o,
                         num_equil_found *found, lg_diag *diag) {
  const num_system *s = L->s;
  size_t n = s->n, mh = 0, nv = 0;
  for (size_t r = 0; r < s->m; r++) mh += s->row_holonomic[r] != 0;
  for (size_t j = 0; j < n; j++) nv += !o->free[j];
  memset(found, 0, sizeof *found);
  size_t cols = 2 * n + L->nr, nres = n + mh;
  eq_ctx E = {L, w, o->t, o->free, n, mh, nv, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
              NULL};
  double *mem = lg_calloc(n + n * cols + nres * (1 + nv) + nv * nv + 2 * nv + 3 * n +
                              s->m + 2, sizeof *mem);
  /* null_space and on_family: JR's copy, singular values, V^T, LAPACK's
   * work, then three points; dir (n x n) and piv (n) for a candidate */
  double *scratch = lg_calloc(nres * nv + 3 * nv + nv * nv + 3 * n + n * n + 2, sizeof *scratch);
  int *piv = lg_calloc(n + 1, sizeof *piv);
  eq_search S = {&E, o, found, 0, scratch, NULL, NULL, 0};
  if (!mem || !scratch || !piv) {
    lg_free(mem);
    lg_free(scratch);
    lg_free(piv);
    return LG_ERR_NOMEM;
  }
  double *dir = scratch + nres * nv + 3 * nv + nv * nv + 3 * n;
  E.qd = mem;
  E.G = E.qd + n;
  E.R = E.G + n * cols;
  E.JR = E.R + nres;
  E.JtJ = E.JR + nres * nv;
  E.g = E.JtJ + nv * nv;                    /* nv, then a trial q (n) */
  double *q = E.g + nv + n;
  E.qdd = q + n;
  E.lam = E.qdd + n;
  size_t starts = o->starts ? o->starts : 400 + 200 * nv, stall = 0, evaluated = 0;
  int families = 0;
  eq_fail F = {0, -1, lg_malloc((n + 1) * sizeof *F.q), {0}};
  lg_diag_clear(&F.why);
  lg_status st = F.q ? LG_OK : LG_ERR_NOMEM;
  for (size_t i = 0; st == LG_OK && i < starts; i++) {
    start_point(o, n, i, q);
    if (!evaluable(&E, q, &F)) continue;
    evaluated++;
    int added = newton(&E, q) && settle(o, q, n) ? consider(&S, q, dir, piv) : 0;
    if (added < 0) st = LG_ERR_NOMEM;
    if (added > 0) families |= found->dim[found->count - 1] > 0;
    stall = added > 0 ? 0 : stall + 1;
    if (families && stall >= FAMILY_STALL) break; /* every start may land on a family */
  }
  if (st == LG_OK && !evaluated && starts) {
    report_unsolvable(s, &F, diag);
    st = LG_ERR_NUMERIC;
  }
  lg_free(F.q);
  lg_free(mem);
  lg_free(scratch);
  lg_free(piv);
  lg_free(S.pivot);
  lg_free(S.unc);
  if (st != LG_OK) num_equil_found_free(found);
  return st;
}
