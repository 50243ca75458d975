/* lagrange.h - the lagrange library: model files in, equations of motion
 * out, evaluated, integrated, printed and turned into C.
 *
 * This is the one installed header. Every name it exports starts with lg_,
 * LG_ or LAGRANGE_; it includes only <stddef.h>. Find the library with
 *   cc prog.c $(pkg-config --cflags --libs lagrange)            (shared)
 *   cc -static prog.c $(pkg-config --static --cflags --libs lagrange)
 * (or replace -llagrange by -l:liblagrange.a to link only the library
 * statically: the linker prefers the .so beside the archive).
 *
 * The rules, for every function below:
 * - Errors: a function returns an lg_status and, when `diag` is not NULL,
 *   fills *diag (cleared on entry) with where and why; lg_diag_text gives
 *   the one-line message "file:line:col: what is wrong (how to fix it)".
 *   `diag` may be NULL everywhere. Running out of memory is LG_ERR_NOMEM
 *   at every entry, and leaves nothing allocated (*out stays NULL; arrays
 *   the caller passed may be partly written).
 *   The library never prints and never exits.
 * - Ownership: objects returned through `**out` belong to the caller, who
 *   frees them with the matching _free (lg_model_free, lg_system_free,
 *   lg_string_free); every _free(NULL) does nothing. On error *out is NULL.
 *   Strings returned by the name queries belong to the object and live as
 *   long as it does.
 * - Pointers: every object and array argument must be valid unless its
 *   comment says it may be NULL. Arrays are sized by lg_nq (coordinates),
 *   lg_nc (constraint rows, one multiplier each) and lg_np (parameters);
 *   matrices are row-major.
 * - Threads: two threads may use two different objects at once. An
 *   lg_system is immutable after lg_derive: any number of threads may call
 *   the evaluation functions (lg_eval_accel, lg_eval, lg_simulate,
 *   lg_linearize and the queries) on one system at once; each call uses its
 *   own scratch memory (the evaluation entries take it from a pool the
 *   system keeps, under a short lock of its own). lg_print, lg_codegen and the first lg_linearize
 *   (which compiles the linearization) work on the system's symbolic
 *   expressions and serialize on a lock inside the system (safe, but not
 *   concurrent).
 *   lg_model objects are only read after loading (lg_derive works on its
 *   own copy), so one model may be derived by several threads at once.
 */
#ifndef LAGRANGE_H
#define LAGRANGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LAGRANGE_VERSION_MAJOR 0
#define LAGRANGE_VERSION_MINOR 1
#define LAGRANGE_VERSION_PATCH 0
#define LAGRANGE_VERSION_STRING "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for comparisons (#if, and at run
 * time against lg_version_number()). */
#define LAGRANGE_VERSION_NUMBER                                                 \
  (LAGRANGE_VERSION_MAJOR * 10000 + LAGRANGE_VERSION_MINOR * 100 + LAGRANGE_VERSION_PATCH)

/* What the shared library exports (everything else is hidden). */
#if defined(__GNUC__) || defined(__clang__)
#define LAGRANGE_API __attribute__((visibility("default")))
#else
#define LAGRANGE_API
#endif

/* "MAJOR.MINOR.PATCH" of the library actually linked. */
LAGRANGE_API const char *lg_version(void);
/* The same as a number (LAGRANGE_VERSION_NUMBER of the library actually
 * linked): a program built against one release can check at run time that
 * the library it loaded is at least as new
 * (lg_version_number() >= LAGRANGE_VERSION_NUMBER). */
LAGRANGE_API int lg_version_number(void);

/* ---- status and diagnostics ---------------------------------------------------- */
typedef enum lg_status {
  LG_OK = 0,
  LG_ERR_MODEL,   /* bad model input: the diagnostic says where and why */
  LG_ERR_NUMERIC, /* numeric failure: singular matrix, non-finite value */
  LG_ERR_NOMEM,   /* out of memory */
  LG_ERR_USAGE,   /* bad call: a NULL where a value is needed, a bad option */
  LG_ERR_IO       /* a file could not be read or written */
} lg_status;

/* "ok", "model error", "numeric error", "out of memory", "usage error",
 * "i/o error" (a static string). */
LAGRANGE_API const char *lg_status_name(lg_status st);

/* A diagnostic. The caller allocates it (lg_diag d = {0};) and may read the
 * fields; the library fills it. */
typedef struct lg_diag {
  lg_status status;    /* LG_OK when nothing went wrong */
  char file[256];      /* the model's name; empty when there is none */
  int line, col;       /* 1-based; 0 when unknown */
  char message[512];   /* what is wrong */
  char hint[256];      /* how to fix it; empty when there is no fix to suggest */
  char text[1100];     /* the whole line (lg_diag_text) */
} lg_diag;

/* "file:line:col: what is wrong (how to fix it)"; "" when d is NULL or
 * holds no error. The string lives in *d. */
LAGRANGE_API const char *lg_diag_text(const lg_diag *d);

/* ---- models and systems -------------------------------------------------------- */
typedef struct lg_model lg_model;     /* a parsed, checked model file */
typedef struct lg_system lg_system;   /* derived equations, ready to use */
typedef enum lg_method { LG_LAGRANGE = 0, LG_KANE = 1 } lg_method;

/* Read, parse and check a model file (the language of lagrange-model(5)),
 * as the command reads it: at most 64 MB; "-" reads standard input. */
LAGRANGE_API lg_status lg_model_load_file(const char *path, lg_model **out, lg_diag *diag);
/* The same from text in memory: len bytes (no NUL needed; more than 64 MB
 * is LG_ERR_USAGE). `name` is what diagnostics call the text (like a file
 * name); NULL: "<string>". */
LAGRANGE_API lg_status lg_model_load_string(const char *name, const char *text, size_t len,
                                            lg_model **out, lg_diag *diag);
LAGRANGE_API void lg_model_free(lg_model *m);
/* The name given at load (the path for a file). */
LAGRANGE_API const char *lg_model_name(const lg_model *m);
/* Remarks the model's check made that are not errors (for example a
 * dropped identically zero constraint row), "file:line:col: note: ...". */
LAGRANGE_API size_t lg_model_nnotes(const lg_model *m);
LAGRANGE_API const char *lg_model_note(const lg_model *m, size_t i);

