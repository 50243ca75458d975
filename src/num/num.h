/* num.h - the numerics layer: compiled evaluation of the equations at a
 * state, dense solves (LAPACK), and integration (SUNDIALS).
 *
 * A num_system is built once from derived equations (mech_eom): parameter
 * values are fixed, inputs are replaced by their laws (or constants), and
 * every quantity is lowered to one evaluation tape. It is immutable after
 * the build; evaluation writes into a caller-owned num_work.
 */
#ifndef LG_NUM_H
#define LG_NUM_H

#include "lg_base.h"
#include "mech.h"
#include "sym.h"

/* name=value overrides from --set (parameters or inputs) */
typedef mech_setting num_setting;

/* A frame oriented by Euler angles whose middle angle is a coordinate
 * (num_orient.c): to name its singularity when the mass matrix is. */
typedef struct num_euler {
  char frame[64], parent[64], seq[4];
  int space;                  /* space_fixed */
  int coord[3];               /* the angles' coordinates (-1: an expression) */
} num_euler;

typedef struct num_system {
  size_t n, m, np;
  const char **coord_names;   /* n */
  const char **param_names;   /* np */
  double *params;             /* np: resolved values */
  sym_tape *tape;             /* inputs: t, q, q', params; every output */
  sym_tape *dyn;              /* the same inputs; the ndyn outputs from o_M on */
  sym_tape *tree;             /* optional (num_system_add_tree): q'' itself */
  /* output layout: T, V, p, then M, f, J, gc, C, Cd (the dynamics) */
  size_t o_M, o_f, o_J, o_gc, o_C, o_Cd, ndyn, o_T, o_V, o_p, nout;
  int *row_holonomic;         /* m */
  num_euler *euler;           /* neuler: frames by Euler angles */
  size_t neuler;
  int borrowed;               /* 2: all but tree is another system's
                                 (num_system_with_tree) */
  struct num_links *links;    /* optional (num_system_build_links): q'' by the
                                 articulated-body algorithm on numbers */
} num_system;

/* Per-evaluation scratch and results (owned by the caller). */
typedef struct num_work {
  double *in, *out, *slots;   /* tape input, output, work */
  double *A, *b;              /* augmented system (n+m)^2 and n+m */
  int *ipiv;
  long broke_at;              /* after a singular solve: the unknown (coordinate
                                 i < n, or multiplier n + r) where it broke */
  lg_scratch scratch;         /* per-call scratch (projection): mark, use,
                                 release; kept, so a warm path allocates
                                 nothing */
} num_work;

/* Resolve parameter values (defaults in declaration order, then
 * settings), substitute inputs, and compile. Unknown setting names and
 * parameters without a value are LG_ERR_MODEL/LG_ERR_USAGE with diag. */
lg_status num_system_build(mech_model *mm, const mech_eom *e, const num_setting *set,
                           size_t nset, num_system **out, lg_diag *diag);
void num_system_free(num_system *s);
/* Only the recursion's tape (tree; no tape, no dyn, nout = 0) from a
 * tree's q'' (mech_tree_accel), for e without constraints: what a large
 * tree's lg_eval_accel evaluates (issue 26). LG_ERR_MODEL (diag) when a
 * parameter has no value or something has no numeric value. */
lg_status num_system_build_tree(mech_model *mm, const mech_eom *e, const sym_node *const *qdd,
                                const num_setting *set, size_t nset, num_system **out,
                                lg_diag *diag);
/* The same q'' without its expressions (issue 26, num_links.c): one small
 * tape for the links' data (mech_joints_link, mech_joints_base_accel,
 * mech_joints_tau: what is not a number), then the articulated-body
 * algorithm on numbers; num_evaluate_tree runs it. LG_ERR_MODEL when the
 * model is not a tree of links each coordinate one link's own (diag says
 * why when a parameter has no value). A tree given by its numbers
 * (mech_num_tree_of: a URDF) is built from them, no tape, no expression
 * (num_links_numbers.c); e may then be NULL (nothing derived yet: the
 * names are the model's coordinates'). */
lg_status num_system_build_links(mech_model *mm, const mech_eom *e, const num_setting *set,
                                 size_t nset, num_system **out, lg_diag *diag);
typedef struct num_links num_links;
lg_status num_links_build(mech_model *mm, const mech_eom *e, const num_setting *set,
                          size_t nset, const double *params, num_links **out, lg_diag *diag);
void num_links_free(num_links *L);
size_t num_links_nslots(const num_links *L);
/* q'' into qdd (n) from in = [t, q, q', p], slots num_links_nslots long;
 * 0 when some entry is not finite. */
int num_links_accel(const num_links *L, const double *in, double *slots, double *qdd);
/* Every other form eval reports for such a tree, on numbers from the same
 * data (issue 26; cg_emit_links.c's algorithms): M by composite rigid
 * bodies (n x n row-major), f = tau - C by Newton-Euler at q'' = 0, the
 * momenta p = M q' (each subtree's momentum), T = sum v.I v / 2, V =
 * gravity's over the links' world transforms + V besides gravity's. Each
 * pointer of o NULL: not wanted. num_links_eval evaluates the data once,
 * q'' (qdd not NULL; returns 0 when not finite, as num_links_accel), then
 * o's forms when num_links_has_forms (else they are left as they are). */
typedef struct num_links_forms {
  double *M, *f, *p, *T, *V;
} num_links_forms;
int num_links_eval(const num_links *L, const double *in, double *slots, double *qdd,
                   const num_links_forms *o);
