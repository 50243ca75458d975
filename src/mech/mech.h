/* mech.h - the mechanics layer: frames, vectors, points, bodies, and the
 * Euler-Lagrange equations with multipliers.
 *
 * A mech_model is filled in by the language layer (or any C caller):
 * coordinates, parameters, inputs, frames, points, particles, bodies,
 * energies, forces and constraints. mech_derive_lagrange turns it into a
 * mech_eom: the mass matrix, forcing, constraint Jacobian and bias, full
 * state-space forms, momenta and energies, all as expressions in the
 * model's sym_ctx. Nothing here prints. Memory: everything lives in the
 * sym_ctx arena or in the model (freed by mech_model_free).
 */
#ifndef LG_MECH_H
#define LG_MECH_H

#include "lg_base.h"
#include "sym.h"

/* ---- vectors ----------------------------------------------------------------
 * A vector is a sum of terms, each three measure numbers in one frame
 * (as SymPy's Vector). Terms are immutable and live in the context arena,
 * so vectors are cheap values. */
typedef struct mech_vterm {
  int frame;
  const sym_node *c[3];
} mech_vterm;

typedef struct mech_vec {
  size_t n;
  const mech_vterm *t;
} mech_vec;

typedef struct mech_model mech_model;

mech_vec mech_vec_zero(void);
/* unit vector `axis` (0, 1, 2) of frame f */
mech_vec mech_vec_unit(mech_model *m, int frame, int axis);
mech_vec mech_vec_add(mech_model *m, mech_vec a, mech_vec b);
mech_vec mech_vec_sub(mech_model *m, mech_vec a, mech_vec b);
mech_vec mech_vec_scale(mech_model *m, const sym_node *k, mech_vec a);
const sym_node *mech_vec_dot(mech_model *m, mech_vec a, mech_vec b);
mech_vec mech_vec_cross(mech_model *m, mech_vec a, mech_vec b);
const sym_node *mech_vec_norm(mech_model *m, mech_vec a);
/* measure numbers of a in frame f (out[3]) */
int mech_vec_express(mech_model *m, mech_vec a, int frame, const sym_node **out);
/* time derivative in the inertial frame */
mech_vec mech_vec_dt(mech_model *m, mech_vec a);
/* partial derivative of each measure number by an atom */
mech_vec mech_vec_diff(mech_model *m, mech_vec a, const sym_node *var);
/* Apply a scalar map to each measure number (e.g. substitution). */
mech_vec mech_vec_map(mech_model *m, mech_vec a,
                      const sym_node *(*f)(void *ud, const sym_node *e), void *ud);
int mech_vec_is_zero(mech_vec a);

/* ---- the model ------------------------------------------------------------------ */
typedef enum mech_rot { MECH_ROT_BODY, MECH_ROT_SPACE } mech_rot;

mech_model *mech_model_new(sym_ctx *c);
void mech_model_free(mech_model *m);
sym_ctx *mech_ctx(mech_model *m);

/* Names are copied. Each returns an index (>= 0) or -1 on OOM. */
int mech_add_coordinate(mech_model *m, const char *name);
/* value may be NULL (symbolic until --set) */
int mech_add_parameter(mech_model *m, const char *name, const sym_node *value);
/* law: expression in t and parameters, or NULL (then 0) */
int mech_add_input(mech_model *m, const char *name, const sym_node *law);
/* The inertial frame is the first frame added. */
int mech_add_frame_inertial(mech_model *m, const char *name);
/* child of `parent`, rotated by `angle` about `axis` (any nonzero vector
 * fixed in parent). Returns -2 when the axis is not fixed in the parent. */
int mech_add_frame_rotate(mech_model *m, const char *name, int parent,
                          mech_vec axis, const sym_node *angle);
/* seq: three axes 0..2 (e.g. z,x,y = {2,0,1}) */
int mech_add_frame_euler(mech_model *m, const char *name, int parent,
                         mech_rot kind, const int seq[3],
                         const sym_node *const angles[3]);
/* child of `parent` oriented by the Euler parameters e[0..3] (e[0] the
 * scalar part, as SymPy's orient_quaternion); the unit norm is the
 * caller's constraint. */
int mech_add_frame_quaternion(mech_model *m, const char *name, int parent,
                              const sym_node *const e[4]);
