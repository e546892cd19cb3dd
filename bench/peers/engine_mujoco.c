/* bench/peers: MuJoCo (Debian libmujoco-dev, 2.2.2). The scene becomes an MJCF model written in
 * memory and loaded through a virtual file system (2.2 has no mj_parseXMLString). MuJoCo's
 * defaults throughout (Euler, Newton solver, pyramidal cone, soft contacts solref 0.02 / solimp
 * defaults, default <size>): only timestep, gravity and μ are set. Free bodies carry a freejoint;
 * the chain is a kinematic tree of ball joints (MuJoCo's own way: reduced coordinates, so its joint
 * error is zero by construction). Every geom has friction 0.5 (MuJoCo combines pairs by max).
 *
 * A size the default buffers cannot hold is reported, not run on: mjWARN_CONTACTFULL or
 * mjWARN_CNSTRFULL after a step (MuJoCo then silently drops contacts), a bad qacc (MuJoCo resets
 * the state), or mju_error (arena/stack overflow), which would otherwise exit the process. */
#define _POSIX_C_SOURCE 200809L
#include "peers.h"

#include <mujoco/mujoco.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct mj_engine_t {
  const peers_scene_t *scene;
  mjModel *m;
  mjData *d;
} mj_engine_t;

static jmp_buf mj_error_jump;
static int mj_error_armed;
static char mj_last_error[256];
static char mj_last_warning[256];

static void on_mj_error(const char *message) {
  snprintf(mj_last_error, sizeof mj_last_error, "%s", message);
  if (mj_error_armed) longjmp(mj_error_jump, 1);
  /* Not inside a guarded call: nothing sane to return to (the driver reports the exit). */
  fprintf(stderr, "mujoco error outside a guarded call: %s\n", message);
  _exit(4);
}

static void on_mj_warning(const char *message) {
  snprintf(mj_last_warning, sizeof mj_last_warning, "%s", message);
}

typedef struct text_t {
  char *data;
  size_t size, capacity;
  int failed;
} text_t;

static void append(text_t *t, const char *format, ...) {
  if (t->failed) return;
  for (;;) {
    va_list args;
    va_start(args, format);
    int n = vsnprintf(t->data + t->size, t->capacity - t->size, format, args);
    va_end(args);
    if (n < 0) {
      t->failed = 1;
      return;
    }
    if ((size_t)n < t->capacity - t->size) {
      t->size += (size_t)n;
      return;
    }
    size_t capacity = 2 * t->capacity + (size_t)n + 1;
    char *grown = realloc(t->data, capacity);
    if (!grown) {
      t->failed = 1;
      return;
    }
    t->data = grown;
    t->capacity = capacity;
  }
}

static void body_inertial(text_t *x, const peers_body_t *b) {
  append(x, "<inertial pos=\"0 0 0\" mass=\"%.17g\" diaginertia=\"%.17g %.17g %.17g\"/>", b->mass, b->inertia[0],
         b->inertia[1], b->inertia[2]);
}

static void body_geom(text_t *x, const peers_scene_t *s, const peers_body_t *b, double mu) {
  if (b->shape == PEERS_HULL)
    append(x, "<geom type=\"mesh\" mesh=\"h%d\" friction=\"%.17g 0.005 0.0001\"/>", (int)(b->hull - s->hulls), mu);
  if (b->shape == PEERS_SPHERE)
    append(x, "<geom type=\"sphere\" size=\"%.17g\" friction=\"%.17g 0.005 0.0001\"/>", b->radius, mu);
  else if (b->shape == PEERS_BOX)
    append(x, "<geom type=\"box\" size=\"%.17g %.17g %.17g\" friction=\"%.17g 0.005 0.0001\"/>", b->half[0],
           b->half[1], b->half[2], mu);
}

