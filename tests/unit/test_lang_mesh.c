/* test_lang_mesh.c - the bounding box of a URDF mesh (lang_mesh.c): binary
 * and ASCII STL, OBJ and COLLADA float arrays against the boxes of
 * vertices written here; every prefix and thousands of byte mutations of
 * each sample read from exact-size heap copies, a COLLADA node's matrix (ASan catches a read past
 * the end: the parsers may not rely on a NUL); where filename resolves
 * (relative, file://, package:// next to and above the URDF, and through
 * ROS_PACKAGE_PATH); the bounded reader refuses folders, FIFOs (without
 * blocking) and missing files. */
#include "lang_mesh.h"
#include "lg_base.h"
#include "test_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const float V[6][3] = {{-1, 2, 0.5f}, {3, 2, 0.5f}, {3, 4, 1.5f},
                               {-1, 2, 0.5f}, {3, 4, 1.5f}, {0, 3, 1}};

static void put32(unsigned char *p, uint32_t u) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(u >> (8 * i));
}

/* a binary STL of the two triangles of V: 84 + 100 bytes */
static size_t binary_stl(unsigned char *b) {
  memset(b, 0, 184);
  memcpy(b, "solid-looking header", 20);
  put32(b + 80, 2);
  for (int t = 0; t < 2; t++)
    for (int v = 0; v < 3; v++)
      for (int k = 0; k < 3; k++) {
        uint32_t u;
        memcpy(&u, &V[3 * t + v][k], 4);
        put32(b + 84 + 50 * t + 12 + 12 * v + 4 * k, u);
      }
  return 184;
}

static const char ASCII_STL[] =
    "solid t\n facet normal 0 0 1\n  outer loop\n   vertex -1 2 0.5\n   vertex 3 2 0.5\n"
    "   vertex 3 4 1.5\n  endloop\n endfacet\n facet normal 0 0 1\n  outer loop\n"
    "   vertex -1 2 0.5\n   vertex 3 4 1.5\n   vertex 0 3 1\n  endloop\n endfacet\nendsolid t\n";
static const char OBJ[] = "# c\nv -1 2 0.5\nv 3 2 0.5\r\nv 3 4 1.5 1.0\nvn 0 0 1\nvt 9 9\n"
                          "v -1 2 0.5\n\tv 3 4 1.5\nv 0 3 1\nf 1 2 3\nf 4 5 6\n";
static const char FLOATS[] = "-1 2 0.5 7  3 2 0.5 7\n3 4 1.5 7 0 3 1 7";

/* bounds of an exact-size copy (so a read past the end is caught) */
static int bounds(lang_mesh_kind k, const void *src, size_t len, lang_bounds *b, char *why) {
  char *c = lg_malloc(len ? len : 1);
  if (len) memcpy(c, src, len);
  lang_bounds_init(b);
  int r = lang_mesh_bounds(k, c, len, b, why, 300);
  lg_free(c);
  return r;
}

static int floats(const void *src, size_t len, int stride, double unit, lang_bounds *b,
                  char *why) {
  char *c = lg_malloc(len ? len : 1);
  if (len) memcpy(c, src, len);
  lang_bounds_init(b);
  int r = lang_mesh_float_array(c, len, stride, unit, NULL, b, why, 300);
  lg_free(c);
  return r;
}

