/* cg_jit.c - compile the generated right-hand side, cache it, load it.
 *
 * Only NAME_rhs is generated (cg_request.functions). The compiler is $CC
 * split on whitespace (as make splits it; no shell ever sees it), run with
 * posix_spawnp in a private work folder that is its working directory:
 * every name it is given is relative to that folder, and TMPDIR=. keeps its
 * own temporaries there, so nobody can redirect what it reads or writes.
 *
 * We run code from the cache, so the cache is handled as OpenSSH handles
 * authorized_keys: the folder is opened once and checked with every folder
 * above it (cg_jit_dir.c), and every later step is relative to that
 * descriptor (openat, mkdirat, renameat). An entry is u<uid>-<hash>.so and
 * .key, the hash of the uid, the compiler command and the source; a hit is
 * confirmed by comparing the stored key byte for byte (a hash collision can
 * never load wrong code), the object is opened without following links,
 * checked to be a regular file of ours that nobody else can write, and
 * loaded through that descriptor (/proc/self/fd/N): what was checked is
 * what runs. Entries are installed by renameat (the object first, then its
 * key), so concurrent runs see nothing or a complete entry, and
 * u<uid>-<hash>.lock makes one compile per key at a time: a run that waited
 * for it finds the object the other one made. An unsafe cache folder is
 * refused (LG_ERR_IO, the reason and the fix in diag: the caller integrates
 * with the tape); one that cannot be made means no cache (the compile then
 * happens in a private folder in $TMPDIR or /tmp, checked the same way).
 *
 * In the background (cg_jit_start), a forked helper process compiles and
 * stores the object while the caller integrates with the tape; the caller
 * polls and switches when the object is there. The helper ends with its
 * caller: cg_jit_free stops it, and PR_SET_PDEATHSIG stops it when the
 * caller dies, even of SIGKILL; the compiler runs in a process group of its
 * own that the helper kills on the way out. Work folders are named
 * PREFIX-PID-RANDOM and locked (flock) while in use; every start removes
 * those whose process is gone, what a SIGKILL left.
 */
#define _GNU_SOURCE /* closefrom, dup3, posix_spawn_file_actions_addfchdir_np */
#include "cg_internal.h"
#include "cg_jit_dir.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define JIT_NAME "lg_jit"
enum { MAX_CC_WORDS = 32, NCC_FLAGS = 5 };

/* ---- the compiler command ---------------------------------------------------------- */
typedef struct cc_cmd {
  char *words;                      /* $CC with NULs between its words */
  char *argv0;                      /* a relative compiler path made absolute, or NULL */
  char *argv[MAX_CC_WORDS + 12];
  int argc;                         /* words of $CC */
  char **envp;                      /* environ with TMPDIR=. */
} cc_cmd;

/* The environment with TMPDIR=. (the compiler's temporaries in its folder). */
static char **compiler_env(void) {
  static char tmpdir[] = "TMPDIR=.";
  size_t n = 0, k = 0;
  while (environ[n]) n++;
  char **e = lg_malloc((n + 2) * sizeof *e);
  if (!e) return NULL;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "TMPDIR=", 7)) e[k++] = environ[i];
  e[k++] = tmpdir;
  e[k] = NULL;
  return e;
}

/* argv = the words of $CC (or "cc"), then the flags and files. The
 * compiler runs in its work folder: a relative path to it (CC=./mycc) is
 * made absolute first. */
static int cc_split(cc_cmd *c) {
  const char *cc = getenv("CC");
  c->words = lg_strdup(cc && strspn(cc, " \t\n") < strlen(cc) ? cc : "cc");
  c->envp = compiler_env();
  if (!c->words || !c->envp) return 0;
  c->argc = 0;
  for (char *p = c->words; *p;) {
    p += strspn(p, " \t\n");
    if (!*p) break;
    if (c->argc == MAX_CC_WORDS) return 0;
    c->argv[c->argc++] = p;
    p += strcspn(p, " \t\n");
    if (*p) *p++ = 0;
  }
  char cwd[4096];
  if (c->argv[0][0] != '/' && strchr(c->argv[0], '/') && getcwd(cwd, sizeof cwd)) {
    size_t n = strlen(cwd) + strlen(c->argv[0]) + 2;
    if (!(c->argv0 = lg_malloc(n))) return 0;
    snprintf(c->argv0, n, "%s/%s", cwd, c->argv[0]);
    c->argv[0] = c->argv0;
  }
  /* LG_NO_CLONES: one build of each piece (cg_emit_tape.c), since here compile time counts */
  static char *const flags[NCC_FLAGS] = {"-O2", "-fPIC", "-shared", "-DLG_NO_CLONES", "-o"};
  for (int i = 0; i < NCC_FLAGS; i++) c->argv[c->argc + i] = flags[i];
  return 1;
}

