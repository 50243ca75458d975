/* lg_api_internal.h - what the public objects hold, and the discipline
 * every public entry follows (lg_api_*.c only; never installed).
 *
 * An lg_model keeps the model text: lg_derive parses it again into a
 * context of its own, so a system shares nothing with its model and the
 * model is never written after loading. An lg_system owns that context,
 * the derived equations and their compiled tapes; the tapes are only read
 * after lg_derive, and everything that still touches the symbolic context
 * (printing, code generation, compiling the linearization) holds `lock`. */
#ifndef LG_API_INTERNAL_H
#define LG_API_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "lagrange.h"
#include "lang.h"
#include "lg_base.h"
#include "mech.h"
#include "num.h"

struct lg_model {
  char *name;
  char *text;
  size_t len;
  /* The load's parse, handed to the first lg_derive (which would parse
   * the text again into a context of its own: 4 ms of a 40-link URDF's
   * first evaluation); later derives parse again. Atomic: threads may
   * derive one model at once (the model is otherwise only read). */
  _Atomic(lang_model *) parsed;
  /* what the lg_model_* queries report, copied from the parse */
  char **notes, **coords, **known; /* known: parameters and inputs */
  size_t nnotes, nq, nknown;
  int coord_line, coord_col;
  mech_setting *set;     /* lg_model_set's values (names owned), applied by
                            every derive */
  size_t nset, set_cap;
};
/* The model's parse for a system of its own, once (NULL: parse again). */
lang_model *api_model_take_parse(const lg_model *m);

/* Scratch for one evaluation of `num` (lg_api_scratch.c): the tape's
 * work and x (n + m: the solved [q''; lam]). */
typedef struct api_scratch {
  num_work w;
  double *x;
  const double *par;     /* the call's parameters (not owned) */
  size_t nslots;         /* w.slots' length */
  size_t nout;           /* w.out's length */
} api_scratch;
typedef struct api_pool api_pool;
/* The model's geometry, compiled on first use (lg_api_scene.c). */
typedef struct api_scene api_scene;
void api_scene_free(api_scene *a);

/* One derived system, never changed after lg_derive: the equations as
 * derived (eom_raw, kane_raw: what printing starts from), their collected
 * form (eom, kane: what every numeric object and the generated code are
 * built from, as `simulate` and `codegen` build them), and the compiled
 * objects. The printed form is made once, on first use, as new equations
 * beside these (simplification never changes equations in place). */