/* A parameter's or an input's value (`lagrange --set NAME=VALUE`), used by
 * every later lg_derive of the model: a parameter's value replaces the
 * model's (values that use it follow), an input becomes that constant.
 * Setting a name again replaces the value. LG_ERR_USAGE when the model
 * has no parameter or input called `name`. */
LAGRANGE_API lg_status lg_model_set(lg_model *m, const char *name, double value,
                                    lg_diag *diag);
/* The model's coordinates before deriving (to read a state given by
 * name): their number and names in declaration order (NULL past the end). */
LAGRANGE_API size_t lg_model_nq(const lg_model *m);
LAGRANGE_API const char *lg_model_coordinate_name(const lg_model *m, size_t i);

/* Derive the equations of motion by Lagrange's method (with multipliers
 * for the constraints) or Kane's, and compile them for evaluation. The
 * system does not refer to the model: the model may be freed afterwards.
 * Parameters without a value in the model are allowed: pass p then. */
LAGRANGE_API lg_status lg_derive(const lg_model *m, lg_method method, lg_system **out,
                                 lg_diag *diag);
LAGRANGE_API void lg_system_free(lg_system *s);

/* How to derive (lg_derive_with). Initialize with lg_derive_options_default,
 * which sets `size`, then change fields: a program built against an older
 * header passes its smaller struct and gets the defaults for the rest. */
typedef struct lg_derive_options {
  size_t size;            /* sizeof(lg_derive_options) */
  lg_method method;       /* LG_LAGRANGE (default) or LG_KANE */
  /* Kane's method picks its dependent speeds by pivoting at a state: the
   * model's initial state, or with at_state nonzero (t, q, qd) (q or qd
   * NULL: the model's initial values), as `eval --state` does. */
  int at_state;
  double t;
  const double *q, *qd;   /* nq each; read during the call only */
  /* Nonzero: compile nothing numeric now; the first evaluation does it
   * (under the system's lock), and lg_print and lg_codegen never pay for
   * it (the command's eom and codegen). Errors of that compilation are
   * reported by every evaluation then. A model that is a URDF alone (no
   * `import`: revolute, continuous, prismatic and fixed joints, no
   * mimic, no friction) with more than 8 coordinates under Lagrange's
   * method is not even derived: its q'' and every form lg_eval reports
   * come from the URDF's numbers (the articulated-body algorithm,
   * composite rigid bodies), and the equations are derived by the first
   * call that needs them (lg_print, lg_codegen, lg_simulate, lg_linearize
   * ...). Every answer is the same as a system derived at once would
   * give, whatever is called first. */
  int lazy;
} lg_derive_options;

/* Defaults: Lagrange's method, pivoting at the initial state, compiled now. */
LAGRANGE_API void lg_derive_options_default(lg_derive_options *o);
/* lg_derive with options (o from lg_derive_options_default; NULL or a
 * size of 0 is LG_ERR_USAGE). */
LAGRANGE_API lg_status lg_derive_with(const lg_model *m, const lg_derive_options *o,
                                      lg_system **out, lg_diag *diag);

LAGRANGE_API lg_method lg_system_method(const lg_system *s);
LAGRANGE_API size_t lg_nq(const lg_system *s);   /* coordinates */
LAGRANGE_API size_t lg_nc(const lg_system *s);   /* constraint rows (multipliers) */
LAGRANGE_API size_t lg_np(const lg_system *s);   /* parameters */
/* Names in declaration order; NULL when i is out of range. */
LAGRANGE_API const char *lg_coordinate_name(const lg_system *s, size_t i);
LAGRANGE_API const char *lg_parameter_name(const lg_system *s, size_t i);
/* Kane's method with speeds of its own (a `speeds` statement, or
 * dependent speeds from constraints): 1 when its state is [q; u] with the
 * independent speeds u, not [q; q']; 0 otherwise (and under Lagrange's). */
LAGRANGE_API int lg_kane_own_state(const lg_system *s);
/* The independent speeds of that state (0 and NULL when there is none). */
LAGRANGE_API size_t lg_nu(const lg_system *s);
LAGRANGE_API const char *lg_speed_name(const lg_system *s, size_t i);
/* p[np]: the model's values, in declaration order (NaN for a parameter
 * the model gives no value). */
LAGRANGE_API void lg_default_params(const lg_system *s, double *p);
/* q[nq], qd[nq]: the model's `initial` state (0 where unset). Either may
 * be NULL. Under Kane's method, when the model gives its declared speeds
 * `initial` values, qd is the q' they make by the kinematical equations
 * at the initial q (as `eval` and `simulate` start). */
LAGRANGE_API void lg_initial_state(const lg_system *s, double *q, double *qd);

/* ---- evaluation ------------------------------------------------------------------ */
/* Accelerations qdd[nq] (and multipliers, when lam is not NULL: nc values)
 * at (t, q, q') with parameters p[np] (NULL: the defaults), as `lagrange
 * eval` computes them. LG_ERR_NUMERIC when the mass matrix is singular
 * there; LG_ERR_USAGE when p is NULL and a parameter has no value. Under
 * Kane's method qdd is the time derivative of q' along the motion and the
 * multipliers (eliminated by the method) are NaN. */
LAGRANGE_API lg_status lg_eval_accel(const lg_system *s, double t, const double *q,
                                     const double *qd, const double *p, double *qdd,
                                     double *lam, lg_diag *diag);

/* Everything `lagrange eval --json` prints, in Lagrange's form whatever the
 * method (qdd and lam as lg_eval_accel gives them). Each pointer may be
 * NULL (not wanted); sizes with n = nq, m = nc. */
typedef struct lg_eval_result {
  double *qdd;                /* n */
  double *lam;                /* m */
  double *constraint_forces;  /* n: J^T lam */
  double *mass_matrix;        /* n x (n + m): [M, -J^T] */
  double *forcing;            /* n */
  double *mass_matrix_full;   /* (2n + m) x (2n + m): [[I,0,0],[0,M,-J^T],[0,J,0]] */
  double *forcing_full;       /* 2n + m: [q'; f; gc] */
  double *momenta;            /* n: dL/dq' */
  double *residuals;          /* m: the constraints at the state */
  double *T, *V;              /* 1 each: kinetic and potential energy */
} lg_eval_result;

LAGRANGE_API lg_status lg_eval(const lg_system *s, double t, const double *q,
                               const double *qd, const double *p, const lg_eval_result *r,
                               lg_diag *diag);

