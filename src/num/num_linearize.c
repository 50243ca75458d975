/* num_linearize.c - the equations of motion linearized about an operating
 * point, with exact derivatives from the symbolic core.
 *
 * The augmented equations Phi(q, q', q'', lam, r) = [M q'' - J^T lam - f;
 * J q'' - gc] = 0 define q'' and lam implicitly; their derivatives follow
 * from Phi_z + Aug [dq''/dz; dlam/dz] = 0 with Aug = [[M, -J^T], [J, 0]].
 * Constraints are then eliminated as SymPy's Linearizer does: dependent
 * coordinates through the holonomic rows, dependent rates through every
 * row's velocity form, so that x = [independent q; independent q'].
 */
#include "num.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the derivative tape ---------------------------------------------------------------- */
/* Inputs u keep their value as an atom (so B = d/dr exists); u' and u''
 * become the law's derivatives. Constraint rows take the full law. */
static lg_status input_maps(mech_model *mm, const num_setting *set, size_t nset,
                            const sym_node **from, const sym_node **to, size_t *nmap) {
  sym_ctx *c = mech_ctx(mm);
  size_t ni = mech_ninputs(mm), k = 0;
  for (size_t i = 0; i < ni; i++) {
    const num_setting *s = mech_find_setting(set, nset, mech_input_name(mm, i));
    const sym_node *law = s ? sym_float(c, s->value) : mech_input_law(mm, i);
    for (int order = 1; order <= 2; order++) {
      law = sym_dt(c, law);
      from[k] = mech_input(mm, i, order);
      to[k++] = law;
    }
  }
  *nmap = k;
  return sym_ctx_error(c) == LG_OK ? LG_OK : LG_ERR_NOMEM;
}

/* Phi rows with q'' and lam as atoms. */
static const sym_node *phi_row(sym_ctx *c, const mech_eom *e, const sym_node *const *J,
                               const sym_node *const *gc, size_t k) {
  size_t n = e->n, m = e->m;
  const sym_node *acc = sym_int(c, 0);
  if (k < n) {
    for (size_t j = 0; j < n; j++)
      acc = sym_add(c, acc, sym_mul(c, SYM_AT(e->M, k, j), e->qdd[j]));
    for (size_t r = 0; r < m; r++) acc = sym_sub(c, acc, sym_mul(c, J[r * n + k], e->lam[r]));
    return sym_sub(c, acc, e->f[k]);
  }
  size_t r = k - n;
  for (size_t j = 0; j < n; j++) acc = sym_add(c, acc, sym_mul(c, J[r * n + j], e->qdd[j]));
  return sym_sub(c, acc, gc[r]);
}

/* The outputs: Phi (n+m), the velocity forms Cd (m) and the inputs' values
 * r0 (nr); their derivatives come from forward AD over the tape. */
static const sym_node **collect(mech_model *mm, const mech_eom *e, num_lin *L,
                                const num_setting *set, size_t nset) {
  sym_ctx *c = mech_ctx(mm);
  size_t n = e->n, m = e->m, N = n + m, nr = L->nr, k = 0;
  L->o_Phi = k; k += N;
  L->o_Cd = k; k += m;
  L->o_r0 = k; k += nr;
  L->nout = k;
  const sym_node **o = lg_calloc(k + 1, sizeof *o);
  /* constraint pieces with the inputs fully replaced by their laws */
  const sym_node **cons = lg_calloc(m * n + 2 * m + 1, sizeof *cons);
  const sym_node **from = lg_calloc(2 * nr + 1, sizeof *from);
  const sym_node **to = lg_calloc(2 * nr + 1, sizeof *to);
  size_t nmap = 0;
  if (!o || !cons || !from || !to || input_maps(mm, set, nset, from, to, &nmap) != LG_OK)
    goto fail;
  if (m) memcpy(cons, e->J->e, m * n * sizeof *cons);
  for (size_t r = 0; r < m; r++) {
    cons[m * n + r] = e->gc[r];
    cons[m * n + m + r] = e->kind[r] == MECH_HOLONOMIC ? sym_dt(c, e->C[r]) : e->C[r];
  }
  if (num_substitute_inputs(mm, set, nset, cons, m * n + 2 * m) != LG_OK) goto fail;
  for (size_t i = 0; i < N; i++)
    o[L->o_Phi + i] = sym_subst(c, phi_row(c, e, cons, cons + m * n, i), nmap, from, to);
  for (size_t r = 0; r < m; r++) o[L->o_Cd + r] = cons[m * n + m + r];
  for (size_t j = 0; j < nr; j++) {
    const num_setting *s = mech_find_setting(set, nset, mech_input_name(mm, j));
    o[L->o_r0 + j] = s ? sym_float(c, s->value) : mech_input_law(mm, j);
  }
  if (sym_ctx_error(c) != LG_OK) goto fail;
  lg_free(cons);
  lg_free(from);
  lg_free(to);
  return o;
fail:
  lg_free(o);
  lg_free(cons);
  lg_free(from);
  lg_free(to);
  return NULL;
}

