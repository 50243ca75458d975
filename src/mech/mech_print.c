/* mech_print.c - the equations as text, LaTeX or JSON (`lagrange eom`,
 * lg_print): coordinates, the equations grouped by the unknowns, the
 * matrices and vectors of both methods, momenta and energies. */
#include "mech_internal.h"

#include <stdio.h>
#include <string.h>

/* Larger entries are printed as derived (simplifying them costs more than
 * it gains); small ones are simplified for reading. */
enum { SIMPLIFY_MAX_DAG = 600, SIMPLIFY_MAX_NODES = 2500 };

typedef struct writer {
  lg_str *out;
  mech_format fmt;
  /* rendered entries, node pointer -> its text: mass_matrix_full repeats
   * mass_matrix and forcing_full repeats forcing, so each distinct entry
   * is printed once */
  lg_map cache;
  sym_ctx *ctx;
  sym_share share;          /* named shared subexpressions (large systems) */
  const char *prefix;       /* their names: prefix1, prefix2, ... */
  const sym_node *defining; /* printed whole, never by its own name */
  const sym_node *top;      /* the expression being written (no parentheses) */
} writer;

/* Shared subexpressions get names once the equations printed as trees
 * would exceed SHARE_BUDGET characters; then every one used twice or more
 * and at least SHARE_MIN_CHARS long is named. */
enum { SHARE_BUDGET = 100000, SHARE_MIN_CHARS = 40 };

static int subst_name(void *ud, lg_str *o, const sym_node *e);

static void put_parts(writer *w, lg_str *o, const sym_node *a, const sym_node *b,
                      sym_style style);

/* One part of a split sum, flattened: an unnamed split inside prints its
 * own parts (a + (b + c) is a + b + c). */
static void put_part(writer *w, lg_str *o, const sym_node *e, sym_style style) {
  const sym_node *a, *b;
  if (!sym_share_index(&w->share, e) && sym_share_split(&w->share, e, &a, &b))
    put_parts(w, o, a, b, style);
  else
    sym_print_subst(o, e, style, subst_name, w);
}

static void put_parts(writer *w, lg_str *o, const sym_node *a, const sym_node *b,
                      sym_style style) {
  put_part(w, o, a, style);
  lg_str rest;
  lg_str_init(&rest);
  put_part(w, &rest, b, style);
  const char *r = rest.s ? rest.s : "0";
  lg_str_puts(o, r[0] == '-' ? " - " : " + ");
  lg_str_puts(o, r[0] == '-' ? r + 1 : r);
  lg_str_free(&rest);
}

/* A large sum through an earlier one, e = a + b (parenthesized unless e
 * is the expression being written, whose callers place it). */
static void put_split(writer *w, lg_str *o, const sym_node *a, const sym_node *b, int top) {
  sym_style style = w->fmt == MECH_FMT_LATEX ? SYM_STYLE_LATEX : SYM_STYLE_TEXT;
  const sym_node *saved = w->defining;
  w->defining = NULL;
  if (!top) lg_str_puts(o, style == SYM_STYLE_LATEX ? "\\left(" : "(");
  put_parts(w, o, a, b, style);
  if (!top) lg_str_puts(o, style == SYM_STYLE_LATEX ? "\\right)" : ")");
  w->defining = saved;
}

static int subst_name(void *ud, lg_str *o, const sym_node *e) {
  writer *w = ud;
  size_t k = e == w->defining ? 0 : sym_share_index(&w->share, e);
  const sym_node *a, *b;
  if (!k && sym_share_split(&w->share, e, &a, &b)) {
    put_split(w, o, a, b, e == w->top);
    return 0;
  }
  if (!k) return 1;
  lg_str_printf(o, w->fmt == MECH_FMT_LATEX ? "%s_{%zu}" : "%s%zu", w->prefix, k);
  return 0;
}

/* e in the writer's style, shared subexpressions by name; `define`: e
 * itself is written whole (its where-definition), else a named e is
 * written by its name (an entry printed in several sections, say). */
