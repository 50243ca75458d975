/* num_links_internal.h - what num_links.c (the data, the articulated-body
 * passes) and num_links_forms.c (eval's other forms) share: the links'
 * numbers, each link's work, and the spatial algebra on numbers (inline:
 * these loops are the evaluation's whole cost). */
#ifndef NUM_LINKS_INTERNAL_H
#define NUM_LINKS_INTERNAL_H

#include "num.h"

#include <string.h>

enum { LK_KMAX = 7 }; /* joint coordinates a link (a quaternion free joint: 7) */

/* A link by its numbers (num_links_numbers.c: a URDF's tree, no tape):
 * what varies with q, q' and p, filled into the data before each pass. */
typedef struct nl_joint {
  int prismatic;
  size_t coord;
  double damping, u;           /* tau = u - damping q' */
  double R[9], P1[9], P2[9];   /* revolute: R(q) = cos q R + sin q P1 + (1 - cos q) P2 */
  double Ra[3];                /* prismatic: d(q) = d + q Ra */
} nl_joint;

struct num_links {
  size_t nl, n, nd;        /* links, coordinates, data (links, then a0 6, tau n) */
  int *parent;             /* nl: -1 for the inertial frame */
  int *unit;               /* nl: j when the link's S is the constant e_j, else -1 */
  size_t *k, *at, *q0, *qi, *wat; /* nl (qi: n): data and work offsets */
  double *base;            /* nd: every entry, numbers in place (0 where live) */
  size_t nlive, *where;    /* the tape's outputs and their places in the data */
  sym_tape *tape;          /* NULL when every entry is a number */
  size_t o_live, o_data, o_work, nslots;
  /* eval's other forms (num_links_eval): V besides gravity's (springs,
   * `V =`) by a tape of its own (so the data's tape, and q'', stay as they
   * are), or a number; forms 0 when it has no numeric value */
  sym_tape *vtape;
  double vbase;
  int forms;
  size_t np;
  unsigned char *uses;     /* np: 1 where a parameter enters the data or V */
  nl_joint *jt;            /* nl: the links by their numbers (instead of tape), else NULL */
  size_t g;                /* (jt) gravity's parameter */
};

/* the links by their numbers (num_links_numbers.c) */
lg_status nl_build_numbers(mech_model *mm, const mech_num_tree *t, const num_setting *set,
                           size_t nset, const double *params, num_links **out, lg_diag *diag);
void nl_fill_numbers(const num_links *L, const double *in, double *X0);

/* ---- spatial algebra (mech_joint_algebra.c's, on numbers) ------------------------------- */
/* the parent's motion m in the link: (R^T w, R^T (v - d x w)) */
static inline void motion_in(const double *X, const double *m, double *o) {
  const double *R = X, *d = X + 9;
  double t[3] = {m[3] - (d[1] * m[2] - d[2] * m[1]), m[4] - (d[2] * m[0] - d[0] * m[2]),
                 m[5] - (d[0] * m[1] - d[1] * m[0])};
  for (int i = 0; i < 3; i++) {
    o[i] = R[i] * m[0] + R[3 + i] * m[1] + R[6 + i] * m[2];
    o[3 + i] = R[i] * t[0] + R[3 + i] * t[1] + R[6 + i] * t[2];
  }
}

/* the link's force f added to its parent's: (R n + d x R f, R f) */
static inline void force_out_add(const double *X, const double *f, double *o) {
  const double *R = X, *d = X + 9;
  double rn[3], rf[3];
  for (int i = 0; i < 3; i++) {
    rn[i] = R[3 * i] * f[0] + R[3 * i + 1] * f[1] + R[3 * i + 2] * f[2];
    rf[i] = R[3 * i] * f[3] + R[3 * i + 1] * f[4] + R[3 * i + 2] * f[5];
  }
  o[0] += rn[0] + d[1] * rf[2] - d[2] * rf[1];
  o[1] += rn[1] + d[2] * rf[0] - d[0] * rf[2];
  o[2] += rn[2] + d[0] * rf[1] - d[1] * rf[0];
  o[3] += rf[0];
  o[4] += rf[1];
  o[5] += rf[2];
}

/* X^T I X: the link's symmetric inertia I in its parent, added to P:
 * blocks A, B, M turned by R, then moved by D = [d]x:
 * [[A' + D B'^T - B' D - D M' D, B' + D M'], [., M']] */
