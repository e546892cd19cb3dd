/* The run writer (clatter/output.h), inside clatter_io: the writer's state (clt_output_t), the one
 * table of diagnostics columns, and the functions its files share. Each file holds one concern of
 * writing a run file (docs/output-format.md): output.c the writer's life (create, record, flush,
 * close), output_tables.c the HDF5 tables and attributes, output_bodies.c /bodies and /shapes,
 * output_contacts.c /contacts, output_csv.c the diagnostics CSV, output_files.c the temporary
 * files and the disk (exclusive create, lock, reserve, publish, salvage), output_checkpoint.c
 * checkpoints, output_resume.c --resume, output_summary.c what `clatter info` reads; reading
 * goes through the run reader (run_reader.h). */
#ifndef CLATTER_IO_OUTPUT_INTERNAL_H
#define CLATTER_IO_OUTPUT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <hdf5.h>

#include "clatter/clatter.h"
#include "clatter/output.h"
#include "io/run_reader.h"

/* ---------------------------------------------------------------------------------------------
 * The diagnostics columns (SPEC.md §7): the CSV header and the /diagnostics datasets, in file
 * order. One line a column, X(name, kind, wall, late); its value is the clt_diagnostics_t field of
 * the same name (output_column_value). kind: COL_INT64, COL_INT32, COL_DOUBLE or COL_STATUS (the
 * solver status, a name in the CSV); wall: a wall-clock time, the only columns that differ between
 * identical runs; late: added after the format's first files, so --resume of a file without it
 * creates it, its earlier rows −1 (docs/output-format.md "Life cycle, interruption and resume").
 * A new column goes at the end, late: readers by position keep working. */
#define OUTPUT_COLUMNS(X)                          \
  X(step, COL_INT64, false, false)                 \
  X(t, COL_DOUBLE, false, false)                   \
  X(bodies, COL_INT32, false, false)               \
  X(contacts, COL_INT32, false, false)             \
  X(joints, COL_INT32, false, false)               \
  X(lcp_size, COL_INT32, false, false)             \
  X(iterations, COL_INT32, false, false)           \
  X(residual, COL_DOUBLE, false, false)            \
  X(solver_status, COL_STATUS, false, false)       \
  X(infeasibility, COL_DOUBLE, false, false)       \
  X(penetration, COL_DOUBLE, false, false)         \
  X(joint_error, COL_DOUBLE, false, false)         \
  X(kinetic_energy, COL_DOUBLE, false, false)      \
  X(potential_energy, COL_DOUBLE, false, false)    \
  X(wall_s, COL_DOUBLE, true, false)               \
  X(constraints, COL_INT32, false, false)          \
  X(relcp_iterations, COL_INT32, false, false)     \
  X(max_overlap, COL_DOUBLE, false, false)         \
  X(wall_collide_s, COL_DOUBLE, true, false)       \
  X(wall_assemble_s, COL_DOUBLE, true, false)      \
  X(wall_solve_s, COL_DOUBLE, true, false)         \
  X(solves, COL_INT32, false, true)                \
  X(set_misses, COL_INT32, false, true)            \
  X(touching_contacts, COL_INT32, false, true)     \
  /* the workspace's bytes: a resumed run's differ (its buffers start small again) */ \
  X(work_bytes, COL_INT64, false, true)            \
  /* the step's peak scratch: the same in a resumed run (use, not capacity) */        \
  X(arena_bytes, COL_INT64, false, true)

typedef enum column_kind_t { COL_INT64, COL_INT32, COL_DOUBLE, COL_STATUS } column_kind_t;

typedef struct column_t {
  const char *name;
  column_kind_t kind;
  bool wall, late;
} column_t;

/* COLUMN_step, COLUMN_t, …: a column's index; COLUMN_COUNT the number of columns. */
#define OUTPUT_COLUMN_INDEX(name, kind, wall, late) COLUMN_##name,
enum { OUTPUT_COLUMNS(OUTPUT_COLUMN_INDEX) COLUMN_COUNT };
#undef OUTPUT_COLUMN_INDEX

extern const column_t output_columns[COLUMN_COUNT]; /* (output_csv.c) */
double output_column_value(const clt_diagnostics_t *d, int column);

/* ---------------------------------------------------------------------------------------------
 * The writer's state */

/* Diagnostics rows buffered before a flush. */
#define DIAG_BUFFER_ROWS 4096

/* /trajectory series. TRAJ_BODIES and TRAJ_LENGTH only in a run whose world grows (a colony,
 * docs/output-format.md "Growing runs"): the bodies in the world at the frame, and each body's
 * capsule length. */
