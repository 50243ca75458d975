/* cli_args.c - option parsing for every subcommand. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(const char *cmd, const char *fmt, const char *arg) {
  fprintf(stderr, "lagrange %s: ", cmd);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see 'lagrange --help')\n");
  return CLI_EXIT_USAGE;
}

static int parse_double(const char *s, double *out) {
  return s && cli_parse_number(s, strlen(s), out);
}

/* One --set value; a name set twice is a mistake. */
static int set_one(const char *cmd, cli_opts *o, const cli_assign *a) {
  for (size_t i = 0; i < o->nset; i++)
    if (!strcmp(o->set[i].name, a->name)) return bad(cmd, "--set %s is given twice", a->name);
  char *name = lg_strdup(a->name);
  if (!name || !lg_grow((void **)&o->set, &o->set_cap, o->nset + 1, sizeof *o->set)) {
    lg_free(name);
    fprintf(stderr, "lagrange %s: out of memory\n", cmd);
    return CLI_EXIT_MODEL;
  }
  o->set[o->nset].name = name;
  o->set[o->nset].value = a->value;
  o->nset++;
  return CLI_EXIT_OK;
}

/* NAME=VALUE for --set: a name given once, a finite decimal number. */
static int add_setting(const char *cmd, cli_opts *o, const char *arg) {
  cli_assign *a = NULL;
  size_t n = 0;
  int rc = cli_parse_assignments(cmd, "--set", arg, &a, &n);
  if (rc != CLI_EXIT_OK) return rc;
  for (size_t i = 0; i < n; i++) {
    rc = a[i].primes ? bad(cmd, "--set gives parameters and inputs, not a rate ('%s'')", a[i].name)
                     : set_one(cmd, o, &a[i]);
    if (rc != CLI_EXIT_OK) break;
  }
  cli_assignments_free(a, n);
  if (rc == CLI_EXIT_OK && !n) rc = bad(cmd, "--set wants NAME=NUMBER, not '%s'", arg);
  return rc;
}


/* Options that take a value: the value is the next argument or after '='. */
static const char *const valued[] = {"--set", "--method", "--format", "--state", "--t",
                                     "--t0", "--tf", "--dt", "--rtol", "--atol",
                                     "--integrator", "--out", "--plot", "--stabilize",
                                     "--stop-when", "--lang", "--name", "-o", "--at",
                                     "--independent", "--box", "--max-rows", "--max-steps",
                                     "--functions",
                                     "--plot-vars", "--plot-xy", "--outputs", "--fps", "--trail", "--vary",
                                     "--dist", "--samples", "--seed", "--jobs", NULL};

static int takes_value(const char *opt) {
  for (int i = 0; valued[i]; i++)
    if (strcmp(valued[i], opt) == 0) return 1;
  return 0;
}

static int apply_number(const char *cmd, const char *opt, const char *val, cli_opts *o) {
  double v;
  if (!parse_double(val, &v)) {
    /* inf, nan and 1e999 too: a time or a tolerance must be finite */
    fprintf(stderr, "lagrange %s: option %s needs a finite decimal number (such as 0.5 or "
                    "-2e-3), not '%s' (see 'lagrange --help')\n", cmd, opt, val ? val : "");
    return CLI_EXIT_USAGE;
  }
  if (!strcmp(opt, "--t")) o->t = v;
  else if (!strcmp(opt, "--t0")) { o->t0 = v; o->has_t0 = 1; }
  else if (!strcmp(opt, "--tf")) { o->tf = v; o->has_tf = 1; }
  else if (!strcmp(opt, "--dt")) { o->dt = v; o->has_dt = 1; }
  else if (!strcmp(opt, "--rtol")) o->rtol = v;
  else if (!strcmp(opt, "--atol")) o->atol = v;
  else if (!strcmp(opt, "--fps")) {
    if (!(v > 0 && v <= 1000)) return bad(cmd, "--fps needs a number of frames per second in (0, 1000], not '%s'", val);
    o->fps = v;
  } else if (!strcmp(opt, "--max-rows")) {
    if (!(v >= 1) || v != floor(v))
      return bad(cmd, "--max-rows needs a whole number >= 1, not '%s'", val);
    o->max_rows = v;
  } else if (!strcmp(opt, "--max-steps")) {
    if (!(v >= 1) || v != floor(v))
      return bad(cmd, "--max-steps needs a whole number >= 1, not '%s'", val);
    o->max_steps = v;
  }
  return CLI_EXIT_OK;
}

/* --vary and --dist repeat: every text is kept, in order. */
static int add_text(const char *cmd, const char ***list, size_t *n, size_t *cap,
                    const char *val) {
  if (!lg_grow((void **)list, cap, *n + 1, sizeof **list)) {
    fprintf(stderr, "lagrange %s: out of memory\n", cmd);
    return CLI_EXIT_MODEL;
  }
  (*list)[(*n)++] = val;
  return CLI_EXIT_OK;
}

