/* lang_sema.c - the semantic pass: symbol table, diagnostics, and
 * loading a model file end to end (parse, then statements in order). */
#include "lang_sema.h"
#include "lang_urdf.h"

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

int sema_line(const sema *S, int line, int *from_urdf) {
  if (from_urdf) *from_urdf = 0;
  if (!S->x || line < 1) return line;
  if (from_urdf) *from_urdf = lang_expanded_from_urdf(S->x, line);
  int col = 1;
  lang_expanded_position(S->x, &line, &col);
  return line;
}

sema_val sema_nomem(sema *S) {
  S->oom = 1;
  lg_diag_set(S->diag, LG_ERR_NOMEM, S->file, 0, 0, "out of memory");
  return (sema_val){VAL_SCALAR, NULL, {0, NULL}, 0, 0};
}

/* The start of e: down the leftmost operands (iterative: trees are shallow
 * but no recursion is needed). */
void sema_expr_start(const lang_expr *e, int *line, int *col) {
  for (;;) {
    switch (e->kind) {
    case LANG_EXPR_SUM:
    case LANG_EXPR_PRODUCT: e = e->u.chain.terms[0].e; continue;
    case LANG_EXPR_PRIME: e = e->u.prime.arg; continue;
    case LANG_EXPR_MEMBER: e = e->u.member.arg; continue;
    case LANG_EXPR_POWER: e = e->u.power.base; continue;
    default: *line = e->line; *col = e->col; return;
    }
  }
}

/* ---- the symbol table ------------------------------------------------------------------
 * Reserved names (keywords, functions, t, pi, T V D L, lamK) are refused by
 * the parser where they are declared (lang_parse.c holds the one table). */
/* A name's entry: by a hash index once there are more than a few (a
 * URDF's model declares thousands of names, and each reference looked
 * through all of them); the first entry of that name, as the scan finds. */
typedef struct name_probe { const sema_entry *names; const char *name; } name_probe;
static int name_eq(const void *val, const void *probe) {
  const name_probe *p = probe;
  return strcmp(p->names[(uintptr_t)val - 1].name, p->name) == 0;
}

static uint64_t name_hash(const char *name) { return lg_hash_bytes(name, strlen(name)); }

enum { SEMA_INDEX_MIN = 32 };

sema_entry *sema_lookup(sema *S, const char *name) {
  int indexed = S->nnames >= SEMA_INDEX_MIN;
  for (; indexed && S->nindexed < S->nnames; S->nindexed++) {
    name_probe p = {S->names, S->names[S->nindexed].name};
    uint64_t h = name_hash(p.name);
    if (!lg_map_reserve(&S->index, 1)) {
      indexed = 0; /* out of memory: the scan below answers the same */
      break;
    }
    size_t j = lg_map_seek(&S->index, h, name_eq, &p);
    if (!lg_map_val(&S->index, j)) lg_map_fill(&S->index, j, h, (void *)(uintptr_t)(S->nindexed + 1));
  }
  if (indexed) {
    name_probe p = {S->names, name};
    void *v = lg_map_find(&S->index, name_hash(name), name_eq, &p);
    return v ? &S->names[(uintptr_t)v - 1] : NULL;
  }
  for (size_t i = 0; i < S->nnames; i++)
    if (strcmp(S->names[i].name, name) == 0) return &S->names[i];
  return NULL;
}

void sema_free_index(sema *S) {
  lg_map_free(&S->index);
  S->nindexed = 0;
}

