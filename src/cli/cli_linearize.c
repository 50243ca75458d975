/* cli_linearize.c - `lagrange linearize`: A and B about an operating point,
 * with eigenvalues, natural frequencies and damping ratios, as
 * lg_linearize_format reports them (its notes on stderr). */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The index of coordinate `name` of the model, or -1. */
static int coord_index(const lg_model *m, const char *name) {
  for (size_t j = 0; j < lg_model_nq(m); j++)
    if (!strcmp(lg_model_coordinate_name(m, j), name)) return (int)j;
  return -1;
}

/* "q1, q3, q1'" -> flags: q_i at i, q_i' at n + i. */
static int parse_independent(const cli_opts *o, const lg_model *m, int *flags) {
  const char *p = o->independent;
  size_t n = lg_model_nq(m);
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
    int primes = 0;
    while (*p == '\'') { primes++; p++; }
    int k = len ? coord_index(m, buf) : -1;
    if (k < 0 || primes > 1) {
      fprintf(stderr, "lagrange linearize: --independent: '%s' is not a coordinate or a "
                      "coordinate's rate of %s (write 'q1, q2' for coordinates, \"q1'\" for "
                      "rates)\n", len ? buf : p, o->model);
      lg_free(buf);
      return CLI_EXIT_USAGE;
    }
    lg_free(buf);
    flags[(size_t)k + (primes ? n : 0)] = 1;
    while (*p == ' ') p++;
    if (*p && *p != ',') {
      fprintf(stderr, "lagrange linearize: --independent: expected ',' before '%s'\n", p);
      return CLI_EXIT_USAGE;
    }
  }
  return CLI_EXIT_OK;
}

/* --at "q1=0.3, q1'=0.5" into q and qd (NaN where not given). */
static int parse_at(const cli_opts *o, const lg_model *m, double *q, double *qd) {
  cli_assign *a = NULL;
  size_t n = 0;
  int rc = cli_parse_assignments("linearize", "--at", o->at, &a, &n);
  for (size_t i = 0; rc == CLI_EXIT_OK && i < n; i++) {
    int k = coord_index(m, a[i].name);
    if (k < 0) {
      fprintf(stderr, "lagrange linearize: --at: '%s' is not a coordinate of %s\n", a[i].name,
              o->model);
      rc = CLI_EXIT_USAGE;
    } else {
      (a[i].primes ? qd : q)[k] = a[i].value;
    }
  }
  cli_assignments_free(a, n);
  return rc;
}

static lg_format format_of(const cli_opts *o) {
  if (!o->symbolic) return o->json ? LG_FORMAT_JSON : LG_FORMAT_TEXT;
  return o->format == CLI_JSON || o->json ? LG_FORMAT_JSON
         : o->format == CLI_LATEX         ? LG_FORMAT_LATEX
                                          : LG_FORMAT_TEXT;
}

static int report(const cli_opts *o, const lg_model *m, const double *q, const int *flags) {
  lg_system *s;
  int rc = cli_derive(o, m, NULL, &s);
  if (rc != CLI_EXIT_OK) return rc;
  size_t n = lg_model_nq(m);
  lg_lin_options lo;
  lg_lin_options_default(&lo);
  lo.t = o->t;
  lo.q = q;
  lo.qd = q + n;
  lo.independent = o->independent ? flags : NULL;
  lo.symbolic = o->symbolic;
  char *text = NULL, *notes = NULL;
  lg_diag d;
  if (lg_check_params(s, NULL, &d) != LG_OK ||
      lg_linearize_format(s, &lo, format_of(o), &text, &notes, &d) != LG_OK) {
    rc = cli_report(&d, o->model);
  } else {
    fputs(text, stdout);
    fputs(notes, stderr);
  }
  lg_string_free(text);
  lg_string_free(notes);
  lg_system_free(s);
  return rc;
}

int cli_linearize(const cli_opts *o) {
  lg_model *m;
  int rc = cli_open_model(o, &m);
  if (rc != CLI_EXIT_OK) return rc;
  size_t n = lg_model_nq(m);
  double *q = lg_malloc((2 * n + 1) * sizeof *q); /* q, then qd: NaN = not given */
  int *flags = lg_calloc(2 * n + 1, sizeof *flags);
  if (!q || !flags) {
    fprintf(stderr, "lagrange: out of memory\n");
    rc = CLI_EXIT_MODEL;
  }
  for (size_t j = 0; q && j < 2 * n; j++) q[j] = NAN;
  if (rc == CLI_EXIT_OK && o->at) rc = parse_at(o, m, q, q + n);
  if (rc == CLI_EXIT_OK && o->independent) rc = parse_independent(o, m, flags);
  if (rc == CLI_EXIT_OK) rc = report(o, m, q, flags);
  lg_free(q);
  lg_free(flags);
  lg_model_free(m);
  return rc;
}
