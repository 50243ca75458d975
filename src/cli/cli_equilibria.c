/* cli_equilibria.c - `lagrange equilibria`: every static equilibrium in a
 * box, each once, with its stability and eigenvalues; a family of
 * equilibria (not isolated) once, with its dimension and directions. As
 * lg_equilibria finds them and lg_equilibria_format reports them. */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "q1=A:B, q2=C:D" into lo and hi (NaN: the library's default). */
static int parse_box(const cli_opts *o, const lg_model *m, double *lo, double *hi) {
  const char *p = o->box;
  while (*p) {
    while (*p == ' ' || *p == ',' || *p == '\t') p++;
    if (!*p) break;
    const char *name = p;
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    size_t len = (size_t)(p - name);
    int k = -1;
    for (size_t j = 0; len && j < lg_model_nq(m) && k < 0; j++) {
      const char *c = lg_model_coordinate_name(m, j);
      if (strlen(c) == len && !strncmp(c, name, len)) k = (int)j;
    }
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
                      "and A < B, at '%s'\n", o->model, name);
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

/* The library's warning, its options (`t`) as flags (--t). */
static void warn(const char *text) {
  lg_diag w;
  lg_diag_clear(&w);
  snprintf(w.message, sizeof w.message, "%s", text);
  cli_diag_as_flags(&w);
  fprintf(stderr, "%s\n", w.message);
}

static int search(const cli_opts *o, const lg_model *m, const double *lo, const double *hi) {
  cli_opts lag = *o; /* the equilibria are Lagrange's under either method */
  lag.method = "lagrange";
  lg_system *s;
  int rc = cli_derive(&lag, m, NULL, &s);
  if (rc != CLI_EXIT_OK) return rc;
  lg_equilibria_options eo;
  lg_equilibria_options_default(&eo);
  eo.t = o->t;
  eo.lo = lo;
  eo.hi = hi;
  lg_equilibria_result *r = NULL;
  char *text = NULL;
  lg_diag d;
  if (lg_check_params(s, NULL, &d) != LG_OK || lg_equilibria(s, &eo, &r, &d) != LG_OK ||
      lg_equilibria_format(s, r, o->json ? LG_FORMAT_JSON : LG_FORMAT_TEXT, &text, &d) != LG_OK) {
    rc = cli_report(&d, o->model);
  } else {
    if (r->warning) warn(r->warning);
    fputs(text, stdout);
  }
  lg_string_free(text);
  lg_equilibria_free(r);
  lg_system_free(s);
  return rc;
}

int cli_equilibria(const cli_opts *o) {
  lg_model *m;
  int rc = cli_open_model(o, &m);
  if (rc != CLI_EXIT_OK) return rc;
  size_t n = lg_model_nq(m);
  double *lo = lg_malloc((2 * n + 1) * sizeof *lo);
  if (!lo) {
    fprintf(stderr, "lagrange: out of memory\n");
    rc = CLI_EXIT_MODEL;
  }
  for (size_t j = 0; lo && j < 2 * n; j++) lo[j] = NAN;
  if (rc == CLI_EXIT_OK && o->box) rc = parse_box(o, m, lo, lo + n);
  if (rc == CLI_EXIT_OK) rc = search(o, m, lo, lo + n);
  lg_free(lo);
  lg_model_free(m);
  return rc;
}
