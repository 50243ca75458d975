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

/* ---- options ---------------------------------------------------------------------- */
/* Default: IDA (the constrained DAE in GGL form) for constrained models,
 * unless a stabilization of the ODE is asked for; Dormand-Prince else. */
static int pick_integrator(const cli_opts *o, const num_system *s, num_sim_opts *so) {
  const char *name = o->integrator;
  so->integrator = !name && s->m && !o->stabilize ? NUM_INT_IDA : NUM_INT_DOPRI;
  if (!name || !strcmp(name, "dopri") || !strcmp(name, "rk45") || !strcmp(name, "erk"))
    return 1;
  if (!strcmp(name, "bdf") || !strcmp(name, "cvode")) {
    so->integrator = NUM_INT_BDF;
    return 1;
  }
  if (!strcmp(name, "ida")) {
    so->integrator = NUM_INT_IDA;
    return 1;
  }
  fprintf(stderr, "lagrange simulate: unknown integrator '%s' (use dopri, bdf or ida)\n",
          name);
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
  return pick_integrator(o, s, so) && pick_stabilization(o, so);
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
  fputc('\n', f);
}

static void row(FILE *f, const num_system *s, double t, const double *q, const double *qd,
                double T, double V, const double *C) {
  char b[LG_DOUBLE_CHARS];
  fputs(lg_fmt_double(b, t), f);
  for (size_t i = 0; i < s->n; i++) fprintf(f, ",%s", lg_fmt_double(b, q[i]));
  for (size_t i = 0; i < s->n; i++) fprintf(f, ",%s", lg_fmt_double(b, qd[i]));
  fprintf(f, ",%s", lg_fmt_double(b, T));
  fprintf(f, ",%s", lg_fmt_double(b, V));
  fprintf(f, ",%s", lg_fmt_double(b, T + V));
  for (size_t r = 0; r < s->m; r++) fprintf(f, ",%s", lg_fmt_double(b, C[r]));
  fputc('\n', f);
}