static void cc_free(cc_cmd *c) {
  lg_free(c->words);
  lg_free(c->argv0);
  lg_free(c->envp);
}

/* ---- keys ------------------------------------------------------------------------------ */
/* What identifies a compiled object: the user, the compiler command,
 * header and source. */
static void make_key(const cc_cmd *c, const lg_str *hdr, const lg_str *src, lg_str *key) {
  lg_str_printf(key, "uid %ld\n", (long)geteuid());
  for (int i = 0; i < c->argc + NCC_FLAGS; i++) lg_str_printf(key, "%s ", c->argv[i]);
  lg_str_printf(key, "\n%s\n%s", hdr->s ? hdr->s : "", src->s ? src->s : "");
}

/* The entry's name, u<uid>-<128 bits from two FNV-1a passes with different
 * offsets, in hex>. */
static void entry_name(const lg_str *key, char out[48]) {
  uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < key->len; i++) {
      h[k] ^= (unsigned char)key->s[i];
      h[k] *= 0x100000001b3ull;
    }
  snprintf(out, 48, "u%ld-%016llx%016llx", (long)geteuid(), (unsigned long long)h[0],
           (unsigned long long)lg_hash_mix(h[1], key->len));
}

/* entry + ext ("u0-0123....so"). */
static const char *entry_file(const char *entry, const char *ext, char buf[64]) {
  snprintf(buf, 64, "%s%s", entry, ext);
  return buf;
}

/* Is file `name` in dir exactly the key (and ours, not a link, not a FIFO)? */
static int key_matches(int dir, const char *name, const char *key, size_t len) {
  int fd = cg_dir_open_file(dir, name);
  if (fd < 0) return 0;
  struct stat st;
  char *buf = NULL;
  int ok = fstat(fd, &st) == 0 && (size_t)st.st_size == len && (buf = lg_malloc(len + 1)) != NULL;
  size_t got = 0;
  while (ok && got < len) {
    ssize_t k = read(fd, buf + got, len - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) ok = 0;
    else got += (size_t)k;
  }
  ok = ok && memcmp(buf, key, len) == 0;
  lg_free(buf);
  close(fd);
  return ok;
}

/* The cached object of entry when its stored key is exactly ours: its
 * descriptor (checked by cg_dir_open_file), or -1. */
static int cached_object(int dir, const char *entry, const char *key, size_t len) {
  char b[64];
  if (!key_matches(dir, entry_file(entry, ".key", b), key, len)) return -1;
  return cg_dir_open_file(dir, entry_file(entry, ".so", b));
}

/* ---- running the compiler --------------------------------------------------------------- */
/* The helper's stop request (a signal): the compiler's process group is
 * killed at once; the helper cleans up and ends. */
static volatile sig_atomic_t stop_requested, compiler_group;

static void on_stop(int sig) {
  (void)sig;
  stop_requested = 1;
  if (compiler_group > 0) kill(-(pid_t)compiler_group, SIGKILL);
}

/* "exit status 1: first lines of its messages" into diag. */
static void compiler_failed(lg_diag *d, const char *cc, int status, FILE *err) {
  char msg[300] = "";
  size_t k = 0;
  if (err && fseek(err, 0, SEEK_SET) == 0) k = fread(msg, 1, sizeof msg - 1, err);
  msg[k] = 0;
  for (char *p = msg; *p; p++)
    if (*p == '\n') *p = p[1] ? ' ' : 0;
  if (WIFEXITED(status))
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "the C compiler '%s' failed (exit status %d)%s%.240s",
                cc, WEXITSTATUS(status), msg[0] ? ": " : "", msg);
  else
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "the C compiler '%s' was killed by signal %d", cc,
                WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Run argv in folder work (its working directory) with stdin from
 * /dev/null and stdout and stderr into err; group: in a process group of
 * its own, which on_stop kills. */
