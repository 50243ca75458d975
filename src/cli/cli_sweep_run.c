/* cli_sweep_run.c - one run of a sweep: the run's values put into a
 * private copy of the compiled system (its own parameter vector; the tapes
 * are shared read-only), simulate's initial-state rule, num_simulate, and
 * the CSV row: run, the values, the end state, max |C| over the output
 * points, the energy drift simulate reports (max |(E - W) - (E0 - W0)|),
 * t_end and the status. */
#include "cli_sweep.h"

#include <math.h>
#include <string.h>

void sweep_header(const sweep_ctx *c, lg_str *out) {
  const num_system *s = c->S->s;
  lg_str_puts(out, "run");
  for (size_t j = 0; j < c->sp->nv; j++) lg_str_printf(out, ",%s", c->sp->v[j].name);
  for (size_t i = 0; i < s->n; i++) lg_str_printf(out, ",%s_end", s->coord_names[i]);
  for (size_t i = 0; i < s->n; i++) lg_str_printf(out, ",%s'_end", s->coord_names[i]);
  lg_str_puts(out, ",max_abs_C,energy_drift,t_end,status\n");
}

/* What a run keeps of its output points. */
typedef struct tracker { size_t m; double max_c; } tracker;

static int on_point(void *ud, const num_sim_point *p) {
  tracker *tr = ud;
  for (size_t r = 0; r < tr->m; r++)
    if (!(fabs(p->C[r]) <= tr->max_c)) tr->max_c = fabs(p->C[r]); /* NaN sticks */
  return 0;
}

/* The run's parameter vector: the shared values, or (a parameter varied)
 * resolved again with the run's values as the last --set, so parameters
 * defined from it follow (I = m*l^2/12). */
static int run_params(const sweep_ctx *c, const double *val, double *P, char *why,
                      size_t nwhy) {
  const cli_opts *o = c->o;
  const sweep_spec *sp = c->sp;
  size_t np = 0;
  memcpy(P, c->S->s->params, c->S->s->np * sizeof *P);
  for (size_t j = 0; j < sp->nv; j++) np += sp->v[j].kind == SWEEP_PARAM;
  if (!np) return 1;
  num_setting *set = lg_malloc((o->nset + np) * sizeof *set);
  if (!set) return snprintf(why, nwhy, "out of memory"), 0;
  if (o->nset) memcpy(set, o->set, o->nset * sizeof *set);
  size_t ns = o->nset;
  for (size_t j = 0; j < sp->nv; j++)
    if (sp->v[j].kind == SWEEP_PARAM) {
      set[ns].name = sp->v[j].name;
      set[ns++].value = val[j];
    }
  lg_diag d;
  lg_diag_clear(&d);
  if (c->lock) pthread_mutex_lock(c->lock);
  lg_status st = mech_resolve_params(c->S->lm->mech, set, ns, P, &d);
  if (c->lock) pthread_mutex_unlock(c->lock);
  lg_free(set);
  cli_diag_as_flags(&d);
  if (st != LG_OK) snprintf(why, nwhy, "%s", d.message[0] ? d.message : "out of memory");
  return st == LG_OK;
}

/* "MODEL:12:3: what (hint)\n..." -> "what (hint)": the first message. */
static void reason(const char *model, const char *msg, char *why, size_t nwhy) {
  size_t ml = strlen(model);
  if (!strncmp(msg, model, ml) && msg[ml] == ':') {
    const char *p = msg + ml + 1;
    while ((*p >= '0' && *p <= '9') || *p == ':') p++;
    msg = *p == ' ' ? p + 1 : msg;
  }
  snprintf(why, nwhy, "%.*s", (int)strcspn(msg, "\r\n"), msg);
}

