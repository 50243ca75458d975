/* lg_api_outputs.c - the model's outputs (`output NAME = ...`) at a state:
 * compiled on first use (num_outputs.c, under the system's lock), then
 * evaluated with q'' and the multipliers solved at the state. */
#include "lg_api_internal.h"

#include <math.h>
#include <string.h>

size_t lg_noutputs(const lg_system *s) { return s ? mech_noutputs(s->lm->mech) : 0; }

const char *lg_output_name(const lg_system *s, size_t i) {
  return s ? mech_output_name(s->lm->mech, i) : NULL;
}

lg_status api_outputs(const lg_system *s, const num_outputs **out, lg_diag *d) {
  lg_system *mut = (lg_system *)s;
  lg_status st = LG_OK;
  if ((*out = s->outs)) return LG_OK;
  pthread_mutex_lock(&mut->lock);
  if (!mut->outs) {
    num_outputs *o = NULL;
    st = api_num_eom(mut, d);
    if (st == LG_OK) st = num_outputs_build(s->lm->mech, s->eom_num, s->lm->file, s->dummy, s->ndummy, &o, d);
    mut->outs = o;
  }
  *out = mut->outs;
  pthread_mutex_unlock(&mut->lock);
  return st;
}

lg_status api_outputs_at(const lg_system *s, double t, const double *q, const double *qd,
                         const double *par, const double *qdd, const double *lam, double *res,
                         lg_diag *d) {
  const num_outputs *o;
  lg_status st = api_outputs(s, &o, d);
  if (st != LG_OK || !o->nout) return st;
  size_t n = o->n, np = o->np, m = o->m;
  double *in = lg_malloc((o->nin + num_outputs_work_size(o)) * sizeof *in);
  if (!in) return LG_ERR_NOMEM;
  in[0] = t;
  memcpy(in + 1, q, n * sizeof *in);
  memcpy(in + 1 + n, qd, n * sizeof *in);
  if (np) memcpy(in + 1 + 2 * n, par, np * sizeof *in);
  memcpy(in + 1 + 2 * n + np, qdd, n * sizeof *in);
  for (size_t r = 0; r < m; r++) in[1 + 3 * n + np + r] = lam ? lam[r] : NAN;
  num_outputs_eval(o, in, res, in + o->nin);
  lg_free(in);
  return LG_OK;
}

/* q'' and lam at the state into x (n + m): Lagrange's solve; under Kane's
 * method q'' is Kane's (lam still from Lagrange's equations). */
static lg_status solve(const lg_system *s, api_scratch *sc, double t, const double *q,
                       const double *qd, lg_diag *d) {
  size_t n = s->nq, m = s->nc;
  lg_status st = LG_OK;
  if (s->method != LG_KANE) {
    st = api_solve_qdd(s, sc, t, q, qd, sc->x, 0, d); /* (a large tree's: its recursion) */
  } else if (m) {
    num_evaluate_dynamics(s->num, &sc->w, t, q, qd);
    st = num_solve_accel(s->num, &sc->w, sc->x, sc->x + n, d);
  }
  if (st == LG_OK && s->method == LG_KANE) {
    num_kane_result r;
    st = num_kane_evaluator_run(s->kev, sc->par, t, q, qd, NULL, 0, &r, d);
    if (st != LG_OK) return st;
    memcpy(sc->x, r.qdd, n * sizeof *sc->x);
    num_kane_result_free(&r);
  }
  return st;
}

lg_status lg_eval_outputs(const lg_system *s, double t, const double *q, const double *qd,
                          const double *p, double *out, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  const double *par = NULL;
  const num_outputs *o = NULL;
  api_scratch *sc = NULL;
  lg_status st = LG_OK;
  if (!s || !q || !qd || (!out && lg_noutputs(s))) {
    lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
                "lg_eval_outputs: a system, q, q' and an output are needed");
    st = LG_ERR_USAGE;
  }
  if (st == LG_OK) st = api_params(s, p, &par, d);
  if (st == LG_OK) st = api_outputs(s, &o, d);
  if (st == LG_OK && o->nout) {
    if (!(sc = api_scratch_take(s))) st = LG_ERR_NOMEM;
    if (st == LG_OK) {
      memcpy(sc->w.in + 1 + 2 * s->nq, par, s->np * sizeof *par);
      sc->par = par;
      st = solve(s, sc, t, q, qd, d);
    }
    if (st == LG_OK) st = api_outputs_at(s, t, q, qd, par, sc->x, sc->x + s->nq, out, d);
    api_scratch_give(s, sc);
  }
  return api_end(&c, st, s ? s->lm->file : NULL, s ? s->lm->coord_line : 0,
                 s ? s->lm->coord_col : 0);
}

