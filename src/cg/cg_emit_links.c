/* cg_emit_links.c - a large tree's mass matrix, forcing and kinetic
 * energy in the generated C, computed over its links rather than written
 * out.
 *
 * Written as expressions, M is n^2 entries whose common parts are the
 * composite inertias carried down the tree (33,000 operations at 40
 * links), f and T a few hundred operations a link: together most of gcc's
 * time on the default set. Here one short tape gives each link's transform
 * (R, d), motion S, inertia I and rate term cJ (a fixed number of
 * operations per link, NAME_links), and fixed C loops do the rest, the
 * algorithms of mech_joint.c on numbers (RBDA 5.3, 6.2): composite rigid
 * bodies for M, Newton-Euler at q'' = 0 for f = tau - C, sum v.I v / 2 for
 * T. The same algorithms as the library's symbolic forms: the same
 * numbers to rounding. rhs_recursive stays one specialized expression. */
#include "cg_internal.h"

#include <string.h>

enum { LINKS_MAX = 512 }; /* the per-link arrays live on the stack */

/* Spatial algebra on numbers (mech_joint_algebra.c's): a link's data X is
 * R (9), d (3), then its S rows, I (36) and cJ (6). */
enum { H_FORCE_OUT, H_INERTIA_OUT, H_MOTION_IN, H_CROSS_MOTION, H_CROSS_FORCE, H_TIMES6, H_COUNT };
static const char *const helper[H_COUNT] = {
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
    "  o[3] = rf[0];\n  o[4] = rf[1];\n  o[5] = rf[2];\n}\n",
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
    "}\n",
    "\n/* the parent's motion m in the link: (R^T w, R^T (v - d x w)) */\n"
    "static void %s_motion_in(const double *X, const double *m, double *o) {\n"
    "  const double *R = X, *d = X + 9;\n"
    "  double t[3] = {m[3] - (d[1] * m[2] - d[2] * m[1]), m[4] - (d[2] * m[0] - d[0] * m[2]),\n"
    "                 m[5] - (d[0] * m[1] - d[1] * m[0])};\n"
    "  for (int i = 0; i < 3; i++) {\n"
    "    o[i] = R[i] * m[0] + R[3 + i] * m[1] + R[6 + i] * m[2];\n"
    "    o[3 + i] = R[i] * t[0] + R[3 + i] * t[1] + R[6 + i] * t[2];\n"
    "  }\n}\n",
    "\n/* v x m for motions */\n"
    "static void %s_cross_motion(const double *v, const double *m, double *o) {\n"
    "  o[0] = v[1] * m[2] - v[2] * m[1];\n"
    "  o[1] = v[2] * m[0] - v[0] * m[2];\n"
    "  o[2] = v[0] * m[1] - v[1] * m[0];\n"
    "  o[3] = v[1] * m[5] - v[2] * m[4] + v[4] * m[2] - v[5] * m[1];\n"
    "  o[4] = v[2] * m[3] - v[0] * m[5] + v[5] * m[0] - v[3] * m[2];\n"
    "  o[5] = v[0] * m[4] - v[1] * m[3] + v[3] * m[1] - v[4] * m[0];\n}\n",
    "\n/* v x* f for forces */\n"
    "static void %s_cross_force(const double *v, const double *f, double *o) {\n"
    "  o[0] = v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4];\n"
    "  o[1] = v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5];\n"
    "  o[2] = v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3];\n"
    "  o[3] = v[1] * f[5] - v[2] * f[4];\n"
    "  o[4] = v[2] * f[3] - v[0] * f[5];\n"
    "  o[5] = v[0] * f[4] - v[1] * f[3];\n}\n",
    "\n/* y = I x, I 6 x 6 */\n"
    "static void %s_times6(const double *I, const double *x, double *y) {\n"
    "  for (int i = 0; i < 6; i++) {\n"
    "    y[i] = 0;\n"
    "    for (int j = 0; j < 6; j++) y[i] += I[6 * i + j] * x[j];\n"
    "  }\n}\n"};

