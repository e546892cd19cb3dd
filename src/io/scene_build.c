/* The world and the colony built from a read scene (clt_scene_create_world, clt_scene_create_colony):
 * errors of the library are mapped back to the JSON path of the object that caused them. */
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

clt_status_t clt_scene_create_colony(const clt_scene_t *scene, clt_world_t *world, clt_colony_t **out, char *message,
                                     size_t message_size) {
  *out = NULL;
  if (!scene->has_colony) {
    if (message && message_size) snprintf(message, message_size, "%s: the scene has no \"colony\" block", scene->source);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  clt_colony_def_t def = scene->colony.def;
  def.first_cell = clt_world_body_at(world, scene->colony.seed_body);
  clt_status_t status = clt_colony_create(world, &def, out);
  if (status != CLT_OK && message && message_size)
    snprintf(message, message_size, "%s: %s", scene->source, clt_world_error(world));
  return status;
}

static clt_status_t world_failure(const clt_scene_t *scene, clt_world_t *world, clt_status_t status,
                                  const char *path, char *message, size_t message_size) {
  if (message && message_size) {
    const char *reason = clt_world_error(world);
    snprintf(message, message_size, "%s: %s: %s", scene->source, path,
             reason && *reason ? reason : clt_status_name(status));
  }
  clt_world_destroy(world);
  return status;
}

clt_status_t clt_scene_create_world(const clt_scene_t *scene, clt_log_fn log, void *log_user,
                                    clt_world_t **out, char *message, size_t message_size) {
  *out = NULL;
  if (!scene->bodies && scene->body_count > 0) {
    if (message && message_size)
      snprintf(message, message_size, "%s: the scene's bodies were released (clt_scene_release_bodies)", scene->source);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  clt_world_def_t wd = scene->world_def;
  wd.log = log;
  wd.log_user = log_user;
  clt_world_t *world = NULL;
  char reason[512] = "";
  clt_status_t status = clt_world_create(&wd, &world, reason, sizeof reason);
  if (status != CLT_OK) {
    if (message && message_size) {
      snprintf(message, message_size, "%s: %s", scene->source, reason[0] ? reason : clt_status_name(status));
    }
    return status;
  }
  char path[PATH_SIZE];
  int *material_index = calloc((size_t)(scene->material_count ? scene->material_count : 1), sizeof(int));
  clt_body_id_t *ids = calloc((size_t)scene->body_count, sizeof *ids);
  if (!material_index || !ids) {
    free(material_index);
    free(ids);
    clt_world_destroy(world);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  status = CLT_OK;
  for (int i = 0; status == CLT_OK && i < scene->material_count; i++) {
    status = clt_world_add_material(world, &scene->materials[i], &material_index[i]);
    if (status != CLT_OK) scn_join_key(path, "materials", scene->material_names[i]);
  }
  /* The world's per-body storage allocated once, exactly (no doubling slack: a 10⁵-body pile). */
  int shape_total = 0;
  for (int i = 0; i < scene->body_count; i++) shape_total += scene->bodies[i].def.shape_count;
  if (status == CLT_OK) {
    status = clt_world_reserve(world, scene->body_count, shape_total);
    if (status != CLT_OK) snprintf(path, sizeof path, "bodies");
  }
  clt_shape_def_t shapes[CLT_MAX_SHAPES_PER_BODY];
  for (int i = 0; status == CLT_OK && i < scene->body_count; i++) {
    clt_body_def_t def = scene->bodies[i].def;
    for (int k = 0; k < def.shape_count; k++) {
      shapes[k] = def.shapes[k];
      if (shapes[k].material >= 0) shapes[k].material = material_index[shapes[k].material];
    }
    def.shapes = def.shape_count ? shapes : NULL;
    status = clt_world_add_body(world, &def, &ids[i]);
    if (status != CLT_OK) scn_join_index(path, "bodies", scene->bodies[i].entry);
  }
  for (int i = 0; status == CLT_OK && i < scene->joint_count; i++) {
    clt_joint_def_t def = scene->joints[i].def;
    def.body_a = ids[scene->joints[i].body_a];
    def.body_b = scene->joints[i].body_b < 0 ? clt_world_ground() : ids[scene->joints[i].body_b];
    clt_joint_id_t id;
    status = clt_world_add_joint(world, &def, &id);
    if (status != CLT_OK) scn_join_index(path, "joints", i);
  }
  for (int i = 0; status == CLT_OK && i < scene->force_count; i++) {
    clt_force_def_t def = scene->forces[i].def;
    def.body_a = ids[scene->forces[i].body_a];
    def.body_b = scene->forces[i].body_b < 0 ? clt_world_ground() : ids[scene->forces[i].body_b];
    if (scene->forces[i].rigid) {
      /* the stiff limit of the element (004 Thm 2.6): a distance joint between the same anchors,
       * of length rest_length (or the initial length) */
      clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_DISTANCE);
      jd.body_a = def.body_a;
      jd.body_b = def.body_b;
      memcpy(jd.anchor_a, def.anchor_a, sizeof jd.anchor_a);
      memcpy(jd.anchor_b, def.anchor_b, sizeof jd.anchor_b);
      jd.distance = def.rest_length;
      jd.name = def.name;
      clt_joint_id_t jid;
      status = clt_world_add_joint(world, &jd, &jid);
      if (status != CLT_OK) scn_join_index(path, "forces", i);
      continue;
    }
    clt_force_id_t id;
    status = clt_world_add_force(world, &def, &id);
    if (status != CLT_OK) scn_join_index(path, "forces", i);
  }
  free(material_index);
  free(ids);
  if (status != CLT_OK) return world_failure(scene, world, status, path, message, message_size);
  *out = world;
  return CLT_OK;
}

clt_status_t clt_scene_drive(const clt_scene_t *scene, clt_world_t *world) {
  if (!scene || !world) return CLT_ERR_INVALID_ARGUMENT;
  double t0 = clt_world_time(world), t = t0 + clt_world_time_step(world);
  /* the scene's joints are removed first: a body's removal is refused while a joint holds it */
  for (int i = 0; i < scene->joint_count && i < clt_world_joint_count(world); i++) {
    clt_joint_id_t id = clt_world_joint_at(world, i);
    if (id.index != CLT_NULL_INDEX && scene->joints[i].remove_at <= t0 + 0.5 * clt_world_time_step(world)) {
      clt_status_t st = clt_world_remove_joint(world, id);
      if (st != CLT_OK) return st;
    }
  }
  /* the scene's bodies are the world's first ones, in file order (grids expanded) */
  for (int k = 0; k < scene->body_removal_count; k++) {
    clt_body_id_t id = clt_world_body_at(world, scene->body_removal_index[k]);
    if (!clt_body_id_is_null(id) && scene->body_removal_time[k] <= t0 + 0.5 * clt_world_time_step(world)) {
      clt_status_t st = clt_world_remove_body(world, id);
      if (st != CLT_OK) return st;
    }
  }
  /* the scene's joints are the world's first ones, in file order (clt_scene_create_world) */
  for (int i = 0; i < scene->joint_count && i < clt_world_joint_count(world); i++) {
    const scene_joint_t *j = &scene->joints[i];
    clt_joint_id_t id = clt_world_joint_at(world, i);
    if (id.index == CLT_NULL_INDEX) continue; /* removed: nothing to drive */
    if (!j->scheduled) continue;
    clt_joint_info_t info;
    clt_status_t st = clt_joint_get_info(world, id, &info);
    if (st != CLT_OK) return st;
    clt_joint_motor_t motor = info.motor;
    motor.target_velocity = scn_function_value(&j->target_velocity, t);
    motor.target_position = scn_function_value(&j->target_position, t);
    motor.effort = scn_function_value(&j->effort, t0);
    st = clt_joint_set_motor(world, id, &motor);
    if (st != CLT_OK) return st;
  }
  return CLT_OK;
}
