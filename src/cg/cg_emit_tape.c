/* cg_emit_tape.c - spelling an SSA tape as C statements: one `const
 * double` per shared subexpression.
 *
 * A long tape is split into functions of at most PIECE instructions: gcc
 * -O2's time grows faster than linearly with the length of a function (the
 * 40-link chain's right-hand side, 13,562 operations in one function, took
 * 13 s to compile) and is about linear over pieces. Shorter pieces also
 * run faster: gcc -O2's code for the 6-link arm's recursion (2,181
 * operations) took 7% less time in pieces of 700 than in one function
 * (bench/RESULTS.md); 350 and 1,500 were no faster. A value a later piece
 * reads passes through the caller's array w, whose places are reused once
 * the last piece reading a value is done. A constant or an input a later
 * piece reads is spelled there again (a literal, x[k]), not passed. */
#include "cg_internal.h"

#include <math.h>
#include <string.h>

enum { PIECE = 700, SPLIT_ABOVE = 1000, CLONE_MAX = 14000 };

/* How operands are spelled: v<r> inside the piece that computes r, w[k]
 * in later pieces (pieces NULL: the whole tape is one piece). */
typedef struct spelling {
  const uint32_t *piece_of; /* register -> the piece computing it */
  const uint32_t *place_of; /* register -> its place in w (UINT32_MAX: none) */
  const uint8_t *read_here; /* register -> read by the piece computing it */
  uint32_t piece;           /* the piece being written */
  const cg_ctx *G;
  const sym_instr *const *def; /* register -> its instruction */
} spelling;

/* prefix, the decimal n, suffix: without printf, which was a third of
 * codegen's time on a 40-link arm (11 MB of C) */
static void put_num(lg_str *o, const char *prefix, size_t n, const char *suffix) {
  char buf[24];
  int k = (int)sizeof buf;
  buf[--k] = 0;
  do buf[--k] = (char)('0' + n % 10);
  while ((n /= 10) && k > 0);
  lg_str_puts(o, prefix);
  lg_str_puts(o, buf + k);
  lg_str_puts(o, suffix);
}

/* Where tape input k comes from in the generated function. */
static void input_source(const cg_ctx *G, lg_str *o, size_t k) {
  size_t nx = G->nx, np = mech_nparams(G->r->mech);
  if (G->nin_base && k >= G->nin_base) put_num(o, "z[", k - G->nin_base, "]");
  else if (k == 0) lg_str_puts(o, "t");
  else if (k <= nx) put_num(o, "x[", k - 1, "]");
  else if (k <= nx + np) put_num(o, "p[", k - 1 - nx, "]");
  else put_num(o, "uu[", k - 1 - nx - np, "]");
}

void cg_literal(lg_str *o, double k) {
  if (isnan(k)) lg_str_puts(o, "NAN");
  else if (isinf(k)) lg_str_puts(o, k > 0 ? "INFINITY" : "-INFINITY");
  else lg_str_double(o, k);
}

/* a constant or an input: spelled again where another piece reads it */
static int respelled(const sym_instr *s) { return s && (s->op == SYM_OP_CONST || s->op == SYM_OP_INPUT); }

static void operand(lg_str *o, const spelling *sp, uint32_t a) {
  if (sp->piece_of && sp->piece_of[a] != sp->piece) {
    const sym_instr *d = sp->def[a];
    if (respelled(d) && d->op == SYM_OP_INPUT) input_source(sp->G, o, d->a);
    else if (respelled(d)) {
      int paren = signbit(d->k) || isinf(d->k) || isnan(d->k);
      if (paren) lg_str_putc(o, '(');
      cg_literal(o, d->k);
      if (paren) lg_str_putc(o, ')');
    } else
      put_num(o, "w[", sp->place_of[a], "]");
  } else
    put_num(o, "v", a, "");
}

/* a OP b, or f(a[, b]) */
static void binary(lg_str *o, const spelling *sp, uint32_t a, const char *op, uint32_t b) {
  operand(o, sp, a);
  lg_str_puts(o, op);
  operand(o, sp, b);
}