int num_links_has_forms(const num_links *L);
/* For the energy balance of a simulation (num_aux.c): E = T + V (E not
 * NULL) and dE/dt = q' . (M q'' + C + G) with the given q'' (Ed not NULL:
 * an identity in q'', by Newton-Euler, not the recursion that solved for
 * q'') at in = [t, q, q', p]; 0 without forms. */
int num_links_energy(const num_links *L, const double *in, const double *qdd, double *slots,
                     double *E, double *Ed);
/* Does parameter i enter the data or V (what every form is computed from)? */
int num_links_uses_param(const num_links *L, size_t i);
/* A view of s that adds the recursion on numbers (num_links_build) or,
 * where that cannot be built, the tree tape (num_system_add_tree) and
 * owns only that: for a system others read while it is made (free it
 * before s). */
lg_status num_system_with_tree(mech_model *mm, const mech_eom *e, const num_setting *set,
                               size_t nset, const num_system *s, num_system **out);
/* The slots a num_work needs for every tape s has now. */
size_t num_system_nslots(const num_system *s);

/* For simulation: when the model is a kinematic tree (mech_tree_accel)
 * and that is shorter than M, f and the dense solve, s->tree computes q''
 * directly in O(n). Build before num_work_init; a no-op otherwise. */
lg_status num_system_add_tree(mech_model *mm, const mech_eom *e, const num_setting *set,
                              size_t nset, num_system *s);

lg_status num_work_init(const num_system *s, num_work *w);
void num_work_free(num_work *w);

/* Evaluate every tape output at (t, q, q'); results in w->out (see o_*). */
void num_evaluate(const num_system *s, num_work *w, double t, const double *q,
                  const double *qd);

/* q'' from s->tree into qdd (n); 0 when it is not finite (a singular
 * mass matrix: the dense solve then says where). */
int num_evaluate_tree(const num_system *s, num_work *w, double t, const double *q,
                      const double *qd, double *qdd);

/* Only what the right-hand side needs (M, f, J, gc, C, Cd): the tape of
 * every right-hand-side call. */
void num_evaluate_dynamics(const num_system *s, num_work *w, double t, const double *q,
                           const double *qd);

/* Solve [[M, -J^T], [J, 0]] [qdd; lam] = [f; gc] after num_evaluate.
 * LG_ERR_NUMERIC when singular (diag names the coordinate or multiplier
 * where elimination broke down). */
lg_status num_solve_accel(const num_system *s, num_work *w, double *qdd, double *lam,
                          lg_diag *diag);

/* ---- orientation singularities (num_orient.c) -------------------------------------- */
/* Record the frames oriented by Euler angles (called by num_system_build). */
lg_status num_system_add_orientations(mech_model *mm, const mech_eom *e, num_system *s);
/* After a singular mass matrix at q: when a frame's Euler angles are at
 * their singularity there (gimbal lock), say so in diag (the frame, the
 * sequence, the angle, another sequence to use) and return 1; else 0 and
 * diag is unchanged. */
int num_orientation_singular(const num_system *s, const double *q, lg_diag *diag);
/* The same, naming the matrix `what` ("Kane's mass matrix"; NULL: M or the
 * augmented matrix as s has constraints); s NULL: 0. */
int num_orientation_singular_as(const num_system *s, const double *q, const char *what,
                                lg_diag *diag);

/* ---- the forms `eval` reports (num_forms.c), after num_evaluate ------------------------ */
/* res = J^T lam (n): the constraint forces */
void num_constraint_forces(const num_system *s, const num_work *w, const double *lam,
                           double *res);
/* res = [M, -J^T] (n x (n+m), row-major) */
void num_mass_matrix(const num_system *s, const num_work *w, double *res);
/* res = [[I, 0, 0], [0, M, -J^T], [0, J, 0]] ((2n+m)^2, row-major) */
void num_mass_matrix_full(const num_system *s, const num_work *w, double *res);
/* res = [q'; f; gc] (2n+m) */
void num_forcing_full(const num_system *s, const num_work *w, const double *qd,
                      double *res);
/* Reciprocal condition number of [[M, -J^T], [J, 0]] after num_evaluate*
 * (0 when singular); *where is the unknown with the smallest pivot
 * (coordinate i < n, multiplier n + r), *pivot its magnitude, *norm the
 * matrix's 1-norm. */
double num_accel_rcond(const num_system *s, num_work *w, long *where, double *pivot,
                       double *norm);

/* ---- constraint manifold ---------------------------------------------------------- */
/* Residuals at (t, q, q'): C (position level for holonomic rows, velocity
 * level for nonholonomic rows) and Cd (velocity level for every row). */
void num_residuals(const num_system *s, num_work *w, double t, const double *q,
                   const double *qd, double *C, double *Cd);
/* Move q onto C(q, t) = 0 by Gauss-Newton steps of least change
 * (dq = -J^T (J J^T)^-1 C over the holonomic rows), then q' onto
 * J q' + b = 0 in one exact step. LG_ERR_NUMERIC when it does not
 * converge or J J^T is singular. */
lg_status num_project(const num_system *s, num_work *w, double t, double *q, double *qd,
                      double tol, lg_diag *diag);

/* The initial-state test of simulate: C, Cd (m each) as num_residuals;
 * bad[r] (m) gets bit 1 when holonomic row r is off by more than tol at
 * the position level, bit 2 at the velocity level. Returns how many rows
 * are bad. */
