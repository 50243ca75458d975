/* cli_sweep.h - `lagrange sweep`: what the sweep's files share.
 *
 * cli_sweep_spec.c  --vary / --samples --seed --dist: the runs and their values
 * cli_sweep_run.c   one run: its parameters and initial state, lg_simulate, one CSV row
 * cli_sweep_out.c   rows written in run order, progress on a terminal
 * cli_sweep_pool.c  the thread pool (--jobs)
 * cli_sweep_mpi.c   the ranks of mpirun: loads the plugin lagrange-mpi.so
 *                   (mpi/cli_sweep_mpi_plugin.c, cli_sweep_mpi.h) only then
 * cli_sweep.c       the command */
#ifndef LG_CLI_SWEEP_H
#define LG_CLI_SWEEP_H

#include "cli.h"

#include <pthread.h>
#include <stdint.h>

/* More runs than this are refused: the writer keeps one pointer per run
 * (80 MB at the limit); at 100 runs a second it is a day of work. */
#define CLI_SWEEP_MAX_RUNS 10000000.0

typedef enum sweep_kind { SWEEP_PARAM, SWEEP_COORD, SWEEP_RATE } sweep_kind;
typedef enum sweep_law { SWEEP_GRID, SWEEP_NORMAL, SWEEP_UNIFORM } sweep_law;

typedef struct sweep_var {
  char *name;           /* as written: "m", "theta", "theta'" */
  sweep_kind kind;
  size_t index;         /* the parameter's or the coordinate's */
  sweep_law law;
  double a, b;          /* grid: A, B; normal: MU, SIGMA; uniform: A, B */
  size_t n;             /* grid: N values */
} sweep_var;

typedef struct sweep_spec {
  sweep_var *v;
  size_t nv, runs;
  int monte_carlo;
  uint64_t seed;
} sweep_spec;

/* Parse --vary or --samples/--seed/--dist against the model's names;
 * prints the problem and returns CLI_EXIT_USAGE. */
int sweep_spec_parse(const cli_opts *o, const lg_system *s, sweep_spec *sp);
void sweep_spec_free(sweep_spec *sp);
/* The values of run k (nv of them): a function of (spec, k) only. */
void sweep_values(const sweep_spec *sp, size_t k, double *val);

/* Everything a run reads (shared read-only by threads and ranks; each
 * run calls lg_simulate with its own copy of the options). */
typedef struct sweep_ctx {
  const cli_opts *o;
  const lg_system *s;
  const lg_sim_options *so;
  const sweep_spec *sp;
} sweep_ctx;

/* The CSV header line. */
void sweep_header(const sweep_ctx *c, lg_str *out);
/* Run k: its row (newline-terminated) appended to out; 1 when ok, 0 when
 * the run failed (its status says why). */
int sweep_run(const sweep_ctx *c, size_t k, lg_str *out);

/* Rows in run order whatever the order they arrive in. */
typedef struct sweep_out {
  FILE *f;
  char **pending;          /* runs: rows that came before their turn */
  size_t runs, next, done, failed;
  double start, last_report;
  int tty;
} sweep_out;

int sweep_out_init(sweep_out *w, FILE *f, size_t runs);
/* Row k (owned by w from now on; NULL: out of memory, written as a
 * failed row); writes every row now due. */
void sweep_out_put(sweep_out *w, size_t k, char *row, int ok);
/* On a terminal: runs done, failures, time left (final: clear the line). */
void sweep_out_progress(sweep_out *w, int final);
void sweep_out_free(sweep_out *w);
double sweep_now(void);

/* Run every run on `jobs` threads into w. */
int sweep_pool(const sweep_ctx *c, sweep_out *w, size_t jobs);

/* MPI (cli_sweep_mpi.c). sweep_mpi_start: when launched by mpirun with
 * several ranks, the plugin's MPI_Init and *rank, *size; returns 0 when MPI is not in
 * use (then *rank = 0, *size = 1). */
int sweep_mpi_start(int *rank, int *size);
/* Rank 0 hands out chunks of runs on request, runs some itself between
 * requests and writes w; the other ranks run chunks and send rows back
 * (w NULL there). */
int sweep_mpi_run(const sweep_ctx *c, sweep_out *w, int rank, int size);
void sweep_mpi_abort(int code);
void sweep_mpi_end(void);

int cli_sweep(const cli_opts *o);

#endif
