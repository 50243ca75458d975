/* cli.h - the command line: the only layer that prints or exits. */
#ifndef LG_CLI_H
#define LG_CLI_H

#include "lang.h"
#include "lg_base.h"
#include "num.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_MODEL = 1, CLI_EXIT_USAGE = 2 };

/* Before generating code or integrating, entries up to this DAG size are
 * expanded; 0: none is (expansion multiplies out the shared structure the
 * derivation keeps); every entry is collected (sym_collect) either way. */
enum { CLI_SIMPLIFY_FOR_CODE = 0 };

/* LaTeX (cli_latex.c): does a formula fit a line; one formula as a
 * display (\[ \], or multline* cut into lines); is a bmatrix row too wide. */
int cli_latex_fits(const char *s);
void cli_latex_display(lg_str *o, const char *s);
int cli_latex_too_wide(const char *const *cells, size_t n);

typedef enum cli_format { CLI_TEXT, CLI_LATEX, CLI_JSON } cli_format;

/* Options shared by the subcommands (unused ones stay at defaults). */
typedef struct cli_opts {
  const char *model;
  num_setting *set;
  size_t nset;
  const char *method;       /* "lagrange" or "kane" */
  cli_format format;
  int json;
  const char *state;
  double t;
  /* simulate */
  double t0, tf, dt, rtol, atol;
  int has_t0, has_tf, has_dt, project, jit, stats;
  const char *integrator, *out, *plot, *stabilize;
  /* codegen */
  const char *lang, *name, *output;
  /* linearize, equilibria */
  const char *at, *independent, *box;
  int symbolic;
} cli_opts;

/* Parse argv after the subcommand; prints the problem and returns
 * CLI_EXIT_USAGE on bad usage. */
int cli_parse_opts(const char *cmd, int argc, char **argv, cli_opts *o);
void cli_opts_free(cli_opts *o);

/* Print a diagnostic as file:line:col: message (hint) and return the exit
 * code for its status. `m` (may be NULL) supplies a location when the
 * diagnostic has none. */
int cli_report(const lg_diag *d, const lang_model *m, const char *file);

/* Load the model and derive the equations; prints errors. */
int cli_load(const cli_opts *o, lang_model **lm, mech_eom **eom);

/* Kane's equations of a loaded model (prints errors). */
int cli_load_kane(const cli_opts *o, lang_model *lm, mech_kane **k);
/* The same with the dependent speeds chosen at the state (t, q, q'). */
int cli_load_kane_at(const cli_opts *o, lang_model *lm, double t, const double *q,
                     const double *qd, mech_kane **k);
/* Replace *e by Kane's equations when --method kane and they share
 * Lagrange's state (u = q', unconstrained). Otherwise, when kane_out is
 * given, *kane_out gets Kane's equations (state [q; u]); else an error. */
int cli_method_eom(const cli_opts *o, lang_model *lm, mech_eom **e, mech_kane **kane_out);

int cli_eom(const cli_opts *o);
int cli_eval(const cli_opts *o);
int cli_simulate(const cli_opts *o);
int cli_codegen(const cli_opts *o);
int cli_linearize(const cli_opts *o);
int cli_equilibria(const cli_opts *o);

/* Parse "q1=0.3, q1'=0.5" (names of coordinates; with kane, speeds into u
 * and *have_u set; kane/u/have_u may be NULL) over the values already in q
 * and qd. Prints the problem and returns CLI_EXIT_USAGE on bad input. */
int cli_parse_state(const char *s, const lang_model *lm, double *q, double *qd,
                    const mech_kane *kane, double *u, int *have_u);

/* JSON helpers */
void cli_json_string(lg_str *out, const char *s);
void cli_json_number(lg_str *out, double x);

#endif
