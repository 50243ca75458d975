/* num_kane.c - Kane's equations evaluated at one state. */
#include "num.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

/* outputs: speeds from (q, q'), then M, f, k~, q'', Mfull, ffull */
static const sym_node **outputs(const mech_kane *k, size_t *count) {
  size_t n = k->n, p = k->p, N = n + p;
  size_t cnt = p + p * p + p + n + n + N * N + N, o = 0;
  const sym_node **v = lg_malloc(cnt * sizeof *v);
  if (!v) return NULL;
  for (size_t i = 0; i < p; i++) v[o++] = k->speed_of_qd[i];
  for (size_t i = 0; i < p * p; i++) v[o++] = k->M->e[i];
  for (size_t i = 0; i < p; i++) v[o++] = k->f[i];
  for (size_t i = 0; i < n; i++) v[o++] = k->kq[i];
  for (size_t i = 0; i < n; i++) v[o++] = k->qdd[i];
  for (size_t i = 0; i < N * N; i++) v[o++] = k->mass_matrix_full->e[i];
  for (size_t i = 0; i < N; i++) v[o++] = k->forcing_full[i];
  *count = cnt;
  return v;
}

/* One tape over [t, q, q', u, u', params], built once; evaluated twice
 * per state: first for the speeds and M, f (u' = 0), then with the solved
 * u'. The evaluator is immutable: runs on one evaluator may overlap. */
struct num_kane_evaluator {
  size_t n, p, np, nin, nout;
  sym_tape *tape;
  int default_speeds;
  int *speed_qd;        /* p: the q' a default speed is, or -1 */
};

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
  ev->n = n;
  ev->p = p;
  ev->np = mech_nparams(mm);
  ev->nin = 1 + 2 * n + 2 * p + ev->np;
  ev->nout = p + p * p + p + 2 * n + N * N + N;
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

void num_kane_result_free(num_kane_result *r) {
  lg_free(r->u);
  memset(r, 0, sizeof *r);
}

