/* cg_jit_dir.c - the JIT's folders: opened once and checked with every
 * folder above them, then used only through descriptors (see cg_jit_dir.h).
 *
 * Why all of it: cg_jit.c loads code from the cache folder. A check of a
 * path followed by a second use of the same path lets anyone who can
 * rename a folder on the way swap in their own folder between the two, and
 * then we run their code. A descriptor cannot be swapped, and a folder
 * that only root and we can change cannot be swapped in the first place.
 */
#define _DEFAULT_SOURCE /* flock, getrandom */
#include "cg_jit_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { MAX_LINKS = 40, MAX_DEPTH = 256, WHERE = 4096 };

/* ---- the walk from / down ------------------------------------------------------------ */
typedef struct walk {
  const char *what, *env, *path; /* for messages */
  lg_diag *d;
  int fd;                        /* the folder reached */
  struct stat st;                /* its status */
  char where[WHERE];             /* its path with the links resolved */
  size_t len;
  size_t depth;                  /* the folders above it, for ".." */
  struct { dev_t dev; ino_t ino; size_t len; } up[MAX_DEPTH];
  int links;
} walk;

/* A link may be followed when nobody else could have made or changed it. */
static int link_ok(const struct stat *dir, const struct stat *link) {
  return !(dir->st_mode & 022) || link->st_uid == geteuid() || link->st_uid == dir->st_uid;
}

/* w->where + "/" + name into buf. */
static const char *component(const walk *w, const char *name, char *buf, size_t n) {
  snprintf(buf, n, "%s%s%s", w->where, w->len > 1 && *name ? "/" : "", name);
  return buf;
}

static cg_dir_status missing(walk *w, const char *name, int err) {
  char c[WHERE + NAME_MAX + 2];
  lg_diag_set(w->d, LG_ERR_IO, NULL, 0, 0, "cannot open %s %s: %s: %s", w->what, w->path,
              component(w, name, c, sizeof c), strerror(err));
  return CG_DIR_MISSING;
}

/* Is the folder reached safe? On the way (and the folder itself unless
 * own): root's or ours, and nobody else may write to it unless it is
 * sticky. The folder itself for own: ours, and nobody else writes to it,
 * sticky or not. */
static cg_dir_status check(walk *w, int last, int own) {
  const struct stat *st = &w->st;
  unsigned mode = (unsigned)st->st_mode & 07777;
  int owner_ok = last && own ? st->st_uid == geteuid()
                             : st->st_uid == 0 || st->st_uid == geteuid();
  int write_ok = !(mode & 022) || (!(last && own) && (mode & S_ISVTX));
  if (owner_ok && write_ok) return CG_DIR_OK;
  char way[WHERE + 40] = "";
  if (!last) snprintf(way, sizeof way, ": the folder %s on its way", w->where);
  if (!owner_ok) {
    lg_diag_set(w->d, LG_ERR_IO, NULL, 0, 0, "%s %s%s belongs to uid %ld, not to you (uid %ld)%s: "
                "not using it", w->what, w->path, way, (long)st->st_uid, (long)geteuid(),
                last && own ? "" : " nor to root");
    lg_diag_hint(w->d, "set %s to a folder of your own", w->env);
  } else {
    lg_diag_set(w->d, LG_ERR_IO, NULL, 0, 0, "%s %s%s is writable by others (mode %04o%s): "
                "not using it", w->what, w->path, way, mode, last && own ? "" : ", not sticky");
    lg_diag_hint(w->d, "chmod go-w %s, or set %s to a private folder", last ? w->path : w->where,
                 w->env);
  }
  return CG_DIR_UNSAFE;
}

/* Move into the folder nfd (named name, or ".." when up), checked. */
static cg_dir_status enter(walk *w, int nfd, const char *name, int up) {
  struct stat st;
  if (fstat(nfd, &st) != 0) {
    int e = errno;
    close(nfd);
    return missing(w, name, e);
  }
  if (up && (st.st_dev != w->up[w->depth - 1].dev || st.st_ino != w->up[w->depth - 1].ino)) {
    close(nfd);
    lg_diag_set(w->d, LG_ERR_IO, NULL, 0, 0, "%s %s changed while it was being checked",
                w->what, w->path);
    return CG_DIR_UNSAFE;
  }
  if (up) w->len = w->up[--w->depth].len;
  else {
    size_t k = strlen(name);
    if (w->depth == MAX_DEPTH || w->len + k + 2 > WHERE) {
      close(nfd);
      return missing(w, name, ENAMETOOLONG);
    }
    w->up[w->depth].dev = w->st.st_dev;
    w->up[w->depth].ino = w->st.st_ino;
    w->up[w->depth++].len = w->len;
    if (w->len > 1) w->where[w->len++] = '/';
    memcpy(w->where + w->len, name, k + 1);
    w->len += k;
  }
  w->where[w->len] = 0;
  close(w->fd);
  w->fd = nfd;
  w->st = st;
  return CG_DIR_OK;
}

