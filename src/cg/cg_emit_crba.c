/* cg_emit_crba.c - a large tree's mass matrix in the generated C by
 * composite rigid bodies, computed rather than written out.
 *
 * One expression per entry is n^2 entries whose common parts are the
 * composite inertias carried down the tree: at 40 links 33,000 operations
 * and most of gcc's time on the default set. Here a short tape gives each
 * link's transform (R, d), motion S and inertia I (a fixed number of
 * operations per link), and fixed C loops do the rest (RBDA 6.2): the
 * composite inertias inward, then each link's column carried to the root.
 * The same algorithm as mech_joint.c's symbolic M, so the same numbers to
 * rounding. */
#include "cg_internal.h"

#include <string.h>

enum { CRBA_MAX_LINKS = 512 }; /* the composite inertias live on the stack */

/* The spatial algebra of mech_joint_algebra.c on numbers: a link's data is
 * R (9), d (3), then its S rows and I. */
static const char *const crba_helpers =
    "\n/* the link's force f in its parent: (R n + d x R f, R f) */\n"
    "static void %s_force_out(const double *X, const double *f, double *o) {\n"
    "  const double *R = X, *d = X + 9;\n"
    "  double rn[3], rf[3];\n"
    "  for (int i = 0; i < 3; i++) {\n"
    "    rn[i] = R[3 * i] * f[0] + R[3 * i + 1] * f[1] + R[3 * i + 2] * f[2];\n"
    "    rf[i] = R[3 * i] * f[3] + R[3 * i + 1] * f[4] + R[3 * i + 2] * f[5];\n"
    "  }\n"
    "  o[0] = rn[0] + d[1] * rf[2] - d[2] * rf[1];\n"
    "  o[1] = rn[1] + d[2] * rf[0] - d[0] * rf[2];\n"
    "  o[2] = rn[2] + d[0] * rf[1] - d[1] * rf[0];\n"
    "  o[3] = rf[0];\n  o[4] = rf[1];\n  o[5] = rf[2];\n}\n"
    "\n/* X^T I X: the link's inertia I (6 x 6, symmetric) in its parent, added to P:\n"
    "   blocks A, B, M turned by R, then moved by D = [d]x:\n"
    "   [[A' + D B'^T - B' D - D M' D, B' + D M'], [., M']] */\n"
    "static void %s_inertia_out(const double *X, const double *I, double *P) {\n"
    "  const double *R = X, *d = X + 9;\n"
    "  double blk[3][9], rot[3][9], D[9] = {0, -d[2], d[1], d[2], 0, -d[0], -d[1], d[0], 0};\n"
    "  for (int b = 0; b < 3; b++) /* A, B, M */\n"
    "    for (int i = 0; i < 3; i++)\n"
    "      for (int j = 0; j < 3; j++)\n"
    "        blk[b][3 * i + j] = I[6 * (i + (b == 2 ? 3 : 0)) + j + (b ? 3 : 0)];\n"
    "  for (int b = 0; b < 3; b++) { /* R blk R^T */\n"
    "    double t[9];\n"
    "    for (int i = 0; i < 3; i++)\n"
    "      for (int j = 0; j < 3; j++)\n"
    "        t[3 * i + j] = blk[b][3 * i] * R[3 * j] + blk[b][3 * i + 1] * R[3 * j + 1] +\n"
    "                       blk[b][3 * i + 2] * R[3 * j + 2];\n"
    "    for (int i = 0; i < 3; i++)\n"
    "      for (int j = 0; j < 3; j++)\n"
    "        rot[b][3 * i + j] = R[3 * i] * t[j] + R[3 * i + 1] * t[3 + j] + R[3 * i + 2] * t[6 + j];\n"
    "  }\n"
    "  double Xb[9], Y[9];\n"
    "  for (int i = 0; i < 3; i++)\n"
    "    for (int j = 0; j < 3; j++) {\n"
    "      Xb[3 * i + j] = D[3 * i] * rot[1][3 * j] + D[3 * i + 1] * rot[1][3 * j + 1] +\n"
    "                      D[3 * i + 2] * rot[1][3 * j + 2];\n"
    "      Y[3 * i + j] = D[3 * i] * rot[2][j] + D[3 * i + 1] * rot[2][3 + j] + D[3 * i + 2] * rot[2][6 + j];\n"
    "    }\n"
    "  for (int i = 0; i < 3; i++)\n"
    "    for (int j = 0; j < 3; j++) {\n"
    "      double ymd = Y[3 * i] * D[j] + Y[3 * i + 1] * D[3 + j] + Y[3 * i + 2] * D[6 + j];\n"
    "      P[6 * i + j] += rot[0][3 * i + j] + Xb[3 * i + j] + Xb[3 * j + i] - ymd;\n"
    "      P[6 * i + 3 + j] += rot[1][3 * i + j] + Y[3 * i + j];\n"
    "      P[6 * (3 + j) + i] += rot[1][3 * i + j] + Y[3 * i + j];\n"
    "      P[6 * (3 + i) + 3 + j] += rot[2][3 * i + j];\n"
    "    }\n"
    "}\n";

static void int_list(lg_str *o, const char *decl, const size_t *v, size_t n) {
  lg_str_printf(o, "  static const int %s[%zu] = {", decl, n ? n : 1);
  for (size_t i = 0; i < n; i++) lg_str_printf(o, "%s%zu", i ? (i % 16 ? ", " : ",\n    ") : "", v[i]);
  lg_str_puts(o, n ? "};\n" : "0};\n");
}

