/* mech_joint.c - a kinematic tree's dynamics in link coordinates.
 *
 * mech_tree.c works in world axes: every link's twist, position and
 * inertia is a function of every joint above it, so its cost per link
 * grows with the depth (and its derivation composes every frame's
 * rotation to the root). Here the model is read as a tree of rigid links,
 * each with its own frame F and origin O (a body's frame and mass
 * centre), joined to its parent link by a transform that depends on the
 * link's own coordinates only:
 *
 *   v_parent = R v_link (F components to the parent's), d = O_parent -> O
 *   in the parent's components, and the joint's motion S (6 x k, per own
 *   q' in F at O) with its rate term cJ = sum_i dS/dq_i q_i' q'.
 *
 * Then Featherstone's articulated-body algorithm (RBDA ch. 7) gives q''
 * with the velocity terms and gravity (the base accelerating at -g) in
 * one outward, one inward and one outward pass, a fixed number of
 * operations per link whatever the depth; the kinetic energy is
 * sum v^T I v / 2 over the links' velocities, the mass matrix is the
 * composite-rigid-body one and the forcing tau - C Newton-Euler's, all in
 * the same link coordinates. Every quantity of a link is let-bound
 * (sym_let), so the next link's quantities use it as one term.
 *
 * The tree is found from the model's structure, not by sampling: the
 * coordinates each frame's rotation and each point's position depend on
 * (its own and its parents'), grouped into links by the carriers that
 * share a set; each link's parent is the link with the largest set inside
 * its own, and the link's own coordinates are the difference. Anything
 * that does not fit (particles alone, a carrier not rigid in its link's
 * frame, kinematics that move with t or inputs, a transform that depends
 * on another link's coordinates) leaves the model to mech_tree.c. */
#include "mech_joint_internal.h"

#include <math.h>
#include <string.h>

/* ---- the passes ------------------------------------------------------------------------------ */
/* velocities, their bias accelerations and the energy: shared by all */
static int velocities(mech_model *m, mech_joints *J) {
  sym_ctx *c = m->c;
  size_t nl = J->nl;
  J->v = lg_arena_alloc(&m->arena, (nl + 1) * sizeof *J->v);
  J->c = lg_arena_alloc(&m->arena, (nl + 1) * sizeof *J->c);
  if (!J->v || !J->c) return 0;
  sn z = sym_int(c, 0), T = z;
  for (size_t i = 0; i < nl; i++) {
    const jlink *L = &J->L[i];
    sn vx[6], vJ[6], x[6], Iv[6];
    if (L->parent >= 0) mj_motion_in(c, L, J->v[L->parent], vx);
    for (int j = 0; j < 6; j++) {
      vJ[j] = z;
      for (size_t k = 0; k < L->k; k++) vJ[j] = sym_add(c, vJ[j], sym_mul(c, L->S[k][j], mech_coord(m, L->q[k], 1)));
      vJ[j] = mj_let(c, vJ[j]);
      J->v[i][j] = mj_let(c, L->parent >= 0 ? sym_add(c, vx[j], vJ[j]) : vJ[j]);
    }
    mj_cross_motion(c, J->v[i], vJ, x);
    for (int j = 0; j < 6; j++) J->c[i][j] = mj_let(c, sym_add(c, L->cJ[j], x[j]));
    mj_times6(c, L->I, J->v[i], Iv);
    T = sym_add(c, T, sym_mul(c, sym_rat(c, 1, 2), mj_dot6(c, J->v[i], Iv)));
  }
  J->T = T;
  J->Vg = z;
  for (int i = 0; i < 6; i++) J->a0[i] = z;
  if (!m->has_gravity) return !sym_ctx_error(c);
  sn g[3];
  if (!mech_vec_express(m, m->gravity, 0, g)) return 0;
  for (int i = 0; i < 3; i++) J->a0[3 + i] = sym_neg(c, g[i]);
  /* -g . sum (m p_O + W (m c)): each link's world rotation W and origin
   * p composed from its parent's, one step a link */
  sn (*W)[9] = lg_calloc(nl + 1, sizeof *W), (*p)[3] = lg_calloc(nl + 1, sizeof *p);
  int ok = W && p;
  sn V = z;
  for (size_t i = 0; ok && i < nl; i++) {
    const jlink *L = &J->L[i];
    sn Wd[3], mc[3] = {sym_neg(c, L->I[11]), L->I[5], L->I[9]}, Wmc[3];
    if (L->parent < 0) {
      memcpy(W[i], L->R, sizeof W[i]);
      memcpy(p[i], L->d, sizeof p[i]);
    } else {
      mj_mul3(c, W[L->parent], L->R, W[i], 0, 0);
      mj_rot(c, W[L->parent], L->d, Wd, 0);
      for (int k = 0; k < 3; k++) p[i][k] = sym_add(c, p[L->parent][k], Wd[k]);
    }
    for (int k = 0; k < 9; k++) W[i][k] = mj_let(c, W[i][k]);
    for (int k = 0; k < 3; k++) p[i][k] = mj_let(c, p[i][k]);
    mj_rot(c, W[i], mc, Wmc, 0);
    for (int k = 0; k < 3; k++) Wmc[k] = sym_add(c, Wmc[k], sym_mul(c, L->I[21], p[i][k]));
    V = sym_sub(c, V, mj_dot3(c, g, Wmc));
  }
  J->Vg = V;
  lg_free(W);
  lg_free(p);
  return ok && !sym_ctx_error(c);
}

