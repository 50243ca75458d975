/* mj_fd.c - MuJoCo's forward dynamics of a robot, for bench/peers.py.
 *
 *   mj_fd info  MODEL            nq nv, then "joint NAME TYPE QPOSADR DOFADR" per joint
 *   mj_fd check MODEL STATES     one line of qacc (nv numbers) per state
 *   mj_fd time  MODEL STATES [S] ns per call: "forward NS" (mj_forward) and
 *                                "minimal NS" (mj_fwdPosition, mj_fwdVelocity,
 *                                mj_fwdActuation, mj_fwdAcceleration)
 * MODEL: a URDF or MJCF file (mj_loadXML). STATES: lines of qpos (nq), qvel (nv), tau (nv);
 * tau goes to qfrc_applied. Joint armature, damping, stiffness and friction loss are set to
 * 0, constraints (contacts, limits) and passive forces disabled, gravity (0, 0, -9.81), so
 * that qacc = M^-1 (tau - C(q, q')). Times are process CPU time, best of 9 repetitions of at
 * least S s (default 0.05) each, cycling over the states; each call writes qpos, qvel and
 * qfrc_applied first (the copy is included in the time: a few hundred bytes). */
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mj_model.h"
#include "states.h"

static void load_state(const mjModel *m, mjData *d, const double *s) {
  memcpy(d->qpos, s, sizeof(double) * (size_t)m->nq);
  memcpy(d->qvel, s + m->nq, sizeof(double) * (size_t)m->nv);
  memcpy(d->qfrc_applied, s + m->nq + m->nv, sizeof(double) * (size_t)m->nv);
}

static void minimal(const mjModel *m, mjData *d) {
  mj_fwdPosition(m, d);
  mj_fwdVelocity(m, d);
  mj_fwdActuation(m, d);
  mj_fwdAcceleration(m, d);
}

static double time_it(const mjModel *m, mjData *d, const double *st, int ns, double rep_s,
                      int which) {
  int w = m->nq + 2 * m->nv;
  double best = 1e30;
  long iters = 1;
  for (;;) { /* calibrate */
    double t0 = now();
    for (long i = 0; i < iters; i++) {
      load_state(m, d, st + (size_t)(i % ns) * (size_t)w);
      if (which) minimal(m, d); else mj_forward(m, d);
    }
    if (now() - t0 >= rep_s) break;
    iters *= 2;
  }
  for (int r = 0; r < 9; r++) {
    double t0 = now();
    for (long i = 0; i < iters; i++) {
      load_state(m, d, st + (size_t)(i % ns) * (size_t)w);
      if (which) minimal(m, d); else mj_forward(m, d);
    }
    double t = (now() - t0) / (double)iters;
    if (t < best) best = t;
  }
  return best * 1e9;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: mj_fd info|check|time MODEL [STATES [S]]\n");
    return 2;
  }
  mjModel *m = load_bare_model("mj_fd", argv[2]);
  if (!m) return 1;
  mjData *d = mj_makeData(m);
  int rc = 0;
  if (!strcmp(argv[1], "info")) {
    printf("%d %d\n", m->nq, m->nv);
    for (int j = 0; j < m->njnt; j++)
      printf("joint %s %d %d %d\n", mj_id2name(m, mjOBJ_JOINT, j), m->jnt_type[j],
             m->jnt_qposadr[j], m->jnt_dofadr[j]);
  } else if (argc >= 4) {
    int w = m->nq + 2 * m->nv, ns = 0;
    double *st = read_states(argv[3], w, &ns);
    if (!st || ns == 0) {
      fprintf(stderr, "mj_fd: no states in %s\n", argv[3]);
      rc = 1;
    } else if (!strcmp(argv[1], "check")) {
      for (int s = 0; s < ns; s++) {
        load_state(m, d, st + (size_t)s * (size_t)w);
        mj_forward(m, d);
        for (int i = 0; i < m->nv; i++) printf("%s%.17g", i ? " " : "", d->qacc[i]);
        printf("\n");
      }
    } else {
      double rep = argc >= 5 ? atof(argv[4]) : 0.05;
      printf("forward %.1f\n", time_it(m, d, st, ns, rep, 0));
      printf("minimal %.1f\n", time_it(m, d, st, ns, rep, 1));
    }
    free(st);
  } else {
    rc = 2;
  }
  mj_deleteData(d);
  mj_deleteModel(m);
  return rc;
}
