/* sym.h - the symbolic core: exact, hash-consed expression DAGs.
 *
 * An expression is an immutable node interned in a context (sym_ctx).
 * Structurally equal expressions are the same pointer, so equality is a
 * pointer compare and shared subterms are stored once. Nodes live in the
 * context's arena: sym_ctx_free releases all of them; there is no per-node
 * free. The layer knows nothing about mechanics.
 *
 * Memory: constructors return NULL when memory runs out, and every
 * constructor returns NULL when given a NULL operand, so a caller may build
 * a whole expression and check once at the end (sym_ctx_oom tells why).
 *
 * Canonical forms (applied by the smart constructors, never by callers):
 *  - ADD is  c0 + sum_i c_i * t_i  with numeric c_i != 0 and the terms t_i
 *    distinct, non-numeric, not ADD, sorted by sym_cmp.
 *  - MUL is  c * prod_i f_i  with the numeric coefficient c != 0, 1 when
 *    there is a single factor; factors distinct bases, not MUL, not
 *    numbers (except an exact rational under a non-integer power).
 *  - POW is  b ^ e  with e != 0, 1; integer powers of products distribute.
 *  - An exact division by zero gives the UNDEF node, which absorbs every
 *    operation it takes part in (printed `undefined`).
 *  IEEE note: rewrites that are exact for every real value are applied to
 *  doubles as well (x*1.0 -> x, x+0.0 -> x, 0.0*x -> 0). 0.0*x -> 0 is not
 *  exact for x = inf or NaN; we accept that, like SymPy, because model
 *  expressions are finite wherever they are evaluated.
 */
#ifndef LG_SYM_H
#define LG_SYM_H

#include "lg_base.h"

#include <stdint.h>

/* ---- the operation table ------------------------------------------------
 * X(ID, name, arity, C spelling, LaTeX spelling). Numeric evaluation and
 * derivative rules are keyed by the same IDs in sym_func.c. */
#define SYM_FUNCS(X)                                  \
  X(SIN, "sin", 1, "sin", "\\sin")                    \
  X(COS, "cos", 1, "cos", "\\cos")                    \
  X(TAN, "tan", 1, "tan", "\\tan")                    \
  X(ASIN, "asin", 1, "asin", "\\arcsin")              \
  X(ACOS, "acos", 1, "acos", "\\arccos")              \
  X(ATAN, "atan", 1, "atan", "\\arctan")              \
  X(ATAN2, "atan2", 2, "atan2", "\\operatorname{atan2}") \
  X(SINH, "sinh", 1, "sinh", "\\sinh")                \
  X(COSH, "cosh", 1, "cosh", "\\cosh")                \
  X(TANH, "tanh", 1, "tanh", "\\tanh")                \
  X(EXP, "exp", 1, "exp", "\\exp")                    \
  X(LOG, "log", 1, "log", "\\log")                    \
  X(SQRT, "sqrt", 1, "sqrt", "\\sqrt")                \
  X(ABS, "abs", 1, "fabs", "\\operatorname{abs}")     \
  X(SIGN, "sign", 1, "lg_sign", "\\operatorname{sign}")

typedef enum sym_fn {
#define SYM_FN_ENUM(id, name, arity, c, tex) SYM_FN_##id,
  SYM_FUNCS(SYM_FN_ENUM)
#undef SYM_FN_ENUM
  SYM_FN_COUNT
} sym_fn;

const char *sym_fn_name(sym_fn f);
int sym_fn_arity(sym_fn f);
const char *sym_fn_c_name(sym_fn f); /* spelling in C (<math.h>) */
const char *sym_fn_latex(sym_fn f);
/* Numeric value of f at the arguments (IEEE semantics: NaN, inf). */
double sym_fn_eval(sym_fn f, double a, double b);

