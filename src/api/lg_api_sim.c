/* lg_api_sim.c - integration over time: the one path of `lagrange
 * simulate`, `sweep`, `animate` and Python's simulate. The options are
 * checked, --stop-when parsed and compiled, the initial state checked
 * against the constraints (refused or projected, under both methods),
 * --jit started, and the run delivered point by point; remarks go to
 * the caller's note callback, never to a stream. */
#include "lg_api_internal.h"

#include "cg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* An initial state further off a constraint than this is refused. */
static const double CONSISTENT_TOL = 1e-9;

/* A stop_when text compiled once for the system's lifetime: a sweep's
 * runs share it (the symbolic context grows only once per text). */
typedef struct stop_entry {
  char *text;
  num_aux *aux;
  struct stop_entry *next;
} stop_entry;

/* What lg_simulate keeps in a system (under its lock): the compiled
 * right-hand side, started by the first run that asks and kept for the
 * next ones, and the stop_when texts compiled so far. */
struct api_sim_jit {
  cg_jit jit;
  int started, failed;
  stop_entry *stops;
};

void api_sim_free(lg_system *s) {
  if (!s || !s->sim_jit) return;
  cg_jit_free(&s->sim_jit->jit);
  for (stop_entry *e = s->sim_jit->stops, *next; e; e = next) {
    next = e->next;
    lg_free(e->text);
    num_aux_free(e->aux);
    lg_free(e);
  }
  lg_free(s->sim_jit);
  s->sim_jit = NULL;
}

/* The system's cache (lock held); NULL: out of memory. */
static struct api_sim_jit *sim_cache(const lg_system *s) {
  lg_system *mut = (lg_system *)s;
  if (!mut->sim_jit) mut->sim_jit = lg_calloc(1, sizeof *mut->sim_jit);
  return mut->sim_jit;
}

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void lg_sim_options_default(const lg_system *s, lg_sim_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->t0 = s ? s->lm->t0 : 0;
  o->tf = s ? s->lm->tf : 10;
  o->dt = s ? s->lm->dt : 0.01;
  o->rtol = o->atol = 1e-10;
  o->integrator = LG_INT_AUTO;
  o->stabilize = LG_STAB_AUTO;
  o->max_rows = LG_SIM_MAX_ROWS;
  o->jit = LG_JIT_OFF;
}

/* One call of lg_simulate: what its pieces share. */
typedef struct sim_call {
  const lg_system *s;
  const lg_sim_options *o;
  const double *par;
  lg_sim_callback cb;
  void *ud;
  lg_sim_stats *stats;
  num_sim_stats ns;
  const num_aux *aux;     /* stop_when's (the system's cache), else NULL */
  int ran;                /* the integration started */
  /* what each point carries besides the state (o->multipliers, o->outputs) */
  api_scratch *sc;        /* NULL when nothing more is wanted */
  double *lam, *all, *sel; /* nc, lg_noutputs, nsel */
  size_t *cols, nsel;
} sim_call;

