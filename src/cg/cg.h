/* cg.h - code generation: the derived equations as dependency-free C (or
 * NumPy) with common subexpressions shared, and a JIT that compiles the C
 * right-hand side into a shared object and loads it.
 */
#ifndef LG_CG_H
#define LG_CG_H

#include "lg_base.h"
#include "mech.h"
#include "sym.h"

typedef enum cg_lang { CG_C, CG_PYTHON } cg_lang;

/* Before generating code or integrating, entries up to this DAG size are
 * expanded; 0: none is (expansion multiplies out the shared structure the
 * derivation keeps); every entry is collected (sym_collect) either way. */
enum { CG_SIMPLIFY_FOR_CODE = 0 };

typedef struct cg_request {
  const char *name;        /* identifier prefix (NAME_rhs, ...) */
  const char *model_path;  /* for the header comment */
  mech_model *mech;
  const mech_eom *eom;
  /* Kane's equations in their own state x = [q; u] (NULL: Lagrange's, with
   * x = [q; q']); eom is still needed for T, V, momenta and constraints. */
  const mech_kane *kane;
  const mech_setting *set; /* parameter defaults overrides (--set) */
  size_t nset;
  const char *header;      /* what the .c includes; NULL: "NAME.h" */
  unsigned functions;      /* bit f set: emit function f (cg_function_name);
                              0: every function. NAME_default_params always. */
  int tree_form;           /* eom is a large kinematic tree's composite-rigid-
                              body form (mech_eom_with_dynamics): the default
                              set (functions 0) also writes rhs_recursive,
                              and NAME_rhs calls it when that is shorter */
} cg_request;

/* The functions code generation writes, NAME_<name>: mass_matrix_full,
 * forcing_full, mass_matrix, forcing, rhs, energy, momenta, constraints,
 * constraint_jacobian, rhs_jacobian (C, Lagrange's method only), and,
 * only when asked for, rhs_recursive (C, Lagrange's method, kinematic
 * trees: mech_tree_accel); outputs and multipliers (C, Lagrange's method:
 * the model's outputs and the multipliers at a state, with q'' and lam
 * solved as NAME_rhs solves them) are written by default when the model
 * has outputs, else only when asked for. */
enum { CG_FUNCTION_COUNT = 13 };
const char *cg_function_name(int f);
/* f for a name, or -1 */
int cg_function_lookup(const char *name);
/* A list of function names ("rhs, mass_matrix"; commas and blanks between)
 * as the bits of cg_request.functions; NULL: 0 (every function). C-only
 * functions (rhs_jacobian, rhs_recursive) are refused for Python and for
 * Kane's method (c_lagrange 0). LG_ERR_USAGE with the reason in d, the
 * option named `functions`. */
lg_status cg_parse_functions(const char *text, int c_lagrange, unsigned *out, lg_diag *d);

/* Operation counts after common-subexpression elimination, per function. */
typedef struct cg_stats {
  size_t mass_matrix_full, forcing_full, rhs, energy, constraints, rhs_recursive;
} cg_stats;

/* Writes the source into src (and the C header into hdr; NULL for
 * Python). Output is deterministic for a given model. */
lg_status cg_generate(const cg_request *r, cg_lang lang, lg_str *src, lg_str *hdr,
                      cg_stats *stats, lg_diag *diag);

/* ---- JIT -------------------------------------------------------------------------- */
/* x' = F(t, x, u, p): returns 0, or nonzero when the mass matrix is singular */
typedef int (*cg_rhs_fn)(double t, const double *x, const double *u, const double *p,
                         double *xdot);

typedef struct cg_jit {
  void *handle;
  cg_rhs_fn rhs;
  int cached;     /* loaded from the cache without compiling */
  int tree;       /* the code is NAME_rhs_recursive (a kinematic tree), not NAME_rhs */
  int started;    /* set by cg_jit_start: cg_jit_free has something to free */
  int so_fd;      /* the loaded object (it is loaded as /proc/self/fd/N), or -1 */
  /* a helper compiling in the background: */
  int pid;        /* its process, or 0 */
  int owner;      /* the process that started it (only it stops the helper) */
  int msg_fd;     /* its failure message, or -1 */
  int cache_fd;   /* the cache folder it stores the object in, or -1 */
  char *key;      /* the entry's key (to confirm the object it stores) */
  size_t key_len;
  char entry[48]; /* the entry's name in the cache folder */
  char work[64];  /* its work folder there ("" once it is gone) */
} cg_jit;

/* Compile only the C right-hand side with the system compiler ($CC split
 * on whitespace like make does, else cc; run without a shell, in a private
 * work folder that is its working directory) into a shared object and
 * load it. The object is cached by a hash of the uid, the compiler command
 * and the source in $LAGRANGE_CACHE_DIR, else $XDG_CACHE_HOME/lagrange,
 * else ~/.cache/lagrange (created 0700), so a second run loads it without
 * compiling. Code runs from there, so the folder is opened once and checked
 * with every folder above it (owned by root or us, not writable by others
 * unless sticky; the folder itself ours and writable by nobody else), and
 * everything is done relative to that descriptor; the object is loaded
 * through a descriptor that was checked (see cg_jit.c). An unsafe folder is
 * LG_ERR_IO with the reason and the fix in diag (the caller integrates with
 * the tape); a cache folder that cannot be made means no cache (the work
 * folder is then in $TMPDIR or /tmp). One compile per entry at a time (a
 * lock): a run that waited finds the object. Work files live in a private
 * folder that is removed before returning. LG_ERR_IO when no compiler
 * works, with the reason (exit status, the first lines of the compiler's
 * messages) in diag; the caller falls back to the tape. */
lg_status cg_jit_compile(const cg_request *r, cg_jit *out, lg_diag *diag);
/* The same, but when background is set and the object is not cached (and
 * there is a cache folder), a helper process compiles it while the caller
 * goes on: out->rhs stays NULL until cg_jit_poll says it is ready. The
 * helper ends with its caller: cg_jit_free stops it (and its compiler),
 * and it stops by itself when the thread that started it dies, even of
 * SIGKILL (PR_SET_PDEATHSIG: start it from a thread that outlives the
 * compile). Work folders a killed run left are removed by the next start. */
lg_status cg_jit_start(const cg_request *r, int background, cg_jit *out, lg_diag *diag);
/* 1: out->rhs is ready (loaded now or before); 0: still compiling (only
 * when !wait); -1: it failed, the reason in diag (once; later calls
 * return -1 with diag untouched). */
int cg_jit_poll(cg_jit *j, int wait, lg_diag *diag);
/* Stops a helper still compiling (the object is then not cached), unloads.
 * Safe on a zeroed cg_jit. */
void cg_jit_free(cg_jit *j);

/* 1 when s is a C identifier ([A-Za-z_][A-Za-z0-9_]*): cg_request.name
 * must be. */
int cg_identifier_ok(const char *s);
/* 1 when s can be the file name in `#include "s"` as it is (no quote,
 * backslash, slash, control byte or "??"): cg_request.header must be. */
int cg_include_name_ok(const char *s);

/* "mymodel.lag" -> "mymodel", made a valid C identifier. */
char *cg_default_name(const char *model_path);

#endif