static lg_status spawn_wait(const cc_cmd *c, char *const *argv, int work, int group, FILE *err,
                            int *status, lg_diag *d) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  if (posix_spawn_file_actions_init(&fa) != 0) return LG_ERR_NOMEM;
  if (posix_spawnattr_init(&at) != 0) {
    posix_spawn_file_actions_destroy(&fa);
    return LG_ERR_NOMEM;
  }
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fileno(err), 1);
  posix_spawn_file_actions_adddup2(&fa, fileno(err), 2);
  int e = posix_spawn_file_actions_addfchdir_np(&fa, work);
  if (group) {
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
  }
  pid_t pid;
  if (e == 0) e = posix_spawnp(&pid, argv[0], &fa, &at, argv, c->envp);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (e != 0) {
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot run the C compiler '%s': %s", argv[0],
                strerror(e));
    lg_diag_hint(d, "set CC to a C compiler, or install one: apt-get install gcc");
    return LG_ERR_IO;
  }
  if (group) {
    compiler_group = pid;
    if (stop_requested) kill(-pid, SIGKILL); /* asked before we knew the group */
  }
  while (waitpid(pid, status, 0) < 0)
    if (errno != EINTR) {
      compiler_group = 0;
      return LG_ERR_IO;
    }
  compiler_group = 0;
  return LG_OK;
}

/* cc -O2 -fPIC -shared -o lg_jit.so lg_jit.c -lm in folder work, its
 * messages in lg_jit.err there. */
static lg_status compile(const cc_cmd *c, int work, int group, lg_diag *d) {
  int efd = openat(work, JIT_NAME ".err", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   0600);
  FILE *err = efd >= 0 ? fdopen(efd, "w+") : NULL;
  if (!err) {
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot create a file in the compiler's folder: %s",
                strerror(errno));
    if (efd >= 0) close(efd);
    return LG_ERR_IO;
  }
  char *argv[MAX_CC_WORDS + 12];
  int n = c->argc + NCC_FLAGS;
  memcpy(argv, c->argv, (size_t)n * sizeof *argv);
  argv[n++] = JIT_NAME ".so";
  argv[n++] = JIT_NAME ".c";
  argv[n++] = "-lm";
  argv[n] = NULL;
  int status = 0;
  lg_status st = spawn_wait(c, argv, work, group, err, &status, d);
  if (st == LG_OK && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    compiler_failed(d, argv[0], status, err);
    st = LG_ERR_IO;
  }
  fclose(err);
  return st;
}

/* The object the compiler made, opened for loading: made private first (a
 * umask of 0 leaves it writable by others, and then it would be refused). */
static int made_object(int work, lg_diag *d) {
  int fd = openat(work, JIT_NAME ".so", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    fchmod(fd, 0700);
    close(fd);
  }
  if ((fd = cg_dir_open_file(work, JIT_NAME ".so")) < 0)
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "the C compiler made no shared object");
  return fd;
}

/* ---- loading -------------------------------------------------------------------------- */
/* Through the checked descriptor fd (which is out's from now on): the
 * name /proc/self/fd/N is the very file that was checked, wherever its
 * path now leads. fd stays open while the code is loaded, so no other
 * object can be loaded under the same name meanwhile. */
static lg_status load(int fd, cg_jit *out, lg_diag *d) {
  char name[40];
  snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
  out->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!out->handle) {
    close(fd);
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot load the compiled code: %s", dlerror());
    return LG_ERR_IO;
  }
  const char *sym = out->tree ? JIT_NAME "_rhs_recursive" : JIT_NAME "_rhs";
  void *f = dlsym(out->handle, sym);
  if (!f) {
    dlclose(out->handle);
    out->handle = NULL;
    close(fd);
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "the compiled code has no %s", sym);
    return LG_ERR_IO;
  }
  out->so_fd = fd;
  memcpy(&out->rhs, &f, sizeof f); /* object pointer to function pointer */
  return LG_OK;
}

static void unload(cg_jit *j) {
  if (!j->handle) return;
  dlclose(j->handle);
  /* Still loaded (another cg_jit loaded the same file, and the loader
     keeps both names): keep the descriptor, so that the name goes on
     meaning that file and never another object's. */
  char name[40];
  snprintf(name, sizeof name, "/proc/self/fd/%d", j->so_fd);
  void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
  if (h) dlclose(h);
  else close(j->so_fd);
}