lg_status num_lin_build(mech_model *mm, const mech_eom *e, const num_system *s,
                        const num_setting *set, size_t nset, num_lin **out, lg_diag *diag) {
  *out = NULL;
  sym_ctx *c = mech_ctx(mm);
  num_lin *L = lg_calloc(1, sizeof *L);
  if (!L) return LG_ERR_NOMEM;
  L->s = s;
  L->n = e->n;
  L->m = e->m;
  L->nr = mech_ninputs(mm);
  size_t n = e->n, m = e->m, nr = L->nr;
  L->nin = 1 + 3 * n + m + nr + s->np;
  const sym_node **o = collect(mm, e, L, set, nset);
  const sym_node **in = lg_calloc(L->nin, sizeof *in);
  lg_status st = o && in ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) {
    size_t k = 0;
    in[k++] = sym_time(c);
    for (size_t i = 0; i < n; i++) in[k++] = e->q[i];
    for (size_t i = 0; i < n; i++) in[k++] = e->qd[i];
    for (size_t i = 0; i < n; i++) in[k++] = e->qdd[i];
    for (size_t r = 0; r < m; r++) in[k++] = e->lam[r];
    for (size_t i = 0; i < nr; i++) in[k++] = mech_input(mm, i, 0);
    for (size_t i = 0; i < s->np; i++) in[k++] = mech_param(mm, i);
    const sym_node *missing = NULL;
    st = sym_tape_build(c, L->nin, in, L->nout, o, &L->tape, &missing);
    if (st == LG_ERR_MODEL)
      lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0, "'%s' has no numeric value in the equations",
                  missing && missing->v.name ? missing->v.name : "?");
  }
  lg_free(o);
  lg_free(in);
  if (st != LG_OK) {
    num_lin_free(L);
    return st;
  }
  *out = L;
  return LG_OK;
}

void num_lin_free(num_lin *L) {
  if (!L) return;
  sym_tape_free(L->tape);
  lg_free(L);
}

/* ---- dense helpers (row-major) --------------------------------------------------------- */
/* res = a (r x k) * b (k x c) */
static void matmul(double *res, const double *a, const double *b, size_t r, size_t k,
                   size_t c) {
  for (size_t i = 0; i < r; i++)
    for (size_t j = 0; j < c; j++) {
      double acc = 0;
      for (size_t l = 0; l < k; l++) acc += a[i * k + l] * b[l * c + j];
      res[i * c + j] = acc;
    }
}

/* Solve a (k x k) x = b (k x c) in place of b; 0 when singular. */
static int solve(double *a, double *b, size_t k, size_t c) {
  if (!k || !c) return 1;
  lapack_int *ipiv = lg_malloc(k * sizeof *ipiv);
  if (!ipiv) return 0;
  lapack_int info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)k, (lapack_int)c, a,
                                  (lapack_int)k, ipiv, b, (lapack_int)c);
  lg_free(ipiv);
  return info == 0;
}

/* ---- operating point and the choice of dependent variables ------------------------------ */
static double max_abs(const double *x, size_t n) {
  double r = 0;
  for (size_t i = 0; i < n; i++) r = fabs(x[i]) > r || isnan(x[i]) ? fabs(x[i]) : r;
  return r;
}

/* Pick k columns of the rows x cols matrix a (row-major) as pivots by QR with
 * column pivoting; columns with force[j] > 0 first, force[j] < 0 never.
 * pick[j] = 1 for the chosen ones. Returns 0 when the rank is short. */