sema_entry *sema_declare(sema *S, const char *name, sema_kind kind, int line, int col) {
  sema_entry *old = sema_lookup(S, name);
  if (old) {
    int urdf, here, at = sema_line(S, old->line, &urdf);
    sema_line(S, line, &here);
    if (here && !urdf) /* said at the URDF's line: name the model */
      sema_fail(S, line, col, "'%s' is already declared at %s:%d", name, S->file, at);
    else if (urdf && !here)
      sema_fail(S, line, col, "'%s' is already declared by the imported URDF (line %d)", name,
                at);
    else
      sema_fail(S, line, col, "'%s' is already declared at line %d", name, at);
    lg_diag_hint(S->diag, "every name is declared once; choose another name");
    return NULL;
  }
  if (!lg_grow((void **)&S->names, &S->cap, S->nnames + 1, sizeof *S->names)) {
    sema_nomem(S);
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
  size_t cap = m->n_cap; /* q0 and qd0 share it */
  if (!lg_grow((void **)&m->q0, &cap, n, sizeof *m->q0) ||
      !lg_grow((void **)&m->qd0, &m->n_cap, n, sizeof *m->qd0))
    return 0;
  for (size_t i = m->n; i < n; i++) m->q0[i] = m->qd0[i] = 0;
  m->n = n;
  return 1;
}

int lang_model_fit_speeds(lang_model *m, size_t n) {
  if (n <= m->nspeeds) return 1;
  size_t cap = m->speeds_cap; /* u0 and u0_set share it */
  if (!lg_grow((void **)&m->u0, &cap, n, sizeof *m->u0) ||
      !lg_grow((void **)&m->u0_set, &m->speeds_cap, n, sizeof *m->u0_set))
    return 0;
  for (size_t i = m->nspeeds; i < n; i++) m->u0[i] = 0, m->u0_set[i] = 0;
  m->nspeeds = n;
  return 1;
}

int sema_keep_scope(sema *S, lg_arena *arena) {
  lang_scope *sc = lg_calloc(1, sizeof *sc);
  if (!sc) return 0;
  sc->arena = *arena;
  lg_arena_init(arena);
  sc->names = S->names;
  sc->nnames = S->nnames;
  S->names = NULL;
  S->nnames = S->cap = 0;
  sema_free_index(S);
  S->out->scope = sc;
  return 1;
}

void lang_model_free(lang_model *m) {
  if (!m) return;
  if (m->expanded) {
    lang_expanded_free(m->expanded);
    lg_free(m->expanded);
  }
  if (m->scope) {
    lg_arena_free(&m->scope->arena);
    lg_free(m->scope->names);
    lg_free(m->scope);
  }
  mech_model_free(m->mech);
  sym_ctx_free(m->ctx);
  for (size_t i = 0; i < m->nnotes; i++) lg_free(m->notes[i]);
  lg_free(m->notes);
  lg_free(m->q0);
  lg_free(m->qd0);
  lg_free(m->u0);
  lg_free(m->u0_set);
  lg_free(m->draws);
  for (size_t i = 0; i < m->nevents; i++) {
    lg_free(m->events[i].target);
    lg_free(m->events[i].rate);
    lg_free(m->events[i].value);
  }
  lg_free(m->events);
  lg_free(m->frictions);
  lg_free(m->contacts);
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

/* Outputs come last, whatever their place: they see the whole model (its
 * masses, constraints and energies). */
static lg_status run_statements(sema *S, const lang_program *prog) {
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      lg_status s = sema_quaternion_norms(S);
      if (s != LG_OK || S->diag->status != LG_OK)
        return S->diag->status != LG_OK ? S->diag->status : s;
    }
    for (const lang_stmt *st = prog->first; st; st = st->next) {
      if ((st->kind == LANG_STMT_OUTPUT) != (pass == 1)) continue;
      lg_status s = sema_statement(S, st);
      if (s != LG_OK || S->diag->status != LG_OK)
        return S->diag->status != LG_OK ? S->diag->status : s;
    }
  }
  if (!lang_model_fit(S->out, mech_ncoords(S->m))) return LG_ERR_NOMEM;
  return LG_OK;
}

/* The symbolic core and the mechanics model report running out of memory
 * through flags: a model error found after (or a success despite) a failed
 * allocation there is out of memory. */
static lg_status nomem_wins(const sema *S, lg_status st) {
  if (S->oom || sym_ctx_error(S->c) == LG_ERR_NOMEM || mech_model_oom(S->m)) return LG_ERR_NOMEM;
  return st;
}

