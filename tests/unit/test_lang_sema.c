/* test_lang_sema.c - the semantic pass: every example loads; out of memory
 * at every allocation of every example's load is reported as out of memory
 * (no crash, no leak under LSan, no other message); diag may be NULL; the
 * model's fields (initial state and speeds, dependent speeds, time span,
 * notes); the function table is the symbolic core's; and a catalogue of
 * models that have no meaning, each pinned to line:col and message. */
#include "lang.h"
#include "lang_ast.h"
#include "lang_sema.h"
#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------- */
/* Load src from an exact-size heap copy (reads past the end are caught). */
static lg_status load(const char *src, lang_model **out, lg_diag *diag) {
  size_t len = strlen(src);
  char *copy = malloc(len ? len : 1);
  memcpy(copy, src, len);
  if (diag) lg_diag_clear(diag);
  lg_status st = lang_load_string("m.lag", copy, len, out, diag);
  free(copy);
  return st;
}

/* The whole file, NUL-terminated (NULL when it cannot be read). */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  fclose(f);
  s[got] = 0;
  return s;
}

static int need_hint; /* the errors being checked carry a hint */

/* Loading src fails at line:col with a message containing `frag`. */
#define EXPECT_ERR(src, l, c, frag)                                                     \
  do {                                                                                  \
    lang_model *m_ = NULL;                                                              \
    lg_diag d_;                                                                         \
    lg_status st_ = load(src, &m_, &d_);                                                \
    CHECK(st_ == LG_ERR_MODEL && m_ == NULL);                                           \
    if (d_.line != (l) || d_.col != (c) || !strstr(d_.message, frag)) {                 \
      tu_failed++;                                                                      \
      fprintf(stderr, "%s:%d: got %d:%d: %s, want %d:%d: %s\n", __FILE__, __LINE__,     \
              d_.line, d_.col, d_.message, (l), (c), frag);                             \
    } else {                                                                            \
      tu_passed++;                                                                      \
    }                                                                                   \
    CHECK(!need_hint || d_.hint[0] != 0); /* says how to fix it */                      \
    lang_model_free(m_);                                                                \
  } while (0)

/* ---- every example, and out of memory at each allocation ---------------------------- */
static void test_examples_and_oom(void) {
  DIR *dir = opendir("examples");
  struct dirent *ent;
  int count = 0;
  CHECK(dir != NULL);
  while (dir && (ent = readdir(dir))) {
    const char *name = ent->d_name;
    size_t len = strlen(name);
    if (len < 5 || strcmp(name + len - 4, ".lag") != 0) continue;
    count++;
    char path[512];
    snprintf(path, sizeof path, "examples/%s", name);
    char *src = slurp(path);
    CHECK(src != NULL);
    if (!src) continue;
    lang_model *m = NULL;
    lg_diag d;
    CHECK(load(src, &m, &d) == LG_OK && m && m->n == mech_ncoords(m->mech) && m->n > 0);
    lang_model_free(m);
    /* allocation n and every later one fail, for every n until it loads */
    long n = 0, wrong = 0;
    for (;; n++) {
      lang_model *mm = NULL;
      lg_alloc_fail_after(n);
      lg_status st = load(src, &mm, &d);
      lg_alloc_fail_after(-1);
      if (st == LG_OK) {
        lang_model_free(mm);
        break;
      }
      if (st != LG_ERR_NOMEM || mm || d.status != LG_ERR_NOMEM ||
          strcmp(d.message, "out of memory") != 0) {
        if (!wrong++)
          fprintf(stderr, "%s: failure %ld: status %d, %d:%d: %s\n", name, n, st, d.line, d.col,
                  d.message);
      }
      lang_model_free(mm);
    }
    CHECK(wrong == 0 && n > 10);
    free(src);
  }
  if (dir) closedir(dir);
  CHECK(count >= 10); /* run from the project root */
}