static void call(lg_str *o, const spelling *sp, const char *f, uint32_t a, int two, uint32_t b) {
  lg_str_printf(o, "%s(", f);
  operand(o, sp, a);
  if (two) {
    lg_str_puts(o, ", ");
    operand(o, sp, b);
  }
  lg_str_putc(o, ')');
}

static void emit_powi(lg_str *o, const spelling *sp, uint32_t a, int32_t n) {
  if (n > 4) {
    lg_str_puts(o, "pow(");
    operand(o, sp, a);
    lg_str_printf(o, ", %d)", n);
    return;
  }
  for (int32_t i = 0; i < n; i++) {
    if (i) lg_str_puts(o, " * ");
    operand(o, sp, a);
  }
}

static void emit_instr(const cg_ctx *G, lg_str *o, const sym_instr *s, const char *out,
                       const spelling *sp) {
  if (s->op == SYM_OP_OUT) {
    lg_str_puts(o, "  ");
    lg_str_puts(o, out);
    put_num(o, "[", s->a, "] = ");
    operand(o, sp, s->b);
    lg_str_puts(o, ";\n");
    return;
  }
  int later = sp->piece_of && sp->place_of[s->r] != UINT32_MAX; /* a later piece reads it */
  if (sp->piece_of && !later && !sp->read_here[s->r] && respelled(s)) return; /* read only elsewhere */
  if (!later || sp->read_here[s->r]) put_num(o, "  const double v", s->r, " = ");
  else lg_str_puts(o, "  ");
  if (later) put_num(o, "w[", sp->place_of[s->r], "] = ");
  switch (s->op) {
  case SYM_OP_CONST: cg_literal(o, s->k); break;
  case SYM_OP_INPUT: input_source(G, o, s->a); break;
  case SYM_OP_ADD: binary(o, sp, s->a, " + ", s->b); break;
  case SYM_OP_SUB: binary(o, sp, s->a, " - ", s->b); break;
  case SYM_OP_MUL: binary(o, sp, s->a, " * ", s->b); break;
  case SYM_OP_DIV: binary(o, sp, s->a, " / ", s->b); break;
  case SYM_OP_NEG: lg_str_putc(o, '-'); operand(o, sp, s->a); break;
  case SYM_OP_SQR: binary(o, sp, s->a, " * ", s->a); break;
  case SYM_OP_POWI: emit_powi(o, sp, s->a, s->n); break;
  case SYM_OP_POW: call(o, sp, "pow", s->a, 1, s->b); break;
  default:
    call(o, sp, sym_fn_c_name((sym_fn)s->fn), s->a, sym_fn_arity((sym_fn)s->fn) == 2, s->b);
  }
  lg_str_puts(o, ";\n");
}

/* The registers instruction s reads (up to two). */
static int reads(const sym_instr *s, uint32_t r[2]) {
  switch (s->op) {
  case SYM_OP_CONST: case SYM_OP_INPUT: return 0;
  case SYM_OP_OUT: r[0] = s->b; return 1;
  case SYM_OP_NEG: case SYM_OP_SQR: case SYM_OP_POWI: r[0] = s->a; return 1;
  case SYM_OP_FUNC:
    r[0] = s->a, r[1] = s->b;
    return sym_fn_arity((sym_fn)s->fn) == 2 ? 2 : 1;
  default: r[0] = s->a, r[1] = s->b; return 2;
  }
}

/* Pieces and places: piece_of, and place_of for the values read by a
 * later piece (places reused after the last piece reading them). Returns
 * the number of places, or -1 without memory. */
