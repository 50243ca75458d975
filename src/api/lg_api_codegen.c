/* lg_api_codegen.c - the equations turned into C or NumPy source, as
 * `lagrange codegen` writes them. Code generation works on the system's
 * symbolic expressions, so it holds the system's lock. */
#include "lg_api_internal.h"

#include "cg.h"

#include <string.h>

void lg_codegen_options_default(lg_codegen_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->lang = LG_CODE_C;
}

int lg_codegen_name_ok(const char *name) { return name && cg_identifier_ok(name); }

int lg_codegen_header_name_ok(const char *name) { return name && cg_include_name_ok(name); }

char *lg_codegen_default_name(const char *model_path) {
  return model_path ? cg_default_name(model_path) : NULL;
}

lg_status lg_codegen_check_functions(const char *functions, lg_code_lang lang,
                                     lg_method method, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  unsigned which;
  lg_status st = cg_parse_functions(functions, lang == LG_CODE_C && method == LG_LAGRANGE,
                                    &which, d);
  return api_end(&c, st, NULL, 0, 0);
}

/* Kane's equations in Lagrange's state when they share it, else in their
 * own [q; u]: the collected equations of lg_derive, which nothing changes
 * (big entries left as derived). */
static lg_status generate(lg_system *s, const lg_codegen_options *o, unsigned functions,
                          lg_str *src, lg_str *hdr, cg_stats *stats, lg_diag *d) {
  lg_status dst = api_derived(s, d);
  if (dst != LG_OK) return dst;
  mech_eom *e = s->method == LG_KANE && s->kane_eom ? s->kane_eom : s->eom;
  /* functions that read M and f take them as the numeric objects do (a
   * large tree's composite-rigid-body form); the others need neither */
  unsigned light = 0;
  const char *const light_names[] = {"energy", "constraints", "constraint_jacobian",
                                     "rhs_recursive"};
  for (size_t i = 0; i < sizeof light_names / sizeof *light_names; i++)
    light |= 1u << cg_function_lookup(light_names[i]);
  if (s->method == LG_LAGRANGE && (!functions || (functions & ~light))) {
    lg_status st = api_num_eom(s, d);
    if (st != LG_OK) return st;
    e = s->eom_num;
  }
  const mech_kane *k = s->method == LG_KANE && !s->kane_eom ? s->kane : NULL;
  cg_request r = {o->name ? o->name : "model", s->lm->file, s->lm->mech, e, k, s->dummy,
                  s->nsettings, o->header_name, functions, e->tree_qdd != NULL};
  return cg_generate(&r, o->lang == LG_CODE_C ? CG_C : CG_PYTHON, src,
                     o->lang == LG_CODE_C ? hdr : NULL, stats, d);
}

/* The operation counts of the functions written, in a fixed order. */
static void count(const cg_stats *cs, unsigned which, lg_codegen_stats *out) {
  const struct { const char *fn; size_t ops; } all[] = {
      {"mass_matrix_full", cs->mass_matrix_full}, {"forcing_full", cs->forcing_full},
      {"rhs", cs->rhs}, {"energy", cs->energy}, {"constraints", cs->constraints},
      {"rhs_recursive", cs->rhs_recursive}};
  out->n = 0;
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
    int last = i + 1 == sizeof all / sizeof *all;
    int asked = which >> cg_function_lookup(all[i].fn) & 1u;
    /* rhs_recursive only when asked or written by default (a large tree,
     * whose NAME_rhs then calls it: no count of its own) */
    if ((which || last) && !asked && !(last && all[i].ops)) continue;
    if (!which && !strcmp(all[i].fn, "rhs") && !all[i].ops && cs->rhs_recursive) continue;
    out->count[out->n].function = all[i].fn;
    out->count[out->n++].operations = all[i].ops;
  }
}

lg_status lg_codegen_with(const lg_system *s, const lg_codegen_options *o, char **source,
                          char **header, lg_codegen_stats *stats, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (source) *source = NULL;
  if (header) *header = NULL;
  lg_codegen_options opt;
  lg_codegen_options_default(&opt);
  if (o && o->size >= sizeof(size_t))
    memcpy(&opt, o, o->size < sizeof opt ? o->size : sizeof opt);
  if (!s || !source || !o || o->size < sizeof(size_t) ||
      (opt.lang != LG_CODE_C && opt.lang != LG_CODE_PYTHON) ||
      (opt.name && !cg_identifier_ok(opt.name))) {
    lg_diag_set(d, LG_ERR_USAGE, s ? s->lm->file : NULL, 0, 0,
                "lg_codegen: a system, a source output, options from "
                "lg_codegen_options_default, a language and a C identifier as the `name` "
                "are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  if (opt.header_name && !cg_include_name_ok(opt.header_name)) {
    lg_diag_set(d, LG_ERR_USAGE, s->lm->file, 0, 0,
                "`header_name` '%s' cannot be written in the source's #include line",
                opt.header_name);
    lg_diag_hint(d, "name the header with letters, digits, '.', '-' and '_'");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  unsigned which;
  int c_lagrange = opt.lang == LG_CODE_C && s->method == LG_LAGRANGE;
  if (cg_parse_functions(opt.functions, c_lagrange, &which, d) != LG_OK)
    return api_end(&c, LG_ERR_USAGE, s->lm->file, 0, 0);
  lg_system *mut = (lg_system *)s;
  lg_str src, hdr;
  lg_str_init(&src);
  lg_str_init(&hdr);
  cg_stats cs;
  memset(&cs, 0, sizeof cs);
  pthread_mutex_lock(&mut->lock);
  lg_status st = generate(mut, &opt, which, &src, &hdr, &cs, d);
  pthread_mutex_unlock(&mut->lock);
  char *so = NULL, *ho = NULL;
  if (st == LG_OK) {
    so = lg_str_take(&src);
    ho = opt.lang == LG_CODE_C && header ? lg_str_take(&hdr) : NULL;
  }
  st = api_end(&c, st, s->lm->file, s->lm->coord_line, s->lm->coord_col);
  if (st != LG_OK) {
    lg_free(so);
    lg_free(ho);
  } else {
    *source = so;
    if (header) *header = ho;
    if (stats) count(&cs, which, stats);
  }
  lg_str_free(&src);
  lg_str_free(&hdr);
  return st;
}

lg_status lg_codegen(const lg_system *s, lg_code_lang lang, const char *name, char **source,
                     char **header, lg_diag *diag) {
  return lg_codegen_functions(s, lang, name, NULL, source, header, diag);
}

lg_status lg_codegen_functions(const lg_system *s, lg_code_lang lang, const char *name,
                               const char *functions, char **source, char **header,
                               lg_diag *diag) {
  lg_codegen_options o;
  lg_codegen_options_default(&o);
  o.lang = lang;
  o.name = name;
  o.functions = functions;
  return lg_codegen_with(s, &o, source, header, NULL, diag);
}
