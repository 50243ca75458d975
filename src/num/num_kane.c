/* num_kane.c - Kane's equations evaluated at one state (a tape built once,
 * run per state), and over time. */
#include "num.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

/* outputs: independent speeds from (q, q'), then M, f, k~, q'', Mfull,
 * ffull, the dependent speeds */
static const sym_node **outputs(const mech_kane *k, size_t *count) {
  size_t n = k->n, p = k->p, N = n + p;
  size_t cnt = p + p * p + p + n + n + N * N + N + k->ndep, o = 0;
  const sym_node **v = lg_malloc(cnt * sizeof *v);
  if (!v) return NULL;
  for (size_t i = 0; i < p; i++) v[o++] = k->speed_of_qd[i];
  for (size_t i = 0; i < p * p; i++) v[o++] = k->M->e[i];
  for (size_t i = 0; i < p; i++) v[o++] = k->f[i];
  for (size_t i = 0; i < n; i++) v[o++] = k->kq[i];
  for (size_t i = 0; i < n; i++) v[o++] = k->qdd[i];
  for (size_t i = 0; i < N * N; i++) v[o++] = k->mass_matrix_full->e[i];
  for (size_t i = 0; i < N; i++) v[o++] = k->forcing_full[i];
  for (size_t i = 0; i < k->ndep; i++) v[o++] = k->udep_expr[i];
  *count = cnt;
  return v;
}

/* One tape over [t, q, q', u, u', params], built once; evaluated twice
 * per state: first for the speeds and M, f (u' = 0), then with the solved
 * u'. The evaluator is immutable: runs on one evaluator may overlap. */
struct num_kane_evaluator {
  const mech_kane *k;   /* for the names in diagnostics */
  size_t n, p, np, ndep, nin, nout;
  sym_tape *tape;
  int default_speeds;
  int *speed_qd;        /* p: the q' a default speed is, or -1 */
  const num_system *orient; /* frames by Euler angles, or NULL */
};

void num_kane_evaluator_orient(num_kane_evaluator *ev, const num_system *s) {
  ev->orient = s;
}

static lg_status build_tape(mech_model *mm, const mech_kane *k, const num_setting *set,
                            size_t nset, num_kane_evaluator *ev, lg_diag *diag) {
  sym_ctx *c = mech_ctx(mm);
  size_t n = k->n, p = k->p, cnt;
  const sym_node **o = outputs(k, &cnt);
  const sym_node **atoms = lg_malloc(ev->nin * sizeof *atoms);
  lg_status st = o && atoms ? num_substitute_inputs(mm, set, nset, o, cnt) : LG_ERR_NOMEM;
  if (st == LG_OK) {
    size_t a = 0;
    atoms[a++] = sym_time(c);
    for (size_t i = 0; i < n; i++) atoms[a++] = k->q[i];
    for (size_t i = 0; i < n; i++) atoms[a++] = k->qd[i];
    for (size_t i = 0; i < p; i++) atoms[a++] = k->u[i];
    for (size_t i = 0; i < p; i++) atoms[a++] = k->ud[i];
    for (size_t i = 0; i < ev->np; i++) atoms[a++] = mech_param(mm, i);
    const sym_node *missing = NULL;
    st = sym_tape_build(c, ev->nin, atoms, cnt, o, &ev->tape, &missing);
    if (st == LG_ERR_MODEL)
      lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0, "'%s' has no numeric value",
                  missing && missing->v.name ? missing->v.name : "?");
  }
  lg_free(o);
  lg_free(atoms);
  return st;
}