/* tau: Q - dV/dq (gravity is the base's acceleration) */
static sn tau(mech_model *m, size_t q) {
  return sym_sub(m->c, mech_generalized_force(m, q), sym_diff(m->c, m->V, mech_coord(m, q, 0)));
}

/* x = D^-1 b for the k x k symmetric D (Gauss-Jordan on expressions, each
 * step bound); k == 1 the one division. */
static void solve_small(sym_ctx *c, size_t k, sn D[KMAX][KMAX], sn b[KMAX][NRHS], size_t nb) {
  for (size_t p = 0; p < k; p++) {
    sn inv = mj_let(c, sym_powi(c, D[p][p], -1));
    for (size_t j = p; j < k; j++) D[p][j] = mj_let(c, sym_mul(c, D[p][j], inv));
    for (size_t j = 0; j < nb; j++) b[p][j] = mj_let(c, sym_mul(c, b[p][j], inv));
    for (size_t i = 0; i < k; i++) {
      if (i == p) continue;
      sn f = D[i][p];
      for (size_t j = p; j < k; j++) D[i][j] = mj_let(c, sym_sub(c, D[i][j], sym_mul(c, f, D[p][j])));
      for (size_t j = 0; j < nb; j++) b[i][j] = mj_let(c, sym_sub(c, b[i][j], sym_mul(c, f, b[p][j])));
    }
  }
}

/* Constraint rows on a root link's own coordinates (a free joint's
 * quaternion norm): the rows, their right-hand sides g (J q'' = g) and the
 * root link each binds (-1: a row the recursion cannot take). */
typedef struct jrows {
  size_t m, n;
  const sym_node *const *J, *const *g;
  int *link;
} jrows;

/* q'' of root link i under its rows: with D' = D + Jc^T Jc (invertible
 * where D is singular along what the rows fix, as a quaternion's scale),
 * q'' = D'^-1 (r + Jc^T g + Jc^T lam) and Jc q'' = g gives lam: the same
 * solution as [D, -Jc^T; Jc, 0], an augmented Lagrangian at the root. */
