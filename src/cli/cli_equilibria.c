/* cli_equilibria.c - `lagrange equilibria`: every static equilibrium in a
 * box, each once, with its stability and eigenvalues; a family of
 * equilibria (not isolated) once, with its dimension and directions. */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "q1=A:B, q2=C:D" over the default box. */
static int parse_box(const char *text, const lang_model *lm, double *lo, double *hi) {
  const char *p = text;
  while (*p) {
    while (*p == ' ' || *p == ',' || *p == '\t') p++;
    if (!*p) break;
    const char *name = p;
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    size_t len = (size_t)(p - name);
    char *buf = lg_strndup(name, len);
    if (!buf) {
      fprintf(stderr, "lagrange: out of memory\n");
      return CLI_EXIT_MODEL;
    }
    int k = len ? lang_coord_index(lm, buf) : -1;
    lg_free(buf);
    while (*p == ' ') p++;
    char *end;
    double a = NAN, b = NAN;
    if (k >= 0 && *p == '=') {
      a = strtod(p + 1, &end);
      if (end != p + 1 && *end == ':') {
        const char *q = end + 1;
        b = strtod(q, &end);
        if (end == q) b = NAN;
        p = end;
      }
    }
    if (k < 0 || !isfinite(a) || !isfinite(b) || !(a < b)) {
      fprintf(stderr, "lagrange equilibria: --box: expected NAME=A:B with a coordinate of %s "
                      "and A < B, at '%s'\n", lm->file, name);
      return CLI_EXIT_USAGE;
    }
    lo[k] = a;
    hi[k] = b;
    while (*p == ' ') p++;
    if (*p && *p != ',') {
      fprintf(stderr, "lagrange equilibria: --box: expected ',' before '%s'\n", p);
      return CLI_EXIT_USAGE;
    }
  }
  return CLI_EXIT_OK;
}

/* qsort has no user pointer: the points and their row length */
static const double *sort_q;
static size_t sort_n;
static int by_coords(const void *a, const void *b) {
  const double *x = sort_q + *(const size_t *)a * sort_n, *y = sort_q + *(const size_t *)b * sort_n;
  for (size_t j = 0; j < sort_n; j++)
    if (x[j] != y[j]) return x[j] < y[j] ? -1 : 1;
  return 0;
}

/* stable: every Re < 0; unstable: some Re > 0; marginal otherwise, with a
 * tolerance relative to the largest eigenvalue. */
static const char *stability(const double *re, const double *im, size_t nx) {
  double scale = 1;
  for (size_t i = 0; i < nx; i++) scale = fmax(scale, hypot(re[i], im[i]));
  double tol = 1e-8 * scale;
  int all_neg = 1;
  for (size_t i = 0; i < nx; i++) {
    if (re[i] > tol) return "unstable";
    if (!(re[i] < -tol)) all_neg = 0;
  }
  return all_neg ? "stable" : "marginal";
}

typedef struct eq_report {
  const num_system *s;
  const int *role;
  lg_str text;
  int first;
} eq_report;

/* A family's directions: JSON [{"x1": 1, "x2": 1}, ...], text
 * (x1 = 1, x2 = 1), ... (the nonzero components, by coordinate). */
static void family(eq_report *R, const cli_opts *o, size_t dim, const double *dir) {
  size_t n = R->s->n;
  char b[LG_DOUBLE_CHARS];
  if (o->json) lg_str_printf(&R->text, ", \"family\": {\"dimension\": %zu, \"directions\": [", dim);
  else lg_str_printf(&R->text, "    a family of equilibria of dimension %zu through this point, "
                               "along ", dim);
  for (size_t r = 0; r < dim; r++) {
    lg_str_puts(&R->text, r ? ", " : "");
    lg_str_putc(&R->text, o->json ? '{' : '(');
    for (size_t j = 0, k = 0; j < n; j++) {
      double x = dir[r * n + j];
      if (x == 0) continue;
      lg_str_puts(&R->text, k++ ? ", " : "");
      if (o->json) {
        cli_json_string(&R->text, R->s->coord_names[j]);
        lg_str_puts(&R->text, ": ");
        cli_json_number(&R->text, x);
      } else {
        lg_str_printf(&R->text, "%s = %s", R->s->coord_names[j], lg_fmt_double(b, x));
      }
    }
    lg_str_putc(&R->text, o->json ? '}' : ')');
  }
  lg_str_puts(&R->text, o->json ? "]}" : "\n");
}

static void report_one(eq_report *R, const cli_opts *o, const double *q, const double *re,
                       const double *im, size_t nx, size_t dim, const double *dir) {
  size_t n = R->s->n;
  char b[LG_DOUBLE_CHARS], c[LG_DOUBLE_CHARS];
  const char *stab = stability(re, im, nx);
  if (o->json) {
    lg_str_puts(&R->text, R->first ? "\n    {\"q\": [" : ",\n    {\"q\": [");
    for (size_t j = 0; j < n; j++) {
      lg_str_puts(&R->text, j ? ", " : "");
      cli_json_number(&R->text, q[j]);
    }
    lg_str_printf(&R->text, "], \"stability\": \"%s\", \"eigenvalues\": [", stab);
    for (size_t i = 0; i < nx; i++) {
      lg_str_puts(&R->text, i ? ", [" : "[");
      cli_json_number(&R->text, re[i]);
      lg_str_puts(&R->text, ", ");
      cli_json_number(&R->text, im[i]);
      lg_str_putc(&R->text, ']');
    }
    lg_str_putc(&R->text, ']');
    if (dim) family(R, o, dim, dir);
    lg_str_putc(&R->text, '}');
  } else {
    lg_str_puts(&R->text, " ");
    for (size_t j = 0; j < n; j++)
      lg_str_printf(&R->text, "%s%s = %s", j ? ", " : " ", R->s->coord_names[j],
                    lg_fmt_double(b, q[j]));
    lg_str_printf(&R->text, ": %s\n    eigenvalues:", stab);
    for (size_t i = 0; i < nx; i++)
      lg_str_printf(&R->text, "%s%s %s %si", i ? ", " : " ", lg_fmt_double(b, re[i]),
                    im[i] < 0 ? "-" : "+", lg_fmt_double(c, fabs(im[i])));
    lg_str_putc(&R->text, '\n');
    if (dim) family(R, o, dim, dir);
  }
  R->first = 0;
}

