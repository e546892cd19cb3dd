/* Shared libraries opened on first use (src/base/library.h, algebra.h): the loader's failures name
 * the library and the reason and are not retried; LAPACK is not in the process after a granular
 * pile has stepped (the point of loading it lazily: 3.4 MB less resident, docs/design/granular.md
 * "Memory"), and is there, with correct results, once a routine is called. */
#include <dlfcn.h>
#include <math.h>
#include <string.h>

#include "base/algebra.h"
#include "base/library.h"
#include "clatter/scene.h"
#include "clatter/world.h"
#include "test_util.h"

static const char *scene_json =
    "{\"name\": \"small_pile\", \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1,"
    " \"gravity\": [0, 0, -9.81],"
    " \"method\": {\"scheme\": \"relaxed\", \"solver\": \"bgs\", \"tolerance\": 1e-3, \"max_iterations\": 200},"
    " \"materials\": {\"default\": {\"friction\": 0.5, \"restitution\": 0, \"density\": 1000}},"
    " \"bodies\": ["
    "  {\"name\": \"floor\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, 1], \"point\": [0, 0, 0]}},"
    "  {\"name\": \"grain\", \"position\": [0, 0, 0.06], \"shape\": {\"type\": \"sphere\", \"radius\": 0.05},"
    "   \"grid\": {\"count\": [3, 3, 3], \"spacing\": [0.101, 0.101, 0.11], \"jitter\": [0.001, 0.001, 0], \"seed\": 1}}"
    " ]}";

static bool loaded(const char *soname) {
  void *h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
  if (h) dlclose(h); /* (drops only the reference NOLOAD took) */
  return h != NULL;
}

int main(void) {
  /* a library that is not there */
  static const char *const cos_name[] = {"cos"};
  clt_library_fn_t one[1] = {0};
  clt_library_t missing = {.what = "Nothing", .soname = "libclatter-no-such-library.so.9", .count = 1,
                           .names = cos_name, .symbols = one};
  CHECK(!clt_library_open(&missing));
  printf("missing: %s\n", missing.error);
  CHECK(strstr(missing.error, "Nothing") != NULL);
  CHECK(strstr(missing.error, "libclatter-no-such-library.so.9") != NULL);
  CHECK(atomic_load(&missing.state) == -1);
  missing.error[0] = '\0'; /* not tried again: the message stays as the caller left it */
  CHECK(!clt_library_open(&missing));
  CHECK(missing.error[0] == '\0');

  /* a library without one of the routines */
  static const char *const two_names[] = {"cos", "clatter_no_such_routine"};
  clt_library_fn_t two[2] = {0};
  clt_library_t partial = {.what = "libm", .soname = "libm.so.6", .count = 2, .names = two_names, .symbols = two};
  CHECK(!clt_library_open(&partial));
  printf("partial: %s\n", partial.error);
  CHECK(strstr(partial.error, "clatter_no_such_routine") != NULL);

  /* one that has them all */
  clt_library_t math = {.what = "libm", .soname = "libm.so.6", .count = 1, .names = cos_name, .symbols = one};
  CHECK(clt_library_open(&math));
  CHECK(clt_library_open(&math));
  double (*cosine)(double) = (double (*)(double))one[0];
  CHECK(cosine != NULL && cosine(0.0) == 1.0);

  /* LAPACK: not opened by a pile's steps, opened by the first routine called */
  const char *lapack = clt_algebra_library();
  printf("LAPACK: %s\n", lapack);
  CHECK(!loaded(lapack));
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  char message[512];
  CHECK(clt_scene_parse(scene_json, "small_pile", NULL, &scene, message, sizeof message) == CLT_OK);
  if (scene) CHECK(clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) == CLT_OK);
  int contacts = 0;
  for (int s = 0; world && s < 40; s++) {
    CHECK(clt_world_step(world) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(world, &d);
    if (d.contacts > contacts) contacts = d.contacts;
  }
  printf("a pile of 27 grains, 40 steps: up to %d contacts\n", contacts);
  CHECK(contacts >= 9);
  CHECK(!loaded(lapack));
  CHECK(clt_algebra_error() == NULL);

  /* A = [4 2; 2 3] = L Lᵀ with L = [2 0; 1 √2] */
  double a[4] = {4.0, 2.0, 2.0, 3.0};
  int n = 2, info = -1;
  clt_dpotrf("L", &n, a, &n, &info);
  CHECK(info == 0);
  CHECK_NEAR(a[0], 2.0, 1e-15);
  CHECK_NEAR(a[1], 1.0, 1e-15);
  CHECK_NEAR(a[3], sqrt(2.0), 1e-15);
  CHECK(loaded(lapack));
  CHECK(clt_algebra_error() == NULL);

  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return clt_test_finish();
}