static int root_rows(sym_ctx *c, const jlink *L, size_t i, const jrows *R, sn U[KMAX][6],
                     const sn *ap, const sym_node **qdd, sn r0[KMAX]) {
  size_t k = L->k, mc = 0, rows[NRHS];
  for (size_t r = 0; r < R->m; r++)
    if (R->link[r] == (int)i) {
      if (mc + 1 == NRHS) return 0;
      rows[mc++] = r;
    }
  sn D[KMAX][KMAX], b[KMAX][NRHS], Jc[NRHS][KMAX];
  for (size_t a = 0; a < mc; a++)
    for (size_t x = 0; x < k; x++) Jc[a][x] = R->J[rows[a] * R->n + L->q[x]];
  for (size_t x = 0; x < k; x++) {
    for (size_t y = 0; y < k; y++) {
      sn d = mj_dot6(c, L->S[x], U[y]);
      for (size_t a = 0; a < mc; a++) d = sym_add(c, d, sym_mul(c, Jc[a][x], Jc[a][y]));
      D[x][y] = mj_let(c, d);
    }
    sn rhs = r0[x];
    for (size_t a = 0; a < mc; a++) {
      rhs = sym_add(c, rhs, sym_mul(c, Jc[a][x], R->g[rows[a]]));
      b[x][1 + a] = Jc[a][x];
    }
    b[x][0] = mj_let(c, rhs);
  }
  (void)ap;
  solve_small(c, k, D, b, 1 + mc);
  /* (Jc D'^-1 Jc^T) lam = g - Jc D'^-1 (r + Jc^T g) */
  sn Sm[KMAX][KMAX], l[KMAX][NRHS];
  for (size_t a = 0; a < mc; a++) {
    sn rhs = R->g[rows[a]];
    for (size_t x = 0; x < k; x++) rhs = sym_sub(c, rhs, sym_mul(c, Jc[a][x], b[x][0]));
    l[a][0] = mj_let(c, rhs);
    for (size_t e = 0; e < mc; e++) {
      sn v = sym_int(c, 0);
      for (size_t x = 0; x < k; x++) v = sym_add(c, v, sym_mul(c, Jc[a][x], b[x][1 + e]));
      Sm[a][e] = mj_let(c, v);
    }
  }
  solve_small(c, mc, Sm, l, 1);
  for (size_t x = 0; x < k; x++) {
    sn v = b[x][0];
    for (size_t a = 0; a < mc; a++) v = sym_add(c, v, sym_mul(c, b[x][1 + a], l[a][0]));
    qdd[L->q[x]] = mj_let(c, v);
  }
  return !sym_ctx_error(c);
}

/* v x* I v, the bias force of a rigid link moving at v = (w, v_O). When I
 * is numbers (a mass m > 0, a first moment mc about O, A = Ic - [mc]x
 * [mc]x / m), through its momentum h = m v_O + w x mc and its inertia about
 * the mass centre Ic: (w x Ic w + c x (w x h), w x h), 60 operations where
 * I v and the two cross products take 72. */