static int pivot_columns(const double *a, size_t rows, size_t cols, const int *force,
                         size_t k, int *pick) {
  memset(pick, 0, cols * sizeof *pick);
  if (!k) return 1;
  size_t nc = 0;
  int *map = lg_malloc(cols * sizeof *map);
  double *b = lg_malloc(rows * cols * sizeof *b + 1);
  lapack_int *jpvt = lg_calloc(cols + 1, sizeof *jpvt);
  double *tau = lg_malloc((rows + cols + 1) * sizeof *tau);
  int ok = map && b && jpvt && tau;
  for (size_t j = 0; ok && j < cols; j++)
    if (force[j] >= 0) map[nc++] = (int)j;
  for (size_t i = 0; ok && i < rows; i++)
    for (size_t j = 0; j < nc; j++) b[i * nc + j] = a[i * cols + (size_t)map[j]];
  for (size_t j = 0; ok && j < nc; j++) jpvt[j] = force[map[j]] > 0;
  ok = ok && nc >= k &&
       LAPACKE_dgeqp3(LAPACK_ROW_MAJOR, (lapack_int)rows, (lapack_int)nc, b, (lapack_int)nc,
                      jpvt, tau) == 0;
  double scale = ok ? fabs(b[0]) : 0;
  for (size_t j = 0; ok && j < k; j++) {
    if (!(fabs(b[j * nc + j]) > 1e-10 * (scale > 1 ? scale : 1))) ok = 0;
    else pick[map[jpvt[j] - 1]] = 1;
  }
  lg_free(map);
  lg_free(b);
  lg_free(jpvt);
  lg_free(tau);
  return ok;
}

static void dep_names(const num_system *s, const int *flag, char *buf, size_t n) {
  buf[0] = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (!flag[i]) continue;
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "%s%s", len ? ", " : "", s->coord_names[i]);
  }
}

lg_status num_lin_operating_point(const num_lin *L, num_work *w, num_lin_point *pt,
                                  lg_diag *diag) {
  const num_system *s = L->s;
  size_t n = s->n, m = s->m, mh = 0;
  for (size_t r = 0; r < m; r++) mh += s->row_holonomic[r] != 0;
  pt->nqi = n - mh;
  pt->nui = n - m;
  double *Jh = lg_malloc((mh * n + m * n + 2 * m * m + m + 1) * sizeof *Jh);
  int *force = lg_malloc((n + 1) * sizeof *force);
  if (!Jh || !force) {
    lg_free(Jh);
    lg_free(force);
    return LG_ERR_NOMEM;
  }
  double *A = Jh + mh * n, *AD = A + m * n, *G = AD + m * m, *res = G + m * m;
  lg_status st = LG_OK;
  /* dependent coordinates: pivot on the holonomic rows of J */
  num_evaluate_dynamics(s, w, pt->t, pt->q, pt->qd);
  for (size_t r = 0, k = 0; r < m; r++)
    if (s->row_holonomic[r]) memcpy(Jh + n * k++, w->out + s->o_J + r * n, n * sizeof *Jh);
  for (size_t j = 0; j < n; j++) force[j] = pt->indep_q[j] ? -1 : 0;
  if (!pivot_columns(Jh, mh, n, force, mh, pt->dep_q)) {
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                "the holonomic constraints' Jacobian has no nonsingular block over the "
                "coordinates left dependent at the operating point");
    lg_diag_hint(diag, "name other independent coordinates (`independent`), or check "
                       "that the constraints are independent there");
    st = LG_ERR_NUMERIC;
  }
  /* complete the coordinates: Newton on C(q) = 0 over the dependent ones */
  for (int it = 0; st == LG_OK && mh && it < 60; it++) {
    num_evaluate_dynamics(s, w, pt->t, pt->q, pt->qd);
    size_t k = 0;
    for (size_t r = 0; r < m; r++) {
      if (!s->row_holonomic[r]) continue;
      res[k] = -w->out[s->o_C + r];
      for (size_t j = 0, c = 0; j < n; j++)
        if (pt->dep_q[j]) G[k * mh + c++] = w->out[s->o_J + r * n + j];
      k++;
    }
    if (max_abs(res, mh) < 1e-13) break;
    if (!solve(G, res, mh, 1) || it == 59) {
      lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0, "the holonomic constraints cannot be "
                  "solved for the dependent coordinates near the operating point");
      lg_diag_hint(diag, "give an operating point closer to the constraints (`at`)");
      st = LG_ERR_NUMERIC;
    }
    for (size_t j = 0, c = 0; st == LG_OK && j < n; j++)
      if (pt->dep_q[j]) pt->q[j] += res[c++];
  }
  /* dependent rates: the dependent coordinates' rates first, then pivoting */
  if (st == LG_OK) {
    num_evaluate_dynamics(s, w, pt->t, pt->q, pt->qd);
    memcpy(A, w->out + s->o_J, m * n * sizeof *A);
    for (size_t j = 0; j < n; j++)
      force[j] = pt->dep_q[j] ? 1 : pt->indep_v[j] ? -1 : 0;
    if (!pivot_columns(A, m, n, force, m, pt->dep_v)) {
      lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                  "the velocity constraints have no nonsingular block over the rates "
                  "left dependent at the operating point");
      lg_diag_hint(diag, "name other independent rates (`independent` \"q1'\"), or check "
                         "that the constraints are independent there");
      st = LG_ERR_NUMERIC;
    }
    for (size_t j = 0; st == LG_OK && j < n; j++)
      if (pt->dep_q[j] && !pt->dep_v[j]) st = LG_ERR_NUMERIC;
  }
  /* complete the rates: A q' + b is affine in q', one exact step */
  if (st == LG_OK && m) {
    for (size_t r = 0; r < m; r++) {
      res[r] = -w->out[s->o_Cd + r];
      for (size_t j = 0, c = 0; j < n; j++)
        if (pt->dep_v[j]) AD[r * m + c++] = A[r * n + j];
    }
    if (!solve(AD, res, m, 1)) st = LG_ERR_NUMERIC;
    for (size_t j = 0, c = 0; st == LG_OK && j < n; j++)
      if (pt->dep_v[j]) pt->qd[j] += res[c++];
  }
  lg_free(Jh);
  lg_free(force);
  return st;
}

