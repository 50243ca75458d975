/* lang_parser.c - recursive descent over the lexer's tokens, one token of
 * lookahead, nesting depth bounded by LANG_MAX_DEPTH. The first error
 * stops the parse. */
#include "lang_syntax.h"

#include <stdio.h>
#include <string.h>

typedef struct parser {
  lang_lexer L;
  lang_token tok;
  lg_arena *arena;
  lg_diag *diag;
  const char *file;
  int depth, failed;
} parser;

static void advance(parser *P) {
  if (P->failed) return;
  P->tok = lang_lex_next(&P->L);
  if (P->tok.kind == TOK_ERROR) P->failed = 1;
}

static void *fail(parser *P, int line, int col, const char *msg, const char *hint) {
  if (!P->failed) {
    lg_diag_set(P->diag, LG_ERR_MODEL, P->file, line, col, "%s", msg);
    if (hint) lg_diag_hint(P->diag, "%s", hint);
  }
  P->failed = 1;
  return NULL;
}

static void *fail_here(parser *P, const char *msg, const char *hint) {
  return fail(P, P->tok.line, P->tok.col, msg, hint);
}

static int is_punct(const parser *P, char c) {
  return P->tok.kind == TOK_PUNCT && P->tok.punct == c;
}

static int is_word(const parser *P, const char *w) {
  return P->tok.kind == TOK_NAME && P->tok.len == strlen(w) &&
         memcmp(P->tok.start, w, P->tok.len) == 0;
}

/* "'x'" or "the end of the line" for messages */
static void describe(const parser *P, char *buf, size_t n) {
  if (P->tok.kind == TOK_NEWLINE) snprintf(buf, n, "the end of the line");
  else if (P->tok.kind == TOK_EOF) snprintf(buf, n, "the end of the file");
  else snprintf(buf, n, "'%.*s'", (int)(P->tok.len > 40 ? 40 : P->tok.len), P->tok.start);
}

static void *expected(parser *P, const char *what) {
  char got[64], msg[160];
  describe(P, got, sizeof got);
  snprintf(msg, sizeof msg, "expected %s, found %s", what, got);
  return fail_here(P, msg, NULL);
}

static const char *take_text(parser *P) {
  const char *s = lg_arena_strdup(P->arena, P->tok.start, P->tok.len);
  if (!s) fail_here(P, "out of memory", NULL);
  return s;
}

static lang_expr *new_expr(parser *P, int kind, int line, int col) {
  lang_expr *e = lg_arena_alloc(P->arena, sizeof *e);
  if (!e) return fail(P, line, col, "out of memory", NULL);
  memset(e, 0, sizeof *e);
  e->kind = (unsigned char)kind;
  e->line = line;
  e->col = col;
  return e;
}

/* ---- expressions ------------------------------------------------------------------- */
static lang_expr *expr(parser *P);
static lang_expr *unary(parser *P);

static int enter(parser *P) {
  if (++P->depth > LANG_MAX_DEPTH) {
    fail_here(P, "expression nested too deeply (more than 200 levels)",
              "name intermediate results");
    return 0;
  }
  return 1;
}

/* A growable list of expressions (with operators) in the arena. */
typedef struct list { lang_expr **v; char *ops; int *lines, *cols; size_t n, cap; } list;

static int list_push(parser *P, list *l, lang_expr *e, char op, int line, int col) {
  if (l->n == l->cap) {
    size_t nc = l->cap ? 2 * l->cap : 4;
    lang_expr **v = lg_arena_alloc(P->arena, nc * sizeof *v);
    char *ops = lg_arena_alloc(P->arena, nc);
    int *ls = lg_arena_alloc(P->arena, nc * sizeof *ls), *cs = lg_arena_alloc(P->arena, nc * sizeof *cs);
    if (!v || !ops || !ls || !cs) return fail_here(P, "out of memory", NULL), 0;
    if (l->n) {
      memcpy(v, l->v, l->n * sizeof *v);
      memcpy(ops, l->ops, l->n);
      memcpy(ls, l->lines, l->n * sizeof *ls);
      memcpy(cs, l->cols, l->n * sizeof *cs);
    }
    l->v = v; l->ops = ops; l->lines = ls; l->cols = cs; l->cap = nc;
  }
  l->v[l->n] = e;
  l->ops[l->n] = op;
  l->lines[l->n] = line;
  l->cols[l->n] = col;
  l->n++;
  return 1;
}

