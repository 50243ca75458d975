/* cli_sweep_mpi.c - MPI for `sweep`, loaded only when it is needed.
 *
 * Started by mpirun with more than one rank (OMPI_COMM_WORLD_SIZE), sweep
 * loads the plugin lagrange-mpi.so (src/cli/mpi/) from beside the binary
 * (the build folder) or from ../lib/lagrange (an installed tree) and
 * forwards to it. Anywhere else nothing of MPI is loaded. Without the
 * plugin (a build without OpenMPI), rank 0 runs the whole sweep on
 * threads and the other ranks stand aside. */
#include "cli_sweep_mpi.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const sweep_mpi_plugin *plugin;

static int env_int(const char *name) {
  const char *s = getenv(name);
  return s ? atoi(s) : 0;
}

static char *host_strndup(const char *s, size_t n) { return lg_strndup(s, n); }

static const sweep_mpi_host host = {SWEEP_MPI_ABI, sweep_run,     sweep_out_put,
                                    sweep_out_progress, lg_str_init, lg_str_clear,
                                    lg_str_free,   lg_str_putn,   lg_malloc,
                                    lg_free,       host_strndup};

/* The plugin beside /proc/self/exe, or in ../lib/lagrange from it. */
static const sweep_mpi_plugin *load(void) {
  char exe[PATH_MAX];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (k <= 0) return NULL;
  exe[k] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return NULL;
  *slash = 0;
  static const char *const places[] = {"/lagrange-mpi.so", "/../lib/lagrange/lagrange-mpi.so"};
  for (size_t i = 0; i < sizeof places / sizeof *places; i++) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s%s", exe, places[i]);
    /* global: OpenMPI's own components look up libmpi's symbols */
    void *h = access(path, R_OK) == 0 ? dlopen(path, RTLD_NOW | RTLD_GLOBAL) : NULL;
    void *entry = h ? dlsym(h, SWEEP_MPI_ENTRY) : NULL;
    sweep_mpi_entry f;
    memcpy(&f, &entry, sizeof f); /* object pointer to function pointer */
    const sweep_mpi_plugin *p = entry ? f(&host) : NULL;
    if (p) return p; /* stays loaded */
    if (h) dlclose(h);
  }
  return NULL;
}

int sweep_mpi_start(int *rank, int *size) {
  *rank = 0;
  *size = 1;
  if (env_int("OMPI_COMM_WORLD_SIZE") < 2) return 0;
  if ((plugin = load())) return plugin->start(rank, size);
  /* started by mpirun, no plugin: rank 0 does the whole sweep with
   * threads, the others stand aside */
  *rank = env_int("OMPI_COMM_WORLD_RANK");
  if (*rank == 0)
    fprintf(stderr, "lagrange sweep: note: this lagrange was built without MPI (no "
                    "lagrange-mpi.so beside it or in ../lib/lagrange); rank 0 runs the whole "
                    "sweep on threads\n");
  return 0;
}

int sweep_mpi_run(const sweep_ctx *c, sweep_out *w, int rank, int size) {
  if (!plugin) return 0;
  plugin->run(c, w, rank, size);
  return 1;
}

void sweep_mpi_abort(int code) {
  if (plugin) plugin->abort(code);
}

void sweep_mpi_end(void) {
  if (plugin) plugin->end();
}
