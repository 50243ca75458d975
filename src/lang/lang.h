/* lang.h - the model language: a model file in, a mechanics model out.
 *
 * lang_load_* parses the text (lang_parse.c), resolves names and types
 * (lang_sema*.c) and fills a mech_model in a fresh sym_ctx. The result
 * owns both; lang_model_free releases everything.
 */
#ifndef LG_LANG_H
#define LG_LANG_H

#include "lg_base.h"
#include "mech.h"
#include "sym.h"

typedef struct lang_model {
  char *file;           /* path as given (for diagnostics) */
  sym_ctx *ctx;
  mech_model *mech;
  size_t n;             /* coordinates */
  double *q0, *qd0;     /* n: the `initial` state (0 where unset) */
  int has_simulate;
  double t0, tf, dt;    /* from `simulate` (defaults 0, 10, 0.01) */
  int coord_line, coord_col; /* where coordinates were declared */
  char **notes;         /* remarks for stderr (e.g. dropped zero rows) */
  size_t nnotes;
} lang_model;

/* Read and build a model. On error returns LG_ERR_MODEL (or IO/NOMEM)
 * with diag filled (file:line:col, message, hint) and *out NULL. */
lg_status lang_load_file(const char *path, lang_model **out, lg_diag *diag);
lg_status lang_load_string(const char *file, const char *src, size_t len,
                           lang_model **out, lg_diag *diag);
void lang_model_free(lang_model *m);

/* Kane's equations of a loaded model, the dependent speeds chosen by
 * partial pivoting at its initial state (lang_kane.c). */
lg_status lang_derive_kane(lang_model *lm, const mech_setting *set, size_t nset,
                           mech_kane **out, lg_diag *diag);
/* The same, pivoting at (t, q, q') (n values each). */
lg_status lang_derive_kane_at(lang_model *lm, const mech_setting *set, size_t nset,
                              double t, const double *q, const double *qd,
                              mech_kane **out, lg_diag *diag);

/* Index of coordinate `name`, or -1. */
int lang_coord_index(const lang_model *m, const char *name);

#endif
