/* cli_simulate.c - `lagrange simulate`: CSV, summary, consistency, plot. */
#include "cli.h"

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

/* The default for constrained models: IDA on the index-2 GGL form keeps
 * both constraint levels without projection and copes with stiffness. */
#define DEFAULT_CONSTRAINED NUM_INT_IDA

/* ---- options ---------------------------------------------------------------------- */
/* The integrators by name (README: "Integrators"). */
static const struct { const char *name; num_integrator i; } INTEGRATORS[] = {
    {"erk", NUM_INT_ERK},       {"dopri", NUM_INT_DOPRI},   {"rk45", NUM_INT_DOPRI},
    {"verner", NUM_INT_VERNER}, {"fehlberg", NUM_INT_FEHLBERG},
    {"bdf", NUM_INT_BDF},       {"cvode", NUM_INT_BDF},     {"ida", NUM_INT_IDA}};

/* Default: DEFAULT_CONSTRAINED for constrained models unless a
 * stabilization of the ODE is asked for; the explicit Runge-Kutta pair
 * chosen by the tolerance else. */
static int pick_integrator(const cli_opts *o, const num_system *s, num_sim_opts *so) {
  const char *name = o->integrator;
  so->integrator = !name && s->m && !o->stabilize ? DEFAULT_CONSTRAINED : NUM_INT_ERK;
  if (!name) return 1;
  for (size_t i = 0; i < sizeof INTEGRATORS / sizeof *INTEGRATORS; i++)
    if (!strcmp(name, INTEGRATORS[i].name)) {
      so->integrator = INTEGRATORS[i].i;
      return 1;
    }
  fprintf(stderr, "lagrange simulate: unknown integrator '%s' (use erk, dopri, verner, "
                  "fehlberg, bdf or ida)\n", name);
  return 0;
}

static int pick_stabilization(const cli_opts *o, num_sim_opts *so) {
  const char *s = o->stabilize;
  so->stabilize = NUM_STAB_PROJECT;
  if (!s || !strcmp(s, "project")) return 1;
  if (!strcmp(s, "none")) {
    so->stabilize = NUM_STAB_NONE;
    return 1;
  }
  if (sscanf(s, "baumgarte:%lf,%lf", &so->alpha, &so->beta) == 2) {
    so->stabilize = NUM_STAB_BAUMGARTE;
    return 1;
  }
  fprintf(stderr, "lagrange simulate: --stabilize is project, none or "
                  "baumgarte:ALPHA,BETA, not '%s'\n", s);
  return 0;
}

