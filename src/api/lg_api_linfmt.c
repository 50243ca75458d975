/* lg_api_linfmt.c - `lagrange linearize`'s report: A and B about an
 * operating point with eigenvalues, natural frequencies, damping ratios
 * and mode shapes (text or JSON), or A and B as expressions (--symbolic:
 * text, LaTeX or JSON); what the caller should tell its user besides
 * (not an equilibrium) as notes. */
#include "lg_api_lin.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void lg_lin_options_default(lg_lin_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
}

typedef struct report {
  const lg_system *s;
  const api_lin *r;
  const double *re, *im, *vr; /* eigenvalues; right eigenvectors (nx x nx) */
} report;

static void num(lg_str *o, double x) {
  char b[LG_DOUBLE_CHARS];
  lg_str_puts(o, lg_fmt_double(b, x));
}

static void json_names(lg_str *o, const report *R) {
  const api_lin *r = R->r;
  lg_str_puts(o, "{\n  \"state\": [");
  for (size_t a = 0; a < r->nx; a++) {
    lg_str tmp;
    lg_str_init(&tmp);
    api_lin_state_name(&tmp, R->s, r, a);
    lg_str_puts(o, a ? ", " : "");
    lg_str_json(o, tmp.s ? tmp.s : "");
    if (tmp.oom) o->oom = 1;
    lg_str_free(&tmp);
  }
  lg_str_puts(o, "],\n  \"inputs\": [");
  for (size_t i = 0; i < r->nr; i++) {
    lg_str_puts(o, i ? ", " : "");
    lg_str_json(o, mech_input_name(R->s->lm->mech, i));
  }
  lg_str_puts(o, "],\n  \"dependent\": [");
  int first = 1;
  for (int rate = 0; rate < 2; rate++)
    for (size_t j = 0; j < r->n; j++) {
      if (!(rate ? r->dep_v : r->dep_q)[j]) continue;
      char buf[160];
      snprintf(buf, sizeof buf, "%s%s", R->s->num->coord_names[j], rate ? "'" : "");
      lg_str_puts(o, first ? "" : ", ");
      lg_str_json(o, buf);
      first = 0;
    }
  lg_str_putc(o, ']');
}

static void json_vec(lg_str *o, const char *key, const double *x, size_t n) {
  lg_str_printf(o, ",\n  \"%s\": [", key);
  for (size_t i = 0; i < n; i++) {
    lg_str_puts(o, i ? ", " : "");
    api_json_number(o, x[i]);
  }
  lg_str_putc(o, ']');
}

static void json_mat(lg_str *o, const char *key, const double *a, size_t rows, size_t cols) {
  lg_str_printf(o, ",\n  \"%s\": [", key);
  for (size_t i = 0; i < rows; i++) {
    lg_str_puts(o, i ? ",\n    [" : "\n    [");
    for (size_t j = 0; j < cols; j++) {
      lg_str_puts(o, j ? ", " : "");
      api_json_number(o, a[i * cols + j]);
    }
    lg_str_putc(o, ']');
  }
  lg_str_putc(o, ']');
}

/* The mode shape of the pair (i, i+1): the coordinate part of the
 * eigenvector (columns i and i+1 of vr: real and imaginary parts), scaled
 * so that its largest component is 1; one [re, im] per independent
 * coordinate of the state. */
static void json_shape(lg_str *o, const report *R, size_t i) {
  size_t nx = R->r->nx, nq = R->r->nqi, big = 0;
  const double *V = R->vr;
  double best = -1;
  for (size_t k = 0; k < nq; k++) {
    double mag = hypot(V[k * nx + i], V[k * nx + i + 1]);
    if (mag > best) { best = mag; big = k; }
  }
  double br = V[big * nx + i], bi = V[big * nx + i + 1], d = br * br + bi * bi;
  lg_str_puts(o, ", \"shape\": [");
  for (size_t k = 0; k < nq; k++) {
    double vr = V[k * nx + i], vi = V[k * nx + i + 1];
    lg_str_puts(o, k ? ", [" : "[");
    api_json_number(o, d > 0 ? (vr * br + vi * bi) / d : 0); /* v / v_big */
    lg_str_puts(o, ", ");
    api_json_number(o, d > 0 ? (vi * br - vr * bi) / d : 0);
    lg_str_putc(o, ']');
  }
  lg_str_putc(o, ']');
}

/* Natural frequency |lambda| and damping ratio -Re(lambda)/|lambda| of
 * each oscillatory pair (Im > 0), the way vibration texts report modes. */
