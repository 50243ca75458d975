/* test_cg_jit_dir.c - the JIT's folders (cg_jit_dir.c): the walk from /
 * that refuses a folder someone else could change (modes: a folder
 * writable by others, not sticky, on the way or at the end; owners when
 * run as root, through chown to another uid), symbolic links followed only
 * when nobody else could have made them, "..", relative paths; files
 * opened only when they are regular, ours and not writable by others (a
 * FIFO neither blocks nor counts); work folders locked while in use and
 * removed by cg_dir_clean only when their process is gone and their lock
 * free; entry locks. */
#define _DEFAULT_SOURCE /* mkdtemp, symlink, lchown, flock */
#include "cg_jit_dir.h"
#include "test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char base[64];
static const uid_t NOBODY = 65534;

static const char *at(const char *name) {
  static char buf[8][256];
  static int k;
  char *b = buf[k++ % 8];
  snprintf(b, 256, "%s/%s", base, name);
  return b;
}

/* cg_dir_open(path, own) -> status; the message into msg. */
static cg_dir_status open_dir(const char *path, int create, int own, char *msg, ino_t *ino) {
  lg_diag d;
  lg_diag_clear(&d);
  int fd = -1;
  cg_dir_status s = cg_dir_open(path, "the JIT cache folder", "LAGRANGE_CACHE_DIR", create, own,
                                &fd, &d);
  if (msg) snprintf(msg, 1024, "%s (%s)", d.message, d.hint);
  struct stat st;
  if (s == CG_DIR_OK) {
    CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    if (ino) *ino = st.st_ino;
    close(fd);
  } else
    CHECK(fd == -1);
  return s;
}

static ino_t inode(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? st.st_ino : 0;
}

