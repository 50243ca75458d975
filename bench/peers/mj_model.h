/* mj_model.h - MuJoCo's copy of a robot as mj_fd.c and vs_fd.c time it:
 * joint armature, damping, stiffness and friction loss 0, constraints
 * (contacts, limits) and passive forces disabled, gravity (0, 0, -9.81),
 * so that qacc = M^-1 (tau - C(q, q')). NULL (the reason on stderr, after
 * `who`) when MuJoCo cannot load the file. */
#ifndef PEERS_MJ_MODEL_H
#define PEERS_MJ_MODEL_H

#include <mujoco/mujoco.h>
#include <stdio.h>

static mjModel *load_bare_model(const char *who, const char *path) {
  char err[1000] = "";
  mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
  if (!m) {
    fprintf(stderr, "%s: %s: %s\n", who, path, err);
    return NULL;
  }
  for (int i = 0; i < m->nv; i++) m->dof_armature[i] = m->dof_damping[i] = m->dof_frictionloss[i] = 0;
  for (int i = 0; i < m->njnt; i++) m->jnt_stiffness[i] = 0;
  m->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_PASSIVE | mjDSBL_CONTACT | mjDSBL_LIMIT;
  m->opt.gravity[0] = m->opt.gravity[1] = 0;
  m->opt.gravity[2] = -9.81;
  return m;
}

#endif
