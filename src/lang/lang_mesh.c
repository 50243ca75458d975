/* lang_mesh.c - the bounding box of a URDF <mesh> (see lang_mesh.h).
 *
 * Hostile files are expected: every read is bounded by the buffer's length
 * (the parsers never rely on the terminating NUL), numbers are parsed from
 * copies of at most 63 characters, a file is read only when it is a
 * regular file of at most LANG_MESH_MAX_BYTES (opened without blocking, so
 * a FIFO cannot hang the reader), and nothing from the file name reaches a
 * shell or generated code.
 */
#include "lang_mesh.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lg_base.h"

void lang_bounds_init(lang_bounds *b) {
  for (int i = 0; i < 3; i++) b->lo[i] = INFINITY, b->hi[i] = -INFINITY;
  b->n = 0;
}

int lang_bounds_add(lang_bounds *b, double x, double y, double z) {
  double v[3] = {x, y, z};
  for (int i = 0; i < 3; i++)
    if (!isfinite(v[i])) return 0;
  for (int i = 0; i < 3; i++) {
    if (v[i] < b->lo[i]) b->lo[i] = v[i];
    if (v[i] > b->hi[i]) b->hi[i] = v[i];
  }
  b->n++;
  return 1;
}

lang_mesh_kind lang_mesh_kind_of(const char *path) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash)) return MESH_UNKNOWN;
  if (strcasecmp(dot, ".stl") == 0) return MESH_STL;
  if (strcasecmp(dot, ".obj") == 0) return MESH_OBJ;
  if (strcasecmp(dot, ".dae") == 0) return MESH_DAE;
  return MESH_UNKNOWN;
}

/* ---- finding the file ------------------------------------------------------------- */
static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *took(lg_str *s, char *why, size_t nwhy) {
  char *r = s->oom ? NULL : lg_str_take(s);
  lg_str_free(s);
  if (!r) snprintf(why, nwhy, "out of memory");
  return r;
}

/* dir + "/" + rest (dir empty: rest as it is) */
static char *join(const char *dir, size_t ndir, const char *rest, char *why, size_t nwhy) {
  lg_str s;
  lg_str_init(&s);
  if (ndir) {
    lg_str_putn(&s, dir, ndir);
    lg_str_putc(&s, '/');
  }
  lg_str_puts(&s, rest);
  return took(&s, why, nwhy);
}

char *lang_mesh_resolve(const char *urdf_file, const char *filename, char *why, size_t nwhy) {
  const char *slash = strrchr(urdf_file, '/');
  size_t ndir = slash ? (size_t)(slash - urdf_file) + (slash == urdf_file) : 0;
  if (!*filename) {
    snprintf(why, nwhy, "its filename is empty; give the mesh file's path");
    return NULL;
  }
  if (strncmp(filename, "file://", 7) == 0) {
    const char *p = filename + 7;
    return *p == '/' ? join("", 0, p, why, nwhy) : join(urdf_file, ndir, p, why, nwhy);
  }
  if (strncmp(filename, "package://", 10) == 0) {
    /* How ROS resolves package://PKG/REST, without ROS: the folder PKG
     * next to the URDF or up to three folders above it (a URDF inside its
     * package, PKG/urdf/robot.urdf, finds PKG two levels up), then in each
     * folder of ROS_PACKAGE_PATH (colon separated): D/PKG, or D itself when
     * it is named PKG. */
    const char *pkg = filename + 10, *end = strchr(pkg, '/');
    if (!end || end == pkg || !end[1]) {
      snprintf(why, nwhy, "'%.200s' is not package://PACKAGE/PATH; write the package's name "
               "and the path inside it", filename);
      return NULL;
    }
    size_t npkg = (size_t)(end - pkg);
    for (int up = 0; up <= 3; up++) {
      lg_str s;
      lg_str_init(&s);
      if (ndir) {
        lg_str_putn(&s, urdf_file, ndir);
        lg_str_putc(&s, '/');
      }
      for (int k = 0; k < up; k++) lg_str_puts(&s, "../");
      lg_str_putn(&s, pkg, npkg);
      int found = !s.oom && s.s && is_dir(s.s);
      if (found) {
        lg_str_puts(&s, end);
        return took(&s, why, nwhy);
      }
      lg_str_free(&s);
    }
    const char *rpp = getenv("ROS_PACKAGE_PATH");
    for (const char *d = rpp; d && *d;) {
      const char *e = strchr(d, ':');
      size_t nd = e ? (size_t)(e - d) : strlen(d);
      while (nd > 1 && d[nd - 1] == '/') nd--;
      if (nd) {
        lg_str s;
        lg_str_init(&s);
        lg_str_putn(&s, d, nd);
        const char *base = s.s ? strrchr(s.s, '/') : NULL;
        base = base ? base + 1 : s.s;
        int self = base && strlen(base) == npkg && memcmp(base, pkg, npkg) == 0 && is_dir(s.s);
        if (!self) {
          lg_str_putc(&s, '/');
          lg_str_putn(&s, pkg, npkg);
        }
        if (!s.oom && s.s && (self || is_dir(s.s))) {
          lg_str_puts(&s, end);
          return took(&s, why, nwhy);
        }
        lg_str_free(&s);
      }
      d = e ? e + 1 : NULL;
    }
    snprintf(why, nwhy, "no folder of the package '%.*s' next to the URDF, up to three folders "
             "above it, or in ROS_PACKAGE_PATH; put the package there, or set ROS_PACKAGE_PATH "
             "to the folder that holds it", (int)(npkg > 200 ? 200 : npkg), pkg);
    return NULL;
  }
  const char *colon = strstr(filename, "://");
  if (colon) {
    snprintf(why, nwhy, "'%.200s' is a URL; only file:// and package:// are read: give a "
             "file path", filename);
    return NULL;
  }
  return filename[0] == '/' ? join("", 0, filename, why, nwhy)
                            : join(urdf_file, ndir, filename, why, nwhy);
}

