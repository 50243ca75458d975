/* cli_sim.c - the part of `simulate` that `sweep` shares (cli_sim.h). */
#include "cli_sim.h"

#include <stdio.h>
#include <string.h>

/* The default for constrained models: IDA on the index-2 GGL form keeps
 * both constraint levels without projection and copes with stiffness. */
#define DEFAULT_CONSTRAINED NUM_INT_IDA

/* ---- options ---------------------------------------------------------------------- */
/* The integrators by name (docs/REFERENCE.md: "Simulation"). */
static const struct { const char *name; num_integrator i; } INTEGRATORS[] = {
    {"erk", NUM_INT_ERK},       {"dopri", NUM_INT_DOPRI},   {"rk45", NUM_INT_DOPRI},
    {"verner", NUM_INT_VERNER}, {"fehlberg", NUM_INT_FEHLBERG},
    {"bdf", NUM_INT_BDF},       {"cvode", NUM_INT_BDF},     {"ida", NUM_INT_IDA},
    {"adams", NUM_INT_ADAMS}};

/* Default: DEFAULT_CONSTRAINED for constrained models unless a
 * stabilization of the ODE is asked for; else Adams or an explicit
 * Runge-Kutta pair, by the tolerance (NUM_INT_ODE). */
static int pick_integrator(const cli_opts *o, const cli_sim *S, num_sim_opts *so) {
  const char *name = o->integrator;
  so->integrator = !name && S->s->m && !o->stabilize ? DEFAULT_CONSTRAINED : NUM_INT_ODE;
  if (!name) return 1;
  for (size_t i = 0; i < sizeof INTEGRATORS / sizeof *INTEGRATORS; i++)
    if (!strcmp(name, INTEGRATORS[i].name)) {
      so->integrator = INTEGRATORS[i].i;
      return 1;
    }
  fprintf(stderr, "lagrange %s: unknown integrator '%s' (use adams, erk, dopri, "
                  "verner, fehlberg, bdf or ida)\n", S->cmd, name);
  return 0;
}

static int pick_stabilization(const cli_opts *o, const cli_sim *S, num_sim_opts *so) {
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
  fprintf(stderr, "lagrange %s: --stabilize is project, none or "
                  "baumgarte:ALPHA,BETA, not '%s'\n", S->cmd, s);
  return 0;
}

