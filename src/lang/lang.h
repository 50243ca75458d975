/* lang.h - the model language: a model file in, a mechanics model out.
 *
 * lang_load_* parses the text (lang_lex.c, lang_parse.c: lang_ast.h), resolves names and types
 * (lang_sema*.c) and fills a mech_model in a fresh sym_ctx. The result
 * owns both; lang_model_free releases everything.
 */
#ifndef LG_LANG_H
#define LG_LANG_H

#include "lg_base.h"
#include "mech.h"
#include "sym.h"

/* The names a model declares, kept for expressions given later
 * (lang_scalar_of_text); layer-internal. */
typedef struct lang_scope lang_scope;

/* A `draw` statement (docs/REFERENCE.md: extensions of the model language): what the
 * animation shows beyond its default. */
typedef enum lang_draw_kind {
  LANG_DRAW_SEGMENT, LANG_DRAW_TRAIL, LANG_DRAW_SPHERE, LANG_DRAW_CAPSULE, LANG_DRAW_CYLINDER,
  LANG_DRAW_DISK, LANG_DRAW_BOX
} lang_draw_kind;
typedef struct lang_draw {
  lang_draw_kind kind;
  int p, q;             /* point indices (q: SEGMENT, and CAPSULE or CYLINDER between two
                           points; else -1) */
  int line, col;
  /* shapes: the frame (-1: none, the inertial axes), the axis of a disk or a
   * cylinder in a frame (0, 1, 2: x, y, z), the sizes (radius then length or
   * width; a box's three edges) and the centre's offset from p along the
   * frame's axes; NULL where 0 */
  int frame, axis;
  const sym_node *val[3], *at[3];
} lang_draw;

/* A `when` statement (MODEL-FORMAT 1.1 "Events in detail"): it fires
 * when g = A - B crosses zero downward (dir -1, `<`) or upward (dir +1,
 * `>`). Either stop, or the assignments target[k] = value[k] made at once
 * (rate[k]: to the coordinate's rate q', else to q), their values taken
 * at the state just before. Expressions live in the model's context. */
typedef struct lang_event {
  const sym_node *g;
  int dir;
  int stop;
  size_t nset;
  int *target;           /* coordinate indices (nset) */
  unsigned char *rate;   /* nset */
  const sym_node **value; /* nset */
  int line, col;
} lang_event;

/* A `friction x: F [static Fs]` statement (MODEL-FORMAT 1.1): Coulomb
 * friction of level F (static level Fs, F when not written) on
 * coordinate `coord`; F and Fs are expressions of t, q, q', parameters
 * and inputs in the model's context. */
typedef struct lang_friction {
  int coord;
  const sym_node *F, *Fs;
  int line, col;
} lang_friction;

/* A `contact P plane O n restitution e [friction mu]` statement: the gap
 * g = dot(pos(P) - pos(O), n / |n|) >= 0, the restitution e and the
 * friction coefficient mu (NULL when not written), in the model's context.
 * The gap forms (lang_sema_contact.c) fill the same: `contact A >= B`
 * g = A - B (`<=`: B - A), `contact limits` one contact per kept URDF
 * stop (q - lower, upper - q); mu, vt, vt2 NULL then. */
typedef enum lang_contact_kind {
  LANG_CONTACT_PLANE,
  LANG_CONTACT_GAP,
  LANG_CONTACT_LIMIT
} lang_contact_kind;

typedef struct lang_contact {
  lang_contact_kind kind;
  /* GAP: the statement's inequality; LIMIT: "the lower limit of joint 'J'"
   * (for messages) */
  char what[128];
  const sym_node *g, *e, *mu;
  /* with friction (mu written and not 0): the tangential velocity
   * dot(vel(P) - vel(O), n x N.z / |n|) of a planar contact (n and the
   * relative velocity in the inertial frame's xy-plane); else NULL. In
   * 3D (the friction cone) vt and vt2 are its components along two unit
   * tangents (lang_sema_contact.c); vt2 NULL when planar. */
  const sym_node *vt, *vt2;
  int line, col;
  /* its CSV columns: contactK_fn, contactK_ft (3D: contactK_ft1, contactK_ft2) */
  char fn_name[32], ft_name[32], ft2_name[32];
} lang_contact;

