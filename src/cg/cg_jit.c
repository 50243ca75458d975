/* cg_jit.c - compile the generated right-hand side, cache it, load it.
 *
 * Only NAME_rhs is generated (cg_request.functions). The compiler is $CC
 * split on whitespace (as make splits it; no shell ever sees it), run with
 * posix_spawnp. The shared object is cached under a hash of the compiler
 * command and the source; a hit is confirmed by comparing the stored
 * source byte for byte, so a hash collision can never load wrong code.
 * Cache entries are written by rename (the object first, then its key), so
 * concurrent runs see either nothing or a complete entry.
 *
 * In the background (cg_jit_start), a forked helper process compiles and
 * stores the object while the caller integrates with the tape; the caller
 * polls and switches when the object is there. The helper owns its work
 * folder and outlives a caller that ends first, so the entry is cached for
 * the next run either way.
 */
#define _DEFAULT_SOURCE /* closefrom */
#include "cg_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define JIT_NAME "lg_jit"
enum { MAX_CC_WORDS = 32 };

/* ---- the compiler command ---------------------------------------------------------- */
typedef struct cc_cmd {
  char *words;                      /* $CC with NULs between its words */
  char *argv[MAX_CC_WORDS + 12];
  int argc;                         /* words of $CC */
} cc_cmd;

/* argv = the words of $CC (or "cc"), then the flags and files. */
static int cc_split(cc_cmd *c) {
  const char *cc = getenv("CC");
  c->words = lg_strdup(cc && strspn(cc, " \t\n") < strlen(cc) ? cc : "cc");
  if (!c->words) return 0;
  c->argc = 0;
  for (char *p = c->words; *p;) {
    p += strspn(p, " \t\n");
    if (!*p) break;
    if (c->argc == MAX_CC_WORDS) return 0;
    c->argv[c->argc++] = p;
    p += strcspn(p, " \t\n");
    if (*p) *p++ = 0;
  }
  static char *const flags[] = {"-O2", "-fPIC", "-shared", "-o"};
  for (int i = 0; i < 4; i++) c->argv[c->argc + i] = flags[i];
  return 1;
}

/* ---- the cache folder ---------------------------------------------------------------- */
/* mkdir -p with mode 0700 for every folder it creates. */
static int make_folders(char *path) {
  for (char *p = path + 1;; p++) {
    if (*p != '/' && *p) continue;
    char keep = *p;
    *p = 0;
    int ok = mkdir(path, 0700) == 0 || errno == EEXIST;
    *p = keep;
    if (!ok || !keep) return ok;
  }
}

/* The cache folder, or NULL when there is none we can trust: it must be a
 * folder owned by us that nobody else can write to (we load code from it). */
static char *cache_folder(void) {
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
  struct stat st;
  if (dir && make_folders(dir) && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
      st.st_uid == geteuid() && !(st.st_mode & 022))
    return dir;
  lg_free(dir);
  return NULL;
}

/* ---- keys ------------------------------------------------------------------------------ */
/* What identifies a compiled object: the compiler command, header, source. */
static void make_key(const cc_cmd *c, const lg_str *hdr, const lg_str *src, lg_str *key) {
  for (int i = 0; i < c->argc + 4; i++) lg_str_printf(key, "%s ", c->argv[i]);
  lg_str_printf(key, "\n%s\n%s", hdr->s ? hdr->s : "", src->s ? src->s : "");
}

/* 128 bits from two FNV-1a passes with different offsets, in hex. */
static void key_hash(const lg_str *key, char out[33]) {
  uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < key->len; i++) {
      h[k] ^= (unsigned char)key->s[i];
      h[k] *= 0x100000001b3ull;
    }
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)h[0],
           (unsigned long long)lg_hash_mix(h[1], key->len));
}

/* Is the file at path exactly the key? */
static int key_matches(const char *path, const lg_str *key) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st;
  char *buf = NULL;
  int ok = fstat(fd, &st) == 0 && (size_t)st.st_size == key->len &&
           (buf = lg_malloc(key->len + 1)) != NULL;
  size_t got = 0;
  while (ok && got < key->len) {
    ssize_t k = read(fd, buf + got, key->len - got);
    if (k <= 0) ok = 0;
    else got += (size_t)k;
  }
  ok = ok && memcmp(buf, key->s, key->len) == 0;
  lg_free(buf);
  close(fd);
  return ok;
}

