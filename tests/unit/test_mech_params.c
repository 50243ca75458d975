/* test_mech_params.c - parameter values (mech_params.c): defaults in
 * declaration order using earlier ones, settings overriding them (the
 * last one wins), the error for a value that uses a valueless parameter,
 * and the tolerant defaults the library reports. */
#include "lang.h"
#include "mech.h"
#include "test_util.h"

#include <math.h>
#include <string.h>

static const char MODEL[] =
    "coordinates x\nparameters m = 2, l = 3, I = m*l^2/12, k, c = 2*k\n"
    "T = 1/2*m*x'^2\nV = c*x^2\n";

int main(void) {
  lang_model *lm = NULL;
  lg_diag d;
  lg_diag_clear(&d);
  CHECK(lang_load_string("p.lag", MODEL, strlen(MODEL), &lm, &d) == LG_OK);
  if (!lm) return tu_summary("test_mech_params");
  mech_model *mm = lm->mech;
  double v[5];
  /* k has no value and c uses it: an error naming both, at c */
  CHECK(mech_resolve_params(mm, NULL, 0, v, &d) == LG_ERR_MODEL);
  CHECK(strstr(d.message, "'c'") && strstr(d.message, "'k'"));
  CHECK(d.line == 2);
  /* with k set, c follows; I from m and l */
  mech_setting set[] = {{"k", 1.0}, {"l", 6.0}, {"k", 5.0}};
  lg_diag_clear(&d);
  CHECK(mech_resolve_params(mm, set, 3, v, &d) == LG_OK);
  CHECK(v[0] == 2 && v[1] == 6 && v[3] == 5 && v[4] == 10);
  CHECK_NEAR(v[2], 2.0 * 36 / 12, 1e-15);
  CHECK(mech_find_setting(set, 3, "k")->value == 5.0);
  CHECK(mech_find_setting(set, 3, "m") == NULL);
  /* the defaults alone: NaN where there is no value */
  CHECK(mech_default_params(mm, v) == LG_OK);
  CHECK(v[0] == 2 && v[1] == 3 && isnan(v[3]) && isnan(v[4]));
  CHECK_NEAR(v[2], 1.5, 1e-15);
  lang_model_free(lm);
  return tu_summary("test_mech_params");
}