struct lg_system {
  lg_method method;
  size_t nq, nc, np;     /* known at derive, before anything is compiled */
  mech_setting *dummy;   /* what every build is given: the model's
                            lg_model_set values, then a stand-in value for
                            each parameter without one (every evaluation
                            passes the real values) */
  size_t ndummy;
  size_t nsettings;
  char **speed_names;    /* lg_nu of them: Kane's independent speeds as the
                            reports name them (a coordinate's rate "x'") */      /* the first nsettings of dummy are the model's
                            (what codegen bakes in as defaults) */
  lang_model *lm;        /* owns the context everything below lives in */
  /* A lazily derived large tree given by its numbers (a URDF:
   * mech_num_tree_of) derives nothing at lg_derive: its q'' and eval's
   * forms come from those numbers (num_links_numbers.c), and eom_raw,
   * eom (and everything made from them) wait for the first caller that
   * needs expressions (api_derived, under `lock`, which is recursive).
   * Every other system is derived at lg_derive (derived 1). */
  _Atomic int derived;
  lg_status derive_status;
  lg_diag derive_diag;
  mech_eom *eom_raw;     /* Lagrange's equations as derived */
  mech_eom *eom;         /* collected (also for T, V, momenta) */
  mech_eom eom_first;    /* *eom as collected, before the dense dynamics
                            (printing, Kane's) replace a large tree's T and
                            V: api_num_eom starts from it, so that what is
                            compiled does not depend on what ran first */
  mech_kane *kane_raw;   /* Kane's as derived, under LG_KANE */
  mech_kane *kane;       /* collected */
  double *kane_qd0;      /* nq: the initial q' from the initial speeds
                            (lang_kane_initial_qd), else NULL */
  mech_eom *kane_eom;    /* Kane's in Lagrange's shape (u = q', no
                            constraints), collected, else NULL */
  mech_eom *eom_num;     /* what the numeric objects (and the default code)
                            are built from: eom, or for a kinematic tree of
                            more than API_TREE_DENSE_MAX coordinates its
                            composite-rigid-body form (api_num_eom; made
                            on first use under the lock, then read) */
  const mech_eom *print_eom;   /* for lg_print, made on first use (lock) */
  const mech_kane *print_kane;
  num_system *num;       /* Lagrange's equations, compiled */
  /* A large tree (Lagrange, more than API_TREE_DENSE_MAX coordinates, no
   * constraints, lazy or not) compiles its first q'' in two steps (issue
   * 26): api_ready_accel makes num_tree (the articulated-body recursion on
   * numbers over the links, num_links.c, or else its tape alone) and sets
   * accel_ready; api_ready later makes num (M, f and
   * the rest). Every entry that reports q'' (lg_eval_accel, lg_eval,
   * lg_work_*, outputs) takes it from num_tree, so that they agree to the
   * last bit whatever was compiled first; where it is not finite, from
   * num's dense solve (and its diagnostic). Each is read without the lock
   * once its flag is set. */
  num_system *num_tree;
  _Atomic int accel_ready;
  int accel_tried;       /* (under the lock) */
  /* Then what only simulate reads (sim: num with the recursion's tape;
   * aux), made by api_ready_sim; set with `compiled` for the others. */
  _Atomic int sim_ready;
  lg_status sim_status;
  lg_diag sim_diag;
  num_system *sim;       /* what simulate integrates in x = [q; q']:
                            num, or Kane's in Lagrange's shape */
  num_kane_evaluator *kev; /* Kane's equations at one state */
  num_lin *lin;          /* the linearization, compiled on first use (lock) */
  num_lin *sim_lin;      /* the same over `sim`: BDF's and IDA's exact
                            Jacobian, compiled on first use (lock) */
  num_kane_system *ks;   /* Kane's state [q; u], when kane_eom is NULL */
  num_aux *aux;          /* E and W over the simulated state */
  /* Lazily derived systems (lg_derive_options.lazy) compile everything
   * numeric on first evaluation (api_ready, under `lock`); `compiled` is
   * read without the lock once set. */
  _Atomic int compiled;
  lg_status compile_status;
  lg_diag compile_diag;  /* why compiling failed, repeated to every caller */
  double *defaults;      /* np, NaN where the model gives no value */
  int simplify_eom, simplify_kane; /* expand for printing, decided at derive */
  int printed;           /* print_eom and print_kane made (under the lock) */
  num_outputs *_Atomic outs; /* the model's outputs, compiled on first use (lock) */
  pthread_mutex_t lock;
  api_pool *pool;        /* idle evaluation scratch (its own lock) */
  struct api_sim_jit *sim_jit; /* lg_simulate's compiled right-hand side
                            (lg_api_sim.c; lock), or NULL */
  api_scene *_Atomic scene; /* lg_scene_*: built on first use (lock), then read */
  struct num_events *events; /* the model's `when` statements compiled on
                            first use (lg_api_events.c; lock), or NULL */
  int events_built;
  struct num_friction *friction; /* the model's `friction` statements compiled on
                            first use (lg_api_friction.c; lock), or NULL */
  int friction_built;
  struct num_contact *contact; /* the model's `contact` statements compiled on
                            first use (lg_api_contact.c; lock), or NULL */
  int contact_built;
};

/* The model's events compiled once (NULL when it has none); an error for
 * a model with events under Kane's method with speeds of its own
 * (lg_api_events.c). Frees them with the system: api_events_free. */
