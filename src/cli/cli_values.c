/* cli_values.c - numbers and NAME=VALUE lists given on the command line
 * (--set, --state, --at): plain finite decimal numbers only, each name
 * once; a mistake is shown under the text it is in. */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the digits at s[0..n). */
static size_t digits(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && isdigit((unsigned char)s[i])) i++;
  return i;
}

int cli_parse_number(const char *s, size_t n, double *out) {
  size_t i = 0, d;
  char buf[128];
  while (n && isspace((unsigned char)s[n - 1])) n--;
  while (n && isspace((unsigned char)*s)) s++, n--;
  if (!n || n >= sizeof buf) return 0;
  if (s[i] == '+' || s[i] == '-') i++;
  d = digits(s + i, n - i);
  i += d;
  if (i < n && s[i] == '.') {
    size_t f = digits(s + i + 1, n - i - 1);
    if (!d && !f) return 0;
    i += 1 + f;
  } else if (!d) {
    return 0; /* no digits: nan, inf, an empty value, a name */
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (s[j] == '+' || s[j] == '-')) j++;
    if (!(d = digits(s + j, n - j))) return 0;
    i = j + d;
  }
  if (i != n) return 0; /* hex (0x10), trailing text */
  memcpy(buf, s, n);
  buf[n] = 0;
  *out = strtod(buf, NULL);
  return isfinite(*out);
}

/* "lagrange CMD: OPT: message", then the text with a caret under byte at. */
static int list_error(const char *cmd, const char *opt, const char *text, const char *at,
                      const char *msg) {
  int col = (int)(at - text);
  fprintf(stderr, "lagrange %s: %s: %s\n  %s\n  %*s^\n", cmd, opt, msg, text, col, "");
  return CLI_EXIT_USAGE;
}

/* One item NAME['] = VALUE at *p (blanks skipped); *p moves past it. */
static int parse_item(const char *cmd, const char *opt, const char *text, const char **p,
                      cli_assign *a) {
  const char *s = *p, *name, *v, *end;
  char msg[200];
  while (*s == ' ' || *s == '\t') s++;
  name = s;
  while (isalnum((unsigned char)*s) || *s == '_') s++;
  size_t len = (size_t)(s - name);
  if (!len || isdigit((unsigned char)*name))
    return list_error(cmd, opt, text, name, "expected NAME=VALUE or NAME'=VALUE");
  a->name = NULL;
  a->primes = 0;
  while (*s == '\'') a->primes++, s++;
  while (*s == ' ' || *s == '\t') s++;
  if (a->primes > 1) return list_error(cmd, opt, text, name, "at most one prime (NAME'=VALUE)");
  if (*s != '=') return list_error(cmd, opt, text, s, "expected '=' after the name");
  v = ++s;
  end = strchr(v, ',');
  if (!end) end = v + strlen(v);
  if (!cli_parse_number(v, (size_t)(end - v), &a->value)) {
    while (*v == ' ' || *v == '\t') v++;
    snprintf(msg, sizeof msg, "'%.*s' is not a finite decimal number (such as 0.5 or -2e-3)",
             (int)(end - v > 40 ? 40 : end - v), v);
    return list_error(cmd, opt, text, v, msg);
  }
  a->at = (size_t)(name - text);
  if (!(a->name = lg_strndup(name, len))) {
    fprintf(stderr, "lagrange %s: out of memory\n", cmd);
    return CLI_EXIT_MODEL;
  }
  *p = end;
  return CLI_EXIT_OK;
}

int cli_parse_assignments(const char *cmd, const char *opt, const char *text, cli_assign **out,
                          size_t *n) {
  const char *p = text;
  size_t cap = 0;
  char msg[200];
  *out = NULL;
  *n = 0;
  for (;;) {
    cli_assign a;
    int rc;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) return CLI_EXIT_OK; /* an empty list, or a trailing ',' */
    if (!lg_grow((void **)out, &cap, *n + 1, sizeof **out)) {
      fprintf(stderr, "lagrange %s: out of memory\n", cmd);
      return CLI_EXIT_MODEL;
    }
    if ((rc = parse_item(cmd, opt, text, &p, &a)) != CLI_EXIT_OK) break;
    for (size_t i = 0; i < *n; i++) {
      if (strcmp((*out)[i].name, a.name) || (*out)[i].primes != a.primes) continue;
      snprintf(msg, sizeof msg, "'%.100s%s' is given twice", a.name, a.primes ? "'" : "");
      lg_free(a.name);
      rc = list_error(cmd, opt, text, text + a.at, msg);
      break;
    }
    if (rc != CLI_EXIT_OK) break;
    (*out)[(*n)++] = a;
    if (*p) p++; /* the ',' */
  }
  cli_assignments_free(*out, *n);
  *out = NULL;
  *n = 0;
  return CLI_EXIT_USAGE;
}

void cli_assignments_free(cli_assign *a, size_t n) {
  for (size_t i = 0; a && i < n; i++) lg_free(a[i].name);
  lg_free(a);
}

/* The index of `name` among count names given by name_of (NULL names never
 * match), or -1. */
static int name_index(const lg_system *s, size_t count,
                      const char *(*name_of)(const lg_system *, size_t), const char *name) {
  for (size_t i = 0; i < count; i++) {
    const char *nm = name_of(s, i);
    if (nm && !strcmp(nm, name)) return (int)i;
  }
  return -1;
}

int cli_parse_system_state(const char *cmd, const char *opt, const char *text,
                           const char *file, const lg_system *s, double *q, double *qd,
                           double *u, double *udep) {
  cli_assign *a = NULL;
  size_t n = 0;
  int rc = cli_parse_assignments(cmd, opt, text, &a, &n);
  for (size_t i = 0; rc == CLI_EXIT_OK && i < n; i++) {
    const char *name = a[i].name;
    /* coordinates first: the speeds of Kane's own state may be named
     * after the coordinates whose rates they are */
    int k = name_index(s, lg_nq(s), lg_coordinate_name, name);
    int su = u && !a[i].primes ? name_index(s, lg_nu(s), lg_speed_name, name) : -1;
    int sd = udep && !a[i].primes
                 ? name_index(s, lg_ndependent_speeds(s), lg_dependent_speed_name, name)
                 : -1;
    if (k >= 0) {
      (a[i].primes ? qd : q)[k] = a[i].value;
    } else if (su >= 0) {
      u[su] = a[i].value;
    } else if (sd >= 0) {
      udep[sd] = a[i].value;
    } else {
      fprintf(stderr, "lagrange %s: %s: '%s' is not a coordinate of %s\n", cmd, opt, name,
              file);
      rc = CLI_EXIT_USAGE;
    }
  }
  cli_assignments_free(a, n);
  return rc;
}