/* ---- a private work folder -------------------------------------------------------------- */
static const char *const work_files[] = {JIT_NAME ".c", JIT_NAME ".h", JIT_NAME ".so",
                                         JIT_NAME ".key", JIT_NAME ".err"};
enum { NWORK = sizeof work_files / sizeof *work_files };

typedef struct work {
  int fd;             /* the folder, locked while open */
  char name[64];      /* its name in the base folder */
  int slot[NWORK + 1];/* registered for signals: the files, then the folder */
} work;

/* What a job needs: the compiler, the folder it works in, the entry. */
typedef struct job {
  cc_cmd cc;
  int base;           /* the cache folder, or the temporary folder when !cache */
  int cache;
  char entry[48];     /* u<uid>-<hash> */
  const lg_str *src, *hdr, *key;
} job;

/* Registered by descriptor path (/proc/self/fd/N/...), so that a signal
 * handler removes exactly these, wherever the folder's path leads. */
static void work_register(work *w, int base) {
  char p[200];
  for (int i = 0; i < NWORK; i++) {
    snprintf(p, sizeof p, "/proc/self/fd/%d/%s", w->fd, work_files[i]);
    w->slot[i] = lg_temp_register(p, 0);
  }
  snprintf(p, sizeof p, "/proc/self/fd/%d/%s", base, w->name);
  w->slot[NWORK] = lg_temp_register(p, 1);
}

/* A work folder in the job's base folder with the source and header. */
static lg_status work_open(work *w, const job *j, lg_diag *d) {
  for (int i = 0; i <= NWORK; i++) w->slot[i] = -1;
  lg_status st = cg_dir_work(j->base, j->cache ? "tmp" : "lagrange-jit", w->name, &w->fd, d);
  if (st != LG_OK) return st;
  work_register(w, j->base);
  st = cg_dir_write(w->fd, JIT_NAME ".c", j->src->s ? j->src->s : "", j->src->len, d);
  if (st == LG_OK)
    st = cg_dir_write(w->fd, JIT_NAME ".h", j->hdr->s ? j->hdr->s : "", j->hdr->len, d);
  return st;
}

/* Forget the folder (a helper owns it now, or it is gone). */
static void work_forget(work *w) {
  for (int i = 0; i <= NWORK; i++) lg_temp_forget(w->slot[i]);
  if (w->fd >= 0) close(w->fd);
  w->fd = -1;
}

static void work_close(work *w, int base) {
  if (w->fd >= 0) cg_dir_remove(base, w->name); /* still locked by us */
  work_forget(w);
}

/* ---- the cache ------------------------------------------------------------------------------- */
/* Into the cache under the entry's names: the object, then its key. A
 * reader that finds the key finds the complete object. */
static int cache_store(const job *j, int work) {
  char b[64];
  lg_diag ignore;
  lg_diag_clear(&ignore);
  return renameat(work, JIT_NAME ".so", j->base, entry_file(j->entry, ".so", b)) == 0 &&
         cg_dir_write(work, JIT_NAME ".key", j->key->s, j->key->len, &ignore) == LG_OK &&
         renameat(work, JIT_NAME ".key", j->base, entry_file(j->entry, ".key", b)) == 0;
}

/* The entry's lock, waited for (-1 when it cannot be had: go on without).
 * The helper asks every 20 ms instead of blocking: a stop request that
 * came just before a blocking wait would not end it. */
static int lock_entry(const job *j, int helper) {
  char b[64];
  const char *name = entry_file(j->entry, ".lock", b);
  int fd;
  while (!(helper && stop_requested)) {
    if ((fd = cg_dir_lock(j->base, name, !helper)) >= 0) return fd;
    if (errno != EINTR && errno != EWOULDBLOCK) break;
    if (helper) nanosleep(&(struct timespec){0, 20000000}, NULL);
  }
  return -1;
}

/* Compile in the foreground and load. With a cache: under the entry's lock
 * (a run that waited for it finds the object another one made), and the
 * object is stored. Without: in a private folder in $TMPDIR, removed after. */
