/* test_cg_jit.c - the generated C right-hand side, compiled by the system
 * compiler and loaded (cg_jit.c), against the evaluation tape and the
 * LAPACK solve (num): the same accelerations at random states, with and
 * without constraints, and with the parameters passed in; a chain compiles
 * as the kinematic tree's O(n) recursion, a constrained model densely.
 * The cache (issue 21): an unsafe cache folder is refused with the reason
 * (LG_ERR_IO: the caller uses the tape), a FIFO in place of a key does not
 * hang, two objects of one key loaded at once and one freed do not make a
 * later object load as the old one (the loader's names /proc/self/fd/N),
 * and a background compile is stopped by cg_jit_free. */
#define _DEFAULT_SOURCE /* mkdtemp, setenv */
#include "cg.h"
#include "lang.h"
#include "mech.h"
#include "num.h"
#include "test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char CART[] =
    "coordinates x theta\nparameters m = 1, M = 0.5, l = 0.8, g = 9.81\n"
    "frame N\nframe A = rotate(N, N.z, -theta)\npoint O\npoint C = O + x*N.x\n"
    "point P = C + l*A.y\nparticle C mass m\nparticle P mass M\ngravity -g*N.y\n";

static const char BOWL[] =
    "coordinates q1 q2 q3\nparameters m = 2, g = 9.81, r = 1\n"
    "frame N\npoint O\npoint P = O + q1*N.x + q2*N.y + q3*N.z\n"
    "particle P mass m\ngravity -g*N.z\nconstraint q1^2 + q2^2 + q3^2 = r^2\n";

/* An n-link chain in absolute angles: a kinematic tree whose O(n)
 * recursion is shorter than the dense solve from about six links on. */
static void chain_text(char *buf, size_t size, int n) {
  size_t k = (size_t)snprintf(buf, size, "coordinates");
  for (int i = 1; i <= n; i++) k += (size_t)snprintf(buf + k, size - k, " q%d", i);
  k += (size_t)snprintf(buf + k, size - k, "\nparameters g = 9.81, m = 1.1, l = 0.6\n"
                                           "frame N\npoint O\n");
  for (int i = 1; i <= n; i++)
    k += (size_t)snprintf(buf + k, size - k,
                          "frame A%d = rotate(N, N.z, q%d)\npoint P%d = %s%.0d - l*A%d.y\n"
                          "particle P%d mass %d*m\n",
                          i, i, i, i == 1 ? "O" : "P", i - 1, i, i, 1 + i % 3);
  snprintf(buf + k, size - k, "gravity -g*N.y\n");
}

typedef struct model {
  lang_model *lm;
  mech_eom *e;
  num_system *s;
  cg_request r;
} model;

static int model_load(model *m, const char *name, const char *text) {
  lg_diag d;
  lg_diag_clear(&d);
  memset(m, 0, sizeof *m);
  int ok = lang_load_string(name, text, strlen(text), &m->lm, &d) == LG_OK &&
           mech_derive_lagrange(m->lm->mech, name, &m->e, &d) == LG_OK &&
           num_system_build(m->lm->mech, m->e, NULL, 0, &m->s, &d) == LG_OK;
  CHECK(ok);
  m->r = (cg_request){"t", name, ok ? m->lm->mech : NULL, m->e, NULL, NULL, 0, NULL, 1, 0};
  return ok;
}

static void model_free(model *m) {
  num_system_free(m->s);
  if (m->lm) lang_model_free(m->lm);
}

/* jit's accelerations against the tape's at random states. */
static void check_rhs(const model *m, const cg_jit *jit) {
  const num_system *s = m->s;
  num_work w;
  CHECK(num_work_init(s, &w) == LG_OK);
  size_t n = s->n;
  double x[32], xdot[32], qdd[16], lam[16];
  srand(7);
  for (int trial = 0; jit->rhs && trial < 20; trial++) {
    for (size_t i = 0; i < 2 * n; i++) x[i] = 2.0 * rand() / RAND_MAX - 1.0;
    num_evaluate(s, &w, 0.1 * trial, x, x + n);
    CHECK(num_solve_accel(s, &w, qdd, lam, NULL) == LG_OK);
    CHECK(jit->rhs(0.1 * trial, x, NULL, s->params, xdot) == 0);
    for (size_t i = 0; i < n; i++) {
      CHECK(xdot[i] == x[n + i]);
      CHECK_NEAR(xdot[n + i], qdd[i], 1e-10);
    }
  }
  num_work_free(&w);
}