/* ---- diag and out may be NULL --------------------------------------------------------- */
static void test_null_diag(void) {
  lang_model *m = (lang_model *)1;
  CHECK(load("coordinates x\nT = (x'", &m, NULL) == LG_ERR_MODEL && m == NULL); /* parse */
  CHECK(load("coordinates x\nT = y'^2", &m, NULL) == LG_ERR_MODEL && m == NULL); /* sema */
  CHECK(load("coordinates x\nT = x''", &m, NULL) == LG_ERR_MODEL && m == NULL);
  lg_alloc_fail_after(3);
  CHECK(load("coordinates x\nT = x'^2", &m, NULL) == LG_ERR_NOMEM && m == NULL);
  lg_alloc_fail_after(-1);
  CHECK(load("coordinates x\nT = x'^2", &m, NULL) == LG_OK && m != NULL);
  lang_model_free(m);
  lg_diag d;
  lg_diag_clear(&d);
  CHECK(lang_load_string("m.lag", "x", 1, NULL, &d) == LG_ERR_USAGE);
  CHECK(lang_load_file("/nonexistent/m.lag", &m, NULL) == LG_ERR_IO && m == NULL);
  lang_model_free(NULL);
}

/* ---- what a model holds ------------------------------------------------------------- */
static void test_model_fields(void) {
  lang_model *m = NULL;
  lg_diag d;
  CHECK(load("coordinates x y\n"
             "parameters m = 2, a = 0.25\n"
             "speeds u1 u2\n"
             "dependent u2\n"
             "kinematics x' = u1, y' = u2\n"
             "T = m*(x'^2 + y'^2)/2\n"
             "constraint x' - y'\n"
             "initial x = 4*a, y' = -1, u1 = m*0.15\n"
             "simulate 1 to 3 step 0.5\n",
             &m, &d) == LG_OK);
  if (!m) return;
  CHECK(m->n == 2 && m->q0[0] == 1 && m->q0[1] == 0 && m->qd0[0] == 0 && m->qd0[1] == -1);
  CHECK(m->nspeeds == 2 && m->u0 && m->u0_set);
  CHECK(m->u0_set[0] == 1 && m->u0[0] == 2 * 0.15 && m->u0_set[1] == 0 && m->u0[1] == 0);
  CHECK(mech_ndeclared_dependent(m->mech) == 1);
  int line = 0, col = 0;
  CHECK(mech_declared_dependent(m->mech, 0, &line, &col) == 1 && line == 4 && col == 11);
  CHECK(m->has_simulate && m->t0 == 1 && m->tf == 3 && m->dt == 0.5);
  CHECK(m->coord_line == 1 && m->coord_col == 1);
  lang_model_free(m);

  /* no speeds: no speed arrays; defaults for the time span */
  CHECK(load("coordinates x\nT = x'^2\n", &m, &d) == LG_OK && m);
  if (m) CHECK(m->nspeeds == 0 && m->u0 == NULL && !m->has_simulate && m->tf == 10 && m->dt == 0.01);
  lang_model_free(m);

  /* a vector constraint's zero row is dropped with a note */
  CHECK(load("coordinates x y\nframe N\npoint O\npoint P = O + x*N.x + y*N.y\n"
             "particle P mass 1\nconstraint pos(P) - 2*N.x\n",
             &m, &d) == LG_OK && m);
  if (m) CHECK(m->nnotes == 1 && strstr(m->notes[0], "m.lag:6:12: note:") &&
               strstr(m->notes[0], "inertial z axis"));
  lang_model_free(m);
}

/* ---- the function table is the symbolic core's -------------------------------------- */
static void test_functions(void) {
  for (int f = 0; f < SYM_FN_COUNT; f++) {
    char src[160];
    const char *name = sym_fn_name((sym_fn)f);
    CHECK(lang_func_lookup(name, strlen(name)) == (lang_func)f);
    CHECK(lang_func_is_elementary((lang_func)f) && lang_func_arity((lang_func)f) == sym_fn_arity((sym_fn)f));
    snprintf(src, sizeof src, "coordinates x\nT = x'^2\nV = %s(x%s)\n", name,
             sym_fn_arity((sym_fn)f) == 2 ? ", 2" : "");
    lang_model *m = NULL;
    lg_diag d;
    CHECK(load(src, &m, &d) == LG_OK);
    lang_model_free(m);
  }
  CHECK(!lang_func_is_elementary(LANG_FN_DER) && lang_func_arity(LANG_FN_ROTATE) == 3);
}