/* The frames: how many, and for one made by body_fixed/space_fixed its
 * sequence as written ("zyx"), *space = 1 for space_fixed, the frame it
 * is oriented from and the three angles in the order written (returns 1;
 * 0 for any other frame). */
size_t mech_nframes(const mech_model *m);
int mech_frame_euler(const mech_model *m, int frame, char seq[4], int *space, int *parent,
                     const sym_node *angles[3]);
/* The origin is the first point added (offset ignored). */
int mech_add_point(mech_model *m, const char *name, int from, mech_vec offset);
/* Set a point's position from the origin directly. */
void mech_point_set_pos(mech_model *m, int point, mech_vec pos);
int mech_add_particle(mech_model *m, int point, const sym_node *mass);
/* inertia: Ixx Iyy Izz Ixy Iyz Izx about the mass centre, in the frame */
int mech_add_body(mech_model *m, int frame, const sym_node *mass, int point,
                  const sym_node *const inertia[6]);
void mech_add_T(mech_model *m, const sym_node *e);
void mech_add_V(mech_model *m, const sym_node *e);
void mech_add_D(mech_model *m, const sym_node *e);
void mech_set_L(mech_model *m, const sym_node *e);
void mech_set_gravity(mech_model *m, mech_vec g);
void mech_add_force(mech_model *m, int point, mech_vec f);
void mech_add_torque(mech_model *m, int frame, mech_vec t);
void mech_add_gen_force(mech_model *m, int coord, const sym_node *q);
/* A scalar constraint row; `line`/`col` locate it for diagnostics. */
int mech_add_constraint(mech_model *m, const sym_node *row, int line, int col);
/* The last row added is the unit norm of the quaternion e[0..3] (Kane's
 * method with body rates as speeds completes the kinematics with e.e'). */
void mech_mark_quaternion_norm(mech_model *m, const sym_node *const e[4]);

/* Kane's method: generalized speeds (functions of time, like coordinates)
 * and kinematical equations row = 0, linear in the q'. */
int mech_add_speed(mech_model *m, const char *name);
/* Where the first speed is declared (for Kane's errors about their count). */
void mech_speed_pos(mech_model *m, int line, int col);
int mech_add_kinematic(mech_model *m, const sym_node *row, int line, int col);
/* The model names speed `speed` (index from mech_add_speed; without a
 * speeds statement, the coordinate's index: u_i = q_i') dependent: Kane's
 * method then solves the velocity constraints for the declared speeds
 * instead of choosing them. One per constraint row, each once, with a
 * regular coefficient matrix, else mech_derive_kane fails at the
 * declaration's line:col. Returns -1 on OOM. */
int mech_declare_dependent_speed(mech_model *m, int speed, int line, int col);
/* The name of the i-th declared speed (a `speeds` statement). */
const char *mech_speed_name(const mech_model *m, size_t i);
size_t mech_ndeclared_dependent(const mech_model *m);
/* The k-th declared dependent speed's index (and where it was declared). */
size_t mech_declared_dependent(const mech_model *m, size_t k, int *line, int *col);

/* Apply f to every position the model keeps (constraint and kinematics
 * rows, dependent-speed declarations, outputs, parameters): the language
 * moves them from the text it parsed to the files it came from. */
void mech_remap_positions(mech_model *m, void (*f)(void *ud, int *line, int *col), void *ud);

/* Queries used by the language layer. */
size_t mech_ncoords(const mech_model *m);
const sym_node *mech_coord(const mech_model *m, size_t i, int order);
size_t mech_nparams(const mech_model *m);
const sym_node *mech_param(const mech_model *m, size_t i);
const sym_node *mech_param_value(const mech_model *m, size_t i);
const char *mech_param_name(const mech_model *m, size_t i);
/* Where a parameter was declared (for diagnostics); 0 when unknown. */
void mech_param_set_pos(mech_model *m, size_t i, int line, int col);
void mech_param_pos(const mech_model *m, size_t i, int *line, int *col);
const char *mech_input_name(const mech_model *m, size_t i);
size_t mech_ninputs(const mech_model *m);
const sym_node *mech_input(const mech_model *m, size_t i, int order);
const sym_node *mech_input_law(const mech_model *m, size_t i);
mech_vec mech_point_pos(const mech_model *m, int point);
mech_vec mech_point_vel(mech_model *m, int point);
mech_vec mech_frame_angvel(mech_model *m, int frame);
int mech_frame_is_fixed_in(mech_model *m, mech_vec v, int frame);
/* The sums of the written T =, V =, D = statements (0 when none). */
const sym_node *mech_written_V(const mech_model *m);
/* Has building the model run out of memory (a vector or a list could not
 * grow)? Then the model is incomplete. */
