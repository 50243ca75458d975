/* num_equilibria.c - static equilibria in a box: every state with all rates
 * zero where the accelerations vanish (and the holonomic constraints hold),
 * found by damped Gauss-Newton from a deterministic set of starts, each
 * reported once. */
#include "num.h"

#include <lapacke.h>
#include <math.h>
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
} eq_ctx;

/* R and its Jacobian over the variables (the coordinates not free). */
static int residual(eq_ctx *E, const double *q, int with_jac) {
  const num_system *s = E->L->s;
  size_t n = E->n, m = s->m, cols = 2 * n + E->L->nr;
  num_evaluate(s, E->w, E->t, q, E->qd);
  if (num_solve_accel(s, E->w, E->qdd, E->lam, NULL) != LG_OK) return 0;
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

lg_status num_equilibria(const num_lin *L, num_work *w, const num_equil_opts *o,
                         double **found, size_t *nfound, lg_diag *diag) {
  const num_system *s = L->s;
  size_t n = s->n, mh = 0, nv = 0;
  for (size_t r = 0; r < s->m; r++) mh += s->row_holonomic[r] != 0;
  for (size_t j = 0; j < n; j++) nv += !o->free[j];
  *found = NULL;
  *nfound = 0;
  size_t cap = 16, cols = 2 * n + L->nr;
  eq_ctx E = {L, w, o->t, o->free, n, mh, nv, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  double *mem = lg_calloc(n + n * cols + (n + mh) * (1 + nv) + nv * nv + 2 * nv + 3 * n +
                              s->m + 2, sizeof *mem);
  double *out = lg_malloc(cap * n * sizeof *out);
  if (!mem || !out) {
    lg_free(mem);
    lg_free(out);
    return LG_ERR_NOMEM;
  }
  E.qd = mem;
  E.G = E.qd + n;
  E.R = E.G + n * cols;
  E.JR = E.R + n + mh;
  E.JtJ = E.JR + (n + mh) * nv;
  E.g = E.JtJ + nv * nv;                    /* nv, then a trial q (n) */
  double *q = E.g + nv + n;
  E.qdd = q + n;
  E.lam = E.qdd + n;
  size_t starts = o->starts ? o->starts : 400 + 200 * nv;
  lg_status st = LG_OK;
  for (size_t i = 0; st == LG_OK && i < starts; i++) {
    for (size_t j = 0, v = 0; j < n; j++) {
      if (o->free[j]) { q[j] = 0; continue; }
      double u = halton(i, primes[v++ % 16]);
      q[j] = o->lo[j] + u * (o->hi[j] - o->lo[j]);
    }
    if (!newton(&E, q)) continue;
    int inside = 1;
    for (size_t j = 0; j < n; j++) {
      if (o->angle[j]) q[j] = wrap_angle(q[j]);
      if (!o->free[j] && !o->angle[j] && (q[j] < o->lo[j] - 1e-9 || q[j] > o->hi[j] + 1e-9))
        inside = 0;
      if (o->angle[j] && (q[j] < o->lo[j] - 1e-9 || q[j] > o->hi[j] + 1e-9)) inside = 0;
    }
    if (!inside || already(out, *nfound, q, n)) continue;
    if (*nfound == cap) {
      double *grown = lg_realloc(out, 2 * cap * n * sizeof *out);
      if (!grown) { st = LG_ERR_NOMEM; break; }
      out = grown;
      cap *= 2;
    }
    memcpy(out + *nfound * n, q, n * sizeof *q);
    (*nfound)++;
  }
  (void)diag;
  lg_free(mem);
  if (st != LG_OK) {
    lg_free(out);
    *nfound = 0;
    return st;
  }
  *found = out;
  return LG_OK;
}
