/* Scene files: JSON → validated clt_scene_t → world (docs/scene-format.md).
 *
 * Reading happens in stages on the cJSON tree, so every message can name the JSON path:
 *   parse → apply --set overrides → resolve parameters (--param) → substitute "$name"
 *   → validate and convert into world.h definitions
 *   → serialize the resolved tree (stored in outputs; numbers round-trip exactly).
 * The reader validates everything it can (types, ranges, finiteness, unknown keys, dimension) so
 * the user sees the JSON path; errors the library still finds are mapped back to the path of the
 * body/joint/force that caused them in clt_scene_create_world. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/names.h"
#include "io/json_text.h"
#include "io/scene_internal.h"

/* The scene name becomes a file name ("<name>.h5"): keep it to a safe character set. */
static bool valid_name(const char *s) {
  if (!*s || *s == '.' || *s == '-' || strlen(s) > 200) return false;
  for (; *s; s++) {
    char c = *s;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

/* Default name: the source's base name without extension, unsafe characters replaced. */
static char *name_from_source(const char *source) {
  const char *base = strrchr(source, '/');
  base = base ? base + 1 : source;
  char *name = scn_dup_string(*base ? base : "scene");
  if (!name) return NULL;
  char *dot = strrchr(name, '.');
  if (dot && dot != name) *dot = '\0';
  for (char *c = name; *c; c++) {
    bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == '-' || *c == '.';
    if (!ok) *c = '_';
  }
  if (name[0] == '.' || name[0] == '-') name[0] = '_';
  if (strlen(name) > 200) name[200] = '\0';
  return name;
}

static bool read_scene(ctx_t *ctx, const cJSON *root) {
  clt_scene_t *scene = ctx->scene;
  if (!cJSON_IsObject(root)) {
    char got[64];
    scn_describe(root, got, sizeof got);
    return scn_fail(ctx, NULL, "a scene must be a JSON object (got %s)", got);
  }
  static const char *const keys[] = {"name",    "description", "dimension", "time_step", "duration",
                                     "gravity", "parameters",  "method",    "materials", "bodies",
                                     "joints",  "forces",      "output",    "law",
                                     "viscosity", "planar",    "colony",    NULL};
  if (!scn_check_keys(ctx, root, "", keys, "a scene")) return false;

  const char *name = NULL;
  if (!scn_read_string(ctx, root, "", "name", &name, false)) return false;
  if (name) {
    if (!valid_name(name)) {
      return scn_fail(ctx, "name",
                  "must be 1 to 200 letters, digits, '_', '-' or '.', not starting with '.' or '-' "
                  "(it names the output file)");
    }
    scene->name = scn_dup_string(name);
  } else {
    scene->name = name_from_source(ctx->source);
  }
  if (!scene->name) return scn_fail(ctx, NULL, "out of memory");
  const char *description = NULL;
  if (!scn_read_string(ctx, root, "", "description", &description, false)) return false;

  int64_t dimension = 0;
  const cJSON *dim = scn_get(root, "dimension");
  if (!dim) return scn_missing(ctx, "", "dimension");
  if (cJSON_IsNumber(dim) && isfinite(dim->valuedouble) && dim->valuedouble != 2 && dim->valuedouble != 3) {
    char got[64];
    scn_format_number(dim->valuedouble, got, sizeof got);
    return scn_fail(ctx, "dimension", "must be 2 or 3 (got %s)", got);
  }
  if (!scn_read_int(ctx, root, "", "dimension", &dimension, 2, 3, true)) return false;
  ctx->dimension = (int)dimension;

  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = ctx->dimension;
  wd.gravity[0] = 0;
  wd.gravity[1] = ctx->dimension == 2 ? -9.81 : 0;
  wd.gravity[2] = ctx->dimension == 3 ? -9.81 : 0;
  if (!scn_read_number(ctx, root, "", "time_step", &wd.time_step, RANGE_POSITIVE, true)) return false;
  if (!scn_read_number(ctx, root, "", "duration", &scene->duration, RANGE_POSITIVE, true)) return false;
  double steps = round(scene->duration / wd.time_step);
  if (steps < 1) {
    return scn_fail(ctx, "duration", "must be at least one time_step");
  }
  if (steps > 1e15) return scn_fail(ctx, "duration", "too many steps (%.3g)", steps);
  scene->step_count = (int64_t)steps;
  if (!scn_read_dvec(ctx, root, "", "gravity", wd.gravity, RANGE_ANY, false)) return false;
  if (ctx->dimension == 2) {
    wd.method.friction_directions = 2;
  }
  const cJSON *method = scn_get(root, "method");
  if (method && !scn_read_method(ctx, method, &wd.method)) return false;
  if (!scn_read_world_law(ctx, root, &wd)) return false;
  scene->world_def = wd;

  const cJSON *materials = scn_get(root, "materials");
  if (materials && !scn_read_materials(ctx, materials)) return false;
  if (!scn_check_unused_fields(ctx, root)) return false;

  const cJSON *bodies = scn_get(root, "bodies");
  if (!bodies) return scn_missing(ctx, "", "bodies");
  if (!cJSON_IsArray(bodies) || cJSON_GetArraySize(bodies) == 0) {
    char got[64];
    if (cJSON_IsArray(bodies)) {
      snprintf(got, sizeof got, "an empty array");
    } else {
      scn_describe(bodies, got, sizeof got);
    }
    return scn_fail(ctx, "bodies", "must be a non-empty array of bodies (got %s)", got);
  }
  /* Grids first (docs "Body grids"): how many bodies each entry makes. */
  int count = cJSON_GetArraySize(bodies);
  grid_spec_t *grids = calloc((size_t)count, sizeof *grids);
  if (!grids) return scn_fail(ctx, "bodies", "out of memory");
  int64_t total = 0;
  int i = 0;
  for (const cJSON *b = bodies->child; b; b = b->next, i++) {
    if (!scn_read_grid(ctx, b, i, &grids[i])) {
      free(grids);
      return false;
    }
    total += grids[i].number;
    if (total > GRID_MAX_BODIES) {
      free(grids);
      return scn_fail(ctx, "bodies", "more than %d bodies (grids expanded)", GRID_MAX_BODIES);
    }
  }
  scene->bodies = calloc((size_t)total, sizeof *scene->bodies);
  if (!scene->bodies) {
    free(grids);
    return scn_fail(ctx, "bodies", "out of memory");
  }
  scene->body_count = (int)total;
  i = 0;
  int slot = 0;
  for (const cJSON *b = bodies->child; b; b = b->next, i++) {
    if (!scn_read_body(ctx, b, i, slot, &grids[i])) {
      free(grids);
      return false;
    }
    slot += (int)grids[i].number;
  }
  free(grids);
  if (!scn_index_body_names(ctx)) return false;
  for (int b = 0; b < scene->body_count; b++)
    if (!isnan(scene->bodies[b].remove_at)) scene->body_removal_count++;
  if (scene->body_removal_count > 0) {
    scene->body_removal_index = malloc(sizeof(int) * (size_t)scene->body_removal_count);
    scene->body_removal_time = malloc(sizeof(double) * (size_t)scene->body_removal_count);
    if (!scene->body_removal_index || !scene->body_removal_time) return scn_fail(ctx, "bodies", "out of memory");
    for (int b = 0, k = 0; b < scene->body_count; b++)
      if (!isnan(scene->bodies[b].remove_at)) {
        scene->body_removal_index[k] = b;
        scene->body_removal_time[k++] = scene->bodies[b].remove_at;
      }
  }

  const cJSON *joints = scn_get(root, "joints");
  if (joints) {
    if (!cJSON_IsArray(joints)) {
      char got[64];
      scn_describe(joints, got, sizeof got);
      return scn_fail(ctx, "joints", "must be an array of joints (got %s)", got);
    }
    count = cJSON_GetArraySize(joints);
    scene->joints = calloc((size_t)(count ? count : 1), sizeof *scene->joints);
    if (!scene->joints) return scn_fail(ctx, "joints", "out of memory");
    scene->joint_count = count;
    i = 0;
    for (const cJSON *j = joints->child; j; j = j->next, i++) {
      if (!scn_read_joint(ctx, j, i)) return false;
    }
  }

  const cJSON *forces = scn_get(root, "forces");
  if (forces) {
    if (!cJSON_IsArray(forces)) {
      char got[64];
      scn_describe(forces, got, sizeof got);
      return scn_fail(ctx, "forces", "must be an array of force elements (got %s)", got);
    }
    count = cJSON_GetArraySize(forces);
    scene->forces = calloc((size_t)(count ? count : 1), sizeof *scene->forces);
    if (!scene->forces) return scn_fail(ctx, "forces", "out of memory");
    scene->force_count = count;
    i = 0;
    for (const cJSON *f = forces->child; f; f = f->next, i++) {
      if (!scn_read_force(ctx, f, i)) return false;
    }
  }

  scene->output.interval_steps = 1;
  scene->output.trajectory = true;
  scene->output.velocities = true;
  scene->output.diagnostics = true;
  scene->output.csv = true;
  scene->output.contacts = true;
  const cJSON *output = scn_get(root, "output");
  if (output && !scn_read_output(ctx, output)) return false;
  if (!scene->output_path) scene->output_path = scn_dup_string("");
  if (!scene->output_path) return scn_fail(ctx, NULL, "out of memory");
  scene->output.path = scene->output_path;
  const cJSON *colony = scn_get(root, "colony");
  if (colony && !scn_read_colony(ctx, colony)) return false;
  return true;
}

/* ---------------------------------------------------------------------------------------------
 * Public API */

void clt_scene_release_bodies(clt_scene_t *scene) {
  if (!scene || !scene->bodies) return;
  for (int i = 0; i < scene->body_count; i++) {
    if (!scene->bodies[i].shared_shapes && scene->bodies[i].shapes)
      for (int k = 0; k < scene->bodies[i].def.shape_count; k++)
      {
        clt_convex_release((clt_convex_t *)scene->bodies[i].shapes[k].convex);
        clt_mesh_release((clt_mesh_t *)scene->bodies[i].shapes[k].mesh);
      }
    if (!scene->bodies[i].shared_shapes) free(scene->bodies[i].shapes);
    if (!scene->bodies[i].shared_shapes) free(scene->bodies[i].keyframes);
    free(scene->bodies[i].name);
  }
  free(scene->bodies);
  scene->bodies = NULL;
  free(scene->bodies_by_name);
  scene->bodies_by_name = NULL;
}

void clt_scene_destroy(clt_scene_t *scene) {
  if (!scene) return;
  free(scene->source);
  free(scene->notes);
  free(scene->name);
  free(scene->json);
  free(scene->output_path);
  for (int i = 0; i < scene->material_count; i++) free(scene->material_names[i]);
  free(scene->material_names);
  free(scene->materials);
  clt_scene_release_bodies(scene);
  free(scene->body_removal_index);
  free(scene->body_removal_time);
  for (int i = 0; i < scene->joint_count; i++) {
    free(scene->joints[i].name);
    scn_function_free(&scene->joints[i].target_velocity);
    scn_function_free(&scene->joints[i].target_position);
    scn_function_free(&scene->joints[i].effort);
  }
  free(scene->joints);
  for (int i = 0; i < scene->force_count; i++) free(scene->forces[i].name);
  free(scene->forces);
  free(scene);
}

clt_status_t clt_scene_parse(const char *text, const char *source, const clt_scene_overrides_t *overrides,
                             clt_scene_t **out, char *message, size_t message_size) {
  *out = NULL;
  if (message && message_size) message[0] = '\0';
  if (!source) source = "scene";
  clt_scene_t *scene = calloc(1, sizeof *scene);
  if (!scene) return CLT_ERR_OUT_OF_MEMORY;
  scene->default_material = -1;
  scene->source = scn_dup_string(source);
  ctx_t ctx = {source, message, message_size, false, CLT_OK, 0, scene};
  if (!scene->source) {
    clt_scene_destroy(scene);
    return CLT_ERR_OUT_OF_MEMORY;
  }

  const char *nul = scn_escaped_nul(text);
  if (nul) {
    int line, column;
    clt_json_line_column(text, (size_t)(nul - text), &line, &column);
    if (message && message_size)
      snprintf(message, message_size, "%s:%d:%d: a string holds \\u0000 (NUL), which no field accepts", source,
               line, column);
    clt_scene_destroy(scene);
    return CLT_ERR_FORMAT;
  }
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, true);
  if (!root) {
    int line, column;
    size_t offset = end ? (size_t)(end - text) : 0;
    clt_json_line_column(text, offset, &line, &column);
    if (message && message_size) {
      const char *what = text[offset] == '\0' ? "unexpected end of input" : "syntax error";
      if (text[offset] != '\0' && offset > 0) {
        /* Trailing garbage after a complete value reads better as such. */
        cJSON *prefix = cJSON_ParseWithLengthOpts(text, offset, NULL, false);
        if (prefix) {
          what = "unexpected text after the scene object";
          cJSON_Delete(prefix);
        }
      }
      char near[24] = "";
      if (text[offset] != '\0') {
        int k = 0;
        for (const char *c = text + offset; *c && *c != '\n' && k < 16; c++) near[k++] = *c;
        near[k] = '\0';
      }
      if (near[0]) {
        snprintf(message, message_size, "%s:%d:%d: invalid JSON: %s near '%s'", source, line, column, what,
                 near);
      } else {
        snprintf(message, message_size, "%s:%d:%d: invalid JSON: %s", source, line, column, what);
      }
    }
    clt_scene_destroy(scene);
    return CLT_ERR_FORMAT;
  }

  bool ok = true;
  if (overrides) {
    for (int i = 0; ok && i < overrides->set_count; i++) ok = scn_apply_set(&ctx, root, overrides->sets[i]);
  }
  cJSON *parameters = ok ? cJSON_GetObjectItemCaseSensitive(root, "parameters") : NULL;
  if (ok && parameters) {
    ok = scn_expect_object(&ctx, parameters, "parameters");
    param_index_t names;
    if (ok && !scn_param_index_build(parameters, &names)) {
      ctx.status = CLT_ERR_OUT_OF_MEMORY;
      ok = scn_fail(&ctx, NULL, "out of memory");
    } else if (ok) {
      const cJSON *dup = scn_param_index_duplicate(&names);
      if (dup) {
        char p[PATH_SIZE];
        scn_join_key(p, "parameters", dup->string);
        ok = scn_fail(&ctx, p, "duplicate key");
      }
      scn_param_index_free(&names);
    }
    for (const cJSON *c = ok ? parameters->child : NULL; ok && c; c = c->next) {
      char p[PATH_SIZE];
      scn_join_key(p, "parameters", c->string);
      if (ok && (c->string[0] == '\0' || c->string[0] == '$')) {
        ok = scn_fail(&ctx, p, "a parameter name must not be empty or start with '$'");
      }
      if (ok) ok = scn_check_parameter_value(&ctx, c, p);
    }
  }
  if (ok && overrides) {
    for (int i = 0; ok && i < overrides->param_count; i++) {
      ok = scn_apply_param(&ctx, parameters, overrides->params[i]);
    }
  }
  if (ok) {
    /* Substitute everywhere except inside the parameter declarations themselves (the index is
     * built after --param, which replaces declared values). */
    param_index_t index;
    if (!scn_param_index_build(parameters, &index)) {
      ctx.status = CLT_ERR_OUT_OF_MEMORY;
      ok = scn_fail(&ctx, NULL, "out of memory");
    } else {
      ok = scn_substitute(&ctx, root, "", &index, parameters);
      scn_param_index_free(&index);
    }
  }
  if (ok) ok = scn_expand_urdf(&ctx, root);
  if (ok) ok = read_scene(&ctx, root);
  if (ok && !cJSON_GetObjectItemCaseSensitive(root, "name")) {
    /* The stored scene must not depend on its file name: write the derived name in, first. */
    cJSON *name = cJSON_AddStringToObject(root, "name", scene->name);
    name = name ? cJSON_DetachItemViaPointer(root, name) : NULL;
    ok = name && cJSON_InsertItemInArray(root, 0, name);
    if (!ok) ctx.status = CLT_ERR_OUT_OF_MEMORY;
  }
  if (ok) {
    scene->json = clt_json_serialize(root, true);
    if (!scene->json) {
      ctx.status = CLT_ERR_OUT_OF_MEMORY;
      ok = false;
    }
  }
  cJSON_Delete(root);
  if (!ok) {
    clt_status_t status = ctx.status != CLT_OK ? ctx.status : CLT_ERR_FORMAT;
    clt_scene_destroy(scene);
    return status;
  }
  *out = scene;
  return CLT_OK;
}

clt_status_t clt_scene_load(const char *path, const clt_scene_overrides_t *overrides, clt_scene_t **out,
                            char *message, size_t message_size) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (message && message_size)
      snprintf(message, message_size, "%s: cannot open: %s", path, strerror(errno));
    return CLT_ERR_IO;
  }
  size_t capacity = 4096, length = 0;
  char *text = malloc(capacity);
  while (text) {
    if (length + 1 >= capacity) {
      char *bigger = realloc(text, capacity * 2);
      if (!bigger) {
        free(text);
        text = NULL;
        break;
      }
      text = bigger;
      capacity *= 2;
    }
    size_t n = fread(text + length, 1, capacity - length - 1, f);
    size_t nul = 0;
    while (nul < n && text[length + nul] != '\0') nul++;
    if (nul < n) { /* /dev/zero, a binary file: said at the first NUL, not after reading it all */
      long long at = (long long)(length + nul);
      free(text);
      fclose(f);
      if (message && message_size)
        snprintf(message, message_size, "%s: contains a NUL byte at offset %lld (not a JSON text file)", path, at);
      return CLT_ERR_FORMAT;
    }
    length += n;
    if (n == 0) break;
    if (length > CLT_SCENE_MAX_BYTES) {
      free(text);
      fclose(f);
      if (message && message_size)
        snprintf(message, message_size, "%s: longer than %d MiB: not a scene file", path, CLT_SCENE_MAX_BYTES >> 20);
      return CLT_ERR_FORMAT;
    }
  }
  bool read_error = ferror(f) != 0;
  fclose(f);
  if (!text) return CLT_ERR_OUT_OF_MEMORY;
  if (read_error) {
    free(text);
    if (message && message_size) snprintf(message, message_size, "%s: read error", path);
    return CLT_ERR_IO;
  }
  text[length] = '\0';
  clt_status_t status = clt_scene_parse(text, path, overrides, out, message, message_size);
  free(text);
  return status;
}