static void bias_force(sym_ctx *c, const sn *I, const sn *v, sn *o) {
  int num = 1;
  for (int k = 0; k < 36; k++) num &= sym_is_number(I[k]);
  double m = num ? sym_number_value(I[21]) : 0, x[36], mc[3] = {0, 0, 0};
  for (int k = 0; num && k < 36; k++) x[k] = sym_number_value(I[k]);
  if (num) {
    mc[0] = 0.5 * (x[16] - x[11]), mc[1] = 0.5 * (x[5] - x[15]), mc[2] = 0.5 * (x[9] - x[4]);
    double scale = fabs(m) + fabs(mc[0]) + fabs(mc[1]) + fabs(mc[2]), tol = 1e-14 * scale;
    double skew[12] = {x[3], x[10], x[17], x[4] + mc[2], x[9] - mc[2], x[5] - mc[1], x[15] + mc[1],
                       x[11] + mc[0], x[16] - mc[0], x[22], x[23], x[29]}; /* B = [mc]x, M = m 1 */
    for (int k = 0; k < 12; k++) num &= fabs(skew[k]) <= tol;
    num &= m > 0 && x[28] == m && x[35] == m;
  }
  if (!num) {
    sn Iv[6];
    mj_times6(c, I, v, Iv);
    mj_cross_force(c, v, Iv, o);
    return;
  }
  /* Ic = A + [mc]x [mc]x / m, numbers */
  double X[9] = {0, -mc[2], mc[1], mc[2], 0, -mc[0], -mc[1], mc[0], 0};
  sn Ic[9], mcs[3], cs[3], wmc[3], h[3], f[3], Icw[3], n1[3], n2[3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double xx = 0;
      for (int k = 0; k < 3; k++) xx += X[3 * i + k] * X[3 * k + j];
      Ic[3 * i + j] = sym_float(c, i <= j ? x[6 * i + j] + xx / m : x[6 * j + i] + xx / m);
    }
  for (int i = 0; i < 3; i++) mcs[i] = sym_float(c, mc[i]), cs[i] = sym_float(c, mc[i] / m);
  mj_cross3(c, v, mcs, wmc);
  for (int i = 0; i < 3; i++) h[i] = mj_let(c, sym_add(c, sym_mul(c, I[21], v[3 + i]), wmc[i]));
  mj_cross3(c, v, h, f);
  for (int i = 0; i < 3; i++) f[i] = mj_let(c, f[i]);
  for (int i = 0; i < 3; i++) Icw[i] = mj_let(c, mj_dot3(c, &Ic[3 * i], v));
  mj_cross3(c, v, Icw, n1);
  mj_cross3(c, cs, f, n2);
  for (int i = 0; i < 3; i++) {
    o[i] = sym_add(c, n1[i], n2[i]);
    o[3 + i] = f[i];
  }
}