/* ---- the linearization ------------------------------------------------------------------- */
/* One AD sweep of the tape at (t, q, q', q'', lam) as given, the inputs at
 * their laws' values: returns dout (nout x K, K = 2n + nr: along q, q',
 * r); r0 (may be NULL) gets the inputs' values. Scratch in lin_work. */
static const double *phi_sweep(const num_lin *L, double t, const double *q, const double *qd,
                               const double *qdd, const double *lam, double *r0,
                               double *lin_work) {
  const num_system *s = L->s;
  size_t n = L->n, m = L->m, nr = L->nr, K = 2 * n + nr;
  double *in = lin_work, *out = in + L->nin, *slots = out + L->nout;
  double *din = slots + L->tape->nslots, *dout = din + L->nin * K;
  double *dslots = dout + L->nout * K;
  size_t k = 0;
  in[k++] = t;
  for (size_t i = 0; i < n; i++) in[k++] = q[i];
  for (size_t i = 0; i < n; i++) in[k++] = qd[i];
  for (size_t i = 0; i < n; i++) in[k++] = qdd[i];
  for (size_t r = 0; r < m; r++) in[k++] = lam[r];
  size_t kr = k;
  k += nr;
  memcpy(in + k, s->params, s->np * sizeof *in);
  memset(in + kr, 0, nr * sizeof *in);
  sym_tape_eval(L->tape, in, out, slots); /* r0 does not depend on r */
  if (r0) memcpy(r0, out + L->o_r0, nr * sizeof *r0);
  memcpy(in + kr, out + L->o_r0, nr * sizeof *in);
  /* seeds: q_j -> direction j, q'_j -> n + j, r_j -> 2n + j */
  memset(din, 0, L->nin * K * sizeof *din);
  for (size_t j = 0; j < n; j++) {
    din[(1 + j) * K + j] = 1;
    din[(1 + n + j) * K + n + j] = 1;
  }
  for (size_t j = 0; j < nr; j++) din[(kr + j) * K + 2 * n + j] = 1;
  sym_tape_eval_fwd(L->tape, K, in, din, out, dout, slots, dslots);
  return dout;
}

/* Full-coordinate derivatives of q'' at (t, q, q'): G = -(Aug^-1 Phi_z)[0:n]
 * for z = q, q', r (n x (2n + nr)); also Cd_q (m x n) and r0 (nr). Phi_z
 * and Cd_q by forward AD over the tape, along the 2n + nr directions. */
static lg_status accel_jacobian(const num_lin *L, num_work *w, double t, const double *q,
                                const double *qd, double *G, double *Cdq, double *r0,
                                double *lin_work, lg_diag *diag) {
  const num_system *s = L->s;
  size_t n = L->n, m = L->m, N = n + m, nr = L->nr, K = 2 * n + nr;
  double *Aug = lin_work + (L->nin + L->nout + L->tape->nslots) * (K + 1);
  double *X = Aug + N * N, *qdd = X + N * K, *lam = qdd + n;
  num_evaluate(s, w, t, q, qd);
  lg_status st = num_solve_accel(s, w, qdd, lam, diag);
  if (st != LG_OK) return st;
  num_evaluate(s, w, t, q, qd);
  const double *dout = phi_sweep(L, t, q, qd, qdd, lam, r0, lin_work);
  if (Cdq)
    for (size_t r = 0; r < m; r++)
      memcpy(Cdq + r * n, dout + (L->o_Cd + r) * K, n * sizeof *Cdq);
  /* Aug = [[M, -J^T], [J, 0]]; X = -[Phi_q | Phi_v | Phi_r] */
  memset(Aug, 0, N * N * sizeof *Aug);
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) Aug[i * N + j] = w->out[s->o_M + i * n + j];
    for (size_t r = 0; r < m; r++) {
      Aug[i * N + n + r] = -w->out[s->o_J + r * n + i];
      Aug[(n + r) * N + i] = w->out[s->o_J + r * n + i];
    }
  }
  for (size_t i = 0; i < N * K; i++) X[i] = -dout[L->o_Phi * K + i];
  if (!solve(Aug, X, N, K)) {
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                "the augmented mass matrix is singular at the operating point");
    return LG_ERR_NUMERIC;
  }
  memcpy(G, X, n * K * sizeof *G);
  return LG_OK;
}

