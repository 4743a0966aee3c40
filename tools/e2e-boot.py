#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the end-to-end boot's QEMU, keep its console, and stop it when the
guest stops making progress, saying in which stage and why.

    e2e-boot.py --log FILE --timeout SECONDS [--slowdown F] -- QEMU-COMMAND...

Every console line goes to FILE as it comes.  The boot is cut into stages
by lines the kernel and tools/e2e/init print (see STAGES); each stage must
show progress within a bound, and the bounds scale with the speed of this
machine instead of being fixed seconds:

* until the kernel's first console line (firmware and decompressor): a
  fixed FIRST_OUTPUT seconds, the one bound that cannot be measured;
* until /init starts: the kernel must print a line at least every
  BOOT_GAP x U seconds, U being the seconds QEMU took to the kernel's
  first line (firmware plus decompressing the kernel: pure emulated work
  that takes longer exactly as the machine is slower);
* from /init on: init must print a progress line (tools/e2e/init prints
  one per step: each file read, each mount, each wait) at least every
  CASE_GAP x B seconds, B being the seconds QEMU took to reach /init.

--timeout stays the outer bound for the whole boot.  Only lines from the
guest's /init count as progress once it runs, so a kernel that loops
printing reports does not look alive.

--slowdown F runs QEMU in a CPU cgroup of its own that gets 1/F of this
machine's CPU time: a machine F times slower, as the guest sees it, to show
that a healthy boot passes there (make e2e E2E_SLOWDOWN=F).