static void put_as(writer *w, lg_str *o, const sym_node *e, sym_style style, int define) {
  if (!w->share.count) {
    sym_print(o, e, style, NULL, NULL);
    return;
  }
  const sym_node *saved = w->defining, *saved_top = w->top;
  w->defining = define ? e : NULL;
  w->top = e;
  sym_print_subst(o, e, style, subst_name, w);
  w->defining = saved;
  w->top = saved_top;
}

static void put(writer *w, lg_str *o, const sym_node *e, sym_style style) {
  put_as(w, o, e, style, 0);
}

static void cache_free(lg_map *c) {
  for (size_t i = 0; i < c->cap; i++) lg_free(lg_map_val(c, i));
  lg_map_free(c);
}

/* A key in LaTeX text mode: underscores escaped. */
static void latex_key(lg_str *o, const char *key) {
  for (; *key; key++) {
    if (*key == '_') lg_str_putc(o, '\\');
    lg_str_putc(o, *key);
  }
}

static void expr(writer *w, const sym_node *e) {
  if (w->fmt == MECH_FMT_JSON) {
    lg_str s;
    lg_str_init(&s);
    put(w, &s, e, SYM_STYLE_TEXT);
    lg_str_json(w->out, s.s ? s.s : "");
    lg_str_free(&s);
    return;
  }
  const char *cached = lg_map_get(&w->cache, (uintptr_t)e);
  if (cached) {
    lg_str_puts(w->out, cached);
    return;
  }
  lg_str s;
  lg_str_init(&s);
  put(w, &s, e, w->fmt == MECH_FMT_LATEX ? SYM_STYLE_LATEX : SYM_STYLE_TEXT);
  lg_str_puts(w->out, s.s ? s.s : "");
  if (!s.oom && s.s) {
    /* not cached when out of memory: printed again next time */
    char *text = lg_str_take(&s);
    if (!lg_map_put(&w->cache, (uintptr_t)e, text)) lg_free(text);
  }
  lg_str_free(&s);
}

/* The printed form of e as a heap string (caller frees). */
static char *printed(writer *w, const sym_node *e) {
  lg_str *saved = w->out, s;
  lg_str_init(&s);
  w->out = &s;
  expr(w, e);
  w->out = saved;
  char *r = lg_str_take(&s);
  lg_str_free(&s);
  return r;
}

/* LaTeX lines "lhs = rhs" (freed here): one align* when every line fits
 * the page, else each its own display, cut where long (cli_latex.c). */
static void latex_block(lg_str *o, char **lines, size_t k) {
  int fit = 1;
  for (size_t i = 0; i < k; i++) fit &= lines[i] && mech_latex_fits(lines[i]);
  if (fit || !k) lg_str_puts(o, "\\begin{align*}\n");
  if (!k) lg_str_puts(o, "  \\text{none}\n");
  for (size_t i = 0; i < k; i++) {
    const char *l = lines[i] ? lines[i] : "", *eq = strstr(l, " = ");
    if (!fit) mech_latex_display(o, l);
    else if (eq) lg_str_printf(o, "  %.*s &= %s%s", (int)(eq - l), l, eq + 3,
                               i + 1 < k ? " \\\\\n" : "\n");
    lg_free(lines[i]);
  }
  if (fit || !k) lg_str_puts(o, "\\end{align*}\n");
  lg_str_putc(o, '\n');
}

/* A LaTeX matrix too wide for the page: its nonzero entries, each
 * name_{i,j} = entry. */
static void latex_entries(writer *w, const char *name, const sym_matrix *m) {
  lg_str *o = w->out;
  lg_str_puts(o, " (the entries not listed are zero)\n");
  char **lines = lg_calloc(m->rows * m->cols + 1, sizeof *lines);
  size_t k = 0;
  for (size_t i = 0; lines && i < m->rows; i++)
    for (size_t j = 0; j < m->cols; j++) {
      if (sym_is_zero(SYM_AT(m, i, j))) continue;
      lg_str line;
      lg_str_init(&line);
      lg_str_puts(&line, "\\text{");
      latex_key(&line, name);
      char *x = printed(w, SYM_AT(m, i, j));
      lg_str_printf(&line, "}_{%zu,%zu} = %s", i + 1, j + 1, x ? x : "");
      lg_free(x);
      lines[k++] = lg_str_take(&line);
      lg_str_free(&line);
    }
  if (lines) latex_block(o, lines, k);
  lg_free(lines);
}