/* ---- nodes ------------------------------------------------------------- */
typedef enum sym_kind {
  SYM_NUM,    /* exact rational */
  SYM_FLOAT,  /* double */
  SYM_SYMBOL, /* a named constant (parameter, input, free symbol) */
  SYM_TIME,   /* t */
  SYM_COORD,  /* coordinate q(t) or its order-th time derivative */
  SYM_ADD,
  SYM_MUL,
  SYM_POW,
  SYM_FUNC,
  SYM_UNDEF
} sym_kind;

typedef struct sym_ctx sym_ctx;
typedef struct sym_node sym_node;

struct sym_node {
  uint32_t id;      /* dense creation index within the context */
  uint8_t kind;     /* sym_kind */
  uint8_t fn;       /* sym_fn for SYM_FUNC */
  uint16_t order;   /* SYM_COORD: derivative order (0 = q, 1 = q', ...) */
  uint32_t nargs;   /* ADD: terms; MUL: factors; POW: 2; FUNC: arity */
  /* 16 bits each (depth <= SYM_MAX_DEPTH + 1, order <= 60000): a node
   * without arguments takes 80 bytes, not 96 (a 40-link URDF builds
   * ~50,000 nodes, most of them floats) */
  uint16_t depth;   /* 1 for atoms */
  uint16_t max_order; /* 1 + the highest COORD order inside; 0: no COORD */
  uint64_t hash;    /* structural, deterministic across runs */
  uint64_t atoms;   /* bloom mask of the atoms inside (for quick zero tests) */
  union {
    struct { int64_t num, den; void *big; } rat; /* big: mpq_t* or NULL */
    double f;
    const char *name; /* SYMBOL, COORD */
  } v;
  const sym_node *coef;        /* ADD: constant term; MUL: coefficient */
  const sym_node *const *args; /* ADD terms, MUL factors, POW base/exp, FUNC */
  const sym_node *const *coefs;/* ADD: coefficient of each term */
};

/* Expressions may not nest deeper than this (recursive algorithms rely on
 * it); a constructor that would exceed it returns NULL and sets the
 * context's error. */
enum { SYM_MAX_DEPTH = 5000 };
_Static_assert(SYM_MAX_DEPTH < 65535, "sym_node.depth has 16 bits");

/* A map from a 64-bit key (a node id, say) to a node: lg_map with node
 * values. Zero it to start. get gives NULL for a missing key; put returns 0
 * on OOM (or a NULL value). */
typedef lg_map sym_memo;
static inline const sym_node *sym_memo_get(const sym_memo *m, uint64_t key) {
  return (const sym_node *)lg_map_get(m, key);
}
static inline int sym_memo_put(sym_memo *m, uint64_t key, const sym_node *val) {
  return lg_map_put(m, key, (void *)(uintptr_t)val);
}
static inline void sym_memo_free(sym_memo *m) { lg_map_free(m); }

/* ---- context ------------------------------------------------------------ */
sym_ctx *sym_ctx_new(void);
void sym_ctx_free(sym_ctx *c);
size_t sym_ctx_node_count(const sym_ctx *c);
/* Room for `nodes` more nodes in the interning table without regrowing it
 * step by step (a caller that knows roughly how many it will build); the
 * nodes built are the same either way. 0 on OOM. */
int sym_ctx_reserve(sym_ctx *c, size_t nodes);
/* Drop the caches of expansion, simplification and collection (a large
 * system's take tens of MB); later calls fill them again. */
void sym_ctx_forget_rewrites(sym_ctx *c);
/* Why the last constructor returned NULL: LG_ERR_NOMEM or LG_ERR_MODEL
 * (too deep). LG_OK when nothing failed. */
lg_status sym_ctx_error(const sym_ctx *c);
const char *sym_ctx_error_message(const sym_ctx *c);

/* ---- atoms and numbers -------------------------------------------------- */
const sym_node *sym_int(sym_ctx *c, int64_t v);
/* num/den reduced; den == 0 gives UNDEF. */
const sym_node *sym_rat(sym_ctx *c, int64_t num, int64_t den);
/* An exact integer written in decimal digits, any length. */
const sym_node *sym_int_str(sym_ctx *c, const char *digits);
const sym_node *sym_float(sym_ctx *c, double v);
const sym_node *sym_symbol(sym_ctx *c, const char *name);
const sym_node *sym_time(sym_ctx *c);
const sym_node *sym_coord(sym_ctx *c, const char *name, int order);
/* pi as a named symbol whose numeric value is M_PI. */
const sym_node *sym_pi(sym_ctx *c);

