/* clatter vtk — a run's trajectory as VTK XML PolyData files and .pvd series for ParaView
 * (docs/visualization.md). Exit status: 0, 1 if a file cannot be written (or memory runs out), 2 for
 * bad usage or an unreadable run file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "viz/viz.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: clatter vtk OUT.h5 [-o DIR] [--frames A:B:S] [--name BASE] [--surfaces auto|all|none]\n"
          "                  [--ascii]\n"
          "\n"
          "Writes per trajectory frame DIR/BASE_NNNNN.vtp (bodies as points: orientation quaternion,\n"
          "velocity, angular velocity, body and shape type, glyph, shape parameters), DIR/BASE_shapes_NNNNN.vtp\n"
          "(shapes' surfaces) and, when the run has /contacts, DIR/BASE_contacts_NNNNN.vtp, plus\n"
          "DIR/BASE.pvd, DIR/BASE_shapes.pvd (and DIR/BASE_contacts.pvd) to open in ParaView.\n"
          "The .vtp files are binary VTK XML (appended, zlib-compressed; Float64 values exactly those of\n"
          "OUT.h5). Spheres (2D: disks) are drawn from the bodies files' points: in ParaView a Glyph\n"
          "filter, Glyph Type Sphere, Scale Array radius, Scale Factor 2, Glyph Mode All Points, on\n"
          "the points with glyph = 1 (docs/visualization.md).\n"
          "  -o DIR          output folder (default: OUT_vtk beside OUT.h5)\n"
          "  --frames A:B:S  frames A to B inclusive every S (default: all); negative counts from the end\n"
          "  --name BASE     file name stem (default: the scene name)\n"
          "  --surfaces M    auto (default): surfaces of every body except dynamic bodies that are one centred\n"
          "                  sphere or disk (static and kinematic geometry always); all: every body;\n"
          "                  none: no shapes series\n"
          "  --ascii         ASCII .vtp files (numbers with 17 significant digits), readable as text\n"
          "Exit status: 0, 1 if a file cannot be written, 2 for bad usage or an unreadable run file.\n");
}

int clt_cmd_vtk(int argc, char **argv) {
  const char *input = NULL, *dir = NULL, *frames = NULL, *name = NULL;
  clt_viz_vtk_options_t options = clt_viz_default_vtk_options();
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
    } else if (strcmp(a, "--surfaces") == 0 && i + 1 < argc) {
      if (!clt_viz_vtk_surfaces_from_name(argv[++i], &options.surfaces)) {
        fprintf(stderr, "clatter vtk: --surfaces '%s': expected auto, all or none\n", argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--ascii") == 0) {
      options.ascii = true;
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
  options.first = first, options.last = last, options.stride = stride;
  int written = 0;
  clt_status_t st = clt_viz_write_vtk(run, dir, name, &options, &written, message, sizeof message);
  bool contacts = run->has_contacts;
  clt_viz_run_free(run);
  if (st != CLT_OK) {
    fprintf(stderr, "clatter vtk: %s\n", message);
    /* a frame the run file cannot give is an unreadable run file */
    return st == CLT_ERR_IO || st == CLT_ERR_OUT_OF_MEMORY ? 1 : 2;
  }
  if (options.surfaces == CLT_VIZ_VTK_SURFACES_NONE)
    printf("wrote %d files to %s/ (open %s/%s.pvd in ParaView%s)\n", written, dir, dir, name,
           contacts ? "; contacts in *_contacts.pvd" : "");
  else
    printf("wrote %d files to %s/ (open %s/%s.pvd and %s/%s_shapes.pvd in ParaView%s)\n", written, dir, dir, name,
           dir, name, contacts ? "; contacts in *_contacts.pvd" : "");
  return 0;
}
