/* lang_urdf.c - URDF robot descriptions as model text (see lang_urdf.h).
 *
 * libxml2 is opened with dlopen("libxml2.so.2") the first time a URDF is
 * read (linking it cost every start of the command 2.7M instructions: ICU
 * and libstdc++ come with it); the headers only give the types. Hostile
 * XML is refused: no DTD at all (so no entities, internal or external, and
 * no entity expansion), no network (XML_PARSE_NONET), libxml2's default
 * limits on depth and text size (no XML_PARSE_HUGE), a size limit on the
 * file and on the number of links and joints.
 */
#include "lang_urdf.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang_ast.h"
#include "lang_mesh.h"
#include "lang_xml.h"

enum {
  URDF_MAX_BYTES = 16 << 20, /* a URDF larger than this is refused */
  URDF_MAX_ITEMS = 4096      /* links and joints, each */
};

/* ---- libxml2, loaded on first use ------------------------------------------------- */
static lang_xml_api X;
static pthread_once_t x_once = PTHREAD_ONCE_INIT;

static void x_open(void) {
  void *h = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(X.why, sizeof X.why, "%s", e ? e : "libxml2.so.2 not found");
    return;
  }
#define SYM_(field, name)                                      \
  do {                                                         \
    void *p_ = dlsym(h, name);                                 \
    if (!p_) {                                                 \
      snprintf(X.why, sizeof X.why, "libxml2 has no %s", name); \
      return;                                                  \
    }                                                          \
    memcpy(&X.field, &p_, sizeof p_);                          \
  } while (0)
  SYM_(read_memory, "xmlReadMemory");
  SYM_(free_doc, "xmlFreeDoc");
  SYM_(root, "xmlDocGetRootElement");
  SYM_(get_prop, "xmlGetProp");
  SYM_(line_no, "xmlGetLineNo");
  SYM_(last_error, "xmlGetLastError");
  SYM_(reset_error, "xmlResetLastError");
  SYM_(free, "xmlFree");
#undef SYM_
  X.ok = 1; /* the handle stays open for the process's life */
}

const lang_xml_api *lang_xml(void) {
  pthread_once(&x_once, x_open);
  return &X;
}

/* The offset of the first "<!D" or "<!E" (any case) of src, at line:col
 * (len: none). XML read here may declare no document type and no entity. */
size_t lang_xml_has_dtd(const char *src, size_t len, int *line, int *col) {
  for (size_t i = 0, ln = 1, ls = 0; i < len; i++) {
    if (src[i] == '\n') ln++, ls = i + 1;
    if (src[i] == '<' && i + 2 < len && src[i + 1] == '!' &&
        (src[i + 2] == 'D' || src[i + 2] == 'E' || src[i + 2] == 'd' || src[i + 2] == 'e')) {
      *line = ln < 1000000000 ? (int)ln : 1;
      *col = i - ls < 1000000000 ? (int)(i - ls) + 1 : 1;
      return i;
    }
  }
  return len;
}

/* ---- the reader's state ------------------------------------------------------------- */
typedef enum { J_REVOLUTE, J_CONTINUOUS, J_PRISMATIC, J_FIXED, J_FLOATING, J_PLANAR } jtype;
static const char *const jtype_names[] = {"revolute", "continuous", "prismatic",
                                          "fixed",    "floating",   "planar"};

typedef struct ulink {
  char *name;       /* model name (LNK) */
  const char *urdf; /* as written (lives in names) */
  int line, col;
  int parent_joint; /* -1: none (the root) */
  int has_inertial, iline, icol;
  double mass, com[3], I[6]; /* I: Ixx Iyy Izz Ixy Iyz Izx in the link frame */
  const xmlNode *node;       /* the <link> (its <visual>s are drawn) */
} ulink;

typedef struct ujoint {
  char *name; /* model name (J) */
  const char *urdf;
  int line, col, type;
  int parent, child; /* link indices */
  double xyz[3], rpy[3], axis[3];
  double damping, friction;
  int has_mimic, mline, mcol;
  char *mimic; /* the URDF name of the joint mimicked */
  double mult, offset;
  int has_limit, lline, lcol; /* <limit> of a revolute or prismatic joint */
  double lower, upper;
} ujoint;

typedef struct urdf {
  const char *file;
  const char *src;
  size_t len;
  lg_diag *diag;
  lang_expanded *x;
  const char *xfile; /* x's copy of file */
  ulink *links;
  size_t nlinks, links_cap;
  ujoint *joints;
  size_t njoints, joints_cap;
  char **names; /* every model name taken so far */
  size_t nnames, names_cap;
  lg_map name_set; /* the same by hash (value: the name) */
  char **props; /* attribute strings to release (xmlFree) */
  size_t nprops, props_cap;
  size_t *line_start; /* nlines: where each line of src starts (NULL: none) */
  size_t nlines;
  int oom;
} urdf;

static lg_status fail(urdf *U, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static lg_status fail(urdf *U, int line, int col, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lg_diag_set(U->diag, LG_ERR_MODEL, U->file, line, col, "%s", msg);
  return LG_ERR_MODEL;
}

/* Line and column of the element: libxml2 knows the line where its start
 * tag ends; the column is that of its last "<name" up to that line's end. */
/* Where each line starts (a table, so that finding a node's position does
 * not scan the text from its start for every node). */
static void index_lines(urdf *U) {
  size_t n = 1;
  for (size_t i = 0; i < U->len; i++) n += U->src[i] == '\n';
  U->line_start = lg_malloc(n * sizeof *U->line_start);
  if (!U->line_start) return; /* (node_pos scans instead) */
  U->line_start[0] = 0;
  U->nlines = 1;
  for (size_t i = 0; i < U->len; i++)
    if (U->src[i] == '\n') U->line_start[U->nlines++] = i + 1;
}

/* The line (1-based) holding offset i, and where that line starts. */
static int line_of(const urdf *U, size_t i, size_t *ls) {
  if (!U->line_start) {
    int ln = 1;
    *ls = 0;
    for (size_t k = 0; k < i; k++)
      if (U->src[k] == '\n') ln++, *ls = k + 1;
    return ln;
  }
  size_t lo = 0, hi = U->nlines; /* the last start <= i */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (U->line_start[mid] <= i) lo = mid;
    else hi = mid;
  }
  *ls = U->line_start[lo];
  return (int)lo + 1;
}

static void node_pos(const urdf *U, const xmlNode *n, int *line, int *col) {
  long l = X.line_no(n);
  *line = l > 0 && l < 1000000000 ? (int)l : 1;
  *col = 1;
  size_t end = 0;
  if (U->line_start) {
    end = (size_t)*line - 1 < U->nlines ? U->line_start[*line - 1] : U->len;
  } else {
    int cur = 1;
    while (end < U->len && cur < *line)
      if (U->src[end++] == '\n') cur++;
  }
  while (end < U->len && U->src[end] != '\n') end++;
  size_t nl = strlen((const char *)n->name);
  for (size_t i = end; i-- > 0;) {
    if (U->src[i] == '<' && i + 1 + nl <= U->len &&
        memcmp(U->src + i + 1, n->name, nl) == 0) {
      size_t ls;
      *line = line_of(U, i, &ls);
      *col = (int)(i - ls) + 1;
      return;
    }
  }
}

