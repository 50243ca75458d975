/* lg_api_equil.c - `lagrange equilibria`: every static equilibrium in a
 * box, each once, with its stability and eigenvalues; a family of
 * equilibria (not isolated) once, with its dimension and directions. As
 * data (lg_equilibria) and as the command's report (lg_equilibria_format). */
#include "lg_api_lin.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void lg_equilibria_options_default(lg_equilibria_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
}

/* The result and everything it points to, in one block. */
typedef struct equil_block {
  lg_equilibria_result pub;
  lg_equilibrium *points;
  double *mem;          /* lo, hi, then per point: q, re, im, family */
  int *free;
  char *warning;
} equil_block;

void lg_equilibria_free(lg_equilibria_result *r) {
  if (!r) return;
  equil_block *b = (equil_block *)r;
  lg_free(b->points);
  lg_free(b->mem);
  lg_free(b->free);
  lg_free(b->warning);
  lg_free(b);
}

/* stable: every Re < 0; unstable: some Re > 0; marginal otherwise, with a
 * tolerance relative to the largest eigenvalue. */
static const char *stability(const double *re, const double *im, size_t nx) {
  double scale = 1;
  for (size_t i = 0; i < nx; i++) scale = fmax(scale, hypot(re[i], im[i]));
  double tol = 1e-8 * scale;
  int all_neg = 1;
  for (size_t i = 0; i < nx; i++) {
    if (re[i] > tol) return "unstable";
    if (!(re[i] < -tol)) all_neg = 0;
  }
  return all_neg ? "stable" : "marginal";
}

/* Is input i held at a constant by a setting? */
static int input_set(const lg_system *s, const mech_setting *set, size_t nset, size_t i) {
  const char *name = mech_input_name(s->lm->mech, i);
  for (size_t k = 0; k < nset; k++)
    if (set[k].name && !strcmp(set[k].name, name)) return 1;
  return 0;
}

/* Do the equations (M, f, J, gc) or the constraints depend on t explicitly, directly or
 * through an input whose law does? (Under the system's lock.) */
static int depends_on_t(const lg_system *s) {
  mech_model *mm = s->lm->mech;
  const mech_eom *e = s->eom_raw;
  const sym_node *tsym = sym_time(mech_ctx(mm));
  const mech_setting *set;
  size_t nset, n = e->n, m = e->m, ni = mech_ninputs(mm);
  api_lin_settings(s, &set, &nset);
  const sym_node *watch[1 + 3 * 64];
  size_t nw = 0;
  watch[nw++] = tsym;
  for (size_t i = 0; i < ni && nw + 3 <= sizeof watch / sizeof *watch; i++) {
    if (input_set(s, set, nset, i)) continue;
    const sym_node *law = mech_input_law(mm, i);
    if (!law || !sym_has(law, tsym)) continue;
    for (int k = 0; k < 3; k++) watch[nw++] = mech_input(mm, i, k);
  }
  for (size_t w = 0; w < nw; w++) {
    const sym_node *x = watch[w];
    if (!x) continue;
    for (size_t i = 0; i < n * n; i++)
      if (sym_has(e->M->e[i], x)) return 1;
    for (size_t i = 0; i < n; i++)
      if (sym_has(e->f[i], x)) return 1;
    for (size_t i = 0; i < m * n; i++)
      if (sym_has(e->J->e[i], x)) return 1;
    for (size_t r = 0; r < m; r++)
      if (sym_has(e->gc[r], x) || sym_has(e->C[r], x)) return 1;
  }
  return 0;
}

/* The equilibrium conditions (M, f, J, gc, C, C' at q' = 0) at points of the box
 * and at the points found change with t: the symbolic test above sees
 * t, but identities (a frame turning at w t: cos(w t)^2 + sin(w t)^2)
 * can leave the equations independent of it. */
static int changes_with_t(const num_system *ns, num_work *w, double t, const double *lo,
                          const double *hi, const double *found, size_t count, double *q,
                          double *qd, double *ref) {
  static const double dt[] = {0.7310585786300049, 2.1130000000000004, 5.4, 13.37};
  static const double at[] = {0.5, 0.2113248654051871, 0.7886751345948129};
  size_t n = ns->n, len = ns->ndyn;
  memset(qd, 0, n * sizeof *qd);
  for (size_t k = 0; k < count + 3; k++) {
    for (size_t j = 0; j < n; j++)
      q[j] = k < count ? found[k * n + j]
                       : lo[j] + (hi[j] - lo[j]) * at[(k - count + j) % 3];
    num_evaluate_dynamics(ns, w, t, q, qd);
    memcpy(ref, w->out + ns->o_M, len * sizeof *ref);
    for (size_t i = 0; i < sizeof dt / sizeof *dt; i++) {
      num_evaluate_dynamics(ns, w, t + dt[i], q, qd);
      for (size_t c = 0; c < len; c++) {
        double a = ref[c], b = w->out[ns->o_M + c];
        if (!(fabs(a - b) <= 1e-10 * (1 + fabs(a) + fabs(b)))) return 1;
      }
    }
  }
  return 0;
}

