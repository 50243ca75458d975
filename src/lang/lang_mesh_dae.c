/* lang_mesh_dae.c - the bounds of a COLLADA (.dae) mesh (see lang_mesh.h),
 * read with the libxml2 that lang_urdf.c loads (lang_xml.h), as hostile as
 * a URDF: no document type or entity, no network, libxml2's limits on
 * depth (so the recursions below go at most 256 deep) and text size.
 */
#include "lang_mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang_xml.h"
#include "lg_base.h"

static int is_elem(const xmlNode *n, const char *name) {
  return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static const xmlNode *child(const xmlNode *n, const char *name) {
  for (const xmlNode *c = n->children; c; c = c->next)
    if (is_elem(c, name)) return c;
  return NULL;
}

/* Attribute `a` of n as a string of our own (NULL: absent or no memory). */
static char *attr(const xmlNode *n, const char *a) {
  const lang_xml_api *X = lang_xml();
  xmlChar *v = X->get_prop(n, (const xmlChar *)a);
  if (!v) return NULL;
  char *r = lg_strdup((const char *)v);
  (*X->free)(v);
  return r;
}

static int attr_is(const xmlNode *n, const char *a, const char *want) {
  char *v = attr(n, a);
  int r = v && strcmp(v, want) == 0;
  lg_free(v);
  return r;
}

/* Work is counted (elements visited, ids compared, bytes of numbers read)
 * against a budget: a file that instances a large geometry many times, or
 * names one of many sources many times, is refused instead of taking
 * hours. */
enum { DAE_WORK = LANG_MESH_MAX_BYTES };

static int spend(size_t *work, size_t n, char *why, size_t nwhy) {
  *work += n;
  if (*work <= (size_t)DAE_WORK) return 0;
  snprintf(why, nwhy, "the COLLADA file takes too much work (its geometries instanced or named "
           "too often); simplify the mesh");
  return -1;
}

/* The positions of every <mesh> at or below n: each <vertices>' <input
 * semantic="POSITION" source="#ID"/> names the mesh's <source id="ID">,
 * whose <float_array> holds them (`stride` numbers a vertex, its accessor's
 * stride, default 3). */
static int dae_meshes(const xmlNode *n, double unit, const double *M, lang_bounds *b,
                      size_t *work, char *why, size_t nwhy) {
  for (; n; n = n->next) {
    if (spend(work, 1, why, nwhy)) return -1;
    if (n->type != XML_ELEMENT_NODE) continue;
    if (!is_elem(n, "mesh")) {
      if (dae_meshes(n->children, unit, M, b, work, why, nwhy)) return -1;
      continue;
    }
    for (const xmlNode *v = n->children; v; v = v->next) {
      if (!is_elem(v, "vertices")) continue;
      for (const xmlNode *in = v->children; in; in = in->next) {
        if (!is_elem(in, "input") || !attr_is(in, "semantic", "POSITION")) continue;
        char *src = attr(in, "source");
        const xmlNode *S = NULL;
        for (const xmlNode *c = n->children; c && src && src[0] == '#' && !S; c = c->next) {
          if (spend(work, 1, why, nwhy)) {
            lg_free(src);
            return -1;
          }
          if (is_elem(c, "source") && attr_is(c, "id", src + 1)) S = c;
        }
        lg_free(src);
        const xmlNode *fa = S ? child(S, "float_array") : NULL;
        if (!fa) {
          snprintf(why, nwhy, "a COLLADA <vertices> names no <source> with a <float_array> of "
                   "positions; repair the mesh");
          return -1;
        }
        int stride = 3;
        const xmlNode *tc = child(S, "technique_common"), *acc = tc ? child(tc, "accessor") : NULL;
        char *st = acc ? attr(acc, "stride") : NULL;
        if (st) {
          char *e;
          long k = strtol(st, &e, 10);
          stride = e != st && !*e && k >= 0 && k <= 1000 ? (int)k : 0;
          lg_free(st);
        }
        for (const xmlNode *t = fa->children; t; t = t->next) {
          if (t->type != XML_TEXT_NODE || !t->content) continue;
          const char *s = (const char *)t->content;
          size_t len = strlen(s);
          if (spend(work, len, why, nwhy) ||
              lang_mesh_float_array(s, len, stride, unit, M, b, why, nwhy))
            return -1;
        }
      }
    }
  }
  return 0;
}

/* A COLLADA scene: its nodes' transforms composed down the tree (each
 * node's <matrix>, <translate>, <rotate> and <scale> in order), applied to
 * the geometries its <instance_geometry>s name. */
typedef struct dae_walk {
  const xmlNode *geometries; /* <library_geometries> */
  double unit;
  lang_bounds *b;
  char *why;
  size_t nwhy;
  int instances, skipped; /* skipped: <lookat>, <skew>, <instance_node> not applied */
  size_t work;
} dae_walk;

/* The k numbers of n's text (0: not exactly k finite numbers). */
static int dae_numbers(const xmlNode *n, double *v, int k) {
  const xmlNode *t = n->children;
  if (!t || t->type != XML_TEXT_NODE || !t->content || t->next) return 0;
  const char *p = (const char *)t->content;
  for (int i = 0; i < k; i++) {
    char *e;
    v[i] = strtod(p, &e);
    if (e == p || !isfinite(v[i])) return 0;
    p = e;
  }
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return *p == 0;
}

static void mat_mul(double M[16], const double T[16]) {
  double R[16];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      R[4 * i + j] = 0;
      for (int k = 0; k < 4; k++) R[4 * i + j] += M[4 * i + k] * T[4 * k + j];
    }
  memcpy(M, R, sizeof R);
}

