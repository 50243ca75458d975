/* cli_linearize.c - `lagrange linearize`: A and B about an operating point,
 * with eigenvalues, natural frequencies and damping ratios. */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* "q1, q3, q1'" -> indep_q / indep_v flags. */
static int parse_independent(const char *text, const lang_model *lm, int *iq, int *iv) {
  const char *p = text;
  while (*p) {
    while (*p == ' ' || *p == ',' || *p == '\t') p++;
    if (!*p) break;
    const char *name = p;
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    size_t len = (size_t)(p - name);
    char *buf = lg_strndup(name, len);
    if (!buf) {
      fprintf(stderr, "lagrange: out of memory\n");
      return CLI_EXIT_MODEL;
    }
    int primes = 0;
    while (*p == '\'') { primes++; p++; }
    int k = len ? lang_coord_index(lm, buf) : -1;
    if (k < 0 || primes > 1) {
      fprintf(stderr, "lagrange linearize: --independent: '%s' is not a coordinate or a "
                      "coordinate's rate of %s (write 'q1, q2' for coordinates, \"q1'\" for "
                      "rates)\n", len ? buf : p, lm->file);
      lg_free(buf);
      return CLI_EXIT_USAGE;
    }
    lg_free(buf);
    (primes ? iv : iq)[k] = 1;
    while (*p == ' ') p++;
    if (*p && *p != ',') {
      fprintf(stderr, "lagrange linearize: --independent: expected ',' before '%s'\n", p);
      return CLI_EXIT_USAGE;
    }
  }
  return CLI_EXIT_OK;
}

/* ---- output ---------------------------------------------------------------------------- */
typedef struct lin_out {
  const num_system *s;
  const lang_model *lm;
  const num_lin_point *pt;
  const num_lin_result *r;
  const double *re, *im, *vr;  /* eigenvalues; right eigenvectors (nx x nx) */
  const mech_kane *kane;       /* Kane's own speeds are the state's rates, or NULL */
} lin_out;

static void state_name(lg_str *o, const lin_out *L, size_t a) {
  size_t seen = 0, n = L->s->n;
  int rate = a >= L->pt->nqi;
  if (rate && L->kane) {
    sym_print(o, L->kane->u[a - L->pt->nqi], SYM_STYLE_TEXT, NULL, NULL);
    return;
  }
  const int *dep = rate ? L->pt->dep_v : L->pt->dep_q;
  size_t want = rate ? a - L->pt->nqi : a;
  for (size_t j = 0; j < n; j++) {
    if (dep[j]) continue;
    if (seen++ == want) {
      lg_str_printf(o, "%s%s", L->s->coord_names[j], rate ? "'" : "");
      return;
    }
  }
}

static void json_names(lg_str *o, const lin_out *L) {
  lg_str_puts(o, "{\n  \"state\": [");
  for (size_t a = 0; a < L->r->nx; a++) {
    lg_str tmp;
    lg_str_init(&tmp);
    state_name(&tmp, L, a);
    lg_str_puts(o, a ? ", " : "");
    cli_json_string(o, tmp.s ? tmp.s : "");
    lg_str_free(&tmp);
  }
  lg_str_puts(o, "],\n  \"inputs\": [");
  for (size_t i = 0; i < L->r->nr; i++) {
    lg_str_puts(o, i ? ", " : "");
    cli_json_string(o, mech_input_name(L->lm->mech, i));
  }
  lg_str_puts(o, "],\n  \"dependent\": [");
  int first = 1;
  for (int rate = 0; rate < 2; rate++)
    for (size_t j = 0; j < L->s->n; j++) {
      if (!(rate ? L->pt->dep_v : L->pt->dep_q)[j]) continue;
      char buf[160];
      snprintf(buf, sizeof buf, "%s%s", L->s->coord_names[j], rate ? "'" : "");
      lg_str_puts(o, first ? "" : ", ");
      cli_json_string(o, buf);
      first = 0;
    }
  lg_str_putc(o, ']');
}

static void json_vec(lg_str *o, const char *key, const double *x, size_t n) {
  lg_str_printf(o, ",\n  \"%s\": [", key);
  for (size_t i = 0; i < n; i++) {
    lg_str_puts(o, i ? ", " : "");
    cli_json_number(o, x[i]);
  }
  lg_str_putc(o, ']');
}

static void json_mat(lg_str *o, const char *key, const double *a, size_t rows, size_t cols) {
  lg_str_printf(o, ",\n  \"%s\": [", key);
  for (size_t i = 0; i < rows; i++) {
    lg_str_puts(o, i ? ",\n    [" : "\n    [");
    for (size_t j = 0; j < cols; j++) {
      lg_str_puts(o, j ? ", " : "");
      cli_json_number(o, a[i * cols + j]);
    }
    lg_str_putc(o, ']');
  }
  lg_str_putc(o, ']');
}