static lang_expr *call_args(parser *P, lang_expr *call, int oline, int ocol) {
  list l = {0};
  advance(P); /* ( */
  if (!is_punct(P, ')')) {
    for (;;) {
      lang_expr *a = expr(P);
      if (!a || !list_push(P, &l, a, ',', 0, 0)) return NULL;
      if (!is_punct(P, ',')) break;
      advance(P);
    }
  }
  if (!is_punct(P, ')')) {
    char msg[64];
    snprintf(msg, sizeof msg, "')' to close '(' at %d:%d", oline, ocol);
    return expected(P, msg);
  }
  advance(P);
  call->args = l.v;
  call->nargs = l.n;
  return call;
}

static lang_expr *primary(parser *P) {
  lang_token t = P->tok;
  if (t.kind == TOK_NUMBER || t.kind == TOK_NAME) {
    lang_expr *e = new_expr(P, t.kind == TOK_NUMBER ? LANG_EXPR_NUMBER : LANG_EXPR_NAME,
                            t.line, t.col);
    if (!e || !(e->text = take_text(P))) return NULL;
    e->is_float = (unsigned char)t.is_float;
    advance(P);
    if (t.kind == TOK_NAME && is_punct(P, '(')) {
      e->kind = LANG_EXPR_CALL;
      if (!enter(P)) return NULL;
      e = call_args(P, e, P->tok.line, P->tok.col);
      P->depth--;
    }
    return e;
  }
  if (is_punct(P, '(')) {
    if (!enter(P)) return NULL;
    advance(P);
    lang_expr *e = expr(P);
    if (!e) return NULL;
    if (!is_punct(P, ')')) {
      char msg[64];
      snprintf(msg, sizeof msg, "')' to close '(' at %d:%d", t.line, t.col);
      return expected(P, msg);
    }
    advance(P);
    P->depth--;
    return e;
  }
  return expected(P, "an expression");
}

static lang_expr *postfix(parser *P) {
  lang_expr *e = primary(P);
  while (e && (is_punct(P, '\'') || is_punct(P, '.'))) {
    lang_token t = P->tok;
    advance(P);
    if (t.punct == '\'') {
      if (e->kind == LANG_EXPR_PRIME) {
        if (e->primes >= 2) return fail(P, t.line, t.col, "at most two primes (q'')", NULL);
        e->primes++;
        continue;
      }
      lang_expr *p = new_expr(P, LANG_EXPR_PRIME, t.line, t.col);
      if (!p) return NULL;
      p->operand = e;
      p->primes = 1;
      e = p;
      continue;
    }
    if (!(P->tok.kind == TOK_NAME && P->tok.len == 1 && P->tok.start[0] >= 'x' &&
          P->tok.start[0] <= 'z'))
      return expected(P, "x, y or z after '.'");
    lang_expr *m = new_expr(P, LANG_EXPR_MEMBER, t.line, t.col);
    if (!m) return NULL;
    m->operand = e;
    m->member = P->tok.start[0];
    advance(P);
    e = m;
  }
  return e;
}

/* op followed by a nested unary operand, within the depth limit */
static lang_expr *nested_unary(parser *P, lang_token op, int kind) {
  if (!enter(P)) return NULL;
  lang_expr *x = unary(P);
  P->depth--;
  if (!x) return NULL;
  lang_expr *e = new_expr(P, kind, op.line, op.col);
  if (!e) return NULL;
  e->op = op.punct;
  e->operand = x;
  return e;
}

/* power := postfix ['^' unary]   (right-associative through unary) */
static lang_expr *power(parser *P) {
  lang_expr *b = postfix(P);
  if (!b || !is_punct(P, '^')) return b;
  lang_token t = P->tok;
  advance(P);
  lang_expr *e = nested_unary(P, t, LANG_EXPR_POWER);
  if (e) {
    e->lhs = b;
    e->rhs = e->operand;
    e->operand = NULL;
    e->op = 0;
  }
  return e;
}