lg_status num_lin_phi_jacobian(const num_lin *L, double t, const double *q, const double *qd,
                               const double *qdd, const double *lam, double *dphi,
                               double *dcd) {
  size_t n = L->n, m = L->m, N = n + m, K = 2 * n + L->nr;
  double *lw = lg_malloc(num_lin_work_size(L) * sizeof *lw);
  if (!lw) return LG_ERR_NOMEM;
  const double *dout = phi_sweep(L, t, q, qd, qdd, lam, NULL, lw);
  if (dphi) memcpy(dphi, dout + L->o_Phi * K, N * K * sizeof *dphi);
  if (dcd) memcpy(dcd, dout + L->o_Cd * K, m * K * sizeof *dcd);
  lg_free(lw);
  return LG_OK;
}

lg_status num_lin_accel_jacobian(const num_lin *L, num_work *w, double t, const double *q,
                                 const double *qd, double *G, lg_diag *diag) {
  double *lw = lg_malloc(num_lin_work_size(L) * sizeof *lw);
  if (!lw) return LG_ERR_NOMEM;
  lg_status st = accel_jacobian(L, w, t, q, qd, G, NULL, NULL, lw, diag);
  lg_free(lw);
  return st;
}

size_t num_lin_work_size(const num_lin *L) {
  size_t n = L->n, N = n + L->m, K = 2 * n + L->nr;
  return (L->nin + L->nout + L->tape->nslots) * (K + 1) + N * N + N * K + N + 1;
}

/* Rows D of  -A_D^-1 * rhs  (rhs m x c) into res (n x c), zero elsewhere. */
static int eliminate(const double *A, const int *dep, size_t n, size_t m, const double *rhs,
                     size_t c, double *res, double *scratch) {
  double *AD = scratch, *Y = scratch + m * m;
  for (size_t r = 0; r < m; r++)
    for (size_t j = 0, k = 0; j < n; j++)
      if (dep[j]) AD[r * m + k++] = A[r * n + j];
  for (size_t i = 0; i < m * c; i++) Y[i] = -rhs[i];
  if (!solve(AD, Y, m, c)) return 0;
  memset(res, 0, n * c * sizeof *res);
  for (size_t j = 0, k = 0; j < n; j++)
    if (dep[j]) memcpy(res + j * c, Y + (k++) * c, c * sizeof *res);
  return 1;
}

