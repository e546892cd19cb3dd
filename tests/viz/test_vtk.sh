#!/usr/bin/env bash
# `clatter vtk`: a 3D run written as VTK XML and read back with Debian's python3-vtk9
# (vtkXMLPolyDataReader): number of points, one body's orientation quaternion and position, the
# sphere's surface mesh at its radius, the .pvd series' times; a 2D run and a frame range. Where
# python3-vtk9 is missing the files are parsed as plain XML instead (the output says so).
source "$CLATTER_SOURCE_DIR/tests/viz/viz_lib.sh"
cd "$tmp"
run_ok "$CLATTER_BIN" run "$viz_dir/shapes3d.json" -o s3.h5 --quiet --set output.contacts=false
run_ok "$CLATTER_BIN" vtk s3.h5 -o out3 > vtk3.out
grep -q "^wrote 24 files to out3/" vtk3.out || die "vtk summary: $(cat vtk3.out)"
run_ok "$CLATTER_BIN" run "$viz_dir/shapes2d.json" -o s2.h5 --quiet --set output.contacts=false
run_ok "$CLATTER_BIN" vtk s2.h5 -o out2 --frames 10:30:10 --name two > /dev/null
"$CLATTER_BIN" vtk s2.h5 -o out2 --frames 30:10 2> /dev/null
[ $? -eq 2 ] || die "an empty frame range must exit 2"

"$PY" - <<'PY' || exit 1
import math, os, sys
import xml.etree.ElementTree as ET
import numpy as np
failures = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)

try:
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy

    def read(path):
        r = vtk.vtkXMLPolyDataReader()
        r.SetFileName(path)
        r.Update()
        if r.GetErrorCode() != 0:
            raise RuntimeError(f"{path}: VTK reader error {r.GetErrorCode()}")
        pd = r.GetOutput()
        arrays = {}
        for data in (pd.GetPointData(), pd.GetCellData()):
            for i in range(data.GetNumberOfArrays()):
                arrays[data.GetArrayName(i)] = vtk_to_numpy(data.GetArray(i))
        points = vtk_to_numpy(pd.GetPoints().GetData()) if pd.GetNumberOfPoints() else np.zeros((0, 3))
        return pd.GetNumberOfPoints(), pd.GetNumberOfCells(), points, arrays
    print("reading with python3-vtk9", vtk.vtkVersion.GetVTKVersion())
except ImportError:
    def read(path):
        piece = ET.parse(path).getroot().find("PolyData/Piece")
        def values(e):
            comps = int(e.get("NumberOfComponents", "1"))
            v = np.array(e.text.split(), float)
            return v.reshape(-1, comps) if comps > 1 else v
        arrays = {e.get("Name"): values(e) for tag in ("PointData", "CellData") for e in piece.find(tag) or []}
        points = values(piece.find("Points/DataArray"))
        cells = int(piece.get("NumberOfVerts")) + int(piece.get("NumberOfPolys"))
        return int(piece.get("NumberOfPoints")), cells, points, arrays
    print("python3-vtk9 is not installed: parsing the VTK XML directly instead")

n, cells, points, a = read("out3/shapes3d_00005.vtp")
check(n == 6, f"3D bodies file has 6 points (one per body): {n}")
check(cells == 6, f"one vertex cell per body: {cells}")
check(a["orientation"].shape == (6, 4), "orientation has 4 components")
q = a["orientation"][2]  # the box: 0.5 rad about z, no angular velocity
want = [math.cos(0.25), 0, 0, math.sin(0.25)]
check(np.allclose(q, want, atol=1e-12), f"box orientation quaternion (w, x, y, z) = {q}")
check(np.allclose(points[1], [0, 0, 0.5]), f"sphere position {points[1]}")
check(list(a["shape_type"]) == [6, 5, 7, 8, 9, 10], f"shape type ids {list(a['shape_type'])}")
check(abs(a["radius"][1] - 0.5) < 1e-15 and abs(a["major_radius"][5] - 0.45) < 1e-15, "shape parameters")
n, cells, points, a = read("out3/shapes3d_shapes_00005.vtp")
sphere = np.unique(np.asarray(a["body_id"]))
check(set(sphere.tolist()) == {0, 1, 2, 3, 4, 5}, f"every body has surface cells: {sphere.tolist()}")
# Points of the sphere's cells lie at its radius.
r = np.linalg.norm(points - np.array([0, 0, 0.5]), axis=1)
check(np.sum(np.abs(r - 0.5) < 1e-9) >= 13 * 24, f"sphere mesh points at radius 0.5: {int(np.sum(np.abs(r - 0.5) < 1e-9))}")
root = ET.parse("out3/shapes3d.pvd").getroot()
sets = root.findall("Collection/DataSet")
check(len(sets) == 11, f".pvd lists 11 frames: {len(sets)}")
check(abs(float(sets[3].get("timestep")) - 0.03) < 1e-12 and sets[3].get("file") == "shapes3d_00003.vtp",
      f".pvd entry 3: {sets[3].attrib}")
check(all(os.path.exists(os.path.join("out3", s.get("file"))) for s in sets), ".pvd files exist")
files = sorted(os.listdir("out2"))
check(files == ["two.pvd", "two_00010.vtp", "two_00020.vtp", "two_00030.vtp", "two_shapes.pvd",
                "two_shapes_00010.vtp", "two_shapes_00020.vtp", "two_shapes_00030.vtp"], f"2D range files: {files}")
n, cells, points, a = read("out2/two_00020.vtp")
check(n == 7 and "angle" in a and a["orientation"].shape == (7, 4), "2D bodies: 7 points, angle and quaternion")
th = a["angle"][1]
check(np.allclose(a["orientation"][1], [math.cos(th / 2), 0, 0, math.sin(th / 2)]), "2D quaternion = rotation about z by angle")
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
PY
