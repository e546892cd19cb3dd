/* The HDF5 tables and attributes of a run file (docs/output-format.md), for the writer: every
 * time-indexed dataset is chunked with an unlimited first dimension and grows by appends, so a file
 * cut short (interrupt, error) is still a valid file whose datasets simply end early, and resuming
 * or salvaging shrinks them back to a step. Object modification times are not recorded
 * (H5Pset_obj_track_times) so that identical runs give identical files. Also here: the
 * time-indexed datasets of /trajectory, /contacts and /diagnostics, created for a new run or
 * reopened, and checked, for --resume (output_open_series). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/output_internal.h"

static const char *const cont_names[CONT_DATASETS] = {
    "first", "count", "point", "body_a", "body_b", "normal", "distance", "normal_force", "force", "touching"};

static const char *const traj_names[TRAJ_COUNT] = {"step",     "time",     "position", "orientation",
                                                   "velocity", "angular_velocity", "bodies", "length",
                                                   "joint_state"};

hid_t output_string_type(size_t length) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, length > 0 ? length : 1);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  return t;
}

herr_t output_set_attr_string(hid_t obj, const char *name, const char *value) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  hid_t type = output_string_type(strlen(value) + 1);
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

herr_t output_set_attr_int64(hid_t obj, const char *name, int64_t v) {
  return set_attr_scalar(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

herr_t output_set_attr_double(hid_t obj, const char *name, double v) {
  return set_attr_scalar(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

herr_t output_set_attr_doubles(hid_t obj, const char *name, int count, const double *v) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  hsize_t dims = (hsize_t)count;
  hid_t space = H5Screate_simple(1, &dims, NULL);
  hid_t attr = H5Acreate2(obj, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t r = attr < 0 ? -1 : H5Awrite(attr, H5T_NATIVE_DOUBLE, v);
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  return r;
}

hid_t output_create_group(hid_t loc, const char *name) {
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
hid_t output_whole_chunk_access(void) {
  hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
  if (dapl >= 0) H5Pset_chunk_cache(dapl, 0, 0, 1.0);
  return dapl;
}

/* A dataset rows × inner[0] × inner[1] with an unlimited number of rows (chunk_rows == 1: written
 * a frame at a time, output_whole_chunk_access). */
hid_t output_create_table(hid_t loc, const char *name, hid_t type, int inner_rank, const hsize_t *inner,
                          hsize_t chunk_rows) {
  hsize_t dims[3] = {0, 0, 0}, maxdims[3] = {H5S_UNLIMITED, 0, 0}, chunk[3] = {chunk_rows, 0, 0};
  for (int i = 0; i < inner_rank; i++) {
    dims[i + 1] = maxdims[i + 1] = chunk[i + 1] = inner[i] > 0 ? inner[i] : 1;
  }
  hid_t space = H5Screate_simple(inner_rank + 1, dims, maxdims);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, inner_rank + 1, chunk);
  H5Pset_obj_track_times(dcpl, 0);
  hid_t dapl = inner_rank > 0 && chunk_rows == 1 ? output_whole_chunk_access() : H5P_DEFAULT;
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

/* Sets dimension `axis` of a table to n, keeping the others: to any n (grow), or only down to it.
 * −1 when the table has no such dimension (axis > 0). */
/* The dimensions of a table (rank 0 to 3) into dims, or −1 for another rank: a damaged or crafted
 * file given to --resume must not make HDF5 write past dims (docs/output-format.md "Reading damaged
 * files"). */
static int table_dims(hid_t dset, hsize_t dims[3]) {
  dims[0] = dims[1] = dims[2] = 0;
  hid_t space = H5Dget_space(dset);
  if (space < 0) return -1;
  int rank = H5Sget_simple_extent_ndims(space);
  if (rank >= 0 && rank <= 3) rank = H5Sget_simple_extent_dims(space, dims, NULL);
  else rank = -1;
  H5Sclose(space);
  return rank;
}

static herr_t set_dimension(hid_t dset, int axis, hsize_t n, bool grow) {
  hsize_t dims[3];
  int rank = table_dims(dset, dims);
  if (rank < 0 || (axis > 0 && rank <= axis)) return -1;
  if (grow ? dims[axis] == n : dims[axis] <= n) return 0;
  dims[axis] = n;
  return H5Dset_extent(dset, dims);
}

