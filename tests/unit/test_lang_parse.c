/* test_lang_parse.c - the lexer and parser of the model language: every
 * statement form printed back, operator precedence in fully parenthesized
 * form, positions, continuation lines, comments, CRLF and BOM, a catalogue
 * of malformed inputs pinned to line:col and message, depth and size
 * limits, random bytes and mutated models, and allocation failures. */
#include "lang_ast.h"
#include "test_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing helpers ------------------------------------------------------------- */
/* One parse: the arena owns the tree; the diagnostic says what went wrong. */
typedef struct parsed {
  lg_arena arena;
  lg_diag diag;
  lang_program *prog;
  lg_status st;
} parsed;

/* Parse len bytes from an exact-size heap copy, so that reading past the
 * end (the source is not NUL-terminated) is caught by ASan. */
static void parse_bytes(parsed *r, const char *src, size_t len) {
  char *copy = lg_malloc(len);
  if (len) memcpy(copy, src, len);
  lg_arena_init(&r->arena);
  lg_diag_clear(&r->diag);
  r->st = lang_parse("m.lag", copy, len, &r->arena, &r->prog, &r->diag);
  lg_free(copy);
}

static void parsed_free(parsed *r) { lg_arena_free(&r->arena); }

/* ---- printing the tree back ------------------------------------------------------ */
static void show_expr(lg_str *b, const lang_expr *e);

/* Operands of a chain: "(a + b - c)" for sums, "(a*b/c)" for products. */
static void show_chain(lg_str *b, const lang_expr *e) {
  lg_str_putc(b, '(');
  for (size_t i = 0; i < e->u.chain.n; i++) {
    const lang_operand *o = &e->u.chain.terms[i];
    if (i && e->kind == LANG_EXPR_SUM) lg_str_printf(b, " %c ", o->op);
    else if (i) lg_str_putc(b, o->op);
    show_expr(b, o->e);
  }
  lg_str_putc(b, ')');
}

/* An expression, every operator application in parentheses. */
static void show_expr(lg_str *b, const lang_expr *e) {
  switch (e->kind) {
  case LANG_EXPR_NUMBER: lg_str_puts(b, e->u.number.text); break;
  case LANG_EXPR_NAME: lg_str_puts(b, e->u.name); break;
  case LANG_EXPR_CALL:
    lg_str_printf(b, "%s(", lang_func_name(e->u.call.fn));
    for (size_t i = 0; i < e->u.call.nargs; i++) {
      if (i) lg_str_puts(b, ", ");
      show_expr(b, e->u.call.args[i]);
    }
    lg_str_putc(b, ')');
    break;
  case LANG_EXPR_PRIME:
    show_expr(b, e->u.prime.arg);
    lg_str_puts(b, e->u.prime.count == 2 ? "''" : "'");
    break;
  case LANG_EXPR_MEMBER:
    show_expr(b, e->u.member.arg);
    lg_str_printf(b, ".%c", e->u.member.axis);
    break;
  case LANG_EXPR_UNARY:
    lg_str_printf(b, "(%c", e->u.unary.op);
    show_expr(b, e->u.unary.arg);
    lg_str_putc(b, ')');
    break;
  case LANG_EXPR_SUM:
  case LANG_EXPR_PRODUCT: show_chain(b, e); break;
  case LANG_EXPR_POWER:
    lg_str_putc(b, '(');
    show_expr(b, e->u.power.base);
    lg_str_putc(b, '^');
    show_expr(b, e->u.power.exponent);
    lg_str_putc(b, ')');
    break;
  }
}

/* "name" or "name = value" */
static void show_named(lg_str *b, const lang_ident *id, const lang_expr *value) {
  lg_str_puts(b, id->text);
  if (!value) return;
  lg_str_puts(b, " = ");
  show_expr(b, value);
}

/* The list statements: coordinates, parameters, kinematics, initial ... */
static void show_list(lg_str *b, const lang_stmt *s) {
  size_t n = s->kind == LANG_STMT_KINEMATICS ? s->u.kinematics.n
             : s->kind == LANG_STMT_INITIAL  ? s->u.initial.n
             : s->kind == LANG_STMT_PARAMETERS || s->kind == LANG_STMT_INPUTS ? s->u.decls.n
                                                                            : s->u.names.n;
  for (size_t i = 0; i < n; i++) {
    lg_str_puts(b, i ? ", " : " ");
    if (s->kind == LANG_STMT_KINEMATICS) {
      show_expr(b, s->u.kinematics.v[i].lhs);
      lg_str_puts(b, " = ");
      show_expr(b, s->u.kinematics.v[i].rhs);
    } else if (s->kind == LANG_STMT_INITIAL) {
      const lang_init *it = &s->u.initial.v[i];
      lg_str_printf(b, "%s%.*s = ", it->name.text, it->primes, "''");
      show_expr(b, it->value);
    } else if (s->kind == LANG_STMT_PARAMETERS || s->kind == LANG_STMT_INPUTS) {
      show_named(b, &s->u.decls.v[i].name, s->u.decls.v[i].value);
    } else {
      lg_str_puts(b, s->u.names.v[i].text);
    }
  }
}

/* The body statement. */
static void show_body(lg_str *b, const lang_stmt *s) {
  lg_str_printf(b, " %s mass ", s->u.body.frame.text);
  show_expr(b, s->u.body.mass);
  lg_str_printf(b, " at %s inertia (", s->u.body.at.text);
  for (int i = 0; i < s->u.body.ninertia; i++) {
    if (i) lg_str_puts(b, ", ");
    show_expr(b, s->u.body.inertia[i]);
  }
  lg_str_putc(b, ')');
}

