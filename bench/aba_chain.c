/* aba_chain.c - a hand-written articulated-body algorithm (Featherstone's
 * ABA, O(n)) for the planar n-link chain of bench/models.py: link i is a
 * massless rod of length l_i from joint i to a point mass m_i, gravity
 * -g*N.y. It is the physical limit the generated code is measured against,
 * so it exploits the structure as far as we could:
 *
 * Planar spatial vectors (w, vx, vy) in the inertial axes, each body's
 * quantities referred to its own joint, where the joint's motion subspace is
 * S = (1, 0, 0). Body i's mass sits exactly at joint i+1, and the
 * articulated inertia left after joint i+1 has no rotational part there, so
 * everything handed inward is a 2x2 symmetric "mass" K at a point; moved to
 * joint i by the rod r_i it becomes X^T K X with X = [[1,0,0],[-r_y,1,0],
 * [r_x,0,1]], whose first column is (w.K.w, K w), w = (-r_y, r_x).
 * Gravity enters as the base acceleration (0, 0, g). About 70 operations and
 * one sine and cosine per link.
 *
 * State x = [q; q'] (2n), p = [g, m1, l1, m2, l2, ...] (bench/models.py's
 * order). relative = 0: q are absolute link angles (frame Ai rotated about
 * N.z by qi); 1: joint angles (Ai rotated from A(i-1)). Returns 0, or 1 when
 * n is out of range. Not reentrant (static work arrays). */
#include <math.h>

#include "aba_chain.h"

typedef struct {
  double rx, ry;   /* rod of link i: joint i to mass i (= joint i+1) */
  double cx, cy;   /* velocity-product acceleration (0, cx, cy) at joint i */
  double n, fx, fy; /* bias force, at joint i */
  double kx, ky;   /* K w / D */
  double ud;       /* u_i / D */
} link;

int aba_chain_rhs(int n, int relative, const double *x, const double *p, double *xdot) {
  static link L[ABA_MAXN];
  if (n < 1 || n > ABA_MAXN) return 1;
  /* pass 1, outward: rods, velocities, velocity-product terms, bias forces */
  double w = 0, vx = 0, vy = 0, phi = 0; /* vx, vy: velocity of joint i */
  for (int i = 0; i < n; i++) {
    const double m = p[1 + 2 * i], l = p[2 + 2 * i];
    const double qd = relative || i == 0 ? x[n + i] : x[n + i] - x[n + i - 1];
    phi = relative ? phi + x[i] : x[i];
    link *k = &L[i];
    w += qd;
    k->cx = vy * qd;
    k->cy = -vx * qd;
    k->rx = l * sin(phi);
    k->ry = -l * cos(phi);
    const double mx = vx - w * k->ry, my = vy + w * k->rx; /* velocity of mass i */
    const double px = m * mx, py = m * my;
    k->n = vx * py - vy * px; /* v x* (I v) of the point mass, at joint i */
    k->fx = -w * py;
    k->fy = w * px;
    vx = mx;
    vy = my;
  }
  /* pass 2, inward: the articulated inertia K (2x2 symmetric, at joint
     i+1) and bias force (0, Fx, Fy) handed to the parent */
  double A = 0, B = 0, C = 0, Fx = 0, Fy = 0;
  for (int i = n - 1; i >= 0; i--) {
    link *k = &L[i];
    const double m = p[1 + 2 * i];
    A += m;
    C += m;
    const double n0 = k->n + k->rx * Fy - k->ry * Fx, fx = k->fx + Fx, fy = k->fy + Fy;
    const double w1 = -k->ry, w2 = k->rx;
    const double k1 = A * w1 + B * w2, k2 = B * w1 + C * w2;
    const double inv = 1.0 / (w1 * k1 + w2 * k2);
    k->kx = k1 * inv;
    k->ky = k2 * inv;
    k->ud = -n0 * inv;
    A -= k1 * k->kx;
    B -= k1 * k->ky;
    C -= k2 * k->ky;
    Fx = fx + A * k->cx + B * k->cy + k1 * k->ud;
    Fy = fy + B * k->cx + C * k->cy + k2 * k->ud;
  }
  /* pass 3, outward: accelerations (alpha, ax, ay) at joint i */
  double al = 0, ax = 0, ay = p[0], acc = 0;
  for (int i = 0; i < n; i++) {
    const link *k = &L[i];
    if (i > 0) {
      ax -= al * L[i - 1].ry;
      ay += al * L[i - 1].rx;
    }
    ax += k->cx;
    ay += k->cy;
    const double qdd = k->ud - al - k->kx * ax - k->ky * ay;
    al += qdd;
    acc = relative ? qdd : al; /* an absolute angle's acceleration is alpha */
    xdot[i] = x[n + i];
    xdot[n + i] = acc;
  }
  return 0;
}