const char *clt_scene_json(const clt_scene_t *scene) { return scene->json; }
const char *clt_scene_name(const clt_scene_t *scene) { return scene->name; }
const char *clt_scene_source(const clt_scene_t *scene) { return scene->source; }

const char *clt_scene_notes(const clt_scene_t *scene) { return scene && scene->notes ? scene->notes : ""; }

void scn_note(ctx_t *ctx, const char *fmt, ...) {
  char line[2048];
  va_list args;
  va_start(args, fmt);
  vsnprintf(line, sizeof line, fmt, args);
  va_end(args);
  clt_scene_t *scene = ctx->scene;
  size_t old = scene->notes ? strlen(scene->notes) : 0, add = strlen(line);
  char *grown = realloc(scene->notes, old + add + 2);
  if (!grown) return;
  memcpy(grown + old, line, add);
  grown[old + add] = '\n';
  grown[old + add + 1] = '\0';
  scene->notes = grown;
}
int clt_scene_dimension(const clt_scene_t *scene) { return scene->world_def.dimension; }
double clt_scene_time_step(const clt_scene_t *scene) { return scene->world_def.time_step; }
double clt_scene_duration(const clt_scene_t *scene) { return scene->duration; }
int64_t clt_scene_step_count(const clt_scene_t *scene) { return scene->step_count; }
const clt_scene_output_t *clt_scene_output(const clt_scene_t *scene) { return &scene->output; }
const clt_world_def_t *clt_scene_world_def(const clt_scene_t *scene) { return &scene->world_def; }
int clt_scene_body_count(const clt_scene_t *scene) { return scene->body_count; }
const clt_body_def_t *clt_scene_body_def(const clt_scene_t *scene, int index) {
  if (!scene || !scene->bodies || index < 0 || index >= scene->body_count) return NULL;
  return &scene->bodies[index].def;
}

const clt_scene_colony_t *clt_scene_colony(const clt_scene_t *scene) {
  return scene && scene->has_colony ? &scene->colony : NULL;
}