/* The mode shape of the pair (i, i+1): the coordinate part of the
 * eigenvector (columns i and i+1 of vr: real and imaginary parts), scaled
 * so that its largest component is 1; one [re, im] per independent
 * coordinate of the state. */
static void json_shape(lg_str *o, const lin_out *L, size_t i) {
  size_t nx = L->r->nx, nq = L->pt->nqi, big = 0;
  double best = -1;
  for (size_t k = 0; k < nq; k++) {
    double mag = hypot(L->vr[k * nx + i], L->vr[k * nx + i + 1]);
    if (mag > best) { best = mag; big = k; }
  }
  double br = L->vr[big * nx + i], bi = L->vr[big * nx + i + 1], d = br * br + bi * bi;
  lg_str_puts(o, ", \"shape\": [");
  for (size_t k = 0; k < nq; k++) {
    double vr = L->vr[k * nx + i], vi = L->vr[k * nx + i + 1];
    lg_str_puts(o, k ? ", [" : "[");
    cli_json_number(o, d > 0 ? (vr * br + vi * bi) / d : 0); /* v / v_big */
    lg_str_puts(o, ", ");
    cli_json_number(o, d > 0 ? (vi * br - vr * bi) / d : 0);
    lg_str_putc(o, ']');
  }
  lg_str_putc(o, ']');
}

/* Natural frequency |lambda| and damping ratio -Re(lambda)/|lambda| of
 * each oscillatory pair (Im > 0), the way vibration texts report modes. */
static void json_modes(lg_str *o, const lin_out *L) {
  lg_str_puts(o, ",\n  \"eigenvalues\": [");
  for (size_t i = 0; i < L->r->nx; i++) {
    lg_str_puts(o, i ? ", [" : "[");
    cli_json_number(o, L->re[i]);
    lg_str_puts(o, ", ");
    cli_json_number(o, L->im[i]);
    lg_str_putc(o, ']');
  }
  lg_str_puts(o, "],\n  \"modes\": [");
  int first = 1;
  for (size_t i = 0; i < L->r->nx; i++) {
    if (!(L->im[i] > 0) || i + 1 >= L->r->nx) continue;
    double wn = hypot(L->re[i], L->im[i]);
    lg_str_puts(o, first ? "\n    {" : ",\n    {");
    lg_str_puts(o, "\"natural_frequency\": ");
    cli_json_number(o, wn);
    lg_str_puts(o, ", \"damped_frequency\": ");
    cli_json_number(o, L->im[i]);
    lg_str_puts(o, ", \"damping_ratio\": ");
    cli_json_number(o, -L->re[i] / wn);
    json_shape(o, L, i);
    lg_str_putc(o, '}');
    first = 0;
  }
  lg_str_puts(o, first ? "]" : "\n  ]");
}

static void text_mat(lg_str *o, const char *name, const double *a, size_t rows, size_t cols) {
  char b[LG_DOUBLE_CHARS];
  lg_str_printf(o, "%s (%zu x %zu):\n", name, rows, cols);
  for (size_t i = 0; i < rows; i++) {
    lg_str_puts(o, "  [");
    for (size_t j = 0; j < cols; j++)
      lg_str_printf(o, "%s%s", j ? ", " : "", lg_fmt_double(b, a[i * cols + j]));
    lg_str_puts(o, "]\n");
  }
}

static void write_text(lg_str *o, const lin_out *L) {
  char b[LG_DOUBLE_CHARS];
  lg_str_puts(o, "state:");
  for (size_t a = 0; a < L->r->nx; a++) {
    lg_str_puts(o, a ? ", " : " ");
    state_name(o, L, a);
  }
  lg_str_puts(o, "\nx0:");
  for (size_t a = 0; a < L->r->nx; a++)
    lg_str_printf(o, "%s%s", a ? ", " : " ", lg_fmt_double(b, L->r->x0[a]));
  lg_str_puts(o, "\ninputs:");
  for (size_t i = 0; i < L->r->nr; i++)
    lg_str_printf(o, "%s%s = %s", i ? ", " : " ", mech_input_name(L->lm->mech, i),
                  lg_fmt_double(b, L->r->r0[i]));
  if (!L->r->nr) lg_str_puts(o, " (none)");
  lg_str_puts(o, "\n\n");
  text_mat(o, "A", L->r->A, L->r->nx, L->r->nx);
  lg_str_putc(o, '\n');
  if (L->r->nr) text_mat(o, "B", L->r->B, L->r->nx, L->r->nr);
  else lg_str_printf(o, "B (%zu x 0): the model has no inputs\n", L->r->nx);
  lg_str_puts(o, "\neigenvalues:\n");
  for (size_t i = 0; i < L->r->nx; i++) {
    char c[LG_DOUBLE_CHARS];
    lg_str_printf(o, "  %s %s %si", lg_fmt_double(b, L->re[i]), L->im[i] < 0 ? "-" : "+",
                  lg_fmt_double(c, fabs(L->im[i])));
    if (L->im[i] > 0) {
      double wn = hypot(L->re[i], L->im[i]);
      lg_str_printf(o, "   (natural frequency %.6g rad/s, damping ratio %.6g)", wn,
                    -L->re[i] / wn);
    }
    lg_str_putc(o, '\n');
  }
}