int mech_model_oom(const mech_model *m);

/* ---- what there is to draw (mech_scene.c) ------------------------------------------ */
size_t mech_npoints(const mech_model *m);
const char *mech_point_name(const mech_model *m, size_t i);
/* The point that `point` was located from (-1 for the origin or when not
 * known); the language sets it to the point its location starts from. */
int mech_point_from(const mech_model *m, size_t point);
void mech_point_set_from(mech_model *m, size_t point, int from);
/* Index of the point named `name`, or -1. */
int mech_point_index(const mech_model *m, const char *name);
size_t mech_nparticles(const mech_model *m);
int mech_particle_point(const mech_model *m, size_t i);
size_t mech_nbodies(const mech_model *m);
/* Body i: its frame, mass centre, mass and inertia (Ixx Iyy Izz Ixy Iyz Izx,
 * any pointer may be NULL). */
void mech_body_info(const mech_model *m, size_t i, int *frame, int *point,
                    const sym_node **mass, const sym_node **inertia);
const char *mech_frame_name(const mech_model *m, int frame);
/* res[9] (row-major): v_frame = res v_inertial; 0 on OOM. */
int mech_frame_rotation(mech_model *m, int frame, const sym_node **res);
/* The gravity vector's measure numbers in the inertial frame (zeros without
 * gravity); 0 on OOM. */
int mech_gravity_inertial(mech_model *m, const sym_node **res);

/* ---- outputs and the system's totals (mech_output.c) ---------------------------------
 * Outputs are named scalar expressions evaluated on the motion (a vector
 * output is stored as three scalars NAME_x, NAME_y, NAME_z). Besides what a
 * model expression holds, they may use the accelerations q'', the
 * multipliers (mech_multiplier_symbol: the same atoms as mech_eom.lam) and
 * the energies (mech_energy_symbol: substituted by e->T, e->V when
 * compiled). */
int mech_add_output(mech_model *m, const char *name, const sym_node *e, int line, int col);
size_t mech_noutputs(const mech_model *m);
const char *mech_output_name(const mech_model *m, size_t i);
void mech_output_pos(const mech_model *m, size_t i, int *line, int *col);
/* res[mech_noutputs]: the outputs with T and V replaced by e's and the
 * speeds (and their rates) by their values in q' (mech_speed_values):
 * expressions of t, q, q', q'', e's multipliers, parameters and inputs. */
struct mech_eom;
lg_status mech_outputs_in(mech_model *m, const struct mech_eom *e, const char *file,
                          const sym_node **res, lg_diag *diag);
/* lam<r+1>, the atom mech_derive_lagrange names the r-th multiplier. */
const sym_node *mech_multiplier_symbol(mech_model *m, size_t r);
/* The atom standing for T (which 'T') or V (which 'V') in an output. */
const sym_node *mech_energy_symbol(mech_model *m, char which);
/* The number of constraint rows written so far. */
size_t mech_nrows(const mech_model *m);
/* The particles' and bodies' total mass (0 without any). */
const sym_node *mech_total_mass(mech_model *m);
/* Linear momentum sum m_i v_i (v absolute, in the inertial frame). */
mech_vec mech_momentum(mech_model *m);
/* Angular momentum about point p: sum r_p->i x m_i v_i + each body's I w. */
mech_vec mech_angmom(mech_model *m, int point);
/* sum m_i r_i / total mass (from the origin); total must not be 0. */
mech_vec mech_mass_center(mech_model *m);

/* ---- numeric parameter values ------------------------------------------------------ */
/* name=value overrides (--set) for parameters and inputs */
typedef struct mech_setting {
  const char *name;
  double value;
} mech_setting;

const mech_setting *mech_find_setting(const mech_setting *set, size_t nset,
                                      const char *name);
/* val[np]: defaults in declaration order, then settings; NaN where a
 * parameter has no value. Errors when a default uses a valueless one. */
lg_status mech_resolve_params(mech_model *m, const mech_setting *set, size_t nset,
                              double *val, lg_diag *diag);
/* The defaults alone, NaN for a parameter without a value or whose value
 * uses one (no error; LG_ERR_NOMEM only). */
lg_status mech_default_params(mech_model *m, double *val);