static void note(const sim_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const sim_call *c, const char *fmt, ...) {
  if (!c->o->note) return;
  char line[1200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  c->o->note(c->o->note_ud, line);
}

/* A usage error about an option, named in the caller's terms: the fields
 * of lg_sim_options, which are also Model.simulate's arguments. */
static lg_status bad_option(const lg_system *s, lg_diag *d, const char *hint, const char *fmt,
                            ...) __attribute__((format(printf, 4, 5)));
static lg_status bad_option(const lg_system *s, lg_diag *d, const char *hint, const char *fmt,
                            ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lg_diag_set(d, LG_ERR_USAGE, s->lm->file, 0, 0, "simulation options: %s", msg);
  if (hint) lg_diag_hint(d, "%s", hint);
  return LG_ERR_USAGE;
}

/* Every option in range, before anything runs: an infinite or NaN time
 * would run forever (or not at all), and the output is bounded as the
 * command's (`simulate --max-rows`). */
static lg_status check_options(const lg_system *s, const lg_sim_options *o, lg_diag *d) {
  const struct { const char *name; double v; } times[] = {{"t0", o->t0}, {"tf", o->tf},
                                                         {"dt", o->dt}};
  for (size_t i = 0; i < sizeof times / sizeof *times; i++)
    if (!isfinite(times[i].v))
      return bad_option(s, d, NULL, "%s must be a finite number, not %g",
                        times[i].name, times[i].v);
  if (!(o->tf > o->t0))
    return bad_option(s, d, "the run goes from t0 to a later tf",
                      "tf (%g) must be greater than t0 (%g)", o->tf, o->t0);
  if (!(o->dt > 0)) return bad_option(s, d, NULL, "dt must be positive, not %g", o->dt);
  if (!(o->rtol > 0 && o->atol > 0 && isfinite(o->rtol) && isfinite(o->atol)))
    return bad_option(s, d, NULL, "rtol and atol must be positive finite numbers, not %g and %g",
                      o->rtol, o->atol);
  if ((unsigned)o->stabilize > LG_STAB_AUTO || (unsigned)o->integrator > LG_INT_ADAMS ||
      (unsigned)o->jit > LG_JIT_WAIT)
    return bad_option(s, d, "use the values of lg_integrator, lg_stabilize and lg_jit_mode",
                      "unknown integrator (%d), stabilization (%d) or jit (%d)",
                      (int)o->integrator, (int)o->stabilize, (int)o->jit);
  if (!(o->max_steps >= 0) || !isfinite(o->max_steps))
    return bad_option(s, d, NULL, "max_steps must be a finite number >= 0, not %g", o->max_steps);
  if (o->stabilize == LG_STAB_BAUMGARTE && !(isfinite(o->alpha) && isfinite(o->beta)))
    return bad_option(s, d, NULL, "Baumgarte's alpha and beta must be finite, not %g and %g",
                      o->alpha, o->beta);
  size_t limit = o->max_rows ? o->max_rows : LG_SIM_MAX_ROWS;
  double rows = ceil((o->tf - o->t0) / o->dt) + 1; /* inf when tf - t0 overflows */
  if (!(rows <= (double)limit))
    return bad_option(s, d, "raise max_rows, or use a larger dt",
                      "this run would give %.15g rows (t = %g to %g every %g), more than "
                      "the limit max_rows = %zu", rows, o->t0, o->tf, o->dt, limit);
  return LG_OK;
}

static lg_status to_num_options(const lg_system *s, const lg_sim_options *o,
                                num_sim_opts *so, lg_diag *d) {
  memset(so, 0, sizeof *so);
  lg_status st = check_options(s, o, d);
  if (st != LG_OK) return st;
  so->t0 = o->t0;
  so->tf = o->tf;
  so->dt = o->dt;
  so->rtol = o->rtol;
  so->atol = o->atol;
  so->alpha = o->alpha;
  so->max_steps = o->max_steps;
  so->beta = o->beta;
  static const num_stabilize stab[] = {NUM_STAB_PROJECT, NUM_STAB_BAUMGARTE, NUM_STAB_NONE,
                                       NUM_STAB_PROJECT};
  static const num_integrator integ[] = {NUM_INT_ODE,    NUM_INT_DOPRI, NUM_INT_BDF,
                                         NUM_INT_IDA,    NUM_INT_ERK,   NUM_INT_VERNER,
                                         NUM_INT_FEHLBERG, NUM_INT_ADAMS};
  so->stabilize = stab[o->stabilize];
  so->integrator = integ[o->integrator];
  /* as simulate: IDA for a constrained model unless a stabilization of the
   * ODE is asked for; Kane's [q; u] has no algebraic part */
  if (o->integrator == LG_INT_AUTO && s->nc && o->stabilize == LG_STAB_AUTO && !s->ks)
    so->integrator = NUM_INT_IDA;
  return LG_OK;
}

/* ---- stop_when ------------------------------------------------------------------------ */
/* The energy balance with the stop event of o->stop_when, compiled once
 * per text (the symbolic context is the system's: under its lock). */
static lg_status build_stop(sim_call *c, lg_diag *d) {
  const lg_system *s = c->s;
  const char *text = c->o->stop_when;
  lg_system *mut = (lg_system *)s;
  const sym_node *stop = NULL;
  pthread_mutex_lock(&mut->lock);
  struct api_sim_jit *cache = sim_cache(s);
  lg_status st = cache ? LG_OK : LG_ERR_NOMEM;
  for (stop_entry *e = cache ? cache->stops : NULL; e && !c->aux; e = e->next)
    if (!strcmp(e->text, text)) c->aux = e->aux;
  stop_entry *e = NULL;
  if (st == LG_OK && !c->aux) {
    e = lg_calloc(1, sizeof *e);
    st = e && (e->text = lg_strdup(text)) ? LG_OK : LG_ERR_NOMEM;
    if (st == LG_OK) st = lang_scalar_of_text(s->lm, "`stop_when`", text, strlen(text), &stop, d);
    if (st != LG_OK && st != LG_ERR_NOMEM) {
      st = d->status = LG_ERR_USAGE; /* the option's text is wrong */
    } else if (st == LG_OK) {
      st = num_aux_build(s->lm->mech, s->kane_eom ? s->kane_eom : s->eom_num,
                         s->ks ? s->kane : NULL, s->dummy, s->ndummy, stop, &e->aux, d);
    }
    if (st == LG_OK) {
      e->next = cache->stops;
      cache->stops = e;
      c->aux = e->aux;
    } else if (e) {
      lg_free(e->text);
      lg_free(e);
    }
  }
  pthread_mutex_unlock(&mut->lock);
  return st;
}

/* ---- the initial state ------------------------------------------------------------------ */
static void note_projected(const sim_call *c, const num_system *ns, const double *old,
                           const double *now, const char *prime) {
  for (size_t i = 0; i < ns->n; i++)
    if (now[i] != old[i]) {
      char b1[LG_DOUBLE_CHARS], b2[LG_DOUBLE_CHARS];
      note(c, "%s: projected %s%s: %s -> %s", c->s->lm->file, ns->coord_names[i], prime,
           lg_fmt_double(b1, old[i]), lg_fmt_double(b2, now[i]));
    }
}

/* Every violated row through note, at its line in the model; the first
 * into d. */
static lg_status report_violations(sim_call *c, size_t m, const double *C, const double *Cd,
                                   const int *bad, lg_diag *d) {
  const mech_eom *e = c->s->eom;
  const char *file = c->s->lm->file;
  static const char *const pos_hint = "use `project` to move it onto the constraints";
  static const char *const vel_hint = "use `project` to move them onto it";
  int first = 1;
  for (size_t r = 0; r < m; r++) {
    char pos[300], vel[300];
    snprintf(pos, sizeof pos, "the initial state violates constraint C%zu: C%zu = %.6g", r + 1,
             r + 1, C[r]);
    snprintf(vel, sizeof vel, "the initial velocities violate constraint C%zu: its velocity "
             "form is %.6g", r + 1, Cd[r]);
    for (int level = 1; level <= 2; level++) {
      if (!(bad[r] & level)) continue;
      const char *what = level == 1 ? pos : vel, *hint = level == 1 ? pos_hint : vel_hint;
      note(c, "%s:%d:%d: %s (%s)", file, e->row_line[r], e->row_col[r], what, hint);
      if (first) {
        lg_diag_set(d, LG_ERR_MODEL, file, e->row_line[r], e->row_col[r], "%s", what);
        lg_diag_hint(d, "%s", hint);
        first = 0;
      }
    }
  }
  c->stats->noted = c->o->note != NULL;
  return LG_ERR_MODEL;
}

/* The norm of each holonomic row's gradient at (t, q) into g (m). */
static void gradient_norms(const num_system *ns, num_work *w, double t, const double *q,
                           const double *qd, double *C, double *g) {
  num_residuals(ns, w, t, q, qd, C, NULL);
  const double *J = w->out + ns->o_J;
  for (size_t r = 0; r < ns->m; r++) {
    double s = 0;
    for (size_t j = 0; ns->row_holonomic[r] && j < ns->n; j++) s += J[r * ns->n + j] * J[r * ns->n + j];
    g[r] = sqrt(s);
  }
}

/* A projected start where a constraint's gradient (almost) vanishes, as on
 * |p|^2 = l^2 with l = 0: its force is undefined there, and a run keeps
 * dragging the state back at ever smaller steps (Kane's method ground for
 * minutes). Refused at the constraint's line. */
static lg_status check_degenerate(sim_call *c, const num_system *ns, num_work *w, double t0,
                                  const double *q_old, const double *qd_old, const double *q,
                                  const double *qd, double *C, lg_diag *d) {
  size_t m = ns->m;
  double *g = lg_calloc(2 * m, sizeof *g);
  if (!g) return LG_ERR_NOMEM;
  gradient_norms(ns, w, t0, q_old, qd_old, C, g);
  gradient_norms(ns, w, t0, q, qd, C, g + m);
  lg_status st = LG_OK;
  const mech_eom *e = c->s->eom;
  for (size_t r = 0; r < m && st == LG_OK; r++) {
    if (!ns->row_holonomic[r] || !(g[r] > 0) || g[m + r] > 1e-6 * g[r]) continue;
    lg_diag_set(d, LG_ERR_MODEL, c->s->lm->file, e->row_line[r], e->row_col[r],
                "constraint C%zu is degenerate where `project` moved the initial state: its "
                "gradient fell from %.3g to %.3g (a double root, such as a length of 0), so "
                "its force is undefined there", r + 1, g[r], g[m + r]);
    lg_diag_hint(d, "check the constraint and the parameter values it is given there");
    st = LG_ERR_MODEL;
  }
  lg_free(g);
  return st;
}

/* Refuse an initial state off the constraints, or move it onto them
 * (o->project); *moved: the projection changed it. */
static lg_status check_initial(sim_call *c, const num_system *ns, double t0, double *q,
                               double *qd, int *moved, lg_diag *d) {
  size_t m = ns->m, n = ns->n;
  if (moved) *moved = 0;
  if (!m) return LG_OK;
  num_work w;
  if (num_work_init(ns, &w) != LG_OK) return LG_ERR_NOMEM;
  double *C = lg_calloc(2 * m + 2 * n, sizeof *C);
  int *bad = lg_calloc(m, sizeof *bad);
  lg_status st = C && bad ? LG_OK : LG_ERR_NOMEM;
  double *Cd = C ? C + m : NULL, *q_old = C ? Cd + m : NULL, *qd_old = C ? q_old + n : NULL;
  if (st == LG_OK && c->o->project) {
    memcpy(q_old, q, n * sizeof *q);
    memcpy(qd_old, qd, n * sizeof *qd);
    st = num_project(ns, &w, t0, q, qd, 1e-12, d);
    if (st == LG_OK) st = check_degenerate(c, ns, &w, t0, q_old, qd_old, q, qd, C, d);
    if (st == LG_OK) {
      note_projected(c, ns, q_old, q, "");
      note_projected(c, ns, qd_old, qd, "'");
      if (moved) *moved = memcmp(q_old, q, n * sizeof *q) || memcmp(qd_old, qd, n * sizeof *qd);
    }
  }
  if (st == LG_OK && num_check_consistent(ns, &w, t0, q, qd, CONSISTENT_TOL, C, Cd, bad))
    st = report_violations(c, m, C, Cd, bad, d);
  lg_free(C);
  lg_free(bad);
  num_work_free(&w);
  return st;
}

/* Kane's independent speeds from the model's `initial` statement (0
 * where not given); 1 when it gives any (then they, not the initial q',
 * define the initial velocities). */
static int initial_speeds(const lg_system *s, double *u) {
  const lang_model *lm = s->lm;
  const mech_kane *k = s->kane;
  int any = 0;
  for (size_t i = 0; k && !k->default_speeds && i < k->p; i++) {
    u[i] = 0;
    for (size_t j = 0; lm->u0_set && j < lm->nspeeds; j++)
      if (lm->u0_set[j] && !strcmp(mech_speed_name(lm->mech, j), k->u[i]->v.name)) {
        u[i] = lm->u0[j];
        any = 1;
      }
  }
  return any;
}

/* ---- --jit -------------------------------------------------------------------------------- */
static void jit_warning(const sim_call *c, const lg_diag *jd) {
  note(c, "%s: warning: `jit`: %s%s%s%s; using the evaluation tape instead", c->s->lm->file,
       jd->message, jd->hint[0] ? " (" : "", jd->hint, jd->hint[0] ? ")" : "");
}

/* Asked by the integrator every few hundred right-hand sides while the
 * compiler works in the background. */
static num_rhs_fn poll_jit(void *ud) {
  sim_call *c = ud;
  lg_system *mut = (lg_system *)c->s;
  lg_diag jd;
  lg_diag_clear(&jd);
  pthread_mutex_lock(&mut->lock);
  struct api_sim_jit *j = mut->sim_jit;
  int r = cg_jit_poll(&j->jit, 0, &jd);
  if (r < 0 && !j->failed) {
    j->failed = 1;
    c->stats->jit_failed = 1;
    jit_warning(c, &jd);
  }
  num_rhs_fn fn = r > 0 ? j->jit.rhs : NULL;
  pthread_mutex_unlock(&mut->lock);
  return fn;
}

static void use_jit(sim_call *c, num_sim_opts *so) {
  const lg_system *s = c->s;
  const char *file = s->lm->file;
  if (c->o->jit == LG_JIT_OFF) return;
  if (s->ks) {
    note(c, "%s: warning: `jit` is not available for Kane's state [q; u]; using the "
            "evaluation tape", file);
    return;
  }
  if (so->integrator == NUM_INT_IDA || so->stabilize == NUM_STAB_BAUMGARTE) {
    note(c, "%s: note: `jit` compiles the right-hand side of the ODE integrators (adams, "
            "dopri, bdf, ...; without Baumgarte terms); this run evaluates the tape", file);
    return;
  }
  double start = wall_now();
  lg_system *mut = (lg_system *)s;
  pthread_mutex_lock(&mut->lock);
  struct api_sim_jit *j = sim_cache(s);
  lg_diag jd;
  lg_diag_clear(&jd);
  if (j && !j->started) {
    j->started = 1;
    cg_request r = {"lg_jit", file, s->lm->mech, s->kane_eom ? s->kane_eom : s->eom_num, NULL,
                    s->dummy, s->nsettings, NULL, 1, 0};
    if (cg_jit_start(&r, c->o->jit == LG_JIT_BACKGROUND, &j->jit, &jd) != LG_OK) {
      j->failed = c->stats->jit_failed = 1;
      jit_warning(c, &jd);
    }
  } else if (j && c->o->jit == LG_JIT_WAIT && !j->jit.rhs && !j->failed &&
             cg_jit_poll(&j->jit, 1, &jd) < 0) {
    j->failed = c->stats->jit_failed = 1;
    jit_warning(c, &jd);
  }
  if (j) {
    so->jit_rhs = j->jit.rhs;
    if (!j->jit.rhs && !j->failed && j->jit.pid > 0) {
      so->jit_poll = poll_jit;
      so->jit_ud = c;
      c->stats->jit_background = 1;
    }
  }
  pthread_mutex_unlock(&mut->lock);
  c->stats->jit_seconds = wall_now() - start;
}

/* After a run with a compiler in the background: it took over (jit), or
 * was not ready (jit_background stays 1), or is ready now or failed. */
static void jit_after(sim_call *c, const num_sim_opts *so) {
  lg_sim_stats *st = c->stats;
  if (!st->jit_background || c->ns.jit) return;
  if (so->jit_poll(c) != NULL || st->jit_failed) st->jit_background = 0;
}

/* The exact Jacobian of the simulated equations, compiled once (NULL
 * when it cannot be: the integrator then uses difference quotients, as
 * the command does). */
static const num_lin *sim_jacobian(const lg_system *s) {
  lg_system *mut = (lg_system *)s;
  pthread_mutex_lock(&mut->lock);
  if (!mut->sim_lin) {
    lg_diag local;
    lg_diag_clear(&local);
    const mech_eom *e = s->kane_eom ? s->kane_eom : s->eom_num;
    if (num_lin_build(s->lm->mech, e, s->sim, s->dummy, s->ndummy, &mut->sim_lin, &local) !=
        LG_OK)
      mut->sim_lin = NULL;
  }
  const num_lin *L = mut->sim_lin;
  pthread_mutex_unlock(&mut->lock);
  return L;
}

/* ---- the run ------------------------------------------------------------------------------ */
static int relay_point(void *ud, const num_sim_point *p) {
  const sim_call *c = ud;
  lg_sim_point pt = {p->t, p->q, p->qd, p->T, p->V, p->E, p->W, p->C, NULL, NULL, 0,
                     p->fn, p->fn ? lg_ncontact_columns(c->s) : 0};
  if (c->sc) { /* the multipliers and outputs at the point's state */
    const lg_system *s = c->s;
    lg_diag local;
    lg_diag_clear(&local);
    if (api_state_extras(s, c->sc, p->t, p->q, p->qd, c->lam, c->nsel ? c->all : NULL,
                         &local) != LG_OK) {
      for (size_t r = 0; c->lam && r < s->nc; r++) c->lam[r] = NAN;
      for (size_t i = 0; c->nsel && i < lg_noutputs(s); i++) c->all[i] = NAN;
    }
    for (size_t k = 0; k < c->nsel; k++) c->sel[k] = c->all[c->cols[k]];
    pt.lam = c->lam;
    pt.outputs = c->o->outputs ? c->sel : NULL;
    pt.noutputs = c->o->outputs ? c->nsel : 0;
  }
  return c->cb(c->ud, &pt);
}

/* ---- the multipliers and outputs of each point (issue 24) ------------------------------ */
/* The selection read and the outputs compiled before the run (a bad
 * selection or output refuses it); the buffers of every point. */
static lg_status extras_begin(sim_call *c, lg_diag *d) {
  const lg_system *s = c->s;
  const lg_sim_options *o = c->o;
  size_t nout = lg_noutputs(s), m = s->nc;
  int want_lam = o->multipliers && m;
  if (!want_lam && !o->outputs) return LG_OK;
  c->cols = lg_calloc(nout + 1, sizeof *c->cols);
  double *buf = lg_calloc(m + 2 * nout + 1, sizeof *buf);
  if (!c->cols || !buf) {
    lg_free(buf);
    return LG_ERR_NOMEM;
  }
  c->all = buf + m;
  c->sel = c->all + nout;
  if (want_lam) c->lam = buf;
  lg_status st = LG_OK;
  if (o->outputs) st = lg_output_select(s, o->output_names, c->cols, nout, &c->nsel, d);
  const num_outputs *no;
  if (st == LG_OK && c->nsel) st = api_outputs(s, &no, d);
  if (st == LG_OK && (want_lam || c->nsel) && !(c->sc = api_scratch_take(s))) st = LG_ERR_NOMEM;
  if (!c->sc) return st;
  if (st == LG_OK) {
    memcpy(c->sc->w.in + 1 + 2 * s->nq, c->par, s->np * sizeof *c->par);
    c->sc->par = c->par;
  }
  return st;
}

static void extras_end(sim_call *c) {
  api_scratch_give(c->s, c->sc);
  c->sc = NULL;
  lg_free(c->lam ? c->lam : c->all ? c->all - c->s->nc : NULL);
  lg_free(c->cols);
  c->lam = c->all = c->sel = NULL;
  c->cols = NULL;
}

/* A failed run: the diagnostic at the model line that matters (the
 * constraint row, or the coordinates line naming the coordinate). */
static void place_failure(const sim_call *c, const num_system *ns, lg_diag *d) {
  const mech_eom *e = c->s->ks ? c->s->eom : c->s->kane_eom ? c->s->kane_eom : c->s->eom;
  const num_sim_stats *st = &c->ns;
  size_t len = strlen(d->message);
  if (st->fail_row >= 0 && (size_t)st->fail_row < e->m) {
    d->line = e->row_line[st->fail_row];
    d->col = e->row_col[st->fail_row];
    snprintf(d->message + len, sizeof d->message - len, " (at constraint C%d)",
             st->fail_row + 1);
  } else if (st->fail_coord >= 0 && (size_t)st->fail_coord < ns->n) {
    d->line = c->s->lm->coord_line;
    d->col = c->s->lm->coord_col;
    char named[300];
    snprintf(named, sizeof named, "coordinate %s", ns->coord_names[st->fail_coord]);
    if (!strstr(d->message, named))
      snprintf(d->message + len, sizeof d->message - len, " (coordinate %s)",
               ns->coord_names[st->fail_coord]);
  }
}

/* Kane's state kept on the configuration constraints during the run, as
 * Lagrange's: when C (holonomic rows) or C' drift past PROJECT_TOL, q and
 * q' = k(q, u) are projected (num_project over Lagrange's equations) and
 * the speeds taken again from the projected q'. */
static const double PROJECT_TOL = 1e-11;

typedef struct kane_keep {
  const sim_call *c;
  const num_system *ns;
  const num_kane_system *ks;
  num_work w;
  double *work, *x, *qd, *C;
} kane_keep;

static int keep_on_constraints(void *ud, double t, double *q, double *u) {
  kane_keep *k = ud;
  const num_system *ns = k->ns;
  const num_kane_system *ks = k->ks;
  size_t n = ns->n, m = ns->m;
  memcpy(k->x, q, n * sizeof *q);
  memcpy(k->x + n, u, ks->p * sizeof *u);
  num_kane_observe(ks, k->work, t, k->x);
  memcpy(k->qd, k->work + ks->o_out + ks->o_kq, n * sizeof *k->qd);
  num_residuals(ns, &k->w, t, q, k->qd, k->C, k->C + m);
  double worst = 0;
  for (size_t r = 0; r < m; r++) {
    double a = fabs(k->C[m + r]);
    if (ns->row_holonomic[r]) a = fmax(a, fabs(k->C[r]));
    worst = fmax(worst, a);
  }
  if (!(worst > PROJECT_TOL)) return 0;
  lg_diag d;
  lg_diag_clear(&d);
  num_kane_result r;
  memset(&r, 0, sizeof r);
  if (num_project(ns, &k->w, t, q, k->qd, 1e-13, &d) != LG_OK ||
      num_kane_evaluator_run(k->c->s->kev, k->c->par, t, q, k->qd, NULL, 0, &r, &d) != LG_OK) {
    num_kane_result_free(&r);
    return 1; /* q may have moved: the integrator restarts from it */
  }
  num_kane_initial_speeds(k->c->s->kane, &r, u);
  num_kane_result_free(&r);
  return 1;
}

/* Set up keeping when the model has a configuration constraint (0: not
 * needed or no memory, which leaves the run as it was). */
static int keep_init(kane_keep *k, const sim_call *c, const num_system *ns,
                     const num_kane_system *ks) {
  memset(k, 0, sizeof *k);
  int holonomic = 0;
  for (size_t r = 0; r < ns->m; r++) holonomic |= ns->row_holonomic[r] != 0;
  if (!holonomic || num_work_init(ns, &k->w) != LG_OK) return 0;
  k->c = c;
  k->ns = ns;
  k->ks = ks;
  k->work = num_kane_scratch(ks);
  k->x = lg_calloc(ns->n + ks->p + 2 * ns->n + 2 * ns->m + 1, sizeof *k->x);
  if (!k->work || !k->x) {
    lg_free(k->work);
    lg_free(k->x);
    num_work_free(&k->w);
    memset(k, 0, sizeof *k);
    return 0;
  }
  k->qd = k->x + ns->n + ks->p;
  k->C = k->qd + ns->n;
  return 1;
}

static void keep_free(kane_keep *k) {
  if (!k->c) return;
  lg_free(k->work);
  lg_free(k->x);
  num_work_free(&k->w);
}

/* Kane's own state [q; u] (every speed when some are dependent): the
 * initial state checked as under Lagrange's method, then the speeds from
 * the model's initial ones or from q' through the kinematical equations. */
static lg_status simulate_kane(sim_call *c, const num_sim_opts *so, double *q, double *qd,
                               int model_speeds, lg_diag *d) {
  const lg_system *s = c->s;
  num_system ns = *s->num; /* the constraint test: Lagrange's equations */
  ns.params = (double *)c->par;
  num_kane_result r;
  memset(&r, 0, sizeof r);
  double *u_init = lg_calloc(s->kane->p + 1, sizeof *u_init);
  double *u0 = lg_calloc(s->ks->p + 1, sizeof *u0);
  lg_status st = u_init && u0 ? LG_OK : LG_ERR_NOMEM;
  int have_u = st == LG_OK && model_speeds && initial_speeds(s, u_init), moved = 0;
  if (st == LG_OK && have_u) { /* the model's speeds define q' */
    st = num_kane_evaluator_run(s->kev, c->par, so->t0, q, qd, u_init, 1, &r, d);
    if (st == LG_OK) memcpy(qd, r.qd, ns.n * sizeof *qd);
  }
  if (st == LG_OK) st = check_initial(c, &ns, so->t0, q, qd, &moved, d);
  if (st == LG_OK && (!have_u || moved)) {
    num_kane_result_free(&r);
    st = num_kane_evaluator_run(s->kev, c->par, so->t0, q, qd, NULL, 0, &r, d);
  }
  if (st == LG_OK) {
    num_kane_initial_speeds(s->kane, &r, u0);
    num_kane_system ks = *s->ks; /* the tapes shared, the parameters the call's */
    ks.params = (double *)c->par;
    num_sim_opts kso = *so;
    kane_keep keep;
    if (keep_init(&keep, c, &ns, &ks)) {
      kso.kane_project = keep_on_constraints;
      kso.kane_project_ud = &keep;
    }
    api_kane_reset kr = {0};
    if (so->events && (st = api_kane_reset_init(&kr, s, &ns, so->events, c->par,
                                                so->events_project)) == LG_OK) {
      kso.kane_reset = api_kane_reset_hook;
      kso.kane_reset_ud = &kr;
    }
    double t = wall_now();
    c->ran = 1;
    if (st == LG_OK) st = num_simulate_kane(&ks, &kso, q, u0, relay_point, c, &c->ns, d);
    keep_free(&keep);
    api_kane_reset_free(&kr);
    c->stats->wall = wall_now() - t;
    if (st != LG_OK) place_failure(c, &ns, d);
    if (c->o->qd_end) { /* q' at the end through the kinematical equations */
      double *work = num_kane_scratch(&ks);
      if (work) {
        double *x = lg_calloc(ks.n + ks.p + 1, sizeof *x);
        if (x) {
          memcpy(x, q, ks.n * sizeof *x);
          memcpy(x + ks.n, u0, ks.p * sizeof *x);
          num_kane_observe(&ks, work, c->ns.t_end, x);
          memcpy(qd, work + ks.o_out + ks.o_kq, ks.n * sizeof *qd);
        }
        lg_free(x);
      }
      lg_free(work);
    }
  }
  num_kane_result_free(&r);
  lg_free(u_init);
  lg_free(u0);
  return st;
}

static lg_status simulate(sim_call *c, double *q, double *qd, int model_speeds, lg_diag *d) {
  const lg_system *s = c->s;
  num_sim_opts so;
  lg_status st = to_num_options(s, c->o, &so, d);
  if (st == LG_OK && c->o->stop_when) st = build_stop(c, d);
  if (st == LG_OK) st = extras_begin(c, d);
  if (st != LG_OK) return st;
  num_aux aux = *(c->aux ? c->aux : s->aux); /* the tapes shared, the parameters the call's */
  aux.params = (double *)c->par;
  so.aux = &aux;
  num_aux_describe(&aux, c->stats->energy, sizeof c->stats->energy);
  const num_events *ev = NULL;
  num_events evc;
  if ((st = api_sim_events(s, &ev, d)) != LG_OK) return st;
  if (ev) { /* the tapes shared, the parameters the call's */
    evc = *ev;
    evc.params = c->par;
    so.events = &evc;
    so.events_project = c->o->project;
    char *en = c->stats->energy;
    size_t k = strlen(en);
    if (!strncmp(en, "conservative", 12))
      snprintf(en, sizeof c->stats->energy, "W: the energy events' resets changed");
    else snprintf(en + k, sizeof c->stats->energy - k, ", events' resets");
  }
  const num_friction *fr = NULL;
  num_friction frc;
  if ((st = api_sim_friction(s, &fr, d)) != LG_OK) return st;
  if (fr) { /* the tapes shared, the parameters the call's; W holds its work */
    frc = *fr;
    frc.params = c->par;
    so.friction = &frc;
    aux.work = 1;
    if (!strncmp(c->stats->energy, "conservative", 12))
      snprintf(c->stats->energy, sizeof c->stats->energy, "work by friction");
    else {
      size_t k = strlen(c->stats->energy);
      snprintf(c->stats->energy + k, sizeof c->stats->energy - k, ", friction");
    }
  }
  const num_contact *ct = NULL;
  num_contact ctc;
  if ((st = api_sim_contact(s, &ct, d)) != LG_OK) return st;
  if (ct) { /* the tapes shared, the parameters the call's; W holds the impacts' losses */
    ctc = *ct;
    ctc.params = c->par;
    so.contact = &ctc;
    aux.work = 1;
    if (!strncmp(c->stats->energy, "conservative", 12))
      snprintf(c->stats->energy, sizeof c->stats->energy, "work by impacts");
    else {
      size_t k = strlen(c->stats->energy);
      snprintf(c->stats->energy + k, sizeof c->stats->energy - k, ", impacts");
    }
  }
  if (s->ks) {
    use_jit(c, &so);
    return simulate_kane(c, &so, q, qd, model_speeds, d);
  }
  num_system ns = *s->sim;
  ns.params = (double *)c->par;
  st = check_initial(c, &ns, so.t0, q, qd, NULL, d);
  if (st == LG_OK && fr) st = api_friction_check(s, &frc, so.t0, q, qd, d);
  if (st == LG_OK && ct) st = api_contact_check(s, &ctc, so.t0, q, qd, so.atol, d);
  if (st != LG_OK) return st;
  if (!fr && !ct) use_jit(c, &so); /* modes: the tape's augmented solve */
  /* BDF and IDA take the exact Jacobian, as the command's simulate */
  num_lin jac;
  const num_lin *L;
  if (!fr && !ct && (so.integrator == NUM_INT_BDF || so.integrator == NUM_INT_IDA) &&
      so.stabilize != NUM_STAB_BAUMGARTE && (L = sim_jacobian(s)) != NULL) {
    jac = *L;
    jac.s = &ns;
    so.jac = &jac;
  }
  double t = wall_now();
  c->ran = 1;
  st = num_simulate(&ns, &so, q, qd, relay_point, c, &c->ns, d);
  c->stats->wall = wall_now() - t;
  if (st != LG_OK) place_failure(c, &ns, d);
  jit_after(c, &so);
  return st;
}

static int no_output(void *ud, const lg_sim_point *p) {
  (void)ud, (void)p;
  return 0;
}

lg_status lg_simulate(const lg_system *s, const lg_sim_options *o, const double *q0,
                      const double *qd0, const double *p, lg_sim_callback cb, void *ud,
                      lg_sim_stats *stats, lg_diag *diag) {
  api_call ac;
  lg_diag *d = api_begin(&ac, diag);
  lg_sim_stats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  stats->integrator = "";
  if (!s) {
    lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "lg_simulate: a system is needed");
    return api_end(&ac, LG_ERR_USAGE, NULL, 0, 0);
  }
  lg_sim_options def;
  if (!o) {
    lg_sim_options_default(s, &def);
    o = &def;
  }
  sim_call c = {.s = s, .o = o, .cb = cb ? cb : no_output, .ud = ud, .stats = stats};
  memset(&c.ns, 0, sizeof c.ns);
  c.ns.t_end = o->t0;
  size_t n = s->nq;
  double *x = lg_calloc(2 * n + 1, sizeof *x);
  lg_status st = x ? api_params(s, p, &c.par, d) : LG_ERR_NOMEM;
  if (st == LG_OK) st = api_ready_sim(s, d); /* (a lazy large tree's last step) */
  if (st == LG_OK) {
    memcpy(x, q0 ? q0 : s->lm->q0, n * sizeof *x);
    memcpy(x + n, qd0 ? qd0 : s->lm->qd0, n * sizeof *x);
    st = simulate(&c, x, x + n, qd0 == NULL, d);
    extras_end(&c);
    if (o->q_end) memcpy(o->q_end, x, n * sizeof *x);
    if (o->qd_end) memcpy(o->qd_end, x + n, n * sizeof *x);
  }
  lg_free(x);
  stats->steps = c.ns.steps;
  stats->rhs_evals = c.ns.rhs_evals;
  stats->t_end = c.ns.t_end;
  stats->max_energy_drift = c.ns.max_energy_drift;
  stats->max_residual = c.ns.max_residual;
  stats->energy_scale = c.ns.energy_scale;
  stats->stopped = c.ns.stopped;
  stats->events = c.ns.events;
  stats->event_work = c.ns.event_work;
  stats->friction_switches = c.ns.friction_switches;
  stats->impacts = c.ns.impacts;
  stats->liftoffs = c.ns.liftoffs;
  stats->jit = c.ns.jit;
  stats->jit_t = c.ns.jit_t;
  if (c.ran) stats->integrator = num_integrator_name(c.ns.integrator);
  return api_end(&ac, st, s->lm->file, s->lm->coord_line, s->lm->coord_col);
}

