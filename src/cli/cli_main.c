/* cli_main.c - `lagrange SUBCOMMAND MODEL [options]`. */
#include "cli.h"
#include "cli_sweep.h"

#include <stdio.h>
#include <string.h>

static int wants_help(int argc, char **argv) {
  for (int i = 0; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) return cli_finish_stdout(cli_help(NULL));
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) return cli_finish_stdout(cli_version());
  if (!strcmp(cmd, "help")) {
    if (argc > 3) {
      fprintf(stderr, "lagrange help: one command at most (see 'lagrange help')\n");
      return CLI_EXIT_USAGE;
    }
    return cli_finish_stdout(cli_help(argc > 2 ? argv[2] : NULL));
  }
  int (*run)(const cli_opts *) = NULL;
  if (strcmp(cmd, "eom") == 0) run = cli_eom;
  else if (strcmp(cmd, "eval") == 0) run = cli_eval;
  else if (strcmp(cmd, "simulate") == 0) run = cli_simulate;
  else if (strcmp(cmd, "codegen") == 0) run = cli_codegen;
  else if (strcmp(cmd, "linearize") == 0) run = cli_linearize;
  else if (strcmp(cmd, "equilibria") == 0) run = cli_equilibria;
  else if (strcmp(cmd, "animate") == 0) run = cli_animate;
  else if (strcmp(cmd, "sweep") == 0) run = cli_sweep;
  if (!run) {
    fprintf(stderr, "lagrange: unknown subcommand '%s'\n", cmd);
    cli_usage(stderr);
    return CLI_EXIT_USAGE;
  }
  if (wants_help(argc - 2, argv + 2)) return cli_finish_stdout(cli_help(cmd));
  cli_install_signals();
  cli_opts o;
  int rc = cli_parse_opts(cmd, argc - 2, argv + 2, &o);
  if (rc == CLI_EXIT_OK) rc = run(&o);
  cli_opts_free(&o);
  return cli_finish_stdout(rc);
}
