/* cli_guard.c - an output must not be one of the inputs, nor another
 * output. `simulate m.lag --out m.lag`, `codegen m.lag -o m.lag`, or
 * `animate m.html` (whose default output is m.html) would replace the
 * model by their output; two outputs that are one file would leave only
 * the last one written. Files are compared by device and inode, so
 * symbolic and hard links, `./m.lag` and `../dir/m.lag` are all seen; a
 * name that does not exist yet is compared by its folder and last name.
 * An output that is not a regular file (a device such as /dev/null, a
 * FIFO) is written directly and never replaced: it is not checked. */
#include "cli.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct file_id {
  int kind;       /* 0: not checked; 1: an existing file; 2: a name to create */
  dev_t dev;      /* of the file, or of the folder it will be created in */
  ino_t ino;
  char *name;     /* kind 2: the last name in that folder (owned) */
} file_id;

/* What an output to path replaces or creates (see lg_out_open). */
static void output_id(const char *path, file_id *id) {
  memset(id, 0, sizeof *id);
  char *final = lg_path_follow(path);
  struct stat st;
  if (!final) return;
  if (stat(final, &st) == 0) {
    if (S_ISREG(st.st_mode)) *id = (file_id){1, st.st_dev, st.st_ino, NULL};
  } else if (errno == ENOENT) {
    char *slash = strrchr(final, '/');
    const char *base = slash ? slash + 1 : final;
    int ok;
    if (!slash) ok = stat(".", &st) == 0;
    else if (slash == final) ok = stat("/", &st) == 0;
    else {
      *slash = 0;
      ok = stat(final, &st) == 0;
      *slash = '/';
    }
    if (ok) *id = (file_id){2, st.st_dev, st.st_ino, lg_strdup(base)};
  }
  lg_free(final);
}

static int same(const file_id *a, const file_id *b) {
  if (!a->kind || a->kind != b->kind || a->dev != b->dev || a->ino != b->ino) return 0;
  return a->kind == 1 || (a->name && b->name && !strcmp(a->name, b->name));
}

/* The model file (standard input when it is read from there). */
static void model_id(const cli_opts *o, file_id *id) {
  struct stat st;
  memset(id, 0, sizeof *id);
  int ok = o->model_stdin ? fstat(STDIN_FILENO, &st) == 0 : stat(o->model, &st) == 0;
  if (ok && S_ISREG(st.st_mode)) *id = (file_id){1, st.st_dev, st.st_ino, NULL};
}

int cli_output_is_input(const cli_opts *o, const char *path) {
  file_id in, out;
  model_id(o, &in);
  output_id(path, &out);
  int r = same(&in, &out);
  lg_free(out.name);
  return r;
}

int cli_check_outputs(const cli_opts *o, const char *const *path, const char *const *label,
                      size_t n) {
  file_id in, *out = lg_calloc(n + 1, sizeof *out);
  const char *cmd = o->command ? o->command : "lagrange";
  if (!out) {
    fprintf(stderr, "lagrange %s: out of memory\n", cmd);
    return CLI_EXIT_MODEL;
  }
  model_id(o, &in);
  for (size_t i = 0; i < n; i++)
    if (path[i]) output_id(path[i], &out[i]);
  int rc = CLI_EXIT_OK;
  for (size_t i = 0; rc == CLI_EXIT_OK && i < n; i++) {
    if (same(&in, &out[i])) {
      fprintf(stderr, "lagrange %s: %s '%s' is the model file '%s': writing it would destroy "
                      "the model (choose another output file)\n", cmd, label[i], path[i],
              o->model);
      rc = CLI_EXIT_USAGE;
    }
    for (size_t j = 0; rc == CLI_EXIT_OK && j < i; j++)
      if (same(&out[j], &out[i])) {
        fprintf(stderr, "lagrange %s: %s '%s' and %s '%s' are the same file: only one of "
                        "them would be kept (give each output its own file)\n", cmd,
                label[j], path[j], label[i], path[i]);
        rc = CLI_EXIT_USAGE;
      }
  }
  for (size_t i = 0; i < n; i++) lg_free(out[i].name);
  lg_free(out);
  return rc;
}
