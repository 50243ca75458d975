/* num_friction.c - Coulomb friction on coordinates (`friction x: F
 * [static Fs]`, MODEL-FORMAT 1.1) as a set-valued force with modes.
 *
 * Each element is slipping forward (+1), slipping backward (-1) or
 * sticking (0). While slipping, the generalized force -s F acts on its
 * coordinate; no sign() is ever evaluated in the right-hand side, so the
 * integrator sees a smooth force in each mode. While sticking, q_i'' = 0
 * is one more row of the augmented system,
 *   [[M, -J^T, -E^T], [J, 0, 0], [E, 0, 0]] [q''; lam; r] = [f + Q_slip; gc; 0],
 * and r is the force friction must supply to hold the coordinate (E picks
 * the sticking coordinates). Modes change only at events located by the
 * integrator's root finding: s q_i' crossing 0 downward while slipping (the
 * element then sticks when |r| <= Fs, else it slips the other way), and
 * Fs - r or Fs + r crossing 0 downward while sticking (it slips against r).
 * Work: W' = dE/dt along the motion (num_aux) takes the actual q'', so the
 * friction's power is in W and E - W stays conserved. */
#include "num.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

struct num_friction_run {
  const num_friction *fr;
  const num_system *s;
  int *mode;          /* nf: +1, -1, 0 (stick) */
  int *armed;         /* nf: a slip's guard s q' is live (see num_friction_guards) */
  double *force;      /* nf: the friction force at the last solve */
  double *level;      /* 2 nf: F_j, Fs_j at the last evaluation */
  double *in, *slots; /* the levels' tape */
  double *A, *b;      /* the augmented system */
  double *qdd;        /* n + m: a solve's q'' and lam (guards, holding forces) */
  lapack_int *ipiv;
  num_contact_run *ct; /* with contacts: their solve holds friction's rows */
};

void num_friction_free(num_friction *fr) {
  if (!fr) return;
  sym_tape_free(fr->level);
  lg_free(fr->coord);
  lg_free(fr);
}

lg_status num_friction_build(mech_model *mm, const mech_eom *e, const num_friction_def *defs,
                             size_t nf, const num_setting *set, size_t nset,
                             num_friction **out, lg_diag *diag) {
  *out = NULL;
  num_friction *fr = lg_calloc(1, sizeof *fr);
  if (!fr) return LG_ERR_NOMEM;
  fr->nf = nf;
  fr->n = e->n;
  fr->np = mech_nparams(mm);
  const sym_node **o = lg_malloc((2 * nf + 1) * sizeof *o);
  fr->coord = lg_calloc(nf + 1, sizeof *fr->coord);
  lg_status st = o && fr->coord ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) {
    for (size_t i = 0; i < nf; i++) {
      fr->coord[i] = defs[i].coord;
      o[2 * i] = defs[i].F;
      o[2 * i + 1] = defs[i].Fs;
    }
    st = num_substitute_inputs(mm, set, nset, o, 2 * nf);
    if (st == LG_OK) st = num_state_tape(mm, e, o, 2 * nf, "a friction level", &fr->level, diag);
  }
  lg_free(o);
  if (st != LG_OK) {
    num_friction_free(fr);
    return st;
  }
  *out = fr;
  return LG_OK;
}

static void levels(num_friction_run *r, double t, const double *q, const double *qd) {
  const num_friction *fr = r->fr;
  size_t n = fr->n;
  num_state_load(r->in, n, fr->params, fr->np, t, q, qd);
  sym_tape_eval(fr->level, r->in, r->level, r->slots);
}

void num_friction_run_free(num_friction_run *r) {
  if (!r) return;
  lg_free(r->mode);
  lg_free(r->armed);
  lg_free(r->force);
  lg_free(r->level);
  lg_free(r->in);
  lg_free(r->slots);
  lg_free(r->A);
  lg_free(r->qdd);
  lg_free(r->ipiv);
  lg_free(r);
}

num_friction_run *num_friction_run_new(const num_friction *fr, const num_system *s) {
  num_friction_run *r = lg_calloc(1, sizeof *r);
  if (!r) return NULL;
  size_t nf = fr->nf, N = s->n + s->m + nf;
  r->fr = fr;
  r->s = s;
  r->mode = lg_calloc(nf + 1, sizeof *r->mode);
  r->armed = lg_calloc(nf + 1, sizeof *r->armed);
  r->force = lg_calloc(nf + 1, sizeof *r->force);
  r->level = lg_calloc(2 * nf + 1, sizeof *r->level);
  r->in = lg_calloc(1 + 2 * fr->n + fr->np, sizeof *r->in);
  r->slots = lg_calloc(fr->level->nslots + 1, sizeof *r->slots);
  r->A = lg_calloc(N * N + N + 1, sizeof *r->A);
  r->ipiv = lg_calloc(N + 1, sizeof *r->ipiv);
  r->qdd = lg_calloc(N + 1, sizeof *r->qdd);
  if (!r->qdd || !r->mode || !r->armed || !r->force || !r->level || !r->in || !r->slots || !r->A || !r->ipiv) {
    num_friction_run_free(r);
    return NULL;
  }
  r->b = r->A + N * N;
  return r;
}

