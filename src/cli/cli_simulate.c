/* cli_simulate.c - `lagrange simulate`: CSV, summary, consistency, plot. */
#include "cli_sim.h"

#include "cg.h"

#include <math.h>
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

/* ---- output rows ---------------------------------------------------------------------- */
typedef struct sink {
  FILE *csv;
  cli_plot *plot;
  cli_sim_client *client;
  const num_system *s;
  double start, last_report, tf;
  int tty;
} sink;

static void header(FILE *f, const num_system *s) {
  fputs("t", f);
  for (size_t i = 0; i < s->n; i++) fprintf(f, ",%s", s->coord_names[i]);
  for (size_t i = 0; i < s->n; i++) fprintf(f, ",%s'", s->coord_names[i]);
  fputs(",T,V,E", f);
  for (size_t r = 0; r < s->m; r++) fprintf(f, ",C%zu", r + 1);
  fputs(",W\n", f);
}

/* ",x" without printf's format parsing (a tenth of a small model's run) */
static void field(FILE *f, double x) {
  char b[LG_DOUBLE_CHARS];
  putc(',', f);
  fputs(lg_fmt_double(b, x), f);
}

static void row(FILE *f, const num_system *s, const num_sim_point *p) {
  char b[LG_DOUBLE_CHARS];
  fputs(lg_fmt_double(b, p->t), f);
  for (size_t i = 0; i < s->n; i++) field(f, p->q[i]);
  for (size_t i = 0; i < s->n; i++) field(f, p->qd[i]);
  field(f, p->T);
  field(f, p->V);
  field(f, p->E);
  for (size_t r = 0; r < s->m; r++) field(f, p->C[r]);
  field(f, p->W);
  putc('\n', f);
}

