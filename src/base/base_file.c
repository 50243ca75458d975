/* base_file.c - output files you can trust, and bounded input reading.
 *
 * An output goes either through a uniquely named temporary beside its
 * target (regular files, new names, a symlink's final target), renamed
 * over the target only when everything was written, or directly to the
 * target when that is not a regular file (a device such as /dev/null, a
 * FIFO): such targets are never renamed, replaced or removed. Every
 * temporary is in a registry that a signal handler can empty with
 * async-signal-safe calls only (lg_temp_remove_all).
 */
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

/* ---- paths ------------------------------------------------------------------------- */
/* The folder part of path ("." when there is none), in a fresh string. */
static char *folder_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return lg_strdup(".");
  if (slash == path) return lg_strdup("/");
  return lg_strndup(path, (size_t)(slash - path));
}

/* The name at the end of a chain of symbolic links (the file to replace or
 * to create), following at most 40 links like the kernel. The folders on
 * the way may be links too: the final name's folder is where the file is.
 * NULL with errno set on failure. */
char *lg_path_follow(const char *path) {
  char *cur = lg_strdup(path);
  if (!cur) errno = ENOMEM;
  for (int hops = 0; cur; hops++) {
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
    char link[PATH_MAX];
    ssize_t k = hops < 40 ? readlink(cur, link, sizeof link - 1) : -1;
    if (hops >= 40) errno = ELOOP;
    if (k < 0) break;
    link[k] = 0;
    lg_str b;
    lg_str_init(&b);
    if (link[0] == '/') { /* absolute, else relative to the link's folder */
      lg_str_puts(&b, link);
    } else {
      char *dir = folder_of(cur);
      lg_str_printf(&b, "%s/%s", dir ? dir : ".", link);
      b.oom |= !dir;
      lg_free(dir);
    }
    lg_free(cur);
    cur = b.oom ? NULL : lg_str_take(&b);
    lg_str_free(&b);
    if (!cur) errno = ENOMEM;
  }
  lg_free(cur);
  return NULL;
}

/* ---- opening --------------------------------------------------------------------------- */
static lg_status io_error(lg_diag *d, const char *path, const char *what, int err,
                          const char *hint) {
  lg_diag_set(d, LG_ERR_IO, path, 0, 0, "%s: %s", what, strerror(err));
  if (hint) lg_diag_hint(d, "%s", hint);
  return LG_ERR_IO;
}

/* Write straight into a device or FIFO (opening a FIFO waits for a reader). */
static lg_status open_direct(lg_out *o, lg_diag *d) {
  int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return io_error(d, o->path, "cannot open for writing", errno, NULL);
  o->f = fdopen(fd, "w");
  if (!o->f) {
    close(fd);
    return io_error(d, o->path, "cannot open for writing", errno, NULL);
  }
  return LG_OK;
}

/* Permission bits (and owner, where allowed) of the file being replaced, or
 * 0666 less the umask for a new one: what a plain fopen would have given. */
static void set_mode(int fd, const struct stat *old) {
  if (old) {
    if (old->st_uid != geteuid() || old->st_gid != getegid())
      if (fchown(fd, old->st_uid, old->st_gid) != 0) { /* not ours to give: keep ours */ }
    fchmod(fd, old->st_mode & 0777); /* not set-user-ID and the like */
    return;
  }
  mode_t mask = umask(022);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
}

/* mkstemp(".NAME-XXXXXX") in the target's folder, registered for signals. */
static lg_status open_temp(lg_out *o, const struct stat *old, lg_diag *d) {
  char *dir = folder_of(o->target);
  const char *base = strrchr(o->target, '/') ? strrchr(o->target, '/') + 1 : o->target;
  lg_str b;
  lg_str_init(&b);
  lg_str_printf(&b, "%s/.%.200s-XXXXXX", dir ? dir : ".", base);
  if (!dir || b.oom) {
    lg_free(dir);
    lg_str_free(&b);
    return LG_ERR_NOMEM;
  }
  o->temp = lg_str_take(&b);
  int fd = mkstemp(o->temp);
  if (fd < 0) {
    int err = errno;
    lg_diag_set(d, LG_ERR_IO, o->path, 0, 0, "cannot create a file in the folder '%s': %s",
                dir, strerror(err));
    lg_diag_hint(d, err == ENOENT || err == ENOTDIR ? "create the folder first"
                                                    : "choose a folder you can write to");
    lg_free(dir);
    lg_free(o->temp);
    o->temp = NULL;
    return LG_ERR_IO;
  }
  lg_free(dir);
  o->slot = lg_temp_register(o->temp, 0);
  set_mode(fd, old);
  o->f = o->slot >= 0 ? fdopen(fd, "w") : NULL;
  if (!o->f) {
    int err = o->slot < 0 ? EMFILE : errno;
    unlink(o->temp);
    lg_temp_forget(o->slot);
    close(fd);
    lg_free(o->temp);
    o->temp = NULL;
    return io_error(d, o->path, "cannot open a temporary file", err, NULL);
  }
  return LG_OK;
}