/* ---- the command ------------------------------------------------------------------------- */
/* Kane's dependent speeds, when the speeds are the rates: the same
 * linearization in the same variables as Lagrange's with those rates
 * dependent. */
static int kane_dependent(const cli_opts *o, lang_model *lm, int *iv, size_t n,
                          mech_kane **kout) {
  mech_kane *k;
  int rc = cli_load_kane(o, lm, &k);
  if (rc != CLI_EXIT_OK) return rc;
  *kout = k;
  if (!k->default_speeds) return CLI_EXIT_OK; /* rates chosen by pivoting, then u */
  for (size_t i = 0; i < k->p; i++)
    for (size_t j = 0; j < n; j++)
      if (!strcmp(k->u[i]->v.name, mech_coord(lm->mech, j, 0)->v.name)) iv[j] = 1;
  return CLI_EXIT_OK;
}

/* A dependent value given in --at must already be consistent. */
static int check_given(const cli_opts *o, const lang_model *lm, const num_system *s,
                       const num_lin_point *pt, const double *gq, const double *gv) {
  for (size_t j = 0; j < s->n; j++) {
    for (int rate = 0; rate < 2; rate++) {
      double given = (rate ? gv : gq)[j], got = (rate ? pt->qd : pt->q)[j];
      if (isnan(given) || fabs(given - got) <= 1e-9 * (1 + fabs(got))) continue;
      char b1[LG_DOUBLE_CHARS], b2[LG_DOUBLE_CHARS];
      fprintf(stderr, "%s:%d:%d: the operating point is off the constraints: %s%s = %s is "
                      "given but the constraints need %s (leave it out of --at to have it "
                      "solved, or name it with --independent)\n", o->model,
              lm->coord_line > 0 ? lm->coord_line : 1, lm->coord_col > 0 ? lm->coord_col : 1,
              s->coord_names[j], rate ? "'" : "", lg_fmt_double(b1, given),
              lg_fmt_double(b2, got));
      return CLI_EXIT_MODEL;
    }
  }
  return CLI_EXIT_OK;
}

typedef struct lin_mem {
  double *buf;
  int *flags;
} lin_mem;

/* --symbolic, LaTeX: the state's names as the equations write them. */
static void latex_state(lg_str *o, const lin_out *L) {
  lg_str_puts(o, "\\paragraph{state} $");
  for (size_t a = 0, k = 0; a < L->r->nx; a++) {
    int rate = a >= L->pt->nqi;
    const int *dep = rate ? L->pt->dep_v : L->pt->dep_q;
    size_t want = rate ? a - L->pt->nqi : a;
    for (size_t j = 0, seen = 0; j < L->s->n; j++) {
      if (dep[j] || seen++ != want) continue;
      lg_str_puts(o, k++ ? ", " : "");
      sym_print(o, mech_coord(L->lm->mech, j, rate), SYM_STYLE_LATEX, NULL, NULL);
      break;
    }
  }
  lg_str_puts(o, "$\n\n");
}

/* --symbolic, JSON: the names, then the point the expressions are to be
 * evaluated at (every coordinate's name with q0 and qd0, x0, r0, t and
 * the parameters' values). */
