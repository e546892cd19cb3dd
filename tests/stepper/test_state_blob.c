/* State blobs (clt_world_save_state / clt_world_load_state, src/steppers/state.c; issue 42
 * "[harden]": "state blobs carry no checksum, about 60 % of corrupted blobs load"). A blob of a
 * world with bodies, a joint, a spring and contact memory (2D and 3D):
 *  - every single byte changed (XOR 0x01, 0x80, 0xff at every offset) is refused with
 *    CLT_ERR_FORMAT and a reason, and the world is left as it was (state hash unchanged);
 *  - so is every truncation (0 … size − 1 bytes), extensions by 1 … 64 bytes, and 2000 blobs with
 *    2 to 8 random bytes changed;
 *  - the intact blob loads and the continuation is bit-identical;
 *  - a version-2 blob (the format before the checksum: the same bytes without it, version 2) still
 *    loads, and clt_world_state_hash is FNV-1a 64 of exactly those bytes (the hash did not change
 *    with the format: tests/stepper/test_state_hash.c pins it);
 *  - a blob of a different world is refused with a reason naming the counts; one whose 3D
 *    orientation is not a unit quaternion is refused too. */
#include <inttypes.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

#define HEADER_SIZE 32 /* magic, version, dimension, 3 counts, reserved */
#define CHECKSUM_SIZE 8

static uint64_t fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

static clt_world_t *make_world(int dim) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  if (dim == 2) {
    wd.gravity[1] = -9.81;
    wd.gravity[2] = 0.0;
  }
  wd.method.solver = CLT_SOLVER_BGS; /* warm starts: contact memory in the blob */
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t floor_shape = clt_default_shape_def(dim == 3 ? CLT_SHAPE_HALFSPACE : CLT_SHAPE_HALFPLANE);
  floor_shape.normal[dim - 1] = 1.0;
  clt_body_def_t gd = clt_default_body_def();
  gd.type = CLT_BODY_STATIC;
  gd.shapes = &floor_shape;
  gd.shape_count = 1;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
  clt_shape_def_t box = clt_default_shape_def(dim == 3 ? CLT_SHAPE_BOX : CLT_SHAPE_POLYGON);
  if (dim == 3) {
    box.half_extents[0] = box.half_extents[1] = box.half_extents[2] = 0.1;
  } else {
    const double v[4][2] = {{-0.1, -0.1}, {0.1, -0.1}, {0.1, 0.1}, {-0.1, 0.1}};
    memcpy(box.vertices, v, sizeof v);
    box.vertex_count = 4;
  }
  clt_body_id_t boxes[3];
  for (int k = 0; k < 3; k++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.position[dim - 1] = 0.1 + 0.2 * k;
    bd.shapes = &box;
    bd.shape_count = 1;
    CHECK(clt_world_add_body(w, &bd, &boxes[k]) == CLT_OK);
  }
  /* a pendulum on the ground and a spring from it to the top box */
  clt_shape_def_t ball = clt_default_shape_def(dim == 3 ? CLT_SHAPE_SPHERE : CLT_SHAPE_DISK);
  ball.radius = 0.05;
  clt_body_def_t pd = clt_default_body_def();
  pd.position[0] = 2.0;
  pd.position[dim - 1] = 1.0;
  pd.shapes = &ball;
  pd.shape_count = 1;
  clt_body_id_t bob;
  CHECK(clt_world_add_body(w, &pd, &bob) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(dim == 3 ? CLT_JOINT_SPHERICAL : CLT_JOINT_REVOLUTE);
  jd.body_a = bob;
  jd.body_b = clt_world_ground();
  jd.anchor_a[0] = -0.5;
  jd.anchor_b[0] = 1.5;
  jd.anchor_b[dim - 1] = 1.0;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
  fd.body_a = bob;
  fd.body_b = boxes[2];
  fd.stiffness = 5.0;
  fd.damping = 0.1;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  return w;
}

/* Loading blob[0, size) must fail with CLT_ERR_FORMAT, a reason, and the world unchanged. */
static bool refused(clt_world_t *w, const unsigned char *blob, size_t size, uint64_t hash) {
  clt_status_t st = clt_world_load_state(w, blob, size);
  return st == CLT_ERR_FORMAT && clt_world_error(w)[0] != '\0' && clt_world_state_hash(w) == hash;
}

