/* lang_parse.c - recursive descent from tokens to the syntax tree.
 *
 * One token of lookahead (two at the start of a statement, to tell
 * `name = ...` from a misspelt keyword). The first error stops the parse
 * and is the one reported. Recursion is bounded: brackets, calls, signs and
 * exponents count nesting levels up to LANG_MAX_DEPTH, and sums and
 * products are flat chains built on a scratch stack, so the work is linear
 * in the input and the tree depth is bounded whatever the input.
 *
 * Grammar (one statement per line; see MODEL-FORMAT.md):
 *   expr    := term {('+'|'-') term}             a SUM chain
 *   term    := unary {('*'|'/') unary}           a PRODUCT chain
 *   unary   := ('-'|'+') unary | power
 *   power   := postfix ['^' unary]               right-assoc; 2^-1 allowed
 *   postfix := primary ['.' (x|y|z)] {"'"}       at most two primes
 *   primary := NUMBER | NAME | FUNC '(' [expr {',' expr}] ')' | '(' expr ')'
 */
#include "lang_ast.h"
#include "lang_urdf.h"

#include <stdio.h>
#include <string.h>

/* ---- tables --------------------------------------------------------------------- */
/* The functions: the symbolic core's elementary ones (SYM_FUNCS), then the
 * language's own (lang_ast.h), in lang_func order. */
#define ARGS_1_ "(x)"
#define ARGS_2_ "(y, x)"
static const struct {
  const char *name;
  int arity;
  const char *usage;
} funcs[] = {
#define ELEM_ROW_(id, name, arity, c, tex) {name, arity, name ARGS_##arity##_},
    SYM_FUNCS(ELEM_ROW_)
#undef ELEM_ROW_
#define FUNC_ROW_(id, name, nargs, usage) {name, nargs, usage},
    LANG_OWN_FUNCTIONS(FUNC_ROW_)
#undef FUNC_ROW_
};
_Static_assert(sizeof funcs / sizeof funcs[0] == LANG_FN_COUNT, "one row per lang_func");
_Static_assert((int)LANG_FN_DER == (int)SYM_FN_COUNT, "elementary functions first");

/* The statement keywords, indexed by lang_stmt_kind (ASSIGN has none). */
static const char *const stmt_words[] = {
    NULL,
#define STMT_ROW_(id, word) word,
    LANG_STATEMENTS(STMT_ROW_)
#undef STMT_ROW_
};

/* Keywords inside statements: particle/body ... mass, body ... at ... inertia,
 * simulate ... to ... step. */
static const char *const inner_words[] = {
    "mass", "at", "inertia", "to", "step", "in",
    /* reserved for the statements of MODEL-FORMAT 1.1 (events, contact, URDF) */
    "stop", "contact", "plane", "restitution", "friction", "static", "import"};

/* Names with a fixed meaning, and what it is. T V D L may be assigned. */
static const struct {
  const char *name, *meaning;
} fixed_names[] = {{"t", "time"},
                   {"pi", "the constant pi"},
                   {"T", "the kinetic energy"},
                   {"V", "the potential energy"},
                   {"D", "the dissipation function"},
                   {"L", "the Lagrangian"}};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *lang_func_name(lang_func f) {
  return (unsigned)f < LANG_FN_COUNT ? funcs[f].name : "?";
}
int lang_func_arity(lang_func f) { return (unsigned)f < LANG_FN_COUNT ? funcs[f].arity : 0; }
const char *lang_func_usage(lang_func f) {
  return (unsigned)f < LANG_FN_COUNT ? funcs[f].usage : "?";
}
const char *lang_stmt_keyword(lang_stmt_kind k) {
  return (unsigned)k < LANG_STMT_COUNT ? stmt_words[k] : NULL;
}

static bool is_digit_char(char c) { return c >= '0' && c <= '9'; }

/* Is s[0..len) the word w? */
static bool spelled(const char *s, size_t len, const char *w) {
  /* the first letter first: most words differ there (the lists are long) */
  if (!len) return w[0] == 0;
  return s[0] == w[0] && strncmp(s, w, len) == 0 && w[len] == 0;
}

lang_func lang_func_lookup(const char *s, size_t len) {
  for (int f = 0; f < LANG_FN_COUNT; f++)
    if (spelled(s, len, funcs[f].name)) return (lang_func)f;
  return LANG_FN_COUNT;
}

/* The statement kind that the word s[0..len) starts, ASSIGN if none. */
static lang_stmt_kind keyword_kind(const char *s, size_t len) {
  for (int k = 1; k < LANG_STMT_COUNT; k++)
    if (spelled(s, len, stmt_words[k])) return (lang_stmt_kind)k;
  return LANG_STMT_ASSIGN;
}

/* Is s a multiplier's name: "lam" followed by digits (lam1, lam2, ...)? */
static bool multiplier_name(const char *s) {
  if (strncmp(s, "lam", 3) != 0 || !is_digit_char(s[3])) return false;
  for (s += 3; *s; s++)
    if (!is_digit_char(*s)) return false;
  return true;
}

/* Why the name s cannot be declared, or NULL when it can. */
static const char *reserved_reason(const char *s, bool energy_ok) {
  if (multiplier_name(s)) return "the equations name their multipliers lam1, lam2, ...";
  for (size_t i = 0; i < COUNT_OF(fixed_names); i++)
    if (strcmp(s, fixed_names[i].name) == 0)
      return energy_ok && i >= 2 ? NULL : fixed_names[i].meaning;
  if (keyword_kind(s, strlen(s)) != LANG_STMT_ASSIGN) return "a statement keyword";
  for (size_t i = 0; i < COUNT_OF(inner_words); i++)
    if (strcmp(s, inner_words[i]) == 0) return "a keyword";
  if (lang_func_lookup(s, strlen(s)) != LANG_FN_COUNT) return "a function";
  return NULL;
}

const char *lang_reserved_reason(const char *name) { return reserved_reason(name, false); }

/* The word among n (word(i)) closest to s[0..len), if close enough to be a
 * likely typo: one edit for short words, two from five letters on. */
static const char *closest(const char *s, size_t len, const char *(*word)(int), int n) {
  char buf[65];
  const char *best = NULL;
  int best_d = 3;
  if (len >= sizeof buf) return NULL;
  memcpy(buf, s, len);
  buf[len] = 0;
  for (int i = 0; i < n; i++) {
    const char *w = word(i);
    int d = lg_edit_distance(buf, w, 2), limit = strlen(w) >= 5 ? 2 : 1;
    if (d <= limit && d < best_d) {
      best = w;
      best_d = d;
    }
  }
  return best;
}
static const char *func_word(int i) { return funcs[i].name; }
static const char *stmt_word(int i) { return stmt_words[i + 1]; }

