/* Reading HDF5 attributes and datasets of run files: shared by the output reader
 * (src/io/output.c) and the viewers (src/viz/). Each returns false, leaving the target as it was
 * (a string: empty), when the object is absent, of another kind or of another shape: a damaged or
 * crafted file must not make a reader write past its buffer or allocate what the file does not
 * hold (docs/output-format.md "Reading damaged files"). */
#ifndef CLATTER_IO_H5_ATTR_H
#define CLATTER_IO_H5_ATTR_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A fixed-length string attribute of one element, copied (truncated) into buf of size bytes. */
bool clt_h5_read_attr_string(hid_t obj, const char *name, char *buf, size_t size);
/* A numeric attribute of one element read as mem_type (H5T_NATIVE_INT64, H5T_NATIVE_DOUBLE, ...). */
bool clt_h5_read_attr_number(hid_t obj, const char *name, hid_t mem_type, void *value);

/* Elements of the dataset's dataspace (1 for a scalar), or −1 if it cannot be read. */
int64_t clt_h5_dataset_elements(hid_t dset);

/* Whether the dataset's storage holds `elements` elements of its type: a dataset never written
 * reads as fill values, so a file may claim far more rows than it has bytes. Compressed storage
 * may be down to a thousandth of the data (deflate's best ratio is 1032:1). */
bool clt_h5_dataset_stored(hid_t dset, uint64_t elements);

/* Rows of a 1-D dataset whose storage holds them; false for any other rank or for rows the file
 * does not hold. */
bool clt_h5_column_rows(hid_t dset, hsize_t *rows);

#endif