lg_status num_linearize(const num_lin *L, num_work *w, const num_lin_point *pt,
                        num_lin_result *res, lg_diag *diag) {
  const num_system *s = L->s;
  size_t n = L->n, m = L->m, nr = L->nr, mh = n - pt->nqi, nqi = pt->nqi, nui = pt->nui;
  size_t nx = nqi + nui, cols = 2 * n + nr;
  double *mem = lg_calloc(num_lin_work_size(L) + n * cols + 8 * n * n + 4 * n * nr +
                              2 * (m * m + m * n) + m * n + 8, sizeof *mem);
  if (!mem) return LG_ERR_NOMEM;
  double *lw = mem, *G = lw + num_lin_work_size(L), *Pq = G + n * cols;
  double *Vq = Pq + n * n, *Vu = Vq + n * n, *Q = Vu + n * n, *GQ = Q + n * n;
  double *T1 = GQ + n * n, *T2 = T1 + n * n, *scratch = T2 + n * n;
  double *rhs = scratch + 2 * (m * m + m * n), *Cdq = rhs + m * n;
  res->nx = nx;
  res->nr = nr;
  lg_status st = accel_jacobian(L, w, pt->t, pt->q, pt->qd, G, Cdq, res->r0, lw, diag);
  const double *J = w->out + s->o_J; /* from the last num_evaluate */
  /* P_q (n x nqi): dq = P_q dq_i, through the holonomic rows */
  double *Jh = rhs; /* mh x nqi, then the dependent block */
  size_t *iq = (size_t *)lg_malloc((n + 1) * sizeof *iq), *iu = lg_malloc((n + 1) * sizeof *iu);
  if (!iq || !iu) st = st == LG_OK ? LG_ERR_NOMEM : st;
  size_t ci = 0, cu = 0;
  for (size_t j = 0; st == LG_OK && j < n; j++) {
    if (!pt->dep_q[j]) iq[ci++] = j;
    if (!pt->dep_v[j]) iu[cu++] = j;
  }
  if (st == LG_OK && mh) {
    double *Ah = scratch + m * m + m * n; /* mh x n holonomic rows */
    for (size_t r = 0, k = 0; r < m; r++)
      if (s->row_holonomic[r]) memcpy(Ah + n * k++, J + r * n, n * sizeof *Ah);
    for (size_t r = 0; r < mh; r++)
      for (size_t c = 0; c < nqi; c++) Jh[r * nqi + c] = Ah[r * n + iq[c]];
    double *AhD = lg_malloc((mh * mh + mh * n + 1) * sizeof *AhD);
    if (!AhD || !eliminate(Ah, pt->dep_q, n, mh, Jh, nqi, Pq, AhD)) st = LG_ERR_NUMERIC;
    lg_free(AhD);
  }
  for (size_t c = 0; st == LG_OK && c < nqi; c++) Pq[iq[c] * nqi + c] = 1;
  /* dq' = Vq dq + Vu du_i: the velocity forms A dq' + Cd_q dq = 0 */
  if (st == LG_OK && m) {
    if (!eliminate(J, pt->dep_v, n, m, Cdq, n, Vq, scratch)) st = LG_ERR_NUMERIC;
    for (size_t r = 0; r < m; r++)
      for (size_t c = 0; c < nui; c++) rhs[r * nui + c] = J[r * n + iu[c]];
    if (st == LG_OK && !eliminate(J, pt->dep_v, n, m, rhs, nui, Vu, scratch)) st = LG_ERR_NUMERIC;
  }
  for (size_t c = 0; st == LG_OK && c < nui; c++) Vu[iu[c] * nui + c] = 1;
  if (st == LG_OK) {
    matmul(Q, Vq, Pq, n, n, nqi); /* dq' from dq_i */
    /* Gq P_q + Gv Q (n x nqi) and Gv Vu (n x nui) */
    double *Gq = T1, *Gv = T2;
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++) {
        Gq[i * n + j] = G[i * cols + j];
        Gv[i * n + j] = G[i * cols + n + j];
      }
    matmul(GQ, Gq, Pq, n, n, nqi);
    matmul(Gq, Gv, Q, n, n, nqi);
    for (size_t i = 0; i < n * nqi; i++) GQ[i] += Gq[i];
    matmul(Gq, Gv, Vu, n, n, nui);
    memset(res->A, 0, nx * nx * sizeof *res->A);
    memset(res->B, 0, nx * nr * sizeof *res->B);
    for (size_t a = 0; a < nqi; a++) {
      for (size_t c = 0; c < nqi; c++) res->A[a * nx + c] = Q[iq[a] * nqi + c];
      for (size_t c = 0; c < nui; c++) res->A[a * nx + nqi + c] = Vu[iq[a] * nui + c];
    }
    for (size_t a = 0; a < nui; a++) {
      size_t row = (nqi + a) * nx, i = iu[a];
      for (size_t c = 0; c < nqi; c++) res->A[row + c] = GQ[i * nqi + c];
      for (size_t c = 0; c < nui; c++) res->A[row + nqi + c] = Gq[i * nui + c];
      for (size_t c = 0; c < nr; c++) res->B[(nqi + a) * nr + c] = G[i * cols + 2 * n + c];
    }
    if (res->G) memcpy(res->G, G, n * cols * sizeof *G);
    if (res->qdd) memcpy(res->qdd, lw + 1 + 2 * n, n * sizeof *res->qdd); /* the tape's input */
    if (res->Pq) memcpy(res->Pq, Pq, n * nqi * sizeof *Pq);
    if (res->Q) memcpy(res->Q, Q, n * nqi * sizeof *Q);
    if (res->Vu) memcpy(res->Vu, Vu, n * nui * sizeof *Vu);
    for (size_t a = 0; a < nqi; a++) res->x0[a] = pt->q[iq[a]];
    for (size_t a = 0; a < nui; a++) res->x0[nqi + a] = pt->qd[iu[a]];
  } else if (st == LG_ERR_NUMERIC) {
    char names[512];
    dep_names(s, pt->dep_v, names, sizeof names);
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                "the constraints cannot be solved for the dependent variables (%s) at the "
                "operating point", names);
    lg_diag_hint(diag, "choose other independent coordinates and rates with `independent`");
  }
  lg_free(iq);
  lg_free(iu);
  lg_free(mem);
  return st;
}

