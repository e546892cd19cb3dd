/* Reading HDF5 attributes of run files: shared by the output reader (src/io/output.c) and the
 * viewers (src/viz/). Each returns false, leaving the target as it was (a string: empty), when
 * the attribute is absent or of another kind. */
#ifndef CLATTER_IO_H5_ATTR_H
#define CLATTER_IO_H5_ATTR_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>

/* A fixed-length string attribute, copied (truncated) into buf of size bytes. */
bool clt_h5_read_attr_string(hid_t obj, const char *name, char *buf, size_t size);
/* A scalar numeric attribute read as mem_type (H5T_NATIVE_INT64, H5T_NATIVE_DOUBLE, ...). */
bool clt_h5_read_attr_number(hid_t obj, const char *name, hid_t mem_type, void *value);

#endif