/* ---- parser state ---------------------------------------------------------------- */
/* Lists under construction (chain operands, call arguments, statement
 * items) grow here, then move to the arena in one piece; nested lists stack
 * above their parents. Elements are copied in and out with memcpy. */
typedef struct scratch {
  unsigned char *buf;
  size_t len, cap;
} scratch;

typedef struct parser {
  lang_lexstate ls;
  lang_tok tok, prev, ahead; /* current, previous, peeked (when has_ahead) */
  bool has_ahead;
  lg_arena *arena;
  lg_diag *diag;
  const char *file;
  int depth;                 /* nesting levels entered (enter/leave) */
  lg_status status;          /* the first failure */
  const struct lang_expanded *x; /* the expansion src is (NULL: none) */
  scratch stack;
} parser;

/* The token after the current one (read once, kept for next). */
static const lang_tok *peek(parser *P) {
  if (!P->has_ahead) {
    P->ahead = lang_lex_scan(&P->ls);
    P->has_ahead = true;
    if (P->ahead.kind == LANG_TK_ERROR && P->status == LG_OK) P->status = LG_ERR_MODEL;
  }
  return &P->ahead;
}

/* Move to the next token. A lexer error has already filled the diagnostic. */
static void next(parser *P) {
  P->prev = P->tok;
  if (P->has_ahead) {
    P->tok = P->ahead;
    P->has_ahead = false;
  } else {
    P->tok = lang_lex_scan(&P->ls);
  }
  if (P->tok.kind == LANG_TK_ERROR && P->status == LG_OK) P->status = LG_ERR_MODEL;
}

static bool tok_is(const lang_tok *t, char c) { return t->kind == LANG_TK_PUNCT && t->punct == c; }
static bool is_punct(const parser *P, char c) { return tok_is(&P->tok, c); }
static bool is_word(const parser *P, const char *w) {
  return P->tok.kind == LANG_TK_NAME && spelled(P->tok.text, P->tok.len, w);
}
static bool at_end(const parser *P) {
  return P->tok.kind == LANG_TK_NEWLINE || P->tok.kind == LANG_TK_EOF;
}

/* Take the punctuation c if it is next. */
static bool accept(parser *P, char c) {
  if (!is_punct(P, c)) return false;
  next(P);
  return true;
}

/* ---- errors --------------------------------------------------------------------- */
/* Record an error at line:col unless one is recorded already (the lexer's
 * included). hint may be NULL. Returns NULL for `return fail_at(...)`. */