static void json_point(lg_str *o, const lin_out *L, const double *q, const double *qd) {
  json_names(o, L);
  lg_str_puts(o, ",\n  \"coordinates\": [");
  for (size_t j = 0; j < L->s->n; j++) {
    lg_str_puts(o, j ? ", " : "");
    cli_json_string(o, L->s->coord_names[j]);
  }
  lg_str_putc(o, ']');
  json_vec(o, "x0", L->r->x0, L->r->nx);
  json_vec(o, "q0", q, L->s->n);
  json_vec(o, "qd0", qd, L->s->n);
  json_vec(o, "r0", L->r->r0, L->r->nr);
  lg_str_puts(o, ",\n  \"t\": ");
  cli_json_number(o, L->pt->t);
  lg_str_puts(o, ",\n  \"parameters\": {");
  for (size_t i = 0; i < L->s->np; i++) {
    lg_str_puts(o, i ? ", " : "");
    cli_json_string(o, L->s->param_names[i]);
    lg_str_puts(o, ": ");
    cli_json_number(o, L->s->params[i]);
  }
  lg_str_putc(o, '}');
}

/* --symbolic: A and B as expressions, their shared parts named (`where`),
 * in the format of --format (--json: JSON). The pivots of the symbolic
 * solves are the largest entries at the operating point. */
static int print_symbolic(const cli_opts *o, lang_model *lm, const mech_eom *e, num_work *w,
                          const lin_out *L) {
  const num_system *s = L->s;
  num_evaluate(s, w, L->pt->t, L->pt->q, L->pt->qd);
  mech_lin_guide g = {w->out + s->o_M, w->out + s->o_J, o->set, o->nset};
  sym_matrix *A = NULL, *B = NULL;
  lg_status st = mech_linearize(lm->mech, e, &g, L->pt->dep_q, L->pt->dep_v, &A, &B);
  if (st != LG_OK) {
    lg_diag d;
    lg_diag_clear(&d);
    lg_diag_set(&d, st, NULL, 0, 0, st == LG_ERR_NOMEM ? "out of memory"
                : "a constraint block is singular at the operating point: the symbolic "
                  "linearization needs other dependent variables");
    lg_diag_hint(&d, "choose the independent ones with --independent");
    return cli_report_lm(&d, lm, o->model);
  }
  mech_format fmt = o->format == CLI_JSON || o->json ? MECH_FMT_JSON
                    : o->format == CLI_LATEX        ? MECH_FMT_LATEX
                                                    : MECH_FMT_TEXT;
  lg_str pre, text;
  lg_str_init(&pre);
  lg_str_init(&text);
  if (fmt == MECH_FMT_JSON) {
    json_point(&pre, L, L->pt->q, L->pt->qd);
  } else if (fmt == MECH_FMT_LATEX) {
    latex_state(&pre, L);
  } else {
    lg_str_puts(&pre, "state: ");
    for (size_t a = 0; a < L->r->nx; a++) {
      lg_str_puts(&pre, a ? ", " : "");
      state_name(&pre, L, a);
    }
    lg_str_putc(&pre, '\n');
  }
  const char *names[] = {"A", "B"};
  const sym_matrix *mats[] = {A, B};
  st = pre.oom ? LG_ERR_NOMEM
               : mech_print_matrices(lm->mech, pre.s ? pre.s : "", 2, names, mats, fmt, &text);
  if (st == LG_OK) fwrite(text.s, 1, text.len, stdout);
  else fprintf(stderr, "lagrange: out of memory\n");
  lg_str_free(&pre);
  lg_str_free(&text);
  return st == LG_OK ? CLI_EXIT_OK : CLI_EXIT_MODEL;
}