static lg_status build(const job *j, cg_jit *out, lg_diag *d) {
  int lock = j->cache ? lock_entry(j, 0) : -1;
  if (j->cache) {
    lg_diag ignore;
    lg_diag_clear(&ignore);
    int fd = cached_object(j->base, j->entry, j->key->s, j->key->len);
    if (fd >= 0 && load(fd, out, &ignore) == LG_OK) {
      out->cached = 1;
      if (lock >= 0) close(lock);
      return LG_OK;
    }
  }
  work w;
  lg_status st = work_open(&w, j, d);
  if (st == LG_OK) st = compile(&j->cc, w.fd, 0, d);
  int so = st == LG_OK ? made_object(w.fd, d) : -1;
  if (so < 0 && st == LG_OK) st = LG_ERR_IO;
  if (so >= 0 && j->cache) cache_store(j, w.fd); /* not stored: still loaded */
  if (so >= 0) st = load(so, out, d);
  if (lock >= 0) close(lock);
  work_close(&w, j->base);
  return st;
}

/* ---- in the background ------------------------------------------------------------------- */
enum { MSG_FD = 3, BASE_FD = 4, WORK_FD = 5 };

/* The helper's descriptors: the message pipe, the cache and the work folder
 * (its lock) at fixed numbers, standard streams on /dev/null, nothing else
 * of the caller's open. */
static int helper_fds(int msg, int base, int work) {
  int m = fcntl(msg, F_DUPFD_CLOEXEC, 10), b = fcntl(base, F_DUPFD_CLOEXEC, 10);
  int w = fcntl(work, F_DUPFD_CLOEXEC, 10), null = open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3 && null >= 0; fd++) dup2(null, fd);
  if (m < 0 || b < 0 || w < 0 || null < 0 || dup3(m, MSG_FD, O_CLOEXEC) < 0 ||
      dup3(b, BASE_FD, O_CLOEXEC) < 0 || dup3(w, WORK_FD, O_CLOEXEC) < 0)
    return 0;
  closefrom(WORK_FD + 1);
  return 1;
}

/* Stop on SIGTERM (cg_jit_free; PR_SET_PDEATHSIG when the caller dies) and
 * on the terminal's signals; without SA_RESTART, so a wait for the lock
 * ends. Out of the terminal's process group: the caller decides. */
static void helper_signals(pid_t parent) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
  signal(SIGPIPE, SIG_IGN); /* the caller may have closed its end */
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) stop_requested = 1; /* it died before prctl */
}

/* The helper (a forked child): takes the entry's lock, compiles unless the
 * object is there by then, stores it, removes the work folder; a failure's
 * message goes down the pipe. */
static _Noreturn void helper(job *j, work *w, int msg, pid_t parent) {
  helper_signals(parent);
  lg_temp_keep_only(NULL, 0); /* the caller's temporaries are the caller's */
  lg_diag d;
  lg_diag_clear(&d);
  lg_status st = LG_OK;
  if (!helper_fds(msg, j->base, w->fd)) {
    lg_diag_set(&d, LG_ERR_IO, NULL, 0, 0, "the compiler's process cannot set up its files");
    st = LG_ERR_IO;
  }
  j->base = BASE_FD;
  int lock = st == LG_OK ? lock_entry(j, 1) : -1;
  int so = st == LG_OK && !stop_requested
               ? cached_object(BASE_FD, j->entry, j->key->s, j->key->len) : -1;
  if (st == LG_OK && so < 0 && !stop_requested) {
    st = compile(&j->cc, WORK_FD, 1, &d);
    if (st == LG_OK && !stop_requested && (so = made_object(WORK_FD, &d)) < 0) st = LG_ERR_IO;
    if (so >= 0 && !stop_requested && !cache_store(j, WORK_FD)) {
      lg_diag_set(&d, LG_ERR_IO, NULL, 0, 0, "cannot store the compiled code in the cache "
                  "folder: %s", strerror(errno));
      st = LG_ERR_IO;
    }
  }
  if (stop_requested) st = LG_ERR_IO;
  cg_dir_remove(BASE_FD, w->name);
  if (lock >= 0) close(lock);
  if (st != LG_OK && !stop_requested) {
    char text[sizeof d.message + sizeof d.hint + 2];
    int k = snprintf(text, sizeof text, "%s\n%s", d.message, d.hint);
    if (k > 0 && write(MSG_FD, text, (size_t)k) < 0) _exit(1);
  }
  _exit(st == LG_OK ? 0 : 1);
}

/* Fork the helper; the caller keeps the cache folder (out->cache_fd), the
 * key, and the names of the entry and the work folder. */
