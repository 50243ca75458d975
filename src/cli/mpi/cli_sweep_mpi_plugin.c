/* cli_sweep_mpi_plugin.c - lagrange-mpi.so: a sweep over the ranks of
 * `mpirun -n K lagrange sweep`, loaded by cli_sweep_mpi.c only then.
 *
 * Built when the Makefile finds OpenMPI. It links libmpi and calls back
 * into lagrange only through the host table (cli_sweep_mpi.h).
 *
 * Dynamic load balance (runs differ in cost): a worker rank asks rank 0
 * for work by sending the rows of its last chunk (the first request
 * carries none); rank 0 answers with the next chunk [start, start + count)
 * or count 0 (stop), and between requests it runs single runs itself.
 * Rank 0 alone writes the file, through the same ordered writer as the
 * threads, so the bytes are those of a threaded run. */
#include "cli_sweep_mpi.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static const sweep_mpi_host *H;

enum { TAG_ROWS = 1, TAG_WORK = 2 };

static int active;

static int start(int *rank, int *size) {
  *rank = 0;
  *size = 1;
  if (MPI_Init(NULL, NULL) != MPI_SUCCESS) return 0;
  active = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 1;
}

static void abort_all(int code) {
  if (active) MPI_Abort(MPI_COMM_WORLD, code);
}

static void end(void) {
  if (active) MPI_Finalize();
  active = 0;
}

/* A chunk's rows as one message: per row [k (8 bytes), ok (1), length (8),
 * text]; unpacked into the writer on rank 0. */
static void pack_row(lg_str *msg, size_t k, int ok, const lg_str *row) {
  uint64_t kk = k, len = row->len;
  char okc = (char)ok;
  H->str_putn(msg, (const char *)&kk, sizeof kk);
  H->str_putn(msg, &okc, 1);
  H->str_putn(msg, (const char *)&len, sizeof len);
  H->str_putn(msg, row->s ? row->s : "", row->len);
}

static void unpack_rows(const char *buf, size_t size, sweep_out *w) {
  size_t at = 0;
  while (at + 17 <= size) {
    uint64_t k, len;
    memcpy(&k, buf + at, 8);
    int ok = buf[at + 8];
    memcpy(&len, buf + at + 9, 8);
    at += 17;
    if (len > size - at) break;
    H->put(w, (size_t)k, H->strndup(buf + at, (size_t)len), ok);
    at += (size_t)len;
  }
}

static void worker(const sweep_ctx *c) {
  lg_str msg, row;
  H->str_init(&msg);
  H->str_init(&row);
  for (;;) {
    MPI_Send(msg.s ? msg.s : "", (int)msg.len, MPI_BYTE, 0, TAG_ROWS, MPI_COMM_WORLD);
    H->str_clear(&msg);
    uint64_t work[2];
    MPI_Recv(work, 2, MPI_UINT64_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!work[1]) break;
    for (uint64_t k = work[0]; k < work[0] + work[1]; k++) {
      H->str_clear(&row);
      int ok = H->run(c, (size_t)k, &row);
      pack_row(&msg, (size_t)k, ok, &row);
    }
    if (msg.oom) abort_all(1);
  }
  H->str_free(&msg);
  H->str_free(&row);
}

/* Rank 0: one request (the rows of the sender's last chunk) answered. */
static void serve(sweep_out *w, size_t *next, size_t chunk, int *working) {
  MPI_Status st;
  MPI_Probe(MPI_ANY_SOURCE, TAG_ROWS, MPI_COMM_WORLD, &st);
  int size;
  MPI_Get_count(&st, MPI_BYTE, &size);
  char *buf = H->alloc((size_t)size + 1);
  if (!buf) abort_all(1);
  MPI_Recv(buf, size, MPI_BYTE, st.MPI_SOURCE, TAG_ROWS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  unpack_rows(buf, (size_t)size, w);
  H->release(buf);
  uint64_t work[2] = {*next, 0};
  if (*next < w->runs) {
    work[1] = w->runs - *next < chunk ? w->runs - *next : chunk;
    *next += (size_t)work[1];
  } else {
    (*working)--;
  }
  MPI_Send(work, 2, MPI_UINT64_T, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
}

static void leader(const sweep_ctx *c, sweep_out *w, int size) {
  size_t next = 0, chunk = w->runs / ((size_t)size * 16);
  if (chunk < 1) chunk = 1;
  if (chunk > 64) chunk = 64;
  int working = size - 1;
  lg_str row;
  H->str_init(&row);
  while (working > 0 || next < w->runs) {
    int pending = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_ROWS, MPI_COMM_WORLD, &pending, MPI_STATUS_IGNORE);
    if (pending || next >= w->runs) {
      serve(w, &next, chunk, &working);
    } else { /* nobody is waiting: rank 0 runs one itself */
      size_t k = next++;
      H->str_clear(&row);
      int ok = H->run(c, k, &row);
      H->put(w, k, row.oom ? NULL : H->strndup(row.s ? row.s : "", row.len), ok);
    }
    H->progress(w, 0);
  }
  H->progress(w, 1);
  H->str_free(&row);
}

static void run(const sweep_ctx *c, sweep_out *w, int rank, int size) {
  if (rank == 0) leader(c, w, size);
  else worker(c);
}

__attribute__((visibility("default"))) const sweep_mpi_plugin *
lagrange_sweep_mpi(const sweep_mpi_host *host) {
  static const sweep_mpi_plugin plugin = {start, run, abort_all, end};
  if (!host || host->abi != SWEEP_MPI_ABI) return NULL;
  H = host;
  return &plugin;
}