static int run(const cli_opts *o, lang_model *lm, const mech_eom *e, const num_system *s,
               const num_lin *L) {
  size_t n = s->n, nr = L->nr, nx = 2 * n;
  lin_mem mem = {lg_calloc(2 * n + 2 * nx * nx + nx * (nr + 1) + nr + 2 * nx + 1, sizeof(double)),
                 lg_calloc(4 * n + 1, sizeof(int))};
  num_work w;
  int rc = mem.buf && mem.flags && num_work_init(s, &w) == LG_OK ? CLI_EXIT_OK : CLI_EXIT_MODEL;
  if (rc != CLI_EXIT_OK) {
    lg_free(mem.buf);
    lg_free(mem.flags);
    fprintf(stderr, "lagrange: out of memory\n");
    return rc;
  }
  double *q = mem.buf, *qd = q + n, *A = qd + n, *B = A + nx * nx, *x0 = B + nx * nr;
  double *r0 = x0 + nx, *re = r0 + nr, *im = re + nx, *vr = im + nx;
  int *iq = mem.flags, *iv = iq + n, *dq = iv + n, *dv = dq + n;
  /* given values: NaN marks what --at leaves to the model's initial state */
  double *gq = lg_malloc((2 * n + 1) * sizeof *gq), *gv = gq ? gq + n : NULL;
  if (!gq) rc = CLI_EXIT_MODEL;
  for (size_t j = 0; gq && j < n; j++) gq[j] = gv[j] = NAN;
  if (rc == CLI_EXIT_OK && o->at) rc = cli_parse_state("linearize", "--at", o->at, lm, gq, gv, NULL, NULL, NULL);
  for (size_t j = 0; rc == CLI_EXIT_OK && j < n; j++) {
    q[j] = isnan(gq[j]) ? lm->q0[j] : gq[j];
    qd[j] = isnan(gv[j]) ? lm->qd0[j] : gv[j];
  }
  if (rc == CLI_EXIT_OK && o->independent) rc = parse_independent(o->independent, lm, iq, iv);
  mech_kane *kane = NULL;
  if (rc == CLI_EXIT_OK && !strcmp(o->method, "kane")) rc = kane_dependent(o, lm, iv, n, &kane);
  if (kane && kane->default_speeds) kane = NULL; /* the rates are the speeds */
  num_lin_point pt = {o->t, q, qd, iq, iv, dq, dv, 0, 0};
  double *Pq = lg_malloc((3 * n * n + n * (2 * n + nr) + n + 1) * sizeof *Pq);
  num_lin_result res = {0, nr, A, B, x0, r0, Pq, Pq ? Pq + n * n : NULL, Pq ? Pq + 2 * n * n : NULL,
                        Pq ? Pq + 3 * n * n : NULL, Pq ? Pq + 3 * n * n + n * (2 * n + nr) : NULL};
  if (!Pq) rc = CLI_EXIT_MODEL;
  lg_diag d;
  lg_diag_clear(&d);
  if (rc == CLI_EXIT_OK && num_lin_operating_point(L, &w, &pt, &d) != LG_OK)
    rc = cli_report_lm(&d, lm, o->model);
  if (rc == CLI_EXIT_OK) rc = check_given(o, lm, s, &pt, gq, gv);
  if (rc == CLI_EXIT_OK && (num_linearize(L, &w, &pt, &res, &d) != LG_OK ||
                            (kane && num_lin_to_speeds(L, lm->mech, o->set, o->nset,
                                                       kane->speed_of_qd, kane->p, &pt, &res,
                                                       &d) != LG_OK) ||
                            num_eigen(A, res.nx, re, im, vr) != LG_OK))
    rc = cli_report_lm(&d, lm, o->model);
  if (rc == CLI_EXIT_OK && o->symbolic) {
    lin_out out = {s, lm, &pt, &res, re, im, vr, kane};
    if (kane) {
      fprintf(stderr, "%s: --symbolic is given in the rates (--method lagrange); Kane's own "
                      "speeds are numeric only\n", o->model);
      rc = CLI_EXIT_USAGE;
    } else {
      rc = print_symbolic(o, lm, e, &w, &out);
    }
  } else if (rc == CLI_EXIT_OK) {
    lin_out out = {s, lm, &pt, &res, re, im, vr, kane};
    lg_str text;
    lg_str_init(&text);
    if (o->json) {
      json_names(&text, &out);
      json_vec(&text, "x0", x0, res.nx);
      json_vec(&text, "q0", q, n);
      json_vec(&text, "qd0", qd, n);
      json_vec(&text, "r0", r0, nr);
      json_mat(&text, "A", A, res.nx, res.nx);
      json_mat(&text, "B", B, res.nx, nr);
      json_modes(&text, &out);
      lg_str_puts(&text, "\n}\n");
    } else {
      write_text(&text, &out);
    }
    fwrite(text.s, 1, text.len, stdout);
    lg_str_free(&text);
  }
  num_work_free(&w);
  lg_free(Pq);
  lg_free(gq);
  lg_free(mem.buf);
  lg_free(mem.flags);
  return rc;
}

int cli_with_linearization(const cli_opts *o, cli_lin_fn fn) {
  lang_model *lm;
  mech_eom *e;
  int rc = cli_load(o, &lm, &e);
  if (rc != CLI_EXIT_OK) return rc;
  num_system *s = NULL;
  num_lin *L = NULL;
  lg_diag d;
  lg_diag_clear(&d);
  if (num_system_build(lm->mech, e, o->set, o->nset, &s, &d) != LG_OK ||
      num_lin_build(lm->mech, e, s, o->set, o->nset, &L, &d) != LG_OK)
    rc = cli_report_lm(&d, lm, o->model);
  else
    rc = fn(o, lm, e, s, L);
  num_lin_free(L);
  num_system_free(s);
  lang_model_free(lm);
  return rc;
}

int cli_linearize(const cli_opts *o) { return cli_with_linearization(o, run); }
