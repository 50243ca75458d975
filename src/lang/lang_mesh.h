/* lang_mesh.h - the bounding box of a URDF <mesh> (lang_mesh.c).
 *
 * A URDF `<visual>` that is a `<mesh filename="...">` is drawn as the
 * axis-aligned box that holds the mesh's vertices (lang_urdf.c). This file
 * finds the mesh file (a path relative to the URDF, `file://`, or
 * `package://PKG/...` resolved as ROS would, without ROS), reads it with a
 * size limit, and takes the bounds of its vertices from a binary or ASCII
 * STL, a Wavefront OBJ or COLLADA (.dae: XML, read in lang_mesh_dae.c with
 * the libxml2 that lang_urdf.c loads). Nothing here runs a program or writes a file: the
 * file name is only opened for reading.
 *
 * Layer-internal.
 */
#ifndef LG_LANG_MESH_H
#define LG_LANG_MESH_H

#include <stddef.h>

enum { LANG_MESH_MAX_BYTES = 64 << 20 }; /* a larger mesh file is not read */

/* The box of the vertices seen so far (n of them). */
typedef struct lang_bounds {
  double lo[3], hi[3];
  size_t n;
} lang_bounds;

void lang_bounds_init(lang_bounds *b);
/* Adds a vertex; 0 when one of its coordinates is not finite. */
int lang_bounds_add(lang_bounds *b, double x, double y, double z);

typedef enum { MESH_UNKNOWN, MESH_STL, MESH_OBJ, MESH_DAE } lang_mesh_kind;
/* The kind by the file name's extension (any case). */
lang_mesh_kind lang_mesh_kind_of(const char *path);

/* The path of the mesh `filename` of the URDF `urdf_file`: relative to the
 * URDF's folder, `file://` absolute, `package://PKG/REST` from a folder PKG
 * next to the URDF or up to three folders above it, or in a folder of
 * ROS_PACKAGE_PATH. NULL with a reason and a fix in why[] when it cannot be
 * found (or memory ran out: why is then "out of memory"). */
char *lang_mesh_resolve(const char *urdf_file, const char *filename, char *why, size_t nwhy);

/* The whole of the regular file `path` (at most LANG_MESH_MAX_BYTES; a
 * FIFO, a device or a folder is refused without blocking), NUL-terminated,
 * into *buf (free with lg_free). 0, or -1 with why[]. */
int lang_mesh_read(const char *path, char **buf, size_t *len, char *why, size_t nwhy);

/* The bounds of the vertices of an STL (binary: 84 + 50 n bytes exactly;
 * ASCII: `vertex x y z`) or OBJ (`v x y z`) held in data[0..len). 0, or -1
 * with why[] (malformed, no vertex, a coordinate not finite). */
int lang_mesh_bounds(lang_mesh_kind kind, const char *data, size_t len, lang_bounds *b,
                     char *why, size_t nwhy);

/* The numbers of the text s[0..len) (blank-separated), every stride-th
 * group's first three as a vertex p, added as unit * (M p) (M: a 4x4
 * matrix by rows, applied to (p, 1); NULL: none) (COLLADA's <float_array>
 * in its node's transform). 0, or -1 with why[]. */
int lang_mesh_float_array(const char *s, size_t len, int stride, double unit, const double *M,
                          lang_bounds *b, char *why, size_t nwhy);

/* The bounds of the COLLADA document data[0..len) in metres (its <asset>
 * <unit meter="..."/>): the positions every <vertices> names (<input
 * semantic="POSITION">), of the geometries its scene instances, each in
 * its nodes' <matrix>, <translate>, <rotate> and <scale> composed down the
 * tree (lang_mesh_dae.c, with libxml2). *moved: 1 when its <up_axis> is not
 * Z_UP (not applied), 2 when a <lookat>, <skew> or <instance_node> was not
 * applied (3: both). 0, or -1 with why[]. */
int lang_mesh_dae_bounds(const char *path, const char *data, size_t len, lang_bounds *b,
                         int *moved, char *why, size_t nwhy);

/* The box of the URDF <mesh filename="fn" scale="s"/> of `urdf_file` (fn,
 * s: NULL when absent) in its visual's frame: centre c and edges e, the
 * bounds of its vertices times the scale. 0, or -1 with why[] (what is
 * wrong and how to fix it; "out of memory" when memory ran out). *moved as
 * for lang_mesh_dae_bounds. */
int lang_mesh_box(const char *urdf_file, const char *fn, const char *s, double c[3], double e[3],
                  int *moved, char *why, size_t nwhy);

#endif