static lg_status write_file(const char *path, const lg_str *s, lg_diag *d) {
  lg_out o;
  lg_status st = lg_out_open(&o, path, d);
  if (st != LG_OK) return st;
  if (s->len) fwrite(s->s, 1, s->len, o.f);
  return lg_out_commit(&o, d);
}

/* ---- running the compiler --------------------------------------------------------------- */
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

/* Run argv with stdin from /dev/null and stdout and stderr into err. */
static lg_status spawn_wait(char *const *argv, FILE *err, int *status, lg_diag *d) {
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0) return LG_ERR_NOMEM;
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fileno(err), 1);
  posix_spawn_file_actions_adddup2(&fa, fileno(err), 2);
  pid_t pid;
  int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (e != 0) {
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot run the C compiler '%s': %s", argv[0],
                strerror(e));
    lg_diag_hint(d, "set CC to a C compiler, or install one: apt-get install gcc");
    return LG_ERR_IO;
  }
  while (waitpid(pid, status, 0) < 0)
    if (errno != EINTR) return LG_ERR_IO;
  return LG_OK;
}

static lg_status compile(cc_cmd *c, const char *so, const char *csrc, lg_diag *d) {
  FILE *err = tmpfile();
  if (!err) {
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot create a temporary file: %s", strerror(errno));
    return LG_ERR_IO;
  }
  int n = c->argc + 4;
  c->argv[n++] = (char *)so;
  c->argv[n++] = (char *)csrc;
  c->argv[n++] = "-lm";
  c->argv[n] = NULL;
  int status = 0;
  lg_status st = spawn_wait(c->argv, err, &status, d);
  if (st == LG_OK && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    compiler_failed(d, c->argv[0], status, err);
    st = LG_ERR_IO;
  }
  fclose(err);
  return st;
}

/* ---- loading -------------------------------------------------------------------------- */
static lg_status load(const char *so, cg_jit *out, lg_diag *d) {
  out->handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!out->handle) {
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot load the compiled code: %s", dlerror());
    return LG_ERR_IO;
  }
  const char *sym = out->tree ? JIT_NAME "_rhs_recursive" : JIT_NAME "_rhs";
  void *f = dlsym(out->handle, sym);
  if (!f) {
    dlclose(out->handle);
    out->handle = NULL;
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "the compiled code has no %s", sym);
    return LG_ERR_IO;
  }
  memcpy(&out->rhs, &f, sizeof f); /* object pointer to function pointer */
  return LG_OK;
}

static char *join(const char *dir, const char *name, const char *ext) {
  lg_str b;
  lg_str_init(&b);
  lg_str_printf(&b, "%s/%s%s", dir, name, ext);
  char *s = b.oom ? NULL : lg_str_take(&b);
  lg_str_free(&b);
  return s;
}

/* ---- a private work folder -------------------------------------------------------------- */
typedef struct work {
  char *dir, *c, *h, *so;
  int dir_slot, slot[3]; /* registered for signals: the folder, c, h, so */
} work;

/* mkdtemp (0700) in the cache folder, so that the object moves into the
 * cache by rename; in $TMPDIR or /tmp when there is no cache. */
static lg_status work_open(work *w, const char *cache, lg_diag *d) {
  const char *tmp = getenv("TMPDIR");
  w->dir_slot = w->slot[0] = w->slot[1] = w->slot[2] = -1;
  w->dir = join(cache ? cache : tmp && tmp[0] == '/' ? tmp : "/tmp",
                cache ? "tmp-" : "lagrange-jit-", "XXXXXX");
  if (!w->dir) return LG_ERR_NOMEM;
  if (!mkdtemp(w->dir)) {
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot create a folder for the compiler: %s",
                strerror(errno));
    lg_free(w->dir);
    w->dir = NULL;
    return LG_ERR_IO;
  }
  w->dir_slot = lg_temp_register(w->dir, 1);
  w->c = join(w->dir, JIT_NAME, ".c");
  w->h = join(w->dir, JIT_NAME, ".h");
  w->so = join(w->dir, JIT_NAME, ".so");
  char *files[] = {w->c, w->h, w->so};
  for (int i = 0; i < 3; i++)
    if (files[i]) w->slot[i] = lg_temp_register(files[i], 0);
  return w->c && w->h && w->so ? LG_OK : LG_ERR_NOMEM;
}

