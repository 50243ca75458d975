/* cli_plot.c - `--plot FILE`: an SVG, PNG or PDF through gnuplot, one
 * panel per group: coordinates, rates, the energy error relative to the
 * energy scale, the constraint residuals (log scale), and with
 * `--plot-xy P` the track of points seen from above.
 *
 * gnuplot is started with posix_spawnp and a fixed argument vector (no
 * shell). Its script comes on its standard input from an anonymous
 * temporary file: the rows as a datablock ($data), then the commands
 * (written at the end, when the energy scale is known). The picture goes
 * to gnuplot's standard output, which is the output file's descriptor (see
 * cli_output.c), so no file name is ever pasted into the script and a name
 * like "x'; system 'touch pwned" is just a name.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
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

/* ---- the plot's state ------------------------------------------------------------------- */
struct cli_plot {
  FILE *script;
  const lg_system *s;
  size_t n, m;           /* coordinates, constraint rows */
  unsigned char *show;   /* 2n: coordinate i, rate i (n + i) drawn */
  long *xy;              /* nxy points for --plot-xy */
  size_t nxy;
  size_t *cols;          /* the CSV's output columns (lg_output_select of --outputs) */
  size_t ncols;
  size_t *outs;          /* nouts of them drawn (--plot-vars): indices into cols */
  size_t nouts;
  double *res;           /* the scene at a row (lg_scene_eval), for --plot-xy */
  double *p;             /* the model's parameters (NaN where it gives none) */
  double E0W0, E0, maxT, maxV;
  long rows;
};

/* Trim blanks: [*a, *b) is the item. */
static void trim(const char **a, const char **b) {
  while (*a < *b && (**a == ' ' || **a == '\t')) (*a)++;
  while (*b > *a && ((*b)[-1] == ' ' || (*b)[-1] == '\t')) (*b)--;
}

/* An output column of the CSV named [a, b): its index in pl->cols, or -1. */
static long output_var(const cli_plot *pl, const char *a, size_t len) {
  for (size_t j = 0; j < pl->ncols; j++) {
    const char *name = lg_output_name(pl->s, pl->cols[j]);
    if (strlen(name) == len && !strncmp(name, a, len)) return (long)j;
  }
  return -1;
}

/* "x, theta', h" -> show[] and the outputs drawn; an unknown name is a
 * usage error naming the valid ones. */
static int pick_vars(const char *text, cli_plot *pl, unsigned char *show) {
  const lg_system *s = pl->s;
  size_t n = lg_nq(s);
  for (const char *p = text; *p;) {
    const char *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    const char *a = p, *b = end;
    trim(&a, &b);
    int primes = b > a && b[-1] == '\'';
    size_t len = (size_t)(b - a) - (size_t)primes, i = 0;
    for (; i < n; i++)
      if (strlen(lg_coordinate_name(s, i)) == len && !strncmp(a, lg_coordinate_name(s, i), len))
        break;
    long out = i == n && b > a ? output_var(pl, a, (size_t)(b - a)) : -1;
    if ((i == n && out < 0) || len == 0) {
      fprintf(stderr, "lagrange: --plot-vars: unknown variable '%.*s' (the variables are",
              (int)(b - a), a);
      for (size_t k = 0; k < n; k++) fprintf(stderr, " %s", lg_coordinate_name(s, k));
      fprintf(stderr, " and their rates");
      for (size_t k = 0; k < n; k++) fprintf(stderr, " %s'", lg_coordinate_name(s, k));
      if (pl->ncols) fprintf(stderr, ", and the outputs");
      for (size_t k = 0; k < pl->ncols; k++)
        fprintf(stderr, " %s", lg_output_name(s, pl->cols[k]));
      fputs(")\n", stderr);
      return 0;
    }
    if (out >= 0) {
      size_t j = 0;
      while (j < pl->nouts && pl->outs[j] != (size_t)out) j++;
      if (j == pl->nouts) pl->outs[pl->nouts++] = (size_t)out;
    } else {
      show[primes * n + i] = 1;
    }
    p = *end ? end + 1 : end;
  }
  return 1;
}

