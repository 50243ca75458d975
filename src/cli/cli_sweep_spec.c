/* cli_sweep_spec.c - the runs of a sweep: a grid from every --vary
 * 'NAME=A:B:N' (the product; the first --vary varies slowest, the last
 * fastest), or --samples N Monte Carlo draws from every --dist
 * 'NAME=normal(MU,SIGMA)' | 'NAME=uniform(A,B)' with --seed S.
 *
 * The draws come from a counter-based generator: the value of name j in
 * run k is a hash of (seed, k, j) (splitmix64's finalizer), so run k's
 * values depend on nothing else (not on threads, ranks or order). */
#include "cli_sweep.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(const char *opt, const char *text, const char *what) {
  fprintf(stderr, "lagrange sweep: %s '%s': %s\n", opt, text, what);
  return CLI_EXIT_USAGE;
}

/* Every name a sweep can vary, for the message about an unknown one. */
static void list_names(const lg_system *s) {
  size_t np = lg_np(s), n = lg_nq(s);
  fputs("  valid names: ", stderr);
  for (size_t i = 0; i < np; i++) fprintf(stderr, "%s, ", lg_parameter_name(s, i));
  for (size_t i = 0; i < n; i++) fprintf(stderr, "%s, ", lg_coordinate_name(s, i));
  for (size_t i = 0; i < n; i++)
    fprintf(stderr, "%s'%s", lg_coordinate_name(s, i), i + 1 < n ? ", " : "\n");
  if (!n) fputc('\n', stderr);
}

/* NAME (a parameter, coordinate or coordinate') of text[0..len). */
static int resolve_name(const lg_system *s, const char *opt, const char *text, size_t len,
                        sweep_var *v) {
  while (len && isspace((unsigned char)text[len - 1])) len--;
  while (len && isspace((unsigned char)*text)) text++, len--;
  int rate = len && text[len - 1] == '\'';
  size_t base = len - (size_t)rate;
  v->name = lg_strndup(text, len);
  char *bare = lg_strndup(text, base);
  if (!v->name || !bare) {
    lg_free(bare);
    return CLI_EXIT_MODEL;
  }
  long pi = rate ? -1 : lg_parameter_index(s, bare), ci = lg_coordinate_index(s, bare);
  lg_free(bare);
  if (pi >= 0) {
    v->kind = SWEEP_PARAM;
    v->index = (size_t)pi;
    return CLI_EXIT_OK;
  }
  if (ci >= 0) {
    v->kind = rate ? SWEEP_RATE : SWEEP_COORD;
    v->index = (size_t)ci;
    return CLI_EXIT_OK;
  }
  fprintf(stderr, "lagrange sweep: %s: '%s' is not a parameter, a coordinate or a rate of the "
                  "model (a coordinate or rate stands for its initial value)\n", opt, v->name);
  list_names(s);
  return CLI_EXIT_USAGE;
}

/* A number in text[0..len) */
static int number(const char *text, size_t len, double *x) {
  return cli_parse_number(text, len, x);
}

/* 'NAME=A:B:N' */
static int parse_vary(const lg_system *s, const char *text, sweep_var *v) {
  const char *eq = strchr(text, '=');
  const char *c1 = eq ? strchr(eq + 1, ':') : NULL;
  const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  if (!eq || !c1 || !c2 || strchr(c2 + 1, ':'))
    return usage("--vary", text, "write NAME=A:B:N (N values from A to B)");
  double n;
  v->law = SWEEP_GRID;
  if (!number(eq + 1, (size_t)(c1 - eq - 1), &v->a) ||
      !number(c1 + 1, (size_t)(c2 - c1 - 1), &v->b))
    return usage("--vary", text, "A and B are numbers (NAME=A:B:N)");
  if (!number(c2 + 1, strlen(c2 + 1), &n) || n < 1 || n != floor(n) ||
      n > CLI_SWEEP_MAX_RUNS)
    return usage("--vary", text, "N is a whole number of values >= 1 (NAME=A:B:N)");
  v->n = (size_t)n;
  if (v->n > 2 && !isfinite(v->b - v->a)) /* the values between would be inf or nan */
    return usage("--vary", text, "B - A overflows (the values between A and B would not be "
                 "finite); narrow the range");
  if (eq == text) return usage("--vary", text, "a name is missing before '='");
  return resolve_name(s, "--vary", text, (size_t)(eq - text), v);
}