static void work_close(work *w) {
  char *files[] = {w->c, w->h, w->so};
  for (int i = 0; i < 3; i++)
    if (files[i]) unlink(files[i]);
  if (w->dir) rmdir(w->dir);
  for (int i = 0; i < 3; i++) lg_temp_forget(w->slot[i]);
  lg_temp_forget(w->dir_slot);
  for (int i = 0; i < 3; i++) lg_free(files[i]);
  lg_free(w->dir);
}

/* The parent of a helper that took the folder over: forget it, keep the files. */
static void work_forget(work *w) {
  char *files[] = {w->c, w->h, w->so};
  for (int i = 0; i < 3; i++) {
    lg_temp_forget(w->slot[i]);
    lg_free(files[i]);
  }
  lg_temp_forget(w->dir_slot);
  lg_free(w->dir);
}

/* ---- the cache ------------------------------------------------------------------------------- */
/* A cached object whose stored key is exactly ours, loaded. */
static int cache_hit(const char *cache, const char *hash, const lg_str *key, cg_jit *out) {
  char *kpath = join(cache, hash, ".key"), *so = join(cache, hash, ".so");
  lg_diag ignore;
  lg_diag_clear(&ignore);
  int hit = kpath && so && key_matches(kpath, key) && load(so, out, &ignore) == LG_OK;
  lg_free(kpath);
  lg_free(so);
  return hit;
}

/* The object first, then its key: a reader that finds the key finds the
 * complete object. Failing to store is not an error (the code still loads). */
static const char *cache_store(const char *cache, const char *hash, const lg_str *key,
                               work *w, char **so_path) {
  lg_diag ignore;
  lg_diag_clear(&ignore);
  *so_path = join(cache, hash, ".so");
  char *kpath = join(cache, hash, ".key");
  int ok = *so_path && kpath && rename(w->so, *so_path) == 0;
  if (ok) write_file(kpath, key, &ignore);
  lg_free(kpath);
  return ok ? *so_path : w->so;
}

static lg_status build(cc_cmd *c, const char *cache, const char *hash, const lg_str *src,
                       const lg_str *hdr, const lg_str *key, cg_jit *out, lg_diag *d) {
  work w = {0};
  lg_status st = work_open(&w, cache, d);
  if (st == LG_OK) st = write_file(w.c, src, d);
  if (st == LG_OK) st = write_file(w.h, hdr, d);
  if (st == LG_OK) st = compile(c, w.so, w.c, d);
  char *stored = NULL;
  const char *so = st == LG_OK && cache ? cache_store(cache, hash, key, &w, &stored) : w.so;
  if (st == LG_OK) st = load(so, out, d);
  lg_free(stored);
  work_close(&w);
  return st;
}

/* ---- in the background ------------------------------------------------------------------- */
enum { MSG_FD = 3 };

/* The helper (a forked child): standard streams on /dev/null, no file of
 * the caller's open but the message pipe (moved to MSG_FD), only its own
 * temporaries registered. Compiles, stores the object in the cache,
 * removes the work folder; a failure's message goes down the pipe. */
static void helper(cc_cmd *c, const char *cache, const char *hash, const lg_str *key, work *w,
                   int msg) {
  int keep[4] = {w->dir_slot, w->slot[0], w->slot[1], w->slot[2]};
  lg_temp_keep_only(keep, 4);
  signal(SIGPIPE, SIG_IGN); /* the caller may have ended and closed its end */
  int m = fcntl(msg, F_DUPFD, MSG_FD + 1), null = open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3 && null >= 0; fd++) dup2(null, fd);
  if (m < 0 || dup2(m, MSG_FD) != MSG_FD) _exit(2);
  fcntl(MSG_FD, F_SETFD, FD_CLOEXEC);
  closefrom(MSG_FD + 1);
  lg_diag d;
  lg_diag_clear(&d);
  lg_status st = compile(c, w->so, w->c, &d);
  char *stored = NULL;
  if (st == LG_OK && cache_store(cache, hash, key, w, &stored) == w->so) {
    lg_diag_set(&d, LG_ERR_IO, NULL, 0, 0, "cannot store the compiled code in %s", cache);
    st = LG_ERR_IO;
  }
  lg_free(stored);
  work_close(w);
  if (st != LG_OK) {
    char text[sizeof d.message + sizeof d.hint + 2];
    int k = snprintf(text, sizeof text, "%s\n%s", d.message, d.hint);
    if (k > 0 && write(MSG_FD, text, (size_t)k) < 0) _exit(1);
  }
  _exit(st == LG_OK ? 0 : 1);
}

