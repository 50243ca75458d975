/* lang_sema.h - the semantic pass, shared by its files: the symbol table
 * and typed values (scalar, vector, point, frame). */
#ifndef LG_LANG_SEMA_H
#define LG_LANG_SEMA_H

#include "lang.h"
#include "lang_ast.h"

/* What a name stands for. */
typedef enum sema_kind {
  SEMA_COORD,
  SEMA_PARAM,
  SEMA_INPUT,
  SEMA_SPEED,
  SEMA_SCALAR,  /* named scalar intermediate */
  SEMA_VECTOR,  /* named vector intermediate */
  SEMA_FRAME,
  SEMA_POINT
} sema_kind;

typedef struct sema_entry {
  const char *name;
  sema_kind kind;
  int index;               /* coordinate, parameter, input, frame, point index */
  const sym_node *scalar;  /* SCALAR */
  mech_vec vec;            /* VECTOR */
  int line, col;           /* declaration */
  int has_body;            /* FRAME: carries a body */
} sema_entry;

/* The value of an expression. */
typedef enum sema_vkind { VAL_SCALAR, VAL_VECTOR, VAL_POINT, VAL_FRAME } sema_vkind;

typedef struct sema_val {
  sema_vkind kind;
  const sym_node *s;  /* SCALAR */
  mech_vec v;         /* VECTOR, or POINT's position */
  int index;          /* FRAME or POINT index */
  int ok;             /* 0 after an error (diag set) */
} sema_val;

/* The time derivatives an expression may hold. Every node's value is
 * checked as soon as it is computed (sema_expr), so the first node that
 * breaks the rule is the one reported. The motion order of an atom is its
 * derivative order for a coordinate (x: 0, x': 1, x'': 2) and one more for
 * a speed (u1: 1). A third derivative (motion order 3) is an error
 * everywhere. */
typedef enum sema_rule {
  SEMA_RULE_ANY,      /* named intermediates: up to accelerations */
  SEMA_RULE_NO_ACCEL, /* the model proper: q, q', speeds, t; no q'' or u' */
  SEMA_RULE_POSITION  /* orientation angles: q and t only */
} sema_rule;

typedef struct sema {
  const char *file;
  lang_model *out;
  sym_ctx *c;
  mech_model *m;
  lg_diag *diag;
  sema_entry *names;
  size_t nnames, cap;
  lg_map index;            /* names[i] by its name's hash (value i + 1), the first nindexed */
  size_t nindexed;
  int nframes, npoints;
  int has_gravity, has_L, has_energy;
  int L_line, L_col;
  int energy_line, energy_col;
  const char *energy_what;
  sema_rule rule;          /* for the expression being evaluated ... */
  const char *rule_what;   /* ... which is this ("the kinetic energy T") */
  int oom;                 /* an allocation failed (the status is out of memory) */
  int in_output;           /* evaluating an output: T, V, lamK, momentum() ... allowed */
  /* the unit norms of the quaternion frames, added after the model's own
   * constraints (sema_quaternion_norms) */
  struct sema_norm { const sym_node *row, *e[4]; int line, col; } *norms;
  size_t nnorms, norms_cap;
  /* the imported URDF's kept joint limits (`contact limits`; lang_urdf.h),
   * imports set when the model imports a URDF */
  const struct lang_limit *limits;
  size_t nlimits;
  int imports;
  /* the expansion the text came from (NULL: the model's own text): lines
   * named inside a message go through sema_line */
  const struct lang_expanded *x;
} sema;

/* Line `line` of the text as the user's file numbers it: for a model that
 * imports a URDF, the model's own line (a line made from the URDF: the
 * import statement's); *from_urdf (when not NULL) says which. For a line
 * named inside a message ("(line 4)"); the diagnostic's own position is
 * moved by lang_load_*. */
int sema_line(const sema *S, int line, int *from_urdf);

/* The names a model declared, kept after loading (lang.h): the entries
 * point into the syntax tree's arena, which is kept with them. */
struct lang_scope {
  lg_arena arena;
  sema_entry *names;
  size_t nnames;
};

/* The model's names handed over to its scope (false when out of memory).
 * The arena and S->names belong to the model afterwards. */
int sema_keep_scope(sema *S, lg_arena *arena);

/* Error at a position; returns a failed value for convenience. */
sema_val sema_fail(sema *S, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Out of memory (status LG_ERR_NOMEM); returns a failed value. */
sema_val sema_nomem(sema *S);
sema_entry *sema_lookup(sema *S, const char *name);
/* Free sema_lookup's index (the names themselves stay). */
void sema_free_index(sema *S);
/* An unknown-name error with a "did you mean" hint. */
sema_val sema_unknown(sema *S, const char *name, int line, int col);
/* Declare a name; reports redeclaration and reserved names. */
sema_entry *sema_declare(sema *S, const char *name, sema_kind kind, int line, int col);

/* Evaluate an expression (lang_sema_expr.c). */
sema_val sema_expr(sema *S, const lang_expr *e);
/* A coordinate or speed in v whose motion order (see sema_rule) is at
 * least `min`; *order is its derivative order. NULL when there is none. */
const sema_entry *sema_motion_atom(sema *S, sema_val v, int min, int *order);
/* Evaluate and insist on a scalar / vector / frame / point. */
const sym_node *sema_scalar(sema *S, const lang_expr *e, const char *what);
int sema_vector(sema *S, const lang_expr *e, const char *what, mech_vec *out);
int sema_frame(sema *S, const lang_expr *e, const char *what);
int sema_point(sema *S, const lang_expr *e, const char *what);

/* Grow the model's initial-state arrays to n coordinates. */
int lang_model_fit(lang_model *m, size_t n);
/* Grow the model's initial-speed arrays to n speeds. */
int lang_model_fit_speeds(lang_model *m, size_t n);
/* The first character of e as written (brackets aside): the start of its
 * leftmost operand. */
void sema_expr_start(const lang_expr *e, int *line, int *col);

/* Statements (lang_sema_stmt.c). */
lg_status sema_statement(sema *S, const lang_stmt *st);
/* Constraints, kinematics, the initial state and the time span
 * (lang_sema_motion.c). */
lg_status sema_constraint(sema *S, const lang_stmt *st);
lg_status sema_kinematics(sema *S, const lang_stmt *st);
lg_status sema_initial(sema *S, const lang_stmt *st);
lg_status sema_simulate(sema *S, const lang_stmt *st);
/* The unit norms of the quaternion frames as the last constraints. */
lg_status sema_quaternion_norms(sema *S);
/* output NAME = EXPR [in FRAME] (lang_sema_out.c); run after every other
 * statement. The output-only names and functions: */
lg_status sema_output(sema *S, const lang_stmt *st);
/* T, V or lamK in an output: *ok 1 and the atom; *ok 0 when name is none
 * of them (the value then unset); an error when used outside an output. */
sema_val sema_output_name(sema *S, const char *name, int line, int col, int *ok);
/* momentum(), angmom(P), mass_center() */
sema_val sema_output_call(sema *S, const lang_expr *e);

/* when A < B: ... (lang_sema_when.c) */
lg_status sema_when(sema *S, const lang_stmt *st);
/* friction x: F [static Fs] (lang_sema_contact.c) */
lg_status sema_friction(sema *S, const lang_stmt *st);
/* contact P plane O n restitution e [friction mu] (lang_sema_contact.c) */
lg_status sema_contact(sema *S, const lang_stmt *st);

/* sym_atom_value_fn: a parameter's default value (ud is the sema). */
int sema_param_default(void *ud, const sym_node *atom, double *out);

#endif