/* ---- many states in one call --------------------------------------------------------- */
/* The same as lg_eval / lg_eval_accel at `count` states: state k is
 * (t[k], q + k*nq, qd + k*nq) (t NULL: t = 0 for every state), all with
 * the one parameter vector p (NULL: the defaults). count 0 does nothing.
 * The states are evaluated in order and the first failure stops the call
 * (its diagnostic ends "(state k of the batch)", 0-based); what came
 * before is written. A call allocates nothing once the system has served
 * one (the system keeps scratch for its callers), which makes these the
 * cheapest entries from another language too, even with count 1.
 *
 * lg_eval_many writes one record of lg_eval_record_size(s) doubles per
 * state, state k at out + k * lg_eval_record_size(s). A record holds what
 * lg_eval_result points to, contiguous and in its order (n = nq, m = nc,
 * N = 2n + m; offsets in doubles):
 *   qdd                 n        at 0
 *   lam                 m        at n
 *   constraint_forces   n        at n + m
 *   mass_matrix         n(n+m)   at 2n + m            (row-major)
 *   forcing             n        at 2n + m + n(n+m)
 *   mass_matrix_full    N*N      at 3n + m + n(n+m)   (row-major)
 *   forcing_full        N        after it, then
 *   momenta n, residuals m, T 1, V 1
 * so lg_eval_record_size = 4n + 2m + n(n+m) + N^2 + N + 2. */
LAGRANGE_API size_t lg_eval_record_size(const lg_system *s);
LAGRANGE_API lg_status lg_eval_many(const lg_system *s, size_t count, const double *t,
                                    const double *q, const double *qd, const double *p,
                                    double *out, lg_diag *diag);
/* qdd: count x nq; lam: count x nc, or NULL. */
LAGRANGE_API lg_status lg_eval_accel_many(const lg_system *s, size_t count, const double *t,
                                          const double *q, const double *qd,
                                          const double *p, double *qdd, double *lam,
                                          lg_diag *diag);

/* One state packed as x = [t, q (nq), q' (nq)] with the default
 * parameters: lg_eval_many's record into out, or q'' into qdd. Nothing
 * but the state and the output: for callers from interpreters (Python's
 * ctypes), where each argument of a call costs more than the evaluation
 * of a small model. No diagnostic: on an error, call lg_eval_many for it. */
LAGRANGE_API lg_status lg_eval_packed(const lg_system *s, const double *x, double *out);
LAGRANGE_API lg_status lg_eval_accel_packed(const lg_system *s, const double *x,
                                            double *qdd);

/* ---- linearization ----------------------------------------------------------------- */
/* The model's inputs (`inputs F = ...`): the r of lg_linearize. */
LAGRANGE_API size_t lg_ninputs(const lg_system *s);
LAGRANGE_API const char *lg_input_name(const lg_system *s, size_t i);

/* x' = A (x - x0) + B (r - r0) to first order, as `lagrange linearize`:
 * x holds the independent coordinates, then the independent rates (nx of
 * them); r the inputs at their values at t (nr = lg_ninputs). The caller
 * provides the room (n = nq); the library sets nx, nr and the arrays. */
typedef struct lg_linearization {
  size_t nx, nr;
  size_t *state;   /* 2n room: x[k] is q[state[k]] when state[k] < n,
                      q'[state[k] - n] when state[k] < 2n, else Kane's own
                      independent speed state[k] - 2n (lg_speed_name) */
  double *A;       /* 4n^2 room: nx x nx */
  double *B;       /* 2n * nr room: nx x nr */
  double *x0;      /* 2n room */
  double *r0;      /* nr room (may be NULL when there are no inputs) */
  double *q, *qd;  /* n each, or NULL: the operating point completed onto the
                      constraints */
} lg_linearization;

/* Linearize about (t, q, q') (either NULL: the model's initial values),
 * completed onto the constraints (dependent values solved; q and qd are
 * not written). independent: NULL (chosen by pivoting) or 2n flags, 1
 * where q_i (first n) or q_i' (last n) must stay independent. Under Kane's
 * method the rates Kane's method makes dependent are dependent here too;
 * with the model's own speeds the state is x = [independent q; Kane's
 * independent speeds u] (state[k] >= 2n), as `linearize --method kane`. */
LAGRANGE_API lg_status lg_linearize(const lg_system *s, double t, const double *q,
                                    const double *qd, const double *p,
                                    const int *independent, lg_linearization *res,
                                    lg_diag *diag);

/* ---- simulation ------------------------------------------------------------------ */
typedef enum lg_integrator {
  LG_INT_AUTO = 0, /* IDA for a constrained model (LG_STAB_AUTO; not under
                      Kane's own state [q; u], which has no algebraic part), else
                      Adams (never with projection) at 1e-11 < rtol <= 1e-6
                      when the right-hand side is costly enough to repay its
                      steps (docs/REFERENCE.md), else an explicit Runge-Kutta pair
                      chosen by the tolerance */
  LG_INT_DOPRI,    /* ARKODE explicit Dormand-Prince 5(4) */
  LG_INT_BDF,      /* CVODE BDF (stiff) */
  LG_INT_IDA,      /* IDA on the index-2 (GGL) DAE */
  LG_INT_ERK,      /* the explicit pair `simulate --integrator erk` picks */
  LG_INT_VERNER,   /* Verner 6(5) */
  LG_INT_FEHLBERG, /* Fehlberg 8(7) */
  LG_INT_ADAMS     /* CVODE Adams-Moulton (non-stiff; cannot project) */
} lg_integrator;

typedef enum lg_stabilize {
  LG_STAB_PROJECT = 0, /* project q, q' onto the constraints after a step */
  LG_STAB_BAUMGARTE,   /* C'' + 2 alpha C' + beta^2 C = 0 */
  LG_STAB_NONE,
  LG_STAB_AUTO         /* projection, and LG_INT_AUTO may pick IDA (the
                          default); LG_STAB_PROJECT asked for explicitly
                          keeps LG_INT_AUTO on the ODE integrators, as
                          `simulate --stabilize project` */
} lg_stabilize;

/* --jit: the right-hand side compiled to machine code (the system's C
 * compiler, cached; see docs/REFERENCE.md) where the integrator calls
 * one (the ODE integrators without Baumgarte terms). */