/* The links' tables and NAME_links' outputs (R, d, S, I, cJ per link). */
typedef struct links {
  size_t nl, nd, n;
  size_t *parent1, *nk, *at, *q0, *qi; /* parent1: the parent's index + 1, 0 for none */
  const sym_node **outs;
} links;

static void links_free(links *k) {
  lg_free(k->parent1);
  lg_free(k->outs);
}

static lg_status links_read(cg_ctx *G, links *k) {
  const cg_request *r = G->r;
  memset(k, 0, sizeof *k);
  if (!r->tree_form || r->kane || !r->eom || r->eom->m) return LG_ERR_MODEL;
  mech_joints *J = mech_joints_of(r->mech);
  size_t nl = mech_joints_nlinks(J), n = r->eom->n, nq = 0, nd = 0;
  if (!nl || nl > LINKS_MAX) return LG_ERR_MODEL;
  for (size_t i = 0; i < nl; i++) {
    mech_link_view v;
    mech_joints_link(J, i, &v);
    nd += 12 + 6 * v.k + 42;
    nq += v.k;
  }
  if (nq != n) return LG_ERR_MODEL; /* every coordinate a link's own */
  k->nl = nl, k->nd = nd, k->n = n;
  k->outs = lg_malloc((nd + 1) * sizeof *k->outs);
  k->parent1 = lg_malloc((4 * nl + n + 1) * sizeof *k->parent1);
  if (!k->outs || !k->parent1) return links_free(k), LG_ERR_NOMEM;
  k->nk = k->parent1 + nl, k->at = k->nk + nl, k->q0 = k->at + nl, k->qi = k->q0 + nl;
  size_t o = 0, nqi = 0;
  for (size_t i = 0; i < nl; i++) {
    mech_link_view v;
    mech_joints_link(J, i, &v);
    k->parent1[i] = v.parent < 0 ? 0 : (size_t)v.parent + 1;
    k->nk[i] = v.k;
    k->at[i] = o;
    k->q0[i] = nqi;
    for (size_t j = 0; j < v.k; j++) k->qi[nqi++] = v.q[j];
    memcpy(k->outs + o, v.R, 9 * sizeof *k->outs);
    memcpy(k->outs + o + 9, v.d, 3 * sizeof *k->outs);
    memcpy(k->outs + o + 12, v.S, 6 * v.k * sizeof *k->outs);
    memcpy(k->outs + o + 12 + 6 * v.k, v.I, 36 * sizeof *k->outs);
    memcpy(k->outs + o + 48 + 6 * v.k, v.cJ, 6 * sizeof *k->outs);
    o += 12 + 6 * v.k + 42;
  }
  return LG_OK;
}

static void need(cg_ctx *G, int h) {
  if (G->links_helpers >> h & 1u) return;
  G->links_helpers |= 1u << h;
  lg_str_printf(G->src, helper[h], G->r->name);
}

/* A static function NAME_<fn>(t, x, u, p, out) computing outs[0..n): the
 * numbers from a table, the rest by one tape into w, then scattered. Most
 * of a link's data are numbers (S, I, cJ, d), and a function of thousands
 * of stores took gcc -O2 5 s at 40 links. */