static lg_status start_helper(job *j, cg_jit *out, lg_diag *d) {
  work w;
  int fds[2] = {-1, -1};
  lg_status st = work_open(&w, j, d);
  if (st == LG_OK && !(out->key = lg_malloc(j->key->len + 1))) st = LG_ERR_NOMEM;
  if (st == LG_OK && pipe(fds) != 0) {
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot create a pipe: %s", strerror(errno));
    st = LG_ERR_IO;
  }
  pid_t parent = getpid(), pid = st == LG_OK ? fork() : -1;
  if (pid == 0) {
    close(fds[0]);
    helper(j, &w, fds[1], parent);
  }
  if (st == LG_OK && pid < 0) {
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot start the compiler's process: %s",
                strerror(errno));
    st = LG_ERR_IO;
  }
  if (fds[1] >= 0) close(fds[1]);
  if (st != LG_OK) {
    if (fds[0] >= 0) close(fds[0]);
    if (w.fd >= 0) work_close(&w, j->base);
    return st;
  }
  setpgid(pid, pid); /* as the helper does: whichever runs first */
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  memcpy(out->key, j->key->s, j->key->len);
  out->key_len = j->key->len;
  out->pid = pid;
  out->owner = parent;
  out->msg_fd = fds[0];
  out->cache_fd = j->base;
  j->base = -1;
  snprintf(out->entry, sizeof out->entry, "%s", j->entry);
  snprintf(out->work, sizeof out->work, "%s", w.name);
  work_forget(&w); /* the helper holds its lock and removes it */
  return LG_OK;
}

int cg_jit_poll(cg_jit *j, int wait, lg_diag *diag) {
  if (j->rhs) return 1;
  if (j->pid <= 0) return -1;
  int status = 0;
  pid_t r;
  while ((r = waitpid(j->pid, &status, wait ? 0 : WNOHANG)) < 0 && errno == EINTR) continue;
  if (r == 0) return 0;
  j->pid = 0;
  char text[700];
  ssize_t k = read(j->msg_fd, text, sizeof text - 1);
  close(j->msg_fd);
  j->msg_fd = -1;
  text[k > 0 ? k : 0] = 0;
  cg_dir_remove(j->cache_fd, j->work); /* the helper did, unless it was killed */
  j->work[0] = 0;
  if (r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    int fd = cached_object(j->cache_fd, j->entry, j->key, j->key_len);
    if (fd >= 0) return load(fd, j, diag) == LG_OK ? 1 : -1;
    snprintf(text, sizeof text, "the compiled code is not in the cache folder (removed?)");
  }
  char *hint = strchr(text, '\n');
  if (hint) *hint++ = 0;
  if (text[0]) lg_diag_set(diag, LG_ERR_IO, NULL, 0, 0, "%s", text);
  else lg_diag_set(diag, LG_ERR_IO, NULL, 0, 0, "the compiler's process ended abnormally");
  if (hint && *hint) lg_diag_hint(diag, "%s", hint);
  return -1;
}

/* ---- the source ---------------------------------------------------------------------------------- */
/* Only the right-hand side: through the kinematic tree in O(n)
 * (rhs_recursive) when the model is one and that is the shorter code,
 * else with the dense mass matrix and its Cholesky solve (rhs). */
static lg_status generate_rhs(const cg_request *r, cg_request *q, lg_str *src, lg_str *hdr,
                              int *tree, lg_diag *diag) {
  cg_stats dense, rec;
  lg_diag ignore;
  lg_diag_clear(&ignore);
  *tree = 0;
  q->functions = 1u << CG_RHS;
  lg_status st = cg_generate(q, CG_C, src, hdr, &dense, diag);
  if (st != LG_OK || r->kane) return st;
  lg_str tsrc, thdr;
  lg_str_init(&tsrc);
  lg_str_init(&thdr);
  q->functions = 1u << CG_RHS_RECURSIVE;
  size_t n = r->eom->n, solve = n * n * n / 3 + 2 * n * n;
  if (cg_generate(q, CG_C, &tsrc, &thdr, &rec, &ignore) == LG_OK &&
      rec.rhs_recursive < dense.rhs + solve) {
    lg_str t = *src;
    *src = tsrc;
    tsrc = t;
    t = *hdr;
    *hdr = thdr;
    thdr = t;
    *tree = 1;
  }
  lg_str_free(&tsrc);
  lg_str_free(&thdr);
  return LG_OK;
}

/* ---- entry points ------------------------------------------------------------------------------ */
/* $LAGRANGE_CACHE_DIR, else $XDG_CACHE_HOME/lagrange, else
 * ~/.cache/lagrange; NULL when none is set. */