/* Points in order of their coordinates (a few: insertion sort). */
static void sort_points(size_t *order, size_t count, const double *q, size_t n) {
  for (size_t i = 0; i < count; i++) order[i] = i;
  for (size_t i = 1; i < count; i++) {
    size_t k = order[i], j = i;
    while (j > 0) {
      const double *x = q + order[j - 1] * n, *y = q + k * n;
      int less = 0;
      for (size_t c = 0; c < n; c++)
        if (x[c] != y[c]) {
          less = y[c] < x[c];
          break;
        }
      if (!less) break;
      order[j] = order[j - 1];
      j--;
    }
    order[j] = k;
  }
}

typedef struct search_mem {
  int *role, *isfree, *angle;
  double *lo, *hi, *qd;
  size_t *order;
} search_mem;

static lg_status search(const lg_system *s, const lg_equilibria_options *o, const double *par,
                        equil_block *b, lg_diag *d) {
  size_t n = s->nq;
  const num_lin *L0 = NULL;
  lg_status st = api_lin_compiled(s, &L0, d);
  if (st != LG_OK) return st;
  num_system ns = *s->num;
  ns.params = (double *)par;
  num_lin L = *L0;
  L.s = &ns;
  int *ibuf = lg_calloc(3 * n + 1, sizeof *ibuf);
  double *dbuf = lg_calloc(3 * n + 1, sizeof *dbuf);
  num_work w;
  int have_w = num_work_init(&ns, &w) == LG_OK;
  if (!ibuf || !dbuf || !have_w) st = LG_ERR_NOMEM;
  int *role = ibuf, *isfree = ibuf ? ibuf + n : NULL, *angle = ibuf ? ibuf + 2 * n : NULL;
  double *lo = dbuf, *hi = dbuf ? dbuf + n : NULL, *qd = dbuf ? dbuf + 2 * n : NULL;
  lg_system *mut = (lg_system *)s;
  if (st == LG_OK) {
    pthread_mutex_lock(&mut->lock);
    st = api_dynamics(mut, d); /* the dense equations, as derived */
    if (st == LG_OK) st = num_coord_roles(s->lm->mech, s->eom_raw, role);
    b->pub.time_dependent = st == LG_OK && depends_on_t(s);
    pthread_mutex_unlock(&mut->lock);
  }
  for (size_t j = 0; st == LG_OK && j < n; j++) {
    isfree[j] = role[j] == NUM_COORD_FREE;
    angle[j] = role[j] == NUM_COORD_ANGLE;
    lo[j] = angle[j] ? -LG_PI : -10;
    hi[j] = angle[j] ? LG_PI : 10;
    if (o->lo && !isnan(o->lo[j])) lo[j] = o->lo[j];
    if (o->hi && !isnan(o->hi[j])) hi[j] = o->hi[j];
    if (!(lo[j] < hi[j]) || !isfinite(lo[j]) || !isfinite(hi[j])) {
      lg_diag_set(d, LG_ERR_USAGE, s->lm->file, 0, 0, "the box of %s is empty or not finite "
                  "(`lo` must be below `hi`)", lg_coordinate_name(s, j));
      st = LG_ERR_USAGE;
    }
  }
  num_equil_opts eo = {o->t, lo, hi, isfree, angle, o->starts};
  num_equil_found found = {0};
  if (st == LG_OK) st = num_equilibria(&L, &w, &eo, &found, d);
  if (st == LG_OK && b->pub.time_dependent) {
    size_t len = ns.ndyn;
    double *tmp = lg_malloc((2 * n + len + 1) * sizeof *tmp);
    if (!tmp) st = LG_ERR_NOMEM;
    else
      b->pub.time_dependent = changes_with_t(&ns, &w, o->t, lo, hi, found.q, found.count, tmp,
                                             qd, tmp + n);
    lg_free(tmp);
  }
  size_t count = st == LG_OK ? found.count : 0, nx2 = 2 * n;
  size_t per = n + 2 * nx2 + n * n;
  b->mem = lg_calloc(2 * n + count * per + 1, sizeof *b->mem);
  b->points = lg_calloc(count + 1, sizeof *b->points);
  b->free = lg_calloc(n + 1, sizeof *b->free);
  size_t *order = lg_malloc((count + 1) * sizeof *order);
  if (st == LG_OK && (!b->mem || !b->points || !b->free || !order)) st = LG_ERR_NOMEM;
  if (st == LG_OK) {
    memcpy(b->mem, lo, n * sizeof *lo);
    memcpy(b->mem + n, hi, n * sizeof *hi);
    memcpy(b->free, isfree, n * sizeof *isfree);
    sort_points(order, count, found.q, n);
  }
  for (size_t i = 0; st == LG_OK && i < count; i++) {
    size_t k = order[i], nx = 0;
    double *q = b->mem + 2 * n + i * per, *re = q + n, *im = re + nx2, *dir = im + nx2;
    memcpy(q, found.q + k * n, n * sizeof *q);
    memset(qd, 0, n * sizeof *qd);
    st = num_lin_eigenvalues(&L, &w, o->t, q, qd, re, im, &nx, d);
    memset(dir, 0, n * n * sizeof *dir);
    if (found.dim[k]) memcpy(dir, found.dir + k * n * n, found.dim[k] * n * sizeof *dir);
    lg_equilibrium *p = &b->points[i];
    p->q = q;
    p->stability = st == LG_OK ? stability(re, im, nx) : "";
    p->neig = nx;
    p->eig_re = re;
    p->eig_im = im;
    p->family_dim = found.dim[k];
    p->family = dir;
  }
  if (st == LG_OK) {
    b->pub.n = n;
    b->pub.count = count;
    b->pub.points = b->points;
    b->pub.free = b->free;
    b->pub.lo = b->mem;
    b->pub.hi = b->mem + n;
    b->pub.t = o->t;
  }
  if (st == LG_OK && b->pub.time_dependent) {
    char tb[LG_DOUBLE_CHARS];
    lg_str note;
    lg_str_init(&note);
    lg_str_printf(&note, "%s: warning: the equations depend on t explicitly: these are the "
                  "equilibria of the equations frozen at t = %s (`t`); the motion about them "
                  "need not stay there", s->lm->file, lg_fmt_double(tb, o->t));
    b->warning = lg_str_take(&note);
    lg_str_free(&note);
    b->pub.warning = b->warning;
  }
  lg_free(order);
  num_equil_found_free(&found);
  if (have_w) num_work_free(&w);
  lg_free(ibuf);
  lg_free(dbuf);
  return st;
}

