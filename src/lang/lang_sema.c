/* lang_sema.c - the semantic pass: symbol table, diagnostics, and
 * loading a model file end to end (parse, then statements in order). */
#include "lang_sema.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- diagnostics ----------------------------------------------------------------------- */
sema_val sema_fail(sema *S, int line, int col, const char *fmt, ...) {
  if (S->diag->status == LG_OK) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lg_diag_set(S->diag, LG_ERR_MODEL, S->file, line, col, "%s", msg);
  }
  return (sema_val){VAL_SCALAR, NULL, {0, NULL}, 0, 0};
}

/* ---- the symbol table ------------------------------------------------------------------ */
static const char *const reserved[] = {
    "t", "pi", "T", "V", "D", "L", "coordinates", "parameters", "inputs", "frame",
    "point", "particle", "body", "mass", "at", "inertia", "gravity", "force", "torque",
    "constraint", "speeds", "kinematics", "initial", "simulate", "to", "step", "der",
    "dot", "cross", "norm", "pos", "vel", "angvel", "rotate", "body_fixed",
    "space_fixed", NULL};

static const char *reserved_why(const char *name) {
  if (sym_fn_lookup(name) >= 0) return "a function name";
  for (int i = 0; reserved[i]; i++) {
    if (strcmp(reserved[i], name) != 0) continue;
    if (!strcmp(name, "t")) return "time";
    if (!strcmp(name, "pi")) return "the constant pi";
    if (!strcmp(name, "L")) return "the Lagrangian; a length is usually 'l'";
    if (!strcmp(name, "T") || !strcmp(name, "V") || !strcmp(name, "D"))
      return "an energy name";
    return i < 26 ? "a statement keyword" : "a function name";
  }
  return NULL;
}

sema_entry *sema_lookup(sema *S, const char *name) {
  for (size_t i = 0; i < S->nnames; i++)
    if (strcmp(S->names[i].name, name) == 0) return &S->names[i];
  return NULL;
}

sema_entry *sema_declare(sema *S, const char *name, sema_kind kind, int line, int col) {
  const char *why = reserved_why(name);
  if (why) {
    sema_fail(S, line, col, "'%s' is reserved (%s): choose another name", name, why);
    return NULL;
  }
  sema_entry *old = sema_lookup(S, name);
  if (old) {
    sema_fail(S, line, col, "'%s' is already declared at line %d", name, old->line);
    lg_diag_hint(S->diag, "every name is declared once; choose another name");
    return NULL;
  }
  if (!lg_grow((void **)&S->names, &S->cap, S->nnames + 1, sizeof *S->names)) {
    sema_fail(S, line, col, "out of memory");
    return NULL;
  }
  sema_entry *en = &S->names[S->nnames++];
  memset(en, 0, sizeof *en);
  en->name = name;
  en->kind = kind;
  en->line = line;
  en->col = col;
  return en;
}

sema_val sema_unknown(sema *S, const char *name, int line, int col) {
  const char *best = NULL;
  /* suggest only names that share most of their letters with this one */
  int bestd = strlen(name) > 3 ? 3 : (int)strlen(name);
  for (size_t i = 0; i < S->nnames; i++) {
    int d = lg_edit_distance(name, S->names[i].name, bestd);
    if (d < bestd) {
      bestd = d;
      best = S->names[i].name;
    }
  }
  sema_val v = sema_fail(S, line, col, "unknown name '%s'", name);
  if (best) lg_diag_hint(S->diag, "did you mean '%s'?", best);
  else lg_diag_hint(S->diag, "declare it first (coordinates, parameters, ...)");
  return v;
}

/* ---- the model's arrays ------------------------------------------------------------------ */
int lang_model_fit(lang_model *m, size_t n) {
  if (n <= m->n) return 1;
  double *q = lg_realloc(m->q0, n * sizeof *q);
  if (!q) return 0;
  m->q0 = q;
  double *qd = lg_realloc(m->qd0, n * sizeof *qd);
  if (!qd) return 0;
  m->qd0 = qd;
  for (size_t i = m->n; i < n; i++) m->q0[i] = m->qd0[i] = 0;
  m->n = n;
  return 1;
}

int lang_coord_index(const lang_model *m, const char *name) {
  for (size_t i = 0; i < mech_ncoords(m->mech); i++)
    if (strcmp(mech_coord(m->mech, i, 0)->v.name, name) == 0) return (int)i;
  return -1;
}

void lang_model_free(lang_model *m) {
  if (!m) return;
  mech_model_free(m->mech);
  sym_ctx_free(m->ctx);
  for (size_t i = 0; i < m->nnotes; i++) lg_free(m->notes[i]);
  lg_free(m->notes);
  lg_free(m->q0);
  lg_free(m->qd0);
  lg_free(m->file);
  lg_free(m);
}

/* ---- loading ------------------------------------------------------------------------------ */
static lang_model *model_new(const char *file) {
  lang_model *m = lg_calloc(1, sizeof *m);
  if (!m) return NULL;
  m->file = lg_strdup(file);
  m->ctx = sym_ctx_new();
  m->mech = m->ctx ? mech_model_new(m->ctx) : NULL;
  m->tf = 10;
  m->dt = 0.01;
  if (!m->file || !m->mech) {
    lang_model_free(m);
    return NULL;
  }
  return m;
}

static lg_status run_statements(sema *S, const lang_program *prog) {
  for (const lang_stmt *st = prog->first; st; st = st->next) {
    lg_status s = sema_statement(S, st);
    if (s != LG_OK || S->diag->status != LG_OK)
      return S->diag->status != LG_OK ? S->diag->status : s;
  }
  if (!lang_model_fit(S->out, mech_ncoords(S->m))) return LG_ERR_NOMEM;
  return LG_OK;
}

lg_status lang_load_string(const char *file, const char *src, size_t len,
                           lang_model **out, lg_diag *diag) {
  *out = NULL;
  lg_arena arena;
  lg_arena_init(&arena);
  lang_program *prog = NULL;
  lg_status st = lang_parse_program(file, src, len, &arena, &prog, diag);
  lang_model *m = st == LG_OK ? model_new(file) : NULL;
  if (st == LG_OK && !m) st = LG_ERR_NOMEM;
  if (st == LG_OK) {
    sema S = {.file = file, .out = m, .c = m->ctx, .m = m->mech, .diag = diag};
    st = run_statements(&S, prog);
    lg_free(S.names);
  }
  lg_arena_free(&arena);
  if (st != LG_OK) {
    if (diag->status == LG_OK) lg_diag_set(diag, st, file, 0, 0, "out of memory");
    lang_model_free(m);
    return st;
  }
  *out = m;
  return LG_OK;
}

lg_status lang_load_file(const char *path, lang_model **out, lg_diag *diag) {
  *out = NULL;
  char *src; /* bounded (LG_INPUT_LIMIT), NUL bytes refused, lone CRs read as LF */
  size_t len;
  lg_status st = lg_read_input(path, path, LG_INPUT_LIMIT, &src, &len, diag);
  if (st != LG_OK) return st;
  st = lang_load_string(path, src, len, out, diag);
  lg_free(src);
  return st;
}