/* Sets the bodies dimension (the second) of a growing run's per-body series. */
herr_t output_set_body_columns(hid_t dset, hsize_t bodies) { return set_dimension(dset, 1, bodies, true); }

/* Opens a table of a run file to append to it: as output_create_table made it
 * (output_whole_chunk_access where its chunk is one row of an inner_rank > 0 table). */
static hid_t open_table(hid_t loc, const char *name) {
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  if (d < 0) return d;
  hid_t dcpl = H5Dget_create_plist(d);
  hsize_t chunk[3] = {0, 0, 0};
  int rank = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED ? H5Pget_chunk(dcpl, 3, chunk) : 0;
  if (dcpl >= 0) H5Pclose(dcpl);
  if (rank > 1 && chunk[0] == 1) {
    hid_t dapl = output_whole_chunk_access();
    H5Dclose(d);
    d = H5Dopen2(loc, name, dapl);
    H5Pclose(dapl);
  }
  return d;
}

hsize_t output_table_rows(hid_t dset) {
  hsize_t dims[3];
  return table_dims(dset, dims) > 0 ? dims[0] : 0;
}

/* Appends rows (row-major, mem_type elements) to a table. */
herr_t output_append_rows(hid_t dset, hid_t mem_type, hsize_t rows, const void *data) {
  if (rows == 0) return 0;
  hsize_t dims[3];
  int rank = table_dims(dset, dims);
  if (rank < 1) return -1;
  hsize_t start[3] = {dims[0], 0, 0}, count[3] = {rows, dims[1], dims[2]};
  dims[0] += rows;
  if (H5Dset_extent(dset, dims) < 0) return -1;
  hid_t space = H5Dget_space(dset);
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
  hid_t mem = H5Screate_simple(rank, count, NULL);
  herr_t r = H5Dwrite(dset, mem_type, mem, space, H5P_DEFAULT, data);
  H5Sclose(mem);
  H5Sclose(space);
  return r;
}

/* Cuts a table to its first `rows` rows (nothing if it has no more). */
herr_t output_truncate_rows(hid_t dset, hsize_t rows) { return set_dimension(dset, 0, rows, false); }

bool output_traj_enabled(const clt_output_t *out, int k) {
  if (!out->options.trajectory) return false;
  if ((k == TRAJ_VELOCITY || k == TRAJ_ANGULAR) && !out->options.velocities) return false;
  if ((k == TRAJ_BODIES || k == TRAJ_LENGTH) && !out->growing) return false;
  if (k == TRAJ_JOINTS && !out->joint_series) return false;
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
    if (output_append_rows(dset, H5T_NATIVE_INT32, n, fill) < 0) return false;
    done += n;
  }
  return true;
}

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