enum {
  TRAJ_STEP,
  TRAJ_TIME,
  TRAJ_POSITION,
  TRAJ_ORIENTATION,
  TRAJ_VELOCITY,
  TRAJ_ANGULAR,
  TRAJ_BODIES,
  TRAJ_LENGTH,
  TRAJ_JOINTS, /* joint_state: per joint θ, θ̇, limit and motor impulses, present (docs/actuation.md) */
  TRAJ_COUNT
};

/* θ, θ̇, limit impulse, motor impulse, present, then the 6 impulses of Θ's rows */
#define JOINT_STATE_COLUMNS 11

/* /contacts datasets: two per frame (first, count), the others per contact row. */
enum {
  CONT_FIRST,
  CONT_COUNT,
  CONT_POINT,
  CONT_BODY_A,
  CONT_BODY_B,
  CONT_NORMAL,
  CONT_DISTANCE,
  CONT_NORMAL_FORCE,
  CONT_FORCE,
  CONT_TOUCHING,
  CONT_DATASETS
};

/* Buffered contact rows (one per active contact of a recorded frame). */
typedef struct contact_rows_t {
  double *point, *normal, *force; /* 3 per row */
  double *distance, *normal_force;
  int32_t *body_a, *body_b;
  uint8_t *touching; /* 1 touching, 0 candidate only (clt_contact_info_t.touching) */
  int rows, capacity;
} contact_rows_t;

struct clt_output_t {
  char *path;
  char *tmp_path;
  char *csv_path; /* "" if no CSV */
  char *csv_tmp_path;
  hid_t file;
  FILE *csv;
  clt_scene_output_t options;
  int dimension;
  int body_count; /* bodies recorded per frame (a growing run: the world's count at the last frame) */
  clt_body_id_t *bodies;
  /* A growing run (the scene has a colony): bodies are added while it runs, /bodies and /shapes
   * grow with them and the per-body series' second dimension too (docs/output-format.md). */
  bool growing;
  const clt_colony_t *colony; /* its state goes into each checkpoint (clt_output_attach_colony) */
  int shape_rows, vertex_rows; /* rows of /shapes and /shapes/vertices written */
  int hull_rows;               /* rows of /shapes/hull_vertices written */
  int mesh_vertex_rows, mesh_triangle_rows; /* rows of /shapes/mesh_vertices, mesh_triangles */
  /* /trajectory/joint_state: the world's joints (a fixed set: no growing run has joints), and
   * whether the series is written (false on resuming a file that has none) */
  int joint_count;
  bool joint_series;
  /* diagnostics */
  hid_t diag[COLUMN_COUNT];
  double *diag_buffer; /* column-major: [column][row] */
  int diag_rows;
  /* trajectory */
  hid_t traj[TRAJ_COUNT];
  int traj_width[TRAJ_COUNT]; /* doubles per frame */
  double *traj_buffer[TRAJ_COUNT];
  int traj_capacity;
  int traj_rows;
  /* contacts (only with the trajectory: rows are indexed by frame) */
  bool contacts;
  double time_step;
  hid_t cont[CONT_DATASETS];
  int64_t *cont_first; /* per buffered frame, traj_capacity each */
  int64_t *cont_count;
  contact_rows_t cont_rows;
  int64_t contact_total; /* contact rows written + buffered */
  int64_t checkpoint_step;
  int64_t last_frame_step; /* step of the last trajectory frame recorded (−1: none) */
  int64_t last_step;
  double last_time;
  /* clt_output_record_final_state: the hash of the state the run ended in ("" if not recorded) */
  char state_hash[17];
  const clt_method_t *method; /* the world's (resume: how a missing /contacts/touching is made) */
  int64_t state_hash_step;
  /* the temporary files this process made (only those are removed), the descriptor that holds
   * the lock on tmp_path, and whether closing may replace an existing final file */
  bool own_tmp, own_csv_tmp;
  int lock_fd;
  bool replace_final;
  int64_t checkpoint_every; /* the root attribute checkpoint_every (0: none) */
  /* a write failed (errno then in write_errno): nothing more is recorded; clt_output_close cuts
   * the file back to its last complete step (salvage) */
  bool failed;
  int write_errno;
  int64_t first_step; /* the step of the first row (first_step attribute) */
  /* OUT.h5.tmp.reserve: room given back when the disk fills up, so that the file can still be
   * closed at its last complete step ("" once removed) */
  char *reserve_path;
  /* room a flush may take beyond its rows: a new chunk for every table (HDF5 allocates whole
   * chunks) and a megabyte for metadata (output_open_series) */
  uint64_t flush_margin;
};

/* What --resume and --start-from say of a file HDF5 cannot open (clt_run_file_open's not_hdf5;
 * tests/cli/test_start_from.sh matches it). */
