/* cli_outfile.h - the command's output files (cli_outfile.c). */
#ifndef LG_CLI_OUTFILE_H
#define LG_CLI_OUTFILE_H

#include <stdio.h>

#include "lg_base.h"

/* Output files you can trust. lg_out_open decides how `path` is written:
 *  - a regular file, or a name that does not exist yet: through a uniquely
 *    named temporary (mkstemp) in the same folder, renamed over the target
 *    by lg_out_commit; a replaced file keeps its permission bits;
 *  - a symbolic link: the same for its final target; the link stays;
 *  - anything else (a device such as /dev/null or /dev/full, a FIFO, a
 *    socket): written directly, never renamed, replaced or removed.
 * A folder, or a folder that does not exist, is an LG_ERR_IO naming the
 * path. Write errors are sticky in f; commit flushes, syncs and closes,
 * checks every result and removes the temporary on any failure. The
 * temporaries are registered for lg_temp_remove_all (signal handlers). */
typedef struct lg_out {
  FILE *f;        /* write through this; NULL after commit or abort */
  char *path;     /* as given, for messages */
  char *target;   /* the file that gets the result; NULL when direct */
  char *temp;     /* the temporary; NULL when direct */
  int slot;       /* registry slot of temp, or -1 */
} lg_out;

lg_status lg_out_open(lg_out *o, const char *path, lg_diag *d);
/* The name at the end of path's chain of symbolic links: the file an
 * output to path replaces or creates (lg_malloc'd; NULL with errno set on
 * failure). */
char *lg_path_follow(const char *path);
/* Nonzero when the output goes straight to a device or FIFO. */
int lg_out_direct(const lg_out *o);
/* The file that gets the result (the path itself when direct). */
const char *lg_out_target(const lg_out *o);
lg_status lg_out_commit(lg_out *o, lg_diag *d);
/* Commit under another name in the target's folder (a FILE.partial.csv);
 * a direct output is just closed. */
lg_status lg_out_commit_to(lg_out *o, const char *dest, lg_diag *d);
/* All or nothing: every file written and closed before the first rename. */
lg_status lg_out_commit_all(lg_out *const *outs, size_t n, lg_diag *d);
/* Close and remove the temporary (safe on a zeroed or finished lg_out). */
void lg_out_abort(lg_out *o);

#endif