/* Does some row of m print wider than a page? */
static int latex_matrix_wide(writer *w, const sym_matrix *m) {
  int wide = 0;
  const char **cells = lg_malloc((m->cols + 1) * sizeof *cells);
  for (size_t i = 0; cells && !wide && i < m->rows; i++) {
    for (size_t j = 0; j < m->cols; j++) cells[j] = printed(w, SYM_AT(m, i, j));
    for (size_t j = 0; j < m->cols; j++) wide |= !cells[j];
    if (!wide) wide = mech_latex_too_wide(cells, m->cols);
    for (size_t j = 0; j < m->cols; j++) lg_free((char *)cells[j]);
  }
  lg_free(cells);
  return wide;
}

static void matrix(writer *w, const char *name, const sym_matrix *m) {
  lg_str *o = w->out;
  if (w->fmt == MECH_FMT_JSON) {
    lg_str_printf(o, ",\n  \"%s\": [", name);
    for (size_t i = 0; i < m->rows; i++) {
      lg_str_puts(o, i ? ",\n    [" : "\n    [");
      for (size_t j = 0; j < m->cols; j++) {
        if (j) lg_str_puts(o, ", ");
        expr(w, SYM_AT(m, i, j));
      }
      lg_str_putc(o, ']');
    }
    lg_str_puts(o, "]");
    return;
  }
  if (w->fmt == MECH_FMT_LATEX) {
    lg_str_puts(o, "\\paragraph{");
    latex_key(o, name);
    lg_str_puts(o, "}");
    if (latex_matrix_wide(w, m)) {
      latex_entries(w, name, m);
      return;
    }
    lg_str_puts(o, "\n\\[\n\\begin{bmatrix}\n");
    for (size_t i = 0; i < m->rows; i++) {
      for (size_t j = 0; j < m->cols; j++) {
        if (j) lg_str_puts(o, " & ");
        expr(w, SYM_AT(m, i, j));
      }
      lg_str_puts(o, i + 1 < m->rows ? " \\\\\n" : "\n");
    }
    lg_str_puts(o, "\\end{bmatrix}\n\\]\n\n");
    return;
  }
  lg_str_printf(o, "\n%s (%zu x %zu):\n", name, m->rows, m->cols);
  for (size_t i = 0; i < m->rows; i++) {
    lg_str_puts(o, "  [");
    for (size_t j = 0; j < m->cols; j++) {
      if (j) lg_str_puts(o, ", ");
      expr(w, SYM_AT(m, i, j));
    }
    lg_str_puts(o, "]\n");
  }
}

/* A column vector, printed like a one-column matrix. */
static void vector(writer *w, const char *name, const sym_node **v, size_t n) {
  sym_matrix m = {n, 1, v};
  if (w->fmt != MECH_FMT_JSON) {
    matrix(w, name, &m);
    return;
  }
  lg_str_printf(w->out, ",\n  \"%s\": [", name);
  for (size_t i = 0; i < n; i++) {
    if (i) lg_str_puts(w->out, ", ");
    expr(w, v[i]);
  }
  lg_str_putc(w->out, ']');
}