typedef enum lg_jit_mode {
  LG_JIT_OFF = 0,
  LG_JIT_BACKGROUND,   /* start on the tape, switch when the compiler is done */
  LG_JIT_WAIT          /* compile (or load from the cache) first */
} lg_jit_mode;

/* Remarks that are not errors, one line each without a newline
 * ("file: projected q1: 0.1 -> 0.12", "file: note: `jit` ..."): options
 * named in backquotes. The text lives until the callback returns. */
typedef void (*lg_note_fn)(void *ud, const char *text);

typedef struct lg_sim_options {
  double t0, tf, dt;          /* output every dt from t0 to tf */
  double rtol, atol;
  lg_integrator integrator;
  lg_stabilize stabilize;     /* for DOPRI and BDF on a constrained model */
  double alpha, beta;         /* Baumgarte's constants */
  int project;                /* nonzero: move an inconsistent initial state
                                 onto the constraints instead of refusing it */
  size_t max_rows;            /* refuse up front a run of more output points
                                 ((tf - t0)/dt + 1) than this; 0:
                                 LG_SIM_MAX_ROWS */
  double max_steps;           /* stop (LG_ERR_NUMERIC) when reaching tf would
                                 take more integration steps than this; 0:
                                 the command's default (2e7) */
  /* -- added after the fields above (lg_sim_options_default sets them) -- */
  const char *stop_when;      /* NULL, or an expression of t, q, q',
                                 parameters and inputs: the run stops where
                                 it crosses zero (`simulate --stop-when`);
                                 a bad text is LG_ERR_USAGE with diag->file
                                 "`stop_when`" and the line and column in it */
  lg_jit_mode jit;            /* LG_JIT_OFF */
  lg_note_fn note;            /* NULL: remarks are dropped */
  void *note_ud;
  double *q_end, *qd_end;     /* NULL, or nq each: the last state reached
                                 (q' under Kane's state too), also on a
                                 failure on the way */
  /* -- added after the fields above (issue 24; lg_sim_options_default: 0, NULL) -- */
  int multipliers;            /* nonzero: lg_sim_point.lam at every point (the
                                 command's CSV columns lam1..lamm): solved from
                                 Lagrange's equations at the point's state under
                                 both methods, as lg_eval_outputs solves them */
  int outputs;                /* nonzero: lg_sim_point.outputs at every point */
  const char *output_names;   /* with outputs: NULL (every column of
                                 lg_output_name, in order) or a selection as
                                 lg_output_select reads it ("h, r"; an unknown
                                 name is LG_ERR_USAGE naming it and `outputs`) */
} lg_sim_options;

/* The bound on a run's output points unless lg_sim_options.max_rows says
 * otherwise: the command's `simulate --max-rows` default. */
#define LG_SIM_MAX_ROWS ((size_t)10000000)

/* The model's `simulate` line (t0 0, tf 10, dt 0.01 when absent),
 * tolerances 1e-10, LG_INT_AUTO, LG_STAB_AUTO, LG_SIM_MAX_ROWS, no
 * stop_when, no jit, no note, no q_end. */
LAGRANGE_API void lg_sim_options_default(const lg_system *s, lg_sim_options *o);

/* One output point: simulate's CSV row. E is T + V (the energy function h
 * for a model given as `L =`); W the work done since t0 by everything not
 * in V, so that E - W is conserved by the exact motion. Under Kane's
 * method with a state of its own [q; u] qd is q' from the kinematical
 * equations (the CSV's columns are the same under both methods). */
typedef struct lg_sim_point {
  double t;
  const double *q, *qd;       /* nq each */
  double T, V, E, W;
  const double *C;            /* nc: the constraint residuals */
  /* -- added after the fields above (issue 24) -- */
  const double *lam;          /* nc multipliers (NaN where the equations are
                                 singular at the state), or NULL when
                                 lg_sim_options.multipliers is 0 */
  const double *outputs;      /* noutputs values: the selected output columns
                                 (lg_sim_options.outputs), or NULL */
  size_t noutputs;
  const double *contact;      /* ncontact values: the contact columns
                                 (lg_contact_column), NULL without contacts */
  size_t ncontact;
} lg_sim_point;

/* Called at t0 and at every output time; nonzero stops the run. The
 * point's arrays live until the callback returns. */
typedef int (*lg_sim_callback)(void *ud, const lg_sim_point *p);

/* What `simulate` prints in its summary. Filled on failure too (what was
 * reached). */
typedef struct lg_sim_stats {
  long steps, rhs_evals;
  double t_end;               /* where the run stopped */
  double max_energy_drift;    /* max |(E - W) - (E0 - W0)| over the output points */
  double max_residual;        /* max |C| and |C'| over the output points */
  /* -- added after the fields above -- */
  double energy_scale;        /* max of |T| + |V|, |E|, |W| (drift / scale: relative) */
  const char *integrator;     /* what ran ("Dormand-Prince 5(4)", "IDA", ...;
                                 a static string; "": refused before the
                                 integration started) */
  char energy[160];           /* what W holds: "conservative: W = 0", "work by
                                 dissipation D, ..." */
  int stopped;                /* stop_when ended the run at t_end */
  int jit;                    /* compiled code ran, from about t = jit_t */
  double jit_t;
  int jit_background;         /* a compile ran in the background during the
                                 run (jit 0: it was not ready in time) */
  int jit_failed;             /* the compiler failed (said through note) */
  double jit_seconds;         /* spent compiling or loading before the run */
  double wall;                /* seconds of the integration, outputs included */
  int noted;                  /* the failure was said through note already,
                                 one line per violated constraint row (an
                                 inconsistent initial state); diag repeats
                                 the first */
  long events;                /* events of the model's `when` statements that
                                 fired (a group at one instant counts once) */
  double event_work;          /* the energy their resets changed (it is in W) */
  long friction_switches;     /* mode changes of `friction` (stick, slip): each
                                 is an event, counted in events too */
  long impacts, liftoffs;     /* contact events (counted in events too): impacts
                                 (arrivals, the last of each run of them
                                 closing the contact) and lift-offs */
} lg_sim_stats;