lg_status num_kane_evaluator_build(mech_model *mm, const mech_kane *k,
                                   const num_setting *set, size_t nset,
                                   num_kane_evaluator **out, lg_diag *diag) {
  size_t n = k->n, p = k->p, N = n + p;
  *out = NULL;
  num_kane_evaluator *ev = lg_calloc(1, sizeof *ev);
  if (!ev) return LG_ERR_NOMEM;
  ev->k = k;
  ev->n = n;
  ev->p = p;
  ev->np = mech_nparams(mm);
  ev->ndep = k->ndep;
  ev->nin = 1 + 2 * n + 2 * p + ev->np;
  ev->nout = p + p * p + p + 2 * n + N * N + N + k->ndep;
  ev->default_speeds = k->default_speeds;
  ev->speed_qd = lg_malloc((p + 1) * sizeof *ev->speed_qd);
  lg_status st = ev->speed_qd ? build_tape(mm, k, set, nset, ev, diag) : LG_ERR_NOMEM;
  /* u = q': the speeds are the q' atoms themselves (later tape inputs
   * win), so they take the independent q' values */
  for (size_t i = 0; st == LG_OK && i < p; i++) {
    ev->speed_qd[i] = -1;
    for (size_t j = 0; j < n; j++)
      if (k->u[i] == k->qd[j]) ev->speed_qd[i] = (int)j;
  }
  if (st != LG_OK) {
    num_kane_evaluator_free(ev);
    return st;
  }
  *out = ev;
  return LG_OK;
}

void num_kane_evaluator_free(num_kane_evaluator *ev) {
  if (!ev) return;
  sym_tape_free(ev->tape);
  lg_free(ev->speed_qd);
  lg_free(ev);
}

static lg_status run_tape(const num_kane_evaluator *ev, const double *in, double *out) {
  double *w = lg_malloc((ev->tape->nslots + 1) * sizeof *w);
  if (!w) return LG_ERR_NOMEM;
  sym_tape_eval(ev->tape, in, out, w);
  lg_free(w);
  return LG_OK;
}

/* The dependent speeds are solved symbolically for the set chosen where
 * the model starts; at a state where that set's constraint matrix is
 * singular they are not finite: say so instead of printing garbage. */
static lg_status check_dependent(const mech_kane *k, const double *udep, lg_diag *diag) {
  for (size_t i = 0; i < k->ndep; i++) {
    if (isfinite(udep[i])) continue;
    lg_str names;
    lg_str_init(&names);
    for (size_t j = 0; j < k->ndep; j++) {
      if (j) lg_str_puts(&names, ", ");
      sym_print(&names, k->udep[j], SYM_STYLE_TEXT, NULL, NULL);
    }
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                "the velocity constraints cannot be solved for the dependent speeds %s at this "
                "state (their coefficients are singular here)",
                names.s ? names.s : "");
    lg_diag_hint(diag, "evaluate elsewhere, or declare other dependent speeds");
    lg_str_free(&names);
    return LG_ERR_NUMERIC;
  }
  return LG_OK;
}

void num_kane_result_free(num_kane_result *r) {
  lg_free(r->u);
  memset(r, 0, sizeof *r);
}

static int alloc_result(num_kane_result *r, size_t n, size_t p, size_t nd) {
  size_t N = n + p;
  r->n = n;
  r->p = p;
  r->ndep = nd;
  r->u = lg_calloc(2 * p + 2 * n + p * p + p + N * N + N + nd + 1, sizeof(double));
  if (!r->u) return 0;
  r->ud = r->u + p;
  r->qd = r->ud + p;
  r->qdd = r->qd + n;
  r->M = r->qdd + n;
  r->f = r->M + p * p;
  r->Mfull = r->f + p;
  r->ffull = r->Mfull + N * N;
  r->udep = r->ffull + N;
  return 1;
}

/* u' = M^-1 f (row-major M, LAPACK) */
static lg_status solve_ud(num_kane_result *r, size_t p, lg_diag *diag) {
  lg_status st = LG_OK;
  double *A = lg_malloc((p * p + 1) * sizeof *A);
  lapack_int *ipiv = lg_malloc((p + 1) * sizeof *ipiv);
  memcpy(r->ud, r->f, p * sizeof *r->ud);
  if (!A || !ipiv) st = LG_ERR_NOMEM;
  else if (p) {
    memcpy(A, r->M, p * p * sizeof *A);
    if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)p, 1, A, (lapack_int)p, ipiv, r->ud, 1)) {
      lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                  "Kane's mass matrix is singular at this state");
      st = LG_ERR_NUMERIC;
    }
  }
  lg_free(A);
  lg_free(ipiv);
  return st;
}