/* The statements whose body is one or two expressions after a name. */
static void show_other(lg_str *b, const lang_stmt *s) {
  switch (s->kind) {
  case LANG_STMT_PARTICLE:
    lg_str_printf(b, " %s mass ", s->u.particle.point.text);
    show_expr(b, s->u.particle.mass);
    break;
  case LANG_STMT_GRAVITY: lg_str_putc(b, ' '); show_expr(b, s->u.gravity); break;
  case LANG_STMT_FORCE:
  case LANG_STMT_TORQUE:
    lg_str_printf(b, " %s: ", s->u.load.target.text);
    show_expr(b, s->u.load.value);
    break;
  case LANG_STMT_CONSTRAINT:
    lg_str_putc(b, ' ');
    show_expr(b, s->u.constraint.lhs);
    if (s->u.constraint.rhs) lg_str_puts(b, " = ");
    if (s->u.constraint.rhs) show_expr(b, s->u.constraint.rhs);
    break;
  case LANG_STMT_SIMULATE:
    lg_str_putc(b, ' ');
    show_expr(b, s->u.simulate.start);
    lg_str_puts(b, " to ");
    show_expr(b, s->u.simulate.stop);
    if (s->u.simulate.step) lg_str_puts(b, " step ");
    if (s->u.simulate.step) show_expr(b, s->u.simulate.step);
    break;
  default: lg_str_puts(b, " ?"); break;
  }
}

/* A statement as a line: its keyword, then its parts. */
static void show_stmt(lg_str *b, const lang_stmt *s) {
  if (s->kind == LANG_STMT_ASSIGN) {
    show_named(b, &s->u.named.name, s->u.named.value);
    return;
  }
  lg_str_puts(b, lang_stmt_keyword(s->kind));
  switch (s->kind) {
  case LANG_STMT_COORDINATES:
  case LANG_STMT_SPEEDS:
  case LANG_STMT_DEPENDENT:
  case LANG_STMT_PARAMETERS:
  case LANG_STMT_INPUTS:
  case LANG_STMT_KINEMATICS:
  case LANG_STMT_INITIAL: show_list(b, s); break;
  case LANG_STMT_FRAME:
  case LANG_STMT_POINT:
    lg_str_putc(b, ' ');
    show_named(b, &s->u.named.name, s->u.named.value);
    break;
  case LANG_STMT_BODY: show_body(b, s); break;
  default: show_other(b, s); break;
  }
}

/* The whole program, one statement per line. Caller frees. */
static char *show_program(const lang_program *p) {
  lg_str b;
  lg_str_init(&b);
  lg_str_puts(&b, "");
  for (const lang_stmt *s = p->first; s; s = s->next) {
    show_stmt(&b, s);
    lg_str_putc(&b, '\n');
  }
  return lg_str_take(&b);
}

/* ---- checking helpers ------------------------------------------------------------ */
/* src parses, and prints back as want. */
#define EXPECT_PROGRAM(src, want) expect_program(__LINE__, src, sizeof(src) - 1, want)
static void expect_program(int at, const char *src, size_t len, const char *want) {
  parsed r;
  parse_bytes(&r, src, len);
  if (r.st != LG_OK) {
    char buf[800];
    lg_diag_format(&r.diag, buf, sizeof buf);
    fprintf(stderr, "line %d: parse failed: %s\n", at, buf);
    CHECK(r.st == LG_OK);
  } else {
    char *got = show_program(r.prog);
    if (strcmp(got, want) != 0) fprintf(stderr, "line %d:\n", at);
    CHECK_STR(got, want);
    lg_free(got);
  }
  parsed_free(&r);
}

#define EXPECT_PROGRAM_N(src, n, want) expect_program(__LINE__, src, n, want)

/* `x = text` parses, and the value prints back as want. */
#define EXPECT_EXPR(text, want) expect_expr(__LINE__, text, want)
static void expect_expr(int at, const char *text, const char *want) {
  char src[512], full[600];
  snprintf(src, sizeof src, "x = %s", text);
  snprintf(full, sizeof full, "x = %s\n", want);
  expect_program(at, src, strlen(src), full);
}

/* src fails at line:col with `frag` in "file:line:col: message (hint)". */
#define EXPECT_ERR(src, line, col, frag) expect_err(__LINE__, src, sizeof(src) - 1, line, col, frag)
static void expect_err(int at, const char *src, size_t len, int line, int col, const char *frag) {
  parsed r;
  char buf[800];
  parse_bytes(&r, src, len);
  lg_diag_format(&r.diag, buf, sizeof buf);
  bool ok = r.st == LG_ERR_MODEL && r.prog == NULL && r.diag.line == line &&
            r.diag.col == col && strstr(buf, frag) != NULL && strcmp(r.diag.file, "m.lag") == 0;
  if (!ok)
    fprintf(stderr, "line %d: want %d:%d \"%s\", got status %d: %s\n", at, line, col, frag,
            (int)r.st, buf);
  CHECK(ok);
  parsed_free(&r);
}

/* ---- statements ------------------------------------------------------------------ */
static const char full_model[] =
    "# the statement forms of MODEL-FORMAT.md\n"
    "coordinates q1 q2 q3\n"
    "parameters m = 1, g = 9.81, l, I = m*l^2/12, c = -0.5\n"
    "inputs F = 0, tau = sin(t)\n"
    "r = sqrt(q1^2 + q2^2)\n"
    "frame N\n"
    "frame A = rotate(N, N.z, q1)\n"
    "frame B = body_fixed(N, zxy, q1, q2, q3)\n"
    "frame C = space_fixed(A, xyz, q1, 0, pi/2)\n"
    "point O\n"
    "point P = O + l*A.x + q3*B.y\n"
    "particle P mass m/4\n"
    "body A mass m at O inertia (1, 2, 3)\n"
    "body B mass m at P inertia (1, 2, 3, 0, 0.1, 0)\n"
    "T = 1/2*m*q1'^2\n"
    "V = 1/2*g*q1^2\n"
    "gravity -g*N.z\n"
    "D = 1/2*c*q2'^2\n"
    "L = q1'^2 + q2'^2\n"
    "force P: 7*N.x\n"
    "torque A: -c*q1*N.z\n"
    "force q3: F\n"
    "constraint q1 - q2\n"
    "constraint q1^2 + q2^2 = l^2\n"
    "constraint dot(vel(P) + cross(angvel(B), -l*N.z), N.x)\n"
    "speeds u1 u2, u3\n"
    "kinematics q1' = u1, q2' = u2, dot(angvel(B), B.x) = u3\n"
    "initial q1 = 0.1, q1' = 0, q2'' = -1\n"
    "simulate 0 to 10 step 0.01\n"
    "simulate 0 to 2*pi\n"
    "x = der(norm(pos(P))) + atan2(q1, q2) + exp(log(abs(sign(q3))))\n";