/* 'NAME=normal(MU,SIGMA)' or 'NAME=uniform(A,B)' */
static int parse_dist(const lg_system *s, const char *text, sweep_var *v) {
  static const char *const how = "write NAME=normal(MU,SIGMA) or NAME=uniform(A,B)";
  const char *eq = strchr(text, '=');
  if (!eq || eq == text) return usage("--dist", text, how);
  const char *law = eq + 1;
  while (isspace((unsigned char)*law)) law++;
  const char *open = strchr(law, '('), *comma = open ? strchr(open, ',') : NULL;
  const char *close = comma ? strchr(comma, ')') : NULL;
  if (!close) return usage("--dist", text, how);
  for (const char *p = close + 1; *p; p++)
    if (!isspace((unsigned char)*p)) return usage("--dist", text, how);
  size_t ll = (size_t)(open - law);
  while (ll && isspace((unsigned char)law[ll - 1])) ll--;
  if (ll == 6 && !strncmp(law, "normal", 6)) v->law = SWEEP_NORMAL;
  else if (ll == 7 && !strncmp(law, "uniform", 7)) v->law = SWEEP_UNIFORM;
  else return usage("--dist", text, "the distributions are normal(MU,SIGMA) and uniform(A,B)");
  if (!number(open + 1, (size_t)(comma - open - 1), &v->a) ||
      !number(comma + 1, (size_t)(close - comma - 1), &v->b))
    return usage("--dist", text, "the two arguments are numbers");
  if (v->law == SWEEP_NORMAL && v->b < 0)
    return usage("--dist", text, "SIGMA is a standard deviation, >= 0");
  if (v->law == SWEEP_UNIFORM && v->b < v->a)
    return usage("--dist", text, "uniform(A,B) needs A <= B");
  /* the draws must be finite: A + (B - A) u, and MU + SIGMA z with |z| < 9
   * (Box-Muller's largest |z| from 53-bit uniforms is 8.6) */
  if (v->law == SWEEP_UNIFORM && !isfinite(v->b - v->a))
    return usage("--dist", text, "B - A overflows (the draws would not be finite); narrow "
                 "the range");
  if (v->law == SWEEP_NORMAL && !isfinite(fabs(v->a) + 9 * v->b))
    return usage("--dist", text, "MU + 9 SIGMA overflows (the draws would not be finite); "
                 "use a smaller SIGMA");
  return resolve_name(s, "--dist", text, (size_t)(eq - text), v);
}

/* A whole number in [lo, hi] */
static int whole(const char *opt, const char *text, double lo, double hi, double *x) {
  if (!text || !cli_parse_number(text, strlen(text), x) || *x != floor(*x) || *x < lo ||
      *x > hi) {
    fprintf(stderr, "lagrange sweep: %s needs a whole number from %.0f to %.0f, not '%s'\n",
            opt, lo, hi, text ? text : "");
    return 0;
  }
  return 1;
}

static int parse_seed(const char *text, uint64_t *seed) {
  char *end;
  errno = 0;
  if (!text) return 1;
  while (isspace((unsigned char)*text)) text++;
  unsigned long long v = isdigit((unsigned char)*text) ? strtoull(text, &end, 10) : 0;
  if (!isdigit((unsigned char)*text) || errno || *end) {
    fprintf(stderr, "lagrange sweep: --seed needs a whole number from 0 to 2^64-1, not '%s'\n",
            text);
    return 0;
  }
  *seed = v;
  return 1;
}

/* Each name varied once; the number of runs within the limit. */
static int check_runs(const sweep_spec *sp) {
  for (size_t i = 0; i < sp->nv; i++)
    for (size_t j = 0; j < i; j++)
      if (!strcmp(sp->v[i].name, sp->v[j].name)) {
        fprintf(stderr, "lagrange sweep: '%s' is varied twice\n", sp->v[i].name);
        return CLI_EXIT_USAGE;
      }
  return CLI_EXIT_OK;
}

static int parse_grid(const cli_opts *o, const lg_system *s, sweep_spec *sp) {
  double runs = 1;
  for (size_t i = 0; i < o->nvary; i++) {
    int rc = parse_vary(s, o->vary[i], &sp->v[sp->nv++]);
    if (rc != CLI_EXIT_OK) return rc;
    runs *= (double)sp->v[i].n;
  }
  if (runs > CLI_SWEEP_MAX_RUNS) {
    fprintf(stderr, "lagrange sweep: the grid has %.0f runs, more than %.0f (fewer values)\n",
            runs, CLI_SWEEP_MAX_RUNS);
    return CLI_EXIT_USAGE;
  }
  sp->runs = (size_t)runs;
  return CLI_EXIT_OK;
}

