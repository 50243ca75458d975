/* cli_codegen.c - `lagrange codegen`: C (with header) or NumPy source. */
#include "cli.h"

#include "cg.h"

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
static int write_outputs(const char *path, const lg_str *src, const char *hpath,
                         const lg_str *hdr) {
  lg_out f[2];
  lg_out *const all[2] = {&f[0], &f[1]};
  const lg_str *text[2] = {src, hdr};
  size_t n = hpath ? 2 : 1;
  lg_diag d;
  lg_diag_clear(&d);
  memset(f, 0, sizeof f);
  lg_status st = lg_out_open(&f[0], path, &d);
  if (st == LG_OK && hpath) st = lg_out_open(&f[1], hpath, &d);
  for (size_t i = 0; st == LG_OK && i < n; i++)
    if (text[i]->len) fwrite(text[i]->s, 1, text[i]->len, f[i].f);
  if (st == LG_OK) st = lg_out_commit_all(all, n, &d);
  lg_out_abort(&f[0]);
  lg_out_abort(&f[1]);
  return st == LG_OK ? CLI_EXIT_OK : cli_report_io(&d);
}

static int emit(const cli_opts *o, const cg_request *r, cg_lang lang, const char *hpath) {
  lg_str src, hdr;
  lg_str_init(&src);
  lg_str_init(&hdr);
  cg_stats st;
  lg_diag d;
  lg_diag_clear(&d);
  int rc = CLI_EXIT_OK;
  if (cg_generate(r, lang, &src, lang == CG_C ? &hdr : NULL, &st, &d) != LG_OK) {
    rc = cli_report(&d, NULL, o->model);
  } else if (!o->output) {
    fwrite(src.s, 1, src.len, stdout);
  } else {
    rc = write_outputs(o->output, &src, lang == CG_C ? hpath : NULL, &hdr);
  }
  if (rc == CLI_EXIT_OK && o->stats) { /* the functions written */
    const size_t count[] = {st.mass_matrix_full, st.forcing_full, st.rhs, st.energy,
                            st.constraints, st.rhs_recursive};
    const char *const label[] = {"mass_matrix_full %zu", "forcing_full %zu",
                                 "rhs %zu (plus the solve)", "energy %zu", "constraints %zu",
                                 "rhs_recursive %zu (with its solve)"};
    const char *const fn[] = {"mass_matrix_full", "forcing_full", "rhs", "energy", "constraints",
                              "rhs_recursive"};
    fprintf(stderr, "%s: operations after common-subexpression elimination:", o->model);
    int first = 1;
    for (int i = 0; i < 6; i++) {
      int asked = r->functions >> cg_function_lookup(fn[i]) & 1u;
      if ((r->functions || i == 5) && !asked) continue;
      fprintf(stderr, first ? " " : ", ");
      fprintf(stderr, label[i], count[i]);
      first = 0;
    }
    fputc('\n', stderr);
  }
  lg_str_free(&src);
  lg_str_free(&hdr);
  return rc;
}

/* --functions 'rhs, mass_matrix_full': the bits of cg_request.functions
 * (0: every function). */
/* --functions through the library's parser (cg_parse_functions). */
static int parse_functions(const cli_opts *o, unsigned *out) {
  int kane_method = o->method && !strcmp(o->method, "kane");
  int python = o->lang && !strcmp(o->lang, "python");
  lg_diag d;
  lg_diag_clear(&d);
  if (cg_parse_functions(o->functions, !kane_method && !python, out, &d) == LG_OK)
    return CLI_EXIT_OK;
  cli_diag_as_flags(&d);
  fprintf(stderr, "lagrange codegen: %s (%s)\n", d.message, d.hint);
  return CLI_EXIT_USAGE;
}

/* The .c includes the header by its name as it is (escapes mean nothing
 * in an #include line): a name that cannot be spelled there is refused. */
