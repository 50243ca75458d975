/* cli_simulate.c - `lagrange simulate`: a client of lg_simulate. The
 * command parses its options into lg_sim_options, prints the library's
 * notes, writes the CSV and the plot from lg_sim_point, and prints the
 * summary from lg_sim_stats. */
#include "cli.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- options ---------------------------------------------------------------------- */
/* The integrators by name (docs/REFERENCE.md: "Simulation"). */
static const struct { const char *name; lg_integrator i; } INTEGRATORS[] = {
    {"erk", LG_INT_ERK},       {"dopri", LG_INT_DOPRI},   {"rk45", LG_INT_DOPRI},
    {"verner", LG_INT_VERNER}, {"fehlberg", LG_INT_FEHLBERG},
    {"bdf", LG_INT_BDF},       {"cvode", LG_INT_BDF},     {"ida", LG_INT_IDA},
    {"adams", LG_INT_ADAMS}};

static int pick_integrator(const cli_opts *o, lg_sim_options *so) {
  const char *name = o->integrator;
  so->integrator = LG_INT_AUTO;
  if (!name) return 1;
  for (size_t i = 0; i < sizeof INTEGRATORS / sizeof *INTEGRATORS; i++)
    if (!strcmp(name, INTEGRATORS[i].name)) {
      so->integrator = INTEGRATORS[i].i;
      return 1;
    }
  fprintf(stderr, "lagrange %s: unknown integrator '%s' (use adams, erk, dopri, "
                  "verner, fehlberg, bdf or ida)\n", o->command, name);
  return 0;
}

static int pick_stabilization(const cli_opts *o, lg_sim_options *so) {
  const char *s = o->stabilize;
  so->stabilize = s ? LG_STAB_PROJECT : LG_STAB_AUTO;
  if (!s || !strcmp(s, "project")) return 1;
  if (!strcmp(s, "none")) {
    so->stabilize = LG_STAB_NONE;
    return 1;
  }
  if (sscanf(s, "baumgarte:%lf,%lf", &so->alpha, &so->beta) == 2) {
    so->stabilize = LG_STAB_BAUMGARTE;
    return 1;
  }
  fprintf(stderr, "lagrange %s: --stabilize is project, none or "
                  "baumgarte:ALPHA,BETA, not '%s'\n", o->command, s);
  return 0;
}

