/* lang_ast.h - the syntax tree of a model file, the parser that builds it,
 * and the lexer the parser reads from.
 *
 * The tree is what the text says, nothing more: names are not resolved and
 * nothing is typed (that is the semantic pass). Every node carries the line
 * and column of its own token (1-based; columns count bytes, a tab is one).
 * All memory comes from the caller's arena and is released with it; the
 * tree does not point into the source text.
 *
 * Depth is bounded so that consumers may recurse: a sum or a product is one
 * flat node over its operands (a chain), and every other nesting (brackets,
 * calls, signs, exponents) counts against LANG_MAX_DEPTH, so a tree is never
 * deeper than LANG_MAX_TREE_DEPTH nodes.
 *
 * Layer-internal: included by the parser, the lexer and the semantic pass.
 * It replaces lang_syntax.h (do not include both in one file).
 */
#ifndef LG_LANG_AST_H
#define LG_LANG_AST_H

#include <stdbool.h>
#include <stddef.h>

#include "lg_base.h"
#include "sym.h"

/* ---- limits --------------------------------------------------------------------- */
enum {
  LANG_MAX_DEPTH = 200,          /* nesting levels in one expression */
  LANG_MAX_TREE_DEPTH = 6 * LANG_MAX_DEPTH + 5, /* nodes, root to leaf */
  LANG_MAX_STMT_TOKENS = 1000000, /* tokens in one statement */
  LANG_MAX_SOURCE = 1 << 30      /* bytes in one model file */
};

/* ---- tables --------------------------------------------------------------------- */
/* The statement keywords: X(ID, "keyword"). LANG_STMT_ASSIGN has none. */
#define LANG_STATEMENTS(X)                                                      \
  X(COORDINATES, "coordinates") X(PARAMETERS, "parameters") X(INPUTS, "inputs") \
  X(FRAME, "frame") X(POINT, "point") X(PARTICLE, "particle") X(BODY, "body")   \
  X(GRAVITY, "gravity") X(FORCE, "force") X(TORQUE, "torque")                   \
  X(CONSTRAINT, "constraint") X(SPEEDS, "speeds") X(KINEMATICS, "kinematics")   \
  X(DEPENDENT, "dependent") X(INITIAL, "initial") X(SIMULATE, "simulate")         \
  X(DRAW, "draw") X(OUTPUT, "output") X(SPRING, "spring") X(DAMPER, "damper")         \
  X(WHEN, "when") X(FRICTION, "friction") X(CONTACT, "contact")

/* The functions. The elementary ones (sin ... sign) are the symbolic core's
 * own table, SYM_FUNCS in sym.h, so that lang_func and sym_fn agree on them
 * (LANG_FN_SIN == SYM_FN_SIN, ...); the rest belong to the language:
 * X(ID, "name", number of arguments, "a call as written"). */
#define LANG_OWN_FUNCTIONS(X)                                                   \
  X(DER, "der", 1, "der(e)")                                                    \
  X(DOT, "dot", 2, "dot(a, b)") X(CROSS, "cross", 2, "cross(a, b)")             \
  X(NORM, "norm", 1, "norm(v)") X(POS, "pos", 1, "pos(P)")                      \
  X(VEL, "vel", 1, "vel(P)") X(ANGVEL, "angvel", 1, "angvel(A)")                \
  X(ROTATE, "rotate", 3, "rotate(N, N.z, q)")                                   \
  X(BODY_FIXED, "body_fixed", 5, "body_fixed(N, zxy, a1, a2, a3)")              \
  X(SPACE_FIXED, "space_fixed", 5, "space_fixed(N, xyz, a1, a2, a3)")            \
  X(QUATERNION, "quaternion", 5, "quaternion(N, e0, e1, e2, e3)")                \
  X(MOMENTUM, "momentum", 0, "momentum()") X(ANGMOM, "angmom", 1, "angmom(P)")  \
  X(MASS_CENTER, "mass_center", 0, "mass_center()")