/* sized: <size> buffers grown with the scene (the "mujoco-sized" entry), else MuJoCo's defaults. */
static char *scene_xml(const peers_scene_t *s, int sized, size_t *size) {
  text_t x = {NULL, 0, 0, 0};
  x.capacity = 4096 + (size_t)s->body_count * 400;
  x.data = malloc(x.capacity);
  if (!x.data) return NULL;
  append(&x, "<mujoco model=\"%s\">\n<option timestep=\"%.17g\" gravity=\"%.17g %.17g %.17g\"/>\n",
         s->name, s->time_step, s->gravity[0], s->gravity[1], s->gravity[2]);
  if (sized > 0) {
    /* A settled pile has about 3.5 contacts per sphere: room for 8 per body, 4 pyramid rows each;
     * but MuJoCo 2.2's mjData holds njmax² arrays (efc_AR, ...): 2.2 GB RSS at njmax 8000, and
     * mjData cannot be made at 12000 here. Cap at `sized`. */
    long njmax = 4 * (8L * s->body_count + 100) + 6L * s->joint_count;
    if (njmax > sized) njmax = sized;
    long nconmax = njmax / 4 < 100 ? 100 : njmax / 4;
    append(&x, "<size nconmax=\"%ld\" njmax=\"%ld\"/>\n", nconmax, njmax);
  }
  if (s->hull_count > 0) {
    /* Corners only: MuJoCo takes the convex hull of a mesh given without faces. */
    append(&x, "<asset>\n");
    for (int k = 0; k < s->hull_count; ++k) {
      append(&x, "<mesh name=\"h%d\" vertex=\"", k);
      for (int i = 0; i < s->hulls[k].vertex_count; ++i)
        append(&x, "%s%.17g %.17g %.17g", i ? " " : "", s->hulls[k].vertices[i][0], s->hulls[k].vertices[i][1],
               s->hulls[k].vertices[i][2]);
      append(&x, "\"/>\n");
    }
    append(&x, "</asset>\n");
  }
  append(&x, "<worldbody>\n");
  for (int p = 0; p < s->plane_count; ++p) {
    const peers_plane_t *pl = &s->planes[p];
    append(&x, "<geom type=\"plane\" size=\"0 0 1\" pos=\"%.17g %.17g %.17g\" zaxis=\"%.17g %.17g %.17g\" "
               "friction=\"%.17g 0.005 0.0001\"/>\n",
           pl->normal[0] * pl->offset, pl->normal[1] * pl->offset, pl->normal[2] * pl->offset, pl->normal[0],
           pl->normal[1], pl->normal[2], s->friction);
  }
  if (s->joint_count > 0) {
    /* The chain as a tree: link i is a child of link i−1 (joint i), link 0 hangs from the world.
     * Every body frame is its centre of mass with identity orientation at t = 0 (checked). */
    for (int i = 0; i < s->body_count; ++i) {
      const peers_body_t *b = &s->bodies[i];
      const peers_joint_t *j = &s->joints[i];
      if (j->body_a != i || j->body_b != i - 1 || b->orientation[0] != 1.0) {
        free(x.data);
        return NULL;
      }
      const double *parent = i == 0 ? NULL : s->bodies[i - 1].position;
      append(&x, "<body name=\"b%d\" pos=\"%.17g %.17g %.17g\">", i, b->position[0] - (parent ? parent[0] : 0),
             b->position[1] - (parent ? parent[1] : 0), b->position[2] - (parent ? parent[2] : 0));
      /* a fixed joint is no joint: the body is welded to its parent in MuJoCo's reduced coordinates */
      if (!j->fixed)
        append(&x, "<joint type=\"ball\" pos=\"%.17g %.17g %.17g\"/>", j->anchor_a[0], j->anchor_a[1], j->anchor_a[2]);
      body_inertial(&x, b);
      append(&x, "\n");
    }
    for (int i = 0; i < s->body_count; ++i) append(&x, "</body>");
    append(&x, "\n");
  } else {
    for (int i = 0; i < s->body_count; ++i) {
      const peers_body_t *b = &s->bodies[i];
      append(&x, "<body name=\"b%d\" pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\"><freejoint/>", i,
             b->position[0], b->position[1], b->position[2], b->orientation[0], b->orientation[1],
             b->orientation[2], b->orientation[3]);
      body_inertial(&x, b);
      body_geom(&x, s, b, s->friction);
      append(&x, "</body>\n");
    }
  }
  append(&x, "</worldbody>\n</mujoco>\n");
  if (x.failed) {
    free(x.data);
    return NULL;
  }
  *size = x.size;
  return x.data;
}

static void mj_destroy(void *engine) {
  mj_engine_t *e = engine;
  if (!e) return;
  if (e->d) mj_deleteData(e->d);
  if (e->m) mj_deleteModel(e->m);
  free(e);
}