static void json_modes(lg_str *o, const report *R) {
  size_t nx = R->r->nx;
  lg_str_puts(o, ",\n  \"eigenvalues\": [");
  for (size_t i = 0; i < nx; i++) {
    lg_str_puts(o, i ? ", [" : "[");
    api_json_number(o, R->re[i]);
    lg_str_puts(o, ", ");
    api_json_number(o, R->im[i]);
    lg_str_putc(o, ']');
  }
  lg_str_puts(o, "],\n  \"modes\": [");
  int first = 1;
  for (size_t i = 0; i < nx; i++) {
    if (!(R->im[i] > 0) || i + 1 >= nx) continue;
    double wn = hypot(R->re[i], R->im[i]);
    lg_str_puts(o, first ? "\n    {" : ",\n    {");
    lg_str_puts(o, "\"natural_frequency\": ");
    api_json_number(o, wn);
    lg_str_puts(o, ", \"damped_frequency\": ");
    api_json_number(o, R->im[i]);
    lg_str_puts(o, ", \"damping_ratio\": ");
    api_json_number(o, -R->re[i] / wn);
    json_shape(o, R, i);
    lg_str_putc(o, '}');
    first = 0;
  }
  lg_str_puts(o, first ? "]" : "\n  ]");
}

static void write_json(lg_str *o, const report *R) {
  const api_lin *r = R->r;
  json_names(o, R);
  json_vec(o, "x0", r->x0, r->nx);
  json_vec(o, "q0", r->q, r->n);
  json_vec(o, "qd0", r->qd, r->n);
  json_vec(o, "r0", r->r0, r->nr);
  json_mat(o, "A", r->A, r->nx, r->nx);
  json_mat(o, "B", r->B, r->nx, r->nr);
  json_modes(o, R);
  lg_str_puts(o, "\n}\n");
}

static void text_mat(lg_str *o, const char *name, const double *a, size_t rows, size_t cols) {
  lg_str_printf(o, "%s (%zu x %zu):\n", name, rows, cols);
  for (size_t i = 0; i < rows; i++) {
    lg_str_puts(o, "  [");
    for (size_t j = 0; j < cols; j++) {
      lg_str_puts(o, j ? ", " : "");
      num(o, a[i * cols + j]);
    }
    lg_str_puts(o, "]\n");
  }
}

/* With constraints: the whole point (every coordinate and rate, the
 * dependent ones marked) and where the dependent coordinates were solved
 * from (the assembly branch is the one Newton's method reached from
 * there). Nothing without dependent variables. */
static void text_point(lg_str *o, const report *R) {
  const api_lin *r = R->r;
  const char *const *names = (const char *const *)R->s->num->coord_names;
  size_t n = r->n, ndq = 0, ndv = 0;
  for (size_t j = 0; j < n; j++) {
    ndq += r->dep_q[j] != 0;
    ndv += r->dep_v[j] != 0;
  }
  if (!ndq && !ndv) return;
  lg_str_puts(o, "operating point (completed onto the constraints):\n  q:");
  for (size_t j = 0; j < n; j++) {
    lg_str_printf(o, "%s%s = ", j ? ", " : " ", names[j]);
    num(o, r->q[j]);
    if (r->dep_q[j]) lg_str_puts(o, " (dependent)");
  }
  lg_str_puts(o, "\n  q':");
  for (size_t j = 0; j < n; j++) {
    lg_str_printf(o, "%s%s' = ", j ? ", " : " ", names[j]);
    num(o, r->qd[j]);
    if (r->dep_v[j]) lg_str_puts(o, " (dependent)");
  }
  lg_str_putc(o, '\n');
  if (!ndq) return;
  lg_str_puts(o, "  branch:");
  for (size_t j = 0, k = 0; j < n; j++)
    if (r->dep_q[j]) lg_str_printf(o, "%s%s", k++ ? ", " : " ", names[j]);
  lg_str_puts(o, " solved by Newton's method from");
  for (size_t j = 0, k = 0; j < n; j++) {
    if (!r->dep_q[j]) continue;
    lg_str_printf(o, "%s%s = ", k++ ? ", " : " ", names[j]);
    num(o, r->guess[j]);
  }
  lg_str_puts(o, " (--at, else the model's initial values): the assembly nearest that "
                 "guess\n");
}