static const char full_model_printed[] =
    "coordinates q1, q2, q3\n"
    "parameters m = 1, g = 9.81, l, I = (m*(l^2)/12), c = (-0.5)\n"
    "inputs F = 0, tau = sin(t)\n"
    "r = sqrt(((q1^2) + (q2^2)))\n"
    "frame N\n"
    "frame A = rotate(N, N.z, q1)\n"
    "frame B = body_fixed(N, zxy, q1, q2, q3)\n"
    "frame C = space_fixed(A, xyz, q1, 0, (pi/2))\n"
    "point O\n"
    "point P = (O + (l*A.x) + (q3*B.y))\n"
    "particle P mass (m/4)\n"
    "body A mass m at O inertia (1, 2, 3)\n"
    "body B mass m at P inertia (1, 2, 3, 0, 0.1, 0)\n"
    "T = (1/2*m*(q1'^2))\n"
    "V = (1/2*g*(q1^2))\n"
    "gravity ((-g)*N.z)\n"
    "D = (1/2*c*(q2'^2))\n"
    "L = ((q1'^2) + (q2'^2))\n"
    "force P: (7*N.x)\n"
    "torque A: ((-c)*q1*N.z)\n"
    "force q3: F\n"
    "constraint (q1 - q2)\n"
    "constraint ((q1^2) + (q2^2)) = (l^2)\n"
    "constraint dot((vel(P) + cross(angvel(B), ((-l)*N.z))), N.x)\n"
    "speeds u1, u2, u3\n"
    "kinematics q1' = u1, q2' = u2, dot(angvel(B), B.x) = u3\n"
    "initial q1 = 0.1, q1' = 0, q2'' = (-1)\n"
    "simulate 0 to 10 step 0.01\n"
    "simulate 0 to (2*pi)\n"
    "x = (der(norm(pos(P))) + atan2(q1, q2) + exp(log(abs(sign(q3)))))\n";

static void test_statements(void) {
  EXPECT_PROGRAM(full_model, full_model_printed);
  /* empty inputs are empty programs (the semantic pass reports what is missing) */
  EXPECT_PROGRAM("", "");
  EXPECT_PROGRAM("\n\n   \n", "");
  EXPECT_PROGRAM("# only a comment", "");
  EXPECT_PROGRAM("\xEF\xBB\xBF", "");
  /* commas optional between names; parameters without values may be space-separated */
  EXPECT_PROGRAM("coordinates a,b c\nparameters m k, g = 1", "coordinates a, b, c\n"
                                                              "parameters m, k, g = 1\n");
  /* keywords are reserved only where the grammar needs them: these are plain names */
  EXPECT_PROGRAM("x = mass + at*step\nT = to", "x = (mass + (at*step))\nT = to\n");
  /* dependent speeds: names referred to (not declared), commas optional */
  EXPECT_PROGRAM("speeds u1 u2 u3\ndependent u3, u2", "speeds u1, u2, u3\ndependent u3, u2\n");
  EXPECT_PROGRAM("dependent t", "dependent t\n"); /* the semantic pass says t is no speed */
  /* energies may be assigned, and `L` as a value is a name */
  EXPECT_PROGRAM("T = 1\nV = 2\nD = 3\nL = T - V", "T = 1\nV = 2\nD = 3\nL = (T - V)\n");
  {
    parsed r;
    const char *src = full_model;
    parse_bytes(&r, src, strlen(src));
    CHECK(r.st == LG_OK && r.prog && r.prog->count == 30);
    parsed_free(&r);
  }
  {
    parsed r;
    parse_bytes(&r, NULL, 0); /* NULL with length 0 is an empty source */
    CHECK(r.st == LG_OK && r.prog && r.prog->count == 0 && r.prog->first == NULL);
    parsed_free(&r);
  }
}

/* ---- positions ------------------------------------------------------------------- */
/* Positions of statements, names and operator tokens. */
static void test_positions(void) {
  parsed r;
  const char src[] = "frame N\n"
                     "  frame A = rotate(N, N.z, q1) # c\n"
                     "x = a + b*c - d^e'\n"
                     "kinematics q1' = u1\n"
                     "constraint x = 1\n";
  parse_bytes(&r, src, sizeof src - 1);
  CHECK(r.st == LG_OK);
  if (r.st != LG_OK) {
    parsed_free(&r);
    return;
  }
  const lang_stmt *s1 = r.prog->first, *s2 = s1->next, *s3 = s2->next, *s4 = s3->next;
  CHECK(s1->line == 1 && s1->col == 1 && s1->u.named.name.line == 1 && s1->u.named.name.col == 7);
  CHECK(s1->u.named.value == NULL);
  CHECK(s2->line == 2 && s2->col == 3 && s2->u.named.name.col == 9);
  const lang_expr *rot = s2->u.named.value;
  CHECK(rot->kind == LANG_EXPR_CALL && rot->u.call.fn == LANG_FN_ROTATE && rot->col == 13);
  CHECK(rot->u.call.nargs == 3 && rot->u.call.args[1]->kind == LANG_EXPR_MEMBER);
  CHECK(rot->u.call.args[1]->col == 24 && rot->u.call.args[1]->u.member.axis == 'z');
  CHECK(rot->u.call.args[1]->u.member.arg->col == 23);
  /* x = a + b*c - d^e': the sum at the first '+', operands at their operators */
  const lang_expr *sum = s3->u.named.value;
  CHECK(sum->kind == LANG_EXPR_SUM && sum->line == 3 && sum->col == 7 && sum->u.chain.n == 3);
  CHECK(sum->u.chain.terms[0].op == '+' && sum->u.chain.terms[0].col == 5);
  CHECK(sum->u.chain.terms[1].op == '+' && sum->u.chain.terms[1].col == 7);
  CHECK(sum->u.chain.terms[2].op == '-' && sum->u.chain.terms[2].col == 13);
  CHECK(sum->u.chain.terms[1].e->kind == LANG_EXPR_PRODUCT && sum->u.chain.terms[1].e->col == 10);
  const lang_expr *pw = sum->u.chain.terms[2].e;
  CHECK(pw->kind == LANG_EXPR_POWER && pw->col == 16);
  CHECK(pw->u.power.exponent->kind == LANG_EXPR_PRIME && pw->u.power.exponent->col == 18);
  CHECK(pw->u.power.exponent->u.prime.count == 1);
  CHECK(s4->u.kinematics.n == 1 && s4->u.kinematics.v[0].line == 4 &&
        s4->u.kinematics.v[0].col == 16);
  CHECK(s4->next->u.constraint.col == 14 && s4->next->u.constraint.rhs != NULL);
  parsed_free(&r);
}