/* The results of the last tape run into r. */
static void take_results(const num_kane_evaluator *ev, const double *out,
                         num_kane_result *r) {
  size_t n = ev->n, p = ev->p, N = n + p, o = p + p * p + p;
  memcpy(r->qd, out + o, n * sizeof *r->qd);
  memcpy(r->qdd, out + o + n, n * sizeof *r->qdd);
  memcpy(r->Mfull, out + o + 2 * n, N * N * sizeof *r->Mfull);
  memcpy(r->ffull, out + o + 2 * n + N * N, N * sizeof *r->ffull);
  memcpy(r->udep, out + o + 2 * n + N * N + N, ev->ndep * sizeof *r->udep);
}

lg_status num_kane_evaluator_run(const num_kane_evaluator *ev, const double *params,
                                 double t, const double *q, const double *qd,
                                 const double *u, int have_u, num_kane_result *r,
                                 lg_diag *diag) {
  size_t n = ev->n, p = ev->p;
  memset(r, 0, sizeof *r);
  double *in = lg_calloc(ev->nin, sizeof *in), *out = lg_calloc(ev->nout + 1, sizeof *out);
  lg_status st = in && out && alloc_result(r, n, p, ev->ndep) ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) {
    memcpy(in + 1 + 2 * n + 2 * p, params, ev->np * sizeof *params);
    in[0] = t;
    memcpy(in + 1, q, n * sizeof *q);
    memcpy(in + 1 + n, qd, n * sizeof *qd);
    if (have_u) memcpy(in + 1 + 2 * n, u, p * sizeof *u);
    for (size_t i = 0; ev->default_speeds && !have_u && i < p; i++)
      if (ev->speed_qd[i] >= 0) in[1 + 2 * n + i] = qd[ev->speed_qd[i]];
    if (ev->default_speeds) have_u = 1;
    st = run_tape(ev, in, out);
  }
  if (st == LG_OK && !have_u) { /* speeds from q' through the kinematics */
    memcpy(in + 1 + 2 * n, out, p * sizeof *out);
    st = run_tape(ev, in, out);
  }
  if (st == LG_OK) st = check_dependent(ev->k, out + ev->nout - ev->ndep, diag);
  if (st == LG_OK) {
    memcpy(r->u, in + 1 + 2 * n, p * sizeof *r->u);
    memcpy(r->M, out + p, p * p * sizeof *r->M);
    memcpy(r->f, out + p + p * p, p * sizeof *r->f);
    st = solve_ud(r, p, diag);
    if (st == LG_ERR_NUMERIC) /* gimbal lock, not the masses */
      num_orientation_singular_as(ev->orient, q, "Kane's mass matrix", diag);
  }
  if (st == LG_OK) { /* again with u' for q'' */
    memcpy(in + 1 + 2 * n + p, r->ud, p * sizeof *r->ud);
    st = run_tape(ev, in, out);
  }
  if (st == LG_OK) take_results(ev, out, r);
  lg_free(in);
  lg_free(out);
  if (st != LG_OK) num_kane_result_free(r);
  return st;
}

/* ---- Kane's equations over time ------------------------------------------------------ */
/* Without dependent speeds the state is [q; u] and M u' = f. With them it
 * is [q; u_all], every speed, and u_all' solves
 *   [M  A^T] [u']   [ f]
 *   [A   0 ] [mu] = [-g]
 * at each state (M, f: Kane's equations for all speeds as if
 * unconstrained; A u' + g = 0: the velocity constraints differentiated).
 * That is Kane's projection onto the speeds the constraints allow (any
 * choice of independent speeds gives the same u'), solved numerically with
 * LAPACK's pivoting, so no symbolic pivot, and no choice of dependent
 * speeds made at the start, can vanish along the motion. */
static const mech_kane *over_time(const mech_kane *k) { return k->ndep ? k->all : k; }

