/* simulate.c - integrate a model with the lagrange library and write the
 * CSV `lagrange simulate` writes (t, q, q', T, V, E, C1..Cm, W, the
 * multipliers lam1..lamm and the model's outputs).
 *
 *   cc simulate.c $(pkg-config --cflags --libs lagrange) -o simulate
 *   ./simulate examples/particle_bowl.lag [TF] > bowl.csv
 */
#include <lagrange.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct csv {
  size_t n, m, nout;
} csv;

/* one row per output point */
static int row(void *ud, const lg_sim_point *p) {
  const csv *c = ud;
  printf("%.17g", p->t);
  for (size_t i = 0; i < c->n; i++) printf(",%.17g", p->q[i]);
  for (size_t i = 0; i < c->n; i++) printf(",%.17g", p->qd[i]);
  printf(",%.17g,%.17g,%.17g", p->T, p->V, p->E);
  for (size_t r = 0; r < c->m; r++) printf(",%.17g", p->C[r]);
  printf(",%.17g", p->W);
  for (size_t r = 0; r < c->m; r++) printf(",%.17g", p->lam[r]);
  for (size_t k = 0; k < c->nout; k++) printf(",%.17g", p->outputs[k]);
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: simulate MODEL [TF]\n");
    return 2;
  }
  lg_diag d = {0};
  lg_model *m = NULL;
  lg_system *s = NULL;
  if (lg_model_load_file(argv[1], &m, &d) != LG_OK || lg_derive(m, LG_LAGRANGE, &s, &d) != LG_OK) {
    fprintf(stderr, "%s\n", lg_diag_text(&d));
    lg_model_free(m);
    return 1;
  }
  lg_model_free(m);
  lg_sim_options o;
  lg_sim_options_default(s, &o); /* the model's `simulate` line */
  if (argc > 2) o.tf = atof(argv[2]);
  o.multipliers = 1; /* lam1..lamm at every point, as the command's CSV */
  o.outputs = 1;     /* and every output */
  csv c = {lg_nq(s), lg_nc(s), lg_noutputs(s)};
  printf("t");
  for (size_t i = 0; i < c.n; i++) printf(",%s", lg_coordinate_name(s, i));
  for (size_t i = 0; i < c.n; i++) printf(",%s'", lg_coordinate_name(s, i));
  printf(",T,V,E");
  for (size_t r = 0; r < c.m; r++) printf(",C%zu", r + 1);
  printf(",W");
  for (size_t r = 0; r < c.m; r++) printf(",lam%zu", r + 1);
  for (size_t k = 0; k < c.nout; k++) printf(",%s", lg_output_name(s, k));
  printf("\n");
  lg_sim_stats st;
  lg_status rc = lg_simulate(s, &o, NULL, NULL, NULL, row, &c, &st, &d);
  if (rc != LG_OK) fprintf(stderr, "%s\n", lg_diag_text(&d));
  else fprintf(stderr, "%ld steps, max |(E - W) - (E0 - W0)| = %.3g\n", st.steps,
                st.max_energy_drift);
  lg_system_free(s);
  return rc == LG_OK ? 0 : 1;
}