/* ---- reading it ----------------------------------------------------------------- */
int lang_mesh_read(const char *path, char **buf, size_t *len, char *why, size_t nwhy) {
  *buf = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    snprintf(why, nwhy, "cannot open '%.300s': %s; check the filename (a relative path is "
             "read from the URDF's folder)", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(why, nwhy, "'%.300s' is not a regular file; give a mesh file", path);
    close(fd);
    return -1;
  }
  if ((uintmax_t)st.st_size > (uintmax_t)LANG_MESH_MAX_BYTES) {
    snprintf(why, nwhy, "'%.300s' is larger than %d MB; give a simpler mesh or a box", path,
             LANG_MESH_MAX_BYTES >> 20);
    close(fd);
    return -1;
  }
  size_t cap = (size_t)st.st_size + 1, n = 0; /* a file that grows is cut at its size */
  char *b = lg_malloc(cap + 1);
  if (!b) {
    snprintf(why, nwhy, "out of memory");
    close(fd);
    return -1;
  }
  for (;;) {
    if (n >= cap - 1) break;
    ssize_t k = read(fd, b + n, cap - 1 - n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      snprintf(why, nwhy, "cannot read '%.300s': %s", path, strerror(errno));
      lg_free(b);
      close(fd);
      return -1;
    }
    if (k == 0) break;
    n += (size_t)k;
  }
  close(fd);
  b[n] = 0;
  *buf = b;
  *len = n;
  return 0;
}

/* ---- parsing it --------------------------------------------------------------------- */
static int blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The next blank-separated token of s[*i..len) (0: none left). */
static int token(const char *s, size_t len, size_t *i, const char **t, size_t *n) {
  while (*i < len && blank(s[*i])) (*i)++;
  if (*i >= len) return 0;
  *t = s + *i;
  while (*i < len && !blank(s[*i])) (*i)++;
  *n = (size_t)(s + *i - *t);
  return 1;
}

/* The whole token as a number (finite or not); 0 when it is not one. */
static int number(const char *t, size_t n, double *d) {
  char buf[64];
  if (n == 0 || n >= sizeof buf) return 0;
  memcpy(buf, t, n);
  buf[n] = 0;
  char *e;
  *d = strtod(buf, &e);
  return e == buf + n;
}

