/* cli_sweep.c - `lagrange sweep MODEL (--vary ... | --samples N --seed S
 * --dist ...)`: the model is loaded, derived and compiled once,
 * then one lg_simulate per run on a pool of threads (--jobs, default every
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

/* The library's remarks about --jit, each said once (every run makes
 * the same); a run's own (projected values, violated rows) stay in its
 * row's status, as they always did. */
typedef struct once_notes {
  pthread_mutex_t lock;
  lg_str seen;
} once_notes;

static void note_once(void *ud, const char *text) {
  once_notes *n = ud;
  if (!strstr(text, "`jit`")) return;
  pthread_mutex_lock(&n->lock);
  size_t len = strlen(text);
  const char *at = n->seen.s;
  int found = 0;
  while (at && *at && !found) {
    const char *end = strchr(at, '\n');
    found = (size_t)(end - at) == len && !strncmp(at, text, len);
    at = end + 1;
  }
  if (!found) {
    lg_str_printf(&n->seen, "%s\n", text);
    cli_print_note(NULL, text);
  }
  pthread_mutex_unlock(&n->lock);
}

static int sweep_loaded(const cli_opts *o, const lg_system *s) {
  sweep_spec sp;
  size_t jobs;
  lg_sim_options so;
  int rc = sweep_spec_parse(o, s, &sp);
  if (rc != CLI_EXIT_OK) return rc;
  if (!parse_jobs(o, &jobs) || (rc = cli_sim_options(o, s, &so)) != CLI_EXIT_OK) {
    sweep_spec_free(&sp);
    return rc != CLI_EXIT_OK ? rc : CLI_EXIT_USAGE;
  }
  lg_diag d;
  if (lg_sim_options_check(s, &so, &d) != LG_OK) {
    sweep_spec_free(&sp);
    if (!strcmp(d.file, "`stop_when`")) {
      snprintf(d.file, sizeof d.file, "--stop-when");
      char buf[1200];
      lg_diag_format(&d, buf, sizeof buf);
      fprintf(stderr, "lagrange sweep: %s\n  in --stop-when '%s'\n", buf, o->stop_when);
      return d.status == LG_ERR_NOMEM ? CLI_EXIT_MODEL : CLI_EXIT_USAGE;
    }
    cli_diag_as_flags(&d);
    return cli_report(&d, o->model);
  }
  if (o->plot) fprintf(stderr, "lagrange sweep: note: --plot is not drawn for a sweep\n");
  if (so.jit) so.jit = LG_JIT_WAIT; /* every run uses the same code */
  once_notes notes;
  pthread_mutex_init(&notes.lock, NULL);
  lg_str_init(&notes.seen);
  so.note = note_once;
  so.note_ud = &notes;
  sweep_ctx c = {o, s, &so, &sp};
  int rank, size;
  sweep_mpi_start(&rank, &size);
  if (rank == 0) rc = write_sweep(o, &c, jobs, size);
  else if (size > 1) sweep_mpi_run(&c, NULL, rank, size);
  sweep_mpi_end();
  lg_str_free(&notes.seen);
  pthread_mutex_destroy(&notes.lock);
  sweep_spec_free(&sp);
  return rc;
}

int cli_sweep(const cli_opts *o) {
  const char *const label = "--out";
  int rc = cli_check_outputs(o, &o->out, &label, 1);
  if (rc != CLI_EXIT_OK) return rc;
  lg_model *m;
  lg_system *s = NULL;
  if ((rc = cli_open_model(o, &m)) != CLI_EXIT_OK) return rc;
  rc = cli_derive(o, m, NULL, &s);
  lg_model_free(m);
  if (rc != CLI_EXIT_OK) return rc;
  if (lg_kane_own_state(s)) {
    int line, col;
    lg_coordinates_position(s, &line, &col);
    fprintf(stderr, "%s:%d:%d: sweep --method kane needs u = q' and no constraints (this model "
                    "has speeds or constraints); use --method lagrange\n", o->model,
            line > 0 ? line : 1, col > 0 ? col : 1);
    rc = CLI_EXIT_MODEL;
  } else {
    rc = sweep_loaded(o, s);
  }
  lg_system_free(s);
  return rc;
}
