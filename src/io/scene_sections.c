/* One reader per section of a scene file (docs/scene-format.md): method, law, materials, bodies and
 * their shapes and grids, joints, forces, output and colony, each into world.h definitions. */
#define _XOPEN_SOURCE 700 /* realpath: file paths stored absolute in the resolved scene */
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

/* ---------------------------------------------------------------------------------------------
 * Scene sections */


/* method.contact_model (SPEC.md §6): "default" | "relcp" | "snsd" | "multisphere:N", N odd in
 * 1…CONTACT_MULTISPHERE_MAX (the sphere count is part of the value so a sweep is one --set). */
#define CONTACT_MULTISPHERE_MAX 63

static bool read_contact_model(ctx_t *ctx, const cJSON *m, const char *parent, clt_method_t *method) {
  const char *s = NULL;
  if (!scn_read_string(ctx, m, parent, "contact_model", &s, false)) return false;
  if (!s) return true;
  char p[PATH_SIZE];
  scn_join_key(p, parent, "contact_model");
  static const char *const plain[] = {"default", "relcp", "snsd"};
  static const clt_contact_model_t plain_models[] = {CLT_CONTACT_MODEL_DEFAULT, CLT_CONTACT_MODEL_RELCP,
                                                     CLT_CONTACT_MODEL_SNSD};
  for (int i = 0; i < 3; i++) {
    if (strcmp(s, plain[i]) == 0) {
      method->contact_model = plain_models[i];
      return true;
    }
  }
  static const char prefix[] = "multisphere:";
  if (strncmp(s, prefix, sizeof prefix - 1) == 0) {
    const char *digits = s + sizeof prefix - 1;
    bool integer = *digits != '\0' && strlen(digits) <= 9;
    for (const char *c = digits; *c; c++) {
      if (*c < '0' || *c > '9') integer = false;
    }
    if (!integer) {
      return scn_fail(ctx, p, "%s: N must be an odd integer from 1 to %d", s, CONTACT_MULTISPHERE_MAX);
    }
    long count = strtol(digits, NULL, 10);
    if (count < 1 || count > CONTACT_MULTISPHERE_MAX) {
      return scn_fail(ctx, p, "%s: N must be between 1 and %d", s, CONTACT_MULTISPHERE_MAX);
    }
    if (count % 2 == 0) return scn_fail(ctx, p, "%s: N must be odd", s);
    method->contact_model = CLT_CONTACT_MODEL_MULTISPHERE;
    method->multisphere_count = (int)count;
    return true;
  }
  if (strcmp(s, "multisphere") == 0) {
    return scn_fail(ctx, p, "\"multisphere\" needs the sphere count: multisphere:N (N odd, 1 to %d)",
                CONTACT_MULTISPHERE_MAX);
  }
  return scn_fail(ctx, p, "unknown value \"%s\" (expected one of: default, relcp, snsd, multisphere:N)", s);
}

bool scn_read_method(ctx_t *ctx, const cJSON *m, clt_method_t *method) {
  static const char *const keys[] = {
      "scheme",     "gamma",          "alpha",      "post_repeats", "post_tolerance", "solver",
      "tolerance",  "max_iterations", "relaxation", "warm_start",   "active_set_eps", "friction_directions",
      "gyroscopic", "on_unconverged", "friction_cone", "contact_model", "overlap_tolerance",
      "relcp_max_iterations", "spring_projection", "absolute_tolerance", "velocity_tolerance",
      "divergence_energy_factor", "divergence_infeasibility_fraction", NULL};
  const char *p = "method";
  if (!scn_expect_object(ctx, m, p) || !scn_check_keys(ctx, m, p, keys, "method")) return false;
  int e;
  int64_t n;
  e = (int)method->scheme;
  if (!scn_read_enum(ctx, m, p, "scheme", clt_scheme_names, &e, false)) return false;
  method->scheme = (clt_scheme_t)e;
  if (!scn_read_number(ctx, m, p, "gamma", &method->gamma, RANGE_GAMMA, false)) return false;
  if (!scn_read_number(ctx, m, p, "alpha", &method->alpha, RANGE_NONNEGATIVE, false)) return false;
  n = method->post_repeats;
  if (!scn_read_int(ctx, m, p, "post_repeats", &n, 0, 1000, false)) return false;
  method->post_repeats = (int)n;
  if (!scn_read_number(ctx, m, p, "post_tolerance", &method->post_tolerance, RANGE_POSITIVE, false)) return false;
  e = (int)method->solver;
  if (!scn_read_enum(ctx, m, p, "solver", clt_solver_kind_names, &e, false)) return false;
  method->solver = (clt_solver_kind_t)e;
  if (!scn_read_number(ctx, m, p, "tolerance", &method->tolerance, RANGE_POSITIVE, false)) return false;
  n = method->max_iterations;
  if (!scn_read_int(ctx, m, p, "max_iterations", &n, 1, 1000000000, false)) return false;
  method->max_iterations = (int)n;
  if (!scn_read_number(ctx, m, p, "relaxation", &method->relaxation, RANGE_POSITIVE, false)) return false;
  if (method->relaxation >= 2) {
    char got[64];
    scn_format_number(method->relaxation, got, sizeof got);
    return scn_fail(ctx, "method.relaxation", "must be in (0, 2) (got %s)", got);
  }
  if (!scn_read_bool(ctx, m, p, "warm_start", &method->warm_start)) return false;
  if (!scn_read_bool(ctx, m, p, "absolute_tolerance", &method->absolute_tolerance)) return false;
  if (!scn_read_number(ctx, m, p, "velocity_tolerance", &method->velocity_tolerance, RANGE_NONNEGATIVE, false))
    return false;
  if (!scn_read_number(ctx, m, p, "active_set_eps", &method->active_set_eps, RANGE_NONNEGATIVE, false))
    return false;
  /* docs/stepping.md "Divergence": 0 turns a test off */
  if (!scn_read_number(ctx, m, p, "divergence_energy_factor", &method->divergence_energy_factor, RANGE_NONNEGATIVE,
                   false))
    return false;
  if (!scn_read_number(ctx, m, p, "divergence_infeasibility_fraction", &method->divergence_infeasibility_fraction,
                   RANGE_NONNEGATIVE, false))
    return false;
  n = method->friction_directions;
  if (!scn_read_int(ctx, m, p, "friction_directions", &n, 2, 1024, false)) return false;
  if (scn_get(m, "friction_directions") && ctx->dimension == 3 && (n < 4 || n % 2 != 0)) {
    return scn_fail(ctx, "method.friction_directions", "must be even and >= 4 in 3D (got %lld)", (long long)n);
  }
  if (scn_get(m, "friction_directions") && ctx->dimension == 2 && n != 2) {
    return scn_fail(ctx, "method.friction_directions", "is always 2 in a 2D scene (got %lld)", (long long)n);
  }
  method->friction_directions = (int)n;
  e = (int)method->gyroscopic;
  if (!scn_read_enum(ctx, m, p, "gyroscopic", clt_gyroscopic_names, &e, false)) return false;
  method->gyroscopic = (clt_gyroscopic_t)e;
  e = (int)method->on_unconverged;
  if (!scn_read_enum(ctx, m, p, "on_unconverged", clt_on_unconverged_names, &e, false)) return false;
  method->on_unconverged = (clt_on_unconverged_t)e;
  e = (int)method->friction_cone;
  if (!scn_read_enum(ctx, m, p, "friction_cone", clt_friction_cone_names, &e, false)) return false;
  method->friction_cone = (clt_friction_cone_t)e;
  if (method->scheme == CLT_SCHEME_RELAXED && method->solver == CLT_SOLVER_MPRGP &&
      method->friction_cone == CLT_CONE_CIRCULAR)
    return scn_fail(ctx, "method.solver", "mprgp handles bounds only: with scheme relaxed it needs friction_cone "
                                      "polyhedral (the circular cone is solved by bgs, apgd or bbpgd)");
  if (method->scheme == CLT_SCHEME_ANITESCU_HART && method->friction_cone == CLT_CONE_CIRCULAR &&
      method->solver != CLT_SOLVER_BGS && method->solver != CLT_SOLVER_LEMKE && method->solver != CLT_SOLVER_APGD &&
      method->solver != CLT_SOLVER_BBPGD)
    return scn_fail(ctx, "method.solver",
                "scheme anitescu-hart on the circular cone (Coulomb's law, s = 0) is solved by bgs, apgd or "
                "bbpgd (a fixed point of convex cone QPs): mprgp and newton do not apply");
  /* SPEC.md §6: contact model and ReLCP tolerances. */
  if (!read_contact_model(ctx, m, p, method)) return false;
  if (!scn_read_number(ctx, m, p, "overlap_tolerance", &method->overlap_tolerance, RANGE_POSITIVE, false))
    return false;
  n = method->relcp_max_iterations;
  if (!scn_read_int(ctx, m, p, "relcp_max_iterations", &n, 1, 1000000, false)) return false;
  method->relcp_max_iterations = (int)n;
  /* SPEC.md §4 nonlinear projection after the step: Gauss–Newton passes, 0 = off */
  n = method->spring_projection;
  if (!scn_read_int(ctx, m, p, "spring_projection", &n, 0, 1000, false)) return false;
  method->spring_projection = (int)n;
  return true;
}

/* Law of motion (SPEC.md §6.1): top-level "law", "viscosity", "planar". viscosity is read under
 * either law (a --set law=inertial must not invalidate an overdamped scene); only the overdamped
 * law uses it. */

bool scn_read_world_law(ctx_t *ctx, const cJSON *root, clt_world_def_t *wd) {
  int e = (int)wd->law;
  if (!scn_read_enum(ctx, root, "", "law", clt_law_names, &e, false)) return false;
  wd->law = (clt_law_t)e;
  if (!scn_read_number(ctx, root, "", "viscosity", &wd->viscosity, RANGE_POSITIVE, false)) return false;
  if (scn_get(root, "planar") && ctx->dimension == 2) {
    return scn_fail(ctx, "planar", "not allowed in a 2D scene (a 2D world is planar)");
  }
  if (!scn_read_bool(ctx, root, "", "planar", &wd->planar)) return false;
  /* The default contact rows (SPEC.md §1, with friction) know only the inertial, unconfined law
   * (docs/stepping.md "ReLCP and the overdamped law"): say so before anything runs. */
  if (wd->method.contact_model == CLT_CONTACT_MODEL_DEFAULT) {
    if (wd->law == CLT_LAW_OVERDAMPED) {
      return scn_fail(ctx, "law", "\"overdamped\" needs method.contact_model relcp, snsd or multisphere:N "
                              "(the default contact rows are inertial only)");
    }
    if (wd->planar) {
      return scn_fail(ctx, "planar", "needs method.contact_model relcp, snsd or multisphere:N (the default "
                                 "contact rows are unconfined)");
    }
  }
  return true;
}

bool scn_read_materials(ctx_t *ctx, const cJSON *mats) {
  clt_scene_t *scene = ctx->scene;
  if (!scn_expect_object(ctx, mats, "materials")) return false;
  int count = cJSON_GetArraySize(mats);
  scene->materials = calloc((size_t)(count > 0 ? count : 1), sizeof *scene->materials);
  scene->material_names = calloc((size_t)(count > 0 ? count : 1), sizeof *scene->material_names);
  if (!scene->materials || !scene->material_names) return scn_fail(ctx, "materials", "out of memory");
  static const char *const keys[] = {"friction", "restitution", "density", NULL};
  for (const cJSON *m = mats->child; m; m = m->next) {
    char p[PATH_SIZE];
    scn_join_key(p, "materials", m->string);
    for (const cJSON *d = mats->child; d != m; d = d->next) {
      if (strcmp(d->string, m->string) == 0) return scn_fail(ctx, p, "duplicate key");
    }
    if (m->string[0] == '\0') return scn_fail(ctx, p, "a material name must not be empty");
    if (strlen(m->string) > NAME_MAX_LENGTH) {
      return scn_fail(ctx, p, "a material name must be at most %d characters", NAME_MAX_LENGTH);
    }
    if (!scn_expect_object(ctx, m, p) || !scn_check_keys(ctx, m, p, keys, "a material")) return false;
    clt_material_def_t def = clt_default_material_def();
    if (!scn_read_number(ctx, m, p, "friction", &def.friction, RANGE_NONNEGATIVE, false)) return false;
    if (!scn_read_number(ctx, m, p, "restitution", &def.restitution, RANGE_FRACTION, false)) return false;
    if (!scn_read_number(ctx, m, p, "density", &def.density, RANGE_POSITIVE, false)) return false;
    int i = scene->material_count;
    scene->material_names[i] = scn_dup_string(m->string);
    if (!scene->material_names[i]) return scn_fail(ctx, p, "out of memory");
    def.name = scene->material_names[i];
    scene->materials[i] = def;
    if (strcmp(m->string, "default") == 0) scene->default_material = i;
    scene->material_count++;
  }
  return true;
}