static const char *prop(urdf *U, const xmlNode *n, const char *name) {
  xmlChar *v = X.get_prop(n, (const xmlChar *)name);
  if (!v) return NULL;
  if (!LG_PUSH(U->props, U->nprops, U->props_cap, (char *)v)) {
    (*X.free)(v);
    U->oom = 1;
    return NULL;
  }
  return (const char *)v;
}

static int is_elem(const xmlNode *n, const char *name) {
  return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static const xmlNode *child(const xmlNode *n, const char *name) {
  for (const xmlNode *c = n->children; c; c = c->next)
    if (is_elem(c, name)) return c;
  return NULL;
}

/* k numbers separated by blanks from attribute `a` of element n (absent:
 * the defaults stay). */
static lg_status numbers(urdf *U, const xmlNode *n, const char *a, double *v, int k) {
  const char *s = prop(U, n, a);
  if (!s) return U->oom ? LG_ERR_NOMEM : LG_OK;
  int line, col;
  for (int i = 0; i < k; i++) {
    char *e;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    double d = strtod(s, &e);
    if (e == s || !isfinite(d)) {
      node_pos(U, n, &line, &col);
      return fail(U, line, col, "<%s %s=\"...\"> needs %d finite number%s", (const char *)n->name,
                  a, k, k > 1 ? "s" : "");
    }
    v[i] = d;
    s = e;
  }
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  if (*s) {
    node_pos(U, n, &line, &col);
    return fail(U, line, col, "<%s %s=\"...\"> has more than %d number%s", (const char *)n->name,
                a, k, k > 1 ? "s" : "");
  }
  return LG_OK;
}

/* <origin xyz rpy> inside n (absent: zeros). */
static lg_status origin(urdf *U, const xmlNode *n, double xyz[3], double rpy[3]) {
  const xmlNode *o = child(n, "origin");
  if (!o) return LG_OK;
  lg_status st = numbers(U, o, "xyz", xyz, 3);
  return st == LG_OK ? numbers(U, o, "rpy", rpy, 3) : st;
}

/* ---- names ---------------------------------------------------------------------- */
static int same_name(const void *val, const void *probe) { return strcmp(val, probe) == 0; }

static int taken(const urdf *U, const char *s) {
  if (lang_reserved_reason(s)) return 1;
  return lg_map_find(&U->name_set, lg_hash_bytes(s, strlen(s)), same_name, s) != NULL;
}

static int take(urdf *U, const char *s) {
  char *d = lg_strdup(s);
  uint64_t h = lg_hash_bytes(s, strlen(s));
  if (!d || !lg_map_reserve(&U->name_set, 1) || !LG_PUSH(U->names, U->nnames, U->names_cap, d)) {
    lg_free(d);
    U->oom = 1;
    return 0;
  }
  size_t j = lg_map_seek(&U->name_set, h, same_name, s);
  if (!lg_map_val(&U->name_set, j)) lg_map_fill(&U->name_set, j, h, d);
  return 1;
}

/* Would base+suffix[i] all be free? */
static int all_free(const urdf *U, const char *base, const char *const *suf, int nsuf) {
  char buf[600];
  for (int i = 0; i < nsuf; i++) {
    snprintf(buf, sizeof buf, "%s%s", base, suf[i]);
    if (taken(U, buf)) return 0;
  }
  return 1;
}

static void add_note(urdf *U, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_note(urdf *U, int line, int col, const char *fmt, ...) {
  lg_str s;
  lg_str_init(&s);
  lg_str_printf(&s, "%s:%d:%d: note: ", U->file, line, col);
  va_list ap;
  va_start(ap, fmt);
  lg_str_vprintf(&s, fmt, ap);
  va_end(ap);
  char *t = s.oom ? NULL : lg_str_take(&s);
  lg_str_free(&s);
  if (!t || !LG_PUSH(U->x->notes, U->x->nnotes, U->x->notes_cap, t)) {
    lg_free(t);
    U->oom = 1;
  }
}

/* The model name of URDF name `u` (characters outside [A-Za-z0-9_] become
 * '_', a leading digit gets a '_' before it), with trailing '_' until it and
 * every name made from it (base + each suffix) are free; all are taken. */
static char *model_name(urdf *U, const char *u, const char *what, int line, int col,
                        const char *const *suf, int nsuf) {
  size_t n = strlen(u);
  if (n > 200) {
    fail(U, line, col, "the %s name is longer than 200 characters", what);
    return NULL;
  }
  char base[600];
  size_t k = 0;
  if (u[0] >= '0' && u[0] <= '9') base[k++] = '_';
  for (size_t i = 0; i < n; i++) {
    char c = u[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    base[k++] = ok ? c : '_';
  }
  base[k] = 0;
  while (!all_free(U, base, suf, nsuf) && k < 400) base[k++] = '_', base[k] = 0;
  if (!all_free(U, base, suf, nsuf)) {
    fail(U, line, col, "no free model name for the %s '%s'", what, u);
    return NULL;
  }
  if (strlen(base) > n + (u[0] >= '0' && u[0] <= '9'))
    add_note(U, line, col, "the %s '%s' is called '%s' in the model (its name is reserved "
             "or already taken)", what, u, base);
  char buf[600];
  for (int i = 0; i < nsuf; i++) {
    snprintf(buf, sizeof buf, "%s%s", base, suf[i]);
    if (!take(U, buf)) return NULL;
  }
  return lg_strdup(base);
}

/* ---- reading the elements --------------------------------------------------------- */
static int find_link(const urdf *U, const char *name) {
  for (size_t i = 0; i < U->nlinks; i++)
    if (strcmp(U->links[i].urdf, name) == 0) return (int)i;
  return -1;
}

/* Rz(y) Ry(p) Rx(r): the columns are the rotated axes in the parent. */
static void rpy_matrix(const double rpy[3], double R[9]) {
  double cr = cos(rpy[0]), sr = sin(rpy[0]), cp = cos(rpy[1]), sp = sin(rpy[1]);
  double cy = cos(rpy[2]), sy = sin(rpy[2]);
  double M[9] = {cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
                 sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
                 -sp,     cp * sr,                cp * cr};
  memcpy(R, M, sizeof M);
}

static lg_status read_link(urdf *U, const xmlNode *n) {
  ulink L = {0};
  node_pos(U, n, &L.line, &L.col);
  L.parent_joint = -1;
  L.node = n;
  L.urdf = prop(U, n, "name");
  if (!L.urdf) return U->oom ? LG_ERR_NOMEM : fail(U, L.line, L.col, "<link> needs a name");
  if (find_link(U, L.urdf) >= 0)
    return fail(U, L.line, L.col, "a second link named '%s'", L.urdf);
  const xmlNode *in = child(n, "inertial");
  if (in) {
    L.has_inertial = 1;
    node_pos(U, in, &L.iline, &L.icol);
    double rpy[3] = {0, 0, 0}, Iu[6] = {0, 0, 0, 0, 0, 0};
    lg_status st = origin(U, in, L.com, rpy);
    if (st != LG_OK) return st;
    const xmlNode *m = child(in, "mass"), *I = child(in, "inertia");
    if (!m) return fail(U, L.iline, L.icol, "<inertial> needs <mass value=\"...\"/>");
    if ((st = numbers(U, m, "value", &L.mass, 1)) != LG_OK) return st;
    if (L.mass < 0) {
      int line, col;
      node_pos(U, m, &line, &col);
      return fail(U, line, col, "the mass of link '%s' is negative", L.urdf);
    }
    static const char *const ia[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
    if (I)
      for (int i = 0; i < 6; i++)
        if ((st = numbers(U, I, ia[i], &Iu[i], 1)) != LG_OK) return st;
    /* the inertia about the mass centre in the inertial frame, turned into
     * the link's frame: R I R^T */
    double A[9] = {Iu[0], Iu[1], Iu[2], Iu[1], Iu[3], Iu[4], Iu[2], Iu[4], Iu[5]}, B[9];
    if (rpy[0] != 0 || rpy[1] != 0 || rpy[2] != 0) {
      double R[9], T[9];
      rpy_matrix(rpy, R);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          T[3 * i + j] = 0;
          for (int k = 0; k < 3; k++) T[3 * i + j] += R[3 * i + k] * A[3 * k + j];
        }
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          B[3 * i + j] = 0;
          for (int k = 0; k < 3; k++) B[3 * i + j] += T[3 * i + k] * R[3 * j + k];
        }
    } else {
      memcpy(B, A, sizeof B);
    }
    double I6[6] = {B[0], B[4], B[8], B[1], B[5], B[2]};
    memcpy(L.I, I6, sizeof I6);
  }
  if (U->nlinks >= URDF_MAX_ITEMS)
    return fail(U, L.line, L.col, "more than %d links", URDF_MAX_ITEMS);
  if (!LG_PUSH(U->links, U->nlinks, U->links_cap, L)) return LG_ERR_NOMEM;
  return LG_OK;
}

static lg_status read_joint(urdf *U, const xmlNode *n) {
  ujoint J = {0};
  lg_status st;
  int line, col;
  node_pos(U, n, &J.line, &J.col);
  J.axis[0] = 1;
  J.mult = 1;
  J.urdf = prop(U, n, "name");
  if (!J.urdf) return U->oom ? LG_ERR_NOMEM : fail(U, J.line, J.col, "<joint> needs a name");
  for (size_t i = 0; i < U->njoints; i++)
    if (strcmp(U->joints[i].urdf, J.urdf) == 0)
      return fail(U, J.line, J.col, "a second joint named '%s'", J.urdf);
  const char *type = prop(U, n, "type");
  if (!type) return U->oom ? LG_ERR_NOMEM : fail(U, J.line, J.col, "joint '%s' needs a type", J.urdf);
  J.type = -1;
  for (int i = 0; i < 6; i++)
    if (strcmp(type, jtype_names[i]) == 0) J.type = i;
  if (J.type < 0) {
    fail(U, J.line, J.col, "unknown joint type '%s'", type);
    lg_diag_hint(U->diag, "revolute, continuous, prismatic, fixed, floating or planar");
    return LG_ERR_MODEL;
  }
  static const char *const ends[2] = {"parent", "child"};
  for (int e = 0; e < 2; e++) {
    const xmlNode *c = child(n, ends[e]);
    if (!c) return fail(U, J.line, J.col, "joint '%s' needs <%s link=\"...\"/>", J.urdf, ends[e]);
    node_pos(U, c, &line, &col);
    const char *l = prop(U, c, "link");
    if (!l) return U->oom ? LG_ERR_NOMEM : fail(U, line, col, "<%s> needs a link", ends[e]);
    int k = find_link(U, l);
    if (k < 0) return fail(U, line, col, "joint '%s': no link named '%s'", J.urdf, l);
    if (e == 0) J.parent = k;
    else J.child = k;
  }
  if (J.parent == J.child)
    return fail(U, J.line, J.col, "joint '%s' joins link '%s' to itself", J.urdf,
                U->links[J.parent].urdf);
  if ((st = origin(U, n, J.xyz, J.rpy)) != LG_OK) return st;
  const xmlNode *a = child(n, "axis");
  if (a && (st = numbers(U, a, "xyz", J.axis, 3)) != LG_OK) return st;
  if (J.axis[0] == 0 && J.axis[1] == 0 && J.axis[2] == 0) {
    node_pos(U, a ? a : n, &line, &col);
    return fail(U, line, col, "the axis of joint '%s' is zero", J.urdf);
  }
  const xmlNode *d = child(n, "dynamics");
  if (d && ((st = numbers(U, d, "damping", &J.damping, 1)) != LG_OK ||
            (st = numbers(U, d, "friction", &J.friction, 1)) != LG_OK))
    return st;
  const xmlNode *lim = child(n, "limit");
  if (lim && (J.type == J_REVOLUTE || J.type == J_PRISMATIC)) {
    /* URDF: lower and upper default to 0 (a range lower >= upper is not kept) */
    J.has_limit = 1;
    node_pos(U, lim, &J.lline, &J.lcol);
    if ((st = numbers(U, lim, "lower", &J.lower, 1)) != LG_OK ||
        (st = numbers(U, lim, "upper", &J.upper, 1)) != LG_OK)
      return st;
  }
  const xmlNode *m = child(n, "mimic");
  if (m) {
    J.has_mimic = 1;
    node_pos(U, m, &J.mline, &J.mcol);
    const char *mj = prop(U, m, "joint");
    if (!mj) return U->oom ? LG_ERR_NOMEM : fail(U, J.mline, J.mcol, "<mimic> needs a joint");
    J.mimic = (char *)mj;
    if ((st = numbers(U, m, "multiplier", &J.mult, 1)) != LG_OK ||
        (st = numbers(U, m, "offset", &J.offset, 1)) != LG_OK)
      return st;
  }
  ulink *C = &U->links[J.child];
  if (C->parent_joint >= 0)
    return fail(U, J.line, J.col, "link '%s' is already the child of joint '%s'", C->urdf,
                U->joints[C->parent_joint].urdf);
  if (U->njoints >= URDF_MAX_ITEMS)
    return fail(U, J.line, J.col, "more than %d joints", URDF_MAX_ITEMS);
  C->parent_joint = (int)U->njoints;
  if (!LG_PUSH(U->joints, U->njoints, U->joints_cap, J)) return LG_ERR_NOMEM;
  return LG_OK;
}

/* ---- writing model text --------------------------------------------------------- */
/* One line of model text that came from (line, col) of the URDF. */
static void emit(urdf *U, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void emit(urdf *U, int line, int col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lg_str_vprintf(&U->x->text, fmt, ap);
  va_end(ap);
  lg_str_putc(&U->x->text, '\n');
  lang_origin o = {U->xfile, line, col};
  if (!LG_PUSH(U->x->lines, U->x->nlines, U->x->lines_cap, o)) U->oom = 1;
}

/* " + a*F.x - b*F.y ..." for the nonzero entries of v (first: no leading
 * " + "); "0*F.x" when all are zero. */
static void vec_text(lg_str *s, const char *frame, const double v[3], int first) {
  char num[LG_DOUBLE_CHARS];
  int any = 0;
  for (int i = 0; i < 3; i++) {
    if (v[i] == 0) continue;
    double a = fabs(v[i]);
    if (first && !any) lg_str_puts(s, v[i] < 0 ? "-" : "");
    else lg_str_puts(s, v[i] < 0 ? " - " : " + ");
    if (a != 1) lg_str_printf(s, "%s*", lg_fmt_double(num, a));
    lg_str_printf(s, "%s.%c", frame, 'x' + i);
    any = 1;
  }
  if (!any && first) lg_str_printf(s, "0*%s.x", frame);
}

static char *vec_string(const char *frame, const double v[3], int first) {
  lg_str s;
  lg_str_init(&s);
  vec_text(&s, frame, v, first);
  char *r = s.oom ? NULL : lg_str_take(&s);
  lg_str_free(&s);
  return r ? r : lg_strdup("");
}

static int nonzero3(const double v[3]) { return v[0] != 0 || v[1] != 0 || v[2] != 0; }

/* The statements of joint j and its child link (the parent already written). */
static void write_joint(urdf *U, const ujoint *J) {
  const ulink *P = &U->links[J->parent], *C = &U->links[J->child];
  const char *jn = J->name, *cn = C->name;
  char num[3][LG_DOUBLE_CHARS];
  char jf[600]; /* the joint frame: the parent turned by the origin's rpy */
  int l = J->line, c = J->col;
  int rot = nonzero3(J->rpy);
  int moving = J->type == J_REVOLUTE || J->type == J_CONTINUOUS || J->type == J_FLOATING ||
               J->type == J_PLANAR;
  if (rot && moving) {
    snprintf(jf, sizeof jf, "%s_j", cn);
    emit(U, l, c, "frame %s = space_fixed(%s, xyz, %s, %s, %s)", jf, P->name,
         lg_fmt_double(num[0], J->rpy[0]), lg_fmt_double(num[1], J->rpy[1]),
         lg_fmt_double(num[2], J->rpy[2]));
  } else {
    snprintf(jf, sizeof jf, "%s", P->name);
  }
  char *off = vec_string(P->name, J->xyz, 0);
  double n = sqrt(J->axis[0] * J->axis[0] + J->axis[1] * J->axis[1] + J->axis[2] * J->axis[2]);
  double ax[3] = {J->axis[0] / n, J->axis[1] / n, J->axis[2] / n};
  switch (J->type) {
  case J_REVOLUTE:
  case J_CONTINUOUS: {
    char *a = vec_string(jf, J->axis, 1);
    emit(U, l, c, "frame %s = rotate(%s, %s, %s)", cn, jf, a, jn);
    emit(U, l, c, "point %s_o = %s_o%s", cn, P->name, off);
    lg_free(a);
    break;
  }
  case J_PRISMATIC:
  case J_FIXED: {
    if (rot)
      emit(U, l, c, "frame %s = space_fixed(%s, xyz, %s, %s, %s)", cn, P->name,
           lg_fmt_double(num[0], J->rpy[0]), lg_fmt_double(num[1], J->rpy[1]),
           lg_fmt_double(num[2], J->rpy[2]));
    else
      emit(U, l, c, "frame %s = rotate(%s, %s.z, 0)", cn, P->name, P->name);
    if (J->type == J_FIXED) {
      emit(U, l, c, "point %s_o = %s_o%s", cn, P->name, off);
    } else {
      char *a = vec_string(cn, ax, 1);
      emit(U, l, c, "point %s_o = %s_o%s + %s*(%s)", cn, P->name, off, jn, a);
      lg_free(a);
    }
    break;
  }
  case J_FLOATING:
    emit(U, l, c, "frame %s = quaternion(%s, %s_e0, %s_e1, %s_e2, %s_e3)", cn, jf, jn, jn, jn, jn);
    emit(U, l, c, "point %s_o = %s_o%s + %s_x*%s.x + %s_y*%s.y + %s_z*%s.z", cn, P->name, off, jn,
         jf, jn, jf, jn, jf);
    emit(U, l, c, "force %s_o: tau_%s_x*%s.x + tau_%s_y*%s.y + tau_%s_z*%s.z", cn, jn, jf, jn, jf,
         jn, jf);
    emit(U, l, c, "torque %s: tau_%s_rx*%s.x + tau_%s_ry*%s.y + tau_%s_rz*%s.z", cn, jn, cn, jn,
         cn, jn, cn);
    emit(U, l, c, "initial %s_e0 = 1", jn);
    break;
  case J_PLANAR: {
    /* two unit vectors of the plane: u perpendicular to the axis, v = a x u */
    double u[3], v[3];
    int k = fabs(ax[0]) <= fabs(ax[1]) && fabs(ax[0]) <= fabs(ax[2]) ? 0
            : fabs(ax[1]) <= fabs(ax[2])                             ? 1
                                                                     : 2;
    double e[3] = {0, 0, 0};
    e[k] = 1;
    /* u = e - (e.a) a, normalized */
    for (int i = 0; i < 3; i++) u[i] = e[i] - ax[k] * ax[i];
    double un = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int i = 0; i < 3; i++) u[i] /= un;
    v[0] = ax[1] * u[2] - ax[2] * u[1];
    v[1] = ax[2] * u[0] - ax[0] * u[2];
    v[2] = ax[0] * u[1] - ax[1] * u[0];
    char *a = vec_string(jf, J->axis, 1), *us = vec_string(jf, u, 1), *vs = vec_string(jf, v, 1);
    emit(U, l, c, "frame %s = rotate(%s, %s, %s_theta)", cn, jf, a, jn);
    emit(U, l, c, "point %s_o = %s_o%s + %s_x*(%s) + %s_y*(%s)", cn, P->name, off, jn, us, jn, vs);
    lg_free(a);
    lg_free(us);
    lg_free(vs);
    break;
  }
  }
  lg_free(off);
  if (J->type == J_REVOLUTE || J->type == J_CONTINUOUS || J->type == J_PRISMATIC) {
    emit(U, l, c, "force %s: tau_%s", jn, jn);
    if (J->damping != 0) emit(U, l, c, "damper %s: %s", jn, lg_fmt_double(num[0], J->damping));
    /* URDF's friction: the joint's Coulomb (static) friction force or torque */
    if (J->friction != 0) emit(U, l, c, "friction %s: %s", jn, lg_fmt_double(num[0], J->friction));
  } else if (J->type == J_PLANAR) {
    static const char *const s[3] = {"_x", "_y", "_theta"};
    for (int i = 0; i < 3; i++) emit(U, l, c, "force %s%s: tau_%s%s", jn, s[i], jn, s[i]);
  }
  if (J->friction != 0 && J->type != J_REVOLUTE && J->type != J_CONTINUOUS && J->type != J_PRISMATIC)
    add_note(U, l, c, "the friction of joint '%s' is not modelled (friction acts on one "
             "coordinate: revolute, continuous and prismatic joints)", J->urdf);
}

static void write_link_mass(urdf *U, const ulink *L) {
  char *com = vec_string(L->name, L->com, 0);
  int l = L->has_inertial ? L->iline : L->line, c = L->has_inertial ? L->icol : L->col;
  emit(U, l, c, "point %s_c = %s_o%s", L->name, L->name, com);
  lg_free(com);
  if (!L->has_inertial || L->mass == 0 || L->parent_joint < 0) return;
  char n[7][LG_DOUBLE_CHARS];
  lg_fmt_double(n[6], L->mass);
  for (int i = 0; i < 6; i++) lg_fmt_double(n[i], L->I[i]);
  if (L->I[3] == 0 && L->I[4] == 0 && L->I[5] == 0)
    emit(U, l, c, "body %s mass %s at %s_c inertia (%s, %s, %s)", L->name, n[6], L->name, n[0],
         n[1], n[2]);
  else
    emit(U, l, c, "body %s mass %s at %s_c inertia (%s, %s, %s, %s, %s, %s)", L->name, n[6],
         L->name, n[0], n[1], n[2], n[3], n[4], n[5]);
}

/* The <visual>s of link L as `draw` shapes in its frame, at their origin
 * (a turned origin gets a frame of its own, LINK_v1 ...): a box, a
 * cylinder (along the visual's z), a sphere, and a mesh as the box that
 * holds its vertices (times its scale; its centre moves the box from the
 * visual's origin along the visual's axes). A mesh that cannot be found or
 * read is left out with a note that says why. */
static lg_status write_visuals(urdf *U, const ulink *L) {
  int k = 0;
  for (const xmlNode *v = L->node->children; v; v = v->next) {
    if (!is_elem(v, "visual")) continue;
    int line, col;
    node_pos(U, v, &line, &col);
    const xmlNode *g = child(v, "geometry");
    const xmlNode *box = g ? child(g, "box") : NULL, *cyl = g ? child(g, "cylinder") : NULL;
    const xmlNode *sph = g ? child(g, "sphere") : NULL;
    const xmlNode *mesh = !box && !cyl && !sph && g ? child(g, "mesh") : NULL;
    double mc[3] = {0, 0, 0}, msize[3] = {0, 0, 0};
    if (mesh) {
      char why[900];
      int mline, mcol, moved = 0;
      node_pos(U, mesh, &mline, &mcol);
      const char *fn = prop(U, mesh, "filename"), *sc = prop(U, mesh, "scale");
      if (U->oom) return LG_ERR_NOMEM;
      if (lang_mesh_box(U->file, fn, sc, mc, msize, &moved, why, sizeof why) != 0) {
        if (U->oom || strcmp(why, "out of memory") == 0) return LG_ERR_NOMEM;
        add_note(U, mline, mcol, "a <visual> of link '%s' is a mesh: not drawn (%s)", L->urdf,
                 why);
        continue;
      }
      if (moved)
        add_note(U, mline, mcol, "the mesh of a <visual> of link '%s' is drawn as its box "
                 "without its COLLADA file's %s", L->urdf,
                 moved == 1   ? "<up_axis> (Z_UP is assumed)"
                 : moved == 2 ? "<lookat>, <skew> or <instance_node> transforms"
                              : "<up_axis> (Z_UP is assumed) and <lookat>, <skew> or "
                                "<instance_node> transforms");
    } else if (!box && !cyl && !sph) {
      add_note(U, line, col, "a <visual> of link '%s' is no box, cylinder or sphere: not drawn "
               "(animate draws boxes, cylinders, spheres, and meshes as boxes)", L->urdf);
      continue;
    }
    double xyz[3] = {0, 0, 0}, rpy[3] = {0, 0, 0}, size[3] = {0, 0, 0}, r = 0, len = 0;
    lg_status st = origin(U, v, xyz, rpy);
    if (st == LG_OK && box) st = numbers(U, box, "size", size, 3);
    if (st == LG_OK && cyl) st = numbers(U, cyl, "radius", &r, 1);
    if (st == LG_OK && cyl) st = numbers(U, cyl, "length", &len, 1);
    if (st == LG_OK && sph) st = numbers(U, sph, "radius", &r, 1);
    if (st != LG_OK) return st;
    char frame[640], at[3 * LG_DOUBLE_CHARS + 8], n[3][LG_DOUBLE_CHARS];
    snprintf(frame, sizeof frame, "%s", L->name);
    double off[3] = {xyz[0], xyz[1], xyz[2]};
    if (nonzero3(rpy)) {
      /* the visual's own frame; its offset measured along its axes: R^T xyz */
      do snprintf(frame, sizeof frame, "%s_v%d", L->name, ++k);
      while (taken(U, frame));
      if (!take(U, frame)) return LG_ERR_NOMEM;
      emit(U, line, col, "frame %s = space_fixed(%s, xyz, %s, %s, %s)", frame, L->name,
           lg_fmt_double(n[0], rpy[0]), lg_fmt_double(n[1], rpy[1]), lg_fmt_double(n[2], rpy[2]));
      double R[9];
      rpy_matrix(rpy, R);
      for (int i = 0; i < 3; i++) off[i] = R[i] * xyz[0] + R[3 + i] * xyz[1] + R[6 + i] * xyz[2];
    }
    for (int i = 0; i < 3; i++) off[i] += mc[i];
    at[0] = 0;
    if (nonzero3(off))
      snprintf(at, sizeof at, " at %s, %s, %s", lg_fmt_double(n[0], off[0]),
               lg_fmt_double(n[1], off[1]), lg_fmt_double(n[2], off[2]));
    if (box || mesh) {
      const double *e = box ? size : msize;
      emit(U, line, col, "draw box %s_o in %s size %s, %s, %s%s", L->name, frame,
           lg_fmt_double(n[0], e[0]), lg_fmt_double(n[1], e[1]), lg_fmt_double(n[2], e[2]), at);
    } else if (cyl) {
      emit(U, line, col, "draw cylinder %s_o in %s axis z radius %s length %s%s", L->name, frame,
           lg_fmt_double(n[0], r), lg_fmt_double(n[1], len), at);
    } else {
      emit(U, line, col, "draw sphere %s_o in %s radius %s%s", L->name, frame,
           lg_fmt_double(n[0], r), at);
    }
  }
  return LG_OK;
}

/* The coordinates' names of joint J (suffixes of its model name). */
static int coord_suffixes(int type, const char *const **suf) {
  static const char *const one[] = {""};
  static const char *const flo[] = {"_x", "_y", "_z", "_e0", "_e1", "_e2", "_e3"};
  static const char *const pla[] = {"_x", "_y", "_theta"};
  switch (type) {
  case J_FIXED: *suf = NULL; return 0;
  case J_FLOATING: *suf = flo; return 7;
  case J_PLANAR: *suf = pla; return 3;
  default: *suf = one; return 1;
  }
}

/* The tree by its numbers (lang_urdf_tree), joints in `order` (parents
 * first), when the numeric layer can evaluate it as the model text says;
 * else nothing is kept. */
static lg_status keep_tree(urdf *U, int root, const int *order, size_t nj) {
  for (size_t j = 0; j < nj; j++) {
    const ujoint *J = &U->joints[order[j]];
    if (J->type == J_FLOATING || J->type == J_PLANAR || J->has_mimic || J->friction != 0)
      return LG_OK;
  }
  lang_urdf_tree *t = lg_calloc(1, sizeof *t);
  if (!t) return LG_ERR_NOMEM;
  t->link = lg_calloc(nj + 1, sizeof *t->link);
  t->coord = lg_calloc(nj + 1, sizeof *t->coord);
  U->x->tree = t;
  if (!t->link || !t->coord) return LG_ERR_NOMEM;
  t->n = nj;
  int *at = lg_malloc(U->nlinks * sizeof *at); /* a link's index in t (-1: the root) */
  if (!at) return LG_ERR_NOMEM;
  at[root] = -1;
  for (size_t j = 0; j < nj; j++) {
    const ujoint *J = &U->joints[order[j]];
    const ulink *C = &U->links[J->child];
    mech_num_link *l = &t->link[j];
    at[J->child] = (int)j;
    l->parent = at[J->parent];
    l->type = J->type == J_FIXED ? MECH_NUM_FIXED
              : J->type == J_PRISMATIC ? MECH_NUM_PRISMATIC : MECH_NUM_REVOLUTE;
    /* the joint frame: the parent turned by the origin's rpy (write_joint) */
    rpy_matrix(J->rpy, l->R);
    memcpy(l->d, J->xyz, sizeof l->d);
    double n = sqrt(J->axis[0] * J->axis[0] + J->axis[1] * J->axis[1] + J->axis[2] * J->axis[2]);
    for (int i = 0; i < 3; i++) l->axis[i] = J->axis[i] / n;
    l->damping = J->type == J_FIXED ? 0 : J->damping;
    if (C->has_inertial && C->mass != 0) { /* (write_link_mass) */
      l->mass = C->mass;
      memcpy(l->com, C->com, sizeof l->com);
      memcpy(l->I, C->I, sizeof l->I);
    }
    if (J->type != J_FIXED && !(t->coord[j] = lg_strdup(J->name))) {
      lg_free(at);
      return LG_ERR_NOMEM;
    }
  }
  lg_free(at);
  return LG_OK;
}

static lg_status translate(urdf *U, const xmlNode *robot) {
  lg_status st;
  int rl, rc;
  node_pos(U, robot, &rl, &rc);
  if (!is_elem(robot, "robot"))
    return fail(U, rl, rc, "a URDF's root element is <robot>, not <%s>", (const char *)robot->name);
  for (const xmlNode *n = robot->children; n; n = n->next)
    if (is_elem(n, "link") && (st = read_link(U, n)) != LG_OK) return st;
  for (const xmlNode *n = robot->children; n; n = n->next)
    if (is_elem(n, "joint") && (st = read_joint(U, n)) != LG_OK) return st;
  if (U->oom) return LG_ERR_NOMEM;
  if (U->nlinks == 0) return fail(U, rl, rc, "the robot has no <link>");
  int root = -1;
  for (size_t i = 0; i < U->nlinks; i++)
    if (U->links[i].parent_joint < 0) {
      if (root >= 0) {
        fail(U, U->links[i].line, U->links[i].col,
             "a second root link '%s' (link '%s' is the child of no joint either)",
             U->links[i].urdf, U->links[root].urdf);
        lg_diag_hint(U->diag, "a URDF robot is one tree: join it with a joint");
        return LG_ERR_MODEL;
      }
      root = (int)i;
    }
  if (root < 0) {
    fail(U, rl, rc, "the joints form a cycle: every link is the child of a joint");
    lg_diag_hint(U->diag, "close a loop with a constraint statement in a model that imports the URDF");
    return LG_ERR_MODEL;
  }
  /* every link must reach the root through its parents (else a cycle) */
  for (size_t i = 0; i < U->nlinks; i++) {
    size_t steps = 0;
    int k = (int)i;
    while (U->links[k].parent_joint >= 0 && steps++ <= U->nlinks)
      k = U->joints[U->links[k].parent_joint].parent;
    if (k != root) {
      const ujoint *J = &U->joints[U->links[i].parent_joint];
      fail(U, J->line, J->col, "the joints form a cycle through link '%s'", U->links[i].urdf);
      lg_diag_hint(U->diag, "close a loop with a constraint statement in a model that imports the URDF");
      return LG_ERR_MODEL;
    }
  }
  /* names: g first, then the links, then the joints */
  if (!take(U, "g")) return LG_ERR_NOMEM;
  static const char *const lsuf[] = {"", "_o", "_c", "_j"};
  for (size_t i = 0; i < U->nlinks; i++) {
    ulink *L = &U->links[i];
    if (!(L->name = model_name(U, L->urdf, "link", L->line, L->col, lsuf, 4)))
      return U->diag->status != LG_OK ? U->diag->status : LG_ERR_NOMEM;
  }
  for (size_t i = 0; i < U->njoints; i++) {
    ujoint *J = &U->joints[i];
    const char *const *cs;
    int nc = coord_suffixes(J->type, &cs);
    const char *suf[32];
    int ns = 0;
    suf[ns++] = "";
    for (int k = 0; k < nc; k++) suf[ns++] = cs[k];
    if (!(J->name = model_name(U, J->urdf, "joint", J->line, J->col, suf, ns)))
      return U->diag->status != LG_OK ? U->diag->status : LG_ERR_NOMEM;
  }
  /* the joint limits kept for `contact limits`, in joint order */
  for (size_t i = 0; i < U->njoints; i++) {
    const ujoint *J = &U->joints[i];
    if (!J->has_limit) continue;
    char lo[LG_DOUBLE_CHARS], up[LG_DOUBLE_CHARS];
    lg_fmt_double(lo, J->lower);
    lg_fmt_double(up, J->upper);
    if (J->has_mimic) {
      add_note(U, J->lline, J->lcol, "the limit of joint '%s' is not kept (the joint follows "
               "joint '%s' through its <mimic>)", J->urdf, J->mimic);
      continue;
    }
    if (J->lower >= J->upper) {
      add_note(U, J->lline, J->lcol, "the limit of joint '%s' is ignored: lower %s is not below "
               "upper %s", J->urdf, lo, up);
      continue;
    }
    lang_limit L = {lg_strdup(J->name), J->lower, J->upper};
    if (!L.coord || !LG_PUSH(U->x->limits, U->x->nlimits, U->x->limits_cap, L)) {
      lg_free(L.coord);
      return LG_ERR_NOMEM;
    }
  }
  /* the inputs' names tau_J... must be free too (an error otherwise) */
  char buf[700];
  emit(U, rl, rc, "parameters g = 9.81");
  emit(U, U->links[root].line, U->links[root].col, "frame %s", U->links[root].name);
  emit(U, U->links[root].line, U->links[root].col, "point %s_o", U->links[root].name);
  emit(U, rl, rc, "gravity -g*%s.z", U->links[root].name);
  for (size_t i = 0; i < U->njoints; i++) {
    const ujoint *J = &U->joints[i];
    const char *const *cs;
    int nc = coord_suffixes(J->type, &cs);
    if (!nc) continue;
    lg_str co, in;
    lg_str_init(&co);
    lg_str_init(&in);
    for (int k = 0; k < nc; k++) {
      lg_str_printf(&co, " %s%s", J->name, cs[k]);
      if (J->type == J_FLOATING && k >= 3) continue;
      snprintf(buf, sizeof buf, "tau_%s%s", J->name, cs[k]);
      if (taken(U, buf)) {
        lg_str_free(&co);
        lg_str_free(&in);
        return fail(U, J->line, J->col, "the input '%s' of joint '%s' is already a name", buf,
                    J->urdf);
      }
      if (!take(U, buf)) break;
      lg_str_printf(&in, "%s%s = 0", in.len ? ", " : "", buf);
    }
    if (J->type == J_FLOATING)
      for (int k = 0; k < 3; k++) {
        snprintf(buf, sizeof buf, "tau_%s_r%c", J->name, 'x' + k);
        if (taken(U, buf)) {
          lg_str_free(&co);
          lg_str_free(&in);
          return fail(U, J->line, J->col, "the input '%s' of joint '%s' is already a name", buf,
                      J->urdf);
        }
        if (!take(U, buf)) break;
        lg_str_printf(&in, ", %s = 0", buf);
      }
    if (!co.oom && !in.oom) {
      emit(U, J->line, J->col, "coordinates%s", co.s);
      emit(U, J->line, J->col, "inputs %s", in.s);
    } else {
      U->oom = 1;
    }
    lg_str_free(&co);
    lg_str_free(&in);
  }
  /* the tree, parents first (breadth first from the root) */
  int *queue = lg_malloc(U->nlinks * sizeof *queue);
  int *order = lg_malloc((U->njoints + 1) * sizeof *order);
  if (!queue || !order) {
    lg_free(queue);
    lg_free(order);
    return LG_ERR_NOMEM;
  }
  size_t head = 0, tail = 0, nj = 0;
  queue[tail++] = root;
  write_link_mass(U, &U->links[root]);
  while (head < tail) {
    int p = queue[head++];
    for (size_t j = 0; j < U->njoints; j++) {
      const ujoint *J = &U->joints[j];
      if (J->parent != p) continue;
      write_joint(U, J);
      write_link_mass(U, &U->links[J->child]);
      queue[tail++] = J->child;
      order[nj++] = (int)j;
    }
  }
  lg_free(queue);
  st = keep_tree(U, root, order, nj);
  lg_free(order);
  if (st != LG_OK) return st;
  /* mimic joints: constraints once every coordinate exists */
  for (size_t j = 0; j < U->njoints; j++) {
    const ujoint *J = &U->joints[j];
    if (!J->has_mimic) continue;
    const ujoint *M = NULL;
    for (size_t k = 0; k < U->njoints; k++)
      if (strcmp(U->joints[k].urdf, J->mimic) == 0) M = &U->joints[k];
    if (!M) return fail(U, J->mline, J->mcol, "<mimic>: no joint named '%s'", J->mimic);
    int one = J->type == J_REVOLUTE || J->type == J_CONTINUOUS || J->type == J_PRISMATIC;
    int mone = M->type == J_REVOLUTE || M->type == J_CONTINUOUS || M->type == J_PRISMATIC;
    if (!one || !mone || M == J)
      return fail(U, J->mline, J->mcol, "<mimic> joins two different revolute, continuous or "
                  "prismatic joints");
    char a[LG_DOUBLE_CHARS], b[LG_DOUBLE_CHARS];
    lg_fmt_double(a, J->mult);
    lg_fmt_double(b, fabs(J->offset));
    if (J->offset != 0)
      emit(U, J->mline, J->mcol, "constraint %s = %s*%s %c %s", J->name, a, M->name,
           J->offset < 0 ? '-' : '+', b);
    else
      emit(U, J->mline, J->mcol, "constraint %s = %s*%s", J->name, a, M->name);
  }
  for (size_t i = 0; i < U->nlinks; i++)
    if ((st = write_visuals(U, &U->links[i])) != LG_OK) return st;
  return U->oom || U->x->text.oom ? LG_ERR_NOMEM : LG_OK;
}

/* Appends the model text of the URDF `file` (its text src[0..len)) to x. */
static lg_status urdf_to_text(const char *file, const char *src, size_t len, lang_expanded *x,
                              const char *xfile, lg_diag *diag, int at_line, int at_col,
                              const char *at_file) {
  lang_xml();
  if (!X.ok) {
    lg_diag_set(diag, LG_ERR_MODEL, at_file, at_line, at_col,
                "reading a URDF needs libxml2, which could not be loaded (%s)", X.why);
    lg_diag_hint(diag, "install it: apt-get install libxml2");
    return LG_ERR_MODEL;
  }
  urdf U = {.file = file, .src = src, .len = len, .diag = diag, .x = x, .xfile = xfile};
  if (len > URDF_MAX_BYTES) {
    lg_diag_set(diag, LG_ERR_MODEL, file, 0, 0, "the URDF is larger than %d MB",
                URDF_MAX_BYTES >> 20);
    return LG_ERR_MODEL;
  }
  /* no DTD: no entities to expand, no external subset to fetch */
  int dl, dc;
  size_t at = lang_xml_has_dtd(src, len, &dl, &dc);
  if (at < len) {
    lg_diag_set(diag, LG_ERR_MODEL, file, dl, dc,
                "a URDF may not declare a document type or entities (<!%.7s)", src + at + 2);
    lg_diag_hint(diag, "remove the <!DOCTYPE ...> declaration");
    return LG_ERR_MODEL;
  }
  X.reset_error();
  xmlDocPtr doc = X.read_memory(src, (int)len, file, NULL, LANG_XML_FLAGS);
  if (!doc) {
    xmlErrorPtr e = X.last_error();
    char msg[300] = "malformed XML";
    if (e && e->message) {
      snprintf(msg, sizeof msg, "malformed XML: %s", e->message);
      size_t n = strlen(msg);
      while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
    }
    lg_diag_set(diag, LG_ERR_MODEL, file, e && e->line > 0 ? e->line : 1,
                e && e->int2 > 0 ? e->int2 : 1, "%s", msg);
    X.reset_error();
    return LG_ERR_MODEL;
  }
  xmlNodePtr robot = X.root(doc);
  index_lines(&U);
  lg_status st = robot ? translate(&U, robot) : LG_ERR_MODEL;
  lg_free(U.line_start);
  if (!robot) lg_diag_set(diag, LG_ERR_MODEL, file, 1, 1, "the URDF has no <robot>");
  if (st == LG_OK && U.oom) st = LG_ERR_NOMEM;
  for (size_t i = 0; i < U.nprops; i++) (*X.free)(U.props[i]);
  lg_free(U.props);
  for (size_t i = 0; i < U.nnames; i++) lg_free(U.names[i]);
  lg_map_free(&U.name_set);
  lg_free(U.names);
  for (size_t i = 0; i < U.nlinks; i++) lg_free(U.links[i].name);
  for (size_t i = 0; i < U.njoints; i++) lg_free(U.joints[i].name);
  lg_free(U.links);
  lg_free(U.joints);
  X.free_doc(doc);
  if (st == LG_ERR_NOMEM && diag && diag->status == LG_OK)
    lg_diag_set(diag, LG_ERR_NOMEM, file, 0, 0, "out of memory");
  return st;
}

/* ---- expansion -------------------------------------------------------------------- */
static int ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), k = strlen(suf);
  return n >= k && strcmp(s + n - k, suf) == 0;
}

