/* cli_codegen.c - `lagrange codegen`: C (with header) or NumPy source, as
 * lg_codegen_with writes it, into files or standard output. */
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* "out/model.c" -> "out/model.h" (lg_malloc'd; NULL when out of memory) */
static char *header_path(const char *c_path) {
  size_t len = strlen(c_path);
  if (len > 2 && strcmp(c_path + len - 2, ".c") == 0) len -= 2;
  char *h = lg_malloc(len + 3);
  if (h) {
    memcpy(h, c_path, len);
    memcpy(h + len, ".h", 3);
  }
  return h;
}

/* Is the header written beside -o TARGET? Only when TARGET is (or will
 * be) a regular file: beside a device or FIFO (/dev/null) it is not. (A
 * folder is left to lg_out_open, which says it is one.) */
static int header_beside(const char *target) {
  struct stat st;
  return stat(target, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode);
}

/* -o FILE, and the header beside it (hpath, when not NULL): both are
 * opened before anything is written (a folder in the way of either is
 * reported by its name and neither file is written), then committed
 * together. */
static int write_outputs(const char *path, const char *src, const char *hpath,
                         const char *hdr) {
  lg_out f[2];
  lg_out *const all[2] = {&f[0], &f[1]};
  const char *text[2] = {src, hdr};
  size_t n = hpath ? 2 : 1;
  lg_diag d;
  lg_diag_clear(&d);
  memset(f, 0, sizeof f);
  lg_status st = lg_out_open(&f[0], path, &d);
  if (st == LG_OK && hpath) st = lg_out_open(&f[1], hpath, &d);
  for (size_t i = 0; st == LG_OK && i < n; i++)
    if (text[i]) fputs(text[i], f[i].f);
  if (st == LG_OK) st = lg_out_commit_all(all, n, &d);
  lg_out_abort(&f[0]);
  lg_out_abort(&f[1]);
  return st == LG_OK ? CLI_EXIT_OK : cli_report_io(&d);
}

static void print_stats(const cli_opts *o, const lg_codegen_stats *st) {
  fprintf(stderr, "%s: operations after common-subexpression elimination:", o->model);
  for (size_t i = 0; i < st->n; i++) {
    const char *fn = st->count[i].function;
    fprintf(stderr, "%s%s %zu%s", i ? ", " : " ", fn, st->count[i].operations,
            !strcmp(fn, "rhs")             ? " (plus the solve)"
            : !strcmp(fn, "rhs_recursive") ? " (with its solve)"
                                           : "");
  }
  fputc('\n', stderr);
}

static int emit(const cli_opts *o, const lg_system *s, const lg_codegen_options *co,
                const char *hpath) {
  char *src = NULL, *hdr = NULL;
  lg_codegen_stats st;
  lg_diag d;
  int rc = CLI_EXIT_OK;
  int c = co->lang == LG_CODE_C;
  if (lg_codegen_with(s, co, &src, c ? &hdr : NULL, &st, &d) != LG_OK) {
    rc = cli_report(&d, o->model);
  } else if (!o->output) {
    fputs(src, stdout);
  } else {
    rc = write_outputs(o->output, src, c ? hpath : NULL, hdr);
  }
  if (rc == CLI_EXIT_OK && o->stats) print_stats(o, &st); /* the functions written */
  lg_string_free(src);
  lg_string_free(hdr);
  return rc;
}

/* --functions, checked by the library before the model is read. */
static int check_functions(const cli_opts *o, lg_code_lang lang) {
  lg_method method = o->method && !strcmp(o->method, "kane") ? LG_KANE : LG_LAGRANGE;
  lg_diag d;
  if (lg_codegen_check_functions(o->functions, lang, method, &d) == LG_OK) return CLI_EXIT_OK;
  cli_diag_as_flags(&d);
  fprintf(stderr, "lagrange codegen: %s (%s)\n", d.message, d.hint);
  return CLI_EXIT_USAGE;
}

/* The .c includes the header by its name as it is (escapes mean nothing
 * in an #include line): a name that cannot be spelled there is refused. */
static int check_header_name(const char *hpath) {
  const char *base = hpath && strrchr(hpath, '/') ? strrchr(hpath, '/') + 1 : hpath;
  if (!base || lg_codegen_header_name_ok(base)) return CLI_EXIT_OK;
  fprintf(stderr, "lagrange codegen: -o: the header's name '%s' cannot be written in the "
                  ".c's #include line (it has a quote, a backslash, a control character or "
                  "two question marks); name the output with letters, digits, '.', '-' and "
                  "'_'\n", base);
  return CLI_EXIT_USAGE;
}

/* The rest of codegen, with the options checked. */
static int codegen_loaded(const cli_opts *o, lg_code_lang lang, const char *hpath) {
  lg_model *m;
  int rc = cli_open_model(o, &m);
  if (rc != CLI_EXIT_OK) return rc;
  lg_derive_options opt;
  lg_derive_options_default(&opt);
  opt.lazy = 1; /* code generation needs nothing compiled */
  lg_system *s;
  rc = cli_derive(o, m, &opt, &s);
  lg_model_free(m);
  if (rc != CLI_EXIT_OK) return rc;
  char *name = o->name ? lg_strdup(o->name)
                      : o->model_stdin ? lg_strdup("model") : lg_codegen_default_name(o->model);
  /* the .c includes the header written beside it (else NAME.h) */
  const char *hbase = hpath && strrchr(hpath, '/') ? strrchr(hpath, '/') + 1 : hpath;
  lg_codegen_options co;
  lg_codegen_options_default(&co);
  co.lang = lang;
  co.name = name;
  co.functions = o->functions;
  co.header_name = hbase;
  if (name && o->output && lang == LG_CODE_C && !hpath)
    fprintf(stderr, "lagrange codegen: note: '%s' is not a regular file: no header is written "
                    "beside it (the source includes '%s.h')\n", o->output, name);
  rc = name ? emit(o, s, &co, hpath) : CLI_EXIT_MODEL;
  lg_string_free(name);
  lg_system_free(s);
  return rc;
}

int cli_codegen(const cli_opts *o) {
  lg_code_lang lang = o->lang && !strcmp(o->lang, "python") ? LG_CODE_PYTHON : LG_CODE_C;
  if (check_functions(o, lang) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
  if (o->lang && strcmp(o->lang, "c") != 0 && strcmp(o->lang, "python") != 0) {
    fprintf(stderr, "lagrange codegen: --lang is c or python, not '%s'\n", o->lang);
    return CLI_EXIT_USAGE;
  }
  if (o->name && !lg_codegen_name_ok(o->name)) {
    fprintf(stderr, "lagrange codegen: --name must be a C identifier (letters, digits and '_', "
                    "not starting with a digit), not '%s'\n", o->name);
    return CLI_EXIT_USAGE;
  }
  char *hpath = NULL; /* the header written beside -o, if any */
  if (o->output && lang == LG_CODE_C && header_beside(o->output) &&
      !(hpath = header_path(o->output))) {
    fprintf(stderr, "lagrange codegen: out of memory\n");
    return CLI_EXIT_MODEL;
  }
  int rc = check_header_name(hpath);
  const char *const outs[] = {o->output, hpath};
  const char *const labels[] = {"-o", "the header"};
  if (rc == CLI_EXIT_OK) rc = cli_check_outputs(o, outs, labels, 2);
  if (rc == CLI_EXIT_OK) rc = codegen_loaded(o, lang, hpath);
  lg_free(hpath);
  return rc;
}
