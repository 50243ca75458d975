/* sym_print.c - text (our model language), LaTeX and C spellings.
 *
 * Text output reads back through the model parser to the same node: sums
 * print as `a - b`, products split into numerator and denominator
 * (`m*l^2/2`), x^(1/2) prints as sqrt(x). */
#include "sym_internal.h"

#include <string.h>

enum { PREC_ADD = 1, PREC_MUL = 2, PREC_NEG = 3, PREC_POW = 4, PREC_ATOM = 5 };

typedef struct printer {
  lg_str *out;
  sym_style style;
  sym_atom_name_fn name;
  sym_atom_name_fn subst; /* compound nodes: a name instead (sym_print_subst) */
  void *ud;
} printer;

static void print(printer *p, const sym_node *e, int prec);

/* ---- atoms ------------------------------------------------------------------- */
static const char *const greek[] = {
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
    "iota", "kappa", "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau",
    "upsilon", "phi", "chi", "psi", "omega", "Gamma", "Delta", "Theta",
    "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega", NULL};

/* theta1 -> \theta_{1}; k_t -> k_{t}; Ixx -> I_{xx} is left as is. */
static void latex_name(lg_str *o, const char *name) {
  size_t n = strlen(name), stem = n;
  while (stem > 0 && name[stem - 1] >= '0' && name[stem - 1] <= '9') stem--;
  const char *us = strchr(name, '_');
  if (us && (size_t)(us - name) < stem) stem = (size_t)(us - name);
  if (stem == 0) stem = n;
  int is_greek = 0;
  for (int i = 0; greek[i]; i++)
    if (strlen(greek[i]) == stem && strncmp(greek[i], name, stem) == 0) is_greek = 1;
  if (stem == 3 && strncmp(name, "lam", 3) == 0) { /* the multipliers lam1, lam2, ... */
    lg_str_puts(o, "\\lambda");
    name += 3;
    n -= 3;
    stem = 0;
  } else if (is_greek) lg_str_putc(o, '\\');
  if (!is_greek && stem > 1) lg_str_puts(o, "\\mathit{");
  lg_str_putn(o, name, stem);
  if (!is_greek && stem > 1) lg_str_putc(o, '}');
  if (stem < n) {
    const char *sub = name + stem + (name[stem] == '_');
    lg_str_puts(o, "_{");
    for (; *sub; sub++) {
      if (*sub == '_') lg_str_puts(o, "\\_");
      else lg_str_putc(o, *sub);
    }
    lg_str_putc(o, '}');
  }
}

static void print_atom(printer *p, const sym_node *e) {
  lg_str *o = p->out;
  if (p->name && p->name(p->ud, o, e) == 0) return;
  if (p->style == SYM_STYLE_LATEX) {
    if (e->kind == SYM_COORD && e->order >= 1 && e->order <= 2) {
      lg_str_puts(o, e->order == 1 ? "\\dot{" : "\\ddot{");
      latex_name(o, e->v.name);
      lg_str_putc(o, '}');
      return;
    }
    latex_name(o, e->v.name);
    for (int i = 0; e->kind == SYM_COORD && i < e->order; i++) lg_str_putc(o, '\'');
    return;
  }
  lg_str_puts(o, e->v.name);
  if (e->kind == SYM_COORD) {
    if (p->style == SYM_STYLE_C) {
      for (int i = 0; i < e->order; i++) lg_str_puts(o, "_d");
    } else {
      for (int i = 0; i < e->order; i++) lg_str_putc(o, '\'');
    }
  }
}

static void print_number(printer *p, const sym_node *e) {
  if (e->kind == SYM_FLOAT) {
    lg_str_double(p->out, e->v.f);
    return;
  }
  if (p->style == SYM_STYLE_C) {
    lg_str_double(p->out, sym_number_value(e));
    return;
  }
  if (p->style == SYM_STYLE_LATEX && !e->v.rat.big && e->v.rat.den != 1) {
    int64_t n = e->v.rat.num;
    lg_str_printf(p->out, "%s\\frac{%llu}{%lld}", n < 0 ? "-" : "",
                  n < 0 ? -(unsigned long long)n : (unsigned long long)n,
                  (long long)e->v.rat.den);
    return;
  }
  sym_num_print(p->out, e);
}

