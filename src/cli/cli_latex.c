/* cli_latex.c - long LaTeX formulas broken into lines that fit the page.
 *
 * A display line of an article holds about 50 characters of mathematics;
 * a longer formula becomes a multline* cut at the + and - signs that stand
 * outside every brace group and \left...\right pair. Within a formula that
 * must be cut, \left( and
 * \right) become plain parentheses, so that a long coefficient in
 * parentheses may be cut too (TeX only needs a \left and its \right on one
 * line, plain parentheses have no such rule). */
#include "cli.h"

#include <string.h>

enum { LATEX_LINE = 46 };

/* Length of the control word at s (after the backslash). */
static size_t word_len(const char *s) {
  size_t n = 0;
  while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z')) n++;
  return n;
}

/* Control words that print their name (upright functions). */
static int printed_word(const char *s, size_t n) {
  static const char *const fns[] = {"sin", "cos", "tan", "exp", "log", "sinh", "cosh",
                                    "tanh", "arcsin", "arccos", "arctan", "operatorname",
                                    "lambda", "pi", "theta", "phi", "psi", "omega"};
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
    if (strlen(fns[i]) == n && !strncmp(s, fns[i], n)) return 1;
  return 0;
}

/* An estimate (in characters) of the printed width of s, from a to b. */
static size_t width(const char *s, size_t a, size_t b) {
  size_t w = 0;
  for (size_t i = a; i < b; i++) {
    char ch = s[i];
    if (ch == '\\') {
      size_t n = word_len(s + i + 1);
      if (n == 0) { /* \, \; \\ and the like */
        i++;
        continue;
      }
      w += printed_word(s + i + 1, n) ? (n > 3 ? 3 : n) : 0;
      i += n;
    } else if (ch != '{' && ch != '}' && ch != '^' && ch != '_' && ch != ' ') {
      w++;
    }
  }
  return w;
}

/* s with \left( and \right) spelled as plain parentheses. */
static void plain_parens(lg_str *out, const char *s) {
  while (*s) {
    if (!strncmp(s, "\\left(", 6)) {
      lg_str_putc(out, '(');
      s += 6;
    } else if (!strncmp(s, "\\right)", 7)) {
      lg_str_putc(out, ')');
      s += 7;
    } else {
      lg_str_putc(out, *s++);
    }
  }
}

/* Is s[i] a + or - that separates two terms at the outer level? */
static int cut_here(const char *s, size_t i, int depth) {
  return depth == 0 && i > 0 && s[i - 1] == ' ' &&
         (s[i] == '+' || s[i] == '-' || s[i] == '=') && s[i + 1] == ' ';
}

int cli_latex_fits(const char *s) { return width(s, 0, strlen(s)) <= LATEX_LINE; }

/* One formula as a display: \[ s \] when it fits, else a multline* cut
 * at the outer + and - signs into lines that do. */
void cli_latex_display(lg_str *o, const char *s) {
  if (cli_latex_fits(s)) {
    lg_str_printf(o, "\\[ %s \\]\n", s);
    return;
  }
  lg_str p;
  lg_str_init(&p);
  plain_parens(&p, s);
  const char *t = p.s ? p.s : "";
  size_t start = 0, last = 0, n = strlen(t);
  int depth = 0;
  lg_str_puts(o, "\\begin{multline*}\n  ");
  for (size_t i = 0; i <= n; i++) {
    char ch = t[i];
    if (ch == '\\' && (!strncmp(t + i, "\\left", 5) || !strncmp(t + i, "\\right", 6))) {
      depth += t[i + 1] == 'l' ? 1 : -1;
      i += t[i + 1] == 'l' ? 4 : 5;
      continue;
    }
    if (ch == '{') depth++;
    if (ch == '}') depth--;
    if (i < n && !cut_here(t, i, depth)) continue; /* the end is a check too */
    if (last > start && width(t, start, i) > LATEX_LINE) {
      lg_str_putn(o, t + start, last - start);
      lg_str_puts(o, "\\\\\n  ");
      start = last;
    }
    last = i;
  }
  lg_str_puts(o, t + start);
  lg_str_puts(o, "\n\\end{multline*}\n");
  lg_str_free(&p);
}

/* Is a row of entries too wide for one line of a bmatrix? */
int cli_latex_too_wide(const char *const *cells, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n; i++) w += width(cells[i], 0, strlen(cells[i])) + 2;
  return w > LATEX_LINE + 8;
}
