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

typedef struct num_system {
  size_t n, m, np;
  const char **coord_names;   /* n */
  const char **param_names;   /* np */
  double *params;             /* np: resolved values */
  sym_tape *tape;             /* inputs: t, q, q', params; every output */
  sym_tape *dyn;              /* the same inputs; outputs [0, ndyn) only */
  /* output layout: M, f, J, gc, C, Cd (the dynamics), then T, V, p */
  size_t o_M, o_f, o_J, o_gc, o_C, o_Cd, ndyn, o_T, o_V, o_p, nout;
  int *row_holonomic;         /* m */
} num_system;

/* Per-evaluation scratch and results (owned by the caller). */
typedef struct num_work {
  double *in, *out, *slots;   /* tape input, output, work */
  double *A, *b;              /* augmented system (n+m)^2 and n+m */
  int *ipiv;
} num_work;

/* Resolve parameter values (defaults in declaration order, then
 * settings), substitute inputs, and compile. Unknown setting names and
 * parameters without a value are LG_ERR_MODEL/LG_ERR_USAGE with diag. */
lg_status num_system_build(mech_model *mm, const mech_eom *e, const num_setting *set,
                           size_t nset, num_system **out, lg_diag *diag);
void num_system_free(num_system *s);

lg_status num_work_init(const num_system *s, num_work *w);
void num_work_free(num_work *w);

/* Evaluate every tape output at (t, q, q'); results in w->out (see o_*). */
void num_evaluate(const num_system *s, num_work *w, double t, const double *q,
                  const double *qd);

/* Only what the right-hand side needs (M, f, J, gc, C, Cd): the tape of
 * every right-hand-side call. */
void num_evaluate_dynamics(const num_system *s, num_work *w, double t, const double *q,
                           const double *qd);

/* Solve [[M, -J^T], [J, 0]] [qdd; lam] = [f; gc] after num_evaluate.
 * LG_ERR_NUMERIC when singular (diag names the coordinate or multiplier
 * where elimination broke down). */
lg_status num_solve_accel(const num_system *s, num_work *w, double *qdd, double *lam,
                          lg_diag *diag);

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

/* ---- integration ------------------------------------------------------------------- */
typedef enum num_integrator { NUM_INT_DOPRI, NUM_INT_BDF, NUM_INT_IDA } num_integrator;
typedef enum num_stabilize { NUM_STAB_PROJECT, NUM_STAB_BAUMGARTE, NUM_STAB_NONE } num_stabilize;

typedef struct num_sim_opts {
  double t0, tf, dt, rtol, atol;
  num_integrator integrator;
  num_stabilize stabilize;
  double alpha, beta;   /* Baumgarte: C'' + 2 alpha C' + beta^2 C = 0 */
  /* Optional compiled right-hand side (lagrange simulate --jit): used
   * instead of the tape when set; params are the system's values. */
  int (*jit_rhs)(double t, const double *x, const double *u, const double *p,
                 double *xdot);
} num_sim_opts;

typedef struct num_sim_stats {
  long steps, rhs_evals;
  double t_end;              /* where the run stopped */
  double max_energy_drift;   /* max |E - E0| */
  double max_residual;       /* max |C| and |C'| over the output points */
} num_sim_stats;

/* Called at t0 and at each output time with the state and the residuals;
 * nonzero stops the run. */
typedef int (*num_sim_output)(void *ud, double t, const double *q, const double *qd,
                              double T, double V, const double *C);

/* Integrate from (q, qd) at o->t0 to o->tf. q and qd are updated to the
 * last state reached. On failure (singular mass matrix, non-finite state,
 * step size collapse) returns LG_ERR_NUMERIC with the time in diag; every
 * output before that has been delivered. */
lg_status num_simulate(const num_system *s, const num_sim_opts *o, double *q, double *qd,
                       num_sim_output out, void *ud, num_sim_stats *stats, lg_diag *diag);

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

/* Evaluate Kane's equations at (t, q) with the independent speeds u (when
 * have_u) or, else, speeds computed from qd through the kinematical
 * equations; solve M u' = f (LAPACK). Arrays allocated in *r (free with
 * num_kane_result_free). */
lg_status num_kane_eval(mech_model *mm, const mech_kane *k, const num_setting *set,
                        size_t nset, double t, const double *q, const double *qd,
                        const double *u, int have_u, num_kane_result *r, lg_diag *diag);
void num_kane_result_free(num_kane_result *r);

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
  size_t o_Pq, o_Pv, o_Pr, o_Cdq, o_r0, nout;
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
} num_lin_result;

lg_status num_linearize(const num_lin *L, num_work *w, const num_lin_point *pt,
                        num_lin_result *res, lg_diag *diag);
/* G = d q''/d [q, q', r] at (t, q, q') (n x (2n + nr), row-major), exact:
 * the implicit derivative of the augmented equations. */
lg_status num_lin_accel_jacobian(const num_lin *L, num_work *w, double t, const double *q,
                                 const double *qd, double *G, lg_diag *diag);
/* Doubles of scratch num_linearize uses internally (for sizing). */
size_t num_lin_work_size(const num_lin *L);
/* Linearize at (t, q, q') with the dependent variables chosen by pivoting
 * and return the eigenvalues of A (re, im: 2n room; *nx of them). */
lg_status num_lin_eigenvalues(const num_lin *L, num_work *w, double t, double *q, double *qd,
                              double *re, double *im, size_t *nx, lg_diag *diag);
/* Eigenvalues of the n x n row-major matrix A (LAPACK dgeev). */
lg_status num_eigenvalues(const double *A, size_t n, double *re, double *im);

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

/* Every equilibrium found in the box, each once (within 1e-8): *found is
 * nfound x n (caller frees with lg_free). */
lg_status num_equilibria(const num_lin *L, num_work *w, const num_equil_opts *o,
                         double **found, size_t *nfound, lg_diag *diag);

/* The DAE path (IDA, GGL stabilization), called by num_simulate for
 * NUM_INT_IDA. */
lg_status num_simulate_ida(const num_system *s, const num_sim_opts *o, double *q,
                           double *qd, num_sim_output out, void *ud, num_sim_stats *stats,
                           lg_diag *diag);

#endif