static lg_status start_helper(cc_cmd *c, const char *cache, const char *hash, const lg_str *src,
                              const lg_str *hdr, const lg_str *key, cg_jit *out, lg_diag *d) {
  work w = {0};
  int fds[2] = {-1, -1};
  lg_status st = work_open(&w, cache, d);
  if (st == LG_OK) st = write_file(w.c, src, d);
  if (st == LG_OK) st = write_file(w.h, hdr, d);
  if (st == LG_OK && !(out->so = join(cache, hash, ".so"))) st = LG_ERR_NOMEM;
  if (st == LG_OK && pipe(fds) != 0) {
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot create a pipe: %s", strerror(errno));
    st = LG_ERR_IO;
  }
  pid_t pid = st == LG_OK ? fork() : -1;
  if (pid == 0) {
    close(fds[0]);
    helper(c, cache, hash, key, &w, fds[1]);
  }
  if (st == LG_OK && pid < 0) {
    lg_diag_set(d, LG_ERR_IO, NULL, 0, 0, "cannot start the compiler's process: %s",
                strerror(errno));
    st = LG_ERR_IO;
  }
  if (fds[1] >= 0) close(fds[1]);
  if (st != LG_OK) {
    if (fds[0] >= 0) close(fds[0]);
    work_close(&w);
    return st;
  }
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  out->pid = pid;
  out->msg_fd = fds[0];
  work_forget(&w); /* the helper removes it */
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
  if (r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return load(j->so, j, diag) == LG_OK ? 1 : -1;
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
lg_status cg_jit_start(const cg_request *r, int background, cg_jit *out, lg_diag *diag) {
  memset(out, 0, sizeof *out);
  out->msg_fd = -1;
  cg_request q = *r; /* a fixed name: one cache entry per set of equations */
  q.name = JIT_NAME;
  q.model_path = "lagrange simulate --jit";
  q.header = NULL;
  lg_str src, hdr, key;
  lg_str_init(&src);
  lg_str_init(&hdr);
  lg_str_init(&key);
  cc_cmd c = {0};
  lg_status st = generate_rhs(r, &q, &src, &hdr, &out->tree, diag);
  if (st == LG_OK && !cc_split(&c)) {
    lg_diag_set(diag, LG_ERR_IO, NULL, 0, 0, "CC has more than %d words", MAX_CC_WORDS);
    st = LG_ERR_IO;
  }
  char hash[33], *cache = NULL;
  if (st == LG_OK) {
    make_key(&c, &hdr, &src, &key);
    key_hash(&key, hash);
    cache = key.oom ? NULL : cache_folder();
  }
  if (st == LG_OK && cache && cache_hit(cache, hash, &key, out)) out->cached = 1;
  else if (st == LG_OK && cache && background)
    st = start_helper(&c, cache, hash, &src, &hdr, &key, out, diag);
  else if (st == LG_OK) st = build(&c, cache, hash, &src, &hdr, &key, out, diag);
  lg_free(cache);
  lg_free(c.words);
  lg_str_free(&src);
  lg_str_free(&hdr);
  lg_str_free(&key);
  return st;
}

lg_status cg_jit_compile(const cg_request *r, cg_jit *out, lg_diag *diag) {
  return cg_jit_start(r, 0, out, diag);
}

void cg_jit_free(cg_jit *j) {
  if (j->handle) dlclose(j->handle);
  if (j->msg_fd >= 0) close(j->msg_fd); /* a helper still at work finishes on its own */
  lg_free(j->so);
  memset(j, 0, sizeof *j);
  j->msg_fd = -1;
}
