/* cli_sweep_mpi.h - between lagrange and its MPI plugin, lagrange-mpi.so
 * (src/cli/mpi/cli_sweep_mpi_plugin.c). The plugin links libmpi, so only
 * `sweep` started by mpirun with several ranks loads it: a plain command
 * does not pay libmpi's start-up (about 0.6 ms a process). The plugin
 * reaches the sweep only through the host's table of functions below. */
#ifndef LG_CLI_SWEEP_MPI_H
#define LG_CLI_SWEEP_MPI_H

#include "cli_sweep.h"

#define SWEEP_MPI_ABI 1
#define SWEEP_MPI_ENTRY "lagrange_sweep_mpi"

typedef struct sweep_mpi_host {
  int abi; /* SWEEP_MPI_ABI */
  int (*run)(const sweep_ctx *c, size_t k, lg_str *row);
  void (*put)(sweep_out *w, size_t k, char *row, int ok);
  void (*progress)(sweep_out *w, int final);
  void (*str_init)(lg_str *s);
  void (*str_clear)(lg_str *s);
  void (*str_free)(lg_str *s);
  void (*str_putn)(lg_str *s, const char *p, size_t n);
  void *(*alloc)(size_t n);
  void (*release)(void *p);
  char *(*strndup)(const char *s, size_t n);
} sweep_mpi_host;

/* What the plugin does: sweep_mpi_start, _run, _abort and _end of
 * cli_sweep.h (the host's versions forward here once it is loaded). */
typedef struct sweep_mpi_plugin {
  int (*start)(int *rank, int *size);
  void (*run)(const sweep_ctx *c, sweep_out *w, int rank, int size);
  void (*abort)(int code);
  void (*end)(void);
} sweep_mpi_plugin;

/* The plugin's one exported symbol (SWEEP_MPI_ENTRY); NULL when host->abi
 * is not the plugin's. */
typedef const sweep_mpi_plugin *(*sweep_mpi_entry)(const sweep_mpi_host *host);

#endif