static const char *keep_file(lang_expanded *x, const char *f) {
  char *d = lg_strdup(f);
  if (!d || !LG_PUSH(x->files, x->nfiles, x->files_cap, d)) {
    lg_free(d);
    return NULL;
  }
  return d;
}

void lang_urdf_tree_free(lang_urdf_tree *t) {
  if (!t) return;
  for (size_t i = 0; t->coord && i < t->n; i++) lg_free(t->coord[i]);
  lg_free(t->coord);
  lg_free(t->link);
  lg_free(t);
}

void lang_expanded_free(lang_expanded *x) {
  lg_str_free(&x->text);
  lg_free(x->lines);
  for (size_t i = 0; i < x->nfiles; i++) lg_free(x->files[i]);
  lg_free(x->files);
  for (size_t i = 0; i < x->nnotes; i++) lg_free(x->notes[i]);
  lg_free(x->notes);
  for (size_t i = 0; i < x->nlimits; i++) lg_free(x->limits[i].coord);
  lg_free(x->limits);
  lang_urdf_tree_free(x->tree);
  memset(x, 0, sizeof *x);
}

/* Is line s[0..n) `WORD` followed by a blank (or its end)? */
static int starts_word(const char *s, size_t n, const char *w) {
  size_t k = strlen(w);
  return n >= k && memcmp(s, w, k) == 0 && (n == k || s[k] == ' ' || s[k] == '\t');
}

