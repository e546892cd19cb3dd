"""Reads the .vtp files of `clatter vtk` without VTK, checking their layout on the way (imported by
tests/viz/test_vtk.sh and test_contacts.sh, beside VTK's own reader).

Binary files (docs/visualization.md "`clatter vtk`: ParaView"): the XML head, then after
`<AppendedData encoding="raw">` and `_` one array after another, each as VTK's zlib compressor
stores it with header_type UInt64: [number of blocks, block size, uncompressed size of the last
block (0 when full), compressed size of each block], then the zlib streams. read() raises
LayoutError when a header disagrees with its data, when the arrays do not follow each other from
offset 0 without gaps, or when anything but the closing tags follows the last one. ASCII files
(--ascii) are plain XML.
"""
import struct
import xml.etree.ElementTree as ET
import zlib

import numpy as np

TYPES = {"Float64": "f8", "Int32": "i4", "Int64": "i8"}
TAIL = b"\n  </AppendedData>\n</VTKFile>\n"


class LayoutError(Exception):
    pass


def _decode(block, offset, dtype, order):
    """One appended array at offset: (values, the offset after it, block size)."""
    count, block_size, last = struct.unpack_from(order + "3Q", block, offset)
    sizes = struct.unpack_from(order + f"{count}Q", block, offset + 24)
    at = offset + 24 + 8 * count
    raw = []
    for i, size in enumerate(sizes):
        chunk = zlib.decompress(block[at:at + size])
        want = last if i == count - 1 and last else block_size
        if len(chunk) != want:
            raise LayoutError(f"block {i} of the array at {offset}: {len(chunk)} bytes, header says {want}")
        raw.append(chunk)
        at += size
    if count == 0 and last != 0:
        raise LayoutError(f"empty array at {offset} with a last block of {last} bytes")
    return np.frombuffer(b"".join(raw), np.dtype(order + dtype)), at, block_size


def read(path):
    """(root attributes, piece attributes, {"PointData/radius": array, "Points/Points": ..., ...}).
    Arrays of several components are rows × components."""
    data = open(path, "rb").read()
    marker = b'<AppendedData encoding="raw">'
    at = data.find(marker)
    block = None
    if at < 0:
        root = ET.fromstring(data)
    else:
        root = ET.fromstring(data[:at] + b"</VTKFile>")
        start = data.index(b"_", at + len(marker)) + 1
        if data[at + len(marker):start] != b"\n   _":
            raise LayoutError(f"{path}: unexpected bytes before the appended block")
        block = data[start:]
    order = "<" if root.get("byte_order") == "LittleEndian" else ">"
    piece = root.find("PolyData/Piece")
    arrays, spans = {}, []
    for section in piece:
        for e in section.findall("DataArray"):
            components = int(e.get("NumberOfComponents", "1"))
            dtype = TYPES[e.get("type")]
            if e.get("format") == "ascii":
                values = np.array((e.text or "").split(), np.dtype(dtype))
            elif e.get("format") == "appended" and block is not None:
                if root.get("header_type") != "UInt64" or root.get("compressor") != "vtkZLibDataCompressor":
                    raise LayoutError(f"{path}: header_type {root.get('header_type')}, "
                                      f"compressor {root.get('compressor')}")
                offset = int(e.get("offset"))
                values, end, block_size = _decode(block, offset, dtype, order)
                spans.append((offset, end))
                if block_size != 32768:
                    raise LayoutError(f"{path}: block size {block_size}")
            else:
                raise LayoutError(f"{path}: array {e.get('Name')} in format {e.get('format')}")
            name = f"{section.tag}/{e.get('Name')}"
            arrays[name] = values.reshape(-1, components) if components > 1 else values
    if block is not None:
        spans.sort()
        end = 0
        for offset, stop in spans:
            if offset != end:
                raise LayoutError(f"{path}: array at {offset}, the previous one ends at {end}")
            end = stop
        if block[end:] != TAIL:
            raise LayoutError(f"{path}: {len(block) - end} bytes after the last array, not the closing tags")
    return root.attrib, piece.attrib, arrays
