/* /bodies and /shapes of a run file (docs/output-format.md): a row per body (name, type, mass,
 * inertia, its shapes) and per shape (its clt_shape_def_t, column by column, and polygon vertices
 * packed), written whole when a run starts; a growing run (a colony) appends the bodies added
 * since, and --resume cuts them back to the bodies of the restored state. */
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "io/output_internal.h"

/* The body type as written in files (the scene's names, world.h). */
static const char *body_type_name(clt_body_type_t t) {
  const char *name = clt_body_type_name(t);
  return name ? name : "unknown";
}

/* Appends `rows` rows to the table `name` of group g, creating it first (create) with `chunk` rows
 * a chunk. */
static herr_t put_rows(hid_t g, const char *name, hid_t file_type, hid_t mem_type, int inner_rank, const hsize_t *inner,
                       hsize_t rows, const void *data, bool create, hsize_t chunk) {
  hid_t d = create ? output_create_table(g, name, file_type, inner_rank, inner, chunk) : H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return -1;
  herr_t r = output_append_rows(d, mem_type, rows, data);
  if (H5Dclose(d) < 0) r = -1;
  return r;
}

/* The same for a table of fixed-length strings: created as wide as its longest string (and
 * min_width), or appended to at the width it has, longer strings cut. */
static herr_t put_strings(hid_t g, const char *name, const char *const *strings, int n, bool create, hsize_t chunk,
                          size_t min_width) {
  size_t width = min_width;
  hid_t d = -1;
  if (create) {
    for (int i = 0; i < n; i++)
      if (strlen(strings[i]) + 1 > width) width = strlen(strings[i]) + 1;
  } else {
    d = H5Dopen2(g, name, H5P_DEFAULT);
    hid_t t = d >= 0 ? H5Dget_type(d) : -1;
    width = t >= 0 ? H5Tget_size(t) : 0;
    if (t >= 0) H5Tclose(t);
    if (width == 0) {
      if (d >= 0) H5Dclose(d);
      return -1;
    }
  }
  char *data = calloc((size_t)(n > 0 ? n : 1), width);
  hid_t type = output_string_type(width);
  if (create && data) d = output_create_table(g, name, type, 0, NULL, chunk);
  herr_t r = data && d >= 0 ? 0 : -1;
  for (int i = 0; r >= 0 && i < n; i++) {
    size_t len = strlen(strings[i]);
    memcpy(data + (size_t)i * width, strings[i], len < width ? len : width - 1);
  }
  if (r >= 0) r = output_append_rows(d, type, (hsize_t)n, data);
  if (d >= 0 && H5Dclose(d) < 0) r = -1;
  H5Tclose(type);
  free(data);
  return r;
}

/* The numeric columns of /shapes, gathered from clt_shape_def_t field by field. */
static const struct {
  const char *name;
  size_t offset;
  int width;
} shape_fields[] = {
    {"position", offsetof(clt_shape_def_t, local_position), 3},
    {"orientation", offsetof(clt_shape_def_t, local_orientation), 4},
    {"angle", offsetof(clt_shape_def_t, local_angle), 1},
    {"radius", offsetof(clt_shape_def_t, radius), 1},
    {"length", offsetof(clt_shape_def_t, length), 1},
    {"half_extents", offsetof(clt_shape_def_t, half_extents), 3},
    {"semi_axes", offsetof(clt_shape_def_t, semi_axes), 3},
    {"major_radius", offsetof(clt_shape_def_t, major_radius), 1},
    {"minor_radius", offsetof(clt_shape_def_t, minor_radius), 1},
    {"point", offsetof(clt_shape_def_t, point), 3},
    {"normal", offsetof(clt_shape_def_t, normal), 3},
    {"a", offsetof(clt_shape_def_t, a), 3},
    {"b", offsetof(clt_shape_def_t, b), 3},
};
#define SHAPE_FIELDS (sizeof shape_fields / sizeof shape_fields[0])

