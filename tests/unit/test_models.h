/* test_models.h - small models shared by the library's unit tests. */
#ifndef LG_TEST_MODELS_H
#define LG_TEST_MODELS_H

#include "lagrange.h"

#include <stdio.h>
#include <string.h>

static const char CART[] =
    "coordinates x theta\n"
    "parameters m = 1, M = 0.5, l = 0.8, g = 9.81\n"
    "frame N\n"
    "frame A = rotate(N, N.z, -theta)\n"
    "point O\n"
    "point C = O + x*N.x\n"
    "point P = C + l*A.y\n"
    "particle C mass m\n"
    "particle P mass M\n"
    "gravity -g*N.y\n"
    "initial theta = 0.1\n";

/* a particle on a sphere: one holonomic constraint */
static const char BOWL[] =
    "coordinates q1 q2 q3\n"
    "parameters m = 1, g = 9.81, r = 1\n"
    "frame N\n"
    "point O\n"
    "point P = O + q1*N.x + q2*N.y + q3*N.z\n"
    "particle P mass m\n"
    "gravity -g*N.z\n"
    "constraint q1^2 + q2^2 + q3^2 = r^2\n"
    "initial q1 = 0.6, q3 = -0.8, q2' = 1\n";

/* A model from its text, derived by `method` (NULL, with the message on
 * stderr, when either step fails). */
static lg_system *derive_text(const char *name, const char *text, lg_method method) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  lg_diag d = {0};
  if (lg_model_load_string(name, text, strlen(text), &m, &d) != LG_OK ||
      lg_derive(m, method, &s, &d) != LG_OK)
    fprintf(stderr, "derive %s: %s\n", name, lg_diag_text(&d));
  lg_model_free(m);
  return s;
}

#endif