static char *cache_path(void) {
  const char *env = getenv("LAGRANGE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  lg_str b;
  lg_str_init(&b);
  if (env && *env) lg_str_puts(&b, env);
  else if (xdg && xdg[0] == '/') lg_str_printf(&b, "%s/lagrange", xdg);
  else if (home && home[0] == '/') lg_str_printf(&b, "%s/.cache/lagrange", home);
  else return NULL;
  char *dir = b.oom ? NULL : lg_str_take(&b);
  lg_str_free(&b);
  return dir;
}

/* The folder to work in (j->base): the cache, checked and made 0700, else
 * $TMPDIR or /tmp for a compile that is not kept. An unsafe folder is
 * refused (LG_ERR_IO, the reason in d); a cache folder that cannot be made
 * means no cache. */
static lg_status open_base(job *j, lg_diag *d) {
  char *dir = cache_path();
  if (dir) {
    cg_dir_status s = cg_dir_open(dir, "the JIT cache folder", "LAGRANGE_CACHE_DIR", 1, 1,
                                  &j->base, d);
    lg_free(dir);
    if (s == CG_DIR_UNSAFE) return LG_ERR_IO;
    j->cache = s == CG_DIR_OK;
    if (j->cache) return LG_OK;
    lg_diag_clear(d);
  }
  const char *tmp = getenv("TMPDIR");
  cg_dir_status s = cg_dir_open(tmp && tmp[0] == '/' ? tmp : "/tmp", "the temporary folder",
                                "TMPDIR", 0, 0, &j->base, d);
  return s == CG_DIR_OK ? LG_OK : LG_ERR_IO;
}

lg_status cg_jit_start(const cg_request *r, int background, cg_jit *out, lg_diag *diag) {
  memset(out, 0, sizeof *out);
  out->msg_fd = out->so_fd = out->cache_fd = -1;
  out->started = 1;
  cg_request q = *r; /* a fixed name: one cache entry per set of equations */
  q.name = JIT_NAME;
  q.model_path = "lagrange simulate --jit";
  q.header = NULL;
  lg_str src, hdr, key;
  lg_str_init(&src);
  lg_str_init(&hdr);
  lg_str_init(&key);
  job j = {.base = -1, .src = &src, .hdr = &hdr, .key = &key};
  lg_status st = generate_rhs(r, &q, &src, &hdr, &out->tree, diag);
  if (st == LG_OK && !cc_split(&j.cc)) {
    lg_diag_set(diag, LG_ERR_IO, NULL, 0, 0, "CC has more than %d words", MAX_CC_WORDS);
    st = LG_ERR_IO;
  }
  if (st == LG_OK) {
    make_key(&j.cc, &hdr, &src, &key);
    entry_name(&key, j.entry);
    st = key.oom ? LG_ERR_NOMEM : open_base(&j, diag);
  }
  if (st == LG_OK) cg_dir_clean(j.base, j.cache ? "tmp" : "lagrange-jit");
  int fd = st == LG_OK && j.cache ? cached_object(j.base, j.entry, key.s, key.len) : -1;
  lg_diag ignore;
  lg_diag_clear(&ignore);
  if (fd >= 0 && load(fd, out, &ignore) == LG_OK) out->cached = 1;
  else if (st == LG_OK && j.cache && background) st = start_helper(&j, out, diag);
  else if (st == LG_OK) st = build(&j, out, diag);
  if (j.base >= 0) close(j.base);
  cc_free(&j.cc);
  lg_str_free(&src);
  lg_str_free(&hdr);
  lg_str_free(&key);
  return st;
}

lg_status cg_jit_compile(const cg_request *r, cg_jit *out, lg_diag *diag) {
  return cg_jit_start(r, 0, out, diag);
}

void cg_jit_free(cg_jit *j) {
  if (!j->started) return;
  if (j->pid > 0 && j->owner == getpid()) { /* stop the helper: it ends with its run */
    kill(j->pid, SIGTERM);
    while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR) continue;
  }
  if (j->work[0] && j->cache_fd >= 0 && j->owner == getpid()) cg_dir_remove(j->cache_fd, j->work);
  unload(j);
  if (j->msg_fd >= 0) close(j->msg_fd);
  if (j->cache_fd >= 0) close(j->cache_fd);
  lg_free(j->key);
  memset(j, 0, sizeof *j);
}
