/* cg_jit.c - compile the generated right-hand side and load it. */
#include "cg.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_file(const char *path, const lg_str *s) {
  FILE *f = fopen(path, "w");
  if (!f) return 0;
  int ok = fwrite(s->s, 1, s->len, f) == s->len;
  return fclose(f) == 0 && ok;
}

/* Remove the temporary directory's files; the loaded object stays mapped. */
static void cleanup(const char *dir, const char *name) {
  const char *ext[] = {".c", ".h", ".so", ".log"};
  char path[4096];
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/%s%s", dir, name, ext[i]);
    unlink(path);
  }
  rmdir(dir);
}

static lg_status compile_and_load(const char *dir, const char *name, cg_jit *out,
                                  lg_diag *diag) {
  const char *cc = getenv("CC");
  char cmd[8192], so[4096];
  snprintf(so, sizeof so, "%s/%s.so", dir, name);
  snprintf(cmd, sizeof cmd, "'%s' -O2 -fPIC -shared -o '%s' '%s/%s.c' -lm > '%s/%s.log' 2>&1",
           cc && *cc ? cc : "cc", so, dir, name, dir, name);
  if (system(cmd) != 0) {
    lg_diag_set(diag, LG_ERR_IO, NULL, 0, 0, "the C compiler could not build the JIT code");
    return LG_ERR_IO;
  }
  out->handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!out->handle) {
    lg_diag_set(diag, LG_ERR_IO, NULL, 0, 0, "cannot load the JIT code: %s", dlerror());
    return LG_ERR_IO;
  }
  char sym[300];
  snprintf(sym, sizeof sym, "%s_rhs", name);
  void *f = dlsym(out->handle, sym);
  if (!f) {
    dlclose(out->handle);
    out->handle = NULL;
    lg_diag_set(diag, LG_ERR_IO, NULL, 0, 0, "the JIT code has no %s", sym);
    return LG_ERR_IO;
  }
  memcpy(&out->rhs, &f, sizeof f); /* object pointer to function pointer */
  return LG_OK;
}

lg_status cg_jit_compile(const cg_request *r, cg_jit *out, lg_diag *diag) {
  memset(out, 0, sizeof *out);
  lg_str src, hdr;
  lg_str_init(&src);
  lg_str_init(&hdr);
  lg_status st = cg_generate(r, CG_C, &src, &hdr, NULL, diag);
  char dir[] = "/tmp/lagrange-jit-XXXXXX";
  if (st == LG_OK && !mkdtemp(dir)) {
    lg_diag_set(diag, LG_ERR_IO, NULL, 0, 0, "cannot create a temporary directory");
    st = LG_ERR_IO;
  }
  if (st == LG_OK) {
    char c_path[4096], h_path[4096];
    snprintf(c_path, sizeof c_path, "%s/%s.c", dir, r->name);
    snprintf(h_path, sizeof h_path, "%s/%s.h", dir, r->name);
    if (!write_file(c_path, &src) || !write_file(h_path, &hdr)) {
      lg_diag_set(diag, LG_ERR_IO, NULL, 0, 0, "cannot write the JIT code");
      st = LG_ERR_IO;
    } else {
      st = compile_and_load(dir, r->name, out, diag);
    }
    cleanup(dir, r->name);
  }
  lg_str_free(&src);
  lg_str_free(&hdr);
  return st;
}

void cg_jit_free(cg_jit *j) {
  if (j->handle) dlclose(j->handle);
  memset(j, 0, sizeof *j);
}
