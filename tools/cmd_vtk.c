/* clatter vtk — a run's trajectory as VTK XML PolyData files and .pvd series for ParaView
 * (docs/visualization.md). Exit status: 0, 1 if a file cannot be written, 2 for bad usage or an
 * unreadable run file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "viz/viz.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: clatter vtk OUT.h5 [-o DIR] [--frames A:B:S] [--name BASE]\n"
          "\n"
          "Writes per trajectory frame DIR/BASE_NNNNN.vtp (bodies as points: orientation quaternion,\n"
          "velocity, angular velocity, body and shape type, shape parameters), DIR/BASE_shapes_NNNNN.vtp\n"
          "(the shapes' surfaces) and, when the run has /contacts, DIR/BASE_contacts_NNNNN.vtp, plus\n"
          "DIR/BASE.pvd, DIR/BASE_shapes.pvd (and DIR/BASE_contacts.pvd) to open in ParaView.\n"
          "  -o DIR          output folder (default: OUT_vtk beside OUT.h5)\n"
          "  --frames A:B:S  frames A to B inclusive every S (default: all); negative counts from the end\n"
          "  --name BASE     file name stem (default: the scene name)\n");
}

int clt_cmd_vtk(int argc, char **argv) {
  const char *input = NULL, *dir = NULL, *frames = NULL, *name = NULL;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else if (strcmp(a, "--frames") == 0 && i + 1 < argc) {
      frames = argv[++i];
    } else if (strcmp(a, "--name") == 0 && i + 1 < argc) {
      name = argv[++i];
    } else if (a[0] == '-' || input) {
      fprintf(stderr, "clatter vtk: unexpected argument '%s'\n\n", a);
      usage(stderr);
      return 2;
    } else {
      input = a;
    }
  }
  if (!input) {
    usage(stderr);
    return 2;
  }
  clt_viz_run_t *run;
  char message[1024];
  if (clt_viz_run_read(input, &run, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "clatter vtk: %s\n", message);
    return 2;
  }
  if (run->frame_count == 0) {
    fprintf(stderr, "clatter vtk: %s: no /trajectory (the run had output.trajectory = false)\n", input);
    clt_viz_run_free(run);
    return 2;
  }
  int64_t first = 0, last = run->frame_count - 1, stride = 1;
  if (frames && !clt_viz_parse_frames(frames, run->frame_count, &first, &last, &stride)) {
    fprintf(stderr, "clatter vtk: --frames '%s': expected A:B:S within 0..%lld\n", frames,
            (long long)run->frame_count - 1);
    clt_viz_run_free(run);
    return 2;
  }
  char dir_buf[1100];
  if (!dir) {
    size_t n = strlen(input);
    size_t cut = n > 3 && strcmp(input + n - 3, ".h5") == 0 ? n - 3 : n > 5 && strcmp(input + n - 5, ".hdf5") == 0 ? n - 5 : n;
    snprintf(dir_buf, sizeof dir_buf, "%.*s_vtk", (int)(cut < 1024 ? cut : 1024), input);
    dir = dir_buf;
  }
  char name_buf[256];
  if (!name) {
    clt_tool_file_stem(run->scene_name, "run", name_buf, sizeof name_buf);
    name = name_buf;
  }
  int written = 0;
  clt_status_t st = clt_viz_write_vtk(run, dir, name, first, last, stride, &written, message, sizeof message);
  bool contacts = run->has_contacts;
  clt_viz_run_free(run);
  if (st != CLT_OK) {
    fprintf(stderr, "clatter vtk: %s\n", message);
    return st == CLT_ERR_INVALID_ARGUMENT ? 2 : 1;
  }
  printf("wrote %d files to %s/ (open %s/%s.pvd and %s/%s_shapes.pvd in ParaView%s)\n", written, dir, dir, name, dir,
         name, contacts ? "; contacts in *_contacts.pvd" : "");
  return 0;
}
