/* cli_outfile.c - output files you can trust (simulate's CSV and plot,
 * codegen's source and header, animate's page, sweep's table).
 *
 * An output goes either through a uniquely named temporary beside its
 * target (regular files, new names, a symlink's final target), renamed
 * over the target only when everything was written, or directly to the
 * target when that is not a regular file (a device such as /dev/null, a
 * FIFO): such targets are never renamed, replaced or removed. Every
 * temporary is in the base layer's registry (lg_temp_register), which the
 * command's signal handlers empty. */
#include "cli_outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
