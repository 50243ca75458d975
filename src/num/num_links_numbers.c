/* num_links_numbers.c - the links' data from a tree given by its numbers
 * (mech_num_tree: a URDF read as it is), not from expressions.
 *
 * num_links_build reads each link's R, d, S, I, cJ from mech_joints_of,
 * which composes the tree as expressions (at 40 links most of the time
 * from a .urdf to the first q'', issue 26). A URDF already holds every
 * number: each joint's frame in its parent's, its axis, damping, each
 * link's mass, centre and inertia. Here fixed joints are folded into the
 * moving link they hang from (their frames composed, their inertias
 * added), the constants go into the data once, and before each pass
 * nl_fill_numbers writes what varies: a revolute link's R(q) (Rodrigues:
 * cos q R + sin q R[a]x + (1 - cos q) R a a^T), a prismatic link's d(q),
 * the base's acceleration (0, g e_z) and tau = u - damping q'. The passes
 * (num_links.c) and eval's forms (num_links_forms.c) are the same. */
#include "num_links_internal.h"

#include <math.h>
#include <string.h>

/* (R, d) of a frame in its anchor's, composed with (R2, d2) of a frame in
 * that one: the second frame in the anchor's */
static void compose(const double *R, const double *d, const double *R2, const double *d2,
                    double *Ro, double *dout) {
  double Rt[9], dt[3];
  for (int i = 0; i < 3; i++) {
    dt[i] = d[i];
    for (int j = 0; j < 3; j++) {
      Rt[3 * i + j] = R[3 * i] * R2[j] + R[3 * i + 1] * R2[3 + j] + R[3 * i + 2] * R2[6 + j];
      dt[i] += R[3 * i + j] * d2[j];
    }
  }
  memcpy(Ro, Rt, sizeof Rt);
  memcpy(dout, dt, sizeof dt);
}

/* The spatial inertia (6 x 6, (w, v) order, about the frame's origin) of
 * a mass m at c with inertia I (xx yy zz xy yz zx) about c. */
static void spatial_inertia(double m, const double *c, const double *I, double *S) {
  double Ic[9] = {I[0], I[3], I[5], I[3], I[1], I[4], I[5], I[4], I[2]};
  double C[9] = {0, -c[2], c[1], c[2], 0, -c[0], -c[1], c[0], 0}; /* [c]x */
  double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
  memset(S, 0, 36 * sizeof *S);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      S[6 * i + j] = Ic[3 * i + j] + m * ((i == j ? cc : 0) - c[i] * c[j]);
      S[6 * i + 3 + j] = m * C[3 * i + j];
      S[6 * (3 + i) + j] = -m * C[3 * i + j];
    }
  for (int i = 0; i < 3; i++) S[6 * (3 + i) + 3 + i] = m;
}

/* A joint input's value: its setting, else its law when that is a number.
 * 0: neither (the tree is then read from expressions). */
static int input_value(mech_model *mm, size_t i, const num_setting *set, size_t nset,
                       double *u) {
  const num_setting *s = mech_find_setting(set, nset, mech_input_name(mm, i));
  if (s) {
    *u = s->value;
    return 1;
  }
  const sym_node *law = mech_input_law(mm, i);
  if (!law || !sym_is_number(law)) return 0;
  *u = sym_number_value(law);
  return 1;
}