/* "P, Q" -> point indices; an unknown point is a usage error naming them. */
static int pick_points(const char *text, cli_plot *pl) {
  for (const char *p = text; *p;) {
    const char *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    const char *a = p, *b = end;
    trim(&a, &b);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(b - a < 127 ? b - a : 127), a);
    long k = lg_point_index(pl->s, name);
    if (k < 0) {
      fprintf(stderr, "lagrange: --plot-xy: unknown point '%s' (the points are", name);
      for (size_t i = 0; i < lg_npoints(pl->s); i++)
        fprintf(stderr, " %s", lg_point_name(pl->s, i));
      fputs(")\n", stderr);
      return 0;
    }
    pl->xy[pl->nxy++] = k;
    p = *end ? end + 1 : end;
  }
  return 1;
}

/* The scene's room, and a first evaluation (which compiles it) so that
 * a model whose picture cannot be made fails before the run. */
static int plot_scene(const cli_opts *o, cli_plot *pl) {
  pl->res = lg_calloc(lg_scene_size(pl->s) + pl->n + 1, sizeof *pl->res);
  pl->p = lg_calloc(lg_np(pl->s) + 1, sizeof *pl->p);
  if (!pl->res || !pl->p) return CLI_EXIT_MODEL;
  lg_default_params(pl->s, pl->p);
  lg_diag d;
  lg_diag_clear(&d);
  if (lg_scene_eval(pl->s, 0, pl->res + lg_scene_size(pl->s), pl->p, pl->res, &d) != LG_OK) {
    cli_report(&d, o->model);
    return CLI_EXIT_MODEL;
  }
  return CLI_EXIT_OK;
}

int cli_plot_open(const cli_opts *o, const lg_system *s, cli_plot **out) {
  *out = NULL;
  cli_plot *pl = lg_calloc(1, sizeof *pl);
  if (!pl) return CLI_EXIT_MODEL;
  pl->s = s;
  pl->n = lg_nq(s);
  pl->m = lg_nc(s);
  pl->show = lg_calloc(2 * pl->n + 1, 1);
  pl->xy = lg_calloc(lg_npoints(s) + strlen(o->plot_xy ? o->plot_xy : "") + 1, sizeof *pl->xy);
  pl->cols = lg_calloc(2 * lg_noutputs(s) + 1, sizeof *pl->cols);
  pl->outs = pl->cols ? pl->cols + lg_noutputs(s) : NULL;
  int rc = pl->show && pl->xy && pl->cols ? CLI_EXIT_OK : CLI_EXIT_MODEL;
  if (rc == CLI_EXIT_OK) rc = cli_output_columns(o, s, pl->cols, &pl->ncols);
  if (rc == CLI_EXIT_OK && o->plot_vars && !pick_vars(o->plot_vars, pl, pl->show))
    rc = CLI_EXIT_USAGE;
  if (rc == CLI_EXIT_OK && !o->plot_vars) memset(pl->show, 1, 2 * pl->n);
  if (rc == CLI_EXIT_OK && o->plot_xy && !pick_points(o->plot_xy, pl)) rc = CLI_EXIT_USAGE;
  if (rc == CLI_EXIT_OK && pl->nxy) rc = plot_scene(o, pl);
  if (rc == CLI_EXIT_OK && !(pl->script = tmpfile())) { /* anonymous: nothing to remove */
    fprintf(stderr, "lagrange: cannot create a temporary file for the plot: %s\n",
            strerror(errno));
    rc = CLI_EXIT_MODEL;
  }
  if (rc != CLI_EXIT_OK) {
    cli_plot_free(pl);
    return rc;
  }
  fputs("$data << EOD\n", pl->script);
  *out = pl;
  return CLI_EXIT_OK;
}

void cli_plot_free(cli_plot *pl) {
  if (!pl) return;
  if (pl->script) fclose(pl->script);
  lg_free(pl->res);
  lg_free(pl->p);
  lg_free(pl->show);
  lg_free(pl->xy);
  lg_free(pl->cols);
  lg_free(pl);
}

