/* num_links_forms.c - a large tree's other forms on numbers (issue 26):
 * what lg_eval reports besides q'' (f = tau - C by Newton-Euler, the
 * momenta and T, gravity's V over the links' world transforms, M by
 * composite rigid bodies), from num_links.c's data and velocity pass, as
 * src/cg/cg_emit_links.c's generated loops compute them. */
#include "num_links_internal.h"

/* ---- the other forms eval reports (cg_emit_links.c's, on numbers) ------------------------ */
/* After the passes above (the data, each link's v and c = cJ + v x vJ in
 * place; the rest of a link's work is free again). */

/* f = tau - C: Newton-Euler at q'' = 0 (RNEA): a = X a_parent + c (the
 * root's from a0), F = I a + v x* I v, then inward f = tau - S^T F, F
 * carried to the parent. a in W_A, F in W_PA. */
void nl_form_forcing(const num_links *L, const double *X0, double *Wk, const double *a0,
                         double *f) {
  const double *tau = a0 + 6;
  for (size_t i = 0; i < L->nl; i++) {
    const double *X = X0 + L->at[i], *I = X + 12 + 6 * L->k[i];
    double *w = work_of(L, Wk, i), *a = w + W_A, Ia[6], Iv[6], x[6];
    motion_in(X, L->parent[i] >= 0 ? work_of(L, Wk, (size_t)L->parent[i]) + W_A : a0, a);
    for (int j = 0; j < 6; j++) a[j] += w[W_C + j];
    times6(I, a, Ia);
    times6(I, w + W_V, Iv);
    cross_force(w + W_V, Iv, x);
    for (int j = 0; j < 6; j++) w[W_PA + j] = Ia[j] + x[j];
  }
  for (size_t i = L->nl; i-- > 0;) {
    const double *S = X0 + L->at[i] + 12;
    double *w = work_of(L, Wk, i);
    for (size_t r = 0; r < L->k[i]; r++) {
      size_t q = coord_of(L, i, r);
      f[q] = tau[q] - dot6(S + 6 * r, w + W_PA);
    }
    if (L->parent[i] >= 0)
      force_out_add(X0 + L->at[i], w + W_PA, work_of(L, Wk, (size_t)L->parent[i]) + W_PA);
  }
}

/* p = M q' without M: each subtree's momentum h = I v + its children's,
 * p = S^T h (in W_PA); and T = sum v.I v / 2. */
void nl_form_momenta(const num_links *L, const double *X0, double *Wk, double *p,
                         double *T) {
  double sum = 0;
  for (size_t i = 0; i < L->nl; i++) {
    const double *I = X0 + L->at[i] + 12 + 6 * L->k[i];
    double *w = work_of(L, Wk, i);
    times6(I, w + W_V, w + W_PA);
    sum += dot6(w + W_V, w + W_PA) / 2;
  }
  if (T) *T = sum;
  for (size_t i = L->nl; p && i-- > 0;) {
    const double *S = X0 + L->at[i] + 12;
    double *w = work_of(L, Wk, i);
    for (size_t r = 0; r < L->k[i]; r++) p[coord_of(L, i, r)] = dot6(S + 6 * r, w + W_PA);
    if (L->parent[i] >= 0)
      force_out_add(X0 + L->at[i], w + W_PA, work_of(L, Wk, (size_t)L->parent[i]) + W_PA);
  }
}

/* V: besides gravity's (vb), -g . (m o + W m c) over the links, each
 * link's world rotation W and origin o (12, from W_A on) composed from its
 * parent's; -g the base's linear acceleration a0. */
double nl_form_potential(const num_links *L, const double *X0, double *Wk,
                             const double *a0, double vb) {
  double V = vb;
  for (size_t i = 0; i < L->nl; i++) {
    const double *X = X0 + L->at[i], *R = X, *d = X + 9, *I = X + 12 + 6 * L->k[i];
    double *W = work_of(L, Wk, i) + W_A, *o = W + 9;
    if (L->parent[i] >= 0) {
      const double *Wp = work_of(L, Wk, (size_t)L->parent[i]) + W_A, *op = Wp + 9;
      for (int a = 0; a < 3; a++) {
        o[a] = op[a] + Wp[3 * a] * d[0] + Wp[3 * a + 1] * d[1] + Wp[3 * a + 2] * d[2];
        for (int b = 0; b < 3; b++)
          W[3 * a + b] = Wp[3 * a] * R[b] + Wp[3 * a + 1] * R[3 + b] + Wp[3 * a + 2] * R[6 + b];
      }
    } else {
      memcpy(W, R, 9 * sizeof *W);
      memcpy(o, d, 3 * sizeof *o);
    }
    double mc[3] = {-I[11], I[5], I[9]};
    for (int a = 0; a < 3; a++) {
      double Wmc = W[3 * a] * mc[0] + W[3 * a + 1] * mc[1] + W[3 * a + 2] * mc[2];
      V += a0[3 + a] * (Wmc + I[21] * o[a]);
    }
  }
  return V;
}

