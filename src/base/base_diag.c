/* base_diag.c - structured diagnostics: file:line:col: message (hint). */
#include "lg_base.h"

#include <stdio.h>
#include <string.h>

void lg_diag_clear(lg_diag *d) { memset(d, 0, sizeof *d); }

void lg_diag_set(lg_diag *d, lg_status st, const char *file, int line, int col,
                 const char *fmt, ...) {
  if (!d || d->status != LG_OK) return;
  d->status = st;
  snprintf(d->file, sizeof d->file, "%s", file ? file : "");
  d->line = line;
  d->col = col;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->message, sizeof d->message, fmt, ap);
  va_end(ap);
  d->hint[0] = 0;
}

void lg_diag_hint(lg_diag *d, const char *fmt, ...) {
  if (!d) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->hint, sizeof d->hint, fmt, ap);
  va_end(ap);
}

void lg_diag_format(const lg_diag *d, char *buf, size_t n) {
  const char *file = d->file[0] ? d->file : "lagrange";
  int k;
  if (d->line > 0)
    k = snprintf(buf, n, "%s:%d:%d: %s", file, d->line, d->col > 0 ? d->col : 1,
                 d->message);
  else
    k = snprintf(buf, n, "%s: %s", file, d->message);
  if (d->hint[0] && k >= 0 && (size_t)k < n)
    snprintf(buf + k, n - (size_t)k, " (%s)", d->hint);
}