size_t num_check_consistent(const num_system *s, num_work *w, double t, const double *q,
                            const double *qd, double tol, double *C, double *Cd, int *bad);
/* ---- energy balance and events (num_aux.c) ------------------------------------------
 * Small tapes over the simulation state [t, q, v, params, v'] (v = q', or
 * Kane's independent speeds): the energy E (T + V, or h for `L =`), its
 * rate W' = dE/dt along the motion (the power of everything not in V),
 * and the --stop-when function g. Immutable after the build. */
typedef struct num_aux {
  size_t n, nv, np;    /* coordinates; velocities (q' or speeds); parameters */
  double *params;      /* np */
  sym_tape *power;     /* -> [E, W'] (NULL with links) */
  struct num_links *links; /* else E and W' from these (a URDF robot: num_links_energy) */
  sym_tape *event;     /* -> [g] over [t, q, v, params]; NULL without one */
  unsigned sources;    /* MECH_WORK_* */
  int work;            /* integrate W (a source is present; else W = 0) */
} num_aux;

typedef struct num_aux_work { double *in, *slots; } num_aux_work;

/* k NULL: Lagrange's state [q; q']; else Kane's [q; u] (q' = k->kq).
 * stop (may be NULL): an expression of t, q, q', parameters and inputs. */
lg_status num_aux_build(mech_model *mm, const mech_eom *e, const mech_kane *k,
                        const num_setting *set, size_t nset, const sym_node *stop,
                        num_aux **out, lg_diag *diag);
void num_aux_free(num_aux *a);
lg_status num_aux_work_init(const num_aux *a, num_aux_work *w);
void num_aux_work_free(num_aux_work *w);
/* E and W' at (t, q, v) with accelerations vd (NULL: zeros; E needs none). */
void num_aux_power(const num_aux *a, num_aux_work *w, double t, const double *q,
                   const double *v, const double *vd, double *E, double *Wd);
double num_aux_event(const num_aux *a, num_aux_work *w, double t, const double *q,
                     const double *v);
/* "conservative: W = 0" or "work by dissipation D, ..." */
void num_aux_describe(const num_aux *a, char *buf, size_t size);

/* ---- events (num_events.c) -----------------------------------------------------------
 * The model's `when` statements compiled over Lagrange's state [t, q, q',
 * params] (Kane's method without speeds of its own has the same state):
 * one tape of the guards g_i (A - B) and one of every reset value, in
 * statement order. Immutable after the build; params are the caller's. */
typedef struct num_event_def {
  const sym_node *g;
  int dir;                          /* -1: fires on a downward crossing, +1 upward */
  int stop;
  size_t nset;
  const int *target;                /* coordinate indices */
  const unsigned char *rate;        /* 1: assigns q'[target], 0: q[target] */
  const sym_node *const *value;
  int line, col;                    /* the `when` statement (diagnostics) */
} num_event_def;

typedef struct num_events {
  size_t nev, n, np, nval;
  int *dir, *stop;
  size_t *off;                      /* nev + 1: event i's values are off[i]..off[i+1) */
  int *target;                      /* nval: index into [q; q'] (rate: n + coordinate) */
  int *where;                       /* 2 nev: each `when`'s line, col */
  const double *params;             /* np (set by the caller before a run) */
  sym_tape *guard, *reset;
} num_events;

lg_status num_events_build(mech_model *mm, const mech_eom *e, const num_event_def *defs,
                           size_t nev, const num_setting *set, size_t nset, num_events **out,
                           lg_diag *diag);
void num_events_free(num_events *ev);
/* Scratch doubles the evaluations need. */
size_t num_events_work_size(const num_events *ev);
/* g[nev] at (t, q, qd). */
void num_events_guards(const num_events *ev, double *work, double t, const double *q,
                       const double *qd, double *g);
/* Event i's assignments to (q, qd), their values taken at the state
 * before (all of them before any is made). */
void num_events_apply(const num_events *ev, double *work, size_t i, double t, double *q,
                      double *qd);
/* The events that fired at t (fired[nev] nonzero) as one group: 1 when
 * one of them is `stop` (nothing changes), else each one's assignments in
 * statement order, and 0. */
int num_events_fire(const num_events *ev, double *work, const int *fired, double t,
                    double *q, double *qd);
/* Rates after a reset onto J q' + b = 0 in the mass-matrix metric (the
 * constraints' impulsive response): q' += M^-1 J^T mu with J q' + b = 0.
 * LG_ERR_NUMERIC when the augmented matrix is singular. */
lg_status num_events_project_rates(const num_system *s, num_work *w, double t,
                                   const double *q, double *qd);
/* (q, q') after the resets of the events that fired (num_events_fire's
 * fired) made consistent with s's constraints (num_events_reset.c): when a
 * fired reset assigned a coordinate and a holonomic row is then off by more
 * than 1e-9, the positions are moved back onto C = 0 by Gauss-Newton in the
 * mass-matrix metric if project is nonzero, else LG_ERR_MODEL at that
 * event's line:col (no file) naming the row; residuals below 1e-9 are
 * projected silently. Then the rates (num_events_project_rates). */
/* An event within this of an output time t takes that row's place (the
 * pair of rows at the event instead of the plain row): min(rtol, 1e-9) *
 * (|t| + dt), the event time's own accuracy at tight tolerances. */