static void write_text(lg_str *o, const report *R) {
  const api_lin *r = R->r;
  lg_str_puts(o, "state:");
  for (size_t a = 0; a < r->nx; a++) {
    lg_str_puts(o, a ? ", " : " ");
    api_lin_state_name(o, R->s, r, a);
  }
  lg_str_puts(o, "\nx0:");
  for (size_t a = 0; a < r->nx; a++) {
    lg_str_puts(o, a ? ", " : " ");
    num(o, r->x0[a]);
  }
  lg_str_puts(o, "\ninputs:");
  for (size_t i = 0; i < r->nr; i++) {
    lg_str_printf(o, "%s%s = ", i ? ", " : " ", mech_input_name(R->s->lm->mech, i));
    num(o, r->r0[i]);
  }
  if (!r->nr) lg_str_puts(o, " (none)");
  lg_str_putc(o, '\n');
  text_point(o, R);
  lg_str_putc(o, '\n');
  text_mat(o, "A", r->A, r->nx, r->nx);
  lg_str_putc(o, '\n');
  if (r->nr) text_mat(o, "B", r->B, r->nx, r->nr);
  else lg_str_printf(o, "B (%zu x 0): the model has no inputs\n", r->nx);
  lg_str_puts(o, "\neigenvalues:\n");
  for (size_t i = 0; i < r->nx; i++) {
    char b[LG_DOUBLE_CHARS], c[LG_DOUBLE_CHARS];
    lg_str_printf(o, "  %s %s %si", lg_fmt_double(b, R->re[i]), R->im[i] < 0 ? "-" : "+",
                  lg_fmt_double(c, fabs(R->im[i])));
    if (R->im[i] > 0) {
      double wn = hypot(R->re[i], R->im[i]);
      lg_str_printf(o, "   (natural frequency %.6g rad/s, damping ratio %.6g)", wn,
                    -R->re[i] / wn);
    }
    lg_str_putc(o, '\n');
  }
}

/* --symbolic, LaTeX: the state's names as the equations write them. */
static void latex_state(lg_str *o, const report *R) {
  const api_lin *r = R->r;
  lg_str_puts(o, "\\paragraph{state} $");
  for (size_t a = 0, k = 0; a < r->nx; a++) {
    int rate = a >= r->nqi;
    const int *dep = rate ? r->dep_v : r->dep_q;
    size_t want = rate ? a - r->nqi : a;
    for (size_t j = 0, seen = 0; j < r->n; j++) {
      if (dep[j] || seen++ != want) continue;
      lg_str_puts(o, k++ ? ", " : "");
      sym_print(o, mech_coord(R->s->lm->mech, j, rate), SYM_STYLE_LATEX, NULL, NULL);
      break;
    }
  }
  lg_str_puts(o, "$\n\n");
}

/* --symbolic, JSON: the names, then the point the expressions are to be
 * evaluated at (every coordinate's name with q0 and qd0, x0, r0, t and
 * the parameters' values). */
static void json_point(lg_str *o, const report *R) {
  const api_lin *r = R->r;
  const num_system *ns = &r->ns;
  json_names(o, R);
  lg_str_puts(o, ",\n  \"coordinates\": [");
  for (size_t j = 0; j < r->n; j++) {
    lg_str_puts(o, j ? ", " : "");
    lg_str_json(o, ns->coord_names[j]);
  }
  lg_str_putc(o, ']');
  json_vec(o, "x0", r->x0, r->nx);
  json_vec(o, "q0", r->q, r->n);
  json_vec(o, "qd0", r->qd, r->n);
  json_vec(o, "r0", r->r0, r->nr);
  lg_str_puts(o, ",\n  \"t\": ");
  api_json_number(o, r->t);
  lg_str_puts(o, ",\n  \"parameters\": {");
  for (size_t i = 0; i < ns->np; i++) {
    lg_str_puts(o, i ? ", " : "");
    lg_str_json(o, ns->param_names[i]);
    lg_str_puts(o, ": ");
    api_json_number(o, ns->params[i]);
  }
  lg_str_putc(o, '}');
}

/* --symbolic: A and B as expressions, their shared parts named (`where`).
 * The pivots of the symbolic solves are the largest entries at the
 * operating point. Under the system's lock (the symbolic context). */
