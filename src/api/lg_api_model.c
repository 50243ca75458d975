/* lg_api_model.c - loading a model: the text is parsed and checked now,
 * so that errors in the file are reported by the load, and kept: the
 * first lg_derive takes the parse as its own context, later ones parse
 * the text again. The queries read names copied from the parse. Files
 * are read as the command reads them (lg_read_input: at most 64 MB, "-"
 * is standard input); a text in memory has the same bound. */
#include "lg_api_internal.h"

#include <string.h>

static void free_names(char **v, size_t n) {
  for (size_t i = 0; v && i < n; i++) lg_free(v[i]);
  lg_free(v);
}

void lg_model_free(lg_model *m) {
  if (!m) return;
  for (size_t i = 0; i < m->nset; i++) lg_free((char *)m->set[i].name);
  lg_free(m->set);
  lang_model_free(atomic_exchange(&m->parsed, NULL));
  free_names(m->notes, m->nnotes);
  free_names(m->coords, m->nq);
  free_names(m->known, m->nknown);
  lg_free(m->name);
  lg_free(m->text);
  lg_free(m);
}

lang_model *api_model_take_parse(const lg_model *m) {
  /* the one field a reader changes: the parse goes to one taker */
  return atomic_exchange(&((lg_model *)m)->parsed, NULL);
}

/* copies of n names (name(i)); 0 when out of memory */
static int copy_names(char ***out, size_t n, const char *(*name)(const void *, size_t),
                      const void *from) {
  *out = lg_calloc(n ? n : 1, sizeof **out);
  for (size_t i = 0; *out && i < n; i++)
    if (!((*out)[i] = lg_strdup(name(from, i)))) return 0;
  return *out != NULL;
}

static const char *note_of(const void *lm, size_t i) { return ((const lang_model *)lm)->notes[i]; }
static const char *coord_of(const void *lm, size_t i) {
  return mech_coord(((const lang_model *)lm)->mech, i, 0)->v.name;
}
static const char *known_of(const void *lm, size_t i) {
  const mech_model *mm = ((const lang_model *)lm)->mech;
  size_t np = mech_nparams(mm);
  return i < np ? mech_param_name(mm, i) : mech_input_name(mm, i - np);
}

static int summarize(lg_model *m, const lang_model *lm) {
  m->nnotes = lm->nnotes;
  m->nq = lm->n;
  m->nknown = mech_nparams(lm->mech) + mech_ninputs(lm->mech);
  m->coord_line = lm->coord_line;
  m->coord_col = lm->coord_col;
  return copy_names(&m->notes, m->nnotes, note_of, lm) &&
         copy_names(&m->coords, m->nq, coord_of, lm) &&
         copy_names(&m->known, m->nknown, known_of, lm);
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
  lang_model *lm = NULL;
  lg_status st = m->name ? lang_load_string(name, text, len, &lm, d) : LG_ERR_NOMEM;
  if (st == LG_OK && !summarize(m, lm)) st = LG_ERR_NOMEM;
  atomic_init(&m->parsed, lm);
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

size_t lg_model_nnotes(const lg_model *m) { return m ? m->nnotes : 0; }

const char *lg_model_note(const lg_model *m, size_t i) {
  return m && i < m->nnotes ? m->notes[i] : NULL;
}

size_t lg_model_nq(const lg_model *m) { return m ? m->nq : 0; }

const char *lg_model_coordinate_name(const lg_model *m, size_t i) {
  return m && i < m->nq ? m->coords[i] : NULL;
}

/* A parameter or an input of the model called `name`. */
static int known_name(const lg_model *m, const char *name) {
  for (size_t i = 0; i < m->nknown; i++)
    if (!strcmp(m->known[i], name)) return 1;
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
  if (!known_name(m, name)) {
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
