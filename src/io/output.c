/* Run output: HDF5 + CSV writer, resume, summary reader (output.h, docs/output-format.md).
 *
 * Every time-indexed dataset is chunked with an unlimited first dimension and grows by appends,
 * so a file cut short (interrupt, error) is still a valid file whose datasets simply end early;
 * resuming shrinks them back to the checkpoint's step. Object modification times are not
 * recorded (H5Pset_obj_track_times) so identical runs give identical data. */
#define _GNU_SOURCE /* O_NOFOLLOW, O_CLOEXEC, open file description locks (F_OFD_SETLK), link */
#include "clatter/output.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "clatter/clatter.h"
#include "io/h5_attr.h"

/* Diagnostics columns: the CSV header and the /diagnostics datasets (SPEC.md §7). */
typedef enum column_kind_t { COL_INT64, COL_INT32, COL_DOUBLE, COL_STATUS } column_kind_t;

typedef struct column_t {
  const char *name;
  column_kind_t kind;
  bool wall; /* wall-clock time: the only columns that differ between identical runs */
  bool late; /* added after the format's first files: --resume of a file without it creates it,
                its earlier rows -1 (docs/output-format.md "Life cycle, interruption and resume") */
} column_t;

static const column_t columns[] = {
    {"step", COL_INT64, false, false},
    {"t", COL_DOUBLE, false, false},
    {"bodies", COL_INT32, false, false},
    {"contacts", COL_INT32, false, false},
    {"joints", COL_INT32, false, false},
    {"lcp_size", COL_INT32, false, false},
    {"iterations", COL_INT32, false, false},
    {"residual", COL_DOUBLE, false, false},
    {"solver_status", COL_STATUS, false, false},
    {"infeasibility", COL_DOUBLE, false, false},
    {"penetration", COL_DOUBLE, false, false},
    {"joint_error", COL_DOUBLE, false, false},
    {"kinetic_energy", COL_DOUBLE, false, false},
    {"potential_energy", COL_DOUBLE, false, false},
    {"wall_s", COL_DOUBLE, true, false},
    {"constraints", COL_INT32, false, false},
    {"relcp_iterations", COL_INT32, false, false},
    {"max_overlap", COL_DOUBLE, false, false},
    {"wall_collide_s", COL_DOUBLE, true, false},
    {"wall_assemble_s", COL_DOUBLE, true, false},
    {"wall_solve_s", COL_DOUBLE, true, false},
    {"solves", COL_INT32, false, true},
    {"set_misses", COL_INT32, false, true},
    {"touching_contacts", COL_INT32, false, true}, /* (at the end: readers by position keep working) */
    /* the workspace's bytes: not reproduced by a resumed run (its buffers start small again) */
    {"work_bytes", COL_INT64, false, true},
};
#define COLUMN_COUNT ((int)(sizeof columns / sizeof columns[0]))

static double column_value(const clt_diagnostics_t *d, int column) {
  switch (column) {
    case 0: return (double)d->step;
    case 1: return d->t;
    case 2: return d->bodies;
    case 3: return d->contacts;
    case 4: return d->joints;
    case 5: return d->lcp_size;
    case 6: return d->iterations;
    case 7: return d->residual;
    case 8: return (double)d->solver_status;
    case 9: return d->infeasibility;
    case 10: return d->penetration;
    case 11: return d->joint_error;
    case 12: return d->kinetic_energy;
    case 13: return d->potential_energy;
    case 14: return d->wall_s;
    case 15: return d->constraints;
    case 16: return d->relcp_iterations;
    case 17: return d->max_overlap;
    case 18: return d->wall_collide_s;
    case 19: return d->wall_assemble_s;
    case 20: return d->wall_solve_s;
    case 21: return d->solves;
    case 22: return d->set_misses;
    case 23: return d->touching_contacts;
    case 24: return (double)d->work_bytes;
    default: return 0;
  }
}

#define DIAG_BUFFER_ROWS 4096
/* Frames are buffered up to 1 MB (all series together) before they are appended, and a chunk of a
 * per-body series holds that many frames (open_series): more buffering saves no write and is memory
 * held for the run (8 MB made 7.6 MB more peak RSS in a `clatter run` of the 8·10³ pile). At least
 * one frame is buffered, at most 1 024. */
#define TRAJ_BUFFER_BYTES (1u << 20)

/* TRAJ_BODIES and TRAJ_LENGTH only in a run whose world grows (a colony, docs/output-format.md
 * "Growing runs"): the bodies in the world at the frame, and each body's capsule length. */
enum {
  TRAJ_STEP,
  TRAJ_TIME,
  TRAJ_POSITION,
  TRAJ_ORIENTATION,
  TRAJ_VELOCITY,
  TRAJ_ANGULAR,
  TRAJ_BODIES,
  TRAJ_LENGTH,
  TRAJ_COUNT
};

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
static const char *const cont_names[CONT_DATASETS] = {
    "first", "count", "point", "body_a", "body_b", "normal", "distance", "normal_force", "force", "touching"};
/* Buffered contact rows before a flush (about 6 MB). */
#define CONT_BUFFER_ROWS 65536

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
   * chunks) and a megabyte for metadata (open_series) */
  uint64_t flush_margin;
};

/* The reserve's size: room for HDF5 to write its cached metadata and close the file, and for the
 * CSV to be cut, after a write found the disk full (docs/output-format.md "A full disk"). */
#define RESERVE_BYTES ((off_t)4 << 20)

/* Whether the disk holding the output has `bytes` free for this process (root may use the blocks
 * a file system keeps back from other users; true when it cannot be told). A flush is not started
 * without room: HDF5 1.10 cannot flush or close a file again after a metadata flush failed
 * half-way ("slist already enabled"), but it can after a refused one, and the reserve then closes
 * it (salvage). */
static bool room_for(const clt_output_t *out, uint64_t bytes) {
  struct statvfs vfs;
  if (statvfs(out->tmp_path, &vfs) != 0) return true;
  uint64_t blocks = geteuid() == 0 ? (uint64_t)vfs.f_bfree : (uint64_t)vfs.f_bavail;
  return blocks * (uint64_t)vfs.f_frsize >= bytes;
}

static void release_reserve(clt_output_t *out) {
  if (out->reserve_path && out->reserve_path[0]) {
    unlink(out->reserve_path);
    out->reserve_path[0] = '\0';
  }
}

/* Marks out failed after a write that did not succeed, keeping errno's reason; a full disk gets
 * the reserve's room back at once. */
static void note_failure(clt_output_t *out, int err) {
  if (!out->failed) out->write_errno = err;
  out->failed = true;
  release_reserve(out);
}

/* ---------------------------------------------------------------------------------------------
 * Temporary files: made exclusively, never through a link, locked while written (output.h) */

/* Whether some open file holds a write lock on path (false also when path cannot be opened).
 * The lock is an open file description lock (F_OFD_SETLK): a classic POSIX lock belongs to the
 * process and goes when it closes any descriptor of the file, which HDF5 does while it creates
 * one, and a BSD lock (flock) would collide with HDF5's own on its descriptor. */
static bool locked(const char *path) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  bool held = fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
  close(fd);
  return held;
}

/* Why a temporary file that exists cannot be made: another run is writing it, or one was
 * interrupted (then --resume continues it). */
static void explain_existing(const char *tmp, const char *final, char *message, size_t size) {
  if (locked(tmp))
    snprintf(message, size, "%s: another run is writing %s (it holds the lock on this file); wait for it or "
             "choose another -o", tmp, final);
  else
    snprintf(message, size,
             "%s exists: a run writing %s was interrupted; continue it with `clatter run --resume %s`, or delete %s "
             "to start again",
             tmp, final, final, tmp);
}

/* Creates path (which must not exist; a link there is not followed) for writing. lock: also takes
 * a write lock on it (locked()), kept while the descriptor is open. Returns the descriptor, or −1 with a
 * message. */
static int create_exclusive(const char *path, const char *final, bool lock, char *message, size_t size) {
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) explain_existing(path, final, message, size);
    else snprintf(message, size, "%s: cannot create: %s", path, strerror(errno));
    return -1;
  }
  if (lock) {
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
      snprintf(message, size, "%s: cannot lock: %s", path, strerror(errno));
      close(fd);
      unlink(path);
      return -1;
    }
  }
  return fd;
}

/* Makes out->reserve_path (RESERVE_BYTES of allocated blocks) beside the temporary file. A
 * reserve left by a killed run of the same output is replaced: the caller holds the lock on the
 * temporary file, so no live run owns it. False with the system's reason when there is no room. */
static bool make_reserve(clt_output_t *out, char *message, size_t size) {
  unlink(out->reserve_path);
  int fd = open(out->reserve_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int err = fd < 0 ? errno : posix_fallocate(fd, 0, RESERVE_BYTES);
  if (fd >= 0) close(fd);
  if (err != 0) {
    if (fd >= 0) unlink(out->reserve_path);
    out->reserve_path[0] = '\0';
    snprintf(message, size,
             "%s: cannot keep %d MiB of room beside the output (%s): a run keeps it to close its file cleanly "
             "if the disk fills up",
             out->tmp_path, (int)(RESERVE_BYTES >> 20), strerror(err));
    return false;
  }
  return true;
}

/* Whether path is still the file behind fd (nobody swapped it between our create and a reopen
 * by name, as HDF5 does). */
static bool same_inode(int fd, const char *path) {
  struct stat a, b;
  return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && S_ISREG(b.st_mode) && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

/* tmp → final: rename where the final file may be replaced (a resumed run, --overwrite), else a
 * hard link that fails if the final name exists, then the temporary name removed. */
static int publish(const char *tmp, const char *final, bool replace) {
  if (replace) return rename(tmp, final);
  if (link(tmp, final) != 0) return -1;
  return unlink(tmp);
}

/* ---------------------------------------------------------------------------------------------
 * HDF5 helpers */

typedef struct silence_t {
  H5E_auto2_t func;
  void *data;
} silence_t;

static silence_t silence_begin(void) {
  silence_t s = {NULL, NULL};
  H5Eget_auto2(H5E_DEFAULT, &s.func, &s.data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  return s;
}

static void silence_end(silence_t s) { H5Eset_auto2(H5E_DEFAULT, s.func, s.data); }

static void set_message(char *message, size_t size, const char *fmt, const char *a, const char *b) {
  if (message && size) snprintf(message, size, fmt, a, b ? b : "");
}

static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static char *concat(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *d = malloc(na + nb + 1);
  if (d) {
    memcpy(d, a, na);
    memcpy(d + na, b, nb + 1);
  }
  return d;
}

static hid_t string_type(size_t length) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, length > 0 ? length : 1);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  return t;
}

static herr_t set_attr_string(hid_t obj, const char *name, const char *value) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  hid_t type = string_type(strlen(value) + 1);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t r = attr < 0 ? -1 : H5Awrite(attr, type, value);
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  return r;
}

static herr_t set_attr_scalar(hid_t obj, const char *name, hid_t file_type, hid_t mem_type,
                              const void *value) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t r = attr < 0 ? -1 : H5Awrite(attr, mem_type, value);
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  return r;
}

