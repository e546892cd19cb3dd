#include "io/h5_attr.h"

#include <stdio.h>
#include <stdlib.h>

bool clt_h5_read_attr_string(hid_t obj, const char *name, char *buf, size_t size) {
  buf[0] = '\0';
  if (H5Aexists(obj, name) <= 0) return false;
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  if (attr < 0) return false;
  hid_t ftype = H5Aget_type(attr);
  bool ok = false;
  if (H5Tget_class(ftype) == H5T_STRING && !H5Tis_variable_str(ftype)) {
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
  bool ok = attr >= 0 && H5Aread(attr, mem_type, value) >= 0;
  if (attr >= 0) H5Aclose(attr);
  return ok;
}