static uint64_t next_random(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void run(int dim) {
  clt_world_t *w = make_world(dim);
  size_t fresh = clt_world_state_size(w);
  for (int n = 0; n < 200; n++) CHECK(clt_world_step(w) == CLT_OK);
  size_t size = clt_world_state_size(w);
  CHECK(size > fresh); /* contact memory is in it */
  unsigned char *blob = malloc(size + 64), *bad = malloc(size + 64);
  CHECK(clt_world_save_state(w, blob, size - 1) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_save_state(w, blob, size) == CLT_OK);
  uint64_t hash = clt_world_state_hash(w);
  for (int n = 0; n < 10; n++) CHECK(clt_world_step(w) == CLT_OK); /* move on: a load must restore */
  uint64_t moved = clt_world_state_hash(w);
  CHECK(moved != hash);

  /* every byte changed */
  const unsigned char masks[3] = {0x01, 0x80, 0xff};
  int tried = 0, rejected = 0;
  char first_reason[3][256] = {"", "", ""};
  for (size_t i = 0; i < size; i++)
    for (int m = 0; m < 3; m++) {
      memcpy(bad, blob, size);
      bad[i] ^= masks[m];
      tried++;
      if (refused(w, bad, size, moved)) {
        rejected++;
      } else {
        fprintf(stderr, "  %dD: byte %zu ^ 0x%02x not refused (%s)\n", dim, i, masks[m], clt_world_error(w));
      }
      /* the reasons: bad magic (byte 0), version (8), checksum (elsewhere) */
      int slot = i < 8 ? 0 : i < 12 ? 1 : 2;
      if (!first_reason[slot][0]) snprintf(first_reason[slot], sizeof first_reason[slot], "%s", clt_world_error(w));
    }
  printf("%dD: %zu-byte blob, %d single-byte corruptions, %d refused (%.1f %%)\n", dim, size, tried, rejected,
         100.0 * rejected / tried);
  printf("  reasons: %s | %s | %s\n", first_reason[0], first_reason[1], first_reason[2]);
  CHECK(rejected == tried);
  CHECK(strstr(first_reason[0], "bad magic") != NULL);
  CHECK(strstr(first_reason[1], "version") != NULL);
  CHECK(strstr(first_reason[2], "checksum") != NULL);

  /* every truncation, and extensions */
  int truncations = 0;
  for (size_t n = 0; n < size; n++) truncations += refused(w, blob, n, moved);
  CHECK(truncations == (int)size);
  int extensions = 0;
  memcpy(bad, blob, size);
  for (size_t n = 1; n <= 64; n++) {
    bad[size + n - 1] = (unsigned char)n;
    extensions += refused(w, bad, size + n, moved);
  }
  CHECK(extensions == 64);
  printf("  %d truncations and %d extensions refused\n", truncations, extensions);

  /* a few random bytes changed at once */
  uint64_t seed = 42u + (uint64_t)dim;
  int multi = 0;
  for (int t = 0; t < 2000; t++) {
    memcpy(bad, blob, size);
    int count = 2 + (int)(next_random(&seed) % 7);
    for (int c = 0; c < count; c++) {
      size_t at = next_random(&seed) % size;
      unsigned char x = (unsigned char)(1 + next_random(&seed) % 255);
      bad[at] ^= x;
    }
    bool changed = memcmp(bad, blob, size) != 0;
    multi += !changed || refused(w, bad, size, moved);
  }
  CHECK(multi == 2000);

  /* the intact blob: restored, and the continuation is the same */
  CHECK(clt_world_load_state(w, blob, size) == CLT_OK);
  CHECK(clt_world_state_hash(w) == hash);
  for (int n = 0; n < 10; n++) CHECK(clt_world_step(w) == CLT_OK);
  CHECK(clt_world_state_hash(w) == moved);

  /* version 2: the same bytes without the checksum; the state hash is FNV-1a 64 of them */
  unsigned char *v2 = malloc(size);
  memcpy(v2, blob, HEADER_SIZE);
  memcpy(v2 + HEADER_SIZE, blob + HEADER_SIZE + CHECKSUM_SIZE, size - HEADER_SIZE - CHECKSUM_SIZE);
  uint32_t version;
  memcpy(&version, blob + 8, sizeof version);
  CHECK(version == 3u);
  version = 2u;
  memcpy(v2 + 8, &version, sizeof version);
  size_t v2_size = size - CHECKSUM_SIZE;
  CHECK(fnv1a(v2, v2_size) == hash);
  CHECK(clt_world_load_state(w, v2, v2_size) == CLT_OK);
  CHECK(clt_world_state_hash(w) == hash);
  for (int n = 0; n < 10; n++) CHECK(clt_world_step(w) == CLT_OK);
  CHECK(clt_world_state_hash(w) == moved);
  /* a version-2 blob carries no checksum: sizes and values are still checked */
  CHECK(refused(w, v2, v2_size - 1, moved));
  if (dim == 3) { /* the first body's orientation (doubles 4..7 of its state, after time and step) twice as long */
    double qw;
    size_t at = HEADER_SIZE + 16 + 4 * sizeof(double);
    memcpy(&qw, v2 + at, sizeof qw);
    double doubled = 2.0 * qw + (qw == 0.0 ? 1.0 : 0.0);
    memcpy(v2 + at, &doubled, sizeof doubled);
    CHECK(refused(w, v2, v2_size, moved));
    printf("orientation: %s\n", clt_world_error(w));
    CHECK(strstr(clt_world_error(w), "orientation of length") != NULL);
    memcpy(v2 + at, &qw, sizeof qw);
  }
  CHECK(clt_world_load_state(w, v2, v2_size) == CLT_OK);
  CHECK(clt_world_state_hash(w) == hash);
  for (int n = 0; n < 10; n++) CHECK(clt_world_step(w) == CLT_OK);
  free(v2);

  /* a blob of another world */
  clt_world_t *other = make_world(dim);
  clt_body_def_t extra = clt_default_body_def();
  extra.mass = 1.0;
  extra.inertia[0] = 1.0;
  if (dim == 3) extra.inertia[1] = extra.inertia[2] = 1.0;
  extra.position[0] = 10.0;
  CHECK(clt_world_add_body(other, &extra, NULL) == CLT_OK);
  uint64_t other_hash = clt_world_state_hash(other);
  CHECK(refused(other, blob, size, other_hash));
  CHECK(strstr(clt_world_error(other), "bodies") != NULL);
  clt_world_destroy(other);

  free(blob);
  free(bad);
  clt_world_destroy(w);
}

int main(void) {
  run(3);
  run(2);
  return clt_test_finish();
}
