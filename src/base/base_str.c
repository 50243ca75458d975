/* base_str.c - growable NUL-terminated strings. */
#include "lg_base.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lg_str_init(lg_str *b) { memset(b, 0, sizeof *b); }

void lg_str_free(lg_str *b) {
  lg_free(b->s);
  lg_str_init(b);
}

void lg_str_clear(lg_str *b) {
  b->len = 0;
  if (b->s) b->s[0] = 0;
}

static int reserve(lg_str *b, size_t extra) {
  if (b->oom) return 0;
  if (extra > (size_t)-1 - 1 - b->len) { /* len + extra + 1 would wrap */
    lg_alloc_too_big();
    b->oom = 1;
    return 0;
  }
  if (b->len + extra + 1 <= b->cap) return 1;
  void *p = b->s;
  if (!lg_grow(&p, &b->cap, b->len + extra + 1, 1)) {
    b->oom = 1;
    return 0;
  }
  b->s = p;
  return 1;
}

void lg_str_putn(lg_str *b, const char *s, size_t n) {
  if (!reserve(b, n)) return;
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

void lg_str_putc(lg_str *b, char c) {
  if (b->len + 2 <= b->cap && !b->oom) { /* fast path: room already there */
    b->s[b->len++] = c;
    b->s[b->len] = 0;
    return;
  }
  lg_str_putn(b, &c, 1);
}
void lg_str_puts(lg_str *b, const char *s) { lg_str_putn(b, s, strlen(s)); }

void lg_str_vprintf(lg_str *b, const char *fmt, va_list ap) {
  /* one pass when it fits the room already there (a URDF's model text is
   * thousands of short lines), else measure, grow and write again */
  va_list ap2;
  va_copy(ap2, ap);
  size_t room = !b->oom && b->s ? b->cap - b->len : 0;
  int n = room ? vsnprintf(b->s + b->len, room, fmt, ap2) : vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    if (room) b->s[b->len] = 0;
    return;
  }
  if ((size_t)n < room) {
    b->len += (size_t)n;
    return;
  }
  if (room) b->s[b->len] = 0; /* the cut-off attempt undone until the write below */
  if (!reserve(b, (size_t)n)) return;
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void lg_str_printf(lg_str *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lg_str_vprintf(b, fmt, ap);
  va_end(ap);
}

void lg_str_double(lg_str *b, double x) {
  char buf[LG_DOUBLE_CHARS + 2];
  lg_fmt_double(buf, x);
  /* Keep it a double when read back: it must contain '.', 'e' or "inf". */
  if (!strpbrk(buf, ".en")) strcat(buf, ".0");
  lg_str_puts(b, buf);
}

char *lg_str_take(lg_str *b) {
  char *s = b->s;
  if (!s) s = lg_strdup("");
  lg_str_init(b);
  return s;
}

void lg_str_json(lg_str *b, const char *s) {
  lg_str_putc(b, '"');
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') {
      lg_str_putc(b, '\\');
      lg_str_putc(b, (char)ch);
    } else if (ch < 0x20) {
      lg_str_printf(b, "\\u%04x", ch);
    } else {
      lg_str_putc(b, (char)ch);
    }
  }
  lg_str_putc(b, '"');
}