lg_status api_sim_events(const lg_system *s, const struct num_events **out, lg_diag *d);
void api_events_free(lg_system *s);
/* The same for the model's `friction` statements (lg_api_friction.c), and
 * their levels checked at a run's start (F >= 0, Fs >= F; an error at the
 * statement). */
lg_status api_sim_friction(const lg_system *s, const struct num_friction **out, lg_diag *d);
lg_status api_friction_check(const lg_system *s, const struct num_friction *fr, double t,
                             const double *q, const double *qd, lg_diag *d);
void api_friction_free(lg_system *s);
/* The same for `contact` (lg_api_contact.c): a start below a plane is an
 * error at the statement. */
lg_status api_sim_contact(const lg_system *s, const struct num_contact **out, lg_diag *d);
lg_status api_contact_check(const lg_system *s, const struct num_contact *ct, double t,
                            const double *q, const double *qd, double atol, lg_diag *d);
void api_contact_free(lg_system *s);
/* Kane's own state [q; u] with events: num_sim_opts.kane_reset (ud: this)
 * makes (q, q') consistent with Lagrange's constraints ns (borrowed) and
 * takes u from q' through the kinematical equations (lg_api_events.c). */
typedef struct api_kane_reset {
  const lg_system *s;
  const num_system *ns;
  const num_events *ev;
  const double *par;
  int project;
  num_work w;
} api_kane_reset;
lg_status api_kane_reset_init(api_kane_reset *k, const lg_system *s, const num_system *ns,
                              const num_events *ev, const double *par, int project);
void api_kane_reset_free(api_kane_reset *k);
lg_status api_kane_reset_hook(void *ud, const int *fired, double t, double *q, double *qd,
                         double *u, lg_diag *d);

/* Frees what lg_simulate keeps in s (lg_api_sim.c). */
void api_sim_free(lg_system *s);

/* One public call: the caller's diag or a local one, cleared, and the
 * thread's failed-allocation count at entry. */
typedef struct api_call {
  lg_diag *d;
  lg_diag local;
  unsigned long fails;
} api_call;

lg_diag *api_begin(api_call *c, lg_diag *user);
/* The status to return: LG_ERR_NOMEM when an allocation failed during the
 * call (whatever the layers below made of it); the diagnostic completed
 * (status, file, a position for errors without one: line/col, and the
 * text). */
lg_status api_end(api_call *c, lg_status st, const char *file, int line, int col);

/* The dense equations (p, f, M, the full forms) of s->eom and s->eom_raw,
 * derived now if they are not yet: under the system's lock (or before the
 * system is handed out). LG_OK when they are there. */
lg_status api_dynamics(lg_system *s, lg_diag *d);
/* eom_raw and eom, derived now when lg_derive left them for later (see
 * `derived`); the status of that derivation. Every reader of eom_raw,
 * eom, eom_num or print_eom calls this (or api_num_eom, api_dynamics,
 * api_ready, which do) first. */
lg_status api_derived(const lg_system *s, lg_diag *d);

/* Past this many coordinates a kinematic tree with fixed kinematics is
 * evaluated without its dense equations: M by composite rigid bodies and
 * f by Newton-Euler (mech_tree_dynamics), q'' by the articulated-body
 * recursion. Up to it both are built and the shorter taken. */
enum { API_TREE_DENSE_MAX = 8 };

/* s->eom_num made (under the lock, or before the system is handed out). */
lg_status api_num_eom(lg_system *s, lg_diag *d);

/* The numeric objects of a lazily derived system, compiled now if they
 * are not yet (every evaluation entry calls it first, through api_params). */
lg_status api_ready(const lg_system *s, lg_diag *d);

/* The parameter vector of a call: p, or the defaults (LG_ERR_USAGE when
 * one has no value). Compiles a lazy system first (api_ready). */
