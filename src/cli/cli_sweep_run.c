/* cli_sweep_run.c - one run of a sweep: the run's parameter vector
 * (lg_params_with: parameters defined from a varied one follow) and
 * initial state, lg_simulate with the shared options (the system is
 * shared read-only), and the CSV row: run, the values, the end state,
 * max |C| over the output points, the energy drift simulate reports
 * (max |(E - W) - (E0 - W0)|), t_end and the status. */
#include "cli_sweep.h"

#include <math.h>
#include <string.h>

void sweep_header(const sweep_ctx *c, lg_str *out) {
  const lg_system *s = c->s;
  size_t n = lg_nq(s);
  lg_str_puts(out, "run");
  for (size_t j = 0; j < c->sp->nv; j++) lg_str_printf(out, ",%s", c->sp->v[j].name);
  for (size_t i = 0; i < n; i++) lg_str_printf(out, ",%s_end", lg_coordinate_name(s, i));
  for (size_t i = 0; i < n; i++) lg_str_printf(out, ",%s'_end", lg_coordinate_name(s, i));
  lg_str_puts(out, ",max_abs_C,energy_drift,t_end,status\n");
}

/* What a run keeps of its output points. */
typedef struct tracker { size_t m; double max_c; } tracker;

static int on_point(void *ud, const lg_sim_point *p) {
  tracker *tr = ud;
  for (size_t r = 0; r < tr->m; r++)
    if (!(fabs(p->C[r]) <= tr->max_c)) tr->max_c = fabs(p->C[r]); /* NaN sticks */
  return 0;
}

/* The run's parameter vector: the model's values with the run's as the
 * last --set, so parameters defined from them follow (I = m*l^2/12); 2:
 * no parameter varies (the defaults), 0: why not in why. */
static int run_params(const sweep_ctx *c, const double *val, double *P, char *why,
                      size_t nwhy) {
  const sweep_spec *sp = c->sp;
  size_t varied = 0;
  for (size_t j = 0; j < sp->nv; j++) varied += sp->v[j].kind == SWEEP_PARAM;
  if (!varied) return 2; /* the defaults: lg_simulate checks they all have a value */
  const char **names = lg_malloc((sp->nv + 1) * sizeof *names);
  double *vals = lg_malloc((sp->nv + 1) * sizeof *vals);
  size_t np = 0;
  lg_status st = names && vals ? LG_OK : LG_ERR_NOMEM;
  for (size_t j = 0; st == LG_OK && j < sp->nv; j++)
    if (sp->v[j].kind == SWEEP_PARAM) {
      names[np] = sp->v[j].name;
      vals[np++] = val[j];
    }
  lg_diag d;
  lg_diag_clear(&d);
  if (st == LG_OK) st = lg_params_with(c->s, np, names, vals, P, &d);
  lg_free(names);
  lg_free(vals);
  cli_diag_as_flags(&d);
  if (st != LG_OK) snprintf(why, nwhy, "%s", d.message[0] ? d.message : "out of memory");
  return st == LG_OK;
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

/* Simulate from (q, qd) with the parameters P (q, qd: the end state); NULL
 * or why it failed ("what (hint)", the first line). */
static const char *simulate_run(const sweep_ctx *c, const double *P, double *q, double *qd,
                                lg_sim_stats *st, double *max_c, char *why, size_t nwhy) {
  lg_sim_options so = *c->so;
  so.q_end = q;
  so.qd_end = qd;
  tracker tr = {lg_nc(c->s), 0};
  lg_diag d;
  lg_status status = lg_simulate(c->s, &so, q, qd, P, on_point, &tr, st, &d);
  *max_c = tr.max_c;
  if (status == LG_OK) return NULL;
  lg_diag loc = d;
  cli_diag_as_flags(&loc);
  if (status == LG_ERR_NOMEM) snprintf(loc.message, sizeof loc.message, "out of memory");
  if (status == LG_ERR_NOMEM || !loc.hint[0])
    snprintf(why, nwhy, "%s", loc.message);
  else
    snprintf(why, nwhy, "%s (%s)", loc.message, loc.hint);
  why[strcspn(why, "\r\n")] = 0;
  return why;
}

int sweep_run(const sweep_ctx *c, size_t k, lg_str *out) {
  const lg_system *s = c->s;
  const sweep_spec *sp = c->sp;
  size_t n = lg_nq(s), np = lg_np(s);
  double *val = lg_malloc((sp->nv + 2 * n + np + 1) * sizeof *val);
  if (!val) return lg_str_printf(out, "%zu,failed: out of memory\n", k), 0;
  double *q = val + sp->nv, *qd = q + n, *P = qd + n;
  sweep_values(sp, k, val);
  lg_initial_state(s, q, qd);
  for (size_t j = 0; j < sp->nv; j++)
    if (sp->v[j].kind != SWEEP_PARAM)
      (sp->v[j].kind == SWEEP_COORD ? q : qd)[sp->v[j].index] = val[j];
  char why_buf[1200];
  const char *why = why_buf;
  lg_sim_stats st;
  memset(&st, 0, sizeof st);
  st.t_end = c->so->t0;
  st.integrator = "";
  double max_c = NAN;
  int pr = run_params(c, val, P, why_buf, sizeof why_buf);
  if (pr)
    why = simulate_run(c, pr == 2 ? NULL : P, q, qd, &st, &max_c, why_buf, sizeof why_buf);
  int integrated = st.integrator && st.integrator[0];
  if (!integrated) max_c = NAN;
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