lg_status num_friction_check(const num_friction *fr, double t, const double *q,
                             const double *qd, size_t *bad, int *static_low) {
  double *in = lg_calloc(1 + 2 * fr->n + fr->np, sizeof *in);
  double *slots = lg_calloc(fr->level->nslots + 1, sizeof *slots);
  double *lv = lg_calloc(2 * fr->nf + 1, sizeof *lv);
  lg_status st = in && slots && lv ? LG_OK : LG_ERR_NOMEM;
  if (st == LG_OK) {
    num_state_load(in, fr->n, fr->params, fr->np, t, q, qd);
    sym_tape_eval(fr->level, in, lv, slots);
    for (size_t j = 0; j < fr->nf; j++) {
      double F = lv[2 * j], Fs = lv[2 * j + 1];
      if (!(F >= 0) || !(Fs >= F)) {
        *bad = j;
        *static_low = F >= 0;
        st = LG_ERR_MODEL;
        break;
      }
    }
  }
  lg_free(in);
  lg_free(slots);
  lg_free(lv);
  return st;
}

/* The augmented solve at the state after num_evaluate_dynamics (w->out):
 * q'' and lam, and each element's force. */
lg_status num_friction_accel(num_friction_run *r, num_work *w, double t, const double *q,
                             const double *qd, double *qdd, double *lam) {
  if (r->ct) return num_contact_accel(r->ct, w, t, q, qd, qdd, lam);
  const num_system *s = r->s;
  const num_friction *fr = r->fr;
  size_t n = s->n, m = s->m, ns = 0;
  for (size_t j = 0; j < fr->nf; j++) ns += r->mode[j] == 0;
  size_t N = n + m + ns;
  double *A = r->A, *b = r->b;
  const double *o = w->out;
  memset(A, 0, N * N * sizeof *A); /* row-major */
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) A[i * N + j] = o[s->o_M + i * n + j];
    for (size_t k = 0; k < m; k++) {
      A[i * N + n + k] = -o[s->o_J + k * n + i];
      A[(n + k) * N + i] = o[s->o_J + k * n + i];
    }
    b[i] = o[s->o_f + i];
  }
  for (size_t k = 0; k < m; k++) b[n + k] = o[s->o_gc + k];
  num_friction_fill(r, t, q, qd, A, N, b, n + m);
  if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)N, 1, A, (lapack_int)N, r->ipiv, b, 1))
    return LG_ERR_NUMERIC;
  memcpy(qdd, b, n * sizeof *qdd);
  if (m && lam) memcpy(lam, b + n, m * sizeof *lam);
  for (size_t j = 0, k = n + m; j < fr->nf; j++)
    if (!r->mode[j]) {
      r->force[j] = b[k++];
      qdd[fr->coord[j]] = 0;
    }
  return LG_OK;
}

/* The force that would hold element j (its mode set to stick for the solve). */
static double hold_force(num_friction_run *r, num_work *w, size_t j, double t, const double *q,
                         const double *qd, int *ok) {
  int keep = r->mode[j];
  r->mode[j] = 0;
  num_evaluate_dynamics(r->s, w, t, q, qd);
  *ok = num_friction_accel(r, w, t, q, qd, r->qdd, r->qdd + r->s->n) == LG_OK;
  r->mode[j] = keep;
  return r->force[j];
}

/* Element j at rest: stick when the holding force is within Fs, else slip
 * against it. */
static void settle(num_friction_run *r, num_work *w, size_t j, double t, const double *q,
                   double *qd) {
  qd[r->fr->coord[j]] = 0;
  int ok;
  double f = hold_force(r, w, j, t, q, qd, &ok);
  double Fs = r->level[2 * j + 1];
  r->mode[j] = !ok || fabs(f) <= Fs ? 0 : (f > 0 ? -1 : 1);
  r->armed[j] = 0;
}

void num_friction_start(num_friction_run *r, num_work *w, double t, const double *q,
                        double *qd) {
  for (size_t j = 0; j < r->fr->nf; j++) r->mode[j] = 1;
  for (size_t j = 0; j < r->fr->nf; j++) {
    double v = qd[r->fr->coord[j]];
    if (v != 0) r->mode[j] = v > 0 ? 1 : -1, r->armed[j] = 1;
    else settle(r, w, j, t, q, qd);
  }
}