/* x: the expansion src came from (its URDF's joint limits), or NULL. */
static lg_status load_text(const char *file, const char *src, size_t len,
                           lang_model **out, lg_diag *diag, const lang_expanded *x) {
  lg_diag local;
  lg_arena arena;
  lang_program *prog = NULL;
  lang_model *m = NULL;
  lg_status st;
  if (!diag) diag = &local;
  lg_diag_clear(&local);
  if (!file) file = "<string>";
  /* a failed allocation that a lower layer absorbed (a memo, a collection
   * skipped) may still change a result: any failure during the load is
   * reported as out of memory, whatever error it led to */
  unsigned long failures = lg_alloc_failures();
  if (!out) {
    lg_diag_set(diag, LG_ERR_USAGE, file, 0, 0, "lang_load_string: no output");
    return LG_ERR_USAGE;
  }
  *out = NULL;
  lg_arena_init(&arena);
  st = lang_parse_expanded(file, src, len, &arena, &prog, diag, x);
  if (st == LG_OK && !(m = model_new(file))) st = LG_ERR_NOMEM;
  if (st == LG_OK) {
    sema S = {.file = file, .out = m, .c = m->ctx, .m = m->mech, .diag = diag};
    if (x) {
      S.limits = x->limits;
      S.nlimits = x->nlimits;
      S.imports = x->import_line > 0;
      S.x = x;
    }
    st = nomem_wins(&S, run_statements(&S, prog));
    if (st == LG_OK && !sema_keep_scope(&S, &arena)) st = LG_ERR_NOMEM;
    lg_free(S.names);
    sema_free_index(&S);
    lg_free(S.norms);
  }
  lg_arena_free(&arena);
  if (lg_alloc_failures() != failures) st = LG_ERR_NOMEM;
  if (st != LG_OK) {
    /* the first error wins in diag; out of memory overrides a model error
     * that it caused */
    if (st == LG_ERR_NOMEM && diag->status != LG_ERR_NOMEM) {
      lg_diag_clear(diag);
      lg_diag_set(diag, LG_ERR_NOMEM, file, 0, 0, "out of memory");
    }
    if (diag->status == LG_OK) lg_diag_set(diag, st, file, 0, 0, "out of memory");
    lang_model_free(m);
    return st;
  }
  *out = m;
  return LG_OK;
}

/* Every position the loaded model keeps for messages after loading (the
 * numeric layer's, Kane's, the eom's, the command's): one list, so that a
 * model that imports a URDF names its own lines everywhere. A position
 * kept in a new place must be added here. */
void lang_model_remap_positions(lang_model *m, void (*f)(void *ud, int *line, int *col),
                                void *ud) {
  mech_remap_positions(m->mech, f, ud);
  if (m->coord_line > 0) f(ud, &m->coord_line, &m->coord_col);
  for (size_t i = 0; i < m->ndraws; i++) f(ud, &m->draws[i].line, &m->draws[i].col);
  for (size_t i = 0; i < m->nevents; i++) f(ud, &m->events[i].line, &m->events[i].col);
  for (size_t i = 0; i < m->nfrictions; i++) f(ud, &m->frictions[i].line, &m->frictions[i].col);
  for (size_t i = 0; i < m->ncontacts; i++) f(ud, &m->contacts[i].line, &m->contacts[i].col);
  if (m->scope)
    for (size_t i = 0; i < m->scope->nnames; i++)
      if (m->scope->names[i].line > 0) f(ud, &m->scope->names[i].line, &m->scope->names[i].col);
}

static void remap_one(void *ud, int *line, int *col) {
  lang_expanded_position(ud, line, col);
}

/* A URDF's tree by its numbers (lang_urdf_tree) onto the model loaded
 * from it: each joint's coordinate and input (tau_J) by name, gravity's
 * parameter g. Nothing is attached when a name is not found (the numeric
 * layer then reads the tree from expressions). 0: out of memory. */
static int attach_num_tree(lang_model *lm, const lang_urdf_tree *t) {
  mech_model *mm = lm->mech;
  size_t nq = mech_ncoords(mm), ni = mech_ninputs(mm), np = mech_nparams(mm), g = np, used = 0;
  for (size_t i = 0; i < np; i++)
    if (!strcmp(mech_param_name(mm, i), "g")) g = i;
  if (g == np || lm->nevents || lm->nfrictions || lm->ncontacts) return 1;
  for (size_t j = 0; j < t->n; j++) {
    mech_num_link *l = &t->link[j];
    if (!t->coord[j]) continue;
    l->coord = l->input = SIZE_MAX;
    for (size_t i = 0; i < nq; i++)
      if (!strcmp(mech_coord(mm, i, 0)->v.name, t->coord[j])) l->coord = i;
    for (size_t i = 0; i < ni; i++) {
      const char *in = mech_input_name(mm, i);
      if (!strncmp(in, "tau_", 4) && !strcmp(in + 4, t->coord[j])) l->input = i;
    }
    if (l->coord == SIZE_MAX || l->input == SIZE_MAX) return 1;
    used++;
  }
  if (used != nq) return 1;
  return mech_set_num_tree(mm, t->link, t->n, g);
}