static void *fail_at(parser *P, int line, int col, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void *fail_at(parser *P, int line, int col, const char *hint, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  if (P->status != LG_OK) return NULL;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lg_diag_set(P->diag, LG_ERR_MODEL, P->file, line, col, "%s", msg);
  if (hint) lg_diag_hint(P->diag, "%s", hint);
  P->status = LG_ERR_MODEL;
  return NULL;
}

/* Out of memory (arena or scratch stack). */
static void *nomem(parser *P) {
  if (P->status == LG_OK) {
    lg_diag_set(P->diag, LG_ERR_NOMEM, P->file, P->tok.line, P->tok.col, "out of memory");
    P->status = LG_ERR_NOMEM;
  }
  return NULL;
}

/* A token as messages quote it: 'text' (long ones cut), or a phrase. */
static const char *describe(const parser *P, const lang_tok *t, char *buf, size_t n) {
  int len = t->len > 32 ? 32 : (int)t->len;
  if (t->kind == LANG_TK_NEWLINE) return "the end of the line";
  if (t->kind == LANG_TK_EOF) return P->ls.open > 0 ? "the end of the file" : "the end of the line";
  if (t->kind == LANG_TK_ERROR) return "an invalid token";
  snprintf(buf, n, "'%.*s%s'", len, t->text, t->len > 32 ? "..." : "");
  return buf;
}

/* "expected WHAT, found TOKEN" at the current token. */
static void *expected(parser *P, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void *expected(parser *P, const char *hint, const char *fmt, ...) {
  char what[160], buf[48];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return fail_at(P, P->tok.line, P->tok.col, hint, "expected %s, found %s", what,
                 describe(P, &P->tok, buf, sizeof buf));
}

/* ---- memory --------------------------------------------------------------------- */
/* Zeroed arena memory (n > 0). */
static void *alloc(parser *P, size_t n) {
  void *p = lg_arena_alloc(P->arena, n);
  if (!p) return nomem(P);
  memset(p, 0, n);
  return p;
}

/* A NUL-terminated arena copy of a token's text. */
static const char *copy_text(parser *P, const lang_tok *t) {
  char *s = lg_arena_strdup(P->arena, t->text, t->len);
  return s ? s : nomem(P);
}

/* Push one element of `size` bytes onto the scratch stack. */
static bool push(parser *P, const void *elem, size_t size) {
  scratch *s = &P->stack;
  if (!lg_grow((void **)&s->buf, &s->cap, s->len + size, 1)) return nomem(P), false;
  memcpy(s->buf + s->len, elem, size);
  s->len += size;
  return true;
}

/* Move the elements pushed since `mark` (at least one, `size` bytes each)
 * into the arena; *n is their number. */
static void *pop(parser *P, size_t mark, size_t size, size_t *n) {
  size_t bytes = P->stack.len - mark;
  /* a call of no arguments (momentum(), mass_center()) pops nothing: one
   * byte keeps the result non-null, and the stack may never have grown */
  void *v = lg_arena_alloc(P->arena, bytes ? bytes : 1);
  if (!v) return nomem(P);
  if (bytes) memcpy(v, P->stack.buf + mark, bytes);
  P->stack.len = mark;
  *n = bytes / size;
  return v;
}

/* A new expression node of kind k at token t. */
static lang_expr *new_expr(parser *P, lang_expr_kind k, const lang_tok *t) {
  lang_expr *e = alloc(P, sizeof *e);
  if (!e) return NULL;
  e->kind = k;
  e->line = t->line;
  e->col = t->col;
  return e;
}

/* ---- expressions: nesting ------------------------------------------------------- */
static lang_expr *expr(parser *P);
static lang_expr *unary(parser *P);

/* Enter one nesting level at the current token; false beyond the limit. */
static bool enter(parser *P) {
  if (P->depth < LANG_MAX_DEPTH) {
    P->depth++;
    return true;
  }
  fail_at(P, P->tok.line, P->tok.col, "name an inner part: r = ...",
          "expression nested too deeply (more than %d levels)", LANG_MAX_DEPTH);
  return false;
}

/* Take the ')' that closes `open` and leave its nesting level. */
static bool close_paren(parser *P, const lang_tok *open) {
  if (!accept(P, ')')) {
    int line = open->line, col = open->col;
    if (P->x) lang_expanded_position(P->x, &line, &col);
    return expected(P, NULL, "')' to close '(' at %d:%d", line, col), false;
  }
  P->depth--;
  return true;
}

/* No expression starts at the current token: say what is there instead. */
static void *no_expression(parser *P) {
  char buf[48];
  const lang_tok *pv = &P->prev;
  if (is_punct(P, '['))
    return fail_at(P, P->tok.line, P->tok.col, "group with '(' and ')'", "unexpected '['");
  if (pv->kind == LANG_TK_PUNCT && strchr("+-*/^", pv->punct)) {
    const char *hint = tok_is(pv, '*') && is_punct(P, '*') ? "write powers with '^': x^2" : NULL;
    return fail_at(P, P->tok.line, P->tok.col, hint, "expected an expression after '%c', found %s",
                   pv->punct, describe(P, &P->tok, buf, sizeof buf));
  }
  return expected(P, NULL, "an expression");
}

/* ---- expressions: primaries ----------------------------------------------------- */
/* A numeric literal, kept as written. */
static lang_expr *number(parser *P) {
  lang_expr *e = new_expr(P, LANG_EXPR_NUMBER, &P->tok);
  if (!e || !(e->u.number.text = copy_text(P, &P->tok))) return NULL;
  e->u.number.is_double = P->tok.is_double;
  next(P);
  return e;
}

/* name( where name is no function: a typo, or a product without '*'. */
static void *unknown_function(parser *P, const lang_tok *name) {
  char hint[96];
  const char *best = closest(name->text, name->len, func_word, LANG_FN_COUNT);
  int n = name->len > 40 ? 40 : (int)name->len;
  if (best) snprintf(hint, sizeof hint, "did you mean '%s'?", best);
  else snprintf(hint, sizeof hint, "a product needs '*': %.*s*(...)", n, name->text);
  return fail_at(P, name->line, name->col, hint, "unknown function '%.*s'", n, name->text);
}

/* fn(args) at '(' after the function name: the number of arguments is
 * checked here, their kinds by the semantic pass. */
static lang_expr *call(parser *P, const lang_tok *name) {
  lang_func f = lang_func_lookup(name->text, name->len);
  lang_tok open = P->tok;
  size_t mark = P->stack.len, nargs;
  lang_expr *e;
  if (f == LANG_FN_COUNT) return unknown_function(P, name);
  if (!(e = new_expr(P, LANG_EXPR_CALL, name)) || !enter(P)) return NULL;
  next(P);
  if (!is_punct(P, ')')) do {
      lang_expr *a = expr(P);
      if (!a || !push(P, &a, sizeof a)) return NULL;
    } while (accept(P, ','));
  if (!close_paren(P, &open)) return NULL;
  nargs = (P->stack.len - mark) / sizeof(lang_expr *);
  if (nargs != (size_t)funcs[f].arity)
    return fail_at(P, name->line, name->col, funcs[f].usage, "'%s' takes %d argument%s, found %zu",
                   funcs[f].name, funcs[f].arity, funcs[f].arity == 1 ? "" : "s", nargs);
  e->u.call.fn = f;
  e->u.call.args = pop(P, mark, sizeof(lang_expr *), &e->u.call.nargs);
  return e->u.call.args ? e : NULL;
}

/* A name, or a call when '(' follows. A function name needs its '('. */
static lang_expr *name_or_call(parser *P) {
  lang_tok name = P->tok;
  lang_func f;
  lang_expr *e;
  next(P);
  if (is_punct(P, '(')) return call(P, &name);
  if ((f = lang_func_lookup(name.text, name.len)) != LANG_FN_COUNT)
    return fail_at(P, name.line, name.col, funcs[f].usage,
                   "function '%s' needs its arguments in parentheses", funcs[f].name);
  if (!(e = new_expr(P, LANG_EXPR_NAME, &name))) return NULL;
  e->u.name = copy_text(P, &name);
  return e->u.name ? e : NULL;
}

/* primary := NUMBER | NAME | call | '(' expr ')' */
static lang_expr *primary(parser *P) {
  lang_tok open = P->tok;
  lang_expr *e;
  if (P->tok.kind == LANG_TK_NUMBER) return number(P);
  if (P->tok.kind == LANG_TK_NAME) return name_or_call(P);
  if (!is_punct(P, '(')) return no_expression(P);
  if (!enter(P)) return NULL;
  next(P);
  if (!(e = expr(P)) || !close_paren(P, &open)) return NULL;
  return e;
}

/* ---- expressions: operators ----------------------------------------------------- */
/* arg.x at the '.': one of the three unit vectors. */
static lang_expr *member(parser *P, lang_expr *arg) {
  lang_expr *e = new_expr(P, LANG_EXPR_MEMBER, &P->tok);
  if (!e) return NULL;
  next(P);
  if (P->tok.kind != LANG_TK_NAME || P->tok.len != 1 || P->tok.text[0] < 'x' ||
      P->tok.text[0] > 'z')
    return expected(P, "A.x, A.y and A.z are the unit vectors of frame A", "x, y or z after '.'");
  e->u.member.arg = arg;
  e->u.member.axis = P->tok.text[0];
  next(P);
  return e;
}

/* A third prime at the current token. */
static void *too_many_primes(parser *P, const char *name) {
  char hint[160];
  snprintf(hint, sizeof hint, "%.40s'' is the second derivative; der(%.40s'') the third", name, name);
  return fail_at(P, P->tok.line, P->tok.col, hint, "too many primes on '%.40s': at most two", name);
}

/* arg' or arg'' at the first prime. */
static lang_expr *primes(parser *P, lang_expr *arg) {
  lang_expr *e = new_expr(P, LANG_EXPR_PRIME, &P->tok);
  if (!e) return NULL;
  e->u.prime.arg = arg;
  while (is_punct(P, '\'')) {
    if (e->u.prime.count == 2)
      return too_many_primes(P, arg->kind == LANG_EXPR_NAME ? arg->u.name : "an expression");
    e->u.prime.count++;
    next(P);
  }
  return e;
}

/* postfix := primary ['.' axis] [primes] */
static lang_expr *postfix(parser *P) {
  lang_expr *e = primary(P);
  if (e && is_punct(P, '.')) e = member(P, e);
  if (e && is_punct(P, '\'')) e = primes(P, e);
  if (e && is_punct(P, '.'))
    return fail_at(P, P->tok.line, P->tok.col, "only a frame has members: A.x, A.y, A.z",
                   "unexpected '.' after a member or a prime");
  return e;
}

/* power := postfix ['^' unary]: right-associative through unary, so the
 * exponent may be signed (2^-1) or a power itself (a^b^c = a^(b^c)). */
static lang_expr *power(parser *P) {
  lang_expr *base = postfix(P), *e;
  if (!base || !is_punct(P, '^')) return base;
  if (!(e = new_expr(P, LANG_EXPR_POWER, &P->tok)) || !enter(P)) return NULL;
  next(P);
  e->u.power.base = base;
  e->u.power.exponent = unary(P);
  P->depth--;
  return e->u.power.exponent ? e : NULL;
}

/* unary := ('-'|'+') unary | power: below '^', above '*' and '/'. */
static lang_expr *unary(parser *P) {
  lang_expr *e;
  if (!is_punct(P, '-') && !is_punct(P, '+')) return power(P);
  if (!(e = new_expr(P, LANG_EXPR_UNARY, &P->tok)) || !enter(P)) return NULL;
  e->u.unary.op = P->tok.punct;
  next(P);
  e->u.unary.arg = unary(P);
  P->depth--;
  return e->u.unary.arg ? e : NULL;
}

/* Is the current token one of the two operators ops[0], ops[1]? */
static bool at_op(const parser *P, const char *ops) {
  return is_punct(P, ops[0]) || is_punct(P, ops[1]);
}

/* chain := sub {op sub}, one flat node of kind k; a lone operand is
 * returned as it is. The operands wait on the scratch stack. */
static lang_expr *chain(parser *P, const char *ops, lang_expr_kind k,
                        lang_expr *(*sub)(parser *)) {
  lang_operand o = {.line = P->tok.line, .col = P->tok.col, .op = ops[0]};
  size_t mark;
  lang_expr *e;
  if (!(o.e = sub(P)) || !at_op(P, ops)) return o.e;
  mark = P->stack.len;
  if (!(e = new_expr(P, k, &P->tok)) || !push(P, &o, sizeof o)) return NULL;
  while (at_op(P, ops)) {
    o = (lang_operand){.line = P->tok.line, .col = P->tok.col, .op = P->tok.punct};
    next(P);
    if (!(o.e = sub(P)) || !push(P, &o, sizeof o)) return NULL;
  }
  e->u.chain.terms = pop(P, mark, sizeof o, &e->u.chain.n);
  return e->u.chain.terms ? e : NULL;
}

static lang_expr *term(parser *P) { return chain(P, "*/", LANG_EXPR_PRODUCT, unary); }
static lang_expr *expr(parser *P) { return chain(P, "+-", LANG_EXPR_SUM, term); }

/* ---- statements: names ---------------------------------------------------------- */
/* A name written in a statement (what: "a point name"), taken as it is. */
static bool ident(parser *P, const char *what, lang_ident *id) {
  char buf[48];
  if (P->tok.kind != LANG_TK_NAME)
    return expected(P, NULL, "%s after %s", what, describe(P, &P->prev, buf, sizeof buf)), false;
  id->line = P->tok.line;
  id->col = P->tok.col;
  if (!(id->text = copy_text(P, &P->tok))) return false;
  next(P);
  return true;
}

/* "'L' is reserved (the Lagrangian); choose another name such as 'l'": the
 * suggestion is the lower case of a capital letter when that is free, else
 * the name with a 1 appended. */
static void *reserved_error(parser *P, const char *name, int line, int col, const char *why) {
  char other[48];
  char lower[2] = {(char)(name[0] - 'A' + 'a'), 0};
  bool capital = name[0] >= 'A' && name[0] <= 'Z' && name[1] == 0;
  if (capital && !reserved_reason(lower, false)) snprintf(other, sizeof other, "%s", lower);
  else if (multiplier_name(name)) snprintf(other, sizeof other, "lambda%.36s", name + 3);
  else snprintf(other, sizeof other, "%.40s1", name);
  return fail_at(P, line, col, NULL, "'%.40s' is reserved (%s); choose another name such as '%s'",
                 name, why, other);
}

/* A name being declared: not reserved (T V D L allowed when energy_ok). */
static bool declared(parser *P, const char *what, bool energy_ok, lang_ident *id) {
  const char *why;
  if (!ident(P, what, id)) return false;
  if (!(why = reserved_reason(id->text, energy_ok))) return true;
  return reserved_error(P, id->text, id->line, id->col, why), false;
}

/* The word kw, which this statement needs after `after`. */
static bool keyword(parser *P, const char *kw, const char *after, const char *usage) {
  if (is_word(P, kw)) {
    next(P);
    return true;
  }
  return expected(P, usage, "'%s' after %s", kw, after), false;
}

/* A ',' is missing between two items of a list. */
static bool missing_comma(parser *P, const char *after, const char *hint) {
  return expected(P, hint, "',' after %s", after), false;
}

/* ---- statements: lists ---------------------------------------------------------- */
/* coordinates q1 q2 q3 / speeds u1, u2 / dependent u3: names, commas
 * optional. `dependent` refers to speeds declared before; the others declare. */
static bool names_stmt(parser *P, lang_stmt *st) {
  bool refers = st->kind == LANG_STMT_DEPENDENT;
  const char *what = st->kind == LANG_STMT_COORDINATES ? "a coordinate name" : "a speed name";
  size_t mark = P->stack.len;
  for (;;) {
    lang_ident id;
    if (!(refers ? ident(P, what, &id) : declared(P, what, false, &id)) ||
        !push(P, &id, sizeof id))
      return false;
    if (accept(P, ',')) continue;
    if (P->tok.kind != LANG_TK_NAME) break;
  }
  if (!at_end(P)) return expected(P, NULL, "%s or the end of the statement", what), false;
  st->u.names.v = pop(P, mark, sizeof(lang_ident), &st->u.names.n);
  return st->u.names.v != NULL;
}

/* parameters m = 1, g = 9.81, l / inputs F = 0: commas between items (an
 * item without a value may also be followed by a name directly). */
static bool decls_stmt(parser *P, lang_stmt *st) {
  const char *what = st->kind == LANG_STMT_INPUTS ? "an input name" : "a parameter name";
  size_t mark = P->stack.len;
  for (;;) {
    lang_decl d = {0};
    char after[64];
    if (!declared(P, what, false, &d.name)) return false;
    if (accept(P, '=') && !(d.value = expr(P))) return false;
    if (!push(P, &d, sizeof d)) return false;
    if (accept(P, ',')) continue;
    if (P->tok.kind != LANG_TK_NAME) break;
    if (!d.value) continue;
    snprintf(after, sizeof after, "the value of '%.40s'", d.name.text);
    return missing_comma(P, after, "separate the items with ','; a product needs '*': 2*m");
  }
  st->u.decls.v = pop(P, mark, sizeof(lang_decl), &st->u.decls.n);
  return st->u.decls.v != NULL;
}

/* kinematics q1' = u1, q2' = u2: equations separated by commas. */
static bool kinematics_stmt(parser *P, lang_stmt *st) {
  static const char usage[] = "kinematics q1' = u1, q2' = u2";
  size_t mark = P->stack.len;
  for (;;) {
    lang_equation q = {0};
    if (!(q.lhs = expr(P))) return false;
    if (!is_punct(P, '=')) return expected(P, usage, "'=' in the kinematical equation"), false;
    q.line = P->tok.line;
    q.col = P->tok.col;
    next(P);
    if (!(q.rhs = expr(P)) || !push(P, &q, sizeof q)) return false;
    if (accept(P, ',')) continue;
    if (P->tok.kind == LANG_TK_NAME) return missing_comma(P, "the equation", usage);
    break;
  }
  st->u.kinematics.v = pop(P, mark, sizeof(lang_equation), &st->u.kinematics.n);
  return st->u.kinematics.v != NULL;
}

/* One item of initial: name, up to two primes, '=', value. */
static bool initial_item(parser *P, lang_init *it) {
  static const char usage[] = "initial x = 0.1, x' = 0";
  if (!ident(P, "a coordinate or speed name", &it->name)) return false;
  for (; is_punct(P, '\''); next(P))
    if (it->primes++ == 2) return too_many_primes(P, it->name.text), false;
  if (!accept(P, '='))
    return expected(P, usage, "'=' after '%.40s%.*s'", it->name.text, it->primes, "''"), false;
  return (it->value = expr(P)) != NULL;
}

/* initial x = 0.1, x' = 0: items separated by commas. */
static bool initial_stmt(parser *P, lang_stmt *st) {
  size_t mark = P->stack.len;
  for (;;) {
    lang_init it = {0};
    if (!initial_item(P, &it) || !push(P, &it, sizeof it)) return false;
    if (accept(P, ',')) continue;
    if (P->tok.kind == LANG_TK_NAME) return missing_comma(P, "the value", "initial x = 0.1, x' = 0");
    break;
  }
  st->u.initial.v = pop(P, mark, sizeof(lang_init), &st->u.initial.n);
  return st->u.initial.v != NULL;
}

/* ---- statements: the others ----------------------------------------------------- */
/* name = expr: an intermediate or an energy (T V D L). */
static bool assign_stmt(parser *P, lang_stmt *st) {
  if (!declared(P, "a name", true, &st->u.named.name)) return false;
  next(P); /* the '=' the caller has seen */
  return (st->u.named.value = expr(P)) != NULL;
}

/* frame A [= expr] / point P [= expr] */
static bool named_stmt(parser *P, lang_stmt *st) {
  bool frame = st->kind == LANG_STMT_FRAME;
  lang_named *d = &st->u.named;
  if (!declared(P, frame ? "a frame name" : "a point name", false, &d->name)) return false;
  if (accept(P, '=')) return (d->value = expr(P)) != NULL;
  if (at_end(P)) return true;
  return expected(P, frame ? "frame A = rotate(N, N.z, q)" : "point P = O + l*N.x",
                  "'=' or the end of the statement after '%.40s'", d->name.text), false;
}

/* particle P mass expr */
static bool particle_stmt(parser *P, lang_stmt *st) {
  return ident(P, "a point name", &st->u.particle.point) &&
         keyword(P, "mass", "the point name", "particle P mass m") &&
         (st->u.particle.mass = expr(P)) != NULL;
}

/* The inertia list of a body: '(' 3 or 6 expressions ')'. */
static bool inertia(parser *P, lang_stmt *st) {
  static const char usage[] = "inertia (Ixx, Iyy, Izz) or (Ixx, Iyy, Izz, Ixy, Iyz, Izx)";
  lang_tok open = P->tok;
  int n = 0;
  if (!accept(P, '(')) return expected(P, usage, "'(' after 'inertia'"), false;
  P->depth++; /* close_paren leaves it */
  do {
    if (n == 6)
      return fail_at(P, P->tok.line, P->tok.col, usage,
                     "inertia takes 3 or 6 components, found more than 6"), false;
    if (!(st->u.body.inertia[n++] = expr(P))) return false;
  } while (accept(P, ','));
  if (!close_paren(P, &open)) return false;
  if (n != 3 && n != 6)
    return fail_at(P, open.line, open.col, usage, "inertia takes 3 or 6 components, found %d", n),
           false;
  st->u.body.ninertia = n;
  return true;
}

/* body A mass expr at P inertia (...) */
static bool body_stmt(parser *P, lang_stmt *st) {
  static const char usage[] = "body A mass m at P inertia (Ixx, Iyy, Izz)";
  return ident(P, "a frame name", &st->u.body.frame) &&
         keyword(P, "mass", "the frame name", usage) && (st->u.body.mass = expr(P)) &&
         keyword(P, "at", "the mass", usage) && ident(P, "a point name", &st->u.body.at) &&
         keyword(P, "inertia", "the point name", usage) && inertia(P, st);
}

/* gravity expr */
static bool gravity_stmt(parser *P, lang_stmt *st) { return (st->u.gravity = expr(P)) != NULL; }

/* force target: expr / torque frame: expr */
static bool load_stmt(parser *P, lang_stmt *st) {
  bool force = st->kind == LANG_STMT_FORCE;
  if (!ident(P, force ? "a point or coordinate name" : "a frame name", &st->u.load.target))
    return false;
  if (!accept(P, ':'))
    return expected(P, force ? "force P: F" : "torque A: M", "':' after '%.40s'",
                    st->u.load.target.text), false;
  return (st->u.load.value = expr(P)) != NULL;
}

/* constraint expr [= expr] */
static bool constraint_stmt(parser *P, lang_stmt *st) {
  lang_equation *c = &st->u.constraint;
  if (!(c->lhs = expr(P))) return false;
  if (!is_punct(P, '=')) return true;
  c->line = P->tok.line;
  c->col = P->tok.col;
  next(P);
  return (c->rhs = expr(P)) != NULL;
}

/* simulate expr to expr [step expr] */
static bool simulate_stmt(parser *P, lang_stmt *st) {
  static const char usage[] = "simulate 0 to 10 step 0.01";
  if (!(st->u.simulate.start = expr(P)) || !keyword(P, "to", "the start time", usage) ||
      !(st->u.simulate.stop = expr(P)))
    return false;
  if (is_word(P, "step")) {
    next(P);
    return (st->u.simulate.step = expr(P)) != NULL;
  }
  if (P->tok.kind == LANG_TK_NAME)
    return expected(P, usage, "'step' or the end of the statement"), false;
  return true;
}

/* draw segment P Q / draw trail P, Q: what the animation shows besides
 * its default (docs/REFERENCE.md: extensions of the model language). */
static const char *const draw_words[] = {"in", "axis", "radius", "length", "width", "size",
                                         "at"};

static bool draw_word(const parser *P) {
  for (size_t i = 0; i < sizeof draw_words / sizeof *draw_words; i++)
    if (is_word(P, draw_words[i])) return true;
  return false;
}

/* E, E, E after `size` or `at` */
static bool draw_triple(parser *P, lang_expr **v, const char *usage) {
  for (int k = 0; k < 3; k++) {
    if (k && !accept(P, ','))
      return expected(P, usage, "',' and the next of three values"), false;
    if (!(v[k] = expr(P))) return false;
  }
  return true;
}

/* The shapes: draw sphere P radius R [in F at X, Y, Z], draw capsule P Q
 * radius R, draw cylinder P Q radius R, draw cylinder P in F axis y radius
 * R length L [at ...], draw disk P in F axis y radius R [width W] [at ...],
 * draw box P in F size X, Y, Z [at ...]. The clauses in any order; what
 * each shape needs is checked by the semantic pass. */
static bool draw_shape(parser *P, lang_stmt *st, const char *usage) {
  lang_ident pts[2];
  size_t n = 0;
  if (!ident(P, "a point name", &pts[n++])) return false;
  if (P->tok.kind == LANG_TK_NAME && !draw_word(P) && !ident(P, "a point name", &pts[n++]))
    return false;
  if (!(st->u.draw.v = alloc(P, n * sizeof *pts))) return false;
  memcpy(st->u.draw.v, pts, n * sizeof *pts);
  st->u.draw.n = n;
  while (!at_end(P)) {
    lang_ident w;
    if (P->tok.kind != LANG_TK_NAME || !draw_word(P))
      return expected(P, usage, "one of in, axis, radius, length, width, size, at"), false;
    if (!ident(P, "a word", &w)) return false;
    if (!strcmp(w.text, "in")) {
      if (!ident(P, "a frame name", &st->u.draw.frame)) return false;
    } else if (!strcmp(w.text, "axis")) {
      if (!ident(P, "x, y or z", &st->u.draw.axis)) return false;
    } else if (!strcmp(w.text, "size")) {
      if (!draw_triple(P, st->u.draw.val, usage)) return false;
      for (int k = 0; k < 3; k++) st->u.draw.valname[k] = w;
    } else if (!strcmp(w.text, "at")) {
      if (!draw_triple(P, st->u.draw.at, usage)) return false;
    } else {
      int k = !strcmp(w.text, "radius") ? 0 : 1;
      if (!(st->u.draw.val[k] = expr(P))) return false;
      st->u.draw.valname[k] = w;
    }
  }
  return true;
}

static bool draw_stmt(parser *P, lang_stmt *st) {
  static const char usage[] = "draw segment P Q, draw trail P, draw sphere P radius r, draw "
                              "capsule P Q radius r, draw disk P in B axis y radius r, or draw "
                              "box P in B size a, b, c";
  lang_ident *w = &st->u.draw.what;
  if (!ident(P, "'segment' or 'trail'", w)) return false;
  int segment = !strcmp(w->text, "segment");
  static const char *const shapes[] = {"sphere", "capsule", "cylinder", "disk", "box"};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
    if (!strcmp(w->text, shapes[i])) return draw_shape(P, st, usage);
  if (!segment && strcmp(w->text, "trail"))
    return fail_at(P, w->line, w->col, usage, "unknown drawing '%.40s' (draw segment, trail, "
                   "sphere, capsule, cylinder, disk or box)", w->text), false;
  size_t mark = P->stack.len;
  for (;;) {
    lang_ident id;
    if (!ident(P, "a point name", &id) || !push(P, &id, sizeof id)) return false;
    if (accept(P, ',')) continue;
    if (P->tok.kind != LANG_TK_NAME) break;
  }
  if (!at_end(P)) return expected(P, usage, "a point name or the end of the statement"), false;
  st->u.draw.v = pop(P, mark, sizeof(lang_ident), &st->u.draw.n);
  if (st->u.draw.v && segment && st->u.draw.n != 2)
    return fail_at(P, w->line, w->col, usage, "'draw segment' joins two points, found %zu",
                   st->u.draw.n), false;
  return st->u.draw.v != NULL;
}

/* spring P Q: k, l0 / spring q: k, q0 / damper P Q: c / damper q: c. The
 * number of values is checked here, the names by the semantic pass. */
static bool element_stmt(parser *P, lang_stmt *st) {
  bool spring = st->kind == LANG_STMT_SPRING;
  const char *usage = spring ? "spring P Q: k, l0 or spring q: k, q0" : "damper P Q: c or damper q: c";
  if (!ident(P, "a point or coordinate name", &st->u.element.a)) return false;
  if (P->tok.kind == LANG_TK_NAME && !ident(P, "a point name", &st->u.element.b)) return false;
  if (!accept(P, ':'))
    return expected(P, usage, "':' after '%.40s'",
                    (st->u.element.b.text ? st->u.element.b : st->u.element.a).text), false;
  if (!(st->u.element.k = expr(P))) return false;
  if (spring) {
    const char *rest = st->u.element.b.text ? "rest length" : "rest value";
    if (!accept(P, ','))
      return expected(P, usage, "',' and the %s after the stiffness", rest), false;
    if (!(st->u.element.x0 = expr(P))) return false;
  }
  if (is_punct(P, ','))
    return fail_at(P, P->tok.line, P->tok.col, usage, "%s takes %s", spring ? "a spring" : "a damper",
                   spring ? "two values (stiffness, rest length)" : "one value (its coefficient)"),
           false;
  return true;
}

/* output name = expr [in frame] */
static bool output_stmt(parser *P, lang_stmt *st) {
  static const char usage[] = "output h = dot(pos(P), N.y), or output r = pos(P) in N";
  if (!declared(P, "an output name", false, &st->u.output.name)) return false;
  if (!accept(P, '='))
    return expected(P, usage, "'=' after '%.40s'", st->u.output.name.text), false;
  if (!(st->u.output.value = expr(P))) return false;
  if (!is_word(P, "in")) return true;
  next(P);
  return ident(P, "a frame name", &st->u.output.frame);
}

/* when A < B: stop / when A > B: x' = -e*x', x = 1 */
static bool when_stmt(parser *P, lang_stmt *st) {
  static const char usage[] = "when y < 0: stop, or when y < 0: y' = -e*y'";
  if (!(st->u.when.lhs = expr(P))) return false;
  if (!is_punct(P, '<') && !is_punct(P, '>'))
    return expected(P, usage, "'<' or '>' after the expression"), false;
  st->u.when.op = P->tok.punct;
  st->u.when.op_line = P->tok.line;
  st->u.when.op_col = P->tok.col;
  next(P);
  if (!(st->u.when.rhs = expr(P))) return false;
  if (!accept(P, ':')) return expected(P, usage, "':' after the condition"), false;
  if (is_word(P, "stop")) {
    next(P);
    st->u.when.stop = true;
    return true;
  }
  size_t mark = P->stack.len;
  for (;;) {
    lang_init it = {0};
    if (!initial_item(P, &it) || !push(P, &it, sizeof it)) return false;
    if (accept(P, ',')) continue;
    if (P->tok.kind == LANG_TK_NAME) return missing_comma(P, "the value", usage);
    break;
  }
  st->u.when.v = pop(P, mark, sizeof(lang_init), &st->u.when.n);
  return st->u.when.v != NULL;
}

/* friction x: F / friction x: F static Fs (lang_sema_contact.c checks the names) */
static bool friction_stmt(parser *P, lang_stmt *st) {
  static const char usage[] = "friction x: F, or friction x: F static Fs";
  if (!ident(P, "a coordinate name", &st->u.element.a)) return false;
  if (!accept(P, ':')) return expected(P, usage, "':' after '%.40s'", st->u.element.a.text), false;
  if (!(st->u.element.k = expr(P))) return false;
  if (is_word(P, "static")) {
    next(P);
    if (!(st->u.element.x0 = expr(P))) return false;
  }
  if (is_punct(P, ','))
    return fail_at(P, P->tok.line, P->tok.col, usage, "friction takes one level, and a static "
                   "one after the word 'static'"), false;
  return true;
}

/* The tail of a gap contact: [restitution e] [friction mu] (friction kept
 * for sema to refuse at its place). */
static bool gap_tail(parser *P, lang_stmt *st) {
  if (is_word(P, "restitution")) {
    next(P);
    if (!(st->u.contact.e = expr(P))) return false;
  }
  if (!is_word(P, "friction")) return true;
  st->u.contact.fric_line = P->tok.line;
  st->u.contact.fric_col = P->tok.col;
  next(P);
  return (st->u.contact.mu = expr(P)) != NULL;
}

/* contact P plane O n restitution e [friction mu], or
 * contact lhs >= rhs [restitution e] (or <=), or
 * contact limits [restitution e] (`limits` a word here only: followed by a
 * name or the end of the line; `contact limits >= 0` is a gap on a name
 * `limits`). */
static bool contact_stmt(parser *P, lang_stmt *st) {
  static const char usage[] =
      "contact P plane O N.y restitution e, or contact q1 >= -1.2 restitution e";
  const lang_tok *nx = peek(P);
  bool plane = P->tok.kind == LANG_TK_NAME && nx->kind == LANG_TK_NAME &&
               spelled(nx->text, nx->len, "plane");
  if (!plane && is_word(P, "limits") &&
      (nx->kind == LANG_TK_NAME || nx->kind == LANG_TK_NEWLINE || nx->kind == LANG_TK_EOF)) {
    st->u.contact.limits = true;
    next(P);
    return gap_tail(P, st);
  }
  if (!plane) {
    if (!(st->u.contact.lhs = expr(P))) return false;
    if (P->tok.kind == LANG_TK_NAME && P->prev.kind == LANG_TK_NAME)
      return expected(P, usage, "'plane' after the point, or '>=' or '<=' after the expression"),
             false;
    if (!is_punct(P, '>') && !is_punct(P, '<'))
      return expected(P, usage, "'>=' or '<=' after the expression"), false;
    st->u.contact.op = P->tok.punct;
    st->u.contact.op_line = P->tok.line;
    st->u.contact.op_col = P->tok.col;
    next(P);
    if (!is_punct(P, '=') || P->tok.line != st->u.contact.op_line ||
        P->tok.col != st->u.contact.op_col + 1)
      return fail_at(P, st->u.contact.op_line, st->u.contact.op_col, usage,
                     "a contact holds an inequality: write '%c=', not '%c'", st->u.contact.op,
                     st->u.contact.op), false;
    next(P);
    if (!(st->u.contact.rhs = expr(P))) return false;
    return gap_tail(P, st);
  }
  if (!ident(P, "a point name", &st->u.contact.p)) return false;
  if (!is_word(P, "plane")) return expected(P, usage, "'plane' after the point"), false;
  next(P);
  if (!ident(P, "the plane's point", &st->u.contact.o)) return false;
  if (!(st->u.contact.n = expr(P))) return false;
  if (!is_word(P, "restitution"))
    return expected(P, usage, "'restitution' after the plane's normal"), false;
  next(P);
  if (!(st->u.contact.e = expr(P))) return false;
  if (!is_word(P, "friction")) return true;
  next(P);
  return (st->u.contact.mu = expr(P)) != NULL;
}

/* ---- statements: dispatch ------------------------------------------------------- */
typedef bool (*stmt_parser)(parser *, lang_stmt *);

/* The parser of each statement kind's body (after its keyword). */
static const stmt_parser body_of[LANG_STMT_COUNT] = {
    [LANG_STMT_ASSIGN] = assign_stmt,         [LANG_STMT_COORDINATES] = names_stmt,
    [LANG_STMT_PARAMETERS] = decls_stmt,      [LANG_STMT_INPUTS] = decls_stmt,
    [LANG_STMT_FRAME] = named_stmt,           [LANG_STMT_POINT] = named_stmt,
    [LANG_STMT_PARTICLE] = particle_stmt,     [LANG_STMT_BODY] = body_stmt,
    [LANG_STMT_GRAVITY] = gravity_stmt,       [LANG_STMT_FORCE] = load_stmt,
    [LANG_STMT_TORQUE] = load_stmt,           [LANG_STMT_CONSTRAINT] = constraint_stmt,
    [LANG_STMT_SPEEDS] = names_stmt,          [LANG_STMT_KINEMATICS] = kinematics_stmt,
    [LANG_STMT_DEPENDENT] = names_stmt,
    [LANG_STMT_INITIAL] = initial_stmt,       [LANG_STMT_SIMULATE] = simulate_stmt,
    [LANG_STMT_DRAW] = draw_stmt,             [LANG_STMT_OUTPUT] = output_stmt,
    [LANG_STMT_SPRING] = element_stmt,        [LANG_STMT_DAMPER] = element_stmt,
    [LANG_STMT_WHEN] = when_stmt,             [LANG_STMT_FRICTION] = friction_stmt,
    [LANG_STMT_CONTACT] = contact_stmt};

static const char stmt_hint[] =
    "a statement starts with a keyword such as 'frame', or assigns a name: r = ...";

/* A line that starts with a name that is neither a keyword nor assigned. */
static void *unknown_statement(parser *P, const lang_tok *name) {
  char hint[64];
  const char *best = closest(name->text, name->len, stmt_word, LANG_STMT_COUNT - 1);
  int n = name->len > 40 ? 40 : (int)name->len;
  if (best) snprintf(hint, sizeof hint, "did you mean '%s'?", best);
  return fail_at(P, name->line, name->col, best ? hint : stmt_hint, "unknown statement '%.*s'", n,
                 name->text);
}

/* Something is left over after a complete statement. */
static void *end_expected(parser *P) {
  const lang_tok *pv = &P->prev, *t = &P->tok;
  const char *hint = NULL;
  bool operand_before = pv->kind == LANG_TK_NAME || pv->kind == LANG_TK_NUMBER ||
                        tok_is(pv, ')') || tok_is(pv, '\'');
  bool operand_here = t->kind == LANG_TK_NAME || t->kind == LANG_TK_NUMBER || tok_is(t, '(');
  if (tok_is(t, ')')) hint = "this ')' has no matching '('";
  else if (operand_before && operand_here) hint = "is an operator missing? a product needs '*': 2*x";
  return expected(P, hint, "the end of the statement");
}

/* One statement, up to (not over) the newline that ends it. */
static lang_stmt *statement(parser *P) {
  lang_tok first = P->tok;
  lang_stmt_kind k;
  lang_stmt *st;
  if (first.kind != LANG_TK_NAME) return expected(P, stmt_hint, "a statement");
  k = keyword_kind(first.text, first.len);
  if (k == LANG_STMT_ASSIGN && !tok_is(peek(P), '=')) return unknown_statement(P, &first);
  if (k != LANG_STMT_ASSIGN && tok_is(peek(P), '='))
    return reserved_error(P, stmt_words[k], first.line, first.col, "a statement keyword");
  if (!(st = alloc(P, sizeof *st))) return NULL;
  st->kind = k;
  st->line = first.line;
  st->col = first.col;
  if (k != LANG_STMT_ASSIGN) next(P);
  if (!body_of[k](P, st)) return NULL;
  return at_end(P) ? st : end_expected(P);
}

/* ---- the program ---------------------------------------------------------------- */
/* Statements up to the end of the file, in order. */
static bool program(parser *P, lang_program *prog) {
  lang_stmt **tail = &prog->first;
  next(P);
  for (;;) {
    lang_stmt *st;
    while (P->tok.kind == LANG_TK_NEWLINE) next(P);
    if (P->tok.kind == LANG_TK_EOF) return true;
    if (!(st = statement(P))) return false;
    *tail = st;
    tail = &st->next;
    prog->count++;
  }
}

/* One expression, then only newlines up to the end. */
static lang_expr *whole_expr(parser *P) {
  lang_expr *e;
  next(P);
  while (P->tok.kind == LANG_TK_NEWLINE) next(P);
  if (!(e = expr(P))) return NULL;
  while (P->tok.kind == LANG_TK_NEWLINE) next(P);
  if (P->tok.kind != LANG_TK_EOF) return end_expected(P);
  return e;
}

lg_status lang_parse_expr(const char *file, const char *src, size_t len, lg_arena *arena,
                          lang_expr **out, lg_diag *diag) {
  parser P = {.arena = arena, .diag = diag, .file = file, .status = LG_OK};
  lang_expr *e;
  if (out) *out = NULL;
  if (!arena || !out || (!src && len) || len > LANG_MAX_SOURCE) {
    lg_diag_set(diag, LG_ERR_USAGE, file, 0, 0, "lang_parse_expr: no arena, output or source");
    return LG_ERR_USAGE;
  }
  lang_lex_open(&P.ls, file, src ? src : "", len, diag);
  e = whole_expr(&P);
  if (!e && P.status == LG_OK)
    fail_at(&P, P.tok.line, P.tok.col, NULL, "internal error: the parser stopped without a reason");
  lg_free(P.stack.buf);
  if (P.status == LG_OK) *out = e;
  return P.status;
}

lg_status lang_parse(const char *file, const char *src, size_t len, lg_arena *arena,
                     lang_program **out, lg_diag *diag) {
  return lang_parse_expanded(file, src, len, arena, out, diag, NULL);
}

lg_status lang_parse_expanded(const char *file, const char *src, size_t len, lg_arena *arena,
                              lang_program **out, lg_diag *diag,
                              const struct lang_expanded *x) {
  parser P = {.arena = arena, .diag = diag, .file = file, .status = LG_OK, .x = x};
  lang_program *prog;
  if (out) *out = NULL;
  if (!arena || !out || (!src && len)) {
    lg_diag_set(diag, LG_ERR_USAGE, file, 0, 0, "lang_parse: no arena, output or source");
    return LG_ERR_USAGE;
  }
  if (len > LANG_MAX_SOURCE) {
    lg_diag_set(diag, LG_ERR_MODEL, file, 1, 1, "the model file is too large (over 1 GiB)");
    return LG_ERR_MODEL;
  }
  lang_lex_open(&P.ls, file, src ? src : "", len, diag);
  /* a failure always records its status: this guards that invariant */
  if ((prog = alloc(&P, sizeof *prog)) && !program(&P, prog) && P.status == LG_OK)
    fail_at(&P, P.tok.line, P.tok.col, NULL, "internal error: the parser stopped without a reason");
  lg_free(P.stack.buf);
  if (P.status == LG_OK) *out = prog;
  return P.status;
}
