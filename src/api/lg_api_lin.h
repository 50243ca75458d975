/* lg_api_lin.h - the linearization as `lagrange linearize` computes it,
 * shared by lg_linearize, lg_linearize_format and lg_equilibria
 * (lg_api_lin.c, lg_api_linfmt.c, lg_api_equil.c; never installed). */
#ifndef LG_API_LIN_H
#define LG_API_LIN_H

#include "lg_api_internal.h"

/* One linearization: the point completed onto the constraints, the split
 * into independent and dependent variables, A, B, x0, r0 and what the
 * reports add (q'' at the point; with Kane's own speeds, x = [q_i; u]). */
typedef struct api_lin {
  size_t n, nr, nx, nqi, nui;
  double t;
  double *q, *qd;          /* n each: the completed point */
  double *guess;           /* 2n: q, q' the completion started from */
  int *indep_q, *indep_v;  /* n each: named independent */
  int *dep_q, *dep_v;      /* n each: 1 = dependent */
  double *A, *B, *x0, *r0; /* nx x nx, nx x nr, nx, nr */
  double *Pq, *Q, *Vu, *G; /* num_lin_result's */
  double *qdd;             /* n: q'' at the point */
  const mech_kane *kane;   /* Kane's own speeds (x = [q_i; u]), else NULL */
  num_system ns;           /* the system's tapes with the call's parameters */
  const num_lin *L;        /* the compiled linearization (the system's) */
  double *mem;
  int *flags;
} api_lin;

/* The compiled linearization of s, built on first use (under its lock). */
lg_status api_lin_compiled(const lg_system *s, const num_lin **out, lg_diag *d);
/* The values --set gave, as the tapes were compiled with them. */
void api_lin_settings(const lg_system *s, const mech_setting **set, size_t *nset);

/* Linearize about (t, q, q') (NULL: the model's initial values; with
 * `given` nonzero, NaN entries of q and qd also mean the initial value
 * and a finite value that turns out dependent must already lie on the
 * constraints), parameters par (resolved), independent NULL or 2n flags.
 * Kane's method: its dependent rates, or its own speeds. On error r holds
 * nothing (api_lin_free is still safe). */
lg_status api_lin_run(const lg_system *s, double t, const double *q, const double *qd,
                      const double *par, const int *independent, int given, api_lin *r,
                      lg_diag *d);
void api_lin_free(api_lin *r);

/* The name of state variable a (a coordinate, a rate "x'" or a speed). */
void api_lin_state_name(lg_str *o, const lg_system *s, const api_lin *r, size_t a);
/* JSON number: null when not finite. */
void api_json_number(lg_str *o, double x);

#endif