/* Whether an existing table has the shape output_create_table gives it for this world, so that rows of
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

/* Creates (fresh) or opens (resume) the time-indexed datasets. */
bool output_open_series(clt_output_t *out, bool create) {
  hid_t file = out->file;
  int n = out->body_count;
  if (out->options.trajectory) {
    hid_t g = create ? output_create_group(file, "trajectory") : H5Gopen2(file, "trajectory", H5P_DEFAULT);
    if (g < 0) return false;
    /* a chunk of the per-body series holds the frames one flush writes (traj_capacity,
     * output_setup_bodies): from about 5 000 bodies on that is one frame, and each flush writes
     * whole chunks */
    hsize_t chunk = (hsize_t)out->traj_capacity;
    for (int k = 0; k < TRAJ_COUNT; k++) {
      if (!output_traj_enabled(out, k)) continue;
      const char *name = traj_name(out, k);
      hsize_t inner[2] = {(hsize_t)n, 3};
      int rank = k == TRAJ_STEP || k == TRAJ_TIME || k == TRAJ_BODIES ? 0 : 2;
      if (k == TRAJ_ORIENTATION) inner[1] = 4;
      if ((k == TRAJ_ORIENTATION || k == TRAJ_ANGULAR) && out->dimension == 2) rank = 1;
      if (k == TRAJ_LENGTH) rank = 1;
      if (k == TRAJ_JOINTS) {
        inner[0] = (hsize_t)out->joint_count;
        inner[1] = JOINT_STATE_COLUMNS;
      }
      if (!create && k == TRAJ_JOINTS && H5Lexists(g, name, H5P_DEFAULT) <= 0) {
        out->joint_series = false; /* a file written before the series existed: not resumed into it */
        continue;
      }
      if (!create) {
        out->traj[k] = open_table(g, name);
        /* a growing run's series are cut or extended to the bodies of the restored state */
        if (out->traj[k] >= 0 && out->growing && rank > 0 && output_set_body_columns(out->traj[k], (hsize_t)n) < 0) {
          H5Gclose(g);
          return false;
        }
        if (out->traj[k] >= 0 && !table_shape_ok(out->traj[k], rank, inner)) {
          H5Gclose(g);
          return false;
        }
      } else if (k == TRAJ_BODIES) {
        out->traj[k] = output_create_table(g, name, H5T_STD_I32LE, 0, NULL, 1024);
      } else if (out->growing && rank > 0 && k != TRAJ_JOINTS) {
        out->traj[k] = create_growing_table(g, name, rank, inner);
      } else if (k == TRAJ_STEP) {
        out->traj[k] = output_create_table(g, name, H5T_STD_I64LE, 0, NULL, 1024);
      } else if (k == TRAJ_TIME) {
        out->traj[k] = output_create_table(g, name, H5T_IEEE_F64LE, 0, NULL, 1024);
      } else {
        out->traj[k] = output_create_table(g, name, H5T_IEEE_F64LE, rank, inner, chunk);
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
    hid_t g = create ? output_create_group(file, "contacts") : H5Gopen2(file, "contacts", H5P_DEFAULT);
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
        out->cont[k] = output_create_table(g, cont_names[k], type, 0, NULL, 4096);
        if (out->cont[k] >= 0 && !output_fill_touching(out)) {
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
        out->cont[k] = output_create_table(g, cont_names[k], type, vector ? 1 : 0, &three,
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
    hid_t g = create ? output_create_group(file, "diagnostics") : H5Gopen2(file, "diagnostics", H5P_DEFAULT);
    if (g < 0) return false;
    for (int c = 0; c < COLUMN_COUNT; c++) {
      if (!create && output_columns[c].late && H5Lexists(g, output_columns[c].name, H5P_DEFAULT) <= 0) {
        /* a file of before the column: its rows so far get -1 (not recorded), --resume cuts them
         * back to the checkpoint like the other columns' */
        hid_t type = output_columns[c].kind == COL_INT64 ? H5T_STD_I64LE : H5T_STD_I32LE;
        out->diag[c] = output_create_table(g, output_columns[c].name, type, 0, NULL, 4096);
        if (out->diag[c] >= 0 && !fill_unrecorded(out->diag[c], output_table_rows(out->diag[COLUMN_step]))) {
          H5Gclose(g);
          return false;
        }
      } else if (!create) {
        out->diag[c] = H5Dopen2(g, output_columns[c].name, H5P_DEFAULT);
        if (out->diag[c] >= 0 && !table_shape_ok(out->diag[c], 0, NULL)) {
          H5Gclose(g);
          return false;
        }
      } else {
        hid_t type = output_columns[c].kind == COL_INT64    ? H5T_STD_I64LE
                     : output_columns[c].kind == COL_DOUBLE ? H5T_IEEE_F64LE
                                                            : H5T_STD_I32LE;
        out->diag[c] = output_create_table(g, output_columns[c].name, type, 0, NULL, 4096);
        if (out->diag[c] >= 0 && output_columns[c].kind == COL_STATUS) {
          output_set_attr_string(out->diag[c], "values",
                                 "0=none,1=solved,2=ray,3=max_iterations,4=error,5=not_converged");
        }
        if (out->diag[c] >= 0 && output_columns[c].wall)
          output_set_attr_string(out->diag[c], "units", "s (wall clock)");
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

/* Value of row `row` of a 1-D double table (step, t), or NAN. */
double output_table_value(hid_t dset, hsize_t row) {
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

/* The rows of a 1-D step table (/diagnostics/step, /trajectory/step) up to and including step
 * last_step; −1 if it cannot be read. */
int64_t output_rows_upto(hid_t dset, int64_t last_step) {
  hsize_t rows = 0;
  double *steps = clt_h5_read_column(dset, H5T_NATIVE_DOUBLE, sizeof(double), &rows);
  if (!steps) return -1;
  int64_t keep = 0;
  while ((hsize_t)keep < rows && steps[keep] <= (double)last_step) keep++;
  free(steps);
  return keep;
}