double num_events_grid_tol(double rtol, double t, double dt);
lg_status num_events_consistent(const num_system *s, num_work *w, const num_events *ev,
                                const int *fired, double t, double *q, double *qd,
                                int project, lg_diag *diag);

/* ---- friction on coordinates (num_friction.c) -----------------------------------------
 * `friction x: F [static Fs]`: Coulomb friction with modes (slip +, slip -,
 * stick) switched by events. The levels are one tape over [t, q, q',
 * params] -> F_0, Fs_0, F_1, ...; immutable after the build (params the
 * caller's). A run's modes live in a num_friction_run. */
typedef struct num_friction_def { int coord; const sym_node *F, *Fs; } num_friction_def;
typedef struct num_friction {
  size_t nf, n, np;
  int *coord;                       /* nf */
  const double *params;             /* np (set by the caller before a run) */
  sym_tape *level;
} num_friction;
typedef struct num_friction_run num_friction_run;

lg_status num_friction_build(mech_model *mm, const mech_eom *e, const num_friction_def *defs,
                             size_t nf, const num_setting *set, size_t nset,
                             num_friction **out, lg_diag *diag);
void num_friction_free(num_friction *fr);
/* LG_ERR_MODEL when at (t, q, q') element *bad has F < 0 (*static_low 0)
 * or Fs < F (*static_low 1). */
lg_status num_friction_check(const num_friction *fr, double t, const double *q,
                             const double *qd, size_t *bad, int *static_low);
num_friction_run *num_friction_run_new(const num_friction *fr, const num_system *s);
void num_friction_run_free(num_friction_run *r);
/* The modes at the start: slipping by the sign of q'_i; at rest, sticking
 * when the holding force is within Fs, else slipping against it. */
void num_friction_start(num_friction_run *r, num_work *w, double t, const double *q,
                        double *qd);
/* q'' and lam with friction, after num_evaluate_dynamics (w->out). */
lg_status num_friction_accel(num_friction_run *r, num_work *w, double t, const double *q,
                             const double *qd, double *qdd, double *lam);
/* The 2 nf guards (each fires on a downward crossing). */
void num_friction_guards(num_friction_run *r, num_work *w, double t, const double *q,
                         const double *qd, double *g);
/* The elements whose guards fired (fired[2 nf]) change mode (q' of a
 * coordinate that comes to rest set to 0); returns how many changed. */
int num_friction_switch(num_friction_run *r, num_work *w, const int *fired, double t,
                        const double *q, double *qd);
int num_friction_mode(const num_friction_run *r, size_t j);

/* ---- contacts with planes (num_contact.c) -----------------------------------------------
 * `contact P plane O n restitution e`: g >= 0, impacts by Newton's law,
 * persistent contact with the normal force as a multiplier, lift-off; one
 * tape over [t, q, q', params] of each contact's g, g', -g''(q''=0), e,
 * mu and dg/dq. Immutable after the build (params the caller's). */
/* vt: the tangential velocity with friction (NULL: none); vt2 its second
 * component in 3D (NULL: planar, one tangent) */
typedef struct num_contact_def { const sym_node *g, *e, *mu, *vt, *vt2; } num_contact_def;
typedef struct num_contact {
  size_t K, n, np;
  unsigned char *fric;  /* K: friction's tangents: 0 none, 1 planar, 2 in 3D */
  const double *params;
  sym_tape *tape;
} num_contact;
typedef struct num_contact_run num_contact_run;

lg_status num_contact_build(mech_model *mm, const mech_eom *e, const num_contact_def *defs,
                            size_t K, const num_setting *set, size_t nset, num_contact **out,
                            lg_diag *diag);
void num_contact_free(num_contact *ct);
/* LG_ERR_MODEL when contact *below starts below its plane. */
lg_status num_contact_check(const num_contact *ct, double t, const double *q,
                            const double *qd, double atol, size_t *below);
num_contact_run *num_contact_run_new(const num_contact *ct, const num_system *s, double atol);
void num_contact_run_free(num_contact_run *r);
/* Closes the contacts that start on their plane at rest, pressed. */
void num_contact_start(num_contact_run *r, num_work *w, double t, const double *q,
                       double *qd);
/* q'' and lam with the closed contacts' rows, after num_evaluate_dynamics. */
lg_status num_contact_accel(num_contact_run *r, num_work *w, double t, const double *q,
                            const double *qd, double *qdd, double *lam);
/* 3 K guards, each firing on a downward crossing: g open, fn closed;
 * then friction's two in closed contact (s vt slipping, mu fn -+ ft
 * sticking; 1 otherwise). */
void num_contact_guards(num_contact_run *r, num_work *w, double t, const double *q,
                        const double *qd, double *g);
/* The fired contacts (fired[3 K]) switch: impacts (q' changed), closings,
 * lift-offs (counted); h is the integrator's last step (a rebound's flight
 * shorter than a few closes the contact); returns how many fired. */
int num_contact_switch(num_contact_run *r, num_work *w, const int *fired, double t,
                       double h, const double *q, double *qd, long *impacts, long *liftoffs,
                       long *slips);
/* The CSV's contact columns at the state: each contact's fn, and ft with
 * friction (0 where open); num_contact_ncolumns of them. */
void num_contact_forces(num_contact_run *r, num_work *w, double t, const double *q,
                        const double *qd, double *out);
size_t num_contact_ncolumns(const num_contact *ct);
/* Friction (`friction x:`) and contacts in one model: one solve, the
 * contacts' (num_contact_accel, which num_friction_accel then calls);
 * friction's rows after the contacts'. Links both runs. */