/* A `.urdf` file, or a model that imports one, is read as the model text
 * it expands to (lang_urdf.c); errors and notes are moved back to where
 * their line came from. */
/* load_text on the expansion x, then every position and note moved back
 * to where its line came from; x is kept as it was (its notes copied). */
static lg_status load_expanded(const char *file, lang_expanded *x, lang_model **out,
                               lg_diag *diag) {
  lg_status st = load_text(file, x->text.s, x->text.len, out, diag, x);
  if (st != LG_OK) {
    lang_expanded_remap(x, file, diag);
    return st;
  }
  lang_model *m = *out;
  if (x->tree && x->import_line == 0 && !attach_num_tree(m, x->tree)) {
    lang_model_free(m);
    *out = NULL;
    if (diag) lg_diag_set(diag, LG_ERR_NOMEM, file, 0, 0, "out of memory");
    return LG_ERR_NOMEM;
  }
  lang_model_remap_positions(m, remap_one, x);
  for (size_t i = 0; i < m->nnotes; i++) {
    char *r = lang_expanded_remap_note(x, file, m->notes[i]);
    if (r) lg_free(m->notes[i]), m->notes[i] = r;
  }
  /* the URDF's own notes (renamed links ...) first */
  if (x->nnotes) {
    size_t k = 0;
    if (lg_grow((void **)&m->notes, &m->notes_cap, m->nnotes + x->nnotes, sizeof *m->notes)) {
      memmove(m->notes + x->nnotes, m->notes, m->nnotes * sizeof *m->notes);
      for (; k < x->nnotes && (m->notes[k] = lg_strdup(x->notes[k])); k++) continue;
    }
    if (k < x->nnotes) {
      if (k) memmove(m->notes + k, m->notes + x->nnotes, m->nnotes * sizeof *m->notes);
      m->nnotes += k;
      lang_model_free(m);
      *out = NULL;
      if (diag) lg_diag_set(diag, LG_ERR_NOMEM, file, 0, 0, "out of memory");
      return LG_ERR_NOMEM;
    }
    m->nnotes += x->nnotes;
  }
  return LG_OK;
}

lg_status lang_load_string(const char *file, const char *src, size_t len,
                           lang_model **out, lg_diag *diag) {
  lang_expanded x;
  int expanded = 0;
  if (!file) file = "<string>";
  if (out) *out = NULL;
  lg_status st = lang_expand(file, src, len, &x, &expanded, diag);
  if (st != LG_OK || !expanded)
    return st != LG_OK ? st : load_text(file, src, len, out, diag, NULL);
  st = load_expanded(file, &x, out, diag);
  /* kept for lang_load_again (a system derived from the model loads it
   * again into its own context: the XML need not be read twice) */
  lang_expanded *keep = st == LG_OK ? lg_malloc(sizeof *keep) : NULL;
  if (keep) {
    *keep = x;
    (*out)->expanded = keep;
  } else {
    lang_expanded_free(&x);
  }
  return st;
}

lg_status lang_load_again(const lang_model *prev, const char *file, const char *src, size_t len,
                          lang_model **out, lg_diag *diag) {
  if (!prev || !prev->expanded) return lang_load_string(file, src, len, out, diag);
  if (!file) file = "<string>";
  if (out) *out = NULL;
  return load_expanded(file, prev->expanded, out, diag);
}

lg_status lang_load_file(const char *path, lang_model **out, lg_diag *diag) {
  lg_diag local;
  if (!diag) diag = &local;
  lg_diag_clear(&local);
  *out = NULL;
  char *src; /* bounded (LG_INPUT_LIMIT), NUL bytes refused, lone CRs read as LF */
  size_t len;
  lg_status st = lg_read_input(path, path, LG_INPUT_LIMIT, &src, &len, diag);
  if (st != LG_OK) return st;
  st = lang_load_string(path, src, len, out, diag);
  lg_free(src);
  return st;
}
