/* num_links.c - a tree's q'' by the articulated-body algorithm on numbers
 * (issue 26: the first q'' of a large tree without building expressions).
 *
 * mech_tree_accel writes the recursion out as expressions (21,000
 * instructions at 40 links) and the tape lowers them: most of the first
 * evaluation's time. Here one small tape computes, from (t, q, q', p),
 * every entry of the links' data that is not a number (each link's R, d,
 * S, I, cJ as mech_joints_link gives them, the base's acceleration and
 * tau = Q - dV/dq per coordinate: the joints' sin/cos, inputs, damping,
 * forces, g); the numbers are kept once as doubles; and Featherstone's
 * articulated-body algorithm (RBDA 7.3) runs as plain loops over the
 * links, as mech_joint.c's aba does on expressions (the same steps, the
 * same order: the same numbers to rounding), as MuJoCo does. Work arrays
 * live in the caller's num_work slots (per thread). From the same data,
 * num_links_eval also gives every other form eval reports (M, f, p, T,
 * V: src/cg/cg_emit_links.c's loops on numbers), so a large tree's first
 * lg_eval builds no expressions either. */
#include "num_links_internal.h"

#include <math.h>
#include <string.h>

/* ---- build ------------------------------------------------------------------------------- */
void num_links_free(num_links *L) {
  if (!L) return;
  sym_tape_free(L->tape);
  sym_tape_free(L->vtape);
  lg_free(L->uses);
  lg_free(L->parent);
  lg_free(L->unit);
  lg_free(L->k);
  lg_free(L->base);
  lg_free(L->where);
  lg_free(L->jt);
  lg_free(L);
}

size_t num_links_nslots(const num_links *L) { return L ? L->nslots : 0; }

/* The data's expressions: each link's R 9, d 3, S 6k, I 36, cJ 6, then
 * the base's acceleration (6) and tau (n). 0: not a tree of links whose
 * every coordinate is one link's own. */
static int read_links(mech_model *mm, mech_joints *J, num_links *L, const sym_node ***out) {
  size_t nl = mech_joints_nlinks(J), n = L->n, nd = 0, nq = 0;
  if (!nl) return 0;
  for (size_t i = 0; i < nl; i++) {
    mech_link_view v;
    mech_joints_link(J, i, &v);
    if (v.k > LK_KMAX || (v.parent >= (int)i) || v.parent < -1) return 0;
    nd += 54 + 6 * v.k;
    nq += v.k;
  }
  if (nq != n) return 0;
  L->nl = nl;
  L->nd = nd + 6 + n;
  L->parent = lg_malloc(nl * sizeof *L->parent);
  L->unit = lg_malloc(nl * sizeof *L->unit);
  L->k = lg_malloc((5 * nl + n) * sizeof *L->k);
  const sym_node **o = lg_malloc((L->nd + 1) * sizeof *o); /* and V besides gravity's */
  unsigned char *seen = lg_calloc(n + 1, 1);
  int ok = L->parent && L->unit && L->k && o && seen;
  if (ok) L->at = L->k + nl, L->q0 = L->at + nl, L->wat = L->q0 + nl, L->qi = L->wat + nl;
  size_t at = 0, nqi = 0, wat = 0;
  const sym_node *one = sym_int(mech_ctx(mm), 1);
  for (size_t i = 0; ok && i < nl; i++) {
    mech_link_view v;
    mech_joints_link(J, i, &v);
    L->parent[i] = v.parent;
    L->unit[i] = -1;
    /* (mech_joint.c's test: the integer 1 once, every other entry zero) */
    int unit = -1, zeros = 0;
    for (int j = 0; v.k == 1 && j < 6; j++) {
      if (v.S[j] == one && unit < 0) unit = j;
      else zeros += sym_is_zero(v.S[j]) != 0;
    }
    L->unit[i] = unit >= 0 && zeros == 5 ? unit : -1;
    L->k[i] = v.k;
    L->at[i] = at;
    L->q0[i] = nqi;
    L->wat[i] = wat;
    for (size_t j = 0; ok && j < v.k; j++) {
      ok = v.q[j] < n && !seen[v.q[j]];
      if (ok) seen[v.q[j]] = 1, L->qi[nqi++] = v.q[j];
    }
    memcpy(o + at, v.R, 9 * sizeof *o);
    memcpy(o + at + 9, v.d, 3 * sizeof *o);
    memcpy(o + at + 12, v.S, 6 * v.k * sizeof *o);
    memcpy(o + at + 12 + 6 * v.k, v.I, 36 * sizeof *o);
    memcpy(o + at + 48 + 6 * v.k, v.cJ, 6 * sizeof *o);
    at += 54 + 6 * v.k;
    wat += 60 + 14 * v.k; /* v, c, pA, a 6 each, IA 36, U 6k, u k, DU 6k, Du k */
  }
  if (ok) {
    memcpy(o + nd, mech_joints_base_accel(J), 6 * sizeof *o);
    for (size_t q = 0; q < n; q++)
      if (!(o[nd + 6 + q] = mech_joints_tau(mm, q))) ok = 0;
    const sym_node *V = mech_potential_besides_gravity(mm);
    o[L->nd] = V ? V : sym_int(mech_ctx(mm), 0);
  }
  L->o_work = wat; /* (the work's size, until the layout is known) */
  lg_free(seen);
  if (!ok) {
    lg_free(o);
    return 0;
  }
  *out = o;
  return 1;
}