static herr_t set_attr_int64(hid_t obj, const char *name, int64_t v) {
  return set_attr_scalar(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

static herr_t set_attr_double(hid_t obj, const char *name, double v) {
  return set_attr_scalar(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

static bool get_attr_string(hid_t obj, const char *name, char *buf, size_t size) {
  return clt_h5_read_attr_string(obj, name, buf, size);
}

static bool get_attr_int64(hid_t obj, const char *name, int64_t *v) {
  return clt_h5_read_attr_number(obj, name, H5T_NATIVE_INT64, v);
}

static bool get_attr_double(hid_t obj, const char *name, double *v) {
  return clt_h5_read_attr_number(obj, name, H5T_NATIVE_DOUBLE, v);
}

static hid_t create_group(hid_t loc, const char *name) {
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_obj_track_times(gcpl, 0);
  hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
  H5Pclose(gcpl);
  return g;
}

/* Access to a dataset that is written one whole chunk at a time (a trajectory series whose chunk
 * is one frame: each flush writes one frame, clt_output_t.traj_capacity = 1): without HDF5's chunk
 * cache (1 MB per dataset by default), which would keep a copy of the last chunk written, 2.9 MB for
 * the three 192 kB series of the 8·10³ pile (docs/design/granular.md "Memory"). Other
 * datasets are appended in parts of a chunk, which the cache keeps from being read back. */
static hid_t whole_chunk_access(void) {
  hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
  if (dapl >= 0) H5Pset_chunk_cache(dapl, 0, 0, 1.0);
  return dapl;
}

/* A dataset rows × inner[0] × inner[1] with an unlimited number of rows (chunk_rows == 1: written
 * a frame at a time, whole_chunk_access). */
static hid_t create_table(hid_t loc, const char *name, hid_t type, int inner_rank, const hsize_t *inner,
                          hsize_t chunk_rows) {
  hsize_t dims[3] = {0, 0, 0}, maxdims[3] = {H5S_UNLIMITED, 0, 0}, chunk[3] = {chunk_rows, 0, 0};
  for (int i = 0; i < inner_rank; i++) {
    dims[i + 1] = maxdims[i + 1] = chunk[i + 1] = inner[i] > 0 ? inner[i] : 1;
  }
  hid_t space = H5Screate_simple(inner_rank + 1, dims, maxdims);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, inner_rank + 1, chunk);
  H5Pset_obj_track_times(dcpl, 0);
  hid_t dapl = inner_rank > 0 && chunk_rows == 1 ? whole_chunk_access() : H5P_DEFAULT;
  hid_t d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, dapl);
  if (dapl != H5P_DEFAULT) H5Pclose(dapl);
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

/* A per-body series of a growing run: frames × bodies (× inner[1]), both extendible; a body added
 * later reads NaN (the fill value) in the frames before it existed. A chunk holds 16 frames of 256
 * bodies. */
static hid_t create_growing_table(hid_t loc, const char *name, int inner_rank, const hsize_t *inner) {
  hsize_t dims[3] = {0, inner[0], inner_rank > 1 ? inner[1] : 1};
  hsize_t maxdims[3] = {H5S_UNLIMITED, H5S_UNLIMITED, dims[2]}, chunk[3] = {16, 256, dims[2]};
  hid_t space = H5Screate_simple(inner_rank + 1, dims, maxdims);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  double fill = NAN;
  H5Pset_chunk(dcpl, inner_rank + 1, chunk);
  H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill);
  H5Pset_obj_track_times(dcpl, 0);
  hid_t d = H5Dcreate2(loc, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

/* Sets the bodies dimension (the second) of a growing run's per-body series. */
static herr_t set_body_columns(hid_t dset, hsize_t bodies) {
  hid_t space = H5Dget_space(dset);
  hsize_t dims[3] = {0, 0, 0};
  int rank = H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  if (rank < 2) return -1;
  if (dims[1] == bodies) return 0;
  dims[1] = bodies;
  return H5Dset_extent(dset, dims);
}

/* Opens a table of a run file to append to it: as create_table made it (whole_chunk_access where
 * its chunk is one row of an inner_rank > 0 table). */
static hid_t open_table(hid_t loc, const char *name) {
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  if (d < 0) return d;
  hid_t dcpl = H5Dget_create_plist(d);
  hsize_t chunk[3] = {0, 0, 0};
  int rank = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED ? H5Pget_chunk(dcpl, 3, chunk) : 0;
  if (dcpl >= 0) H5Pclose(dcpl);
  if (rank > 1 && chunk[0] == 1) {
    hid_t dapl = whole_chunk_access();
    H5Dclose(d);
    d = H5Dopen2(loc, name, dapl);
    H5Pclose(dapl);
  }
  return d;
}

static hsize_t table_rows(hid_t dset) {
  hid_t space = H5Dget_space(dset);
  hsize_t dims[3] = {0, 0, 0};
  H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  return dims[0];
}

/* Appends rows (row-major, mem_type elements) to a table. */
static herr_t append_rows(hid_t dset, hid_t mem_type, hsize_t rows, const void *data) {
  if (rows == 0) return 0;
  hid_t space = H5Dget_space(dset);
  int rank = H5Sget_simple_extent_ndims(space);
  hsize_t dims[3] = {0, 0, 0};
  H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  hsize_t start[3] = {dims[0], 0, 0}, count[3] = {rows, dims[1], dims[2]};
  dims[0] += rows;
  if (H5Dset_extent(dset, dims) < 0) return -1;
  space = H5Dget_space(dset);
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
  hid_t mem = H5Screate_simple(rank, count, NULL);
  herr_t r = H5Dwrite(dset, mem_type, mem, space, H5P_DEFAULT, data);
  H5Sclose(mem);
  H5Sclose(space);
  return r;
}

static herr_t truncate_rows(hid_t dset, hsize_t rows) {
  hid_t space = H5Dget_space(dset);
  hsize_t dims[3] = {0, 0, 0};
  H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  if (dims[0] <= rows) return 0;
  dims[0] = rows;
  return H5Dset_extent(dset, dims);
}

/* ---------------------------------------------------------------------------------------------
 * Names */

const char *clt_run_status_name(clt_run_status_t status) {
  switch (status) {
    case CLT_RUN_RUNNING: return "running";
    case CLT_RUN_COMPLETE: return "complete";
    case CLT_RUN_INTERRUPTED: return "interrupted";
    case CLT_RUN_ERROR: return "error";
    case CLT_RUN_DIVERGED: return "diverged";
  }
  return "unknown";
}

void clt_output_csv_path(const char *h5_path, char *buf, size_t size) {
  size_t n = strlen(h5_path);
  const char *ext = NULL;
  if (n > 3 && strcmp(h5_path + n - 3, ".h5") == 0) ext = h5_path + n - 3;
  if (n > 5 && strcmp(h5_path + n - 5, ".hdf5") == 0) ext = h5_path + n - 5;
  int stem = (int)(ext ? (size_t)(ext - h5_path) : n);
  snprintf(buf, size, "%.*s.csv", stem, h5_path);
}

/* The scene's body/shape type names as written in files (match docs/scene-format.md). */
static const char *body_type_name(clt_body_type_t t) {
  switch (t) {
    case CLT_BODY_DYNAMIC: return "dynamic";
    case CLT_BODY_STATIC: return "static";
    case CLT_BODY_KINEMATIC: return "kinematic";
  }
  return "unknown";
}

static const char *shape_type_name(clt_shape_type_t t) {
  static const char *const names[] = {"disk",      "halfplane", "segment", "ellipse",   "polygon", "sphere",
                                      "halfspace", "box",       "capsule", "ellipsoid", "torus"};
  return (int)t >= 0 && t < CLT_SHAPE_TYPE_COUNT ? names[t] : "unknown";
}

/* ---------------------------------------------------------------------------------------------
 * Writer */

static void output_free(clt_output_t *out) {
  if (!out) return;
  for (int i = 0; i < COLUMN_COUNT; i++) {
    if (out->diag[i] > 0) H5Dclose(out->diag[i]);
  }
  for (int i = 0; i < TRAJ_COUNT; i++) {
    if (out->traj[i] > 0) H5Dclose(out->traj[i]);
    free(out->traj_buffer[i]);
  }
  for (int i = 0; i < CONT_DATASETS; i++) {
    if (out->cont[i] > 0) H5Dclose(out->cont[i]);
  }
  contact_rows_t *c = &out->cont_rows;
  free(c->point);
  free(c->normal);
  free(c->force);
  free(c->distance);
  free(c->normal_force);
  free(c->body_a);
  free(c->body_b);
  free(c->touching);
  free(out->cont_first);
  free(out->cont_count);
  if (out->file > 0) H5Fclose(out->file);
  if (out->csv) fclose(out->csv);
  if (out->lock_fd >= 0) close(out->lock_fd);
  free(out->diag_buffer);
  free(out->bodies);
  release_reserve(out);
  free(out->reserve_path);
  free(out->path);
  free(out->tmp_path);
  free(out->csv_path);
  free(out->csv_tmp_path);
  free(out);
}

static clt_output_t *output_alloc(const char *path, const clt_scene_t *scene) {
  clt_output_t *out = calloc(1, sizeof *out);
  if (!out) return NULL;
  for (int i = 0; i < COLUMN_COUNT; i++) out->diag[i] = -1;
  for (int i = 0; i < TRAJ_COUNT; i++) out->traj[i] = -1;
  for (int i = 0; i < CONT_DATASETS; i++) out->cont[i] = -1;
  out->file = -1;
  out->lock_fd = -1;
  out->checkpoint_step = -1;
  out->last_frame_step = -1;
  out->options = *clt_scene_output(scene);
  out->contacts = out->options.contacts && out->options.trajectory;
  out->time_step = clt_scene_time_step(scene);
  out->dimension = clt_scene_dimension(scene);
  out->growing = clt_scene_colony(scene) != NULL;
  char csv[4096];
  clt_output_csv_path(path, csv, sizeof csv);
  out->path = dup_string(path);
  out->tmp_path = concat(path, ".tmp");
  out->csv_path = dup_string(out->options.csv ? csv : "");
  out->csv_tmp_path = concat(csv, ".tmp");
  out->reserve_path = concat(path, ".tmp.reserve");
  out->diag_buffer = malloc(sizeof(double) * COLUMN_COUNT * DIAG_BUFFER_ROWS);
  if (!out->path || !out->tmp_path || !out->csv_path || !out->csv_tmp_path || !out->reserve_path ||
      !out->diag_buffer) {
    output_free(out);
    return NULL;
  }
  return out;
}

/* The frame buffers for n bodies (none buffered: called at setup and, in a growing run, after a
 * flush). */
static bool size_buffers(clt_output_t *out, int n) {
  int widths[TRAJ_COUNT] = {1,     1, 3 * n, out->dimension == 3 ? 4 * n : n, 3 * n, out->dimension == 3 ? 3 * n : n,
                            1, n};
  size_t per_frame = 0;
  for (int i = 0; i < TRAJ_COUNT; i++) {
    out->traj_width[i] = widths[i];
    per_frame += (size_t)widths[i] * sizeof(double);
  }
  size_t cap = TRAJ_BUFFER_BYTES / per_frame;
  out->traj_capacity = (int)(cap < 1 ? 1 : cap > 1024 ? 1024 : cap);
  for (int i = 0; i < TRAJ_COUNT; i++) {
    free(out->traj_buffer[i]);
    out->traj_buffer[i] = malloc(sizeof(double) * (size_t)widths[i] * (size_t)out->traj_capacity);
    if (!out->traj_buffer[i]) return false;
  }
  free(out->cont_first);
  free(out->cont_count);
  out->cont_first = malloc(sizeof(int64_t) * (size_t)out->traj_capacity);
  out->cont_count = malloc(sizeof(int64_t) * (size_t)out->traj_capacity);
  return out->cont_first && out->cont_count;
}

/* The bodies recorded per frame: the world's (in creation order). */
static bool setup_bodies(clt_output_t *out, const clt_world_t *world) {
  out->method = clt_world_method(world);
  int n = clt_world_body_count(world);
  clt_body_id_t *bodies = realloc(out->bodies, sizeof *bodies * (size_t)(n > 0 ? n : 1));
  if (!bodies) return false;
  out->bodies = bodies;
  out->body_count = n;
  for (int i = 0; i < n; i++) out->bodies[i] = clt_world_body_at(world, i);
  return size_buffers(out, n);
}

/* Room for `more` further buffered contact rows. */
static bool contact_rows_reserve(contact_rows_t *c, int more) {
  if (c->rows + more <= c->capacity) return true;
  int cap = c->capacity > 0 ? c->capacity : 64;
  while (cap < c->rows + more) cap *= 2;
  double *point = realloc(c->point, sizeof(double) * 3 * (size_t)cap);
  if (point) c->point = point;
  double *normal = realloc(c->normal, sizeof(double) * 3 * (size_t)cap);
  if (normal) c->normal = normal;
  double *force = realloc(c->force, sizeof(double) * 3 * (size_t)cap);
  if (force) c->force = force;
  double *distance = realloc(c->distance, sizeof(double) * (size_t)cap);
  if (distance) c->distance = distance;
  double *normal_force = realloc(c->normal_force, sizeof(double) * (size_t)cap);
  if (normal_force) c->normal_force = normal_force;
  int32_t *body_a = realloc(c->body_a, sizeof(int32_t) * (size_t)cap);
  if (body_a) c->body_a = body_a;
  int32_t *body_b = realloc(c->body_b, sizeof(int32_t) * (size_t)cap);
  if (body_b) c->body_b = body_b;
  uint8_t *touching = realloc(c->touching, (size_t)cap);
  if (touching) c->touching = touching;
  if (!point || !normal || !force || !distance || !normal_force || !body_a || !body_b || !touching) return false;
  c->capacity = cap;
  return true;
}

static const char *const traj_names[TRAJ_COUNT] = {"step",     "time",     "position", "orientation",
                                                   "velocity", "angular_velocity", "bodies", "length"};

static bool traj_enabled(const clt_output_t *out, int k) {
  if (!out->options.trajectory) return false;
  if ((k == TRAJ_VELOCITY || k == TRAJ_ANGULAR) && !out->options.velocities) return false;
  if ((k == TRAJ_BODIES || k == TRAJ_LENGTH) && !out->growing) return false;
  return true;
}

static const char *traj_name(const clt_output_t *out, int k) {
  if (k == TRAJ_ORIENTATION && out->dimension == 2) return "angle";
  return traj_names[k];
}

/* Appends `rows` values −1 (not recorded) to a diagnostics column created on resume. */
static bool fill_unrecorded(hid_t dset, hsize_t rows) {
  enum { BLOCK = 4096 };
  int32_t fill[BLOCK];
  for (int i = 0; i < BLOCK; i++) fill[i] = -1;
  for (hsize_t done = 0; done < rows;) {
    hsize_t n = rows - done < BLOCK ? rows - done : BLOCK;
    if (append_rows(dset, H5T_NATIVE_INT32, n, fill) < 0) return false;
    done += n;
  }
  return true;
}

/* Reads a whole 1-D dataset of the open /contacts (out->cont[k]) as mem_type elements. */
static void *read_contact_column(const clt_output_t *out, int k, hid_t mem_type, size_t elem, hsize_t *rows) {
  *rows = 0;
  if (!clt_h5_column_rows(out->cont[k], rows)) return NULL;
  void *v = malloc(elem * (size_t)(*rows > 0 ? *rows : 1));
  if (v && *rows > 0 && H5Dread(out->cont[k], mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
    free(v);
    v = NULL;
  }
  return v;
}

/* /contacts/touching of a file written before it (--resume): the rule of clt_contact_info_t.touching
 * applied to the stored rows, frame by frame — distance ≤ CLT_TOUCH_GAP_FRACTION · ε̂, or a normal
 * force above CLT_TOUCH_IMPULSE_FRACTION of the frame's largest (forces are the impulses over h). */
static bool fill_touching(clt_output_t *out) {
  hsize_t nf = 0, nc = 0, nd = 0, nn = 0;
  int64_t *first = read_contact_column(out, CONT_FIRST, H5T_NATIVE_INT64, 8, &nf);
  int64_t *count = read_contact_column(out, CONT_COUNT, H5T_NATIVE_INT64, 8, &nc);
  double *distance = read_contact_column(out, CONT_DISTANCE, H5T_NATIVE_DOUBLE, 8, &nd);
  double *normal_force = read_contact_column(out, CONT_NORMAL_FORCE, H5T_NATIVE_DOUBLE, 8, &nn);
  uint8_t *touching = malloc((size_t)(nd > 0 ? nd : 1));
  bool ok = first && count && distance && normal_force && touching && nf == nc && nd == nn;
  if (ok) memset(touching, 0, (size_t)nd);
  const clt_method_t *m = out->method;
  for (hsize_t f = 0; ok && f < nf; f++) {
    if (first[f] < 0 || count[f] < 0 || (hsize_t)(first[f] + count[f]) > nd) {
      ok = false;
      break;
    }
    double largest = 0.0;
    for (int64_t i = first[f]; i < first[f] + count[f]; i++) largest = fmax(largest, normal_force[i]);
    for (int64_t i = first[f]; i < first[f] + count[f]; i++)
      touching[i] = distance[i] <= CLT_TOUCH_GAP_FRACTION * m->active_set_eps ||
                    normal_force[i] > CLT_TOUCH_IMPULSE_FRACTION * largest;
  }
  ok = ok && append_rows(out->cont[CONT_TOUCHING], H5T_NATIVE_UINT8, nd, touching) >= 0;
  free(first);
  free(count);
  free(distance);
  free(normal_force);
  free(touching);
  return ok;
}

/* Creates (fresh) or opens (resume) the time-indexed datasets. */
/* Bytes of one chunk of a table (0 if it is not chunked). */
static uint64_t chunk_bytes(hid_t d) {
  hid_t dcpl = H5Dget_create_plist(d), type = H5Dget_type(d);
  hsize_t chunk[3] = {0, 0, 0};
  int rank = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED ? H5Pget_chunk(dcpl, 3, chunk) : 0;
  uint64_t bytes = rank > 0 && type >= 0 ? H5Tget_size(type) : 0;
  for (int i = 0; i < rank; i++) bytes *= chunk[i];
  if (type >= 0) H5Tclose(type);
  if (dcpl >= 0) H5Pclose(dcpl);
  return bytes;
}

/* Whether an existing table has the shape create_table gives it for this world, so that rows of
 * the world's size can be appended (a damaged or crafted file must not make the append read past
 * the row buffers): extendible rows, inner dimensions equal, a numeric type. */
static bool table_shape_ok(hid_t d, int inner_rank, const hsize_t *inner) {
  if (d < 0) return false;
  hid_t space = H5Dget_space(d), type = H5Dget_type(d);
  hsize_t dims[3] = {0, 0, 0}, maxdims[3] = {0, 0, 0};
  int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
  bool ok = rank == inner_rank + 1 && H5Sget_simple_extent_dims(space, dims, maxdims) == rank &&
            maxdims[0] == H5S_UNLIMITED && type >= 0 &&
            (H5Tget_class(type) == H5T_INTEGER || H5Tget_class(type) == H5T_FLOAT);
  for (int i = 0; ok && i < inner_rank; i++) ok = dims[i + 1] == (inner[i] > 0 ? inner[i] : 1);
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
  return ok;
}

static bool open_series(clt_output_t *out, bool create) {
  hid_t file = out->file;
  int n = out->body_count;
  if (out->options.trajectory) {
    hid_t g = create ? create_group(file, "trajectory") : H5Gopen2(file, "trajectory", H5P_DEFAULT);
    if (g < 0) return false;
    /* a chunk of the per-body series holds the frames one flush writes (traj_capacity, setup_bodies):
     * from about 5 000 bodies on that is one frame, and each flush writes whole chunks */
    hsize_t chunk = (hsize_t)out->traj_capacity;
    for (int k = 0; k < TRAJ_COUNT; k++) {
      if (!traj_enabled(out, k)) continue;
      const char *name = traj_name(out, k);
      hsize_t inner[2] = {(hsize_t)n, 3};
      int rank = k == TRAJ_STEP || k == TRAJ_TIME || k == TRAJ_BODIES ? 0 : 2;
      if (k == TRAJ_ORIENTATION) inner[1] = 4;
      if ((k == TRAJ_ORIENTATION || k == TRAJ_ANGULAR) && out->dimension == 2) rank = 1;
      if (k == TRAJ_LENGTH) rank = 1;
      if (!create) {
        out->traj[k] = open_table(g, name);
        /* a growing run's series are cut or extended to the bodies of the restored state */
        if (out->traj[k] >= 0 && out->growing && rank > 0 && set_body_columns(out->traj[k], (hsize_t)n) < 0) {
          H5Gclose(g);
          return false;
        }
        if (out->traj[k] >= 0 && !table_shape_ok(out->traj[k], rank, inner)) {
          H5Gclose(g);
          return false;
        }
      } else if (k == TRAJ_BODIES) {
        out->traj[k] = create_table(g, name, H5T_STD_I32LE, 0, NULL, 1024);
      } else if (out->growing && rank > 0) {
        out->traj[k] = create_growing_table(g, name, rank, inner);
      } else if (k == TRAJ_STEP) {
        out->traj[k] = create_table(g, name, H5T_STD_I64LE, 0, NULL, 1024);
      } else if (k == TRAJ_TIME) {
        out->traj[k] = create_table(g, name, H5T_IEEE_F64LE, 0, NULL, 1024);
      } else {
        out->traj[k] = create_table(g, name, H5T_IEEE_F64LE, rank, inner, chunk);
      }
      if (out->traj[k] < 0) {
        H5Gclose(g);
        return false;
      }
    }
    H5Gclose(g);
  }
  if (out->contacts && !create && H5Lexists(file, "contacts", H5P_DEFAULT) <= 0) {
    /* A run file written before /contacts existed: continue it without. */
    out->contacts = false;
  }
  if (out->contacts) {
    hid_t g = create ? create_group(file, "contacts") : H5Gopen2(file, "contacts", H5P_DEFAULT);
    if (g < 0) return false;
    for (int k = 0; k < CONT_DATASETS; k++) {
      hsize_t three = 3;
      bool vector = k == CONT_POINT || k == CONT_NORMAL || k == CONT_FORCE;
      hid_t type = k == CONT_FIRST || k == CONT_COUNT     ? H5T_STD_I64LE
                   : k == CONT_BODY_A || k == CONT_BODY_B ? H5T_STD_I32LE
                   : k == CONT_TOUCHING                   ? H5T_STD_U8LE
                                                          : H5T_IEEE_F64LE;
      if (!create && k == CONT_TOUCHING && H5Lexists(g, cont_names[k], H5P_DEFAULT) <= 0) {
        /* a file of before the dataset: made from its rows' distance and normal_force */
        out->cont[k] = create_table(g, cont_names[k], type, 0, NULL, 4096);
        if (out->cont[k] >= 0 && !fill_touching(out)) {
          H5Gclose(g);
          return false;
        }
      } else if (!create) {
        out->cont[k] = H5Dopen2(g, cont_names[k], H5P_DEFAULT);
        if (out->cont[k] >= 0 && !table_shape_ok(out->cont[k], vector ? 1 : 0, &three)) {
          H5Gclose(g);
          return false;
        }
      } else {
        out->cont[k] = create_table(g, cont_names[k], type, vector ? 1 : 0, &three,
                                    k == CONT_FIRST || k == CONT_COUNT ? 1024 : 4096);
      }
      if (out->cont[k] < 0) {
        H5Gclose(g);
        return false;
      }
    }
    H5Gclose(g);
  }
  if (out->options.diagnostics) {
    hid_t g = create ? create_group(file, "diagnostics") : H5Gopen2(file, "diagnostics", H5P_DEFAULT);
    if (g < 0) return false;
    for (int c = 0; c < COLUMN_COUNT; c++) {
      if (!create && columns[c].late && H5Lexists(g, columns[c].name, H5P_DEFAULT) <= 0) {
        /* a file of before the column: its rows so far get -1 (not recorded), --resume cuts them
         * back to the checkpoint like the other columns' */
        out->diag[c] = create_table(g, columns[c].name, columns[c].kind == COL_INT64 ? H5T_STD_I64LE : H5T_STD_I32LE,
                                    0, NULL, 4096);
        if (out->diag[c] >= 0 && !fill_unrecorded(out->diag[c], table_rows(out->diag[0]))) {
          H5Gclose(g);
          return false;
        }
      } else if (!create) {
        out->diag[c] = H5Dopen2(g, columns[c].name, H5P_DEFAULT);
        if (out->diag[c] >= 0 && !table_shape_ok(out->diag[c], 0, NULL)) {
          H5Gclose(g);
          return false;
        }
      } else {
        hid_t type = columns[c].kind == COL_INT64    ? H5T_STD_I64LE
                     : columns[c].kind == COL_DOUBLE ? H5T_IEEE_F64LE
                                                     : H5T_STD_I32LE;
        out->diag[c] = create_table(g, columns[c].name, type, 0, NULL, 4096);
        if (out->diag[c] >= 0 && columns[c].kind == COL_STATUS) {
          set_attr_string(out->diag[c], "values", "0=none,1=solved,2=ray,3=max_iterations,4=error,5=not_converged");
        }
        if (out->diag[c] >= 0 && columns[c].wall) set_attr_string(out->diag[c], "units", "s (wall clock)");
      }
      if (out->diag[c] < 0) {
        H5Gclose(g);
        return false;
      }
    }
    H5Gclose(g);
  }
  out->flush_margin = 1u << 20;
  hid_t *tables[] = {out->diag, out->traj, out->cont};
  int counts[] = {COLUMN_COUNT, TRAJ_COUNT, CONT_DATASETS};
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < counts[t]; i++)
      if (tables[t][i] > 0) out->flush_margin += chunk_bytes(tables[t][i]);
  return true;
}

/* Writes (create) or appends the rows of bodies [from, to) of out->bodies to /bodies and /shapes
 * (their shapes, and polygon vertices): the whole tables at the start of a run, the bodies added
 * since in a growing run. A growing run's tables have 1024-row chunks, and its name strings hold
 * at least 63 characters (longer names of bodies added later are cut). */
static herr_t put_rows(hid_t g, const char *name, hid_t file_type, hid_t mem_type, int inner_rank, const hsize_t *inner,
                       hsize_t rows, const void *data, bool create, hsize_t chunk) {
  hid_t d = create ? create_table(g, name, file_type, inner_rank, inner, chunk) : H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return -1;
  herr_t r = append_rows(d, mem_type, rows, data);
  if (H5Dclose(d) < 0) r = -1;
  return r;
}

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
  hid_t type = string_type(width);
  if (create && data) d = create_table(g, name, type, 0, NULL, chunk);
  herr_t r = data && d >= 0 ? 0 : -1;
  for (int i = 0; r >= 0 && i < n; i++) {
    size_t len = strlen(strings[i]);
    memcpy(data + (size_t)i * width, strings[i], len < width ? len : width - 1);
  }
  if (r >= 0) r = append_rows(d, type, (hsize_t)n, data);
  if (d >= 0 && H5Dclose(d) < 0) r = -1;
  H5Tclose(type);
  free(data);
  return r;
}

static bool write_bodies(clt_output_t *out, const clt_world_t *world, int from, int to, bool create) {
  hid_t file = out->file;
  bool ok = true;
  int n = to - from;
  hsize_t chunk_b = out->growing ? 1024 : (hsize_t)(n > 0 ? n : 1);
  size_t name_width = out->growing ? 64 : 1;
  int shape_total = 0;
  clt_body_info_t *info = calloc((size_t)(n > 0 ? n : 1), sizeof *info);
  if (!info) return false;
  for (int i = 0; i < n && ok; i++) {
    ok = clt_body_get_info(world, out->bodies[from + i], &info[i]) == CLT_OK;
    shape_total += info[i].shape_count;
  }
  int s_count = shape_total;
  hsize_t chunk_s = out->growing ? 1024 : (hsize_t)(s_count > 0 ? s_count : 1);
  size_t nn = (size_t)(n > 0 ? n : 1), ns = (size_t)(s_count > 0 ? s_count : 1);
  const char **names = calloc(nn, sizeof *names), **types = calloc(nn, sizeof *types);
  double *mass = calloc(nn, sizeof *mass), *inertia = calloc(nn * 3, sizeof *inertia);
  int32_t *shape_count = calloc(nn, sizeof *shape_count), *first_shape = calloc(nn, sizeof *first_shape);
  clt_shape_def_t *shapes = calloc(ns, sizeof *shapes);
  int32_t *shape_body = calloc(ns, sizeof *shape_body);
  const char **shape_types = calloc(ns, sizeof *shape_types);
  if (!names || !types || !mass || !inertia || !shape_count || !first_shape || !shapes || !shape_body ||
      !shape_types) {
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
      ok = clt_body_get_shape(world, out->bodies[from + i], k, &shapes[s]) == CLT_OK;
      shape_body[s] = from + i;
      shape_types[s] = shape_type_name(shapes[s].type);
    }
  }
  if (ok) {
    hid_t g = create ? create_group(file, "bodies") : H5Gopen2(file, "bodies", H5P_DEFAULT);
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
    hid_t g = create ? create_group(file, "shapes") : H5Gopen2(file, "shapes", H5P_DEFAULT);
    ok = g >= 0;
    ok = ok && put_rows(g, "body", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count, shape_body, create,
                        chunk_s) >= 0;
    ok = ok && put_strings(g, "type", shape_types, s_count, create, chunk_s, out->growing ? 16 : 1) >= 0;
    /* Numeric fields gathered column by column from clt_shape_def_t. */
    double *col = calloc(ns * 4, sizeof *col);
    int32_t *icol = calloc(ns, sizeof *icol);
    if (!col || !icol) ok = false;
    struct {
      const char *name;
      size_t offset;
      int width;
    } fields[] = {
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
    for (size_t f = 0; ok && f < sizeof fields / sizeof fields[0]; f++) {
      int w = fields[f].width;
      for (int i = 0; i < s_count; i++) {
        const double *src = (const double *)((const char *)&shapes[i] + fields[f].offset);
        memcpy(col + (size_t)i * (size_t)w, src, sizeof(double) * (size_t)w);
      }
      hsize_t inner[1] = {(hsize_t)w};
      int rank = w > 1 ? 1 : 0;
      ok = put_rows(g, fields[f].name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, rank, inner, (hsize_t)s_count, col, create,
                    chunk_s) >= 0;
    }
    /* Polygon vertices packed: shape i owns rows first_vertex[i] ... + vertex_count[i] − 1. */
    int vertex_total = 0;
    for (int i = 0; ok && i < s_count; i++) {
      icol[i] = shapes[i].type == CLT_SHAPE_POLYGON ? shapes[i].vertex_count : 0;
      vertex_total += icol[i];
    }
    ok = ok && put_rows(g, "vertex_count", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count, icol, create,
                        chunk_s) >= 0;
    double *vertices = calloc((size_t)(vertex_total > 0 ? vertex_total : 1) * 2, sizeof *vertices);
    if (!vertices) ok = false;
    int v = 0;
    for (int i = 0; ok && i < s_count; i++) {
      int count = icol[i];
      icol[i] = out->vertex_rows + v;
      for (int k = 0; k < count; k++, v++) {
        vertices[2 * v] = shapes[i].vertices[k][0];
        vertices[2 * v + 1] = shapes[i].vertices[k][1];
      }
    }
    ok = ok && put_rows(g, "first_vertex", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count, icol, create,
                        chunk_s) >= 0;
    hsize_t two = 2;
    ok = ok && put_rows(g, "vertices", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &two, (hsize_t)vertex_total, vertices,
                        create, out->growing ? 1024 : (hsize_t)(vertex_total > 0 ? vertex_total : 1)) >= 0;
    free(vertices);
    for (int i = 0; ok && i < s_count; i++) icol[i] = shapes[i].material;
    ok = ok && put_rows(g, "material", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, NULL, (hsize_t)s_count, icol, create,
                        chunk_s) >= 0;
    if (ok) {
      out->shape_rows += s_count;
      out->vertex_rows += vertex_total;
    }
    free(col);
    free(icol);
    if (g >= 0) H5Gclose(g);
  }
  free(info);
  free(names);
  free(types);
  free(mass);
  free(inertia);
  free(shape_count);
  free(first_shape);
  free(shapes);
  free(shape_body);
  free(shape_types);
  return ok;
}

static bool write_static(clt_output_t *out, const clt_scene_t *scene, const clt_world_t *world) {
  hid_t file = out->file;
  bool ok = true;
  ok = ok && set_attr_string(file, "format", CLT_OUTPUT_FORMAT_NAME) >= 0;
  ok = ok && set_attr_int64(file, "format_version", CLT_OUTPUT_FORMAT_VERSION) >= 0;
  ok = ok && set_attr_string(file, "clatter_version", CLATTER_VERSION_STRING) >= 0;
  ok = ok && set_attr_string(file, "scene_name", clt_scene_name(scene)) >= 0;
  ok = ok && set_attr_int64(file, "dimension", clt_scene_dimension(scene)) >= 0;
  ok = ok && set_attr_double(file, "time_step", clt_scene_time_step(scene)) >= 0;
  ok = ok && set_attr_double(file, "duration", clt_scene_duration(scene)) >= 0;
  ok = ok && set_attr_int64(file, "total_steps", clt_scene_step_count(scene)) >= 0;
  /* what the solver_status column's not-solved rows missed (clatter info's summary) */
  ok = ok && set_attr_double(file, "tolerance", clt_world_method(world)->tolerance) >= 0;
  if (clt_world_step_count(world) > 0) /* a run started from another run's checkpoint */
    ok = ok && set_attr_int64(file, "first_step", clt_world_step_count(world)) >= 0;
  ok = ok && set_attr_int64(file, "output_interval_steps", out->options.interval_steps) >= 0;
  ok = ok && set_attr_string(file, "status", "running") >= 0;
  ok = ok && set_attr_string(file, "status_message", "") >= 0;
  if (!ok) return false;

  /* The resolved scene: what --resume rebuilds the world from. */
  const char *json = clt_scene_json(scene);
  hid_t type = string_type(strlen(json) + 1);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_obj_track_times(dcpl, 0);
  hid_t d = H5Dcreate2(file, "scene", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ok = d >= 0 && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, json) >= 0;
  if (d >= 0) H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Tclose(type);
  if (!ok) return false;

  return write_bodies(out, world, 0, out->body_count, true);
}

static bool flush_buffers(clt_output_t *out) {
  uint64_t pending = (uint64_t)out->diag_rows * COLUMN_COUNT * sizeof(double) + BUFSIZ +
                     (uint64_t)out->cont_rows.rows * 128;
  for (int k = 0; k < TRAJ_COUNT; k++) pending += (uint64_t)out->traj_rows * (uint64_t)out->traj_width[k] * 8;
  if (!room_for(out, pending + out->flush_margin)) {
    errno = ENOSPC;
    return false;
  }
  bool ok = true;
  if (out->diag_rows > 0) {
    if (out->options.diagnostics) {
      for (int c = 0; c < COLUMN_COUNT && ok; c++) {
        ok = append_rows(out->diag[c], H5T_NATIVE_DOUBLE, (hsize_t)out->diag_rows,
                         out->diag_buffer + (size_t)c * DIAG_BUFFER_ROWS) >= 0;
      }
    }
    out->diag_rows = 0;
  }
  if (out->traj_rows > 0) {
    for (int k = 0; k < TRAJ_COUNT && ok; k++) {
      if (!traj_enabled(out, k)) continue;
      ok = append_rows(out->traj[k], H5T_NATIVE_DOUBLE, (hsize_t)out->traj_rows, out->traj_buffer[k]) >= 0;
    }
    /* The contacts of the same frames, so /contacts/first and count always have as many rows as
     * /trajectory/step on disk. */
    if (out->contacts) {
      contact_rows_t *c = &out->cont_rows;
      hsize_t n = (hsize_t)c->rows, f = (hsize_t)out->traj_rows;
      ok = ok && append_rows(out->cont[CONT_POINT], H5T_NATIVE_DOUBLE, n, c->point) >= 0;
      ok = ok && append_rows(out->cont[CONT_BODY_A], H5T_NATIVE_INT32, n, c->body_a) >= 0;
      ok = ok && append_rows(out->cont[CONT_BODY_B], H5T_NATIVE_INT32, n, c->body_b) >= 0;
      ok = ok && append_rows(out->cont[CONT_NORMAL], H5T_NATIVE_DOUBLE, n, c->normal) >= 0;
      ok = ok && append_rows(out->cont[CONT_DISTANCE], H5T_NATIVE_DOUBLE, n, c->distance) >= 0;
      ok = ok && append_rows(out->cont[CONT_NORMAL_FORCE], H5T_NATIVE_DOUBLE, n, c->normal_force) >= 0;
      ok = ok && append_rows(out->cont[CONT_FORCE], H5T_NATIVE_DOUBLE, n, c->force) >= 0;
      ok = ok && append_rows(out->cont[CONT_TOUCHING], H5T_NATIVE_UINT8, n, c->touching) >= 0;
      ok = ok && append_rows(out->cont[CONT_FIRST], H5T_NATIVE_INT64, f, out->cont_first) >= 0;
      ok = ok && append_rows(out->cont[CONT_COUNT], H5T_NATIVE_INT64, f, out->cont_count) >= 0;
      c->rows = 0;
    }
    out->traj_rows = 0;
  }
  if (ok && out->csv) ok = fflush(out->csv) == 0;
  if (ok && out->file >= 0) ok = H5Fflush(out->file, H5F_SCOPE_LOCAL) >= 0;
  return ok;
}

static void csv_header(FILE *f) {
  for (int c = 0; c < COLUMN_COUNT; c++) fprintf(f, "%s%s", c ? "," : "", columns[c].name);
  fputc('\n', f);
}

static bool record_row(clt_output_t *out, const clt_world_t *world) {
  clt_diagnostics_t d;
  if (clt_world_get_diagnostics(world, &d) != CLT_OK) return false;
  /* The step-0 row describes the initial state (world.h: step and t are 0 before any step). */
  d.step = clt_world_step_count(world);
  d.t = clt_world_time(world);
  out->last_step = d.step;
  out->last_time = d.t;
  if (out->options.diagnostics) {
    for (int c = 0; c < COLUMN_COUNT; c++) {
      out->diag_buffer[(size_t)c * DIAG_BUFFER_ROWS + (size_t)out->diag_rows] = column_value(&d, c);
    }
    out->diag_rows++;
  }
  if (out->csv) {
    FILE *f = out->csv;
    for (int c = 0; c < COLUMN_COUNT; c++) {
      if (c) fputc(',', f);
      double v = column_value(&d, c);
      switch (columns[c].kind) {
        case COL_INT64: fprintf(f, "%lld", (long long)v); break;
        case COL_INT32: fprintf(f, "%d", (int)v); break;
        case COL_STATUS: fputs(clt_solver_status_name(d.solver_status), f); break;
        case COL_DOUBLE: fprintf(f, "%.17g", v); break;
      }
    }
    if (fputc('\n', f) == EOF) return false;
  }
  if (out->diag_rows == DIAG_BUFFER_ROWS) return flush_buffers(out);
  return true;
}

/* The active contacts of the step that produced frame r of the buffer (docs/output-format.md
 * /contacts): forces are the step's impulses over h. */
static bool record_contacts(clt_output_t *out, const clt_world_t *world, int r) {
  int n = clt_world_contact_count(world);
  contact_rows_t *c = &out->cont_rows;
  if (n < 0 || !contact_rows_reserve(c, n)) return false;
  out->cont_first[r] = out->contact_total;
  out->cont_count[r] = n;
  double h = out->time_step;
  for (int i = 0; i < n; i++) {
    clt_contact_info_t info;
    if (clt_world_get_contact(world, i, &info) != CLT_OK) return false;
    int row = c->rows + i;
    for (int k = 0; k < 3; k++) {
      c->point[3 * row + k] = info.point[k];
      c->normal[3 * row + k] = info.normal[k];
      c->force[3 * row + k] = info.impulse[k] / h;
    }
    c->distance[row] = info.distance;
    c->normal_force[row] = info.normal_impulse / h;
    c->body_a[row] = info.body_a;
    c->body_b[row] = info.body_b;
    c->touching[row] = info.touching ? 1 : 0;
  }
  c->rows += n;
  out->contact_total += n;
  return true;
}

/* Whether trajectory series k has a column per body. */
static bool per_body(int k) { return k != TRAJ_STEP && k != TRAJ_TIME && k != TRAJ_BODIES; }

/* A growing run: the bodies added to the world since the last frame or checkpoint get their rows
 * in /bodies and /shapes and their columns in the per-body series, after the frames buffered
 * before them are flushed. */
static bool grow(clt_output_t *out, const clt_world_t *world) {
  int n = clt_world_body_count(world);
  if (!out->growing || n <= out->body_count) return true;
  if (!flush_buffers(out)) return false;
  int from = out->body_count;
  clt_body_id_t *bodies = realloc(out->bodies, sizeof *bodies * (size_t)n);
  if (!bodies) return false;
  out->bodies = bodies;
  for (int i = from; i < n; i++) out->bodies[i] = clt_world_body_at(world, i);
  if (!write_bodies(out, world, from, n, false)) return false;
  out->body_count = n;
  for (int k = 0; k < TRAJ_COUNT; k++)
    if (traj_enabled(out, k) && per_body(k) && set_body_columns(out->traj[k], (hsize_t)n) < 0) return false;
  return size_buffers(out, n);
}

static bool record_frame(clt_output_t *out, const clt_world_t *world) {
  if (!grow(out, world)) return false;
  if (!out->options.trajectory) return true;
  int r = out->traj_rows, n = out->body_count;
  double *step = out->traj_buffer[TRAJ_STEP] + r, *time = out->traj_buffer[TRAJ_TIME] + r;
  double *pos = out->traj_buffer[TRAJ_POSITION] + (size_t)r * (size_t)out->traj_width[TRAJ_POSITION];
  double *ori = out->traj_buffer[TRAJ_ORIENTATION] + (size_t)r * (size_t)out->traj_width[TRAJ_ORIENTATION];
  double *vel = out->traj_buffer[TRAJ_VELOCITY] + (size_t)r * (size_t)out->traj_width[TRAJ_VELOCITY];
  double *ang = out->traj_buffer[TRAJ_ANGULAR] + (size_t)r * (size_t)out->traj_width[TRAJ_ANGULAR];
  *step = (double)clt_world_step_count(world);
  *time = clt_world_time(world);
  out->last_frame_step = clt_world_step_count(world);
  for (int i = 0; i < n; i++) {
    clt_body_state_t s;
    if (clt_body_get_state(world, out->bodies[i], &s) != CLT_OK) return false;
    for (int k = 0; k < 3; k++) {
      pos[3 * i + k] = s.position[k];
      vel[3 * i + k] = s.velocity[k];
    }
    if (out->dimension == 3) {
      for (int k = 0; k < 4; k++) ori[4 * i + k] = s.orientation[k];
      for (int k = 0; k < 3; k++) ang[3 * i + k] = s.angular_velocity[k];
    } else {
      ori[i] = s.angle;
      ang[i] = s.angular_velocity[0];
    }
  }
  if (out->growing) {
    out->traj_buffer[TRAJ_BODIES][r] = n;
    double *length = out->traj_buffer[TRAJ_LENGTH] + (size_t)r * (size_t)n;
    for (int i = 0; i < n; i++) {
      clt_shape_def_t shape;
      length[i] = clt_body_get_shape(world, out->bodies[i], 0, &shape) == CLT_OK ? shape.length : NAN;
    }
  }
  if (out->contacts && !record_contacts(out, world, r)) return false;
  out->traj_rows++;
  if (out->traj_rows == out->traj_capacity || out->cont_rows.rows >= CONT_BUFFER_ROWS) {
    return flush_buffers(out);
  }
  return true;
}

static bool frame_due(const clt_output_t *out, int64_t step) {
  return step % out->options.interval_steps == 0;
}

/* A final name that must not be replaced: refused when it exists (or is a folder either way). */
static bool final_free(const char *path, bool overwrite, char *message, size_t size) {
  struct stat st;
  if (lstat(path, &st) != 0) return true;
  if (S_ISDIR(st.st_mode)) {
    snprintf(message, size, "%s: is a folder, not an output file", path);
    return false;
  }
  if (overwrite) return true;
  snprintf(message, size, "%s exists; give --overwrite to replace it (or --resume to continue it)", path);
  return false;
}

/* The CSV's temporary file, made exclusively, open for writing with its header (own_csv_tmp). */
static bool create_csv(clt_output_t *out, char *message, size_t message_size) {
  int fd = create_exclusive(out->csv_tmp_path, out->path, false, message, message_size);
  if (fd < 0) return false;
  out->own_csv_tmp = true;
  out->csv = fdopen(fd, "w");
  if (!out->csv) {
    snprintf(message, message_size, "%s: cannot open: %s", out->csv_tmp_path, strerror(errno));
    close(fd);
    return false;
  }
  return true;
}

clt_status_t clt_output_create(const char *path, const clt_scene_t *scene, const clt_world_t *world,
                               clt_output_t **result, char *message, size_t message_size) {
  return clt_output_create_flags(path, scene, world, 0u, result, message, message_size);
}

clt_status_t clt_output_create_flags(const char *path, const clt_scene_t *scene, const clt_world_t *world,
                                     unsigned flags, clt_output_t **result, char *message, size_t message_size) {
  *result = NULL;
  clt_output_t *out = output_alloc(path, scene);
  if (!out) return CLT_ERR_OUT_OF_MEMORY;
  bool overwrite = (flags & CLT_OUTPUT_OVERWRITE) != 0;
  out->replace_final = overwrite;
  if (!final_free(out->path, overwrite, message, message_size) ||
      (out->csv_path[0] && !final_free(out->csv_path, overwrite, message, message_size))) {
    output_free(out);
    return CLT_ERR_IO;
  }
  clt_status_t status = CLT_OK;
  out->lock_fd = create_exclusive(out->tmp_path, out->path, true, message, message_size);
  if (out->lock_fd < 0) {
    output_free(out);
    return CLT_ERR_IO;
  }
  out->own_tmp = true;
  if (!make_reserve(out, message, message_size)) {
    clt_output_discard(out);
    return CLT_ERR_IO;
  }
  out->first_step = clt_world_step_count(world);
  silence_t quiet = silence_begin();
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  H5Pset_obj_track_times(fcpl, 0);
  out->file = H5Fcreate(out->tmp_path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  H5Pclose(fcpl);
  if (out->file < 0) {
    set_message(message, message_size, "%s: cannot create the output file%s", out->tmp_path, NULL);
    status = CLT_ERR_IO;
  } else if (!same_inode(out->lock_fd, out->tmp_path)) {
    set_message(message, message_size, "%s: replaced by another file while being created%s", out->tmp_path, NULL);
    out->own_tmp = false; /* not ours any more: left alone */
    status = CLT_ERR_IO;
  }
  if (status == CLT_OK && out->csv_path[0]) {
    if (!create_csv(out, message, message_size)) status = CLT_ERR_IO;
    else csv_header(out->csv);
  }
  if (status == CLT_OK && !setup_bodies(out, world)) status = CLT_ERR_OUT_OF_MEMORY;
  errno = 0;
  if (status == CLT_OK && (!write_static(out, scene, world) || !open_series(out, true))) {
    set_message(message, message_size, "%s: cannot write the output file: %s", out->tmp_path,
                errno ? strerror(errno) : "the HDF5 library reported an error");
    status = CLT_ERR_IO;
  }
  if (status == CLT_OK) { /* H5Fflush: a run whose later writes fail still leaves a readable file */
    if (!record_row(out, world) || !record_frame(out, world) || !flush_buffers(out) ||
        H5Fflush(out->file, H5F_SCOPE_LOCAL) < 0) {
      set_message(message, message_size, "%s: cannot write the output file: %s", out->tmp_path,
                  errno ? strerror(errno) : "the HDF5 library reported an error");
      status = CLT_ERR_IO;
    }
  }
  silence_end(quiet);
  if (status != CLT_OK) {
    clt_output_discard(out);
    return status;
  }
  *result = out;
  return CLT_OK;
}

clt_status_t clt_output_record_step(clt_output_t *out, const clt_world_t *world) {
  if (out->failed) return CLT_ERR_IO;
  silence_t quiet = silence_begin();
  errno = 0;
  bool ok = record_row(out, world);
  if (ok && frame_due(out, clt_world_step_count(world))) ok = record_frame(out, world);
  if (!ok) note_failure(out, errno);
  silence_end(quiet);
  return ok ? CLT_OK : CLT_ERR_IO;
}

clt_status_t clt_output_record_frame(clt_output_t *out, const clt_world_t *world) {
  if (out->failed) return CLT_ERR_IO;
  if (out->last_frame_step == clt_world_step_count(world)) return CLT_OK;
  silence_t quiet = silence_begin();
  errno = 0;
  bool ok = record_frame(out, world);
  if (!ok) note_failure(out, errno);
  silence_end(quiet);
  return ok ? CLT_OK : CLT_ERR_IO;
}

/* clt_world_state_hash as 16 lower-case hex digits (docs/output-format.md "state_hash"). */
static void format_state_hash(const clt_world_t *world, char hash[17]) {
  snprintf(hash, 17, "%016llx", (unsigned long long)clt_world_state_hash(world));
}

void clt_output_record_final_state(clt_output_t *out, const clt_world_t *world) {
  format_state_hash(world, out->state_hash);
  out->state_hash_step = clt_world_step_count(world);
}

clt_status_t clt_output_attach_colony(clt_output_t *out, const clt_colony_t *colony) {
  if (!out || !colony || !out->growing || clt_colony_world(colony) == NULL) return CLT_ERR_INVALID_ARGUMENT;
  out->colony = colony;
  return CLT_OK;
}

clt_status_t clt_output_write_checkpoint(clt_output_t *out, const clt_world_t *world) {
  if (out->failed) return CLT_ERR_IO;
  if (out->growing && !out->colony) return CLT_ERR_INVALID_ARGUMENT; /* its cells could not be restored */
  size_t size = clt_world_state_size(world);
  size_t colony_size = out->colony ? clt_colony_state_size(out->colony) : 0;
  unsigned char *blob = malloc(size + colony_size + 1);
  if (!blob) return CLT_ERR_OUT_OF_MEMORY;
  clt_status_t status = clt_world_save_state(world, blob, size);
  if (status == CLT_OK && out->colony) status = clt_colony_save_state(out->colony, blob + size, colony_size);
  if (status != CLT_OK) {
    free(blob);
    return status;
  }
  silence_t quiet = silence_begin();
  errno = 0;
  bool ok = grow(out, world) && flush_buffers(out); /* /bodies holds the checkpoint's bodies */
  if (ok && !room_for(out, (uint64_t)size + 65536 + out->flush_margin)) {
    errno = ENOSPC;
    ok = false;
  }
  hid_t g = -1, d = -1;
  /* The new checkpoint is written whole under another name and then takes the place of the old
   * one, so that a write failing half-way (a full disk) leaves the old one intact (salvage). */
  if (ok && H5Lexists(out->file, "checkpoint_next", H5P_DEFAULT) > 0)
    ok = H5Ldelete(out->file, "checkpoint_next", H5P_DEFAULT) >= 0;
  if (ok) {
    g = create_group(out->file, "checkpoint_next");
    ok = g >= 0;
  }
  if (ok) {
    d = create_table(g, "state", H5T_STD_U8LE, 0, NULL, 65536);
    if (d >= 0) { /* written past the chunk cache, so that a full disk fails the write, not a later close */
      hid_t dapl = whole_chunk_access();
      hid_t direct = H5Dopen2(g, "state", dapl);
      H5Pclose(dapl);
      H5Dclose(d);
      d = direct;
    }
    ok = d >= 0 && append_rows(d, H5T_NATIVE_UCHAR, (hsize_t)size, blob) >= 0;
  }
  if (ok && out->colony) { /* the colony's own state (clatter/colony.h "Checkpoints") */
    hid_t c = create_table(g, "colony", H5T_STD_U8LE, 0, NULL, 65536);
    ok = c >= 0 && append_rows(c, H5T_NATIVE_UCHAR, (hsize_t)colony_size, blob + size) >= 0;
    if (c >= 0 && H5Dclose(c) < 0) ok = false;
  }
  int64_t step = clt_world_step_count(world);
  ok = ok && set_attr_int64(g, "step", step) >= 0;
  ok = ok && set_attr_double(g, "time", clt_world_time(world)) >= 0;
  ok = ok && set_attr_int64(g, "size", (int64_t)size) >= 0;
  char hash[17];
  format_state_hash(world, hash);
  ok = ok && set_attr_string(g, "state_hash", hash) >= 0;
  /* closing the dataset writes its chunk from HDF5's cache: on a full disk that is where it fails */
  if (d >= 0 && H5Dclose(d) < 0) ok = false;
  if (g >= 0 && H5Gclose(g) < 0) ok = false;
  if (ok && H5Lexists(out->file, "checkpoint", H5P_DEFAULT) > 0)
    ok = H5Ldelete(out->file, "checkpoint", H5P_DEFAULT) >= 0;
  ok = ok && H5Lmove(out->file, "checkpoint_next", out->file, "checkpoint", H5P_DEFAULT, H5P_DEFAULT) >= 0;
  ok = ok && H5Fflush(out->file, H5F_SCOPE_LOCAL) >= 0;
  if (!ok) note_failure(out, errno);
  silence_end(quiet);
  free(blob);
  if (ok) out->checkpoint_step = step;
  return ok ? CLT_OK : CLT_ERR_IO;
}

int64_t clt_output_checkpoint_step(const clt_output_t *out) { return out->checkpoint_step; }

int64_t clt_output_checkpoint_every(const clt_output_t *out) { return out->checkpoint_every; }

void clt_output_no_exit_handler(void) { H5dont_atexit(); }

clt_status_t clt_output_set_checkpoint_every(clt_output_t *out, int64_t steps) {
  if (!out || steps < 0) return CLT_ERR_INVALID_ARGUMENT;
  silence_t quiet = silence_begin();
  /* flushed now: a run killed before its first checkpoint is resumed with its interval too */
  bool ok = set_attr_int64(out->file, "checkpoint_every", steps) >= 0 && H5Fflush(out->file, H5F_SCOPE_LOCAL) >= 0;
  silence_end(quiet);
  if (ok) out->checkpoint_every = steps;
  return ok ? CLT_OK : CLT_ERR_IO;
}
const char *clt_output_path(const clt_output_t *out) { return out->path; }
const char *clt_output_csv_file(const clt_output_t *out) { return out->csv_path; }

static int64_t count_rows_upto(hid_t dset, int64_t last_step);
static bool truncate_contacts(clt_output_t *out, int64_t frames);

static int64_t min_rows(int64_t a, hid_t dset) {
  hsize_t rows = table_rows(dset);
  return (int64_t)rows < a ? (int64_t)rows : a;
}

/* Value of row `row` of a 1-D double table (step, t), or NAN. */
static double table_value(hid_t dset, hsize_t row) {
  double v = NAN;
  hsize_t one = 1;
  hid_t space = H5Dget_space(dset), mem = H5Screate_simple(1, &one, NULL);
  if (H5Sselect_hyperslab(space, H5S_SELECT_SET, &row, NULL, &one, NULL) < 0 ||
      H5Dread(dset, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, &v) < 0)
    v = NAN;
  H5Sclose(mem);
  H5Sclose(space);
  return v;
}

/* Complete rows (lines after the header) of the CSV at path, −1 if it cannot be read. */
static int64_t csv_rows(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  int64_t lines = 0;
  for (int c; (c = fgetc(f)) != EOF;)
    if (c == '\n') lines++;
  fclose(f);
  return lines - 1;
}

/* Cuts the file at path after its header and `rows` rows (false if it has fewer). */
static bool cut_csv(const char *path, int64_t rows) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  int64_t lines = rows + 1;
  long at = 0;
  for (int c; lines > 0 && (c = fgetc(f)) != EOF; at++)
    if (c == '\n') lines--;
  fclose(f);
  return lines == 0 && truncate(path, at) == 0;
}

/* After a failed write (a full disk, whose reserve is then free): every table is cut back to the
 * last step that all of them hold, the CSV to the same rows, the buffered rows are dropped, and
 * the file is closed with status "error" (the run's own message when it already failed, else
 * the write's) and the step it now ends at, without a state hash (the world's state is of a later
 * step). Its checkpoint, if it has one, is at or before that step, so --resume continues it.
 * *last is the step kept. False if HDF5 could not do it. */
static bool salvage(clt_output_t *out, clt_run_status_t run_status, const char *status_message, int64_t *last) {
  out->diag_rows = 0;
  out->traj_rows = 0;
  out->cont_rows.rows = 0;
  int64_t kept = INT64_MAX;
  double kept_time = NAN;
  if (out->csv) { /* its buffer may reach the disk now; the rows it holds bound the step kept */
    fclose(out->csv);
    out->csv = NULL;
    int64_t rows = csv_rows(out->csv_tmp_path);
    if (rows <= 0) return false;
    kept = out->first_step + rows - 1;
  }
  hsize_t diag_keep = 0, traj_keep = 0;
  if (out->options.diagnostics) {
    int64_t rows = INT64_MAX;
    for (int c = 0; c < COLUMN_COUNT; c++) rows = min_rows(rows, out->diag[c]);
    if (rows <= 0) return false;
    int64_t step = (int64_t)table_value(out->diag[0], (hsize_t)rows - 1);
    if (step < kept) kept = step;
  }
  if (out->options.trajectory) {
    int64_t rows = INT64_MAX;
    for (int k = 0; k < TRAJ_COUNT; k++)
      if (traj_enabled(out, k)) rows = min_rows(rows, out->traj[k]);
    if (out->contacts) rows = min_rows(min_rows(rows, out->cont[CONT_FIRST]), out->cont[CONT_COUNT]);
    if (rows <= 0) return false;
    int64_t step = (int64_t)table_value(out->traj[TRAJ_STEP], (hsize_t)rows - 1);
    if (step < kept) kept = step;
    for (int k = 0; k < TRAJ_COUNT; k++)
      if (traj_enabled(out, k) && truncate_rows(out->traj[k], (hsize_t)rows) < 0) return false;
    int64_t keep = count_rows_upto(out->traj[TRAJ_STEP], kept);
    if (keep < 0) return false;
    traj_keep = (hsize_t)keep;
    for (int k = 0; k < TRAJ_COUNT; k++)
      if (traj_enabled(out, k) && truncate_rows(out->traj[k], traj_keep) < 0) return false;
    if (out->contacts && !truncate_contacts(out, keep)) return false;
    kept_time = traj_keep > 0 ? table_value(out->traj[TRAJ_TIME], traj_keep - 1) : NAN;
  }
  if (kept == INT64_MAX || kept < out->first_step) return false;
  if (out->options.diagnostics) {
    diag_keep = (hsize_t)(kept - out->first_step + 1);
    for (int c = 0; c < COLUMN_COUNT; c++)
      if (truncate_rows(out->diag[c], diag_keep) < 0) return false;
    kept_time = table_value(out->diag[1], diag_keep - 1);
  }
  /* a checkpoint half-written is dropped; one beyond the data kept cannot be resumed from */
  if (H5Lexists(out->file, "checkpoint_next", H5P_DEFAULT) > 0 && H5Ldelete(out->file, "checkpoint_next", H5P_DEFAULT) < 0)
    return false;
  int64_t at = -1;
  if (H5Lexists(out->file, "checkpoint", H5P_DEFAULT) > 0) {
    hid_t g = H5Gopen2(out->file, "checkpoint", H5P_DEFAULT);
    bool readable = g >= 0 && get_attr_int64(g, "step", &at);
    if (g >= 0) H5Gclose(g);
    if ((!readable || at > kept) && H5Ldelete(out->file, "checkpoint", H5P_DEFAULT) < 0) return false;
  }
  char why[256];
  if (run_status == CLT_RUN_ERROR && status_message && status_message[0])
    snprintf(why, sizeof why, "%s", status_message);
  else
    snprintf(why, sizeof why, "writing the output failed (%s) after step %lld",
             out->write_errno ? strerror(out->write_errno) : "the HDF5 library reported an error", (long long)kept);
  bool ok = set_attr_string(out->file, "status", clt_run_status_name(CLT_RUN_ERROR)) >= 0 &&
            set_attr_string(out->file, "status_message", why) >= 0 &&
            set_attr_int64(out->file, "steps", kept) >= 0 &&
            set_attr_double(out->file, "final_time", isnan(kept_time) ? out->last_time : kept_time) >= 0;
  if (ok && H5Aexists(out->file, "state_hash") > 0) ok = H5Adelete(out->file, "state_hash") >= 0;
  if (ok && H5Aexists(out->file, "state_hash_step") > 0) ok = H5Adelete(out->file, "state_hash_step") >= 0;
  if (!ok) return false;
  for (int i = 0; i < COLUMN_COUNT; i++)
    if (out->diag[i] > 0) H5Dclose(out->diag[i]), out->diag[i] = -1;
  for (int i = 0; i < TRAJ_COUNT; i++)
    if (out->traj[i] > 0) H5Dclose(out->traj[i]), out->traj[i] = -1;
  for (int i = 0; i < CONT_DATASETS; i++)
    if (out->cont[i] > 0) H5Dclose(out->cont[i]), out->cont[i] = -1;
  ok = H5Fclose(out->file) >= 0;
  out->file = -1;
  if (out->csv_path[0]) ok = ok && cut_csv(out->csv_tmp_path, kept - out->first_step + 1);
  *last = kept;
  return ok;
}

/* After a failed write: the file is cut back to its last complete step and closed (salvage) and
 * the temporary files renamed as at any close; if even that fails, the HDF5 objects are let go
 * without closing them (the CLI keeps HDF5 from writing at exit, clt_output_no_exit_handler), and
 * the temporary files stay for --resume, which continues from their last checkpoint if it reached
 * the disk. Either way the status is CLT_ERR_IO with the reason. */
static clt_status_t close_failed(clt_output_t *out, clt_run_status_t run_status, const char *status_message,
                                 char *message, size_t message_size) {
  const char *why = out->write_errno ? strerror(out->write_errno) : "the HDF5 library reported an error";
  silence_t quiet = silence_begin();
  int64_t last = -1;
  bool saved = salvage(out, run_status, status_message, &last);
  silence_end(quiet);
  if (saved && publish(out->tmp_path, out->path, out->replace_final) == 0 &&
      (!out->csv_path[0] || publish(out->csv_tmp_path, out->csv_path, out->replace_final) == 0)) {
    snprintf(message, message_size,
             "%s: writing failed (%s); %s holds the run up to step %lld: make room and continue with "
             "`clatter run --resume %s`",
             out->tmp_path, why, out->path, (long long)last, out->path);
    output_free(out);
    return CLT_ERR_IO;
  }
  snprintf(message, message_size,
           "%s: writing failed (%s); the file is left as it was at its last flush: make room and continue "
           "with `clatter run --resume %s`, or delete %s",
           out->tmp_path, why, out->path, out->tmp_path);
  for (int i = 0; i < COLUMN_COUNT; i++) out->diag[i] = -1;
  for (int i = 0; i < TRAJ_COUNT; i++) out->traj[i] = -1;
  for (int i = 0; i < CONT_DATASETS; i++) out->cont[i] = -1;
  out->file = -1;
  if (out->csv) fclose(out->csv);
  out->csv = NULL;
  output_free(out);
  return CLT_ERR_IO;
}

clt_status_t clt_output_close(clt_output_t *out, clt_run_status_t run_status, const char *status_message,
                              char *message, size_t message_size) {
  if (out->failed) return close_failed(out, run_status, status_message, message, message_size);
  silence_t quiet = silence_begin();
  errno = 0;
  bool ok = flush_buffers(out);
  ok = ok && set_attr_string(out->file, "status", clt_run_status_name(run_status)) >= 0;
  ok = ok && set_attr_string(out->file, "status_message", status_message ? status_message : "") >= 0;
  ok = ok && set_attr_int64(out->file, "steps", out->last_step) >= 0;
  ok = ok && set_attr_double(out->file, "final_time", out->last_time) >= 0;
  if (out->state_hash[0]) {
    ok = ok && set_attr_string(out->file, "state_hash", out->state_hash) >= 0;
    ok = ok && set_attr_int64(out->file, "state_hash_step", out->state_hash_step) >= 0;
  } else {
    /* a resumed file must not keep the hash of the run it continued */
    if (H5Aexists(out->file, "state_hash") > 0) ok = ok && H5Adelete(out->file, "state_hash") >= 0;
    if (H5Aexists(out->file, "state_hash_step") > 0) ok = ok && H5Adelete(out->file, "state_hash_step") >= 0;
  }
  if (!ok) {
    note_failure(out, errno);
    silence_end(quiet);
    return close_failed(out, run_status, status_message, message, message_size);
  }
  ok = H5Fclose(out->file) >= 0;
  out->file = -1;
  if (out->csv) {
    ok = (fclose(out->csv) == 0) && ok;
    out->csv = NULL;
  }
  silence_end(quiet);
  clt_status_t status = CLT_OK;
  if (!ok) {
    set_message(message, message_size, "%s: writing the output failed%s", out->tmp_path, NULL);
    status = CLT_ERR_IO;
  } else if (publish(out->tmp_path, out->path, out->replace_final) != 0) {
    if (errno == EEXIST)
      snprintf(message, message_size, "%s appeared while the run was writing it; the run's output is left in %s",
               out->path, out->tmp_path);
    else
      snprintf(message, message_size, "%s: cannot rename to %s: %s", out->tmp_path, out->path, strerror(errno));
    status = CLT_ERR_IO;
  } else if (out->csv_path[0] && publish(out->csv_tmp_path, out->csv_path, out->replace_final) != 0) {
    if (errno == EEXIST)
      snprintf(message, message_size, "%s appeared while the run was writing it; the run's CSV is left in %s",
               out->csv_path, out->csv_tmp_path);
    else
      snprintf(message, message_size, "%s: cannot rename to %s: %s", out->csv_tmp_path, out->csv_path,
               strerror(errno));
    status = CLT_ERR_IO;
  }
  output_free(out);
  return status;
}

void clt_output_discard(clt_output_t *out) {
  if (!out) return;
  silence_t quiet = silence_begin();
  for (int i = 0; i < COLUMN_COUNT; i++) {
    if (out->diag[i] > 0) H5Dclose(out->diag[i]);
    out->diag[i] = -1;
  }
  for (int i = 0; i < TRAJ_COUNT; i++) {
    if (out->traj[i] > 0) H5Dclose(out->traj[i]);
    out->traj[i] = -1;
  }
  for (int i = 0; i < CONT_DATASETS; i++) {
    if (out->cont[i] > 0) H5Dclose(out->cont[i]);
    out->cont[i] = -1;
  }
  if (out->file >= 0) H5Fclose(out->file);
  out->file = -1;
  silence_end(quiet);
  if (out->csv) fclose(out->csv);
  out->csv = NULL;
  /* only what this process made: a second run on the same path must not delete the first's */
  if (out->own_tmp) unlink(out->tmp_path);
  if (out->own_csv_tmp && out->csv_path[0]) unlink(out->csv_tmp_path);
  output_free(out);
}

/* ---------------------------------------------------------------------------------------------
 * Resume */

/* Copies from into the empty file open on descriptor fd, which stays open (it holds the temporary
 * run file's lock). */
static bool copy_file(const char *from, int fd) {
  int in = open(from, O_RDONLY | O_CLOEXEC);
  if (in < 0) return false;
  char buf[1 << 16];
  bool ok = true;
  for (;;) {
    ssize_t n = read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    for (ssize_t done = 0; ok && done < n;) {
      ssize_t w = write(fd, buf + done, (size_t)(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) ok = false;
      else done += w;
    }
    if (!ok) break;
  }
  close(in);
  return ok;
}

/* The current CSV header line (csv_header) into buf. */
static void header_text(char *buf, size_t size) {
  size_t at = 0;
  for (int c = 0; c < COLUMN_COUNT && at < size; c++)
    at += (size_t)snprintf(buf + at, size - at, "%s%s", c ? "," : "", columns[c].name);
}

/* Copies the CSV keeping the header and the rows of steps ≤ last_step (one row per step from 0).
 * A CSV of before the late columns (its header the current one without its last columns, each of
 * them late) gets those columns, -1 in its rows (as their /diagnostics datasets: open_series). */
static bool copy_csv_prefix(const char *from, FILE *o, int64_t last_step) { /* last_step: rows − 1 */
  FILE *in = fopen(from, "rb");
  if (!in) return false;
  char header[2048], line[2048];
  header_text(header, sizeof header);
  size_t n = 0;
  int c = EOF;
  while (n + 1 < sizeof line && (c = fgetc(in)) != EOF && c != '\n') line[n++] = (char)c;
  line[n] = '\0';
  bool ok = c == '\n';
  /* the columns it lacks: the header's tail after line, if line is its start at a comma */
  const char *missing = "";
  int pad = 0;
  if (ok && strncmp(header, line, n) == 0 && header[n] == ',') {
    missing = header + n;
    for (const char *p = missing; *p; p++) pad += *p == ',';
    for (int k = COLUMN_COUNT - pad; k < COLUMN_COUNT; k++)
      if (!columns[k].late) pad = -1;
    if (pad < 0) missing = "", pad = 0; /* not only late columns: copied as it is */
  }
  ok = ok && fprintf(o, "%s%s\n", line, missing) > 0;
  int64_t lines = last_step + 1; /* the rows of steps first..first + last_step */
  while (ok && lines > 0 && (c = fgetc(in)) != EOF) {
    if (c == '\n') {
      for (int k = 0; k < pad && ok; k++) ok = fputs(",-1", o) != EOF;
      lines--;
    }
    if (fputc(c, o) == EOF) ok = false;
  }
  if (lines > 0) ok = false; /* the CSV ended before the checkpoint: damaged */
  fclose(in);
  if (fflush(o) != 0) ok = false;
  return ok;
}

static char *read_scene_string(hid_t file) {
  if (H5Lexists(file, "scene", H5P_DEFAULT) <= 0) return NULL;
  hid_t d = H5Dopen2(file, "scene", H5P_DEFAULT);
  if (d < 0) return NULL;
  hid_t ftype = H5Dget_type(d);
  char *text = NULL;
  if (H5Tget_class(ftype) == H5T_STRING && !H5Tis_variable_str(ftype) && clt_h5_dataset_elements(d) == 1 &&
      clt_h5_dataset_stored(d, 1)) {
    size_t n = H5Tget_size(ftype);
    text = calloc(n + 1, 1);
    hid_t mtype = string_type(n + 1);
    if (text && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, text) < 0) {
      free(text);
      text = NULL;
    }
    H5Tclose(mtype);
  }
  H5Tclose(ftype);
  H5Dclose(d);
  return text;
}

static bool is_run_file(hid_t file) {
  char format[64];
  return get_attr_string(file, "format", format, sizeof format) &&
         strcmp(format, CLT_OUTPUT_FORMAT_NAME) == 0;
}

/* Whether path can be opened for reading; if not, a message with the system's reason. */
static bool readable(const char *path, char *message, size_t message_size) {
  FILE *probe = fopen(path, "rb");
  if (!probe) {
    set_message(message, message_size, "%s: cannot open: %s", path, strerror(errno));
    return false;
  }
  fclose(probe);
  return true;
}

char *clt_output_read_scene_json(const char *path, char *message, size_t message_size) {
  if (!readable(path, message, message_size)) return NULL;
  silence_t quiet = silence_begin();
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  char *text = NULL;
  if (file < 0) {
    set_message(message, message_size, "%s: cannot open as HDF5%s", path, NULL);
  } else {
    text = is_run_file(file) ? read_scene_string(file) : NULL;
    if (!text) set_message(message, message_size, "%s: not a clatter run file (no /scene)%s", path, NULL);
    H5Fclose(file);
  }
  silence_end(quiet);
  return text;
}

static int64_t count_rows_upto(hid_t dset, int64_t last_step) {
  hsize_t rows = 0;
  if (!clt_h5_column_rows(dset, &rows)) return -1;
  if (rows == 0) return 0;
  double *steps = malloc(sizeof(double) * rows);
  if (!steps) return -1;
  int64_t keep = 0;
  if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps) < 0) {
    keep = -1;
  } else {
    while ((hsize_t)keep < rows && steps[keep] <= (double)last_step) keep++;
  }
  free(steps);
  return keep;
}

/* Cuts /contacts back to its first `frames` frames: the contact rows those frames own. */
static bool truncate_contacts(clt_output_t *out, int64_t frames) {
  int64_t rows = 0;
  hsize_t have = table_rows(out->cont[CONT_POINT]);
  hsize_t kept_frames = (hsize_t)frames;
  if (table_rows(out->cont[CONT_FIRST]) < kept_frames || table_rows(out->cont[CONT_COUNT]) < kept_frames) return false;
  if (frames > 0) {
    int64_t first = 0, count = 0;
    hsize_t start = (hsize_t)frames - 1, one = 1;
    for (int k = CONT_FIRST; k <= CONT_COUNT; k++) {
      hid_t space = H5Dget_space(out->cont[k]);
      hid_t mem = H5Screate_simple(1, &one, NULL);
      H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &one, NULL);
      int64_t *value = k == CONT_FIRST ? &first : &count;
      herr_t r = H5Dread(out->cont[k], H5T_NATIVE_INT64, mem, space, H5P_DEFAULT, value);
      H5Sclose(mem);
      H5Sclose(space);
      if (r < 0) return false;
    }
    rows = first + count;
    if (first < 0 || count < 0 || (hsize_t)rows > have) return false;
  }
  for (int k = 0; k < CONT_DATASETS; k++) {
    hsize_t keep = k == CONT_FIRST || k == CONT_COUNT ? (hsize_t)frames : (hsize_t)rows;
    if (table_rows(out->cont[k]) < keep || truncate_rows(out->cont[k], keep) < 0) return false;
  }
  out->contact_total = rows;
  return true;
}