lg_status num_contact_with_friction(num_contact_run *r, num_friction_run *fr);
void num_friction_set_contact(num_friction_run *r, num_contact_run *ct);
size_t num_friction_count(const num_friction_run *r);
size_t num_friction_nstick(const num_friction_run *r);
/* friction's sticking rows into A (N x N, row-major) from row `at`, and
 * its slipping forces into b[0..n) (b's rows from `at` set to 0) */
void num_friction_fill(num_friction_run *r, double t, const double *q, const double *qd,
                       double *A, size_t N, double *b, size_t at);
/* the sticking forces from the solution (rows from `at`), q'' 0 there */
void num_friction_take(num_friction_run *r, const double *sol, size_t at, double *qdd);
/* After the contacts switched (an impact moves q', a closing or lift-off
 * changes the holding force): slipping along a q' an impact gave, or
 * breaking loose where the hold now exceeds Fs; returns how many changed. */
int num_friction_recheck(num_friction_run *r, num_work *w, double t, const double *q,
                         double *qd);

/* ---- outputs (num_outputs.c) ----------------------------------------------------------
 * The model's outputs (mech_noutputs, in order) as one tape over
 * [t, q (n), q' (n), params (np), q'' (n), lam (m)] (n, m: e's), with T and
 * V replaced by e's, speeds by their values in q' (mech_speed_values) and
 * inputs by their laws or settings. The caller solves q'' and lam at the
 * state. Immutable after the build. */
typedef struct num_outputs {
  size_t n, m, np, nout, nin;
  sym_tape *tape;          /* NULL when nout is 0 */
} num_outputs;

/* file names the model in diagnostics (an output that cannot be evaluated:
 * its line:col). */
lg_status num_outputs_build(mech_model *mm, const mech_eom *e, const char *file,
                            const num_setting *set, size_t nset, num_outputs **out,
                            lg_diag *diag);
void num_outputs_free(num_outputs *o);
/* Scratch doubles num_outputs_eval needs (slots). */
size_t num_outputs_work_size(const num_outputs *o);
/* res[nout] from in[nin] (the layout above); work: num_outputs_work_size. */
void num_outputs_eval(const num_outputs *o, const double *in, double *res, double *work);

/* ---- the geometry (num_scene.c) -------------------------------------------------------
 * Every point's position and every body's orientation in the inertial
 * frame at (t, q), from one tape over [t, q, params]. Outputs: 3 per point
 * (x, y, z in the inertial frame), from o_rot 9 per body (R, row-major:
 * v_body = R v_inertial), from o_gravity the gravity vector (3), from
 * o_mass 7 per body (mass, Ixx Iyy Izz Ixy Iyz Izx), from o_extra 9 per
 * extra frame (its R as the bodies'; frame -1: the identity), then the
 * extra scalars (NULL: 0) in the order given. Immutable. */
typedef struct num_scene {
  size_t n, np, npoints, nbodies, nin, nout;
  size_t o_rot, o_gravity, o_mass, o_extra;
  double *params;
  sym_tape *tape;
} num_scene;

/* What the scene shows besides points and bodies (the shapes of `draw`):
 * frames' rotations and scalars over [t, q, params]. */
typedef struct num_scene_extra {
  size_t nframes, nscalars;
  const int *frames;
  const sym_node *const *scalars;
} num_scene_extra;

/* extra may be NULL (none). */
lg_status num_scene_build(mech_model *mm, const num_setting *set, size_t nset,
                          const num_scene_extra *extra, num_scene **out, lg_diag *diag);
void num_scene_free(num_scene *sc);
/* Scratch for num_scene_eval (lg_free it); NULL on OOM. */
double *num_scene_work(const num_scene *sc);
/* res[nout] at (t, q). */
void num_scene_eval(const num_scene *sc, double *work, double t, const double *q,
                    double *res);

/* ---- integration ------------------------------------------------------------------- */
typedef enum num_integrator {
  NUM_INT_ERK,      /* explicit Runge-Kutta, the table chosen by the tolerance */
  NUM_INT_DOPRI,    /* Dormand-Prince 5(4) */
  NUM_INT_VERNER,   /* Verner 6(5) */
  NUM_INT_FEHLBERG, /* Fehlberg 8(7) */
  NUM_INT_BDF,      /* CVODE BDF, projection inside the step */
  NUM_INT_IDA,      /* IDA on the index-2 GGL form */
  NUM_INT_ADAMS,    /* CVODE Adams-Moulton (orders 1-12), fixed-point iteration */
  NUM_INT_ODE       /* the default for an ODE: ADAMS or DOPRI by the tolerance */
} num_integrator;
typedef enum num_stabilize { NUM_STAB_PROJECT, NUM_STAB_BAUMGARTE, NUM_STAB_NONE } num_stabilize;

typedef struct num_lin num_lin; /* the linearization tape (below) */

/* x' = F(t, x, u, p) compiled: 0, or nonzero when the mass matrix is singular */
typedef int (*num_rhs_fn)(double t, const double *x, const double *u, const double *p,
                          double *xdot);