/* Integrate from (q0, qd0) (either NULL: the model's initial values) with
 * parameters p (NULL: the defaults). o NULL: lg_sim_options_default.
 * An initial state off a constraint by more than 1e-9 (C or dC/dt) is
 * LG_ERR_MODEL (diag at the first violated row; every violated row, one
 * line each, through o->note) unless o->project, which moves it onto the
 * constraints (the values that moved through o->note) - under both
 * methods. Under Kane's method with a state [q; u] of its own the
 * initial speeds are the model's `initial` ones when it gives any and
 * qd0 is NULL, else those of q' through the kinematical equations. A
 * failure on the way
 * (singular mass matrix, blow-up) is LG_ERR_NUMERIC after every output
 * before it was delivered. cb and stats may be NULL. Options out of range
 * are LG_ERR_USAGE naming the field: t0, tf and dt finite with t0 < tf
 * and dt > 0, positive finite tolerances, a known integrator and
 * stabilization, and at most max_rows output points. */
LAGRANGE_API lg_status lg_simulate(const lg_system *s, const lg_sim_options *o,
                                   const double *q0, const double *qd0, const double *p,
                                   lg_sim_callback cb, void *ud, lg_sim_stats *stats,
                                   lg_diag *diag);

/* ---- printing and code generation -------------------------------------------------- */
typedef enum lg_format { LG_FORMAT_TEXT = 0, LG_FORMAT_LATEX, LG_FORMAT_JSON } lg_format;

/* The equations as `lagrange eom --format ...` prints them, into *out (a
 * NUL-terminated string: free it with lg_string_free). */
LAGRANGE_API lg_status lg_print(const lg_system *s, lg_format fmt, char **out,
                                lg_diag *diag);

typedef enum lg_code_lang { LG_CODE_C = 0, LG_CODE_PYTHON = 1 } lg_code_lang;

/* Self-contained code as `lagrange codegen` writes it: *source, and for C
 * *header (NAME.h, which the source includes). name: the identifier prefix
 * (a C identifier; NULL: "model"). header may be NULL (not wanted; for
 * Python it is set to NULL). Free both with lg_string_free. */
LAGRANGE_API lg_status lg_codegen(const lg_system *s, lg_code_lang lang, const char *name,
                                  char **source, char **header, lg_diag *diag);
/* The same for some of the functions only, as `codegen --functions`:
 * functions is a list of names separated by commas or blanks
 * ("rhs, mass_matrix"; NULL: all but rhs_recursive), from mass_matrix_full,
 * forcing_full, mass_matrix, forcing, rhs, energy, momenta, constraints,
 * constraint_jacobian, and, in C under Lagrange's method, rhs_jacobian and
 * rhs_recursive (q'' in O(n) by the articulated-body recursion, for a
 * kinematic tree; LG_ERR_MODEL naming why when the model is not one). An
 * unknown or inapplicable name is LG_ERR_USAGE. */
LAGRANGE_API lg_status lg_codegen_functions(const lg_system *s, lg_code_lang lang,
                                            const char *name, const char *functions,
                                            char **source, char **header, lg_diag *diag);

/* All of codegen's choices (lg_codegen_with). Initialize with
 * lg_codegen_options_default (C, every function but rhs_recursive, name
 * "model", header NAME.h), which sets `size`. */
typedef struct lg_codegen_options {
  size_t size;              /* sizeof(lg_codegen_options) */
  lg_code_lang lang;
  const char *name;         /* identifier prefix (lg_codegen_name_ok); NULL: "model" */
  const char *functions;    /* as lg_codegen_functions; NULL: all but rhs_recursive */
  const char *header_name;  /* the file the C source includes; NULL: "NAME.h".
                               It must be spellable in an #include line
                               (lg_codegen_header_name_ok) */
} lg_codegen_options;
LAGRANGE_API void lg_codegen_options_default(lg_codegen_options *o);

/* The size of what was written: operations after common-subexpression
 * elimination of the functions counted (mass_matrix_full, forcing_full,
 * rhs without its solve, energy, constraints, rhs_recursive with its
 * solve), those written only, in that order. */
typedef struct lg_codegen_stats {
  size_t n;
  struct {
    const char *function;   /* a static string */
    size_t operations;
  } count[8];
} lg_codegen_stats;

/* lg_codegen_functions with every option, and the statistics (stats may
 * be NULL). LG_ERR_USAGE for options out of range, naming the field. */
LAGRANGE_API lg_status lg_codegen_with(const lg_system *s, const lg_codegen_options *o,
                                       char **source, char **header, lg_codegen_stats *stats,
                                       lg_diag *diag);
/* Checks of codegen's options that need no system, for a front end that
 * refuses bad usage before loading a model: a function list
 * (LG_ERR_USAGE naming the unknown or inapplicable name, as
 * lg_codegen_with would), a C identifier, a header name. */
LAGRANGE_API lg_status lg_codegen_check_functions(const char *functions, lg_code_lang lang,
                                                  lg_method method, lg_diag *diag);
LAGRANGE_API int lg_codegen_name_ok(const char *name);
LAGRANGE_API int lg_codegen_header_name_ok(const char *name);
/* The identifier codegen names a model's code after ("dir/my-model.lag"
 * -> "my_model"); free with lg_string_free. NULL when out of memory. */
LAGRANGE_API char *lg_codegen_default_name(const char *model_path);

/* ---- linearize and equilibria ---- */
/* Where and how lg_linearize_format linearizes. Initialize with
 * lg_lin_options_default (it sets size; every other field 0 / NULL). */
typedef struct lg_lin_options {
  size_t size;            /* sizeof(lg_lin_options) */
  double t;               /* time of the operating point (inputs at their values then) */
  const double *q, *qd;   /* nq each, or NULL: the model's initial values; a NaN entry
                             also means the initial value (`--at` leaves it out). A
                             finite value of a variable that turns out dependent must
                             already lie on the constraints (else LG_ERR_MODEL naming
                             it); a value left out is solved (Newton's method from the
                             initial value: the assembly branch nearest it) */
  const double *p;        /* np parameters, or NULL: the defaults */
  const int *independent; /* NULL or 2 nq flags, as lg_linearize */
  int symbolic;           /* nonzero: A and B as expressions (`--symbolic`), in the
                             rates only (LG_ERR_USAGE with Kane's own speeds) */
} lg_lin_options;
LAGRANGE_API void lg_lin_options_default(lg_lin_options *o);