/* The uint8 dataset `name` of the checkpoint group g, whole, into a new buffer (*blob, *size; free
 * it). `expected` ≥ 0: the size the group's attribute claims, which the dataset must have. A dataset
 * that claims more bytes than the file holds is refused before anything is allocated. */
static clt_status_t read_blob(hid_t g, const char *name, const char *path, int64_t expected, unsigned char **blob,
                              size_t *size, char *message, size_t message_size) {
  *blob = NULL;
  *size = 0;
  char what[64];
  snprintf(what, sizeof what, "/checkpoint/%s", name);
  hid_t d = H5Lexists(g, name, H5P_DEFAULT) > 0 ? H5Dopen2(g, name, H5P_DEFAULT) : -1;
  hsize_t rows = 0;
  struct stat st;
  clt_status_t status = CLT_OK;
  if (d < 0 || !clt_h5_column_rows(d, &rows) || (expected >= 0 && rows != (hsize_t)expected)) {
    set_message(message, message_size, "%s: damaged %s", path, what);
    status = CLT_ERR_FORMAT;
  } else if (stat(path, &st) != 0 || rows > (hsize_t)st.st_size) {
    set_message(message, message_size, "%s: damaged %s: larger than the file", path, what);
    status = CLT_ERR_FORMAT;
  } else if (!(*blob = malloc((size_t)rows + 1))) {
    status = CLT_ERR_OUT_OF_MEMORY;
  } else if (rows > 0 && H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, *blob) < 0) {
    set_message(message, message_size, "%s: cannot read %s", path, what);
    status = CLT_ERR_FORMAT;
  }
  if (status == CLT_OK) *size = (size_t)rows;
  else free(*blob), *blob = NULL;
  if (d >= 0) H5Dclose(d);
  return status;
}