static int dae_node(dae_walk *w, const xmlNode *node, const double P[16], int depth) {
  double M[16], v[16];
  memcpy(M, P, sizeof M);
  if (depth > 300) return 0;
  for (const xmlNode *c = node->children; c; c = c->next) {
    if (spend(&w->work, 1, w->why, w->nwhy)) return -1;
    if (c->type != XML_ELEMENT_NODE) continue;
    double T[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    if (is_elem(c, "matrix") && dae_numbers(c, v, 16)) {
      memcpy(T, v, sizeof T);
    } else if (is_elem(c, "translate") && dae_numbers(c, v, 3)) {
      T[3] = v[0], T[7] = v[1], T[11] = v[2];
    } else if (is_elem(c, "scale") && dae_numbers(c, v, 3)) {
      T[0] = v[0], T[5] = v[1], T[10] = v[2];
    } else if (is_elem(c, "rotate") && dae_numbers(c, v, 4)) {
      /* about the axis (x, y, z) by an angle in degrees (Rodrigues) */
      double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), a = v[3] * LG_PI / 180;
      if (n == 0) continue;
      double x = v[0] / n, y = v[1] / n, z = v[2] / n, C = cos(a), S = sin(a), D = 1 - C;
      double R[16] = {C + x * x * D,     x * y * D - z * S, x * z * D + y * S, 0,
                      y * x * D + z * S, C + y * y * D,     y * z * D - x * S, 0,
                      z * x * D - y * S, z * y * D + x * S, C + z * z * D,     0,
                      0,                 0,                 0,                 1};
      memcpy(T, R, sizeof T);
    } else if (is_elem(c, "matrix") || is_elem(c, "translate") || is_elem(c, "scale") ||
               is_elem(c, "rotate") || is_elem(c, "lookat") || is_elem(c, "skew")) {
      w->skipped = 1;
      continue;
    } else {
      continue;
    }
    mat_mul(M, T);
  }
  for (const xmlNode *c = node->children; c; c = c->next) {
    if (is_elem(c, "node")) {
      if (dae_node(w, c, M, depth + 1)) return -1;
    } else if (is_elem(c, "instance_node")) {
      w->skipped = 1;
    } else if (is_elem(c, "instance_geometry")) {
      char *url = attr(c, "url");
      const xmlNode *g = NULL;
      for (const xmlNode *k = w->geometries ? w->geometries->children : NULL;
           k && url && url[0] == '#' && !g; k = k->next) {
        if (spend(&w->work, 1, w->why, w->nwhy)) {
          lg_free(url);
          return -1;
        }
        if (is_elem(k, "geometry") && attr_is(k, "id", url + 1)) g = k;
      }
      lg_free(url);
      if (!g) {
        w->skipped = 1;
        continue;
      }
      w->instances++;
      if (dae_meshes(g->children, w->unit, M, w->b, &w->work, w->why, w->nwhy)) return -1;
    }
  }
  return 0;
}

