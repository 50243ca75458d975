/* lang_sema_when.c - `when A < B: stop` and `when A > B: x' = -e*x', x = 1`
 * (MODEL-FORMAT 1.1, "Events in detail"): the guard g = A - B and the
 * reset map, expressions of t, q, q', parameters and inputs, kept in the
 * lang_model for the numeric layer. */
#include "lang_sema.h"

#include <string.h>

static lg_status event_free(lang_event *e, lg_status st) {
  lg_free(e->target);
  lg_free(e->rate);
  lg_free(e->value);
  return st;
}

lg_status sema_when(sema *S, const lang_stmt *st) {
  lang_event ev = {0};
  ev.dir = st->u.when.op == '<' ? -1 : 1;
  ev.stop = st->u.when.stop;
  ev.line = st->line;
  ev.col = st->col;
  S->rule = SEMA_RULE_NO_ACCEL;
  S->rule_what = "an event's condition";
  const sym_node *a = sema_scalar(S, st->u.when.lhs, "an event's condition");
  if (!a) return LG_ERR_MODEL;
  const sym_node *b = sema_scalar(S, st->u.when.rhs, "an event's condition");
  if (!b) return LG_ERR_MODEL;
  ev.g = sym_sub(S->c, a, b);
  if (!ev.g) return sema_nomem(S), LG_ERR_NOMEM;
  size_t n = st->u.when.n;
  ev.nset = n;
  ev.target = lg_calloc(n + 1, sizeof *ev.target);
  ev.rate = lg_calloc(n + 1, sizeof *ev.rate);
  ev.value = lg_calloc(n + 1, sizeof *ev.value);
  if (!ev.target || !ev.rate || !ev.value) return event_free(&ev, LG_ERR_NOMEM);
  for (size_t i = 0; i < n; i++) {
    const lang_init *it = &st->u.when.v[i];
    const lang_ident *id = &it->name;
    sema_entry *en = sema_lookup(S, id->text);
    if (!en) return sema_unknown(S, id->text, id->line, id->col), event_free(&ev, LG_ERR_MODEL);
    if (en->kind != SEMA_COORD || it->primes > 1) {
      sema_fail(S, id->line, id->col, "an event assigns coordinates and their rates, and "
                "'%s%s' is neither", id->text, it->primes == 2 ? "''" : "");
      lg_diag_hint(S->diag, "when y < 0: y' = -e*y', y = 0");
      return event_free(&ev, LG_ERR_MODEL);
    }
    for (size_t j = 0; j < i; j++)
      if (ev.target[j] == en->index && ev.rate[j] == (unsigned char)it->primes) {
        sema_fail(S, id->line, id->col, "'%s%s' is assigned twice in one event", id->text,
                  it->primes ? "'" : "");
        return event_free(&ev, LG_ERR_MODEL);
      }
    S->rule = SEMA_RULE_NO_ACCEL;
    S->rule_what = "an event's assignment";
    ev.value[i] = sema_scalar(S, it->value, "an event's assignment");
    if (!ev.value[i]) return event_free(&ev, LG_ERR_MODEL);
    ev.target[i] = en->index;
    ev.rate[i] = (unsigned char)it->primes;
  }
  lang_model *lm = S->out;
  if (!LG_PUSH(lm->events, lm->nevents, lm->events_cap, ev))
    return event_free(&ev, LG_ERR_NOMEM);
  return LG_OK;
}
