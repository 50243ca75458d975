/* aba_chain.h - the articulated-body algorithm for the planar chain. */
#ifndef ABA_CHAIN_H
#define ABA_CHAIN_H
enum { ABA_MAXN = 512 };
int aba_chain_rhs(int n, int relative, const double *x, const double *p, double *xdot);
#endif