/* (lang_mesh.h) Without a scene that instances a geometry, every geometry
 * counts as it is. */
int lang_mesh_dae_bounds(const char *path, const char *data, size_t len, lang_bounds *b,
                         int *moved, char *why, size_t nwhy) {
  const lang_xml_api *X = lang_xml();
  int line, col;
  *moved = 0;
  if (!X->ok) {
    snprintf(why, nwhy, "reading COLLADA needs libxml2, which could not be loaded (%.100s); "
             "install it: apt-get install libxml2", X->why);
    return -1;
  }
  if (lang_xml_has_dtd(data, len, &line, &col) < len) {
    snprintf(why, nwhy, "the COLLADA file declares a document type or entities (line %d), which "
             "are not read; remove the <!DOCTYPE ...>", line);
    return -1;
  }
  X->reset_error();
  xmlDocPtr doc = X->read_memory(data, (int)len, path, NULL, LANG_XML_FLAGS);
  if (!doc) {
    xmlErrorPtr e = X->last_error();
    char msg[200] = "";
    if (e && e->message) {
      snprintf(msg, sizeof msg, "%s", e->message);
      size_t n = strlen(msg);
      while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
    }
    snprintf(why, nwhy, "the COLLADA file is malformed XML (line %d: %s); repair the mesh",
             e && e->line > 0 ? e->line : 1, msg);
    X->reset_error();
    return -1;
  }
  int r = 0;
  double unit = 1;
  const xmlNode *root = X->root(doc), *asset = root ? child(root, "asset") : NULL;
  const xmlNode *u = asset ? child(asset, "unit") : NULL, *up = asset ? child(asset, "up_axis") : NULL;
  char *m = u ? attr(u, "meter") : NULL;
  if (m) {
    char *e;
    unit = strtod(m, &e);
    if (e == m || *e || !isfinite(unit) || unit <= 0) {
      snprintf(why, nwhy, "the COLLADA <unit meter=\"%.40s\"> is not a positive number; repair "
               "the mesh", m);
      r = -1;
    }
    lg_free(m);
  }
  dae_walk w = {root ? child(root, "library_geometries") : NULL, unit, b, why, nwhy, 0, 0, 0};
  /* the scene: <scene><instance_visual_scene url="#ID"/>, else the first */
  const xmlNode *lvs = root ? child(root, "library_visual_scenes") : NULL, *vs = NULL;
  const xmlNode *sc = root ? child(root, "scene") : NULL;
  const xmlNode *ivs = sc ? child(sc, "instance_visual_scene") : NULL;
  char *url = ivs ? attr(ivs, "url") : NULL;
  for (const xmlNode *k = lvs ? lvs->children : NULL; k && !vs; k = k->next)
    if (is_elem(k, "visual_scene") && (!url || (url[0] == '#' && attr_is(k, "id", url + 1))))
      vs = k;
  lg_free(url);
  if (!vs && lvs) vs = child(lvs, "visual_scene");
  static const double I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  for (const xmlNode *k = vs ? vs->children : NULL; k && r == 0; k = k->next)
    if (is_elem(k, "node")) r = dae_node(&w, k, I, 0);
  if (r == 0 && w.instances == 0 && root) {
    lang_bounds_init(b);
    w.skipped = 0;
    r = dae_meshes(root, unit, NULL, b, &w.work, why, nwhy);
  }
  if (r == 0 && b->n == 0) {
    snprintf(why, nwhy, "the COLLADA file has no <mesh> positions; give a mesh with triangles");
    r = -1;
  }
  const char *ua = up && up->children && up->children->type == XML_TEXT_NODE
                       ? (const char *)up->children->content : NULL;
  *moved = (ua && !strstr(ua, "Z_UP")) | (w.skipped ? 2 : 0);
  X->free_doc(doc);
  return r;
}