static void names(writer *w, const char *key, const sym_node *const *v, size_t n) {
  lg_str *o = w->out;
  if (w->fmt == MECH_FMT_JSON) {
    lg_str_printf(o, "%s\"%s\": [", strcmp(key, "coordinates") ? ",\n  " : "\n  ", key);
    for (size_t i = 0; i < n; i++) {
      if (i) lg_str_puts(o, ", ");
      expr(w, v[i]); /* a speed that is a rate keeps its prime: "x'" */
    }
    lg_str_putc(o, ']');
    return;
  }
  if (w->fmt == MECH_FMT_LATEX) {
    lg_str_puts(o, "\\paragraph{");
    latex_key(o, key);
    lg_str_puts(o, "} $");
  }
  else lg_str_printf(o, "%s:", key);
  if (!n) lg_str_puts(o, w->fmt == MECH_FMT_LATEX ? "\\text{none}" : " (none)");
  for (size_t i = 0; i < n; i++) {
    lg_str_puts(o, i ? ", " : (w->fmt == MECH_FMT_LATEX ? "" : " "));
    expr(w, v[i]);
  }
  lg_str_puts(o, w->fmt == MECH_FMT_LATEX ? "$\n\n" : "\n");
}

/* A stock article with amsmath; bmatrix allows 10 columns unless told. */
static void latex_preamble(lg_str *o, size_t max_cols) {
  lg_str_printf(o, "\\documentclass{article}\n\\usepackage{amsmath}\n"
                   "\\setcounter{MaxMatrixCols}{%zu}\n\\allowdisplaybreaks\n"
                   "\\begin{document}\n\n", max_cols + 1);
}

/* Printed equations lhs = rhs (the same for both methods). */
static void equation_list(writer *w, const char *key, const sym_node **lhs,
                          const sym_node **rhs, size_t k) {
  lg_str *o = w->out;
  if (w->fmt == MECH_FMT_LATEX) {
    lg_str_puts(o, "\\paragraph{");
    latex_key(o, key);
    lg_str_puts(o, "}\n");
    char **lines = lg_calloc(k + 1, sizeof *lines);
    for (size_t i = 0; lines && i < k; i++) {
      char *a = printed(w, lhs[i]), *b = printed(w, rhs[i]);
      lg_str line;
      lg_str_init(&line);
      lg_str_printf(&line, "%s = %s", a ? a : "", b ? b : "");
      lines[i] = lg_str_take(&line);
      lg_str_free(&line);
      lg_free(a);
      lg_free(b);
    }
    if (lines) latex_block(o, lines, k);
    lg_free(lines);
    return;
  }
  if (w->fmt == MECH_FMT_JSON) lg_str_printf(o, ",\n  \"%s\": [", key);
  else lg_str_printf(o, "\n%s:\n", key);
  for (size_t i = 0; i < k; i++) {
    if (w->fmt == MECH_FMT_JSON) {
      lg_str eq;
      lg_str_init(&eq);
      put(w, &eq, lhs[i], SYM_STYLE_TEXT);
      lg_str_puts(&eq, " = ");
      put(w, &eq, rhs[i], SYM_STYLE_TEXT);
      lg_str_puts(o, i ? ", " : "");
      lg_str_json(o, eq.s ? eq.s : "");
      lg_str_free(&eq);
      continue;
    }
    lg_str_puts(o, "  ");
    expr(w, lhs[i]);
    lg_str_puts(o, " = ");
    expr(w, rhs[i]);
    lg_str_puts(o, "\n");
  }
  if (w->fmt == MECH_FMT_JSON) lg_str_putc(o, ']');
}

static void scalar(writer *w, const char *name, const sym_node *x) {
  lg_str *o = w->out;
  if (w->fmt == MECH_FMT_JSON) lg_str_printf(o, ",\n  \"%s\": ", name);
  else if (w->fmt == MECH_FMT_LATEX) {
    char *t = printed(w, x);
    lg_str line;
    lg_str_init(&line);
    lg_str_printf(&line, "%s = %s", name, t ? t : "");
    lg_str_printf(o, "\\paragraph{%s}\n", name);
    mech_latex_display(o, line.s ? line.s : "");
    lg_str_putc(o, '\n');
    lg_str_free(&line);
    lg_free(t);
    return;
  } else lg_str_printf(o, "\n%s = ", name);
  expr(w, x);
  lg_str_puts(o, w->fmt == MECH_FMT_JSON ? "" : "\n");
}

/* One side of a linear equation, grouped by unknown: (M + m)*x'' +
 * M*l*cos(theta)*theta'' - lam1 (then `extra`, when given). */