/* V besides gravity's (a number, or its own tape; forms 0 when something
 * in it has no numeric value: eval then takes the dense path), and which
 * parameters the data and V use (num_links_uses_param). */
static lg_status build_forms(mech_model *mm, num_links *L, const sym_node *V, size_t nin,
                             const sym_node **in, const sym_node **live) {
  lg_status st = LG_OK;
  if (sym_is_number(V)) L->vbase = sym_number_value(V), L->forms = 1;
  else {
    const sym_node *missing = NULL;
    st = sym_tape_build(mech_ctx(mm), nin, in, 1, &V, &L->vtape, &missing);
    if (st == LG_ERR_MODEL) st = LG_OK;
    else L->forms = st == LG_OK;
  }
  live[L->nlive] = V;
  unsigned char *has = st == LG_OK ? lg_malloc(L->nlive + 1) : NULL;
  if (st == LG_OK && !has) st = LG_ERR_NOMEM;
  for (size_t i = 0; st == LG_OK && i < L->np; i++) {
    const sym_node *x = mech_param(mm, i);
    st = sym_has_any(mech_ctx(mm), L->nlive + 1, live, 1, &x, has, NULL, NULL);
    for (size_t j = 0; st == LG_OK && j <= L->nlive; j++) L->uses[i] |= has[j];
  }
  lg_free(has);
  return st;
}

int num_links_has_forms(const num_links *L) { return L && L->forms; }

int num_links_uses_param(const num_links *L, size_t i) { return L && i < L->np && L->uses[i]; }

lg_status num_links_build(mech_model *mm, const mech_eom *e, const num_setting *set,
                          size_t nset, const double *params, num_links **out, lg_diag *diag) {
  *out = NULL;
  if (e && e->m) return LG_ERR_MODEL;
  /* a tree by its numbers (a URDF) without expressions; else (or when
   * that cannot be, with nothing to say) from the expressions */
  const mech_num_tree *t = mech_num_tree_of(mm);
  if (t) {
    lg_diag local;
    lg_diag_clear(&local);
    lg_status st = nl_build_numbers(mm, t, set, nset, params, out, &local);
    if (st != LG_ERR_MODEL || local.status != LG_OK) {
      if (st != LG_OK && diag) *diag = local;
      return st;
    }
  }
  if (!e) return LG_ERR_MODEL;
  mech_joints *J = mech_joints_of(mm);
  if (!J) return mech_model_oom(mm) ? LG_ERR_NOMEM : LG_ERR_MODEL;
  num_links *L = lg_calloc(1, sizeof *L);
  if (!L) return LG_ERR_NOMEM;
  L->n = e->n;
  const sym_node **o = NULL, **live = NULL, **in = NULL;
  lg_status st = read_links(mm, J, L, &o) ? LG_OK : LG_ERR_MODEL;
  if (st == LG_OK) st = num_substitute_inputs(mm, set, nset, o, L->nd + 1);
  size_t np = mech_nparams(mm), nin = 1 + 2 * L->n + np;
  L->np = np;
  if (st == LG_OK) {
    L->base = lg_calloc(L->nd, sizeof *L->base);
    L->where = lg_malloc(L->nd * sizeof *L->where);
    live = lg_malloc((L->nd + 1) * sizeof *live);
    in = lg_malloc(nin * sizeof *in);
    L->uses = lg_calloc(np + 1, 1);
    if (!L->base || !L->where || !live || !in || !L->uses) st = LG_ERR_NOMEM;
  }
  for (size_t j = 0; st == LG_OK && j < L->nd; j++) {
    if (sym_is_number(o[j])) L->base[j] = sym_number_value(o[j]);
    else live[L->nlive] = o[j], L->where[L->nlive++] = j;
  }
  /* a parameter without a value used by the data: the dense path's error */
  for (size_t i = 0; st == LG_OK && i < np; i++) {
    if (!isnan(params[i])) continue;
    for (size_t j = 0; st == LG_OK && j < L->nlive; j++)
      if (sym_has(live[j], mech_param(mm, i))) {
        int line, col;
        mech_param_pos(mm, i, &line, &col);
        lg_diag_set(diag, LG_ERR_MODEL, NULL, line, col, "parameter '%s' has no value",
                    mech_param_name(mm, i));
        st = LG_ERR_MODEL;
      }
  }
  if (st == LG_OK) {
    in[0] = sym_time(mech_ctx(mm));
    for (size_t i = 0; i < L->n; i++) in[1 + i] = e->q[i], in[1 + L->n + i] = e->qd[i];
    for (size_t i = 0; i < np; i++) in[1 + 2 * L->n + i] = mech_param(mm, i);
    const sym_node *missing = NULL;
    if (L->nlive) st = sym_tape_build(mech_ctx(mm), nin, in, L->nlive, live, &L->tape, &missing);
    if (st == LG_ERR_MODEL)
      lg_diag_set(diag, LG_ERR_MODEL, NULL, 0, 0, "'%s' has no numeric value in the equations",
                  missing && missing->v.name ? missing->v.name : "?");
  }
  if (st == LG_OK) st = build_forms(mm, L, o[L->nd], nin, in, live);
  if (st == LG_OK) {
    size_t work = L->o_work;
    L->o_live = L->tape ? L->tape->nslots : 0;
    if (L->vtape && L->vtape->nslots > L->o_live) L->o_live = L->vtape->nslots;
    L->o_data = L->o_live + L->nlive;
    L->o_work = L->o_data + L->nd;
    L->nslots = L->o_work + work;
  }
  lg_free(o);
  lg_free(live);
  lg_free(in);
  if (st != LG_OK) {
    num_links_free(L);
    return st;
  }
  *out = L;
  return LG_OK;
}

