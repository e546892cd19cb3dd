"""An LCP from NumPy arrays: w = M z + q, z ≥ 0, w ≥ 0, zᵀw = 0, solved by each of clatter's
solvers and checked against the answer found by enumerating the complementary bases. M is the
contact matrix N̂ᵀ M⁻¹ N of three disks in a row pressed together (symmetric positive definite).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/lcp_numpy.py
"""
import itertools

import numpy as np

import clatter

M = np.array([[2.0, -1.0, 0.0],
              [-1.0, 2.0, -1.0],
              [0.0, -1.0, 2.0]])
q = np.array([-1.0, 0.5, -2.0])

# the answer by enumeration: the basis whose z and w are both ≥ 0
expected = None
for basis in itertools.product([False, True], repeat=3):
    idx = [i for i in range(3) if basis[i]]
    z = np.zeros(3)
    if idx:
        z[idx] = np.linalg.solve(M[np.ix_(idx, idx)], -q[idx])
    if (z >= -1e-14).all() and (M @ z + q >= -1e-14).all():
        expected = z

for solver in ("lemke", "bgs", "apgd", "bbpgd", "mprgp"):
    r = clatter.solve_lcp(M, q, solver=solver, tolerance=1e-12)
    print(f"{solver:6s} {r.status:8s} iterations {r.iterations:3d}  residual {r.residual:.1e}  z = {r.x.round(6)}")
    if not (r.solved and np.allclose(r.x, expected, atol=1e-9)):
        raise SystemExit(f"{solver} did not find z = {expected}")
print(f"expected z = {expected.round(6)}, w = {(M @ expected + q).round(6)}")