static long plan_pieces(const sym_tape *t, uint32_t *piece_of, uint32_t *place_of,
                        uint32_t *last, uint8_t *read_here, const sym_instr **def) {
  size_t nreg = t->nslots;
  for (size_t r = 0; r < nreg; r++) place_of[r] = UINT32_MAX, last[r] = 0, read_here[r] = 0, def[r] = NULL;
  for (size_t i = 0; i < t->ninstr; i++) {
    const sym_instr *s = &t->code[i];
    uint32_t rd[2], p = (uint32_t)(i / PIECE);
    if (s->op != SYM_OP_OUT) piece_of[s->r] = p, def[s->r] = s;
    for (int k = reads(s, rd); k-- > 0;)
      if (piece_of[rd[k]] != p) {
        if (!respelled(def[rd[k]])) last[rd[k]] = p;
      }
      else read_here[rd[k]] = 1;
  }
  /* free[0..nfree) are places whose values are dead before the current piece */
  uint32_t *free_places = lg_malloc((nreg + 1) * sizeof *free_places);
  uint32_t *ends = lg_malloc((nreg + 1) * sizeof *ends); /* places by last piece */
  if (!free_places || !ends) {
    lg_free(free_places);
    lg_free(ends);
    return -1;
  }
  size_t nfree = 0, nends = 0;
  uint32_t nplaces = 0, cur = 0;
  for (size_t i = 0; i < t->ninstr; i++) {
    const sym_instr *s = &t->code[i];
    uint32_t p = (uint32_t)(i / PIECE);
    if (p != cur) { /* release the places last read by an earlier piece */
      size_t keep = 0;
      for (size_t k = 0; k < nends; k++)
        if (last[ends[k]] < p) free_places[nfree++] = place_of[ends[k]];
        else ends[keep++] = ends[k];
      nends = keep;
      cur = p;
    }
    if (s->op == SYM_OP_OUT || !last[s->r]) continue;
    place_of[s->r] = nfree ? free_places[--nfree] : nplaces++;
    ends[nends++] = s->r;
  }
  lg_free(free_places);
  lg_free(ends);
  return (long)nplaces;
}

static void insert_at(lg_str *b, size_t at, const lg_str *text) {
  lg_str n;
  lg_str_init(&n);
  lg_str_putn(&n, b->s, at);
  lg_str_putn(&n, text->s, text->len);
  lg_str_putn(&n, b->s + at, b->len - at);
  if (n.oom || b->oom || text->oom) {
    lg_str_free(&n);
    b->oom = 1;
    return;
  }
  lg_str_free(b);
  *b = n;
}

/* Whether the tape reads z (the extra inputs from nin_base on). */
static int reads_z(const cg_ctx *G, const sym_tape *t) {
  for (size_t i = 0; G->nin_base && i < t->ninstr; i++)
    if (t->code[i].op == SYM_OP_INPUT && t->code[i].a >= G->nin_base) return 1;
  return 0;
}