/* ---- expressions ----------------------------------------------------------------- */
static void test_precedence(void) {
  EXPECT_EXPR("a + b*c", "(a + (b*c))");
  EXPECT_EXPR("a - b + c", "(a - b + c)");
  EXPECT_EXPR("a*b/c*d", "(a*b/c*d)");
  EXPECT_EXPR("1/2*m", "(1/2*m)");
  EXPECT_EXPR("-x^2", "(-(x^2))");
  EXPECT_EXPR("-x'^2", "(-(x'^2))");
  EXPECT_EXPR("2^-1", "(2^(-1))");
  EXPECT_EXPR("a^b^c", "(a^(b^c))");
  EXPECT_EXPR("a^-b^c", "(a^(-(b^c)))");
  EXPECT_EXPR("x'^2", "(x'^2)");
  EXPECT_EXPR("x''", "x''");
  EXPECT_EXPR("x' '", "x''");
  EXPECT_EXPR("-a*b", "((-a)*b)");
  EXPECT_EXPR("a*-b", "(a*(-b))");
  EXPECT_EXPR("a - -b", "(a - (-b))");
  EXPECT_EXPR("+a - +b", "((+a) - (+b))");
  EXPECT_EXPR("--a", "(-(-a))");
  EXPECT_EXPR("(a + b)^2", "((a + b)^2)");
  EXPECT_EXPR("((a))", "a");
  EXPECT_EXPR("2*A.x", "(2*A.x)");
  EXPECT_EXPR("A.x^2", "(A.x^2)");
  EXPECT_EXPR("A.y'", "A.y'");
  EXPECT_EXPR("(a + b)'", "(a + b)'");
  EXPECT_EXPR("der(x')", "der(x')");
  EXPECT_EXPR("-sin(x)^2", "(-(sin(x)^2))");
  EXPECT_EXPR("a/b/c", "(a/b/c)");
  EXPECT_EXPR("a - b*c^d'^e", "(a - (b*(c^(d'^e))))");
  EXPECT_EXPR("cross(A.x, -N.z)", "cross(A.x, (-N.z))");
}

/* Numbers keep their text; a '.' or an exponent makes a double. */
static void test_numbers(void) {
  static const struct { const char *src, *text; bool is_double; } cases[] = {
      {"x = 2", "2", false},         {"x = 0.5", "0.5", true},
      {"x = 1e-3", "1e-3", true},    {"x = 2.5E+2", "2.5E+2", true},
      {"x = 7e2", "7e2", true},      {"x = 007", "007", false},
      {"x = 123456789012345678901234567890", "123456789012345678901234567890", false}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    parsed r;
    parse_bytes(&r, cases[i].src, strlen(cases[i].src));
    const lang_expr *e = r.st == LG_OK ? r.prog->first->u.named.value : NULL;
    CHECK(e && e->kind == LANG_EXPR_NUMBER && e->col == 5);
    if (e) CHECK_STR(e->u.number.text, cases[i].text);
    if (e) CHECK(e->u.number.is_double == cases[i].is_double);
    parsed_free(&r);
  }
  /* the source ends where len says, not at a NUL: "x = 12345" cut to "x = 12" */
  EXPECT_PROGRAM_N("x = 12345", 6, "x = 12\n");
}

/* ---- lines ----------------------------------------------------------------------- */
static void test_lines(void) {
  /* a statement continues after a binary operator, '=', ',' or inside brackets */
  EXPECT_PROGRAM("x = a +\n b -\n c *\n d /\n e ^\n f", "x = (a + b - (c*d/(e^f)))\n");
  EXPECT_PROGRAM("x =\n  1", "x = 1\n");
  EXPECT_PROGRAM("parameters m = 1,\n  g = 2", "parameters m = 1, g = 2\n");
  EXPECT_PROGRAM("x = sin(\n a\n)\ny = 2", "x = sin(a)\ny = 2\n");
  EXPECT_PROGRAM("body A mass m at P inertia (1,\n 2, 3\n)\n",
                 "body A mass m at P inertia (1, 2, 3)\n");
  /* blank lines and comment lines inside a continued statement */
  EXPECT_PROGRAM("x = a + # more\n\n  # still more\n  b\ny = 1", "x = (a + b)\ny = 1\n");
  /* a trailing prime or name ends the line */
  EXPECT_PROGRAM("x = a'\ny = b", "x = a'\ny = b\n");
  /* comments anywhere, UTF-8 in comments */
  EXPECT_PROGRAM("# Länge θ — ok\nx = 1 # résumé\n#\n", "x = 1\n");
  /* CRLF and a byte order mark */
  EXPECT_PROGRAM("\xEF\xBB\xBF" "coordinates x\r\nx2 = x +\r\n 1\r\n", "coordinates x\nx2 = (x + 1)\n");
  EXPECT_PROGRAM("x = 1\r\r\ny = 2\r\n", "x = 1\ny = 2\n"); /* a lone CR is a blank */
  EXPECT_PROGRAM("x\t=\f1\v", "x = 1\n");
  {
    parsed r;
    const char src[] = "\xEF\xBB\xBFx = 1\r\n  y = 2\r\n";
    parse_bytes(&r, src, sizeof src - 1);
    CHECK(r.st == LG_OK && r.prog->first->col == 1 && r.prog->first->next->line == 2 &&
          r.prog->first->next->col == 3);
    parsed_free(&r);
  }
  /* many statements */
  {
    lg_str b;
    parsed r;
    lg_str_init(&b);
    for (int i = 0; i < 100000; i++) lg_str_printf(&b, "x%d = %d*y + z\n", i, i);
    parse_bytes(&r, b.s, b.len);
    CHECK(r.st == LG_OK && r.prog->count == 100000);
    lg_str_free(&b);
    parsed_free(&r);
  }
}

