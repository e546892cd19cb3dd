#include "io/h5_attr.h"

#include <stdio.h>
#include <stdlib.h>

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

int64_t clt_h5_dataset_elements(hid_t dset) {
  hid_t space = H5Dget_space(dset);
  int64_t n = space_elements(space);
  if (space >= 0) H5Sclose(space);
  return n;
}

bool clt_h5_dataset_stored(hid_t dset, uint64_t elements) {
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

bool clt_h5_column_rows(hid_t dset, hsize_t *rows) {
  hid_t space = H5Dget_space(dset);
  if (space < 0) return false;
  hsize_t dims[1] = {0};
  bool ok = H5Sget_simple_extent_type(space) == H5S_SIMPLE && H5Sget_simple_extent_ndims(space) == 1 &&
            H5Sget_simple_extent_dims(space, dims, NULL) == 1 && clt_h5_dataset_stored(dset, dims[0]);
  H5Sclose(space);
  if (ok) *rows = dims[0];
  return ok;
}

bool clt_h5_read_attr_string(hid_t obj, const char *name, char *buf, size_t size) {
  buf[0] = '\0';
  if (H5Aexists(obj, name) <= 0) return false;
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  if (attr < 0) return false;
  hid_t ftype = H5Aget_type(attr);
  bool ok = false;
  if (H5Tget_class(ftype) == H5T_STRING && !H5Tis_variable_str(ftype) && attr_elements(attr) == 1) {
    size_t n = H5Tget_size(ftype);
    char *tmp = calloc(n + 1, 1);
    hid_t mtype = H5Tcopy(H5T_C_S1);
    H5Tset_size(mtype, n + 1);
    H5Tset_strpad(mtype, H5T_STR_NULLTERM);
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

bool clt_h5_read_attr_number(hid_t obj, const char *name, hid_t mem_type, void *value) {
  if (H5Aexists(obj, name) <= 0) return false;
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  if (attr < 0) return false;
  hid_t ftype = H5Aget_type(attr);
  H5T_class_t kind = H5Tget_class(ftype);
  H5Tclose(ftype);
  /* one number (a string or a compound would be converted, or fail, element by element) */
  bool ok = (kind == H5T_INTEGER || kind == H5T_FLOAT) && attr_elements(attr) == 1 &&
            H5Aread(attr, mem_type, value) >= 0;
  H5Aclose(attr);
  return ok;
}
