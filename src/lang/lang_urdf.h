/* lang_urdf.h - URDF robot descriptions as model text (lang_urdf.c).
 *
 * A `.urdf` file, or a model with an `import "ROBOT.urdf"` line, is turned
 * into model-language text (MODEL-FORMAT 1.1: frames LNK, points LNK_o and
 * LNK_c, coordinates named after the joints, inputs tau_J) that the usual
 * parser reads. Every line of that text remembers where it came from (the
 * model's own line, or the URDF element it was made from), so that errors
 * name the URDF's line:col. libxml2 is loaded with dlopen only when a URDF
 * is read: the command pays nothing for it otherwise.
 *
 * Layer-internal.
 */
#ifndef LG_LANG_URDF_H
#define LG_LANG_URDF_H

#include "lg_base.h"
#include "mech.h"

/* Where one line of the expanded text came from: the file (owned by the
 * lang_expanded), its line, and a column (0: the column in the text is the
 * original one, as for the model's own lines). */
typedef struct lang_origin {
  const char *file;
  int line, col;
} lang_origin;

/* A joint limit kept from a URDF (`<limit lower upper>` of a revolute or
 * prismatic joint, lower < upper): the coordinate's model name and the
 * range, in joint order; `contact limits` makes them stops. */
typedef struct lang_limit {
  char *coord; /* owned */
  double lower, upper;
} lang_limit;

/* A URDF's tree by its numbers (mech_num_tree), parents first, kept when
 * every joint is revolute, continuous, prismatic or fixed, none mimics
 * another and none has friction: link[i].coord and .input are filled
 * from coord[i] (the joint's coordinate, NULL for a fixed joint) once the
 * model is loaded (lang_sema.c), and only for a model that is the URDF
 * alone (one that imports it may add anything). */
typedef struct lang_urdf_tree {
  mech_num_link *link;
  char **coord;
  size_t n;
} lang_urdf_tree;

typedef struct lang_expanded {
  lg_str text;            /* the model text to parse */
  lang_origin *lines;     /* one per line of text */
  size_t nlines, lines_cap;
  char **files;           /* the file names the origins point to (owned) */
  size_t nfiles, files_cap;
  char **notes;           /* "file:line:col: note: ..." for the model's notes (owned) */
  size_t nnotes, notes_cap;
  int import_line, import_col; /* the model's import statement (0: none) */
  int end_line, end_col;  /* the model file's end, where its parser finds it */
  lang_limit *limits;     /* the URDF's kept joint limits (owned) */
  size_t nlimits, limits_cap;
  lang_urdf_tree *tree;   /* owned; NULL: none (see lang_urdf_tree) */
} lang_expanded;

/* When `file` ends in ".urdf", or src has an `import "X.urdf"` line, fills
 * *x with the expanded text and sets *expanded to 1; otherwise *expanded is
 * 0 and x holds nothing to free. Errors (malformed XML, a URDF the tool
 * cannot read, a missing libxml2) at the URDF's or the model's line:col. */
lg_status lang_expand(const char *file, const char *src, size_t len, lang_expanded *x,
                      int *expanded, lg_diag *diag);
void lang_expanded_free(lang_expanded *x);
void lang_urdf_tree_free(lang_urdf_tree *t);
/* A diagnostic located in the expanded text (file `file`), moved to where
 * that line came from. */
void lang_expanded_remap(const lang_expanded *x, const char *file, lg_diag *d);
/* The same for a note "file:line:col: note: ..." (returns a new string or
 * NULL when it needs no change or memory ran out). */
char *lang_expanded_remap_note(const lang_expanded *x, const char *file, const char *note);

/* A position kept in the loaded model (a constraint row's line:col ...),
 * moved to the model file's own line, or, for a line made from an
 * imported URDF, to the import statement. */
void lang_expanded_position(const lang_expanded *x, int *line, int *col);
/* Was line `line` of the expanded text made from the imported URDF (not
 * one of the model's own lines)? */
int lang_expanded_from_urdf(const lang_expanded *x, int line);

#endif