/* ---- outputs along a run (issue 24) ------------------------------------------------- */
/* Columns i .. i+2 are one vector output `base`: base_x, base_y, base_z
 * written by one statement (same position). */
static int vector_at(const lg_system *s, size_t i, const char *base, size_t len) {
  mech_model *mm = s->lm->mech;
  size_t nout = mech_noutputs(mm);
  if (i + 3 > nout) return 0;
  int l0, c0;
  mech_output_pos(mm, i, &l0, &c0);
  for (size_t k = 0; k < 3; k++) {
    const char *name = mech_output_name(mm, i + k);
    int l, c;
    mech_output_pos(mm, i + k, &l, &c);
    if (strlen(name) != len + 2 || strncmp(name, base, len) || name[len] != '_' ||
        name[len + 1] != "xyz"[k] || l != l0 || c != c0)
      return 0;
  }
  return 1;
}

static lg_status select_error(const lg_system *s, lg_diag *d, const char *fmt, const char *a,
                              size_t len) {
  lg_diag_set(d, LG_ERR_USAGE, s->lm->file, 0, 0, fmt, (int)len, a);
  lg_str names;
  lg_str_init(&names);
  size_t nout = lg_noutputs(s);
  for (size_t i = 0; i < nout; i++) {
    const char *name = lg_output_name(s, i);
    size_t bl = strlen(name) - 2;
    if (vector_at(s, i, name, bl)) {
      lg_str_printf(&names, "%s%.*s", i ? ", " : "", (int)bl, name);
      i += 2;
    } else {
      lg_str_printf(&names, "%s%s", i ? ", " : "", name);
    }
  }
  if (nout) lg_diag_hint(d, "the model's outputs: %s", names.s ? names.s : "");
  else lg_diag_hint(d, "the model declares no `output`");
  lg_str_free(&names);
  return LG_ERR_USAGE;
}

lg_status lg_output_select(const lg_system *s, const char *text, size_t *cols, size_t room,
                           size_t *count, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (!s || !count || (room && !cols)) {
    lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
                "lg_output_select: a system, room and a count are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  size_t nout = lg_noutputs(s), k = 0;
  lg_status st = LG_OK;
  *count = 0;
  if (!text) {
    for (size_t i = 0; i < nout && st == LG_OK; i++) {
      if (k == room) st = select_error(s, d, "`outputs`: no room for the columns%.*s", "", 0);
      else cols[k++] = i;
    }
  }
  for (const char *p = text; st == LG_OK && p && *p;) {
    const char *end = strchr(p, ','), *a = p, *b;
    if (!end) end = p + strlen(p);
    b = end;
    while (a < b && (*a == ' ' || *a == '\t')) a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
    size_t len = (size_t)(b - a), first = nout, width = 1;
    for (size_t i = 0; i < nout && first == nout; i++) {
      const char *name = lg_output_name(s, i);
      if (strlen(name) == len && !strncmp(name, a, len)) first = i;
      else if (len && vector_at(s, i, a, len)) first = i, width = 3;
    }
    if (!len) st = select_error(s, d, "`outputs`: an empty name in the list%.*s", "", 0);
    else if (first == nout) st = select_error(s, d, "`outputs`: unknown output '%.*s'", a, len);
    for (size_t w = 0; st == LG_OK && w < width; w++) {
      for (size_t j = 0; j < k; j++)
        if (cols[j] == first + w) {
          st = select_error(s, d, "`outputs`: '%.*s' is named twice", a, len);
          break;
        }
      if (st == LG_OK && k == room)
        st = select_error(s, d, "`outputs`: no room for the columns of '%.*s'", a, len);
      if (st == LG_OK) cols[k++] = first + w;
    }
    p = *end ? end + 1 : end;
  }
  if (st == LG_OK) *count = k;
  return api_end(&c, st, s->lm->file, 0, 0);
}

lg_status api_state_extras(const lg_system *s, api_scratch *sc, double t, const double *q,
                           const double *qd, double *lam, double *out, lg_diag *d) {
  size_t n = s->nq, m = s->nc;
  lg_status st = LG_OK;
  if (out) {
    st = solve(s, sc, t, q, qd, d);
  } else if (m) {
    num_evaluate_dynamics(s->num, &sc->w, t, q, qd);
    st = num_solve_accel(s->num, &sc->w, sc->x, sc->x + n, d);
  }
  if (st == LG_OK && lam && m) memcpy(lam, sc->x + n, m * sizeof *lam);
  if (st == LG_OK && out) st = api_outputs_at(s, t, q, qd, sc->par, sc->x, sc->x + n, out, d);
  return st;
}
