/* Robots from URDF files (docs/shapes.md "URDF"): a scene's "urdf" entries, each a file placed at a
 * pose, become bodies and joints of the scene before it is read (libxml2, Debian libxml2-dev; the
 * resolved scene holds them, not the file).
 *
 * At the file's zero joint positions each link's frame follows from the root link's (the entry's
 * pose) through the joints' origins. A link with an <inertial> mass becomes a body whose frame is its
 * centre of mass and principal axes (the eigenvectors of its inertia tensor), with that mass and
 * those moments; its <collision> geometry (box, cylinder, sphere, or a mesh file's hull) becomes its
 * shapes, placed relative to that frame. Joints: revolute (with its limit), continuous (a revolute
 * without limit), prismatic (with its limit), fixed; anchors at the child link's origin, the axis in
 * both bodies' frames; with "motors": "velocity", every moving joint gets a velocity motor (target 0,
 * largest effort the <limit>'s effort). The root link is static with "fixed_base" (default) and
 * dynamic otherwise. What is not used (visual elements, materials, transmissions, gazebo tags,
 * <dynamics>, <mimic>, <safety_controller>, <calibration>) is listed in the scene's log: the report. */
#define _XOPEN_SOURCE 700
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/scene_internal.h"
#include "math/vec.h"

typedef struct pose_t {
  double p[3];
  double q[4];
} pose_t;

static void pose_compose(pose_t *out, const pose_t *a, const pose_t *b) { /* a ∘ b */
  pose_t r;
  clt_q_rotate(r.p, a->q, b->p);
  clt_v3_add(r.p, r.p, a->p);
  clt_q_mul(r.q, a->q, b->q);
  clt_q_normalize(r.q);
  *out = r;
}

static void pose_inverse(pose_t *out, const pose_t *a) {
  pose_t r;
  clt_q_conj(r.q, a->q);
  clt_q_rotate(r.p, r.q, a->p);
  clt_v3_scale(r.p, r.p, -1.0);
  *out = r;
}

static bool parse_numbers(const char *text, double *out, int n) {
  if (!text) return false;
  char *end;
  for (int i = 0; i < n; i++) {
    out[i] = strtod(text, &end);
    if (end == text || !isfinite(out[i])) return false;
    text = end;
  }
  while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r') text++;
  return *text == '\0';
}

static const char *attr(xmlNode *n, const char *name) { return (const char *)xmlGetProp(n, (const xmlChar *)name); }

static xmlNode *child(xmlNode *n, const char *name) {
  for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0) return c;
  return NULL;
}

typedef struct urdf_t {
  ctx_t *ctx;
  const char *path; /* JSON path of the entry */
  const char *file; /* the URDF file, as opened */
  xmlDoc *doc;
  char report[2048];
  bool failed;
} urdf_t;

static bool ufail(urdf_t *u, const char *fmt, const char *a, const char *b) {
  char reason[512];
  snprintf(reason, sizeof reason, fmt, a ? a : "", b ? b : "");
  u->failed = true;
  return scn_fail(u->ctx, u->path, "%s: %s", u->file, reason);
}

/* <origin xyz rpy>: roll about x, then pitch about y, then yaw about z (fixed axes). */
static bool read_origin(urdf_t *u, xmlNode *n, const char *what, pose_t *out) {
  clt_v3_set(out->p, 0.0, 0.0, 0.0);
  clt_q_identity(out->q);
  xmlNode *o = child(n, "origin");
  if (!o) return true;
  const char *xyz = attr(o, "xyz"), *rpy = attr(o, "rpy");
  double r[3] = {0.0, 0.0, 0.0};
  bool ok = (!xyz || parse_numbers(xyz, out->p, 3)) && (!rpy || parse_numbers(rpy, r, 3));
  xmlFree((void *)xyz);
  xmlFree((void *)rpy);
  if (!ok) return ufail(u, "%s: <origin> needs three numbers in xyz and rpy", what, NULL);
  double qx[4] = {cos(0.5 * r[0]), sin(0.5 * r[0]), 0, 0}, qy[4] = {cos(0.5 * r[1]), 0, sin(0.5 * r[1]), 0};
  double qz[4] = {cos(0.5 * r[2]), 0, 0, sin(0.5 * r[2])}, t[4];
  clt_q_mul(t, qz, qy);
  clt_q_mul(out->q, t, qx);
  clt_q_normalize(out->q);
  return true;
}