static void check_box(const lang_bounds *b, double unit) {
  const double lo[3] = {-1, 2, 0.5}, hi[3] = {3, 4, 1.5};
  for (int i = 0; i < 3; i++) {
    CHECK_NEAR(b->lo[i], lo[i] * unit, 1e-15);
    CHECK_NEAR(b->hi[i], hi[i] * unit, 1e-15);
  }
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* every prefix and 3000 mutations: no crash, and any success is a finite box */
static void hostile(lang_mesh_kind k, const unsigned char *src, size_t len, int stride) {
  unsigned char *m = lg_malloc(len);
  lang_bounds b;
  char why[300];
  int sane = 1;
  for (size_t n = 0; n <= len; n++) {
    int r = k == MESH_DAE ? floats(src, n, stride, 1, &b, why) : bounds(k, src, n, &b, why);
    if (r == 0) sane &= k == MESH_DAE ? b.n <= 4 : b.n > 0;
    else sane &= why[0] != 0;
    why[0] = 0;
  }
  static const char bytes[] = "0123456789.eE+-nNaAiI \n\tv\xff\x00";
  for (int it = 0; it < 3000; it++) {
    memcpy(m, src, len);
    int flips = 1 + (int)(next() % 4);
    for (int f = 0; f < flips; f++) {
      size_t at = (size_t)(next() % len);
      m[at] = next() % 3 ? (unsigned char)bytes[next() % (sizeof bytes - 1)] : (unsigned char)next();
    }
    size_t n = next() % 5 ? len : (size_t)(next() % len);
    why[0] = 0;
    int r = k == MESH_DAE ? floats(m, n, stride, 1, &b, why) : bounds(k, m, n, &b, why);
    if (r == 0)
      for (int i = 0; i < 3; i++)
        sane &= b.n == 0 ? k == MESH_DAE
                         : b.lo[i] <= b.hi[i] && isfinite(b.lo[i]) && isfinite(b.hi[i]);
    else sane &= why[0] != 0;
  }
  CHECK(sane);
  if (!sane) fprintf(stderr, "  (kind %d, %zu bytes)\n", (int)k, len);
  lg_free(m);
}

static void mkfile(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static void resolve(const char *urdf, const char *fn, const char *want) {
  char why[600] = "";
  char *p = lang_mesh_resolve(urdf, fn, why, sizeof why);
  if (want) CHECK_STR(p, want);
  else CHECK(!p && why[0]);
  if (!p && want) fprintf(stderr, "  (%s)\n", why);
  lg_free(p);
}

int main(void) {
  lang_bounds b;
  char why[300];
  unsigned char stl[184];
  size_t n = binary_stl(stl);

  CHECK(lang_mesh_kind_of("a/b.STL") == MESH_STL && lang_mesh_kind_of("x.obj") == MESH_OBJ &&
        lang_mesh_kind_of("x.Dae") == MESH_DAE && lang_mesh_kind_of("x.ply") == MESH_UNKNOWN &&
        lang_mesh_kind_of("a.stl/x") == MESH_UNKNOWN);

  CHECK(bounds(MESH_STL, stl, n, &b, why) == 0 && b.n == 6);
  check_box(&b, 1);
  CHECK(bounds(MESH_STL, stl, n - 1, &b, why) != 0 && strstr(why, "84 + 50*2 = 184"));
  CHECK(bounds(MESH_STL, stl, 84, &b, why) != 0);
  CHECK(bounds(MESH_STL, ASCII_STL, strlen(ASCII_STL), &b, why) == 0 && b.n == 6);
  check_box(&b, 1);
  CHECK(bounds(MESH_OBJ, OBJ, strlen(OBJ), &b, why) == 0 && b.n == 6);
  check_box(&b, 1);
  CHECK(floats(FLOATS, strlen(FLOATS), 4, 0.001, &b, why) == 0 && b.n == 4);
  {
    const double lo[3] = {-1e-3, 2e-3, 0.5e-3}, hi[3] = {3e-3, 4e-3, 1.5e-3};
    for (int i = 0; i < 3; i++) {
      CHECK_NEAR(b.lo[i], lo[i], 1e-18);
      CHECK_NEAR(b.hi[i], hi[i], 1e-18);
    }
  }
  {
    /* (x, y, z) -> (-y + 1, 2x, z - 3): the box of the images of V's corners */
    static const double M[16] = {0, -1, 0, 1, 2, 0, 0, 0, 0, 0, 1, -3, 0, 0, 0, 1};
    lang_bounds_init(&b);
    CHECK(lang_mesh_float_array(FLOATS, strlen(FLOATS), 4, 10, M, &b, why, sizeof why) == 0);
    const double lo[3] = {-30, -20, -25}, hi[3] = {-10, 60, -15};
    for (int i = 0; i < 3; i++) {
      CHECK_NEAR(b.lo[i], lo[i], 1e-15);
      CHECK_NEAR(b.hi[i], hi[i], 1e-15);
    }
  }
  CHECK(floats(FLOATS, strlen(FLOATS), 2, 1, &b, why) != 0 && strstr(why, "stride 2"));
  CHECK(floats(FLOATS, strlen(FLOATS), 3, 1, &b, why) != 0 && strstr(why, "multiple"));
  CHECK(bounds(MESH_OBJ, "v 1 2 nan\n", 10, &b, why) != 0 && strstr(why, "line 1"));
  CHECK(bounds(MESH_OBJ, "v 1 2 1e400", 11, &b, why) != 0 && strstr(why, "not finite"));
  CHECK(bounds(MESH_OBJ, "vn 1 2 3\n", 9, &b, why) != 0 && strstr(why, "no vertex"));
  CHECK(bounds(MESH_STL, "solid\nvertex 1 2", 16, &b, why) != 0 && strstr(why, "line 2"));
  CHECK(bounds(MESH_UNKNOWN, "v 1 2 3", 7, &b, why) != 0 && strstr(why, ".stl, .obj or .dae"));

  hostile(MESH_STL, stl, n, 0);
  hostile(MESH_STL, (const unsigned char *)ASCII_STL, strlen(ASCII_STL), 0);
  hostile(MESH_OBJ, (const unsigned char *)OBJ, strlen(OBJ), 0);
  hostile(MESH_DAE, (const unsigned char *)FLOATS, strlen(FLOATS), 4);

  /* where filename resolves */
  char tmpl[] = "/tmp/lg_mesh_XXXXXX";
  char *dir = mkdtemp(tmpl);
  CHECK(dir != NULL);
  if (dir) {
    char u[512], e[512], w[600], fifo[512];
    char cmd[700]; /* ws/pkg/urdf/robot.urdf, ws/pkg/urdf/near/, far/fpkg/ */
    snprintf(cmd, sizeof cmd, "%s/ws/pkg/urdf/near", dir);
    for (char *s = cmd + strlen(dir) + 1; *s; s++)
      if (*s == '/') *s = 0, mkdir(cmd, 0700), *s = '/';
    mkdir(cmd, 0700);
    snprintf(e, sizeof e, "%s/far/fpkg", dir);
    snprintf(cmd, sizeof cmd, "%s/far", dir);
    mkdir(cmd, 0700);
    mkdir(e, 0700);
    snprintf(u, sizeof u, "%s/ws/pkg/urdf/robot.urdf", dir);
    mkfile(u, "<robot/>");
    snprintf(w, sizeof w, "%s/ws/pkg/urdf/m/a.stl", dir);
    resolve(u, "m/a.stl", w);
    resolve(u, "/abs/a.stl", "/abs/a.stl");
    resolve(u, "file:///abs/a.stl", "/abs/a.stl");
    resolve(u, "file://m/a.stl", w);
    resolve("robot.urdf", "m/a.stl", "m/a.stl");
    snprintf(w, sizeof w, "%s/ws/pkg/urdf/near/x/y.stl", dir);
    resolve(u, "package://near/x/y.stl", w);
    snprintf(w, sizeof w, "%s/ws/pkg/urdf/../../pkg/m.stl", dir);
    resolve(u, "package://pkg/m.stl", w);
    resolve(u, "package://fpkg/m.stl", NULL);
    resolve(u, "package://pkg", NULL);
    resolve(u, "package:///x.stl", NULL);
    resolve(u, "https://x/y.stl", NULL);
    resolve(u, "", NULL);
    snprintf(w, sizeof w, "/nonexistent:%s/far/", dir);
    setenv("ROS_PACKAGE_PATH", w, 1);
    snprintf(w, sizeof w, "%s/far/fpkg/m.stl", dir);
    resolve(u, "package://fpkg/m.stl", w);
    setenv("ROS_PACKAGE_PATH", e, 1); /* a package folder itself */
    resolve(u, "package://fpkg/m.stl", w);
    unsetenv("ROS_PACKAGE_PATH");

    /* the bounded reader */
    char *buf;
    size_t len;
    CHECK(lang_mesh_read(u, &buf, &len, why, sizeof why) == 0 && len == 8 &&
          strcmp(buf, "<robot/>") == 0);
    lg_free(buf);
    CHECK(lang_mesh_read(e, &buf, &len, why, sizeof why) != 0 && !buf &&
          strstr(why, "not a regular file"));
    snprintf(fifo, sizeof fifo, "%s/fifo.stl", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(lang_mesh_read(fifo, &buf, &len, why, sizeof why) != 0 && !buf &&
          strstr(why, "not a regular file"));
    CHECK(lang_mesh_read("/nonexistent/x.stl", &buf, &len, why, sizeof why) != 0 && !buf &&
          strstr(why, "cannot open"));
    unlink(fifo);
    unlink(u);
    rmdir(e);
    snprintf(cmd, sizeof cmd, "%s/far", dir);
    rmdir(cmd);
    static const char *const sub[] = {"/ws/pkg/urdf/near", "/ws/pkg/urdf", "/ws/pkg", "/ws", ""};
    for (int i = 0; i < 5; i++) {
      snprintf(cmd, sizeof cmd, "%s%s", dir, sub[i]);
      CHECK(rmdir(cmd) == 0);
    }
  }
  return tu_summary("test_lang_mesh");
}
