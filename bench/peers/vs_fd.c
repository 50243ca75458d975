/* vs_fd.c - lagrange's generated right-hand side and MuJoCo's mj_forward on the same robot,
 * timed in alternation in one process, for bench/peers.py.
 *
 *   vs_fd MODEL MJSTATES LGSTATES [ROUNDS]
 *
 * On a shared machine a process's speed moves by 2x from one second to the next, so two
 * processes timed one after the other give ratios that move just as much. Here each round
 * times a block of lagrange's calls (about 2 ms) and then a block of MuJoCo's on the same
 * states (MJSTATES as mj_fd.c reads them, LGSTATES as lg_fd.c does), so both sides meet the
 * same load. Prints "lagrange NS", "mj_forward NS" (each side's best round, ns per call) and
 * "ratio R" (the median over rounds of the round's mj_forward / lagrange), "ratio_best RB"
 * (best over best). Each side's time includes what lg_fd.c's and mj_fd.c's do: lagrange's call
 * reads x, u, p and writes x'; MuJoCo's copies qpos, qvel and qfrc_applied into mjData and runs
 * mj_forward (no contacts, constraints or passive forces). The generated code comes in through
 * the same glue file as lg_fd.c's. */
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mj_model.h"
#include "states.h"

extern const int lg_nq, lg_nu, lg_np;
int lg_rhs(double t, const double *x, const double *u, const double *p, double *xdot);
void lg_params(double *p);

typedef struct side {
  const double *st;
  int w, ns;
  long iters;
} side;

static const mjModel *M;
static mjData *D;
static double *P, *XD, sink;

static double block_lg(const side *s) {
  int nx = 2 * lg_nq;
  double t0 = now();
  for (long i = 0; i < s->iters; i++) {
    const double *x = s->st + (size_t)(i % s->ns) * (size_t)s->w;
    lg_rhs(0, x, x + nx, P, XD);
    sink += XD[nx - 1];
  }
  return (now() - t0) / (double)s->iters;
}

static double block_mj(const side *s) {
  double t0 = now();
  for (long i = 0; i < s->iters; i++) {
    const double *x = s->st + (size_t)(i % s->ns) * (size_t)s->w;
    memcpy(D->qpos, x, sizeof(double) * (size_t)M->nq);
    memcpy(D->qvel, x + M->nq, sizeof(double) * (size_t)M->nv);
    memcpy(D->qfrc_applied, x + M->nq + M->nv, sizeof(double) * (size_t)M->nv);
    mj_forward(M, D);
    sink += D->qacc[M->nv - 1];
  }
  return (now() - t0) / (double)s->iters;
}

/* calls per block so that a block takes about 2 ms */
static void calibrate(side *s, double (*block)(const side *)) {
  for (s->iters = 1;; s->iters *= 2)
    if (block(s) * (double)s->iters >= 2e-3) break;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: vs_fd MODEL MJSTATES LGSTATES [ROUNDS]\n");
    return 2;
  }
  int rounds = argc > 4 ? atoi(argv[4]) : 60;
  if (rounds < 1) rounds = 1;
  mjModel *m = load_bare_model("vs_fd", argv[1]);
  if (!m) return 1;
  M = m;
  D = mj_makeData(m);
  side mj = {.w = m->nq + 2 * m->nv}, lg = {.w = 2 * lg_nq + lg_nu};
  double *ms = read_states(argv[2], mj.w, &mj.ns), *ls = read_states(argv[3], lg.w, &lg.ns);
  P = malloc(sizeof(double) * (size_t)(lg_np + 1));
  XD = malloc(sizeof(double) * (size_t)(2 * lg_nq));
  if (!ms || !ls || mj.ns == 0 || lg.ns == 0 || !P || !XD) {
    fprintf(stderr, "vs_fd: no states\n");
    return 1;
  }
  mj.st = ms;
  lg.st = ls;
  lg_params(P);
  calibrate(&lg, block_lg);
  calibrate(&mj, block_mj);
  double *tl = malloc(sizeof(double) * (size_t)rounds), *tm = malloc(sizeof(double) * (size_t)rounds);
  double *ratio = malloc(sizeof(double) * (size_t)rounds), bl = 1e30, bm = 1e30;
  for (int r = 0; r < rounds; r++) {
    /* alternate which side goes first, so neither always follows the other */
    if (r & 1) {
      tm[r] = block_mj(&mj);
      tl[r] = block_lg(&lg);
    } else {
      tl[r] = block_lg(&lg);
      tm[r] = block_mj(&mj);
    }
    ratio[r] = tm[r] / tl[r];
    if (tl[r] < bl) bl = tl[r];
    if (tm[r] < bm) bm = tm[r];
  }
  qsort(ratio, (size_t)rounds, sizeof *ratio, cmp_double);
  printf("lagrange %.1f\nmj_forward %.1f\nratio %.3f\nratio_best %.3f\n", bl * 1e9, bm * 1e9,
         ratio[rounds / 2], bm / bl);
  fprintf(stderr, "%s", sink == 12345.678 ? "." : "");
  free(tl);
  free(tm);
  free(ratio);
  free(ms);
  free(ls);
  free(P);
  free(XD);
  mj_deleteData(D);
  mj_deleteModel(m);
  return 0;
}