static double number_attr(xmlNode *n, const char *name, double fallback, bool *ok) {
  const char *s = attr(n, name);
  if (!s) return fallback;
  double v;
  if (!parse_numbers(s, &v, 1)) *ok = false;
  xmlFree((void *)s);
  return *ok ? v : fallback;
}

static void note(urdf_t *u, const char *what) {
  size_t len = strlen(u->report);
  if (strstr(u->report, what)) return;
  snprintf(u->report + len, sizeof u->report - len, "%s%s", len ? ", " : "", what);
}

static cJSON *vector(const double *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
  return a;
}

typedef struct link_t {
  xmlNode *node;
  const char *name; /* xmlFree */
  int parent_joint; /* −1: the root */
  pose_t frame;     /* world, at zero joint positions */
  pose_t body;      /* the body frame: centre of mass and principal axes (or the link frame) */
  bool done;
} link_t;

typedef struct joint_t {
  xmlNode *node;
  const char *name, *type; /* xmlFree */
  int parent, child;
} joint_t;

static int find_link(const link_t *links, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(links[i].name, name) == 0) return i;
  return -1;
}

/* One collision element as a scene shape, its pose relative to the body frame. */
static cJSON *collision_shape(urdf_t *u, const link_t *l, xmlNode *c, const char *base_dir) {
  pose_t local, world, inv_body, rel;
  if (!read_origin(u, c, l->name, &local)) return NULL;
  pose_compose(&world, &l->frame, &local);
  pose_inverse(&inv_body, &l->body);
  pose_compose(&rel, &inv_body, &world);
  xmlNode *g = child(c, "geometry");
  xmlNode *shape = NULL;
  for (xmlNode *k = g ? g->children : NULL; k; k = k->next)
    if (k->type == XML_ELEMENT_NODE) shape = k;
  if (!shape) {
    ufail(u, "link %s: <collision> without <geometry>", l->name, NULL);
    return NULL;
  }
  cJSON *s = cJSON_CreateObject();
  const char *kind = (const char *)shape->name;
  bool ok = true;
  if (strcmp(kind, "box") == 0) {
    double size[3];
    const char *t = attr(shape, "size");
    ok = parse_numbers(t, size, 3);
    xmlFree((void *)t);
    for (int k = 0; k < 3; k++) size[k] *= 0.5;
    cJSON_AddStringToObject(s, "type", "box");
    cJSON_AddItemToObject(s, "half_extents", vector(size, 3));
  } else if (strcmp(kind, "cylinder") == 0) {
    double r = number_attr(shape, "radius", NAN, &ok), len = number_attr(shape, "length", NAN, &ok);
    cJSON_AddStringToObject(s, "type", "cylinder");
    cJSON_AddNumberToObject(s, "radius", r);
    cJSON_AddNumberToObject(s, "length", len);
  } else if (strcmp(kind, "sphere") == 0) {
    double r = number_attr(shape, "radius", NAN, &ok);
    cJSON_AddStringToObject(s, "type", "sphere");
    cJSON_AddNumberToObject(s, "radius", r);
  } else if (strcmp(kind, "mesh") == 0) {
    const char *file = attr(shape, "filename"), *scale = attr(shape, "scale");
    double sc[3] = {1.0, 1.0, 1.0};
    if (scale) ok = parse_numbers(scale, sc, 3);
    char full[4096] = "";
    if (file) {
      const char *f = file;
      if (strncmp(f, "file://", 7) == 0) f += 7;
      if (strncmp(f, "package://", 10) == 0) { /* package://NAME/path: looked up beside the URDF file */
        const char *slash = strchr(f + 10, '/');
        f = slash ? slash + 1 : f + 10;
      }
      int w = f[0] == '/' ? snprintf(full, sizeof full, "%s", f) : snprintf(full, sizeof full, "%s/%s", base_dir, f);
      if (w < 0 || (size_t)w >= sizeof full) full[0] = '\0'; /* too long: refused below */
    }
    xmlFree((void *)file);
    xmlFree((void *)scale);
    if (!full[0]) ok = false;
    char *absolute = full[0] ? realpath(full, NULL) : NULL;
    cJSON_AddStringToObject(s, "type", "polyhedron");
    cJSON_AddStringToObject(s, "mesh", absolute ? absolute : full);
    free(absolute);
    cJSON_AddItemToObject(s, "scale", vector(sc, 3));
  } else {
    cJSON_Delete(s);
    ufail(u, "link %s: unknown collision geometry <%s>", l->name, kind);
    return NULL;
  }
  if (!ok) {
    cJSON_Delete(s);
    ufail(u, "link %s: bad <%s> geometry attributes", l->name, kind);
    return NULL;
  }
  cJSON_AddItemToObject(s, "position", vector(rel.p, 3));
  cJSON_AddItemToObject(s, "orientation", vector(rel.q, 4));
  return s;
}