static lang_expr *unary(parser *P) {
  if (!is_punct(P, '-') && !is_punct(P, '+')) return power(P);
  lang_token t = P->tok;
  advance(P);
  return nested_unary(P, t, LANG_EXPR_UNARY);
}

static int starts_expr(const parser *P) {
  return P->tok.kind == TOK_NAME || P->tok.kind == TOK_NUMBER || is_punct(P, '(') ||
         is_punct(P, '-') || is_punct(P, '+');
}

/* An n-ary chain: a op b op c ... with op from `ops`. */
static lang_expr *chain(parser *P, const char *ops, int kind, lang_expr *(*next)(parser *)) {
  lang_expr *first = next(P);
  if (!first || !(P->tok.kind == TOK_PUNCT && strchr(ops, P->tok.punct))) return first;
  list l = {0};
  if (!list_push(P, &l, first, 0, first->line, first->col)) return NULL;
  while (P->tok.kind == TOK_PUNCT && strchr(ops, P->tok.punct)) {
    lang_token t = P->tok;
    advance(P);
    if (!starts_expr(P)) {
      char msg[64];
      snprintf(msg, sizeof msg, "an expression after '%c'", t.punct);
      return expected(P, msg);
    }
    lang_expr *x = next(P);
    if (!x) return NULL;
    if (!list_push(P, &l, x, t.punct, t.line, t.col)) return NULL;
  }
  lang_expr *e = new_expr(P, kind, l.lines[1], l.cols[1]);
  if (!e) return NULL;
  e->args = l.v;
  e->ops = l.ops;
  e->op_line = l.lines;
  e->op_col = l.cols;
  e->nargs = l.n;
  return e;
}

static lang_expr *term(parser *P) { return chain(P, "*/", LANG_EXPR_PRODUCT, unary); }
static lang_expr *expr(parser *P) { return chain(P, "+-", LANG_EXPR_SUM, term); }


/* ---- statements ---------------------------------------------------------------------- */
static const struct { const char *word; lang_stmt_kind kind; } keywords[] = {
    {"coordinates", LANG_ST_COORDINATES}, {"parameters", LANG_ST_PARAMETERS},
    {"inputs", LANG_ST_INPUTS},           {"frame", LANG_ST_FRAME},
    {"point", LANG_ST_POINT},             {"particle", LANG_ST_PARTICLE},
    {"body", LANG_ST_BODY},               {"gravity", LANG_ST_GRAVITY},
    {"force", LANG_ST_FORCE},             {"torque", LANG_ST_TORQUE},
    {"constraint", LANG_ST_CONSTRAINT},   {"speeds", LANG_ST_SPEEDS},
    {"kinematics", LANG_ST_KINEMATICS},   {"initial", LANG_ST_INITIAL},
    {"simulate", LANG_ST_SIMULATE},       {NULL, LANG_ST_ASSIGN}};

static lang_stmt *new_stmt(parser *P, lang_stmt_kind kind, lang_token at) {
  lang_stmt *st = lg_arena_alloc(P->arena, sizeof *st);
  if (!st) return fail_here(P, "out of memory", NULL);
  memset(st, 0, sizeof *st);
  st->kind = kind;
  st->line = at.line;
  st->col = at.col;
  return st;
}

/* NAME, remembering where it was */
static const char *name(parser *P, const char *what, int *line, int *col) {
  if (P->tok.kind != TOK_NAME) return expected(P, what);
  *line = P->tok.line;
  *col = P->tok.col;
  const char *s = take_text(P);
  advance(P);
  return s;
}

static int items_push(parser *P, lang_stmt *st, lang_item it, size_t *cap) {
  if (st->nitems == *cap) {
    size_t nc = *cap ? 2 * *cap : 4;
    lang_item *v = lg_arena_alloc(P->arena, nc * sizeof *v);
    if (!v) return fail_here(P, "out of memory", NULL), 0;
    if (st->nitems) memcpy(v, st->items, st->nitems * sizeof *v);
    st->items = v;
    *cap = nc;
  }
  st->items[st->nitems++] = it;
  return 1;
}

