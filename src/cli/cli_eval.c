/* cli_eval.c - `lagrange eval`: everything evaluated at one state. */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int speed_index(const mech_kane *k, const char *name) {
  for (size_t i = 0; k && !k->default_speeds && i < k->p; i++)
    if (!strcmp(k->u[i]->v.name, name)) return (int)i;
  return -1;
}

/* A declared speed that Kane's method made dependent: its index in udep. */
static int dependent_index(const mech_kane *k, const char *name) {
  for (size_t i = 0; k && !k->default_speeds && i < k->ndep; i++)
    if (!strcmp(k->udep[i]->v.name, name)) return (int)i;
  return -1;
}

/* Given values of dependent speeds (--state), to check against the
 * constraints once the independent ones are known. */
typedef struct dep_given {
  double *v;
  int *set;
} dep_given;

/* Parse "q1=0.3, q1'=0.5" (option `opt` of command `cmd`) into q and qd
 * (which start at the model's initial values), speeds into u (and dg for
 * dependent ones). Returns CLI_EXIT_USAGE with a message on bad input. */
static int parse_state(const char *cmd, const char *opt, const char *s, const lang_model *lm,
                       double *q, double *qd, const mech_kane *kane, double *u, int *have_u,
                       dep_given *dg) {
  cli_assign *a = NULL;
  size_t n = 0;
  int rc = cli_parse_assignments(cmd, opt, s, &a, &n);
  for (size_t i = 0; rc == CLI_EXIT_OK && i < n; i++) {
    const char *name = a[i].name;
    int k = lang_coord_index(lm, name), su = speed_index(kane, name);
    int sd = dg ? dependent_index(kane, name) : -1;
    if (su >= 0 && !a[i].primes) {
      u[su] = a[i].value;
      *have_u = 1;
    } else if (sd >= 0 && !a[i].primes) {
      dg->v[sd] = a[i].value;
      dg->set[sd] = 1;
    } else if (k >= 0) {
      (a[i].primes ? qd : q)[k] = a[i].value;
    } else {
      fprintf(stderr, "lagrange %s: %s: '%s' is not a coordinate of %s\n", cmd, opt, name,
              lm->file);
      rc = CLI_EXIT_USAGE;
    }
  }
  cli_assignments_free(a, n);
  return rc;
}