Exit status: QEMU's own when it ended by itself (0 for the guest's
poweroff); 124 when this script stopped it.  When the guest did not print
"e2e-init: finished", the end of the console and a diagnosis are printed.
"""

import argparse
import os
import re
import selectors
import signal
import subprocess
import sys
import textwrap
import time

FIRST_OUTPUT = 180      # s: QEMU start to the kernel's first line
BOOT_GAP = 10           # x U: longest silence before /init
BOOT_GAP_MIN = 60       # s: never less
CASE_GAP = 10           # x B: longest time without progress after /init
CASE_GAP_MIN = 120      # s: never less
TAIL = 40               # console lines printed when the boot fails

# The kernel's first line: the serial console replays the log from its
# start when it registers.
KERNEL_LINE = re.compile(r'Linux version')
# After /init starts, a line is progress only if init printed it: its own
# markers and the KTAP it writes.
INIT_LINE = re.compile(r'e2e-(init|progress):|^(\[[^]]*\])?\s*(KTAP|1\.\.|#|ok |not ok )')

# (name, first line of the stage, what a stall there most likely means).
# A stage begins at the first line matching its pattern; stages only move
# forward, from one case to the next too.
STAGES = [
    ('firmware', None,
     'QEMU printed nothing at all: the firmware did not start the kernel, '
     'or the kernel died before its serial console came up.  Check the '
     '-kernel, -initrd and -bios paths (qboot.rom is in qemu-system-data) '
     'and that the kernel has CONFIG_SERIAL_8250_CONSOLE.'),
    ('kernel boot', re.compile(r'Linux version'),
     'the kernel stopped printing during early boot, before any virtio '
     'device was probed: look at the last lines for where (ACPI tables, '
     'clock calibration, bringing up the second vCPU).'),
    ('device probe', re.compile(r'virtio'),
     'the kernel stopped while probing the virtio devices (the 9p '
     'channels and the cache\'s disk), before /init ran.  A device that '
     'probes but never interrupts hangs here, at its first I/O: check that '
     'the log says virtio uses MSI-X (CONFIG_PCI_MSI in tools/e2e.config) '
     'and shows no ACPI error about interrupt routing (_PRT).'),
    ('init', re.compile(r'e2e-init: started'),
     '/init started but did not get as far as binding the cache: '
     'mounting /proc, /sys, devtmpfs or tmpfs hung.'),
    ('cache bind', re.compile(r'e2e-init: stage cache bind'),
     'the cache did not bind: mounting the ext4 image (/dev/vda) or '
     'cachefilesd-mini\'s "bind" on /dev/cachefiles did not return.  A '
     'virtio-blk disk that gets no interrupts, or cachefiles waiting on its '
     'backing filesystem, stop here.'),
    ('mount', re.compile(r'e2e-init: stage mount'),
     'a 9p mount did not complete: the virtio-9p transport got no answer '
     'from QEMU\'s 9p server (interrupts, a missing -virtfs export or '
     'mount_tag).'),
    ('case', re.compile(r'e2e-init: case (\S+)'),
     'case {case} stopped making progress.  Its last step, above, did not '
     'finish: a read that never completes (a subrequest that is never '
     'terminated, a folio left locked, a copy to the cache that never '
     'ends) stops here.  Look for a kernel report in the lines above.'),
    # The AFS stages come inside the AFS suite's first case, and cases
    # follow them: 'case' is matched again from here (Watch.line).
    ('afs_cell', re.compile(r'e2e-init: stage afs_cell'),
     'the AFS cell inside the guest did not come up: the last step names '
     'the server it waited for, or the vos command that did not return. '
     'The servers\' logs (/var/log/openafs) are printed when a wait gives '
     'up; a server that exited at its start lacks something the kernel '
     'must provide (tools/e2e.config).'),
    ('afs_mount', re.compile(r'e2e-init: stage afs_mount'),
     'kAFS did not finish mounting or writing the test files into the '
     'cell: a call to the fileserver or the VL server that never '
     'completes (rxrpc on the dummy interface) stops here.'),
    ('shutdown', re.compile(r'e2e-init: finished'),
     'the guest finished its cases but did not power off: sync, '
     'unmounting the exports or "reboot -f" hung.'),
]
INIT_STAGE = [s[0] for s in STAGES].index('init')
CASE_STAGE = [s[0] for s in STAGES].index('case')


class Watch:
    def __init__(self):
        self.start = time.monotonic()
        self.stage = 0
        self.case = None
        self.first_line = None      # U: s to the kernel's first line
        self.init_at = None         # B: s to /init
        self.last_progress = 0.0    # s since start
        self.last_step = ''
        self.longest = {}           # 'boot'/'cases' -> (silence, where)
        self.lines = []

    def now(self):
        return time.monotonic() - self.start

    def bound(self, phase=None):
        """Seconds without progress allowed in the current stage, or in
        phase 'boot' (before /init) or 'cases' (from /init on)."""
        if phase is None:
            if self.first_line is None:
                return FIRST_OUTPUT
            phase = 'boot' if self.init_at is None else 'cases'
        if phase == 'boot':
            return max(BOOT_GAP_MIN, BOOT_GAP * self.first_line)
        return max(CASE_GAP_MIN, CASE_GAP * self.init_at)

    def line(self, text):
        t = self.now()
        self.lines.append(text)
        del self.lines[:-TAIL]
        # The current stage is matched again: each case starts a new one.
        later = list(range(max(self.stage, 1), len(STAGES)))
        for i in later + ([CASE_STAGE] if self.stage > CASE_STAGE else []):
            m = STAGES[i][1].search(text)
            if m:
                self.stage = i
                if STAGES[i][0] == 'case':
                    self.case = m.group(1)
                break
        name = STAGES[self.stage][0]
        if self.first_line is None:
            if not KERNEL_LINE.search(text):
                return
            self.first_line = t
            self.last_progress = t
        if self.init_at is None and self.stage >= INIT_STAGE:
            self.init_at = t
        if self.init_at is not None and not INIT_LINE.search(text):
            return
        gap = t - self.last_progress
        phase = 'boot' if self.init_at is None else 'cases'
        if gap > self.longest.get(phase, (0, ''))[0]:
            self.longest[phase] = (gap, self.case if name == 'case' else name)
        self.last_progress = t
        self.last_step = text

    def silence(self):
        return self.now() - self.last_progress

    def stalled(self):
        return self.silence() > self.bound()

    def diagnosis(self, why):
        name, _, text = STAGES[self.stage]
        text = text.format(case=self.case)
        head = f'the guest stopped in stage "{name}"'
        if name == 'case':
            head += f' ({self.case})'
        return f'{head}: {why}.  Most likely {text}'

    def timings(self):
        parts = []
        if self.first_line is not None:
            parts.append(f'first kernel line after {self.first_line:.1f} s')
        if self.init_at is not None:
            parts.append(f'/init after {self.init_at:.1f} s')
        for phase, (gap, where) in self.longest.items():
            parts.append(f'longest silence in the {phase} {gap:.1f} s '
                         f'({where}; allowed {self.bound(phase):.0f} s)')
        return ', '.join(parts)


class Slowdown:
    """A cgroup (v2, or v1's cpu controller) whose CPU quota is 1/factor of
    the machine; the processes put in it share that quota."""

    PERIOD = 100000  # us

    def __init__(self, factor):
        quota = int(os.cpu_count() * self.PERIOD / factor)
        name = f'netfs-e2e-slowdown-{os.getpid()}'
        if os.path.exists('/sys/fs/cgroup/cgroup.controllers'):
            self.path = f'/sys/fs/cgroup/{name}'
            files = {'cpu.max': f'{quota} {self.PERIOD}'}
        else:
            self.path = f'/sys/fs/cgroup/cpu/{name}'
            files = {'cpu.cfs_period_us': str(self.PERIOD),
                     'cpu.cfs_quota_us': str(quota)}
        os.mkdir(self.path)
        for f, v in files.items():
            with open(os.path.join(self.path, f), 'w') as fh:
                fh.write(v)
        self.desc = f'{quota / self.PERIOD:.2f} CPU of {os.cpu_count()}'

    def add(self, pid):
        with open(os.path.join(self.path, 'cgroup.procs'), 'w') as fh:
            fh.write(str(pid))

    def remove(self):
        # Anything QEMU left behind goes back to the parent group first.
        parent = os.path.join(os.path.dirname(self.path), 'cgroup.procs')
        try:
            with open(os.path.join(self.path, 'cgroup.procs')) as fh:
                for pid in fh.read().split():
                    with open(parent, 'w') as out:
                        out.write(pid)
            os.rmdir(self.path)
        except OSError as e:
            say(f'could not remove {self.path}: {e}')


def say(msg):
    print(f'e2e-boot: {msg}', flush=True)


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--log', required=True, help='console log to write')
    ap.add_argument('--timeout', type=float, required=True,
                    help='outer bound for the whole boot, in seconds')
    ap.add_argument('--slowdown', type=float, default=0,
                    help='give QEMU 1/F of the CPU time (F > 1)')
    ap.add_argument('qemu', nargs=argparse.REMAINDER,
                    help='-- and the QEMU command line')
    args = ap.parse_args()
    # SIGTERM unwinds like ^C, so that QEMU is stopped and the cgroup goes.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    cmd = args.qemu[1:] if args.qemu[:1] == ['--'] else args.qemu
    if not cmd:
        ap.error('no QEMU command given')

    slow = None
    if args.slowdown:
        if args.slowdown <= 1:
            ap.error('--slowdown must be more than 1')
        try:
            slow = Slowdown(args.slowdown)
        except OSError as e:
            say(f'cannot make a CPU cgroup for --slowdown: {e}')
            return 1
        say(f'QEMU gets {slow.desc} (slowdown {args.slowdown:g})')
    try:
        return run(args, cmd, slow)
    finally:
        if slow:
            slow.remove()


def run(args, cmd, slow):
    w = Watch()
    # QEMU starts in this process's cgroup and is moved before it has
    # done much; its threads follow it.
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
    except OSError as e:
        say(f'cannot start {cmd[0]}: {e}')
        return 1
    if slow:
        try:
            slow.add(proc.pid)
        except OSError as e:
            stop(proc)
            say(f'cannot put QEMU in {slow.path}: {e}')
            return 1

    try:
        return watch(args, proc, w)
    finally:
        # Interrupted (SIGTERM, ^C): QEMU does not outlive us.
        if proc.poll() is None:
            stop(proc)


def watch(args, proc, w):
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    buf = b''
    why = None
    with open(args.log, 'wb') as log:
        while True:
            if sel.select(timeout=1):
                data = proc.stdout.read1(65536)
                if not data:
                    break
                log.write(data)
                log.flush()
                buf += data
                *done, buf = buf.split(b'\n')
                for raw in done:
                    w.line(raw.decode('utf-8', 'replace').rstrip('\r'))
            if w.now() > args.timeout:
                why = (f'it did not finish within TIMEOUT={args.timeout:.0f} s, '
                       f'although its last progress was {w.silence():.0f} s '
                       'ago: on a machine this slow, raise TIMEOUT')
                break
            if w.stalled():
                why = (f'no progress for {w.silence():.0f} s '
                       f'(allowed {w.bound():.0f} s on this machine)')
                break
        if buf:
            w.line(buf.decode('utf-8', 'replace').rstrip('\r'))

    if why:
        stop(proc)
        rc = 124
    else:
        rc = proc.wait()
    finished = STAGES[w.stage][0] == 'shutdown'
    how = 'stopped' if why else f'ended (status {rc})'
    say(f'QEMU {how} after {w.now():.0f} s; {w.timings()}')
    if finished and not why:
        return rc
    if not why:
        why = (f'QEMU exited with status {rc} before the guest finished '
               '(a panic, a triple fault or QEMU itself: see the lines above)')
    say(f'the end of the console ({args.log}):')
    for text in w.lines:
        print('    ' + text)
    if w.last_step and w.init_at is not None:
        say(f'last progress line: {w.last_step.strip()}')
    print()
    print(textwrap.fill(w.diagnosis(why), width=76,
                        initial_indent='e2e-boot: ', subsequent_indent='    '))
    return rc if rc else 1


if __name__ == '__main__':
    sys.exit(main())
