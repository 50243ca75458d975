// kdl_fd.cpp - Orocos KDL's forward dynamics of a serial robot, for bench/peers.py.
//
//   kdl_fd info  URDF ROOT TIP          the chain's joint names, one a line
//   kdl_fd check URDF ROOT TIP STATES   one line of q'' per state
//   kdl_fd time  URDF ROOT TIP STATES [S]  "fd NS": ns per ChainFdSolver_RNE::CartToJnt
// The URDF is read by kdl_parser (urdfdom); the chain from ROOT to TIP; gravity (0, 0, -9.81);
// no external wrenches. STATES: lines of q, q', tau (n each, the chain's joint order). KDL
// keeps the URDF's full inertia (no diagonalization). Times: process CPU time, best of 9
// repetitions of at least S s (default 0.05), cycling over the states; each call copies the
// state into KDL's JntArrays first (included).
#include <kdl/chainfdsolver_recursive_newton_euler.hpp>
#include <kdl_parser/kdl_parser.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

static double now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 5) return 2;
  KDL::Tree tree;
  if (!kdl_parser::treeFromFile(argv[2], tree)) {
    fprintf(stderr, "kdl_fd: cannot read %s\n", argv[2]);
    return 1;
  }
  KDL::Chain chain;
  if (!tree.getChain(argv[3], argv[4], chain)) {
    fprintf(stderr, "kdl_fd: no chain %s -> %s\n", argv[3], argv[4]);
    return 1;
  }
  unsigned n = chain.getNrOfJoints();
  if (!strcmp(argv[1], "info")) {
    for (unsigned i = 0; i < chain.getNrOfSegments(); i++) {
      const KDL::Joint &j = chain.getSegment(i).getJoint();
      if (j.getType() != KDL::Joint::None) printf("%s\n", j.getName().c_str());
    }
    return 0;
  }
  if (argc < 6) return 2;
  std::vector<double> st;
  FILE *f = fopen(argv[5], "r");
  if (!f) return 1;
  double v;
  while (fscanf(f, "%lf", &v) == 1) st.push_back(v);
  fclose(f);
  size_t w = 3 * n, ns = st.size() / w;
  KDL::ChainFdSolver_RNE fd(chain, KDL::Vector(0, 0, -9.81));
  KDL::JntArray q(n), qd(n), tau(n), qdd(n);
  KDL::Wrenches fext(chain.getNrOfSegments(), KDL::Wrench::Zero());
  auto load = [&](size_t s) {
    const double *x = &st[s * w];
    for (unsigned i = 0; i < n; i++) {
      q(i) = x[i];
      qd(i) = x[n + i];
      tau(i) = x[2 * n + i];
    }
  };
  if (!strcmp(argv[1], "check")) {
    for (size_t s = 0; s < ns; s++) {
      load(s);
      int rc = fd.CartToJnt(q, qd, tau, fext, qdd);
      if (rc < 0) printf("error %d", rc);
      for (unsigned i = 0; i < n; i++) printf("%s%.17g", i ? " " : "", qdd(i));
      printf("\n");
    }
    return 0;
  }
  double rep = argc >= 7 ? atof(argv[6]) : 0.05, best = 1e30;
  long iters = 1;
  for (;;) {
    double t0 = now();
    for (long i = 0; i < iters; i++) {
      load((size_t)i % ns);
      fd.CartToJnt(q, qd, tau, fext, qdd);
    }
    if (now() - t0 >= rep) break;
    iters *= 2;
  }
  for (int r = 0; r < 9; r++) {
    double t0 = now();
    for (long i = 0; i < iters; i++) {
      load((size_t)i % ns);
      fd.CartToJnt(q, qd, tau, fext, qdd);
    }
    double t = (now() - t0) / (double)iters;
    if (t < best) best = t;
  }
  printf("fd %.1f\n", best * 1e9);
  return 0;
}
