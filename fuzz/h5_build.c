#include "h5_build.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct reader_t {
  const uint8_t *p;
  size_t left;
} reader_t;

static bool take(reader_t *r, void *out, size_t n) {
  if (r->left < n) return false;
  if (out) memcpy(out, r->p, n);
  r->p += n;
  r->left -= n;
  return true;
}

static bool take_u8(reader_t *r, uint8_t *v) { return take(r, v, 1); }

static bool take_u32(reader_t *r, uint32_t *v) {
  uint8_t b[4];
  if (!take(r, b, 4)) return false;
  *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  return true;
}

/* a u8-counted name, NUL-terminated into buf (256 bytes) */
static bool take_name(reader_t *r, char buf[256]) {
  uint8_t n;
  if (!take_u8(r, &n) || !take(r, buf, n)) return false;
  buf[n] = '\0';
  return strlen(buf) == n && n > 0;
}

/* The file type of a TYPE field (a copy to close), or -1. */
static hid_t take_type(reader_t *r) {
  static const hid_t *const numeric[] = {&H5T_IEEE_F64LE_g, &H5T_IEEE_F32LE_g, &H5T_STD_I64LE_g,
                                         &H5T_STD_I32LE_g,  &H5T_STD_U64LE_g,  &H5T_STD_U32LE_g,
                                         &H5T_STD_I8LE_g,   &H5T_STD_U8LE_g};
  uint8_t t;
  if (!take_u8(r, &t)) return -1;
  if (t < 8) return H5Tcopy(*numeric[t]);
  if (t == 8) {
    uint32_t size;
    if (!take_u32(r, &size) || size == 0 || size > (1u << 16)) return -1;
    hid_t s = H5Tcopy(H5T_C_S1);
    H5Tset_size(s, size);
    H5Tset_strpad(s, H5T_STR_NULLTERM);
    return s;
  }
  return -1;
}

typedef struct shape_t {
  int rank;
  hsize_t dims[4];
  uint64_t elements; /* saturated at UINT64_MAX */
} shape_t;

static bool take_shape(reader_t *r, shape_t *s) {
  uint8_t rank;
  if (!take_u8(r, &rank) || rank > 4) return false;
  s->rank = rank;
  s->elements = 1;
  for (int i = 0; i < rank; i++) {
    uint32_t d;
    if (!take_u32(r, &d)) return false;
    s->dims[i] = d;
    s->elements = (d != 0 && s->elements > UINT64_MAX / d) ? UINT64_MAX : s->elements * d;
  }
  return true;
}

static hid_t make_space(const shape_t *s, bool unlimited) {
  if (s->rank == 0) return H5Screate(H5S_SCALAR);
  hsize_t maxdims[4];
  for (int i = 0; i < s->rank; i++) maxdims[i] = unlimited ? H5S_UNLIMITED : s->dims[i];
  return H5Screate_simple(s->rank, s->dims, maxdims);
}

/* The element values: data then zeros, or NULL when the object is too large to write. */
static void *element_buffer(const shape_t *s, size_t element_size, const uint8_t *data, size_t m) {
  if (s->elements > CLT_FUZZ_H5_MAX_ELEMENTS || s->elements * element_size > (64u << 20)) return NULL;
  size_t bytes = (size_t)s->elements * element_size;
  uint8_t *buf = calloc(bytes > 0 ? bytes : 1, 1);
  if (buf) memcpy(buf, data, m < bytes ? m : bytes);
  return buf;
}