/* Loads the /checkpoint of an open run file into world (and, for a colony run, /checkpoint/colony
 * into colony first: it adds the cell bodies the world's state then fills in, clatter/colony.h
 * "Checkpoints") and sets *step to its step. A file without one: *step = −1 and CLT_OK (the
 * caller decides). */
static clt_status_t load_checkpoint(hid_t file, const char *path, clt_world_t *world, clt_colony_t *colony,
                                    int64_t *step, char *message, size_t message_size) {
  *step = -1;
  if (H5Lexists(file, "checkpoint", H5P_DEFAULT) <= 0) return CLT_OK;
  clt_status_t status = CLT_OK;
  hid_t g = H5Gopen2(file, "checkpoint", H5P_DEFAULT);
  bool has_colony = g >= 0 && H5Lexists(g, "colony", H5P_DEFAULT) > 0;
  int64_t size = -1, at = -1;
  unsigned char *blob = NULL;
  size_t bytes = 0;
  if (g < 0 || !get_attr_int64(g, "step", &at) || !get_attr_int64(g, "size", &size) || size < 0) {
    set_message(message, message_size, "%s: damaged /checkpoint%s", path, NULL);
    status = CLT_ERR_FORMAT;
  } else if (has_colony != (colony != NULL)) {
    set_message(message, message_size,
                colony ? "%s: damaged /checkpoint: a colony run's checkpoint without its colony%s"
                       : "%s: a colony run's checkpoint: its cells are restored only by continuing the run (--resume)%s",
                path, NULL);
    status = CLT_ERR_FORMAT;
  } else if (colony) {
    status = read_blob(g, "colony", path, -1, &blob, &bytes, message, message_size);
    if (status == CLT_OK && (status = clt_colony_load_state(colony, blob, bytes)) != CLT_OK)
      set_message(message, message_size, "%s: checkpoint rejected: %s", path, clt_world_error(world));
    free(blob);
    blob = NULL;
  }
  if (status == CLT_OK) status = read_blob(g, "state", path, size, &blob, &bytes, message, message_size);
  if (status == CLT_OK && (status = clt_world_load_state(world, blob, bytes)) != CLT_OK)
    set_message(message, message_size, "%s: checkpoint rejected: %s", path, clt_world_error(world));
  free(blob);
  if (g >= 0) H5Gclose(g);
  if (status == CLT_OK && at != clt_world_step_count(world)) {
    set_message(message, message_size, "%s: checkpoint step does not match the restored state%s", path, NULL);
    status = CLT_ERR_FORMAT;
  }
  if (status == CLT_OK) *step = at;
  return status;
}

