#!/usr/bin/env python3
"""Writes an HDF5 file as the description that fuzz/h5_build.c turns back into a file (the
format is in h5_build.h): the seeds of the run-file and FCLIB fuzzing.

usage: fuzz/h5_describe.py FILE.h5 OUT [--prefix BYTES] [--csv FILE] [--max-bytes N]
  --prefix     bytes written first (fuzz_problem's 'H' that selects HDF5)
  --csv        a text file to add as the 'C' record (the run's CSV)
  --max-bytes  values kept per dataset (default 65536); the rest read back as zeros
Datasets and attributes of a type the format has no code for (variable-length strings, compound
types) are left out."""
import argparse
import struct
import sys

import h5py
import numpy as np

CODES = {np.dtype('<f8'): 0, np.dtype('<f4'): 1, np.dtype('<i8'): 2, np.dtype('<i4'): 3,
         np.dtype('<u8'): 4, np.dtype('<u4'): 5, np.dtype('i1'): 6, np.dtype('u1'): 7}


def type_field(dtype):
    dtype = dtype.newbyteorder('<') if dtype.byteorder == '>' else dtype
    if dtype in CODES:
        return struct.pack('<B', CODES[dtype]), dtype
    if dtype.kind == 'S' and dtype.itemsize > 0:
        return struct.pack('<BI', 8, dtype.itemsize), dtype
    return None, None


def shape_field(shape):
    return struct.pack('<B', len(shape)) + b''.join(struct.pack('<I', d) for d in shape)


def name_field(name):
    b = name.encode()
    if not 0 < len(b) < 256:
        raise ValueError(name)
    return struct.pack('<B', len(b)) + b


def values(obj_value, dtype, limit):
    data = np.asarray(obj_value, dtype=dtype).tobytes()
    return data[:limit]


def describe(path, max_bytes):
    out = bytearray()
    with h5py.File(path, 'r') as f:
        def attrs(obj, objpath):
            for name in obj.attrs:
                aid = obj.attrs.get_id(name)
                tf, dtype = type_field(aid.dtype)
                if tf is None:
                    continue
                data = values(obj.attrs[name], dtype, max_bytes)
                out.extend(b'A' + name_field(objpath) + name_field(name) + tf + shape_field(aid.shape) +
                           struct.pack('<I', len(data)) + data)

        attrs(f, '/')

        def visit(name, obj):
            if isinstance(obj, h5py.Group):
                out.extend(b'G' + name_field(name))
            elif isinstance(obj, h5py.Dataset):
                tf, dtype = type_field(obj.dtype)
                if tf is None:
                    return
                data = values(obj[()], dtype, max_bytes)
                flags = 1 if obj.chunks is not None else 0
                out.extend(b'D' + name_field(name) + tf + shape_field(obj.shape) + struct.pack('<B', flags) +
                           struct.pack('<I', len(data)) + data)
            attrs(obj, name)

        f.visititems(visit)
    return bytes(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('file')
    ap.add_argument('out')
    ap.add_argument('--prefix', default='')
    ap.add_argument('--csv')
    ap.add_argument('--max-bytes', type=int, default=65536)
    a = ap.parse_args()
    body = describe(a.file, a.max_bytes)
    if a.csv:
        text = open(a.csv, 'rb').read()[:a.max_bytes]
        body += b'C' + struct.pack('<I', len(text)) + text
    with open(a.out, 'wb') as f:
        f.write(a.prefix.encode() + body)


if __name__ == '__main__':
    sys.exit(main())