static lg_status tape_function(cg_ctx *G, const char *fn, const char *doc, const sym_node **outs,
                               size_t n, size_t *flops) {
  const sym_node **live = lg_malloc((n + 1) * sizeof *live);
  size_t *where = lg_malloc((n + 1) * sizeof *where), nl = 0;
  if (!live || !where) {
    lg_free(live);
    lg_free(where);
    return LG_ERR_NOMEM;
  }
  for (size_t i = 0; i < n; i++)
    if (!sym_is_number(outs[i])) live[nl] = outs[i], where[nl++] = i;
  sym_tape *t = NULL;
  lg_status st = nl ? cg_tape(G, live, nl, &t) : LG_OK;
  lg_free(live);
  if (st != LG_OK) {
    lg_free(where);
    return st;
  }
  lg_str *s = G->src;
  size_t at = s->len;
  lg_str_printf(s, "\n/* %s (%zu operations) */\n"
                   "static void %s_%s(double t, const double *x, const double *u, const double *p,\n"
                   "    double *out) {\n", doc, t ? t->flops : 0, G->r->name, fn);
  cg_prologue(G);
  lg_str_printf(s, "  static const double k[%zu] = {", n ? n : 1);
  for (size_t i = 0; i < n; i++) {
    lg_str_puts(s, i ? (i % 8 ? ", " : ",\n    ") : "");
    cg_literal(s, sym_is_number(outs[i]) ? sym_number_value(outs[i]) : 0);
  }
  lg_str_printf(s, "%s};\n  for (int i = 0; i < %zu; i++) out[i] = k[i];\n", n ? "" : "0", n);
  if (nl) {
    lg_str_printf(s, "  double lw[%zu];\n", nl); /* (a long tape's pieces pass w) */
    cg_emit_tape(G, t, "lw", at);
    lg_str_printf(s, "  static const int to[%zu] = {", nl);
    for (size_t i = 0; i < nl; i++) lg_str_printf(s, "%s%zu", i ? (i % 16 ? ", " : ",\n    ") : "", where[i]);
    lg_str_printf(s, "};\n  for (int i = 0; i < %zu; i++) out[to[i]] = lw[i];\n", nl);
  }
  lg_str_puts(s, "}\n");
  *flops += t ? t->flops : 0;
  sym_tape_free(t);
  lg_free(where);
  return LG_OK;
}

/* NAME_links, once per file */
static lg_status links_function(cg_ctx *G, links *k, size_t *flops) {
  if (G->links_fn) return LG_OK;
  G->links_fn = 1;
  return tape_function(G, "links", "each link's R, d, S, I and cJ", k->outs, k->nd, flops);
}

static void int_list(lg_str *o, const char *decl, const size_t *v, size_t n) {
  lg_str_printf(o, "  static const int %s[%zu] = {", decl, n ? n : 1);
  for (size_t i = 0; i < n; i++) lg_str_printf(o, "%s%zu", i ? (i % 16 ? ", " : ",\n    ") : "", v[i]);
  lg_str_puts(o, n ? "};\n" : "0};\n");
}

/* The opening of a function over the links: its sizes and tables, L filled. */
static void open_links(cg_ctx *G, const links *k, const char *doc, const char *fn, int ret) {
  const char *N = G->r->name;
  lg_str *s = G->src;
  lg_str_printf(s, "\n/* %s: over the links of %s_links */\n"
                   "%s %s_%s(double t, const double *x, const double *u, const double *p,\n"
                   "    double *res) {\n"
                   "  enum { n = %s_NQ, NL = %zu, ND = %zu };\n",
                doc, N, ret ? "int" : "void", N, fn, N, k->nl, k->nd);
  int_list(s, "parent1", k->parent1, k->nl);
  int_list(s, "nk", k->nk, k->nl);
  int_list(s, "at", k->at, k->nl);
  int_list(s, "q0", k->q0, k->nl);
  int_list(s, "qi", k->qi, k->n);
  lg_str_printf(s, "  double L[ND];\n  %s_links(t, x, u, p, L);\n", N);
}

/* v[i] of every link, and vJ of each: the velocity pass shared by f and T */
static const char *const velocity_pass =
    "    const double *X = L + at[i], *S = X + 12, *I = S + 6 * nk[i];\n"
    "    double vJ[6] = {0, 0, 0, 0, 0, 0};\n"
    "    for (int r = 0; r < nk[i]; r++)\n"
    "      for (int b = 0; b < 6; b++) vJ[b] += S[6 * r + b] * x[n + qi[q0[i] + r]];\n"
    "    if (parent1[i]) %s_motion_in(X, v[parent1[i] - 1], v[i]);\n"
    "    else\n"
    "      for (int b = 0; b < 6; b++) v[i][b] = 0;\n"
    "    for (int b = 0; b < 6; b++) v[i][b] += vJ[b];\n";

