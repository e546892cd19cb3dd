"""Minimal PNG reader for the viewer tests (tests/viz): 8-bit RGB or RGBA, non-interlaced — what
cairo writes. Standard library + numpy only (Debian's python3 has no PIL here)."""
import struct
import zlib

import numpy as np


def size(path):
    """(width, height) from the IHDR chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError(f"{path}: not a PNG file")
    return struct.unpack(">II", head[16:24])


def read(path):
    """The picture as a height × width × 3 uint8 array (alpha dropped)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace != 0:
                raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour type {color})")
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8)
    stride = width * channels
    rows = raw.reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 1:
            cur = np.cumsum(line.reshape(width, channels), axis=0).reshape(stride) & 255
        elif kind == 2:
            cur = (line + prev) & 255
        else:
            # Average and Paeth depend on the pixel to the left: one byte at a time.
            ln, pv, cu = line.tolist(), prev.tolist(), [0] * stride
            for x in range(stride):
                a = cu[x - channels] if x >= channels else 0
                b = pv[x]
                if kind == 3:
                    pred = (a + b) >> 1
                else:
                    c = pv[x - channels] if x >= channels else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cu[x] = (ln[x] + pred) & 255
            cur = np.array(cu, dtype=np.int32)
        out[y] = cur
        prev = cur
    return out.reshape(height, width, channels)[:, :, :3].astype(np.uint8)
