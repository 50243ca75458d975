/* lang_sema_contact.c - `friction x: F [static Fs]` (MODEL-FORMAT 1.1,
 * "Contacts in detail"): Coulomb friction on one coordinate, its levels
 * kept as expressions of t, q, q', parameters and inputs in the
 * lang_model for the numeric layer (which checks F >= 0 and Fs >= F with
 * the run's parameter values). */
#include "lang_sema.h"
#include "lang_urdf.h"

#include <math.h>
#include <stdio.h>

lg_status sema_friction(sema *S, const lang_stmt *st) {
  const lang_ident *id = &st->u.element.a;
  sema_entry *en = sema_lookup(S, id->text);
  if (!en) return sema_unknown(S, id->text, id->line, id->col), LG_ERR_MODEL;
  if (en->kind != SEMA_COORD) {
    sema_fail(S, id->line, id->col, "friction acts on a coordinate, and '%s' is not one",
              id->text);
    lg_diag_hint(S->diag, "friction x: F, with x declared in 'coordinates'");
    return LG_ERR_MODEL;
  }
  lang_model *lm = S->out;
  for (size_t i = 0; i < lm->nfrictions; i++)
    if (lm->frictions[i].coord == en->index) {
      sema_fail(S, id->line, id->col, "'%s' already has friction (line %d)", id->text,
                sema_line(S, lm->frictions[i].line, NULL));
      lg_diag_hint(S->diag, "one friction statement per coordinate");
      return LG_ERR_MODEL;
    }
  lang_friction fr = {en->index, NULL, NULL, st->line, st->col};
  S->rule = SEMA_RULE_NO_ACCEL;
  S->rule_what = "a friction level";
  if (!(fr.F = sema_scalar(S, st->u.element.k, "a friction level"))) return LG_ERR_MODEL;
  fr.Fs = fr.F;
  S->rule_what = "a static friction level";
  if (st->u.element.x0 &&
      !(fr.Fs = sema_scalar(S, st->u.element.x0, "a static friction level")))
    return LG_ERR_MODEL;
  if (!LG_PUSH(lm->frictions, lm->nfrictions, lm->frictions_cap, fr))
    return sema_nomem(S), LG_ERR_NOMEM;
  return LG_OK;
}

/* A point named by id (an error at it otherwise). */
static int point_named(sema *S, const lang_ident *id, const char *what) {
  sema_entry *en = sema_lookup(S, id->text);
  if (!en) return sema_unknown(S, id->text, id->line, id->col), -1;
  if (en->kind != SEMA_POINT) {
    sema_fail(S, id->line, id->col, "%s must be a point, and '%s' is not one", what, id->text);
    lg_diag_hint(S->diag, "contact P plane O N.y restitution e, with P and O points");
    return -1;
  }
  return en->index;
}

/* The tangential velocity of contact ct (P on the plane through O with
 * normal n, |n| = len): planar (n and the relative velocity in the
 * inertial frame's xy-plane) one component along n x N.z / |n|, exactly as
 * before 3D friction; otherwise two, along the unit tangents
 *   t1 = n x a / |n x a|,  t2 = n x t1 / |n|,
 * a = N.z unless n is along N.z (its x and y components identically 0),
 * then N.x: t1, t2, n/|n| a right-handed orthonormal triad (a plane whose
 * normal turns through a during the run has no tangent there). */
static lg_status friction_tangents(sema *S, lang_contact *ct, int p, int o, mech_vec n,
                                   const sym_node *len) {
  mech_model *m = S->m;
  mech_vec z = mech_vec_unit(m, 0, 2);
  mech_vec v = mech_vec_sub(m, mech_point_vel(m, p), mech_point_vel(m, o));
  const sym_node *nz = mech_vec_dot(m, n, z), *vz = mech_vec_dot(m, v, z);
  if (!nz || !vz) return sema_nomem(S), LG_ERR_NOMEM;
  if (sym_is_zero(sym_simplify(S->c, nz)) && sym_is_zero(sym_simplify(S->c, vz))) {
    const sym_node *vt = mech_vec_dot(m, v, mech_vec_cross(m, n, z));
    if (!vt || !(ct->vt = sym_div(S->c, vt, len))) return sema_nomem(S), LG_ERR_NOMEM;
    return LG_OK;
  }
  const sym_node *nx = mech_vec_dot(m, n, mech_vec_unit(m, 0, 0));
  const sym_node *ny = mech_vec_dot(m, n, mech_vec_unit(m, 0, 1));
  if (!nx || !ny) return sema_nomem(S), LG_ERR_NOMEM;
  int along_z = sym_is_zero(sym_simplify(S->c, nx)) && sym_is_zero(sym_simplify(S->c, ny));
  mech_vec a = along_z ? mech_vec_unit(m, 0, 0) : z;
  mech_vec na = mech_vec_cross(m, n, a);
  const sym_node *la = mech_vec_norm(m, na);
  const sym_node *v1 = mech_vec_dot(m, v, na);
  const sym_node *v2 = mech_vec_dot(m, v, mech_vec_cross(m, n, na));
  const sym_node *l2 = la ? sym_mul(S->c, la, len) : NULL;
  if (!v1 || !v2 || !la || !l2 || !(ct->vt = sym_div(S->c, v1, la)) ||
      !(ct->vt2 = sym_div(S->c, v2, l2)))
    return sema_nomem(S), LG_ERR_NOMEM;
  snprintf(ct->ft_name, sizeof ct->ft_name, "contact%zu_ft1", S->out->ncontacts + 1);
  snprintf(ct->ft2_name, sizeof ct->ft2_name, "contact%zu_ft2", S->out->ncontacts + 1);
  return LG_OK;
}