/* The pieces as functions before fn_start, their calls at the end of src. */
static void emit_pieces(cg_ctx *G, const sym_tape *t, const char *out, size_t fn_start,
                        spelling *sp, long nplaces) {
  const char *N = G->r->name;
  lg_str fns;
  lg_str_init(&fns);
  /* each insertion defines them: a later one may land before an earlier one.
   * Where the compiler and the C library can, each piece of a function up to CLONE_MAX
   * instructions is compiled twice and one is chosen when the program loads (target_clones,
   * glibc's ifunc): for AVX, whose three-operand encoding drops SSE2's register copies
   * (arm12's recursion: 1,164 of its 9,000 instructions, 9% less time), and for the baseline.
   * The same operations in the same order and no FMA (not part of "avx"): both give the same
   * bits. It doubles gcc's time over those pieces, hence the bound (a 40-link arm's recursion,
   * 19,000 instructions, would take 10 s instead of 5); LG_NO_CLONES turns it off (the JIT
   * defines it). */
  lg_str_printf(&fns, "\n/* long tapes are split into functions: compilers take more than\n"
                      "   linear time over one long function. On x86-64 with glibc, those of a\n"
                      "   tape up to %d instructions are also compiled for AVX (the same\n"
                      "   operations and bits, fewer instructions), chosen at load time where\n"
                      "   the CPU has it; -DLG_NO_CLONES: the baseline only */\n"
                      "#ifndef %s_PIECE_ONCE\n"
                      "#if defined(__GNUC__)\n#define %s_PIECE_ONCE static __attribute__((noinline)) void\n"
                      "#else\n#define %s_PIECE_ONCE static void\n#endif\n#endif\n"
                      "#ifndef %s_PIECE\n"
                      "#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && "
                      "!defined(LG_NO_CLONES) && defined(__has_attribute)\n"
                      "#if __has_attribute(target_clones) && defined(__clang__)\n"
                      "#define %s_PIECE static __attribute__((target_clones(\"avx\", \"default\"))) void\n"
                      "#elif __has_attribute(target_clones) && defined(__GNUC__)\n"
                      "#define %s_PIECE static __attribute__((noinline, target_clones(\"avx\", "
                      "\"default\"))) void\n"
                      "#endif\n#endif\n#endif\n"
                      "#ifndef %s_PIECE\n#define %s_PIECE %s_PIECE_ONCE\n#endif\n",
                (int)CLONE_MAX, N, N, N, N, N, N, N, N, N);
  const char *kind = t->ninstr <= CLONE_MAX ? "PIECE" : "PIECE_ONCE";
  lg_str_printf(G->src, "  double w[%ld];\n", nplaces + 1);
  size_t npieces = (t->ninstr + PIECE - 1) / PIECE;
  for (size_t k = 0; k < npieces; k++) {
    size_t id = G->npieces++;
    lg_str_printf(&fns, "\n%s_%s %s_piece%zu(double t, const double *x, const double *p, "
                        "const double *uu,\n    const double *z, double *w, double *%s) {\n"
                        "  (void)t; (void)x; (void)p; (void)uu; (void)z; (void)w; (void)%s;\n",
                  N, kind, N, id, out, out);
    sp->piece = (uint32_t)k;
    for (size_t i = k * PIECE; i < t->ninstr && i < (k + 1) * PIECE; i++)
      emit_instr(G, &fns, &t->code[i], out, sp);
    lg_str_puts(&fns, "}\n");
    lg_str_printf(G->src, "  %s_piece%zu(t, x, p, %s, %s, w, %s);\n", N, id,
                  mech_ninputs(G->r->mech) ? "uu" : "0", reads_z(G, t) ? "z" : "0", out);
  }
  insert_at(G->src, fn_start, &fns);
  lg_str_free(&fns);
}

void cg_emit_tape(cg_ctx *G, const sym_tape *t, const char *out, size_t fn_start) {
  spelling sp = {NULL, NULL, NULL, 0, G, NULL};
  uint32_t *piece_of = NULL, *place_of = NULL, *last = NULL;
  const sym_instr **def = NULL;
  uint8_t *read_here = NULL;
  long nplaces = -1;
  /* (the pieces' parameters are t, x, p, uu, z and w: an output so named stays one piece) */
  if (t->flops >= SPLIT_ABOVE && strcmp(out, "uu") && strcmp(out, "w")) {
    piece_of = lg_calloc(t->nslots + 1, sizeof *piece_of);
    place_of = lg_malloc((t->nslots + 1) * sizeof *place_of);
    last = lg_malloc((t->nslots + 1) * sizeof *last);
    read_here = lg_malloc(t->nslots + 1);
    def = lg_malloc((t->nslots + 1) * sizeof *def);
    if (piece_of && place_of && last && read_here && def)
      nplaces = plan_pieces(t, piece_of, place_of, last, read_here, def);
  }
  if (nplaces >= 0) { /* else one piece: a failed allocation only costs compile time */
    sp.piece_of = piece_of;
    sp.place_of = place_of;
    sp.read_here = read_here;
    sp.def = def;
    emit_pieces(G, t, out, fn_start, &sp, nplaces);
  } else {
    for (size_t i = 0; i < t->ninstr; i++) emit_instr(G, G->src, &t->code[i], out, &sp);
  }
  lg_free(piece_of);
  lg_free(place_of);
  lg_free(last);
  lg_free(read_here);
  lg_free(def);
}
