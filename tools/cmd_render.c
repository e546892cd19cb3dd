/* clatter render — pictures of trajectory frames (PNG) and movies (MP4 through ffmpeg)
 * (docs/visualization.md). Exit status: 0, 1 if a picture or the movie cannot be written, 2 for
 * bad usage or an unreadable run file. */
#define _POSIX_C_SOURCE 200809L /* popen, access, mkdir */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "viz/viz.h"

#define MAX_MOVIE_FRAMES 1000 /* default stride keeps a whole-run movie at most this long */

static void usage(FILE *out) {
  fprintf(out,
          "usage: clatter render OUT.h5 [--frame N | --time T | --frames A:B:S] [-o out.png]\n"
          "                      [--movie out.mp4] [--fps F] [--size WxH]\n"
          "                      [--camera EX,EY,EZ,TX,TY,TZ | --window X0,X1,Y0,Y1] [--follow] [--contacts]\n"
          "                      [--color-by-force] [--supersample N] [--no-label]\n"
          "\n"
          "Draws trajectory frames: 2D scenes exactly (disks, ellipses, polygons, segments, half-planes,\n"
          "joints, springs), 3D scenes ray cast (spheres, boxes, capsules, ellipsoids, tori, half-spaces\n"
          "as floors). The view is fitted once to all the frames drawn.\n"
          "  --frame N        one frame (negative counts from the end; default: the last frame)\n"
          "  --time T         the frame nearest time T [s]\n"
          "  --frames A:B:S   frames A to B inclusive every S; with -o out.png they are written as\n"
          "                   out_NNNN.png (NNNN = frame index)\n"
          "  -o FILE          output PNG (default: <scene>.png, unless only --movie is given)\n"
          "  --movie FILE     an MP4 of the frames (default range: the whole run, at most %d frames)\n"
          "                   through ffmpeg (libx264, else mpeg4)\n"
          "  --fps F          movie frame rate (default: real time, within 1 to 60)\n"
          "  --size WxH       picture size in pixels (default 800x600)\n"
          "  --camera ...     3D camera eye and target point [m] (default: automatic, printed)\n"
          "  --window X0,X1,Y0,Y1  2D world window to show at least [m] (default: automatic, printed)\n"
          "  --follow         fit the view to each frame on its own (default: one view for all frames)\n"
          "  --color-by-force colour each body by the sum of its contact forces (from /contacts)\n"
          "  --contacts       overlay contact points and forces from /contacts, coloured by magnitude\n"
          "  --supersample N  3D rays per pixel per axis, 1 to 4 (default 2)\n"
          "  --no-label       leave out the scene name and time\n",
          MAX_MOVIE_FRAMES);
}

/* 'path' quoted for the shell. */
static void shell_quote(const char *s, char *out, size_t size) {
  size_t n = 0;
  if (size < 3) return;
  out[n++] = '\'';
  for (; *s && n + 5 < size; s++) {
    if (*s == '\'') {
      memcpy(out + n, "'\\''", 4);
      n += 4;
    } else {
      out[n++] = *s;
    }
  }
  out[n++] = '\'';
  out[n] = '\0';
}

static bool have_libx264(void) {
  FILE *p = popen("ffmpeg -hide_banner -encoders 2>/dev/null", "r");
  if (!p) return false;
  char line[512];
  bool found = false;
  while (fgets(line, sizeof line, p)) found = found || strstr(line, " libx264 ") != NULL;
  pclose(p);
  return found;
}

/* out.png → out_0042.png */
static void numbered_path(const char *path, int64_t frame, char *out, size_t size) {
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash)) dot = path + strlen(path);
  snprintf(out, size, "%.*s_%04lld%s", (int)(dot - path), path, (long long)frame, dot);
}

