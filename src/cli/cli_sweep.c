/* cli_sweep.c - `lagrange sweep MODEL (--vary ... | --samples N --seed S
 * --dist ...)`: the model is loaded, derived and compiled once (cli_sim),
 * then one simulation per run on a pool of threads (--jobs, default every
 * core) or over the ranks of mpirun; one CSV row per run, in run order,
 * through an atomic output file (no partial FILE on SIGINT or failure). */
#include "cli_sweep.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int parse_jobs(const cli_opts *o, size_t *jobs) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  *jobs = cores > 0 ? (size_t)cores : 1;
  if (!o->jobs) return 1;
  double j;
  if (!cli_parse_number(o->jobs, strlen(o->jobs), &j) || j != (double)(long)j || j < 1 ||
      j > 1024) {
    fprintf(stderr, "lagrange sweep: --jobs needs a whole number of threads from 1 to 1024, "
                    "not '%s'\n", o->jobs);
    return 0;
  }
  *jobs = (size_t)j;
  if (cores > 0 && *jobs > (size_t)cores) { /* more threads than cores only add contention */
    fprintf(stderr, "lagrange sweep: note: --jobs %s is more than the %ld cores; using %ld "
                    "threads\n", o->jobs, cores, cores);
    *jobs = (size_t)cores;
  }
  return 1;
}

/* The runs into w: the ranks of mpirun, else the threads. */
static void run_all(const sweep_ctx *c, sweep_out *w, size_t jobs, int rank, int size) {
  if (size > 1) {
    sweep_mpi_run(c, w, rank, size);
    return;
  }
  sweep_pool(c, w, jobs);
}

static void summary(const cli_opts *o, const sweep_out *w, double wall, size_t jobs, int size) {
  fprintf(stderr, "%s: %zu runs, %zu failed, %.3f s wall (%zu %s)\n", o->model, w->runs,
          w->failed, wall, size > 1 ? (size_t)size : jobs,
          size > 1 ? "MPI ranks" : jobs == 1 ? "thread" : "threads");
}

/* Rank 0 (or the only process): the file, the header, every row. */
static int write_sweep(const cli_opts *o, const sweep_ctx *c, size_t jobs, int size) {
  lg_out out;
  memset(&out, 0, sizeof out);
  lg_diag d;
  lg_diag_clear(&d);
  if (o->out && lg_out_open(&out, o->out, &d) != LG_OK) {
    cli_report_io(&d);
    sweep_mpi_abort(1);
    return CLI_EXIT_MODEL;
  }
  FILE *f = o->out ? out.f : stdout;
  sweep_out w;
  lg_str head;
  lg_str_init(&head);
  sweep_header(c, &head);
  if (!sweep_out_init(&w, f, c->sp->runs) || head.oom) {
    fprintf(stderr, "lagrange sweep: out of memory\n");
    lg_out_abort(&out);
    lg_str_free(&head);
    sweep_mpi_abort(1);
    return CLI_EXIT_MODEL;
  }
  fputs(head.s, f);
  lg_str_free(&head);
  run_all(c, &w, jobs, 0, size);
  summary(o, &w, sweep_now() - w.start, jobs, size);
  sweep_out_free(&w);
  if (!o->out) return CLI_EXIT_OK;
  return lg_out_commit(&out, &d) == LG_OK ? CLI_EXIT_OK : cli_report_io(&d);
}

static int sweep_loaded(const cli_opts *o, cli_sim *S) {
  sweep_spec sp;
  size_t jobs;
  int rc = sweep_spec_parse(o, S->s, &sp);
  if (rc != CLI_EXIT_OK) return rc;
  if (!parse_jobs(o, &jobs) || (rc = cli_sim_options(o, S)) != CLI_EXIT_OK) {
    sweep_spec_free(&sp);
    return rc != CLI_EXIT_OK ? rc : CLI_EXIT_USAGE;
  }
  if (o->plot) fprintf(stderr, "lagrange sweep: note: --plot is not drawn for a sweep\n");
  cli_sim_accelerate(o, S);
  pthread_mutex_t lock;
  pthread_mutex_init(&lock, NULL);
  sweep_ctx c = {o, S, &sp, &lock};
  int rank, size;
  sweep_mpi_start(&rank, &size);
  if (rank == 0) rc = write_sweep(o, &c, jobs, size);
  else if (size > 1) sweep_mpi_run(&c, NULL, rank, size);
  sweep_mpi_end();
  pthread_mutex_destroy(&lock);
  sweep_spec_free(&sp);
  return rc;
}

int cli_sweep(const cli_opts *o) {
  const char *const label = "--out";
  int rc = cli_check_outputs(o, &o->out, &label, 1);
  if (rc != CLI_EXIT_OK) return rc;
  cli_sim S;
  rc = cli_sim_load(o, "sweep", &S);
  if (rc != CLI_EXIT_OK) return rc;
  if (S.k) {
    fprintf(stderr, "%s:%d:%d: sweep --method kane needs u = q' and no constraints (this model "
                    "has speeds or constraints); use --method lagrange\n", o->model,
            S.lm->coord_line > 0 ? S.lm->coord_line : 1,
            S.lm->coord_col > 0 ? S.lm->coord_col : 1);
    rc = CLI_EXIT_MODEL;
  } else {
    rc = sweep_loaded(o, &S);
  }
  cli_sim_free(&S);
  return rc;
}