/* A function of the language (the callee of a LANG_EXPR_CALL). */
typedef enum lang_func {
#define LANG_ELEM_ENUM_(id, name, arity, c, tex) LANG_FN_##id,
  SYM_FUNCS(LANG_ELEM_ENUM_)
#undef LANG_ELEM_ENUM_
#define LANG_FUNC_ENUM_(id, name, nargs, usage) LANG_FN_##id,
  LANG_OWN_FUNCTIONS(LANG_FUNC_ENUM_)
#undef LANG_FUNC_ENUM_
  LANG_FN_COUNT
} lang_func;

/* Is f one of the symbolic core's functions (then (sym_fn)f is it)? */
static inline bool lang_func_is_elementary(lang_func f) { return (int)f < (int)SYM_FN_COUNT; }

/* Spelling, number of arguments and an example call of f. */
const char *lang_func_name(lang_func f);
int lang_func_arity(lang_func f);
const char *lang_func_usage(lang_func f);
/* The function spelled s[0..len), or LANG_FN_COUNT when there is none. */
lang_func lang_func_lookup(const char *s, size_t len);

/* Why `name` cannot be declared (a keyword, a function, t, pi, T ...), or
 * NULL when it can. */
const char *lang_reserved_reason(const char *name);

/* ---- expressions ---------------------------------------------------------------- */
/* What an expression node is; the comment says which member of u it uses
 * and which token its line/col point at. */
typedef enum lang_expr_kind {
  LANG_EXPR_NUMBER,  /* u.number: the literal */
  LANG_EXPR_NAME,    /* u.name: the name (t and pi included) */
  LANG_EXPR_CALL,    /* u.call: the function name */
  LANG_EXPR_PRIME,   /* u.prime: the first ' */
  LANG_EXPR_MEMBER,  /* u.member: the '.' */
  LANG_EXPR_UNARY,   /* u.unary: the sign */
  LANG_EXPR_SUM,     /* u.chain, ops '+' '-': the first operator */
  LANG_EXPR_PRODUCT, /* u.chain, ops '*' '/': the first operator */
  LANG_EXPR_POWER    /* u.power: the '^' */
} lang_expr_kind;

typedef struct lang_expr lang_expr;

/* One operand of a chain with the operator written before it. For the
 * first operand op is '+' (sum) or '*' (product) and line/col is where the
 * operand starts; otherwise line/col is the operator's. */
typedef struct lang_operand {
  lang_expr *e;
  int line, col;
  char op;
} lang_operand;

/* An expression node. Children are never NULL. A chain a op1 b op2 c means
 * ((a op1 b) op2 c): `1/2*m` is PRODUCT {'*' 1, '/' 2, '*' m}. Brackets
 * leave no node. */
struct lang_expr {
  lang_expr_kind kind;
  int line, col;
  union {
    struct {
      const char *text; /* as written: "2", "0.5", "1e-3"; any length */
      bool is_double;   /* written with '.' or an exponent */
    } number;
    const char *name;
    struct {
      lang_func fn;
      lang_expr **args; /* lang_func_arity(fn) of them (checked) */
      size_t nargs;
    } call;
    struct {
      lang_expr *arg;
      int count;        /* 1 for q', 2 for q'' */
    } prime;
    struct {
      lang_expr *arg;
      char axis;        /* 'x', 'y' or 'z' (A.x) */
    } member;
    struct {
      lang_expr *arg;
      char op;          /* '-' or '+' */
    } unary;
    struct {
      lang_operand *terms; /* n >= 2 */
      size_t n;
    } chain;
    struct {
      lang_expr *base, *exponent; /* right-associative: a^b^c = a^(b^c) */
    } power;
  } u;
};

/* ---- statements ----------------------------------------------------------------- */
/* The kind of a statement: an assignment or one per keyword. */
typedef enum lang_stmt_kind {
  LANG_STMT_ASSIGN,
#define LANG_STMT_ENUM_(id, word) LANG_STMT_##id,
  LANG_STATEMENTS(LANG_STMT_ENUM_)
#undef LANG_STMT_ENUM_
  LANG_STMT_COUNT
} lang_stmt_kind;