/* Push contact ct, its columns named after its place in the statement order. */
static lg_status push_contact(sema *S, lang_contact *ct) {
  lang_model *lm = S->out;
  snprintf(ct->fn_name, sizeof ct->fn_name, "contact%zu_fn", lm->ncontacts + 1);
  snprintf(ct->ft_name, sizeof ct->ft_name, "contact%zu_ft", lm->ncontacts + 1);
  if (!LG_PUSH(lm->contacts, lm->ncontacts, lm->contacts_cap, *ct))
    return sema_nomem(S), LG_ERR_NOMEM;
  return LG_OK;
}

/* The gap forms' restitution (0 when not written) and their refusal of
 * friction. */
static const sym_node *gap_restitution(sema *S, const lang_stmt *st) {
  if (st->u.contact.mu) {
    sema_fail(S, st->u.contact.fric_line, st->u.contact.fric_col,
              "a contact on an inequality of the coordinates takes no friction");
    lg_diag_hint(S->diag, "Coulomb friction on a coordinate is 'friction x: F'; a point on a "
                          "plane takes 'contact P plane O n restitution e friction mu'");
    return NULL;
  }
  if (!st->u.contact.e) {
    const sym_node *z = sym_int(S->c, 0);
    if (!z) sema_nomem(S);
    return z;
  }
  S->rule = SEMA_RULE_NO_ACCEL;
  S->rule_what = "a restitution coefficient";
  return sema_scalar(S, st->u.contact.e, "a restitution coefficient");
}

/* A number of a URDF limit as the model text would give it. */
static const sym_node *limit_number(sema *S, double v) {
  if (v == floor(v) && fabs(v) < 1e15) return sym_int(S->c, (int64_t)v);
  return sym_float(S->c, v);
}

/* contact limits [restitution e]: both stops of every kept URDF limit,
 * in joint order, lower then upper. */
static lg_status contact_limits(sema *S, const lang_stmt *st) {
  if (!S->nlimits) {
    sema_fail(S, st->line, st->col,
              S->imports ? "the imported URDF keeps no joint limits for 'contact limits'"
                         : "'contact limits' makes contacts of an imported URDF's joint limits, "
                           "and this model imports none");
    lg_diag_hint(S->diag, S->imports
                              ? "a kept limit is <limit lower=\"..\" upper=\"..\"/> with lower < "
                                "upper on a revolute or prismatic joint; or write the stops: "
                                "contact q1 >= -1.2"
                              : "import \"robot.urdf\" first, or write the stops: "
                                "contact q1 >= -1.2");
    return LG_ERR_MODEL;
  }
  for (size_t i = 0; i < S->out->ncontacts; i++)
    if (S->out->contacts[i].kind == LANG_CONTACT_LIMIT) {
      sema_fail(S, st->line, st->col, "the URDF's joint limits are contacts already (line %d)",
                sema_line(S, S->out->contacts[i].line, NULL));
      lg_diag_hint(S->diag, "write 'contact limits' once");
      return LG_ERR_MODEL;
    }
  const sym_node *e = gap_restitution(S, st);
  if (!e) return LG_ERR_MODEL;
  for (size_t i = 0; i < S->nlimits; i++) {
    const lang_limit *L = &S->limits[i];
    sema_entry *en = sema_lookup(S, L->coord);
    if (!en || en->kind != SEMA_COORD) {
      sema_fail(S, st->line, st->col, "the joint limit's coordinate '%s' is not a coordinate",
                L->coord);
      lg_diag_hint(S->diag, "do not redeclare the URDF's joint names");
      return LG_ERR_MODEL;
    }
    const sym_node *q = mech_coord(S->m, (size_t)en->index, 0);
    for (int side = 0; side < 2; side++) {
      char num[LG_DOUBLE_CHARS];
      lang_contact ct = {.kind = LANG_CONTACT_LIMIT, .e = e, .line = st->line, .col = st->col};
      const sym_node *b = limit_number(S, side ? L->upper : L->lower);
      ct.g = b ? (side ? sym_sub(S->c, b, q) : sym_sub(S->c, q, b)) : NULL;
      if (!ct.g) return sema_nomem(S), LG_ERR_NOMEM;
      snprintf(ct.what, sizeof ct.what, "the %s limit of joint '%.40s' (%.40s %s %s)",
               side ? "upper" : "lower", L->coord, L->coord, side ? "<=" : ">=",
               lg_fmt_double(num, side ? L->upper : L->lower));
      lg_status s = push_contact(S, &ct);
      if (s != LG_OK) return s;
    }
  }
  return LG_OK;
}

