/* lang_lexer.c - tokens of the model language, with line continuation:
 * a newline ends a statement unless a '(' is open or the line ends with a
 * binary operator, '=' or ','. */
#include "lang_syntax.h"

#include <stdio.h>
#include <string.h>

void lang_lex_init(lang_lexer *L, const char *file, const char *src, size_t len,
                   lg_diag *diag) {
  memset(L, 0, sizeof *L);
  L->file = file;
  L->src = src;
  L->end = src + len;
  L->p = src;
  L->line = 1;
  L->line_start = src;
  L->diag = diag;
  L->prev.kind = TOK_NEWLINE;
  /* a UTF-8 byte order mark is ignored */
  if (len >= 3 && (unsigned char)src[0] == 0xEF && (unsigned char)src[1] == 0xBB &&
      (unsigned char)src[2] == 0xBF)
    L->p += 3;
  L->line_start = L->p;
  L->stmt_start = L->p;
}

static int col_of(const lang_lexer *L, const char *at) {
  return (int)(at - L->line_start) + 1;
}

static lang_token error_at(lang_lexer *L, const char *at, const char *msg, const char *hint) {
  lg_diag_set(L->diag, LG_ERR_MODEL, L->file, L->line, col_of(L, at), "%s", msg);
  if (hint) lg_diag_hint(L->diag, "%s", hint);
  lang_token t = {TOK_ERROR, 0, 0, L->line, col_of(L, at), at, 0};
  return t;
}

/* Does a newline after this token continue the statement? */
static int continues(const lang_lexer *L) {
  if (L->depth > 0) return 1;
  if (L->prev.kind != TOK_PUNCT) return 0;
  return strchr("+-*/^=,", L->prev.punct) != NULL;
}

static int is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Skip spaces, comments and continued newlines; stop at a real newline. */
static void skip_blank(lang_lexer *L) {
  for (;;) {
    while (L->p < L->end && (*L->p == ' ' || *L->p == '\t' || *L->p == '\r')) L->p++;
    if (L->p < L->end && *L->p == '#')
      while (L->p < L->end && *L->p != '\n') L->p++;
    if (L->p < L->end && *L->p == '\n' && continues(L)) {
      L->p++;
      L->line++;
      L->line_start = L->p;
      continue;
    }
    return;
  }
}

static lang_token number(lang_lexer *L) {
  const char *s = L->p;
  int is_float = 0;
  while (L->p < L->end && is_digit(*L->p)) L->p++;
  if (L->p < L->end && *L->p == '.' && L->p + 1 < L->end && is_digit(L->p[1])) {
    is_float = 1;
    L->p++;
    while (L->p < L->end && is_digit(*L->p)) L->p++;
  }
  if (L->p < L->end && (*L->p == 'e' || *L->p == 'E')) {
    const char *e = L->p++;
    if (L->p < L->end && (*L->p == '+' || *L->p == '-')) L->p++;
    if (L->p >= L->end || !is_digit(*L->p))
      return error_at(L, e, "this number's exponent has no digits", "write e.g. 1e-3");
    while (L->p < L->end && is_digit(*L->p)) L->p++;
    is_float = 1;
  }
  if (L->p < L->end && (is_name_start(*L->p) || *L->p == '.'))
    return error_at(L, L->p, "malformed number", "put an operator between a number and a name: 2*x");
  lang_token t = {TOK_NUMBER, 0, is_float, L->line, col_of(L, s), s, (size_t)(L->p - s)};
  return t;
}

static lang_token bad_char(lang_lexer *L) {
  unsigned char c = (unsigned char)*L->p;
  char msg[96];
  if (c >= 0x80 || c < 0x20)
    snprintf(msg, sizeof msg, "invalid byte 0x%02x: a model file is plain text "
                              "(non-ASCII characters only in comments)", c);
  else
    snprintf(msg, sizeof msg, "unexpected character '%c'", c);
  return error_at(L, L->p, msg, NULL);
}

lang_token lang_lex_next(lang_lexer *L) {
  skip_blank(L);
  lang_token t = {TOK_EOF, 0, 0, L->line, col_of(L, L->p), L->p, 0};
  if (L->p >= L->end) {
    t.kind = L->prev.kind == TOK_NEWLINE ? TOK_EOF : TOK_NEWLINE;
  } else if (*L->p == '\n') {
    t.kind = TOK_NEWLINE;
    L->p++;
    L->line++;
    L->line_start = L->p;
    L->stmt_start = L->p;
  } else if (L->p - L->stmt_start > LANG_MAX_STATEMENT) {
    t = error_at(L, L->p, "this statement is too long (more than 1 MiB)",
                 "split it into named intermediates");
  } else if (is_name_start(*L->p)) {
    t.kind = TOK_NAME;
    while (L->p < L->end && (is_name_start(*L->p) || is_digit(*L->p))) L->p++;
    t.len = (size_t)(L->p - t.start);
  } else if (is_digit(*L->p)) {
    t = number(L);
  } else if (strchr("+-*/^(),=:.'", *L->p) && *L->p) {
    t.kind = TOK_PUNCT;
    t.punct = *L->p++;
    t.len = 1;
    if (t.punct == '(') L->depth++;
    if (t.punct == ')' && L->depth > 0) L->depth--;
  } else {
    t = bad_char(L);
  }
  if (t.kind == TOK_NEWLINE) L->depth = 0; /* an unclosed '(' is reported by the parser */
  L->prev = t;
  return t;
}
