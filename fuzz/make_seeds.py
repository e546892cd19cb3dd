#!/usr/bin/env python3
"""Makes the starting corpora of the fuzzing harnesses (fuzz/README.md) in OUT/{scene,problem,run}:

  scene    the scene files of scenes/ under 16 KiB
  problem  the shared data's .dat files under 32 KiB, and small FCLIB problems (local in CSC and
           triplet storage, global in CSR) written here and described for h5_build ('H' first)
  run      run files of a few scenes (3D, 2D, joints, contacts, CSV) of 4 steps with a checkpoint
           every 2, described for h5_build with their CSV

usage: fuzz/make_seeds.py CLATTER_BINARY OUT"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import h5_describe  # noqa: E402


def shared_dir():
    return os.environ.get('CLATTER_SHARED_DIR') or os.path.join(os.path.dirname(ROOT), 'shared')


def write_matrix(g, dense, storage):
    rows, cols = dense.shape
    g['m'] = np.array([rows], 'i4')
    g['n'] = np.array([cols], 'i4')
    r, c = np.nonzero(dense)
    if storage == 'triplet':
        g['nz'] = np.array([len(r)], 'i4')
        g['p'], g['i'], g['x'] = c.astype('i4'), r.astype('i4'), dense[r, c]
    elif storage == 'csc':
        order = np.lexsort((r, c))
        r, c = r[order], c[order]
        g['nz'] = np.array([-1], 'i4')
        g['p'] = np.searchsorted(c, np.arange(cols + 1)).astype('i4')
        g['i'], g['x'] = r.astype('i4'), dense[r, c]
    else:
        g['nz'] = np.array([-2], 'i4')
        g['p'] = np.searchsorted(r, np.arange(rows + 1)).astype('i4')
        g['i'], g['x'] = c.astype('i4'), dense[r, c]
    g['nzmax'] = np.array([len(r)], 'i4')


def fclib_files(tmp):
    rng = np.random.default_rng(7)
    out = []
    for storage in ('csc', 'triplet'):
        m = 6
        a = rng.standard_normal((m, m + 2))
        w = a @ a.T
        w[np.abs(w) < 0.3] = 0
        path = os.path.join(tmp, 'local_%s.hdf5' % storage)
        with h5py.File(path, 'w') as f:
            g = f.create_group('fclib_local')
            g['spacedim'] = np.array([3], 'i4')
            write_matrix(g.create_group('W'), w, storage)
            v = g.create_group('vectors')
            v['q'] = rng.standard_normal(m)
            v['mu'] = np.array([0.3, 0.5])
            f.create_group('fclib_local/info')['title'] = np.bytes_('seed')
        out.append(path)
    n, contacts = 6, 2
    a = rng.standard_normal((n, n))
    path = os.path.join(tmp, 'global_csr.hdf5')
    with h5py.File(path, 'w') as f:
        g = f.create_group('fclib_global')
        g['spacedim'] = np.array([3], 'i4')
        write_matrix(g.create_group('M'), a @ a.T + n * np.eye(n), 'csr')
        h = rng.standard_normal((n, 3 * contacts))
        h[np.abs(h) < 0.5] = 0
        write_matrix(g.create_group('H'), h, 'csc')
        v = g.create_group('vectors')
        v['f'] = rng.standard_normal(n)
        v['w'] = rng.standard_normal(3 * contacts)
        v['mu'] = np.array([0.2, 0.4])
    out.append(path)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    clatter, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    for kind in ('scene', 'problem', 'run'):
        os.makedirs(os.path.join(out, kind), exist_ok=True)
    for path in sorted(glob.glob(os.path.join(ROOT, 'scenes', '**', '*.json'), recursive=True)):
        if os.path.getsize(path) < 16384:
            rel = os.path.relpath(path, os.path.join(ROOT, 'scenes')).replace('/', '_')
            shutil.copy(path, os.path.join(out, 'scene', rel))
    data = os.path.join(shared_dir(), 'data')
    for path in sorted(glob.glob(os.path.join(data, 'lcp', '*.dat')) + glob.glob(os.path.join(data, 'fc', '*.dat'))):
        if os.path.getsize(path) < 32768:
            shutil.copy(path, os.path.join(out, 'problem', os.path.basename(path)))
    with tempfile.TemporaryDirectory() as tmp:
        for path in fclib_files(tmp):
            body = h5_describe.describe(path, 65536)
            with open(os.path.join(out, 'problem', os.path.basename(path) + '.desc'), 'wb') as f:
                f.write(b'H' + body)
        runs = {'default': [os.path.join(ROOT, 'scenes', 'examples', 'default.json')]}
        for name in ('box_stack', 'pendulum', 'disk', 'chain'):
            hits = sorted(glob.glob(os.path.join(ROOT, 'scenes', '**', '*%s*.json' % name), recursive=True))
            if hits:
                runs[name] = [hits[0]]
        for name, args in runs.items():
            h5 = os.path.join(tmp, name + '.h5')
            cmd = [clatter, 'run'] + args + ['--max-steps', '4', '--checkpoint-every', '2', '-o', h5,
                                             '--set', 'output.csv=true', '--set', 'output.contacts=true',
                                             '--set', 'output.velocities=true']
            r = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
            if not os.path.exists(h5):
                print('%s: no run file: %s' % (name, r.stderr.strip()), file=sys.stderr)
                continue
            body = h5_describe.describe(h5, 65536)
            csv = h5[:-3] + '.csv'
            if os.path.exists(csv):
                text = open(csv, 'rb').read()
                body += b'C' + len(text).to_bytes(4, 'little') + text
            with open(os.path.join(out, 'run', name + '.desc'), 'wb') as f:
                f.write(body)
    for kind in ('scene', 'problem', 'run'):
        print('%s: %d seeds' % (kind, len(os.listdir(os.path.join(out, kind)))))


if __name__ == '__main__':
    main()