int cli_parse_state(const char *cmd, const char *opt, const char *s, const lang_model *lm,
                    double *q, double *qd, const mech_kane *kane, double *u, int *have_u) {
  int dummy = 0;
  return parse_state(cmd, opt, s, lm, q, qd, kane, u, have_u ? have_u : &dummy, NULL);
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
  if (rc == CLI_EXIT_OK && o->state) rc = parse_state("eval", "--state", o->state, lm, r.q, r.qd, NULL, NULL, &have_u, NULL);
  if (rc == CLI_EXIT_OK) {
    lg_diag d;
    lg_diag_clear(&d);
    num_evaluate(s, &w, r.t, r.q, r.qd);
    if (num_solve_accel(s, &w, r.qdd, r.lam, &d) != LG_OK) rc = cli_report_lm(&d, lm, o->model);
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
  lg_str_puts(o, ",\n  \"dependent_speeds\": [");
  for (size_t i = 0; i < k->ndep; i++) {
    if (i) lg_str_puts(o, ", ");
    lg_str tmp;
    lg_str_init(&tmp);
    sym_print(&tmp, k->udep[i], SYM_STYLE_TEXT, NULL, NULL);
    cli_json_string(o, tmp.s ? tmp.s : "");
    lg_str_free(&tmp);
  }
  lg_str_putc(o, ']');
  json_array(o, "udep", r->udep, k->ndep);
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
/* A dependent speed given in --state must be the one the constraints give:
 * Kane's method solves it from the independent speeds (exit 1 otherwise). */
static int check_dependent(const cli_opts *o, const lang_model *lm, const mech_kane *k,
                           const num_kane_result *r, const dep_given *dg) {
  for (size_t i = 0; i < k->ndep; i++) {
    double want = r->udep[i], got = dg->v[i];
    if (!dg->set[i] || fabs(got - want) <= 1e-9 * fmax(1, fabs(want))) continue;
    char a[LG_DOUBLE_CHARS], b[LG_DOUBLE_CHARS];
    fprintf(stderr,
            "%s:%d:%d: --state gives the dependent speed %s = %s, but the velocity "
            "constraints make it %s at this state (Kane's method solves the dependent speeds "
            "from the independent ones: give only those, or a consistent value)\n",
            o->model, lm->coord_line > 0 ? lm->coord_line : 1,
            lm->coord_col > 0 ? lm->coord_col : 1, k->udep[i]->v.name,
            lg_fmt_double(a, got), lg_fmt_double(b, want));
    return CLI_EXIT_MODEL;
  }
  return CLI_EXIT_OK;
}

static int write_kane(const num_system *s, const mech_kane *k, const num_kane_result *r,
                      double t, const double *q) {
  num_work w;
  if (num_work_init(s, &w) != LG_OK) return CLI_EXIT_MODEL;
  num_evaluate(s, &w, t, q, r->qd);
  lg_str out;
  lg_str_init(&out);
  write_kane_json(&out, s, &w, k, r, t, q);
  fwrite(out.s, 1, out.len, stdout);
  lg_str_free(&out);
  num_work_free(&w);
  return CLI_EXIT_OK;
}

/* The state given by q' only, and the dependent speeds chosen at the
 * initial state cannot be solved here: choose them at this state instead
 * (q'' does not depend on the choice) and say so. */
static lg_status kane_elsewhere(const cli_opts *o, lang_model *lm, const mech_kane *k,
                                const double *q, const double *qd, mech_kane **k2,
                                num_kane_result *r, lg_diag *d) {
  if (cli_load_kane_at(o, lm, o->t, q, qd, k2) != CLI_EXIT_OK) return LG_ERR_MODEL;
  lg_diag_clear(d);
  lg_status st = num_kane_eval(lm->mech, *k2, o->set, o->nset, o->t, q, qd, NULL, 0, r, d);
  if (st != LG_OK) return st;
  lg_str a, b;
  lg_str_init(&a);
  lg_str_init(&b);
  for (size_t i = 0; i < k->ndep; i++) {
    lg_str_puts(&a, i ? ", " : "");
    sym_print(&a, k->udep[i], SYM_STYLE_TEXT, NULL, NULL);
    lg_str_puts(&b, i ? ", " : "");
    sym_print(&b, (*k2)->udep[i], SYM_STYLE_TEXT, NULL, NULL);
  }
  fprintf(stderr, "%s:%d:%d: note: the dependent speeds %s chosen at the initial state cannot "
          "be solved at this state; evaluated with %s dependent\n", o->model,
          lm->coord_line > 0 ? lm->coord_line : 1, lm->coord_col > 0 ? lm->coord_col : 1,
          a.s ? a.s : "", b.s ? b.s : "");
  lg_str_free(&a);
  lg_str_free(&b);
  return LG_OK;
}

static int any_set(const int *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (v[i]) return 1;
  return 0;
}

static int evaluate_kane(const cli_opts *o, lang_model *lm, const num_system *s,
                         const mech_kane *k) {
  size_t n = s->n;
  double *buf = lg_calloc(3 * n + k->p + k->ndep + 1, sizeof *buf);
  int *dset = lg_calloc(k->ndep + 1, sizeof *dset);
  if (!buf || !dset) {
    lg_free(buf);
    lg_free(dset);
    fprintf(stderr, "%s: out of memory\n", o->model);
    return CLI_EXIT_MODEL;
  }
  double *q = buf, *qd = buf + n, *u = buf + 2 * n;
  dep_given dg = {buf + 3 * n + k->p, dset};
  memcpy(q, lm->q0, n * sizeof *q);
  memcpy(qd, lm->qd0, n * sizeof *qd);
  int have_u = cli_initial_speeds(lm, k, u), rc = CLI_EXIT_OK;
  if (o->state) rc = parse_state("eval", "--state", o->state, lm, q, qd, k, u, &have_u, &dg);
  num_kane_result r;
  lg_diag d;
  lg_diag_clear(&d);
  lg_status st = rc == CLI_EXIT_OK
                     ? num_kane_eval(lm->mech, k, o->set, o->nset, o->t, q, qd, u, have_u, &r, &d)
                     : LG_OK;
  if (st == LG_ERR_NUMERIC && k->ndep && !have_u && !any_set(dset, k->ndep) &&
      !mech_ndeclared_dependent(lm->mech)) {
    mech_kane *k2 = NULL;
    lg_diag d2 = d;
    if (kane_elsewhere(o, lm, k, q, qd, &k2, &r, &d2) == LG_OK) {
      st = LG_OK;
      k = k2;
    }
  }
  if (rc == CLI_EXIT_OK && st != LG_OK) rc = cli_report_lm(&d, lm, o->model);
  else if (rc == CLI_EXIT_OK && (rc = check_dependent(o, lm, k, &r, &dg)) != CLI_EXIT_OK)
    num_kane_result_free(&r);
  else if (rc == CLI_EXIT_OK) {
    rc = write_kane(s, k, &r, o->t, q);
    num_kane_result_free(&r);
  }
  lg_free(buf);
  lg_free(dset);
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
  /* the collected equations, from which the library compiles its system */
  mech_eom *ec = mech_eom_simplified(lm->mech, e, CLI_SIMPLIFY_FOR_CODE);
  if (!ec) {
    lg_diag_set(&d, LG_ERR_NOMEM, NULL, 0, 0, "out of memory");
    rc = cli_report_lm(&d, lm, o->model);
  } else if (num_system_build(lm->mech, ec, o->set, o->nset, &s, &d) != LG_OK) {
    rc = cli_report_lm(&d, lm, o->model);
  } else {
    mech_kane *k = NULL;
    if (!strcmp(o->method, "kane")) {
      rc = cli_load_kane(o, lm, &k);
      if (rc == CLI_EXIT_OK && !(k = mech_kane_simplified(lm->mech, k, CLI_SIMPLIFY_FOR_CODE))) {
        lg_diag_set(&d, LG_ERR_NOMEM, NULL, 0, 0, "out of memory");
        rc = cli_report_lm(&d, lm, o->model);
      }
      if (rc == CLI_EXIT_OK) rc = evaluate_kane(o, lm, s, k);
    } else {
      rc = evaluate(o, lm, s);
    }
    num_system_free(s);
  }
  lang_model_free(lm);
  return rc;
}
