/* lang_sema.h - the semantic pass, shared by its files: the symbol table
 * and typed values (scalar, vector, point, frame). */
#ifndef LG_LANG_SEMA_H
#define LG_LANG_SEMA_H

#include "lang.h"
#include "lang_syntax.h"

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

typedef struct sema {
  const char *file;
  lang_model *out;
  sym_ctx *c;
  mech_model *m;
  lg_diag *diag;
  sema_entry *names;
  size_t nnames, cap;
  int nframes, npoints;
  int has_gravity, has_L, has_energy;
  int L_line, L_col;
  int energy_line, energy_col;
  const char *energy_what;
} sema;

/* Error at a position; returns a failed value for convenience. */
sema_val sema_fail(sema *S, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
sema_entry *sema_lookup(sema *S, const char *name);
/* An unknown-name error with a "did you mean" hint. */
sema_val sema_unknown(sema *S, const char *name, int line, int col);
/* Declare a name; reports redeclaration and reserved names. */
sema_entry *sema_declare(sema *S, const char *name, sema_kind kind, int line, int col);

/* Evaluate an expression (lang_sema_expr.c). */
sema_val sema_expr(sema *S, const lang_expr *e);
/* Evaluate and insist on a scalar / vector / frame / point. */
const sym_node *sema_scalar(sema *S, const lang_expr *e, const char *what);
int sema_vector(sema *S, const lang_expr *e, const char *what, mech_vec *out);
int sema_frame(sema *S, const lang_expr *e, const char *what);
int sema_point(sema *S, const lang_expr *e, const char *what);

/* Grow the model's initial-state arrays to n coordinates. */
int lang_model_fit(lang_model *m, size_t n);

/* Statements (lang_sema_stmt.c). */
lg_status sema_statement(sema *S, const lang_stmt *st);

#endif