typedef struct num_sim_opts {
  double t0, tf, dt, rtol, atol;
  num_integrator integrator;
  num_stabilize stabilize;
  double alpha, beta;   /* Baumgarte: C'' + 2 alpha C' + beta^2 C = 0 */
  /* Optional compiled right-hand side (lagrange simulate --jit): used
   * instead of the tape when set; params are the system's values. */
  num_rhs_fn jit_rhs;
  /* Optional, while jit_rhs is NULL: asked every few hundred right-hand
   * sides for a compiled one being built in the background; returns it
   * once it is ready (the run switches to it), else NULL. */
  num_rhs_fn (*jit_poll)(void *ud);
  void *jit_ud;
  const num_aux *aux;   /* E, W and the stop event (NULL: E = T + V, W = 0) */
  /* Optional: CVODE BDF's Newton matrix from the exact Jacobian
   * [[0, I], [dq''/dq, dq''/dq']] (forward AD, num_lin_accel_jacobian)
   * instead of difference quotients; Lagrange's state, no Baumgarte. */
  const num_lin *jac;
  /* The run stops (LG_ERR_NUMERIC) when reaching tf at the current step
   * size would take more than this many more steps (0: 2e7). */
  double max_steps;
  /* Kane's state [q; u] only (num_simulate_kane): moves (q, u) back onto
   * the configuration constraints after a step, returning 1 when it moved
   * them (NULL: never). Used by the explicit Runge-Kutta integrators, which
   * the default then picks over Adams, as for Lagrange's projection. */
  int (*kane_project)(void *ud, double t, double *q, double *u);
  void *kane_project_ud;
  /* The model's events (NULL: none); their guards and resets are over
   * [t, q, q'] (Kane's q' = k(q, u)). */
  const num_events *events;
  /* `friction` on coordinates (NULL: none); Lagrange's state only. */
  const num_friction *friction;
  /* `contact` statements (NULL: none); Lagrange's state only. */
  const num_contact *contact;
  int events_project;   /* num_events_consistent's project */
  /* Kane's state only, needed with events: after an event's resets of
   * (q, q'), makes them consistent (Lagrange's constraints) and sets the
   * speeds u from q' (the kinematical equations); fired as
   * num_events_fire's. An error ends the run with diag. */
  lg_status (*kane_reset)(void *ud, const int *fired, double t, double *q, double *qd,
                          double *u, lg_diag *diag);
  void *kane_reset_ud;
} num_sim_opts;

/* The ERK table NUM_INT_ERK picks at a tolerance (DOPRI, VERNER or FEHLBERG). */
num_integrator num_erk_for_tolerance(double rtol);
/* What NUM_INT_ODE and NUM_INT_ERK resolve to at a tolerance, for a run
 * that projects onto constraints or not, whose right-hand side costs
 * `cost` tape instructions (other integrators: themselves). Adams never
 * projects (CVODE projects inside BDF steps only). */
num_integrator num_resolve_integrator(num_integrator i, double rtol, int projects, size_t cost);
/* The factor on rtol and atol the resolved integrator runs at (the
 * default's Adams: 1/100, so that its error matches the asked tolerance). */
double num_tolerance_scale(num_integrator asked, num_integrator resolved);
/* The tolerance IDA runs at for an asked one (tighter: see num_loop.c). */
double num_ida_tolerance(double tol);
/* Human name: "Dormand-Prince 5(4)", "IDA", ... */
const char *num_integrator_name(num_integrator i);

typedef struct num_sim_stats {
  long steps, rhs_evals;
  double t_end;              /* where the run stopped */
  double max_energy_drift;   /* max |(E - W) - (E0 - W0)| */
  double energy_scale;       /* max of |T| + |V|, |E|, |W| (for a relative drift) */
  double max_residual;       /* max |C| and |C'| over the output points */
  int stopped;               /* the stop event ended the run at t_end */
  num_integrator integrator; /* what ran (NUM_INT_ERK and _ODE resolved) */
  /* on failure: the constraint row (>= 0) or coordinate (>= 0) most
   * likely at fault, else -1 */
  int fail_row, fail_coord;
  int jit;                   /* compiled code ran, from about t = jit_t */
  double jit_t;
  long events;               /* event groups that fired (resets and stop) */
  double event_work;         /* energy the resets changed (in W) */
  long friction_switches;    /* friction mode changes (stick, slip) among the events */
  long impacts, liftoffs;    /* contact events */
} num_sim_stats;

/* One output point. */
typedef struct num_sim_point {
  double t;
  const double *q, *qd;   /* n */
  double T, V, E, W;
  const double *C;        /* m */
  const double *fn;       /* the contacts' normal forces (NULL: none) */
} num_sim_point;

/* Called at t0, at each output time and at the stop event; nonzero stops
 * the run. */
typedef int (*num_sim_output)(void *ud, const num_sim_point *p);

/* Integrate from (q, qd) at o->t0 to o->tf. q and qd are updated to the
 * last state reached. On failure (singular mass matrix, non-finite state,
 * step size collapse) returns LG_ERR_NUMERIC with the time, the
 * integrator, the likely cause and what to try in diag; every output
 * before that has been delivered. */
lg_status num_simulate(const num_system *s, const num_sim_opts *o, double *q, double *qd,
                       num_sim_output out, void *ud, num_sim_stats *stats, lg_diag *diag);

/* A tape of o[0..no) (the model's inputs already substituted) over
 * [t, q, q', parameters]; an atom without a value is LG_ERR_MODEL, "WHAT
 * uses 'x', which has no numeric value" (num_state_tape.c). */
lg_status num_state_tape(mech_model *mm, const mech_eom *e, const sym_node *const *o, size_t no,
                         const char *what, sym_tape **out, lg_diag *diag);