/* Precedence of a node as printed. */
static int prec_of(const sym_node *e) {
  switch (e->kind) {
  case SYM_ADD: return PREC_ADD;
  case SYM_MUL: return sym_num_sign(e->coef) < 0 ? PREC_NEG : PREC_MUL;
  case SYM_POW: {
    int64_t k;
    if (sym_is_integer(e->args[1], &k) && k < 0) return PREC_MUL; /* 1/x */
    return PREC_POW;
  }
  case SYM_NUM:
    if (sym_num_sign(e) < 0) return PREC_NEG;
    return (!e->v.rat.big && e->v.rat.den != 1) ? PREC_MUL : PREC_ATOM;
  case SYM_FLOAT: return e->v.f < 0 ? PREC_NEG : PREC_ATOM;
  default: return PREC_ATOM;
  }
}

static void open_paren(printer *p, int need) {
  if (need) lg_str_puts(p->out, p->style == SYM_STYLE_LATEX ? "\\left(" : "(");
}
static void close_paren(printer *p, int need) {
  if (need) lg_str_puts(p->out, p->style == SYM_STYLE_LATEX ? "\\right)" : ")");
}

/* ---- products ------------------------------------------------------------------ */
/* Is factor f a denominator factor (x^-k with a negative number k)? */
static int is_denominator(const sym_node *f) {
  return f->kind == SYM_POW && sym_is_negative_number(f->args[1]);
}

static void put_times(printer *p) {
  lg_str_puts(p->out, p->style == SYM_STYLE_LATEX ? " " : "*");
}

/* b^|k| for an exact exponent k < 0 whose magnitude has no small node
 * (beyond int64, or INT64_MIN): the digits are printed directly. Printing
 * the factor itself here would recurse through print_pow forever. */
static void print_magnitude_pow(printer *p, const sym_node *b, const sym_node *k) {
  int latex = p->style == SYM_STYLE_LATEX, den = !sym_num_den_is_one(k);
  if (p->style == SYM_STYLE_C) {
    lg_str_puts(p->out, "pow(");
    print(p, b, 0);
    lg_str_puts(p->out, ", ");
    lg_str_double(p->out, -sym_number_value(k));
    lg_str_putc(p->out, ')');
    return;
  }
  print(p, b, PREC_POW + 1);
  lg_str_puts(p->out, latex ? (den ? "^{\\frac{" : "^{") : (den ? "^(" : "^"));
  sym_num_print_part(p->out, k, 0);
  if (den) {
    lg_str_puts(p->out, latex ? "}{" : "/");
    sym_num_print_part(p->out, k, 1);
    lg_str_puts(p->out, latex ? "}" : ")");
  }
  if (latex) lg_str_putc(p->out, '}');
}

/* Print base^(-k) for a denominator factor x^k (k < 0). */
static void print_inverted(printer *p, const sym_node *f, int prec) {
  const sym_node *b = f->args[0], *k = f->args[1];
  if (sym_num_abs_is_one(k) && k->kind == SYM_NUM) {
    print(p, b, prec);
    return;
  }
  /* |k| as a positive power: reuse the POW printer on a fake node */
  sym_node fake = *f;
  const sym_node *args[2] = {b, NULL};
  sym_node mag = *k;
  if (k->kind == SYM_FLOAT) mag.v.f = -k->v.f;
  else if (!k->v.rat.big && k->v.rat.num != INT64_MIN) mag.v.rat.num = -k->v.rat.num;
  else {
    print_magnitude_pow(p, b, k);
    return;
  }
  args[1] = &mag;
  fake.args = args;
  print(p, &fake, prec);
}

/* |k| * prod(numerator factors) / (den(k) * prod(denominator factors)).
 * The caller prints the sign. */
