/* Contact cost against the size of a triangle mesh (docs/shapes.md "Meshes"; [shapes] acceptance:
 * flat within 1.5x from 10^3 to 10^6 triangles). The same 64 spheres and 16 boxes rest on a flat
 * square terrain of n x n cells of 0.5 m, each cut into 2 triangles: the mesh grows (a larger terrain
 * of the same triangles), the bodies and their contacts stay. The collide stage's wall time per step
 * (clt_diagnostics_t.wall_collide_s) is averaged over steps 101..300, the bodies having landed.
 * Prints one row per mesh size: triangles, build time, collide time per step, step time, contacts.
 * usage: mesh_cost N1 N2 ... (cells per side; even, so that the cell edges lie at the same places
 * under the bodies in every mesh) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clatter/world.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  printf("triangles,build_s,collide_us_per_step,step_us,contacts\n");
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]), nv = (n + 1) * (n + 1), nt = 2 * n * n;
    double L = 0.25 * n; /* cells of 0.5 m */
    double(*v)[3] = malloc((size_t)nv * sizeof *v);
    int(*t)[3] = malloc((size_t)nt * sizeof *t);
    for (int j = 0; j <= n; j++)
      for (int i = 0; i <= n; i++) {
        v[j * (n + 1) + i][0] = -L + 2 * L * i / n;
        v[j * (n + 1) + i][1] = -L + 2 * L * j / n;
        v[j * (n + 1) + i][2] = 0;
      }
    int k = 0;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        int p = j * (n + 1) + i, q = p + 1, r = p + n + 1, s = r + 1;
        t[k][0] = p, t[k][1] = q, t[k][2] = s, k++;
        t[k][0] = p, t[k][1] = s, t[k][2] = r, k++;
      }
    double t0 = now();
    clt_mesh_t *mesh = NULL;
    char msg[256];
    if (clt_mesh_create((const double(*)[3])v, nv, (const int(*)[3])t, nt, &mesh, msg, sizeof msg) != CLT_OK) {
      fprintf(stderr, "%s\n", msg);
      return 1;
    }
    double build = now() - t0;
    free(v);
    free(t);
    clt_world_def_t wd = clt_default_world_def();
    wd.time_step = 0.005;
    clt_world_t *w = NULL;
    clt_world_create(&wd, &w, NULL, 0);
    clt_shape_def_t ground = clt_default_shape_def(CLT_SHAPE_MESH);
    ground.mesh = mesh;
    clt_body_def_t gd = clt_default_body_def();
    gd.type = CLT_BODY_STATIC;
    gd.shapes = &ground;
    gd.shape_count = 1;
    clt_world_add_body(w, &gd, NULL);
    clt_mesh_release(mesh);
    clt_shape_def_t ball = clt_default_shape_def(CLT_SHAPE_SPHERE), box = clt_default_shape_def(CLT_SHAPE_BOX);
    ball.radius = 0.2;
    box.half_extents[0] = box.half_extents[1] = box.half_extents[2] = 0.2;
    for (int i = 0; i < 80; i++) {
      clt_body_def_t bd = clt_default_body_def();
      bd.position[0] = -4.0 + 0.8 * (i % 10) + 0.13;
      bd.position[1] = -4.0 + 0.9 * (i / 10) + 0.07;
      bd.position[2] = 0.2 + 1e-3;
      bd.shapes = i < 64 ? &ball : &box;
      bd.shape_count = 1;
      clt_world_add_body(w, &bd, NULL);
    }
    double collide = 0, total = 0;
    int contacts = 0;
    for (int step = 1; step <= 300; step++) {
      clt_world_step(w);
      clt_diagnostics_t d;
      clt_world_get_diagnostics(w, &d);
      if (step > 100) {
        collide += d.wall_collide_s;
        total += d.wall_s;
        contacts = d.contacts;
      }
    }
    printf("%d,%.3f,%.2f,%.2f,%d\n", nt, build, 1e6 * collide / 200, 1e6 * total / 200, contacts);
    fflush(stdout);
    clt_world_destroy(w);
  }
  return 0;
}