/* The status field: quoted as CSV wants when it holds a comma or quote. */
static void put_status(lg_str *out, const char *why) {
  if (!why) {
    lg_str_puts(out, "ok\n");
    return;
  }
  if (!strpbrk(why, ",\"")) {
    lg_str_printf(out, "failed: %s\n", why);
    return;
  }
  lg_str_puts(out, "\"failed: ");
  for (const char *p = why; *p; p++) {
    if (*p == '"') lg_str_putc(out, '"');
    lg_str_putc(out, *p);
  }
  lg_str_puts(out, "\"\n");
}

static void put_num(lg_str *out, double x) {
  char b[LG_DOUBLE_CHARS];
  lg_str_putc(out, ',');
  lg_str_puts(out, lg_fmt_double(b, x));
}

/* Simulate from (q, qd) with the parameters P; NULL or why it failed. */
static const char *simulate_run(const sweep_ctx *c, double *P, double *q, double *qd,
                                num_sim_stats *st, double *max_c, int *integrated, char *why,
                                size_t nwhy) {
  const cli_sim *S = c->S;
  num_system rs = *S->s;
  rs.params = P;
  num_sim_opts so = S->so;
  num_aux ra;
  num_lin rl;
  if (so.aux) { ra = *so.aux; ra.params = P; so.aux = &ra; }
  if (so.jac) { rl = *so.jac; rl.s = &rs; so.jac = &rl; }
  lg_str msg;
  lg_str_init(&msg);
  int rc = cli_sim_check_initial(c->o, S, &rs, q, qd, 0, &msg);
  if (rc != CLI_EXIT_OK) {
    reason(c->o->model, msg.s ? msg.s : "out of memory", why, nwhy);
    lg_str_free(&msg);
    return why;
  }
  lg_str_free(&msg);
  tracker tr = {rs.m, 0};
  lg_diag d;
  lg_diag_clear(&d);
  lg_status status = num_simulate(&rs, &so, q, qd, on_point, &tr, st, &d);
  *max_c = tr.max_c;
  *integrated = 1;
  if (status == LG_OK) return NULL;
  char buf[1200];
  cli_format_diag(&d, S->lm, c->o->model, buf, sizeof buf);
  reason(c->o->model, buf, why, nwhy);
  return why;
}

int sweep_run(const sweep_ctx *c, size_t k, lg_str *out) {
  const cli_sim *S = c->S;
  const sweep_spec *sp = c->sp;
  size_t n = S->s->n, np = S->s->np;
  double *val = lg_malloc((sp->nv + 2 * n + np + 1) * sizeof *val);
  if (!val) return lg_str_printf(out, "%zu,failed: out of memory\n", k), 0;
  double *q = val + sp->nv, *qd = q + n, *P = qd + n;
  sweep_values(sp, k, val);
  memcpy(q, S->lm->q0, n * sizeof *q);
  memcpy(qd, S->lm->qd0, n * sizeof *qd);
  for (size_t j = 0; j < sp->nv; j++)
    if (sp->v[j].kind != SWEEP_PARAM)
      (sp->v[j].kind == SWEEP_COORD ? q : qd)[sp->v[j].index] = val[j];
  char why_buf[1200];
  const char *why = why_buf;
  num_sim_stats st;
  memset(&st, 0, sizeof st);
  st.t_end = S->so.t0;
  double max_c = NAN;
  int integrated = 0;
  if (run_params(c, val, P, why_buf, sizeof why_buf))
    why = simulate_run(c, P, q, qd, &st, &max_c, &integrated, why_buf, sizeof why_buf);
  lg_str_printf(out, "%zu", k);
  for (size_t j = 0; j < sp->nv; j++) put_num(out, val[j]);
  for (size_t i = 0; i < 2 * n; i++) put_num(out, integrated ? q[i] : NAN);
  put_num(out, max_c);
  put_num(out, integrated ? st.max_energy_drift : NAN);
  put_num(out, st.t_end);
  lg_str_putc(out, ',');
  put_status(out, why);
  lg_free(val);
  return why == NULL;
}