static int on_output(void *ud, const num_sim_point *p) {
  sink *k = ud;
  if (k->csv && ferror(k->csv)) return 1; /* a failed write stops the run; reported at the end */
  if (k->csv) row(k->csv, k->s, p);
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
static void summary(const cli_opts *o, const num_system *s, const num_sim_opts *so,
                    const num_sim_stats *st, double wall, int tty) {
  char b[LG_DOUBLE_CHARS], how[200];
  if (tty) fputs("\r                                              \r", stderr);
  if (st->stopped) fprintf(stderr, "%s: stopped at t = %s (--stop-when)\n", o->model,
                           lg_fmt_double(b, st->t_end));
  fprintf(stderr, "%s: simulated to t = %.10g with %s: %ld steps, %ld RHS evaluations, "
                  "%.6f s wall\n", o->model, st->t_end, num_integrator_name(st->integrator),
          st->steps, st->rhs_evals, wall);
  if (so->aux) num_aux_describe(so->aux, how, sizeof how);
  else snprintf(how, sizeof how, "W = 0");
  fprintf(stderr, "%s: max |E - W| drift = %.3g", o->model, st->max_energy_drift);
  if (st->energy_scale > 0)
    fprintf(stderr, " (%.3g relative)", st->max_energy_drift / st->energy_scale);
  fprintf(stderr, ", %s", how);
  if (s->m) fprintf(stderr, ", max constraint residual = %.3g", st->max_residual);
  fputc('\n', stderr);
}

/* A failed run: the diagnostic at the model line that matters (the
 * constraint row, or the coordinates line naming the coordinate). */
static int report_failure(const cli_opts *o, const lang_model *lm, const mech_eom *e,
                          const num_system *s, const num_sim_stats *st, lg_diag *d) {
  size_t len = strlen(d->message);
  if (st->fail_row >= 0 && (size_t)st->fail_row < e->m) {
    d->line = e->row_line[st->fail_row];
    d->col = e->row_col[st->fail_row];
    snprintf(d->message + len, sizeof d->message - len, " (at constraint C%d)",
             st->fail_row + 1);
  } else if (st->fail_coord >= 0 && (size_t)st->fail_coord < s->n) {
    d->line = lm->coord_line;
    d->col = lm->coord_col;
    char named[300];
    snprintf(named, sizeof named, "coordinate %s", s->coord_names[st->fail_coord]);
    if (!strstr(d->message, named))
      snprintf(d->message + len, sizeof d->message - len, " (coordinate %s)",
               s->coord_names[st->fail_coord]);
  }
  return cli_report_lm(d, lm, o->model);
}

/* The CSV, the plot and the client, ready for rows. */
static int open_outputs(const cli_opts *o, lang_model *lm, const num_system *s,
                        const num_sim_opts *so, cli_sim_client *client, sink *k,
                        cli_sim_out *out) {
  *k = (sink){.s = s, .tf = so->tf, .tty = isatty(2), .client = client};
  int rc = cli_sim_out_open(o, lm, s, out);
  if (rc != CLI_EXIT_OK) return rc;
  if (client && (rc = client->start(client, o, lm, s, so->t0, so->tf)) != CLI_EXIT_OK) {
    cli_sim_out_finish(o, out, lm, rc);
    return rc;
  }
  k->csv = out->csv;
  k->plot = out->plot;
  if (k->csv) header(k->csv, s);
  k->start = wall_now();
  return CLI_EXIT_OK;
}

/* After the run: the plot and CSV, then the client. */
static int close_outputs(const cli_opts *o, lang_model *lm, cli_sim_client *client,
                         cli_sim_out *out, int rc) {
  rc = cli_sim_out_finish(o, out, lm, rc);
  return client ? client->finish(client, rc) : rc;
}

/* Where --jit's compiled code took over, or why it did not. */
static void jit_note(const cli_opts *o, cli_sim *S, const num_sim_stats *st) {
  if (!o->jit || !S->so.jit_poll) return; /* off, loaded from the cache, or not applicable */
  char b[LG_DOUBLE_CHARS];
  if (st->jit)
    fprintf(stderr, "%s: --jit: the compiled right-hand side took over at t = %s (compiled "
                    "in the background)\n", o->model, lg_fmt_double(b, st->jit_t));
  else if (S->so.jit_poll(S) == NULL && !S->jit_warned)
    fprintf(stderr, "%s: note: --jit: the run ended before the compiler, which ends with it; "
                    "the run used the tape (--jit=wait compiles first and caches the code for "
                    "the next runs)\n", o->model);
}

static int run_sim(const cli_opts *o, cli_sim *S, double *q, double *qd,
                   cli_sim_client *client) {
  const num_system *s = S->s;
  const num_sim_opts so = S->so;
  int rc = CLI_EXIT_OK;
  sink k;
  cli_sim_out out;
  if ((rc = open_outputs(o, S->lm, s, &so, client, &k, &out)) != CLI_EXIT_OK) return rc;
  num_sim_stats st;
  lg_diag d;
  lg_diag_clear(&d);
  lg_status status = num_simulate(s, &so, q, qd, on_output, &k, &st, &d);
  summary(o, s, &so, &st, wall_now() - k.start, k.tty);
  jit_note(o, S, &st);
  if (status != LG_OK) rc = report_failure(o, S->lm, S->e, s, &st, &d);
  return close_outputs(o, S->lm, client, &out, rc);
}

static int integrate(const cli_opts *o, cli_sim *S, cli_sim_client *client) {
  size_t n = S->s->n;
  double *q = lg_malloc((2 * n + 1) * sizeof *q), *qd = q ? q + n : NULL;
  if (!q) return CLI_EXIT_MODEL;
  memcpy(q, S->lm->q0, n * sizeof *q);
  memcpy(qd, S->lm->qd0, n * sizeof *qd);
  lg_str msg;
  lg_str_init(&msg);
  int rc = cli_sim_check_initial(o, S, S->s, q, qd, 1, &msg);
  if (msg.s) fputs(msg.s, stderr);
  lg_str_free(&msg);
  if (rc == CLI_EXIT_OK) {
    cli_sim_accelerate(o, S);
    rc = run_sim(o, S, q, qd, client);
  }
  lg_free(q);
  return rc;
}

/* Kane's equations in their own state [q; u]: the initial speeds come from
 * the initial q' through the kinematical equations. */
static int integrate_kane(const cli_opts *o, cli_sim *S, cli_sim_client *client) {
  lang_model *lm = S->lm;
  const mech_kane *k = S->k;
  const num_system *s = S->s;
  num_sim_opts so = S->so;
  cli_sim_accelerate(o, S);
  lg_diag d;
  lg_diag_clear(&d);
  num_kane_system *ks;
  num_kane_result r;
  if (num_kane_system_build(lm->mech, k, S->e, o->set, o->nset, &ks, &d) != LG_OK)
    return cli_report_lm(&d, lm, o->model);
  int rc = CLI_EXIT_OK;
  double *u_init = lg_calloc(k->p + 1, sizeof *u_init);
  int have_u = u_init ? cli_initial_speeds(lm, k, u_init) : 0;
  if (num_kane_eval(lm->mech, k, o->set, o->nset, so.t0, lm->q0, lm->qd0, u_init, have_u, &r,
                    &d) !=
      LG_OK) {
    rc = cli_report_lm(&d, lm, o->model);
  } else {
    double *q = lm->q0;
    sink snk;
    cli_sim_out out;
    if ((rc = open_outputs(o, lm, s, &so, client, &snk, &out)) == CLI_EXIT_OK) {
      num_sim_stats st;
      lg_diag_clear(&d);
      double *u0 = lg_calloc(ks->p + 1, sizeof *u0); /* Kane's speeds over time */
      lg_status status = LG_ERR_NOMEM;
      if (u0) {
        num_kane_initial_speeds(k, &r, u0);
        status = num_simulate_kane(ks, &so, q, u0, on_output, &snk, &st, &d);
      } else {
        lg_diag_set(&d, LG_ERR_NOMEM, NULL, 0, 0, "out of memory");
      }
      lg_free(u0);
      summary(o, s, &so, &st, wall_now() - snk.start, snk.tty);
      if (status != LG_OK) rc = report_failure(o, lm, S->e, s, &st, &d);
      rc = close_outputs(o, lm, client, &out, rc);
    }
    num_kane_result_free(&r);
  }
  lg_free(u_init);
  num_kane_system_free(ks);
  return rc;
}

int cli_simulate(const cli_opts *o) { return cli_simulate_with(o, NULL); }

int cli_simulate_with(const cli_opts *o, cli_sim_client *client) {
  const char *const outs[] = {o->no_csv ? NULL : o->out, o->plot};
  const char *const labels[] = {"--out", "--plot"};
  int rc = cli_check_outputs(o, outs, labels, 2);
  if (rc != CLI_EXIT_OK) return rc;
  cli_sim S;
  rc = cli_sim_load(o, "simulate", &S);
  if (rc != CLI_EXIT_OK) return rc;
  rc = cli_sim_options(o, &S);
  if (rc == CLI_EXIT_OK) rc = S.k ? integrate_kane(o, &S, client) : integrate(o, &S, client);
  cli_sim_free(&S);
  return rc;
}
