/* clatter info — summary of a run file (docs/output-format.md), as text or one JSON object.
 * Exit status: 0, or 2 for a missing, unreadable or non-clatter file and for bad usage. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clatter/output.h"
#include "commands.h"
#include "io/json_text.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: clatter info [--json] OUT.h5\n"
          "\n"
          "Summarizes a run file written by `clatter run`: scene, status, steps, final time, bodies,\n"
          "maximum infeasibility, steps not solved to the tolerance, energies, checkpoint, final state\n"
          "hash. --json prints one JSON object. A diverged run has status diverged and its message names\n"
          "the step, the quantity, the body and the bound.\n");
}

static void add_number(cJSON *o, const char *key, double v) {
  if (isfinite(v)) {
    cJSON_AddNumberToObject(o, key, v);
  } else {
    cJSON_AddNullToObject(o, key);
  }
}

static int print_json(const char *path, const clt_output_summary_t *s) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return 1;
  cJSON_AddStringToObject(o, "file", path);
  cJSON_AddStringToObject(o, "scene", s->scene);
  add_number(o, "dimension", s->dimension);
  add_number(o, "time_step", s->time_step);
  cJSON_AddStringToObject(o, "status", s->status);
  cJSON_AddStringToObject(o, "status_message", s->status_message);
  add_number(o, "steps", (double)s->steps);
  add_number(o, "total_steps", (double)s->total_steps);
  add_number(o, "first_step", (double)s->first_step);
  add_number(o, "final_time", s->final_time);
  add_number(o, "bodies", s->bodies);
  add_number(o, "shapes", s->shapes);
  add_number(o, "frames", (double)s->frames);
  add_number(o, "diagnostics_rows", (double)s->diagnostics_rows);
  add_number(o, "max_infeasibility", s->max_infeasibility);
  add_number(o, "max_penetration", s->max_penetration);
  add_number(o, "max_joint_error", s->max_joint_error);
  add_number(o, "max_contacts", s->max_contacts);
  /* null for a file of before the column (docs/output-format.md "clatter info") */
  add_number(o, "max_touching_contacts", s->max_touching_contacts >= 0 ? s->max_touching_contacts : NAN);
  add_number(o, "unconverged_steps", (double)s->unconverged_steps);
  cJSON *by = cJSON_AddObjectToObject(o, "unconverged_by_status");
  for (int k = CLT_SOLVE_RAY; by && k < CLT_OUTPUT_SOLVER_STATUSES; k++)
    add_number(by, clt_solver_status_name((clt_solver_status_t)k), (double)s->unconverged_by_status[k]);
  add_number(o, "unconverged_first_step", s->first_unconverged_step >= 0 ? (double)s->first_unconverged_step : NAN);
  add_number(o, "unconverged_worst_step", s->worst_unconverged_step >= 0 ? (double)s->worst_unconverged_step : NAN);
  add_number(o, "unconverged_worst_residual", s->worst_unconverged_step >= 0 ? s->worst_residual : NAN);
  add_number(o, "tolerance", s->tolerance > 0 ? s->tolerance : NAN);
  add_number(o, "max_solves", s->max_solves);
  add_number(o, "resolved_steps", (double)s->resolved_steps);
  add_number(o, "set_miss_steps", (double)s->set_miss_steps);
  add_number(o, "initial_energy", s->diagnostics_rows > 0 ? s->initial_energy : NAN);
  add_number(o, "final_energy", s->diagnostics_rows > 0 ? s->final_energy : NAN);
  add_number(o, "checkpoint_every", (double)s->checkpoint_every);
  if (s->checkpoint_step >= 0) {
    add_number(o, "checkpoint_step", (double)s->checkpoint_step);
  } else {
    cJSON_AddNullToObject(o, "checkpoint_step");
  }
  add_number(o, "wall_s", s->wall_s);
  if (s->state_hash[0]) {
    cJSON_AddStringToObject(o, "state_hash", s->state_hash);
    add_number(o, "state_hash_step", (double)s->state_hash_step);
  } else {
    cJSON_AddNullToObject(o, "state_hash");
    cJSON_AddNullToObject(o, "state_hash_step");
  }
  cJSON_AddStringToObject(o, "clatter_version", s->clatter_version);
  cJSON_AddStringToObject(o, "format", s->format);
  add_number(o, "format_version", s->format_version);
  char *text = clt_json_serialize(o, false);
  cJSON_Delete(o);
  if (!text) return 1;
  printf("%s\n", text);
  free(text);
  return 0;
}

