/* cli_eval.c - `lagrange eval`: everything evaluated at one state. */
#include "cli.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse "q1=0.3, q1'=0.5" into q and qd (which start at the model's
 * initial values). Returns CLI_EXIT_USAGE with a message on bad input. */
static int speed_index(const mech_kane *k, const char *name) {
  for (size_t i = 0; k && !k->default_speeds && i < k->p; i++)
    if (!strcmp(k->u[i]->v.name, name)) return (int)i;
  return -1;
}

int cli_parse_state(const char *s, const lang_model *lm, double *q, double *qd,
                    const mech_kane *kane, double *u, int *have_u) {
  const char *p = s;
  while (*p) {
    while (*p == ' ' || *p == ',' || *p == '\t') p++;
    if (!*p) break;
    const char *name = p;
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    size_t len = (size_t)(p - name);
    int primes = 0;
    while (*p == '\'') { primes++; p++; }
    while (*p == ' ') p++;
    if (!len || *p != '=' || primes > 1) {
      fprintf(stderr, "lagrange eval: --state: expected NAME=VALUE or NAME'=VALUE at '%s'\n", name);
      return CLI_EXIT_USAGE;
    }
    char buf[128];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < 127 ? len : 127), name);
    int k = lang_coord_index(lm, buf), su = speed_index(kane, buf);
    if (su >= 0 && !primes) {
      char *end;
      u[su] = strtod(p + 1, &end);
      *have_u = 1;
      p = end;
      while (*p == ' ') p++;
      continue;
    }
    if (k < 0) {
      fprintf(stderr, "lagrange eval: --state: '%s' is not a coordinate of %s\n", buf, lm->file);
      return CLI_EXIT_USAGE;
    }
    char *end;
    double v = strtod(p + 1, &end);
    if (end == p + 1) {
      fprintf(stderr, "lagrange eval: --state: '%s' needs a number\n", buf);
      return CLI_EXIT_USAGE;
    }
    (primes ? qd : q)[k] = v;
    p = end;
    while (*p == ' ') p++;
    if (*p && *p != ',') {
      fprintf(stderr, "lagrange eval: --state: expected ',' before '%s'\n", p);
      return CLI_EXIT_USAGE;
    }
  }
  return CLI_EXIT_OK;
}

typedef struct result {
  const num_system *s;
  const num_work *w;
  double t, *q, *qd, *qdd, *lam;
} result;

static void json_array(lg_str *o, const char *key, const double *x, size_t n) {
  lg_str_printf(o, ",\n  \"%s\": [", key);
  for (size_t i = 0; i < n; i++) {
    if (i) lg_str_puts(o, ", ");
    cli_json_number(o, x[i]);
  }
  lg_str_putc(o, ']');
}

static void json_matrix_raw(lg_str *o, const char *key, const double *a, size_t rows,
                            size_t cols) {
  lg_str_printf(o, ",\n  \"%s\": [", key);
  for (size_t i = 0; i < rows; i++) {
    lg_str_puts(o, i ? ",\n    [" : "\n    [");
    for (size_t j = 0; j < cols; j++) {
      if (j) lg_str_puts(o, ", ");
      cli_json_number(o, a[i * cols + j]);
    }
    lg_str_putc(o, ']');
  }
  lg_str_putc(o, ']');
}