/* ---- the rows: t, q, q', T, V, E, C1..Cm, W, then x, y of each --plot-xy point ---- */
void cli_plot_row(cli_plot *pl, const lg_sim_point *p) {
  size_t n = pl->n;
  FILE *f = pl->script;
  fprintf(f, "%.12g", p->t);
  for (size_t i = 0; i < n; i++) fprintf(f, ",%.12g", p->q[i]);
  for (size_t i = 0; i < n; i++) fprintf(f, ",%.12g", p->qd[i]);
  fprintf(f, ",%.12g,%.12g,%.17g", p->T, p->V, p->E);
  for (size_t r = 0; r < pl->m; r++) fprintf(f, ",%.6g", p->C[r]);
  fprintf(f, ",%.17g", p->W);
  /* (compiled at open: only running out of memory can fail; NaN is not drawn) */
  if (pl->nxy && lg_scene_eval(pl->s, p->t, p->q, pl->p, pl->res, NULL) != LG_OK)
    for (size_t i = 0; i < lg_scene_size(pl->s); i++) pl->res[i] = NAN;
  for (size_t k = 0; k < pl->nxy; k++)
    fprintf(f, ",%.10g,%.10g", pl->res[3 * pl->xy[k]], pl->res[3 * pl->xy[k] + 1]);
  for (size_t k = 0; k < pl->nouts; k++)
    fprintf(f, ",%.12g", p->outputs && pl->outs[k] < p->noutputs ? p->outputs[pl->outs[k]]
                                                                   : NAN);
  fputc('\n', f);
  if (pl->rows++ == 0) {
    pl->E0W0 = p->E - p->W;
    pl->E0 = fabs(p->E);
  }
  if (fabs(p->T) > pl->maxT) pl->maxT = fabs(p->T);
  if (fabs(p->V) > pl->maxV) pl->maxV = fabs(p->V);
}

/* ---- the commands ------------------------------------------------------------------------ */
/* A column title: the names are identifiers, but never trust a quote. */
static void title(FILE *f, const char *name, const char *suffix) {
  fputs(" title '", f);
  for (const char *p = name; *p; p++)
    if (*p != '\'' && *p != '\\' && (unsigned char)*p >= 0x20) fputc(*p, f);
  fputs(suffix, f);
  fputc('\'', f);
}

/* One panel of the chosen coordinates (rates = 0) or rates (1). */
static void var_panel(FILE *f, const cli_plot *pl, int rates) {
  size_t n = pl->n, k = 0;
  fprintf(f, "set title '%s'\nset ylabel '%s'\nplot ", rates ? "rates" : "coordinates",
          rates ? "q'" : "q");
  for (size_t i = 0; i < n; i++) {
    if (!pl->show[rates * n + i]) continue;
    fprintf(f, "%s$data using 1:%zu with lines", k++ ? ", " : "", 2 + rates * n + i);
    title(f, lg_coordinate_name(pl->s, i), rates ? "''" : "");
  }
  fputc('\n', f);
}

/* ((E - W) - (E0 - W0)) / scale, scale = max(|E0|, max |T|, max |V|). */
static void energy_panel(FILE *f, const cli_plot *pl) {
  size_t n = pl->n, m = pl->m;
  double scale = pl->E0;
  if (pl->maxT > scale) scale = pl->maxT;
  if (pl->maxV > scale) scale = pl->maxV;
  if (scale > 0)
    fputs("set title 'energy error: ((E - W) - (E0 - W0)) / max(|E0|, |T|, |V|)'\n"
          "set ylabel 'relative'\n", f);
  else
    fputs("set title 'energy error: (E - W) - (E0 - W0)'\nset ylabel 'absolute'\n", f);
  fputs("set format y '%.1e'\n", f);
  fprintf(f, "plot $data using 1:((column(%zu) - column(%zu) - (%.17g)) / %.17g) with lines "
             "title 'E - W'\nset format y '%% g'\n",
          2 * n + 4, 2 * n + 5 + m, pl->E0W0, scale > 0 ? scale : 1.0);
}