static int sim_options(const cli_opts *o, const lang_model *lm, const num_system *s,
                       num_sim_opts *so) {
  memset(so, 0, sizeof *so);
  so->t0 = o->has_t0 ? o->t0 : lm->t0;
  so->tf = o->has_tf ? o->tf : lm->tf;
  so->dt = o->has_dt ? o->dt : lm->dt;
  so->rtol = o->rtol;
  so->atol = o->atol;
  if (!(so->tf > so->t0) || !(so->dt > 0) || !(so->rtol > 0) || !(so->atol > 0)) {
    fprintf(stderr, "lagrange simulate: need t0 < tf, dt > 0 and positive tolerances "
                    "(got t0=%g tf=%g dt=%g)\n", so->t0, so->tf, so->dt);
    return 0;
  }
  return cli_check_rows(o, so->t0, so->tf, so->dt) && pick_integrator(o, s, so) &&
         pick_stabilization(o, so);
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

/* ---- consistency of the initial state ------------------------------------------------- */
static const double CONSISTENT_TOL = 1e-9;

/* Refuse (report every violated row) or project the initial state. */
static int check_initial(const cli_opts *o, const lang_model *lm, const mech_eom *e,
                         const num_system *s, double t0, double *q, double *qd) {
  size_t m = s->m, n = s->n;
  if (!m) return CLI_EXIT_OK;
  num_work w;
  if (num_work_init(s, &w) != LG_OK) return CLI_EXIT_MODEL;
  double *C = lg_malloc((2 * m + 2 * n) * sizeof *C);
  if (!C) {
    num_work_free(&w);
    return CLI_EXIT_MODEL;
  }
  double *Cd = C + m, *q_old = Cd + m, *qd_old = q_old + n;
  memcpy(q_old, q, n * sizeof *q_old);
  memcpy(qd_old, qd, n * sizeof *qd_old);
  int rc = CLI_EXIT_OK;
  if (o->project) {
    lg_diag d;
    lg_diag_clear(&d);
    if (num_project(s, &w, t0, q, qd, 1e-12, &d) != LG_OK) rc = cli_report(&d, lm, o->model);
    for (size_t i = 0; rc == CLI_EXIT_OK && i < n; i++) {
      if (q[i] != q_old[i])
      {
        char b1[LG_DOUBLE_CHARS], b2[LG_DOUBLE_CHARS];
        fprintf(stderr, "%s: projected %s: %s -> %s\n", o->model, s->coord_names[i],
                lg_fmt_double(b1, q_old[i]), lg_fmt_double(b2, q[i]));
      }
      if (qd[i] != qd_old[i])
      {
        char b1[LG_DOUBLE_CHARS], b2[LG_DOUBLE_CHARS];
        fprintf(stderr, "%s: projected %s': %s -> %s\n", o->model, s->coord_names[i],
                lg_fmt_double(b1, qd_old[i]), lg_fmt_double(b2, qd[i]));
      }
    }
  }
  int *bad = lg_calloc(m, sizeof *bad); /* the library's test (num_forms.c) */
  if (!bad) rc = CLI_EXIT_MODEL;
  if (rc == CLI_EXIT_OK && num_check_consistent(s, &w, t0, q, qd, CONSISTENT_TOL, C, Cd, bad)) {
    for (size_t r = 0; r < m; r++) {
      int pos_bad = bad[r] & 1, vel_bad = bad[r] & 2;
      if (pos_bad)
        fprintf(stderr, "%s:%d:%d: the initial state violates constraint C%zu: C%zu = %.6g "
                        "(use --project to move it onto the constraints)\n",
                o->model, e->row_line[r], e->row_col[r], r + 1, r + 1, C[r]);
      if (vel_bad)
        fprintf(stderr, "%s:%d:%d: the initial velocities violate constraint C%zu: "
                        "its velocity form is %.6g (use --project to move them onto it)\n",
                o->model, e->row_line[r], e->row_col[r], r + 1, Cd[r]);
      if (pos_bad || vel_bad) rc = CLI_EXIT_MODEL;
    }
  }
  lg_free(bad);
  lg_free(C);
  num_work_free(&w);
  return rc;
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

/* --jit: the compiled right-hand side (cached, see cg_jit.c) where the
 * integrator calls one: the ODE integrators without Baumgarte terms. */
static void use_jit(const cli_opts *o, lang_model *lm, const mech_eom *e, num_sim_opts *so,
                    cg_jit *jit) {
  if (so->integrator == NUM_INT_IDA || so->stabilize == NUM_STAB_BAUMGARTE) {
    fprintf(stderr, "%s: note: --jit compiles the right-hand side of dopri and bdf (without "
                    "Baumgarte terms); this run evaluates the tape\n", o->model);
    return;
  }
  lg_diag d;
  lg_diag_clear(&d);
  cg_request r = {"lg_jit", o->model, lm->mech, e, NULL, o->set, o->nset, NULL, 1};
  if (cg_jit_compile(&r, jit, &d) != LG_OK)
    fprintf(stderr, "%s: warning: --jit: %s%s%s%s; using the evaluation tape instead\n",
            o->model, d.message, d.hint[0] ? " (" : "", d.hint, d.hint[0] ? ")" : "");
  so->jit_rhs = jit->rhs;
}

static int run_sim(const cli_opts *o, lang_model *lm, const mech_eom *e,
                   const num_system *s, num_sim_opts *so_in, double *q, double *qd,
                   cli_sim_client *client);

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

static int integrate(const cli_opts *o, lang_model *lm, const mech_eom *e,
                     const num_system *s, const num_aux *aux, cli_sim_client *client) {
  num_sim_opts so;
  if (!sim_options(o, lm, s, &so)) return CLI_EXIT_USAGE;
  so.aux = aux;
  size_t n = s->n;
  double *q = lg_malloc((2 * n + 1) * sizeof *q), *qd = q ? q + n : NULL;
  if (!q) return CLI_EXIT_MODEL;
  memcpy(q, lm->q0, n * sizeof *q);
  memcpy(qd, lm->qd0, n * sizeof *qd);
  int rc = check_initial(o, lm, e, s, so.t0, q, qd);
  if (rc != CLI_EXIT_OK) {
    lg_free(q);
    return rc;
  }
  cg_jit jit = {0};
  if (o->jit) use_jit(o, lm, e, &so, &jit);
  num_lin *L = NULL; /* BDF's exact Jacobian */
  lg_diag d;
  lg_diag_clear(&d);
  if ((so.integrator == NUM_INT_BDF || so.integrator == NUM_INT_IDA) &&
      so.stabilize != NUM_STAB_BAUMGARTE &&
      num_lin_build(lm->mech, e, s, o->set, o->nset, &L, &d) == LG_OK)
    so.jac = L;
  rc = run_sim(o, lm, e, s, &so, q, qd, client);
  lg_free(q);
  num_lin_free(L);
  cg_jit_free(&jit);
  return rc;
}

static int run_sim(const cli_opts *o, lang_model *lm, const mech_eom *e,
                   const num_system *s, num_sim_opts *so_in, double *q, double *qd,
                   cli_sim_client *client) {
  const num_sim_opts so = *so_in;
  int rc = CLI_EXIT_OK;
  sink k;
  cli_sim_out out;
  if ((rc = open_outputs(o, lm, s, &so, client, &k, &out)) != CLI_EXIT_OK) return rc;
  num_sim_stats st;
  lg_diag d;
  lg_diag_clear(&d);
  lg_status status = num_simulate(s, &so, q, qd, on_output, &k, &st, &d);
  summary(o, s, &so, &st, wall_now() - k.start, k.tty);
  if (status != LG_OK) rc = report_failure(o, lm, e, s, &st, &d);
  return close_outputs(o, lm, client, &out, rc);
}

/* Kane's equations in their own state [q; u]: the initial speeds come from
 * the initial q' through the kinematical equations. */
static int integrate_kane(const cli_opts *o, lang_model *lm, const mech_eom *e,
                          const mech_kane *k, const num_system *s, const num_aux *aux,
                          cli_sim_client *client) {
  num_sim_opts so;
  if (!sim_options(o, lm, s, &so)) return CLI_EXIT_USAGE;
  so.aux = aux;
  /* Kane's minimal equations have no algebraic part: explicit by default */
  if (!o->integrator && so.integrator == NUM_INT_IDA) so.integrator = NUM_INT_ERK;
  if (o->jit) fprintf(stderr, "%s: warning: --jit is not available for Kane's state [q; u]; "
                              "using the evaluation tape\n", o->model);
  lg_diag d;
  lg_diag_clear(&d);
  num_kane_system *ks;
  num_kane_result r;
  if (num_kane_system_build(lm->mech, k, e, o->set, o->nset, &ks, &d) != LG_OK)
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
      if (status != LG_OK) rc = report_failure(o, lm, e, s, &st, &d);
      rc = close_outputs(o, lm, client, &out, rc);
    }
    num_kane_result_free(&r);
  }
  lg_free(u_init);
  num_kane_system_free(ks);
  return rc;
}