static void walk(void) {
  char msg[1024];
  ino_t ino = 0;
  /* made 0700, every missing folder */
  CHECK(open_dir(at("a/b"), 1, 1, msg, &ino) == CG_DIR_OK);
  struct stat st;
  CHECK(stat(at("a/b"), &st) == 0 && (st.st_mode & 07777) == 0700 && ino == st.st_ino);
  CHECK(open_dir(at("missing"), 0, 1, msg, NULL) == CG_DIR_MISSING);
  CHECK(strstr(msg, "No such file") != NULL);
  close(open(at("file"), O_WRONLY | O_CREAT, 0600));
  CHECK(open_dir(at("file"), 1, 1, msg, NULL) == CG_DIR_MISSING);
  /* the folder itself writable by others: refused with the fix, sticky or not */
  const unsigned modes[] = {0777, 0770, 0707, 01777};
  for (int i = 0; i < 4; i++) {
    char name[32];
    snprintf(name, sizeof name, "open%o", modes[i]);
    mkdir(at(name), 0700);
    chmod(at(name), modes[i]);
    CHECK(open_dir(at(name), 1, 1, msg, NULL) == CG_DIR_UNSAFE);
    CHECK(strstr(msg, "is writable by others (mode") && strstr(msg, "chmod go-w") &&
          strstr(msg, "LAGRANGE_CACHE_DIR"));
  }
  /* ... but as a folder on the way (or a temporary folder), sticky is fine */
  CHECK(open_dir(at("open1777"), 0, 0, msg, NULL) == CG_DIR_OK);
  CHECK(open_dir(at("open1777/mine"), 1, 1, msg, NULL) == CG_DIR_OK);
  /* a parent writable by others and not sticky: refused, nothing made in it */
  CHECK(open_dir(at("open777/c"), 1, 1, msg, NULL) == CG_DIR_UNSAFE);
  CHECK(strstr(msg, "on its way is writable by others (mode 0777, not sticky)") != NULL);
  CHECK(access(at("open777/c"), F_OK) != 0);
  CHECK(open_dir(at("open777/c"), 0, 0, msg, NULL) == CG_DIR_UNSAFE);
  /* a link in a private folder is followed, relative or absolute */
  CHECK(symlink("a/b", at("rel")) == 0 && symlink(at("a"), at("abs")) == 0);
  CHECK(open_dir(at("rel"), 0, 1, msg, &ino) == CG_DIR_OK && ino == inode(at("a/b")));
  CHECK(open_dir(at("abs/b"), 0, 1, msg, &ino) == CG_DIR_OK && ino == inode(at("a/b")));
  /* ... even to where the walk then refuses */
  CHECK(symlink(at("open777"), at("toopen")) == 0);
  CHECK(open_dir(at("toopen/c"), 1, 1, msg, NULL) == CG_DIR_UNSAFE);
  CHECK(symlink("loop", at("loop")) == 0);
  CHECK(open_dir(at("loop"), 1, 1, msg, NULL) == CG_DIR_MISSING);
  /* "..": back up the folders walked (after the link: from its target) */
  CHECK(open_dir(at("a/b/../b"), 0, 1, msg, &ino) == CG_DIR_OK && ino == inode(at("a/b")));
  CHECK(open_dir(at("rel/../b/./"), 0, 1, msg, &ino) == CG_DIR_OK && ino == inode(at("a/b")));
  /* a relative path starts at the working directory */
  char cwd[4096];
  CHECK(getcwd(cwd, sizeof cwd) != NULL && chdir(base) == 0);
  CHECK(open_dir("a/b", 0, 1, msg, &ino) == CG_DIR_OK && ino == inode(at("a/b")));
  CHECK(chdir(cwd) == 0);
  if (geteuid() != 0) return;
  /* owners (as root): another uid's folder, parent, and link */
  mkdir(at("theirs"), 0755);
  CHECK(chown(at("theirs"), NOBODY, NOBODY) == 0);
  CHECK(open_dir(at("theirs"), 0, 1, msg, NULL) == CG_DIR_UNSAFE);
  CHECK(strstr(msg, "belongs to uid 65534, not to you (uid 0)") != NULL);
  CHECK(open_dir(at("theirs/c"), 1, 1, msg, NULL) == CG_DIR_UNSAFE);
  CHECK(strstr(msg, "on its way belongs to uid 65534") != NULL);
  CHECK(symlink(at("a/b"), at("open1777/link")) == 0);
  CHECK(lchown(at("open1777/link"), NOBODY, NOBODY) == 0);
  CHECK(open_dir(at("open1777/link"), 0, 1, msg, NULL) == CG_DIR_UNSAFE);
  CHECK(strstr(msg, "the symbolic link") && strstr(msg, "belongs to uid 65534"));
  /* our own link there is fine (protected_symlinks: the follower's) */
  CHECK(symlink(at("a/b"), at("open1777/ours")) == 0);
  CHECK(open_dir(at("open1777/ours"), 0, 1, msg, &ino) == CG_DIR_OK && ino == inode(at("a/b")));
}

static void files(int dir) {
  lg_diag d;
  lg_diag_clear(&d);
  CHECK(cg_dir_write(dir, "f", "hello", 5, &d) == LG_OK);
  int fd = cg_dir_open_file(dir, "f");
  char buf[8] = "";
  CHECK(fd >= 0 && read(fd, buf, sizeof buf) == 5 && !memcmp(buf, "hello", 5));
  if (fd >= 0) close(fd);
  struct stat st;
  CHECK(fstatat(dir, "f", &st, 0) == 0 && (st.st_mode & 0777) == 0600);
  CHECK(cg_dir_write(dir, "f", "x", 1, &d) == LG_ERR_IO); /* never over an existing name */
  CHECK(symlinkat("f", dir, "l") == 0);
  CHECK(cg_dir_write(dir, "l", "x", 1, &d) == LG_ERR_IO);  /* nor through a link */
  CHECK(cg_dir_open_file(dir, "l") == -1);
  CHECK(mkfifoat(dir, "fifo", 0600) == 0);
  CHECK(cg_dir_open_file(dir, "fifo") == -1); /* and it did not block */
  CHECK(cg_dir_write(dir, "w", "x", 1, &d) == LG_OK && fchmodat(dir, "w", 0622, 0) == 0);
  CHECK(cg_dir_open_file(dir, "w") == -1);
  CHECK(cg_dir_open_file(dir, "missing") == -1);
  CHECK(mkdirat(dir, "sub", 0700) == 0 && cg_dir_open_file(dir, "sub") == -1);
  /* entry locks: one holder at a time; a FIFO is no lock file */
  int l1 = cg_dir_lock(dir, "k.lock", 0);
  CHECK(l1 >= 0);
  errno = 0;
  CHECK(cg_dir_lock(dir, "k.lock", 0) == -1 && errno == EWOULDBLOCK);
  if (l1 >= 0) close(l1);
  int l2 = cg_dir_lock(dir, "k.lock", 1);
  CHECK(l2 >= 0);
  if (l2 >= 0) close(l2);
  CHECK(cg_dir_lock(dir, "fifo", 1) == -1);
}