lg_status cg_emit_links_mass(cg_ctx *G, const char *doc) {
  links k;
  lg_status st = links_read(G, &k);
  size_t flops = 0;
  if (st == LG_OK) st = links_function(G, &k, &flops);
  if (st != LG_OK) return links_free(&k), st;
  need(G, H_INERTIA_OUT);
  need(G, H_FORCE_OUT);
  open_links(G, &k, doc, "mass_matrix", 0);
  const char *N = G->r->name;
  lg_str_printf(G->src,
      "  double Ic[NL][36];\n"
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
      "        for (int j = 0; j < nk[l]; j++) {\n"
      "          if (first && j > r) continue;\n"
      "          const double *Sl = L + at[l] + 12 + 6 * j;\n"
      "          double v = 0;\n"
      "          for (int a = 0; a < 6; a++) v += Sl[a] * F[a];\n"
      "          int qa = qi[q0[i] + r], qb = qi[q0[l] + j];\n"
      "          res[qa * n + qb] = res[qb * n + qa] = v;\n"
      "        }\n"
      "        if (!parent1[l]) break;\n"
      "        %s_force_out(L + at[l], F, T);\n"
      "        for (int a = 0; a < 6; a++) F[a] = T[a];\n"
      "        l = parent1[l] - 1;\n"
      "      }\n"
      "    }\n"
      "}\n", N, N);
  G->stats.mass_matrix_full = flops;
  links_free(&k);
  return LG_OK;
}

lg_status cg_emit_links_forcing(cg_ctx *G, const char *doc) {
  links k;
  lg_status st = links_read(G, &k);
  size_t flops = 0, n = k.n;
  const sym_node **g = st == LG_OK ? lg_malloc((n + 6) * sizeof *g) : NULL;
  if (st == LG_OK && !g) st = LG_ERR_NOMEM;
  if (st == LG_OK) {
    mech_joints *J = mech_joints_of(G->r->mech);
    memcpy(g, mech_joints_base_accel(J), 6 * sizeof *g);
    for (size_t q = 0; q < n; q++) g[6 + q] = mech_joints_tau(G->r->mech, q);
    st = links_function(G, &k, &flops);
  }
  if (st == LG_OK) st = tape_function(G, "forcing_tau", "the base's acceleration and tau = Q - dV/dq", g, n + 6, &flops);
  lg_free(g);
  if (st != LG_OK) return links_free(&k), st;
  for (int h = H_FORCE_OUT; h < H_COUNT; h++)
    if (h != H_INERTIA_OUT) need(G, h);
  open_links(G, &k, doc, "forcing", 0);
  const char *N = G->r->name;
  lg_str_printf(G->src,
      "  double g[6 + n], v[NL][6], acc[NL][6], F[NL][6];\n"
      "  %s_forcing_tau(t, x, u, p, g);\n"
      "  for (int i = 0; i < NL; i++) { /* outward: v, a at q'' = 0, F = I a + v x* I v */\n", N);
  lg_str_printf(G->src, velocity_pass, N);
  lg_str_printf(G->src,
      "    const double *cJ = I + 36;\n"
      "    double c[6], Ia[6], Iv[6], w[6];\n"
      "    %s_motion_in(X, parent1[i] ? acc[parent1[i] - 1] : g, acc[i]);\n"
      "    %s_cross_motion(v[i], vJ, c);\n"
      "    for (int b = 0; b < 6; b++) acc[i][b] += cJ[b] + c[b];\n"
      "    %s_times6(I, acc[i], Ia);\n"
      "    %s_times6(I, v[i], Iv);\n"
      "    %s_cross_force(v[i], Iv, w);\n"
      "    for (int b = 0; b < 6; b++) F[i][b] = Ia[b] + w[b];\n"
      "  }\n"
      "  for (int i = NL; i-- > 0;) { /* inward: f = tau - S^T F */\n"
      "    const double *S = L + at[i] + 12;\n"
      "    for (int r = 0; r < nk[i]; r++) {\n"
      "      double s = 0;\n"
      "      for (int b = 0; b < 6; b++) s += S[6 * r + b] * F[i][b];\n"
      "      res[qi[q0[i] + r]] = g[6 + qi[q0[i] + r]] - s;\n"
      "    }\n"
      "    if (parent1[i]) {\n"
      "      double o[6];\n"
      "      %s_force_out(L + at[i], F[i], o);\n"
      "      for (int b = 0; b < 6; b++) F[parent1[i] - 1][b] += o[b];\n"
      "    }\n"
      "  }\n"
      "}\n", N, N, N, N, N, N);
  G->stats.forcing_full = flops;
  links_free(&k);
  return LG_OK;
}