static int line_of(const char *s, size_t k) {
  int line = 1;
  for (size_t i = 0; i < k; i++) line += s[i] == '\n';
  return line;
}

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int stl_binary(const unsigned char *p, size_t len, lang_bounds *b, char *why, size_t nwhy) {
  uint32_t n = le32(p + 80);
  for (uint32_t t = 0; t < n && 84 + 50 * (size_t)t + 50 <= len; t++) {
    const unsigned char *r = p + 84 + (size_t)t * 50 + 12; /* past the normal */
    for (int v = 0; v < 3; v++) {
      float f[3];
      for (int k = 0; k < 3; k++) {
        uint32_t u = le32(r + 12 * v + 4 * k);
        memcpy(&f[k], &u, sizeof u);
      }
      if (!lang_bounds_add(b, f[0], f[1], f[2])) {
        snprintf(why, nwhy, "vertex %d of triangle %u of the binary STL is not finite; repair "
                 "the mesh", v + 1, (unsigned)t + 1);
        return -1;
      }
    }
  }
  return 0;
}

static int stl_ascii(const char *s, size_t len, lang_bounds *b, char *why, size_t nwhy) {
  size_t i = 0, n;
  const char *t;
  while (token(s, len, &i, &t, &n)) {
    if (n != 6 || strncasecmp(t, "vertex", 6) != 0) continue;
    double v[3];
    for (int k = 0; k < 3; k++) {
      const char *u;
      size_t m;
      if (!token(s, len, &i, &u, &m) || !number(u, m, &v[k])) {
        snprintf(why, nwhy, "line %d of the ASCII STL: `vertex` needs three numbers; repair the "
                 "mesh", line_of(s, (size_t)(t - s)));
        return -1;
      }
    }
    if (!lang_bounds_add(b, v[0], v[1], v[2])) {
      snprintf(why, nwhy, "line %d of the ASCII STL: a vertex is not finite; repair the mesh",
               line_of(s, (size_t)(t - s)));
      return -1;
    }
  }
  return 0;
}

static int obj(const char *s, size_t len, lang_bounds *b, char *why, size_t nwhy) {
  int line = 1;
  for (size_t i = 0; i < len; line++) {
    size_t e = i;
    while (e < len && s[e] != '\n') e++;
    size_t k = i;
    while (k < e && blank(s[k])) k++;
    if (k + 1 < e && s[k] == 'v' && (s[k + 1] == ' ' || s[k + 1] == '\t')) {
      size_t j = k + 1;
      double v[3];
      for (int c = 0; c < 3; c++) {
        const char *u;
        size_t m;
        if (!token(s, e, &j, &u, &m) || !number(u, m, &v[c])) {
          snprintf(why, nwhy, "line %d of the OBJ: `v` needs three numbers; repair the mesh",
                   line);
          return -1;
        }
      }
      if (!lang_bounds_add(b, v[0], v[1], v[2])) {
        snprintf(why, nwhy, "line %d of the OBJ: a vertex is not finite; repair the mesh", line);
        return -1;
      }
    }
    i = e + 1;
  }
  return 0;
}

int lang_mesh_bounds(lang_mesh_kind kind, const char *data, size_t len, lang_bounds *b,
                     char *why, size_t nwhy) {
  int r;
  if (kind == MESH_STL) {
    uint64_t n = len >= 84 ? le32((const unsigned char *)data + 80) : 0;
    size_t k = 0;
    while (k < len && blank(data[k])) k++;
    int solid = len - k >= 5 && strncasecmp(data + k, "solid", 5) == 0;
    if (len >= 84 && 84 + 50 * n == (uint64_t)len) {
      r = stl_binary((const unsigned char *)data, len, b, why, nwhy);
    } else if (solid && ((r = stl_ascii(data, len, b, why, nwhy)) != 0 || b->n > 0 || len < 84)) {
      /* an ASCII STL (or a short file that starts as one) */
    } else {
      /* not binary, and "solid" without a vertex: a binary STL of the wrong size */
      if (len < 84)
        snprintf(why, nwhy, "the STL has %zu bytes: too short for a binary STL (84 at least) and "
                 "not an ASCII one (`solid ...`); repair the mesh", len);
      else
        snprintf(why, nwhy, "the binary STL has %zu bytes where its %llu triangles take 84 + 50*%llu "
                 "= %llu (and it is not an ASCII STL); repair the mesh", len,
                 (unsigned long long)n, (unsigned long long)n,
                 (unsigned long long)(84 + 50 * n));
      return -1;
    }
  } else if (kind == MESH_OBJ) {
    r = obj(data, len, b, why, nwhy);
  } else {
    snprintf(why, nwhy, "unknown mesh format; give a .stl, .obj or .dae file");
    return -1;
  }
  if (r == 0 && b->n == 0) {
    snprintf(why, nwhy, "the mesh has no vertex; give a mesh with triangles");
    return -1;
  }
  return r;
}