/* coordinates a b c  /  speeds u1, u2 */
static int name_list(parser *P, lang_stmt *st) {
  size_t cap = 0;
  while (P->tok.kind == TOK_NAME) {
    lang_item it = {0};
    if (!(it.name = name(P, "a name", &it.line, &it.col)) || !items_push(P, st, it, &cap))
      return 0;
    if (is_punct(P, ',')) advance(P);
  }
  if (!st->nitems) return expected(P, "a name"), 0;
  return 1;
}

/* parameters m = 1, g   /   initial x = 0.1, x' = 0 */
static int decl_list(parser *P, lang_stmt *st, int allow_primes, int need_value) {
  size_t cap = 0;
  for (;;) {
    lang_item it = {0};
    if (!(it.name = name(P, "a name", &it.line, &it.col))) return 0;
    while (allow_primes && is_punct(P, '\'')) {
      it.primes++;
      advance(P);
    }
    if (is_punct(P, '=')) {
      advance(P);
      if (!(it.value = expr(P))) return 0;
    } else if (need_value) {
      return expected(P, "'='"), 0;
    }
    if (!items_push(P, st, it, &cap)) return 0;
    if (!is_punct(P, ',')) return 1;
    advance(P);
  }
}

/* kinematics q1' = u1, q2' = u2 */
static int equation_list(parser *P, lang_stmt *st) {
  size_t cap = 0;
  for (;;) {
    lang_item it = {0};
    it.line = P->tok.line;
    it.col = P->tok.col;
    if (!(it.lhs = expr(P))) return 0;
    if (!is_punct(P, '=')) return expected(P, "'=' in a kinematical equation"), 0;
    advance(P);
    if (!(it.value = expr(P)) || !items_push(P, st, it, &cap)) return 0;
    if (!is_punct(P, ',')) return 1;
    advance(P);
  }
}

static int keyword(parser *P, const char *w) {
  if (is_word(P, w)) {
    advance(P);
    return 1;
  }
  char msg[48];
  snprintf(msg, sizeof msg, "'%s'", w);
  return expected(P, msg), 0;
}

/* frame N / frame A = rotate(...) / point P = O + ... */
static int named_optional_value(parser *P, lang_stmt *st) {
  if (!(st->name = name(P, "a name", &st->name_line, &st->name_col))) return 0;
  if (!is_punct(P, '=')) return 1;
  advance(P);
  return (st->value = expr(P)) != NULL;
}

/* body A mass m at P inertia (Ixx, Iyy, Izz[, Ixy, Iyz, Izx]) */
static int body_stmt(parser *P, lang_stmt *st) {
  if (!(st->name = name(P, "a frame name", &st->name_line, &st->name_col)) ||
      !keyword(P, "mass") || !(st->value = expr(P)) || !keyword(P, "at") ||
      !(st->point = name(P, "a point name", &st->point_line, &st->point_col)) ||
      !keyword(P, "inertia"))
    return 0;
  if (!is_punct(P, '(')) return expected(P, "'(' before the inertia components"), 0;
  lang_token open = P->tok;
  advance(P);
  st->inertia = lg_arena_alloc(P->arena, 6 * sizeof *st->inertia);
  if (!st->inertia) return fail_here(P, "out of memory", NULL), 0;
  for (;;) {
    lang_expr *e = expr(P);
    if (!e) return 0;
    if (st->ninertia == 6)
      return fail(P, e->line, e->col, "inertia takes at most 6 components", NULL), 0;
    st->inertia[st->ninertia++] = e;
    if (!is_punct(P, ',')) break;
    advance(P);
  }
  if (!is_punct(P, ')')) {
    char msg[64];
    snprintf(msg, sizeof msg, "')' to close '(' at %d:%d", open.line, open.col);
    return expected(P, msg), 0;
  }
  advance(P);
  return 1;
}

/* force P: F   /  torque A: M */
static int load_stmt(parser *P, lang_stmt *st) {
  if (!(st->name = name(P, "a point, frame or coordinate", &st->name_line, &st->name_col)))
    return 0;
  if (!is_punct(P, ':')) return expected(P, "':' after the target"), 0;
  advance(P);
  return (st->value = expr(P)) != NULL;
}