/* ---- malformed inputs ------------------------------------------------------------ */
/* Each error at its line:col, with a fragment of "message (hint)".
 * Characters, bytes and numbers first. */
static void test_errors_lexical(void) {
  EXPECT_ERR("frame A\nx = 1 $ 2\n", 2, 7, "unexpected character '$'");
  EXPECT_ERR("x = 1; y = 2", 1, 6, "unexpected character ';' (one statement per line");
  EXPECT_ERR("x = \xff", 1, 5, ": invalid byte 0xff (model files are UTF-8 text)");
  EXPECT_ERR("x = \x01", 1, 5, "invalid byte 0x01");
  EXPECT_ERR("x = 1\0", 1, 6, "invalid byte 0x00");
  EXPECT_ERR("# ok\n# bad \xc3\x28\n", 2, 7, "invalid byte 0xc3");
  EXPECT_ERR("x = \xce\xb8", 1, 5,
             "non-ASCII character '\xce\xb8' (U+03B8) outside a comment (spell Greek letters out");
  EXPECT_ERR("x = q1\xe2\x80\xb2", 1, 7, "U+2032) outside a comment (write the time derivative");
  EXPECT_ERR("\xEF\xBB\xBFx = $", 1, 5, "unexpected character '$'");
  /* numbers */
  EXPECT_ERR("x = 1e", 1, 6, "number '1e' has no exponent digits");
  EXPECT_ERR("x = 1e+", 1, 6, "number '1e+' has no exponent digits");
  EXPECT_ERR("x = 2.", 1, 6, "number '2.' has no digits after the '.'");
  EXPECT_ERR("x = 2x", 1, 6, "number '2' is followed by 'x' (a product needs '*'");
  EXPECT_ERR("x = 1.5.3", 1, 8, "number '1.5' is followed by '.'");
}

/* Brackets, operators and functions. */
static void test_errors_expressions(void) {
  /* brackets */
  EXPECT_ERR("x = (a + b\n", 2, 1, "expected ')' to close '(' at 1:5, found the end of the file");
  EXPECT_ERR("x = (a + b\nV = 3\n", 2, 1, "expected ')' to close '(' at 1:5, found 'V'");
  EXPECT_ERR("frame N\nframe A = rotate(N, N.z, q1\n", 3, 1, "to close '(' at 2:17");
  EXPECT_ERR("x = 1 )", 1, 7, "expected the end of the statement, found ')' (this ')' has no");
  EXPECT_ERR("x = [a]", 1, 5, "unexpected '['");
  EXPECT_ERR("x = ()", 1, 6, "expected an expression, found ')'");
  EXPECT_ERR("x = a\n)", 2, 1, "expected a statement, found ')'");
  /* operators */
  EXPECT_ERR("x = 1 +\n", 2, 1, "expected an expression after '+', found the end of the line");
  EXPECT_ERR("x = 1 +\n\n", 3, 1, "expected an expression after '+'");
  EXPECT_ERR("x = 1 + * 2", 1, 9, "expected an expression after '+', found '*'");
  EXPECT_ERR("x = 2**3", 1, 7, "after '*', found '*' (write powers with '^'");
  EXPECT_ERR("x = 2 ^ ", 1, 9, "expected an expression after '^'");
  EXPECT_ERR("x = -", 1, 6, "expected an expression after '-'");
  EXPECT_ERR("coordinates x\n\n  T = x' *\n\n# c\n", 6, 1, "expected an expression after '*'");
  EXPECT_ERR("x = 2 y", 1, 7, "found 'y' (is an operator missing?");
  EXPECT_ERR("x = 1 = 2", 1, 7, "expected the end of the statement, found '='");
  /* postfix */
  EXPECT_ERR("T = x'''", 1, 8, "too many primes on 'x': at most two (x'' is the second");
  EXPECT_ERR("x = A.w", 1, 7, "expected x, y or z after '.', found 'w'");
  EXPECT_ERR("x = A.x.y", 1, 8, "unexpected '.' after a member or a prime");
  /* functions */
  EXPECT_ERR("x = sinn(y)", 1, 5, "unknown function 'sinn' (did you mean 'sin'?)");
  EXPECT_ERR("x = m(y+1)", 1, 5, "unknown function 'm' (a product needs '*': m*(...))");
  EXPECT_ERR("x = atan2(y)", 1, 5, "'atan2' takes 2 arguments, found 1 (atan2(y, x))");
  EXPECT_ERR("T = 1\nV = sin(x, y)", 2, 5, "'sin' takes 1 argument, found 2");
  EXPECT_ERR("x = sin()", 1, 5, "'sin' takes 1 argument, found 0");
  EXPECT_ERR("x = sin + 1", 1, 5, "function 'sin' needs its arguments in parentheses");
}