typedef struct lang_model {
  char *file;           /* path as given (for diagnostics) */
  sym_ctx *ctx;
  mech_model *mech;
  size_t n;             /* coordinates */
  double *q0, *qd0;     /* n: the `initial` state (0 where unset) */
  /* Initial speeds (`initial u1 = 0.3`), by speed index (mech_add_speed
   * order): u0[i] is the value and u0_set[i] is 1 where the model gives one
   * (0 where unset: the numeric layers then take the speed from the
   * initial q' through the kinematical equations). nspeeds = the declared
   * speeds; both arrays are NULL when there are none. */
  double *u0;
  unsigned char *u0_set;
  size_t nspeeds;
  size_t n_cap, speeds_cap; /* the arrays' capacities (lg_grow) */
  int has_simulate;
  double t0, tf, dt;    /* from `simulate` (defaults 0, 10, 0.01) */
  int coord_line, coord_col; /* where coordinates were declared */
  char **notes;         /* remarks for stderr (e.g. dropped zero rows) */
  size_t nnotes, notes_cap;
  lang_scope *scope;    /* every declared name (owned) */
  lang_draw *draws;     /* `draw` statements in file order (owned) */
  size_t ndraws, draws_cap;
  lang_event *events;   /* `when` statements in file order (owned) */
  size_t nevents, events_cap;
  lang_friction *frictions; /* `friction` statements in file order (owned) */
  size_t nfrictions, frictions_cap;
  lang_contact *contacts; /* `contact` statements in file order (owned) */
  size_t ncontacts, contacts_cap;
  struct lang_expanded *expanded; /* a URDF's model text (owned; NULL: none) */
} lang_model;

/* Read and build a model. On error returns LG_ERR_MODEL (or IO/NOMEM)
 * with diag filled (file:line:col, message, hint) and *out NULL. diag may
 * be NULL (the status alone then says what happened). */
lg_status lang_load_file(const char *path, lang_model **out, lg_diag *diag);
lg_status lang_load_string(const char *file, const char *src, size_t len,
                           lang_model **out, lg_diag *diag);
/* The same model as lang_load_string(file, src, len) gives, in a new
 * context, for a `prev` that lang_load_string loaded from that text: a
 * URDF's expansion (the XML read and turned into model text) is taken from
 * prev instead of being made again. */
lg_status lang_load_again(const lang_model *prev, const char *file, const char *src, size_t len,
                          lang_model **out, lg_diag *diag);
void lang_model_free(lang_model *m);
/* f applied to every line:col the model keeps (its statements' positions
 * in the model, the mechanics model's rows, outputs, parameters, ...);
 * lang_load_* uses it to move the positions of a model that imports a
 * URDF back to the model's own lines. */
void lang_model_remap_positions(lang_model *m, void (*f)(void *ud, int *line, int *col),
                                void *ud);

/* Kane's equations of a loaded model, the dependent speeds chosen by
 * partial pivoting at its initial state (lang_kane.c). */
lg_status lang_derive_kane(lang_model *lm, const mech_setting *set, size_t nset,
                           mech_kane **out, lg_diag *diag);
/* The same, pivoting at (t, q, q') (n values each). */
lg_status lang_derive_kane_at(lang_model *lm, const mech_setting *set, size_t nset,
                              double t, const double *q, const double *qd,
                              mech_kane **out, lg_diag *diag);
/* A model whose declared speeds have `initial` values starts with
 * q' = k(q0, u0, t0) (the kinematical equations; u0 0 where unset): 1 and
 * qd[n] filled when it gives any and the values are finite (with the
 * parameters' values under set), else 0 and qd untouched. */
int lang_kane_initial_qd(const lang_model *lm, const mech_kane *k, const mech_setting *set,
                         size_t nset, double *qd);
/* The scalar expression text[0..len) in the model's terms: coordinates and
 * their derivatives, speeds, parameters, inputs, t, named intermediates,
 * and points and frames through pos, vel, angvel, A.x, ... (no
 * accelerations). Diagnostics call the text `what` (a file name such as
 * "--stop-when") with line and column in the text. The result lives in
 * m->ctx. The model gains no names; any number of texts may be read. */
lg_status lang_scalar_of_text(lang_model *m, const char *what, const char *text, size_t len,
                              const sym_node **out, lg_diag *diag);


#endif