/* Its input vector at (t, q, q'): 1 + 2n + np doubles. */
void num_state_load(double *in, size_t n, const double *params, size_t np, double t,
                    const double *q, const double *qd);
/* Replace inputs u, u', u'' in o[0..n) by their laws or --set constants. */
lg_status num_substitute_inputs(mech_model *mm, const num_setting *set, size_t nset,
                                const sym_node **o, size_t n);

/* ---- Kane's method at one state ------------------------------------------------------ */
typedef struct num_kane_result {
  size_t n, p;
  double *u, *ud;             /* p: independent speeds and their derivatives */
  double *qd, *qdd;           /* n */
  double *M, *f;              /* p*p, p */
  double *Mfull, *ffull;      /* (n+p)^2, n+p */
  size_t ndep;
  double *udep;               /* ndep: the dependent speeds (mech_kane udep order) */
} num_kane_result;

void num_kane_result_free(num_kane_result *r);

/* Kane's equations at a state: the tape built once (immutable afterwards),
 * then run at any number of states (t, q) with the independent speeds u
 * (when have_u) or, else, speeds computed from qd through the kinematical
 * equations, solving M u' = f (LAPACK), with the parameter values given
 * per run (np values, declaration order). Arrays allocated in *r (free
 * with num_kane_result_free). */
typedef struct num_kane_evaluator num_kane_evaluator;
lg_status num_kane_evaluator_build(mech_model *mm, const mech_kane *k,
                                   const num_setting *set, size_t nset,
                                   num_kane_evaluator **out, lg_diag *diag);
lg_status num_kane_evaluator_run(const num_kane_evaluator *ev, const double *params,
                                 double t, const double *q, const double *qd,
                                 const double *u, int have_u, num_kane_result *r,
                                 lg_diag *diag);
void num_kane_evaluator_free(num_kane_evaluator *ev);
/* Name an Euler-angle singularity when Kane's mass matrix is singular,
 * from s's frames (borrowed: must outlive ev; same coordinates). */
void num_kane_evaluator_orient(num_kane_evaluator *ev, const num_system *s);

/* ---- Kane's method over time: x = [q; u] ---------------------------------------------- */
typedef struct num_kane_system {
  size_t n, p, m, np, nin;      /* coordinates, speeds, constraint rows, params, inputs */
  double *params;
  sym_tape *dyn;                /* outputs: q' (n), M (p*p), f (p), A (mc*p), g (mc) */
  sym_tape *all;                /* outputs: q' (n), T, V, C (m) */
  size_t mc;                    /* velocity constraints solved with the speeds (0: none) */
  size_t o_kq, o_T, o_V, o_C;   /* offsets in the outputs of `all` */
  size_t o_kkt;                 /* the [M A^T; A 0] system in the work array */
  size_t o_out;                 /* where the outputs start in the work array */
  size_t nwork;                 /* doubles of work */
  const num_system *orient;     /* optional, borrowed: names an Euler-angle
                                   singularity when M is singular */
} num_kane_system;

/* The state x = [q; u] of num_kane_system: u has p speeds, the independent
 * ones without dependent speeds, else every speed (num_kane_initial_speeds
 * fills them from an evaluation at the initial state). */
lg_status num_kane_system_build(mech_model *mm, const mech_kane *k, const mech_eom *lag,
                                const num_setting *set, size_t nset, num_kane_system **out,
                                lg_diag *diag);
void num_kane_system_free(num_kane_system *k);
void num_kane_initial_speeds(const mech_kane *k, const num_kane_result *r, double *u);
/* Work for num_kane_rhs/observe (free with lg_free). */
double *num_kane_scratch(const num_kane_system *k);
/* dx = [q'; u'] at x = [q; u] (LG_ERR_NUMERIC when M is singular). */
lg_status num_kane_rhs(const num_kane_system *k, double *work, double t, const double *x,
                       double *dx, lg_diag *diag);
/* Every output at x; read them at work + o_out (offsets o_kq, o_T, ...). */
void num_kane_observe(const num_kane_system *k, double *work, double t, const double *x);
lg_status num_simulate_kane(const num_kane_system *k, const num_sim_opts *o, double *q,
                            double *u, num_sim_output out, void *ud, num_sim_stats *stats,
                            lg_diag *diag);

/* ---- linearization (num_linearize.c) --------------------------------------------------
 * x' = A (x - x0) + B (r - r0) about a consistent operating point, with
 * x = [independent coordinates; independent rates] and r the inputs. */
typedef struct num_lin {
  const num_system *s;        /* borrowed: must outlive this */
  size_t n, m, nr, nin;
  sym_tape *tape;             /* inputs: t, q, q', q'', lam, r, params */
  size_t o_Phi, o_Cd, o_r0, nout;  /* Phi = [M q'' - J^T lam - f; J q'' - gc] */
} num_lin;

lg_status num_lin_build(mech_model *mm, const mech_eom *e, const num_system *s,
                        const num_setting *set, size_t nset, num_lin **out, lg_diag *diag);
void num_lin_free(num_lin *L);

/* An operating point and its split into independent and dependent
 * variables. The caller sets t, q, qd (n each), indep_q/indep_v (1 where
 * the user names a coordinate/rate independent, else 0); the library sets
 * dep_q/dep_v (1 = dependent), nqi, nui and completes q, qd onto the
 * constraints (Newton over the dependent coordinates, then the rates). */