static bool expand_one(ctx_t *ctx, cJSON *root, const cJSON *entry, const char *path) {
  urdf_t u = {.ctx = ctx, .path = path};
  static const char *const keys[] = {"file", "name", "position", "orientation", "fixed_base", "motors", "material",
                                     NULL};
  if (!scn_expect_object(ctx, entry, path) || !scn_check_keys(ctx, entry, path, keys, "a urdf entry")) return false;
  const char *file = NULL, *prefix = NULL, *motors = "none", *material = NULL;
  if (!scn_read_string(ctx, entry, path, "file", &file, true)) return false;
  if (!scn_read_string(ctx, entry, path, "name", &prefix, false)) return false;
  if (!scn_read_string(ctx, entry, path, "motors", &motors, false)) return false;
  if (!scn_read_string(ctx, entry, path, "material", &material, false)) return false;
  if (strcmp(motors, "none") != 0 && strcmp(motors, "velocity") != 0) {
    char pm[PATH_SIZE];
    scn_join_key(pm, path, "motors");
    return scn_fail(ctx, pm, "must be \"none\" or \"velocity\" (got \"%s\")", motors);
  }
  bool fixed_base = true;
  const cJSON *fb = scn_get(entry, "fixed_base");
  if (fb) {
    char pf[PATH_SIZE];
    scn_join_key(pf, path, "fixed_base");
    if (!cJSON_IsBool(fb)) return scn_fail(ctx, pf, "must be true or false");
    fixed_base = cJSON_IsTrue(fb);
  }
  pose_t base = {{0, 0, 0}, {1, 0, 0, 0}};
  if (!scn_read_dvec(ctx, entry, path, "position", base.p, RANGE_ANY, false)) return false;
  if (!scn_read_orientation(ctx, entry, path, "orientation", base.q)) return false;
  char full[4096];
  const char *slash = ctx->source ? strrchr(ctx->source, '/') : NULL;
  if (file[0] != '/' && slash)
    snprintf(full, sizeof full, "%.*s/%s", (int)(slash - ctx->source), ctx->source, file);
  else
    snprintf(full, sizeof full, "%s", file);
  u.file = full;
  char pfile[PATH_SIZE];
  scn_join_key(pfile, path, "file");
  FILE *probe = fopen(full, "rb");
  if (!probe) return scn_fail(ctx, pfile, "%s: cannot open the URDF file", full);
  fclose(probe);
  u.doc = xmlReadFile(full, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!u.doc) {
    const xmlError *e = xmlGetLastError();
    return scn_fail(ctx, pfile, "%s: not valid XML%s%s", full, e && e->message ? ": " : "",
                    e && e->message ? e->message : "");
  }
  char base_dir[4096];
  snprintf(base_dir, sizeof base_dir, "%s", full);
  char *cut = strrchr(base_dir, '/');
  if (cut)
    *cut = '\0';
  else
    snprintf(base_dir, sizeof base_dir, ".");
  xmlNode *robot = xmlDocGetRootElement(u.doc);
  link_t *links = NULL;
  joint_t *joints = NULL;
  int nl = 0, nj = 0;
  bool ok = robot && strcmp((const char *)robot->name, "robot") == 0;
  if (!ok) ufail(&u, "the root element is not <robot>%s%s", NULL, NULL);
  for (xmlNode *c = ok ? robot->children : NULL; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (strcmp((const char *)c->name, "link") == 0) nl++;
    else if (strcmp((const char *)c->name, "joint") == 0) nj++;
    else note(&u, (const char *)c->name);
  }
  if (ok && nl == 0) ok = ufail(&u, "no <link>%s%s", NULL, NULL);
  if (ok) {
    links = calloc((size_t)nl, sizeof *links);
    joints = calloc((size_t)(nj > 0 ? nj : 1), sizeof *joints);
    ok = links && joints;
  }
  int il = 0, ij = 0;
  for (xmlNode *c = ok ? robot->children : NULL; ok && c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (strcmp((const char *)c->name, "link") == 0) {
      links[il].node = c;
      links[il].name = attr(c, "name");
      links[il].parent_joint = -1;
      if (!links[il].name) ok = ufail(&u, "a <link> without a name%s%s", NULL, NULL);
      else if (find_link(links, il, links[il].name) >= 0) ok = ufail(&u, "two links named %s%s", links[il].name, NULL);
      il++;
    } else if (strcmp((const char *)c->name, "joint") == 0) {
      joints[ij].node = c;
      joints[ij].name = attr(c, "name");
      joints[ij].type = attr(c, "type");
      ij++;
    }
  }
  for (int j = 0; ok && j < nj; j++) {
    xmlNode *pn = child(joints[j].node, "parent"), *cn = child(joints[j].node, "child");
    const char *pl = pn ? attr(pn, "link") : NULL, *cl = cn ? attr(cn, "link") : NULL;
    joints[j].parent = pl ? find_link(links, nl, pl) : -1;
    joints[j].child = cl ? find_link(links, nl, cl) : -1;
    if (!joints[j].name || !joints[j].type || joints[j].parent < 0 || joints[j].child < 0)
      ok = ufail(&u, "joint %s: needs a name, a type and existing <parent> and <child> links (%s)",
                 joints[j].name ? joints[j].name : "?", cl ? cl : "?");
    else if (links[joints[j].child].parent_joint >= 0)
      ok = ufail(&u, "link %s is the child of two joints%s", cl, NULL);
    else
      links[joints[j].child].parent_joint = j;
    xmlFree((void *)pl);
    xmlFree((void *)cl);
  }
  int root_link = -1;
  for (int i = 0; ok && i < nl; i++)
    if (links[i].parent_joint < 0) {
      if (root_link >= 0) ok = ufail(&u, "two root links (%s and %s): the links must form one tree", links[root_link].name, links[i].name);
      root_link = i;
    }
  if (ok && root_link < 0) ok = ufail(&u, "the joints form a loop (no root link)%s%s", NULL, NULL);
  /* Frames at zero joint positions, parents before children. */
  if (ok) {
    links[root_link].frame = base;
    links[root_link].done = true;
  }
  for (int pass = 0; ok && pass < nl; pass++)
    for (int j = 0; ok && j < nj; j++) {
      link_t *p = &links[joints[j].parent], *c = &links[joints[j].child];
      if (!p->done || c->done) continue;
      pose_t o;
      ok = read_origin(&u, joints[j].node, joints[j].name, &o);
      pose_compose(&c->frame, &p->frame, &o);
      c->done = true;
    }
  for (int i = 0; ok && i < nl; i++)
    if (!links[i].done) ok = ufail(&u, "link %s is not connected to the root%s", links[i].name, NULL);
  char scope[128];
  snprintf(scope, sizeof scope, "%s", prefix ? prefix : "");
  cJSON *bodies = cJSON_GetObjectItemCaseSensitive(root, "bodies");
  if (ok && !bodies) bodies = cJSON_AddArrayToObject(root, "bodies");
  cJSON *joint_list = cJSON_GetObjectItemCaseSensitive(root, "joints");
  if (ok && !joint_list && nj > 0) joint_list = cJSON_AddArrayToObject(root, "joints");
  if (ok && (!cJSON_IsArray(bodies) || (nj > 0 && !cJSON_IsArray(joint_list))))
    ok = scn_fail(ctx, path, "the scene's bodies and joints must be arrays to add a URDF model to");
  /* Bodies. */
  for (int i = 0; ok && i < nl; i++) {
    link_t *l = &links[i];
    cJSON *b = cJSON_CreateObject();
    char name[256];
    snprintf(name, sizeof name, "%s%s%s", scope, scope[0] ? "/" : "", l->name);
    cJSON_AddStringToObject(b, "name", name);
    bool is_static = fixed_base && i == root_link;
    if (is_static) cJSON_AddStringToObject(b, "type", "static");
    if (material) cJSON_AddStringToObject(b, "material", material);
    l->body = l->frame;
    xmlNode *in = child(l->node, "inertial");
    double mass = 0.0;
    if (in && !is_static) {
      pose_t io;
      ok = read_origin(&u, in, l->name, &io);
      xmlNode *mn = child(in, "mass"), *tn = child(in, "inertia");
      bool good = true;
      mass = mn ? number_attr(mn, "value", NAN, &good) : NAN;
      double t[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
      static const char *const comp[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
      for (int k = 0; k < 6 && tn; k++) t[k] = number_attr(tn, comp[k], NAN, &good);
      if (ok && (!good || !(mass > 0.0) || !tn))
        ok = ufail(&u, "link %s: <inertial> needs a mass > 0 and an <inertia> with ixx ... izz", l->name, NULL);
      if (ok) {
        double I[3][3] = {{t[0], t[1], t[2]}, {t[1], t[3], t[4]}, {t[2], t[4], t[5]}}, e[3][3], values[3];
        clt_m3_sym_eigen(I, values, e);
        double qe[4];
        clt_m3_to_q(qe, e);
        pose_t com, principal = {{0, 0, 0}, {qe[0], qe[1], qe[2], qe[3]}};
        pose_compose(&com, &l->frame, &io);
        pose_compose(&l->body, &com, &principal);
        if (!(values[0] > 0 && values[1] > 0 && values[2] > 0))
          ok = ufail(&u, "link %s: the inertia tensor is not positive definite%s", l->name, NULL);
        cJSON_AddNumberToObject(b, "mass", mass);
        cJSON_AddItemToObject(b, "inertia", vector(values, 3));
      }
    }
    cJSON_AddItemToObject(b, "position", vector(l->body.p, 3));
    cJSON_AddItemToObject(b, "orientation", vector(l->body.q, 4));
    cJSON *shapes = cJSON_AddArrayToObject(b, "shapes");
    int count = 0;
    for (xmlNode *c = l->node->children; ok && c; c = c->next) {
      if (c->type != XML_ELEMENT_NODE) continue;
      if (strcmp((const char *)c->name, "collision") == 0) {
        cJSON *s = collision_shape(&u, l, c, base_dir);
        if (!s) ok = false;
        else cJSON_AddItemToArray(shapes, s), count++;
      } else if (strcmp((const char *)c->name, "visual") == 0) {
        note(&u, "visual");
      } else if (strcmp((const char *)c->name, "inertial") != 0) {
        note(&u, (const char *)c->name);
      }
    }
    if (ok && !is_static && !(mass > 0.0) && count == 0)
      ok = ufail(&u, "link %s has neither an <inertial> mass nor collision geometry: a moving link needs a mass", l->name, NULL);
    if (ok && is_static && count == 0) cJSON_DeleteItemFromObject(b, "shapes");
    if (ok) cJSON_AddItemToArray(bodies, b);
    else cJSON_Delete(b);
  }
  /* Joints. */
  for (int j = 0; ok && j < nj; j++) {
    const joint_t *jt = &joints[j];
    const link_t *p = &links[jt->parent], *c = &links[jt->child];
    const char *type = jt->type;
    const char *mapped = strcmp(type, "revolute") == 0 || strcmp(type, "continuous") == 0 ? "revolute"
                         : strcmp(type, "prismatic") == 0                                    ? "prismatic"
                         : strcmp(type, "fixed") == 0                                        ? "fixed"
                                                                                             : NULL;
    if (!mapped) {
      ok = ufail(&u, "joint %s: type %s is not supported (revolute, continuous, prismatic, fixed)", jt->name, type);
      break;
    }
    cJSON *o = cJSON_CreateObject();
    char name[256], pa[256], pb[256];
    snprintf(name, sizeof name, "%s%s%s", scope, scope[0] ? "/" : "", jt->name);
    snprintf(pa, sizeof pa, "%s%s%s", scope, scope[0] ? "/" : "", p->name);
    snprintf(pb, sizeof pb, "%s%s%s", scope, scope[0] ? "/" : "", c->name);
    cJSON_AddStringToObject(o, "type", mapped);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "body_a", pa);
    cJSON_AddStringToObject(o, "body_b", pb);
    /* The anchor: the child link's origin, in each body's frame. */
    pose_t ia, ib;
    pose_inverse(&ia, &p->body);
    pose_inverse(&ib, &c->body);
    double aa[3], ab[3];
    clt_q_rotate(aa, ia.q, c->frame.p);
    clt_v3_add(aa, aa, ia.p);
    clt_q_rotate(ab, ib.q, c->frame.p);
    clt_v3_add(ab, ab, ib.p);
    cJSON_AddItemToObject(o, "anchor_a", vector(aa, 3));
    cJSON_AddItemToObject(o, "anchor_b", vector(ab, 3));
    if (strcmp(mapped, "fixed") != 0) {
      double axis[3] = {1.0, 0.0, 0.0};
      xmlNode *an = child(jt->node, "axis");
      if (an) {
        const char *t = attr(an, "xyz");
        if (t && !parse_numbers(t, axis, 3)) ok = false;
        xmlFree((void *)t);
      }
      double len = clt_v3_norm(axis);
      if (!ok || !(len > 0.0)) {
        cJSON_Delete(o);
        ok = ufail(&u, "joint %s: <axis xyz> must be three numbers, not all zero%s", jt->name, NULL);
        break;
      }
      clt_v3_scale(axis, axis, 1.0 / len);
      double w[3], xa[3], xb[3];
      clt_q_rotate(w, c->frame.q, axis); /* the axis is given in the joint (child link) frame */
      clt_q_rotate(xa, ia.q, w);
      clt_q_rotate(xb, ib.q, w);
      cJSON_AddItemToObject(o, "axis_a", vector(xa, 3));
      cJSON_AddItemToObject(o, "axis_b", vector(xb, 3));
      xmlNode *lim = child(jt->node, "limit");
      bool good = true;
      double effort = lim ? number_attr(lim, "effort", 0.0, &good) : 0.0;
      if (lim && strcmp(type, "continuous") != 0) {
        double lo = number_attr(lim, "lower", 0.0, &good), hi = number_attr(lim, "upper", 0.0, &good);
        if (good && lo < hi) {
          cJSON *l = cJSON_AddObjectToObject(o, "limit");
          cJSON_AddNumberToObject(l, "lower", lo);
          cJSON_AddNumberToObject(l, "upper", hi);
        }
      }
      if (!good) {
        cJSON_Delete(o);
        ok = ufail(&u, "joint %s: bad <limit> attributes%s", jt->name, NULL);
        break;
      }
      if (strcmp(motors, "velocity") == 0 && effort > 0.0) {
        cJSON *m = cJSON_AddObjectToObject(o, "motor");
        cJSON_AddStringToObject(m, "mode", "velocity");
        cJSON_AddNumberToObject(m, "target_velocity", 0.0);
        cJSON_AddNumberToObject(m, "max_force", effort);
      }
      if (child(jt->node, "dynamics")) note(&u, "joint dynamics");
      if (child(jt->node, "mimic")) note(&u, "mimic");
      if (child(jt->node, "safety_controller")) note(&u, "safety_controller");
      if (child(jt->node, "calibration")) note(&u, "calibration");
    }
    cJSON_AddItemToArray(joint_list, o);
  }
  if (ok && u.report[0] && ctx->scene) scn_note(ctx, "%s: %s: not used: %s", path, full, u.report);
  for (int i = 0; i < nl && links; i++) xmlFree((void *)links[i].name);
  for (int j = 0; j < nj && joints; j++) {
    xmlFree((void *)joints[j].name);
    xmlFree((void *)joints[j].type);
  }
  free(links);
  free(joints);
  xmlFreeDoc(u.doc);
  return ok && !u.failed;
}

bool scn_expand_urdf(ctx_t *ctx, cJSON *root) {
  cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "urdf");
  if (!list) return true;
  if (!cJSON_IsArray(list)) return scn_fail(ctx, "urdf", "must be an array of {file, name, position, ...}");
  const cJSON *dim = cJSON_GetObjectItemCaseSensitive(root, "dimension");
  if (!cJSON_IsNumber(dim) || dim->valuedouble != 3) return scn_fail(ctx, "urdf", "URDF models need a 3D scene (\"dimension\": 3)");
  int saved = ctx->dimension;
  ctx->dimension = 3;
  int i = 0;
  for (const cJSON *e = list->child; e; e = e->next, i++) {
    char p[PATH_SIZE];
    scn_join_index(p, "urdf", i);
    if (!expand_one(ctx, root, e, p)) {
      ctx->dimension = saved;
      return false;
    }
  }
  ctx->dimension = saved;
  /* The resolved scene holds the bodies and joints, not the files. */
  cJSON_DeleteItemFromObjectCaseSensitive(root, "urdf");
  return true;
}