/* ---- names ---------------------------------------------------------------------------- */
static void test_names(void) {
  lang_model *m = NULL;
  lg_diag d;
  /* lam followed by digits is reserved; other lam names are not */
  CHECK(load("coordinates x\nparameters lam = 1, lambda1 = 2, lam1x = 3, la1 = 4\nT = x'^2\n", &m,
             &d) == LG_OK);
  lang_model_free(m);
  EXPECT_ERR("coordinates lam12", 1, 13, "'lam12' is reserved");
  EXPECT_ERR("coordinates x\nlam3 = x^2", 2, 1, "'lam3' is reserved");
  EXPECT_ERR("coordinates x\nspeeds lam0", 2, 8, "such as 'lambda0'");
  EXPECT_ERR("coordinates dependent", 1, 13, "'dependent' is reserved");
}

/* ---- things that have no meaning ------------------------------------------------------- */
static void test_no_meaning(void) {
  need_hint = 1;
  /* accelerations, anywhere in the model */
  EXPECT_ERR("coordinates x\nT = 1/2*x''^2", 2, 9, "the kinetic energy T contains the acceleration x''");
  EXPECT_ERR("coordinates x\nT = x'^2\nV = x + 2*x''", 3, 11, "the potential energy V contains");
  EXPECT_ERR("coordinates x\nT = x'^2\nD = der(x')^2", 3, 5, "the dissipation function D contains");
  EXPECT_ERR("coordinates x\nL = x'^2 - x''", 2, 12, "the Lagrangian L contains the acceleration");
  EXPECT_ERR("coordinates x\nT = x'^2\nforce x: -x''", 3, 11, "the generalized force contains");
  EXPECT_ERR("coordinates x\nT = x'^2\nconstraint x - x''", 3, 16, "the constraint contains");
  EXPECT_ERR("coordinates x\nT = x'^2\nr = x'\nV = r'", 4, 5, "the acceleration x''");
  EXPECT_ERR("coordinates x\nT = x'^2\na = der(x')\nV = x*a", 4, 7, "the acceleration x''");
  EXPECT_ERR("coordinates x\nT = x'^2\nframe N\npoint O\npoint P = O + x*N.x\n"
             "particle P mass 1\nforce P: x''*N.x",
             7, 10, "a force contains the acceleration x''");
  EXPECT_ERR("coordinates x\nT = x'^2\nframe N\nframe A = rotate(N, N.z, x)\ntorque A: x''*N.z",
             5, 11, "a torque contains");
  EXPECT_ERR("coordinates x\nT = x'^2\nframe N\ngravity -x''*N.y", 4, 10, "gravity contains");
  EXPECT_ERR("coordinates x\nspeeds u\nT = x'^2 + u'", 3, 12, "the speed derivative u'");
  EXPECT_ERR("coordinates x\nspeeds u\nkinematics x' = u + x''", 3, 21, "kinematical equation contains");
  /* a third derivative, even where accelerations may be named */
  EXPECT_ERR("coordinates x\nT = x'^2\nj = der(x'')", 3, 5, "x''' is a third time derivative");
  EXPECT_ERR("coordinates x\nT = x'^2\na = x''\nj = a'", 4, 5, "x''' is a third time derivative");
  /* orientation and position depend on q and t only */
  EXPECT_ERR("coordinates x\nframe N\nframe A = rotate(N, N.z, x')", 3, 26,
             "the rotation angle contains the velocity x'");
  EXPECT_ERR("coordinates x\nframe N\nframe A = rotate(N, N.z, sin(t) + 2*x'')", 3, 37,
             "the rotation angle contains the acceleration x''");
  EXPECT_ERR("coordinates x\nspeeds u\nframe N\nframe A = rotate(N, N.z, u)", 4, 26,
             "the rotation angle contains the speed u");
  EXPECT_ERR("coordinates x\nframe N\nframe A = rotate(N, N.x + x'*N.z, x)", 3, 27,
             "the rotation axis contains the velocity x'");
  EXPECT_ERR("coordinates x\nw = x'\nframe N\nframe A = rotate(N, N.z, w)", 4, 26,
             "the rotation angle contains the velocity x'");
  EXPECT_ERR("coordinates a b c\nframe N\nframe B = space_fixed(N, xyz, a, b, c')", 3, 37,
             "an Euler angle contains the velocity c'");
  EXPECT_ERR("coordinates x\nframe N\npoint O\npoint P = O + x'*N.x", 4, 15,
             "the location of point 'P' contains the velocity x'");
  /* Kane's kinematics are linear in the q' */
  EXPECT_ERR("coordinates x\nspeeds u1\nkinematics x' = u1/(2*x')", 3, 12,
             "not linear in the q' (it holds x' nonlinearly)");
  EXPECT_ERR("coordinates x y\nspeeds u1 u2\nkinematics x' = u1, sin(y')*y' = u2", 3, 21,
             "it holds y' nonlinearly");
  /* numbers */
  EXPECT_ERR("coordinates x\nT = 1e400*x'^2", 2, 5, "the number '1e400' is too large");
  EXPECT_ERR("coordinates x\nT = x'^2\ninitial x = sqrt(-1)", 3, 13,
             "an initial value is not a finite number (it evaluates to NaN)");
  EXPECT_ERR("coordinates x\nT = x'^2\ninitial x' = exp(1000)", 3, 14,
             "(it evaluates to infinity)");
  EXPECT_ERR("coordinates x\nT = x'^2\ninitial x = 1/0", 3, 14, "division by zero");
  EXPECT_ERR("coordinates x\nparameters g = -1, h = sqrt(g)\nT = x'^2", 2, 24,
             "the value of 'h' is not a finite number");
  EXPECT_ERR("coordinates x\nT = x'^2\nsimulate 0 to 1/0.0", 3, 15, "the end time is not a finite");
  /* constraints that constrain nothing */
  EXPECT_ERR("coordinates x\nT = x'^2\nconstraint 1", 3, 12, "constrains no coordinate: it is a constant");
  EXPECT_ERR("coordinates x\nparameters l = 2\nT = x'^2\nconstraint l^2 - 4 + 1", 4, 12,
             "it is a constant");
  EXPECT_ERR("coordinates x\nT = x'^2\nconstraint t = 1", 3, 12, "it is a function of t only");
  EXPECT_ERR("coordinates x\ninputs F = sin(t)\nT = x'^2\nconstraint F", 4, 12,
             "it is a function of t only");
  EXPECT_ERR("coordinates x\nT = x'^2\nconstraint x - x + 1", 3, 12, "it is a constant");
  EXPECT_ERR("coordinates x\nT = x'^2\nconstraint sin(t)^2 + cos(t)^2 = 1", 3, 12,
             "identically zero");
  /* dependent speeds */
  EXPECT_ERR("coordinates x\nspeeds u1\ndependent x", 3, 11, "'x' is not a speed");
  EXPECT_ERR("coordinates x\ndependent u1\nspeeds u1", 2, 11, "unknown name 'u1'");
  EXPECT_ERR("coordinates x y\nspeeds u1 u2\ndependent u2\ndependent u2", 4, 11,
             "'u2' is already declared dependent at 3:11");
  EXPECT_ERR("coordinates x\nspeeds u1\ninitial u1' = 1", 3, 9, "initial values are given for");
  need_hint = 0;
}