/* Outward: each link's velocity v, its bias term c = cJ + v x vJ, and
 * IA = I, pA = v x* I v to start the inward pass. */
static void pass_velocities(const num_links *L, const double *X0, double *Wk, const double *qd) {
  for (size_t i = 0; i < L->nl; i++) {
    size_t k = L->k[i];
    const double *X = X0 + L->at[i], *S = X + 12, *I = S + 6 * k, *cJ = I + 36;
    double *w = work_of(L, Wk, i), *v = w + W_V, vJ[6], Iv[6], x[6];
    for (int j = 0; j < 6; j++) {
      vJ[j] = 0;
      for (size_t r = 0; r < k; r++) vJ[j] += S[6 * r + j] * qd[coord_of(L, i, r)];
    }
    if (L->parent[i] >= 0) {
      motion_in(X, work_of(L, Wk, (size_t)L->parent[i]) + W_V, v);
      for (int j = 0; j < 6; j++) v[j] += vJ[j];
    } else
      memcpy(v, vJ, sizeof vJ);
    cross_motion(v, vJ, x);
    for (int j = 0; j < 6; j++) w[W_C + j] = cJ[j] + x[j];
    memcpy(w + W_IA, I, 36 * sizeof *w);
    times6(I, v, Iv);
    cross_force(v, Iv, w + W_PA);
  }
}

/* Inward: U = IA S, u = tau - S^T pA, D = S^T U and D^-1 [u, U^T]; the
 * articulated inertia Ia = IA - U D^-1 U^T and bias pa = pA + Ia c +
 * U D^-1 u carried to the parent. */
static void pass_inward(const num_links *L, const double *X0, double *Wk, const double *tau) {
  for (size_t i = L->nl; i-- > 0;) {
    size_t k = L->k[i];
    const double *X = X0 + L->at[i], *S = X + 12;
    double *w = work_of(L, Wk, i), *IA = w + W_IA, *U = w + W_U, *u = U + 6 * k,
           *DU = u + k, *Du = DU + 6 * k, D[LK_KMAX][LK_KMAX], b[LK_KMAX][1 + 6];
    for (size_t r = 0; r < k; r++) {
      times6(IA, S + 6 * r, U + 6 * r);
      u[r] = tau[coord_of(L, i, r)] - dot6(S + 6 * r, w + W_PA);
    }
    for (size_t r = 0; r < k; r++)
      for (size_t c = 0; c < k; c++) D[r][c] = c < r ? D[c][r] : dot6(S + 6 * r, U + 6 * c);
    for (size_t r = 0; r < k; r++) {
      b[r][0] = u[r];
      for (int j = 0; j < 6; j++) b[r][1 + j] = U[6 * r + j];
    }
    solve_small(k, D, b, 7);
    for (size_t r = 0; r < k; r++) {
      Du[r] = b[r][0];
      for (int j = 0; j < 6; j++) DU[6 * r + j] = b[r][1 + j];
    }
    if (L->parent[i] < 0) continue;
    double Ia[36], Ic[6], pa[6];
    for (int x = 0; x < 6; x++)
      for (int y = x; y < 6; y++) {
        double s = IA[6 * x + y];
        for (size_t r = 0; r < k; r++) s -= U[6 * r + x] * DU[6 * r + y];
        Ia[6 * x + y] = Ia[6 * y + x] = s;
      }
    /* Ia S = 0: with S a unit e_j, row and column j are zero exactly (as
     * mech_joint.c's aba writes them) */
    int unit = L->unit[i];
    for (int j = 0; unit >= 0 && j < 6; j++) Ia[6 * unit + j] = Ia[6 * j + unit] = 0;
    times6(Ia, w + W_C, Ic);
    for (int j = 0; j < 6; j++) {
      pa[j] = w[W_PA + j] + Ic[j];
      for (size_t r = 0; r < k; r++) pa[j] += U[6 * r + j] * Du[r];
    }
    double *P = work_of(L, Wk, (size_t)L->parent[i]);
    inertia_out_add(X, Ia, P + W_IA);
    force_out_add(X, pa, P + W_PA);
  }
}

