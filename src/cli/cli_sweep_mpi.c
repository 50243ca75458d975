/* cli_sweep_mpi.c - a sweep over the ranks of `mpirun -n K lagrange sweep`.
 *
 * Built with MPI when the Makefile finds OpenMPI (-DLG_HAVE_MPI); else the
 * stubs at the end keep every other path working. MPI_Init is called only
 * when mpirun started this process with more than one rank
 * (OMPI_COMM_WORLD_SIZE), so a plain `lagrange` never initializes MPI.
 *
 * Dynamic load balance (runs differ in cost): a worker rank asks rank 0
 * for work by sending the rows of its last chunk (the first request
 * carries none); rank 0 answers with the next chunk [start, start + count)
 * or count 0 (stop), and between requests it runs single runs itself.
 * Rank 0 alone writes the file, through the same ordered writer as the
 * threads, so the bytes are those of a threaded run. */
#include "cli_sweep.h"

#include <stdlib.h>
#include <string.h>

static int env_size(void) {
  const char *s = getenv("OMPI_COMM_WORLD_SIZE");
  return s ? atoi(s) : 0;
}

#ifdef LG_HAVE_MPI
#include <mpi.h>

enum { TAG_ROWS = 1, TAG_WORK = 2 };

static int active;

int sweep_mpi_start(int *rank, int *size) {
  *rank = 0;
  *size = 1;
  if (env_size() < 2) return 0;
  if (MPI_Init(NULL, NULL) != MPI_SUCCESS) return 0;
  active = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 1;
}

void sweep_mpi_abort(int code) {
  if (active) MPI_Abort(MPI_COMM_WORLD, code);
}

void sweep_mpi_end(void) {
  if (active) MPI_Finalize();
  active = 0;
}

/* A chunk's rows as one message: per row [k (8 bytes), ok (1), length (8),
 * text]; unpacked into the writer on rank 0. */
static void pack_row(lg_str *msg, size_t k, int ok, const lg_str *row) {
  uint64_t kk = k, len = row->len;
  char okc = (char)ok;
  lg_str_putn(msg, (const char *)&kk, sizeof kk);
  lg_str_putn(msg, &okc, 1);
  lg_str_putn(msg, (const char *)&len, sizeof len);
  lg_str_putn(msg, row->s ? row->s : "", row->len);
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
    sweep_out_put(w, (size_t)k, lg_strndup(buf + at, (size_t)len), ok);
    at += (size_t)len;
  }
}

static void worker(const sweep_ctx *c) {
  lg_str msg, row;
  lg_str_init(&msg);
  lg_str_init(&row);
  for (;;) {
    MPI_Send(msg.s ? msg.s : "", (int)msg.len, MPI_BYTE, 0, TAG_ROWS, MPI_COMM_WORLD);
    lg_str_clear(&msg);
    uint64_t work[2];
    MPI_Recv(work, 2, MPI_UINT64_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!work[1]) break;
    for (uint64_t k = work[0]; k < work[0] + work[1]; k++) {
      lg_str_clear(&row);
      int ok = sweep_run(c, (size_t)k, &row);
      pack_row(&msg, (size_t)k, ok, &row);
    }
    if (msg.oom) sweep_mpi_abort(1);
  }
  lg_str_free(&msg);
  lg_str_free(&row);
}

/* Rank 0: one request (the rows of the sender's last chunk) answered. */
static void serve(sweep_out *w, size_t *next, size_t chunk, int *working) {
  MPI_Status st;
  MPI_Probe(MPI_ANY_SOURCE, TAG_ROWS, MPI_COMM_WORLD, &st);
  int size;
  MPI_Get_count(&st, MPI_BYTE, &size);
  char *buf = lg_malloc((size_t)size + 1);
  if (!buf) sweep_mpi_abort(1);
  MPI_Recv(buf, size, MPI_BYTE, st.MPI_SOURCE, TAG_ROWS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  unpack_rows(buf, (size_t)size, w);
  lg_free(buf);
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
  lg_str_init(&row);
  while (working > 0 || next < w->runs) {
    int pending = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_ROWS, MPI_COMM_WORLD, &pending, MPI_STATUS_IGNORE);
    if (pending || next >= w->runs) {
      serve(w, &next, chunk, &working);
    } else { /* nobody is waiting: rank 0 runs one itself */
      size_t k = next++;
      lg_str_clear(&row);
      int ok = sweep_run(c, k, &row);
      sweep_out_put(w, k, row.oom ? NULL : lg_strndup(row.s ? row.s : "", row.len), ok);
    }
    sweep_out_progress(w, 0);
  }
  sweep_out_progress(w, 1);
  lg_str_free(&row);
}

int sweep_mpi_run(const sweep_ctx *c, sweep_out *w, int rank, int size) {
  if (rank == 0) leader(c, w, size);
  else worker(c);
  return 1;
}

#else /* no MPI in this build */

int sweep_mpi_start(int *rank, int *size) {
  const char *r = getenv("OMPI_COMM_WORLD_RANK");
  *rank = 0;
  *size = 1;
  if (env_size() < 2) return 0;
  /* started by mpirun, built without MPI: rank 0 does the whole sweep
   * with threads, the others stand aside */
  if (r && atoi(r) > 0) *rank = atoi(r);
  else fprintf(stderr, "lagrange sweep: note: this lagrange was built without MPI; rank 0 "
                       "runs the whole sweep on threads\n");
  return 0;
}

int sweep_mpi_run(const sweep_ctx *c, sweep_out *w, int rank, int size) {
  (void)c, (void)w, (void)rank, (void)size;
  return 0;
}

void sweep_mpi_abort(int code) { (void)code; }
void sweep_mpi_end(void) {}

#endif
