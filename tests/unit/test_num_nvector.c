/* test_num_nvector.c - the integrators' lean N_Vector operations
 * (num_nvector.c) give the serial N_Vector's results bit for bit: every
 * case of LinearSum (a, b in {1, -1, 0, 2, -2, 0.37, ...}, z = x, z = y, z
 * apart) and WRMSNorm, on random vectors of several lengths; and a clone
 * inherits them. */
#include "num_internal.h"
#include "test_util.h"

#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <string.h>

static void fill(N_Vector v, unsigned *seed) {
  sunrealtype *d = NV_DATA_S(v);
  for (sunindextype i = 0; i < NV_LENGTH_S(v); i++)
    d[i] = (rand_r(seed) / (double)RAND_MAX - 0.5) * (1 + rand_r(seed) % 1000);
}

static int same(N_Vector a, N_Vector b) {
  return memcmp(NV_DATA_S(a), NV_DATA_S(b), (size_t)NV_LENGTH_S(a) * sizeof(sunrealtype)) == 0;
}

int main(void) {
  SUNContext ctx;
  CHECK(SUNContext_Create(NULL, &ctx) == 0);
  static const double coef[] = {1, -1, 0, 2, -2, 0.37, -0.37, 1e-300, 3.5};
  size_t nc = sizeof coef / sizeof *coef;
  unsigned seed = 7;
  int bad_sum = 0, bad_norm = 0, cases = 0;
  for (sunindextype n = 1; n <= 40; n += 13) {
    N_Vector ref[3], lean[3];
    for (int k = 0; k < 3; k++) {
      ref[k] = N_VNew_Serial(n, ctx);
      lean[k] = N_VNew_Serial(n, ctx);
      num_lean_vector_ops(lean[k]);
    }
    for (size_t i = 0; i < nc; i++)
      for (size_t j = 0; j < nc; j++)
        for (int where = 0; where < 3; where++) { /* z apart, z = x, z = y */
          unsigned s0 = seed++;
          for (int k = 0; k < 3; k++) {
            unsigned s = s0 + (unsigned)k;
            fill(ref[k], &s);
            s = s0 + (unsigned)k;
            fill(lean[k], &s);
          }
          int z = where == 0 ? 2 : where == 1 ? 0 : 1;
          N_VLinearSum(coef[i], ref[0], coef[j], ref[1], ref[z]);
          N_VLinearSum(coef[i], lean[0], coef[j], lean[1], lean[z]);
          bad_sum += !same(ref[z], lean[z]);
          bad_norm += N_VWrmsNorm(ref[0], ref[1]) != N_VWrmsNorm(lean[0], lean[1]);
          cases++;
        }
    N_Vector clone = N_VClone(lean[0]);
    CHECK(clone && clone->ops->nvlinearsum == lean[0]->ops->nvlinearsum &&
          clone->ops->nvwrmsnorm == lean[0]->ops->nvwrmsnorm &&
          clone->ops->nvlinearsum != ref[0]->ops->nvlinearsum);
    N_VDestroy(clone);
    for (int k = 0; k < 3; k++) {
      N_VDestroy(ref[k]);
      N_VDestroy(lean[k]);
    }
  }
  CHECK(cases == 4 * 81 * 3);
  CHECK(bad_sum == 0);
  CHECK(bad_norm == 0);
  SUNContext_Free(&ctx);
  return tu_summary("test_num_nvector");
}