/* Writes (create) or appends the rows of bodies [from, to) of out->bodies to /bodies and /shapes
 * (their shapes, and polygon vertices): the whole tables at the start of a run, the bodies added
 * since in a growing run. A growing run's tables have 1024-row chunks, and its name strings hold
 * at least 63 characters (longer names of bodies added later are cut). The shapes are read one at a
 * time into their columns (30 doubles and 4 ints a shape, not a 784-byte clt_shape_def_t each:
 * 10⁵ grains would hold 78 MB for it). */
bool output_body_info(const clt_world_t *world, int i, clt_body_info_t *info) {
  clt_body_id_t id = clt_world_body_at(world, i);
  if (!clt_body_id_is_null(id)) return clt_body_get_info(world, id, info) == CLT_OK;
  if (i < 0 || i >= clt_world_body_count(world)) return false;
  memset(info, 0, sizeof *info); /* removed */
  info->name = "";
  info->type = CLT_BODY_STATIC;
  info->mass = INFINITY;
  for (int k = 0; k < 3; k++) info->inertia[k] = INFINITY;
  return true;
}

bool output_write_bodies(clt_output_t *out, const clt_world_t *world, int from, int to, bool create) {
  hid_t file = out->file;
  bool ok = true;
  int n = to - from;
  hsize_t chunk_b = out->growing ? 1024 : (hsize_t)(n > 0 ? n : 1);
  size_t name_width = out->growing ? 64 : 1;
  int shape_total = 0;
  clt_body_info_t *info = calloc((size_t)(n > 0 ? n : 1), sizeof *info);
  if (!info) return false;
  for (int i = 0; i < n && ok; i++) {
    ok = output_body_info(world, from + i, &info[i]);
    shape_total += info[i].shape_count;
  }
  int s_count = shape_total;
  hsize_t chunk_s = out->growing ? 1024 : (hsize_t)(s_count > 0 ? s_count : 1);
  size_t nn = (size_t)(n > 0 ? n : 1), ns = (size_t)(s_count > 0 ? s_count : 1);
  size_t field_start[SHAPE_FIELDS + 1] = {0};
  for (size_t f = 0; f < SHAPE_FIELDS; f++) field_start[f + 1] = field_start[f] + (size_t)shape_fields[f].width * ns;
  const char **names = calloc(nn, sizeof *names), **types = calloc(nn, sizeof *types);
  double *mass = calloc(nn, sizeof *mass), *inertia = calloc(nn * 3, sizeof *inertia);
  int32_t *shape_count = calloc(nn, sizeof *shape_count), *first_shape = calloc(nn, sizeof *first_shape);
  double *columns = calloc(field_start[SHAPE_FIELDS], sizeof *columns);
  int32_t *shape_body = calloc(ns, sizeof *shape_body), *vertex_count = calloc(ns, sizeof *vertex_count);
  int32_t *first_vertex = calloc(ns, sizeof *first_vertex), *material = calloc(ns, sizeof *material);
  int32_t *hull_count = calloc(ns, sizeof *hull_count), *first_hull = calloc(ns, sizeof *first_hull);
  double *hull = NULL; /* polyhedron vertices packed, 3 per row */
  int hull_total = 0, hull_capacity = 0;
  int32_t *mesh_vcount = calloc(ns, sizeof *mesh_vcount), *mesh_vfirst = calloc(ns, sizeof *mesh_vfirst);
  int32_t *mesh_tcount = calloc(ns, sizeof *mesh_tcount), *mesh_tfirst = calloc(ns, sizeof *mesh_tfirst);
  double *mesh_v = NULL; /* mesh vertices packed, 3 per row */
  int32_t *mesh_t = NULL; /* mesh triangles packed, 3 per row, indices into the mesh's own rows */
  long mesh_v_total = 0, mesh_t_total = 0;
  const char **shape_types = calloc(ns, sizeof *shape_types);
  double *vertices = NULL;
  int vertex_total = 0, vertex_capacity = 0;
  if (!names || !types || !mass || !inertia || !shape_count || !first_shape || !columns || !shape_body ||
      !vertex_count || !first_vertex || !material || !shape_types || !hull_count || !first_hull || !mesh_vcount ||
      !mesh_vfirst || !mesh_tcount || !mesh_tfirst) {
    ok = false;
  }
  int s = 0;
  for (int i = 0; i < n && ok; i++) {
    names[i] = info[i].name ? info[i].name : "";
    types[i] = body_type_name(info[i].type);
    mass[i] = info[i].mass;
    for (int k = 0; k < 3; k++) inertia[3 * i + k] = info[i].inertia[k];
    shape_count[i] = info[i].shape_count;
    first_shape[i] = out->shape_rows + s;
    for (int k = 0; k < info[i].shape_count && ok; k++, s++) {
      clt_shape_def_t shape;
      ok = clt_body_get_shape(world, out->bodies[from + i], k, &shape) == CLT_OK;
      if (!ok) break;
      shape_body[s] = from + i;
      shape_types[s] = clt_shape_type_name(shape.type);
      material[s] = shape.material;
      for (size_t f = 0; f < SHAPE_FIELDS; f++) {
        size_t w = (size_t)shape_fields[f].width;
        memcpy(columns + field_start[f] + (size_t)s * w, (const char *)&shape + shape_fields[f].offset, w * sizeof(double));
      }
      /* polygon vertices packed: shape s owns rows first_vertex[s] ... + vertex_count[s] − 1 */
      int count = shape.type == CLT_SHAPE_POLYGON ? shape.vertex_count : 0;
      vertex_count[s] = count;
      first_vertex[s] = out->vertex_rows + vertex_total;
      if (vertex_total + count > vertex_capacity) {
        int capacity = vertex_capacity > 0 ? 2 * vertex_capacity : 64;
        while (capacity < vertex_total + count) capacity *= 2;
        double *grown = realloc(vertices, sizeof *vertices * 2 * (size_t)capacity);
        if (!grown) {
          ok = false;
          break;
        }
        vertices = grown;
        vertex_capacity = capacity;
      }
      for (int v = 0; v < count; v++, vertex_total++) {
        vertices[2 * vertex_total] = shape.vertices[v][0];
        vertices[2 * vertex_total + 1] = shape.vertices[v][1];
      }
      /* polyhedron vertices packed likewise (its faces are their hull): /shapes/hull_vertices */
      int hc = shape.type == CLT_SHAPE_POLYHEDRON ? clt_convex_vertex_count(shape.convex) : 0;
      hull_count[s] = hc;
      first_hull[s] = out->hull_rows + hull_total;
      if (hull_total + hc > hull_capacity) {
        int capacity = hull_capacity > 0 ? 2 * hull_capacity : 64;
        while (capacity < hull_total + hc) capacity *= 2;
        double *grown = realloc(hull, sizeof *hull * 3 * (size_t)capacity);
        if (!grown) {
          ok = false;
          break;
        }
        hull = grown;
        hull_capacity = capacity;
      }
      const double(*hv)[3] = hc > 0 ? clt_convex_vertices(shape.convex) : NULL;
      for (int v = 0; v < hc; v++, hull_total++) memcpy(hull + 3 * (size_t)hull_total, hv[v], sizeof hv[v]);
      /* mesh vertices and triangles packed likewise: /shapes/mesh_vertices, /shapes/mesh_triangles */
      int mv = shape.type == CLT_SHAPE_MESH ? clt_mesh_vertex_count(shape.mesh) : 0;
      int mt = shape.type == CLT_SHAPE_MESH ? clt_mesh_triangle_count(shape.mesh) : 0;
      mesh_vcount[s] = mv;
      mesh_vfirst[s] = (int32_t)(out->mesh_vertex_rows + mesh_v_total);
      mesh_tcount[s] = mt;
      mesh_tfirst[s] = (int32_t)(out->mesh_triangle_rows + mesh_t_total);
      if (mv > 0) {
        double *gv = realloc(mesh_v, sizeof *mesh_v * 3 * (size_t)(mesh_v_total + mv));
        int32_t *gt = gv ? realloc(mesh_t, sizeof *mesh_t * 3 * (size_t)(mesh_t_total + mt)) : NULL;
        if (gv) mesh_v = gv;
        if (!gv || !gt) {
          ok = false;
          break;
        }
        mesh_t = gt;
        memcpy(mesh_v + 3 * mesh_v_total, clt_mesh_vertices(shape.mesh), sizeof(double) * 3 * (size_t)mv);
        const int(*tri)[3] = clt_mesh_triangles(shape.mesh);
        for (int i = 0; i < mt; i++)
          for (int c = 0; c < 3; c++) mesh_t[3 * (mesh_t_total + i) + c] = tri[i][c];
        mesh_v_total += mv;
        mesh_t_total += mt;
      }
    }
  }
  if (ok) {
    hid_t g = create ? output_create_group(file, "bodies") : H5Gopen2(file, "bodies", H5P_DEFAULT);
    hsize_t three = 3;
    ok = g >= 0;
    ok = ok && put_strings(g, "name", names, n, create, chunk_b, name_width) >= 0;
    ok = ok && put_strings(g, "type", types, n, create, chunk_b, out->growing ? 16 : 1) >= 0;
    ok = ok && put_rows(g, "mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, NULL, (hsize_t)n, mass, create, chunk_b) >= 0;
    ok = ok && put_rows(g, "inertia", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &three, (hsize_t)n, inertia, create,
                        chunk_b) >= 0;
    ok = ok && put_rows(g, "shape_count", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)n, shape_count, create,
                        chunk_b) >= 0;
    ok = ok && put_rows(g, "first_shape", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)n, first_shape, create,
                        chunk_b) >= 0;
    if (g >= 0) H5Gclose(g);
  }
  if (ok) {
    hid_t g = create ? output_create_group(file, "shapes") : H5Gopen2(file, "shapes", H5P_DEFAULT);
    ok = g >= 0;
    ok = ok && put_rows(g, "body", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count, shape_body, create,
                        chunk_s) >= 0;
    ok = ok && put_strings(g, "type", shape_types, s_count, create, chunk_s, out->growing ? 16 : 1) >= 0;
    for (size_t f = 0; ok && f < SHAPE_FIELDS; f++) {
      hsize_t inner[1] = {(hsize_t)shape_fields[f].width};
      int rank = shape_fields[f].width > 1 ? 1 : 0;
      ok = put_rows(g, shape_fields[f].name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, rank, inner, (hsize_t)s_count,
                    columns + field_start[f], create, chunk_s) >= 0;
    }
    ok = ok && put_rows(g, "vertex_count", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count, vertex_count,
                        create, chunk_s) >= 0;
    ok = ok && put_rows(g, "first_vertex", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count, first_vertex,
                        create, chunk_s) >= 0;
    hsize_t two = 2;
    double no_vertex[2] = {0.0, 0.0};
    ok = ok && put_rows(g, "vertices", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &two, (hsize_t)vertex_total,
                        vertices ? vertices : no_vertex, create,
                        out->growing ? 1024 : (hsize_t)(vertex_total > 0 ? vertex_total : 1)) >= 0;
    ok = ok && put_rows(g, "material", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count, material, create,
                        chunk_s) >= 0;
    hsize_t three = 3;
    double no_hull[3] = {0.0, 0.0, 0.0};
    ok = ok && put_rows(g, "hull_vertex_count", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count, hull_count,
                        create, chunk_s) >= 0;
    ok = ok && put_rows(g, "first_hull_vertex", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count, first_hull,
                        create, chunk_s) >= 0;
    ok = ok && put_rows(g, "hull_vertices", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &three, (hsize_t)hull_total,
                        hull ? hull : no_hull, create,
                        out->growing ? 1024 : (hsize_t)(hull_total > 0 ? hull_total : 1)) >= 0;
    double no_mesh_v[3] = {0.0, 0.0, 0.0};
    int32_t no_mesh_t[3] = {0, 0, 0};
    ok = ok && put_rows(g, "mesh_vertex_count", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count,
                        mesh_vcount, create, chunk_s) >= 0;
    ok = ok && put_rows(g, "first_mesh_vertex", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count,
                        mesh_vfirst, create, chunk_s) >= 0;
    ok = ok && put_rows(g, "mesh_triangle_count", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count,
                        mesh_tcount, create, chunk_s) >= 0;
    ok = ok && put_rows(g, "first_mesh_triangle", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count,
                        mesh_tfirst, create, chunk_s) >= 0;
    ok = ok && put_rows(g, "mesh_vertices", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &three, (hsize_t)mesh_v_total,
                        mesh_v ? mesh_v : no_mesh_v, create,
                        out->growing ? 1024 : (hsize_t)(mesh_v_total > 0 ? mesh_v_total : 1)) >= 0;
    ok = ok && put_rows(g, "mesh_triangles", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &three, (hsize_t)mesh_t_total,
                        mesh_t ? mesh_t : no_mesh_t, create,
                        out->growing ? 1024 : (hsize_t)(mesh_t_total > 0 ? mesh_t_total : 1)) >= 0;
    if (ok) {
      out->shape_rows += s_count;
      out->vertex_rows += vertex_total;
      out->hull_rows += hull_total;
      out->mesh_vertex_rows += (int)mesh_v_total;
      out->mesh_triangle_rows += (int)mesh_t_total;
    }
    if (g >= 0) H5Gclose(g);
  }
  free(info);
  free(names);
  free(types);
  free(mass);
  free(inertia);
  free(shape_count);
  free(first_shape);
  free(columns);
  free(shape_body);
  free(vertex_count);
  free(first_vertex);
  free(material);
  free(shape_types);
  free(vertices);
  free(hull_count);
  free(first_hull);
  free(hull);
  free(mesh_vcount);
  free(mesh_vfirst);
  free(mesh_tcount);
  free(mesh_tfirst);
  free(mesh_v);
  free(mesh_t);
  return ok;
}