static void print_product(printer *p, const sym_node *k, const sym_node *const *fs,
                          uint32_t n) {
  uint32_t nnum = 0, nden = 0;
  for (uint32_t i = 0; i < n; i++) is_denominator(fs[i]) ? nden++ : nnum++;
  int kden = !sym_num_den_is_one(k) && p->style != SYM_STYLE_C;
  int unit_num = k->kind == SYM_FLOAT || p->style == SYM_STYLE_C
                     ? sym_num_abs_is_one(k)
                     : (!k->v.rat.big && (k->v.rat.num == 1 || k->v.rat.num == -1));
  int knum = !unit_num || nnum == 0;
  int frac = (kden || nden) && p->style == SYM_STYLE_LATEX;
  /* LaTeX: a product holding a sum, over a number only, reads (and breaks
   * across lines) better as \frac{1}{2} (a + b) c than as one fraction */
  int has_sum = 0;
  for (uint32_t i = 0; i < n; i++) has_sum |= fs[i]->kind == SYM_ADD;
  if (frac && !nden && has_sum && !k->v.rat.big) {
    lg_str_printf(p->out, "\\frac{%lld}{%lld}", (long long)(k->v.rat.num < 0 ? -k->v.rat.num
                                                                         : k->v.rat.num),
                  (long long)k->v.rat.den);
    for (uint32_t i = 0; i < n; i++) {
      put_times(p);
      print(p, fs[i], PREC_MUL + 1);
    }
    return;
  }
  if (frac) lg_str_puts(p->out, "\\frac{");
  int first = 1;
  if (knum) {
    if (k->kind == SYM_FLOAT || p->style == SYM_STYLE_C)
      lg_str_double(p->out, sym_number_value(k) < 0 ? -sym_number_value(k)
                                                    : sym_number_value(k));
    else sym_num_print_part(p->out, k, 0);
    first = 0;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (is_denominator(fs[i])) continue;
    if (!first) put_times(p);
    print(p, fs[i], PREC_MUL + 1);
    first = 0;
  }
  if (!kden && !nden) return;
  lg_str_puts(p->out, frac ? "}{" : "/");
  int group = !frac && (kden + nden > 1);
  if (group) lg_str_putc(p->out, '(');
  first = 1;
  if (kden) {
    sym_num_print_part(p->out, k, 1);
    first = 0;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!is_denominator(fs[i])) continue;
    if (!first) put_times(p);
    print_inverted(p, fs[i], group || frac ? PREC_MUL + 1 : PREC_POW);
    first = 0;
  }
  if (group) lg_str_putc(p->out, ')');
  if (frac) lg_str_putc(p->out, '}');
}

/* ---- sums --------------------------------------------------------------------- */
/* One term of a sum: coefficient k times node t, sign already printed. */
static void print_scaled(printer *p, const sym_node *k, const sym_node *t) {
  if (t->kind == SYM_MUL && !p->subst) print_product(p, k, t->args, t->nargs);
  else if (t->kind == SYM_MUL) { /* k*t with t named or its factors inline */
    lg_str probe;
    lg_str_init(&probe);
    int named = p->subst(p->ud, &probe, t) == 0;
    lg_str_free(&probe);
    if (named) print_product(p, k, &t, 1);
    else print_product(p, k, t->args, t->nargs);
  }
  else print_product(p, k, &t, 1);
}

static void print_add(printer *p, const sym_node *e) {
  for (uint32_t i = 0; i < e->nargs; i++) {
    int neg = sym_num_sign(e->coefs[i]) < 0;
    if (i) lg_str_puts(p->out, neg ? " - " : " + ");
    else if (neg) lg_str_putc(p->out, '-');
    print_scaled(p, e->coefs[i], e->args[i]);
  }
  if (!sym_is_zero(e->coef)) {
    int neg = sym_num_sign(e->coef) < 0;
    lg_str_puts(p->out, neg ? " - " : " + ");
    print_product(p, e->coef, NULL, 0);
  }
}