lg_status lg_equilibria(const lg_system *s, const lg_equilibria_options *o,
                        lg_equilibria_result **out, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (out) *out = NULL;
  if (!s || !out || (o && o->size < sizeof *o)) {
    lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
                "lg_equilibria: a system, an output and options from "
                "lg_equilibria_options_default (or NULL) are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  lg_equilibria_options def;
  lg_equilibria_options_default(&def);
  if (!o) o = &def;
  const double *par = NULL;
  lg_status st = api_params(s, o->p, &par, d);
  equil_block *b = st == LG_OK ? lg_calloc(1, sizeof *b) : NULL;
  if (st == LG_OK && !b) st = LG_ERR_NOMEM;
  if (st == LG_OK) st = search(s, o, par, b, d);
  st = api_end(&c, st, s->lm->file, s->lm->coord_line, s->lm->coord_col);
  if (st != LG_OK) lg_equilibria_free(b ? &b->pub : NULL);
  else *out = &b->pub;
  return st;
}

/* ---- the report ---------------------------------------------------------------------- */
/* A family's directions: JSON [{"x1": 1, "x2": 1}, ...], text
 * (x1 = 1, x2 = 1), ... (the nonzero components, by coordinate). */
static void family(lg_str *o, const lg_system *s, int json, const lg_equilibrium *p, size_t n) {
  char b[LG_DOUBLE_CHARS];
  size_t dim = p->family_dim;
  if (json) lg_str_printf(o, ", \"family\": {\"dimension\": %zu, \"directions\": [", dim);
  else lg_str_printf(o, "    a family of equilibria of dimension %zu through this point, "
                        "along ", dim);
  for (size_t r = 0; r < dim; r++) {
    lg_str_puts(o, r ? ", " : "");
    lg_str_putc(o, json ? '{' : '(');
    for (size_t j = 0, k = 0; j < n; j++) {
      double x = p->family[r * n + j];
      if (x == 0) continue;
      lg_str_puts(o, k++ ? ", " : "");
      if (json) {
        lg_str_json(o, lg_coordinate_name(s, j));
        lg_str_puts(o, ": ");
        api_json_number(o, x);
      } else {
        lg_str_printf(o, "%s = %s", lg_coordinate_name(s, j), lg_fmt_double(b, x));
      }
    }
    lg_str_putc(o, json ? '}' : ')');
  }
  lg_str_puts(o, json ? "]}" : "\n");
}

static void report_one(lg_str *o, const lg_system *s, int json, const lg_equilibrium *p,
                       size_t n, int first) {
  char b[LG_DOUBLE_CHARS], c[LG_DOUBLE_CHARS];
  size_t nx = p->neig;
  if (json) {
    lg_str_puts(o, first ? "\n    {\"q\": [" : ",\n    {\"q\": [");
    for (size_t j = 0; j < n; j++) {
      lg_str_puts(o, j ? ", " : "");
      api_json_number(o, p->q[j]);
    }
    lg_str_printf(o, "], \"stability\": \"%s\", \"eigenvalues\": [", p->stability);
    for (size_t i = 0; i < nx; i++) {
      lg_str_puts(o, i ? ", [" : "[");
      api_json_number(o, p->eig_re[i]);
      lg_str_puts(o, ", ");
      api_json_number(o, p->eig_im[i]);
      lg_str_putc(o, ']');
    }
    lg_str_putc(o, ']');
    if (p->family_dim) family(o, s, json, p, n);
    lg_str_putc(o, '}');
  } else {
    lg_str_puts(o, " ");
    for (size_t j = 0; j < n; j++)
      lg_str_printf(o, "%s%s = %s", j ? ", " : " ", lg_coordinate_name(s, j),
                    lg_fmt_double(b, p->q[j]));
    lg_str_printf(o, ": %s\n    eigenvalues:", p->stability);
    for (size_t i = 0; i < nx; i++)
      lg_str_printf(o, "%s%s %s %si", i ? ", " : " ", lg_fmt_double(b, p->eig_re[i]),
                    p->eig_im[i] < 0 ? "-" : "+", lg_fmt_double(c, fabs(p->eig_im[i])));
    lg_str_putc(o, '\n');
    if (p->family_dim) family(o, s, json, p, n);
  }
}

static void header(lg_str *o, const lg_system *s, int json, const lg_equilibria_result *r) {
  size_t n = r->n;
  if (json) {
    lg_str_puts(o, "{\n  \"coordinates\": [");
    for (size_t j = 0; j < n; j++) {
      lg_str_puts(o, j ? ", " : "");
      lg_str_json(o, lg_coordinate_name(s, j));
    }
    lg_str_puts(o, "],\n  \"free\": [");
  } else {
    lg_str_puts(o, "free:");
  }
  int any = 0;
  for (size_t j = 0; j < n; j++) {
    if (!r->free[j]) continue;
    if (json) {
      lg_str_puts(o, any ? ", " : "");
      lg_str_json(o, lg_coordinate_name(s, j));
    } else {
      lg_str_printf(o, "%s%s", any ? ", " : " ", lg_coordinate_name(s, j));
    }
    any = 1;
  }
  lg_str_puts(o, json ? "],\n  \"equilibria\": [" : any ? "\nequilibria:\n"
                                                          : " (none)\nequilibria:\n");
}

lg_status lg_equilibria_format(const lg_system *s, const lg_equilibria_result *r,
                               lg_format fmt, char **out, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (out) *out = NULL;
  if (!s || !r || !out || r->n != s->nq ||
      (fmt != LG_FORMAT_TEXT && fmt != LG_FORMAT_JSON)) {
    lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
                "lg_equilibria_format: a system, its lg_equilibria result, an output and "
                "a format (text or JSON) are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  int json = fmt == LG_FORMAT_JSON;
  lg_str o;
  lg_str_init(&o);
  header(&o, s, json, r);
  for (size_t i = 0; i < r->count; i++) report_one(&o, s, json, &r->points[i], r->n, i == 0);
  if (json) lg_str_puts(&o, r->count ? "\n  ]\n}\n" : "]\n}\n");
  else if (!r->count) lg_str_puts(&o, "  (none in the box)\n");
  char *text = lg_str_take(&o);
  lg_str_free(&o);
  lg_status st = api_end(&c, LG_OK, s->lm->file, 0, 0);
  if (st != LG_OK) lg_free(text);
  else *out = text;
  return st;
}