/* Outward: a' = X a_parent + c (the root's from the base's a0), q'' =
 * D^-1 u - D^-1 U^T a', a = a' + S q''. 0 when a q'' is not finite. */
static int pass_accel(const num_links *L, const double *X0, double *Wk, const double *a0,
                      double *qdd) {
  int finite = 1;
  for (size_t i = 0; i < L->nl; i++) {
    size_t k = L->k[i];
    const double *X = X0 + L->at[i], *S = X + 12;
    double *w = work_of(L, Wk, i), *DU = w + W_U + 7 * k, *Du = DU + 6 * k, ap[6];
    motion_in(X, L->parent[i] >= 0 ? work_of(L, Wk, (size_t)L->parent[i]) + W_A : a0, ap);
    for (int j = 0; j < 6; j++) ap[j] += w[W_C + j];
    for (size_t r = 0; r < k; r++) {
      double x = Du[r];
      for (int j = 0; j < 6; j++) x -= DU[6 * r + j] * ap[j];
      qdd[coord_of(L, i, r)] = x;
      finite &= isfinite(x) != 0;
    }
    for (int j = 0; j < 6; j++) {
      double x = ap[j];
      for (size_t r = 0; r < k; r++) x += S[6 * r + j] * qdd[coord_of(L, i, r)];
      w[W_A + j] = x;
    }
  }
  return finite;
}

/* The links' data at in into X0 (slots + o_data). */
static void fill_data(const num_links *L, const double *in, double *slots, double *X0) {
  memcpy(X0, L->base, L->nd * sizeof *X0);
  if (L->tape) { /* the live entries into their places */
    double *live = slots + L->o_live;
    sym_tape_eval(L->tape, in, live, slots);
    for (size_t j = 0; j < L->nlive; j++) X0[L->where[j]] = live[j];
  } else if (L->jt) {
    nl_fill_numbers(L, in, X0);
  }
}

/* V at in (the data and the velocities already in place) */
static double potential(const num_links *L, const double *in, double *slots, const double *X0,
                        double *Wk) {
  double vb = L->vbase;
  if (L->vtape) sym_tape_eval(L->vtape, in, &vb, slots);
  return nl_form_potential(L, X0, Wk, X0 + L->nd - 6 - L->n, vb);
}

int num_links_energy(const num_links *L, const double *in, const double *qdd, double *slots,
                     double *E, double *Ed) {
  if (!L->forms) return 0;
  double *X0 = slots + L->o_data, *Wk = slots + L->o_work;
  fill_data(L, in, slots, X0);
  pass_velocities(L, X0, Wk, in + 1 + L->n);
  if (Ed) *Ed = nl_form_power(L, X0, Wk, X0 + L->nd - 6 - L->n, in + 1 + L->n, qdd);
  if (E) {
    double T;
    nl_form_momenta(L, X0, Wk, NULL, &T);
    *E = T + potential(L, in, slots, X0, Wk);
  }
  return 1;
}

int num_links_eval(const num_links *L, const double *in, double *slots, double *qdd,
                   const num_links_forms *o) {
  double *X0 = slots + L->o_data, *Wk = slots + L->o_work;
  fill_data(L, in, slots, X0);
  const double *a0 = X0 + L->nd - 6 - L->n;
  pass_velocities(L, X0, Wk, in + 1 + L->n);
  int finite = 1;
  if (qdd) {
    pass_inward(L, X0, Wk, a0 + 6);
    finite = pass_accel(L, X0, Wk, a0, qdd);
  }
  if (!o || !L->forms) return finite;
  if (o->f) nl_form_forcing(L, X0, Wk, a0, o->f);
  if (o->p || o->T) nl_form_momenta(L, X0, Wk, o->p, o->T);
  if (o->V) *o->V = potential(L, in, slots, X0, Wk);
  if (o->M) nl_form_mass(L, X0, Wk, o->M);
  return finite;
}

int num_links_accel(const num_links *L, const double *in, double *slots, double *qdd) {
  return num_links_eval(L, in, slots, qdd, NULL);
}