int lang_mesh_float_array(const char *s, size_t len, int stride, double unit, const double *M,
                          lang_bounds *b, char *why, size_t nwhy) {
  if (stride < 3) {
    snprintf(why, nwhy, "the COLLADA positions' stride %d is less than 3; repair the mesh",
             stride);
    return -1;
  }
  size_t i = 0, n, count = 0;
  const char *t;
  double v[3] = {0, 0, 0};
  while (token(s, len, &i, &t, &n)) {
    double d;
    if (!number(t, n, &d)) {
      snprintf(why, nwhy, "the COLLADA <float_array> holds '%.*s', not a number; repair the mesh",
               (int)(n > 40 ? 40 : n), t);
      return -1;
    }
    int c = (int)(count++ % (size_t)stride);
    if (c < 3) v[c] = d;
    if (c == 2 && M) {
      double w[3];
      for (int i = 0; i < 3; i++)
        w[i] = M[4 * i] * v[0] + M[4 * i + 1] * v[1] + M[4 * i + 2] * v[2] + M[4 * i + 3];
      memcpy(v, w, sizeof w);
    }
    if (c == 2 && !lang_bounds_add(b, v[0] * unit, v[1] * unit, v[2] * unit)) {
      snprintf(why, nwhy, "a COLLADA position is not finite; repair the mesh");
      return -1;
    }
  }
  if (count % (size_t)stride) {
    snprintf(why, nwhy, "the COLLADA <float_array> has %zu numbers, not a multiple of its "
             "stride %d; repair the mesh", count, stride);
    return -1;
  }
  return 0;
}

/* ---- the box --------------------------------------------------------------------- */
int lang_mesh_box(const char *urdf_file, const char *fn, const char *s, double c[3], double e[3],
                  int *moved, char *why, size_t nwhy) {
  double sc[3] = {1, 1, 1};
  *moved = 0;
  if (s) {
    const char *p = s;
    int ok = 1;
    for (int i = 0; i < 3 && ok; i++) {
      char *end;
      sc[i] = strtod(p, &end);
      ok = end != p && isfinite(sc[i]);
      p = end;
    }
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    int bad = !ok || *p;
    if (bad) snprintf(why, nwhy, "its scale=\"%.60s\" is not three finite numbers; write "
                      "scale=\"sx sy sz\"", s);
    if (bad) return -1;
  }
  if (!fn) {
    snprintf(why, nwhy, "the <mesh> has no filename; give filename=\"...\"");
    return -1;
  }
  char *path = lang_mesh_resolve(urdf_file, fn, why, nwhy);
  if (!path) return -1;
  lang_mesh_kind kind = lang_mesh_kind_of(path);
  if (kind == MESH_UNKNOWN) {
    snprintf(why, nwhy, "'%.300s' is not a .stl, .obj or .dae file; convert the mesh to one of "
             "them", path);
    lg_free(path);
    return -1;
  }
  char *data = NULL;
  size_t len = 0;
  lang_bounds b;
  lang_bounds_init(&b);
  int r = lang_mesh_read(path, &data, &len, why, nwhy);
  char inner[400];
  if (r == 0)
    r = kind == MESH_DAE ? lang_mesh_dae_bounds(path, data, len, &b, moved, inner, sizeof inner)
                         : lang_mesh_bounds(kind, data, len, &b, inner, sizeof inner);
  if (r == 0)
    for (int i = 0; i < 3 && r == 0; i++) {
      c[i] = (b.lo[i] + b.hi[i]) / 2 * sc[i];
      e[i] = (b.hi[i] - b.lo[i]) * fabs(sc[i]);
      if (!isfinite(c[i]) || !isfinite(e[i])) {
        snprintf(inner, sizeof inner, "its box is too large for a double; check the scale");
        r = -1;
      }
    }
  if (r != 0 && data) snprintf(why, nwhy, "'%.300s': %s", path, inner);
  lg_free(data);
  lg_free(path);
  return r;
}