lg_status lg_sim_options_check(const lg_system *s, const lg_sim_options *o, lg_diag *diag) {
  api_call ac;
  lg_diag *d = api_begin(&ac, diag);
  if (!s || !o) {
    lg_diag_set(d, LG_ERR_USAGE, NULL, 0, 0, "lg_sim_options_check: a system and options are "
                "needed");
    return api_end(&ac, LG_ERR_USAGE, NULL, 0, 0);
  }
  lg_sim_stats stats;
  memset(&stats, 0, sizeof stats);
  sim_call c = {.s = s, .o = o, .stats = &stats};
  num_sim_opts so;
  lg_status st = api_ready_sim(s, d);
  if (st == LG_OK) st = to_num_options(s, o, &so, d);
  if (st == LG_OK && o->stop_when) st = build_stop(&c, d);
  if (st == LG_OK && o->outputs) {
    size_t nout = lg_noutputs(s), count = 0;
    size_t *cols = lg_calloc(nout + 1, sizeof *cols);
    st = cols ? lg_output_select(s, o->output_names, cols, nout, &count, d) : LG_ERR_NOMEM;
    const num_outputs *no;
    if (st == LG_OK && count) st = api_outputs(s, &no, d);
    lg_free(cols);
  }
  return api_end(&ac, st, s->lm->file, s->lm->coord_line, s->lm->coord_col);
}