/* ---- the equations (Lagrange's method) ------------------------------------------- */
typedef enum mech_row_kind { MECH_HOLONOMIC, MECH_NONHOLONOMIC } mech_row_kind;

typedef struct mech_eom {
  size_t n, m;                 /* coordinates, constraint rows */
  const sym_node **q, **qd, **qdd; /* n each */
  const sym_node **lam;        /* m multiplier symbols lam1..lamm */
  sym_matrix *M;               /* n x n */
  const sym_node **f;          /* n */
  sym_matrix *J;               /* m x n */
  const sym_node **gc;         /* m: J q'' = gc */
  const sym_node **C;          /* m: residual (position or velocity level) */
  mech_row_kind *kind;         /* m */
  int *row_line, *row_col;     /* m: where each row was written */
  const sym_node **p;          /* n: momenta dL/dq' */
  const sym_node *T, *V, *L;
  sym_matrix *mass_matrix;     /* n x (n+m) = [M, -J^T] */
  sym_matrix *mass_matrix_full;/* (2n+m) square */
  const sym_node **forcing_full; /* 2n+m: [q'; f; gc] */
  /* Equations derived without their dynamics (mech_derive_lagrange_with,
   * dense 0) have p, f, M, mass_matrix, mass_matrix_full and forcing_full
   * NULL until `dynamics` (set by their owner; NULL: none) fills them:
   * mech_eom_need_dynamics. */
  lg_status (*dynamics)(void *ud, lg_diag *d);
  void *dynamics_ud;
  /* A tree's equations from mech_eom_with_dynamics: q'' by the recursion
   * (n, as mech_tree_accel gives it), and T a quadratic form in q' (so
   * E = h); else NULL and 0. */
  const sym_node **tree_qdd;
  int quadratic_T;
  /* T is the link recursion's (mech_joints_energy: let-bound, for
   * evaluation); mech_eom_add_dynamics puts the expanded T back. */
  int T_joint;
} mech_eom;

/* e's dynamics (f, M, p and the full forms) there: LG_OK at once when they
 * are, else what e->dynamics makes of it (LG_ERR_MODEL when there is no
 * one to call). Called under whatever lock guards e's owner. */
lg_status mech_eom_need_dynamics(const mech_eom *e, lg_diag *d);

/* Derive the equations. Errors (a constraint with q'', a row nonlinear in
 * q', L together with T/V/bodies, an empty model) fill diag. */
lg_status mech_derive_lagrange(mech_model *m, const char *file, mech_eom **out,
                               lg_diag *diag);
/* The same; with dense 0 only the symbols, constraints (J, gc, C) and the
 * energies (T, V, L): p, f, M and the full forms stay NULL until
 * mech_eom_add_dynamics, which derives them into e (the n^2 derivatives
 * that dominate a large model's derivation; the tree recursion needs
 * none of them). */
lg_status mech_derive_lagrange_with(mech_model *m, const char *file, int dense,
                                    mech_eom **out, lg_diag *diag);
/* dense may carry this flag: T from the link recursion (mech_joints_of)
 * when the model is a tree of links, not from every body's world velocity
 * (whose rotations composed to the root grow with the depth). */
enum { MECH_DERIVE_JOINT_T = 2 };
lg_status mech_eom_add_dynamics(mech_model *m, const char *file, mech_eom *e,
                                lg_diag *diag);
/* s (mech_eom_simplified of e, made while e had no dynamics) given the
 * simplified dynamics of e, entries as mech_eom_simplified makes them.
 * 0 when out of memory (s unchanged). */
int mech_eom_simplify_dynamics(mech_model *m, const mech_eom *e, mech_eom *s,
                               size_t max_dag);
/* A new set of equations, every entry collected (sym_collect) and, when
 * its DAG has at most max_dag nodes, simplified first (readable output);
 * e is never changed (its symbols and rows are shared). NULL when out of
 * memory. */
mech_eom *mech_eom_simplified(mech_model *m, const mech_eom *e, size_t max_dag);

/* ---- an O(n) solve for kinematic trees (mech_tree.c) ---------------------------------
 * When nothing is constrained and each coordinate moves a set of the
 * particles and bodies as one rigid body, the sets nested or disjoint (a
 * kinematic tree in these coordinates, in absolute or relative angles):
 * q'' = M^-1 f as the articulated-body recursion over the forcing e->f,
 * a few hundred operations a coordinate besides f, instead of M and its
 * n^3 / 6 Cholesky solve. *qdd: n nodes (the model's arena). Otherwise
 * LG_ERR_MODEL, the reason in diag (file names it). */