/* ---- arithmetic (smart constructors) ------------------------------------ */
const sym_node *sym_add(sym_ctx *c, const sym_node *a, const sym_node *b);
const sym_node *sym_addv(sym_ctx *c, size_t n, const sym_node *const *terms);
const sym_node *sym_sub(sym_ctx *c, const sym_node *a, const sym_node *b);
const sym_node *sym_neg(sym_ctx *c, const sym_node *a);
const sym_node *sym_mul(sym_ctx *c, const sym_node *a, const sym_node *b);
const sym_node *sym_mulv(sym_ctx *c, size_t n, const sym_node *const *factors);
const sym_node *sym_div(sym_ctx *c, const sym_node *a, const sym_node *b);
const sym_node *sym_pow(sym_ctx *c, const sym_node *base, const sym_node *e);
const sym_node *sym_powi(sym_ctx *c, const sym_node *base, int64_t e);
/* A let-binding: a fresh atom that stands for def, so that expressions
 * built on it keep it as one term (a canonical sum or product never
 * flattens across it). sym_eval, sym_diff, sym_dt and the tapes see
 * through it (a tape lowers def once, where the atom is first used), and
 * so does sym_subst (the definition substituted into, bound anew);
 * printing does NOT. Returns def itself when it is a number or an atom, or when it
 * holds one of the nexcl atoms excl (say, inputs substituted later);
 * NULL on OOM. */
const sym_node *sym_let(sym_ctx *c, const sym_node *def, size_t nexcl,
                        const sym_node *const *excl);
const sym_node *sym_func(sym_ctx *c, sym_fn f, const sym_node *a,
                         const sym_node *b /* NULL unless arity 2 */);

/* ---- queries ------------------------------------------------------------ */
int sym_is_number(const sym_node *e);          /* NUM or FLOAT */
int sym_is_zero(const sym_node *e);            /* exact or float zero */
int sym_is_one(const sym_node *e);
int sym_is_integer(const sym_node *e, int64_t *out); /* small exact integer */
int sym_is_negative_number(const sym_node *e);
double sym_number_value(const sym_node *e);    /* NUM/FLOAT as double */
/* Total, deterministic order (atoms by kind then name; compound nodes by
 * kind then structural hash). Never compares pointers. */
int sym_cmp(const sym_node *a, const sym_node *b);
/* Does `e` contain atom `x` (SYMBOL, COORD, TIME)? */
int sym_has(const sym_node *e, const sym_node *x);
/* has[r] = 1 when roots[r] holds any of x (the nodes themselves, through
 * arguments and let definitions: where substitution would replace one),
 * else 0. state (NULL: not wanted): every node's by id (nstate of them;
 * 1: it holds none, 2: it holds one, 0: not walked), for
 * sym_subst_cached_pruned; the caller frees it. LG_ERR_NOMEM. */
lg_status sym_has_any(const sym_ctx *c, size_t nroots, const sym_node *const *roots,
                      size_t nx, const sym_node *const *x, unsigned char *has,
                      unsigned char **state, size_t *nstate);
/* Canonical-form invariants hold for e and its subterms (debug checks). */
int sym_is_canonical(const sym_node *e);
/* The node's own invariants only (its children taken as canonical): what
 * sanitized builds (LG_CHECK_CANONICAL) assert for every new node. */
int sym_node_is_canonical(const sym_node *n);
/* Number of distinct nodes in the DAG of e (of all the roots). */
size_t sym_dag_size(const sym_node *e);
size_t sym_dag_size_many(size_t n, const sym_node *const *roots);

