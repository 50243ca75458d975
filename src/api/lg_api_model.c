/* lg_api_model.c - loading a model: the text is kept (lg_derive parses it
 * again into a context of its own) and checked now, so that errors in the
 * file are reported by the load. Files are read as the command reads them
 * (lg_read_input: at most 64 MB, "-" is standard input); a text in
 * memory has the same bound. */
#include "lg_api_internal.h"

#include <string.h>

void lg_model_free(lg_model *m) {
  if (!m) return;
  for (size_t i = 0; i < m->nset; i++) lg_free((char *)m->set[i].name);
  lg_free(m->set);
  lang_model_free(m->lm);
  lg_free(m->name);
  lg_free(m->text);
  lg_free(m);
}

/* Takes the text (len bytes, NUL-terminated) whatever happens. */
static lg_status load(const char *name, char *text, size_t len, lg_model **out,
                      lg_diag *d) {
  lg_model *m = lg_calloc(1, sizeof *m);
  if (!m) {
    lg_free(text);
    return LG_ERR_NOMEM;
  }
  m->text = text;
  m->len = len;
  m->name = lg_strdup(name);
  lg_status st = m->name ? lang_load_string(name, text, len, &m->lm, d) : LG_ERR_NOMEM;
  if (st != LG_OK) {
    lg_model_free(m);
    return st;
  }
  *out = m;
  return LG_OK;
}

lg_status lg_model_load_string(const char *name, const char *text, size_t len,
                               lg_model **out, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (!name) name = "<string>";
  lg_status st = LG_OK;
  if (!out || (!text && len)) {
    lg_diag_set(d, LG_ERR_USAGE, name, 0, 0, "lg_model_load_string: out and text are needed");
    st = LG_ERR_USAGE;
  } else if (len > LG_INPUT_LIMIT) {
    /* the bound of a model file; also keeps len + 1 (the copy) from wrapping */
    lg_diag_set(d, LG_ERR_USAGE, name, 0, 0,
                "lg_model_load_string: len is %zu bytes, more than %zu MB, the limit for a "
                "model", len, LG_INPUT_LIMIT >> 20);
    lg_diag_hint(d, "pass the length of the text (a model is a few kilobytes)");
    st = LG_ERR_USAGE;
  }
  lg_model *m = NULL;
  if (out) *out = NULL;
  char *copy = st == LG_OK ? lg_strndup(text ? text : "", len) : NULL;
  if (st == LG_OK) st = copy ? load(name, copy, len, &m, d) : LG_ERR_NOMEM;
  st = api_end(&c, st, name, 0, 0);
  if (st != LG_OK) lg_model_free(m);
  else *out = m;
  return st;
}

lg_status lg_model_load_file(const char *path, lg_model **out, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  lg_status st = LG_OK;
  if (!path || !out) {
    lg_diag_set(d, LG_ERR_USAGE, path, 0, 0, "lg_model_load_file: path and out are needed");
    st = LG_ERR_USAGE;
  }
  if (out) *out = NULL;
  lg_model *m = NULL;
  char *text = NULL;
  size_t len = 0;
  /* the command's reader: bounded, NUL bytes and lone CRs as it treats them */
  if (st == LG_OK) st = lg_read_input(path, path, LG_INPUT_LIMIT, &text, &len, d);
  if (st == LG_OK) st = load(path, text, len, &m, d);
  st = api_end(&c, st, path, 0, 0);
  if (st != LG_OK) lg_model_free(m);
  else *out = m;
  return st;
}

const char *lg_model_name(const lg_model *m) { return m ? m->name : NULL; }

size_t lg_model_nnotes(const lg_model *m) { return m ? m->lm->nnotes : 0; }

const char *lg_model_note(const lg_model *m, size_t i) {
  return m && i < m->lm->nnotes ? m->lm->notes[i] : NULL;
}

size_t lg_model_nq(const lg_model *m) { return m ? m->lm->n : 0; }

const char *lg_model_coordinate_name(const lg_model *m, size_t i) {
  return m && i < m->lm->n ? mech_coord(m->lm->mech, i, 0)->v.name : NULL;
}

/* A parameter or an input of the model called `name`. */
static int known_name(const mech_model *mm, const char *name) {
  for (size_t i = 0; i < mech_nparams(mm); i++)
    if (!strcmp(mech_param_name(mm, i), name)) return 1;
  for (size_t i = 0; i < mech_ninputs(mm); i++)
    if (!strcmp(mech_input_name(mm, i), name)) return 1;
  return 0;
}

lg_status lg_model_set(lg_model *m, const char *name, double value, lg_diag *diag) {
  api_call c;
  lg_diag *d = api_begin(&c, diag);
  if (!m || !name) {
    lg_diag_set(d, LG_ERR_USAGE, m ? m->name : NULL, 0, 0,
                "lg_model_set: a model and a name are needed");
    return api_end(&c, LG_ERR_USAGE, NULL, 0, 0);
  }
  if (!known_name(m->lm->mech, name)) {
    lg_diag_set(d, LG_ERR_USAGE, m->name, 0, 0,
                "`set` %s: the model has no parameter or input named '%s'", name, name);
    return api_end(&c, LG_ERR_USAGE, m->name, 0, 0);
  }
  for (size_t i = 0; i < m->nset; i++)
    if (!strcmp(m->set[i].name, name)) { /* a later value replaces an earlier one */
      m->set[i].value = value;
      return api_end(&c, LG_OK, m->name, 0, 0);
    }
  char *copy = lg_strdup(name);
  if (!copy || !lg_grow((void **)&m->set, &m->set_cap, m->nset + 1, sizeof *m->set)) {
    lg_free(copy);
    return api_end(&c, LG_ERR_NOMEM, m->name, 0, 0);
  }
  m->set[m->nset].name = copy;
  m->set[m->nset++].value = value;
  return api_end(&c, LG_OK, m->name, 0, 0);
}