static const sym_node *subst_kq(sym_ctx *c, const mech_kane *k, const sym_node *e) {
  return sym_subst(c, e, k->n, k->qd, k->kq);
}

static lg_status kane_tapes(mech_model *mm, const mech_kane *k0, const mech_eom *lag,
                            const num_setting *set, size_t nset, num_kane_system *s,
                            lg_diag *diag) {
  sym_ctx *c = mech_ctx(mm);
  const mech_kane *k = over_time(k0);
  size_t n = k->n, p = k->p, m = lag->m, mc = s->mc;
  size_t nd = n + p * p + p + mc * p + mc, na = n + 2 + m;
  const sym_node **od = lg_malloc(nd * sizeof *od), **oa = lg_malloc(na * sizeof *oa);
  const sym_node **in = lg_malloc(s->nin * sizeof *in);
  lg_status st = od && oa && in ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) {
    memcpy(od, k->kq, n * sizeof *od);
    memcpy(od + n, k->M->e, p * p * sizeof *od);
    memcpy(od + n + p * p, k->f, p * sizeof *od);
    if (mc) {
      memcpy(od + n + p * p + p, k0->A->e, mc * p * sizeof *od);
      memcpy(od + n + p * p + p + mc * p, k0->g, mc * sizeof *od);
    }
    memcpy(oa, k->kq, n * sizeof *oa);
    oa[n] = subst_kq(c, k, lag->T);
    oa[n + 1] = subst_kq(c, k, lag->V);
    for (size_t r = 0; r < m; r++) oa[n + 2 + r] = subst_kq(c, k, lag->C[r]);
    st = num_substitute_inputs(mm, set, nset, od, nd);
  }
  if (st == LG_OK) st = num_substitute_inputs(mm, set, nset, oa, na);
  if (st == LG_OK) {
    size_t a = 0;
    in[a++] = sym_time(c);
    for (size_t i = 0; i < n; i++) in[a++] = k->q[i];
    for (size_t i = 0; i < p; i++) in[a++] = k->u[i];
    for (size_t i = 0; i < s->np; i++) in[a++] = mech_param(mm, i);
    const sym_node *missing = NULL;
    st = sym_tape_build(c, s->nin, in, nd, od, &s->dyn, &missing);
    if (st == LG_OK) st = sym_tape_build(c, s->nin, in, na, oa, &s->all, &missing);
    if (st == LG_ERR_MODEL)
      lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0, "'%s' has no numeric value",
                  missing && missing->v.name ? missing->v.name : "?");
  }
  lg_free(od);
  lg_free(oa);
  lg_free(in);
  return st;
}

/* Where the outputs, the KKT matrix, its right-hand side and pivots live
 * in the work array. */
static void layout(num_kane_system *s) {
  size_t n = s->n, p = s->p, mc = s->mc, N = p + mc;
  size_t slots = s->dyn->nslots > s->all->nslots ? s->dyn->nslots : s->all->nslots;
  size_t nd = n + p * p + p + mc * p + mc, na = n + 2 + s->m;
  s->o_kq = 0;
  s->o_T = n;
  s->o_V = n + 1;
  s->o_C = n + 2;
  s->o_out = s->nin + slots;
  s->o_kkt = s->o_out + (nd > na ? nd : na);
  s->nwork = s->o_kkt + N * N + N + N + 1; /* matrix, right-hand side, pivots */
}