/* ---- calculus ----------------------------------------------------------- */
/* Partial derivative with respect to an atom (SYMBOL, COORD of any order,
 * or TIME for the explicit time dependence). Memoized per (node, var). */
const sym_node *sym_diff(sym_ctx *c, const sym_node *e, const sym_node *var);
/* Total time derivative: q -> q', q' -> q'', explicit t by its partial.
 * Symbols are constants. Memoized per node. */
const sym_node *sym_dt(sym_ctx *c, const sym_node *e);

/* ---- rewriting ---------------------------------------------------------- */
/* Simultaneous substitution of atoms or subexpressions (like SymPy's
 * xreplace): each node equal to from[i] becomes to[i]; the replacements
 * are not rewritten again. q, q', q'' are independent atoms, so replacing q
 * leaves q' alone (no order-of-substitution traps). */
const sym_node *sym_subst(sym_ctx *c, const sym_node *e, size_t n,
                          const sym_node *const *from,
                          const sym_node *const *to);
/* The same substitution applied to many expressions: what one call
 * rebuilt is reused by the next, so substituting into the pieces of one
 * DAG costs the DAG's size once, not once per piece. */
typedef struct sym_subst_cache { sym_memo map, memo; } sym_subst_cache;
lg_status sym_subst_cache_init(sym_subst_cache *s, size_t n, const sym_node *const *from,
                               const sym_node *const *to);
const sym_node *sym_subst_cached(sym_ctx *c, sym_subst_cache *s, const sym_node *e);
/* The same, not walking a node whose state (sym_has_any over the same
 * `from`) says it holds none of them: it is its own result. */
const sym_node *sym_subst_cached_pruned(sym_ctx *c, sym_subst_cache *s, const sym_node *e,
                                        const unsigned char *state, size_t nstate);
void sym_subst_cache_free(sym_subst_cache *s);
/* Distribute products over sums and expand positive integer powers of sums
 * (up to a bounded result size; beyond it the rest stays factored). */
const sym_node *sym_expand(sym_ctx *c, const sym_node *e);
/* Bounded simplifier: expand, then rewrite s^2*X + c^2*X -> X for
 * s = sin(u), c = cos(u) (and the cosh/sinh analogue), collect terms.
 * Value-preserving; always terminates. */
const sym_node *sym_simplify(sym_ctx *c, const sym_node *e);
/* Sums as a textbook writes them, in linear time per sum: angle sums
 * folded (cos a cos b + sin a sin b -> cos(a - b)), sin^2 + cos^2 = 1,
 * terms gathered by their coordinate-dependent part with the parameter
 * coefficients summed and factored ((m1 + m2)*l1*cos(q1)). */
const sym_node *sym_collect(sym_ctx *c, const sym_node *e);

/* ---- numeric evaluation ------------------------------------------------- */
/* Values for atoms: the callback returns 0 and sets *out, or nonzero when
 * the atom has no value. */
typedef int (*sym_atom_value_fn)(void *ud, const sym_node *atom, double *out);
/* Evaluate by walking the DAG (memoized). Returns LG_OK, or LG_ERR_MODEL
 * when an atom has no value (*missing set to it). IEEE rules: log(-1) is
 * NaN, 1/0.0 is inf; UNDEF evaluates to NaN. */
lg_status sym_eval(sym_ctx *c, const sym_node *e, sym_atom_value_fn val,
                   void *ud, double *out, const sym_node **missing);
/* The same for n roots in one walk (out[i] for e[i]): one scratch array
 * of the context's size for all of them, where n calls of sym_eval pay
 * it n times. */
lg_status sym_eval_many(sym_ctx *c, size_t n, const sym_node *const *e, sym_atom_value_fn val,
                        void *ud, double *out, const sym_node **missing);

/* ---- printing ----------------------------------------------------------- */
typedef enum sym_style { SYM_STYLE_TEXT, SYM_STYLE_LATEX, SYM_STYLE_C } sym_style;
/* For SYM_STYLE_C (and optionally LaTeX): how to spell an atom; return 0
 * after appending, nonzero to use the default spelling. */