lg_status nl_build_numbers(mech_model *mm, const mech_num_tree *t, const num_setting *set,
                           size_t nset, const double *params, num_links **out, lg_diag *diag) {
  *out = NULL;
  size_t nt = t->n, n = mech_ncoords(mm), np = mech_nparams(mm), nl = 0;
  if (t->g >= np) return LG_ERR_MODEL;
  if (isnan(params[t->g])) {
    int line, col;
    mech_param_pos(mm, t->g, &line, &col);
    lg_diag_set(diag, LG_ERR_MODEL, NULL, line, col, "parameter '%s' has no value",
                mech_param_name(mm, t->g));
    return LG_ERR_MODEL;
  }
  for (size_t j = 0; j < nt; j++) nl += t->link[j].type != MECH_NUM_FIXED;
  if (nl != n || !nl) return LG_ERR_MODEL;
  num_links *L = lg_calloc(1, sizeof *L);
  if (!L) return LG_ERR_NOMEM;
  L->n = n;
  L->nl = nl;
  L->np = np;
  L->g = t->g;
  L->nd = nl * 60 + 6 + n; /* 54 + 6 k a link (k = 1), a0, tau */
  L->forms = 1;            /* (V is gravity's alone: vbase 0) */
  L->parent = lg_malloc(nl * sizeof *L->parent);
  L->unit = lg_malloc(nl * sizeof *L->unit);
  L->k = lg_malloc((5 * nl + n) * sizeof *L->k);
  L->base = lg_calloc(L->nd, sizeof *L->base);
  L->uses = lg_calloc(np + 1, 1);
  L->jt = lg_calloc(nl, sizeof *L->jt);
  /* each tree link: its anchor (the moving link it is, or hangs from by
   * fixed joints; -1: the base) and, when fixed, its frame in the anchor's */
  int *anchor = lg_malloc((nt + 1) * sizeof *anchor);
  double(*A)[12] = lg_malloc((nt + 1) * sizeof *A);
  unsigned char *seen = lg_calloc(n + 1, 1);
  lg_status st = L->parent && L->unit && L->k && L->base && L->uses && L->jt && anchor && A &&
                         seen ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) L->at = L->k + nl, L->q0 = L->at + nl, L->wat = L->q0 + nl, L->qi = L->wat + nl;
  L->uses[t->g] = 1;
  size_t i = 0;
  for (size_t j = 0; st == LG_OK && j < nt; j++) {
    const mech_num_link *l = &t->link[j];
    if (l->parent >= (int)j || l->parent < -1) {
      st = LG_ERR_MODEL;
      break;
    }
    /* the joint frame in its anchor's */
    int an = l->parent < 0 ? -1 : anchor[l->parent];
    double R[9], d[3], I[36];
    if (l->parent >= 0 && t->link[l->parent].type == MECH_NUM_FIXED)
      compose(A[l->parent], A[l->parent] + 9, l->R, l->d, R, d);
    else
      memcpy(R, l->R, sizeof R), memcpy(d, l->d, sizeof d);
    spatial_inertia(l->mass, l->com, l->I, I);
    if (l->type == MECH_NUM_FIXED) {
      anchor[j] = an;
      memcpy(A[j], R, sizeof R);
      memcpy(A[j] + 9, d, sizeof d);
      if (an >= 0 && l->mass != 0) {
        double X[12];
        memcpy(X, R, sizeof R);
        memcpy(X + 9, d, sizeof d);
        inertia_out_add(X, I, L->base + L->at[an] + 18);
      }
      continue;
    }
    if (l->coord >= n || seen[l->coord] || l->input >= mech_ninputs(mm)) {
      st = LG_ERR_MODEL;
      break;
    }
    seen[l->coord] = 1;
    anchor[j] = (int)i;
    nl_joint *J = &L->jt[i];
    if (!input_value(mm, l->input, set, nset, &J->u)) {
      st = LG_ERR_MODEL;
      break;
    }
    J->prismatic = l->type == MECH_NUM_PRISMATIC;
    J->coord = l->coord;
    J->damping = l->damping;
    const double *a = l->axis;
    double *X = L->base + 60 * i;
    L->parent[i] = an;
    L->k[i] = 1;
    L->at[i] = 60 * i;
    L->q0[i] = i;
    L->qi[i] = l->coord;
    L->wat[i] = 74 * i; /* v, c, pA, a 6 each, IA 36, U 6, u, DU 6, Du */
    memcpy(X, R, sizeof R); /* (a revolute link's R is filled) */
    memcpy(X + 9, d, sizeof d);
    for (int r = 0; r < 3; r++) X[12 + r + (J->prismatic ? 3 : 0)] = a[r];
    memcpy(X + 18, I, sizeof I);
    /* cJ (X + 54) is 0: S is constant in the link's frame */
    int unit = -1, ones = 0, zeros = 0;
    for (int r = 0; r < 6; r++) {
      if (X[12 + r] == 1) unit = r, ones++;
      else zeros += X[12 + r] == 0;
    }
    L->unit[i] = ones == 1 && zeros == 5 ? unit : -1;
    double K[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0};
    for (int r = 0; r < 3; r++) {
      double Rar = R[3 * r] * a[0] + R[3 * r + 1] * a[1] + R[3 * r + 2] * a[2];
      J->Ra[r] = Rar;
      for (int c = 0; c < 3; c++) {
        J->R[3 * r + c] = R[3 * r + c];
        J->P1[3 * r + c] = R[3 * r] * K[c] + R[3 * r + 1] * K[3 + c] + R[3 * r + 2] * K[6 + c];
        J->P2[3 * r + c] = Rar * a[c];
      }
    }
    i++;
  }
  if (st == LG_OK) {
    size_t work = 74 * nl;
    L->o_live = 0;
    L->o_data = 0;
    L->o_work = L->nd;
    L->nslots = L->o_work + work;
  }
  lg_free(anchor);
  lg_free(A);
  lg_free(seen);
  if (st != LG_OK) {
    num_links_free(L);
    return st;
  }
  *out = L;
  return LG_OK;
}

void nl_fill_numbers(const num_links *L, const double *in, double *X0) {
  const double *q = in + 1, *qd = in + 1 + L->n, *p = in + 1 + 2 * L->n;
  for (size_t i = 0; i < L->nl; i++) {
    const nl_joint *J = &L->jt[i];
    double *X = X0 + L->at[i], x = q[J->coord];
    if (J->prismatic) {
      for (int r = 0; r < 3; r++) X[9 + r] += x * J->Ra[r];
      continue;
    }
    double c = cos(x), s = sin(x), v = 1 - c;
    for (int r = 0; r < 9; r++) X[r] = c * J->R[r] + s * J->P1[r] + v * J->P2[r];
  }
  double *a0 = X0 + L->nd - 6 - L->n, *tau = a0 + 6;
  a0[5] = p[L->g];
  for (size_t i = 0; i < L->nl; i++) {
    const nl_joint *J = &L->jt[i];
    tau[J->coord] = J->u - J->damping * qd[J->coord];
  }
}