lg_status lang_expand(const char *file, const char *src, size_t len, lang_expanded *x,
                      int *expanded, lg_diag *diag) {
  memset(x, 0, sizeof *x);
  *expanded = 0;
  if (!file) file = "<string>";
  lg_str_init(&x->text);
  if (ends_with(file, ".urdf")) {
    const char *f = keep_file(x, file);
    lg_status st = f ? urdf_to_text(file, src, len, x, f, diag, 1, 1, file) : LG_ERR_NOMEM;
    if (st == LG_ERR_NOMEM && diag && diag->status == LG_OK)
      lg_diag_set(diag, LG_ERR_NOMEM, file, 0, 0, "out of memory");
    if (st != LG_OK) lang_expanded_free(x);
    else *expanded = 1;
    return st;
  }
  /* a model: is there an import line? */
  int any = 0;
  for (size_t i = 0; i < len;) {
    size_t e = i;
    while (e < len && src[e] != '\n') e++;
    size_t b = i;
    while (b < e && (src[b] == ' ' || src[b] == '\t')) b++;
    if (starts_word(src + b, e - b, "import")) any = 1;
    i = e + 1;
  }
  if (!any) return LG_OK;
  const char *mf = keep_file(x, file);
  if (!mf) return LG_ERR_NOMEM;
  int imported = 0, line = 1;
  lg_status st = LG_OK;
  for (size_t i = 0; i < len && st == LG_OK; line++) {
    size_t e = i;
    while (e < len && src[e] != '\n') e++;
    size_t b = i;
    while (b < e && (src[b] == ' ' || src[b] == '\t')) b++;
    int col = (int)(b - i) + 1;
    if (starts_word(src + b, e - b, "import")) {
      const char *p = src + b + 6, *end = src + e;
      while (p < end && (*p == ' ' || *p == '\t')) p++;
      const char *q = p < end && *p == '"' ? memchr(p + 1, '"', (size_t)(end - p - 1)) : NULL;
      const char *r = q ? q + 1 : NULL;
      while (r && r < end && (*r == ' ' || *r == '\t' || *r == '\r')) r++;
      if (!q || q == p + 1 || (r < end && *r != '#')) {
        lg_diag_set(diag, LG_ERR_MODEL, file, line, col, "expected import \"FILE.urdf\"");
        st = LG_ERR_MODEL;
        break;
      }
      if (imported) {
        lg_diag_set(diag, LG_ERR_MODEL, file, line, col, "a model imports one URDF at most");
        st = LG_ERR_MODEL;
        break;
      }
      imported = 1;
      x->import_line = line;
      x->import_col = col;
      char *rel = lg_strndup(p + 1, (size_t)(q - p - 1));
      lg_str path;
      lg_str_init(&path);
      const char *slash = strrchr(file, '/');
      if (rel && rel[0] != '/' && slash) lg_str_putn(&path, file, (size_t)(slash - file) + 1);
      if (rel) lg_str_puts(&path, rel);
      lg_free(rel);
      if (path.oom || !path.s) {
        lg_str_free(&path);
        st = LG_ERR_NOMEM;
        break;
      }
      if (!ends_with(path.s, ".urdf")) {
        lg_diag_set(diag, LG_ERR_MODEL, file, line, col + 7,
                    "import reads a URDF robot description (a .urdf file)");
        lg_str_free(&path);
        st = LG_ERR_MODEL;
        break;
      }
      char *usrc = NULL;
      size_t ulen = 0;
      lg_diag local;
      lg_diag_clear(&local);
      st = lg_read_input(path.s, path.s, URDF_MAX_BYTES, &usrc, &ulen, &local);
      if (st != LG_OK) {
        lg_diag_set(diag, st, file, line, col + 7, "cannot import '%s': %s", path.s, local.message);
      } else {
        const char *uf = keep_file(x, path.s);
        st = uf ? urdf_to_text(path.s, usrc, ulen, x, uf, diag, line, col, file) : LG_ERR_NOMEM;
      }
      lg_free(usrc);
      lg_str_free(&path);
    } else {
      {
        /* the URDF brings the inertial frame, the origin and gravity */
        const char *s = src + b;
        size_t n = e - b;
        int bad = starts_word(s, n, "gravity");
        if ((starts_word(s, n, "frame") || starts_word(s, n, "point")) && !memchr(s, '=', n))
          bad = 1;
        if (bad) {
          lg_diag_set(diag, LG_ERR_MODEL, file, line, col,
                      "a model that imports a URDF declares no inertial frame, origin or "
                      "gravity of its own");
          lg_diag_hint(diag, "the URDF's root link is the inertial frame, with gravity -g*z");
          st = LG_ERR_MODEL;
          break;
        }
      }
      lg_str_putn(&x->text, src + i, e - i);
      lg_str_putc(&x->text, '\n');
      lang_origin o = {mf, line, 0};
      if (!LG_PUSH(x->lines, x->nlines, x->lines_cap, o)) st = LG_ERR_NOMEM;
    }
    i = e + 1;
  }
  /* the end of the file: the start of the line after the last, or the end
   * of a last line without a line break (the expanded text has one) */
  x->end_line = line;
  x->end_col = 1;
  if (len && src[len - 1] != '\n') {
    size_t b = len;
    while (b > 0 && src[b - 1] != '\n') b--;
    x->end_line = line - 1;
    x->end_col = (int)(len - b) + 1;
  }
  if (st == LG_OK && x->text.oom) st = LG_ERR_NOMEM;
  if (st == LG_ERR_NOMEM && diag && diag->status == LG_OK)
    lg_diag_set(diag, LG_ERR_NOMEM, file, 0, 0, "out of memory");
  if (st != LG_OK) lang_expanded_free(x);
  else *expanded = 1;
  return st;
}