/* The keyword that starts statements of kind k ("frame"); NULL for ASSIGN. */
const char *lang_stmt_keyword(lang_stmt_kind k);

/* A name written in a statement (declared or referred to), and where. */
typedef struct lang_ident {
  const char *text;
  int line, col;
} lang_ident;

/* `name [= value]` in parameters and inputs; value is NULL when absent. */
typedef struct lang_decl {
  lang_ident name;
  lang_expr *value;
} lang_decl;

/* `lhs = rhs` (kinematics, constraint); line/col is the '='. A constraint
 * written without '=' has rhs NULL and line/col 0. */
typedef struct lang_equation {
  lang_expr *lhs, *rhs;
  int line, col;
} lang_equation;

/* `name = value`, `name' = value` or `name'' = value` in initial. */
typedef struct lang_init {
  lang_ident name;
  int primes;       /* 0, 1 or 2 */
  lang_expr *value;
} lang_init;

/* `name [= value]`: an assignment (value never NULL), frame or point. */
typedef struct lang_named {
  lang_ident name;
  lang_expr *value;
} lang_named;

typedef struct lang_stmt lang_stmt;

/* A statement. line/col is its first token; u holds the member named in the
 * comment for its kind. Arrays have n >= 1 entries. */
struct lang_stmt {
  lang_stmt_kind kind;
  int line, col;
  lang_stmt *next;  /* the next statement in file order, NULL at the end */
  union {
    struct { lang_ident *v; size_t n; } names;  /* COORDINATES, SPEEDS, DEPENDENT */
    struct { lang_decl *v; size_t n; } decls;         /* PARAMETERS, INPUTS */
    lang_named named;                                 /* ASSIGN, FRAME, POINT */
    struct { lang_ident point; lang_expr *mass; } particle;         /* PARTICLE */
    struct {
      lang_ident frame;
      lang_expr *mass;
      lang_ident at;          /* the mass centre */
      lang_expr *inertia[6];  /* Ixx Iyy Izz [Ixy Iyz Izx] */
      int ninertia;           /* 3 or 6 */
    } body;                                           /* BODY */
    lang_expr *gravity;                               /* GRAVITY */
    struct { lang_ident target; lang_expr *value; } load; /* FORCE, TORQUE */
    lang_equation constraint;                         /* CONSTRAINT */
    struct { lang_equation *v; size_t n; } kinematics; /* KINEMATICS */
    struct { lang_init *v; size_t n; } initial;       /* INITIAL */
    struct { lang_expr *start, *stop, *step; } simulate; /* SIMULATE; step may be NULL */
    /* DRAW: segment P Q, trail P, Q, or a shape (sphere, capsule, cylinder, disk, box):
     * v its one or two points, frame (text NULL: none) and axis (x, y or z) after `in` and
     * `axis`, val[0..2] the radius then the length or width, or the box's size, at[0..2]
     * the offset along the frame's axes (NULL where not written) */
    struct {
      lang_ident what; lang_ident *v; size_t n;
      lang_ident frame, axis;
      lang_expr *val[3], *at[3];
      lang_ident valname[3]; /* the word that gave val[i] (radius, length, width, size) */
    } draw;
    /* SPRING, DAMPER: `spring P Q: k, l0` (b.text set) or `spring q: k, q0`
     * (b.text NULL); a damper has k (its c) alone, x0 NULL */
    struct { lang_ident a, b; lang_expr *k, *x0; } element;
    /* FRICTION: `friction x: F [static Fs]` (element.a the coordinate,
     * element.k F, element.x0 Fs or NULL) */
    /* CONTACT: `contact P plane O n restitution e [friction mu]` (mu NULL
     * when not written); `contact lhs >= rhs [restitution e]` (p.text
     * NULL, op '>' or '<' for <=, at op_line:op_col; e NULL when not
     * written); `contact limits [restitution e]` (p.text NULL, limits set).
     * The gap forms keep a `friction mu` (at fric_line:fric_col) only to
     * refuse it. */
    struct {
      lang_ident p, o; lang_expr *n, *e, *mu;
      lang_expr *lhs, *rhs;
      char op;
      bool limits;
      int op_line, op_col, fric_line, fric_col;
    } contact;
    /* OUTPUT: `output h = expr` (frame.text NULL) or `output r = vec in A` */
    struct { lang_ident name; lang_expr *value; lang_ident frame; } output;
    /* WHEN: `when lhs < rhs: stop` (stop set, v NULL) or `when lhs > rhs:
     * x' = ..., x = ...` (assignments as in initial; primes 0 or 1); op
     * '<' or '>' at op_line:op_col */
    struct {
      lang_expr *lhs, *rhs;
      char op;
      int op_line, op_col;
      bool stop;
      lang_init *v;
      size_t n;
    } when;
  } u;
};