static void grouped(writer *w, lg_str *o, sym_style style, const sym_node *const *coef,
                    const sym_node *const *vars, size_t k, const sym_node *extra) {
  int first = 1;
  for (size_t j = 0; j <= k; j++) {
    const sym_node *c = j < k ? coef[j] : extra;
    if (!c || sym_is_zero(c)) continue;
    lg_str t;
    lg_str_init(&t);
    int paren = j < k && c->kind == SYM_ADD;
    if (paren) lg_str_puts(&t, style == SYM_STYLE_LATEX ? "\\left(" : "(");
    if (j == k || !sym_is_one(c)) put(w, &t, c, style);
    if (paren) lg_str_puts(&t, style == SYM_STYLE_LATEX ? "\\right)" : ")");
    if (j < k) {
      int unit = sym_is_one(c) || (t.s && !strcmp(t.s, "-1"));
      if (unit) lg_str_clear(&t);
      if (unit && sym_is_negative_number(c)) lg_str_putc(&t, '-');
      if (!unit) lg_str_puts(&t, style == SYM_STYLE_LATEX ? " " : "*");
      put(w, &t, vars[j], style);
    }
    const char *txt = t.s ? t.s : "";
    int neg = txt[0] == '-';
    if (!first) lg_str_puts(o, neg ? " - " : " + ");
    else if (neg) lg_str_putc(o, '-');
    lg_str_puts(o, neg ? txt + 1 : txt);
    first = 0;
    lg_str_free(&t);
  }
  if (first) lg_str_putc(o, '0');
}

/* Rows A x (+ extra) = rhs, each printed grouped by the unknowns x. */
static void equation_rows(writer *w, const sym_matrix *A, const sym_node *const *x,
                          const sym_node *const *extra, const sym_node *const *rhs) {
  lg_str *o = w->out;
  sym_style style = w->fmt == MECH_FMT_LATEX ? SYM_STYLE_LATEX : SYM_STYLE_TEXT;
  char **lines = w->fmt == MECH_FMT_LATEX ? lg_calloc(A->rows + 1, sizeof *lines) : NULL;
  if (w->fmt == MECH_FMT_JSON) lg_str_puts(o, ",\n  \"equations\": [");
  else if (w->fmt == MECH_FMT_LATEX) lg_str_puts(o, "\\paragraph{equations}\n");
  else lg_str_puts(o, "\nequations:\n");
  for (size_t i = 0; i < A->rows; i++) {
    lg_str eq;
    lg_str_init(&eq);
    grouped(w, &eq, style, A->e + i * A->cols, x, A->cols, extra ? extra[i] : NULL);
    lg_str_puts(&eq, " = ");
    put(w, &eq, rhs[i], style);
    if (w->fmt == MECH_FMT_JSON) {
      lg_str_puts(o, i ? ", " : "");
      lg_str_json(o, eq.s ? eq.s : "");
    } else if (lines) {
      lines[i] = lg_str_take(&eq);
    } else if (w->fmt != MECH_FMT_LATEX) {
      lg_str_printf(o, "  %s\n", eq.s ? eq.s : "");
    }
    lg_str_free(&eq);
  }
  if (w->fmt == MECH_FMT_JSON) lg_str_putc(o, ']');
  if (lines) latex_block(o, lines, A->rows);
  lg_free(lines);
}

/* The definitions of the named shared subexpressions, after everything
 * that uses them (as a textbook's "where"). */