/* Statements: unknown ones, and each form's missing parts. */
static void test_errors_statements(void) {
  EXPECT_ERR("frmae N", 1, 1, "m.lag:1:1: unknown statement 'frmae' (did you mean 'frame'?)");
  EXPECT_ERR("paramters m", 1, 1, "(did you mean 'parameters'?)");
  EXPECT_ERR("x = 1\n  y z = 2", 2, 3, "unknown statement 'y'");
  EXPECT_ERR("(x) = 1", 1, 1, "expected a statement, found '('");
  EXPECT_ERR("coordinates", 1, 12,
             "expected a coordinate name after 'coordinates', found the end of the line");
  EXPECT_ERR("coordinates x 2", 1, 15, "expected a coordinate name or the end of the statement");
  EXPECT_ERR("speeds\n", 1, 7, "expected a speed name after 'speeds', found the end of the line");
  EXPECT_ERR("parameters k = 2 m", 1, 18, "expected ',' after the value of 'k', found 'm'");
  EXPECT_ERR("parameters m = 1,", 1, 18, "expected a parameter name after ','");
  EXPECT_ERR("frame A rotate(N, N.z, q)", 1, 9,
             "expected '=' or the end of the statement after 'A', found 'rotate'");
  EXPECT_ERR("particle P m", 1, 12, "expected 'mass' after the point name, found 'm'");
  EXPECT_ERR("body A m at P inertia (1,2,3)", 1, 8, "expected 'mass' after the frame name");
  EXPECT_ERR("body A mass m P inertia (1,2,3)", 1, 15, "expected 'at' after the mass, found 'P'");
  EXPECT_ERR("body A mass m at P (1,2,3)", 1, 20, "expected 'inertia' after the point name");
  EXPECT_ERR("body A mass m at P inertia 1, 2, 3", 1, 28, "expected '(' after 'inertia'");
  EXPECT_ERR("body A mass m at P inertia (1, 2)", 1, 28, "inertia takes 3 or 6 components, found 2");
  EXPECT_ERR("body A mass m at P inertia (1, 2, 3, 4, 5, 6, 7)", 1, 47, "found more than 6");
  EXPECT_ERR("force P 7*N.x", 1, 9, "expected ':' after 'P', found '7' (force P: F)");
  EXPECT_ERR("torque A -k", 1, 10, "expected ':' after 'A', found '-'");
  EXPECT_ERR("gravity", 1, 8, "expected an expression, found the end of the line");
  EXPECT_ERR("constraint x = y = z", 1, 18, "expected the end of the statement, found '='");
  EXPECT_ERR("kinematics q1' = u1 q2' = u2", 1, 21, "expected ',' after the equation, found 'q2'");
  EXPECT_ERR("kinematics q1' u1", 1, 16, "expected '=' in the kinematical equation, found 'u1'");
  EXPECT_ERR("initial x 0", 1, 11, "expected '=' after 'x', found '0'");
  EXPECT_ERR("initial x'' 0", 1, 13, "expected '=' after 'x''', found '0'");
  EXPECT_ERR("initial x''' = 0", 1, 12, "too many primes on 'x'");
  EXPECT_ERR("simulate 0 to", 1, 14, "expected an expression, found the end of the line");
  EXPECT_ERR("simulate 0 to\r\nx = 1\r\n", 1, 14, "found the end of the line");
  EXPECT_ERR("simulate 0 10", 1, 12, "expected 'to' after the start time, found '10'");
  EXPECT_ERR("simulate 0 to 10 stp 1", 1, 18, "expected 'step' or the end of the statement");
}

/* Declaring a reserved name, at the name. */
static void test_errors_reserved(void) {
  EXPECT_ERR("coordinates x\nparameters L = 1", 2, 12,
             "'L' is reserved (the Lagrangian); choose another name such as 'l'");
  EXPECT_ERR("coordinates x t", 1, 15, "'t' is reserved (time); choose another name such as 't1'");
  EXPECT_ERR("coordinates sin", 1, 13, "'sin' is reserved (a function)");
  EXPECT_ERR("parameters frame", 1, 12, "'frame' is reserved (a statement keyword)");
  EXPECT_ERR("point mass", 1, 7, "'mass' is reserved (a keyword)");
  EXPECT_ERR("frame T", 1, 7, "'T' is reserved (the kinetic energy); choose another name such as 'T1'");
  EXPECT_ERR("inputs V", 1, 8, "'V' is reserved (the potential energy)");
  EXPECT_ERR("speeds D", 1, 8, "'D' is reserved (the dissipation function)");
  EXPECT_ERR("pi = 3.14", 1, 1, "'pi' is reserved (the constant pi)");
  EXPECT_ERR("t = 1", 1, 1, "'t' is reserved (time)");
  EXPECT_ERR("step = 1", 1, 1, "'step' is reserved (a keyword)");
  EXPECT_ERR("cos = 1", 1, 1, "'cos' is reserved (a function)");
  EXPECT_ERR("frame = 2", 1, 1, "'frame' is reserved (a statement keyword)");
  EXPECT_ERR("speeds dependent", 1, 8, "'dependent' is reserved (a statement keyword)");
  EXPECT_ERR("parameters m, lam2", 1, 15,
             "'lam2' is reserved (the equations name their multipliers lam1, lam2, ...); "
             "choose another name such as 'lambda2'");
  EXPECT_ERR("lam10 = 1", 1, 1, "'lam10' is reserved");
}

/* ---- limits ---------------------------------------------------------------------- */
/* `x = ` + n copies of open + middle + n copies of close. */
static char *nested(int n, const char *open, const char *middle, const char *close) {
  lg_str b;
  lg_str_init(&b);
  lg_str_puts(&b, "x = ");
  for (int i = 0; i < n; i++) lg_str_puts(&b, open);
  lg_str_puts(&b, middle);
  for (int i = 0; i < n; i++) lg_str_puts(&b, close);
  return lg_str_take(&b);
}

/* Parse s; OK, or an error at 1:col about nesting. */
static void expect_nesting(char *s, int col) {
  parsed r;
  parse_bytes(&r, s, strlen(s));
  if (col == 0) CHECK(r.st == LG_OK);
  else
    CHECK(r.st == LG_ERR_MODEL && r.diag.line == 1 && r.diag.col == col &&
          strstr(r.diag.message, "expression nested too deeply (more than 200 levels)"));
  parsed_free(&r);
  lg_free(s);
}

/* Nodes on the longest path from e to a leaf. */
static int tree_depth(const lang_expr *e) {
  int d = 0;
  switch (e->kind) {
  case LANG_EXPR_CALL:
    for (size_t i = 0; i < e->u.call.nargs; i++) {
      int k = tree_depth(e->u.call.args[i]);
      d = k > d ? k : d;
    }
    break;
  case LANG_EXPR_PRIME: d = tree_depth(e->u.prime.arg); break;
  case LANG_EXPR_MEMBER: d = tree_depth(e->u.member.arg); break;
  case LANG_EXPR_UNARY: d = tree_depth(e->u.unary.arg); break;
  case LANG_EXPR_SUM:
  case LANG_EXPR_PRODUCT:
    for (size_t i = 0; i < e->u.chain.n; i++) {
      int k = tree_depth(e->u.chain.terms[i].e);
      d = k > d ? k : d;
    }
    break;
  case LANG_EXPR_POWER: {
    int a = tree_depth(e->u.power.base), b = tree_depth(e->u.power.exponent);
    d = a > b ? a : b;
    break;
  }
  default: break;
  }
  return d + 1;
}

