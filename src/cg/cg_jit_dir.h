/* cg_jit_dir.h - the JIT's folders, handled so that nobody else can slip
 * code into them (cg_jit_dir.c). Every function works relative to a folder
 * descriptor that cg_dir_open opened and checked; no path is looked up
 * twice. */
#ifndef LG_CG_JIT_DIR_H
#define LG_CG_JIT_DIR_H

#include "lg_base.h"

typedef enum cg_dir_status {
  CG_DIR_OK,      /* *fd is the folder */
  CG_DIR_MISSING, /* it cannot be opened or made (no such folder, not a folder,
                     permission denied, ...): the reason in d */
  CG_DIR_UNSAFE   /* refused: someone else could change it (the reason and the
                     fix in d) */
} cg_dir_status;

/* Open folder `path` (a relative one from the working directory) as
 * OpenSSH's secure_filename checks a file: every folder from / down to it
 * is opened by descriptor (O_DIRECTORY | O_NOFOLLOW, one component at a
 * time, so nothing can be swapped between the check and the use) and must
 * belong to root or to us and be writable by nobody else, unless it is
 * sticky (/tmp: others can add names but not rename or remove ours).
 * A symbolic link on the way is followed only when nobody else could have
 * made or changed it (it is in a folder only root or we can write, or it is
 * ours or that folder owner's: the kernel's protected_symlinks rule), and
 * the folders it leads to are checked the same way; ".." goes back up the
 * folders walked. create: missing folders are made (mode 0700). own: the
 * folder itself must also be ours and writable by nobody else, sticky or
 * not (a cache we load code from). `what` and `env` name the folder and the
 * variable that chooses it in messages ("the JIT cache folder",
 * "LAGRANGE_CACHE_DIR"). *fd is close-on-exec; the caller closes it. */
cg_dir_status cg_dir_open(const char *path, const char *what, const char *env, int create,
                          int own, int *fd, lg_diag *d);

/* The regular file `name` in dir, read-only, when it is ours and nobody
 * else can write it; -1 otherwise (a missing file, a symbolic link, a FIFO:
 * it is opened without following links and without blocking). */
int cg_dir_open_file(int dir, const char *name);

/* A new file `name` in dir (mode 0600, never through a link) holding
 * exactly s[0..n). */
lg_status cg_dir_write(int dir, const char *name, const char *s, size_t n, lg_diag *d);

/* Remove folder `name` in dir and the files in it (not following links).
 * Nothing happens when it is not there. */
void cg_dir_remove(int dir, const char *name);

/* A private work folder PREFIX-PID-RANDOM in dir (mode 0700), its name in
 * name[] and *fd locked (flock) for as long as a copy of *fd stays open: a
 * forked process that inherits it keeps the folder in use. */
lg_status cg_dir_work(int dir, const char *prefix, char name[64], int *fd, lg_diag *d);

/* Remove the work folders PREFIX-PID-* in dir that are ours, whose process
 * is gone and whose lock nobody holds: what a run killed by SIGKILL left. */
void cg_dir_clean(int dir, const char *prefix);

/* The lock file `name` in dir (made 0600), locked exclusively: its
 * descriptor (closing it unlocks), or -1 with errno (EWOULDBLOCK: held by
 * another and !wait; EINTR: a signal interrupted the wait). */
int cg_dir_lock(int dir, const char *name, int wait);

#endif