void num_friction_guards(num_friction_run *r, num_work *w, double t, const double *q,
                         const double *qd, double *g) {
  const num_friction *fr = r->fr;
  int stuck = 0;
  for (size_t j = 0; j < fr->nf; j++) stuck |= r->mode[j] == 0;
  if (stuck) {
    num_evaluate_dynamics(r->s, w, t, q, qd);
    if (num_friction_accel(r, w, t, q, qd, r->qdd, r->qdd + r->s->n) != LG_OK)
      for (size_t j = 0; j < fr->nf; j++) r->force[j] = NAN;
  }
  for (size_t j = 0; j < fr->nf; j++) {
    if (r->mode[j]) {
      /* A slip that starts from rest starts with s q' = 0 exactly, which
       * the root finders may take for a crossing at the restart; its
       * guard reads 1 until s q' > 0 has been seen (the acceleration is
       * along s then, so that is within the first step). */
      double v = r->mode[j] * qd[fr->coord[j]];
      if (!r->armed[j] && v > 0) r->armed[j] = 1;
      g[2 * j] = r->armed[j] ? v : 1;
      g[2 * j + 1] = 1;
    } else {
      double Fs = r->level[2 * j + 1];
      g[2 * j] = Fs - r->force[j];
      g[2 * j + 1] = Fs + r->force[j];
    }
  }
}

int num_friction_switch(num_friction_run *r, num_work *w, const int *fired, double t,
                        const double *q, double *qd) {
  int changed = 0;
  for (size_t j = 0; j < r->fr->nf; j++) {
    if (!fired[2 * j] && !fired[2 * j + 1]) continue;
    int was = r->mode[j];
    if (was) settle(r, w, j, t, q, qd); /* came to rest: stick, or slip back */
    else { /* the holding force reached Fs: slip against it */
      int ok;
      double f = hold_force(r, w, j, t, q, qd, &ok);
      r->mode[j] = f > 0 ? -1 : 1;
      r->armed[j] = 0;
    }
    changed += r->mode[j] != was;
  }
  return changed;
}

int num_friction_mode(const num_friction_run *r, size_t j) { return r->mode[j]; }

/* ---- friction and contacts in one model --------------------------------------------------
 * num_contact_accel solves for both: friction's sticking rows follow the
 * contacts' (an element's row E q'' = 0, its column -E^T), its slipping
 * forces join f. Impacts take no friction impulse (a bounded force). */
void num_friction_set_contact(num_friction_run *r, num_contact_run *ct) { r->ct = ct; }

size_t num_friction_count(const num_friction_run *r) { return r->fr->nf; }

size_t num_friction_nstick(const num_friction_run *r) {
  size_t ns = 0;
  for (size_t j = 0; j < r->fr->nf; j++) ns += r->mode[j] == 0;
  return ns;
}

void num_friction_fill(num_friction_run *r, double t, const double *q, const double *qd,
                       double *A, size_t N, double *b, size_t at) {
  levels(r, t, q, qd);
  for (size_t j = 0, k = at; j < r->fr->nf; j++) {
    size_t i = (size_t)r->fr->coord[j];
    if (r->mode[j]) {
      r->force[j] = -r->mode[j] * r->level[2 * j];
      b[i] += r->force[j];
      continue;
    }
    A[i * N + k] = -1;
    A[k * N + i] = 1;
    b[k++] = 0;
  }
}

void num_friction_take(num_friction_run *r, const double *sol, size_t at, double *qdd) {
  for (size_t j = 0, k = at; j < r->fr->nf; j++)
    if (!r->mode[j]) {
      r->force[j] = sol[k++];
      qdd[r->fr->coord[j]] = 0;
    }
}

int num_friction_recheck(num_friction_run *r, num_work *w, double t, const double *q,
                         double *qd) {
  int changed = 0;
  for (size_t j = 0; j < r->fr->nf; j++) {
    int was = r->mode[j];
    double v = qd[r->fr->coord[j]];
    if (v != 0 && v * was <= 0) { /* an impact set it moving (or reversed it) */
      r->mode[j] = v > 0 ? 1 : -1;
      r->armed[j] = 1;
    } else if (!was) { /* stuck: does the hold still suffice? */
      int ok;
      double f = hold_force(r, w, j, t, q, qd, &ok);
      if (ok && fabs(f) > r->level[2 * j + 1]) {
        r->mode[j] = f > 0 ? -1 : 1;
        r->armed[j] = 0;
      }
    }
    changed += r->mode[j] != was;
  }
  return changed;
}