static void where_block(writer *w) {
  if (!w->share.count) return;
  lg_str *o = w->out;
  sym_style style = w->fmt == MECH_FMT_LATEX ? SYM_STYLE_LATEX : SYM_STYLE_TEXT;
  char **lines = w->fmt == MECH_FMT_LATEX ? lg_calloc(w->share.count + 1, sizeof *lines) : NULL;
  if (w->fmt == MECH_FMT_JSON) lg_str_puts(o, ",\n  \"where\": {");
  else if (w->fmt == MECH_FMT_LATEX) lg_str_puts(o, "\\paragraph{where}\n");
  else lg_str_puts(o, "\nwhere:\n");
  for (size_t k = 0; k < w->share.count; k++) {
    lg_str d;
    lg_str_init(&d);
    if (w->fmt == MECH_FMT_LATEX) lg_str_printf(&d, "%s_{%zu} = ", w->share.prefix, k + 1);
    put_as(w, &d, w->share.named[k], style, 1);
    if (w->fmt == MECH_FMT_JSON) {
      lg_str_printf(o, "%s\n    \"%s%zu\": ", k ? "," : "", w->share.prefix, k + 1);
      lg_str_json(o, d.s ? d.s : "");
    } else if (lines) lines[k] = lg_str_take(&d);
    else if (w->fmt != MECH_FMT_LATEX) lg_str_printf(o, "  %s%zu = %s\n", w->share.prefix, k + 1, d.s ? d.s : "");
    lg_str_free(&d);
  }
  if (w->fmt == MECH_FMT_JSON) lg_str_puts(o, "}");
  if (lines) latex_block(o, lines, w->share.count);
  lg_free(lines);
}

/* Every expression a printout holds, for the shared-subexpression plan. */
typedef struct roots {
  const sym_node **v;
  size_t count, cap;
  int oom;
} roots;

static void add_roots(roots *r, const sym_node *const *v, size_t n) {
  if (!v || r->oom) return;
  if (!lg_grow((void **)&r->v, &r->cap, r->count + n + 1, sizeof *r->v)) {
    r->oom = 1;
    return;
  }
  for (size_t i = 0; i < n; i++)
    if (v[i]) r->v[r->count++] = v[i];
}

static void add_matrix(roots *r, const sym_matrix *m) {
  if (m) add_roots(r, m->e, m->rows * m->cols);
}

/* e or k may be NULL (mech_print_simplify takes one at a time) */
static void add_printed_roots(roots *r, const mech_eom *e, const mech_kane *k) {
  if (e) {
    add_roots(r, &e->T, 1);
    add_roots(r, &e->V, 1);
    add_roots(r, e->p, e->n);
  }
  if (k) {
    add_roots(r, k->udep_expr, k->ndep);
    add_roots(r, k->kq, k->n);
    add_matrix(r, k->M);
    add_roots(r, k->C, k->p);
    add_roots(r, k->F, k->p);
    add_matrix(r, k->mass_matrix_full);
    add_roots(r, k->forcing_full, k->n + k->p);
  } else if (e) {
    add_matrix(r, e->mass_matrix);
    add_roots(r, e->f, e->n);
    add_roots(r, e->gc, e->m);
    add_matrix(r, e->mass_matrix_full);
    add_roots(r, e->forcing_full, 2 * e->n + e->m);
  }
}

static lg_status plan_sharing(writer *w, const mech_eom *e, const mech_kane *k) {
  roots r = {0};
  add_printed_roots(&r, e, k);
  lg_status st = r.oom ? LG_ERR_NOMEM
                       : sym_share_plan(w->ctx, r.v, r.count, SHARE_MIN_CHARS, SHARE_BUDGET,
                                        &w->share);
  w->prefix = w->share.prefix;
  lg_free(r.v);
  return st;
}

/* Lagrange: [[M, -J^T], [J, 0]] [q''; lam] = [f; g_c] */
static void lagrange_equations(writer *w, const mech_eom *e, sym_ctx *c) {
  size_t n = e->n, m = e->m, N = n + m;
  sym_matrix *A = sym_matrix_new(c, N, N);
  const sym_node **x = lg_malloc((N + 1) * sizeof *x), **rhs = lg_malloc((N + 1) * sizeof *rhs);
  if (A && x && rhs) {
    for (size_t i = 0; i < N; i++) {
      x[i] = i < n ? e->qdd[i] : e->lam[i - n];
      rhs[i] = i < n ? e->f[i] : e->gc[i - n];
      for (size_t j = 0; j < N; j++)
        SYM_AT(A, i, j) = i < n ? SYM_AT(e->mass_matrix, i, j)
                                : j < n ? SYM_AT(e->J, i - n, j) : sym_int(c, 0);
    }
    equation_rows(w, A, x, NULL, rhs);
  }
  lg_free(x);
  lg_free(rhs);
}