lg_status num_kane_system_build(mech_model *mm, const mech_kane *k, const mech_eom *lag,
                                const num_setting *set, size_t nset, num_kane_system **out,
                                lg_diag *diag) {
  *out = NULL;
  if (k->ndep) {
    lg_status st = mech_kane_derive_all(mm, (mech_kane *)k, diag);
    if (st != LG_OK) return st;
  }
  num_kane_system *s = lg_calloc(1, sizeof *s);
  if (!s) return LG_ERR_NOMEM;
  s->n = k->n;
  s->p = over_time(k)->p;
  s->mc = k->ndep;
  s->m = lag->m;
  s->np = mech_nparams(mm);
  s->nin = 1 + s->n + s->p + s->np;
  s->params = lg_calloc(s->np + 1, sizeof *s->params);
  lg_status st = s->params ? mech_resolve_params(mm, set, nset, s->params, diag) : LG_ERR_NOMEM;
  for (size_t i = 0; st == LG_OK && i < s->np; i++)
    if (isnan(s->params[i])) {
      int line, col;
      mech_param_pos(mm, i, &line, &col);
      lg_diag_set(diag, LG_ERR_MODEL, NULL, line, col, "parameter '%s' has no value",
                  mech_param_name(mm, i));
      st = LG_ERR_MODEL;
    }
  if (st == LG_OK) st = kane_tapes(mm, k, lag, set, nset, s, diag);
  if (st != LG_OK) {
    num_kane_system_free(s);
    return st;
  }
  layout(s);
  *out = s;
  return LG_OK;
}

void num_kane_initial_speeds(const mech_kane *k, const num_kane_result *r, double *u) {
  if (!k->ndep) {
    memcpy(u, r->u, k->p * sizeof *u);
    return;
  }
  for (size_t j = 0; j < k->nu; j++) {
    for (size_t i = 0; i < k->p; i++)
      if (k->u[i] == k->uall[j]) u[j] = r->u[i];
    for (size_t d = 0; d < k->ndep; d++)
      if (k->udep[d] == k->uall[j]) u[j] = r->udep[d];
  }
}

void num_kane_system_free(num_kane_system *k) {
  if (!k) return;
  sym_tape_free(k->dyn);
  sym_tape_free(k->all);
  lg_free(k->params);
  lg_free(k);
}

double *num_kane_scratch(const num_kane_system *k) {
  double *w = lg_calloc(k->nwork, sizeof *w);
  if (w) memcpy(w + 1 + k->n + k->p, k->params, k->np * sizeof *w);
  return w;
}

static void load_state(const num_kane_system *k, double *w, double t, const double *x) {
  w[0] = t;
  memcpy(w + 1, x, (k->n + k->p) * sizeof *x);
}

lg_status num_kane_rhs(const num_kane_system *k, double *w, double t, const double *x,
                       double *dx, lg_diag *diag) {
  size_t n = k->n, p = k->p, mc = k->mc, N = p + mc;
  load_state(k, w, t, x);
  double *out = w + k->o_out, *K = w + k->o_kkt, *b = K + N * N;
  lapack_int *piv = (lapack_int *)(b + N);
  sym_tape_eval(k->dyn, w, out, w + k->nin);
  const double *M = out + n, *f = M + p * p, *A = f + p, *g = A + mc * p;
  memcpy(dx, out, n * sizeof *dx);
  for (size_t j = 0; j < N; j++) /* column-major [M A^T; A 0] */
    for (size_t i = 0; i < N; i++)
      K[i + j * N] = i < p && j < p ? M[i * p + j]
                     : i >= p && j < p ? A[(i - p) * p + j]
                     : i < p && j >= p ? A[(j - p) * p + i] : 0;
  memcpy(b, f, p * sizeof *b);
  for (size_t r = 0; r < mc; r++) b[p + r] = -g[r];
  if (N && LAPACKE_dgesv_work(LAPACK_COL_MAJOR, (lapack_int)N, 1, K, (lapack_int)N, piv, b,
                              (lapack_int)N) != 0) {
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0,
                mc ? "Kane's equations are singular (mass matrix, or the velocity constraints)"
                   : "Kane's mass matrix is singular");
    num_orientation_singular_as(k->orient, x, mc ? "Kane's equations [[M, A^T], [A, 0]]"
                                                 : "Kane's mass matrix", diag);
    return LG_ERR_NUMERIC;
  }
  memcpy(dx + n, b, p * sizeof *dx);
  return LG_OK;
}

void num_kane_observe(const num_kane_system *k, double *w, double t, const double *x) {
  load_state(k, w, t, x);
  sym_tape_eval(k->all, w, w + k->o_out, w + k->nin);
}