lg_status mech_tree_accel(mech_model *m, const mech_eom *e, const char *file,
                          const sym_node ***qdd, lg_diag *diag);
/* The same, and for a tree whose kinematics are fixed in time (no
 * declared speeds) the mass matrix by composite rigid bodies (*M: n x n
 * row-major, symmetric) and the forcing f = tau - C by Newton-Euler at
 * q'' = 0 (*f: n), as expressions of O(n^2) and O(n) operations: the
 * dense equations' values without their n^2 derivatives. M or f NULL:
 * not wanted; when wanted and the kinematics move, LG_ERR_MODEL. */
lg_status mech_tree_dynamics(mech_model *m, const mech_eom *e, const char *file,
                             const sym_node ***qdd, const sym_node ***M,
                             const sym_node ***f, lg_diag *diag);
/* ---- the same tree in link coordinates (mech_joint.c) ------------------------------------
 * A model whose carriers form a tree of rigid links, each joined to its
 * parent by a transform of its own coordinates only (a robot, a URDF):
 * its structure, link velocities and kinetic energy (memoized in m; NULL
 * when the model is not such a tree: constraints, speeds, T or L written,
 * particles alone, kinematics moving with t or inputs), then q'' by the
 * articulated-body algorithm and (M, f not NULL) the mass matrix by
 * composite rigid bodies and f = tau - C by Newton-Euler, all of a fixed
 * cost per link. LG_ERR_MODEL: the recursion cannot be built (callers
 * use mech_tree.c's). */
typedef struct mech_joints mech_joints;
mech_joints *mech_joints_of(mech_model *m);
const sym_node *mech_joints_energy(mech_joints *J);
/* -sum m g . p over the links (0 without gravity): V's gravity part */
const sym_node *mech_joints_gravity_potential(mech_joints *J);
/* The links, parents first, for a numeric recursion over them (the
 * generated mass matrix): v_parent = R v_link with the origin moved by d
 * (parent axes), the joint's motion S (k rows of 6, per own q'), the
 * spatial inertia I (6 x 6 about the link's origin, (w, v) order). */
typedef struct mech_link_view {
  int parent;                     /* -1: the inertial frame */
  size_t k;
  const size_t *q;                /* k coordinate indices */
  const sym_node *const *R, *const *d, *const *S, *const *I; /* 9, 3, 6k, 36 */
  const sym_node *const *cJ;      /* 6: the joint's rate term sum dS/dq_i q_i' q' */
} mech_link_view;
size_t mech_joints_nlinks(const mech_joints *J);
void mech_joints_link(const mech_joints *J, size_t i, mech_link_view *v);
/* The base's acceleration (0, -g) (6) and each coordinate's generalized
 * force tau = Q - dV/dq (gravity apart: it is the base's acceleration). */
const sym_node *const *mech_joints_base_accel(const mech_joints *J);
const sym_node *mech_joints_tau(mech_model *m, size_t q);
/* The same kind of tree by its numbers alone (issue 26): a URDF read as
 * it is (lang_urdf.c) records its links here, so that the numeric layer
 * evaluates it (num_links.c) without reading the tree from expressions,
 * and a system need not derive anything before its first evaluation. It
 * describes exactly what the model's statements say: every coordinate is
 * one revolute or prismatic joint's, each generalized force is the
 * joint's input less its damping, gravity is g along -z of the base. */
typedef enum { MECH_NUM_FIXED, MECH_NUM_REVOLUTE, MECH_NUM_PRISMATIC } mech_num_joint;
typedef struct mech_num_link {
  int parent;            /* the parent link (an earlier index), -1: the fixed base */
  mech_num_joint type;
  size_t coord, input;   /* the joint's coordinate and its input's index (not fixed) */
  double R[9], d[3];     /* the joint frame in the parent link's (columns: its axes; origin) */
  double axis[3];        /* unit, in the joint frame (the link's frame is the joint frame
                            turned (revolute) or moved (prismatic) about it) */
  double damping;        /* the joint's force or torque is input - damping q' */
  double mass, com[3], I[6]; /* inertia about com in the link's frame: xx yy zz xy yz zx */
} mech_num_link;
typedef struct mech_num_tree {
  const mech_num_link *link;
  size_t n;
  size_t g;              /* gravity's parameter */
} mech_num_tree;
/* m keeps a copy (0: out of memory); NULL when none was set. */
int mech_set_num_tree(mech_model *m, const mech_num_link *link, size_t n, size_t g);
const mech_num_tree *mech_num_tree_of(const mech_model *m);
/* The model's potential energy besides gravity's (springs, V =): with
 * mech_joints_gravity_potential, V. */