void lang_expanded_remap(const lang_expanded *x, const char *file, lg_diag *d) {
  if (!d || d->status == LG_OK || d->line < 1 || (size_t)d->line > x->nlines + 1) return;
  if (strcmp(d->file, file ? file : "<string>") != 0) return;
  if ((size_t)d->line == x->nlines + 1) { /* the end of the text: the model's end */
    if (x->end_line > 0) d->line = x->end_line, d->col = x->end_col;
    return;
  }
  const lang_origin *o = &x->lines[d->line - 1];
  snprintf(d->file, sizeof d->file, "%s", o->file);
  d->line = o->line;
  if (o->col) d->col = o->col;
}

char *lang_expanded_remap_note(const lang_expanded *x, const char *file, const char *note) {
  if (!file) file = "<string>";
  size_t n = strlen(file);
  int line, col, used = 0;
  if (strncmp(note, file, n) != 0 || note[n] != ':') return NULL;
  if (sscanf(note + n, ":%d:%d:%n", &line, &col, &used) != 2 || !used) return NULL;
  if (line < 1 || (size_t)line > x->nlines) return NULL;
  const lang_origin *o = &x->lines[line - 1];
  lg_str s;
  lg_str_init(&s);
  lg_str_printf(&s, "%s:%d:%d:%s", o->file, o->line, o->col ? o->col : col, note + n + used);
  char *r = s.oom ? NULL : lg_str_take(&s);
  lg_str_free(&s);
  return r;
}

int lang_expanded_from_urdf(const lang_expanded *x, int line) {
  if (line < 1 || (size_t)line > x->nlines) return 0;
  return !(x->nfiles && x->lines[line - 1].file == x->files[0]);
}

void lang_expanded_position(const lang_expanded *x, int *line, int *col) {
  if (*line < 1 || (size_t)*line > x->nlines) return;
  const lang_origin *o = &x->lines[*line - 1];
  if (x->nfiles && o->file == x->files[0]) {
    *line = o->line;
    if (o->col) *col = o->col;
  } else {
    *line = x->import_line;
    *col = x->import_col;
  }
}
