"""The standalone solvers from NumPy arrays (clatter.solve_lcp, solve_fc) and the problem files
(clatter.load_problem): answers checked against brute-force enumeration of the LCP's complementary
bases, the residual definitions, and the real problems of ../shared/data."""
import itertools

import numpy as np
import pytest

import clatter


def brute_force_lcp(M, q):
    """Every complementary basis of a small LCP: the solutions (z, w)."""
    n = len(q)
    out = []
    for mask in itertools.product([0, 1], repeat=n):
        basic = [i for i in range(n) if mask[i]]  # z_i basic (w_i = 0)
        z = np.zeros(n)
        if basic:
            try:
                z[basic] = np.linalg.solve(M[np.ix_(basic, basic)], -q[basic])
            except np.linalg.LinAlgError:
                continue
        w = M @ z + q
        if (z >= -1e-12).all() and (w >= -1e-12).all():
            out.append(z)
    return out


def random_spd(rng, n):
    A = rng.standard_normal((n, n))
    return A @ A.T + n * np.eye(n)


@pytest.mark.parametrize("solver", ["lemke", "bgs", "apgd", "bbpgd", "mprgp"])
def test_solve_lcp_matches_brute_force(solver):
    rng = np.random.default_rng(7)
    for _ in range(10):
        n = 5
        M = random_spd(rng, n)
        q = rng.standard_normal(n)
        result = clatter.solve_lcp(M, q, solver=solver, tolerance=1e-12)
        assert result.status == "solved" and result.solved
        (expected,) = brute_force_lcp(M, q)  # unique for a P-matrix
        assert np.allclose(result.x, expected, atol=1e-8)
        assert np.allclose(result.y, M @ result.x + q, atol=1e-12)
        assert result.residual <= 1e-12 * 10


def test_mixed_lcp_free_variables():
    # one free variable: w_0 = 0 exactly, z_0 of any sign
    M = np.array([[2.0, 1.0], [1.0, 3.0]])
    q = np.array([4.0, -1.0])
    r = clatter.solve_lcp(M, q, free_count=1)
    assert r.solved
    assert abs(r.y[0]) < 1e-12 and r.x[0] < 0
    assert min(r.x[1], r.y[1]) == pytest.approx(0.0, abs=1e-12)


def test_solver_that_does_not_apply_is_not_solved():
    M = np.array([[1.0, 2.0], [0.0, 1.0]])  # not symmetric
    r = clatter.solve_lcp(M, np.array([-1.0, -1.0]), solver="apgd")
    assert r.status == "error" and "not symmetric" in r.message
    assert not r.solved


def test_iteration_cap_is_reported():
    rng = np.random.default_rng(3)
    M = random_spd(rng, 30)
    r = clatter.solve_lcp(M, rng.standard_normal(30), solver="bgs", max_iterations=1, tolerance=1e-14)
    assert r.status == "max_iterations" and r.iterations == 1


def test_warm_start_from_the_answer():
    rng = np.random.default_rng(5)
    M = random_spd(rng, 8)
    q = rng.standard_normal(8)
    exact = clatter.solve_lcp(M, q)
    again = clatter.solve_lcp(M, q, solver="bgs", z0=exact.x, tolerance=1e-9)
    assert again.solved and again.iterations <= 2


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown solver"):
        clatter.solve_lcp(np.eye(2), np.ones(2), solver="simplex")
    with pytest.raises(ValueError, match="square"):
        clatter.solve_lcp(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="matching q"):
        clatter.solve_lcp(np.eye(3), np.ones(2))
    assert "lemke" in clatter.solver_names()


def test_lcp_file(shared):
    p = clatter.load_problem(shared / "data" / "lcp" / "lcp_ortiz.dat")
    assert p["kind"] == "lcp"
    r = clatter.solve_lcp(p["M"], p["q"])
    assert r.solved
    assert (r.x >= 0).all() and (r.y >= -1e-12).all() and abs(r.x @ r.y) < 1e-10


def natural_map_error(W, q, mu, r, dim):
    """‖r − P_K(r − û)‖ / ‖q‖ with De Saxcé's û (shared/data README §2.2), by hand."""
    u = W @ r + q
    total = 0.0
    for a in range(len(mu)):
        s = slice(dim * a, dim * a + dim)
        ua = u[s].copy()
        ua[0] += mu[a] * np.linalg.norm(ua[1:])
        x = r[s] - ua
        # projection onto {‖x_T‖ ≤ μ x_N}
        n, t = x[0], x[1:]
        nt = np.linalg.norm(t)
        if nt <= mu[a] * n:
            p = x
        elif mu[a] * nt <= -n:
            p = np.zeros(dim)
        else:
            pn = (mu[a] * nt + n) / (1 + mu[a] ** 2)
            p = np.concatenate([[pn], mu[a] * pn * t / nt])
        total += np.sum((r[s] - p) ** 2)
    return np.sqrt(total) / max(np.linalg.norm(q), 1.0)


def dense(W):
    """A (data, indices, indptr, shape) CSR tuple (or an array) as a dense array."""
    if not isinstance(W, tuple):
        return W
    data, indices, indptr, shape = W
    out = np.zeros(shape)
    for i in range(shape[0]):
        out[i, indices[indptr[i]:indptr[i + 1]]] = data[indptr[i]:indptr[i + 1]]
    return out


def test_fc_file_solved_and_checked_by_hand(shared):
    p = clatter.load_problem(shared / "data" / "fc" / "FC3D_Example1.dat")
    assert p["kind"] == "fc_local" and p["dim"] == 3
    r = clatter.solve_fc(p["W"], p["q"], p["mu"], dim=3)
    assert r.solved
    assert natural_map_error(dense(p["W"]), p["q"], p["mu"], r.x, 3) <= 1e-8


def test_fc_sparse_problem(shared):
    p = clatter.load_problem(shared / "data" / "fc" / "Capsules-i100-1090.dat")
    W = p["W"]
    assert isinstance(W, tuple)  # CSR
    r = clatter.solve_fc(W, p["q"], p["mu"], dim=p["dim"])
    assert r.solved
    assert natural_map_error(dense(W), p["q"], p["mu"], r.x, p["dim"]) <= 1e-8 * 1.0001
    # the same problem given dense: the same answer
    r2 = clatter.solve_fc(dense(W), p["q"], p["mu"], dim=p["dim"])
    assert r2.solved and np.allclose(r.x, r2.x, atol=1e-8)


def test_fc_single_contact_sticks_or_slides():
    # one 2D contact, W = I: pressed (q_N < 0) with a small tangential load sticks, a large one slides
    W = np.eye(2)
    stick = clatter.solve_fc(W, np.array([-1.0, 0.2]), np.array([0.5]), dim=2)
    assert stick.solved and np.allclose(stick.y, 0.0, atol=1e-10)
    slide = clatter.solve_fc(W, np.array([-1.0, 2.0]), np.array([0.5]), dim=2)
    assert slide.solved
    rn, rt = slide.x
    assert rn == pytest.approx(1.0) and abs(rt) == pytest.approx(0.5 * rn)


def test_fc_bad_arguments():
    with pytest.raises(ValueError, match="multiple of dim"):
        clatter.solve_fc(np.eye(4), np.ones(4), [0.5], dim=3)
    with pytest.raises(ValueError, match="mu"):
        clatter.solve_fc(np.eye(3), np.ones(3), [0.5, 0.5], dim=3)


def test_missing_problem_file(tmp_path):
    with pytest.raises(clatter.FileError):
        clatter.load_problem(tmp_path / "none.dat")