/* ---- expressions given after loading (lang_scalar_of_text) --------------------------- */
static const char text_model[] = "coordinates x th\n"
                                 "parameters l = 2\n"
                                 "r = l*sin(th)\n"
                                 "frame N\n"
                                 "frame A = rotate(N, N.z, th)\n"
                                 "point O\n"
                                 "point P = O + x*N.x + l*A.y\n"
                                 "particle P mass 1\n";

/* text reads as an expression equal to want (hash-consed: the same node). */
static int reads_as(lang_model *m, const char *text, const sym_node *want) {
  const sym_node *got = NULL;
  lg_diag d;
  lg_diag_clear(&d);
  lg_status st = lang_scalar_of_text(m, "--stop-when", text, strlen(text), &got, &d);
  if (st != LG_OK) fprintf(stderr, "%s: %s\n", text, d.message);
  return st == LG_OK && got && (!want || sym_simplify(m->ctx, sym_sub(m->ctx, got, want)) ==
                                             sym_int(m->ctx, 0));
}

/* text fails at 1:col with a message containing frag. */
static int text_fails(lang_model *m, const char *text, int col, const char *frag) {
  const sym_node *got = (const sym_node *)m;
  lg_diag d;
  lg_diag_clear(&d);
  lg_status st = lang_scalar_of_text(m, "--stop-when", text, strlen(text), &got, &d);
  int ok = st == LG_ERR_MODEL && !got && d.line == 1 && d.col == col && strstr(d.message, frag) &&
           !strcmp(d.file, "--stop-when");
  if (!ok) fprintf(stderr, "%s: got %d:%d: %s\n", text, d.line, d.col, d.message);
  return ok;
}

