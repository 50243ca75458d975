/* num_nvector.c - two N_Vector operations without the serial vector's
 * chain of calls and case tests, with the same results bit for bit.
 *
 * The integrators call them on short vectors ([q; q'] of a few dozen
 * entries) very often: CVODE's Adams predictor alone makes q (q + 1) / 2
 * linear sums a step at order q (up to 12), and every error test and
 * fixed-point iteration takes a weighted RMS norm. There the calls, not the
 * arithmetic, were a third of a small model's run. */
#include "num_internal.h"

#include <math.h>
#include <nvector/nvector_serial.h>

/* The weighted RMS norm of the error tests and the fixed-point iteration,
 * summed in the serial N_Vector's order. */
static sunrealtype wrms_norm(N_Vector x, N_Vector w) {
  sunindextype n = NV_LENGTH_S(x);
  const sunrealtype *xd = NV_DATA_S(x), *wd = NV_DATA_S(w);
  sunrealtype sum = 0;
  for (sunindextype i = 0; i < n; i++) {
    sunrealtype p = xd[i] * wd[i];
    sum += p * p;
  }
  return sqrt(sum / (sunrealtype)n);
}

/* z = a x + b y (z may be x or y), rounded exactly as the serial
 * N_Vector's LinearSum: c (x + y) when a = b, c (x - y) when a = -b, and
 * every other case of its (x + y, x - y, a x + y, a x - y, y += a x) as
 * a x + b y. */
static void linear_sum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z) {
  sunindextype n = NV_LENGTH_S(x);
  const sunrealtype *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  sunrealtype *zd = NV_DATA_S(z);
  if (a == b && a != 1)
    for (sunindextype i = 0; i < n; i++) zd[i] = a * (xd[i] + yd[i]);
  else if (a == -b && a != 1 && a != -1)
    for (sunindextype i = 0; i < n; i++) zd[i] = a * (xd[i] - yd[i]);
  else
    for (sunindextype i = 0; i < n; i++) zd[i] = a * xd[i] + b * yd[i];
}

void num_lean_vector_ops(N_Vector y) {
  y->ops->nvlinearsum = linear_sum;
  y->ops->nvwrmsnorm = wrms_norm;
}