lg_status cg_emit_links_energy(cg_ctx *G, const char *doc) {
  links k;
  lg_status st = links_read(G, &k);
  size_t flops = 0;
  if (st == LG_OK) st = links_function(G, &k, &flops);
  /* V besides gravity's, and the base's acceleration -g */
  const sym_node *Vg[7];
  if (st == LG_OK) {
    Vg[0] = mech_potential_besides_gravity(G->r->mech);
    memcpy(Vg + 1, mech_joints_base_accel(mech_joints_of(G->r->mech)), 6 * sizeof *Vg);
    st = tape_function(G, "potential", "V besides gravity, and the base's acceleration", Vg, 7,
                       &flops);
  }
  if (st != LG_OK) return links_free(&k), st;
  need(G, H_MOTION_IN);
  need(G, H_TIMES6);
  open_links(G, &k, doc, "energy", 0);
  const char *N = G->r->name;
  lg_str_printf(G->src, "  double v[NL][6], W[NL][9], o[NL][3], T = 0, g[7];\n"
                         "  %s_potential(t, x, u, p, g);\n"
                         "  double V = g[0];\n"
                         "  for (int i = 0; i < NL; i++) {\n", N);
  lg_str_printf(G->src, velocity_pass, N);
  /* gravity's potential: -g . (m o + W (m c)) with each link's world
   * rotation W and origin o composed from its parent's */
  lg_str_printf(G->src,
      "    double Iv[6], s = 0;\n"
      "    %s_times6(I, v[i], Iv);\n"
      "    for (int b = 0; b < 6; b++) s += v[i][b] * Iv[b];\n"
      "    T += s / 2;\n"
      "    const double *R = X, *d = X + 9;\n"
      "    if (parent1[i]) {\n"
      "      const double *Wp = W[parent1[i] - 1], *op = o[parent1[i] - 1];\n"
      "      for (int a = 0; a < 3; a++) {\n"
      "        o[i][a] = op[a] + Wp[3 * a] * d[0] + Wp[3 * a + 1] * d[1] + Wp[3 * a + 2] * d[2];\n"
      "        for (int b = 0; b < 3; b++)\n"
      "          W[i][3 * a + b] = Wp[3 * a] * R[b] + Wp[3 * a + 1] * R[3 + b] + Wp[3 * a + 2] * R[6 + b];\n"
      "      }\n"
      "    } else\n"
      "      for (int a = 0; a < 9; a++) W[i][a] = R[a], o[i][a %% 3] = d[a %% 3];\n"
      "    double mc[3] = {-I[11], I[5], I[9]};\n"
      "    for (int a = 0; a < 3; a++) {\n"
      "      double Wmc = W[i][3 * a] * mc[0] + W[i][3 * a + 1] * mc[1] + W[i][3 * a + 2] * mc[2];\n"
      "      V += g[4 + a] * (Wmc + I[21] * o[i][a]); /* -g = the base's linear acceleration */\n"
      "    }\n"
      "  }\n"
      "  res[0] = T;\n"
      "  res[1] = V;\n"
      "}\n", N);
  G->stats.energy = flops;
  links_free(&k);
  return LG_OK;
}