static void test_text(void) {
  lang_model *m = NULL;
  lg_diag d;
  CHECK(load(text_model, &m, &d) == LG_OK && m && m->scope);
  if (!m) return;
  sym_ctx *c = m->ctx;
  const sym_node *x = mech_coord(m->mech, 0, 0), *th = mech_coord(m->mech, 1, 0);
  const sym_node *l = mech_param(m->mech, 0);
  CHECK(reads_as(m, "x - 1/2", sym_sub(c, x, sym_rat(c, 1, 2))));
  CHECK(reads_as(m, "r", sym_mul(c, l, sym_func(c, SYM_FN_SIN, th, NULL))));
  CHECK(reads_as(m, "dot(pos(P), N.y)", sym_mul(c, l, sym_func(c, SYM_FN_COS, th, NULL))));
  CHECK(reads_as(m, "th' + t", sym_add(c, mech_coord(m->mech, 1, 1), sym_time(c))));
  CHECK(reads_as(m, "dot(vel(P), N.x)", NULL));
  CHECK(text_fails(m, "thta - 1", 1, "unknown name 'thta'"));
  CHECK(text_fails(m, "x''", 1, "the expression contains the acceleration x''"));
  CHECK(text_fails(m, "x = 1", 3, "expected the end of the statement"));
  CHECK(text_fails(m, "pos(P)", 1, "the expression must be a scalar"));
  CHECK(text_fails(m, "", 1, "expected an expression"));
  /* the model gains no names: the same text reads again */
  CHECK(m->scope->nnames == 8 && reads_as(m, "r", NULL) && m->scope->nnames == 8);
  const sym_node *got;
  CHECK(lang_scalar_of_text(m, NULL, "x", 1, NULL, NULL) == LG_ERR_USAGE);
  CHECK(lang_scalar_of_text(NULL, NULL, "x", 1, &got, NULL) == LG_ERR_USAGE);
  for (long n = 0;; n++) { /* out of memory at each allocation */
    lg_alloc_fail_after(n);
    lg_status st = lang_scalar_of_text(m, "e", "cos(x)^3 + norm(vel(P))", 23, &got, &d);
    lg_alloc_fail_after(-1);
    if (st == LG_OK) break;
    CHECK(st == LG_ERR_NOMEM && got == NULL && d.status == LG_ERR_NOMEM);
  }
  lang_model_free(m);
}