lg_status num_eigenvalues(const double *A, size_t n, double *re, double *im) {
  return num_eigen(A, n, re, im, NULL);
}

lg_status num_eigen(const double *A, size_t n, double *re, double *im, double *vr) {
  if (!n) return LG_OK;
  double *a = lg_malloc(n * n * sizeof *a);
  if (!a) return LG_ERR_NOMEM;
  memcpy(a, A, n * n * sizeof *a);
  lapack_int info = LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', vr ? 'V' : 'N', (lapack_int)n, a,
                                  (lapack_int)n, re, im, NULL, 1, vr, vr ? (lapack_int)n : 1);
  lg_free(a);
  return info == 0 ? LG_OK : LG_ERR_NUMERIC;
}

lg_status num_lin_eigenvalues(const num_lin *L, num_work *w, double t, double *q, double *qd,
                              double *re, double *im, size_t *nx, lg_diag *diag) {
  size_t n = L->n, N = 2 * n, nr = L->nr;
  int *flags = lg_calloc(4 * n + 1, sizeof *flags);
  double *mem = lg_calloc(N * N + N * nr + N + nr + 1, sizeof *mem);
  lg_status st = flags && mem ? LG_OK : LG_ERR_NOMEM;
  num_lin_point pt = {t, q, qd, flags, flags + n, flags + 2 * n, flags + 3 * n, 0, 0};
  num_lin_result res = {0, nr, mem, mem + N * N, mem + N * N + N * nr, mem + N * N + N * nr + N,
                        NULL, NULL, NULL, NULL, NULL};
  if (st == LG_OK) st = num_lin_operating_point(L, w, &pt, diag);
  if (st == LG_OK) st = num_linearize(L, w, &pt, &res, diag);
  if (st == LG_OK) st = num_eigenvalues(res.A, res.nx, re, im);
  *nx = res.nx;
  lg_free(flags);
  lg_free(mem);
  return st;
}

/* ---- Kane's speeds as the state ------------------------------------------------------- */
/* res := the same linearization in x_u = [q_i; u] with u = U(t, q, q') (p
 * speeds). Along the motion u' = U_q q' + U_qd q'' =: W(q, q', q''), so
 * d u' = W_q dq + W_qd dq' + U_qd dq'' (W_qdd = U_qd), with dq'' = Gq dq +
 * Gv dq' + Gr dr; in the independent variables dq = Pq dq_i, dq' = Q dq_i
 * + Vu dv. That gives A's rows in x_q = [q_i; v]; x_u = D x_q with D =
 * [[I, 0], [U_q Pq + U_qd Q, U_qd Vu]] turns them into x_u's columns.
 * W's derivatives by forward AD over the tape of W = dU/dt. */