static lg_status symbolic(const report *R, lg_format fmt, lg_str *text, lg_diag *d) {
  const lg_system *s = R->s;
  const api_lin *r = R->r;
  if (r->kane) {
    lg_diag_set(d, LG_ERR_USAGE, s->lm->file, 0, 0,
                "`symbolic` is given in the rates (`method` lagrange); Kane's own "
                "speeds are numeric only");
    return LG_ERR_USAGE;
  }
  num_work w;
  if (num_work_init(&r->ns, &w) != LG_OK) return LG_ERR_NOMEM;
  num_evaluate(&r->ns, &w, r->t, r->q, r->qd);
  const mech_setting *set;
  size_t nset;
  api_lin_settings(s, &set, &nset);
  mech_lin_guide g = {w.out + r->ns.o_M, w.out + r->ns.o_J, set, nset};
  sym_matrix *A = NULL, *B = NULL;
  lg_system *mut = (lg_system *)s;
  pthread_mutex_lock(&mut->lock);
  lg_status st = api_dynamics(mut, d); /* symbolically: the dense equations */
  if (st == LG_OK)
    st = mech_linearize(s->lm->mech, s->eom_raw, &g, r->dep_q, r->dep_v, &A, &B);
  if (st != LG_OK && st != LG_ERR_NOMEM) {
    lg_diag_set(d, st, NULL, 0, 0, "a constraint block is singular at the operating point: "
                "the symbolic linearization needs other dependent variables");
    lg_diag_hint(d, "choose the independent ones with `independent`");
  }
  lg_str pre;
  lg_str_init(&pre);
  if (st == LG_OK) {
    if (fmt == LG_FORMAT_JSON) {
      json_point(&pre, R);
    } else if (fmt == LG_FORMAT_LATEX) {
      latex_state(&pre, R);
    } else {
      lg_str_puts(&pre, "state: ");
      for (size_t a = 0; a < r->nx; a++) {
        lg_str_puts(&pre, a ? ", " : "");
        api_lin_state_name(&pre, s, r, a);
      }
      lg_str_putc(&pre, '\n');
    }
    static const mech_format formats[] = {MECH_FMT_TEXT, MECH_FMT_LATEX, MECH_FMT_JSON};
    const char *names[] = {"A", "B"};
    const sym_matrix *mats[] = {A, B};
    st = pre.oom ? LG_ERR_NOMEM
                 : mech_print_matrices(s->lm->mech, pre.s ? pre.s : "", 2, names, mats,
                                       formats[fmt], text);
  }
  pthread_mutex_unlock(&mut->lock);
  lg_str_free(&pre);
  num_work_free(&w);
  return st;
}

/* Not an equilibrium: q'' at the point is not zero (the largest named). */
static void equilibrium_note(const report *R, lg_str *notes) {
  const api_lin *r = R->r;
  size_t big = 0;
  for (size_t j = 1; j < r->n; j++)
    if (fabs(r->qdd[j]) > fabs(r->qdd[big])) big = j;
  if (!r->n || !(fabs(r->qdd[big]) > 1e-8)) return;
  char b[LG_DOUBLE_CHARS];
  lg_str_printf(notes, "%s: warning: the operating point is not an equilibrium: the "
                "accelerations there are not zero (%s'' = %s); A and B describe the motion "
                "near a moving point\n", R->s->lm->file, R->s->num->coord_names[big],
                lg_fmt_double(b, r->qdd[big]));
}

static lg_status format(const lg_system *s, const lg_lin_options *o, lg_format fmt,
                        lg_str *text, lg_str *notes, lg_diag *d) {
  const double *par = NULL;
  lg_status st = api_params(s, o->p, &par, d);
  api_lin r;
  if (st == LG_OK) st = api_lin_run(s, o->t, o->q, o->qd, par, o->independent, 1, &r, d);
  if (st != LG_OK) return st;
  size_t nx = r.nx;
  double *eig = lg_calloc(2 * nx + nx * nx + 1, sizeof *eig);
  if (!eig) st = LG_ERR_NOMEM;
  report R = {s, &r, eig, eig ? eig + nx : NULL, eig ? eig + 2 * nx : NULL};
  if (st == LG_OK && !o->symbolic) {
    st = num_eigen(r.A, nx, eig, eig + nx, eig + 2 * nx);
    if (st != LG_OK)
      lg_diag_set(d, st, NULL, 0, 0, "the eigenvalues of A could not be computed");
  }
  if (st == LG_OK && o->symbolic) st = symbolic(&R, fmt, text, d);
  else if (st == LG_OK && fmt == LG_FORMAT_JSON) write_json(text, &R);
  else if (st == LG_OK) write_text(text, &R);
  if (st == LG_OK && notes) equilibrium_note(&R, notes);
  lg_free(eig);
  api_lin_free(&r);
  return st;
}

lg_status lg_linearize_format(const lg_system *s, const lg_lin_options *o, lg_format fmt,
                              char **out, char **notes, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (out) *out = NULL;
  if (notes) *notes = NULL;
  if (!s || !o || !out || o->size < sizeof *o || (unsigned)fmt > LG_FORMAT_JSON ||
      (fmt == LG_FORMAT_LATEX && !o->symbolic)) {
    lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
                "lg_linearize_format: a system, options from lg_lin_options_default, an "
                "output and a format (LaTeX with `symbolic` only) are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  lg_str text, nt;
  lg_str_init(&text);
  lg_str_init(&nt);
  lg_status st = format(s, o, fmt, &text, notes ? &nt : NULL, d);
  char *t = st == LG_OK ? lg_str_take(&text) : NULL;
  char *n = st == LG_OK && notes ? lg_str_take(&nt) : NULL;
  lg_str_free(&text);
  lg_str_free(&nt);
  st = api_end(&c, st, s->lm->file, s->lm->coord_line, s->lm->coord_col);
  if (st != LG_OK) {
    lg_free(t);
    lg_free(n);
    return st;
  }
  *out = t;
  if (notes) *notes = n;
  return LG_OK;
}
