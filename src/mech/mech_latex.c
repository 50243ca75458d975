/* mech_latex.c - long LaTeX formulas broken into lines that fit the page.
 *
 * A display line of an article holds about 50 characters of mathematics;
 * a longer formula becomes a multline* cut at the + and - signs that stand
 * outside every brace group and \left...\right pair. Within a formula that
 * must be cut, \left( and
 * \right) become plain parentheses, so that a long coefficient in
 * parentheses may be cut too (TeX only needs a \left and its \right on one
 * line, plain parentheses have no such rule). */
#include "mech_internal.h"

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

/* The index just past the brace group that opens at s[i] ('{'). */
static size_t group_end(const char *s, size_t i, size_t n) {
  int depth = 0;
  for (; i < n; i++) {
    if (s[i] == '{') depth++;
    if (s[i] == '}' && --depth == 0) return i + 1;
  }
  return n;
}

/* s[a, b) with \left( and \right) spelled as plain parentheses, and every
 * \frac{N}{D} too wide for a line as (N)/(D), so that a long numerator
 * can be cut at its own signs. */
static void plain_parens(lg_str *out, const char *s, size_t a, size_t b) {
  size_t i = a;
  while (i < b) {
    if (!strncmp(s + i, "\\left(", 6)) {
      lg_str_putc(out, '(');
      i += 6;
    } else if (!strncmp(s + i, "\\right)", 7)) {
      lg_str_putc(out, ')');
      i += 7;
    } else if (!strncmp(s + i, "\\frac{", 6) && s[group_end(s, i + 5, b)] == '{') {
      size_t num = i + 5, den = group_end(s, num, b), end = group_end(s, den, b);
      if (width(s, i, end) <= LATEX_LINE) {
        lg_str_putn(out, s + i, end - i);
      } else { /* nesting is bounded by the expression depth (SYM_MAX_DEPTH) */
        lg_str_putc(out, '(');
        plain_parens(out, s, num + 1, den - 1);
        lg_str_puts(out, ") / (");
        plain_parens(out, s, den + 1, end - 1);
        lg_str_putc(out, ')');
      }
      i = end;
    } else {
      lg_str_putc(out, s[i++]);
    }
  }
}

/* Is s[i] a + or - that separates two terms at the outer level? */
static int cut_here(const char *s, size_t i, int depth) {
  return depth == 0 && i > 0 && s[i - 1] == ' ' &&
         (s[i] == '+' || s[i] == '-' || s[i] == '=') && s[i + 1] == ' ';
}

int mech_latex_fits(const char *s) { return width(s, 0, strlen(s)) <= LATEX_LINE; }

/* One formula as a display: \[ s \] when it fits, else a multline* cut
 * at the outer + and - signs into lines that do. */
void mech_latex_display(lg_str *o, const char *s) {
  if (mech_latex_fits(s)) {
    lg_str_printf(o, "\\[ %s \\]\n", s);
    return;
  }
  lg_str p;
  lg_str_init(&p);
  plain_parens(&p, s, 0, strlen(s));
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
int mech_latex_too_wide(const char *const *cells, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n; i++) w += width(cells[i], 0, strlen(cells[i])) + 2;
  return w > LATEX_LINE + 8;
}