static bool find_material(ctx_t *ctx, const cJSON *obj, const char *parent, int *out) {
  const char *name = NULL;
  if (!scn_read_string(ctx, obj, parent, "material", &name, false)) return false;
  if (!name) return true;
  clt_scene_t *scene = ctx->scene;
  for (int i = 0; i < scene->material_count; i++) {
    if (strcmp(scene->material_names[i], name) == 0) {
      *out = i;
      return true;
    }
  }
  char p[PATH_SIZE], list[300] = "";
  scn_join_key(p, parent, "material");
  for (int i = 0; i < scene->material_count; i++) {
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", scene->material_names[i]);
  }
  return scn_fail(ctx, p, "unknown material \"%s\" (defined: %s)", name, list[0] ? list : "none");
}

/* ---------------------------------------------------------------------------------------------
 * Fields a combination does not read (docs/scene-format.md "Fields the method does not use"):
 * a value the scene gives that the chosen contact model, scheme or solver never reads would be
 * silently ignored, so it is refused by name. A field's default is accepted wherever it is given
 * (the run is then the one the scene describes), so one --set still switches a scene's scheme or
 * model; the law-of-motion fields (viscosity, drag_*) stay allowed under either law, because a
 * scene is meant to run under both (docs/scene-format.md "Laws of motion and contact models"). */

static bool refuse_unused(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, bool differs,
                          const char *neutral, const char *by, const char *why) {
  const cJSON *item = obj ? scn_get(obj, key) : NULL;
  if (!item || !differs) return true;
  char p[PATH_SIZE], got[96];
  scn_join_key(p, parent, key);
  if (cJSON_IsString(item)) {
    snprintf(got, sizeof got, "\"%.60s\"", item->valuestring);
  } else {
    scn_describe(item, got, sizeof got);
  }
  return scn_fail(ctx, p, "is ignored by %s (%s); leave it out or give %s (got %s)", by, why, neutral, got);
}

bool scn_check_unused_fields(ctx_t *ctx, const cJSON *root) {
  const clt_world_def_t *wd = &ctx->scene->world_def;
  const clt_method_t *m = &wd->method;
  const clt_method_t d = clt_default_method();
  const cJSON *mj = scn_get(root, "method");
  const char *mp = "method";
  char by[128];
  /* SPEC.md §6: relcp, snsd and multisphere:N replace the scheme's pipeline (step.c) */
  if (m->contact_model != CLT_CONTACT_MODEL_DEFAULT) {
    const cJSON *cm = scn_get(mj, "contact_model");
    snprintf(by, sizeof by, "method.contact_model %.60s", cm && cJSON_IsString(cm) ? cm->valuestring : "relcp");
    const char *no_scheme = "the ReLCP step has no stabilization scheme, SPEC.md §6.1";
    const char *no_friction = "the ReLCP contact models are frictionless, SPEC.md §6";
    const cJSON *mats = scn_get(root, "materials");
    for (const cJSON *mat = mats ? mats->child : NULL; mat; mat = mat->next) {
      char p[PATH_SIZE];
      scn_join_key(p, "materials", mat->string);
      const cJSON *f = scn_get(mat, "friction"), *e = scn_get(mat, "restitution");
      if (!refuse_unused(ctx, mat, p, "friction", f && f->valuedouble > 0, "0", by, no_friction) ||
          !refuse_unused(ctx, mat, p, "restitution", e && e->valuedouble > 0, "0", by,
                         "the ReLCP contact models are plastic: no restitution, SPEC.md §6"))
        return false;
    }
    const int default_directions = ctx->dimension == 2 ? 2 : d.friction_directions;
    return refuse_unused(ctx, mj, mp, "scheme", m->scheme != d.scheme, "\"anitescu-hart\"", by, no_scheme) &&
           refuse_unused(ctx, mj, mp, "gamma", m->gamma != d.gamma, "1", by, no_scheme) &&
           refuse_unused(ctx, mj, mp, "alpha", m->alpha != d.alpha, "0", by, no_scheme) &&
           refuse_unused(ctx, mj, mp, "post_repeats", m->post_repeats != d.post_repeats, "0", by, no_scheme) &&
           refuse_unused(ctx, mj, mp, "post_tolerance", m->post_tolerance != d.post_tolerance, "1e-9", by,
                         no_scheme) &&
           refuse_unused(ctx, mj, mp, "spring_projection", m->spring_projection != 0, "0", by,
                         "the ReLCP step has no spring projection stage, docs/stepping.md") &&
           refuse_unused(ctx, mj, mp, "friction_directions", m->friction_directions != default_directions,
                         ctx->dimension == 2 ? "2" : "8", by, no_friction) &&
           refuse_unused(ctx, mj, mp, "friction_cone", m->friction_cone != d.friction_cone, "\"polyhedral\"", by,
                         no_friction) &&
           refuse_unused(ctx, mj, mp, "absolute_tolerance", m->absolute_tolerance, "false", by,
                         "a stop test of the cone block Gauss-Seidel of scheme relaxed") &&
           refuse_unused(ctx, mj, mp, "velocity_tolerance", m->velocity_tolerance != 0, "0", by,
                         "a stop test of the cone block Gauss-Seidel of scheme relaxed") &&
           refuse_unused(ctx, mj, mp, "relaxation", m->relaxation != d.relaxation && m->solver != CLT_SOLVER_BGS,
                         "1", by, "only solver bgs, a Gauss-Seidel, is over-relaxed") &&
           refuse_unused(ctx, mj, mp, "gyroscopic", m->gyroscopic == CLT_GYRO_SEMI_IMPLICIT,
                         "\"explicit\" or \"off\"", by,
                         "the ReLCP step takes the gyroscopic torque explicitly, SPEC.md §6.1");
  }
  /* The default contact model: the row schemes (SPEC.md §1) or the cone solve (scheme relaxed,
   * and anitescu-hart on the circular cone: docs/stepping.md "The relaxed scheme"). */
  bool circular_ah = m->scheme == CLT_SCHEME_ANITESCU_HART && m->friction_cone == CLT_CONE_CIRCULAR;
  bool cone = m->scheme == CLT_SCHEME_RELAXED || circular_ah;
  /* the cone block Gauss–Seidel (relaxed_bgs.c) solves for lemke, bgs and newton */
  bool cone_gs = cone && m->solver != CLT_SOLVER_APGD && m->solver != CLT_SOLVER_BBPGD && m->solver != CLT_SOLVER_MPRGP;
  snprintf(by, sizeof by, "scheme %s%s", clt_scheme_names[m->scheme], circular_ah ? " on the circular cone" : "");
  bool biased = m->scheme == CLT_SCHEME_ANITESCU_HART || m->scheme == CLT_SCHEME_RELAXED;
  bool spring_projection = !cone && m->spring_projection > 0;
  char solver_by[160];
  snprintf(solver_by, sizeof solver_by, "solver %s with %s", clt_solver_kind_names[m->solver], by);
  const char *relcp_by = "method.contact_model default";
  const char *relcp_why = "a tolerance of the ReLCP contact models, SPEC.md §6.2";
  const char *cone_stop = "a stop test of the cone block Gauss-Seidel: scheme relaxed, or anitescu-hart on the "
                          "circular cone, with solver bgs or lemke";
  return refuse_unused(ctx, mj, mp, "overlap_tolerance", m->overlap_tolerance != d.overlap_tolerance, "0.0001",
                       relcp_by, relcp_why) &&
         refuse_unused(ctx, mj, mp, "relcp_max_iterations", m->relcp_max_iterations != d.relcp_max_iterations, "50",
                       relcp_by, relcp_why) &&
         refuse_unused(ctx, mj, mp, "gamma", !biased && m->gamma != d.gamma, "1", by,
                       "γ scales the bias of anitescu-hart and relaxed only, SPEC.md §1") &&
         refuse_unused(ctx, mj, mp, "alpha", m->scheme != CLT_SCHEME_BAUMGARTE && m->alpha != d.alpha, "0", by,
                       "α is the bias of baumgarte only, SPEC.md §1") &&
         refuse_unused(ctx, mj, mp, "post_repeats", m->scheme != CLT_SCHEME_POST && m->post_repeats != d.post_repeats,
                       "0", by, "the repeats of scheme post's projection, SPEC.md §3") &&
         refuse_unused(ctx, mj, mp, "post_tolerance",
                       m->scheme != CLT_SCHEME_POST && !spring_projection && m->post_tolerance != d.post_tolerance,
                       "1e-9", by, "the target of scheme post's projection and of method.spring_projection") &&
         refuse_unused(ctx, mj, mp, "friction_cone", !biased && m->friction_cone != d.friction_cone,
                       "\"polyhedral\"", by, "the contact rows' cone is polyhedral; circular is for anitescu-hart "
                                             "and relaxed, docs/stepping.md") &&
         refuse_unused(ctx, mj, mp, "spring_projection", cone && m->spring_projection != 0, "0", by,
                       "the cone solve has no spring projection stage, docs/stepping.md") &&
         refuse_unused(ctx, mj, mp, "absolute_tolerance", !cone_gs && m->absolute_tolerance, "false", solver_by,
                       cone_stop) &&
         refuse_unused(ctx, mj, mp, "velocity_tolerance", !cone_gs && m->velocity_tolerance != 0, "0", solver_by,
                       cone_stop) &&
         refuse_unused(ctx, mj, mp, "relaxation",
                       !cone_gs && m->solver != CLT_SOLVER_BGS && m->relaxation != d.relaxation, "1", solver_by,
                       "ω over-relaxes the Gauss-Seidel solves only") &&
         refuse_unused(ctx, mj, mp, "gyroscopic", ctx->dimension == 2 && m->gyroscopic != d.gyroscopic,
                       "\"explicit\"", "a 2D scene", "a planar body has no gyroscopic torque");
}

/* Shape types as written in scene files; "box" in 2D becomes a polygon. */
typedef struct shape_kind_t {
  const char *name;
  int dimension;
  clt_shape_type_t type;
  const char *const *fields; /* type-specific keys */
} shape_kind_t;

static const char *const fields_radius[] = {"radius", NULL};
static const char *const fields_plane[] = {"point", "normal", NULL};
static const char *const fields_segment[] = {"a", "b", "radius", NULL};
static const char *const fields_semi_axes[] = {"semi_axes", NULL};
static const char *const fields_polygon[] = {"vertices", NULL};
static const char *const fields_box[] = {"half_extents", NULL};
static const char *const fields_capsule[] = {"radius", "length", NULL};
static const char *const fields_torus[] = {"major_radius", "minor_radius", NULL};
static const char *const fields_polyhedron[] = {"vertices", "faces", "mesh", "scale", NULL};
static const char *const fields_mesh[] = {"vertices", "triangles", "file", "scale", NULL};