/* ---- powers and functions ------------------------------------------------------ */
static void print_pow(printer *p, const sym_node *e) {
  const sym_node *b = e->args[0], *x = e->args[1];
  int64_t k;
  if (sym_is_negative_number(x)) { /* 1/x^k */
    static const sym_node one = {.kind = SYM_NUM, .v.rat = {1, 1, NULL}};
    print_product(p, &one, &e, 1);
    return;
  }
  int half = x->kind == SYM_NUM && !x->v.rat.big && x->v.rat.num == 1 &&
             x->v.rat.den == 2;
  if (half) {
    lg_str_puts(p->out, p->style == SYM_STYLE_LATEX ? "\\sqrt{" : "sqrt(");
    print(p, b, 0);
    lg_str_puts(p->out, p->style == SYM_STYLE_LATEX ? "}" : ")");
    return;
  }
  if (p->style == SYM_STYLE_C) {
    if (sym_is_integer(x, &k) && k == 2) {
      lg_str_puts(p->out, "(");
      print(p, b, PREC_MUL + 1);
      lg_str_puts(p->out, "*");
      print(p, b, PREC_MUL + 1);
      lg_str_puts(p->out, ")");
      return;
    }
    lg_str_puts(p->out, "pow(");
    print(p, b, 0);
    lg_str_puts(p->out, ", ");
    print(p, x, 0);
    lg_str_puts(p->out, ")");
    return;
  }
  print(p, b, PREC_POW + 1);
  if (p->style == SYM_STYLE_LATEX) {
    lg_str_puts(p->out, "^{");
    print(p, x, 0);
    lg_str_putc(p->out, '}');
  } else {
    lg_str_putc(p->out, '^');
    print(p, x, PREC_POW + 1);
  }
}

static void print_func(printer *p, const sym_node *e) {
  sym_fn f = (sym_fn)e->fn;
  if (p->style == SYM_STYLE_LATEX) {
    if (f == SYM_FN_ABS) {
      lg_str_puts(p->out, "\\left|");
      print(p, e->args[0], 0);
      lg_str_puts(p->out, "\\right|");
      return;
    }
    lg_str_puts(p->out, sym_fn_latex(f));
    lg_str_puts(p->out, "{\\left(");
  } else {
    lg_str_puts(p->out, p->style == SYM_STYLE_C ? sym_fn_c_name(f) : sym_fn_name(f));
    lg_str_putc(p->out, '(');
  }
  for (uint32_t i = 0; i < e->nargs; i++) {
    if (i) lg_str_puts(p->out, ", ");
    print(p, e->args[i], 0);
  }
  lg_str_puts(p->out, p->style == SYM_STYLE_LATEX ? " \\right)}" : ")");
}

/* ---- dispatch --------------------------------------------------------------------- */
static void print(printer *p, const sym_node *e, int prec) {
  if (p->subst && e->kind >= SYM_ADD && e->kind <= SYM_FUNC && p->subst(p->ud, p->out, e) == 0)
    return;
  int paren = prec_of(e) < prec;
  open_paren(p, paren);
  switch (e->kind) {
  case SYM_NUM:
  case SYM_FLOAT:
    if (e->kind == SYM_FLOAT || p->style == SYM_STYLE_C) {
      print_number(p, e); /* with its sign */
    } else {
      if (sym_num_sign(e) < 0) lg_str_putc(p->out, '-');
      print_product(p, e, NULL, 0);
    }
    break;
  case SYM_SYMBOL:
  case SYM_COORD:
  case SYM_TIME: print_atom(p, e); break;
  case SYM_ADD: print_add(p, e); break;
  case SYM_MUL:
    if (sym_num_sign(e->coef) < 0) lg_str_putc(p->out, '-');
    print_product(p, e->coef, e->args, e->nargs);
    break;
  case SYM_POW: print_pow(p, e); break;
  case SYM_FUNC: print_func(p, e); break;
  default: lg_str_puts(p->out, p->style == SYM_STYLE_C ? "NAN" : "undefined");
  }
  close_paren(p, paren);
}

void sym_print(lg_str *out, const sym_node *e, sym_style style,
               sym_atom_name_fn name, void *ud) {
  printer p = {out, style, name, NULL, ud};
  if (!e) {
    lg_str_puts(out, "<null>");
    return;
  }
  print(&p, e, 0);
}

void sym_print_subst(lg_str *out, const sym_node *e, sym_style style,
                     sym_atom_name_fn subst, void *ud) {
  printer p = {out, style, NULL, subst, ud};
  if (!e) {
    lg_str_puts(out, "<null>");
    return;
  }
  print(&p, e, 0);
}

char *sym_to_string(const sym_node *e) {
  lg_str s;
  lg_str_init(&s);
  sym_print(&s, e, SYM_STYLE_TEXT, NULL, NULL);
  if (s.oom) {
    lg_str_free(&s);
    return NULL;
  }
  return lg_str_take(&s);
}
