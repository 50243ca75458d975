/* cli_output.c - where the command line's output goes: files through
 * lg_out (base_file.c), signal handlers that remove temporaries, a checked
 * standard output, the size bound of `simulate`, and its CSV and plot
 * outputs with FILE.partial.csv for a run that fails. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- signals ----------------------------------------------------------------------- */
/* Remove every temporary, then die of the same signal (the handler was reset
 * to the default on entry; the raised signal arrives when it returns). */
static void on_signal(int sig) {
  lg_temp_remove_all();
  raise(sig);
}

void cli_install_signals(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction sa, old;
    if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}

/* ---- standard output ---------------------------------------------------------------- */
int cli_finish_stdout(int rc) {
  if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
  fprintf(stderr, "lagrange: cannot write the output (standard output): %s\n",
          errno ? strerror(errno) : "write error");
  return rc != CLI_EXIT_OK ? rc : CLI_EXIT_MODEL;
}

/* An output file that could not be opened or written: "path: what (hint)". */
int cli_report_io(const lg_diag *d) {
  char buf[1200];
  lg_diag_format(d, buf, sizeof buf); /* "lagrange: ..." when it names no file */
  fprintf(stderr, "%s%s\n", d->file[0] ? "lagrange: " : "", buf);
  return CLI_EXIT_MODEL;
}

/* ---- the size bound ----------------------------------------------------------------------- */
int cli_check_rows(const cli_opts *o, double t0, double tf, double dt) {
  double limit = o->max_rows > 0 ? o->max_rows : CLI_MAX_ROWS;
  double rows = ceil((tf - t0) / dt) + 1;
  if (rows <= limit) return 1;
  fprintf(stderr, "lagrange %s: this run would write %.15g rows (t = %g to %g every %g), "
                  "more than the limit of %.15g (raise it with --max-rows N, or use a larger "
                  "--dt)\n", o->command ? o->command : "simulate", rows, t0, tf, dt, limit);
  return 0;
}

/* ---- simulate's outputs ------------------------------------------------------------------- */
int cli_sim_out_open(const cli_opts *o, const lg_system *s, cli_sim_out *k) {
  memset(k, 0, sizeof *k);
  k->csv = o->no_csv ? NULL : stdout;
  lg_diag d;
  lg_diag_clear(&d);
  if (o->out && lg_out_open(&k->out, o->out, &d) != LG_OK) return cli_report_io(&d);
  if (o->out) k->csv = k->out.f;
  if (o->plot && lg_out_open(&k->pic, o->plot, &d) != LG_OK) {
    lg_out_abort(&k->out);
    return cli_report_io(&d);
  }
  int rc = o->plot ? cli_plot_open(o, s, &k->plot) : CLI_EXIT_OK;
  if (rc != CLI_EXIT_OK) {
    lg_out_abort(&k->out);
    lg_out_abort(&k->pic);
  }
  return rc;
}

/* "x.csv" -> "x.partial.csv"; any other name gets ".partial.csv" added. */
static char *partial_name(const char *target) {
  size_t len = strlen(target);
  if (len > 4 && strcasecmp(target + len - 4, ".csv") == 0) len -= 4;
  lg_str b;
  lg_str_init(&b);
  lg_str_printf(&b, "%.*s.partial.csv", (int)len, target);
  char *s = b.oom ? NULL : lg_str_take(&b);
  lg_str_free(&b);
  return s;
}

/* A failed run never leaves FILE: its rows go to FILE.partial.csv. */
static int keep_partial(const cli_opts *o, cli_sim_out *k, int rc) {
  if (!o->out || o->no_csv || lg_out_direct(&k->out)) {
    lg_out_abort(&k->out); /* stdout or a device: the rows are already there */
    return rc;
  }
  char *part = partial_name(lg_out_target(&k->out));
  lg_diag d;
  lg_diag_clear(&d);
  if (!part) {
    lg_out_abort(&k->out);
  } else if (cli_output_is_input(o, part)) { /* a model named x.partial.csv */
    lg_out_abort(&k->out);
    fprintf(stderr, "lagrange %s: '%s' was not written (the run failed); its rows were not "
                    "kept either: '%s' is the model file\n", o->command, o->out, part);
  } else if (lg_out_commit_to(&k->out, part, &d) != LG_OK) cli_report_io(&d);
  else
    fprintf(stderr, "lagrange simulate: '%s' was not written (the run failed); its rows are "
                    "in '%s'\n", o->out, part);
  lg_free(part);
  return rc;
}

int cli_sim_out_finish(const cli_opts *o, cli_sim_out *k, int rc) {
  if (rc == CLI_EXIT_OK && k->plot && !cli_plot_draw(k->plot, o->plot, fileno(k->pic.f)))
    rc = CLI_EXIT_MODEL;
  cli_plot_free(k->plot);
  k->plot = NULL;
  if (rc != CLI_EXIT_OK) {
    lg_out_abort(&k->pic);
    return keep_partial(o, k, rc);
  }
  lg_out *all[2];
  size_t n = 0;
  if (o->out && !o->no_csv) all[n++] = &k->out;
  if (o->plot) all[n++] = &k->pic;
  lg_diag d;
  lg_diag_clear(&d);
  return lg_out_commit_all(all, n, &d) == LG_OK ? rc : cli_report_io(&d);
}
