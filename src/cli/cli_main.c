/* cli_main.c - `lagrange SUBCOMMAND MODEL [options]`. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f) {
  fprintf(f,
          "usage: lagrange eom MODEL [--format text|latex|json] [--set NAME=VALUE]...\n"
          "       lagrange eval MODEL --state 'q1=0.3, q1'=0.5' [--t T] [--json]\n"
          "       lagrange simulate MODEL [--t0 A] [--tf B] [--dt H] [--integrator NAME]\n"
          "                [--out FILE.csv] [--plot FILE.svg|png|pdf] [--rtol R] [--atol A] [--project]\n"
          "                [--stabilize project|none|baumgarte:A,B] [--jit] [--max-rows N]\n"
          "                [--stop-when EXPR]\n"
          "       lagrange codegen MODEL [--lang c|python] [--name NAME] [-o FILE] [--stats]\n"
          "       lagrange linearize MODEL [--at 'q1=0, q1'=0'] [--independent 'q1, q1''] [--json]\n"
          "       lagrange equilibria MODEL [--box 'q1=A:B, ...'] [--t T] [--json]\n"
          "common options: --set NAME=VALUE (repeatable), --method lagrange|kane\n"
          "MODEL '-' reads the model from standard input\n");
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return cli_finish_stdout(argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK);
  }
  const char *cmd = argv[1];
  int (*run)(const cli_opts *) = NULL;
  if (strcmp(cmd, "eom") == 0) run = cli_eom;
  else if (strcmp(cmd, "eval") == 0) run = cli_eval;
  else if (strcmp(cmd, "simulate") == 0) run = cli_simulate;
  else if (strcmp(cmd, "codegen") == 0) run = cli_codegen;
  else if (strcmp(cmd, "linearize") == 0) run = cli_linearize;
  else if (strcmp(cmd, "equilibria") == 0) run = cli_equilibria;
  if (!run) {
    fprintf(stderr, "lagrange: unknown subcommand '%s'\n", cmd);
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  cli_install_signals();
  cli_opts o;
  int rc = cli_parse_opts(cmd, argc - 2, argv + 2, &o);
  if (rc == CLI_EXIT_OK) rc = run(&o);
  cli_opts_free(&o);
  return cli_finish_stdout(rc);
}