/* contact A >= B [restitution e] (g = A - B), or A <= B (g = B - A): A and
 * B of the configuration (q, t, parameters, inputs; no q'). */
static lg_status contact_gap(sema *S, const lang_stmt *st) {
  lang_contact ct = {.kind = LANG_CONTACT_GAP, .line = st->line, .col = st->col};
  S->rule = SEMA_RULE_POSITION;
  S->rule_what = "a contact's inequality";
  const sym_node *a = sema_scalar(S, st->u.contact.lhs, "the contact's left-hand side");
  if (!a) return LG_ERR_MODEL;
  S->rule = SEMA_RULE_POSITION;
  S->rule_what = "a contact's inequality";
  const sym_node *b = sema_scalar(S, st->u.contact.rhs, "the contact's right-hand side");
  if (!b) return LG_ERR_MODEL;
  ct.g = st->u.contact.op == '>' ? sym_sub(S->c, a, b) : sym_sub(S->c, b, a);
  if (!ct.g) return sema_nomem(S), LG_ERR_NOMEM;
  int order = 0;
  sema_val v = {.kind = VAL_SCALAR, .s = ct.g, .ok = 1};
  if (!sema_motion_atom(S, v, 0, &order)) {
    sema_fail(S, st->u.contact.op_line, st->u.contact.op_col,
              "the contact's inequality does not depend on the coordinates");
    lg_diag_hint(S->diag, "a contact keeps an expression of the coordinates on one side of "
                          "another: contact q1 >= -1.2");
    return LG_ERR_MODEL;
  }
  if (!(ct.e = gap_restitution(S, st))) return LG_ERR_MODEL;
  snprintf(ct.what, sizeof ct.what, "the contact's inequality");
  return push_contact(S, &ct);
}

lg_status sema_contact(sema *S, const lang_stmt *st) {
  if (st->u.contact.limits) return contact_limits(S, st);
  if (!st->u.contact.p.text) return contact_gap(S, st);
  int p = point_named(S, &st->u.contact.p, "the contact's point");
  if (p < 0) return LG_ERR_MODEL;
  int o = point_named(S, &st->u.contact.o, "the plane's point");
  if (o < 0) return LG_ERR_MODEL;
  mech_vec n;
  S->rule = SEMA_RULE_NO_ACCEL;
  S->rule_what = "the plane's normal";
  if (!sema_vector(S, st->u.contact.n, "the plane's normal", &n)) return LG_ERR_MODEL;
  lang_contact ct = {0};
  ct.line = st->line;
  ct.col = st->col;
  snprintf(ct.fn_name, sizeof ct.fn_name, "contact%zu_fn", S->out->ncontacts + 1);
  snprintf(ct.ft_name, sizeof ct.ft_name, "contact%zu_ft", S->out->ncontacts + 1);
  S->rule_what = "a restitution coefficient";
  if (!(ct.e = sema_scalar(S, st->u.contact.e, "a restitution coefficient"))) return LG_ERR_MODEL;
  S->rule_what = "a friction coefficient";
  if (st->u.contact.mu &&
      !(ct.mu = sema_scalar(S, st->u.contact.mu, "a friction coefficient")))
    return LG_ERR_MODEL;
  mech_model *m = S->m;
  const sym_node *len = mech_vec_norm(m, n);
  const sym_node *d = mech_vec_dot(m, mech_vec_sub(m, mech_point_pos(m, p), mech_point_pos(m, o)), n);
  if (!len || !d || !(ct.g = sym_div(S->c, d, len))) return sema_nomem(S), LG_ERR_NOMEM;
  if (ct.mu && !sym_is_zero(ct.mu) && friction_tangents(S, &ct, p, o, n, len) != LG_OK)
    return LG_ERR_MODEL;
  lang_model *lm = S->out;
  if (!LG_PUSH(lm->contacts, lm->ncontacts, lm->contacts_cap, ct))
    return sema_nomem(S), LG_ERR_NOMEM;
  return LG_OK;
}