static const shape_kind_t shape_kinds[] = {
    {"disk", 2, CLT_SHAPE_DISK, fields_radius},
    {"halfplane", 2, CLT_SHAPE_HALFPLANE, fields_plane},
    {"segment", 2, CLT_SHAPE_SEGMENT, fields_segment},
    {"ellipse", 2, CLT_SHAPE_ELLIPSE, fields_semi_axes},
    {"polygon", 2, CLT_SHAPE_POLYGON, fields_polygon},
    {"box", 2, CLT_SHAPE_POLYGON, fields_box},
    {"sphere", 3, CLT_SHAPE_SPHERE, fields_radius},
    {"halfspace", 3, CLT_SHAPE_HALFSPACE, fields_plane},
    {"box", 3, CLT_SHAPE_BOX, fields_box},
    {"capsule", 3, CLT_SHAPE_CAPSULE, fields_capsule},
    {"ellipsoid", 3, CLT_SHAPE_ELLIPSOID, fields_semi_axes},
    {"torus", 3, CLT_SHAPE_TORUS, fields_torus},
    {"cylinder", 3, CLT_SHAPE_CYLINDER, fields_capsule},
    {"polyhedron", 3, CLT_SHAPE_POLYHEDRON, fields_polyhedron},
    {"mesh", 3, CLT_SHAPE_MESH, fields_mesh},
};
#define SHAPE_KIND_COUNT ((int)(sizeof shape_kinds / sizeof shape_kinds[0]))

static bool read_polygon(ctx_t *ctx, const cJSON *s, const char *p, clt_shape_def_t *def) {
  const cJSON *v = scn_get(s, "vertices");
  if (!v) return scn_missing(ctx, p, "vertices");
  char pv[PATH_SIZE];
  scn_join_key(pv, p, "vertices");
  int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
  if (n < 3 || n > CLT_MAX_POLYGON_VERTICES) {
    return scn_fail(ctx, pv, "must be an array of 3 to %d [x, y] points", CLT_MAX_POLYGON_VERTICES);
  }
  int i = 0;
  for (const cJSON *c = v->child; c; c = c->next, i++) {
    char pi[PATH_SIZE];
    scn_join_index(pi, pv, i);
    if (!scn_vector_value(ctx, c, pi, 2, def->vertices[i])) return false;
  }
  def->vertex_count = n;
  /* Convex and counter-clockwise: every turn is to the left. */
  for (i = 0; i < n; i++) {
    const double *a = def->vertices[i], *b = def->vertices[(i + 1) % n], *c = def->vertices[(i + 2) % n];
    double cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
    if (!(cross > 0)) {
      return scn_fail(ctx, pv, "must be convex and counter-clockwise (turn at vertex %d is not to the left)",
                  (i + 1) % n);
    }
  }
  return true;
}

/* The path of a file named in the scene: relative to the scene file's directory (the current
 * directory for a scene from text). */
static void scene_relative(const ctx_t *ctx, const char *file, char *full, size_t size) {
  const char *slash = ctx->source ? strrchr(ctx->source, '/') : NULL;
  if (file[0] != '/' && slash)
    snprintf(full, size, "%.*s/%s", (int)(slash - ctx->source), ctx->source, file);
  else
    snprintf(full, size, "%s", file);
}

/* The resolved scene holds a file's absolute path, so that it reads again (a run file's stored scene,
 * a resume) from any directory. */
static void store_absolute(const cJSON *item, const char *full) {
  char *absolute = realpath(full, NULL);
  if (absolute) cJSON_SetValuestring((cJSON *)item, absolute);
  free(absolute);
}

/* "scale": a positive number or [sx, sy, sz] (default 1). */
static bool read_scale(ctx_t *ctx, const cJSON *s, const char *p, double scale[3]) {
  scale[0] = scale[1] = scale[2] = 1.0;
  const cJSON *sj = scn_get(s, "scale");
  if (sj && cJSON_IsNumber(sj)) {
    if (!scn_read_number(ctx, s, p, "scale", &scale[0], RANGE_POSITIVE, true)) return false;
    scale[1] = scale[2] = scale[0];
    return true;
  }
  return !sj || scn_read_vector(ctx, s, p, "scale", 3, scale, RANGE_POSITIVE, true);
}

/* A triangle mesh (docs/shapes.md "Meshes"): "vertices" and "triangles", or "file" (relative to the
 * scene), times "scale". */
static bool read_mesh(ctx_t *ctx, const cJSON *s, const char *p, clt_shape_def_t *def) {
  const cJSON *vj = scn_get(s, "vertices"), *tj = scn_get(s, "triangles"), *fj = scn_get(s, "file");
  char pv[PATH_SIZE], pt[PATH_SIZE], pf[PATH_SIZE];
  scn_join_key(pv, p, "vertices");
  scn_join_key(pt, p, "triangles");
  scn_join_key(pf, p, "file");
  if ((vj || tj) == (fj != NULL) || (vj && !tj) || (tj && !vj))
    return scn_fail(ctx, p, "a mesh takes either \"vertices\" and \"triangles\" or \"file\"");
  double scale[3];
  if (!read_scale(ctx, s, p, scale)) return false;
  double(*v)[3] = NULL;
  int(*t)[3] = NULL, nv = 0, nt = 0;
  char reason[512] = "";
  const char *where = pv;
  if (fj) {
    const char *file = NULL;
    if (!scn_read_string(ctx, s, p, "file", &file, true)) return false;
    char full[4096];
    scene_relative(ctx, file, full, sizeof full);
    if (clt_mesh_file_read(full, scale, &v, &nv, &t, &nt, reason, sizeof reason) != CLT_OK)
      return scn_fail(ctx, pf, "%s", reason);
    store_absolute(fj, full);
    where = pf;
  } else {
    nv = cJSON_IsArray(vj) ? cJSON_GetArraySize(vj) : -1;
    nt = cJSON_IsArray(tj) ? cJSON_GetArraySize(tj) : -1;
    if (nv < 3) return scn_fail(ctx, pv, "must be an array of at least 3 [x, y, z] points");
    if (nt < 1) return scn_fail(ctx, pt, "must be an array of [i, j, k] vertex index triples");
    v = malloc((size_t)nv * sizeof *v);
    t = malloc((size_t)nt * sizeof *t);
    bool ok = v && t;
    int i = 0;
    for (const cJSON *c = vj->child; ok && c; c = c->next, i++) {
      char pi[PATH_SIZE];
      scn_join_index(pi, pv, i);
      ok = scn_vector_value(ctx, c, pi, 3, v[i]);
      for (int k = 0; ok && k < 3; k++) v[i][k] *= scale[k];
    }
    i = 0;
    for (const cJSON *c = tj->child; ok && c; c = c->next, i++) {
      char pi[PATH_SIZE];
      scn_join_index(pi, pt, i);
      int k = 0;
      ok = cJSON_IsArray(c) && cJSON_GetArraySize(c) == 3;
      for (const cJSON *e = ok ? c->child : NULL; ok && e; e = e->next, k++) {
        double d = cJSON_IsNumber(e) ? e->valuedouble : -1.0;
        ok = d >= 0 && d < nv && d == floor(d);
        if (ok) t[i][k] = (int)d;
      }
      if (!ok) {
        free(v);
        free(t);
        return scn_fail(ctx, pi, "must be 3 vertex indices, integers in [0, %d)", nv);
      }
    }
    if (!ok) {
      free(v);
      free(t);
      return ctx->failed ? false : scn_fail(ctx, p, "out of memory");
    }
    where = pt;
  }
  clt_mesh_t *mesh = NULL;
  clt_status_t status = clt_mesh_create((const double(*)[3])v, nv, (const int(*)[3])t, nt, &mesh, reason, sizeof reason);
  free(v);
  free(t);
  if (status != CLT_OK) return scn_fail(ctx, where, "%s", reason);
  def->mesh = mesh; /* the scene's reference, released with its bodies */
  return true;
}

/* A polyhedron (docs/shapes.md): "vertices" (hulled, or with "faces" checked as given) or "mesh" (a
 * file whose vertices are hulled, the path relative to the scene file), times "scale". */
static bool read_polyhedron(ctx_t *ctx, const cJSON *s, const char *p, clt_shape_def_t *def) {
  const cJSON *vj = scn_get(s, "vertices"), *fj = scn_get(s, "faces"), *mj = scn_get(s, "mesh");
  char pv[PATH_SIZE], pf[PATH_SIZE], pm[PATH_SIZE], ps[PATH_SIZE];
  scn_join_key(pv, p, "vertices");
  scn_join_key(pf, p, "faces");
  scn_join_key(pm, p, "mesh");
  scn_join_key(ps, p, "scale");
  if (!vj == !mj) return scn_fail(ctx, p, "a polyhedron takes either \"vertices\" (and optionally \"faces\") or \"mesh\"");
  if (fj && !vj) return scn_fail(ctx, pf, "faces go with \"vertices\" (a mesh file's vertices are hulled)");
  double scale[3];
  if (!read_scale(ctx, s, p, scale)) return false;
  char reason[512] = "";
  clt_convex_t *convex = NULL;
  clt_status_t status;
  if (mj) {
    const char *file = NULL;
    if (!scn_read_string(ctx, s, p, "mesh", &file, true)) return false;
    char full[4096];
    scene_relative(ctx, file, full, sizeof full);
    status = clt_convex_from_file(full, scale, &convex, reason, sizeof reason);
    if (status != CLT_OK) return scn_fail(ctx, pm, "%s", reason);
    store_absolute(mj, full);
  } else {
    int n = cJSON_IsArray(vj) ? cJSON_GetArraySize(vj) : -1;
    if (n < 4 || n > 1000000) return scn_fail(ctx, pv, "must be an array of 4 to 10^6 [x, y, z] points");
    double(*v)[3] = malloc((size_t)n * sizeof *v);
    if (!v) return scn_fail(ctx, pv, "out of memory");
    int i = 0;
    for (const cJSON *c = vj->child; c; c = c->next, i++) {
      char pi[PATH_SIZE];
      scn_join_index(pi, pv, i);
      if (!scn_vector_value(ctx, c, pi, 3, v[i])) {
        free(v);
        return false;
      }
      for (int k = 0; k < 3; k++) v[i][k] *= scale[k];
    }
    if (!fj) {
      status = clt_convex_from_points((const double(*)[3])v, n, &convex, reason, sizeof reason);
      free(v);
      if (status != CLT_OK) return scn_fail(ctx, pv, "%s", reason);
    } else {
      int nf = cJSON_IsArray(fj) ? cJSON_GetArraySize(fj) : -1, total = 0;
      if (nf < 4) {
        free(v);
        return scn_fail(ctx, pf, "must be an array of at least 4 faces, each an array of vertex indices");
      }
      for (const cJSON *f = fj->child; f; f = f->next) total += cJSON_IsArray(f) ? cJSON_GetArraySize(f) : 0;
      int *start = malloc((size_t)(nf + 1) * sizeof *start), *idx = malloc((size_t)(total > 0 ? total : 1) * sizeof *idx);
      bool ok = start && idx;
      int fi = 0, k = 0;
      for (const cJSON *f = fj->child; ok && f; f = f->next, fi++) {
        char pi[PATH_SIZE];
        scn_join_index(pi, pf, fi);
        if (!cJSON_IsArray(f) || cJSON_GetArraySize(f) < 3) {
          ok = scn_fail(ctx, pi, "must be an array of at least 3 vertex indices");
          break;
        }
        start[fi] = k;
        for (const cJSON *e = f->child; e; e = e->next) {
          double d = cJSON_IsNumber(e) ? e->valuedouble : -1.0;
          if (!(d >= 0 && d < n && d == floor(d))) {
            ok = scn_fail(ctx, pi, "vertex indices must be integers in [0, %d)", n);
            break;
          }
          idx[k++] = (int)d;
        }
      }
      if (ok) {
        start[nf] = k;
        status = clt_convex_from_faces((const double(*)[3])v, n, idx, start, nf, &convex, reason, sizeof reason);
        if (status != CLT_OK) ok = scn_fail(ctx, pf, "%s", reason);
      }
      free(start);
      free(idx);
      free(v);
      if (!ok) return false;
    }
  }
  def->convex = convex; /* the scene's reference, released with its bodies */
  return true;
}

