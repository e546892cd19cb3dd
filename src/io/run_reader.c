/* The one reader of run files (run_reader.h): opening with the format check, attributes, dataset
 * shapes, whole datasets, string tables, the stored scene and the diagnostics columns, each
 * checked against what the file's storage holds before anything is allocated for it
 * (docs/output-format.md "Reading damaged files"). */
#include "io/run_reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/output.h"

clt_h5_silence_t clt_h5_silence(void) {
  clt_h5_silence_t s = {NULL, NULL};
  H5Eget_auto2(H5E_DEFAULT, &s.func, &s.data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  return s;
}

void clt_h5_restore(clt_h5_silence_t s) { H5Eset_auto2(H5E_DEFAULT, s.func, s.data); }

/* ---------------------------------------------------------------------------------------------
 * Shapes and storage */

static int64_t space_elements(hid_t space) {
  if (space < 0) return -1;
  H5S_class_t kind = H5Sget_simple_extent_type(space);
  hssize_t n = kind == H5S_SCALAR ? 1 : kind == H5S_SIMPLE ? H5Sget_simple_extent_npoints(space) : kind == H5S_NULL ? 0 : -1;
  return (int64_t)n;
}

static int64_t attr_elements(hid_t attr) {
  hid_t space = H5Aget_space(attr);
  int64_t n = space_elements(space);
  if (space >= 0) H5Sclose(space);
  return n;
}

static int64_t dataset_elements(hid_t dset) {
  hid_t space = H5Dget_space(dset);
  int64_t n = space_elements(space);
  if (space >= 0) H5Sclose(space);
  return n;
}

/* Whether the dataset's storage holds `elements` elements of its type: a dataset never written
 * reads as fill values, so a file may claim far more rows than it has bytes. Compressed storage
 * may be down to a thousandth of the data (deflate's best ratio is 1032:1). */
static bool dataset_stored(hid_t dset, uint64_t elements) {
  if (elements == 0) return true;
  hid_t ftype = H5Dget_type(dset);
  size_t size = ftype >= 0 ? H5Tget_size(ftype) : 0;
  if (ftype >= 0) H5Tclose(ftype);
  if (size == 0 || elements > UINT64_MAX / size) return false;
  uint64_t bytes = elements * size, have = H5Dget_storage_size(dset);
  hid_t dcpl = H5Dget_create_plist(dset);
  bool filtered = dcpl >= 0 && H5Pget_nfilters(dcpl) > 0;
  if (dcpl >= 0) H5Pclose(dcpl);
  return filtered ? bytes / 1100 <= have : bytes <= have;
}

/* A fixed-length C string type of n bytes (the terminating NUL included). */
static hid_t c_string(size_t n) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, n);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  return t;
}

bool clt_h5_column_rows(hid_t dset, hsize_t *rows) {
  hid_t space = H5Dget_space(dset);
  if (space < 0) return false;
  hsize_t dims[1] = {0};
  bool ok = H5Sget_simple_extent_type(space) == H5S_SIMPLE && H5Sget_simple_extent_ndims(space) == 1 &&
            H5Sget_simple_extent_dims(space, dims, NULL) == 1 && dataset_stored(dset, dims[0]);
  H5Sclose(space);
  if (ok) *rows = dims[0];
  return ok;
}