/* `lagrange linearize`'s report, byte for byte, into *out (free with
 * lg_string_free): numeric (fmt LG_FORMAT_TEXT or LG_FORMAT_JSON: state,
 * x0, inputs, A, B, eigenvalues with natural frequencies and damping
 * ratios; the JSON form adds q0, qd0, r0 and the mode shapes; the text
 * form of a constrained model also lists the completed point and the
 * guess its dependent coordinates were solved from) or, with o->symbolic,
 * A and B as expressions in any format. Under Kane's method the state is
 * as lg_linearize makes it. notes (may be NULL: not wanted) gets the
 * lines, each ending in a newline, to show the user besides the report
 * ("" when none): "FILE: warning: the operating point is not an
 * equilibrium: ..." when the accelerations there are not zero. The
 * library never prints: the command writes *out to stdout and *notes to
 * stderr. Errors as lg_linearize; LaTeX without `symbolic` is
 * LG_ERR_USAGE. On error *out and *notes are NULL. */
LAGRANGE_API lg_status lg_linearize_format(const lg_system *s, const lg_lin_options *o,
                                           lg_format fmt, char **out, char **notes,
                                           lg_diag *diag);

/* The static equilibria search of `lagrange equilibria`. Initialize with
 * lg_equilibria_options_default (it sets size; every other field 0 / NULL). */
typedef struct lg_equilibria_options {
  size_t size;           /* sizeof(lg_equilibria_options) */
  double t;              /* the time (inputs at their values then; `--t`) */
  const double *lo, *hi; /* nq each, or NULL: the box searched (`--box`). NaN or NULL:
                            the default, (-pi, pi] for a coordinate that appears only
                            inside sin, cos and tan, [-10, 10] for any other; each
                            lo < hi, finite (else LG_ERR_USAGE) */
  const double *p;       /* np parameters, or NULL: the defaults */
  size_t starts;         /* Gauss-Newton starts; 0: a default by size */
} lg_equilibria_options;
LAGRANGE_API void lg_equilibria_options_default(lg_equilibria_options *o);

/* One equilibrium (every rate zero, the accelerations zero). */
typedef struct lg_equilibrium {
  const double *q;           /* nq: the point (angles in (-pi, pi]) */
  const char *stability;     /* "stable" (every eigenvalue's Re < 0), "unstable" (one
                                Re > 0) or "marginal" */
  size_t neig;               /* eigenvalues of the linearization there */
  const double *eig_re, *eig_im;
  size_t family_dim;         /* 0: isolated; else a family of equilibria of this
                                dimension passes through q ... */
  const double *family;      /* ... along these family_dim directions (rows of nq) */
} lg_equilibrium;

typedef struct lg_equilibria_result {
  size_t n;                  /* nq */
  size_t count;              /* equilibria found, each once (within 1e-8) */
  const lg_equilibrium *points; /* count, in increasing order of q (lexicographic) */
  const int *free;           /* nq flags: appears only through its rate (cyclic),
                                held at 0 */
  const double *lo, *hi;     /* nq each: the box searched */
  double t;                  /* the time the equations were taken at */
  int time_dependent;        /* the equations depend on t explicitly (directly or
                                through an input's law): the points are those of the
                                equations frozen at t */
  const char *warning;       /* NULL, or a line to show the user (no newline):
                                "FILE: warning: the equations depend on t ... `t` ..."
                                when time_dependent */
} lg_equilibria_result;

/* Every static equilibrium in the box as `lagrange equilibria` finds it
 * (o NULL: the defaults), with its stability and eigenvalues, into *out:
 * free it with lg_equilibria_free (everything it points to goes with it).
 * LG_ERR_NUMERIC when the accelerations cannot be solved for at any
 * start (a singular mass matrix); on error *out is NULL. Under either
 * method the equilibria are those of Lagrange's equations. */
LAGRANGE_API lg_status lg_equilibria(const lg_system *s, const lg_equilibria_options *o,
                                     lg_equilibria_result **out, lg_diag *diag);
LAGRANGE_API void lg_equilibria_free(lg_equilibria_result *r);
/* `lagrange equilibria`'s report of r (from lg_equilibria on s), byte for
 * byte, in LG_FORMAT_TEXT or LG_FORMAT_JSON, into *out (lg_string_free).
 * The warning is not part of it: the command prints it on stderr. */
LAGRANGE_API lg_status lg_equilibria_format(const lg_system *s, const lg_equilibria_result *r,
                                            lg_format fmt, char **out, lg_diag *diag);
/* ---- eval ---- */
/* A state for lg_eval_format, as `lagrange eval --state` gives one. Zero
 * it ({0}) for the model's initial state at t = 0. */
typedef struct lg_eval_state {
  double t;
  const double *q, *qd;  /* nq values each; NULL: the model's `initial` values */
  /* Kane's method with declared speeds (`speeds u1 u2`; ignored otherwise):
   * u: NULL or lg_nu values, NaN where not given. When the caller or the
   * model's `initial` statement gives any independent speed, the speeds
   * define the velocities (q' is not used; a speed given by neither is 0),
   * else they follow from q' through the kinematical equations.
   * udep: NULL or lg_ndependent_speeds values, NaN where not given; each
   * given one must equal what the velocity constraints make it (within
   * 1e-9 relative), else LG_ERR_MODEL naming the speed and both values. */
  const double *u, *udep;
} lg_eval_state;

/* Kane's dependent speeds (the ones the velocity constraints solve from
 * the independent ones, chosen when the system was derived: at the
 * model's initial state, or at lg_derive_options' state): their number
 * (0 under Lagrange's method) and, for declared speeds, their names (NULL
 * when the speeds are the rates q', or i is out of range). */
LAGRANGE_API size_t lg_ndependent_speeds(const lg_system *s);
LAGRANGE_API const char *lg_dependent_speed_name(const lg_system *s, size_t i);

/* With p NULL (the model's values): LG_OK when every parameter the
 * equations use has a value, else LG_ERR_MODEL at the first that has
 * none, as lg_eval_format reports it (a front end checks this before
 * reading a state, as `lagrange eval` does). p not NULL: LG_OK. */
LAGRANGE_API lg_status lg_check_params(const lg_system *s, const double *p, lg_diag *diag);

