/* cli_sim.h - what `simulate` and `sweep` share: the model derived and
 * compiled once, simulate's options turned into num_sim_opts, the test of
 * the initial state, and the accelerators (--jit, BDF's exact Jacobian).
 * After cli_sim_prepare everything in cli_sim is read-only, so threads may
 * run simulations from it at once (each with its own q, q' and params). */
#ifndef LG_CLI_SIM_H
#define LG_CLI_SIM_H

#include "cli.h"

typedef struct cli_sim {
  const char *cmd;      /* "simulate", "sweep": for messages */
  lang_model *lm;
  mech_eom *e;
  mech_kane *k;         /* Kane's own state [q; u], else NULL */
  num_system *s;
  num_aux *aux;
  num_sim_opts so;      /* after cli_sim_options */
  cg_jit jit;           /* --jit */
  const char *model;    /* for --jit's late warning */
  int jit_warned;
  num_lin *L;           /* BDF's/IDA's exact Jacobian, or NULL */
} cli_sim;

/* Load and derive the model (--method), simplify, compile the system and
 * the energy balance / --stop-when tapes. Prints errors; on failure S
 * holds nothing to free. */
int cli_sim_load(const cli_opts *o, const char *cmd, cli_sim *S);
/* The options of simulate as num_sim_opts in S->so (Lagrange's state or,
 * with S->k, Kane's); prints why not (exit 2). */
int cli_sim_options(const cli_opts *o, cli_sim *S);
/* --jit and the exact Jacobian for Lagrange's state (after the options);
 * quiet: no notes on stderr (warnings are still printed). */
void cli_sim_accelerate(const cli_opts *o, cli_sim *S);
void cli_sim_free(cli_sim *S);

/* The initial-state rule of simulate: refuse a state that violates a
 * constraint, or project it (--project). The messages (file:line:col:
 * ... one a line) are appended to msg; with `notes` the projected values
 * are reported there too. Returns CLI_EXIT_OK or CLI_EXIT_MODEL. s may be
 * a per-run copy of S->s (other parameter values). */
int cli_sim_check_initial(const cli_opts *o, const cli_sim *S, const num_system *s, double *q,
                          double *qd, int notes, lg_str *msg);

int cli_sweep(const cli_opts *o);

#endif