lg_status num_lin_to_speeds(const num_lin *L, mech_model *mm, const num_setting *set,
                            size_t nset, const sym_node *const *u_of, size_t p,
                            const num_lin_point *pt, num_lin_result *res, lg_diag *diag) {
  const num_system *s = L->s;
  sym_ctx *c = mech_ctx(mm);
  size_t n = L->n, nqi = pt->nqi, nui = pt->nui, nx = res->nx, nr = res->nr, K = 3 * n;
  size_t cols = 2 * n + nr;
  if (p != nui) {
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0, "Kane's %zu independent speeds do not match "
                "the %zu independent rates of the constraints", p, nui);
    return LG_ERR_NUMERIC;
  }
  size_t nin = 1 + 3 * n + s->np;
  const sym_node **in = lg_calloc(nin + 2 * p + 1, sizeof *in), **o = in ? in + nin : NULL;
  sym_tape *tape = NULL;
  lg_status st = in ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) {
    in[0] = sym_time(c);
    for (size_t i = 0; i < n; i++)
      for (int k = 0; k < 3; k++) in[1 + (size_t)k * n + i] = mech_coord(mm, i, k);
    for (size_t i = 0; i < s->np; i++) in[1 + 3 * n + i] = mech_param(mm, i);
    for (size_t i = 0; i < p; i++) {
      o[i] = u_of[i];
      o[p + i] = sym_dt(c, u_of[i]);
    }
    st = num_substitute_inputs(mm, set, nset, o, 2 * p);
  }
  const sym_node *missing = NULL;
  if (st == LG_OK) st = sym_tape_build(c, nin, in, 2 * p, o, &tape, &missing);
  double *mem = st == LG_OK ? lg_calloc(nin * (K + 1) + (2 * p + tape->nslots) * (K + 1) +
                                            3 * nx * nx + 2 * p * n + 1, sizeof *mem) : NULL;
  if (st == LG_OK && !mem) st = LG_ERR_NOMEM;
  if (st == LG_OK) {
    double *x = mem, *dx = x + nin, *u = dx + nin * K, *du = u + 2 * p;
    double *w = du + 2 * p * K, *dw = w + tape->nslots, *D = dw + tape->nslots * K;
    double *Ax = D + nx * nx, *tmp = Ax + nx * nx, *Rq = tmp + nx * nx, *Rv = Rq + p * n;
    x[0] = pt->t;
    memcpy(x + 1, pt->q, n * sizeof *x);
    memcpy(x + 1 + n, pt->qd, n * sizeof *x);
    memcpy(x + 1 + 2 * n, res->qdd, n * sizeof *x); /* q'' at the point */
    memcpy(x + 1 + 3 * n, s->params, s->np * sizeof *x);
    for (size_t j = 0; j < K; j++) dx[(1 + j) * K + j] = 1;
    sym_tape_eval_fwd(tape, K, x, dx, u, du, w, dw);
    /* rows of U (0..p) and W (p..2p) over [q | q' | q''] */
    const double *dU = du, *dW = du + p * K;
    /* Rq = W_q + U_qd Gq, Rv = W_qd + U_qd Gv (p x n) */
    for (size_t i = 0; i < p; i++)
      for (size_t j = 0; j < n; j++) {
        double aq = dW[i * K + j], av = dW[i * K + n + j];
        for (size_t k = 0; k < n; k++) {
          aq += dU[i * K + n + k] * res->G[k * cols + j];
          av += dU[i * K + n + k] * res->G[k * cols + n + j];
        }
        Rq[i * n + j] = aq;
        Rv[i * n + j] = av;
      }
    /* A in x_q: the q_i rows as they are, the u rows from Rq, Rv */
    memcpy(Ax, res->A, nqi * nx * sizeof *Ax);
    memset(D, 0, nx * nx * sizeof *D);
    for (size_t a = 0; a < nqi; a++) D[a * nx + a] = 1;
    for (size_t i = 0; i < p; i++) {
      double *row = Ax + (nqi + i) * nx, *drow = D + (nqi + i) * nx;
      for (size_t a = 0; a < nqi; a++) {
        double acc = 0, dacc = 0;
        for (size_t j = 0; j < n; j++) {
          acc += Rq[i * n + j] * res->Pq[j * nqi + a] + Rv[i * n + j] * res->Q[j * nqi + a];
          dacc += dU[i * K + j] * res->Pq[j * nqi + a] + dU[i * K + n + j] * res->Q[j * nqi + a];
        }
        row[a] = acc;
        drow[a] = dacc;
      }
      for (size_t b = 0; b < nui; b++) {
        double acc = 0, dacc = 0;
        for (size_t j = 0; j < n; j++) {
          acc += Rv[i * n + j] * res->Vu[j * nui + b];
          dacc += dU[i * K + n + j] * res->Vu[j * nui + b];
        }
        row[nqi + b] = acc;
        drow[nqi + b] = dacc;
      }
    }
    /* A_u = Ax D^-1: solve D^T A_u^T = Ax^T */
    for (size_t i = 0; i < nx; i++)
      for (size_t j = 0; j < nx; j++) tmp[j * nx + i] = D[i * nx + j];
    double *At = lg_malloc((nx * nx + 1) * sizeof *At);
    if (!At) st = LG_ERR_NOMEM;
    for (size_t i = 0; At && i < nx; i++)
      for (size_t j = 0; j < nx; j++) At[j * nx + i] = Ax[i * nx + j];
    if (st == LG_OK && !solve(tmp, At, nx, nx)) {
      lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0, "the speeds do not determine the rates at "
                  "the operating point (the kinematical equations are singular there)");
      st = LG_ERR_NUMERIC;
    }
    for (size_t i = 0; st == LG_OK && i < nx; i++)
      for (size_t j = 0; j < nx; j++) res->A[i * nx + j] = At[j * nx + i];
    lg_free(At);
    /* B: the u rows are U_qd Gr */
    for (size_t i = 0; st == LG_OK && i < p; i++)
      for (size_t r = 0; r < nr; r++) {
        double acc = 0;
        for (size_t k = 0; k < n; k++) acc += dU[i * K + n + k] * res->G[k * cols + 2 * n + r];
        res->B[(nqi + i) * nr + r] = acc;
      }
    for (size_t i = 0; st == LG_OK && i < p; i++) res->x0[nqi + i] = u[i];
  }
  if (st == LG_ERR_MODEL)
    lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0, "'%s' has no numeric value in the speeds",
                missing && missing->v.name ? missing->v.name : "?");
  sym_tape_free(tape);
  lg_free(in);
  lg_free(mem);
  return st;
}