/* Everything `lagrange eval` prints at one state, as it prints it, into
 * *out (NUL-terminated; free with lg_string_free): fmt LG_FORMAT_TEXT
 * (`eval`) or LG_FORMAT_JSON (`eval --json`); under Kane's method both are
 * the JSON report (speeds, dependent speeds and their values, Kane's mass
 * matrix and forcing; T, V and momenta from the Lagrangian). state NULL:
 * the initial state at t = 0; p NULL: the defaults.
 * Under Kane's method, when the dependent speeds chosen at the initial
 * state cannot be solved at the state (and neither speeds nor dependent
 * speeds are given, nor declared dependent by the model), they are chosen
 * at the state instead (q'' does not depend on the choice) and *note gets
 * a remark saying so, "file:line:col: note: ...", which the command prints
 * on standard error; otherwise *note is NULL. note may be NULL (not
 * wanted); free *note with lg_string_free. This choice works on the
 * system's symbolic expressions (under its lock, as lg_print).
 * Errors: LG_ERR_NUMERIC where the equations cannot be solved at the
 * state; LG_ERR_MODEL for an inconsistent dependent speed (the message
 * names the option `state`), and with p NULL for a parameter without a
 * value that the equations use (at the parameter; an unused one is not
 * needed); LG_ERR_USAGE for a NULL system or out, or a format other than
 * text or JSON. On error *out and *note are NULL. */
LAGRANGE_API lg_status lg_eval_format(const lg_system *s, const lg_eval_state *state,
                                      const double *p, lg_format fmt, char **out, char **note,
                                      lg_diag *diag);

/* ---- simulation: runs over parameter vectors (lg_api_sim.c) ---- */
/* For `sweep`-like loops of lg_simulate: each run its own p vector (and
 * q0, qd0), the system shared by any number of threads. */

/* The checks lg_simulate makes of its options before it runs (the
 * ranges, stop_when parsed and compiled), without running: a loop of
 * runs refuses bad options once, up front. */
LAGRANGE_API lg_status lg_sim_options_check(const lg_system *s, const lg_sim_options *o,
                                            lg_diag *diag);
/* The index of parameter `name` (declaration order), or -1. */
LAGRANGE_API long lg_parameter_index(const lg_system *s, const char *name);
/* The index of coordinate `name`, or -1. */
LAGRANGE_API long lg_coordinate_index(const lg_system *s, const char *name);
/* p[np]: the model's parameter values (lg_model_set's included) with
 * names[k] = values[k] (k < n) given last, and every parameter defined
 * from those recomputed (I = m*l^2/12 follows m), as `sweep --vary m=...`
 * gives each run. n 0: lg_default_params. A name that is no parameter or
 * input is LG_ERR_USAGE (naming it); a value that cannot be computed (it
 * uses a parameter without one) LG_ERR_MODEL. Safe from any number of
 * threads (a short lock of the system's). */
LAGRANGE_API lg_status lg_params_with(const lg_system *s, size_t n, const char *const *names,
                                      const double *values, double *p, lg_diag *diag);
/* Where the model declares its coordinates (1-based; 0 when unknown):
 * where a message about the whole state points. Either may be NULL. */
LAGRANGE_API void lg_coordinates_position(const lg_system *s, int *line, int *col);
/* ---- scene: the model's geometry (animate, simulate --plot-xy) ---- */
/* The points of the model (`point` statements, the origin first) in
 * declaration order, as `lagrange animate` draws them. Names are NULL
 * when i is out of range. */
LAGRANGE_API size_t lg_npoints(const lg_system *s);
LAGRANGE_API const char *lg_point_name(const lg_system *s, size_t i);
/* The index of the point called name; -1 when there is none (or s or
 * name is NULL). */
LAGRANGE_API long lg_point_index(const lg_system *s, const char *name);
/* The point that point i is located from (`point P = C + ...`: C's
 * index); -1 for the origin, when not known, or i out of range. animate
 * draws a segment from each point to it. */
LAGRANGE_API long lg_point_from(const lg_system *s, size_t i);
/* 1 when a `particle` sits at point i, else 0. */
LAGRANGE_API int lg_point_is_particle(const lg_system *s, size_t i);
/* The rigid bodies (`body` statements) in declaration order: the name of
 * body i's frame (NULL out of range) and the index of its mass centre's
 * point (-1 out of range). */
LAGRANGE_API size_t lg_nbodies(const lg_system *s);
LAGRANGE_API const char *lg_body_frame(const lg_system *s, size_t i);
LAGRANGE_API long lg_body_point(const lg_system *s, size_t i);
/* The `draw` statements in file order: `draw segment P Q` (a = P, b = Q)
 * and `draw trail P, Q` (one statement per point: a = the point, b = -1),
 * and the shapes (MODEL-FORMAT `draw`): a sphere, disk or box at a = P
 * (b = -1), a capsule or cylinder between a = P and b = Q (a cylinder
 * along a frame's axis has b = -1). lg_draw_info returns the kind (an
 * lg_draw_kind), or -1 when i is out of range; a and b (point indices)
 * may be NULL. */
typedef enum lg_draw_kind {
  LG_DRAW_SEGMENT = 0, LG_DRAW_TRAIL = 1, LG_DRAW_SPHERE = 2, LG_DRAW_CAPSULE = 3,
  LG_DRAW_CYLINDER = 4, LG_DRAW_DISK = 5, LG_DRAW_BOX = 6
} lg_draw_kind;
LAGRANGE_API size_t lg_ndraws(const lg_system *s);
LAGRANGE_API int lg_draw_info(const lg_system *s, size_t i, long *a, long *b);
/* Where shape i (a draw of kind LG_DRAW_SPHERE or after) lives in the
 * scene record of lg_scene_eval: *o_rot, the rotation R of its frame (9,
 * row-major, v_frame = R v_inertial as the bodies'; the identity without a
 * frame), and *o_val, six numbers: its sizes (a radius, then a cylinder's
 * length or a disk's width, 0 where not given; a box's edges along the
 * frame's x, y, z), then the offset of its centre from point a along the
 * frame's axes (0 where not given). *axis: the frame's axis (0, 1, 2 for
 * x, y, z) a disk or a cylinder in a frame turns about. Returns the kind,
 * or -1 (outputs 0) when draw i is no shape or out of range; the outputs
 * may be NULL. */
LAGRANGE_API int lg_draw_shape(const lg_system *s, size_t i, int *axis, size_t *o_rot,
                               size_t *o_val);