static void write_json(lg_str *o, const result *r) {
  const num_system *s = r->s;
  const double *out = r->w->out;
  size_t n = s->n, m = s->m;
  lg_str_puts(o, "{\n  \"coordinates\": [");
  for (size_t i = 0; i < n; i++) {
    if (i) lg_str_puts(o, ", ");
    cli_json_string(o, s->coord_names[i]);
  }
  lg_str_puts(o, "],\n  \"multipliers\": [");
  for (size_t k = 0; k < m; k++) lg_str_printf(o, "%s\"lam%zu\"", k ? ", " : "", k + 1);
  lg_str_puts(o, "],\n  \"t\": ");
  cli_json_number(o, r->t);
  json_array(o, "q", r->q, n);
  json_array(o, "qd", r->qd, n);
  json_array(o, "qdd", r->qdd, n);
  json_array(o, "lam", r->lam, m);
  /* J^T lam and the assembled matrices: the library's (num_forms.c) */
  size_t N = 2 * n + m;
  double *cf = lg_calloc(n + 1, sizeof *cf), *ff = lg_calloc(N + 1, sizeof *ff);
  double *mm = lg_calloc(n * (n + m) + 1, sizeof *mm), *mf = lg_calloc(N * N + 1, sizeof *mf);
  if (cf) num_constraint_forces(s, r->w, r->lam, cf);
  if (cf) json_array(o, "constraint_forces", cf, n);
  if (mm) num_mass_matrix(s, r->w, mm);
  if (mm) json_matrix_raw(o, "mass_matrix", mm, n, n + m);
  json_array(o, "forcing", out + s->o_f, n);
  if (mf) num_mass_matrix_full(s, r->w, mf);
  if (mf) json_matrix_raw(o, "mass_matrix_full", mf, N, N);
  if (ff) num_forcing_full(s, r->w, r->qd, ff);
  if (ff) json_array(o, "forcing_full", ff, N);
  lg_str_puts(o, ",\n  \"T\": ");
  cli_json_number(o, out[s->o_T]);
  lg_str_puts(o, ",\n  \"V\": ");
  cli_json_number(o, out[s->o_V]);
  json_array(o, "momenta", out + s->o_p, n);
  json_array(o, "constraint_residuals", out + s->o_C, m);
  lg_str_puts(o, "\n}\n");
  lg_free(cf);
  lg_free(ff);
  lg_free(mm);
  lg_free(mf);
}

/* "name = value" with the shortest round-trip form of the value */
static void put_value(lg_str *o, const char *name, const char *suffix, double x,
                      const char *end) {
  char buf[LG_DOUBLE_CHARS];
  lg_str_printf(o, "%s%s = %s%s", name, suffix, lg_fmt_double(buf, x), end);
}

static void write_text(lg_str *o, const result *r) {
  const num_system *s = r->s;
  put_value(o, "t", "", r->t, "\n");
  for (size_t i = 0; i < s->n; i++) {
    put_value(o, s->coord_names[i], "", r->q[i], ", ");
    put_value(o, s->coord_names[i], "'", r->qd[i], ", ");
    put_value(o, s->coord_names[i], "''", r->qdd[i], "\n");
  }
  for (size_t k = 0; k < s->m; k++) {
    char name[32];
    snprintf(name, sizeof name, "lam%zu", k + 1);
    put_value(o, name, "", r->lam[k], "\n");
  }
  put_value(o, "T", "", r->w->out[s->o_T], "\n");
  put_value(o, "V", "", r->w->out[s->o_V], "\n");
}

static int evaluate(const cli_opts *o, lang_model *lm, const num_system *s) {
  num_work w;
  if (num_work_init(s, &w) != LG_OK) return CLI_EXIT_MODEL;
  size_t n = s->n;
  double *buf = lg_calloc(4 * n + s->m + 1, sizeof *buf);
  int rc = buf ? CLI_EXIT_OK : CLI_EXIT_MODEL;
  result r = {s, &w, o->t, buf, buf + n, buf + 2 * n, buf + 3 * n};
  if (buf) {
    memcpy(r.q, lm->q0, n * sizeof *r.q);
    memcpy(r.qd, lm->qd0, n * sizeof *r.qd);
  }
  int have_u = 0;
  if (rc == CLI_EXIT_OK && o->state) rc = cli_parse_state(o->state, lm, r.q, r.qd, NULL, NULL, &have_u);
  if (rc == CLI_EXIT_OK) {
    lg_diag d;
    lg_diag_clear(&d);
    num_evaluate(s, &w, r.t, r.q, r.qd);
    if (num_solve_accel(s, &w, r.qdd, r.lam, &d) != LG_OK) rc = cli_report(&d, lm, o->model);
  }
  if (rc == CLI_EXIT_OK) {
    lg_str out;
    lg_str_init(&out);
    if (o->json) write_json(&out, &r);
    else write_text(&out, &r);
    fwrite(out.s, 1, out.len, stdout);
    lg_str_free(&out);
  }
  lg_free(buf);
  num_work_free(&w);
  return rc;
}

