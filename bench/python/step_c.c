/* The C side of bench/python/run: builds a scene's world through the public API and steps it one
 * step at a time, as a C program embedding libclatter would, printing the CPU seconds of the steps
 * and the final state hash: "cpu_s=... steps=... hash=...".
 * Usage: step_c SCENE.json STEPS [name=value ...] (scene parameters, as --param) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <clatter/clatter.h>
#include <clatter/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: step_c SCENE.json STEPS [name=value ...]\n");
    return 2;
  }
  long steps = strtol(argv[2], NULL, 10);
  clt_scene_overrides_t overrides = {.params = (const char *const *)argv + 3, .param_count = argc - 3};
  char message[2048];
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  if (clt_scene_load(argv[1], &overrides, &scene, message, sizeof message) != CLT_OK ||
      clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "step_c: %s\n", message);
    return 1;
  }
  double start = cpu_now();
  for (long i = 0; i < steps; i++) {
    if (clt_world_step(world) != CLT_OK) {
      fprintf(stderr, "step_c: %s\n", clt_world_error(world));
      return 1;
    }
  }
  double cpu = cpu_now() - start;
  printf("cpu_s=%.6f steps=%ld hash=%016llx\n", cpu, steps, (unsigned long long)clt_world_state_hash(world));
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return 0;
}
