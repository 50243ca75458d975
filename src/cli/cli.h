/* cli.h - the command line: the only layer that prints or exits. It is a
 * client of lagrange.h: everything it computes or formats comes from an
 * lg_* function (tests/cli/test_layering.sh), so the C library and Python
 * give the same; what is its own is reading arguments, writing files and
 * standard output, and exit codes. */
#ifndef LG_CLI_H
#define LG_CLI_H

#include <stdio.h>

#include "cli_outfile.h"
#include "lagrange.h"
#include "lg_base.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_MODEL = 1, CLI_EXIT_USAGE = 2 };

/* One --set NAME=VALUE (lg_model_set). */
typedef struct cli_setting {
  const char *name;        /* owned (cli_opts_free) */
  double value;
} cli_setting;

typedef enum cli_format { CLI_TEXT, CLI_LATEX, CLI_JSON } cli_format;

/* Options shared by the subcommands (unused ones stay at defaults). */
typedef struct cli_opts {
  const char *command;      /* the subcommand, for messages ("simulate") */
  const char *model;
  cli_setting *set;
  size_t nset, set_cap;
  const char *method;       /* "lagrange" or "kane" */
  cli_format format;
  int json;
  const char *state;
  double t;
  /* simulate */
  double t0, tf, dt, rtol, atol;
  int has_t0, has_tf, has_dt, project, stats;
  enum { CLI_JIT_OFF, CLI_JIT_BACKGROUND, CLI_JIT_WAIT } jit;
  double max_rows;          /* --max-rows (0: CLI_MAX_ROWS) */
  double max_steps;         /* --max-steps (0: the integrators' default, 2e7) */
  int model_stdin;          /* the model is read from stdin ("-"); model is "<stdin>" */
  const char *integrator, *out, *plot, *stabilize, *stop_when;
  const char *plot_vars, *plot_xy; /* --plot-vars 'x, theta'', --plot-xy 'P, Q' */
  const char *outputs;      /* --outputs 'h, r' (NULL: every output) */
  int no_csv;               /* animate: simulate writes no CSV */
  /* animate */
  double fps;               /* --fps (0: 60) */
  const char *trail;        /* --trail 'P, Q' */
  /* codegen */
  const char *lang, *name, *output, *functions;
  /* linearize, equilibria */
  const char *at, *independent, *box;
  int symbolic;
  /* sweep: raw texts, parsed by cli_sweep_spec.c (--vary, --dist repeat) */
  const char **vary, **dist;
  size_t nvary, ndist, vary_cap, dist_cap;
  const char *samples, *seed, *jobs;
} cli_opts;

/* A finite decimal number spelled s[0..n) (blanks around allowed):
 * [+-]digits[.digits][(e|E)[+-]digits]. No hex, nan, inf or empty text. */
int cli_parse_number(const char *s, size_t n, double *out);

/* One item of a NAME=VALUE list: name, 0 or 1 prime, value, and where the
 * item starts in the text. */
typedef struct cli_assign {
  char *name;              /* owned: cli_assignments_free */
  int primes;
  double value;
  size_t at;
} cli_assign;

/* Parse "q1=0.3, q1'=0.5" (--state, --at): a NAME=VALUE list, each name
 * (with its primes) once. On a mistake prints "lagrange CMD: OPT: what"
 * with the text and a caret under it, and returns CLI_EXIT_USAGE; *out
 * (lg_free it) is NULL then. */
int cli_parse_assignments(const char *cmd, const char *opt, const char *text, cli_assign **out,
                          size_t *n);
void cli_assignments_free(cli_assign *a, size_t n);

/* Parse argv after the subcommand; prints the problem and returns
 * CLI_EXIT_USAGE on bad usage. */
int cli_parse_opts(const char *cmd, int argc, char **argv, cli_opts *o);
void cli_opts_free(cli_opts *o);

/* Print a diagnostic of the library (which gives every error of a model
 * its position) as file:line:col: message (hint), options named as the
 * command's flags, and return the exit code for its status. */
int cli_report(const lg_diag *d, const char *file);
/* The library names options in backquotes, in its callers' terms
 * (`rtol`); the command line says --rtol: rewrites d's message and hint. */
void cli_diag_as_flags(lg_diag *d);
/* The same text without printing it (buf gets "file:line:col: what (hint)"). */
void cli_format_diag(const lg_diag *d, const char *file, char *buf, size_t size);

/* Load o->model (standard input for "-"), apply every --set
 * (lg_model_set) and print the model's notes on stderr; prints errors and
 * returns the exit code (*m NULL then). */
int cli_open_model(const cli_opts *o, lg_model **m);
/* lg_derive_with, the method from --method (opt NULL: the defaults);
 * prints errors and returns the exit code (*s NULL then). */
int cli_derive(const cli_opts *o, const lg_model *m, const lg_derive_options *opt,
               lg_system **s);

/* Help and version (cli_help.c): the usage of every command; one
 * command's help (NULL: the usage) on stdout, exit 2 for an unknown one. */