/* Kane's generalized active forces F_r (the forcing F) and inertia forces
 * F*_r = -(M u' + C), so that F_r + F*_r = 0 (SymPy's KanesMethod:
 * kanes_equations returns (fr, frstar)). JSON only ("Fr", "Frstar"). */
static void kane_forces(writer *w, const mech_kane *k) {
  sym_ctx *c = w->ctx;
  const sym_node **fs = lg_malloc((k->p + 1) * sizeof *fs), **t = lg_malloc((k->p + 2) * sizeof *t);
  vector(w, "Fr", k->F, k->p);
  for (size_t r = 0; fs && t && r < k->p; r++) {
    for (size_t j = 0; j < k->p; j++) t[j] = sym_mul(c, SYM_AT(k->M, r, j), k->ud[j]);
    t[k->p] = k->C[r];
    fs[r] = sym_neg(c, sym_addv(c, k->p + 1, t));
  }
  if (fs && t) vector(w, "Frstar", fs, k->p);
  lg_free(fs);
  lg_free(t);
}

/* Kane's method: speeds, kinematics, M u' + C = F, full state form. */
static void write_kane(writer *w, const mech_eom *e, const mech_kane *k) {
  lg_str *o = w->out;
  if (w->fmt == MECH_FMT_JSON) lg_str_puts(o, "{");
  if (w->fmt == MECH_FMT_LATEX) latex_preamble(o, k->n + k->p);
  names(w, "coordinates", e->q, e->n);
  names(w, "speeds", k->u, k->p);
  equation_list(w, "dependent_speeds", k->udep, k->udep_expr, k->ndep);
  equation_list(w, "kinematics", k->qd, k->kq, k->n);
  equation_rows(w, k->M, k->ud, k->C, k->F);
  matrix(w, "mass_matrix", k->M);
  vector(w, "velocity_forces", k->C, k->p);
  vector(w, "forcing", k->F, k->p);
  matrix(w, "mass_matrix_full", k->mass_matrix_full);
  vector(w, "forcing_full", k->forcing_full, k->n + k->p);
  if (w->fmt == MECH_FMT_JSON) kane_forces(w, k);
  vector(w, "momenta", e->p, e->n);
  scalar(w, "T", e->T);
  scalar(w, "V", e->V);
  where_block(w);
  if (w->fmt == MECH_FMT_JSON) lg_str_puts(o, "\n}\n");
  if (w->fmt == MECH_FMT_LATEX) lg_str_puts(o, "\\end{document}\n");
}

static void write_all(writer *w, const mech_eom *e) {
  lg_str *o = w->out;
  if (w->fmt == MECH_FMT_JSON) lg_str_puts(o, "{");
  if (w->fmt == MECH_FMT_LATEX) latex_preamble(o, 2 * e->n + e->m);
  names(w, "coordinates", e->q, e->n);
  names(w, "multipliers", e->lam, e->m);
  lagrange_equations(w, e, w->ctx);
  matrix(w, "mass_matrix", e->mass_matrix);
  vector(w, "forcing", e->f, e->n);
  matrix(w, "mass_matrix_full", e->mass_matrix_full);
  vector(w, "forcing_full", e->forcing_full, 2 * e->n + e->m);
  vector(w, "momenta", e->p, e->n);
  scalar(w, "T", e->T);
  scalar(w, "V", e->V);
  where_block(w);
  if (w->fmt == MECH_FMT_JSON) lg_str_puts(o, "\n}\n");
  if (w->fmt == MECH_FMT_LATEX) lg_str_puts(o, "\\end{document}\n");
}

int mech_print_wants_simplify(const sym_ctx *c, int kane) {
  return sym_ctx_node_count(c) < (kane ? 4u : 1u) * SIMPLIFY_MAX_NODES;
}