static void header(eq_report *R, const cli_opts *o) {
  size_t n = R->s->n;
  if (o->json) {
    lg_str_puts(&R->text, "{\n  \"coordinates\": [");
    for (size_t j = 0; j < n; j++) {
      lg_str_puts(&R->text, j ? ", " : "");
      cli_json_string(&R->text, R->s->coord_names[j]);
    }
    lg_str_puts(&R->text, "],\n  \"free\": [");
  } else {
    lg_str_puts(&R->text, "free:");
  }
  int any = 0;
  for (size_t j = 0; j < n; j++) {
    if (R->role[j] != NUM_COORD_FREE) continue;
    if (o->json) {
      lg_str_puts(&R->text, any ? ", " : "");
      cli_json_string(&R->text, R->s->coord_names[j]);
    } else {
      lg_str_printf(&R->text, "%s%s", any ? ", " : " ", R->s->coord_names[j]);
    }
    any = 1;
  }
  lg_str_puts(&R->text, o->json ? "],\n  \"equilibria\": [" : any ? "\nequilibria:\n"
                                                                : " (none)\nequilibria:\n");
}

static int search(const cli_opts *o, lang_model *lm, const mech_eom *e, const num_system *s,
                  const num_lin *L) {
  size_t n = s->n;
  double *lo = lg_calloc(8 * n + 2, sizeof *lo);
  int *role = lg_calloc(2 * n + 1, sizeof *role);
  num_work w;
  if (!lo || !role || num_work_init(s, &w) != LG_OK) {
    lg_free(lo);
    lg_free(role);
    fprintf(stderr, "lagrange: out of memory\n");
    return CLI_EXIT_MODEL;
  }
  double *hi = lo + n, *qd = hi + n, *re = qd + n, *im = re + 2 * n;
  int *isfree = role + n, rc = CLI_EXIT_OK;
  int *angle = role; /* reused below as flags: 1 = angle */
  if (num_coord_roles(lm->mech, e, role) != LG_OK) rc = CLI_EXIT_MODEL;
  for (size_t j = 0; j < n; j++) {
    isfree[j] = role[j] == NUM_COORD_FREE;
    lo[j] = role[j] == NUM_COORD_ANGLE ? -LG_PI : -10;
    hi[j] = role[j] == NUM_COORD_ANGLE ? LG_PI : 10;
  }
  if (rc == CLI_EXIT_OK && o->box) rc = parse_box(o->box, lm, lo, hi);
  eq_report R = {s, role, {0}, 1};
  lg_str_init(&R.text);
  if (rc == CLI_EXIT_OK) header(&R, o);
  for (size_t j = 0; j < n; j++) angle[j] = role[j] == NUM_COORD_ANGLE;
  num_equil_opts eo = {o->t, lo, hi, isfree, angle, 0};
  num_equil_found found = {0};
  lg_diag d;
  lg_diag_clear(&d);
  if (rc == CLI_EXIT_OK && num_equilibria(L, &w, &eo, &found, &d) != LG_OK)
    rc = cli_report_lm(&d, lm, o->model);
  size_t nfound = found.count, *order = lg_malloc((nfound + 1) * sizeof *order);
  if (rc == CLI_EXIT_OK && !order) {
    fprintf(stderr, "lagrange: out of memory\n");
    rc = CLI_EXIT_MODEL;
  }
  for (size_t k = 0; order && k < nfound; k++) order[k] = k;
  sort_q = found.q;
  sort_n = n;
  if (order && nfound) qsort(order, nfound, sizeof *order, by_coords);
  for (size_t i = 0; rc == CLI_EXIT_OK && i < nfound; i++) {
    size_t nx = 0, k = order[i];
    memset(qd, 0, n * sizeof *qd);
    if (num_lin_eigenvalues(L, &w, o->t, found.q + k * n, qd, re, im, &nx, &d) != LG_OK)
      rc = cli_report_lm(&d, lm, o->model);
    else
      report_one(&R, o, found.q + k * n, re, im, nx, found.dim[k], found.dir + k * n * n);
  }
  if (rc == CLI_EXIT_OK) {
    if (o->json) lg_str_puts(&R.text, nfound ? "\n  ]\n}\n" : "]\n}\n");
    else if (!nfound) lg_str_puts(&R.text, "  (none in the box)\n");
    fwrite(R.text.s, 1, R.text.len, stdout);
  }
  lg_str_free(&R.text);
  lg_free(order);
  num_equil_found_free(&found);
  num_work_free(&w);
  lg_free(lo);
  lg_free(role);
  return rc;
}

int cli_equilibria(const cli_opts *o) { return cli_with_linearization(o, search); }
