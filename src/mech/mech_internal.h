/* mech_internal.h - the model's storage, shared by the mech_*.c files. */
#ifndef LG_MECH_INTERNAL_H
#define LG_MECH_INTERNAL_H

#include "mech.h"

typedef struct mech_frame {
  const char *name;
  int parent;              /* -1 for the inertial frame */
  const sym_node *R[9];    /* v_this = R v_parent (row-major): b_i . p_j */
  mech_vec omega_rel;      /* angular velocity relative to the parent */
  mech_vec omega;          /* memo: angular velocity in the inertial frame */
  int omega_done;
  int depth;               /* 0 for the inertial frame */
  int axis;                /* 0..2: rotated about that parent axis by `angle`; else -1 */
  const sym_node *angle;
  /* a frame made by body_fixed/space_fixed (euler_seq[0] != 0): the
   * sequence and angles as written, and the frame it is oriented from */
  char euler_seq[4];
  int euler_space, euler_parent;
  const sym_node *euler_angle[3];
} mech_frame;

/* from: the point it was located from (-1: the origin, or not known) */
typedef struct mech_point { const char *name; mech_vec pos; mech_vec vel; int vel_done; int from; } mech_point;
typedef struct mech_particle { int point; const sym_node *mass; } mech_particle;
typedef struct mech_body {
  int frame, point;
  const sym_node *mass, *I[6];
} mech_body;
typedef struct mech_load { int target; mech_vec v; const sym_node *s; } mech_load;
typedef struct mech_param { const char *name; const sym_node *sym, *value; int line, col; } mech_param_rec;
typedef struct mech_input { const char *name; const sym_node *law; } mech_input_rec;
/* quat: the Euler parameters when the row is a quaternion's unit norm
 * (mech_mark_quaternion_norm), else NULL */
typedef struct mech_row { const sym_node *e; int line, col; const sym_node *quat[4]; } mech_row;
/* A speed the model declares dependent (Kane's method), and where. */
typedef struct mech_dep_decl { int speed; int line, col; } mech_dep_decl;

/* A named output (mech_output.c): a scalar evaluated on the motion. */
typedef struct mech_output { const char *name; const sym_node *e; int line, col; } mech_output;

/* A growable array of T (elements, count, capacity). */
#define MECH_ARRAY(T) struct { T *v; size_t n, cap; }

/* DCM memo entry: v_to = D v_from */
typedef struct mech_dcm { int to, from; const sym_node *D[9]; } mech_dcm;

struct mech_model {
  sym_ctx *c;
  lg_arena arena;
  int oom;
  MECH_ARRAY(const char *) coords;
  MECH_ARRAY(mech_param_rec) params;
  MECH_ARRAY(mech_input_rec) inputs;
  MECH_ARRAY(mech_frame) frames;
  MECH_ARRAY(mech_point) points;
  MECH_ARRAY(mech_particle) particles;
  MECH_ARRAY(mech_body) bodies;
  MECH_ARRAY(mech_load) forces;
  MECH_ARRAY(mech_load) torques;
  MECH_ARRAY(mech_load) gen_forces;
  MECH_ARRAY(mech_row) rows;
  MECH_ARRAY(const char *) speeds;
  int speeds_line, speeds_col; /* the first speed declared (0: none) */
  MECH_ARRAY(mech_dep_decl) dependent; /* speeds the model names dependent */
  MECH_ARRAY(mech_row) kinematics;
  MECH_ARRAY(mech_dcm) dcms;
  MECH_ARRAY(mech_output) outputs;
  int *dcm_index;          /* [to * dcm_dim + from] -> index in dcms + 1 */
  size_t dcm_dim;
  const sym_node *T, *V, *D, *L;
  mech_vec gravity;
  int has_gravity, has_T, has_V;
  struct mech_joints *joints; /* memo of mech_joints_of (NULL: not a tree of links) */
  int joints_done;
  mech_num_tree num_tree;   /* (n 0: none; link in the arena) */
};

/* Append one element to a MECH_ARRAY; returns its index or -1 (OOM). */
#define MECH_PUSH(m, arr, val)                                                   \
  (lg_grow((void **)&(arr).v, &(arr).cap, (arr).n + 1, sizeof *(arr).v)          \
       ? ((arr).v[(arr).n] = (val), (int)(arr).n++)                              \
       : ((m)->oom = 1, -1))

const char *mech_strdup(mech_model *m, const char *s);
/* D with v_child = D v_parent for a rotation by angle about unit axis k
 * (parent coordinates). */
void mech_rotation_dcm(sym_ctx *c, const sym_node *const *k, const sym_node *angle,
                       const sym_node **D);
/* D such that v_to = D v_from, or NULL on OOM */
const sym_node *const *mech_dcm_get(mech_model *m, int to, int from);
/* Add the particles' and bodies' inertia to e->M, e->f and e->p from
 * their partial velocities (mech_assemble.c); 0 on OOM. */
int mech_assemble_inertia(mech_model *m, mech_eom *e);
/* The same in any speeds u (their derivatives ud): velocities pass through
 * map first (Kane's: q' and the dependent speeds in the independent ones;
 * NULL: as they are). Adds M_rs = sum m v_r . v_s + w_r . I w_s to M,
 * -(m v_r . a0 + w_r . (I al0 + w x I w)) to f, and (p not NULL) the
 * momenta. 0 on OOM. */
typedef const sym_node *(*mech_map_fn)(void *ud, const sym_node *e);
int mech_assemble_inertia_in(mech_model *m, size_t n, const sym_node *const *u,
                             const sym_node *const *ud, mech_map_fn map, void *map_ud,
                             sym_matrix *M, const sym_node **f, const sym_node **p);
/* One entry made readable: expanded when it has at most max_dag nodes and
 * that does not grow it, then collected (sym_collect) at every size. */
const sym_node *mech_simplify_entry(sym_ctx *c, const sym_node *x, size_t max_dag);
/* Q_j of dissipation (-dD/dq_j'), forces, torques and `force q:` (not
 * of V or gravity), through the partial velocities. */
const sym_node *mech_generalized_force(mech_model *m, size_t j);
/* The particles' and bodies' kinetic energy (NULL on OOM). */
const sym_node *mech_kinetic_energy(mech_model *m);
mech_vec mech_vec_from(mech_model *m, int frame, const sym_node *x,
                       const sym_node *y, const sym_node *z);

/* mech_kane_pivot.c: A (m x nu) evaluated at *ns sample configurations
 * (sample 0: the state pv gives; lg_malloc'd, ns*m*nu, NaN where it cannot
 * be evaluated), and the greedy choice of dependent columns on the first
 * `rows` rows that stays sound at every sample (returns how many could be
 * chosen, (size_t)-1 on OOM). */
double *mech_kane_sample(sym_ctx *c, const sym_matrix *A, const sym_node *const *q, size_t n,
                         sym_atom_value_fn pv, void *pud, size_t *ns);
size_t mech_kane_pick(const double *vals, size_t ns, size_t m_all, size_t rows, size_t nu,
                      const int *allowed, int *dep);

/* LaTeX (mech_latex.c): does a formula fit a line; one formula as a
 * display (\[ \], or multline* cut into lines); is a bmatrix row too wide. */
int mech_latex_fits(const char *s);
void mech_latex_display(lg_str *o, const char *s);
int mech_latex_too_wide(const char *const *cells, size_t n);

#endif