typedef int (*sym_atom_name_fn)(void *ud, lg_str *out, const sym_node *atom);
/* Text: our model language (reads back through the parser to the same
 * node). LaTeX: amsmath. C: a C99 expression using <math.h>. */
void sym_print(lg_str *out, const sym_node *e, sym_style style,
               sym_atom_name_fn name, void *ud);
/* Convenience: text form in a fresh heap string (caller frees). */
char *sym_to_string(const sym_node *e);
/* As sym_print, with `subst` asked first for every compound node (sum,
 * product, power, function): it appends a name for the node and returns
 * 0, or returns nonzero to print the node itself. */
void sym_print_subst(lg_str *out, const sym_node *e, sym_style style,
                     sym_atom_name_fn subst, void *ud);

/* ---- shared subexpressions for printing (sym_share.c) ------------------ */
/* The nodes a printout of `roots` names so that its size stays linear in
 * the DAG: those used by two or more parents whose printed form is at
 * least min_chars long, in definition order (each one's children before
 * it). Nothing is named when the roots printed as trees fit in `budget`
 * characters. */
typedef struct sym_share {
  const sym_node **named; /* name k (1-based) stands for named[k - 1] */
  size_t count, cap;
  uint32_t *name_of;      /* by node id: its name's k, or 0 */
  size_t ids;
  char prefix[8];         /* names are prefix1, prefix2, ...: "z" unless an
                             atom is already called z<digits> */
  const sym_node **split_a, **split_b; /* by node id: a large sum printed as
                                          split_a + split_b, or NULL */
} sym_share;
lg_status sym_share_plan(sym_ctx *c, const sym_node *const *roots, size_t nroots,
                         size_t min_chars, size_t budget, sym_share *out);
/* The name index k of e (1-based), or 0 when e is printed inline. */
size_t sym_share_index(const sym_share *s, const sym_node *e);
/* Is e (a large sum) printed as *a + *b, *a an earlier sum inside it? */
int sym_share_split(const sym_share *s, const sym_node *e, const sym_node **a,
                    const sym_node **b);
void sym_share_free(sym_share *s);

/* ---- dense matrices ----------------------------------------------------- */
typedef struct sym_matrix {
  size_t rows, cols;
  const sym_node **e; /* row-major; owned by the context's arena */
} sym_matrix;

#define SYM_AT(m, i, j) ((m)->e[(size_t)(i) * (m)->cols + (size_t)(j)])

/* A zero matrix in the context's arena (NULL on OOM). */
sym_matrix *sym_matrix_new(sym_ctx *c, size_t rows, size_t cols);
sym_matrix *sym_matrix_identity(sym_ctx *c, size_t n);
sym_matrix *sym_matrix_transpose(sym_ctx *c, const sym_matrix *a);
sym_matrix *sym_matrix_mul(sym_ctx *c, const sym_matrix *a, const sym_matrix *b);
/* J[i][j] = d f_i / d v_j */
sym_matrix *sym_matrix_jacobian(sym_ctx *c, size_t nf, const sym_node *const *f,
                                size_t nv, const sym_node *const *v);
/* Solve A x = B by Gaussian elimination with exact pivots (first entry
 * that is not identically zero). NULL when A is singular as written or on
 * OOM; *singular tells which. */
sym_matrix *sym_matrix_solve(sym_ctx *c, const sym_matrix *a,
                             const sym_matrix *b, int *singular);
/* The same with the pivots guided by ns numeric copies of A (row-major,
 * ns*n*n, e.g. A at sample states): in each column the nonzero entry whose
 * worst size relative to the column over the samples is largest, so that
 * no pivot is an expression vanishing where the samples are. Without
 * `simplify` the solution keeps elimination's nested fractions, a DAG of
 * O(n^3) nodes over A's entries, instead of sym_simplify's common
 * denominators, which multiply them out. */
sym_matrix *sym_matrix_solve_guided(sym_ctx *c, const sym_matrix *a, const sym_matrix *b,
                                    size_t ns, const double *samples, int simplify,
                                    int *singular);
