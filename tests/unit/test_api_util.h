/* test_api_util.h - what the tests of the public API share: a system
 * derived from model text, and a reproducible pseudo-random number. */
#ifndef LG_TEST_API_UTIL_H
#define LG_TEST_API_UTIL_H

#include "lagrange.h"

#include <stdio.h>
#include <string.h>

/* A number in [-1, 1) from the state *x (the same sequence everywhere). */
static inline double tu_rnd(unsigned *x) {
  *x = *x * 1103515245u + 12345u;
  return ((*x >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* The model text `text` (named `name`: ".urdf" reads it as a URDF)
 * derived by `method`, lazily or not; NULL (the error printed) when that
 * fails. */
static inline lg_system *tu_derive(const char *name, const char *text, int lazy,
                                   lg_method method) {
  lg_model *m = NULL;
  lg_system *s = NULL;
  lg_diag d;
  if (lg_model_load_string(name, text, strlen(text), &m, &d) != LG_OK) {
    fprintf(stderr, "%s\n", d.text);
    return NULL;
  }
  lg_derive_options o;
  lg_derive_options_default(&o);
  o.lazy = lazy;
  o.method = method;
  if (lg_derive_with(m, &o, &s, &d) != LG_OK) fprintf(stderr, "%s\n", d.text);
  lg_model_free(m);
  return s;
}

#endif
