/* The schemes' stage lists (stepper.h): every stage has a name unique in its list, and every
 * branch names a stage of the same list; the relaxed rounds and the ReLCP recursion are written as
 * named stages with their repetition in the list (a branch back to the range's first stage). */
#include <string.h>

#include "steppers/stepper.h"
#include "test_util.h"

static int find(const clt_scheme_ops_t *s, const char *name) {
  for (int k = 0; k < s->stage_count; k++)
    if (strcmp(s->stages[k].name, name) == 0) return k;
  return -1;
}

int main(void) {
  const clt_scheme_ops_t *schemes[] = {&clt_scheme_none,    &clt_scheme_anitescu_hart, &clt_scheme_baumgarte,
                                       &clt_scheme_post,    &clt_scheme_relaxed,       &clt_scheme_coulomb_circular,
                                       &clt_scheme_relcp};
  for (size_t i = 0; i < sizeof schemes / sizeof *schemes; i++) {
    const clt_scheme_ops_t *s = schemes[i];
    CHECK(s->stage_count > 0);
    for (int k = 0; k < s->stage_count; k++) {
      CHECK(s->stages[k].name && s->stages[k].run);
      CHECK(find(s, s->stages[k].name) == k); /* unique */
      if (s->stages[k].branch) CHECK(find(s, s->stages[k].branch) >= 0);
    }
    CHECK(find(s, "commit") >= 0 && find(s, "diagnose") >= 0);
  }
  /* the relaxed rounds: "active set" … "active set test", repeated, left from "active set" */
  const clt_scheme_ops_t *r = &clt_scheme_relaxed;
  int first = find(r, "active set"), test = find(r, "active set test"), end = find(r, "end solves");
  CHECK(first >= 0 && test > first && end == test + 1);
  CHECK(test >= 0 && strcmp(r->stages[test].branch, "active set") == 0);
  CHECK(first >= 0 && strcmp(r->stages[first].branch, "end solves") == 0);
  CHECK(find(r, "solve") > first && find(r, "solve") < test);
  /* the ReLCP recursion: "prepare" … "recurse", repeated */
  const clt_scheme_ops_t *p = &clt_scheme_relcp;
  int prepare = find(p, "prepare"), recurse = find(p, "recurse");
  CHECK(prepare >= 0 && recurse > prepare && strcmp(p->stages[recurse].branch, "prepare") == 0);
  CHECK(find(p, "solve") > prepare && find(p, "accept") == recurse + 1);
  return clt_test_finish();
}