void *clt_h5_read_column(hid_t dset, hid_t mem_type, size_t elem, hsize_t *rows) {
  *rows = 0;
  if (!clt_h5_column_rows(dset, rows)) return NULL;
  void *v = malloc(elem * (size_t)(*rows > 0 ? *rows : 1));
  if (v && *rows > 0 && H5Dread(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
    free(v);
    v = NULL;
  }
  return v;
}

bool clt_h5_read_row(hid_t dset, int64_t row, double *out) {
  hid_t space = H5Dget_space(dset);
  int rank = H5Sget_simple_extent_ndims(space);
  hsize_t dims[3] = {1, 1, 1}, start[3] = {(hsize_t)row, 0, 0}, count[3] = {1, 1, 1};
  bool ok = rank >= 1 && rank <= 3;
  if (ok) {
    H5Sget_simple_extent_dims(space, dims, NULL);
    for (int i = 1; i < rank; i++) count[i] = dims[i];
    ok = (hsize_t)row < dims[0] && H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0;
  }
  if (ok) {
    hsize_t total = count[0] * count[1] * count[2];
    hid_t mem = H5Screate_simple(1, &total, NULL);
    ok = H5Dread(dset, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, out) >= 0;
    H5Sclose(mem);
  }
  H5Sclose(space);
  return ok;
}

bool clt_h5_stored(hid_t dset) {
  int64_t n = dataset_elements(dset);
  return n >= 0 && dataset_stored(dset, (uint64_t)n);
}

bool clt_h5_read_rows(hid_t dset, hid_t mem_type, size_t elem, int64_t first, int64_t count, void *out) {
  if (first < 0 || count < 0) return false;
  if (count == 0) return true;
  hid_t space = H5Dget_space(dset);
  int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
  hsize_t dims[2] = {0, 1};
  bool ok = rank >= 1 && rank <= 2 && H5Sget_simple_extent_dims(space, dims, NULL) == rank &&
            (hsize_t)first <= dims[0] && (hsize_t)count <= dims[0] - (hsize_t)first &&
            H5Tget_size(mem_type) == elem;
  if (ok) {
    hsize_t start[2] = {(hsize_t)first, 0}, rows[2] = {(hsize_t)count, dims[1]};
    ok = H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, rows, NULL) >= 0;
    hid_t mem = ok ? H5Screate_simple(rank, rows, NULL) : -1;
    ok = ok && mem >= 0 && H5Dread(dset, mem_type, mem, space, H5P_DEFAULT, out) >= 0;
    if (mem >= 0) H5Sclose(mem);
  }
  if (space >= 0) H5Sclose(space);
  return ok;
}

/* ---------------------------------------------------------------------------------------------
 * Opening */

void clt_run_file_message(char *message, size_t message_size, const char *path, const char *reason) {
  if (message && message_size > 0) snprintf(message, message_size, "%s: %s", path, reason);
}

hid_t clt_run_file_open(const char *path, const char *not_hdf5, clt_status_t *status, char *message,
                        size_t message_size) {
  /* the system's reason first: HDF5 says only that it failed */
  FILE *probe = fopen(path, "rb");
  if (!probe) {
    if (message && message_size > 0) snprintf(message, message_size, "%s: cannot open: %s", path, strerror(errno));
    *status = CLT_ERR_IO;
    return -1;
  }
  fclose(probe);
  clt_h5_silence_t quiet = clt_h5_silence();
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  char format[64];
  *status = CLT_OK;
  if (file < 0) {
    clt_run_file_message(message, message_size, path, not_hdf5 ? not_hdf5 : CLT_RUN_FILE_NOT_HDF5);
    *status = CLT_ERR_FORMAT;
  } else if (!clt_run_file_attr_string(file, "format", format, sizeof format) ||
             strcmp(format, CLT_OUTPUT_FORMAT_NAME) != 0) {
    clt_run_file_message(message, message_size, path,
                         "not a clatter run file (no format attribute \"" CLT_OUTPUT_FORMAT_NAME "\")");
    *status = CLT_ERR_FORMAT;
    H5Fclose(file);
    file = -1;
  }
  clt_h5_restore(quiet);
  return file;
}

void clt_run_file_close(hid_t file) {
  if (file < 0) return;
  clt_h5_silence_t quiet = clt_h5_silence();
  H5Fclose(file);
  clt_h5_restore(quiet);
}

/* ---------------------------------------------------------------------------------------------
 * Attributes */

bool clt_run_file_attr_string(hid_t obj, const char *name, char *buf, size_t size) {
  buf[0] = '\0';
  if (H5Aexists(obj, name) <= 0) return false;
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  if (attr < 0) return false;
  hid_t ftype = H5Aget_type(attr);
  bool ok = false;
  if (H5Tget_class(ftype) == H5T_STRING && !H5Tis_variable_str(ftype) && attr_elements(attr) == 1) {
    size_t n = H5Tget_size(ftype);
    char *tmp = calloc(n + 1, 1);
    hid_t mtype = c_string(n + 1);
    if (tmp && H5Aread(attr, mtype, tmp) >= 0) {
      snprintf(buf, size, "%s", tmp);
      ok = true;
    }
    H5Tclose(mtype);
    free(tmp);
  }
  H5Tclose(ftype);
  H5Aclose(attr);
  return ok;
}