/* The articulated-body algorithm: q'' for every coordinate. */
static int aba(mech_model *m, mech_joints *J, const jrows *R, const sym_node **qdd) {
  sym_ctx *c = m->c;
  size_t nl = J->nl;
  sn (*IA)[36] = lg_calloc(nl + 1, sizeof *IA), (*pA)[6] = lg_calloc(nl + 1, sizeof *pA);
  sn (*U)[KMAX][6] = lg_calloc(nl + 1, sizeof *U), (*u)[KMAX] = lg_calloc(nl + 1, sizeof *u);
  sn (*DU)[KMAX][6] = lg_calloc(nl + 1, sizeof *DU), (*Du)[KMAX] = lg_calloc(nl + 1, sizeof *Du);
  sn (*a)[6] = lg_calloc(nl + 1, sizeof *a);
  int ok = IA && pA && U && u && DU && Du && a;
  sn z = sym_int(c, 0);
  for (size_t i = 0; ok && i < nl; i++) {
    memcpy(IA[i], J->L[i].I, sizeof IA[i]);
    bias_force(c, J->L[i].I, J->v[i], pA[i]);
  }
  for (size_t i = nl; ok && i-- > 0;) { /* inward */
    const jlink *L = &J->L[i];
    size_t k = L->k;
    mj_let_sym6(c, IA[i]);
    for (int j = 0; j < 6; j++) pA[i][j] = mj_let(c, pA[i][j]);
    sn D[KMAX][KMAX], b[KMAX][NRHS];
    for (size_t r = 0; r < k; r++) {
      sn Us[6];
      mj_times6(c, IA[i], L->S[r], Us);
      for (int j = 0; j < 6; j++) U[i][r][j] = mj_let(c, Us[j]);
      u[i][r] = mj_let(c, sym_sub(c, tau(m, L->q[r]), mj_dot6(c, L->S[r], pA[i])));
    }
    for (size_t r = 0; r < k; r++)
      for (size_t s = 0; s < k; s++) D[r][s] = s < r ? D[s][r] : mj_let(c, mj_dot6(c, L->S[r], U[i][s]));
    /* D^-1 [u, U^T]: the solve of every right-hand side at once */
    for (size_t r = 0; r < k; r++) {
      b[r][0] = u[i][r];
      for (int j = 0; j < 6; j++) b[r][1 + j] = U[i][r][j];
    }
    solve_small(c, k, D, b, NRHS);
    for (size_t r = 0; r < k; r++) {
      Du[i][r] = b[r][0];
      for (int j = 0; j < 6; j++) DU[i][r][j] = b[r][1 + j];
    }
    int unit = -1; /* S = e_unit: U_unit = D, so (D^-1 U^T)_unit = 1 */
    for (int j = 0; k == 1 && j < 6; j++)
      if (L->S[0][j] == sym_int(c, 1)) unit = unit < 0 ? j : 6;
      else if (!sym_is_zero(L->S[0][j])) unit = 6;
    if (unit == 6) unit = -1;
    if (unit >= 0) DU[i][0][unit] = sym_int(c, 1);
    if (L->parent < 0) continue;
    sn Ia[36], pa[6], Ic[6], out[36], fo[6];
    for (int x = 0; x < 6; x++)
      for (int y = 0; y < 6; y++) {
        sn s = IA[i][6 * x + y];
        for (size_t r = 0; r < k; r++) s = sym_sub(c, s, sym_mul(c, U[i][r][x], DU[i][r][y]));
        Ia[6 * x + y] = s;
      }
    for (int x = 0; x < 6; x++)
      for (int y = 0; y < x; y++) Ia[6 * x + y] = Ia[6 * y + x];
    /* Ia S = U - U D^-1 D = 0: with S a unit e_j, row and column j are
     * zero exactly (computed, they would be IA_jx - IA_jj IA_jx / IA_jj),
     * and the transforms below skip them */
    for (int j = 0; unit >= 0 && j < 6; j++) Ia[6 * unit + j] = Ia[6 * j + unit] = z;
    mj_let_sym6(c, Ia);
    mj_times6(c, Ia, J->c[i], Ic);
    for (int j = 0; j < 6; j++) {
      pa[j] = sym_add(c, pA[i][j], Ic[j]);
      for (size_t r = 0; r < k; r++) pa[j] = sym_add(c, pa[j], sym_mul(c, U[i][r][j], Du[i][r]));
      /* along a unit S: pA_j + D (tau - pA_j) / D = tau */
      if (j == unit) pa[j] = tau(m, L->q[0]);
      pa[j] = mj_let(c, pa[j]);
    }
    mj_inertia_out(c, L, Ia, out);
    mj_force_out(c, L, pa, fo);
    sn *P = IA[L->parent];
    for (int j = 0; j < 36; j++) P[j] = sym_add(c, P[j], out[j]);
    for (int j = 0; j < 6; j++) pA[L->parent][j] = sym_add(c, pA[L->parent][j], fo[j]);
  }
  for (size_t i = 0; ok && i < nl; i++) { /* outward */
    const jlink *L = &J->L[i];
    sn ap[6];
    mj_motion_in(c, L, L->parent >= 0 ? a[L->parent] : J->a0, ap);
    for (int j = 0; j < 6; j++) ap[j] = mj_let(c, sym_add(c, ap[j], J->c[i][j]));
    int bound = 0;
    for (size_t r = 0; R && r < R->m; r++) bound |= R->link[r] == (int)i;
    if (bound) { /* a root under constraint rows: r = u - U^T a' */
      sn r0[KMAX];
      for (size_t r = 0; r < L->k; r++) {
        sn x = u[i][r];
        for (int j = 0; j < 6; j++) x = sym_sub(c, x, sym_mul(c, U[i][r][j], ap[j]));
        r0[r] = mj_let(c, x);
      }
      ok = root_rows(c, L, i, R, U[i], ap, qdd, r0);
    } else
      for (size_t r = 0; r < L->k; r++) { /* q'' = D^-1 u - (D^-1 U^T) a' */
        sn x = Du[i][r];
        for (int j = 0; j < 6; j++) x = sym_sub(c, x, sym_mul(c, DU[i][r][j], ap[j]));
        qdd[L->q[r]] = mj_let(c, x);
      }
    for (int j = 0; j < 6; j++) {
      sn x = ap[j];
      for (size_t r = 0; r < L->k; r++) x = sym_add(c, x, sym_mul(c, L->S[r][j], qdd[L->q[r]]));
      a[i][j] = mj_let(c, x);
    }
  }
  (void)z;
  lg_free(IA);
  lg_free(pA);
  lg_free(U);
  lg_free(u);
  lg_free(DU);
  lg_free(Du);
  lg_free(a);
  return ok && !sym_ctx_error(c);
}