static bool read_shape(ctx_t *ctx, const cJSON *s, const char *p, clt_body_type_t body_type,
                       int body_material, clt_shape_def_t *out) {
  if (!scn_expect_object(ctx, s, p)) return false;
  const char *type = NULL;
  if (!scn_read_string(ctx, s, p, "type", &type, true)) return false;
  const shape_kind_t *kind = NULL;
  for (int i = 0; i < SHAPE_KIND_COUNT; i++) {
    if (strcmp(shape_kinds[i].name, type) == 0 && shape_kinds[i].dimension == ctx->dimension) {
      kind = &shape_kinds[i];
    }
  }
  char pt[PATH_SIZE];
  scn_join_key(pt, p, "type");
  if (!kind) {
    char list[200] = "";
    for (int i = 0; i < SHAPE_KIND_COUNT; i++) {
      if (shape_kinds[i].dimension != ctx->dimension) continue;
      size_t len = strlen(list);
      snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", shape_kinds[i].name);
    }
    for (int i = 0; i < SHAPE_KIND_COUNT; i++) {
      if (strcmp(shape_kinds[i].name, type) == 0) {
        return scn_fail(ctx, pt, "\"%s\" is a %dD shape; a %dD scene allows: %s", type, shape_kinds[i].dimension,
                    ctx->dimension, list);
      }
    }
    return scn_fail(ctx, pt, "unknown shape type \"%s\" (a %dD scene allows: %s)", type, ctx->dimension, list);
  }
  const char *keys[20];
  int k = 0;
  keys[k++] = "type";
  keys[k++] = "material";
  keys[k++] = "position";
  keys[k++] = ctx->dimension == 2 ? "angle" : "orientation";
  for (int i = 0; kind->fields[i]; i++) keys[k++] = kind->fields[i];
  keys[k++] = "category";
  keys[k++] = "mask";
  keys[k++] = "group";
  keys[k] = NULL;
  char what[64];
  snprintf(what, sizeof what, "a %s shape", kind->name);
  if (!scn_check_keys(ctx, s, p, keys, what)) return false;

  clt_shape_def_t def = clt_default_shape_def(kind->type);
  def.material = body_material;
  if (!find_material(ctx, s, p, &def.material)) return false;
  if (!scn_read_dvec(ctx, s, p, "position", def.local_position, RANGE_ANY, false)) return false;
  if (!scn_read_angle(ctx, s, p, &def.local_angle)) return false;
  if (!scn_read_orientation(ctx, s, p, "orientation", def.local_orientation)) return false;
  /* collision filtering (world.h clt_collision_filter_t): bit sets as unsigned 32-bit integers */
  int64_t category = def.filter.category, mask = def.filter.mask, group = def.filter.group;
  if (!scn_read_int(ctx, s, p, "category", &category, 0, UINT32_MAX, false)) return false;
  if (!scn_read_int(ctx, s, p, "mask", &mask, 0, UINT32_MAX, false)) return false;
  if (!scn_read_int(ctx, s, p, "group", &group, INT32_MIN, INT32_MAX, false)) return false;
  def.filter.category = (uint32_t)category;
  def.filter.mask = (uint32_t)mask;
  def.filter.group = (int32_t)group;

  bool plane = kind->type == CLT_SHAPE_HALFPLANE || kind->type == CLT_SHAPE_HALFSPACE || kind->type == CLT_SHAPE_MESH;
  if (plane && body_type == CLT_BODY_DYNAMIC) {
    return scn_fail(ctx, pt, "a %s belongs to a static or kinematic body", kind->name);
  }
  switch (kind->type) {
    case CLT_SHAPE_DISK:
    case CLT_SHAPE_SPHERE:
      if (!scn_read_number(ctx, s, p, "radius", &def.radius, RANGE_POSITIVE, true)) return false;
      break;
    case CLT_SHAPE_HALFPLANE:
    case CLT_SHAPE_HALFSPACE: {
      double normal[3] = {0, 0, 0};
      if (!scn_read_dvec(ctx, s, p, "point", def.point, RANGE_ANY, false)) return false;
      if (!scn_read_dvec(ctx, s, p, "normal", normal, RANGE_ANY, true)) return false;
      if (!scn_nonzero_vector(ctx, s, p, "normal", normal, ctx->dimension)) return false;
      double len = sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
      for (int i = 0; i < 3; i++) def.normal[i] = normal[i] / len;
      break;
    }
    case CLT_SHAPE_SEGMENT:
      if (!scn_read_dvec(ctx, s, p, "a", def.a, RANGE_ANY, true)) return false;
      if (!scn_read_dvec(ctx, s, p, "b", def.b, RANGE_ANY, true)) return false;
      def.radius = 0;
      if (!scn_read_number(ctx, s, p, "radius", &def.radius, RANGE_NONNEGATIVE, false)) return false;
      if (def.a[0] == def.b[0] && def.a[1] == def.b[1]) return scn_fail(ctx, p, "a and b must differ");
      break;
    case CLT_SHAPE_ELLIPSE:
    case CLT_SHAPE_ELLIPSOID:
      if (!scn_read_dvec(ctx, s, p, "semi_axes", def.semi_axes, RANGE_POSITIVE, true)) return false;
      break;
    case CLT_SHAPE_POLYGON:
      if (strcmp(kind->name, "box") == 0) {
        double he[2];
        if (!scn_read_vector(ctx, s, p, "half_extents", 2, he, RANGE_POSITIVE, true)) return false;
        const double corners[4][2] = {{-he[0], -he[1]}, {he[0], -he[1]}, {he[0], he[1]}, {-he[0], he[1]}};
        for (int i = 0; i < 4; i++) {
          def.vertices[i][0] = corners[i][0];
          def.vertices[i][1] = corners[i][1];
        }
        def.vertex_count = 4;
      } else if (!read_polygon(ctx, s, p, &def)) {
        return false;
      }
      break;
    case CLT_SHAPE_BOX:
      if (!scn_read_vector(ctx, s, p, "half_extents", 3, def.half_extents, RANGE_POSITIVE, true)) return false;
      break;
    case CLT_SHAPE_CAPSULE:
      if (!scn_read_number(ctx, s, p, "radius", &def.radius, RANGE_POSITIVE, true)) return false;
      if (!scn_read_number(ctx, s, p, "length", &def.length, RANGE_NONNEGATIVE, true)) return false;
      break;
    case CLT_SHAPE_CYLINDER:
      if (!scn_read_number(ctx, s, p, "radius", &def.radius, RANGE_POSITIVE, true)) return false;
      if (!scn_read_number(ctx, s, p, "length", &def.length, RANGE_POSITIVE, true)) return false;
      break;
    case CLT_SHAPE_POLYHEDRON:
      if (!read_polyhedron(ctx, s, p, &def)) return false;
      break;
    case CLT_SHAPE_MESH:
      if (!read_mesh(ctx, s, p, &def)) return false;
      break;
    case CLT_SHAPE_TORUS:
      if (!scn_read_number(ctx, s, p, "major_radius", &def.major_radius, RANGE_POSITIVE, true)) return false;
      if (!scn_read_number(ctx, s, p, "minor_radius", &def.minor_radius, RANGE_POSITIVE, true)) return false;
      if (!(def.minor_radius < def.major_radius)) {
        char pm[PATH_SIZE];
        scn_join_key(pm, p, "minor_radius");
        return scn_fail(ctx, pm, "must be < major_radius");
      }
      break;
    default: break;
  }
  *out = def;
  return true;
}

/* "keyframes": [{time, position, orientation (3D) | angle (2D)}, ...] and "interpolation" of a
 * keyframed kinematic body (world.h clt_motion_t), into body->keyframes. */
static bool read_keyframes(ctx_t *ctx, const cJSON *m, const char *p, scene_body_t *body, clt_motion_t *motion) {
  char pk[PATH_SIZE];
  scn_join_key(pk, p, "keyframes");
  const cJSON *list = scn_get(m, "keyframes");
  int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : 0;
  if (n < 1) return scn_fail(ctx, pk, "must be a non-empty array of keyframes {time, position, %s}",
                             ctx->dimension == 2 ? "angle" : "orientation");
  if (n > CLT_MAX_KEYFRAMES) return scn_fail(ctx, pk, "at most %d keyframes (got %d)", CLT_MAX_KEYFRAMES, n);
  static const char *const other[] = {"velocity", "amplitude", "frequency", "phase", NULL};
  for (int k = 0; other[k]; k++)
    if (scn_get(m, other[k])) {
      char po[PATH_SIZE];
      scn_join_key(po, p, other[k]);
      return scn_fail(ctx, po, "keyframes set the whole motion: leave out %s", other[k]);
    }
  body->keyframes = calloc((size_t)n, sizeof *body->keyframes);
  if (!body->keyframes) return scn_fail(ctx, pk, "out of memory");
  static const char *const keys3[] = {"time", "position", "orientation", NULL};
  static const char *const keys2[] = {"time", "position", "angle", NULL};
  for (int k = 0; k < n; k++) {
    char pe[PATH_SIZE], pt[PATH_SIZE];
    scn_join_index(pe, pk, k);
    const cJSON *e = cJSON_GetArrayItem(list, k);
    if (!scn_expect_object(ctx, e, pe) ||
        !scn_check_keys(ctx, e, pe, ctx->dimension == 2 ? keys2 : keys3, "a keyframe"))
      return false;
    clt_keyframe_t *f = &body->keyframes[k];
    f->orientation[0] = 1.0; /* identity unless given */
    if (!scn_read_number(ctx, e, pe, "time", &f->time, RANGE_NONNEGATIVE, true) ||
        !scn_read_dvec(ctx, e, pe, "position", f->position, RANGE_ANY, true))
      return false;
    if (ctx->dimension == 2 ? !scn_read_angle(ctx, e, pe, &f->angle)
                            : !scn_read_orientation(ctx, e, pe, "orientation", f->orientation))
      return false;
    scn_join_key(pt, pe, "time");
    if (k > 0 && !(f->time > body->keyframes[k - 1].time))
      return scn_fail(ctx, pt, "keyframes must be in increasing time: %g s is not after the %g s of keyframe %d",
                      f->time, body->keyframes[k - 1].time, k - 1);
  }
  motion->keyframes = body->keyframes;
  motion->keyframe_count = n;
  static const char *const modes[] = {"linear", "cubic", NULL};
  int mode = 0;
  if (!scn_read_enum(ctx, m, p, "interpolation", modes, &mode, false)) return false;
  motion->interpolation = mode == 1 ? CLT_INTERPOLATE_CUBIC : CLT_INTERPOLATE_LINEAR;
  return true;
}

static bool read_motion(ctx_t *ctx, const cJSON *m, const char *p, scene_body_t *body, clt_motion_t *motion) {
  static const char *const keys[] = {"velocity", "amplitude", "frequency", "phase", "keyframes", "interpolation", NULL};
  if (!scn_expect_object(ctx, m, p) || !scn_check_keys(ctx, m, p, keys, "motion")) return false;
  if (scn_get(m, "keyframes")) return read_keyframes(ctx, m, p, body, motion);
  if (scn_get(m, "interpolation")) {
    char pi[PATH_SIZE];
    scn_join_key(pi, p, "interpolation");
    return scn_fail(ctx, pi, "is for keyframes");
  }
  if (!scn_read_dvec(ctx, m, p, "velocity", motion->velocity, RANGE_ANY, false)) return false;
  if (!scn_read_dvec(ctx, m, p, "amplitude", motion->amplitude, RANGE_ANY, false)) return false;
  if (!scn_read_number(ctx, m, p, "frequency", &motion->frequency, RANGE_NONNEGATIVE, false)) return false;
  if (!scn_read_number(ctx, m, p, "phase", &motion->phase, RANGE_ANY, false)) return false;
  return true;
}

/* Overdamped drag (SPEC.md §6.1) about the principal axes: both or neither (neither: the library
 * computes it from the shapes and the viscosity), every component > 0 (zero drag would be an
 * infinite mobility), dynamic bodies only. */
