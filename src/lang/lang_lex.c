/* lang_lex.c - the tokens of the model language.
 *
 * One pass over the bytes, never reading past the end (the source need not
 * be NUL-terminated). A newline ends the statement unless a '(' or '[' is
 * open or the last token is a binary operator, '=' or ','; such a newline,
 * blank lines and comments after it are skipped. Non-ASCII text is allowed
 * in comments only, and must be UTF-8 there too. The first error ends the
 * token stream.
 */
#include "lang_ast.h"

#include <stdio.h>
#include <string.h>

/* ---- characters ----------------------------------------------------------------- */
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_name_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_name_char(int c) { return is_name_start(c) || is_digit(c); }
static bool is_blank(int c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

/* Does a newline (LF or CR LF) start at p? Returns its length, or 0. */
static int newline_at(const lang_lexstate *ls, const char *p) {
  if (p < ls->end && *p == '\n') return 1;
  if (p + 1 < ls->end && p[0] == '\r' && p[1] == '\n') return 2;
  return 0;
}

/* Length (2..4) of the well-formed UTF-8 sequence at p, storing its code
 * point in *cp; 0 when the bytes there are not UTF-8 (overlong forms,
 * surrogates and values past U+10FFFF included). */
static int utf8_seq(const unsigned char *p, const unsigned char *end, unsigned *cp) {
  unsigned c = p[0];
  int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
  unsigned lo = 0x80, hi = 0xBF; /* the allowed range of the second byte */
  if (c < 0xC2 || c > 0xF4) return 0;
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  if (end - p < n || p[1] < lo || p[1] > hi) return 0;
  unsigned v = c & (0x7F >> n);
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (p[i] & 0x3F);
  }
  *cp = v;
  return n;
}

/* ---- errors --------------------------------------------------------------------- */
static int col_of(const lang_lexstate *ls, const char *at) {
  return (int)(at - ls->line_start) + 1;
}

/* Report an error at byte `at` of the current line and end the stream:
 * the returned ERROR token, and every later one. hint may be NULL. */