static void compare(const char *name, const char *text, int tree) {
  model m;
  if (!model_load(&m, name, text)) return;
  lg_diag d;
  lg_diag_clear(&d);
  cg_jit jit = {0};
  lg_status st = cg_jit_compile(&m.r, &jit, &d);
  CHECK(st == LG_OK && jit.rhs);
  if (st != LG_OK) fprintf(stderr, "%s: %s\n", name, d.message);
  if (tree >= 0) CHECK(jit.tree == tree); /* the O(n) recursion where it is a tree and shorter */
  check_rhs(&m, &jit);
  cg_jit_free(&jit);
  model_free(&m);
}

/* ---- the cache ------------------------------------------------------------------------- */
static char root[64];

static void use_cache(const char *sub, mode_t mode) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", root, sub);
  mkdir(path, 0700);
  chmod(path, mode);
  setenv("LAGRANGE_CACHE_DIR", path, 1);
}

/* The entry's file with extension ext in the cache folder sub ("" when none). */
static const char *entry(const char *sub, const char *ext, char *out, size_t n) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", root, sub);
  out[0] = 0;
  DIR *dp = opendir(path);
  for (struct dirent *e; dp && (e = readdir(dp));) {
    size_t k = strlen(e->d_name), x = strlen(ext);
    if (k > x && !strcmp(e->d_name + k - x, ext)) snprintf(out, n, "%s/%s", path, e->d_name);
  }
  if (dp) closedir(dp);
  return out;
}

static void unsafe_cache(void) {
  model m;
  if (!model_load(&m, "cart.lag", CART)) return;
  use_cache("open", 0777);
  lg_diag d;
  lg_diag_clear(&d);
  cg_jit jit = {0};
  CHECK(cg_jit_compile(&m.r, &jit, &d) == LG_ERR_IO && !jit.rhs && !jit.handle);
  CHECK(strstr(d.message, "the JIT cache folder") && strstr(d.message, "is writable by others "
        "(mode 0777): not using it") && strstr(d.hint, "chmod go-w"));
  cg_jit_free(&jit);
  model_free(&m);
}

static void fifo_key(void) {
  model m;
  if (!model_load(&m, "cart.lag", CART)) return;
  use_cache("fifo", 0700);
  lg_diag d;
  lg_diag_clear(&d);
  cg_jit jit = {0};
  CHECK(cg_jit_compile(&m.r, &jit, &d) == LG_OK && !jit.cached);
  cg_jit_free(&jit);
  char key[256];
  CHECK(entry("fifo", ".key", key, sizeof key)[0] && unlink(key) == 0 && mkfifo(key, 0600) == 0);
  alarm(120); /* a hang fails the test instead of stalling it */
  CHECK(cg_jit_compile(&m.r, &jit, &d) == LG_OK && jit.rhs && !jit.cached);
  alarm(0);
  struct stat st;
  CHECK(stat(key, &st) == 0 && S_ISREG(st.st_mode)); /* the entry is whole again */
  check_rhs(&m, &jit);
  cg_jit_free(&jit);
  model_free(&m);
}

/* Two objects of one key loaded at once are one object to the loader,
 * under both names; when the first is freed, its descriptor's number must
 * not come back as another object's name while the second lives. */