const sym_node *mech_potential_besides_gravity(const mech_model *m);
/* Constraint rows (e->m) are taken when each binds the own coordinates of
 * one root link (a free joint's quaternion): q'' only (M and f NULL). */
lg_status mech_joints_dynamics(mech_model *m, mech_joints *J, const mech_eom *e,
                               const sym_node ***qdd, const sym_node ***M, const sym_node ***f);
/* A copy of e (symbols, rows, energies shared) whose dynamics are M and f
 * as given (n x n row-major, n): p = M q', the full forms assembled. For
 * a tree (mech_tree_dynamics), with no constraints. NULL: out of memory. */
mech_eom *mech_eom_with_dynamics(mech_model *m, const mech_eom *e, const sym_node *const *M,
                                 const sym_node *const *f, const sym_node **qdd);

/* ---- energy balance ------------------------------------------------------------------
 * E = T + V, or the energy function h = sum q_i' dL/dq_i' - L for a model
 * given as `L =` (mech_work.c). */
const sym_node *mech_energy(mech_model *m, const mech_eom *e);
/* What does work besides V (so that E - W, not E, is conserved): */
enum {
  MECH_WORK_DISSIPATION = 1, /* D = ... */
  MECH_WORK_FORCES = 2,      /* force, torque, force q: */
  MECH_WORK_MOVING = 4,      /* a constraint depends on t (or an input) */
  MECH_WORK_TIME = 8,        /* L depends on t (or an input) explicitly */
  MECH_WORK_NOT_H = 16,      /* E = T + V is not the energy function h (T not
                                quadratic in the q': moving kinematics) */
  MECH_WORK_AFFINE = 32      /* a velocity constraint J q' + b = 0 with b != 0
                                (x' = k*y): its force does power -lam.b */
};
unsigned mech_work_sources(mech_model *m, const mech_eom *e);

/* ---- linearization as expressions (mech_linearize.c) ------------------------------------ */
/* The numeric side of a symbolic linearization: M (n x n) and J (m x n)
 * at the operating point, which pick the pivots of every elimination (the
 * largest there), and the --set values (an input set to a value is that
 * constant in the constraints and in its derivatives). */
typedef struct mech_lin_guide {
  const double *M, *J;
  const mech_setting *set;
  size_t nset;
} mech_lin_guide;
/* A (nx x nx) and B (nx x inputs) of x' = A (x - x0) + B (r - r0), x =
 * [independent q; independent q'], as expressions of the operating point
 * (the coordinates, rates, inputs and t stand for their values there) and
 * the parameters, in the model's arena. dep_q/dep_v (n flags) say which
 * coordinates and rates are dependent. The entries are DAGs of size
 * polynomial in n + m, with q'' and lam shared nodes (print them with
 * mech_print_matrices, which names what is shared). LG_ERR_NUMERIC when
 * a block to solve is singular at the point. */
lg_status mech_linearize(mech_model *m, const mech_eom *e, const mech_lin_guide *g,
                         const int *dep_q, const int *dep_v, sym_matrix **A, sym_matrix **B);

/* ---- Kane's method --------------------------------------------------------------------
 * With speeds u (default u = q'), kinematics q' = k(q, u, t), velocity
 * constraints eliminating dependent speeds u_D = u_D(q, u_I, t), partial
 * velocities of the constrained velocities, generalized active and inertia
 * forces: M u_I' + C = F. */