/* M by composite rigid bodies (RBDA 6.2): each link's composite inertia
 * Ic (W_IA), then link i's columns F = Ic S carried to the root, M's
 * entries S_l . F on the way (row-major n x n, symmetric). */
void nl_form_mass(const num_links *L, const double *X0, double *Wk, double *M) {
  size_t n = L->n;
  for (size_t i = 0; i < L->nl; i++)
    memcpy(work_of(L, Wk, i) + W_IA, X0 + L->at[i] + 12 + 6 * L->k[i], 36 * sizeof *M);
  for (size_t i = L->nl; i-- > 0;)
    if (L->parent[i] >= 0)
      inertia_out_add(X0 + L->at[i], work_of(L, Wk, i) + W_IA,
                      work_of(L, Wk, (size_t)L->parent[i]) + W_IA);
  memset(M, 0, n * n * sizeof *M);
  for (size_t i = 0; i < L->nl; i++)
    for (size_t r = 0; r < L->k[i]; r++) {
      double F[6], G[6];
      times6(work_of(L, Wk, i) + W_IA, X0 + L->at[i] + 12 + 6 * r, F);
      size_t qa = coord_of(L, i, r);
      for (size_t l = i, first = 1;; first = 0) {
        for (size_t j = 0; j < L->k[l] && !(first && j > r); j++) {
          size_t qb = coord_of(L, l, j);
          M[qa * n + qb] = M[qb * n + qa] = dot6(X0 + L->at[l] + 12 + 6 * j, F);
        }
        if (L->parent[l] < 0) break;
        memset(G, 0, sizeof G);
        force_out_add(X0 + L->at[l], F, G);
        memcpy(F, G, sizeof F);
        l = (size_t)L->parent[l];
      }
    }
}

/* dE/dt = q' . (M q'' + C + G) for the given q'': an identity in q'' (T is
 * q'^T M q' / 2), by Newton-Euler with q'' (a = X a_parent + c + S q'', F =
 * I a + v x* I v, carried inward), so that the energy balance checks the
 * q'' a right-hand side solved for, by another algorithm. a in W_A, F in W_PA. */
double nl_form_power(const num_links *L, const double *X0, double *Wk, const double *a0,
                     const double *qd, const double *qdd) {
  for (size_t i = 0; i < L->nl; i++) {
    const double *X = X0 + L->at[i], *S = X + 12, *I = S + 6 * L->k[i];
    double *w = work_of(L, Wk, i), *a = w + W_A, Ia[6], Iv[6], x[6];
    motion_in(X, L->parent[i] >= 0 ? work_of(L, Wk, (size_t)L->parent[i]) + W_A : a0, a);
    for (int j = 0; j < 6; j++) {
      a[j] += w[W_C + j];
      for (size_t r = 0; r < L->k[i]; r++) a[j] += S[6 * r + j] * qdd[coord_of(L, i, r)];
    }
    times6(I, a, Ia);
    times6(I, w + W_V, Iv);
    cross_force(w + W_V, Iv, x);
    for (int j = 0; j < 6; j++) w[W_PA + j] = Ia[j] + x[j];
  }
  double P = 0;
  for (size_t i = L->nl; i-- > 0;) {
    const double *S = X0 + L->at[i] + 12;
    double *w = work_of(L, Wk, i);
    for (size_t r = 0; r < L->k[i]; r++) {
      size_t q = coord_of(L, i, r);
      P += qd[q] * dot6(S + 6 * r, w + W_PA);
    }
    if (L->parent[i] >= 0)
      force_out_add(X0 + L->at[i], w + W_PA, work_of(L, Wk, (size_t)L->parent[i]) + W_PA);
  }
  return P;
}
