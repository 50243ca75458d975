/* cg_text.c - user text in generated code. The model's path, the names
 * and the header's file name come from the user; written raw, a file named
 * `a*\/ code /\*.lag` or `q"""; code; """.lag` would close the comment or
 * the docstring around it and become code that runs when the output is
 * compiled, linked or imported. Every such string goes through one of
 * these functions, which leave nothing in it that ends its context. */
#include "cg_internal.h"

#include <stdio.h>

static void hex_byte(lg_str *o, unsigned char c) {
  char buf[8];
  snprintf(buf, sizeof buf, "\\x%02x", c);
  lg_str_puts(o, buf);
}

/* Printable ASCII stays as it is, except:
 *  - '/' next to '*' (it could end this comment or open a nested one,
 *    which -Wcomment rejects);
 *  - '\' (before a line end it would splice the next line into this one);
 *  - a '?' after a '?' (a trigraph such as ??/ is a backslash under
 *    -std=c11).
 * Those, and every control or non-ASCII byte, are written as \xNN, which
 * in a comment is only text. */
void cg_c_comment_text(lg_str *o, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; p[i]; i++) {
    unsigned char c = p[i];
    int plain = c >= 0x20 && c < 0x7f && c != '\\';
    if (c == '/' && ((i && p[i - 1] == '*') || p[i + 1] == '*')) plain = 0;
    if (c == '?' && i && p[i - 1] == '?') plain = 0;
    if (plain) lg_str_putc(o, (char)c);
    else hex_byte(o, c);
  }
}

/* The inside of a Python string literal ("..." or """..."""): '\' and '"'
 * escaped, control and non-ASCII bytes as \xNN (the module stays ASCII,
 * so no byte sequence can be malformed source). */
void cg_py_string_text(lg_str *o, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; p[i]; i++) {
    unsigned char c = p[i];
    if (c == '\\' || c == '"') {
      lg_str_putc(o, '\\');
      lg_str_putc(o, (char)c);
    } else if (c >= 0x20 && c < 0x7f) {
      lg_str_putc(o, (char)c);
    } else {
      hex_byte(o, c);
    }
  }
}

/* In `#include "NAME"` escapes mean nothing (the characters are the file's
 * name), and ', \, // and /\* are undefined behaviour; so only names
 * without them, without control bytes and without trigraphs ("??") can be
 * included. Non-ASCII bytes are left to the file system, as compilers do. */
int cg_include_name_ok(const char *s) {
  if (!s || !*s) return 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\'' || *p == '\\' || *p == '/') return 0;
    if (*p == '?' && p[1] == '?') return 0;
  }
  return 1;
}