/* ---- runs over parameter vectors ----------------------------------------------------------- */
long lg_parameter_index(const lg_system *s, const char *name) {
  for (size_t i = 0; s && name && i < s->np; i++)
    if (!strcmp(lg_parameter_name(s, i), name)) return (long)i;
  return -1;
}

long lg_coordinate_index(const lg_system *s, const char *name) {
  for (size_t i = 0; s && name && i < s->nq; i++)
    if (!strcmp(lg_coordinate_name(s, i), name)) return (long)i;
  return -1;
}

void lg_coordinates_position(const lg_system *s, int *line, int *col) {
  if (line) *line = s ? s->lm->coord_line : 0;
  if (col) *col = s ? s->lm->coord_col : 0;
}

lg_status lg_params_with(const lg_system *s, size_t n, const char *const *names,
                         const double *values, double *p, lg_diag *diag) {
  api_call ac;
  lg_diag *d = api_begin(&ac, diag);
  if (!s || !p || (n && (!names || !values))) {
    lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
                "lg_params_with: a system, an output and n names and values are needed");
    return api_end(&ac, LG_ERR_USAGE, NULL, 0, 0);
  }
  mech_model *mm = s->lm->mech;
  for (size_t k = 0; k < n; k++) {
    int known = names[k] != NULL;
    for (size_t i = 0; known == 1 && i < mech_nparams(mm); i++)
      if (!strcmp(mech_param_name(mm, i), names[k])) known = 2;
    for (size_t i = 0; known == 1 && i < mech_ninputs(mm); i++)
      if (!strcmp(mech_input_name(mm, i), names[k])) known = 2;
    if (known != 2) {
      lg_diag_set(d, LG_ERR_USAGE, s->lm->file, 0, 0, "'%s' is no parameter or input of the "
                  "model", names[k] ? names[k] : "(null)");
      return api_end(&ac, LG_ERR_USAGE, s->lm->file, 0, 0);
    }
  }
  if (!n) {
    lg_default_params(s, p);
    return api_end(&ac, LG_OK, NULL, 0, 0);
  }
  mech_setting *set = lg_malloc((s->nsettings + n) * sizeof *set);
  lg_status st = set ? LG_OK : LG_ERR_NOMEM;
  if (set) {
    if (s->nsettings) memcpy(set, s->dummy, s->nsettings * sizeof *set);
    for (size_t k = 0; k < n; k++) {
      set[s->nsettings + k].name = names[k];
      set[s->nsettings + k].value = values[k];
    }
    lg_system *mut = (lg_system *)s;
    pthread_mutex_lock(&mut->lock);
    st = mech_resolve_params(mm, set, s->nsettings + n, p, d);
    pthread_mutex_unlock(&mut->lock);
  }
  lg_free(set);
  return api_end(&ac, st, s->lm->file, 0, 0);
}