/* A growing run's /bodies and /shapes cut back to the bodies of the restored state (rows written
 * for bodies added after the checkpoint go). */
bool output_cut_bodies(clt_output_t *out, const clt_world_t *world) {
  int shapes = 0, vertices = 0, hull = 0, mesh_vertices = 0, mesh_triangles = 0;
  for (int i = 0; i < out->body_count; i++) {
    clt_body_info_t info;
    if (!output_body_info(world, i, &info)) return false;
    for (int k = 0; k < info.shape_count; k++) {
      clt_shape_def_t shape;
      if (clt_body_get_shape(world, out->bodies[i], k, &shape) != CLT_OK) return false;
      if (shape.type == CLT_SHAPE_POLYGON) vertices += shape.vertex_count;
      if (shape.type == CLT_SHAPE_POLYHEDRON) hull += clt_convex_vertex_count(shape.convex);
      if (shape.type == CLT_SHAPE_MESH) {
        mesh_vertices += clt_mesh_vertex_count(shape.mesh);
        mesh_triangles += clt_mesh_triangle_count(shape.mesh);
      }
      shapes++;
    }
  }
  static const char *const body_sets[] = {"name", "type", "mass", "inertia", "shape_count", "first_shape"};
  static const char *const shape_sets[] = {"body",      "type",         "position",     "orientation", "angle",
                                           "radius",    "length",       "half_extents", "semi_axes",   "major_radius",
                                           "minor_radius", "point",     "normal",       "a",           "b",
                                           "vertex_count", "first_vertex", "material",  "vertices",
                                           "hull_vertex_count", "first_hull_vertex", "hull_vertices",
                                           "mesh_vertex_count", "first_mesh_vertex", "mesh_triangle_count",
                                           "first_mesh_triangle", "mesh_vertices", "mesh_triangles"};
  bool ok = true;
  for (size_t i = 0; ok && i < sizeof body_sets / sizeof *body_sets + sizeof shape_sets / sizeof *shape_sets; i++) {
    bool body = i < sizeof body_sets / sizeof *body_sets;
    const char *name = body ? body_sets[i] : shape_sets[i - sizeof body_sets / sizeof *body_sets];
    hsize_t keep = body                                    ? (hsize_t)out->body_count
                   : strcmp(name, "vertices") == 0       ? (hsize_t)vertices
                   : strcmp(name, "hull_vertices") == 0  ? (hsize_t)hull
                   : strcmp(name, "mesh_vertices") == 0  ? (hsize_t)mesh_vertices
                   : strcmp(name, "mesh_triangles") == 0 ? (hsize_t)mesh_triangles
                                                         : (hsize_t)shapes;
    /* a file written before polyhedra has no hull datasets: nothing to cut there */
    char link[64];
    snprintf(link, sizeof link, "shapes/%s", name);
    if (!body && (strstr(name, "hull") != NULL || strstr(name, "mesh") != NULL) &&
        H5Lexists(out->file, link, H5P_DEFAULT) <= 0)
      continue;
    hid_t g = H5Gopen2(out->file, body ? "bodies" : "shapes", H5P_DEFAULT);
    hid_t d = g >= 0 ? H5Dopen2(g, name, H5P_DEFAULT) : -1;
    ok = d >= 0 && output_table_rows(d) >= keep && output_truncate_rows(d, keep) >= 0;
    if (d >= 0) H5Dclose(d);
    if (g >= 0) H5Gclose(g);
  }
  out->shape_rows = shapes;
  out->vertex_rows = vertices;
  out->hull_rows = hull;
  out->mesh_vertex_rows = mesh_vertices;
  out->mesh_triangle_rows = mesh_triangles;
  return ok;
}

