/* cli_help.c - `lagrange help [COMMAND]`, `lagrange COMMAND --help` and
 * `lagrange --version`: one entry per subcommand (the man page, lagrange.1,
 * says the same at length). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

typedef struct cli_help_entry {
  const char *name, *usage, *text;
} cli_help_entry;

static const cli_help_entry entries[] = {
    {"eom", "lagrange eom MODEL [--format text|latex|json] [--json]",
     "Prints the equations of motion: coordinates, multipliers, the equations,\n"
     "mass_matrix, forcing, mass_matrix_full, forcing_full, momenta, T and V.\n"
     "  --format text|latex|json  output format (default text); --json = --format json\n"},
    {"eval", "lagrange eval MODEL [--state 'q1=0.3, q1'=0.5'] [--t T] [--json]",
     "Evaluates everything at one state (unset values: the model's initial ones).\n"
     "  --state 'NAME=V, NAME'=V'  coordinates and rates (speeds under --method kane)\n"
     "  --t T                      the time (default 0)\n"
     "  --json                     one JSON object (qdd, lam, matrices, T, V, ...)\n"},
    {"simulate",
     "lagrange simulate MODEL [--t0 A] [--tf B] [--dt H] [--integrator NAME]\n"
     "                         [--out FILE.csv] [--plot FILE.svg|png|pdf] [--rtol R] [--atol A]\n"
     "                         [--project] [--stabilize project|none|baumgarte:A,B] [--jit[=wait]]\n"
     "                         [--max-rows N] [--max-steps N] [--stop-when EXPR]\n"
     "                         [--plot-vars 'q1, q2''] [--plot-xy 'P, Q'] [--outputs 'h, r']",
     "Integrates from the initial state; CSV of t, q, q', T, V, E, C1..Cm, W,\n"
     "then the multipliers lam1..lamm and the model's outputs (a vector r as r_x,r_y,r_z).\n"
     "  --t0, --tf, --dt        time span and output step (default: the model's)\n"
     "  --integrator NAME       adams, dopri, erk, fehlberg, verner, bdf, ida; default:\n"
     "                          ida if constrained, else adams (1e-11 < rtol <= 1e-6,\n"
     "                          costly right-hand sides) or the explicit pair\n"
     "  --out FILE.csv          write the CSV to a file (default stdout)\n"
     "  --plot FILE.svg         draw the run with gnuplot (.svg, .png or .pdf): panels of\n"
     "                          q, q', the relative energy error and |C| (log scale)\n"
     "  --plot-vars 'x, th''    only these coordinates and rates (and outputs) in the plot\n"
     "  --outputs 'h, r'        only these outputs in the CSV, in this order\n"
     "  --plot-xy 'P, Q'        add the tracks of these points seen from above\n"
     "  --rtol R, --atol A      tolerances (default 1e-10)\n"
     "  --project               move an inconsistent initial state onto the constraints\n"
     "  --stabilize HOW         project (default), none, baumgarte:ALPHA,BETA\n"
     "  --jit[=wait]            compile the generated C right-hand side with $CC (cached in\n"
     "                          $LAGRANGE_CACHE_DIR or ~/.cache/lagrange, used only when\n"
     "                          nobody else can write it or a folder above it); the run\n"
     "                          starts on the tape and switches when it is compiled (the\n"
     "                          compiler ends with the run); =wait compiles first\n"
     "  --max-rows N            refuse a run of more rows (default 10000000)\n"
     "  --max-steps N           stop a run that would need more than N more steps to\n"
     "                          reach tf at its step size (default 20000000)\n"
     "  --stop-when EXPR        end at EXPR's first zero crossing (t, q, q', parameters)\n"},
    {"animate",
     "lagrange animate MODEL [simulate's options] [--out FILE.html] [--fps F] [--trail 'P, Q']",
     "Simulates as simulate does and writes one self-contained HTML file (three.js\n"
     "embedded, no network needed) that plays the motion in 3D: points, particles,\n"
     "bodies (frame axes and an inertia box), segments to the point each point was\n"
     "located from, inertial axes, ground grid; play/pause, time slider, speed,\n"
     "mouse rotate/pan/zoom. FILE.html#t=SECONDS shows that instant, paused.\n"
     "  --out FILE.html         the file (default: MODEL.html in the current folder)\n"
     "  --fps F                 frames per second (default 60)\n"
     "  --trail 'P, Q'          draw the paths of these points (also: draw trail P)\n"},
    {"codegen", "lagrange codegen MODEL [--lang c|python] [--name NAME] [-o FILE] [--stats]\n"
                "                        [--functions 'rhs, mass_matrix_full, ...']",
     "Writes self-contained C (or NumPy) for the equations.\n"
     "  --lang c|python         the language (default c)\n"
     "  --name NAME             identifier prefix (default: the model file's stem)\n"
     "  -o FILE                 write FILE (and FILE.h for C) instead of stdout\n"
     "  --functions LIST        only these (default all): mass_matrix_full, forcing_full,\n"
     "                          mass_matrix, forcing, rhs, energy, momenta, constraints,\n"
     "                          constraint_jacobian, rhs_jacobian; and, only when\n"
     "                          named, rhs_recursive (O(n), kinematic trees)\n"
     "  --stats                 operation counts after common-subexpression elimination\n"},
    {"linearize",
     "lagrange linearize MODEL [--at 'q1=0, q1'=0'] [--t T] [--independent 'q1, q1'']\n"
     "                          [--symbolic] [--format text|latex|json] [--json]",
     "Linearizes about an operating point: x' = A (x - x0) + B (r - r0), x the\n"
     "independent coordinates and rates (speeds under --method kane), r the inputs.\n"
     "  --at 'NAME=V, NAME'=V'  the operating point (default: the initial state),\n"
     "                          completed to a consistent one\n"
     "  --t T                   the time of the operating point (default 0)\n"
     "  --independent 'q1, q2'' the independent coordinates and rates (else pivoting)\n"
     "  --symbolic              A and B as expressions (text, LaTeX or JSON strings),\n"
     "                          shared subexpressions named under 'where'\n"
     "  --json                  one JSON object (state, inputs, A, B, eigenvalues, ...)\n"},
    {"equilibria", "lagrange equilibria MODEL [--box 'q1=A:B, ...'] [--t T] [--json]",
     "Finds the static equilibria (every rate zero, accelerations zero) in a box,\n"
     "each with its stability and the eigenvalues of the linearization there; equilibria\n"
     "that are not isolated are listed once per family, with its dimension and directions.\n"
     "  --box 'NAME=A:B, ...'   the search box (default: (-pi, pi] for angles,\n"
     "                          [-10, 10] otherwise)\n"
     "  --t T                   the time for the inputs (default 0)\n"
     "  --json                  one JSON object (coordinates, free, equilibria)\n"},
    {"sweep",
     "lagrange sweep MODEL (--vary 'NAME=A:B:N' ... | --samples N --seed S\n"
     "                      --dist 'NAME=normal(MU,SIGMA)|uniform(A,B)' ...)\n"
     "                      [--jobs J] [--out FILE.csv] [simulate's options]",
     "One simulation per run, one CSV row each, in run order: run, the varied\n"
     "names, then at the end of the run every coordinate and rate (x_end, x'_end),\n"
     "max_abs_C, energy_drift, t_end and status (ok, or failed: REASON).\n"
     "  --vary 'NAME=A:B:N'     N values from A to B (repeatable: the product grid,\n"
     "                          the first --vary varying slowest)\n"
     "  --samples N --seed S    N Monte Carlo runs, reproducible from S (default 0)\n"
     "  --dist 'NAME=LAW'       normal(MU,SIGMA) or uniform(A,B) (repeatable)\n"
     "  --jobs J                threads (default: every core); under mpirun -n K the\n"
     "                          ranks share the runs and rank 0 writes the file\n"
     "  --out FILE.csv          write the rows to a file (default stdout)\n"
     "NAME is a parameter, or a coordinate or rate (theta, theta') for its initial\n"
     "value. simulate's options (--tf, --integrator, --rtol, --stop-when, --jit,\n"
     "--project, ...) apply to every run.\n"},
    {"help", "lagrange help [COMMAND]", "Lists the commands, or describes one.\n"},
};

enum { NENTRIES = sizeof entries / sizeof entries[0] };

static const char common[] =
    "common options:\n"
    "  --set NAME=VALUE        override a parameter or input (repeatable)\n"
    "  --method lagrange|kane  the formulation (default lagrange)\n"
    "  -h, --help              this help\n"
    "MODEL '-' reads the model from standard input.\n";

void cli_usage(FILE *f) {
  fputs("usage:", f);
  for (size_t i = 0; i < NENTRIES; i++) fprintf(f, "%s%s\n", i ? "       " : " ", entries[i].usage);
  fputs("       lagrange --version\n", f);
  fputs(common, f);
  fputs("'lagrange help COMMAND' describes a command; 'man lagrange' has it all.\n", f);
}

int cli_help(const char *cmd) {
  if (!cmd) {
    cli_usage(stdout);
    return CLI_EXIT_OK;
  }
  for (size_t i = 0; i < NENTRIES; i++)
    if (!strcmp(entries[i].name, cmd)) {
      printf("usage: %s\n\n%s\n%s", entries[i].usage, entries[i].text, common);
      return CLI_EXIT_OK;
    }
  fprintf(stderr, "lagrange help: unknown command '%s' (see 'lagrange help')\n", cmd);
  return CLI_EXIT_USAGE;
}

int cli_version(void) {
  printf("lagrange %s\n", lg_version());
  return CLI_EXIT_OK;
}