static void test_depth(void) {
  /* 200 levels parse; the 201st '(' (or sign, or '^') is refused where it is */
  expect_nesting(nested(200, "(", "y", ")"), 0);
  expect_nesting(nested(201, "(", "y", ")"), 205);
  expect_nesting(nested(100000, "(", "y", ")"), 205);
  expect_nesting(nested(100000, "(", "y", ""), 205);
  expect_nesting(nested(200, "sin(", "y", ")"), 0);
  expect_nesting(nested(100000, "sin(", "y", ")"), 4 + 4 * 200 + 4);
  expect_nesting(nested(200, "-", "y", ""), 0);
  expect_nesting(nested(100000, "-", "y", ""), 205);
  expect_nesting(nested(100000, "2^", "2", ""), 4 + 2 * 201);
  expect_nesting(nested(100000, "(-", "y", ")"), 4 + 201);
  /* the deepest tree the limits allow stays within LANG_MAX_TREE_DEPTH */
  {
    char *s = nested(200, "sin(", "y.x'*1+1", ").x'^2*1+1");
    parsed r;
    parse_bytes(&r, s, strlen(s));
    CHECK(r.st == LG_OK);
    if (r.st == LG_OK) {
      int d = tree_depth(r.prog->first->u.named.value);
      CHECK(d == LANG_MAX_TREE_DEPTH);
    }
    parsed_free(&r);
    lg_free(s);
  }
}

/* A 10 MB line: a sum too long for one statement fails; a comment, a
 * number or a name that long is fine. */
static void test_huge(void) {
  const size_t big = 10u << 20;
  lg_str b;
  parsed r;
  lg_str_init(&b);
  lg_str_puts(&b, "coordinates x\nT = x'^2 + ");
  while (b.len < big) lg_str_puts(&b, "x+x+x+x+x+x+x+x+");
  lg_str_puts(&b, "x\n");
  parse_bytes(&r, b.s, b.len);
  CHECK(r.st == LG_ERR_MODEL && r.diag.line == 2 && strstr(r.diag.message, "statement too long"));
  parsed_free(&r);
  static const char *const heads[] = {"x = 1 # ", "x = 1", "x = y"};
  static const char fill[] = {'c', '7', 'q'};
  for (int k = 0; k < 3; k++) {
    lg_str_clear(&b);
    lg_str_puts(&b, heads[k]);
    while (b.len < big) lg_str_putc(&b, fill[k]);
    lg_str_puts(&b, "\ny = 2\n");
    parse_bytes(&r, b.s, b.len);
    CHECK(r.st == LG_OK && r.prog->count == 2);
    if (r.st == LG_OK && k == 1) CHECK(strlen(r.prog->first->u.named.value->u.number.text) == big - 4);
    parsed_free(&r);
  }
  lg_str_free(&b);
}

