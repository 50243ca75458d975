/* mech_joint_internal.h - the link-coordinate recursion's shared pieces
 * (mech_joint.c: the passes; mech_joint_read.c: the tree from the model;
 * mech_joint_frames.c: each hinge's link on its axis; mech_joint_algebra.c:
 * spatial algebra on expressions). Layer-internal. */
#ifndef LG_MECH_JOINT_INTERNAL_H
#define LG_MECH_JOINT_INTERNAL_H

#include "mech_internal.h"

typedef const sym_node *sn;
enum { KMAX = 7, NRHS = 7 }; /* joint coordinates (a free joint in a quaternion: 7); D^-1's
                                right-hand sides [u, U^T] */

/* One elementary step of a transform: a rotation about axis ax by the
 * angle whose cosine and sine are c, s, or a translation by t along ax. */
typedef struct jstage {
  int rot, ax;
  sn c, s, t;
} jstage;
enum { SMAX = 6 };

typedef struct jlink {
  int frame, point, parent;  /* parent link (-1: the inertial frame, origin) */
  size_t k, q[KMAX];         /* own coordinates */
  sn R[9], d[3];
  sn S[KMAX][6], cJ[6];
  sn I[36];                  /* spatial inertia about O in F, (w, v_O) order */
  /* (R, d) as nst steps, the parent's side first (0: as R and d), which
   * the transforms below take one at a time (mech_joint_stages.c) */
  int nst;
  jstage st[SMAX];
} jlink;

struct mech_joints {
  size_t nl;
  jlink *L;                  /* parents first */
  sn a0[6];                  /* the base's acceleration: (0, -g) */
  sn (*v)[6], (*c)[6];       /* link velocities and v x vJ + cJ */
  sn T, Vg;                  /* kinetic energy; gravity's potential (0 without gravity) */
};

/* ---- spatial algebra on expressions (mech_joint_algebra.c) ----------------------------------
 * Motion vectors (w, v_O) and forces (n_O, f) in a link's axes; the link's
 * transform to its parent is v_parent = R v_link with the origin moved by
 * d (parent axes). */
sn mj_let(sym_ctx *c, sn e);
sn mj_dot3(sym_ctx *c, const sn *a, const sn *b);
void mj_cross3(sym_ctx *c, const sn *a, const sn *b, sn *o);
void mj_rot(sym_ctx *c, const sn *R, const sn *x, sn *o, int transpose); /* R x, R^T x */
void mj_motion_in(sym_ctx *c, const jlink *L, const sn *m, sn *o);     /* parent's m in L */
void mj_force_out(sym_ctx *c, const jlink *L, const sn *f, sn *o);     /* L's f in the parent */
void mj_cross_motion(sym_ctx *c, const sn *v, const sn *m, sn *o);     /* v x m */
void mj_cross_force(sym_ctx *c, const sn *v, const sn *f, sn *o);      /* v x* f */
sn mj_dot6(sym_ctx *c, const sn *a, const sn *b);
void mj_times6(sym_ctx *c, const sn *I, const sn *x, sn *y);           /* I x, I 6x6 */
void mj_mul3(sym_ctx *c, const sn *A, const sn *B, sn *o, int at, int bt); /* A^(T) B^(T) */
void mj_inertia_out(sym_ctx *c, const jlink *L, const sn *I, sn *o);   /* X^T I X */
void mj_let_sym6(sym_ctx *c, sn *I);

/* ---- the tree (mech_joint_read.c, mech_joint_frames.c) ----------------------------------- */
/* J's links from m's structure, each with R, d, S, cJ and I: 0 when m is
 * not a tree of rigid links in its coordinates (or out of memory). */
int mj_read_tree(mech_model *m, mech_joints *J);
/* Each one-coordinate hinge or slider turned so that its axis is z. */
int mj_axis_frames(mech_model *m, mech_joints *J);
/* L's R and d at its own first coordinate = q0, when they are numbers there. */
int mj_joint_at(mech_model *m, const jlink *L, double q0, double *R, double *d);
/* Each hinge's constant transform as steps about and along single axes. */
int mj_joint_stages(mech_model *m, mech_joints *J);

#endif
