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

/* One tape over [t, q, q', u, u', params]; evaluated twice: first for the
 * speeds and M, f (u' = 0), then with the solved u'. */
static lg_status evaluate(mech_model *mm, const mech_kane *k, const num_setting *set,
                          size_t nset, const double *in, double *out, size_t nin,
                          lg_diag *diag) {
  sym_ctx *c = mech_ctx(mm);
  size_t n = k->n, p = k->p, np = mech_nparams(mm), cnt;
  const sym_node **o = outputs(k, &cnt);
  const sym_node **atoms = lg_malloc(nin * sizeof *atoms);
  sym_tape *tape = NULL;
  lg_status st = o && atoms ? num_substitute_inputs(mm, set, nset, o, cnt) : LG_ERR_NOMEM;
  if (st == LG_OK) {
    size_t a = 0;
    atoms[a++] = sym_time(c);
    for (size_t i = 0; i < n; i++) atoms[a++] = k->q[i];
    for (size_t i = 0; i < n; i++) atoms[a++] = k->qd[i];
    for (size_t i = 0; i < p; i++) atoms[a++] = k->u[i];
    for (size_t i = 0; i < p; i++) atoms[a++] = k->ud[i];
    for (size_t i = 0; i < np; i++) atoms[a++] = mech_param(mm, i);
    const sym_node *missing = NULL;
    st = sym_tape_build(c, nin, atoms, cnt, o, &tape, &missing);
    if (st == LG_ERR_MODEL)
      lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0, "'%s' has no numeric value",
                  missing && missing->v.name ? missing->v.name : "?");
  }
  if (st == LG_OK) {
    double *w = lg_malloc(tape->nslots * sizeof *w);
    if (w) sym_tape_eval(tape, in, out, w);
    else st = LG_ERR_NOMEM;
    lg_free(w);
  }
  sym_tape_free(tape);
  lg_free(o);
  lg_free(atoms);
  return st;
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

lg_status num_kane_eval(mech_model *mm, const mech_kane *k, const num_setting *set,
                        size_t nset, double t, const double *q, const double *qd,
                        const double *u, int have_u, num_kane_result *r, lg_diag *diag) {
  size_t n = k->n, p = k->p, N = n + p, np = mech_nparams(mm);
  size_t nin = 1 + 2 * n + 2 * p + np, nout = p + p * p + p + 2 * n + N * N + N;
  memset(r, 0, sizeof *r);
  double *in = lg_calloc(nin, sizeof *in), *out = lg_calloc(nout, sizeof *out);
  lg_status st = in && out && alloc_result(r, n, p) ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) st = mech_resolve_params(mm, set, nset, in + 1 + 2 * n + 2 * p, diag);
  if (st == LG_OK) {
    in[0] = t;
    memcpy(in + 1, q, n * sizeof *q);
    memcpy(in + 1 + n, qd, n * sizeof *qd);
    if (have_u) memcpy(in + 1 + 2 * n, u, p * sizeof *u);
    /* u = q': the speeds are the q' atoms themselves (later tape inputs
     * win), so they take the independent q' values */
    for (size_t i = 0; k->default_speeds && !have_u && i < p; i++)
      for (size_t j = 0; j < n; j++)
        if (k->u[i] == k->qd[j]) in[1 + 2 * n + i] = qd[j];
    if (k->default_speeds) have_u = 1;
    st = evaluate(mm, k, set, nset, in, out, nin, diag);
  }
  if (st == LG_OK && !have_u) { /* speeds from q' through the kinematics */
    memcpy(in + 1 + 2 * n, out, p * sizeof *out);
    st = evaluate(mm, k, set, nset, in, out, nin, diag);
  }
  if (st == LG_OK) {
    memcpy(r->u, in + 1 + 2 * n, p * sizeof *r->u);
    memcpy(r->M, out + p, p * p * sizeof *r->M);
    memcpy(r->f, out + p + p * p, p * sizeof *r->f);
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
  }
  if (st == LG_OK) { /* again with u' for q'' */
    memcpy(in + 1 + 2 * n + p, r->ud, p * sizeof *r->ud);
    st = evaluate(mm, k, set, nset, in, out, nin, diag);
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