lg_status api_params(const lg_system *s, const double *p, const double **out,
                     lg_diag *d);
/* Only what q'' needs (a large tree's num_tree): for such a tree the rest
 * waits for api_ready; else api_ready itself. */
lg_status api_ready_accel(const lg_system *s, lg_diag *d);
/* Everything, with what only simulate reads (s->sim, s->aux): api_ready,
 * then for a lazy large tree the recursion's tape and the energy balance. */
lg_status api_ready_sim(const lg_system *s, lg_diag *d);
lg_status api_params_accel(const lg_system *s, const double *p, const double **out,
                           lg_diag *d);
/* The system a scratch is first made for (after api_ready_accel): a large
 * tree's num_tree, else s->num. */
static inline const num_system *api_num_accel(const lg_system *s) {
  return s->num_tree ? s->num_tree : s->num;
}
/* A large tree whose every form eval reports comes from the links'
 * recursion on numbers (num_links_eval, issue 26): lg_eval, lg_eval_many
 * and lg_work_eval need no more than api_ready_accel, and take every form
 * from there whatever else was compiled (the same numbers from every
 * entry, whatever the call order). */
static inline int api_eval_by_links(const lg_system *s) {
  return s->accel_ready && s->num_tree && num_links_has_forms(s->num_tree->links);
}
/* q'' (and lam) at (t, q, q') into x (n + m) with the scratch's
 * parameters: the recursion's tape where there is one (s->num_tree),
 * else (or where it is not finite) the dense solve of s->num, whose tapes
 * `evaluated` says are already evaluated in sc (else it compiles s->num
 * when needed and evaluates its dynamics). */
lg_status api_solve_qdd(const lg_system *s, api_scratch *sc, double t, const double *q,
                        const double *qd, double *x, int evaluated, lg_diag *d);

/* The pool of a system's evaluation scratch: take one for a call (NULL:
 * out of memory), give it back after (NULL does nothing). Safe from any
 * number of threads. */
lg_status api_pool_new(api_pool **out);
void api_pool_free(api_pool *p);
api_scratch *api_scratch_take(const lg_system *s);
/* A scratch made before everything was compiled (api_ready_accel) grown
 * for every tape of s->num (after api_ready) and s->num_tree; LG_ERR_NOMEM. */
lg_status api_scratch_fit(const lg_system *s, api_scratch *sc);
void api_scratch_give(const lg_system *s, api_scratch *sc);
/* One state's q'' (and lam) or every form, with a scratch the caller holds
 * whose tape inputs already carry the parameters (sc->par set): what
 * lg_eval_accel and lg_eval do after taking one (lg_api_eval.c). */
lg_status api_accel_in(const lg_system *s, api_scratch *sc, double t, const double *q,
                       const double *qd, double *qdd, double *lam, lg_diag *d);
lg_status api_eval_in(const lg_system *s, api_scratch *sc, double t, const double *q,
                      const double *qd, const lg_eval_result *r, lg_diag *d);

/* Outputs (lg_api_outputs.c): the compiled outputs, built on first use
 * under the lock; and their values at (t, q, q') given q'' and lam there
 * (lam may be NULL when nc is 0; par the call's parameters), for callers
 * that have solved them (simulate's rows). */
lg_status api_outputs(const lg_system *s, const num_outputs **out, lg_diag *d);
lg_status api_outputs_at(const lg_system *s, double t, const double *q, const double *qd,
                         const double *par, const double *qdd, const double *lam, double *res,
                         lg_diag *d);
/* Simulate's rows (issue 24): the multipliers (lam: nc, or NULL) and
 * every output column (out, or NULL) at (t, q, q'), solved as
 * lg_eval_outputs solves them; sc taken by the caller with sc->par and
 * the parameters in sc->w.in set. */
lg_status api_state_extras(const lg_system *s, api_scratch *sc, double t, const double *q,
                           const double *qd, double *lam, double *out, lg_diag *d);

#endif