/* Back to / (an absolute link target). */
static cg_dir_status restart(walk *w) {
  int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return missing(w, "", errno);
  if (w->fd >= 0) close(w->fd);
  w->fd = fd;
  w->depth = 0;
  strcpy(w->where, "/");
  w->len = 1;
  return fstat(fd, &w->st) == 0 ? CG_DIR_OK : missing(w, "", errno);
}

/* Component `name` is a link: its target, spliced in front of the rest
 * (*rest, a string we own), when we may follow it. */
static cg_dir_status follow(walk *w, const char *name, char **rest) {
  struct stat ls;
  if (fstatat(w->fd, name, &ls, AT_SYMLINK_NOFOLLOW) != 0) return missing(w, name, errno);
  if (!S_ISLNK(ls.st_mode)) return missing(w, name, ENOTDIR);
  if (!link_ok(&w->st, &ls)) {
    char c[WHERE + NAME_MAX + 2];
    lg_diag_set(w->d, LG_ERR_IO, NULL, 0, 0,
                "%s %s: the symbolic link %s on its way belongs to uid %ld and lies in a folder "
                "others can write to: not using it", w->what, w->path,
                component(w, name, c, sizeof c), (long)ls.st_uid);
    lg_diag_hint(w->d, "set %s to a private folder", w->env);
    return CG_DIR_UNSAFE;
  }
  if (++w->links > MAX_LINKS) return missing(w, name, ELOOP);
  char target[PATH_MAX];
  ssize_t k = readlinkat(w->fd, name, target, sizeof target - 1);
  if (k <= 0) return missing(w, name, k == 0 ? ENOENT : errno);
  target[k] = 0;
  size_t n = (size_t)k + 1 + strlen(*rest) + 1;
  char *next = lg_malloc(n);
  if (!next) return missing(w, name, ENOMEM);
  snprintf(next, n, "%s/%s", target, *rest);
  lg_free(*rest);
  *rest = next;
  return target[0] == '/' ? restart(w) : CG_DIR_OK;
}

/* One component: into it, making it when asked, following it when it is a
 * link we may follow. */
static cg_dir_status step(walk *w, const char *name, char **rest, int create) {
  if (!strcmp(name, "..")) {
    if (w->depth == 0) return CG_DIR_OK; /* /.. is / */
    int nfd = openat(w->fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return nfd < 0 ? missing(w, name, errno) : enter(w, nfd, name, 1);
  }
  const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int nfd = openat(w->fd, name, flags);
  if (nfd < 0 && errno == ENOENT && create) {
    if (mkdirat(w->fd, name, 0700) != 0 && errno != EEXIST) return missing(w, name, errno);
    nfd = openat(w->fd, name, flags);
  }
  if (nfd >= 0) return enter(w, nfd, name, 0);
  if (errno == ELOOP || errno == ENOTDIR) return follow(w, name, rest);
  return missing(w, name, errno);
}

/* The walk over the components of *rest, which changes as links are
 * followed; every folder reached is checked before anything is looked up
 * or made in it. */
static cg_dir_status walk_all(walk *w, char **rest, int create, int own) {
  cg_dir_status s = restart(w);
  while (s == CG_DIR_OK) {
    char *p = *rest;
    p += strspn(p, "/");
    if ((s = check(w, !*p, own)) != CG_DIR_OK || !*p) break;
    size_t k = strcspn(p, "/");
    char name[NAME_MAX + 1];
    if (k > NAME_MAX) return missing(w, "", ENAMETOOLONG);
    memcpy(name, p, k);
    name[k] = 0;
    memmove(*rest, p + k, strlen(p + k) + 1);
    if (strcmp(name, ".")) s = step(w, name, rest, create);
  }
  return s;
}

cg_dir_status cg_dir_open(const char *path, const char *what, const char *env, int create,
                          int own, int *fd, lg_diag *d) {
  walk *w = lg_calloc(1, sizeof *w);
  *fd = -1;
  if (!w) {
    lg_diag_set(d, LG_ERR_NOMEM, NULL, 0, 0, "out of memory");
    return CG_DIR_MISSING;
  }
  *w = (walk){.what = what, .env = env, .path = path, .d = d, .fd = -1};
  /* the components still to walk; a relative path starts at the working directory */
  char cwd[PATH_MAX] = "";
  if (path[0] != '/' && !getcwd(cwd, sizeof cwd)) {
    cg_dir_status s = missing(w, "", errno);
    lg_free(w);
    return s;
  }
  size_t n = strlen(cwd) + strlen(path) + 2;
  char *rest = lg_malloc(n);
  cg_dir_status s = CG_DIR_MISSING;
  if (rest) {
    snprintf(rest, n, "%s/%s", cwd, path);
    s = walk_all(w, &rest, create, own);
  } else
    lg_diag_set(d, LG_ERR_NOMEM, NULL, 0, 0, "out of memory");
  lg_free(rest);
  if (s == CG_DIR_OK) *fd = w->fd;
  else if (w->fd >= 0) close(w->fd);
  lg_free(w);
  return s;
}

/* ---- files in a checked folder ---------------------------------------------------------- */
int cg_dir_open_file(int dir, const char *name) {
  int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
                  (st.st_mode & 022))) {
    close(fd);
    fd = -1;
  }
  return fd;
}