static int parse_monte_carlo(const cli_opts *o, const lg_system *s, sweep_spec *sp) {
  double n;
  if (!o->samples) {
    fprintf(stderr, "lagrange sweep: --dist needs --samples N (and --seed S)\n");
    return CLI_EXIT_USAGE;
  }
  if (!whole("--samples", o->samples, 1, CLI_SWEEP_MAX_RUNS, &n) ||
      !parse_seed(o->seed, &sp->seed))
    return CLI_EXIT_USAGE;
  sp->runs = (size_t)n;
  sp->monte_carlo = 1;
  for (size_t i = 0; i < o->ndist; i++) {
    int rc = parse_dist(s, o->dist[i], &sp->v[sp->nv++]);
    if (rc != CLI_EXIT_OK) return rc;
  }
  return CLI_EXIT_OK;
}

int sweep_spec_parse(const cli_opts *o, const lg_system *s, sweep_spec *sp) {
  memset(sp, 0, sizeof *sp);
  if ((o->nvary > 0) == (o->ndist > 0)) {
    fprintf(stderr, "lagrange sweep: give either --vary 'NAME=A:B:N' (a grid) or --samples N "
                    "--seed S --dist 'NAME=normal(MU,SIGMA)' (Monte Carlo)%s\n",
            o->nvary ? ", not both" : "");
    return CLI_EXIT_USAGE;
  }
  if (o->nvary && (o->samples || o->seed)) {
    fprintf(stderr, "lagrange sweep: --samples and --seed go with --dist, not --vary\n");
    return CLI_EXIT_USAGE;
  }
  sp->v = lg_calloc(o->nvary + o->ndist, sizeof *sp->v);
  if (!sp->v) {
    fprintf(stderr, "lagrange sweep: out of memory\n");
    return CLI_EXIT_MODEL;
  }
  int rc = o->nvary ? parse_grid(o, s, sp) : parse_monte_carlo(o, s, sp);
  if (rc == CLI_EXIT_OK) rc = check_runs(sp);
  if (rc != CLI_EXIT_OK) sweep_spec_free(sp);
  return rc;
}

void sweep_spec_free(sweep_spec *sp) {
  for (size_t i = 0; i < sp->nv; i++) lg_free(sp->v[i].name);
  lg_free(sp->v);
  memset(sp, 0, sizeof *sp);
}

/* ---- the values of a run ------------------------------------------------------------------ */
static uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1): draw c of run k. */
static double uniform01(uint64_t seed, uint64_t k, uint64_t c) {
  uint64_t h = mix64(mix64(mix64(seed) ^ k) ^ c);
  return (double)(h >> 11) * 0x1p-53;
}

static double draw(const sweep_spec *sp, size_t k, size_t j) {
  const sweep_var *v = &sp->v[j];
  double u1 = uniform01(sp->seed, k, 2 * (uint64_t)j);
  if (v->law == SWEEP_UNIFORM) return v->a + (v->b - v->a) * u1;
  /* Box-Muller with 1 - u1 in (0, 1] */
  double u2 = uniform01(sp->seed, k, 2 * (uint64_t)j + 1);
  return v->a + v->b * sqrt(-2 * log(1 - u1)) * cos(6.283185307179586 * u2);
}

/* The grid's value i of N from A to B (B exactly at the end). */
static double grid_value(const sweep_var *v, size_t i) {
  if (v->n == 1 || i == 0) return v->a;
  if (i == v->n - 1) return v->b;
  return v->a + (v->b - v->a) * (double)i / (double)(v->n - 1);
}

void sweep_values(const sweep_spec *sp, size_t k, double *val) {
  if (sp->monte_carlo) {
    for (size_t j = 0; j < sp->nv; j++) val[j] = draw(sp, k, j);
    return;
  }
  for (size_t j = sp->nv; j-- > 0;) { /* the last --vary varies fastest */
    val[j] = grid_value(&sp->v[j], k % sp->v[j].n);
    k /= sp->v[j].n;
  }
}
