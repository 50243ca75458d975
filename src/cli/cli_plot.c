/* cli_plot.c - `simulate --plot FILE`: an SVG, PNG or PDF through gnuplot.
 *
 * gnuplot is started with posix_spawnp and a fixed argument vector (no
 * shell). Its script comes on its standard input from an anonymous
 * temporary file: the rows as a datablock ($data), then the commands. The
 * picture goes to gnuplot's standard output, which is the output file's
 * descriptor (see cli_output.c), so no file name is ever pasted into the
 * script and a name like "x'; system 'touch pwned" is just a name.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- terminals by extension -------------------------------------------------------- */
static const struct {
  const char *ext, *terminal;
} terminals[] = {
    {".svg", "svg size 900,%d dynamic font 'sans,11'"},
    {".png", "pngcairo size 900,%d font 'sans,10'"},
    {".pdf", "pdfcairo size 9in,%gin font 'sans,10'"},
};

static int terminal_index(const char *path) {
  size_t len = strlen(path);
  for (int i = 0; i < 3; i++)
    if (len > 4 && strcasecmp(path + len - 4, terminals[i].ext) == 0) return i;
  return -1;
}

int cli_plot_supported(const char *path) { return terminal_index(path) >= 0; }

/* ---- the script ------------------------------------------------------------------------ */
FILE *cli_plot_begin(void) {
  FILE *f = tmpfile(); /* anonymous: nothing to remove, even after a signal */
  if (f) fputs("$data << EOD\n", f);
  return f;
}

/* A column title: the names are identifiers, but never trust a quote. */
static void title(FILE *f, const char *name) {
  fputs(" title '", f);
  for (const char *p = name; *p; p++)
    if (*p != '\'' && *p != '\\' && (unsigned char)*p >= 0x20) fputc(*p, f);
  fputc('\'', f);
}

static void commands(FILE *f, int term, const num_system *s) {
  size_t n = s->n, m = s->m;
  int h = m ? 900 : 640;
  fputs("EOD\nset terminal ", f);
  if (term == 2) fprintf(f, terminals[term].terminal, h / 100.0); /* inches */
  else fprintf(f, terminals[term].terminal, h);
  fprintf(f, "\nset datafile separator ','\nset key outside right\nset grid\n"
             "set multiplot layout %d,1\nset xlabel 't'\n", m ? 3 : 2);
  fputs("set title 'coordinates'\nset ylabel 'q'\nplot ", f);
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "%s$data using 1:%zu with lines", i ? ", " : "", i + 2);
    title(f, s->coord_names[i]);
  }
  fprintf(f, "\nset title 'energy'\nset ylabel 'E = T + V'\n"
             "plot $data using 1:%zu with lines title 'T', $data using 1:%zu with lines "
             "title 'V', $data using 1:%zu with lines title 'E'\n",
          2 * n + 2, 2 * n + 3, 2 * n + 4);
  if (m) {
    fputs("set title 'constraint residuals'\nset ylabel 'C'\nset format y '%.1e'\nplot ", f);
    for (size_t r = 0; r < m; r++)
      fprintf(f, "%s$data using 1:%zu with lines title 'C%zu'", r ? ", " : "", 2 * n + 5 + r,
              r + 1);
    fputc('\n', f);
  }
  fputs("unset multiplot\n", f);
}

/* ---- running gnuplot --------------------------------------------------------------------- */
/* gnuplot < script > out 2> err; returns posix_spawn's error or 0. */
static int spawn_gnuplot(int script, int out, int err, int *status) {
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0) return ENOMEM;
  posix_spawn_file_actions_adddup2(&fa, script, 0);
  posix_spawn_file_actions_adddup2(&fa, out, 1);
  posix_spawn_file_actions_adddup2(&fa, err, 2);
  char name[] = "gnuplot";
  char *argv[] = {name, NULL};
  pid_t pid;
  int e = posix_spawnp(&pid, name, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (e) return e;
  while (waitpid(pid, status, 0) < 0)
    if (errno != EINTR) return errno;
  return 0;
}

/* gnuplot's first message lines, on one line. */
static void first_lines(FILE *err, char *buf, size_t n) {
  size_t k = 0;
  if (fflush(err) == 0 && fseek(err, 0, SEEK_SET) == 0) k = fread(buf, 1, n - 1, err);
  buf[k] = 0;
  char *p = buf + strspn(buf, " \n");
  memmove(buf, p, strlen(p) + 1);
  for (p = buf; *p; p++)
    if (*p == '\n') *p = p[1] ? ' ' : 0;
}

int cli_plot_draw(FILE *script, const char *path, int out_fd, const num_system *s) {
  int term = terminal_index(path), status = 0, e = EIO;
  FILE *err = tmpfile();
  if (term >= 0 && err) commands(script, term, s);
  if (term >= 0 && err && fflush(script) == 0 && !ferror(script) &&
      lseek(fileno(script), 0, SEEK_SET) == 0)
    e = spawn_gnuplot(fileno(script), out_fd, fileno(err), &status);
  if (e == ENOENT) {
    fprintf(stderr, "lagrange simulate: cannot draw '%s': gnuplot is not installed "
                    "(apt-get install gnuplot-nox, or run scripts/install-deps.sh)\n", path);
  } else if (e) {
    fprintf(stderr, "lagrange simulate: cannot draw '%s': cannot run gnuplot: %s\n", path,
            strerror(e));
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char msg[400];
    first_lines(err, msg, sizeof msg);
    fprintf(stderr, "lagrange simulate: gnuplot could not draw '%s': %s\n", path,
            msg[0] ? msg : "it failed without a message");
    e = EIO;
  }
  if (err) fclose(err);
  return e == 0;
}