lg_status cg_emit_mass_crba(cg_ctx *G, const char *doc) {
  const cg_request *r = G->r;
  if (!r->tree_form || r->kane || !r->eom || r->eom->m) return LG_ERR_MODEL;
  mech_joints *J = mech_joints_of(r->mech);
  size_t nl = mech_joints_nlinks(J), n = r->eom->n;
  if (!nl || nl > CRBA_MAX_LINKS) return LG_ERR_MODEL;
  /* per link: R, d, S (6k), I (36); parents as link indices */
  size_t nd = 0, nq = 0;
  for (size_t i = 0; i < nl; i++) {
    mech_link_view v;
    mech_joints_link(J, i, &v);
    nd += 12 + 6 * v.k + 36;
    nq += v.k;
  }
  if (nq != n) return LG_ERR_MODEL; /* every coordinate a link's own */
  const sym_node **outs = lg_malloc((nd + 1) * sizeof *outs);
  size_t *parent = lg_malloc((4 * nl + n + 1) * sizeof *parent);
  if (!outs || !parent) {
    lg_free(outs);
    lg_free(parent);
    return LG_ERR_NOMEM;
  }
  size_t *nk = parent + nl, *at = nk + nl, *q0 = at + nl, *qi = q0 + nl, o = 0, nqi = 0;
  for (size_t i = 0; i < nl; i++) {
    mech_link_view v;
    mech_joints_link(J, i, &v);
    parent[i] = v.parent < 0 ? (size_t)0 : (size_t)v.parent + 1; /* 0: none */
    nk[i] = v.k;
    at[i] = o;
    q0[i] = nqi;
    for (size_t k = 0; k < v.k; k++) qi[nqi++] = v.q[k];
    memcpy(outs + o, v.R, 9 * sizeof *outs);
    memcpy(outs + o + 9, v.d, 3 * sizeof *outs);
    memcpy(outs + o + 12, v.S, 6 * v.k * sizeof *outs);
    memcpy(outs + o + 12 + 6 * v.k, v.I, 36 * sizeof *outs);
    o += 12 + 6 * v.k + 36;
  }
  sym_tape *t = NULL;
  lg_status st = cg_tape(G, outs, nd, &t);
  lg_free(outs);
  if (st != LG_OK) {
    lg_free(parent);
    return st;
  }
  const char *N = r->name;
  lg_str *s = G->src;
  lg_str_printf(s, crba_helpers, N, N);
  size_t fn = s->len;
  lg_str_printf(s, "\n/* each link's R, d, S and I for %s_mass_matrix (%zu operations) */\n"
                   "static void %s_links(double t, const double *x, const double *u, const double *p,\n"
                   "    double *L) {\n", N, t->flops, N);
  cg_prologue(G);
  cg_emit_tape(G, t, "L", fn);
  lg_str_puts(s, "}\n");
  lg_str_printf(s, "\n/* %s: M by composite rigid bodies over the links of %s_links */\n"
                   "void %s_mass_matrix(double t, const double *x, const double *u, const double *p,\n"
                   "    double *res) {\n"
                   "  enum { n = %s_NQ, NL = %zu, ND = %zu };\n", doc, N, N, N, nl, nd);
  int_list(s, "parent1", parent, nl); /* the parent's index + 1 (0: the inertial frame) */
  int_list(s, "nk", nk, nl);
  int_list(s, "at", at, nl);
  int_list(s, "q0", q0, nl);
  int_list(s, "qi", qi, n);
  lg_str_printf(s,
      "  double L[ND], Ic[NL][36];\n"
      "  %s_links(t, x, u, p, L);\n"
      "  for (int i = 0; i < NL; i++)\n"
      "    for (int e = 0; e < 36; e++) Ic[i][e] = L[at[i] + 12 + 6 * nk[i] + e];\n"
      "  for (int i = NL; i-- > 0;) /* composite inertias, leaves first */\n"
      "    if (parent1[i]) %s_inertia_out(L + at[i], Ic[i], Ic[parent1[i] - 1]);\n"
      "  for (int e = 0; e < n * n; e++) res[e] = 0;\n"
      "  for (int i = 0; i < NL; i++) /* link i's columns, carried to the root */\n"
      "    for (int r = 0; r < nk[i]; r++) {\n"
      "      const double *S = L + at[i] + 12 + 6 * r;\n"
      "      double F[6], T[6];\n"
      "      for (int a = 0; a < 6; a++) {\n"
      "        F[a] = 0;\n"
      "        for (int b = 0; b < 6; b++) F[a] += Ic[i][6 * a + b] * S[b];\n"
      "      }\n"
      "      for (int l = i, first = 1;; first = 0) {\n"
      "        for (int k = 0; k < nk[l]; k++) {\n"
      "          if (first && k > r) continue;\n"
      "          const double *Sl = L + at[l] + 12 + 6 * k;\n"
      "          double v = 0;\n"
      "          for (int a = 0; a < 6; a++) v += Sl[a] * F[a];\n"
      "          int qa = qi[q0[i] + r], qb = qi[q0[l] + k];\n"
      "          res[qa * n + qb] = res[qb * n + qa] = v;\n"
      "        }\n"
      "        if (!parent1[l]) break;\n"
      "        %s_force_out(L + at[l], F, T);\n"
      "        for (int a = 0; a < 6; a++) F[a] = T[a];\n"
      "        l = parent1[l] - 1;\n"
      "      }\n"
      "    }\n"
      "}\n", N, N, N);
  G->stats.mass_matrix_full = t->flops;
  sym_tape_free(t);
  lg_free(parent);
  return LG_OK;
}