/* ---- Kane's method -------------------------------------------------------------------- */
static void write_kane_json(lg_str *o, const num_system *s, const num_work *w,
                            const mech_kane *k, const num_kane_result *r, double t,
                            const double *q) {
  size_t n = s->n, p = k->p;
  lg_str_puts(o, "{\n  \"method\": \"kane\",\n  \"coordinates\": [");
  for (size_t i = 0; i < n; i++) {
    if (i) lg_str_puts(o, ", ");
    cli_json_string(o, s->coord_names[i]);
  }
  lg_str_puts(o, "],\n  \"speeds\": [");
  for (size_t i = 0; i < p; i++) {
    if (i) lg_str_puts(o, ", ");
    lg_str tmp;
    lg_str_init(&tmp);
    sym_print(&tmp, k->u[i], SYM_STYLE_TEXT, NULL, NULL);
    cli_json_string(o, tmp.s ? tmp.s : "");
    lg_str_free(&tmp);
  }
  lg_str_puts(o, "],\n  \"multipliers\": [],\n  \"t\": ");
  cli_json_number(o, t);
  json_array(o, "q", q, n);
  json_array(o, "qd", r->qd, n);
  json_array(o, "qdd", r->qdd, n);
  json_array(o, "u", r->u, p);
  json_array(o, "ud", r->ud, p);
  lg_str_puts(o, ",\n  \"lam\": null,\n  \"constraint_forces\": null");
  json_matrix_raw(o, "mass_matrix", r->M, p, p);
  json_array(o, "forcing", r->f, p);
  json_matrix_raw(o, "mass_matrix_full", r->Mfull, n + p, n + p);
  json_array(o, "forcing_full", r->ffull, n + p);
  lg_str_puts(o, ",\n  \"T\": ");
  cli_json_number(o, w->out[s->o_T]);
  lg_str_puts(o, ",\n  \"V\": ");
  cli_json_number(o, w->out[s->o_V]);
  json_array(o, "momenta", w->out + s->o_p, n);
  lg_str_puts(o, "\n}\n");
}

/* Kane's accelerations, with T, V and momenta from the Lagrangian at the
 * same (q, q'). */
static int evaluate_kane(const cli_opts *o, lang_model *lm, const num_system *s,
                         const mech_kane *k) {
  size_t n = s->n;
  double *buf = lg_calloc(3 * n + k->p + 1, sizeof *buf);
  if (!buf) return CLI_EXIT_MODEL;
  double *q = buf, *qd = buf + n, *u = buf + 2 * n;
  memcpy(q, lm->q0, n * sizeof *q);
  memcpy(qd, lm->qd0, n * sizeof *qd);
  int have_u = 0, rc = CLI_EXIT_OK;
  if (o->state) rc = cli_parse_state(o->state, lm, q, qd, k, u, &have_u);
  num_kane_result r;
  lg_diag d;
  lg_diag_clear(&d);
  if (rc == CLI_EXIT_OK &&
      num_kane_eval(lm->mech, k, o->set, o->nset, o->t, q, qd, u, have_u, &r, &d) != LG_OK)
    rc = cli_report(&d, lm, o->model);
  else if (rc == CLI_EXIT_OK) {
    num_work w;
    if (num_work_init(s, &w) == LG_OK) {
      num_evaluate(s, &w, o->t, q, r.qd);
      lg_str out;
      lg_str_init(&out);
      write_kane_json(&out, s, &w, k, &r, o->t, q);
      fwrite(out.s, 1, out.len, stdout);
      lg_str_free(&out);
      num_work_free(&w);
    } else rc = CLI_EXIT_MODEL;
    num_kane_result_free(&r);
  }
  lg_free(buf);
  return rc;
}

int cli_eval(const cli_opts *o) {
  lang_model *lm;
  mech_eom *e;
  int rc = cli_load(o, &lm, &e);
  if (rc != CLI_EXIT_OK) return rc;
  num_system *s;
  lg_diag d;
  lg_diag_clear(&d);
  if (num_system_build(lm->mech, e, o->set, o->nset, &s, &d) != LG_OK) {
    rc = cli_report(&d, lm, o->model);
  } else {
    mech_kane *k = NULL;
    if (!strcmp(o->method, "kane")) {
      rc = cli_load_kane(o, lm, &k);
      if (rc == CLI_EXIT_OK) rc = evaluate_kane(o, lm, s, k);
    } else {
      rc = evaluate(o, lm, s);
    }
    num_system_free(s);
  }
  lang_model_free(lm);
  return rc;
}