/* Whether the bodies of the run file match the world's: the same count, and body by body the same
 * number of shapes and the same kind (static and kinematic bodies have infinite mass). The state
 * alone only checks the counts; materials and densities may differ. */
static bool same_bodies(hid_t file, const char *path, const clt_world_t *world, char *message, size_t message_size) {
  int n = clt_world_body_count(world);
  if (H5Lexists(file, "bodies", H5P_DEFAULT) <= 0) return true; /* (the state's check stands alone) */
  hid_t dm = H5Dopen2(file, "bodies/mass", H5P_DEFAULT), dc = H5Dopen2(file, "bodies/shape_count", H5P_DEFAULT);
  hsize_t rows_m = 0, rows_c = 0;
  bool ok = dm >= 0 && dc >= 0 && clt_h5_column_rows(dm, &rows_m) &&
            clt_h5_column_rows(dc, &rows_c);
  char detail[200] = "";
  if (ok && (rows_m != (hsize_t)n || rows_c != (hsize_t)n)) {
    snprintf(detail, sizeof detail, "it has %llu bodies, this scene %d", (unsigned long long)rows_m, n);
    ok = false;
  } else if (ok) {
    double *mass = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    int32_t *shapes = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    ok = mass && shapes && H5Dread(dm, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, mass) >= 0 &&
         H5Dread(dc, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, shapes) >= 0;
    for (int i = 0; ok && i < n; i++) {
      clt_body_info_t info;
      if (clt_body_get_info(world, clt_world_body_at(world, i), &info) != CLT_OK) ok = false;
      else if (isinf(info.mass) != isinf(mass[i]) || info.shape_count != shapes[i]) {
        snprintf(detail, sizeof detail, "body %d (%s) has %d shape(s) and is %s there, %d and %s in this scene", i,
                 info.name && info.name[0] ? info.name : "unnamed", (int)shapes[i],
                 isinf(mass[i]) ? "not dynamic" : "dynamic", info.shape_count,
                 isinf(info.mass) ? "not dynamic" : "dynamic");
        ok = false;
      }
    }
    free(mass);
    free(shapes);
  }
  if (dm >= 0) H5Dclose(dm);
  if (dc >= 0) H5Dclose(dc);
  if (!ok)
    set_message(message, message_size, "%s: its bodies are not this scene's: %s", path,
                detail[0] ? detail : "damaged /bodies");
  return ok;
}