/* M by composite rigid bodies, f = tau - C by Newton-Euler at q'' = 0. */
static int mass_and_forcing(mech_model *m, mech_joints *J, size_t n, const sym_node **M,
                            const sym_node **f) {
  sym_ctx *c = m->c;
  size_t nl = J->nl;
  sn (*Ic)[36] = lg_calloc(nl + 1, sizeof *Ic), (*F)[6] = lg_calloc(nl + 1, sizeof *F);
  sn (*a)[6] = lg_calloc(nl + 1, sizeof *a);
  int ok = Ic && F && a;
  sn z = sym_int(c, 0);
  for (size_t i = 0; ok && i < n * n; i++) M[i] = z;
  for (size_t i = 0; ok && i < nl; i++) {
    const jlink *L = &J->L[i];
    sn Ia[6], Iv[6], x[6];
    memcpy(Ic[i], L->I, sizeof Ic[i]);
    mj_motion_in(c, L, L->parent >= 0 ? a[L->parent] : J->a0, a[i]);
    for (int j = 0; j < 6; j++) a[i][j] = mj_let(c, sym_add(c, a[i][j], J->c[i][j]));
    mj_times6(c, L->I, a[i], Ia);
    mj_times6(c, L->I, J->v[i], Iv);
    mj_cross_force(c, J->v[i], Iv, x);
    for (int j = 0; j < 6; j++) F[i][j] = sym_add(c, Ia[j], x[j]);
  }
  for (size_t i = nl; ok && i-- > 0;) {
    const jlink *L = &J->L[i];
    mj_let_sym6(c, Ic[i]);
    for (int j = 0; j < 6; j++) F[i][j] = mj_let(c, F[i][j]);
    for (size_t r = 0; r < L->k; r++) f[L->q[r]] = sym_sub(c, tau(m, L->q[r]), mj_dot6(c, L->S[r], F[i]));
    if (L->parent < 0) continue;
    sn out[36], fo[6];
    mj_inertia_out(c, L, Ic[i], out);
    mj_force_out(c, L, F[i], fo);
    for (int j = 0; j < 36; j++) Ic[L->parent][j] = sym_add(c, Ic[L->parent][j], out[j]);
    for (int j = 0; j < 6; j++) F[L->parent][j] = sym_add(c, F[L->parent][j], fo[j]);
  }
  for (size_t i = 0; ok && i < nl; i++) { /* each link's column block, carried to the root */
    const jlink *L = &J->L[i];
    for (size_t r = 0; r < L->k; r++) {
      sn G[6], t[6];
      mj_times6(c, Ic[i], L->S[r], G);
      for (size_t l = i, first = 1;; first = 0) {
        const jlink *A = &J->L[l];
        for (size_t s = 0; s < A->k; s++) {
          if (first && s > r) continue;
          sn v = mj_dot6(c, A->S[s], G);
          M[L->q[r] * n + A->q[s]] = M[A->q[s] * n + L->q[r]] = v;
        }
        if (A->parent < 0) break;
        mj_force_out(c, A, G, t);
        for (int j = 0; j < 6; j++) G[j] = mj_let(c, t[j]);
        l = (size_t)A->parent;
      }
    }
  }
  lg_free(Ic);
  lg_free(F);
  lg_free(a);
  return ok && !sym_ctx_error(c);
}

