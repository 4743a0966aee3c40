#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mkwrite.py WDIR META [check NAME...]: the write tests' files.

Without "check": fill WDIR (the writable export) with the files the guest
writes to, META/patch.bin (the bytes it writes) and META/wsums (the sha256
each file must have after the guest's writes, "sha256 size name").
With "check": compare the files NAME... of WDIR after the boot with their
expected contents and print any difference; exit status 1 if one differs.

The guest's writes (tools/e2e/init, case "write_*") must match EXPECTED.
"""

import hashlib
import os
import random
import sys


def initial():
    rng = random.Random(5)
    return ({'partial': rng.randbytes(8192), 'append': rng.randbytes(5000),
             'pasteof': rng.randbytes(4097)}, rng.randbytes(100))


def expected(files, patch):
    out = {}
    p = bytearray(files['partial'])
    p[1000:1100] = patch                 # inside one page
    p[4090:4190] = patch                 # across a page boundary
    out['partial'] = bytes(p)
    out['append'] = files['append'] + patch
    out['pasteof'] = files['pasteof'] + bytes(20000 - 4097) + patch
    return out


def main():
    wdir, meta = sys.argv[1], sys.argv[2]
    files, patch = initial()
    want = expected(files, patch)
    if sys.argv[3:4] == ['check']:
        bad = 0
        for name in sys.argv[4:]:
            content = want[name]
            with open(os.path.join(wdir, name), 'rb') as f:
                got = f.read()
            if got != content:
                bad += 1
                first = next((i for i in range(min(len(got), len(content)))
                              if got[i] != content[i]), min(len(got), len(content)))
                print(f'  host check: {name}: {len(got)} bytes, expected '
                      f'{len(content)}; first difference at byte {first}')
        return 1 if bad else 0
    os.makedirs(wdir, exist_ok=True)
    os.makedirs(meta, exist_ok=True)
    for name, content in files.items():
        with open(os.path.join(wdir, name), 'wb') as f:
            f.write(content)
    with open(os.path.join(meta, 'patch.bin'), 'wb') as f:
        f.write(patch)
    with open(os.path.join(meta, 'wsums'), 'w') as f:
        for name, content in sorted(want.items()):
            f.write(f'{hashlib.sha256(content).hexdigest()} {len(content)} {name}\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