static bool read_drag(ctx_t *ctx, const cJSON *b, const char *p, clt_body_def_t *def) {
  const cJSON *lin = scn_get(b, "drag_linear"), *ang = scn_get(b, "drag_angular");
  if (!lin && !ang) return true;
  char pk[PATH_SIZE];
  scn_join_key(pk, p, lin ? "drag_linear" : "drag_angular");
  if (def->type != CLT_BODY_DYNAMIC) {
    return scn_fail(ctx, pk, "not allowed for a %s body (only dynamic bodies move by drag)",
                clt_body_type_names[def->type]);
  }
  if (!lin || !ang) {
    scn_join_key(pk, p, lin ? "drag_angular" : "drag_linear");
    return scn_fail(ctx, pk, "required when %s is given (give both drags or neither)",
                lin ? "drag_linear" : "drag_angular");
  }
  if (!scn_read_dvec(ctx, b, p, "drag_linear", def->drag_linear, RANGE_POSITIVE, true)) return false;
  return scn_read_angular(ctx, b, p, "drag_angular", def->drag_angular, RANGE_POSITIVE);
}

/* ---------------------------------------------------------------------------------------------
 * Body grids (docs/scene-format.md "Body grids"): bodies[i].grid makes one entry stand for many
 * copies of the body on a lattice, so a 10^5-grain pile is a short file. The resolved scene keeps
 * the grid (not its expansion): the copies are a pure function of the grid fields and of the
 * generator below, so the stored scene rebuilds the same world bit for bit and stays small. */


/* The jitter generator: xorshift64* (Marsaglia / Vigna), state = seed XOR 0x9E3779B97F4A7C15
 * (never zero for seeds < 2^53). Portable integer arithmetic, so every platform and thread count
 * makes the same grid; seed 0 gives the sequence bench/peers uses for its piles. */