clt_status_t clt_output_load_checkpoint(const char *path, clt_world_t *world, int64_t *step, char *message,
                                        size_t message_size) {
  *step = -1;
  if (!readable(path, message, message_size)) return CLT_ERR_IO;
  silence_t quiet = silence_begin();
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  clt_status_t status = CLT_OK;
  if (file < 0) {
    set_message(message, message_size, "%s: cannot open as HDF5%s", path, NULL);
    status = CLT_ERR_FORMAT;
  } else if (!is_run_file(file)) {
    set_message(message, message_size, "%s: not a clatter run file (no /scene)%s", path, NULL);
    status = CLT_ERR_FORMAT;
  } else if (!same_bodies(file, path, world, message, message_size)) {
    status = CLT_ERR_FORMAT;
  } else {
    status = load_checkpoint(file, path, world, NULL, step, message, message_size);
    if (status == CLT_OK && *step < 0) {
      set_message(message, message_size,
                  "%s: has no checkpoint (write one with clatter run --checkpoint-every N; a run stopped by "
                  "Ctrl-C or --max-steps has one)%s",
                  path, NULL);
      status = CLT_ERR_FORMAT;
    }
  }
  if (file >= 0) H5Fclose(file);
  silence_end(quiet);
  return status;
}

/* The step of the first row of a run file (0, or the attribute first_step of a run started from
 * another run's checkpoint). */