static int alloc_result(num_kane_result *r, size_t n, size_t p) {
  size_t N = n + p;
  r->n = n;
  r->p = p;
  r->u = lg_calloc(2 * p + 2 * n + p * p + p + N * N + N + 1, sizeof(double));
  if (!r->u) return 0;
  r->ud = r->u + p;
  r->qd = r->ud + p;
  r->qdd = r->qd + n;
  r->M = r->qdd + n;
  r->f = r->M + p * p;
  r->Mfull = r->f + p;
  r->ffull = r->Mfull + N * N;
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

lg_status num_kane_evaluator_run(const num_kane_evaluator *ev, const double *params,
                                 double t, const double *q, const double *qd,
                                 const double *u, int have_u, num_kane_result *r,
                                 lg_diag *diag) {
  size_t n = ev->n, p = ev->p, N = n + p;
  memset(r, 0, sizeof *r);
  double *in = lg_calloc(ev->nin, sizeof *in), *out = lg_calloc(ev->nout + 1, sizeof *out);
  lg_status st = in && out && alloc_result(r, n, p) ? LG_OK : LG_ERR_NOMEM;
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
  if (st == LG_OK) {
    memcpy(r->u, in + 1 + 2 * n, p * sizeof *r->u);
    memcpy(r->M, out + p, p * p * sizeof *r->M);
    memcpy(r->f, out + p + p * p, p * sizeof *r->f);
    st = solve_ud(r, p, diag);
  }
  if (st == LG_OK) { /* again with u' for q'' */
    memcpy(in + 1 + 2 * n + p, r->ud, p * sizeof *r->ud);
    st = run_tape(ev, in, out);
  }
  if (st == LG_OK) {
    size_t o = p + p * p + p;
    memcpy(r->qd, out + o, n * sizeof *r->qd);
    memcpy(r->qdd, out + o + n, n * sizeof *r->qdd);
    memcpy(r->Mfull, out + o + 2 * n, N * N * sizeof *r->Mfull);
    memcpy(r->ffull, out + o + 2 * n + N * N, N * sizeof *r->ffull);
  }
  lg_free(in);
  lg_free(out);
  if (st != LG_OK) num_kane_result_free(r);
  return st;
}

lg_status num_kane_eval(mech_model *mm, const mech_kane *k, const num_setting *set,
                        size_t nset, double t, const double *q, const double *qd,
                        const double *u, int have_u, num_kane_result *r, lg_diag *diag) {
  memset(r, 0, sizeof *r);
  double *params = lg_calloc(mech_nparams(mm) + 1, sizeof *params);
  if (!params) return LG_ERR_NOMEM;
  num_kane_evaluator *ev = NULL;
  lg_status st = mech_resolve_params(mm, set, nset, params, diag);
  if (st == LG_OK) st = num_kane_evaluator_build(mm, k, set, nset, &ev, diag);
  if (st == LG_OK) st = num_kane_evaluator_run(ev, params, t, q, qd, u, have_u, r, diag);
  num_kane_evaluator_free(ev);
  lg_free(params);
  return st;
}

/* ---- Kane's equations over time ------------------------------------------------------ */
static const sym_node *subst_kq(sym_ctx *c, const mech_kane *k, const sym_node *e) {
  return sym_subst(c, e, k->n, k->qd, k->kq);
}

static lg_status kane_tapes(mech_model *mm, const mech_kane *k, const mech_eom *lag,
                            const num_setting *set, size_t nset, num_kane_system *s,
                            lg_diag *diag) {
  sym_ctx *c = mech_ctx(mm);
  size_t n = k->n, p = k->p, m = lag->m, nd = n + p * p + p, na = n + 2 + m;
  const sym_node **od = lg_malloc(nd * sizeof *od), **oa = lg_malloc(na * sizeof *oa);
  const sym_node **in = lg_malloc(s->nin * sizeof *in);
  lg_status st = od && oa && in ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) {
    memcpy(od, k->kq, n * sizeof *od);
    memcpy(od + n, k->M->e, p * p * sizeof *od);
    memcpy(od + n + p * p, k->f, p * sizeof *od);
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

lg_status num_kane_system_build(mech_model *mm, const mech_kane *k, const mech_eom *lag,
                                const num_setting *set, size_t nset, num_kane_system **out,
                                lg_diag *diag) {
  *out = NULL;
  num_kane_system *s = lg_calloc(1, sizeof *s);
  if (!s) return LG_ERR_NOMEM;
  s->n = k->n;
  s->p = k->p;
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
  s->o_kq = 0;
  s->o_T = s->n;
  s->o_V = s->n + 1;
  s->o_C = s->n + 2;
  size_t slots = s->dyn->nslots > s->all->nslots ? s->dyn->nslots : s->all->nslots;
  size_t nout = s->n + s->p * s->p + s->p > s->n + 2 + s->m ? s->n + s->p * s->p + s->p
                                                             : s->n + 2 + s->m;
  s->o_out = s->nin + slots;
  s->nwork = s->o_out + nout + s->p * s->p + 2 * s->p + 1;
  *out = s;
  return LG_OK;
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
  size_t n = k->n, p = k->p;
  load_state(k, w, t, x);
  double *out = w + k->o_out, *A = out + n + p * p + p;
  sym_tape_eval(k->dyn, w, out, w + k->nin);
  memcpy(dx, out, n * sizeof *dx);
  memcpy(A, out + n, p * p * sizeof *A); /* Kane's M is symmetric: either layout */
  memcpy(dx + n, out + n + p * p, p * sizeof *dx);
  lapack_int piv[p + 1];
  if (p && LAPACKE_dgesv_work(LAPACK_COL_MAJOR, (lapack_int)p, 1, A, (lapack_int)p, piv,
                              dx + n, (lapack_int)p) != 0) {
    lg_diag_set(diag, LG_ERR_NUMERIC, NULL, 0, 0, "Kane's mass matrix is singular");
    return LG_ERR_NUMERIC;
  }
  return LG_OK;
}

void num_kane_observe(const num_kane_system *k, double *w, double t, const double *x) {
  load_state(k, w, t, x);
  sym_tape_eval(k->all, w, w + k->o_out, w + k->nin);
}