static int on_output(void *ud, double t, const double *q, const double *qd, double T,
                     double V, const double *C) {
  sink *k = ud;
  if (k->csv) row(k->csv, k->s, t, q, qd, T, V, C);
  if (k->plot) row(k->plot, k->s, t, q, qd, T, V, C);
  double now = wall_now();
  if (k->tty && now - k->start > 1 && now - k->last_report > 0.2) {
    fprintf(stderr, "\rsimulating: t = %-12.6g (%3.0f%%)", t, 100 * t / k->tf);
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
  double C[m], Cd[m], q_old[n], qd_old[n];
  memcpy(q_old, q, sizeof q_old);
  memcpy(qd_old, qd, sizeof qd_old);
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
  if (rc == CLI_EXIT_OK) {
    num_residuals(s, &w, t0, q, qd, C, Cd);
    for (size_t r = 0; r < m; r++) {
      int pos_bad = s->row_holonomic[r] && !(fabs(C[r]) <= CONSISTENT_TOL);
      int vel_bad = !(fabs(Cd[r]) <= CONSISTENT_TOL);
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
  num_work_free(&w);
  return rc;
}

/* ---- plot through gnuplot ------------------------------------------------------------------ */
static int draw_plot(const char *svg, const char *data, const num_system *s) {
  char script[] = "/tmp/lagrange-plot-XXXXXX";
  int fd = mkstemp(script);
  if (fd < 0) return 0;
  FILE *f = fdopen(fd, "w");
  if (!f) { close(fd); unlink(script); return 0; }
  size_t n = s->n, m = s->m;
  fprintf(f, "set terminal svg size 900,%d dynamic font 'sans,11'\nset output '%s'\n",
          m ? 900 : 640, svg);
  fprintf(f, "set datafile separator ','\nset key outside right\nset grid\n"
             "set multiplot layout %d,1\nset xlabel 't'\n", m ? 3 : 2);
  fprintf(f, "set title 'coordinates'\nset ylabel 'q'\nplot ");
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%s'%s' using 1:%zu with lines title '%s'", i ? ", " : "", data, i + 2,
            s->coord_names[i]);
  fprintf(f, "\nset title 'energy'\nset ylabel 'E = T + V'\n"
             "plot '%s' using 1:%zu with lines title 'T', '' using 1:%zu with lines "
             "title 'V', '' using 1:%zu with lines title 'E'\n",
          data, 2 * n + 2, 2 * n + 3, 2 * n + 4);
  if (m) {
    fprintf(f, "set title 'constraint residuals'\nset ylabel 'C'\nset format y '%%.1e'\nplot ");
    for (size_t r = 0; r < m; r++)
      fprintf(f, "%s'%s' using 1:%zu with lines title 'C%zu'", r ? ", " : "", data,
              2 * n + 5 + r, r + 1);
    fputc('\n', f);
  }
  fprintf(f, "unset multiplot\n");
  fclose(f);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", script);
  int ok = system(cmd) == 0;
  unlink(script);
  return ok;
}

/* ---- the command ------------------------------------------------------------------------------ */
static void summary(const cli_opts *o, const num_system *s, const num_sim_stats *st,
                    double wall, int tty) {
  if (tty) fputs("\r                                              \r", stderr);
  fprintf(stderr, "%s: simulated to t = %.10g: %ld steps, %ld RHS evaluations, %.6f s wall\n",
          o->model, st->t_end, st->steps, st->rhs_evals, wall);
  fprintf(stderr, "%s: max energy drift |E - E0| = %.3g", o->model, st->max_energy_drift);
  if (s->m) fprintf(stderr, ", max constraint residual = %.3g", st->max_residual);
  fputc('\n', stderr);
}

/* Open the outputs: the CSV goes to FILE.part and is renamed at the end
 * (a model error never leaves a file behind); the plot data to a temp. */
static int open_sinks(const cli_opts *o, sink *k, char *part, size_t np, char *pdata) {
  if (o->out) {
    snprintf(part, np, "%s.part", o->out);
    k->csv = fopen(part, "w");
    if (!k->csv) {
      fprintf(stderr, "lagrange simulate: cannot write '%s'\n", o->out);
      return 0;
    }
  } else {
    k->csv = stdout;
  }
  if (o->plot) {
    int fd = mkstemp(pdata);
    k->plot = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!k->plot) {
      fprintf(stderr, "lagrange simulate: cannot create a temporary file for the plot\n");
      return 0;
    }
  }
  return 1;
}

static int finish_sinks(const cli_opts *o, sink *k, const char *part, const char *pdata,
                        int rc) {
  if (k->csv && k->csv != stdout) {
    fclose(k->csv);
    if (rename(part, o->out) != 0) {
      fprintf(stderr, "lagrange simulate: cannot write '%s'\n", o->out);
      rc = CLI_EXIT_MODEL;
    }
  } else if (k->csv) {
    fflush(stdout);
  }
  if (k->plot) {
    fclose(k->plot);
    if (!draw_plot(o->plot, pdata, k->s)) {
      fprintf(stderr, "lagrange simulate: gnuplot could not draw '%s' (is gnuplot "
                      "installed? scripts/install-deps.sh installs it)\n", o->plot);
      rc = CLI_EXIT_MODEL;
    }
    unlink(pdata);
  }
  return rc;
}

static int run_sim(const cli_opts *o, lang_model *lm, const num_system *s,
                   num_sim_opts *so_in, double *q, double *qd);

static int integrate(const cli_opts *o, lang_model *lm, const mech_eom *e,
                     const num_system *s) {
  num_sim_opts so;
  if (!sim_options(o, lm, s, &so)) return CLI_EXIT_USAGE;
  size_t n = s->n;
  double q[n + 1], qd[n + 1];
  memcpy(q, lm->q0, n * sizeof *q);
  memcpy(qd, lm->qd0, n * sizeof *qd);
  int rc = check_initial(o, lm, e, s, so.t0, q, qd);
  if (rc != CLI_EXIT_OK) return rc;
  cg_jit jit = {0};
  if (o->jit) {
    lg_diag d;
    lg_diag_clear(&d);
    char *name = cg_default_name(o->model);
    cg_request r = {name, o->model, lm->mech, e, NULL, o->set, o->nset, NULL};
    if (!name || cg_jit_compile(&r, &jit, &d) != LG_OK)
      fprintf(stderr, "%s: warning: --jit: %s; using the evaluation tape instead\n",
              o->model, name ? d.message : "out of memory");
    so.jit_rhs = jit.rhs;
    lg_free(name);
  }
  rc = run_sim(o, lm, s, &so, q, qd);
  cg_jit_free(&jit);
  return rc;
}

static int run_sim(const cli_opts *o, lang_model *lm, const num_system *s,
                   num_sim_opts *so_in, double *q, double *qd) {
  const num_sim_opts so = *so_in;
  int rc = CLI_EXIT_OK;
  sink k = {.s = s, .tf = so.tf, .tty = isatty(2)};
  char part[4200], pdata[] = "/tmp/lagrange-data-XXXXXX";
  if (!open_sinks(o, &k, part, sizeof part, pdata)) {
    if (k.csv && k.csv != stdout) { fclose(k.csv); unlink(part); }
    return CLI_EXIT_MODEL;
  }
  header(k.csv, s);
  k.start = wall_now();
  num_sim_stats st;
  lg_diag d;
  lg_diag_clear(&d);
  lg_status status = num_simulate(s, &so, q, qd, on_output, &k, &st, &d);
  summary(o, s, &st, wall_now() - k.start, k.tty);
  if (status != LG_OK) rc = cli_report(&d, lm, o->model);
  return finish_sinks(o, &k, part, pdata, rc);
}

/* Kane's equations in their own state [q; u]: the initial speeds come from
 * the initial q' through the kinematical equations. */
static int integrate_kane(const cli_opts *o, lang_model *lm, const mech_eom *e,
                          const mech_kane *k, const num_system *s) {
  num_sim_opts so;
  if (!sim_options(o, lm, s, &so)) return CLI_EXIT_USAGE;
  if (o->jit) fprintf(stderr, "%s: warning: --jit is not available for Kane's state [q; u]; "
                              "using the evaluation tape\n", o->model);
  lg_diag d;
  lg_diag_clear(&d);
  num_kane_system *ks;
  num_kane_result r;
  if (num_kane_system_build(lm->mech, k, e, o->set, o->nset, &ks, &d) != LG_OK)
    return cli_report(&d, lm, o->model);
  int rc = CLI_EXIT_OK;
  if (num_kane_eval(lm->mech, k, o->set, o->nset, so.t0, lm->q0, lm->qd0, NULL, 0, &r, &d) !=
      LG_OK) {
    rc = cli_report(&d, lm, o->model);
  } else {
    double *q = lm->q0;
    sink snk = {.s = s, .tf = so.tf, .tty = isatty(2)};
    char part[4200], pdata[] = "/tmp/lagrange-data-XXXXXX";
    if (!open_sinks(o, &snk, part, sizeof part, pdata)) {
      if (snk.csv && snk.csv != stdout) { fclose(snk.csv); unlink(part); }
      rc = CLI_EXIT_MODEL;
    } else {
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
      summary(o, s, &st, wall_now() - snk.start, snk.tty);
      if (status != LG_OK) rc = cli_report(&d, lm, o->model);
      rc = finish_sinks(o, &snk, part, pdata, rc);
    }
    num_kane_result_free(&r);
  }
  num_kane_system_free(ks);
  return rc;
}

int cli_simulate(const cli_opts *o) {
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
    rc = k ? integrate_kane(o, lm, e, k, s) : integrate(o, lm, e, s);
    num_system_free(s);
  }
  lang_model_free(lm);
  return rc;
}