/* ---- entry points ----------------------------------------------------------------------------- */
mech_joints *mech_joints_of(mech_model *m) {
  if (m->joints_done) return m->joints;
  m->joints_done = 1;
  if (m->L || m->has_T || m->speeds.n) return NULL;
  mech_joints *J = lg_arena_alloc(&m->arena, sizeof *J);
  if (!J) return NULL;
  memset(J, 0, sizeof *J);
  /* the tree's expressions (about 1,400 nodes a coordinate for a general
   * 3D arm, fewer for planar ones) without regrowing the interning table
   * from its first few thousand slots: each regrowth rehashed every node
   * into fresh pages (the same nodes result) */
  if (!sym_ctx_reserve(m->c, 1024 * mech_ncoords(m))) return NULL;
  if (!mj_read_tree(m, J) || !mj_axis_frames(m, J) || !velocities(m, J)) return NULL;
  return m->joints = J;
}

const sym_node *mech_joints_energy(mech_joints *J) { return J ? J->T : NULL; }

size_t mech_joints_nlinks(const mech_joints *J) { return J ? J->nl : 0; }

void mech_joints_link(const mech_joints *J, size_t i, mech_link_view *v) {
  const jlink *L = &J->L[i];
  *v = (mech_link_view){L->parent, L->k, L->q, L->R, L->d, &L->S[0][0], L->I, L->cJ};
}

const sym_node *const *mech_joints_base_accel(const mech_joints *J) { return J->a0; }

const sym_node *mech_joints_tau(mech_model *m, size_t q) { return tau(m, q); }

const sym_node *mech_potential_besides_gravity(const mech_model *m) { return m->V; }

const sym_node *mech_joints_gravity_potential(mech_joints *J) { return J ? J->Vg : NULL; }

/* Each row's root link: every coordinate it involves the own of one root. */
static int rows_on_roots(mech_joints *J, jrows *R) {
  for (size_t r = 0; r < R->m; r++) {
    R->link[r] = -1;
    for (size_t q = 0; q < R->n; q++) {
      if (sym_is_zero(R->J[r * R->n + q])) continue;
      int at = -1;
      for (size_t i = 0; i < J->nl && at < 0; i++)
        for (size_t x = 0; x < J->L[i].k; x++)
          if (J->L[i].q[x] == q) at = (int)i;
      if (at < 0 || J->L[at].parent >= 0 || (R->link[r] >= 0 && R->link[r] != at)) return 0;
      R->link[r] = at;
    }
    if (R->link[r] < 0) return 0;
  }
  return 1;
}

lg_status mech_joints_dynamics(mech_model *m, mech_joints *J, const mech_eom *e,
                               const sym_node ***qdd, const sym_node ***M, const sym_node ***f) {
  size_t n = e->n;
  const sym_node **x = lg_arena_alloc(&m->arena, (n + 1) * sizeof *x);
  if (!x) return LG_ERR_NOMEM;
  jrows R = {e->m, n, e->m ? e->J->e : NULL, e->gc, NULL};
  if (e->m) {
    if (M || f) return LG_ERR_MODEL; /* the dense forms of a constrained tree: not here */
    R.link = lg_arena_alloc(&m->arena, e->m * sizeof *R.link);
    if (!R.link) return LG_ERR_NOMEM;
    if (!rows_on_roots(J, &R)) return LG_ERR_MODEL;
  }
  if (!aba(m, J, e->m ? &R : NULL, x)) return m->oom ? LG_ERR_NOMEM : LG_ERR_MODEL;
  *qdd = x;
  if (M || f) {
    const sym_node **Mm = lg_arena_alloc(&m->arena, (n * n + 1) * sizeof *Mm);
    const sym_node **ff = lg_arena_alloc(&m->arena, (n + 1) * sizeof *ff);
    if (!Mm || !ff) return LG_ERR_NOMEM;
    if (!mass_and_forcing(m, J, n, Mm, ff)) return m->oom ? LG_ERR_NOMEM : LG_ERR_MODEL;
    if (M) *M = Mm;
    if (f) *f = ff;
  }
  return LG_OK;
}