void cli_usage(FILE *f);
int cli_help(const char *cmd);
int cli_version(void);

int cli_eom(const cli_opts *o);
int cli_eval(const cli_opts *o);
int cli_simulate(const cli_opts *o);
int cli_codegen(const cli_opts *o);
int cli_linearize(const cli_opts *o);
int cli_equilibria(const cli_opts *o);

/* Parse "q1=0.3, q1'=0.5" by a derived system's names only (lagrange.h): coordinates into
 * q and qd (holding the values to start from), and when u / udep are not
 * NULL, Kane's independent speeds (lg_speed_name) into u and dependent
 * ones (lg_dependent_speed_name) into udep. `file` names the model in the
 * message for an unknown name. Prints the problem and returns
 * CLI_EXIT_USAGE on bad input. */
int cli_parse_system_state(const char *cmd, const char *opt, const char *text,
                           const char *file, const lg_system *s, double *q, double *qd,
                           double *u, double *udep);

/* ---- output (cli_output.c, cli_plot.c) -------------------------------------------- */
/* simulate refuses up front a run of more rows than this (--max-rows). */
#define CLI_MAX_ROWS ((double)LG_SIM_MAX_ROWS) /* the library's bound */

/* SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT: remove the temporaries, then
 * die of the signal. Signals ignored at start stay ignored. */
void cli_install_signals(void);
/* Flush standard output; a failed write makes rc 1 (with a message). */
int cli_finish_stdout(int rc);
/* Print an output-file diagnostic ("lagrange: path: what (hint)"); 1. */
int cli_report_io(const lg_diag *d);
/* 1 when the rows from t0 to tf every dt fit the limit, else prints why. */
int cli_check_rows(const cli_opts *o, double t0, double tf, double dt);

/* Outputs against inputs (cli_guard.c): each of the n outputs path[i]
 * (NULL: none), called label[i] in messages ("--out"), that is the model
 * file or another of them is refused with a message: CLI_EXIT_USAGE. A
 * device or FIFO is never refused (it is written, not replaced). */
int cli_check_outputs(const cli_opts *o, const char *const *path, const char *const *label,
                      size_t n);
/* 1 when writing path would replace the model file. */
int cli_output_is_input(const cli_opts *o, const char *path);

/* --plot (cli_plot.c): .svg, .png or .pdf (any case) */
typedef struct cli_plot cli_plot;
int cli_plot_supported(const char *path);
/* Check --plot-vars and --plot-xy against the model and start the script;
 * prints the problem and returns the exit code (usage: an unknown name). */
int cli_plot_open(const cli_opts *o, const lg_system *s, cli_plot **out);
void cli_plot_row(cli_plot *pl, const lg_sim_point *p);
/* Run gnuplot on the script, its picture into out_fd; prints why not (0). */
int cli_plot_draw(cli_plot *pl, const char *path, int out_fd);
void cli_plot_free(cli_plot *pl);

/* simulate's outputs: the CSV (stdout or --out) and the plot. */
typedef struct cli_sim_out {
  FILE *csv;        /* write the CSV rows here (NULL: no CSV, o->no_csv) */
  cli_plot *plot;   /* the plot, or NULL */
  lg_out out, pic;  /* --out and --plot */
} cli_sim_out;
int cli_sim_out_open(const cli_opts *o, const lg_system *s, cli_sim_out *k);
/* Draw the plot and commit both files when rc is 0 (a failure makes rc 1);
 * else remove the plot and keep the CSV rows as FILE.partial.csv. */
int cli_sim_out_finish(const cli_opts *o, cli_sim_out *k, int rc);

/* Another consumer of simulate's rows (animate): started once the system
 * is built and the time span known, fed every output row, finished with
 * the run's exit code (returns the final one). Each prints its errors. */
typedef struct cli_sim_client cli_sim_client;
struct cli_sim_client {
  int (*start)(cli_sim_client *c, const cli_opts *o, const lg_system *s, double t0,
               double tf);
  int (*row)(cli_sim_client *c, const lg_sim_point *p); /* nonzero stops the run */
  int (*finish)(cli_sim_client *c, int rc);
};
/* simulate's and sweep's options as lg_sim_options (defaults from s);
 * prints why not and returns CLI_EXIT_USAGE (cli_simulate.c). */
int cli_sim_options(const cli_opts *o, const lg_system *s, lg_sim_options *so);
/* An lg_note_fn: the library's remark on stderr, options said as flags. */
void cli_print_note(void *ud, const char *text);
/* --outputs read into cols[lg_noutputs(s)] (every output without it): the
 * CSV's output columns; prints a usage error (exit 2) for an unknown name. */
int cli_output_columns(const cli_opts *o, const lg_system *s, size_t *cols, size_t *ncols);
/* simulate, with the rows also going to client (may be NULL). */
int cli_simulate_with(const cli_opts *o, cli_sim_client *client);
int cli_animate(const cli_opts *o);

/* JSON helpers */
void cli_json_string(lg_str *out, const char *s);
void cli_json_number(lg_str *out, double x);

#endif