static void shared_names(void) {
  model cart, bowl;
  if (!model_load(&cart, "cart.lag", CART) || !model_load(&bowl, "bowl.lag", BOWL)) return;
  use_cache("names", 0700);
  lg_diag d;
  lg_diag_clear(&d);
  cg_jit a = {0}, b = {0}, c = {0};
  CHECK(cg_jit_compile(&bowl.r, &c, &d) == LG_OK); /* cached for later */
  cg_jit_free(&c);
  CHECK(cg_jit_compile(&cart.r, &a, &d) == LG_OK && cg_jit_compile(&cart.r, &b, &d) == LG_OK);
  CHECK(b.cached && a.handle == b.handle);
  int old = a.so_fd, spare[64], ns = 0, f = -1;
  cg_jit_free(&a);
  /* the numbers below a's taken, so that its number is the next one free
     (were it closed), and the walk to the cache folder ends above it */
  while (ns < 64 && (f = open("/dev/null", O_RDONLY)) >= 0 && f < old) spare[ns++] = f;
  if (f >= 0) close(f);
  CHECK(cg_jit_compile(&bowl.r, &c, &d) == LG_OK && c.cached && c.handle != b.handle);
  while (ns > 0) close(spare[--ns]);
  check_rhs(&bowl, &c);
  check_rhs(&cart, &b);
  cg_jit_free(&b);
  cg_jit_free(&c);
  model_free(&cart);
  model_free(&bowl);
}

/* In the background with a compiler that takes its time: cg_jit_free
 * stops the helper and the compiler, and leaves no work folder. */
static void background_stop(void) {
  model m;
  if (!model_load(&m, "cart.lag", CART)) return;
  use_cache("bg", 0700);
  char cc[128], pidfile[128];
  snprintf(pidfile, sizeof pidfile, "%s/cc.pid", root);
  snprintf(cc, sizeof cc, "%s/slowcc.sh", root);
  FILE *f = fopen(cc, "w");
  if (!f) return;
  fprintf(f, "#!/bin/sh\necho $$ > %s\nsleep 30\nexec cc \"$@\"\n", pidfile);
  fclose(f);
  chmod(cc, 0700);
  setenv("CC", cc, 1);
  lg_diag d;
  lg_diag_clear(&d);
  cg_jit jit = {0};
  CHECK(cg_jit_start(&m.r, 1, &jit, &d) == LG_OK && !jit.rhs && jit.pid > 0);
  CHECK(cg_jit_poll(&jit, 0, &d) == 0);
  long pid = 0;
  for (int i = 0; i < 600 && !pid; i++) { /* the compiler started */
    FILE *p = fopen(pidfile, "r");
    if (!p || fscanf(p, "%ld", &pid) != 1) pid = 0;
    if (p) fclose(p);
    if (!pid) usleep(50000);
  }
  CHECK(pid > 0);
  int helper = jit.pid;
  cg_jit_free(&jit);
  CHECK(kill(helper, 0) != 0); /* reaped */
  int dead = 0;
  for (int i = 0; i < 100 && !dead; i++) { /* the compiler's group was killed */
    dead = kill((pid_t)pid, 0) != 0;
    if (!dead) usleep(20000);
  }
  CHECK(dead);
  char name[256];
  CHECK(entry("bg", ".so", name, sizeof name)[0] == 0);
  char tmp[128];
  snprintf(tmp, sizeof tmp, "%s/bg", root);
  DIR *dp = opendir(tmp);
  int work = 0;
  for (struct dirent *e; dp && (e = readdir(dp));) work += !strncmp(e->d_name, "tmp-", 4);
  if (dp) closedir(dp);
  CHECK(work == 0);
  unsetenv("CC");
  model_free(&m);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/test_cg_jit.XXXXXX");
  if (!mkdtemp(root)) return 1;
  unsetenv("CC");
  use_cache("cache", 0700);
  compare("cart.lag", CART, -1);
  compare("bowl.lag", BOWL, 0);
  char chain[4096];
  chain_text(chain, sizeof chain, 10);
  compare("chain10.lag", chain, 1);
  unsafe_cache();
  fifo_key();
  shared_names();
  background_stop();
  char cmd[256];
  snprintf(cmd, sizeof cmd, "chmod -R u+rwx %s && rm -rf %s", root, root);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", root);
  return tu_summary("test_cg_jit");
}
