/* clatter fuzzing — HDF5 files described by a byte string (fuzz/README.md "HDF5 inputs").
 *
 * A fuzzer that mutates the bytes of an HDF5 file mostly exercises HDF5's own parser; these
 * descriptions let it mutate what clatter's readers look at instead: which groups, datasets and
 * attributes exist, their types, shapes, storage and values. The description is a sequence of
 * records, all integers little-endian, read until the bytes run out or a record is malformed:
 *
 *   'G' u8 n, path[n]                              a group (parents created as needed)
 *   'D' u8 n, path[n], TYPE, SHAPE, u8 flags, u32 m, data[m]
 *                                                  a dataset; flags bit 0: chunked with unlimited
 *                                                  maximum dimensions (else contiguous, or scalar
 *                                                  when rank 0)
 *   'A' u8 n, path[n], u8 k, name[k], TYPE, SHAPE, u32 m, data[m]
 *                                                  an attribute of the object at path ("/" root)
 *   'C' u32 m, text[m]                             the file beside it (the run's CSV)
 *   TYPE  = u8 t (0 f64, 1 f32, 2 i64, 3 i32, 4 u64, 5 u32, 6 i8, 7 u8, 8 fixed string) and, for
 *           8, u32 size (bytes per string)
 *   SHAPE = u8 rank (≤ 4), u32 dims[rank]
 *
 * The data fill the elements in order; missing bytes are zero. Elements beyond
 * CLT_FUZZ_H5_MAX_ELEMENTS are never written, so a dataset may claim far more rows than the file
 * holds (a chunked one costs nothing; its unwritten chunks read as zeros). A record HDF5 refuses
 * (a name used twice, an impossible shape) is skipped. */
#ifndef CLATTER_FUZZ_H5_BUILD_H
#define CLATTER_FUZZ_H5_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLT_FUZZ_H5_MAX_ELEMENTS (1 << 16)

/* Writes the HDF5 file at h5_path and, when the description has a 'C' record, the text file at
 * csv_path (else removes csv_path). False only if the files cannot be created at all. */
bool clt_fuzz_h5_build(const uint8_t *data, size_t size, const char *h5_path, const char *csv_path);

/* A path for the harness's files, unique to this process: "/dev/shm/clatter-fuzz-PID" (or under
 * $TMPDIR when /dev/shm is absent) with suffix appended. */
void clt_fuzz_temp_path(const char *suffix, char *buf, size_t size);

#endif