/* |C_i| on a log scale; exact zeros are drawn at 1e-17. */
static void residual_panel(FILE *f, const cli_plot *pl) {
  size_t n = pl->n, m = pl->m;
  fputs("set title 'constraint residuals'\nset ylabel '|C|'\nset logscale y\n"
        "set format y '10^{%T}'\nplot ", f);
  for (size_t r = 0; r < m; r++) {
    size_t col = 2 * n + 5 + r;
    fprintf(f, "%s$data using 1:(abs(column(%zu)) > 1e-17 ? abs(column(%zu)) : 1e-17) "
               "with lines title 'C%zu'", r ? ", " : "", col, col, r + 1);
  }
  fputs("\nunset logscale y\nset format y '% g'\n", f);
}

/* The tracks of the --plot-xy points, x against y, equal scales. */
static void xy_panel(FILE *f, const cli_plot *pl) {
  size_t base = 2 * pl->n + 6 + pl->m;
  fputs("set title 'seen from above'\nset xlabel 'x'\nset ylabel 'y'\nset size ratio -1\nplot ", f);
  for (size_t k = 0; k < pl->nxy; k++) {
    fprintf(f, "%s$data using %zu:%zu with lines", k ? ", " : "", base + 2 * k,
            base + 2 * k + 1);
    title(f, lg_point_name(pl->s, (size_t)pl->xy[k]), "");
  }
  fputs("\nset size noratio\nset xlabel 't'\n", f);
}

/* The outputs --plot-vars names, after the --plot-xy columns. */
static void output_panel(FILE *f, const cli_plot *pl) {
  size_t base = 2 * pl->n + 6 + pl->m + 2 * pl->nxy;
  fputs("set title 'outputs'\nset ylabel ''\nplot ", f);
  for (size_t k = 0; k < pl->nouts; k++) {
    fprintf(f, "%s$data using 1:%zu with lines", k ? ", " : "", base + k);
    title(f, lg_output_name(pl->s, pl->cols[pl->outs[k]]), "");
  }
  fputc('\n', f);
}

static int count_panels(const cli_plot *pl, int *has) {
  size_t n = pl->n;
  has[0] = has[1] = 0;
  for (size_t i = 0; i < n; i++) {
    has[0] |= pl->show[i];
    has[1] |= pl->show[n + i];
  }
  return has[0] + has[1] + 1 + (pl->m > 0) + (pl->nxy > 0) + (pl->nouts > 0);
}

static void commands(cli_plot *pl, int term) {
  FILE *f = pl->script;
  int has[2], panels = count_panels(pl, has), h = 260 * panels + (pl->nxy ? 200 : 0);
  fputs("EOD\nset terminal ", f);
  if (term == 2) fprintf(f, terminals[term].terminal, h / 100.0); /* inches */
  else fprintf(f, terminals[term].terminal, h);
  fprintf(f, "\nset datafile separator ','\nset key outside right\nset grid\n"
             "set multiplot layout %d,1\nset xlabel 't'\n", panels);
  if (has[0]) var_panel(f, pl, 0);
  if (has[1]) var_panel(f, pl, 1);
  energy_panel(f, pl);
  if (pl->m) residual_panel(f, pl);
  if (pl->nxy) xy_panel(f, pl);
  if (pl->nouts) output_panel(f, pl);
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

int cli_plot_draw(cli_plot *pl, const char *path, int out_fd) {
  int term = terminal_index(path), status = 0, e = EIO;
  FILE *err = tmpfile(), *script = pl->script;
  if (term >= 0 && err) commands(pl, term);
  if (term >= 0 && err && fflush(script) == 0 && !ferror(script) &&
      lseek(fileno(script), 0, SEEK_SET) == 0)
    e = spawn_gnuplot(fileno(script), out_fd, fileno(err), &status);
  if (e == ENOENT) {
    fprintf(stderr, "lagrange: cannot draw '%s': gnuplot is not installed "
                    "(apt-get install gnuplot-nox, or run scripts/install-deps.sh)\n", path);
  } else if (e) {
    fprintf(stderr, "lagrange: cannot draw '%s': cannot run gnuplot: %s\n", path,
            strerror(e));
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char msg[400];
    first_lines(err, msg, sizeof msg);
    fprintf(stderr, "lagrange: gnuplot could not draw '%s': %s\n", path,
            msg[0] ? msg : "it failed without a message");
    e = EIO;
  }
  if (err) fclose(err);
  return e == 0;
}