lg_status cg_dir_write(int dir, const char *name, const char *s, size_t n, lg_diag *d) {
  int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int err = fd < 0 ? errno : 0;
  for (size_t done = 0; !err && done < n;) {
    ssize_t k = write(fd, s + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) err = k < 0 ? errno : EIO;
    else done += (size_t)k;
  }
  if (fd >= 0 && close(fd) != 0 && !err) err = errno;
  if (!err) return LG_OK;
  lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot write %s in the compiler's folder: %s", name,
              strerror(err));
  return LG_ERR_IO;
}

void cg_dir_remove(int dir, const char *name) {
  int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *dp = fd >= 0 ? fdopendir(fd) : NULL;
  if (!dp) {
    if (fd >= 0) close(fd);
    return;
  }
  for (struct dirent *e; (e = readdir(dp)) != NULL;) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (unlinkat(fd, e->d_name, 0) != 0 && errno == EISDIR)
      unlinkat(fd, e->d_name, AT_REMOVEDIR); /* compilers make no folders; an empty one goes */
  }
  closedir(dp);
  unlinkat(dir, name, AT_REMOVEDIR);
}

/* ---- work folders ---------------------------------------------------------------------- */
static unsigned long long random64(void) {
  static unsigned long long counter;
  unsigned long long r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    r = (unsigned long long)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (unsigned long long)ts.tv_sec;
  }
  return r ^ ++counter * 0xbf58476d1ce4e5b9ull;
}

lg_status cg_dir_work(int dir, const char *prefix, char name[64], int *fd, lg_diag *d) {
  *fd = -1;
  for (int tries = 0; tries < 100; tries++) {
    snprintf(name, 64, "%.24s-%ld-%016llx", prefix, (long)getpid(), random64());
    if (mkdirat(dir, name, 0700) == 0) break;
    if (errno != EEXIST) {
      lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot create a folder for the compiler: %s",
                  strerror(errno));
      return LG_ERR_IO;
    }
  }
  *fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (*fd < 0 || fstat(*fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) ||
      flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    if (*fd >= 0) close(*fd);
    *fd = -1;
    unlinkat(dir, name, AT_REMOVEDIR);
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot create a private folder for the compiler: %s",
                e ? strerror(e) : "it is not private");
    return LG_ERR_IO;
  }
  return LG_OK;
}

/* The pid in PREFIX-PID-RANDOM, or 0. */
static long work_pid(const char *name, const char *prefix) {
  size_t k = strlen(prefix);
  if (strncmp(name, prefix, k) || name[k] != '-') return 0;
  char *end;
  long pid = strtol(name + k + 1, &end, 10);
  return end > name + k + 1 && *end == '-' && pid > 0 ? pid : 0;
}

void cg_dir_clean(int dir, const char *prefix) {
  int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dp = fd >= 0 ? fdopendir(fd) : NULL;
  if (!dp) {
    if (fd >= 0) close(fd);
    return;
  }
  for (struct dirent *e; (e = readdir(dp)) != NULL;) {
    long pid = work_pid(e->d_name, prefix);
    /* alive: maybe between making the folder and locking it */
    if (!pid || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    int wfd = openat(dir, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (wfd >= 0 && fstat(wfd, &st) == 0 && st.st_uid == geteuid() &&
        flock(wfd, LOCK_EX | LOCK_NB) == 0)
      cg_dir_remove(dir, e->d_name);
    if (wfd >= 0) close(wfd);
  }
  closedir(dp);
}

int cg_dir_lock(int dir, const char *name, int wait) {
  int fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                  0600);
  struct stat st;
  if (fd < 0) return -1;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
    close(fd);
    errno = EPERM;
    return -1;
  }
  if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}