static void *mj_create(const peers_scene_t *scene, int sized, char *why, size_t why_size) {
  mju_user_error = on_mj_error;
  mju_user_warning = on_mj_warning;
  size_t size = 0;
  char *xml = scene_xml(scene, sized, &size);
  if (!xml) {
    snprintf(why, why_size, "cannot write the model (out of memory or an unsupported joint layout)");
    return NULL;
  }
  mjVFS *vfs = malloc(sizeof *vfs);
  mj_engine_t *e = calloc(1, sizeof *e);
  if (!vfs || !e) {
    free(xml);
    free(vfs);
    free(e);
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  e->scene = scene;
  mj_defaultVFS(vfs);
  if (mj_makeEmptyFileVFS(vfs, "peers.xml", (int)size) != 0) {
    snprintf(why, why_size, "mj_makeEmptyFileVFS failed");
    free(xml);
    free(vfs);
    free(e);
    return NULL;
  }
  memcpy(vfs->filedata[mj_findFileVFS(vfs, "peers.xml")], xml, size);
  free(xml);
  char error[512] = "";
  mj_error_armed = 1;
  if (setjmp(mj_error_jump) != 0) {
    mj_error_armed = 0;
    snprintf(why, why_size, "mujoco error while loading: %s", mj_last_error);
    mj_deleteVFS(vfs);
    free(vfs);
    return NULL; /* the half-built model leaks: this child process ends right after */
  }
  e->m = mj_loadXML("peers.xml", vfs, error, sizeof error);
  mj_deleteVFS(vfs);
  free(vfs);
  if (!e->m) {
    mj_error_armed = 0;
    snprintf(why, why_size, "mj_loadXML: %s", error);
    mj_destroy(e);
    return NULL;
  }
  e->d = mj_makeData(e->m);
  mj_error_armed = 0;
  if (!e->d) {
    snprintf(why, why_size, "mj_makeData failed");
    mj_destroy(e);
    return NULL;
  }
  mj_forward(e->m, e->d);
  return e;
}

static void *mj_create_default(const peers_scene_t *scene, const peers_options_t *options, char *why,
                               size_t why_size) {
  (void)options;
  return mj_create(scene, 0, why, why_size);
}

static void *mj_create_sized(const peers_scene_t *scene, const peers_options_t *options, char *why,
                             size_t why_size) {
  (void)options;
  return mj_create(scene, options->mujoco_njmax_cap > 0 ? options->mujoco_njmax_cap : 8000, why, why_size);
}

static int mj_step_guarded(void *engine, char *why, size_t why_size) {
  mj_engine_t *e = engine;
  mj_error_armed = 1;
  if (setjmp(mj_error_jump) != 0) {
    mj_error_armed = 0;
    snprintf(why, why_size, "mujoco error (njmax %d, nconmax %d, nstack %d): %s", e->m->njmax, e->m->nconmax,
             e->m->nstack, mj_last_error);
    return -1;
  }
  mj_step(e->m, e->d);
  mj_error_armed = 0;
  return 0;
}

/* Untimed: a warning means MuJoCo dropped constraints or reset the state, so the run is over. */
static int mj_check(void *engine, char *why, size_t why_size) {
  mj_engine_t *e = engine;
  static const struct {
    int id;
    const char *what;
  } fatal[] = {{mjWARN_CONTACTFULL, "contact buffer full"},
               {mjWARN_CNSTRFULL, "constraint buffer full"},
               {mjWARN_BADQACC, "bad qacc (state reset)"},
               {mjWARN_BADQVEL, "bad qvel"},
               {mjWARN_BADQPOS, "bad qpos"}};
  for (size_t k = 0; k < sizeof fatal / sizeof fatal[0]; ++k)
    if (e->d->warning[fatal[k].id].number > 0) {
      snprintf(why, why_size, "%s (njmax %d, nconmax %d, ncon %d, nefc %d): %s", fatal[k].what, e->m->njmax,
               e->m->nconmax, e->d->ncon, e->d->nefc, mj_last_warning);
      return -1;
    }
  return 0;
}

static void mj_get_states(void *engine, peers_state_t *states) {
  mj_engine_t *e = engine;
  /* mj_step leaves xpos/cvel at the state before its integration: recompute them (untimed). */
  mj_kinematics(e->m, e->d);
  mj_comPos(e->m, e->d);
  mj_comVel(e->m, e->d);
  for (int i = 0; i < e->scene->body_count; ++i) {
    int id = i + 1; /* body 0 is the world; bodies follow in the order written */
    mjtNum v[6];
    mj_objectVelocity(e->m, e->d, mjOBJ_BODY, id, v, 0); /* [angular; linear], world frame, at xpos */
    for (int k = 0; k < 3; ++k) {
      states[i].position[k] = e->d->xpos[3 * id + k];
      states[i].angular_velocity[k] = v[k];
      states[i].velocity[k] = v[3 + k];
    }
    for (int k = 0; k < 4; ++k) states[i].orientation[k] = e->d->xquat[4 * id + k];
  }
}

static const char *mj_describe(void) {
  static char text[256];
  snprintf(text, sizeof text,
           "MuJoCo %s, defaults (Euler, Newton, pyramidal cone, default <size> buffers), freejoint bodies; chain as "
           "a ball-joint tree; polyhedra as mesh geoms (its hull of the corners)",
           mj_versionString());
  return text;
}

static const char *mj_describe_sized(void) {
  static char text[256];
  snprintf(text, sizeof text,
           "MuJoCo %s as above, but <size njmax=\"min(4 (8N+100), cap)\" nconmax=\"njmax/4\"/>, cap 8000 "
           "by default (--mujoco-njmax): 2.2 allocates njmax² numbers",
           mj_versionString());
  return text;
}

const peers_engine_t peers_engine_mujoco = {"mujoco", mj_create_default, mj_step_guarded, mj_check, mj_get_states,
                                            mj_destroy, mj_describe, NULL};
const peers_engine_t peers_engine_mujoco_sized = {"mujoco-sized", mj_create_sized, mj_step_guarded, mj_check,
                                                  mj_get_states, mj_destroy, mj_describe_sized, NULL};