static int check_header_name(const char *hpath) {
  const char *base = hpath && strrchr(hpath, '/') ? strrchr(hpath, '/') + 1 : hpath;
  if (!base || cg_include_name_ok(base)) return CLI_EXIT_OK;
  fprintf(stderr, "lagrange codegen: -o: the header's name '%s' cannot be written in the "
                  ".c's #include line (it has a quote, a backslash, a control character or "
                  "two question marks); name the output with letters, digits, '.', '-' and "
                  "'_'\n", base);
  return CLI_EXIT_USAGE;
}

/* The rest of codegen, with the options checked. */
static int codegen_loaded(const cli_opts *o, cg_lang lang, unsigned functions,
                          const char *hpath) {
  lang_model *lm;
  mech_eom *e;
  int rc = cli_load(o, &lm, &e);
  if (rc != CLI_EXIT_OK) return rc;
  /* Expanding and collecting cancels the many terms of d/dt(dL/dq') and
   * dL/dq that annihilate each other: 5x fewer operations at n = 40. */
  mech_kane *kane = NULL;
  if ((rc = cli_method_eom(o, lm, &e, &kane)) != CLI_EXIT_OK) {
    lang_model_free(lm);
    return rc;
  }
  int kane_in = kane != NULL;
  e = mech_eom_simplified(lm->mech, e, CLI_SIMPLIFY_FOR_CODE);
  if (kane) kane = mech_kane_simplified(lm->mech, kane, CLI_SIMPLIFY_FOR_CODE);
  if (!e || (kane_in && !kane)) {
    fprintf(stderr, "%s: out of memory\n", o->model);
    lang_model_free(lm);
    return CLI_EXIT_MODEL;
  }
  char *name = o->name ? lg_strdup(o->name)
                      : o->model_stdin ? lg_strdup("model") : cg_default_name(o->model);
  /* the .c includes the header written beside it (else NAME.h) */
  const char *hbase = hpath && strrchr(hpath, '/') ? strrchr(hpath, '/') + 1 : hpath;
  cg_request r = {name, o->model, lm->mech, e, kane, o->set, o->nset, hbase, functions};
  if (name && o->output && lang == CG_C && !hpath)
    fprintf(stderr, "lagrange codegen: note: '%s' is not a regular file: no header is written "
                    "beside it (the source includes '%s.h')\n", o->output, name);
  rc = name ? emit(o, &r, lang, hpath) : CLI_EXIT_MODEL;
  lg_free(name);
  lang_model_free(lm);
  return rc;
}

int cli_codegen(const cli_opts *o) {
  cg_lang lang = CG_C;
  unsigned functions;
  if (parse_functions(o, &functions) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
  if (o->lang && strcmp(o->lang, "c") != 0) {
    if (strcmp(o->lang, "python") != 0) {
      fprintf(stderr, "lagrange codegen: --lang is c or python, not '%s'\n", o->lang);
      return CLI_EXIT_USAGE;
    }
    lang = CG_PYTHON;
  }
  if (o->name && !cg_identifier_ok(o->name)) {
    fprintf(stderr, "lagrange codegen: --name must be a C identifier (letters, digits and '_', "
                    "not starting with a digit), not '%s'\n", o->name);
    return CLI_EXIT_USAGE;
  }
  char *hpath = NULL; /* the header written beside -o, if any */
  if (o->output && lang == CG_C && header_beside(o->output) &&
      !(hpath = header_path(o->output))) {
    fprintf(stderr, "lagrange codegen: out of memory\n");
    return CLI_EXIT_MODEL;
  }
  int rc = check_header_name(hpath);
  const char *const outs[] = {o->output, hpath};
  const char *const labels[] = {"-o", "the header"};
  if (rc == CLI_EXIT_OK) rc = cli_check_outputs(o, outs, labels, 2);
  if (rc == CLI_EXIT_OK) rc = codegen_loaded(o, lang, functions, hpath);
  lg_free(hpath);
  return rc;
}
