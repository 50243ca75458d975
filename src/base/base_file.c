/* base_file.c - bounded input reading, and the registry of temporaries
 * (the JIT's files and folders; the command's output files) that a
 * signal handler can empty with async-signal-safe calls only
 * (lg_temp_remove_all). The output files themselves are the command's
 * (src/cli/cli_outfile.c): the library writes no file but the JIT's. */
#include "lg_base.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the registry of live temporaries ---------------------------------------------- */
/* A slot is free (0), being filled (-1), a file (1) or a folder (2). The
 * kind is stored after the path, so a handler never sees half a path. */
enum { TEMP_SLOTS = 64, TEMP_PATH = 4096 };
static char temp_path[TEMP_SLOTS][TEMP_PATH];
static atomic_int temp_kind[TEMP_SLOTS];

int lg_temp_register(const char *path, int is_dir) {
  size_t len = strlen(path);
  if (len >= TEMP_PATH) return -1;
  for (int i = 0; i < TEMP_SLOTS; i++) {
    int expect = 0;
    if (!atomic_compare_exchange_strong(&temp_kind[i], &expect, -1)) continue;
    memcpy(temp_path[i], path, len + 1);
    atomic_store(&temp_kind[i], is_dir ? 2 : 1);
    return i;
  }
  return -1;
}

void lg_temp_forget(int slot) {
  if (slot >= 0 && slot < TEMP_SLOTS) atomic_store(&temp_kind[slot], 0);
}

void lg_temp_keep_only(const int *slots, size_t n) {
  for (int i = 0; i < TEMP_SLOTS; i++) {
    int mine = 0;
    for (size_t k = 0; k < n; k++) mine |= slots[k] == i;
    if (!mine) atomic_store(&temp_kind[i], 0);
  }
}

/* Files first, then the (by then empty) private folders. Only unlink and
 * rmdir: safe in a signal handler. */
void lg_temp_remove_all(void) {
  for (int pass = 1; pass <= 2; pass++)
    for (int i = TEMP_SLOTS - 1; i >= 0; i--) {
      if (atomic_load(&temp_kind[i]) != pass) continue;
      if (pass == 1) unlink(temp_path[i]);
      else rmdir(temp_path[i]);
    }
}

static lg_status io_error(lg_diag *d, const char *path, const char *what, int err,
                          const char *hint) {
  lg_diag_set(d, LG_ERR_IO, path, 0, 0, "%s: %s", what, strerror(err));
  if (hint) lg_diag_hint(d, "%s", hint);
  return LG_ERR_IO;
}

/* ---- reading a model ------------------------------------------------------------------- */
/* Line and byte column (1-based) of offset k; a lone CR ends a line too. */
static void position(const char *buf, size_t k, int *line, int *col) {
  size_t start = 0;
  int ln = 1;
  for (size_t i = 0; i < k; i++)
    if (buf[i] == '\n' || (buf[i] == '\r' && buf[i + 1] != '\n')) {
      ln++;
      start = i + 1;
    }
  *line = ln;
  *col = (int)(k - start) + 1;
}

/* Is p[0..n) well-formed UTF-8? (No overlong forms, surrogates or values
 * past U+10FFFF.) A NUL byte after a malformed one is left to the lexer,
 * which reports the malformed byte first: the first problem wins. */
static int utf8_valid(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n;) {
    unsigned c = p[i];
    if (c < 0x80) { i++; continue; }
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    if (c < 0xC2 || c > 0xF4 || n - i < len || p[i + 1] < lo || p[i + 1] > hi) return 0;
    for (size_t k = 2; k < len; k++)
      if ((p[i + k] & 0xC0) != 0x80) return 0;
    i += len;
  }
  return 1;
}

static lg_status too_large(lg_diag *d, const char *name, size_t limit) {
  lg_diag_set(d, LG_ERR_IO, name, 0, 0, "the model is larger than %zu MB, the limit for a "
              "model file", limit >> 20);
  lg_diag_hint(d, "a model is a text file of a few kilobytes; check the file name");
  return LG_ERR_IO;
}

/* The bytes of fd up to limit + 1, stopping at the first NUL byte. */
static lg_status read_all(int fd, const char *name, size_t limit, size_t hint, lg_str *b,
                          lg_diag *d) {
  int nul_ok = 0; /* a NUL after a malformed byte: the lexer reports that byte */
  size_t cap = hint + 1 < limit + 2 ? hint + 2 : limit + 2;
  if (cap < 65536) cap = 65536;
  for (;;) {
    if (b->len + 1 >= b->cap && !lg_grow((void **)&b->s, &b->cap, b->cap ? 2 * b->cap : cap, 1))
      return LG_ERR_NOMEM;
    size_t want = b->cap - 1 - b->len;
    if (want > limit + 1 - b->len) want = limit + 1 - b->len;
    ssize_t k = read(fd, b->s + b->len, want);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return io_error(d, name, "cannot read the model", errno, NULL);
    const char *nul = nul_ok ? NULL : memchr(b->s + b->len, 0, (size_t)k);
    b->len += (size_t)k;
    b->s[b->len] = 0;
    if (nul && !utf8_valid((const unsigned char *)b->s, (size_t)(nul - b->s))) nul_ok = 1;
    else if (nul) {
      int line, col;
      position(b->s, (size_t)(nul - b->s), &line, &col);
      lg_diag_set(d, LG_ERR_MODEL, name, line, col, "a NUL byte: the model is not a text file");
      lg_diag_hint(d, "save the model as plain UTF-8 text");
      return LG_ERR_MODEL;
    }
    if (b->len > limit) return too_large(d, name, limit);
    if (k == 0) return LG_OK;
  }
}

lg_status lg_read_input(const char *path, const char *name, size_t limit, char **out,
                        size_t *len, lg_diag *d) {
  *out = NULL;
  *len = 0;
  int from_stdin = strcmp(path, "-") == 0;
  int fd = from_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return io_error(d, name, "cannot read the model file", errno,
                    errno == ENOENT ? "check the path" : NULL);
  struct stat st;
  lg_status s = LG_OK;
  size_t size = 0;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    lg_diag_set(d, LG_ERR_IO, name, 0, 0, "is a folder, not a model file");
    s = LG_ERR_IO;
  } else if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if ((uintmax_t)st.st_size > (uintmax_t)limit) s = too_large(d, name, limit);
    else size = (size_t)st.st_size;
  }
  lg_str b;
  lg_str_init(&b);
  if (s == LG_OK) s = read_all(fd, name, limit, size, &b, d);
  if (!from_stdin) close(fd);
  if (s == LG_ERR_NOMEM) lg_diag_set(d, s, name, 0, 0, "out of memory reading the model");
  if (s != LG_OK) {
    lg_str_free(&b);
    return s;
  }
  /* classic Mac line ends: a lone CR becomes LF (same length, same positions) */
  for (size_t i = 0; i < b.len; i++)
    if (b.s[i] == '\r' && (i + 1 == b.len || b.s[i + 1] != '\n')) b.s[i] = '\n';
  *len = b.len;
  *out = b.s ? b.s : lg_strdup("");
  return *out ? LG_OK : LG_ERR_NOMEM;
}
