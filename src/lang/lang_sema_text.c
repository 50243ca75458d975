/* lang_sema_text.c - an expression given after loading (a command-line
 * argument such as `simulate --stop-when`), read in the model's names. */
#include "lang_sema.h"

lg_status lang_scalar_of_text(lang_model *m, const char *what, const char *text, size_t len,
                              const sym_node **out, lg_diag *diag) {
  lg_diag local;
  lg_arena arena;
  lang_expr *e = NULL;
  lg_status st;
  if (!diag) diag = &local;
  lg_diag_clear(&local);
  if (!what) what = "<expression>";
  if (out) *out = NULL;
  if (!m || !m->scope || !out) {
    lg_diag_set(diag, LG_ERR_USAGE, what, 0, 0, "lang_scalar_of_text: no model or output");
    return LG_ERR_USAGE;
  }
  lg_arena_init(&arena);
  st = lang_parse_expr(what, text, len, &arena, &e, diag);
  if (st == LG_OK) {
    /* the scope's names are read, never added to: cap = nnames keeps it so */
    sema S = {.file = what, .out = m, .c = m->ctx, .m = m->mech, .diag = diag,
              .names = m->scope->names, .nnames = m->scope->nnames,
              .cap = m->scope->nnames, .rule = SEMA_RULE_NO_ACCEL,
              .rule_what = "the expression"};
    *out = sema_scalar(&S, e, "the expression");
    sema_free_index(&S);
    if (S.oom || sym_ctx_error(m->ctx) == LG_ERR_NOMEM) st = LG_ERR_NOMEM;
    else if (!*out) st = diag->status != LG_OK ? diag->status : LG_ERR_NOMEM;
    if (st != LG_OK) *out = NULL;
    if (st == LG_ERR_NOMEM && diag->status != LG_ERR_NOMEM) {
      lg_diag_clear(diag);
      lg_diag_set(diag, LG_ERR_NOMEM, what, 0, 0, "out of memory");
    }
  }
  lg_arena_free(&arena);
  return st;
}
