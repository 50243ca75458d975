/* fuzz_lagrange.c - libFuzzer target over the whole pipeline.
 *
 * One input is one model file. It goes through the program exactly as the
 * command line takes it (cli_main.c compiled with its main renamed to
 * lg_cli_main): `eom` and, where the derivation succeeds, one more command
 * picked by the input's hash: the LaTeX or JSON printer, `eval`, the C or
 * Python code generator, under Lagrange's or Kane's method. So the parser,
 * the semantic pass, both derivations, every printer and both emitters
 * are all under the fuzzer.
 *
 * Besides what the sanitizers catch, each run must keep the command line's
 * promise: exit 0, 1 or 2, and a failure says `MODEL:LINE:COL: ...` with
 * LINE inside the file. A broken promise aborts with the command and its
 * messages, and libFuzzer saves the input.
 *
 * Bounds: inputs over MAX_INPUT bytes are rejected (the models in examples/
 * are under 1.2 kB); the time limit per input is libFuzzer's -timeout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lg_cli_main(int argc, char **argv);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_INPUT = 8192, MAX_ARGS = 8 };

static char dir[64], model[96];
static FILE *devnull;

static void cleanup(void) {
  unlink(model);
  rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/lagfuzz-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("fuzz_lagrange: mkdtemp");
    exit(1);
  }
  snprintf(model, sizeof model, "%s/model.lag", dir);
  devnull = fopen("/dev/null", "w");
  if (!devnull) exit(1);
  atexit(cleanup);
  return 0;
}

static int write_model(const uint8_t *data, size_t size) {
  FILE *f = fopen(model, "wb");
  if (!f) return 0;
  int ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

/* 1 when some line of `err` is MODEL:LINE:COL: with 1 <= LINE <= nlines + 1,
 * not a note or a warning. */
static int located(const char *err, size_t nlines) {
  size_t n = strlen(model);
  for (const char *s = err; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : s) {
    if (strncmp(s, model, n) != 0 || s[n] != ':') continue;
    char *end;
    unsigned long line = strtoul(s + n + 1, &end, 10);
    if (*end != ':' || line < 1 || line > nlines + 1) continue;
    unsigned long col = strtoul(end + 1, &end, 10);
    if (*end != ':' || col < 1) continue;
    if (strncmp(end, ": note:", 7) && strncmp(end, ": warning:", 10)) return 1;
  }
  return 0;
}

/* Run `lagrange ARGS...` on the model with stdout discarded and stderr
 * captured; abort on a broken promise. Returns the exit code. The cli
 * writes to the stdout and stderr streams, so swapping the two FILE
 * pointers (glibc allows it) redirects only the cli: libFuzzer and the
 * sanitizers keep the real stderr. */
static int run(const char *const *args, size_t nlines) {
  char *argv[MAX_ARGS + 3] = {"lagrange"};
  int argc = 1;
  argv[argc++] = (char *)args[0];
  argv[argc++] = model;
  for (size_t i = 1; args[i] && argc < MAX_ARGS + 2; i++) argv[argc++] = (char *)args[i];
  char *err = NULL;
  size_t errlen = 0;
  FILE *capture = open_memstream(&err, &errlen);
  if (!capture) return -1;
  FILE *out = stdout, *errf = stderr;
  stdout = devnull;
  stderr = capture;
  int rc = lg_cli_main(argc, argv);
  stdout = out;
  stderr = errf;
  fclose(capture);
  if (rc != 0 && rc != 1 && rc != 2) {
    fprintf(stderr, "fuzz_lagrange: lagrange %s: exit code %d\n%s\n", args[0], rc, err);
    abort();
  }
  if (rc != 0 && !located(err, nlines)) {
    fprintf(stderr, "fuzz_lagrange: lagrange %s %s: exit %d without MODEL:LINE:COL\n%s\n",
            args[0], args[1] ? args[1] : "", rc, err);
    abort();
  }
  free(err);
  return rc;
}

/* FNV-1a: picks the command for an input, the same one every time. */
static uint32_t hash(const uint8_t *data, size_t size) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
  return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT) return -1;
  if (!write_model(data, size)) return 0;
  size_t nlines = 1;
  for (size_t i = 0; i < size; i++) nlines += data[i] == '\n';
  /* Every input is parsed and derived by `eom`; one more command, picked by
   * the input's hash, takes it further (running all eleven would make each
   * input six times slower for little more coverage per input). */
  static const char *const eom[] = {"eom", NULL};
  static const char *const more[][6] = {
      {"eom", "--format", "latex", NULL},
      {"eom", "--format", "json", NULL},
      {"eval", "--json", NULL},
      {"codegen", NULL},
      {"codegen", "--lang", "python", NULL},
      {"eom", "--method", "kane", NULL},
      {"eom", "--format", "latex", "--method", "kane", NULL},
      {"eom", "--format", "json", "--method", "kane", NULL},
      {"eval", "--json", "--method", "kane", NULL},
      {"codegen", "--method", "kane", NULL},
      {"codegen", "--lang", "python", "--method", "kane", NULL},
  };
  if (run(eom, nlines) == 0) run(more[hash(data, size) % (sizeof more / sizeof more[0])], nlines);
  return 0;
}