/* A pid that is no process's. */
static pid_t dead_pid(void) {
  pid_t p = fork();
  if (p == 0) _exit(0);
  waitpid(p, NULL, 0);
  return p;
}

static void work(int dir) {
  lg_diag d;
  lg_diag_clear(&d);
  char name[64], path[128];
  int w = -1;
  CHECK(cg_dir_work(dir, "tmp", name, &w, &d) == LG_OK && w >= 0);
  snprintf(path, sizeof path, "tmp-%ld-", (long)getpid());
  CHECK(!strncmp(name, path, strlen(path)));
  struct stat st;
  CHECK(fstatat(dir, name, &st, 0) == 0 && (st.st_mode & 07777) == 0700);
  int other = openat(dir, name, O_RDONLY | O_DIRECTORY);
  CHECK(other >= 0 && flock(other, LOCK_EX | LOCK_NB) != 0); /* locked by w */
  if (other >= 0) close(other);
  /* what a killed run left: removed; a live process's, a held lock: kept */
  pid_t dead = dead_pid();
  char gone[64], held[64];
  snprintf(gone, sizeof gone, "tmp-%ld-0123", (long)dead);
  snprintf(held, sizeof held, "tmp-%ld-4567", (long)dead);
  CHECK(mkdirat(dir, gone, 0700) == 0 && mkdirat(dir, held, 0700) == 0);
  int g = openat(dir, gone, O_RDONLY | O_DIRECTORY);
  CHECK(cg_dir_write(g, "lg_jit.c", "x", 1, &d) == LG_OK);
  close(g);
  int h = openat(dir, held, O_RDONLY | O_DIRECTORY);
  CHECK(h >= 0 && flock(h, LOCK_EX | LOCK_NB) == 0);
  CHECK(mkdirat(dir, "tmp-notapid", 0700) == 0);
  cg_dir_clean(dir, "tmp");
  CHECK(fstatat(dir, gone, &st, 0) != 0);
  CHECK(fstatat(dir, held, &st, 0) == 0);
  CHECK(fstatat(dir, name, &st, 0) == 0); /* ours: our pid is alive */
  CHECK(fstatat(dir, "tmp-notapid", &st, 0) == 0);
  close(h);
  if (geteuid() == 0) { /* another uid's folder is not ours to remove */
    CHECK(mkdirat(dir, gone, 0700) == 0 && fchownat(dir, gone, NOBODY, NOBODY, 0) == 0);
    cg_dir_clean(dir, "tmp");
    CHECK(fstatat(dir, gone, &st, 0) == 0);
    cg_dir_remove(dir, gone);
  }
  cg_dir_clean(dir, "tmp");
  CHECK(fstatat(dir, held, &st, 0) != 0); /* its lock is free now */
  cg_dir_remove(dir, name);
  close(w);
  CHECK(fstatat(dir, name, &st, 0) != 0);
  cg_dir_remove(dir, name); /* not there: nothing happens */
  cg_dir_remove(dir, "tmp-notapid");
}

int main(void) {
  snprintf(base, sizeof base, "/tmp/test_cg_jit_dir.XXXXXX");
  if (!mkdtemp(base)) return 1;
  walk();
  lg_diag d;
  lg_diag_clear(&d);
  int dir = -1;
  CHECK(cg_dir_open(at("files"), "the JIT cache folder", "LAGRANGE_CACHE_DIR", 1, 1, &dir, &d) ==
        CG_DIR_OK);
  if (dir >= 0) {
    files(dir);
    work(dir);
    close(dir);
  }
  char cmd[256];
  snprintf(cmd, sizeof cmd, "chmod -R u+rwx %s && rm -rf %s", base, base);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", base);
  return tu_summary("test_cg_jit_dir");
}
