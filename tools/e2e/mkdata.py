#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mkdata.py DATA META BIG_MIB: make the end-to-end boot's test files.

DATA gets the read-only export: files of the sizes that matter to the page
cache and to netfs (0, 1, 4095, 4096, 4097, 65537, 1 MiB + 13, the big
file), a sparse file with holes and a directory of many small files.  The
contents are pseudo-random from a fixed seed, so every run sees the same
bytes.  META gets what the guest checks against (it goes into the initramfs):
  sums     "sha256 size name" for every file of DATA
  ranges   "name offset length sha256" for reads at random offsets
"""

import hashlib
import os
import random
import sys


def sha(data):
    return hashlib.sha256(data).hexdigest()


def main():
    data_dir, meta_dir, big_mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(20261203)
    os.makedirs(os.path.join(data_dir, 'small'), exist_ok=True)
    os.makedirs(meta_dir, exist_ok=True)
    files = {}

    sizes = [('size0', 0), ('size1', 1), ('size4095', 4095), ('size4096', 4096),
             ('size4097', 4097), ('size65537', 65537),
             ('size1m13', (1 << 20) + 13), ('big', big_mib << 20)]
    for name, size in sizes:
        files[name] = rng.randbytes(size)
    for i in range(64):
        files[f'small/f{i:02d}'] = rng.randbytes(rng.randrange(1, 6000))

    for name, content in files.items():
        with open(os.path.join(data_dir, name), 'wb') as f:
            f.write(content)

    # Sparse: data, a hole, data straddling a page boundary, a hole to EOF.
    sparse = bytearray(4 << 20)
    for off, length in ((0, 5000), ((1 << 20) + 4000, 300), ((3 << 20) - 7, 20)):
        sparse[off:off + length] = rng.randbytes(length)
    path = os.path.join(data_dir, 'sparse')
    with open(path, 'wb') as f:
        for off, length in ((0, 5000), ((1 << 20) + 4000, 300), ((3 << 20) - 7, 20)):
            f.seek(off)
            f.write(sparse[off:off + length])
        f.truncate(len(sparse))
    files['sparse'] = bytes(sparse)

    with open(os.path.join(meta_dir, 'sums'), 'w') as f:
        for name in sorted(files):
            f.write(f'{sha(files[name])} {len(files[name])} {name}\n')

    with open(os.path.join(meta_dir, 'ranges'), 'w') as f:
        for name in ('size4097', 'size65537', 'size1m13', 'big', 'sparse'):
            content = files[name]
            for _ in range(8):
                off = rng.randrange(len(content))
                length = rng.randrange(1, min(len(content) - off, 3 << 20) + 1)
                f.write(f'{name} {off} {length} '
                        f'{sha(content[off:off + length])}\n')
            # The last byte, and a range across the first page boundary.
            f.write(f'{name} {len(content) - 1} 1 {sha(content[-1:])}\n')
            f.write(f'{name} 4000 {len(content[4000:4100])} '
                    f'{sha(content[4000:4100])}\n')


if __name__ == '__main__':
    main()