/* The energy balance and the --stop-when event; a bad expression is a
 * usage error at its column. */
static int build_aux(const cli_opts *o, lang_model *lm, const mech_eom *e,
                     const mech_kane *k, num_aux **aux) {
  lg_diag d;
  lg_diag_clear(&d);
  const sym_node *stop = NULL;
  if (o->stop_when &&
      lang_scalar_of_text(lm, "--stop-when", o->stop_when, strlen(o->stop_when), &stop, &d) !=
          LG_OK) {
    char buf[1200];
    lg_diag_format(&d, buf, sizeof buf);
    fprintf(stderr, "lagrange simulate: %s\n  in --stop-when '%s'\n", buf, o->stop_when);
    return d.status == LG_ERR_NOMEM ? CLI_EXIT_MODEL : CLI_EXIT_USAGE;
  }
  lg_status st = num_aux_build(lm->mech, e, k, o->set, o->nset, stop, aux, &d);
  if (st != LG_OK && d.status == LG_OK) lg_diag_set(&d, st, NULL, 0, 0, "out of memory");
  if (st != LG_OK) return cli_report(&d, lm, o->model);
  return CLI_EXIT_OK;
}

int cli_simulate(const cli_opts *o) { return cli_simulate_with(o, NULL); }

int cli_simulate_with(const cli_opts *o, cli_sim_client *client) {
  lang_model *lm;
  mech_eom *e;
  mech_kane *k = NULL;
  int rc = cli_load(o, &lm, &e);
  if (rc != CLI_EXIT_OK) return rc;
  num_system *s;
  lg_diag d;
  lg_diag_clear(&d);
  if ((rc = cli_method_eom(o, lm, &e, &k)) != CLI_EXIT_OK) {
    lang_model_free(lm);
    return rc;
  }
  mech_eom_simplify(lm->mech, e, CLI_SIMPLIFY_FOR_CODE);
  if (k) mech_kane_simplify(lm->mech, k, CLI_SIMPLIFY_FOR_CODE);
  if (num_system_build(lm->mech, e, o->set, o->nset, &s, &d) != LG_OK) {
    rc = cli_report(&d, lm, o->model);
  } else {
    num_aux *aux = NULL;
    rc = build_aux(o, lm, e, k, &aux);
    if (rc == CLI_EXIT_OK)
      rc = k ? integrate_kane(o, lm, e, k, s, aux, client) : integrate(o, lm, e, s, aux, client);
    num_aux_free(aux);
    num_system_free(s);
  }
  lang_model_free(lm);
  return rc;
}