static int render_main(int argc, char **argv) {
  const char *input = NULL, *output = NULL, *movie = NULL, *frames = NULL;
  long long frame_arg = 0;
  bool frame_given = false, time_given = false, follow = false;
  double time_arg = 0, fps = 0;
  clt_viz_render_options_t options = clt_viz_default_render_options();
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    char *end = NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
      output = argv[++i];
    } else if (strcmp(a, "--movie") == 0 && i + 1 < argc) {
      movie = argv[++i];
    } else if (strcmp(a, "--frames") == 0 && i + 1 < argc) {
      frames = argv[++i];
    } else if (strcmp(a, "--frame") == 0 && i + 1 < argc) {
      frame_arg = strtoll(argv[++i], &end, 10);
      frame_given = true;
      if (*end) {
        fprintf(stderr, "clatter render: --frame must be an integer (got '%s')\n", argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--time") == 0 && i + 1 < argc) {
      time_arg = strtod(argv[++i], &end);
      time_given = true;
      if (*end || !isfinite(time_arg)) {
        fprintf(stderr, "clatter render: --time must be a number (got '%s')\n", argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--fps") == 0 && i + 1 < argc) {
      fps = strtod(argv[++i], &end);
      if (*end || !(fps >= 0.1 && fps <= 240)) {
        fprintf(stderr, "clatter render: --fps must be between 0.1 and 240 (got '%s')\n", argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--size") == 0 && i + 1 < argc) {
      if (sscanf(argv[++i], "%dx%d", &options.width, &options.height) != 2 || options.width < 16 ||
          options.height < 16 || options.width > 8192 || options.height > 8192) {
        fprintf(stderr, "clatter render: --size must be WxH between 16 and 8192 (got '%s')\n", argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--camera") == 0 && i + 1 < argc) {
      double *e = options.eye, *t = options.target;
      char extra;
      if (sscanf(argv[++i], "%lf,%lf,%lf,%lf,%lf,%lf%c", &e[0], &e[1], &e[2], &t[0], &t[1], &t[2], &extra) != 6) {
        fprintf(stderr, "clatter render: --camera must be EX,EY,EZ,TX,TY,TZ (got '%s')\n", argv[i]);
        return 2;
      }
      if (!(isfinite(e[0] + e[1] + e[2] + t[0] + t[1] + t[2])) ||
          (e[0] == t[0] && e[1] == t[1] && e[2] == t[2])) {
        fprintf(stderr, "clatter render: --camera: the eye and the target must be distinct finite points\n");
        return 2;
      }
      options.camera_set = true;
    } else if (strcmp(a, "--window") == 0 && i + 1 < argc) {
      double *w = options.window;
      char extra;
      if (sscanf(argv[++i], "%lf,%lf,%lf,%lf%c", &w[0], &w[1], &w[2], &w[3], &extra) != 4 || !(w[1] > w[0]) ||
          !(w[3] > w[2]) || !isfinite(w[1] - w[0]) || !isfinite(w[3] - w[2])) {
        fprintf(stderr, "clatter render: --window must be XMIN,XMAX,YMIN,YMAX with XMIN < XMAX, YMIN < YMAX (got '%s')\n",
                argv[i]);
        return 2;
      }
      options.window_set = true;
    } else if (strcmp(a, "--follow") == 0) {
      follow = true;
    } else if (strcmp(a, "--contacts") == 0) {
      options.contacts = true;
    } else if (strcmp(a, "--color-by-force") == 0) {
      options.color_by_force = true;
    } else if (strcmp(a, "--no-label") == 0) {
      options.label = false;
    } else if (strcmp(a, "--supersample") == 0 && i + 1 < argc) {
      options.supersample = (int)strtol(argv[++i], &end, 10);
      if (*end || options.supersample < 1 || options.supersample > 4) {
        fprintf(stderr, "clatter render: --supersample must be 1 to 4 (got '%s')\n", argv[i]);
        return 2;
      }
    } else if (a[0] == '-' || input) {
      fprintf(stderr, "clatter render: unexpected argument '%s'\n\n", a);
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
  if ((frame_given + time_given + (frames != NULL)) > 1) {
    fprintf(stderr, "clatter render: give one of --frame, --time and --frames\n");
    return 2;
  }
  clt_viz_run_t *run;
  char message[1024];
  if (clt_viz_run_read(input, &run, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "clatter render: %s\n", message);
    return 2;
  }
  int status = 0;
  if (run->frame_count == 0) {
    fprintf(stderr, "clatter render: %s: no /trajectory (the run had output.trajectory = false)\n", input);
    clt_viz_run_free(run);
    return 2;
  }
  if ((options.contacts || options.color_by_force) && !run->has_contacts) {
    fprintf(stderr, "clatter render: note: %s has no /contacts; drawing without contacts\n", input);
  }
  int64_t first = run->frame_count - 1, last = first, stride = 1;
  if (frames) {
    if (!clt_viz_parse_frames(frames, run->frame_count, &first, &last, &stride)) {
      fprintf(stderr, "clatter render: --frames '%s': expected A:B:S within 0..%lld\n", frames,
              (long long)run->frame_count - 1);
      clt_viz_run_free(run);
      return 2;
    }
  } else if (frame_given) {
    int64_t f = frame_arg < 0 ? run->frame_count + frame_arg : frame_arg;
    if (f < 0 || f >= run->frame_count) {
      fprintf(stderr, "clatter render: --frame %lld out of range (the run has %lld frames)\n", frame_arg,
              (long long)run->frame_count);
      clt_viz_run_free(run);
      return 2;
    }
    first = last = f;
  } else if (time_given) {
    first = last = clt_viz_frame_at_time(run, time_arg);
  } else if (movie) {
    first = 0;
    last = run->frame_count - 1;
    stride = (run->frame_count + MAX_MOVIE_FRAMES - 1) / MAX_MOVIE_FRAMES;
  }
  char default_output[300];
  if (!output && !movie) {
    char stem[256];
    clt_tool_file_stem(run->scene_name, "frame", stem, sizeof stem);
    snprintf(default_output, sizeof default_output, "%s.png", stem);
    output = default_output;
  }
  if (movie) {
    /* H.264 in yuv420p needs even sizes. */
    options.width += options.width % 2;
    options.height += options.height % 2;
  }
  clt_viz_view_t view;
  clt_viz_fit_view(run, first, last, stride, &options, &view);
  /* The view in the options' own terms, so that a user can pin or adjust it. */
  if (run->dimension == 2) {
    printf("view: --window %.6g,%.6g,%.6g,%.6g (%.6g px/m)\n", view.min[0], view.max[0], view.min[1], view.max[1],
           view.scale);
  } else {
    printf("view: --camera %.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", view.eye[0], view.eye[1], view.eye[2], view.target[0],
           view.target[1], view.target[2]);
  }

  FILE *pipe = NULL;
  char movie_tmp[1100] = "";
  if (movie) {
    if (fps <= 0) {
      /* Real time: frames are (frame interval × stride) apart in simulated time. */
      double dt = run->frame_count > 1 ? (run->frame_time[run->frame_count - 1] - run->frame_time[0]) /
                                             (double)(run->frame_count - 1) * (double)stride
                                       : 1;
      fps = dt > 0 ? 1.0 / dt : 25;
      fps = fps < 1 ? 1 : fps > 60 ? 60 : fps;
    }
    snprintf(movie_tmp, sizeof movie_tmp, "%s.part", movie);
    char quoted[2300], command[3000];
    shell_quote(movie_tmp, quoted, sizeof quoted);
    uint32_t probe = 1;
    bool little = *(unsigned char *)&probe == 1;
    const char *codec = have_libx264() ? "-c:v libx264 -preset medium -crf 20" : "-c:v mpeg4 -q:v 3";
    snprintf(command, sizeof command,
             "ffmpeg -hide_banner -loglevel error -y -f rawvideo -pix_fmt %s -s %dx%d -r %.6g -i - "
             "%s -pix_fmt yuv420p -movflags +faststart -f mp4 %s",
             little ? "bgra" : "argb", view.width, view.height, fps, codec, quoted);
    signal(SIGPIPE, SIG_IGN); /* an ffmpeg that dies shows as a write error, not a kill */
    pipe = popen(command, "w");
    if (!pipe) {
      fprintf(stderr, "clatter render: cannot start ffmpeg (is it installed? scripts/setup.sh)\n");
      clt_viz_run_free(run);
      return 1;
    }
  }
  int64_t pictures = 0, movie_frames = 0;
  for (int64_t f = first; f <= last && status == 0; f += stride) {
    cairo_surface_t *surface;
    if (follow) clt_viz_fit_view(run, f, f, 1, &options, &view);
    if (clt_viz_render_frame(run, f, &view, &options, &surface, message, sizeof message) != CLT_OK) {
      fprintf(stderr, "clatter render: %s\n", message);
      status = 1;
      break;
    }
    if (output) {
      char path[1200];
      if (first == last) snprintf(path, sizeof path, "%s", output);
      else numbered_path(output, f, path, sizeof path);
      cairo_status_t st = cairo_surface_write_to_png(surface, path);
      if (st != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "clatter render: %s: cannot write (%s)\n", path, cairo_status_to_string(st));
        status = 1;
      } else {
        pictures++;
        if (first == last || f == first) printf("wrote %s (frame %lld, t = %.6g s)\n", path, (long long)f, run->frame_time[f]);
      }
    }
    if (pipe && status == 0) {
      const unsigned char *data = cairo_image_surface_get_data(surface);
      int row_stride = cairo_image_surface_get_stride(surface);
      for (int y = 0; y < view.height && status == 0; y++) {
        if (fwrite(data + (size_t)y * row_stride, 4, (size_t)view.width, pipe) != (size_t)view.width) {
          fprintf(stderr, "clatter render: ffmpeg stopped accepting frames\n");
          status = 1;
        }
      }
      movie_frames++;
    }
    cairo_surface_destroy(surface);
  }
  if (output && pictures > 1) printf("wrote %lld pictures (frames %lld to %lld every %lld)\n", (long long)pictures,
                                     (long long)first, (long long)last, (long long)stride);
  if (pipe) {
    int rc = pclose(pipe);
    if (rc != 0 || status != 0) {
      if (status == 0) fprintf(stderr, "clatter render: ffmpeg failed (exit status %d)\n", rc);
      remove(movie_tmp);
      status = 1;
    } else if (rename(movie_tmp, movie) != 0) {
      fprintf(stderr, "clatter render: cannot rename %s to %s\n", movie_tmp, movie);
      remove(movie_tmp);
      status = 1;
    } else {
      printf("wrote %s (%lld frames at %.3g fps)\n", movie, (long long)movie_frames, fps);
    }
  }
  clt_viz_run_free(run);
  return status;
}

int clt_cmd_render(int argc, char **argv) {
  int status = render_main(argc, argv);
  clt_viz_release_static_data(); /* font caches: a clean exit for leak checkers */
  return status;
}