/* The same pivoting on the values at one point (val: A there, row-major
 * n x n): in each column the entry largest in magnitude there, and
 * nothing simplified, so that the solution is a DAG of O(n^2 (n + cols))
 * nodes over A's and B's entries, valid wherever the pivots chosen do not
 * vanish. *singular when a column has no nonzero pivot at the point. */
sym_matrix *sym_matrix_solve_at(sym_ctx *c, const sym_matrix *a, const sym_matrix *b,
                                const double *val, int *singular);

/* ---- compiled evaluation tape ------------------------------------------- */
/* A straight-line program computing several outputs from input slots, with
 * every shared subexpression computed once (common-subexpression
 * elimination) and temporaries reused by liveness. */
typedef enum sym_op {
  SYM_OP_CONST, /* r = k */
  SYM_OP_INPUT, /* r = in[i] */
  SYM_OP_ADD,   /* r = a + b */
  SYM_OP_SUB,   /* r = a - b */
  SYM_OP_MUL,   /* r = a * b */
  SYM_OP_DIV,   /* r = a / b */
  SYM_OP_NEG,   /* r = -a */
  SYM_OP_SQR,   /* r = a * a */
  SYM_OP_POWI,  /* r = a ^ n  (integer n, by repeated multiplication) */
  SYM_OP_POW,   /* r = pow(a, b) */
  SYM_OP_FUNC,  /* r = fn(a [, b]) */
  SYM_OP_OUT    /* out[i] = a */
} sym_op;

/* 16 bytes, so that a tape of a few thousand instructions stays in the
 * first-level cache: a CONST's value shares the operands' place. */
typedef struct sym_instr {
  uint8_t op, fn;
  uint32_t r;
  union {
    struct {
      uint32_t a; /* slot; for INPUT/OUT: the index */
      union {
        uint32_t b; /* slot */
        int32_t n;  /* POWI exponent */
      };
    };
    double k; /* CONST value */
  };
} sym_instr;

typedef struct sym_tape {
  size_t ninputs, noutputs, nslots, ninstr;
  sym_instr *code;
  size_t flops; /* arithmetic operations and function calls */
} sym_tape;

/* Lower outputs to a tape over the given input atoms. Any other atom in
 * the outputs is an error (LG_ERR_MODEL, *missing set). UNDEF lowers to
 * a NaN constant. */
lg_status sym_tape_build(sym_ctx *c, size_t ninputs,
                         const sym_node *const *inputs, size_t noutputs,
                         const sym_node *const *outputs, sym_tape **out,
                         const sym_node **missing);
/* The same, lowering the last ngroup outputs first exactly as their own
 * tape would (its use counts over them alone): their values equal that
 * tape's to the last bit (eval's M and f and the dynamics tape's). */
lg_status sym_tape_build_grouped(sym_ctx *c, size_t ninputs, const sym_node *const *inputs,
                                 size_t noutputs, const sym_node *const *outputs, size_t ngroup,
                                 sym_tape **out, const sym_node **missing);
/* The same without slot reuse: instruction i writes register i (operands
 * name earlier instructions). For code generators. */
lg_status sym_tape_build_ssa(sym_ctx *c, size_t ninputs, const sym_node *const *inputs,
                             size_t noutputs, const sym_node *const *outputs,
                             sym_tape **out, const sym_node **missing);
void sym_tape_free(sym_tape *t);
/* out[noutputs] from in[ninputs]; work has t->nslots doubles. */
void sym_tape_eval(const sym_tape *t, const double *in, double *out,
                   double *work);
/* Forward-mode AD (sym_tape_ad.c): values as sym_tape_eval, and K
 * directional derivatives: din is ninputs x K (row i: the derivatives of
 * input i along the K directions), dout noutputs x K, dwork nslots x K. */
void sym_tape_eval_fwd(const sym_tape *t, size_t K, const double *in, const double *din,
                       double *out, double *dout, double *work, double *dwork);

#endif
