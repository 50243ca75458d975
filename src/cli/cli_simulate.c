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
  FILE *csv, *plot;
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

static void row(FILE *f, const num_system *s, const num_sim_point *p) {
  char b[LG_DOUBLE_CHARS];
  fputs(lg_fmt_double(b, p->t), f);
  for (size_t i = 0; i < s->n; i++) fprintf(f, ",%s", lg_fmt_double(b, p->q[i]));
  for (size_t i = 0; i < s->n; i++) fprintf(f, ",%s", lg_fmt_double(b, p->qd[i]));
  fprintf(f, ",%s", lg_fmt_double(b, p->T));
  fprintf(f, ",%s", lg_fmt_double(b, p->V));
  fprintf(f, ",%s", lg_fmt_double(b, p->E));
  for (size_t r = 0; r < s->m; r++) fprintf(f, ",%s", lg_fmt_double(b, p->C[r]));
  fprintf(f, ",%s\n", lg_fmt_double(b, p->W));
}

static int on_output(void *ud, const num_sim_point *p) {
  sink *k = ud;
  if (ferror(k->csv)) return 1; /* a failed write stops the run; reported at the end */
  if (k->csv) row(k->csv, k->s, p);
  if (k->plot) row(k->plot, k->s, p);
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
  return cli_report(d, lm, o->model);
}

static int run_sim(const cli_opts *o, const cli_sim *S, double *q, double *qd) {
  const num_system *s = S->s;
  const num_sim_opts so = S->so;
  int rc = CLI_EXIT_OK;
  sink k = {.s = s, .tf = so.tf, .tty = isatty(2)};
  cli_sim_out out;
  if ((rc = cli_sim_out_open(o, &out)) != CLI_EXIT_OK) return rc;
  k.csv = out.csv;
  k.plot = out.plot;
  header(k.csv, s);
  k.start = wall_now();
  num_sim_stats st;
  lg_diag d;
  lg_diag_clear(&d);
  lg_status status = num_simulate(s, &so, q, qd, on_output, &k, &st, &d);
  summary(o, s, &so, &st, wall_now() - k.start, k.tty);
  if (status != LG_OK) rc = report_failure(o, S->lm, S->e, s, &st, &d);
  return cli_sim_out_finish(o, &out, s, rc);
}

static int integrate(const cli_opts *o, cli_sim *S) {
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
    rc = run_sim(o, S, q, qd);
  }
  lg_free(q);
  return rc;
}

/* Kane's equations in their own state [q; u]: the initial speeds come from
 * the initial q' through the kinematical equations. */
static int integrate_kane(const cli_opts *o, cli_sim *S) {
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
    return cli_report(&d, lm, o->model);
  int rc = CLI_EXIT_OK;
  double *u_init = lg_calloc(k->p + 1, sizeof *u_init);
  int have_u = u_init ? cli_initial_speeds(lm, k, u_init) : 0;
  if (num_kane_eval(lm->mech, k, o->set, o->nset, so.t0, lm->q0, lm->qd0, u_init, have_u, &r,
                    &d) !=
      LG_OK) {
    rc = cli_report(&d, lm, o->model);
  } else {
    double *q = lm->q0;
    sink snk = {.s = s, .tf = so.tf, .tty = isatty(2)};
    cli_sim_out out;
    if ((rc = cli_sim_out_open(o, &out)) == CLI_EXIT_OK) {
      snk.csv = out.csv;
      snk.plot = out.plot;
      header(snk.csv, s);
      snk.start = wall_now();
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
      rc = cli_sim_out_finish(o, &out, s, rc);
    }
    num_kane_result_free(&r);
  }
  lg_free(u_init);
  num_kane_system_free(ks);
  return rc;
}

int cli_simulate(const cli_opts *o) {
  cli_sim S;
  int rc = cli_sim_load(o, "simulate", &S);
  if (rc != CLI_EXIT_OK) return rc;
  rc = cli_sim_options(o, &S);
  if (rc == CLI_EXIT_OK) rc = S.k ? integrate_kane(o, &S) : integrate(o, &S);
  cli_sim_free(&S);
  return rc;
}