static void add_group(hid_t file, hid_t lcpl, const char *path) {
  hid_t g = H5Gcreate2(file, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  if (g >= 0) H5Gclose(g);
}

static void add_dataset(hid_t file, hid_t lcpl, const char *path, hid_t type, const shape_t *shape, uint8_t flags,
                        const uint8_t *data, size_t m) {
  bool chunked = (flags & 1) && shape->rank > 0;
  hid_t space = make_space(shape, chunked);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (chunked) {
    size_t element_size = H5Tget_size(type);
    hsize_t chunk[4];
    uint64_t chunk_bytes = element_size;
    for (int i = 0; i < shape->rank; i++) {
      chunk[i] = shape->dims[i] < 1 ? 1 : shape->dims[i] > 64 ? 64 : shape->dims[i];
      chunk_bytes *= chunk[i];
    }
    for (int i = 0; chunk_bytes > (1u << 20); i = (i + 1) % shape->rank) {
      if (chunk[i] > 1) {
        chunk_bytes /= chunk[i];
        chunk[i] /= 2;
        chunk_bytes *= chunk[i];
      }
    }
    H5Pset_chunk(dcpl, shape->rank, chunk);
  }
  hid_t d = space >= 0 ? H5Dcreate2(file, path, type, space, lcpl, dcpl, H5P_DEFAULT) : -1;
  if (d >= 0) {
    void *buf = element_buffer(shape, H5Tget_size(type), data, m);
    if (buf && shape->elements > 0) H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    free(buf);
    H5Dclose(d);
  }
  H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
}

static void add_attribute(hid_t file, const char *path, const char *name, hid_t type, const shape_t *shape,
                          const uint8_t *data, size_t m) {
  hid_t obj = H5Oopen(file, path, H5P_DEFAULT);
  if (obj < 0) return;
  void *buf = element_buffer(shape, H5Tget_size(type), data, m);
  hid_t space = buf ? make_space(shape, false) : -1;
  hid_t a = space >= 0 ? H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
  if (a >= 0) {
    if (shape->elements > 0) H5Awrite(a, type, buf);
    H5Aclose(a);
  }
  if (space >= 0) H5Sclose(space);
  free(buf);
  H5Oclose(obj);
}

bool clt_fuzz_h5_build(const uint8_t *data, size_t size, const char *h5_path, const char *csv_path) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  unlink(csv_path);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
  hid_t file = H5Fcreate(h5_path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  if (file < 0) return false;
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  reader_t r = {data, size};
  bool ok = true;
  for (uint8_t tag; ok && take_u8(&r, &tag);) {
    char path[256], name[256];
    shape_t shape;
    uint8_t flags = 0;
    uint32_t m = 0;
    hid_t type = -1;
    switch (tag) {
      case 'G':
        ok = take_name(&r, path);
        if (ok) add_group(file, lcpl, path);
        break;
      case 'D':
        ok = take_name(&r, path) && (type = take_type(&r)) >= 0 && take_shape(&r, &shape) && take_u8(&r, &flags) &&
             take_u32(&r, &m);
        if (ok) {
          const uint8_t *bytes = r.p;
          if (m > r.left) m = (uint32_t)r.left;
          take(&r, NULL, m);
          add_dataset(file, lcpl, path, type, &shape, flags, bytes, m);
        }
        break;
      case 'A':
        ok = take_name(&r, path) && take_name(&r, name) && (type = take_type(&r)) >= 0 && take_shape(&r, &shape) &&
             take_u32(&r, &m);
        if (ok) {
          const uint8_t *bytes = r.p;
          if (m > r.left) m = (uint32_t)r.left;
          take(&r, NULL, m);
          add_attribute(file, path, name, type, &shape, bytes, m);
        }
        break;
      case 'C': {
        ok = take_u32(&r, &m);
        if (ok) {
          if (m > r.left) m = (uint32_t)r.left;
          FILE *f = fopen(csv_path, "wb");
          if (f) {
            fwrite(r.p, 1, m, f);
            fclose(f);
          }
          take(&r, NULL, m);
        }
        break;
      }
      default:
        ok = false;
    }
    if (type >= 0) H5Tclose(type);
  }
  H5Pclose(lcpl);
  H5Fclose(file);
  return true;
}

void clt_fuzz_temp_path(const char *suffix, char *buf, size_t size) {
  const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(buf, size, "%s/clatter-fuzz-%ld%s", dir, (long)getpid(), suffix);
}