/* The /links group: joints first, then the spring-dampers between two points (rotational ones
 * and applied forces have no two points to draw). */
bool output_write_links(hid_t file, const clt_world_t *world) {
  int joints = clt_world_joint_count(world), forces = clt_world_force_count(world), n = 0;
  for (int i = 0; i < forces; i++) {
    clt_force_info_t f;
    if (clt_force_get_info(world, clt_world_force_at(world, i), &f) == CLT_OK && f.type == CLT_FORCE_SPRING_DAMPER) n++;
  }
  n += joints;
  if (n == 0) return true;
  const char **type = calloc((size_t)n, sizeof *type), **name = calloc((size_t)n, sizeof *name);
  int32_t *body = malloc(sizeof *body * 2 * (size_t)n);
  double *anchor = malloc(sizeof *anchor * 6 * (size_t)n);
  bool ok = type && name && body && anchor;
  int row = 0;
  for (int i = 0; ok && i < joints + forces; i++) {
    clt_body_id_t a, b;
    const double *pa, *pb;
    clt_joint_info_t j;
    clt_force_info_t f;
    static const double nowhere[3] = {NAN, NAN, NAN};
    if (i < joints && clt_body_id_is_null((clt_body_id_t){clt_world_joint_at(world, i).index, 0})) {
      /* removed before the file was made (clt_world_remove_joint): its row keeps the index */
      type[row] = "removed";
      name[row] = "";
      a = b = clt_world_ground(), pa = pb = nowhere;
    } else if (i < joints) {
      ok = clt_joint_get_info(world, clt_world_joint_at(world, i), &j) == CLT_OK;
      if (!ok) break;
      type[row] = clt_joint_type_name(j.type);
      name[row] = j.name;
      a = j.body_a, b = j.body_b, pa = j.anchor_a, pb = j.anchor_b;
    } else {
      ok = clt_force_get_info(world, clt_world_force_at(world, i - joints), &f) == CLT_OK;
      if (!ok) break;
      if (f.type != CLT_FORCE_SPRING_DAMPER) continue;
      type[row] = clt_force_type_name(f.type);
      name[row] = f.name;
      a = f.body_a, b = f.body_b, pa = f.anchor_a, pb = f.anchor_b;
    }
    body[2 * row] = clt_body_id_is_null(a) ? -1 : (int32_t)a.index;
    body[2 * row + 1] = clt_body_id_is_null(b) ? -1 : (int32_t)b.index;
    memcpy(anchor + 6 * row, pa, 3 * sizeof *anchor);
    memcpy(anchor + 6 * row + 3, pb, 3 * sizeof *anchor);
    row++;
  }
  hid_t g = ok ? output_create_group(file, "links") : -1;
  ok = ok && g >= 0;
  hsize_t two = 2, pair[2] = {2, 3}, chunk = (hsize_t)n;
  ok = ok && put_strings(g, "type", type, n, true, chunk, 1) >= 0;
  ok = ok && put_strings(g, "name", name, n, true, chunk, 1) >= 0;
  ok = ok && put_rows(g, "body", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &two, (hsize_t)n, body, true, chunk) >= 0;
  ok = ok && put_rows(g, "anchor", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, pair, (hsize_t)n, anchor, true, chunk) >= 0;
  if (g >= 0) H5Gclose(g);
  free(type);
  free(name);
  free(body);
  free(anchor);
  return ok;
}
