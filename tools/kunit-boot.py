#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot a built KUnit kernel in QEMU until every test has reported, surviving
tests that crash or hang the kernel.

    kunit-boot.py --tree SRC --build BUILD --out DIR [--filter GLOB]
                  [--crasher GLOB]... [--kernel-arg ARG]... [--timeout S]

A boot runs the tests that kunit.filter_glob selects, with oops=panic so that
the first oops (a BUG(), a fault) ends the boot at once instead of leaving a
dead thread with its locks held to poison the tests after it.  The kernel
announces every test before it runs ("kunit: start NAME", from the glue patch
"kunit: let a boot resume after a test that took the kernel down"), so when a
boot dies the test it was running is known.  The next boot passes
kunit.resume_after=NAME: the kernel leaves out (reports as skipped) every test
up to that one and runs the rest.  Each plan gets at most MAX_BOOTS boots.

Known crashers (--crasher, from kunit/known-upstream-failures) never share a
boot: the shared plan leaves them out with kunit.skip_glob, and each has a
plan of its own, run last, with kunit.only_glob.

A progress watchdog ends a boot that stops making progress, like
tools/e2e-boot.py's: the bound scales with the seconds the boot took to
reach KUnit (B, emulated work that takes longer exactly as the machine is
slower): CASE_GAP x B between two KTAP or "kunit: start" lines, never less
than CASE_GAP_MIN.  --timeout stays the outer bound of one boot.