/* A parsed model file: its statements in order (first is NULL when empty). */
typedef struct lang_program {
  lang_stmt *first;
  size_t count;
} lang_program;

/* ---- the parser (lang_parse.c) -------------------------------------------------- */
/* Parse `src` (len bytes; need not be NUL-terminated, may hold any bytes).
 * On success *out is the program, allocated in `arena`. Otherwise *out is
 * NULL and the status is LG_ERR_MODEL (diag: file, line, col of the first
 * error, message, hint), LG_ERR_NOMEM or LG_ERR_USAGE (NULL arena or out).
 * `file` is only copied into diagnostics; diag may be NULL. Linear time. */
lg_status lang_parse(const char *file, const char *src, size_t len, lg_arena *arena,
                     lang_program **out, lg_diag *diag);
/* The same for the text a URDF import expanded to (lang_urdf.h): a
 * position named inside a message ("'(' at 4:12") is the model's own. */
struct lang_expanded;
lg_status lang_parse_expanded(const char *file, const char *src, size_t len, lg_arena *arena,
                              lang_program **out, lg_diag *diag,
                              const struct lang_expanded *x);

/* Parse one expression that is the whole of src (blank lines and a comment
 * around it allowed; a command-line argument such as `theta - 0.5`). On
 * success *out is the tree, allocated in `arena`; otherwise *out is NULL,
 * the status and diag as for lang_parse (positions are in src). */
lg_status lang_parse_expr(const char *file, const char *src, size_t len, lg_arena *arena,
                          lang_expr **out, lg_diag *diag);

/* ---- the lexer (lang_lex.c), used by the parser only ----------------------------- */
/* Token kinds. NEWLINE ends a statement (continued lines produce none). */
typedef enum lang_tok_kind {
  LANG_TK_EOF,
  LANG_TK_NEWLINE,
  LANG_TK_NAME,
  LANG_TK_NUMBER,
  LANG_TK_PUNCT, /* one of + - * / ^ ( ) [ ] , = : . ' */
  LANG_TK_ERROR  /* the lexer has filled the diagnostic */
} lang_tok_kind;

/* A token: its kind, its text in the source, where it starts. */
typedef struct lang_tok {
  lang_tok_kind kind;
  char punct;       /* PUNCT: the character */
  bool is_double;   /* NUMBER: written with '.' or an exponent */
  int line, col;
  const char *text; /* into the source; len bytes */
  size_t len;
} lang_tok;

/* The lexer's state: a cursor over the source, where lines start, and
 * what decides whether a newline continues the statement. */
typedef struct lang_lexstate {
  const char *file;
  const char *p, *end;     /* next byte, end of the source */
  const char *line_start;  /* first byte of the current line */
  int line;
  int open;                /* ( and [ open in this statement */
  lang_tok_kind last_kind; /* the previous token's kind ... */
  char last_punct;         /* ... and punctuation character */
  size_t ntok;             /* tokens in this statement so far */
  bool failed;             /* an error was reported: only ERROR tokens follow */
  lg_diag *diag;
} lang_lexstate;

/* Start reading src[0..len) (a UTF-8 byte order mark is skipped). */
void lang_lex_open(lang_lexstate *ls, const char *file, const char *src, size_t len,
                   lg_diag *diag);
/* The next token. After an ERROR or EOF token, the same kind again. */
lang_tok lang_lex_scan(lang_lexstate *ls);

#endif