static int statement_body(parser *P, lang_stmt *st) {
  switch (st->kind) {
  case LANG_ST_COORDINATES:
  case LANG_ST_SPEEDS: return name_list(P, st);
  case LANG_ST_PARAMETERS:
  case LANG_ST_INPUTS: return decl_list(P, st, 0, 0);
  case LANG_ST_INITIAL: return decl_list(P, st, 1, 1);
  case LANG_ST_KINEMATICS: return equation_list(P, st);
  case LANG_ST_FRAME:
  case LANG_ST_POINT: return named_optional_value(P, st);
  case LANG_ST_PARTICLE:
    return (st->name = name(P, "a point name", &st->name_line, &st->name_col)) &&
           keyword(P, "mass") && (st->value = expr(P));
  case LANG_ST_BODY: return body_stmt(P, st);
  case LANG_ST_GRAVITY: return (st->value = expr(P)) != NULL;
  case LANG_ST_FORCE:
  case LANG_ST_TORQUE: return load_stmt(P, st);
  case LANG_ST_CONSTRAINT:
    if (!(st->value = expr(P))) return 0;
    if (!is_punct(P, '=')) return 1;
    advance(P);
    return (st->rhs = expr(P)) != NULL;
  case LANG_ST_SIMULATE:
    if (!(st->value = expr(P)) || !keyword(P, "to") || !(st->rhs = expr(P))) return 0;
    if (!is_word(P, "step")) return 1;
    advance(P);
    return (st->step = expr(P)) != NULL;
  default: return 0;
  }
}

/* NAME = expr (intermediates and energies) or an unknown statement. */
static lang_stmt *assignment(parser *P, lang_token first) {
  lang_stmt *st = new_stmt(P, LANG_ST_ASSIGN, first);
  if (!st || !(st->name = take_text(P))) return NULL;
  st->name_line = first.line;
  st->name_col = first.col;
  advance(P);
  if (is_punct(P, '=')) {
    advance(P);
    return (st->value = expr(P)) ? st : NULL;
  }
  /* not an assignment: most likely a misspelt keyword */
  const char *best = NULL;
  int bestd = 3;
  for (int i = 0; keywords[i].word; i++) {
    int d = lg_edit_distance(st->name, keywords[i].word, 2);
    if (d < bestd) { bestd = d; best = keywords[i].word; }
  }
  char msg[128], hint[64];
  snprintf(msg, sizeof msg, "unknown statement '%.60s'", st->name);
  if (best) snprintf(hint, sizeof hint, "did you mean '%s'?", best);
  return fail(P, first.line, first.col, msg,
              best ? hint : "a statement starts with a keyword or 'name ='");
}

static lang_stmt *statement(parser *P) {
  lang_token first = P->tok;
  if (first.kind != TOK_NAME) return expected(P, "a statement");
  for (int i = 0; keywords[i].word; i++) {
    if (!is_word(P, keywords[i].word)) continue;
    lang_stmt *st = new_stmt(P, keywords[i].kind, first);
    advance(P);
    return st && statement_body(P, st) ? st : NULL;
  }
  return assignment(P, first);
}

lg_status lang_parse_program(const char *file, const char *src, size_t len,
                             lg_arena *arena, lang_program **out, lg_diag *diag) {
  parser P = {.arena = arena, .diag = diag, .file = file};
  *out = NULL;
  lang_lex_init(&P.L, file, src, len, diag);
  lang_program *prog = lg_arena_alloc(arena, sizeof *prog);
  if (!prog) return LG_ERR_NOMEM;
  prog->first = NULL;
  lang_stmt **tail = &prog->first;
  advance(&P);
  while (!P.failed && P.tok.kind != TOK_EOF) {
    if (P.tok.kind == TOK_NEWLINE) {
      advance(&P);
      continue;
    }
    lang_stmt *st = statement(&P);
    if (!st) break;
    if (P.tok.kind != TOK_NEWLINE && P.tok.kind != TOK_EOF) {
      expected(&P, "the end of the statement");
      break;
    }
    *tail = st;
    tail = &st->next;
  }
  if (P.failed) return diag->status ? diag->status : LG_ERR_MODEL;
  *out = prog;
  return LG_OK;
}