static void print_text(const char *path, const clt_output_summary_t *s) {
  printf("file               %s\n", path);
  printf("scene              %s (%dD, time step %.6g s)\n", s->scene, s->dimension, s->time_step);
  printf("status             %s%s%s\n", s->status, s->status_message[0] ? ": " : "", s->status_message);
  printf("steps              %lld of %lld (t = %.9g s)\n", (long long)s->steps, (long long)s->total_steps,
         s->final_time);
  if (s->first_step > 0) printf("started from       step %lld (another run's checkpoint)\n", (long long)s->first_step);
  printf("bodies             %d (%d shapes)\n", s->bodies, s->shapes);
  printf("trajectory frames  %lld\n", (long long)s->frames);
  if (s->max_touching_contacts >= 0)
    printf("max contacts       %d candidates, %d touching\n", s->max_contacts, s->max_touching_contacts);
  else
    printf("max contacts       %d candidates (touching not recorded)\n", s->max_contacts);
  printf("max infeasibility  %.6g (penetration %.6g, joint error %.6g)\n", s->max_infeasibility,
         s->max_penetration, s->max_joint_error);
  printf("unconverged steps  %lld", (long long)s->unconverged_steps);
  if (s->unconverged_steps > 0) {
    printf(" (");
    bool first = true;
    for (int k = CLT_SOLVE_RAY; k < CLT_OUTPUT_SOLVER_STATUSES; k++) {
      if (s->unconverged_by_status[k] == 0) continue;
      printf("%s%s %lld", first ? "" : ", ", clt_solver_status_name((clt_solver_status_t)k),
             (long long)s->unconverged_by_status[k]);
      first = false;
    }
    printf("): worst residual %.3g at step %lld", s->worst_residual, (long long)s->worst_unconverged_step);
    if (s->tolerance > 0) printf(" (tolerance %.3g)", s->tolerance);
    printf(", first at step %lld", (long long)s->first_unconverged_step);
  }
  printf("\n");
  if (s->max_solves > 1)
    printf("solves             at most %d a step; %lld steps solved again (the active set's test), %lld left "
           "bodies outside their boxes\n",
           s->max_solves, (long long)s->resolved_steps, (long long)s->set_miss_steps);
  if (s->diagnostics_rows > 0) {
    printf("energy             initial %.9g J, final %.9g J (change %.3g J)\n", s->initial_energy,
           s->final_energy, s->final_energy - s->initial_energy);
  } else {
    printf("energy             n/a (the run wrote no diagnostics)\n");
  }
  if (s->checkpoint_step >= 0) {
    if (s->checkpoint_every > 0)
      printf("checkpoint         step %lld (every %lld steps)\n", (long long)s->checkpoint_step,
             (long long)s->checkpoint_every);
    else
      printf("checkpoint         step %lld\n", (long long)s->checkpoint_step);
  } else {
    printf("checkpoint         none\n");
  }
  if (s->state_hash[0]) {
    printf("final state hash   %s (step %lld)\n", s->state_hash, (long long)s->state_hash_step);
  } else {
    printf("final state hash   none (not stored)\n");
  }
  printf("wall time          %.3f s\n", s->wall_s);
  printf("written by         clatter %s (%s format %d)\n", s->clatter_version, s->format, s->format_version);
}

int clt_cmd_info(int argc, char **argv) {
  bool json = false;
  const char *path = NULL;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fprintf(stderr, "clatter info: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    } else if (path) {
      fprintf(stderr, "clatter info: one file at a time ('%s', '%s')\n", path, argv[i]);
      return 2;
    } else {
      path = argv[i];
    }
  }
  if (!path) {
    usage(stderr);
    return 2;
  }
  clt_output_summary_t summary;
  char message[1024] = "";
  clt_status_t status = clt_output_read_summary(path, &summary, message, sizeof message);
  if (status != CLT_OK) {
    fprintf(stderr, "clatter info: %s\n", message);
    return 2;
  }
  if (json) return print_json(path, &summary);
  print_text(path, &summary);
  return 0;
}
