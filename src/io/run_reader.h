/* The one reader of run files (docs/output-format.md), inside clatter_io: what reads a run file
 * back goes through it — the summary of `clatter info` and the Python package
 * (output_summary.c), --resume and --start-from (output_resume.c, output_checkpoint.c) and the
 * viewers (src/viz/run.c, one layer up) — so that the documented layout is read, and checked, in
 * one place. A run file is opened read-only with its format checked and, when it cannot be, a
 * message "PATH: reason". Every reader returns false, NULL or −1, leaving its target as it was (a
 * string: empty), when the object is absent, of another kind or of another shape, and allocates
 * nothing before it has checked that the file's storage holds what a dataset claims: a damaged or
 * crafted file must not make a reader write past its buffer or allocate what the file does not
 * hold (docs/output-format.md "Reading damaged files"). HDF5 prints its error stack by default; a
 * library never prints, so the readers run with that printing off (clt_h5_silence). */
#ifndef CLATTER_IO_RUN_READER_H
#define CLATTER_IO_RUN_READER_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clatter/types.h"

/* HDF5's automatic error printing, turned off by clt_h5_silence and back on by clt_h5_restore
 * (the two nest: each restores what it found). The writer uses them too. */
typedef struct clt_h5_silence_t {
  H5E_auto2_t func;
  void *data;
} clt_h5_silence_t;
clt_h5_silence_t clt_h5_silence(void);
void clt_h5_restore(clt_h5_silence_t s);

/* ---------------------------------------------------------------------------------------------
 * Open datasets (by handle: the writer's own tables on --resume, the viewers' frame series) */

/* Rows of a 1-D dataset whose storage holds them; false for any other rank or for rows the file
 * does not hold. */
bool clt_h5_column_rows(hid_t dset, hsize_t *rows);
/* A whole 1-D dataset (clt_h5_column_rows) as mem_type elements of elem bytes, in a new array
 * (free it; one element at least) with its rows in *rows; NULL if it cannot be read. */
void *clt_h5_read_column(hid_t dset, hid_t mem_type, size_t elem, hsize_t *rows);
/* Row `row` of a dataset of rank 1 to 3 as doubles: all its inner elements, into out. */
bool clt_h5_read_row(hid_t dset, int64_t row, double *out);
/* Whether the dataset's storage holds every element its extent claims (a dataset never written
 * reads as fill values): check it once before sizing buffers by the extent. */
bool clt_h5_stored(hid_t dset);
/* Rows first … first + count − 1 of a dataset of rank 1 or 2 (every column), as mem_type elements
 * of elem bytes into out (count × columns of them); false for rows outside it. The per-frame rows
 * of /contacts (src/analysis), whose storage is checked once (clt_h5_stored). */
bool clt_h5_read_rows(hid_t dset, hid_t mem_type, size_t elem, int64_t first, int64_t count, void *out);

/* ---------------------------------------------------------------------------------------------
 * A run file */

/* The reason clt_run_file_open gives when HDF5 cannot open the file (not_hdf5 NULL). */
#define CLT_RUN_FILE_NOT_HDF5 "not an HDF5 file (or damaged)"

/* Opens path read-only as a clatter run file: the system must open it, HDF5 must open it and its
 * root attribute "format" must be CLT_OUTPUT_FORMAT_NAME. Returns the file, or −1 with *status
 * CLT_ERR_IO ("PATH: cannot open: <the system's reason>") or CLT_ERR_FORMAT ("PATH: <not_hdf5>",
 * or "PATH: not a clatter run file (no format attribute "clatter-run")"). not_hdf5 NULL:
 * CLT_RUN_FILE_NOT_HDF5 (--resume and --start-from keep their "cannot open as HDF5", which users
 * and tests/cli/test_start_from.sh match). Close it with clt_run_file_close. */
hid_t clt_run_file_open(const char *path, const char *not_hdf5, clt_status_t *status, char *message,
                        size_t message_size);
void clt_run_file_close(hid_t file);
/* "PATH: reason" into message (nothing if message is NULL or message_size 0). */
void clt_run_file_message(char *message, size_t message_size, const char *path, const char *reason);

/* Attributes of one element of the file or of a group in it (obj): a fixed-length string copied
 * (truncated) into buf of size bytes, or a number. */
bool clt_run_file_attr_string(hid_t obj, const char *name, char *buf, size_t size);
bool clt_run_file_attr_int64(hid_t obj, const char *name, int64_t *value);
bool clt_run_file_attr_double(hid_t obj, const char *name, double *value);
/* An attribute of exactly count numbers (a vector: "gravity"), as doubles. */
bool clt_run_file_attr_doubles(hid_t obj, const char *name, int count, double *values);

/* The step of the first row: 0, or the root attribute first_step of a run started from another
 * run's checkpoint; −1 when that attribute is damaged. */
int64_t clt_run_file_first_step(hid_t file);
/* The step of /checkpoint: −1 without one, −2 when it cannot be read. */
int64_t clt_run_file_checkpoint_step(hid_t file);

/* Whether the object at path ("bodies/mass") exists, every group on the way included. */
bool clt_run_file_exists(hid_t file, const char *path);
/* The rank (0 to 3) of the dataset at path with its dimensions in dims (1 where the rank stops);
 * −1 if it is absent, not a dataset or of a higher rank. */
int clt_run_file_dims(hid_t file, const char *path, hsize_t dims[3]);
/* The rows (first dimension) of the dataset at path, 0 for a scalar; −1 as clt_run_file_dims. */
int64_t clt_run_file_rows(hid_t file, const char *path);

/* The whole numeric dataset at path, rows × per_row elements (rank 1: per_row 1; ranks 2 and 3:
 * the product of the inner dimensions), as mem_type elements of elem bytes in a new array (free
 * it); NULL if it is absent, of another shape, or claims more than its storage holds. */
void *clt_run_file_read(hid_t file, const char *path, hid_t mem_type, size_t elem, hsize_t rows, hsize_t per_row);
/* The fixed-length string table at path (1-D, `rows` rows) into out: rows strings of `width`
 * bytes each, NUL-terminated, truncated. */
bool clt_run_file_read_strings(hid_t file, const char *path, hsize_t rows, char *out, size_t width);
/* The resolved scene JSON (/scene), a new string (free it); NULL if absent or damaged. */
char *clt_run_file_read_scene(hid_t file);
/* The diagnostics column /diagnostics/name (1-D), as doubles in a new array (free it) with its
 * rows in *rows; NULL if absent or damaged. */
double *clt_run_file_read_diagnostic(hid_t file, const char *name, hsize_t *rows);
/* The names of the objects in group (e.g. "diagnostics") shorter than width characters, in
 * creation order where the file tracks it (the CSV's column order), else alphabetically: a new
 * array of (count + extra) × width bytes (free it) with the count in *count; NULL if the group
 * cannot be read. extra: rows left empty for the caller. */
char *clt_run_file_names(hid_t file, const char *group, size_t width, int extra, int *count);

#endif