static bool attr_numbers(hid_t obj, const char *name, hid_t mem_type, int64_t count, void *value) {
  if (H5Aexists(obj, name) <= 0) return false;
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  if (attr < 0) return false;
  hid_t ftype = H5Aget_type(attr);
  H5T_class_t kind = H5Tget_class(ftype);
  H5Tclose(ftype);
  /* count numbers (a string or a compound would be converted, or fail, element by element) */
  bool ok = (kind == H5T_INTEGER || kind == H5T_FLOAT) && attr_elements(attr) == count &&
            H5Aread(attr, mem_type, value) >= 0;
  H5Aclose(attr);
  return ok;
}

static bool attr_number(hid_t obj, const char *name, hid_t mem_type, void *value) {
  return attr_numbers(obj, name, mem_type, 1, value);
}

bool clt_run_file_attr_int64(hid_t obj, const char *name, int64_t *value) {
  return attr_number(obj, name, H5T_NATIVE_INT64, value);
}

bool clt_run_file_attr_double(hid_t obj, const char *name, double *value) {
  return attr_number(obj, name, H5T_NATIVE_DOUBLE, value);
}

bool clt_run_file_attr_doubles(hid_t obj, const char *name, int count, double *values) {
  return count > 0 && attr_numbers(obj, name, H5T_NATIVE_DOUBLE, count, values);
}

int64_t clt_run_file_first_step(hid_t file) {
  int64_t first = 0;
  if (H5Aexists(file, "first_step") > 0 && !clt_run_file_attr_int64(file, "first_step", &first)) return -1;
  return first >= 0 ? first : -1;
}

int64_t clt_run_file_checkpoint_step(hid_t file) {
  if (H5Lexists(file, "checkpoint", H5P_DEFAULT) <= 0) return -1;
  int64_t step = -2;
  hid_t g = H5Gopen2(file, "checkpoint", H5P_DEFAULT);
  if (g < 0 || !clt_run_file_attr_int64(g, "step", &step)) step = -2;
  if (g >= 0) H5Gclose(g);
  return step;
}

/* ---------------------------------------------------------------------------------------------
 * Datasets by path */

bool clt_run_file_exists(hid_t file, const char *path) {
  /* H5Lexists needs every intermediate group to exist: check them one by one. */
  char buf[256];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf; (p = strchr(p + 1, '/')) != NULL;) {
    *p = '\0';
    bool ok = H5Lexists(file, buf, H5P_DEFAULT) > 0;
    *p = '/';
    if (!ok) return false;
  }
  return H5Lexists(file, buf, H5P_DEFAULT) > 0;
}

int clt_run_file_dims(hid_t file, const char *path, hsize_t dims[3]) {
  dims[0] = dims[1] = dims[2] = 1;
  if (!clt_run_file_exists(file, path)) return -1;
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t space = H5Dget_space(d);
  int rank = H5Sget_simple_extent_ndims(space);
  if (rank > 3 || rank < 0) rank = -1;
  else H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  H5Dclose(d);
  return rank;
}

int64_t clt_run_file_rows(hid_t file, const char *path) {
  hsize_t dims[3];
  int rank = clt_run_file_dims(file, path, dims);
  return rank < 0 ? -1 : rank == 0 ? 0 : (int64_t)dims[0];
}

void *clt_run_file_read(hid_t file, const char *path, hid_t mem_type, size_t elem, hsize_t rows, hsize_t per_row) {
  hsize_t dims[3];
  int rank = clt_run_file_dims(file, path, dims);
  if (rank < 0) return NULL;
  if (rank > 0 ? dims[0] != rows : rows != 1) return NULL;
  hsize_t inner = (rank >= 2 ? dims[1] : 1) * (rank >= 3 ? dims[2] : 1); /* < 2^64: each dim < 2^32 */
  if (per_row == 0 || inner != per_row || rows > UINT64_MAX / elem / per_row) return NULL;
  hsize_t total = rows * per_row;
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return NULL;
  void *buf = NULL;
  /* the storage must hold what the shape claims before anything is allocated for it */
  if (dataset_stored(d, total) && (buf = calloc(total > 0 ? total : 1, elem)) && total > 0 &&
      H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
    free(buf);
    buf = NULL;
  }
  H5Dclose(d);
  return buf;
}