/* The scene at (t, q) with parameters p[np] (NULL: the defaults;
 * LG_ERR_USAGE when one has no value): one record of lg_scene_size(s)
 * doubles, with np = lg_npoints, nb = lg_nbodies (offsets in doubles):
 *   positions  3 np  at 0                   x, y, z of each point in the
 *                                           inertial frame
 *   rotations  9 nb  at 3 np                each body's R, row-major, with
 *                                           v_body = R v_inertial
 *   gravity    3     at 3 np + 9 nb         in the inertial frame (0 without)
 *   inertia    7 nb  at 3 np + 9 nb + 3     mass, Ixx Iyy Izz Ixy Iyz Izx
 *                                           of each body (its frame's axes)
 *   shapes    15 ns  at 3 np + 16 nb + 3    the `draw` shapes (ns of them):
 *                                           9 ns rotations, then 6 ns numbers
 *                                           (lg_draw_shape gives the offsets)
 * so lg_scene_size = 3 np + 16 nb + 3 + 15 ns. q' plays no part. lg_scene_many
 * does the same at count states: (t[k], q + k*nq) (t NULL: 0) into
 * out + k * lg_scene_size(s). Values are written as computed: a position
 * may be inf or NaN where the model's geometry is (check before drawing).
 * The first call compiles the scene (under the system's lock, as
 * printing); every call after only reads it and takes its work memory
 * from a pool the system keeps, so any number of threads may call these
 * on one system at once. */
LAGRANGE_API size_t lg_scene_size(const lg_system *s);
LAGRANGE_API lg_status lg_scene_eval(const lg_system *s, double t, const double *q,
                                     const double *p, double *out, lg_diag *diag);
LAGRANGE_API lg_status lg_scene_many(const lg_system *s, size_t count, const double *t,
                                     const double *q, const double *p, double *out,
                                     lg_diag *diag);
/* ---- outputs (MODEL-FORMAT 1.1: `output NAME = EXPR [in FRAME]`) ---------------------- */
/* The model's outputs as columns, in declaration order: a scalar output is
 * one column NAME, a vector output three, NAME_x, NAME_y, NAME_z (its
 * measure numbers in its frame). lg_output_name: NULL when i is out of
 * range; the name lives as long as the system. */
LAGRANGE_API size_t lg_noutputs(const lg_system *s);
LAGRANGE_API const char *lg_output_name(const lg_system *s, size_t i);
/* out[lg_noutputs(s)]: the outputs at (t, q, q') with parameters p[np]
 * (NULL: the defaults). q'' and the multipliers they may use are solved
 * at that state first, as lg_eval gives them; under Kane's method q'' is
 * Kane's and the multipliers are solved from Lagrange's equations at the
 * same state (they are not in Kane's equations). The outputs are compiled
 * on the first call (under the system's lock; safe from many threads).
 * LG_ERR_NUMERIC when the equations are singular at the state, LG_ERR_MODEL
 * (at the output's line:col) when an output cannot be evaluated,
 * LG_ERR_USAGE for a missing argument or a parameter without a value. */
LAGRANGE_API lg_status lg_eval_outputs(const lg_system *s, double t, const double *q,
                                       const double *qd, const double *p, double *out,
                                       lg_diag *diag);

/* ---- outputs along a run (issue 24, lg_api_outputs.c) ---- */
/* The output columns a selection text names, in the order given: names
 * separated by commas (blanks around them ignored); an output's name
 * stands for all its columns (a vector output r for r_x, r_y, r_z), a
 * column's own name (r_x) for that column. cols[room] receives indices
 * for lg_output_name, *count their number. text NULL: every column in
 * order. LG_ERR_USAGE, naming `outputs` and the name, for an unknown name
 * (the message lists the model's outputs), a column named twice, an empty
 * name, or too little room (lg_noutputs(s) always suffices). */
LAGRANGE_API lg_status lg_output_select(const lg_system *s, const char *text, size_t *cols,
                                        size_t room, size_t *count, lg_diag *diag);

/* ---- workspaces ------------------------------------------------------------------ */
/* The data half of the data model (the lg_system is the immutable model
 * half, as MuJoCo's mjModel/mjData): a workspace holds the parameter
 * values of its calls and the scratch they evaluate in, taken from the
 * system once. Give each thread its own: a loop of lg_work_accel takes no
 * lock and (under Lagrange's method) allocates nothing, and changing a
 * parameter recompiles nothing. The system must outlive its workspaces. */
typedef struct lg_work lg_work;
/* A workspace with the model's parameter values (NaN where it gives none). */
LAGRANGE_API lg_status lg_work_new(const lg_system *s, lg_work **out, lg_diag *diag);
LAGRANGE_API void lg_work_free(lg_work *w);
LAGRANGE_API const lg_system *lg_work_system(const lg_work *w);
/* The np parameter values the workspace's calls use, in declaration
 * order: read or write them directly (values defined from others do not
 * follow then; lg_work_set makes them follow). */
LAGRANGE_API double *lg_work_params(lg_work *w);
/* Set parameter `name` (the values defined from it follow, as with
 * lg_params_with; values changed here before stay). LG_ERR_USAGE naming
 * an unknown name. */
LAGRANGE_API lg_status lg_work_set(lg_work *w, const char *name, double value, lg_diag *diag);
/* lg_eval_accel, lg_eval and lg_simulate with the workspace's parameters
 * (LG_ERR_USAGE when one of them has no value). */
LAGRANGE_API lg_status lg_work_accel(lg_work *w, double t, const double *q, const double *qd,
                                     double *qdd, double *lam, lg_diag *diag);
LAGRANGE_API lg_status lg_work_eval(lg_work *w, double t, const double *q, const double *qd,
                                    const lg_eval_result *r, lg_diag *diag);
LAGRANGE_API lg_status lg_work_simulate(lg_work *w, const lg_sim_options *o, const double *q0,
                                        const double *qd0, lg_sim_callback cb, void *ud,
                                        lg_sim_stats *stats, lg_diag *diag);

/* ---- contact and friction (issue 25) ---- */
/* The model's `contact` statements' CSV columns, after the multipliers and
 * before the outputs: contactK_fn (K from 1: the normal force, 0 while
 * open) and, with friction, contactK_ft (the friction force along the
 * tangent n x N.z); lg_sim_point.contact holds their values.
 * lg_contact_column: NULL when i is out of range. */
LAGRANGE_API size_t lg_ncontact_columns(const lg_system *s);
LAGRANGE_API const char *lg_contact_column(const lg_system *s, size_t i);

/* Frees a string the library returned; NULL does nothing. */
LAGRANGE_API void lg_string_free(char *s);

#ifdef __cplusplus
}
#endif

#endif