/* ---- lang_load_again ---------------------------------------------------------------- */
/* A URDF loaded again from the expansion its first load kept is the model a
 * second lang_load_string gives: the same coordinates, parameters (values
 * printed), notes (the URDF's rename note first) and the same count of
 * nodes in its context; a model without an expansion is loaded from its
 * text; out of memory at every allocation is reported as such. */
static int same_model(const lang_model *a, const lang_model *b) {
  int ok = a->n == b->n && mech_nparams(a->mech) == mech_nparams(b->mech) &&
           sym_ctx_node_count(a->ctx) == sym_ctx_node_count(b->ctx) && a->nnotes == b->nnotes;
  for (size_t i = 0; ok && i < a->nnotes; i++) ok = strcmp(a->notes[i], b->notes[i]) == 0;
  for (size_t i = 0; ok && i < mech_nparams(a->mech); i++) {
    char *x = sym_to_string(mech_param_value(a->mech, i)), *y = sym_to_string(mech_param_value(b->mech, i));
    ok = x && y && strcmp(x, y) == 0;
    lg_free(x), lg_free(y);
  }
  for (size_t i = 0; ok && i < a->n; i++) ok = a->q0[i] == b->q0[i] && a->qd0[i] == b->qd0[i];
  return ok;
}

static void test_load_again(void) {
  char *ur5 = slurp("examples/ur5.urdf");
  CHECK(ur5 != NULL);
  if (!ur5) return;
  /* a link named `sin` (a function): renamed, with a note */
  char *renamed = malloc(strlen(ur5) * 2 + 1), *w = renamed;
  const char *from = "\"upper_arm_link\"";
  CHECK(strstr(ur5, from) != NULL);
  for (const char *r = ur5; *r;)
    if (strncmp(r, from, strlen(from)) == 0) w += sprintf(w, "\"sin\""), r += strlen(from);
    else *w++ = *r++;
  *w = 0;
  const char *texts[3] = {ur5, renamed, "coordinates x\nparameters m = 2\nT = m*x'^2/2\n"};
  const char *files[3] = {"ur5.urdf", "renamed.urdf", "m.lag"};
  for (int k = 0; k < 3; k++) {
    lang_model *first = NULL, *again = NULL, *fresh = NULL;
    lg_diag d;
    size_t len = strlen(texts[k]);
    lg_diag_clear(&d);
    CHECK(lang_load_string(files[k], texts[k], len, &first, &d) == LG_OK);
    CHECK(lang_load_again(first, files[k], texts[k], len, &again, &d) == LG_OK);
    CHECK(lang_load_string(files[k], texts[k], len, &fresh, &d) == LG_OK);
    CHECK(first && again && fresh && same_model(again, fresh) && same_model(first, fresh));
    CHECK(first && (k < 2) == (first->expanded != NULL) && again && !again->expanded);
    CHECK(k != 1 || (fresh && fresh->nnotes >= 1 && strstr(fresh->notes[0], "'sin' is called 'sin_'")));
    long n = 0, wrong = 0;
    for (; first && n < 100000; n++) {
      lang_model *mm = NULL;
      lg_diag_clear(&d);
      lg_alloc_fail_after(n);
      lg_status st = lang_load_again(first, files[k], texts[k], len, &mm, &d);
      lg_alloc_fail_after(-1);
      if (st == LG_OK) {
        wrong += !same_model(mm, fresh);
        lang_model_free(mm);
        break;
      }
      wrong += st != LG_ERR_NOMEM || mm || d.status != LG_ERR_NOMEM ||
               strcmp(d.message, "out of memory") != 0;
      lang_model_free(mm);
    }
    CHECK(wrong == 0 && n > 10);
    lang_model_free(first);
    lang_model_free(again);
    lang_model_free(fresh);
  }
  free(renamed);
  free(ur5);
}

int main(void) {
  test_text();
  test_null_diag();
  test_model_fields();
  test_functions();
  test_names();
  test_no_meaning();
  test_examples_and_oom();
  test_load_again();
  return tu_summary("test_lang_sema");
}