static int apply(const char *cmd, const char *opt, const char *val, cli_opts *o) {
  if (!strcmp(opt, "--set")) return add_setting(cmd, o, val);
  if (!strcmp(opt, "--vary")) return add_text(cmd, &o->vary, &o->nvary, &o->vary_cap, val);
  if (!strcmp(opt, "--dist")) return add_text(cmd, &o->dist, &o->ndist, &o->dist_cap, val);
  if (!strcmp(opt, "--samples")) o->samples = val;
  else if (!strcmp(opt, "--seed")) o->seed = val;
  else if (!strcmp(opt, "--jobs")) o->jobs = val;
  else if (!strcmp(opt, "--method")) {
    if (strcmp(val, "lagrange") && strcmp(val, "kane"))
      return bad(cmd, "--method is lagrange or kane, not '%s'", val);
    o->method = val;
  } else if (!strcmp(opt, "--format")) {
    if (!strcmp(val, "text")) o->format = CLI_TEXT;
    else if (!strcmp(val, "latex")) o->format = CLI_LATEX;
    else if (!strcmp(val, "json")) o->format = CLI_JSON;
    else return bad(cmd, "--format is text, latex or json, not '%s'", val);
  } else if (!strcmp(opt, "--state")) o->state = val;
  else if (!strcmp(opt, "--integrator")) o->integrator = val;
  else if (!strcmp(opt, "--out")) o->out = val;
  else if (!strcmp(opt, "--plot")) {
    if (!cli_plot_supported(val))
      return bad(cmd, "--plot draws .svg, .png or .pdf files, not '%s'", val);
    o->plot = val;
  }
  else if (!strcmp(opt, "--stabilize")) o->stabilize = val;
  else if (!strcmp(opt, "--stop-when")) o->stop_when = val;
  else if (!strcmp(opt, "--lang")) o->lang = val;
  else if (!strcmp(opt, "--name")) o->name = val;
  else if (!strcmp(opt, "--functions")) o->functions = val;
  else if (!strcmp(opt, "-o")) o->output = val;
  else if (!strcmp(opt, "--at")) o->at = val;
  else if (!strcmp(opt, "--independent")) o->independent = val;
  else if (!strcmp(opt, "--box")) o->box = val;
  else if (!strcmp(opt, "--plot-vars")) o->plot_vars = val;
  else if (!strcmp(opt, "--plot-xy")) o->plot_xy = val;
  else if (!strcmp(opt, "--outputs")) o->outputs = val;
  else if (!strcmp(opt, "--trail")) o->trail = val;
  else return apply_number(cmd, opt, val, o);
  return CLI_EXIT_OK;
}

int cli_parse_opts(const char *cmd, int argc, char **argv, cli_opts *o) {
  memset(o, 0, sizeof *o);
  o->command = cmd;
  o->method = "lagrange";
  o->rtol = 1e-10;
  o->atol = 1e-10;
  for (int i = 0; i < argc; i++) {
    char *a = argv[i];
    if (a[0] != '-' || !a[1]) {
      if (o->model) return bad(cmd, "unexpected argument '%s'", a);
      o->model = a;
      continue;
    }
    char opt[32];
    const char *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    snprintf(opt, sizeof opt, "%.*s", (int)(len < 31 ? len : 31), a);
    if (!strcmp(opt, "--json")) { o->json = 1; continue; }
    if (!strcmp(opt, "--project")) { o->project = 1; continue; }
    if (!strcmp(opt, "--jit")) {
      const char *how = eq ? eq + 1 : "background";
      if (strcmp(how, "background") && strcmp(how, "wait"))
        return bad(cmd, "--jit is --jit, --jit=background or --jit=wait, not '%s'", a);
      o->jit = strcmp(how, "wait") ? CLI_JIT_BACKGROUND : CLI_JIT_WAIT;
      continue;
    }
    if (!strcmp(opt, "--stats")) { o->stats = 1; continue; }
    if (!strcmp(opt, "--symbolic")) { o->symbolic = 1; continue; }
    if (!takes_value(opt)) return bad(cmd, "unknown option '%s'", a);
    const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
    if (!val) return bad(cmd, "option %s needs a value", opt);
    int rc = apply(cmd, opt, val, o);
    if (rc != CLI_EXIT_OK) return rc;
  }
  if (!o->model) return bad(cmd, "%s", "no model file given");
  if ((o->plot_vars || o->plot_xy) && !o->plot)
    return bad(cmd, "%s", "--plot-vars and --plot-xy choose what --plot FILE draws: give --plot too");
  if (!strcmp(o->model, "-")) { /* read from stdin; messages name it <stdin> */
    o->model = "<stdin>";
    o->model_stdin = 1;
  }
  return CLI_EXIT_OK;
}

void cli_opts_free(cli_opts *o) {
  for (size_t i = 0; i < o->nset; i++) lg_free((char *)o->set[i].name);
  lg_free(o->set);
  lg_free((void *)o->vary);
  lg_free((void *)o->dist);
  o->vary = o->dist = NULL;
  o->set = NULL;
  o->nset = o->set_cap = o->nvary = o->vary_cap = o->ndist = o->dist_cap = 0;
}
