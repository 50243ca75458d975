/* cli_codegen.c - `lagrange codegen`: C (with header) or NumPy source. */
#include "cli.h"

#include "cg.h"

#include <stdio.h>
#include <string.h>

/* "out/model.c" -> "out/model.h" */
static void header_path(const char *c_path, char *buf, size_t n) {
  size_t len = strlen(c_path);
  if (len > 2 && strcmp(c_path + len - 2, ".c") == 0)
    snprintf(buf, n, "%.*s.h", (int)(len - 2), c_path);
  else
    snprintf(buf, n, "%s.h", c_path);
}

/* -o FILE, and FILE.h beside it for C: both are opened before anything is
 * written (a folder in the way of either is reported by its name and
 * neither file is written), then committed together. */
static int write_outputs(const char *path, const lg_str *src, const lg_str *hdr) {
  char hpath[4200];
  header_path(path, hpath, sizeof hpath);
  lg_out f[2];
  lg_out *const all[2] = {&f[0], &f[1]};
  const lg_str *text[2] = {src, hdr};
  size_t n = hdr ? 2 : 1;
  lg_diag d;
  lg_diag_clear(&d);
  memset(f, 0, sizeof f);
  lg_status st = lg_out_open(&f[0], path, &d);
  if (st == LG_OK && hdr) st = lg_out_open(&f[1], hpath, &d);
  for (size_t i = 0; st == LG_OK && i < n; i++)
    if (text[i]->len) fwrite(text[i]->s, 1, text[i]->len, f[i].f);
  if (st == LG_OK) st = lg_out_commit_all(all, n, &d);
  lg_out_abort(&f[0]);
  lg_out_abort(&f[1]);
  return st == LG_OK ? CLI_EXIT_OK : cli_report_io(&d);
}

static int emit(const cli_opts *o, const cg_request *r, cg_lang lang) {
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
    rc = write_outputs(o->output, &src, lang == CG_C ? &hdr : NULL);
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

static int valid_identifier(const char *s) {
  if (!s || !*s || (*s >= '0' && *s <= '9')) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || *s == '_'))
      return 0;
  return 1;
}

/* --functions 'rhs, mass_matrix_full': the bits of cg_request.functions
 * (0: every function). */
static int parse_functions(const char *text, unsigned *out) {
  *out = 0;
  if (!text) return CLI_EXIT_OK;
  const char *s = text;
  while (*s) {
    while (*s == ' ' || *s == ',' || *s == '\t') s++;
    size_t n = strcspn(s, ", \t");
    if (!n) break;
    char word[64] = {0};
    int f = n < sizeof word ? (memcpy(word, s, n), cg_function_lookup(word)) : -1;
    if (f < 0) {
      fprintf(stderr, "lagrange codegen: --functions: no function '%.*s' (choose from", (int)n, s);
      for (int i = 0; i < CG_FUNCTION_COUNT; i++)
        fprintf(stderr, "%s%s", i ? ", " : " ", cg_function_name(i));
      fprintf(stderr, ")\n");
      return CLI_EXIT_USAGE;
    }
    *out |= 1u << f;
    s += n;
  }
  if (!*out) {
    fprintf(stderr, "lagrange codegen: --functions names no function (e.g. --functions rhs)\n");
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

int cli_codegen(const cli_opts *o) {
  cg_lang lang = CG_C;
  unsigned functions;
  if (parse_functions(o->functions, &functions) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
  int kane_method = o->method && !strcmp(o->method, "kane");
  int python = o->lang && !strcmp(o->lang, "python");
  for (int i = 0; i < 2; i++) {
    const char *c_only = i ? "rhs_recursive" : "rhs_jacobian";
    if ((functions >> cg_function_lookup(c_only) & 1u) && (kane_method || python)) {
      fprintf(stderr, "lagrange codegen: --functions %s is written in C for Lagrange's "
                      "method only (drop it, or use --lang c without --method kane)\n", c_only);
      return CLI_EXIT_USAGE;
    }
  }
  if (o->lang && strcmp(o->lang, "c") != 0) {
    if (strcmp(o->lang, "python") != 0) {
      fprintf(stderr, "lagrange codegen: --lang is c or python, not '%s'\n", o->lang);
      return CLI_EXIT_USAGE;
    }
    lang = CG_PYTHON;
  }
  if (o->name && !valid_identifier(o->name)) {
    fprintf(stderr, "lagrange codegen: --name must be a C identifier, not '%s'\n", o->name);
    return CLI_EXIT_USAGE;
  }
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
  char hpath[4200];
  const char *hbase = NULL;
  if (o->output) { /* the .c includes the header written beside it */
    header_path(o->output, hpath, sizeof hpath);
    hbase = strrchr(hpath, '/') ? strrchr(hpath, '/') + 1 : hpath;
  }
  cg_request r = {name, o->model, lm->mech, e, kane, o->set, o->nset, hbase, functions};
  rc = name ? emit(o, &r, lang) : CLI_EXIT_MODEL;
  lg_free(name);
  lang_model_free(lm);
  return rc;
}