typedef struct num_lin_point {
  double t, *q, *qd;
  const int *indep_q, *indep_v;
  int *dep_q, *dep_v;
  size_t nqi, nui;
} num_lin_point;

lg_status num_lin_operating_point(const num_lin *L, num_work *w, num_lin_point *pt,
                                  lg_diag *diag);

/* Caller-allocated: A (nx*nx), B (nx*nr), x0 (nx), r0 (nr), row-major,
 * nx = nqi + nui. */
typedef struct num_lin_result {
  size_t nx, nr;
  double *A, *B, *x0, *r0;
  /* optional (NULL: not wanted): dq = Pq dq_i (n x nqi), dq' = Q dq_i +
   * Vu dv_i (n x nqi, n x nui); G = dq''/d[q, q', r] (n x (2n + nr)) and
   * q'' (n) at the point */
  double *Pq, *Q, *Vu, *G, *qdd;
} num_lin_result;

lg_status num_linearize(const num_lin *L, num_work *w, const num_lin_point *pt,
                        num_lin_result *res, lg_diag *diag);
/* G = d q''/d [q, q', r] at (t, q, q') (n x (2n + nr), row-major), exact:
 * the implicit derivative of the augmented equations. */
lg_status num_lin_accel_jacobian(const num_lin *L, num_work *w, double t, const double *q,
                                 const double *qd, double *G, lg_diag *diag);
/* The result in Kane's variables x = [q_i; u], u = u_of(t, q, q') (p
 * independent speeds); res must hold Pq, Q, Vu, G and qdd from
 * num_linearize. */
lg_status num_lin_to_speeds(const num_lin *L, mech_model *mm, const num_setting *set,
                            size_t nset, const sym_node *const *u_of, size_t p,
                            const num_lin_point *pt, num_lin_result *res, lg_diag *diag);
/* The derivatives of Phi = [M q'' - J^T lam - f; J q'' - gc] (dphi: (n+m)
 * x K) and of the velocity forms Cd (dcd: m x K) along [q, q', r] (K = 2n
 * + nr), at (t, q, q', q'', lam) as given (not solved), by forward AD; the
 * inputs at their laws' values. Either output may be NULL. */
lg_status num_lin_phi_jacobian(const num_lin *L, double t, const double *q, const double *qd,
                               const double *qdd, const double *lam, double *dphi,
                               double *dcd);
/* Doubles of scratch num_linearize uses internally (for sizing). */
size_t num_lin_work_size(const num_lin *L);
/* Linearize at (t, q, q') with the dependent variables chosen by pivoting
 * and return the eigenvalues of A (re, im: 2n room; *nx of them). */
lg_status num_lin_eigenvalues(const num_lin *L, num_work *w, double t, double *q, double *qd,
                              double *re, double *im, size_t *nx, lg_diag *diag);
/* Eigenvalues of the n x n row-major matrix A (LAPACK dgeev). */
lg_status num_eigenvalues(const double *A, size_t n, double *re, double *im);
/* The same with the right eigenvectors in vr (n x n, row-major, LAPACK's
 * layout: for a complex pair j, j+1 the columns j and j+1 hold the real
 * and imaginary parts of the vector of eigenvalue j). */
lg_status num_eigen(const double *A, size_t n, double *re, double *im, double *vr);

/* ---- static equilibria (num_equilibria.c) --------------------------------------------- */
/* FREE: appears nowhere but through its rate (cyclic); ANGLE: only inside
 * sin/cos/tan; PLAIN: anything else. role[n]. */
enum { NUM_COORD_PLAIN = 0, NUM_COORD_ANGLE = 1, NUM_COORD_FREE = 2 };
lg_status num_coord_roles(mech_model *mm, const mech_eom *e, int *role);

typedef struct num_equil_opts {
  double t;                  /* time (inputs at their values then) */
  const double *lo, *hi;     /* n: the box */
  const int *free, *angle;   /* n: held at 0 / wrapped into (-pi, pi] */
  size_t starts;             /* Gauss-Newton starts; 0: a default by size */
} num_equil_opts;

/* What num_equilibria found: count points q (count x n), each an isolated
 * equilibrium (dim 0) or the representative of a family of equilibria of
 * dimension dim[k] through it (the Jacobian of the conditions has rank
 * nv - dim there and the solutions continue along its null space); the
 * family's directions are rows 0..dim[k]-1 of dir + k n^2 (n x n), each
 * 1 at a coordinate the others are 0 at, 0 at the free coordinates. */
typedef struct num_equil_found {
  size_t count;
  double *q;
  size_t *dim;
  double *dir;
} num_equil_found;
void num_equil_found_free(num_equil_found *f);

/* Every equilibrium found in the box, each once (within 1e-8), a family
 * once (its representative: the pivot coordinates at 0 when the family is
 * affine, as a translation); once a family is known, the search ends
 * after 100 starts in a row add nothing. LG_ERR_NUMERIC (diag says which
 * unknown) when the accelerations cannot be solved for at any start: a
 * singular mass matrix. The caller frees *found. */
lg_status num_equilibria(const num_lin *L, num_work *w, const num_equil_opts *o,
                         num_equil_found *found, lg_diag *diag);

/* The DAE path (IDA, GGL stabilization), called by num_simulate for
 * NUM_INT_IDA. */
lg_status num_simulate_ida(const num_system *s, const num_sim_opts *o, double *q,
                           double *qd, num_sim_output out, void *ud, num_sim_stats *stats,
                           lg_diag *diag);

#endif