Writes DIR/boot-N.log (each boot's console) and DIR/boots.json (for each
boot: its log, the selection it ran with, how it ended and the test that
was running), which tools/check-results.py judges.  Exit status 0 when the
boots ran, 2 on a usage or QEMU error.
"""

import argparse
import fnmatch
import json
import os
import re
import selectors
import sys
import time

FIRST_OUTPUT = 180   # s: QEMU start to the kernel's first line
BOOT_GAP = 10        # x U (s to the first line): longest silence before KUnit
BOOT_GAP_MIN = 60
CASE_GAP = 12        # x B (s to KUnit's first line): longest test
CASE_GAP_MIN = 180
MAX_BOOTS = 3        # per plan

KTAP_START = re.compile(r'KTAP version 1')
PROGRESS = re.compile(r'^\s*(KTAP version|1\.\.|# Subtest:|ok |not ok )|kunit: start ')
STARTED = re.compile(r'kunit: start (\S+)')
SUITE = re.compile(r'^    # Subtest: (\S+)')
SHUTDOWN = re.compile(r'reboot: (Restarting system|machine restart|Power down)')
PANIC = re.compile(r'Kernel panic - not syncing')


def start_qemu(tree, build, extra, params):
    """Start QEMU as kunit.py's exec does (kunit_kernel's x86_64 operations:
    qemu_configs/x86_64.py), with our QEMU arguments after its own."""
    sys.path.insert(0, os.path.join(tree, 'tools/testing/kunit'))
    import kunit_kernel  # pylint: disable=import-outside-toplevel
    # pylint: disable=protected-access
    _, ops = kunit_kernel._get_qemu_ops(
        kunit_kernel._default_qemu_config_path('x86_64'), extra, None)
    return ops.start(params, build)


class Boot:
    """One QEMU run, watched; fills in how it ended."""

    def __init__(self, log_path, timeout):
        self.log_path = log_path
        self.timeout = timeout
        self.end = 'finished'
        self.started = None        # last test announced
        self.reported_since = False  # a result came after that announcement
        self.results = 0           # result lines
        self.first_line = None     # U
        self.ktap_at = None        # B
        self.longest = (0.0, '')   # longest silence between progress lines
        self.suites = []           # (suite, s since start when it started)
        self.seconds = 0.0
        self.why = ''

    def bound(self):
        if self.first_line is None:
            return FIRST_OUTPUT
        if self.ktap_at is None:
            return max(BOOT_GAP_MIN, BOOT_GAP * self.first_line)
        return max(CASE_GAP_MIN, CASE_GAP * self.ktap_at)

    def run(self, start_proc):
        start = time.monotonic()
        last = 0.0
        proc = start_proc()
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        buf = b''
        panicked = shut = False
        with open(self.log_path, 'w', errors='replace') as log:
            while True:
                now = time.monotonic() - start
                wait = min(self.bound() - (now - last), self.timeout - now)
                if wait <= 0 or not sel.select(timeout=wait):
                    now = time.monotonic() - start
                    if now >= self.timeout:
                        self.end = 'timeout'
                        self.why = f'the outer bound (TIMEOUT={self.timeout} s) was reached'
                    else:
                        self.end = 'hung'
                        self.why = (f'no progress for {now - last:.0f} s (bound '
                                    f'{self.bound():.0f} s)')
                    proc.kill()
                    break
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b'\n')
                for raw in lines:
                    text = raw.decode('utf-8', 'replace').rstrip('\r')
                    log.write(text + '\n')
                    now = time.monotonic() - start
                    if self.first_line is None:
                        self.first_line = now
                        last = now
                    if self.ktap_at is None and KTAP_START.search(text):
                        self.ktap_at = now
                    panicked |= bool(PANIC.search(text))
                    shut |= bool(SHUTDOWN.search(text))
                    if self.ktap_at is not None and PROGRESS.search(text):
                        if now - last > self.longest[0]:
                            self.longest = (now - last, self.started or '')
                        last = now
                    m = SUITE.match(text)
                    if m:
                        self.suites.append((m.group(1), now))
                    m = STARTED.search(text)
                    if m:
                        self.started, self.reported_since = m.group(1), False
                    elif re.match(r'^\s*(ok|not ok) ', text):
                        self.results += 1
                        self.reported_since = True
                log.flush()
        proc.wait()
        self.seconds = time.monotonic() - start
        if self.end == 'finished':
            if panicked:
                self.end, self.why = 'crashed', 'the kernel panicked (oops=panic)'
            elif not shut:
                self.end, self.why = 'crashed', 'QEMU ended without a shutdown'
        return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tree', required=True)
    ap.add_argument('--build', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--filter', default='')
    ap.add_argument('--crasher', action='append', default=[])
    ap.add_argument('--kernel-arg', action='append', default=[])
    ap.add_argument('--qemu-arg', action='append', default=[])
    ap.add_argument('--timeout', type=int, default=1800)
    args = ap.parse_args()

    base = args.kernel_arg + ['oops=panic', 'panic=-1', 'kunit.enable=1']
    if args.filter:
        base.append('kunit.filter_glob=' + args.filter)
    shared = {'plan': 'shared', 'skip_glob': ','.join(args.crasher)}
    # A known crasher's own boot runs only where the filter selects it.
    fsuite, _, fcase = (args.filter or '*').partition('.')
    plans = [shared] + [{'plan': f'known crasher {g}', 'only_glob': g,
                         'filter': '.'.join(g.split('.')[:2])}
                        for g in args.crasher
                        if fnmatch.fnmatchcase(g.split('.')[0], fsuite) and
                        fnmatch.fnmatchcase((g.split('.') + [''])[1], fcase or '*')]
    boots = []
    for plan in plans:
        resume = ''
        for _ in range(MAX_BOOTS):
            n = len(boots) + 1
            params = list(base)
            if plan.get('filter'):
                params = [p for p in params if not p.startswith('kunit.filter_glob=')]
                params.append('kunit.filter_glob=' + plan['filter'])
            for key in ('skip_glob', 'only_glob'):
                if plan.get(key):
                    params.append(f'kunit.{key}={plan[key]}')
            if resume:
                params.append('kunit.resume_after=' + resume)
            boot = Boot(os.path.join(args.out, f'boot-{n}.log'), args.timeout)
            print(f'kunit-boot: boot {n} ({plan["plan"]}'
                  f'{", resuming after " + resume if resume else ""})', flush=True)
            secs = boot.run(lambda: start_qemu(args.tree, args.build, args.qemu_arg, params))
            where = boot.started or 'before any test'
            print(f'kunit-boot: boot {n}: {boot.end} after {secs:.0f} s, '
                  f'{boot.results} results; longest silence {boot.longest[0]:.0f} s '
                  f'(in {boot.longest[1] or "boot"}); watchdog bound '
                  f'{boot.bound():.0f} s', flush=True)
            ends = [t for _, t in boot.suites[1:]] + [boot.seconds]
            if boot.suites:
                print('kunit-boot: seconds per suite: ' + ', '.join(
                    f'{name} {end - t:.0f}' for (name, t), end in zip(boot.suites, ends)),
                      flush=True)
            if boot.end != 'finished':
                stage = ('kernel boot' if boot.ktap_at is None else
                         f'test {boot.started}' if boot.started else 'KUnit start')
                print(f'kunit-boot: boot {n} {boot.end} in stage "{stage}": {boot.why}; '
                      f'the last test that started was {where}', flush=True)
            boots.append({'log': boot.log_path, 'plan': plan['plan'],
                          'resume_after': resume,
                          'skip_glob': plan.get('skip_glob', ''),
                          'only_glob': plan.get('only_glob', ''),
                          'end': boot.end, 'why': boot.why,
                          'started': boot.started,
                          'reported_since': boot.reported_since,
                          'seconds': round(secs, 1)})
            if boot.end == 'finished' or not boot.started or boot.started == resume:
                break
            resume = boot.started
    with open(os.path.join(args.out, 'boots.json'), 'w') as f:
        json.dump(boots, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