int cli_sim_options(const cli_opts *o, cli_sim *S) {
  num_sim_opts *so = &S->so;
  const lang_model *lm = S->lm;
  memset(so, 0, sizeof *so);
  so->t0 = o->has_t0 ? o->t0 : lm->t0;
  so->tf = o->has_tf ? o->tf : lm->tf;
  so->dt = o->has_dt ? o->dt : lm->dt;
  so->rtol = o->rtol;
  so->atol = o->atol;
  so->aux = S->aux;
  so->max_steps = o->max_steps;
  if (!(so->tf > so->t0) || !(so->dt > 0) || !(so->rtol > 0) || !(so->atol > 0)) {
    fprintf(stderr, "lagrange %s: need t0 < tf, dt > 0 and positive tolerances "
                    "(got t0=%g tf=%g dt=%g)\n", S->cmd, so->t0, so->tf, so->dt);
    return CLI_EXIT_USAGE;
  }
  if (!cli_check_rows(o, so->t0, so->tf, so->dt) || !pick_integrator(o, S, so) ||
      !pick_stabilization(o, S, so))
    return CLI_EXIT_USAGE;
  /* Kane's minimal equations have no algebraic part: explicit by default */
  if (S->k && !o->integrator && so->integrator == NUM_INT_IDA) so->integrator = NUM_INT_ODE;
  if (!S->k && S->s->m && so->stabilize == NUM_STAB_PROJECT &&
      so->integrator == NUM_INT_ADAMS) {
    fprintf(stderr, "lagrange %s: --integrator adams cannot project the motion onto the "
                    "constraints (CVODE projects only inside BDF steps): use --stabilize "
                    "baumgarte:ALPHA,BETA or none, or --integrator ida, bdf or dopri\n", S->cmd);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* ---- consistency of the initial state ------------------------------------------------- */
static const double CONSISTENT_TOL = 1e-9;

static void note_projected(const cli_opts *o, const num_system *s, const double *q_old,
                           const double *q, const char *prime, lg_str *msg) {
  for (size_t i = 0; i < s->n; i++)
    if (q[i] != q_old[i]) {
      char b1[LG_DOUBLE_CHARS], b2[LG_DOUBLE_CHARS];
      lg_str_printf(msg, "%s: projected %s%s: %s -> %s\n", o->model, s->coord_names[i], prime,
                    lg_fmt_double(b1, q_old[i]), lg_fmt_double(b2, q[i]));
    }
}

/* Every violated row, at its line in the model. */
static int report_violations(const cli_opts *o, const mech_eom *e, size_t m, const double *C,
                             const double *Cd, const int *bad, lg_str *msg) {
  int rc = CLI_EXIT_OK;
  for (size_t r = 0; r < m; r++) {
    int pos_bad = bad[r] & 1, vel_bad = bad[r] & 2;
    if (pos_bad)
      lg_str_printf(msg, "%s:%d:%d: the initial state violates constraint C%zu: C%zu = %.6g "
                         "(use --project to move it onto the constraints)\n",
                    o->model, e->row_line[r], e->row_col[r], r + 1, r + 1, C[r]);
    if (vel_bad)
      lg_str_printf(msg, "%s:%d:%d: the initial velocities violate constraint C%zu: "
                         "its velocity form is %.6g (use --project to move them onto it)\n",
                    o->model, e->row_line[r], e->row_col[r], r + 1, Cd[r]);
    if (pos_bad || vel_bad) rc = CLI_EXIT_MODEL;
  }
  return rc;
}

int cli_sim_check_initial(const cli_opts *o, const cli_sim *S, const num_system *s, double *q,
                          double *qd, int notes, lg_str *msg) {
  size_t m = s->m, n = s->n;
  if (!m) return CLI_EXIT_OK;
  num_work w;
  if (num_work_init(s, &w) != LG_OK) return CLI_EXIT_MODEL;
  double *C = lg_malloc((2 * m + 2 * n) * sizeof *C);
  int *bad = lg_calloc(m, sizeof *bad); /* the library's test (num_forms.c) */
  int rc = C && bad ? CLI_EXIT_OK : CLI_EXIT_MODEL;
  if (rc != CLI_EXIT_OK) lg_str_printf(msg, "%s: out of memory\n", o->model);
  double *Cd = C ? C + m : NULL, *q_old = C ? Cd + m : NULL, *qd_old = C ? q_old + n : NULL;
  if (rc == CLI_EXIT_OK && o->project) {
    memcpy(q_old, q, n * sizeof *q_old);
    memcpy(qd_old, qd, n * sizeof *qd_old);
    lg_diag d;
    lg_diag_clear(&d);
    if (num_project(s, &w, S->so.t0, q, qd, 1e-12, &d) != LG_OK) {
      char buf[1200];
      cli_format_diag(&d, S->lm, o->model, buf, sizeof buf);
      lg_str_printf(msg, "%s\n", buf);
      rc = CLI_EXIT_MODEL;
    } else if (notes) {
      note_projected(o, s, q_old, q, "", msg);
      note_projected(o, s, qd_old, qd, "'", msg);
    }
  }
  if (rc == CLI_EXIT_OK && num_check_consistent(s, &w, S->so.t0, q, qd, CONSISTENT_TOL, C, Cd, bad))
    rc = report_violations(o, S->e, m, C, Cd, bad, msg);
  lg_free(bad);
  lg_free(C);
  num_work_free(&w);
  return rc;
}

/* ---- accelerators ------------------------------------------------------------------------ */
/* --jit: the compiled right-hand side (cached, see cg_jit.c) where the
 * integrator calls one: the ODE integrators without Baumgarte terms.
 * simulate (and animate) start on the tape while the compiler works in
 * the background and switch when its object is ready (--jit=wait compiles
 * first); a sweep waits, so that every run uses the same code. */
static void jit_warning(const char *model, const lg_diag *d) {
  fprintf(stderr, "%s: warning: --jit: %s%s%s%s; using the evaluation tape instead\n", model,
          d->message, d->hint[0] ? " (" : "", d->hint, d->hint[0] ? ")" : "");
}

static num_rhs_fn poll_jit(void *ud) {
  cli_sim *S = ud;
  lg_diag d;
  lg_diag_clear(&d);
  int r = cg_jit_poll(&S->jit, 0, &d);
  if (r < 0 && !S->jit_warned) {
    S->jit_warned = 1;
    jit_warning(S->model, &d);
  }
  return r > 0 ? S->jit.rhs : NULL;
}

static void use_jit(const cli_opts *o, cli_sim *S) {
  num_sim_opts *so = &S->so;
  if (so->integrator == NUM_INT_IDA || so->stabilize == NUM_STAB_BAUMGARTE) {
    fprintf(stderr, "%s: note: --jit compiles the right-hand side of the ODE integrators "
                    "(adams, dopri, bdf, ...; without Baumgarte terms); this run evaluates the "
                    "tape\n", o->model);
    return;
  }
  lg_diag d;
  lg_diag_clear(&d);
  cg_request r = {"lg_jit", o->model, S->lm->mech, S->e, NULL, o->set, o->nset, NULL, 1};
  int background = o->jit == CLI_JIT_BACKGROUND && strcmp(S->cmd, "sweep") != 0;
  S->model = o->model;
  if (cg_jit_start(&r, background, &S->jit, &d) != LG_OK) {
    S->jit_warned = 1;
    jit_warning(o->model, &d);
  }
  so->jit_rhs = S->jit.rhs;
  if (!S->jit.rhs && S->jit.pid > 0) {
    so->jit_poll = poll_jit;
    so->jit_ud = S;
  }
}

void cli_sim_accelerate(const cli_opts *o, cli_sim *S) {
  num_sim_opts *so = &S->so;
  if (S->k) {
    if (o->jit) fprintf(stderr, "%s: warning: --jit is not available for Kane's state [q; u]; "
                                "using the evaluation tape\n", o->model);
    return;
  }
  if (o->jit) use_jit(o, S);
  lg_diag d;
  lg_diag_clear(&d);
  if ((so->integrator == NUM_INT_BDF || so->integrator == NUM_INT_IDA) &&
      so->stabilize != NUM_STAB_BAUMGARTE &&
      num_lin_build(S->lm->mech, S->e, S->s, o->set, o->nset, &S->L, &d) == LG_OK)
    so->jac = S->L;
}

/* ---- loading ----------------------------------------------------------------------------- */
/* The energy balance and the --stop-when event; a bad expression is a
 * usage error at its column. */
static int build_aux(const cli_opts *o, cli_sim *S) {
  lg_diag d;
  lg_diag_clear(&d);
  const sym_node *stop = NULL;
  lang_model *lm = S->lm;
  if (o->stop_when &&
      lang_scalar_of_text(lm, "--stop-when", o->stop_when, strlen(o->stop_when), &stop, &d) !=
          LG_OK) {
    char buf[1200];
    lg_diag_format(&d, buf, sizeof buf);
    fprintf(stderr, "lagrange %s: %s\n  in --stop-when '%s'\n", S->cmd, buf, o->stop_when);
    return d.status == LG_ERR_NOMEM ? CLI_EXIT_MODEL : CLI_EXIT_USAGE;
  }
  lg_status st = num_aux_build(lm->mech, S->e, S->k, o->set, o->nset, stop, &S->aux, &d);
  if (st != LG_OK && d.status == LG_OK) lg_diag_set(&d, st, NULL, 0, 0, "out of memory");
  if (st != LG_OK) return cli_report_lm(&d, lm, o->model);
  return CLI_EXIT_OK;
}

int cli_sim_load(const cli_opts *o, const char *cmd, cli_sim *S) {
  memset(S, 0, sizeof *S);
  S->cmd = cmd;
  int rc = cli_load(o, &S->lm, &S->e);
  if (rc != CLI_EXIT_OK) return rc;
  if ((rc = cli_method_eom(o, S->lm, &S->e, &S->k)) != CLI_EXIT_OK) {
    cli_sim_free(S);
    return rc;
  }
  int kane_in = S->k != NULL;
  S->e = mech_eom_simplified(S->lm->mech, S->e, CLI_SIMPLIFY_FOR_CODE);
  if (S->k) S->k = mech_kane_simplified(S->lm->mech, S->k, CLI_SIMPLIFY_FOR_CODE);
  lg_diag d;
  lg_diag_clear(&d);
  if (!S->e || (kane_in && !S->k)) {
    lg_diag_set(&d, LG_ERR_NOMEM, NULL, 0, 0, "out of memory");
    rc = cli_report_lm(&d, S->lm, o->model);
  } else if (num_system_build(S->lm->mech, S->e, o->set, o->nset, &S->s, &d) != LG_OK)
    rc = cli_report_lm(&d, S->lm, o->model);
  else if (num_system_add_tree(S->lm->mech, S->e, o->set, o->nset, S->s) != LG_OK) {
    lg_diag_set(&d, LG_ERR_NOMEM, NULL, 0, 0, "out of memory");
    rc = cli_report_lm(&d, S->lm, o->model);
  }
  else
    rc = build_aux(o, S);
  if (rc != CLI_EXIT_OK) cli_sim_free(S);
  return rc;
}

void cli_sim_free(cli_sim *S) {
  num_lin_free(S->L);
  cg_jit_free(&S->jit);
  num_aux_free(S->aux);
  num_system_free(S->s);
  if (S->lm) lang_model_free(S->lm);
  memset(S, 0, sizeof *S);
}