/* ---- random input ---------------------------------------------------------------- */
/* xorshift64*: a fixed-seed generator for reproducible garbage. */
static uint64_t rng_next(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

/* Every position in a parsed tree is a real one; the depth is bounded. */
static bool tree_ok(const lang_program *p) {
  for (const lang_stmt *s = p->first; s; s = s->next) {
    if (s->line < 1 || s->col < 1) return false;
    if (s->kind == LANG_STMT_ASSIGN && tree_depth(s->u.named.value) > LANG_MAX_TREE_DEPTH)
      return false;
  }
  return true;
}

/* Parse bytes that are not a model: never a crash, an OK or a positioned error. */
static void check_garbage(const char *s, size_t n, int *bad) {
  parsed r;
  parse_bytes(&r, s, n);
  if (r.st == LG_OK) {
    if (!r.prog || !tree_ok(r.prog)) ++*bad;
  } else if (r.st != LG_ERR_MODEL || r.prog || r.diag.line < 1 || r.diag.col < 1 ||
             !r.diag.message[0]) {
    if (++*bad < 5) fprintf(stderr, "garbage: status %d at %d:%d\n", (int)r.st, r.diag.line, r.diag.col);
  }
  parsed_free(&r);
}

static void test_garbage(void) {
  static const char alphabet[] = "xyqN1.e+-*/^()[],=:'#\n\r \t_A9$\xff\xc3\xa9\0";
  uint64_t seed = 0x5eed1234abcdull;
  char buf[700];
  int bad = 0;
  /* random bytes, and random strings over the characters of the language */
  for (int i = 0; i < 2000; i++) {
    size_t n = rng_next(&seed) % 512;
    for (size_t j = 0; j < n; j++) {
      uint64_t v = rng_next(&seed);
      buf[j] = i % 2 ? (char)(v >> 24) : alphabet[(v >> 24) % (sizeof alphabet - 1)];
    }
    check_garbage(buf, n, &bad);
  }
  /* mutations of a valid model: replace, insert or delete bytes, or cut it */
  size_t base = sizeof full_model - 1;
  for (int i = 0; i < 2000; i++) {
    char m[sizeof full_model + 64];
    size_t n = base;
    memcpy(m, full_model, base);
    for (int k = 0, nk = 1 + (int)(rng_next(&seed) % 4); k < nk; k++) {
      size_t at = rng_next(&seed) % n, op = rng_next(&seed) % 4;
      char c = alphabet[rng_next(&seed) % (sizeof alphabet - 1)];
      if (op == 0) m[at] = c;
      else if (op == 1 && n < sizeof m) memmove(m + at + 1, m + at, n++ - at), m[at] = c;
      else if (op == 2 && n > 1) memmove(m + at, m + at + 1, n-- - at - 1);
      else n = at;
      if (n == 0) break;
    }
    check_garbage(m, n, &bad);
  }
  CHECK(bad == 0);
}

/* ---- allocation failures ---------------------------------------------------------- */
/* Fail the n-th allocation for every n: an OK or an out-of-memory status,
 * nothing leaked (LSan checks), until the parse no longer allocates that many. */
static void test_nomem(void) {
  int ok = 0, bad = 0;
  for (long n = 0; n < 100000 && !ok; n++) {
    lg_arena a;
    lg_diag d;
    lang_program *p = NULL;
    lg_arena_init(&a);
    lg_diag_clear(&d);
    lg_alloc_fail_after(n);
    lg_status st = lang_parse("m.lag", full_model, sizeof full_model - 1, &a, &p, &d);
    lg_alloc_fail_after(-1);
    if (st == LG_OK) ok = p != NULL;
    else if (st != LG_ERR_NOMEM || p != NULL || d.status != LG_ERR_NOMEM) bad++;
    lg_arena_free(&a);
  }
  CHECK(ok && bad == 0);
}

/* ---- tables and calling conventions ----------------------------------------------- */
static void test_api(void) {
  lg_arena a;
  lg_diag d;
  lang_program *p = (lang_program *)&a;
  CHECK(lang_func_lookup("atan2", 5) == LANG_FN_ATAN2 && lang_func_arity(LANG_FN_ATAN2) == 2);
  CHECK(lang_func_lookup("body_fixed", 10) == LANG_FN_BODY_FIXED);
  CHECK(lang_func_lookup("sinx", 3) == LANG_FN_SIN); /* length, not NUL, ends the name */
  CHECK(lang_func_lookup("sinh", 4) == LANG_FN_SINH && lang_func_lookup("si", 2) == LANG_FN_COUNT);
  CHECK_STR(lang_func_name(LANG_FN_SPACE_FIXED), "space_fixed");
  CHECK_STR(lang_func_usage(LANG_FN_ROTATE), "rotate(N, N.z, q)");
  CHECK_STR(lang_stmt_keyword(LANG_STMT_SIMULATE), "simulate");
  CHECK(lang_stmt_keyword(LANG_STMT_ASSIGN) == NULL);
  lg_arena_init(&a);
  lg_diag_clear(&d);
  CHECK(lang_parse("m.lag", "x", 1, NULL, &p, &d) == LG_ERR_USAGE && p == NULL);
  CHECK(lang_parse("m.lag", NULL, 3, &a, &p, NULL) == LG_ERR_USAGE);
  CHECK(lang_parse(NULL, "x = $", 5, &a, &p, NULL) == LG_ERR_MODEL && p == NULL);
  /* too large: refused before a byte is read */
  lg_diag_clear(&d);
  CHECK(lang_parse("m.lag", "x", (size_t)LANG_MAX_SOURCE + 1, &a, &p, &d) == LG_ERR_MODEL &&
        d.line == 1 && strstr(d.message, "too large"));
  lg_arena_free(&a);
}

/* One expression as the whole text (lang_parse_expr). */
static void expect_whole(int line, const char *src, const char *want, int el, int ec,
                        const char *frag) {
  lg_arena a;
  lg_diag d;
  lang_expr *e = (lang_expr *)&a;
  size_t len = strlen(src);
  char *copy = lg_malloc(len + 1);
  memcpy(copy, src, len);
  lg_arena_init(&a);
  lg_diag_clear(&d);
  lg_status st = lang_parse_expr("arg", copy, len, &a, &e, &d);
  if (want) {
    lg_str b;
    lg_str_init(&b);
    if (st == LG_OK) show_expr(&b, e);
    if (st == LG_OK && b.s && !strcmp(b.s, want)) tu_passed++;
    else tu_failed++, fprintf(stderr, "%s:%d: got %s (%s), want %s\n", __FILE__, line,
                              b.s ? b.s : "-", d.message, want);
    lg_str_free(&b);
  } else if (st == LG_ERR_MODEL && !e && d.line == el && d.col == ec && strstr(d.message, frag)) {
    tu_passed++;
  } else {
    tu_failed++;
    fprintf(stderr, "%s:%d: got %d %d:%d %s, want %d:%d %s\n", __FILE__, line, st, d.line,
            d.col, d.message, el, ec, frag);
  }
  lg_free(copy);
  lg_arena_free(&a);
}

static void test_parse_expr(void) {
  expect_whole(__LINE__, "theta - 0.5", "(theta - 0.5)", 0, 0, NULL);
  expect_whole(__LINE__, "  x'^2 + y  # a comment\n\n", "((x'^2) + y)", 0, 0, NULL);
  expect_whole(__LINE__, "dot(pos(P), N.y)", "dot(pos(P), N.y)", 0, 0, NULL);
  expect_whole(__LINE__, "x = 1", NULL, 1, 3, "expected the end of the statement, found '='");
  expect_whole(__LINE__, "x\ny", NULL, 2, 1, "expected the end of the statement, found 'y'");
  expect_whole(__LINE__, "", NULL, 1, 1, "expected an expression");
  expect_whole(__LINE__, "sin(x", NULL, 1, 6, "')' to close '(' at 1:4");
  expect_whole(__LINE__, "2 $", NULL, 1, 3, "unexpected character '$'");
  lg_arena a;
  lang_expr *e;
  lg_arena_init(&a);
  CHECK(lang_parse_expr("arg", "x", 1, NULL, &e, NULL) == LG_ERR_USAGE);
  CHECK(lang_parse_expr("arg", "x", 1, &a, NULL, NULL) == LG_ERR_USAGE);
  for (long n = 0;; n++) { /* out of memory at each allocation */
    lg_alloc_fail_after(n);
    lg_status st = lang_parse_expr("arg", "a*b + sin(c)^2 - d'", 19, &a, &e, NULL);
    lg_alloc_fail_after(-1);
    if (st == LG_OK) break;
    CHECK(st == LG_ERR_NOMEM && e == NULL);
  }
  lg_arena_free(&a);
}

int main(void) {
  test_parse_expr();
  test_statements();
  test_positions();
  test_precedence();
  test_numbers();
  test_lines();
  test_errors_lexical();
  test_errors_expressions();
  test_errors_statements();
  test_errors_reserved();
  test_depth();
  test_huge();
  test_garbage();
  test_nomem();
  test_api();
  return tu_summary("test_lang_parse");
}