int cli_sim_options(const cli_opts *o, const lg_system *s, lg_sim_options *so) {
  lg_sim_options_default(s, so);
  if (o->has_t0) so->t0 = o->t0;
  if (o->has_tf) so->tf = o->tf;
  if (o->has_dt) so->dt = o->dt;
  so->rtol = o->rtol;
  so->atol = o->atol;
  so->max_steps = o->max_steps;
  so->project = o->project;
  so->stop_when = o->stop_when;
  so->jit = o->jit == CLI_JIT_WAIT ? LG_JIT_WAIT : o->jit ? LG_JIT_BACKGROUND : LG_JIT_OFF;
  if (!(so->tf > so->t0) || !(so->dt > 0) || !(so->rtol > 0) || !(so->atol > 0)) {
    fprintf(stderr, "lagrange %s: need t0 < tf, dt > 0 and positive tolerances "
                    "(got t0=%g tf=%g dt=%g)\n", o->command, so->t0, so->tf, so->dt);
    return CLI_EXIT_USAGE;
  }
  if (!cli_check_rows(o, so->t0, so->tf, so->dt) || !pick_integrator(o, so) ||
      !pick_stabilization(o, so))
    return CLI_EXIT_USAGE;
  so->max_rows = SIZE_MAX; /* cli_check_rows said it in the command's words */
  if (!lg_kane_own_state(s) && lg_nc(s) && so->stabilize != LG_STAB_BAUMGARTE &&
      so->stabilize != LG_STAB_NONE && so->integrator == LG_INT_ADAMS) {
    fprintf(stderr, "lagrange %s: --integrator adams cannot project the motion onto the "
                    "constraints (CVODE projects only inside BDF steps): use --stabilize "
                    "baumgarte:ALPHA,BETA or none, or --integrator ida, bdf or dopri\n",
            o->command);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* --outputs read into cols[lg_noutputs] (every output without it); an
 * unknown name is a usage error naming it and the model's outputs. */
int cli_output_columns(const cli_opts *o, const lg_system *s, size_t *cols, size_t *ncols) {
  lg_diag d;
  lg_diag_clear(&d);
  if (lg_output_select(s, o->outputs, cols, lg_noutputs(s), ncols, &d) == LG_OK)
    return CLI_EXIT_OK;
  cli_diag_as_flags(&d);
  fprintf(stderr, "lagrange %s: %s%s%s%s\n", o->command, d.message, d.hint[0] ? " (" : "",
          d.hint, d.hint[0] ? ")" : "");
  return d.status == LG_ERR_NOMEM ? CLI_EXIT_MODEL : CLI_EXIT_USAGE;
}

void cli_print_note(void *ud, const char *text) {
  (void)ud;
  lg_diag d;
  lg_diag_clear(&d);
  snprintf(d.message, sizeof d.message, "%s", text);
  cli_diag_as_flags(&d);
  fprintf(stderr, "%s\n", d.message);
}

/* ---- output rows ---------------------------------------------------------------------- */
typedef struct sink {
  const cli_opts *o;
  const lg_system *s;
  cli_sim_client *client;
  cli_sim_out out;
  FILE *csv;
  cli_plot *plot;
  size_t n, m;
  const size_t *cols;       /* the output columns of the CSV (lg_output_select) */
  size_t ncols;
  double start, last_report, t0, tf;
  int tty, opened, rc;
} sink;

static void header(FILE *f, const lg_system *s, const size_t *cols, size_t ncols) {
  size_t n = lg_nq(s), m = lg_nc(s);
  fputs("t", f);
  for (size_t i = 0; i < n; i++) fprintf(f, ",%s", lg_coordinate_name(s, i));
  for (size_t i = 0; i < n; i++) fprintf(f, ",%s'", lg_coordinate_name(s, i));
  fputs(",T,V,E", f);
  for (size_t r = 0; r < m; r++) fprintf(f, ",C%zu", r + 1);
  fputs(",W", f);
  for (size_t r = 0; r < m; r++) fprintf(f, ",lam%zu", r + 1);
  for (size_t k = 0; k < lg_ncontact_columns(s); k++) fprintf(f, ",%s", lg_contact_column(s, k));
  for (size_t k = 0; k < ncols; k++) fprintf(f, ",%s", lg_output_name(s, cols[k]));
  putc('\n', f);
}

/* ",x" without printf's format parsing (a tenth of a small model's run) */
static void field(FILE *f, double x) {
  char b[LG_DOUBLE_CHARS];
  putc(',', f);
  fputs(lg_fmt_double(b, x), f);
}

static void row(FILE *f, size_t n, size_t m, const lg_sim_point *p) {
  char b[LG_DOUBLE_CHARS];
  fputs(lg_fmt_double(b, p->t), f);
  for (size_t i = 0; i < n; i++) field(f, p->q[i]);
  for (size_t i = 0; i < n; i++) field(f, p->qd[i]);
  field(f, p->T);
  field(f, p->V);
  field(f, p->E);
  for (size_t r = 0; r < m; r++) field(f, p->C[r]);
  field(f, p->W);
  for (size_t r = 0; p->lam && r < m; r++) field(f, p->lam[r]);
  for (size_t k = 0; k < p->ncontact; k++) field(f, p->contact[k]);
  for (size_t k = 0; p->outputs && k < p->noutputs; k++) field(f, p->outputs[k]);
  putc('\n', f);
}

/* The CSV, the plot and the client, opened at the first row (a run
 * refused before it leaves no file). */
static int open_outputs(sink *k) {
  const cli_opts *o = k->o;
  k->opened = 1;
  int rc = cli_sim_out_open(o, k->s, &k->out);
  if (rc != CLI_EXIT_OK) return rc;
  if (k->client &&
      (rc = k->client->start(k->client, o, k->s, k->t0, k->tf)) != CLI_EXIT_OK) {
    cli_sim_out_finish(o, &k->out, rc);
    k->client = NULL;
    return rc;
  }
  k->csv = k->out.csv;
  k->plot = k->out.plot;
  if (k->csv) header(k->csv, k->s, k->cols, k->ncols);
  k->start = wall_now();
  return CLI_EXIT_OK;
}

static int on_output(void *ud, const lg_sim_point *p) {
  sink *k = ud;
  if (!k->opened && (k->rc = open_outputs(k)) != CLI_EXIT_OK) return 1;
  if (k->csv && ferror(k->csv)) return 1; /* a failed write stops the run; reported at the end */
  if (k->csv) row(k->csv, k->n, k->m, p);
  if (k->plot) cli_plot_row(k->plot, p);
  if (k->client && k->client->row(k->client, p)) return 1;
  double now = wall_now();
  if (k->tty && now - k->start > 1 && now - k->last_report > 0.2) {
    fprintf(stderr, "\rsimulating: t = %-12.6g (%3.0f%%)", p->t, 100 * p->t / k->tf);
    k->last_report = now;
  }
  return 0;
}

/* ---- the command ------------------------------------------------------------------------------ */
static void summary(const cli_opts *o, const lg_system *s, const lg_sim_stats *st, int tty) {
  char b[LG_DOUBLE_CHARS];
  if (tty) fputs("\r                                              \r", stderr);
  if (st->events && (st->impacts || st->liftoffs))
    fprintf(stderr, "%s: %ld event%s (%ld impact%s, %ld lift-off%s, %ld friction switch%s; "
                    "the energy impacts and resets changed, in W: %.6g)\n", o->model,
            st->events, st->events == 1 ? "" : "s", st->impacts, st->impacts == 1 ? "" : "s",
            st->liftoffs, st->liftoffs == 1 ? "" : "s", st->friction_switches,
            st->friction_switches == 1 ? "" : "es", st->event_work);
  else if (st->events && st->friction_switches)
    fprintf(stderr, "%s: %ld event%s (%ld friction switch%s between stick and slip; the "
                    "energy resets changed, in W: %.6g)\n", o->model, st->events,
            st->events == 1 ? "" : "s", st->friction_switches,
            st->friction_switches == 1 ? "" : "es", st->event_work);
  else if (st->events)
    fprintf(stderr, "%s: %ld event%s (the energy resets changed, in W: %.6g)\n", o->model,
            st->events, st->events == 1 ? "" : "s", st->event_work);
  if (st->stopped) fprintf(stderr, "%s: stopped at t = %s (%s)\n", o->model,
                           lg_fmt_double(b, st->t_end),
                           o->stop_when ? "--stop-when" : "a `when` statement");
  fprintf(stderr, "%s: simulated to t = %.10g with %s: %ld steps, %ld RHS evaluations, "
                  "%.6f s wall\n", o->model, st->t_end, st->integrator, st->steps,
          st->rhs_evals, st->wall);
  fprintf(stderr, "%s: max |E - W| drift = %.3g", o->model, st->max_energy_drift);
  if (st->energy_scale > 0)
    fprintf(stderr, " (%.3g relative)", st->max_energy_drift / st->energy_scale);
  fprintf(stderr, ", %s", st->energy);
  if (lg_nc(s)) fprintf(stderr, ", max constraint residual = %.3g", st->max_residual);
  fputc('\n', stderr);
  /* where --jit's compiled code took over, or why it did not */
  if (st->jit_background && st->jit)
    fprintf(stderr, "%s: --jit: the compiled right-hand side took over at t = %s (compiled "
                    "in the background)\n", o->model, lg_fmt_double(b, st->jit_t));
  else if (st->jit_background)
    fprintf(stderr, "%s: note: --jit: the run ended before the compiler, which ends with it; "
                    "the run used the tape (--jit=wait compiles first and caches the code for "
                    "the next runs)\n", o->model);
}

/* A refused run: --stop-when's text at its column, or the library's
 * diagnostic (already said line by line for an inconsistent start). */
static int report(const cli_opts *o, lg_diag *d, const lg_sim_stats *st) {
  if (!strcmp(d->file, "`stop_when`")) {
    snprintf(d->file, sizeof d->file, "--stop-when");
    char buf[1200];
    lg_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "lagrange %s: %s\n  in --stop-when '%s'\n", o->command, buf, o->stop_when);
    return d->status == LG_ERR_NOMEM ? CLI_EXIT_MODEL : CLI_EXIT_USAGE;
  }
  if (st->noted) return CLI_EXIT_MODEL;
  cli_diag_as_flags(d);
  return cli_report(d, o->model);
}

static int finish(const cli_opts *o, const lg_system *s, sink *k, lg_status status,
                  const lg_sim_stats *st, lg_diag *d) {
  int rc;
  if (k->opened && k->rc != CLI_EXIT_OK) return k->rc; /* an output could not start */
  if (!st->integrator[0]) return report(o, d, st); /* refused before the run */
  if (!k->opened && (rc = open_outputs(k)) != CLI_EXIT_OK) return rc;
  summary(o, s, st, k->tty);
  rc = status == LG_OK ? CLI_EXIT_OK : report(o, d, st);
  rc = cli_sim_out_finish(o, &k->out, rc);
  return k->client ? k->client->finish(k->client, rc) : rc;
}

static int run(const cli_opts *o, const lg_system *s, cli_sim_client *client) {
  lg_sim_options so;
  int rc = cli_sim_options(o, s, &so);
  if (rc != CLI_EXIT_OK) return rc;
  so.note = cli_print_note;
  /* the CSV's multipliers and outputs (--outputs chooses among these) */
  size_t *cols = lg_calloc(lg_noutputs(s) + 1, sizeof *cols), ncols = 0;
  if (!cols) return CLI_EXIT_MODEL;
  if ((rc = cli_output_columns(o, s, cols, &ncols)) != CLI_EXIT_OK) {
    lg_free(cols);
    return rc;
  }
  so.multipliers = so.outputs = !o->no_csv || o->plot;
  so.output_names = o->outputs;
  sink k = {.o = o, .s = s, .client = client, .n = lg_nq(s), .m = lg_nc(s), .t0 = so.t0,
            .tf = so.tf, .tty = isatty(2), .cols = cols, .ncols = ncols};
  lg_sim_stats st;
  lg_diag d;
  /* a parameter without a value that the equations use: at its declaration */
  if (lg_check_params(s, NULL, &d) != LG_OK) {
    lg_free(cols);
    return cli_report(&d, o->model);
  }
  lg_status status = lg_simulate(s, &so, NULL, NULL, NULL, on_output, &k, &st, &d);
  rc = finish(o, s, &k, status, &st, &d);
  lg_free(cols);
  return rc;
}

int cli_simulate(const cli_opts *o) { return cli_simulate_with(o, NULL); }

int cli_simulate_with(const cli_opts *o, cli_sim_client *client) {
  const char *const outs[] = {o->no_csv ? NULL : o->out, o->plot};
  const char *const labels[] = {"--out", "--plot"};
  int rc = cli_check_outputs(o, outs, labels, 2);
  if (rc != CLI_EXIT_OK) return rc;
  lg_model *m;
  lg_system *s = NULL;
  if ((rc = cli_open_model(o, &m)) != CLI_EXIT_OK) return rc;
  rc = cli_derive(o, m, NULL, &s);
  lg_model_free(m);
  if (rc == CLI_EXIT_OK) rc = run(o, s, client);
  lg_system_free(s);
  return rc;
}
