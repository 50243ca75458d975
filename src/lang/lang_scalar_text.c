/* lang_scalar_text.c - one scalar expression given outside the model file
 * (simulate --stop-when 'theta'), read with the model language against a
 * loaded model: t, the coordinates and their rates, parameters and inputs.
 * Diagnostics point into the text itself (line 1, its column). */
#include "lang_sema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text is parsed as the statement `PREFIX EXPR`. */
static const char PREFIX[] = "_expr_ = ";

static void declare_model_names(sema *S) {
  mech_model *mm = S->m;
  for (size_t i = 0; i < mech_ncoords(mm); i++) {
    sema_entry *en = sema_declare(S, mech_coord(mm, i, 0)->v.name, SEMA_COORD, 0, 0);
    if (en) en->index = (int)i;
  }
  for (size_t i = 0; i < mech_nparams(mm); i++) {
    sema_entry *en = sema_declare(S, mech_param_name(mm, i), SEMA_PARAM, 0, 0);
    if (en) en->index = (int)i;
  }
  for (size_t i = 0; i < mech_ninputs(mm); i++) {
    sema_entry *en = sema_declare(S, mech_input_name(mm, i), SEMA_INPUT, 0, 0);
    if (en) en->index = (int)i;
  }
}

static const sym_node *evaluate(lang_model *m, const lang_stmt *st, const char *what,
                                lg_diag *diag) {
  sema S = {.file = what, .out = m, .c = m->ctx, .m = m->mech, .diag = diag};
  declare_model_names(&S);
  const sym_node *e = diag->status == LG_OK ? sema_scalar(&S, st->value, what) : NULL;
  for (size_t i = 0; e && i < mech_ncoords(m->mech); i++)
    if (sym_has(e, mech_coord(m->mech, i, 2))) {
      sema_fail(&S, st->value->line, st->value->col,
                "%s may use coordinates and their rates, not the acceleration %s''", what,
                mech_coord(m->mech, i, 0)->v.name);
      e = NULL;
    }
  lg_free(S.names);
  return e;
}

/* Positions quoted inside a message ("to close '(' at 1:13") move too. */
static void shift_quoted(char *msg, size_t size, int np) {
  char *at = strstr(msg, " at 1:");
  if (!at) return;
  char *end;
  long col = strtol(at + 6, &end, 10);
  if (end == at + 6 || col <= np) return;
  char rest[sizeof ((lg_diag *)0)->message];
  snprintf(rest, sizeof rest, "%s", end);
  snprintf(at, size - (size_t)(at - msg), " at 1:%ld%s", col - np, rest);
}

lg_status lang_parse_scalar(lang_model *m, const char *text, const char *what,
                            const sym_node **out, lg_diag *diag) {
  *out = NULL;
  size_t np = sizeof PREFIX - 1, len = strlen(text);
  char *src = lg_malloc(np + len + 1);
  if (!src) return LG_ERR_NOMEM;
  memcpy(src, PREFIX, np);
  memcpy(src + np, text, len + 1);
  lg_arena arena;
  lg_arena_init(&arena);
  lang_program *prog = NULL;
  lg_status st = lang_parse_program(what, src, np + len, &arena, &prog, diag);
  if (st == LG_OK && (!prog->first || prog->first->next || !prog->first->value)) {
    lg_diag_set(diag, LG_ERR_MODEL, what, 1, 1, "%s takes one expression on one line", what);
    st = LG_ERR_MODEL;
  }
  if (st == LG_OK && !(*out = evaluate(m, prog->first, what, diag)))
    st = diag->status != LG_OK ? diag->status : LG_ERR_NOMEM;
  if (st != LG_OK && diag->line == 1) { /* columns inside the text */
    diag->col = diag->col > (int)np ? diag->col - (int)np : 1;
    shift_quoted(diag->message, sizeof diag->message, (int)np);
  }
  lg_arena_free(&arena);
  lg_free(src);
  return st;
}