static lang_tok lex_error(lang_lexstate *ls, const char *at, const char *hint,
                          const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static lang_tok lex_error(lang_lexstate *ls, const char *at, const char *hint,
                          const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lang_tok t = {.kind = LANG_TK_ERROR, .line = ls->line, .col = col_of(ls, at), .text = at};
  lg_diag_set(ls->diag, LG_ERR_MODEL, ls->file, t.line, t.col, "%s", msg);
  if (hint) lg_diag_hint(ls->diag, "%s", hint);
  ls->failed = true;
  ls->p = ls->end;
  return t;
}

/* A byte that is not UTF-8 text, or a control character. */
static lang_tok invalid_byte(lang_lexstate *ls, const char *at) {
  return lex_error(ls, at, NULL, "invalid byte 0x%02x (model files are UTF-8 text)",
                   (unsigned char)*at);
}

/* What to do instead of the non-ASCII character cp, or NULL. */
static const char *non_ascii_hint(unsigned cp) {
  if (cp >= 0x370 && cp <= 0x3FF) return "spell Greek letters out in ASCII: theta, omega";
  if (cp == 0x2032 || cp == 0x2019 || cp == 0xB4)
    return "write the time derivative with the ASCII apostrophe: q'";
  if (cp == 0x2212 || cp == 0x2013) return "write minus as the ASCII '-'";
  if (cp == 0xD7 || cp == 0xB7 || cp == 0x22C5) return "write products with '*'";
  if (cp == 0xA0) return "replace the no-break space with a plain space";
  return "names and operators are ASCII; other text belongs in comments";
}

/* A character no token starts with. */
static lang_tok bad_char(lang_lexstate *ls) {
  const char *at = ls->p;
  unsigned char c = (unsigned char)*at;
  unsigned cp = 0;
  int n;
  if (c < 0x80 && (c < 0x20 || c == 0x7F)) return invalid_byte(ls, at);
  if (c < 0x80)
    return lex_error(ls, at, c == ';' ? "one statement per line; remove the ';'" : NULL,
                     "unexpected character '%c'", c);
  n = utf8_seq((const unsigned char *)at, (const unsigned char *)ls->end, &cp);
  if (n == 0) return invalid_byte(ls, at);
  return lex_error(ls, at, non_ascii_hint(cp),
                   "non-ASCII character '%.*s' (U+%04X) outside a comment", n, at, cp);
}

/* ---- blanks, comments, newlines -------------------------------------------------- */
/* Does a newline here continue the statement? */
static bool continues(const lang_lexstate *ls) {
  if (ls->open > 0) return true;
  return ls->last_kind == LANG_TK_PUNCT && strchr("+-*/^=,", ls->last_punct) != NULL;
}

/* Step over the newline of length n at p. */
static void take_newline(lang_lexstate *ls, int n) {
  ls->p += n;
  ls->line++;
  ls->line_start = ls->p;
}

/* Skip a comment up to (not over) its newline. Comments may hold any UTF-8
 * text except NUL; false (with the error in *err) otherwise. */
static bool skip_comment(lang_lexstate *ls, lang_tok *err) {
  const char *p = ls->p;
  while (p < ls->end && !newline_at(ls, p)) {
    unsigned cp;
    int n = 1;
    if (*p == 0) {
      *err = invalid_byte(ls, p);
      return false;
    }
    if ((unsigned char)*p >= 0x80 &&
        !(n = utf8_seq((const unsigned char *)p, (const unsigned char *)ls->end, &cp))) {
      *err = invalid_byte(ls, p);
      return false;
    }
    p += n;
  }
  ls->p = p;
  return true;
}

/* Skip blanks and comments, and newlines that continue the statement. A
 * lone CR is a blank. Stops before a token or a statement-ending newline. */
static bool skip_space(lang_lexstate *ls, lang_tok *err) {
  while (ls->p < ls->end) {
    int nl = newline_at(ls, ls->p);
    if (nl && continues(ls)) take_newline(ls, nl);
    else if (nl) return true;
    else if (is_blank(*ls->p) || *ls->p == '\r') ls->p++;
    else if (*ls->p == '#') {
      if (!skip_comment(ls, err)) return false;
    } else return true;
  }
  return true;
}

/* ---- tokens --------------------------------------------------------------------- */
/* An error in the number s[0..q) at byte `at` (the character that is
 * wrong), quoting the number (long ones cut short). */
static lang_tok number_error(lang_lexstate *ls, const char *s, const char *q, const char *at,
                             const char *hint, const char *what) {
  int n = (int)(q - s);
  return lex_error(ls, at, hint, "number '%.*s%s' %s", n > 40 ? 40 : n, s,
                   n > 40 ? "..." : "", what);
}

/* A number: digits, an optional fraction, an optional exponent. */
static lang_tok lex_number(lang_lexstate *ls, lang_tok t) {
  const char *s = ls->p, *q = s, *e = ls->end;
  while (q < e && is_digit(*q)) q++;
  if (q < e && *q == '.') {
    if (q + 1 >= e || !is_digit(q[1]))
      return number_error(ls, s, q + 1, q, "put a digit after the '.', as in 2.0",
                          "has no digits after the '.'");
    for (q++; q < e && is_digit(*q); q++) {}
    t.is_double = true;
  }
  if (q < e && (*q == 'e' || *q == 'E')) {
    const char *exp = q++;
    if (q < e && (*q == '+' || *q == '-')) q++;
    if (q >= e || !is_digit(*q))
      return number_error(ls, s, q, exp, "write the exponent as in 1e-3",
                          "has no exponent digits");
    while (q < e && is_digit(*q)) q++;
    t.is_double = true;
  }
  if (q < e && (is_name_char(*q) || *q == '.')) {
    char what[40];
    snprintf(what, sizeof what, "is followed by '%c'", *q);
    return number_error(ls, s, q, q, *q == '.' ? NULL : "a product needs '*', as in 2*x", what);
  }
  t.kind = LANG_TK_NUMBER;
  t.len = (size_t)(q - s);
  ls->p = q;
  return t;
}

/* A name, or a punctuation character (which may open or close a bracket). */
static lang_tok lex_word(lang_lexstate *ls, lang_tok t) {
  char c = *ls->p;
  if (is_name_start(c)) {
    const char *q = ls->p;
    while (q < ls->end && is_name_char(*q)) q++;
    t.kind = LANG_TK_NAME;
    t.len = (size_t)(q - ls->p);
    ls->p = q;
    return t;
  }
  if (c == 0 || !strchr("+-*/^()[],=:.'<>", c)) return bad_char(ls);
  t.kind = LANG_TK_PUNCT;
  t.punct = c;
  t.len = 1;
  ls->p++;
  if (c == '(' || c == '[') ls->open++;
  if ((c == ')' || c == ']') && ls->open > 0) ls->open--;
  return t;
}

/* The token at the cursor (blanks already skipped). */
static lang_tok lex_token(lang_lexstate *ls) {
  lang_tok t = {.kind = LANG_TK_EOF, .line = ls->line, .col = col_of(ls, ls->p),
                .text = ls->p};
  int nl;
  if (ls->p >= ls->end) return t;
  if ((nl = newline_at(ls, ls->p))) {
    take_newline(ls, nl);
    ls->open = 0;
    ls->ntok = 0;
    t.kind = LANG_TK_NEWLINE;
    return t;
  }
  if (++ls->ntok > LANG_MAX_STMT_TOKENS)
    return lex_error(ls, ls->p, "split it into named intermediates (r = ...)",
                     "statement too long (more than %d tokens)", LANG_MAX_STMT_TOKENS);
  if (is_digit(*ls->p)) return lex_number(ls, t);
  return lex_word(ls, t);
}

/* ---- interface ------------------------------------------------------------------ */
void lang_lex_open(lang_lexstate *ls, const char *file, const char *src, size_t len,
                   lg_diag *diag) {
  memset(ls, 0, sizeof *ls);
  ls->file = file;
  ls->p = src;
  ls->end = src + len;
  ls->line = 1;
  ls->last_kind = LANG_TK_NEWLINE;
  ls->diag = diag;
  if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) ls->p += 3;
  ls->line_start = ls->p;
}

lang_tok lang_lex_scan(lang_lexstate *ls) {
  lang_tok t = {.kind = LANG_TK_ERROR, .line = ls->line, .col = 1, .text = ls->p};
  if (ls->failed) return t;
  if (!skip_space(ls, &t)) return t;
  t = lex_token(ls);
  ls->last_kind = t.kind;
  ls->last_punct = t.punct;
  return t;
}
