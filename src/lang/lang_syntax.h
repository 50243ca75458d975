/* lang_syntax.h - the syntax tree of a model file, and the parser.
 *
 * Every node carries its line and column (1-based, columns in bytes).
 * All memory comes from the caller's arena. Sums and products are n-ary
 * (`a + b - c` is one node with three operands) so long statements never
 * make deep trees. */
#ifndef LG_LANG_SYNTAX_H
#define LG_LANG_SYNTAX_H

#include "lg_base.h"

typedef enum lang_expr_kind {
  LANG_EXPR_NUMBER,  /* text: the literal; is_float */
  LANG_EXPR_NAME,    /* text */
  LANG_EXPR_PRIME,   /* operand' (primes = 1 or 2) */
  LANG_EXPR_MEMBER,  /* operand.x|y|z (member) */
  LANG_EXPR_CALL,    /* text(args) */
  LANG_EXPR_UNARY,   /* op operand, op '-' or '+' */
  LANG_EXPR_SUM,     /* args[0] ops[1] args[1] ...: ops '+' or '-' */
  LANG_EXPR_PRODUCT, /* args[0] ops[1] args[1] ...: ops '*' or '/' */
  LANG_EXPR_POWER    /* lhs ^ rhs */
} lang_expr_kind;

typedef struct lang_expr lang_expr;
struct lang_expr {
  unsigned char kind, is_float, primes;
  char op, member;
  int line, col;           /* for SUM/PRODUCT/POWER: the first operator */
  const char *text;
  lang_expr *operand, *lhs, *rhs;
  lang_expr **args;
  const char *ops;         /* SUM/PRODUCT: ops[i] joins args[i-1] and args[i] */
  const int *op_line, *op_col; /* SUM/PRODUCT: where each operator is */
  size_t nargs;
};

/* An element of a list statement: `m = 1` (parameters), `x' = 0`
 * (initial), `q1' = u1` (kinematics: lhs = value). */
typedef struct lang_item {
  const char *name;
  int line, col, primes;
  lang_expr *lhs, *value;
} lang_item;

typedef enum lang_stmt_kind {
  LANG_ST_COORDINATES, LANG_ST_PARAMETERS, LANG_ST_INPUTS, LANG_ST_ASSIGN,
  LANG_ST_FRAME, LANG_ST_POINT, LANG_ST_PARTICLE, LANG_ST_BODY, LANG_ST_GRAVITY,
  LANG_ST_FORCE, LANG_ST_TORQUE, LANG_ST_CONSTRAINT, LANG_ST_SPEEDS,
  LANG_ST_KINEMATICS, LANG_ST_INITIAL, LANG_ST_SIMULATE
} lang_stmt_kind;

typedef struct lang_stmt lang_stmt;
struct lang_stmt {
  lang_stmt_kind kind;
  int line, col;                 /* the statement's first token */
  const char *name;              /* declared/target name (frame, point, ...) */
  int name_line, name_col;
  const char *point;             /* body ... at POINT */
  int point_line, point_col;
  lang_expr *value, *rhs, *step; /* main expression; constraint rhs / simulate end */
  lang_expr **inertia;
  size_t ninertia;
  lang_item *items;              /* list statements */
  size_t nitems;
  lang_stmt *next;
};

typedef struct lang_program {
  lang_stmt *first;
} lang_program;

enum {
  LANG_MAX_DEPTH = 200,          /* nesting of parentheses, calls, unary, ^ */
  LANG_MAX_STATEMENT = 1 << 20   /* bytes in one statement */
};

/* Parse `src` (len bytes, may contain NULs). On error: LG_ERR_MODEL with
 * diag (file:line:col, message, hint); *out is NULL. */
lg_status lang_parse_program(const char *file, const char *src, size_t len,
                             lg_arena *arena, lang_program **out, lg_diag *diag);

/* ---- the lexer (lang_lexer.c), used by the parser ---- */
typedef enum lang_tok_kind {
  TOK_EOF, TOK_NEWLINE, TOK_NAME, TOK_NUMBER, TOK_PUNCT, TOK_ERROR
} lang_tok_kind;

typedef struct lang_token {
  lang_tok_kind kind;
  char punct;          /* TOK_PUNCT: one of + - * / ^ ( ) , = : . ' */
  int is_float;
  int line, col;
  const char *start;
  size_t len;
} lang_token;

typedef struct lang_lexer {
  const char *file, *src, *end, *p;
  int line;
  const char *line_start;
  int depth;                 /* open ( */
  lang_token prev;           /* for line continuation */
  const char *stmt_start;    /* for the statement length limit */
  lg_diag *diag;
} lang_lexer;

void lang_lex_init(lang_lexer *L, const char *file, const char *src, size_t len,
                   lg_diag *diag);
/* The next token; TOK_ERROR sets diag. */
lang_token lang_lex_next(lang_lexer *L);

#endif