bool clt_run_file_read_strings(hid_t file, const char *path, hsize_t rows, char *out, size_t width) {
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return false;
  hid_t ftype = H5Dget_type(d);
  bool ok = H5Tget_class(ftype) == H5T_STRING && !H5Tis_variable_str(ftype);
  size_t n = ok ? H5Tget_size(ftype) : 0;
  hsize_t have = 0;
  ok = ok && clt_h5_column_rows(d, &have) && have == rows;
  char *tmp = ok ? calloc((size_t)(rows > 0 ? rows : 1), n + 1) : NULL;
  if (ok && tmp && rows > 0) {
    hid_t mtype = c_string(n + 1);
    ok = H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, tmp) >= 0;
    H5Tclose(mtype);
    for (hsize_t i = 0; ok && i < rows; i++) snprintf(out + i * width, width, "%s", tmp + i * (n + 1));
  } else if (!tmp) {
    ok = false;
  }
  free(tmp);
  H5Tclose(ftype);
  H5Dclose(d);
  return ok;
}

char *clt_run_file_read_scene(hid_t file) {
  if (H5Lexists(file, "scene", H5P_DEFAULT) <= 0) return NULL;
  hid_t d = H5Dopen2(file, "scene", H5P_DEFAULT);
  if (d < 0) return NULL;
  hid_t ftype = H5Dget_type(d);
  char *text = NULL;
  if (H5Tget_class(ftype) == H5T_STRING && !H5Tis_variable_str(ftype) && dataset_elements(d) == 1 &&
      dataset_stored(d, 1)) {
    size_t n = H5Tget_size(ftype);
    text = calloc(n + 1, 1);
    hid_t mtype = c_string(n + 1);
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

double *clt_run_file_read_diagnostic(hid_t file, const char *name, hsize_t *rows) {
  *rows = 0;
  char path[128];
  snprintf(path, sizeof path, "diagnostics/%s", name);
  if (!clt_run_file_exists(file, path)) return NULL;
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return NULL;
  double *v = clt_h5_read_column(d, H5T_NATIVE_DOUBLE, sizeof(double), rows);
  H5Dclose(d);
  if (!v) *rows = 0;
  return v;
}

#if H5_VERSION_GE(1, 12, 0)
typedef H5L_info2_t link_info_t;
#define LINK_ITERATE H5Literate2
#else
typedef H5L_info_t link_info_t;
#define LINK_ITERATE H5Literate
#endif

typedef struct names_t {
  char *names;
  size_t width;
  int count;
} names_t;

static herr_t collect_name(hid_t group, const char *name, const link_info_t *info, void *data) {
  (void)group;
  (void)info;
  names_t *n = data;
  if (strlen(name) < n->width) {
    snprintf(n->names + (size_t)n->count * n->width, n->width, "%s", name);
    n->count++;
  }
  return 0;
}

char *clt_run_file_names(hid_t file, const char *group, size_t width, int extra, int *count) {
  *count = 0;
  hid_t g = H5Gopen2(file, group, H5P_DEFAULT);
  if (g < 0) return NULL;
  H5G_info_t info;
  if (H5Gget_info(g, &info) < 0) {
    H5Gclose(g);
    return NULL;
  }
  size_t rows = (size_t)info.nlinks + (size_t)extra;
  names_t n = {calloc(rows > 0 ? rows : 1, width), width, 0};
  /* creation order is the CSV column order when the file tracks it; else alphabetical */
  if (n.names && LINK_ITERATE(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, collect_name, &n) < 0) {
    n.count = 0;
    LINK_ITERATE(g, H5_INDEX_NAME, H5_ITER_INC, NULL, collect_name, &n);
  }
  H5Gclose(g);
  *count = n.count;
  return n.names;
}