typedef struct mech_kane {
  size_t n, p;                   /* coordinates; independent speeds */
  const sym_node **q, **qd;      /* n */
  const sym_node **u, **ud;      /* p: independent speeds and derivatives */
  size_t ndep;
  const sym_node **udep, **udep_expr; /* dependent speeds = expressions */
  const sym_node **kq;           /* n: q' in terms of q, u_I, t */
  sym_matrix *M;                 /* p x p */
  const sym_node **C;            /* p: velocity forces (-F* at u' = 0) */
  const sym_node **F;            /* p: generalized active forces */
  const sym_node **f;            /* p: forcing F - C */
  const sym_node **qdd;          /* n: q'' in terms of q, u_I, u_I' */
  const sym_node **speed_of_qd;  /* p: u_I in terms of q, q' (eval input) */
  sym_matrix *mass_matrix_full;  /* (n+p) square: blockdiag(M_k, M) */
  const sym_node **forcing_full; /* n+p: [-g_k; f] */
  int default_speeds;            /* u = q' */
  /* Every speed, for the numeric elimination (mech_kane_derive_all): */
  size_t nu;                     /* all speeds (= n) */
  const sym_node **uall, **udall;/* nu, declaration order */
  const sym_node **kq_all;       /* n: q' = k(q, u_all, t) */
  const sym_node **crow;         /* ndep: the velocity constraints in the speeds */
  struct mech_kane *all;         /* Kane's equations for all nu speeds, unconstrained */
  sym_matrix *A;                 /* ndep x nu: d crow / d u_all */
  const sym_node **g;            /* ndep: d/dt crow = A u_all' + g */
} mech_kane;

/* pivot_value (may be NULL) gives the values of atoms at a state (the
 * initial one): dependent speeds are chosen to stay solvable there and at
 * sample configurations around it (mech_kane_pivot.c), independently of
 * the order of the constraints, unless the model declares them. */
lg_status mech_derive_kane(mech_model *m, const char *file, sym_atom_value_fn pivot_value,
                           void *pivot_ud, mech_kane **out, lg_diag *diag);
/* Kane's equations simplified as mech_eom_simplified does (k unchanged). */
mech_kane *mech_kane_simplified(mech_model *m, const mech_kane *k, size_t max_dag);
/* With dependent speeds: fill k->all (M u_all' + C = F over every speed, as
 * if unconstrained), k->A and k->g, so that u_all' can be solved at each
 * state from [M A^T; A 0] [u'; lam] = [F - C; -g] without any symbolic
 * pivot (num_kane_system). A no-op without dependent speeds. */
lg_status mech_kane_derive_all(mech_model *m, mech_kane *k, lg_diag *diag);
/* Speeds and their derivatives in terms of q, q', t (from the kinematical
 * equations): from[i] -> to[i], n pairs (0 without speeds). */
lg_status mech_speed_values(mech_model *m, const char *file, const sym_node ***from,
                            const sym_node ***to, size_t *n, lg_diag *diag);
/* Kane's equations in Lagrange's shape, when u = q' and nothing is
 * constrained (so simulate and codegen can use them); NULL otherwise. */
mech_eom *mech_kane_as_eom(mech_model *m, const mech_eom *lag, const mech_kane *k);

/* ---- printing (mech_print.c) ------------------------------------------------------------ */
typedef enum mech_format { MECH_FMT_TEXT, MECH_FMT_LATEX, MECH_FMT_JSON } mech_format;

/* Whether the equations are small enough to simplify for reading, judged
 * by the context's size right after deriving (Lagrange's, or Kane's). */
int mech_print_wants_simplify(const sym_ctx *c, int kane);
/* The equations for reading: every entry of e and k (either may be NULL)
 * collected, in linear time, and expanded first when `expand` says so (take
 * it from mech_print_wants_simplify right after deriving, before the
 * context grows: the same system must print the same whatever was done
 * with it since). New equations in *pe and *pk (e and k themselves when
 * they are too big to collect); e and k are never changed. */
lg_status mech_print_simplified(mech_model *mm, const mech_eom *e, const mech_kane *k,
                                int expand_eom, int expand_kane, const mech_eom **pe,
                                const mech_kane **pk);
/* The equations (Kane's when k is not NULL, with T, V and momenta from e)
 * appended to out as `lagrange eom` prints them. */
lg_status mech_print(mech_model *mm, const mech_eom *e, const mech_kane *k, mech_format fmt,
                     lg_str *out);
/* k matrices named names[i], their shared subexpressions named as
 * mech_print names them (a `where` block after the matrices), appended to
 * out: `preface` first (after the LaTeX preamble), written as it is (for
 * JSON the object's opening and its other keys; the object is closed
 * here). */
lg_status mech_print_matrices(mech_model *mm, const char *preface, size_t k,
                              const char *const *names, const sym_matrix *const *mats,
                              mech_format fmt, lg_str *out);

#endif
