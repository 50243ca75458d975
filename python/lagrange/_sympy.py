"""equations(): the library's JSON printing of the equations, read back
into exact SymPy expressions (coordinates as dynamicsymbols of t)."""
import json
import re

_PRIMED = re.compile(r"([A-Za-z_][A-Za-z_0-9]*)('+)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def _translate(text):
    """Our syntax into SymPy's: x' -> __d1__x, ^ -> **."""
    text = _PRIMED.sub(lambda mt: "__d%d__%s" % (len(mt.group(2)), mt.group(1)), text)
    return text.replace("^", "**")


def _namespace(model, texts):
    import sympy as sm
    import sympy.physics.mechanics as me
    t = me.dynamicsymbols._t
    ns = {"t": t}
    q = {c: me.dynamicsymbols(c) for c in model.coordinates}
    for name in set(_IDENT.findall(" ".join(texts))):
        mt = re.match(r"__d(\d+)__(.*)$", name)
        if mt and mt.group(2) in q:
            ns[name] = q[mt.group(2)].diff(t, int(mt.group(1)))
        elif name in q:
            ns[name] = q[name]
        elif name in model.parameters or name in model.inputs:
            ns[name] = sm.Symbol(name)
        elif name != "t" and not hasattr(sm, name):
            ns[name] = sm.Symbol(name)   # multipliers and other names
    return ns


def parse_all(model):
    """All the JSON printing's expressions as SymPy objects: a dict with
    mass_matrix, forcing, mass_matrix_full, forcing_full (Matrices),
    momenta (Matrix), T, V."""
    import sympy as sm
    d = json.loads(model.eom(format="json"))
    texts = []
    for k in ("mass_matrix", "mass_matrix_full"):
        texts += [_translate(x) for row in d.get(k, []) for x in row]
    for k in ("forcing", "forcing_full", "momenta", "Fr", "Frstar"):
        texts += [_translate(x) for x in d.get(k, [])]
    texts += [_translate(d[k]) for k in ("T", "V") if k in d]
    where = d.get("where", {})  # named shared subexpressions of large systems
    texts += [_translate(x) for x in where.values()]
    ns = _namespace(model, texts)

    def conv(s):
        return sm.sympify(_translate(s), locals=ns, rational=True)

    for name, text in where.items():  # each uses only earlier names
        ns[name] = conv(text)

    out = {}
    for k in ("mass_matrix", "mass_matrix_full"):
        if k in d:
            out[k] = sm.Matrix([[conv(x) for x in row] for row in d[k]])
    for k in ("forcing", "forcing_full", "momenta", "Fr", "Frstar"):
        if k in d:
            out[k] = sm.Matrix([conv(x) for x in d[k]])
    for k in ("T", "V"):
        if k in d:
            out[k] = conv(d[k])
    return out


class Equations(tuple):
    """(M, f) of Model.equations(), with Kane's Fr and Frstar (None under
    Lagrange's method) and a LaTeX form for Jupyter."""
    Fr = Frstar = None
    latex = ""

    def _repr_latex_(self):
        return self.latex


def _latex_equations(text):
    """The align* block after \\paragraph{equations} of `eom --format latex`."""
    at = text.find("\\paragraph{equations}")
    a = text.find("\\begin{align*}", at if at >= 0 else 0)
    b = text.find("\\end{align*}", a)
    if a < 0 or b < 0:
        return ""
    return text[a:b + len("\\end{align*}")]


def equations(model):
    e = parse_all(model)
    r = Equations((e["mass_matrix"], e["forcing"]))
    r.Fr, r.Frstar = e.get("Fr"), e.get("Frstar")
    r.latex = _latex_equations(model.eom(format="latex"))
    return r
