/* cli_codegen.c - `lagrange codegen`: C (with header) or NumPy source. */
#include "cli.h"

#include "cg.h"

#include <stdio.h>
#include <string.h>

/* Write through FILE.part and rename, so no partial file is ever left. */
static int write_atomic(const char *path, const lg_str *s) {
  char part[4200];
  snprintf(part, sizeof part, "%s.part", path);
  FILE *f = fopen(part, "w");
  if (!f) return 0;
  int ok = fwrite(s->s ? s->s : "", 1, s->len, f) == s->len;
  ok = fclose(f) == 0 && ok;
  if (ok && rename(part, path) == 0) return 1;
  remove(part);
  return 0;
}

/* "out/model.c" -> "out/model.h" */
static void header_path(const char *c_path, char *buf, size_t n) {
  size_t len = strlen(c_path);
  if (len > 2 && strcmp(c_path + len - 2, ".c") == 0)
    snprintf(buf, n, "%.*s.h", (int)(len - 2), c_path);
  else
    snprintf(buf, n, "%s.h", c_path);
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
    char hpath[4200];
    header_path(o->output, hpath, sizeof hpath);
    if (!write_atomic(o->output, &src) || (lang == CG_C && !write_atomic(hpath, &hdr))) {
      fprintf(stderr, "lagrange codegen: cannot write '%s'\n", o->output);
      rc = CLI_EXIT_MODEL;
    }
  }
  if (rc == CLI_EXIT_OK && o->stats)
    fprintf(stderr, "%s: operations after common-subexpression elimination: "
                    "mass_matrix_full %zu, forcing_full %zu, rhs %zu (plus the solve), "
                    "energy %zu, constraints %zu\n",
            o->model, st.mass_matrix_full, st.forcing_full, st.rhs, st.energy,
            st.constraints);
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

int cli_codegen(const cli_opts *o) {
  cg_lang lang = CG_C;
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
  mech_eom_simplify(lm->mech, e, CLI_SIMPLIFY_FOR_CODE);
  if (kane) mech_kane_simplify(lm->mech, kane, CLI_SIMPLIFY_FOR_CODE);
  char *name = o->name ? lg_strdup(o->name) : cg_default_name(o->model);
  char hpath[4200];
  const char *hbase = NULL;
  if (o->output) { /* the .c includes the header written beside it */
    header_path(o->output, hpath, sizeof hpath);
    hbase = strrchr(hpath, '/') ? strrchr(hpath, '/') + 1 : hpath;
  }
  cg_request r = {name, o->model, lm->mech, e, kane, o->set, o->nset, hbase};
  rc = name ? emit(o, &r, lang) : CLI_EXIT_MODEL;
  lg_free(name);
  lang_model_free(lm);
  return rc;
}