double scn_uniform(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  uint64_t r = x * UINT64_C(2685821657736338717);
  return (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [−1, 1) */
}

/* Reads and checks bodies[index].grid (absent: one body, spec->number = 1). */
bool scn_read_grid(ctx_t *ctx, const cJSON *b, int index, grid_spec_t *spec) {
  memset(spec, 0, sizeof *spec);
  for (int k = 0; k < 3; k++) spec->count[k] = 1;
  spec->number = 1;
  if (!cJSON_IsObject(b)) return true; /* scn_read_body reports it */
  const cJSON *g = scn_get(b, "grid");
  if (scn_get(b, "packing")) {
    if (g) {
      char pb[PATH_SIZE];
      scn_join_index(pb, "bodies", index);
      return scn_fail(ctx, pb, "give \"grid\" or \"packing\", not both");
    }
    return scn_read_packing(ctx, b, index, spec);
  }
  if (!g) return true;
  char p[PATH_SIZE], pk[PATH_SIZE];
  scn_join_index(p, "bodies", index);
  scn_join_key(p, p, "grid");
  static const char *const keys[] = {"count", "spacing", "number", "jitter", "seed", NULL};
  if (!scn_expect_object(ctx, g, p) || !scn_check_keys(ctx, g, p, keys, "a grid")) return false;
  int dim = ctx->dimension;
  double count[3] = {1, 1, 1};
  if (!scn_read_dvec(ctx, g, p, "count", count, RANGE_ANY, true)) return false;
  double product = 1;
  for (int k = 0; k < dim; k++) {
    scn_join_key(pk, p, "count");
    scn_join_index(pk, pk, k);
    char got[64];
    scn_format_number(count[k], got, sizeof got);
    if (count[k] != floor(count[k])) return scn_fail(ctx, pk, "must be an integer (got %s)", got);
    if (count[k] < 1 || count[k] > GRID_MAX_BODIES)
      return scn_fail(ctx, pk, "must be between 1 and %d (got %s)", GRID_MAX_BODIES, got);
    spec->count[k] = (int64_t)count[k];
    product *= count[k];
  }
  if (!scn_read_dvec(ctx, g, p, "spacing", spec->spacing, RANGE_POSITIVE, true)) return false;
  const cJSON *jitter = scn_get(g, "jitter");
  if (jitter && cJSON_IsNumber(jitter)) {
    double a = 0;
    if (!scn_read_number(ctx, g, p, "jitter", &a, RANGE_NONNEGATIVE, false)) return false;
    for (int k = 0; k < dim; k++) spec->jitter[k] = a;
  } else if (jitter) {
    if (!cJSON_IsArray(jitter)) {
      scn_join_key(pk, p, "jitter");
      char got[64];
      scn_describe(jitter, got, sizeof got);
      return scn_fail(ctx, pk, "must be a number or an array of %d numbers (got %s)", dim, got);
    }
    if (!scn_read_dvec(ctx, g, p, "jitter", spec->jitter, RANGE_NONNEGATIVE, false)) return false;
  }
  spec->number = (int64_t)fmin(product, (double)GRID_MAX_BODIES + 1);
  if (scn_get(g, "number")) {
    int64_t max = product < (double)GRID_MAX_BODIES ? (int64_t)product : GRID_MAX_BODIES;
    if (!scn_read_int(ctx, g, p, "number", &spec->number, 1, max, false)) return false;
  } else if (product > GRID_MAX_BODIES) {
    scn_join_key(pk, p, "count");
    char got[64];
    scn_format_number(product, got, sizeof got);
    return scn_fail(ctx, pk, "makes %s bodies; at most %d (or give \"number\")", got, GRID_MAX_BODIES);
  }
  if (!scn_read_int(ctx, g, p, "seed", &spec->seed, 0, GRID_MAX_SEED, false)) return false;
  return true;
}

/* Fills bodies[slot + 1 … slot + number − 1] from the template read into bodies[slot] and moves
 * every copy to its lattice point: position + (i dx, j dy, k dz) + jitter. Copies share the
 * template's shape array; named bodies get the copy index as a suffix ("grain" → "grain0" …). */
bool scn_check_copy_names(ctx_t *ctx, const char *name, int64_t number, const char *what, const char *body_path) {
  if (!name) return true;
  char digits[32];
  int width = snprintf(digits, sizeof digits, "%lld", (long long)(number - 1));
  if (strlen(name) + (size_t)width > NAME_MAX_LENGTH) {
    char pn[PATH_SIZE];
    scn_join_key(pn, body_path, "name");
    return scn_fail(ctx, pn, "must be at most %d characters with the %s index appended (got %zu + %d)",
                    NAME_MAX_LENGTH, what, strlen(name), width);
  }
  return true;
}

bool scn_name_copy(ctx_t *ctx, scene_body_t *body, const char *base, int64_t n, const char *body_path) {
  char name[NAME_MAX_LENGTH + 24]; /* scn_check_copy_names checked the length; room for any index */
  snprintf(name, sizeof name, "%s%lld", base, (long long)n);
  char *copy = scn_dup_string(name);
  if (!copy) return scn_fail(ctx, body_path, "out of memory");
  if (n == 0) free(body->name); /* the template's own name becomes "<name>0" */
  body->name = copy;
  body->def.name = body->name;
  return true;
}

static bool expand_grid(ctx_t *ctx, const grid_spec_t *spec, int index, int slot) {
  clt_scene_t *scene = ctx->scene;
  scene_body_t template = scene->bodies[slot];
  char p[PATH_SIZE], base_name[NAME_MAX_LENGTH + 1] = "";
  scn_join_index(p, "bodies", index);
  if (template.name) snprintf(base_name, sizeof base_name, "%s", template.name);
  if (!scn_check_copy_names(ctx, template.name, spec->number, "grid", p)) return false;
  uint64_t state = (uint64_t)spec->seed ^ UINT64_C(0x9E3779B97F4A7C15);
  int dim = ctx->dimension;
  for (int64_t n = 0; n < spec->number; n++) {
    scene_body_t *body = &scene->bodies[slot + n];
    if (n > 0) {
      *body = template;
      body->shared_shapes = true;
      body->name = NULL;
    }
    if (template.name && !scn_name_copy(ctx, body, base_name, n, p)) return false;
    int64_t index_of[3] = {n % spec->count[0], (n / spec->count[0]) % spec->count[1],
                           n / (spec->count[0] * spec->count[1])};
    for (int k = 0; k < dim; k++) {
      double x = template.def.position[k] + (double)index_of[k] * spec->spacing[k];
      if (spec->jitter[k] > 0) x += spec->jitter[k] * scn_uniform(&state);
      body->def.position[k] = x;
    }
  }
  return true;
}

bool scn_read_body(ctx_t *ctx, const cJSON *b, int index, int slot, const grid_spec_t *grid) {
  clt_scene_t *scene = ctx->scene;
  scene_body_t *body = &scene->bodies[slot];
  body->entry = index;
  char p[PATH_SIZE];
  scn_join_index(p, "bodies", index);
  static const char *const keys[] = {
      "name", "type",    "position", "angle", "orientation", "velocity", "angular_velocity",
      "mass", "inertia", "material", "shape", "shapes",      "motion",   "drag_linear",
      "drag_angular", "grid", "packing", "remove_at", NULL};
  if (!scn_expect_object(ctx, b, p) || !scn_check_keys(ctx, b, p, keys, "a body")) return false;
  body->remove_at = NAN;
  if (!scn_read_number(ctx, b, p, "remove_at", &body->remove_at, RANGE_NONNEGATIVE, false)) return false;
  clt_body_def_t def = clt_default_body_def();
  const char *name = NULL;
  if (!scn_read_name(ctx, b, p, &name)) return false;
  if (name) {
    char pn[PATH_SIZE];
    scn_join_key(pn, p, "name");
    if (strcmp(name, "world") == 0) return scn_fail(ctx, pn, "\"world\" is reserved for the ground");
    body->name = scn_dup_string(name);
    if (!body->name) return scn_fail(ctx, p, "out of memory");
  }
  int type = CLT_BODY_DYNAMIC;
  if (!scn_read_enum(ctx, b, p, "type", clt_body_type_names, &type, false)) return false;
  def.type = (clt_body_type_t)type;
  if (!scn_read_dvec(ctx, b, p, "position", def.position, RANGE_ANY, false)) return false;
  if (!scn_read_angle(ctx, b, p, &def.angle)) return false;
  if (!scn_read_orientation(ctx, b, p, "orientation", def.orientation)) return false;
  if (!scn_read_dvec(ctx, b, p, "velocity", def.velocity, RANGE_ANY, false)) return false;
  if (!scn_read_angular(ctx, b, p, "angular_velocity", def.angular_velocity, RANGE_ANY)) return false;

  char pk[PATH_SIZE];
  if (def.type != CLT_BODY_DYNAMIC) {
    const char *kind = clt_body_type_names[def.type];
    static const char *const dynamic_only[] = {"mass", "inertia", NULL};
    for (int i = 0; dynamic_only[i]; i++) {
      if (scn_get(b, dynamic_only[i])) {
        scn_join_key(pk, p, dynamic_only[i]);
        return scn_fail(ctx, pk, "not allowed for a %s body (its mass is infinite)", kind);
      }
    }
    if (scn_get(b, "velocity")) {
      scn_join_key(pk, p, "velocity");
      return scn_fail(ctx, pk, "not allowed for a %s body (%s)", kind,
                  def.type == CLT_BODY_STATIC ? "it never moves" : "use motion.velocity");
    }
    if (def.type == CLT_BODY_STATIC && scn_get(b, "angular_velocity")) {
      scn_join_key(pk, p, "angular_velocity");
      return scn_fail(ctx, pk, "not allowed for a static body (it never moves)");
    }
  }
  if (scn_get(b, "motion")) {
    scn_join_key(pk, p, "motion");
    if (def.type != CLT_BODY_KINEMATIC)
      return scn_fail(ctx, pk, "only kinematic bodies have a prescribed motion");
    if (!read_motion(ctx, scn_get(b, "motion"), pk, body, &def.motion)) return false;
    if (def.motion.keyframe_count > 0 && (scn_get(b, "grid") || scn_get(b, "packing")))
      return scn_fail(ctx, pk, "a keyframed body cannot be a %s (its keyframes are world poses)",
                      scn_get(b, "grid") ? "grid" : "packing");
    if (def.motion.keyframe_count > 0 && scn_get(b, "angular_velocity")) {
      scn_join_key(pk, p, "angular_velocity");
      return scn_fail(ctx, pk, "not allowed with motion.keyframes (they set the whole motion)");
    }
  }

  /* Mass properties: explicit (mass and inertia), else from the shapes' densities. */
  if (def.type == CLT_BODY_DYNAMIC) {
    if (scn_get(b, "mass")) {
      if (!scn_read_number(ctx, b, p, "mass", &def.mass, RANGE_POSITIVE, true)) return false;
      if (!scn_get(b, "inertia")) {
        scn_join_key(pk, p, "inertia");
        return scn_fail(ctx, pk, "required when mass is given (principal moments, kg m^2)");
      }
      if (!scn_read_angular(ctx, b, p, "inertia", def.inertia, RANGE_POSITIVE)) return false;
    } else if (scn_get(b, "inertia")) {
      scn_join_key(pk, p, "inertia");
      return scn_fail(ctx, pk, "needs mass as well (or neither: mass from the shapes' densities)");
    }
  }

  if (!read_drag(ctx, b, p, &def)) return false;

  int body_material = scene->default_material;
  if (!find_material(ctx, b, p, &body_material)) return false;
  const cJSON *shape = scn_get(b, "shape");
  const cJSON *shapes = scn_get(b, "shapes");
  if (shape && shapes) return scn_fail(ctx, p, "give \"shape\" or \"shapes\", not both");
  int count = 0;
  if (shape) count = 1;
  if (shapes) {
    scn_join_key(pk, p, "shapes");
    if (!cJSON_IsArray(shapes)) {
      char got[64];
      scn_describe(shapes, got, sizeof got);
      return scn_fail(ctx, pk, "must be an array of shapes (got %s)", got);
    }
    count = cJSON_GetArraySize(shapes);
    if (count > CLT_MAX_SHAPES_PER_BODY) {
      return scn_fail(ctx, pk, "at most %d shapes per body (got %d)", CLT_MAX_SHAPES_PER_BODY, count);
    }
  }
  if (count > 0) {
    body->shapes = calloc((size_t)count, sizeof *body->shapes);
    if (!body->shapes) return scn_fail(ctx, p, "out of memory");
    body->def.shape_count = count; /* the polyhedra read so far are released on failure */
  }
  if (shape) {
    scn_join_key(pk, p, "shape");
    if (!read_shape(ctx, shape, pk, def.type, body_material, &body->shapes[0])) return false;
  } else if (shapes) {
    int i = 0;
    for (const cJSON *s = shapes->child; s; s = s->next, i++) {
      char ps[PATH_SIZE], base[PATH_SIZE];
      scn_join_key(base, p, "shapes");
      scn_join_index(ps, base, i);
      if (!read_shape(ctx, s, ps, def.type, body_material, &body->shapes[i])) return false;
    }
  }
  if (def.type == CLT_BODY_DYNAMIC && count == 0 && !(def.mass > 0)) {
    return scn_fail(ctx, p, "a dynamic body needs a shape (mass from density) or mass and inertia");
  }
  def.shapes = body->shapes;
  def.shape_count = count;
  def.name = body->name;
  body->def = def;
  if (grid->is_packing) return scn_expand_packing(ctx, grid, index, slot);
  return scn_get(b, "grid") ? expand_grid(ctx, grid, index, slot) : true;
}

/* Body names are looked up through a sorted index (scenes may have 10^4–10^5 bodies). */
static int compare_body_names(const void *a, const void *b) {
  const name_entry_t *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

/* Builds the index; a repeated name is an error at the later body. */
bool scn_index_body_names(ctx_t *ctx) {
  clt_scene_t *scene = ctx->scene;
  scene->bodies_by_name =
      malloc(sizeof *scene->bodies_by_name * (size_t)(scene->body_count > 0 ? scene->body_count : 1));
  if (!scene->bodies_by_name) return scn_fail(ctx, "bodies", "out of memory");
  int n = 0;
  for (int i = 0; i < scene->body_count; i++) {
    if (scene->bodies[i].name) {
      scene->bodies_by_name[n].name = scene->bodies[i].name;
      scene->bodies_by_name[n].index = i;
      n++;
    }
  }
  scene->named_count = n;
  qsort(scene->bodies_by_name, (size_t)n, sizeof *scene->bodies_by_name, compare_body_names);
  int first_dup = -1, other = -1;
  for (int k = 1; k < n; k++) {
    const name_entry_t *a = &scene->bodies_by_name[k - 1], *b = &scene->bodies_by_name[k];
    if (strcmp(a->name, b->name) == 0 && (first_dup < 0 || b->index < first_dup)) {
      first_dup = b->index;
      other = a->index;
    }
  }
  if (first_dup >= 0) {
    char p[PATH_SIZE], pn[PATH_SIZE];
    scn_join_index(p, "bodies", scene->bodies[first_dup].entry);
    scn_join_key(pn, p, "name");
    return scn_fail(ctx, pn, "duplicate body name \"%s\" (also bodies[%d])", scene->bodies[first_dup].name,
                scene->bodies[other].entry);
  }
  return true;
}

static int find_body(const clt_scene_t *scene, const char *name) {
  int lo = 0, hi = scene->named_count - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    int c = strcmp(scene->bodies_by_name[mid].name, name);
    if (c == 0) return scene->bodies_by_name[mid].index;
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return -1;
}

/* A body reference: a body name, "world" (if allowed), or an index into bodies. */
static bool read_body_ref(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, bool allow_world,
                          bool required, int *out) {
  const cJSON *item = scn_get(obj, key);
  if (!item) return required ? scn_missing(ctx, parent, key) : true;
  char p[PATH_SIZE];
  scn_join_key(p, parent, key);
  clt_scene_t *scene = ctx->scene;
  if (cJSON_IsNumber(item)) {
    int64_t index = 0;
    if (!scn_read_int(ctx, obj, parent, key, &index, 0, scene->body_count - 1, true)) return false;
    *out = (int)index;
    return true;
  }
  const char *name = NULL;
  if (!scn_string_value(ctx, item, p, &name)) return false;
  if (strcmp(name, "world") == 0) {
    if (!allow_world) return scn_fail(ctx, p, "must be a body, not the world");
    *out = -1;
    return true;
  }
  int found = find_body(scene, name);
  if (found >= 0) {
    *out = found;
    return true;
  }
  return scn_fail(ctx, p, "unknown body \"%s\"", name);
}

/* The names of joint_type_name(type) for type < count, NULL-terminated (scn_read_enum's list). */
static void type_names(const char *(*name)(int), int count, const char **out) {
  for (int t = 0; t < count; t++) out[t] = name(t);
  out[count] = NULL;
}
static const char *joint_type_name(int t) { return clt_joint_type_name((clt_joint_type_t)t); }
static const char *force_type_name(int t) { return clt_force_type_name((clt_force_type_t)t); }

double scn_function_value(const scene_function_t *f, double t) {
  switch (f->kind) {
    case FUNCTION_CONSTANT:
      return f->value;
    case FUNCTION_SINUSOID:
      return f->value + f->amplitude * sin(2.0 * 3.14159265358979323846 * f->frequency * t + f->phase);
    case FUNCTION_KEYFRAMES: {
      if (t <= f->times[0]) return f->values[0];
      for (int k = 1; k < f->count; k++)
        if (t < f->times[k]) {
          double s = (t - f->times[k - 1]) / (f->times[k] - f->times[k - 1]);
          return f->values[k - 1] + s * (f->values[k] - f->values[k - 1]);
        }
      return f->values[f->count - 1];
    }
  }
  return f->value;
}

void scn_function_free(scene_function_t *f) {
  free(f->times);
  free(f->values);
  f->times = f->values = NULL;
}

/* A value that may be a function of time (scene_function_t): a number, {"sinusoid": {mean,
 * amplitude, frequency, phase}} or {"keyframes": [[t, value], ...]} with t ≥ 0 increasing. */
static bool read_function(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, scene_function_t *f) {
  const cJSON *item = scn_get(obj, key);
  if (!item) return true;
  char p[PATH_SIZE], pk[PATH_SIZE];
  scn_join_key(p, parent, key);
  if (cJSON_IsNumber(item)) {
    f->kind = FUNCTION_CONSTANT;
    return scn_number_value(ctx, item, p, &f->value);
  }
  static const char *const kinds[] = {"sinusoid", "keyframes", NULL};
  if (!cJSON_IsObject(item) || cJSON_GetArraySize(item) != 1)
    return scn_fail(ctx, p, "must be a number or an object with one key, \"sinusoid\" or \"keyframes\"");
  if (!scn_check_keys(ctx, item, p, kinds, "a function of time")) return false;
  const cJSON *sine = scn_get(item, "sinusoid");
  if (sine) {
    scn_join_key(pk, p, "sinusoid");
    static const char *const sine_keys[] = {"mean", "amplitude", "frequency", "phase", NULL};
    if (!scn_expect_object(ctx, sine, pk) || !scn_check_keys(ctx, sine, pk, sine_keys, "a sinusoid")) return false;
    f->kind = FUNCTION_SINUSOID;
    return scn_read_number(ctx, sine, pk, "mean", &f->value, RANGE_ANY, false) &&
           scn_read_number(ctx, sine, pk, "amplitude", &f->amplitude, RANGE_ANY, true) &&
           scn_read_number(ctx, sine, pk, "frequency", &f->frequency, RANGE_NONNEGATIVE, true) &&
           scn_read_number(ctx, sine, pk, "phase", &f->phase, RANGE_ANY, false);
  }
  const cJSON *table = scn_get(item, "keyframes");
  scn_join_key(pk, p, "keyframes");
  int n = cJSON_IsArray(table) ? cJSON_GetArraySize(table) : 0;
  if (n < 1) return scn_fail(ctx, pk, "must be a non-empty array of [time, value] pairs");
  f->kind = FUNCTION_KEYFRAMES;
  f->times = malloc((size_t)n * sizeof *f->times);
  f->values = malloc((size_t)n * sizeof *f->values);
  if (!f->times || !f->values) return scn_fail(ctx, pk, "out of memory");
  f->count = n;
  for (int k = 0; k < n; k++) {
    char pe[PATH_SIZE], pt[PATH_SIZE];
    scn_join_index(pe, pk, k);
    double pair[2];
    if (!scn_vector_value(ctx, cJSON_GetArrayItem(table, k), pe, 2, pair)) return false;
    scn_join_index(pt, pe, 0);
    if (!(pair[0] >= 0.0)) return scn_fail(ctx, pt, "a keyframe's time must be >= 0 (got %g)", pair[0]);
    if (k > 0 && !(pair[0] > f->times[k - 1]))
      return scn_fail(ctx, pt, "keyframes must be in increasing time: %g s is not after the %g s of keyframe %d",
                      pair[0], f->times[k - 1], k - 1);
    f->times[k] = pair[0];
    f->values[k] = pair[1];
  }
  return true;
}

/* Limits and velocity and position motors are rows of the step problem: the relaxed scheme and the
 * overdamped law have none (docs/actuation.md "Where they apply"). */
static bool rows_available(ctx_t *ctx, const char *path, const char *what) {
  const clt_world_def_t *wd = &ctx->scene->world_def;
  if (wd->law != CLT_LAW_INERTIAL)
    return scn_fail(ctx, path, "%s needs the inertial law (this scene's law is %s)", what, clt_law_name(wd->law));
  if (wd->method.scheme == CLT_SCHEME_RELAXED)
    return scn_fail(ctx, path, "%s needs a scheme with a step problem of rows (none, anitescu-hart, baumgarte, post; "
                               "this scene's method.scheme is relaxed)", what);
  return true;
}

/* "limit": {lower, upper, restitution} of a revolute or prismatic joint (docs/actuation.md). */
static bool read_limit(ctx_t *ctx, const cJSON *j, const char *p, clt_joint_type_t jt, clt_joint_limit_t *out) {
  const cJSON *l = scn_get(j, "limit");
  if (!l) return true;
  char pl[PATH_SIZE], pk[PATH_SIZE];
  scn_join_key(pl, p, "limit");
  bool cone = jt == CLT_JOINT_SPHERICAL;
  if (jt != CLT_JOINT_REVOLUTE && jt != CLT_JOINT_PRISMATIC && !cone)
    return scn_fail(ctx, pl, "a limit needs a revolute, prismatic or spherical joint (this one is %s)",
                    clt_joint_type_name(jt));
  static const char *const keys[] = {"lower", "upper", "restitution", NULL};
  static const char *const cone_keys[] = {"swing", "lower", "upper", "restitution", NULL};
  if (!scn_expect_object(ctx, l, pl) ||
      !scn_check_keys(ctx, l, pl, cone ? cone_keys : keys, cone ? "a spherical joint's limit" : "a joint limit"))
    return false;
  if (!rows_available(ctx, pl, "a joint limit")) return false;
  out->enabled = true;
  if (cone) { /* the twist unlimited unless given */
    out->lower = -3.14159265358979323846;
    out->upper = 3.14159265358979323846;
    scn_join_key(pk, pl, "swing");
    if (!scn_read_number(ctx, l, pl, "swing", &out->swing, RANGE_POSITIVE, true)) return false;
    if (!(out->swing <= 3.14159265358979323846)) return scn_fail(ctx, pk, "must be at most pi (got %g)", out->swing);
  }
  if (!scn_read_number(ctx, l, pl, "lower", &out->lower, RANGE_ANY, !cone) ||
      !scn_read_number(ctx, l, pl, "upper", &out->upper, RANGE_ANY, !cone) ||
      !scn_read_number(ctx, l, pl, "restitution", &out->restitution, RANGE_FRACTION, false))
    return false;
  scn_join_key(pk, pl, "upper");
  if (!(out->lower < out->upper))
    return scn_fail(ctx, pk, "must be above lower (got lower %g, upper %g)%s", out->lower, out->upper,
                    out->lower == out->upper ? "; equal bounds lock the joint: use a fixed joint" : "");
  if ((jt == CLT_JOINT_REVOLUTE || cone) && ctx->dimension == 3 &&
      !(out->lower >= -3.14159265358979323846 && out->upper <= 3.14159265358979323846))
    return scn_fail(ctx, pl, "a 3D %s limit must lie in [-pi, pi] (the angle is measured in (-pi, pi]; got "
                             "[%g, %g])", cone ? "twist" : "revolute", out->lower, out->upper);
  return true;
}

/* "motor": {mode, target_velocity, target_position, stiffness, damping, max_force, effort}; the
 * targets and the effort may be functions of time. */
static bool read_motor(ctx_t *ctx, const cJSON *j, const char *p, clt_joint_type_t jt, scene_joint_t *joint,
                       clt_joint_motor_t *out) {
  const cJSON *m = scn_get(j, "motor");
  if (!m) return true;
  char pm[PATH_SIZE], pk[PATH_SIZE];
  scn_join_key(pm, p, "motor");
  if (jt != CLT_JOINT_REVOLUTE && jt != CLT_JOINT_PRISMATIC)
    return scn_fail(ctx, pm, "a motor needs a revolute or prismatic joint (this one is %s)", clt_joint_type_name(jt));
  if (!scn_expect_object(ctx, m, pm)) return false;
  static const char *const modes[] = {"velocity", "position", "effort", NULL};
  int mode = 0;
  if (!scn_read_enum(ctx, m, pm, "mode", modes, &mode, true)) return false;
  static const char *const velocity_keys[] = {"mode", "target_velocity", "max_force", NULL};
  static const char *const position_keys[] = {"mode",      "target_position", "target_velocity", "stiffness",
                                              "damping",   "max_force",       NULL};
  static const char *const effort_keys[] = {"mode", "effort", NULL};
  const char *const *keys = mode == 0 ? velocity_keys : mode == 1 ? position_keys : effort_keys;
  if (mode != 2 && !rows_available(ctx, pm, mode == 0 ? "a velocity motor" : "a position motor")) return false;
  char what[32];
  snprintf(what, sizeof what, "a %s motor", modes[mode]);
  if (!scn_check_keys(ctx, m, pm, keys, what)) return false;
  out->mode = mode == 0 ? CLT_MOTOR_VELOCITY : mode == 1 ? CLT_MOTOR_POSITION : CLT_MOTOR_EFFORT;
  if (!read_function(ctx, m, pm, "target_velocity", &joint->target_velocity) ||
      !read_function(ctx, m, pm, "target_position", &joint->target_position) ||
      !read_function(ctx, m, pm, "effort", &joint->effort))
    return false;
  if (mode == 2 && !scn_get(m, "effort")) return scn_missing(ctx, pm, "effort");
  if (mode == 1 && !scn_get(m, "target_position")) return scn_missing(ctx, pm, "target_position");
  if (mode != 2) {
    scn_join_key(pk, pm, "max_force");
    if (!scn_read_number(ctx, m, pm, "max_force", &out->max_force, RANGE_ANY, true)) return false;
    if (!(out->max_force > 0.0)) return scn_fail(ctx, pk, "must be > 0 (got %g)", out->max_force);
  }
  if (mode == 1) {
    if (!scn_read_number(ctx, m, pm, "stiffness", &out->stiffness, RANGE_NONNEGATIVE, false) ||
        !scn_read_number(ctx, m, pm, "damping", &out->damping, RANGE_NONNEGATIVE, false))
      return false;
    if (!(out->stiffness + out->damping > 0.0))
      return scn_fail(ctx, pm, "a position motor needs stiffness or damping > 0");
  }
  joint->scheduled = joint->target_velocity.kind != FUNCTION_CONSTANT ||
                     joint->target_position.kind != FUNCTION_CONSTANT || joint->effort.kind != FUNCTION_CONSTANT;
  out->target_velocity = scn_function_value(&joint->target_velocity, 0.0);
  out->target_position = scn_function_value(&joint->target_position, 0.0);
  out->effort = scn_function_value(&joint->effort, 0.0);
  return true;
}

bool scn_read_joint(ctx_t *ctx, const cJSON *j, int index) {
  clt_scene_t *scene = ctx->scene;
  scene_joint_t *joint = &scene->joints[index];
  char p[PATH_SIZE], pk[PATH_SIZE];
  scn_join_index(p, "joints", index);
  if (!scn_expect_object(ctx, j, p)) return false;
  int type = 0;
  const char *joint_type_names[CLT_JOINT_TYPE_COUNT + 1];
  type_names(joint_type_name, CLT_JOINT_TYPE_COUNT, joint_type_names);
  if (!scn_read_enum(ctx, j, p, "type", joint_type_names, &type, true)) return false;
  clt_joint_type_t jt = (clt_joint_type_t)type;
  const char *keys[16];
  int k = 0;
  keys[k++] = "type";
  keys[k++] = "name";
  keys[k++] = "body_a";
  keys[k++] = "body_b";
  keys[k++] = "anchor_a";
  keys[k++] = "anchor_b";
  keys[k++] = "collide_connected";
  bool has_axis = (jt == CLT_JOINT_REVOLUTE && ctx->dimension == 3) || jt == CLT_JOINT_PRISMATIC ||
                  jt == CLT_JOINT_SPHERICAL; /* a spherical joint's axes: its cone and twist limit */
  bool planar_axis = jt == CLT_JOINT_PRISMATIC && ctx->dimension == 2; /* axis_a only, in the plane */
  if (has_axis) {
    keys[k++] = "axis_a";
    if (!planar_axis) keys[k++] = "axis_b";
  }
  if (jt == CLT_JOINT_DISTANCE) keys[k++] = "distance";
  keys[k++] = "limit";
  keys[k++] = "motor";
  keys[k++] = "remove_at";
  keys[k] = NULL;
  char what[64];
  snprintf(what, sizeof what, "a %dD %s joint", ctx->dimension, joint_type_names[type]);
  if (!scn_check_keys(ctx, j, p, keys, what)) return false;
  if (ctx->dimension == 2 && jt != CLT_JOINT_REVOLUTE && jt != CLT_JOINT_DISTANCE && jt != CLT_JOINT_PRISMATIC) {
    scn_join_key(pk, p, "type");
    return scn_fail(ctx, pk, "a %s joint needs a 3D scene (2D allows: revolute, prismatic, distance)",
                joint_type_names[type]);
  }
  clt_joint_def_t def = clt_default_joint_def(jt);
  const char *name = NULL;
  if (!scn_read_name(ctx, j, p, &name)) return false;
  if (name) {
    joint->name = scn_dup_string(name);
    if (!joint->name) return scn_fail(ctx, p, "out of memory");
  }
  joint->body_b = -1;
  if (!read_body_ref(ctx, j, p, "body_a", false, true, &joint->body_a)) return false;
  if (!read_body_ref(ctx, j, p, "body_b", true, false, &joint->body_b)) return false;
  if (joint->body_a == joint->body_b) {
    scn_join_key(pk, p, "body_b");
    return scn_fail(ctx, pk, "must differ from body_a");
  }
  if (!scn_read_dvec(ctx, j, p, "anchor_a", def.anchor_a, RANGE_ANY, false)) return false;
  if (!scn_read_dvec(ctx, j, p, "anchor_b", def.anchor_b, RANGE_ANY, false)) return false;
  if (!scn_read_bool(ctx, j, p, "collide_connected", &def.collide_connected)) return false;
  if (planar_axis) {
    def.axis_a[0] = 1.0; /* default: along x */
    def.axis_a[1] = def.axis_a[2] = 0.0;
    if (!scn_read_dvec(ctx, j, p, "axis_a", def.axis_a, RANGE_ANY, false)) return false;
    if (!scn_nonzero_vector(ctx, j, p, "axis_a", def.axis_a, 2)) return false;
  } else if (has_axis) {
    if (!scn_read_vector(ctx, j, p, "axis_a", 3, def.axis_a, RANGE_ANY, false)) return false;
    if (!scn_nonzero_vector(ctx, j, p, "axis_a", def.axis_a, 3)) return false;
    if (!scn_read_vector(ctx, j, p, "axis_b", 3, def.axis_b, RANGE_ANY, false)) return false;
    if (!scn_nonzero_vector(ctx, j, p, "axis_b", def.axis_b, 3)) return false;
  }
  if (jt == CLT_JOINT_DISTANCE) {
    if (!scn_read_number(ctx, j, p, "distance", &def.distance, RANGE_NONNEGATIVE, false)) return false;
  }
  joint->remove_at = NAN;
  if (!scn_read_number(ctx, j, p, "remove_at", &joint->remove_at, RANGE_NONNEGATIVE, false)) return false;
  if (!read_limit(ctx, j, p, jt, &def.limit)) return false;
  if (!read_motor(ctx, j, p, jt, joint, &def.motor)) return false;
  def.name = joint->name;
  joint->def = def;
  return true;
}

bool scn_read_force(ctx_t *ctx, const cJSON *f, int index) {
  clt_scene_t *scene = ctx->scene;
  scene_force_t *force = &scene->forces[index];
  char p[PATH_SIZE], pk[PATH_SIZE];
  scn_join_index(p, "forces", index);
  if (!scn_expect_object(ctx, f, p)) return false;
  const char *force_type_names[CLT_FORCE_TYPE_COUNT + 1];
  type_names(force_type_name, CLT_FORCE_TYPE_COUNT, force_type_names);
  int type = 0;
  if (!scn_read_enum(ctx, f, p, "type", force_type_names, &type, true)) return false;
  static const char *const applied_keys[] = {
      "type",      "name",  "body", "force", "torque", "force_amplitude", "torque_amplitude",
      "frequency", "phase", NULL};
  static const char *const spring_keys[] = {"type",        "name",      "body_a",    "body_b",
                                            "anchor_a",    "anchor_b",  "stiffness", "damping",
                                            "rest_length", "treatment", "rigid",    NULL};
  static const char *const rotational_keys[] = {"type",      "name",    "body_a",     "body_b",    "axis_a",
                                                "axis_b",    "stiffness", "damping", "rest_angle", "treatment",
                                                NULL};
  const char *name = NULL;
  force->body_b = -1;
  if (type == 0) {
    if (!scn_check_keys(ctx, f, p, applied_keys, "an applied force")) return false;
    clt_force_def_t def = clt_default_force_def(CLT_FORCE_APPLIED);
    if (!scn_read_name(ctx, f, p, &name)) return false;
    if (!read_body_ref(ctx, f, p, "body", false, true, &force->body_a)) return false;
    if (scene->bodies[force->body_a].def.type != CLT_BODY_DYNAMIC) {
      scn_join_key(pk, p, "body");
      return scn_fail(ctx, pk, "must be a dynamic body");
    }
    if (!scn_read_dvec(ctx, f, p, "force", def.force, RANGE_ANY, false)) return false;
    if (!scn_read_angular(ctx, f, p, "torque", def.torque, RANGE_ANY)) return false;
    if (!scn_read_dvec(ctx, f, p, "force_amplitude", def.force_amplitude, RANGE_ANY, false)) return false;
    if (!scn_read_angular(ctx, f, p, "torque_amplitude", def.torque_amplitude, RANGE_ANY)) return false;
    if (!scn_read_number(ctx, f, p, "frequency", &def.frequency, RANGE_NONNEGATIVE, false)) return false;
    if (!scn_read_number(ctx, f, p, "phase", &def.phase, RANGE_ANY, false)) return false;
    force->def = def;
  } else if (type == 2) {
    /* rotational spring-damper (SPEC.md §4): about z in 2D; about axis_a / axis_b in 3D */
    if (!scn_check_keys(ctx, f, p, rotational_keys, "a rotational spring-damper")) return false;
    clt_force_def_t def = clt_default_force_def(CLT_FORCE_ROTATIONAL_SPRING_DAMPER);
    if (!scn_read_name(ctx, f, p, &name)) return false;
    if (!read_body_ref(ctx, f, p, "body_a", false, true, &force->body_a)) return false;
    if (!read_body_ref(ctx, f, p, "body_b", true, false, &force->body_b)) return false;
    if (force->body_a == force->body_b) {
      scn_join_key(pk, p, "body_b");
      return scn_fail(ctx, pk, "must differ from body_a");
    }
    if (ctx->dimension == 2 && (scn_get(f, "axis_a") || scn_get(f, "axis_b"))) {
      scn_join_key(pk, p, scn_get(f, "axis_a") ? "axis_a" : "axis_b");
      return scn_fail(ctx, pk, "not used in a 2D scene (the axis is z)");
    }
    if (ctx->dimension == 3 && !scn_get(f, "axis_a")) return scn_missing(ctx, p, "axis_a");
    if (!scn_read_dvec(ctx, f, p, "axis_a", def.axis_a, RANGE_ANY, false)) return false;
    if (!scn_read_dvec(ctx, f, p, "axis_b", def.axis_b, RANGE_ANY, false)) return false;
    if (!scn_read_number(ctx, f, p, "stiffness", &def.stiffness, RANGE_NONNEGATIVE, false)) return false;
    if (!scn_read_number(ctx, f, p, "damping", &def.damping, RANGE_NONNEGATIVE, false)) return false;
    if (!scn_read_number(ctx, f, p, "rest_angle", &def.rest_angle, RANGE_ANY, false)) return false;
    int treatment = (int)def.treatment;
    if (!scn_read_enum(ctx, f, p, "treatment", clt_force_treatment_names, &treatment, false)) return false;
    def.treatment = (clt_force_treatment_t)treatment;
    if (!(def.stiffness > 0) && !(def.damping > 0)) {
      return scn_fail(ctx, p, "a rotational spring-damper needs stiffness > 0 or damping > 0");
    }
    force->def = def;
  } else {
    if (!scn_check_keys(ctx, f, p, spring_keys, "a spring-damper")) return false;
    clt_force_def_t def = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
    if (!scn_read_name(ctx, f, p, &name)) return false;
    if (!read_body_ref(ctx, f, p, "body_a", false, true, &force->body_a)) return false;
    if (!read_body_ref(ctx, f, p, "body_b", true, false, &force->body_b)) return false;
    if (force->body_a == force->body_b) {
      scn_join_key(pk, p, "body_b");
      return scn_fail(ctx, pk, "must differ from body_a");
    }
    if (!scn_read_dvec(ctx, f, p, "anchor_a", def.anchor_a, RANGE_ANY, false)) return false;
    if (!scn_read_dvec(ctx, f, p, "anchor_b", def.anchor_b, RANGE_ANY, false)) return false;
    if (!scn_read_number(ctx, f, p, "stiffness", &def.stiffness, RANGE_NONNEGATIVE, false)) return false;
    if (!scn_read_number(ctx, f, p, "damping", &def.damping, RANGE_NONNEGATIVE, false)) return false;
    if (!scn_read_number(ctx, f, p, "rest_length", &def.rest_length, RANGE_NONNEGATIVE, false)) return false;
    int treatment = (int)def.treatment;
    if (!scn_read_enum(ctx, f, p, "treatment", clt_force_treatment_names, &treatment, false)) return false;
    def.treatment = (clt_force_treatment_t)treatment;
    if (!scn_read_bool(ctx, f, p, "rigid", &force->rigid)) return false;
    if (!(def.stiffness > 0) && !(def.damping > 0) && !force->rigid) {
      return scn_fail(ctx, p, "a spring-damper needs stiffness > 0 or damping > 0");
    }
    force->def = def;
  }
  if (name) {
    force->name = scn_dup_string(name);
    if (!force->name) return scn_fail(ctx, p, "out of memory");
  }
  force->def.name = force->name;
  return true;
}

bool scn_read_output(ctx_t *ctx, const cJSON *o) {
  clt_scene_t *scene = ctx->scene;
  static const char *const keys[] = {
      "path", "interval", "interval_steps", "trajectory", "velocities", "diagnostics", "csv", "contacts",
      NULL};
  const char *p = "output";
  if (!scn_expect_object(ctx, o, p) || !scn_check_keys(ctx, o, p, keys, "output")) return false;
  const char *path = NULL;
  if (!scn_read_string(ctx, o, p, "path", &path, false)) return false;
  if (path) {
    free(scene->output_path);
    scene->output_path = scn_dup_string(path);
    if (!scene->output_path) return scn_fail(ctx, p, "out of memory");
  }
  if (scn_get(o, "interval") && scn_get(o, "interval_steps")) {
    return scn_fail(ctx, p, "give \"interval\" (seconds) or \"interval_steps\", not both");
  }
  int64_t steps = 1;
  if (!scn_read_int(ctx, o, p, "interval_steps", &steps, 1, INT64_C(1) << 40, false)) return false;
  double interval = 0;
  if (!scn_read_number(ctx, o, p, "interval", &interval, RANGE_POSITIVE, false)) return false;
  if (interval > 0) {
    double h = scene->world_def.time_step;
    double n = round(interval / h);
    if (n < 1 || fabs(n * h - interval) > 1e-9 * interval) {
      char got[64], hs[64];
      scn_format_number(interval, got, sizeof got);
      scn_format_number(h, hs, sizeof hs);
      return scn_fail(ctx, "output.interval", "must be a whole multiple of time_step %s (got %s)", hs, got);
    }
    steps = (int64_t)n;
  }
  scene->output.interval_steps = steps;
  if (!scn_read_bool(ctx, o, p, "trajectory", &scene->output.trajectory)) return false;
  if (!scn_read_bool(ctx, o, p, "velocities", &scene->output.velocities)) return false;
  if (!scn_read_bool(ctx, o, p, "diagnostics", &scene->output.diagnostics)) return false;
  if (!scn_read_bool(ctx, o, p, "csv", &scene->output.csv)) return false;
  if (!scn_read_bool(ctx, o, p, "contacts", &scene->output.contacts)) return false;
  return true;
}

/* The "colony" block (docs/scene-format.md "colony", include/clatter/colony.h). The seed cell is
 * checked when the colony is created (clt_scene_create_colony): it needs the built world. */
bool scn_read_colony(ctx_t *ctx, const cJSON *c) {
  clt_scene_t *scene = ctx->scene;
  static const char *const keys[] = {"growth_time", "division_length", "max_reorientation_deg", "division_gap",
                                     "seed",        "generations",     "order",                 NULL};
  static const char *const order_keys[] = {"radius", "angle_deg", "contact_gap", NULL};
  const char *p = "colony";
  if (!scn_expect_object(ctx, c, p) || !scn_check_keys(ctx, c, p, keys, "colony")) return false;
  if (ctx->dimension != 3)
    return scn_fail(ctx, p, "the cells are capsules of a 3D world (\"dimension\": 3; \"planar\": true for a 2D colony)");
  clt_scene_colony_t *col = &scene->colony;
  col->def = clt_default_colony_def();
  col->generations = 10;
  col->order_radius = -1.0;
  col->order_angle = 10.0 * CLT_SCENE_PI / 180.0;
  col->order_contact_gap = -1.0;
  double degrees = col->def.max_reorientation * 180.0 / CLT_SCENE_PI;
  int64_t seed = (int64_t)col->def.seed, generations = col->generations;
  if (!scn_read_number(ctx, c, p, "growth_time", &col->def.growth_time, RANGE_POSITIVE, false) ||
      !scn_read_number(ctx, c, p, "division_length", &col->def.division_length, RANGE_POSITIVE, false) ||
      !scn_read_number(ctx, c, p, "max_reorientation_deg", &degrees, RANGE_NONNEGATIVE, false) ||
      !scn_read_number(ctx, c, p, "division_gap", &col->def.division_gap, RANGE_NONNEGATIVE, false) ||
      !scn_read_int(ctx, c, p, "seed", &seed, 0, INT64_C(1) << 53, false) ||
      !scn_read_int(ctx, c, p, "generations", &generations, 1, 30, false))
    return false;
  if (!(degrees < 90.0)) {
    char got[64];
    scn_format_number(degrees, got, sizeof got);
    return scn_fail(ctx, "colony.max_reorientation_deg", "must be in [0, 90) (got %s)", got);
  }
  col->def.max_reorientation = degrees * CLT_SCENE_PI / 180.0;
  col->def.seed = (uint64_t)seed;
  col->generations = (int)generations;
  const cJSON *order = scn_get(c, "order");
  if (order) {
    const char *op = "colony.order";
    double angle = 10.0;
    if (!scn_expect_object(ctx, order, op) || !scn_check_keys(ctx, order, op, order_keys, "colony.order") ||
        !scn_read_number(ctx, order, op, "radius", &col->order_radius, RANGE_POSITIVE, false) ||
        !scn_read_number(ctx, order, op, "angle_deg", &angle, RANGE_POSITIVE, false) ||
        !scn_read_number(ctx, order, op, "contact_gap", &col->order_contact_gap, RANGE_NONNEGATIVE, false))
      return false;
    if (!(angle <= 90.0)) {
      char got[64];
      scn_format_number(angle, got, sizeof got);
      return scn_fail(ctx, "colony.order.angle_deg", "must be in (0, 90] (got %s)", got);
    }
    col->order_angle = angle * CLT_SCENE_PI / 180.0;
  }
  /* The seed cell: the scene's first dynamic body, one capsule whose diameter is the colony's. */
  int seed_body = -1;
  for (int i = 0; i < scene->body_count && seed_body < 0; i++)
    if (scene->bodies[i].def.type == CLT_BODY_DYNAMIC) seed_body = i;
  if (seed_body < 0) return scn_fail(ctx, p, "the scene has no dynamic body to grow the colony from (its seed cell)");
  const clt_body_def_t *seed_def = &scene->bodies[seed_body].def;
  if (seed_def->shape_count != 1 || seed_def->shapes[0].type != CLT_SHAPE_CAPSULE) {
    char where[PATH_SIZE];
    scn_join_index(where, "bodies", scene->bodies[seed_body].entry);
    return scn_fail(ctx, where, "the colony's seed cell (the first dynamic body) must have one capsule shape");
  }
  col->seed_body = seed_body;
  col->def.diameter = 2.0 * seed_def->shapes[0].radius;
  if (col->order_radius < 0.0) col->order_radius = 2.0 * col->def.division_length;
  if (col->order_contact_gap < 0.0) col->order_contact_gap = 0.1 * col->def.diameter;
  scene->has_colony = true;
  return true;
}