#define OUTPUT_CANNOT_OPEN_HDF5 "cannot open as HDF5"

/* "fmt" with a and b (b NULL: "") into message, if there is one. */
static inline void set_message(char *message, size_t size, const char *fmt, const char *a, const char *b) {
  if (message && size) snprintf(message, size, fmt, a, b ? b : "");
}

/* ---------------------------------------------------------------------------------------------
 * output.c: the writer */

clt_output_t *output_alloc(const char *path, const clt_scene_t *scene);
void output_free(clt_output_t *out);
char *output_concat(const char *a, const char *b);
bool output_setup_bodies(clt_output_t *out, const clt_world_t *world);
bool output_grow(clt_output_t *out, const clt_world_t *world);
bool output_flush(clt_output_t *out);
void output_state_hash(const clt_world_t *world, char hash[17]);

/* ---------------------------------------------------------------------------------------------
 * output_tables.c: HDF5 tables and attributes */

hid_t output_string_type(size_t length);
herr_t output_set_attr_string(hid_t obj, const char *name, const char *value);
herr_t output_set_attr_int64(hid_t obj, const char *name, int64_t v);
herr_t output_set_attr_double(hid_t obj, const char *name, double v);
herr_t output_set_attr_doubles(hid_t obj, const char *name, int count, const double *v); /* a 1-D attribute */
hid_t output_create_group(hid_t loc, const char *name);
hid_t output_whole_chunk_access(void);
hid_t output_create_table(hid_t loc, const char *name, hid_t type, int inner_rank, const hsize_t *inner,
                          hsize_t chunk_rows);
herr_t output_set_body_columns(hid_t dset, hsize_t bodies);
hsize_t output_table_rows(hid_t dset);
herr_t output_append_rows(hid_t dset, hid_t mem_type, hsize_t rows, const void *data);
herr_t output_truncate_rows(hid_t dset, hsize_t rows);
double output_table_value(hid_t dset, hsize_t row);
int64_t output_rows_upto(hid_t dset, int64_t last_step);
bool output_traj_enabled(const clt_output_t *out, int k);
bool output_open_series(clt_output_t *out, bool create);

/* output_bodies.c: /bodies and /shapes */
/* Body i's info as the run file records it: a removed body (clt_world_remove_body) is a static body
 * without shapes or name. */
bool output_body_info(const clt_world_t *world, int i, clt_body_info_t *info);
bool output_write_bodies(clt_output_t *out, const clt_world_t *world, int from, int to, bool create);
/* /links (docs/output-format.md): a row per joint and per spring-damper, written when a run starts;
 * absent where the world has neither. */
bool output_write_links(hid_t file, const clt_world_t *world);
bool output_cut_bodies(clt_output_t *out, const clt_world_t *world);

/* output_contacts.c: /contacts */
bool output_record_contacts(clt_output_t *out, const clt_world_t *world, int r);
void output_free_contact_rows(contact_rows_t *c);
bool output_fill_touching(clt_output_t *out);
bool output_truncate_contacts(clt_output_t *out, int64_t frames);

/* output_csv.c: the diagnostics CSV */
void output_csv_header(FILE *f);
bool output_csv_row(FILE *f, const clt_diagnostics_t *d);
bool output_create_csv(clt_output_t *out, char *message, size_t message_size);
bool output_copy_csv_prefix(const char *from, FILE *o, int64_t last_step);
int64_t output_csv_rows(const char *path);
bool output_cut_csv(const char *path, int64_t rows);

/* output_files.c: the temporary files and the disk */
bool output_room_for(const clt_output_t *out, uint64_t bytes);
void output_release_reserve(clt_output_t *out);
void output_note_failure(clt_output_t *out, int err);
int output_create_exclusive(const char *path, const char *final, bool lock, char *message, size_t size);
bool output_make_reserve(clt_output_t *out, char *message, size_t size);
bool output_same_inode(int fd, const char *path);
int output_publish(const char *tmp, const char *final, bool replace);
bool output_final_free(const char *path, bool overwrite, char *message, size_t size);
bool output_copy_file(const char *from, int fd);
bool output_recover_interrupted(const char *path, char *message, size_t size);
clt_status_t output_close_failed(clt_output_t *out, clt_run_status_t run_status, const char *status_message,
                                 char *message, size_t message_size);

/* output_checkpoint.c */
clt_status_t output_load_checkpoint(hid_t file, const char *path, clt_world_t *world, clt_colony_t *colony,
                                    int64_t *step, char *message, size_t message_size);

/* output_summary.c: the stored scene, with CLT_ERR_IO or CLT_ERR_FORMAT in *status when NULL */
char *output_read_scene_json(const char *path, clt_status_t *status, char *message, size_t message_size);

#endif