static int64_t first_step(hid_t file) {
  int64_t first = 0;
  if (H5Aexists(file, "first_step") > 0 && !get_attr_int64(file, "first_step", &first)) return -1;
  return first >= 0 ? first : -1;
}

/* Whether no open table claims more rows than the file has bytes (each row holds at least one
 * byte): a damaged or crafted extent is refused before anything resizes it, since shrinking a
 * dataset makes HDF5 visit every chunk its extent claims (3.8e18 rows: 800 s of CPU). */
static bool plausible_tables(const clt_output_t *out) {
  struct stat st;
  if (stat(out->tmp_path, &st) != 0) return false;
  hsize_t bytes = (hsize_t)st.st_size;
  for (int i = 0; i < COLUMN_COUNT; i++)
    if (out->diag[i] > 0 && table_rows(out->diag[i]) > bytes) return false;
  for (int i = 0; i < TRAJ_COUNT; i++)
    if (out->traj[i] > 0 && table_rows(out->traj[i]) > bytes) return false;
  for (int i = 0; i < CONT_DATASETS; i++)
    if (out->cont[i] > 0 && table_rows(out->cont[i]) > bytes) return false;
  return true;
}

/* The step of a run file's checkpoint: −1 without one, −2 when the file cannot be read. */
static int64_t file_checkpoint_step(const char *path) {
  silence_t quiet = silence_begin();
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  int64_t step = -2;
  if (file >= 0) {
    step = -1;
    if (H5Lexists(file, "checkpoint", H5P_DEFAULT) > 0) {
      hid_t g = H5Gopen2(file, "checkpoint", H5P_DEFAULT);
      if (g < 0 || !get_attr_int64(g, "step", &step)) step = -2;
      if (g >= 0) H5Gclose(g);
    }
    H5Fclose(file);
  }
  silence_end(quiet);
  return step;
}

/* A run killed before it closed leaves path.tmp (and the CSV's .tmp), and --resume is given the
 * final name: the temporary files take the final names when they are readable and reach at least
 * the final file's checkpoint (a run killed while resuming copies the final file first, so a
 * half-copied .tmp is dropped instead). Refused while another process holds their lock. */