/* Where the result goes: the path itself, or the name at the end of its
 * symbolic links (existing or not). *old gets the file replaced. */
static lg_status find_target(lg_out *o, struct stat *old, int *exists, lg_diag *d) {
  *exists = stat(o->path, old) == 0;
  if (!*exists && errno != ENOENT)
    return io_error(d, o->path, "cannot write there", errno,
                    errno == ENOTDIR ? "a part of the path is not a folder" : NULL);
  if (*exists && S_ISDIR(old->st_mode)) {
    lg_diag_set(d, LG_ERR_IO, o->path, 0, 0, "is a folder, not a file");
    lg_diag_hint(d, "give a file name, for example '%.200s/out'", o->path);
    return LG_ERR_IO;
  }
  if (*exists && !S_ISREG(old->st_mode)) return LG_OK; /* device, FIFO, socket */
  o->target = lg_path_follow(o->path);
  if (!o->target && errno != ENOMEM)
    return io_error(d, o->path, "cannot follow the symbolic link", errno, NULL);
  return o->target ? LG_OK : LG_ERR_NOMEM;
}

lg_status lg_out_open(lg_out *o, const char *path, lg_diag *d) {
  memset(o, 0, sizeof *o);
  o->slot = -1;
  if (!*path) {
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "an output file name is empty");
    return LG_ERR_IO;
  }
  o->path = lg_strdup(path);
  if (!o->path) {
    lg_diag_set(d, LG_ERR_NOMEM, path, 0, 0, "out of memory");
    return LG_ERR_NOMEM;
  }
  struct stat old;
  int exists;
  lg_status st = find_target(o, &old, &exists, d);
  if (st == LG_OK)
    st = !o->target ? open_direct(o, d) : open_temp(o, exists ? &old : NULL, d);
  if (st == LG_ERR_NOMEM) lg_diag_set(d, st, path, 0, 0, "out of memory");
  if (st != LG_OK) lg_out_abort(o);
  return st;
}

int lg_out_direct(const lg_out *o) { return o->path && !o->target; }

/* ---- finishing --------------------------------------------------------------------- */
/* Flush, sync and close: every buffered write's result is known after this. */
static lg_status out_close(lg_out *o, lg_diag *d) {
  if (!o->f) return LG_OK;
  int err = 0;
  if (fflush(o->f) != 0 || ferror(o->f)) err = errno ? errno : EIO;
  if (!err && o->temp && fsync(fileno(o->f)) != 0) err = errno;
  errno = 0;
  if (fclose(o->f) != 0 && !err) err = errno ? errno : EIO;
  o->f = NULL;
  if (!err) return LG_OK;
  io_error(d, o->path, "cannot write", err, err == ENOSPC ? "the disk is full" : NULL);
  lg_out_abort(o);
  return LG_ERR_IO;
}

/* Free the names; the registry slot is live exactly while temp is set. */
static void out_release(lg_out *o) {
  if (o->temp) lg_temp_forget(o->slot);
  o->slot = -1;
  lg_free(o->temp);
  lg_free(o->target);
  lg_free(o->path);
  o->temp = o->target = o->path = NULL;
}

/* Rename the complete temporary to `dest` (the target or a name beside it). */
static lg_status out_rename(lg_out *o, const char *dest, lg_diag *d) {
  if (!o->temp) {
    out_release(o);
    return LG_OK;
  }
  if (rename(o->temp, dest) != 0) {
    io_error(d, dest, "cannot replace", errno, NULL);
    lg_out_abort(o);
    return LG_ERR_IO;
  }
  out_release(o);
  return LG_OK;
}

lg_status lg_out_commit(lg_out *o, lg_diag *d) {
  lg_status st = out_close(o, d);
  return st == LG_OK ? out_rename(o, o->target, d) : st;
}

lg_status lg_out_commit_to(lg_out *o, const char *dest, lg_diag *d) {
  lg_status st = out_close(o, d);
  return st == LG_OK ? out_rename(o, dest, d) : st;
}

/* All or nothing: every file complete on disk before the first rename. */
lg_status lg_out_commit_all(lg_out *const *outs, size_t n, lg_diag *d) {
  lg_status st = LG_OK;
  for (size_t i = 0; i < n && st == LG_OK; i++) st = out_close(outs[i], d);
  for (size_t i = 0; i < n; i++) {
    if (st != LG_OK) lg_out_abort(outs[i]);
    else st = out_rename(outs[i], outs[i]->target, d);
  }
  return st;
}

void lg_out_abort(lg_out *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->temp) unlink(o->temp);
  out_release(o);
}

const char *lg_out_target(const lg_out *o) { return o->target ? o->target : o->path; }

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