static inline void inertia_out_add(const double *X, const double *I, double *P) {
  const double *R = X, *d = X + 9;
  double blk[3][9], rot[3][9], D[9] = {0, -d[2], d[1], d[2], 0, -d[0], -d[1], d[0], 0};
  for (int b = 0; b < 3; b++) /* A, B, M */
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        blk[b][3 * i + j] = I[6 * (i + (b == 2 ? 3 : 0)) + j + (b ? 3 : 0)];
  for (int b = 0; b < 3; b++) { /* R blk R^T */
    double t[9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        t[3 * i + j] = blk[b][3 * i] * R[3 * j] + blk[b][3 * i + 1] * R[3 * j + 1] +
                       blk[b][3 * i + 2] * R[3 * j + 2];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        rot[b][3 * i + j] = R[3 * i] * t[j] + R[3 * i + 1] * t[3 + j] + R[3 * i + 2] * t[6 + j];
  }
  double Xb[9], Y[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      Xb[3 * i + j] = D[3 * i] * rot[1][3 * j] + D[3 * i + 1] * rot[1][3 * j + 1] +
                      D[3 * i + 2] * rot[1][3 * j + 2];
      Y[3 * i + j] =
          D[3 * i] * rot[2][j] + D[3 * i + 1] * rot[2][3 + j] + D[3 * i + 2] * rot[2][6 + j];
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double ymd = Y[3 * i] * D[j] + Y[3 * i + 1] * D[3 + j] + Y[3 * i + 2] * D[6 + j];
      P[6 * i + j] += rot[0][3 * i + j] + Xb[3 * i + j] + Xb[3 * j + i] - ymd;
      P[6 * i + 3 + j] += rot[1][3 * i + j] + Y[3 * i + j];
      P[6 * (3 + j) + i] += rot[1][3 * i + j] + Y[3 * i + j];
      P[6 * (3 + i) + 3 + j] += rot[2][3 * i + j];
    }
}

/* v x m for motions */
static inline void cross_motion(const double *v, const double *m, double *o) {
  o[0] = v[1] * m[2] - v[2] * m[1];
  o[1] = v[2] * m[0] - v[0] * m[2];
  o[2] = v[0] * m[1] - v[1] * m[0];
  o[3] = v[1] * m[5] - v[2] * m[4] + v[4] * m[2] - v[5] * m[1];
  o[4] = v[2] * m[3] - v[0] * m[5] + v[5] * m[0] - v[3] * m[2];
  o[5] = v[0] * m[4] - v[1] * m[3] + v[3] * m[1] - v[4] * m[0];
}

/* v x* f for forces */
static inline void cross_force(const double *v, const double *f, double *o) {
  o[0] = v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4];
  o[1] = v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5];
  o[2] = v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3];
  o[3] = v[1] * f[5] - v[2] * f[4];
  o[4] = v[2] * f[3] - v[0] * f[5];
  o[5] = v[0] * f[4] - v[1] * f[3];
}

static inline void times6(const double *I, const double *x, double *y) {
  for (int i = 0; i < 6; i++) {
    y[i] = 0;
    for (int j = 0; j < 6; j++) y[i] += I[6 * i + j] * x[j];
  }
}

static inline double dot6(const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < 6; i++) s += a[i] * b[i];
  return s;
}

/* x = D^-1 b for the k x k symmetric positive D, nb right-hand sides
 * (Gauss-Jordan without pivoting, as mech_joint.c's solve_small). */
static inline void solve_small(size_t k, double D[LK_KMAX][LK_KMAX], double b[LK_KMAX][1 + 6],
                        size_t nb) {
  for (size_t p = 0; p < k; p++) {
    double inv = 1.0 / D[p][p];
    for (size_t j = p; j < k; j++) D[p][j] *= inv;
    for (size_t j = 0; j < nb; j++) b[p][j] *= inv;
    for (size_t i = 0; i < k; i++) {
      if (i == p) continue;
      double f = D[i][p];
      for (size_t j = p; j < k; j++) D[i][j] -= f * D[p][j];
      for (size_t j = 0; j < nb; j++) b[i][j] -= f * b[p][j];
    }
  }
}

/* ---- evaluation -------------------------------------------------------------------------- */
/* Link i's work: v 6, c 6, pA 6, a 6, IA 36, U 6k, u k, DU 6k, Du k. */
enum { W_V = 0, W_C = 6, W_PA = 12, W_A = 18, W_IA = 24, W_U = 60 };

static inline double *work_of(const num_links *L, double *Wk, size_t i) { return Wk + L->wat[i]; }

/* the coordinate of link i's r-th own q' */
static inline size_t coord_of(const num_links *L, size_t i, size_t r) { return L->qi[L->q0[i] + r]; }

/* eval's other forms (num_links_forms.c), after the velocity pass */
void nl_form_forcing(const num_links *L, const double *X0, double *Wk, const double *a0,
                     double *f);
void nl_form_momenta(const num_links *L, const double *X0, double *Wk, double *p, double *T);
double nl_form_potential(const num_links *L, const double *X0, double *Wk, const double *a0,
                         double vbase);
void nl_form_mass(const num_links *L, const double *X0, double *Wk, double *M);
double nl_form_power(const num_links *L, const double *X0, double *Wk, const double *a0,
                     const double *qd, const double *qdd);

#endif