static bool recover_interrupted(const char *path, char *message, size_t size) {
  char *tmp = concat(path, ".tmp");
  char csv[4096];
  clt_output_csv_path(path, csv, sizeof csv);
  char *csv_tmp = concat(csv, ".tmp");
  bool ok = tmp && csv_tmp;
  struct stat st;
  if (ok && lstat(tmp, &st) == 0) {
    if (locked(tmp)) {
      snprintf(message, size, "%s: another run is writing %s (it holds the lock on this file)", tmp, path);
      ok = false;
    } else if (!S_ISREG(st.st_mode)) {
      snprintf(message, size, "%s: not a regular file; remove it", tmp);
      ok = false;
    } else {
      bool have_final = lstat(path, &st) == 0;
      int64_t tmp_step = file_checkpoint_step(tmp);
      int64_t final_step = have_final ? file_checkpoint_step(path) : -2;
      if (tmp_step >= -1 && tmp_step >= final_step) {
        if (rename(tmp, path) != 0) {
          snprintf(message, size, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
          ok = false;
        } else if (lstat(csv_tmp, &st) == 0 && S_ISREG(st.st_mode) && rename(csv_tmp, csv) != 0) {
          snprintf(message, size, "%s: cannot rename to %s: %s", csv_tmp, csv, strerror(errno));
          ok = false;
        }
      } else if (have_final) { /* the final file is the better one: the leftovers go */
        unlink(tmp);
        if (lstat(csv_tmp, &st) == 0 && S_ISREG(st.st_mode)) unlink(csv_tmp);
      } else {
        snprintf(message, size,
                 "%s cannot be read and there is no %s: the run was stopped before its first data reached the disk "
                 "(its first few milliseconds), so there is nothing to continue; delete %s and start the run again",
                 tmp, path, tmp);
        ok = false;
      }
    }
  }
  free(tmp);
  free(csv_tmp);
  return ok;
}

/* A growing run's /bodies and /shapes cut back to the bodies of the restored state (rows written
 * for bodies added after the checkpoint go). */
static bool cut_bodies(clt_output_t *out, const clt_world_t *world) {
  int shapes = 0, vertices = 0;
  for (int i = 0; i < out->body_count; i++) {
    clt_body_info_t info;
    if (clt_body_get_info(world, out->bodies[i], &info) != CLT_OK) return false;
    for (int k = 0; k < info.shape_count; k++) {
      clt_shape_def_t shape;
      if (clt_body_get_shape(world, out->bodies[i], k, &shape) != CLT_OK) return false;
      if (shape.type == CLT_SHAPE_POLYGON) vertices += shape.vertex_count;
      shapes++;
    }
  }
  static const char *const body_sets[] = {"name", "type", "mass", "inertia", "shape_count", "first_shape"};
  static const char *const shape_sets[] = {"body",      "type",         "position",     "orientation", "angle",
                                           "radius",    "length",       "half_extents", "semi_axes",   "major_radius",
                                           "minor_radius", "point",     "normal",       "a",           "b",
                                           "vertex_count", "first_vertex", "material",  "vertices"};
  bool ok = true;
  for (size_t i = 0; ok && i < sizeof body_sets / sizeof *body_sets + sizeof shape_sets / sizeof *shape_sets; i++) {
    bool body = i < sizeof body_sets / sizeof *body_sets;
    const char *name = body ? body_sets[i] : shape_sets[i - sizeof body_sets / sizeof *body_sets];
    hsize_t keep = body ? (hsize_t)out->body_count : strcmp(name, "vertices") == 0 ? (hsize_t)vertices : (hsize_t)shapes;
    hid_t g = H5Gopen2(out->file, body ? "bodies" : "shapes", H5P_DEFAULT);
    hid_t d = g >= 0 ? H5Dopen2(g, name, H5P_DEFAULT) : -1;
    ok = d >= 0 && table_rows(d) >= keep && truncate_rows(d, keep) >= 0;
    if (d >= 0) H5Dclose(d);
    if (g >= 0) H5Gclose(g);
  }
  out->shape_rows = shapes;
  out->vertex_rows = vertices;
  return ok;
}

static clt_status_t resume_run(const char *path, clt_log_fn log, void *log_user, clt_scene_t **scene_out,
                               clt_world_t **world_out, clt_colony_t **colony_out, clt_output_t **result,
                               char *message, size_t message_size) {
  *scene_out = NULL;
  *world_out = NULL;
  *result = NULL;
  if (colony_out) *colony_out = NULL;
  if (!recover_interrupted(path, message, message_size)) return CLT_ERR_IO;
  char *json = clt_output_read_scene_json(path, message, message_size);
  if (!json) return readable(path, message, message_size) ? CLT_ERR_FORMAT : CLT_ERR_IO;
  char source[4096];
  snprintf(source, sizeof source, "%s:/scene", path);
  clt_scene_t *scene = NULL;
  clt_status_t status = clt_scene_parse(json, source, NULL, &scene, message, message_size);
  free(json);
  if (status != CLT_OK) return status;
  clt_world_t *world = NULL;
  status = clt_scene_create_world(scene, log, log_user, &world, message, message_size);
  if (status != CLT_OK) {
    clt_scene_destroy(scene);
    return status;
  }
  clt_colony_t *colony = NULL;
  if (clt_scene_colony(scene)) {
    if (!colony_out) {
      set_message(message, message_size,
                  "%s: a colony run (its world grows): continue it with clt_output_resume_colony%s", path, NULL);
      status = CLT_ERR_INVALID_ARGUMENT;
    } else {
      status = clt_scene_create_colony(scene, world, &colony, message, message_size);
    }
    if (status != CLT_OK) {
      clt_world_destroy(world);
      clt_scene_destroy(scene);
      return status;
    }
  }
  clt_output_t *out = output_alloc(path, scene);
  if (!out) {
    clt_colony_destroy(colony);
    clt_world_destroy(world);
    clt_scene_destroy(scene);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  out->replace_final = true; /* the continued run replaces the file it continues */
  out->colony = colony;
  out->lock_fd = create_exclusive(out->tmp_path, out->path, true, message, message_size);
  if (out->lock_fd < 0) {
    output_free(out);
    clt_colony_destroy(colony);
    clt_world_destroy(world);
    clt_scene_destroy(scene);
    return CLT_ERR_IO;
  }
  out->own_tmp = true;
  silence_t quiet = silence_begin();
  if (!make_reserve(out, message, message_size)) status = CLT_ERR_IO;
  if (status == CLT_OK && !copy_file(path, out->lock_fd)) {
    set_message(message, message_size, "%s: cannot copy to %s", path, out->tmp_path);
    status = CLT_ERR_IO;
  }
  if (status == CLT_OK) {
    out->file = H5Fopen(out->tmp_path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (out->file < 0) {
      set_message(message, message_size, "%s: cannot open as HDF5%s", out->tmp_path, NULL);
      status = CLT_ERR_FORMAT;
    } else if (!same_inode(out->lock_fd, out->tmp_path)) {
      set_message(message, message_size, "%s: replaced by another file while being created%s", out->tmp_path, NULL);
      out->own_tmp = false;
      status = CLT_ERR_IO;
    }
  }
  if (status == CLT_OK) get_attr_int64(out->file, "checkpoint_every", &out->checkpoint_every);
  /* Restore the checkpoint (none: start again from the initial state). */
  int64_t step = 0, first = 0;
  if (status == CLT_OK) {
    first = first_step(out->file);
    out->first_step = first;
    if (first < 0) {
      set_message(message, message_size, "%s: damaged attribute first_step%s", path, NULL);
      status = CLT_ERR_FORMAT;
    }
  }
  if (status == CLT_OK) {
    status = load_checkpoint(out->file, path, world, colony, &step, message, message_size);
    if (status == CLT_OK && step >= 0) out->checkpoint_step = step;
    if (status == CLT_OK && step < 0) {
      step = 0;
      if (first > 0) { /* started from another run: its initial state is not in this file */
        char at[32];
        snprintf(at, sizeof at, "%lld", (long long)first);
        set_message(message, message_size,
                    "%s: has no checkpoint of its own (it started from another run's at step %s)", path, at);
        status = CLT_ERR_FORMAT;
      }
    }
  }
  if (status == CLT_OK && step != clt_world_step_count(world)) {
    set_message(message, message_size, "%s: checkpoint step does not match the restored state%s", path, NULL);
    status = CLT_ERR_FORMAT;
  }
  /* the bodies of the restored state (a growing run's: its cells at the checkpoint) */
  if (status == CLT_OK && !setup_bodies(out, world)) status = CLT_ERR_OUT_OF_MEMORY;
  if (status == CLT_OK && !out->growing && out->body_count != clt_scene_body_count(scene)) status = CLT_ERR_FORMAT;
  if (status == CLT_OK && out->growing && !cut_bodies(out, world)) {
    set_message(message, message_size, "%s: /bodies or /shapes does not reach the checkpoint%s", path, NULL);
    status = CLT_ERR_FORMAT;
  }
  if (status == CLT_OK && !open_series(out, false)) {
    set_message(message, message_size, "%s: missing or misshapen trajectory, contacts or diagnostics datasets%s", path, NULL);
    status = CLT_ERR_FORMAT;
  }
  if (status == CLT_OK && !plausible_tables(out)) {
    set_message(message, message_size, "%s: damaged: a dataset claims more rows than the file has bytes%s", path,
                NULL);
    status = CLT_ERR_FORMAT;
  }
  /* Drop everything after the checkpoint. */
  if (status == CLT_OK && out->options.trajectory) {
    int64_t keep = count_rows_upto(out->traj[TRAJ_STEP], step);
    for (int k = 0; k < TRAJ_COUNT && keep >= 0; k++) {
      if (traj_enabled(out, k) && truncate_rows(out->traj[k], (hsize_t)keep) < 0) keep = -1;
    }
    if (keep < 0) status = CLT_ERR_FORMAT;
    if (status == CLT_OK && out->contacts && !truncate_contacts(out, keep)) {
      set_message(message, message_size, "%s: damaged /contacts%s", path, NULL);
      status = CLT_ERR_FORMAT;
    }
  }
  if (status == CLT_OK && out->options.diagnostics) {
    int64_t keep = count_rows_upto(out->diag[0], step);
    if (keep != step - first + 1) keep = -1;
    for (int c = 0; c < COLUMN_COUNT && keep >= 0; c++) {
      if (truncate_rows(out->diag[c], (hsize_t)keep) < 0) keep = -1;
    }
    if (keep < 0) {
      set_message(message, message_size, "%s: /diagnostics does not reach the checkpoint%s", path, NULL);
      status = CLT_ERR_FORMAT;
    }
  }
  if (status == CLT_OK) {
    set_attr_string(out->file, "status", "running");
    set_attr_string(out->file, "status_message", "");
    if (H5Aexists(out->file, "steps") > 0) H5Adelete(out->file, "steps");
    if (H5Aexists(out->file, "final_time") > 0) H5Adelete(out->file, "final_time");
  }
  if (status == CLT_OK && out->csv_path[0]) {
    if (!create_csv(out, message, message_size)) {
      status = CLT_ERR_IO;
    } else if (!copy_csv_prefix(out->csv_path, out->csv, step - first)) {
      set_message(message, message_size,
                  "%s: missing or shorter than the checkpoint's step (needed to resume)", out->csv_path,
                  NULL);
      status = CLT_ERR_FORMAT;
    }
  }
  silence_end(quiet);
  if (status != CLT_OK) {
    clt_output_discard(out);
    clt_colony_destroy(colony);
    clt_world_destroy(world);
    clt_scene_destroy(scene);
    return status;
  }
  out->last_step = step;
  out->last_time = clt_world_time(world);
  *scene_out = scene;
  *world_out = world;
  if (colony_out) *colony_out = colony;
  *result = out;
  return CLT_OK;
}

clt_status_t clt_output_resume(const char *path, clt_log_fn log, void *log_user, clt_scene_t **scene_out,
                               clt_world_t **world_out, clt_output_t **result, char *message, size_t message_size) {
  return resume_run(path, log, log_user, scene_out, world_out, NULL, result, message, message_size);
}

clt_status_t clt_output_resume_colony(const char *path, clt_log_fn log, void *log_user, clt_scene_t **scene_out,
                                      clt_world_t **world_out, clt_colony_t **colony_out, clt_output_t **result,
                                      char *message, size_t message_size) {
  if (!colony_out) return CLT_ERR_INVALID_ARGUMENT;
  return resume_run(path, log, log_user, scene_out, world_out, colony_out, result, message, message_size);
}

/* ---------------------------------------------------------------------------------------------
 * Summary */

static bool read_column(hid_t file, const char *name, double **data, hsize_t *rows) {
  *data = NULL;
  *rows = 0;
  if (H5Lexists(file, "diagnostics", H5P_DEFAULT) <= 0) return false;
  char path[128];
  snprintf(path, sizeof path, "diagnostics/%s", name);
  if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return false;
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return false;
  hsize_t n = 0;
  if (!clt_h5_column_rows(d, &n)) {
    H5Dclose(d);
    return false;
  }
  double *v = malloc(sizeof(double) * (n > 0 ? n : 1));
  bool ok = v && (n == 0 || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  H5Dclose(d);
  if (!ok) {
    free(v);
    return false;
  }
  *data = v;
  *rows = n;
  return true;
}

static int64_t dataset_rows(hid_t file, const char *path) {
  if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return -1;
  int64_t n = (int64_t)table_rows(d);
  H5Dclose(d);
  return n;
}

static bool link_exists(hid_t file, const char *group, const char *name) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", group, name);
  return H5Lexists(file, group, H5P_DEFAULT) > 0 && H5Lexists(file, path, H5P_DEFAULT) > 0;
}

clt_status_t clt_output_read_summary(const char *path, clt_output_summary_t *s, char *message,
                                     size_t message_size) {
  memset(s, 0, sizeof *s);
  s->checkpoint_step = -1;
  s->state_hash_step = -1;
  s->max_touching_contacts = -1;
  if (!readable(path, message, message_size)) return CLT_ERR_IO;
  silence_t quiet = silence_begin();
  clt_status_t status = CLT_OK;
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) {
    set_message(message, message_size, "%s: not an HDF5 file (or damaged)%s", path, NULL);
    silence_end(quiet);
    return CLT_ERR_FORMAT;
  }
  int64_t v = 0;
  if (!is_run_file(file)) {
    set_message(message, message_size, "%s: not a clatter run file (no format attribute \"%s\")", path,
                CLT_OUTPUT_FORMAT_NAME);
    status = CLT_ERR_FORMAT;
  }
  if (status == CLT_OK) {
    get_attr_string(file, "format", s->format, sizeof s->format);
    if (get_attr_int64(file, "format_version", &v)) s->format_version = (int)v;
    get_attr_string(file, "clatter_version", s->clatter_version, sizeof s->clatter_version);
    get_attr_string(file, "scene_name", s->scene, sizeof s->scene);
    get_attr_string(file, "status", s->status, sizeof s->status);
    get_attr_string(file, "status_message", s->status_message, sizeof s->status_message);
    if (get_attr_string(file, "state_hash", s->state_hash, sizeof s->state_hash) &&
        !get_attr_int64(file, "state_hash_step", &s->state_hash_step))
      s->state_hash[0] = '\0';
    bool ok = get_attr_int64(file, "dimension", &v);
    s->dimension = (int)v;
    ok = ok && get_attr_double(file, "time_step", &s->time_step);
    ok = ok && get_attr_int64(file, "total_steps", &s->total_steps);
    s->first_step = ok ? first_step(file) : 0;
    ok = ok && s->first_step >= 0;
    int64_t bodies = dataset_rows(file, "bodies/mass");
    int64_t shapes = dataset_rows(file, "shapes/body");
    ok = ok && bodies >= 0 && shapes >= 0;
    s->bodies = (int)bodies;
    s->shapes = (int)shapes;
    s->frames = link_exists(file, "trajectory", "time") ? dataset_rows(file, "trajectory/time") : 0;
    if (!ok) {
      set_message(message, message_size, "%s: damaged clatter run file (missing attributes or /bodies)%s",
                  path, NULL);
      status = CLT_ERR_FORMAT;
    }
  }
  if (status == CLT_OK) {
    double *step = NULL, *t = NULL;
    hsize_t rows = 0, rows_t = 0;
    if (read_column(file, "step", &step, &rows) && read_column(file, "t", &t, &rows_t) && rows == rows_t) {
      s->diagnostics_rows = (int64_t)rows;
      if (rows > 0) {
        s->steps = (int64_t)step[rows - 1];
        s->final_time = t[rows - 1];
      }
      double *col = NULL;
      hsize_t n = 0;
      struct {
        const char *name;
        double *max;
      } maxima[] = {{"infeasibility", &s->max_infeasibility},
                    {"penetration", &s->max_penetration},
                    {"joint_error", &s->max_joint_error}};
      for (size_t k = 0; k < sizeof maxima / sizeof maxima[0]; k++) {
        if (read_column(file, maxima[k].name, &col, &n)) {
          for (hsize_t i = 0; i < n; i++) {
            if (col[i] > *maxima[k].max || isnan(col[i])) *maxima[k].max = col[i];
          }
          free(col);
        }
      }
      if (read_column(file, "contacts", &col, &n)) {
        for (hsize_t i = 0; i < n; i++) {
          if (col[i] > s->max_contacts) s->max_contacts = (int)col[i];
        }
        free(col);
      }
      if (read_column(file, "touching_contacts", &col, &n)) { /* (-1 in rows of before the column) */
        s->max_touching_contacts = 0;
        for (hsize_t i = 0; i < n; i++) {
          if (col[i] > s->max_touching_contacts) s->max_touching_contacts = (int)col[i];
        }
        free(col);
      }
      s->first_unconverged_step = -1;
      s->worst_unconverged_step = -1;
      double *residual = NULL;
      hsize_t nr = 0;
      if (!read_column(file, "residual", &residual, &nr)) nr = 0;
      if (read_column(file, "solver_status", &col, &n)) {
        for (hsize_t i = 0; i < n; i++) {
          int code = (int)col[i];
          if (code == CLT_SOLVE_NONE || code == CLT_SOLVE_SOLVED) continue;
          s->unconverged_steps++;
          if (code >= 0 && code < CLT_OUTPUT_SOLVER_STATUSES) s->unconverged_by_status[code]++;
          if (s->first_unconverged_step < 0 && i < rows) s->first_unconverged_step = (int64_t)step[i];
          /* a NaN residual (a solve that failed to compute) is the worst there is */
          if (i < nr && i < rows && (s->worst_unconverged_step < 0 || residual[i] > s->worst_residual ||
                                     (isnan(residual[i]) && !isnan(s->worst_residual)))) {
            s->worst_residual = residual[i];
            s->worst_unconverged_step = (int64_t)step[i];
          }
        }
        free(col);
      }
      free(residual);
      double tolerance = 0.0;
      if (get_attr_double(file, "tolerance", &tolerance)) s->tolerance = tolerance;
      if (read_column(file, "solves", &col, &n)) { /* (absent in files of before the column) */
        for (hsize_t i = 0; i < n; i++) {
          if (col[i] > s->max_solves) s->max_solves = (int)col[i];
          if (col[i] > 1.0) s->resolved_steps++;
        }
        free(col);
      }
      if (read_column(file, "set_misses", &col, &n)) {
        for (hsize_t i = 0; i < n; i++)
          if (col[i] > 0.0) s->set_miss_steps++;
        free(col);
      }
      if (read_column(file, "wall_s", &col, &n)) {
        for (hsize_t i = 0; i < n; i++) s->wall_s += col[i];
        free(col);
      }
      double *ke = NULL, *pe = NULL;
      hsize_t nk = 0, np = 0;
      if (read_column(file, "kinetic_energy", &ke, &nk) && read_column(file, "potential_energy", &pe, &np) &&
          nk == np && nk > 0) {
        s->initial_energy = ke[0] + pe[0];
        s->final_energy = ke[nk - 1] + pe[nk - 1];
      }
      free(ke);
      free(pe);
    } else {
      /* Diagnostics not written: fall back to the attributes and the trajectory. */
      get_attr_int64(file, "steps", &s->steps);
      get_attr_double(file, "final_time", &s->final_time);
    }
    free(step);
    free(t);
    get_attr_int64(file, "checkpoint_every", &s->checkpoint_every);
    if (H5Lexists(file, "checkpoint", H5P_DEFAULT) > 0) {
      hid_t g = H5Gopen2(file, "checkpoint", H5P_DEFAULT);
      if (g >= 0) {
        get_attr_int64(g, "step", &s->checkpoint_step);
        H5Gclose(g);
      }
    }
  }
  H5Fclose(file);
  silence_end(quiet);
  return status;
}