/* Systems are collected for reading (linear time, but a large constant:
 * on the nested fractions of eliminated dependent speeds, 20 us a node);
 * small ones are also expanded first, where expansion finds
 * cancellations. Past COLLECT_MAX_DAG nodes the equations are printed as
 * derived, their shared parts named: at that size they are read through
 * the names anyway (the Whipple bicycle under Kane's method, 5,937 nodes:
 * 0.04 s and 408 kB instead of 0.15 s and 296 kB; under Lagrange's, 2,579
 * nodes, still collected). */
enum { COLLECT_MAX_DAG = 4000 };

lg_status mech_print_simplified(mech_model *mm, const mech_eom *e, const mech_kane *k,
                                int expand_eom, int expand_kane, const mech_eom **pe,
                                const mech_kane **pk) {
  roots r = {0};
  add_printed_roots(&r, e, k);
  size_t dag = r.oom ? SIZE_MAX : sym_dag_size_many(r.count, r.v);
  lg_free(r.v);
  *pe = e;
  *pk = k;
  if (dag > COLLECT_MAX_DAG) return LG_OK;
  if (e && !(*pe = mech_eom_simplified(mm, e, expand_eom ? SIMPLIFY_MAX_DAG : 0)))
    return LG_ERR_NOMEM;
  if (k && !(*pk = mech_kane_simplified(mm, k, expand_kane ? SIMPLIFY_MAX_DAG : 0)))
    return LG_ERR_NOMEM;
  sym_ctx_forget_rewrites(mech_ctx(mm)); /* printing needs the results only */
  return LG_OK;
}

lg_status mech_print(mech_model *mm, const mech_eom *e, const mech_kane *k, mech_format fmt,
                     lg_str *out) {
  writer w = {out, fmt, {0}, mech_ctx(mm), {0}, "z", NULL, NULL};
  lg_status st = plan_sharing(&w, e, k);
  if (st != LG_OK) return st;
  if (k) write_kane(&w, e, k);
  else write_all(&w, e);
  cache_free(&w.cache);
  sym_share_free(&w.share);
  return out->oom ? LG_ERR_NOMEM : LG_OK;
}

/* Matrices (A and B of a linearization, say) with their shared parts
 * named once in a `where` block after them, as mech_print names them. */
lg_status mech_print_matrices(mech_model *mm, const char *preface, size_t k,
                              const char *const *names, const sym_matrix *const *mats,
                              mech_format fmt, lg_str *out) {
  writer w = {out, fmt, {0}, mech_ctx(mm), {0}, "z", NULL, NULL};
  roots r = {0};
  size_t cols = 1;
  for (size_t i = 0; i < k; i++) {
    add_matrix(&r, mats[i]);
    cols = mats[i]->cols > cols ? mats[i]->cols : cols;
  }
  lg_status st = r.oom ? LG_ERR_NOMEM
                       : sym_share_plan(w.ctx, r.v, r.count, SHARE_MIN_CHARS, SHARE_BUDGET,
                                        &w.share);
  lg_free(r.v);
  if (st != LG_OK) return st;
  w.prefix = w.share.prefix;
  if (fmt == MECH_FMT_LATEX) latex_preamble(out, cols);
  lg_str_puts(out, preface ? preface : "");
  for (size_t i = 0; i < k; i++) {
    if (fmt == MECH_FMT_LATEX && !mats[i]->cols) { /* an empty bmatrix does not typeset */
      lg_str_puts(out, "\\paragraph{");
      latex_key(out, names[i]);
      lg_str_printf(out, "} $%zu \\times 0$ (no columns)\n\n", mats[i]->rows);
      continue;
    }
    matrix(&w, names[i], mats[i]);
  }
  where_block(&w);
  if (fmt == MECH_FMT_JSON) lg_str_puts(out, "\n}\n");
  if (fmt == MECH_FMT_LATEX) lg_str_puts(out, "\\end{document}\n");
  cache_free(&w.cache);
  sym_share_free(&w.share);
  return out->oom ? LG_ERR_NOMEM : LG_OK;
}
