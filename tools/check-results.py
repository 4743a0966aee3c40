#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one KUnit run: kunit.py's JSON for the case results, the raw kernel
log for sanitizer and debug reports (KASAN, UBSAN, lockdep, WARNING, BUG,
Oops, ...) that KUnit itself does not turn into failures.

Reports are attributed to the case they were printed in with kunit.py's own
parser (kunit_parser, imported from the kernel tree): each parsed test keeps
the kernel log lines printed while it ran.  A case with a report counts as
failed even when KUnit said ok.

A KUnit run of several boots (tools/kunit-boot.py's --boots file: a crash
or a hang ended a boot, the next resumed after the test that was running)
is merged here: each test counts from the boot that ran it, tests a boot
left out (kunit.resume_after, kunit.skip_glob, kunit.only_glob) count from
the boot that did not, and the test that was running when a boot died
counts once, as failed, with the end of that boot's console as its report.
Every suite must report as many cases as its KTAP plan announced, and the
run as many suites: what never reported is named and counted as failed.

Writes a one-line summary file for tools/summary and prints the reports.
Exit status: 0 when every case passed with no report, 1 otherwise.
"""

import argparse
import fnmatch
import io
import json
import os
import re
import sys
from collections import OrderedDict

REPORT = re.compile(
    r'BUG:|WARNING:|UBSAN:|KASAN:|Oops|general protection fault|'
    r'kernel BUG at|Kernel panic|INFO: (possible|lockdep|task .* blocked|'
    r'rcu_.* detected stall|rcu_.* self-detected)|ODEBUG:|'
    r'list_(add|del) corruption|stack-protector|Call Trace:')

# kunit_parser's name for a case whose result line never came (crash, hang)
MISSING = '(missing: crashed or hung)'

# Reports printed in full per case; the rest are counted.
MAX_REPORTS = 2
# Console lines kept as the report of a crash that printed none we know.
TAIL = 40


def parsed_nodes(test, path=()):
    """Yield (path, test) for every node of kunit_parser's tree."""
    for sub in test.subtests:
        p = path + (sub.name or MISSING,)
        yield p, sub
        yield from parsed_nodes(sub, p)


def report_blocks(log):
    """Return [(first line, excerpt)] for each report in a list of lines.

    A report runs from its first matching line to its "end trace" marker,
    the next KTAP result or 60 lines, whichever comes first.
    """
    blocks, i = [], 0
    while i < len(log):
        if not REPORT.search(log[i]):
            i += 1
            continue
        end = i + 1
        while (end < len(log) and end - i < 60 and
               'end trace' not in log[end - 1] and
               not log[end].lstrip().startswith(('ok ', 'not ok '))):
            end += 1
        blocks.append((log[i].strip(), log[i:end]))
        i = end
    return blocks


def in_globs(globs, name):
    """Does name match one of the comma-separated globs (as the kernel's
    glob_match() would: *, ? and [...])?"""
    return any(fnmatch.fnmatchcase(name, g) for g in globs.split(',') if g)


def left_out(boot, name, state):
    """Did boot leave name out (the glue patch's kunit_left_out())?  Walked
    in the order the kernel ran the tests; state['resumed'] carries over."""
    if boot.get('resume_after') and not state['resumed']:
        state['resumed'] = name == boot['resume_after']
        return True
    if boot.get('only_glob') and not in_globs(boot['only_glob'], name):
        return True
    return in_globs(boot.get('skip_glob', ''), name)


class Run:
    """The tests of a run of one or more boots, merged."""

    def __init__(self, kunit_parser):
        self.kp = kunit_parser
        ts = kunit_parser.TestStatus
        self.status = {ts.SUCCESS: 'PASS', ts.FAILURE: 'FAIL',
                       ts.SKIPPED: 'SKIP', ts.TEST_CRASHED: 'ERROR'}
        self.tests = OrderedDict()   # name -> [path, status, blocks]
        self.node_reports = []       # (path, blocks): reports of non-leaf nodes
        self.failures = []           # (name, excerpt): not a test's result
        self.plan_suites = None      # suites the shared plan announced
        self.suites = OrderedDict()  # suite -> cases its plan announced
        self.cases = {}              # suite -> cases that reported
        self.last = OrderedDict()    # plan -> (boot number, boot) of its last

    def add_boot(self, n, boot):
        with open(boot['log'], errors='replace') as f:
            lines = f.read().splitlines()
        end, started = boot.get('end', 'finished'), boot.get('started')
        tail = []
        if end != 'finished' and started and not boot.get('reported_since'):
            # Everything from the crashed test's start is its own report.
            mark = 'kunit: start ' + started
            at = max(i for i, l in enumerate(lines) if l.rstrip().endswith(mark))
            lines, tail = lines[:at], lines[at:]
        root = self.kp.parse_run_tests(lines)
        self.last[boot.get('plan', 'shared')] = (n, boot)
        if boot.get('plan', 'shared') == 'shared' and self.plan_suites is None:
            self.plan_suites = root.expected_count
        state = {'resumed': False}
        for path, node in parsed_nodes(root):
            if MISSING in path:
                continue    # the parser's stand-in for what never came
            if len(path) == 1 and node.expected_count is not None:
                self.suites.setdefault(path[0], node.expected_count)
            if len(path) == 2 and node.status != self.kp.TestStatus.TEST_CRASHED:
                self.cases.setdefault(path[0], set()).add(path[1])
            blocks = report_blocks(node.log)
            if node.subtests:
                if blocks:
                    self.node_reports.append((path, blocks))
                continue
            name = '.'.join(path)
            if left_out(boot, name, state) or name in self.tests:
                continue
            self.tests[name] = [path, self.status.get(node.status, 'FAIL'), blocks]
        what = f'boot {n} ({boot.get("why") or end})'
        if tail:
            path = tuple(started.split('.', 2))
            blocks = report_blocks(tail) or [(tail[-1], tail[-TAIL:])]
            self.tests[started] = [path, 'CRASHED' if end == 'crashed' else 'HUNG',
                                   [(what, [f'{started}: {what}'])] + blocks]
            self.cases.setdefault(path[0], set()).add(path[1])
        elif end != 'finished':
            where = (f'after {started} had reported' if started
                     else 'before any test started')
            self.failures.append((f'{what}, {where}', lines[-TAIL:]))
        return root

    def shortfall(self):
        """Names of what the KTAP plans announced and never reported."""
        missing = []
        for suite, count in self.suites.items():
            got = len(self.cases.get(suite, ()))
            if got < count:
                missing.append(f'{suite}: {count - got} of its {count} cases never '
                               'reported (crashed or hung, and the boots ran out)')
        for plan, (n, boot) in self.last.items():
            if boot.get('end', 'finished') != 'finished':
                missing.append(f'{plan}: the boots ran out (boot {n} was the last): '
                               f'the tests after {boot.get("started")} never ran')
        if self.plan_suites and len(self.suites) < self.plan_suites:
            missing.append(f'{self.plan_suites - len(self.suites)} of the '
                           f'{self.plan_suites} suites never started (after '
                           f'{next(reversed(self.suites), "the start")})')
        return missing

    def tree(self):
        """The merged results as a kunit_parser tree, for kunit_json."""
        root = self.kp.Test()
        groups = {(): root}
        for path, status, _ in self.tests.values():
            for i in range(1, len(path)):
                if path[:i] not in groups:
                    g = self.kp.Test()
                    g.name, g.status = path[i - 1], self.kp.TestStatus.SUCCESS
                    groups[path[:i - 1]].subtests.append(g)
                    groups[path[:i]] = g
            t = self.kp.Test()
            t.name = path[-1]
            t.status = {v: k for k, v in self.status.items()}.get(
                status, self.kp.TestStatus.TEST_CRASHED)
            groups[path[:-1]].subtests.append(t)
        return root


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tree', required=True, help='kernel tree (for kunit_parser)')
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument('--raw', help='raw kernel log of a single boot')
    src.add_argument('--boots', help="tools/kunit-boot.py's boots.json")
    ap.add_argument('--json', help="write the merged results as kunit.py's JSON")
    ap.add_argument('--label', required=True, help='run name for messages')
    ap.add_argument('--summary', required=True, help='file to write counts to')
    ap.add_argument('--known', help='kunit/known-upstream-failures')
    ap.add_argument('--mode', help='run mode, to select --known entries')
    args = ap.parse_args()

    # (glob, finding, always): "baseline" fails every run, "baseline?" may
    # pass (the bug shows only in some runs: which allocation fails, say)
    known = []
    if args.known:
        with open(args.known) as f:
            for line in f:
                if line.strip() and not line.startswith('#'):
                    glob, modes, why = line.rstrip('\n').split('\t', 2)
                    if args.mode in modes.split():
                        known.append((glob, why.strip(), True))
                    elif args.mode + '?' in modes.split():
                        known.append((glob, why.strip(), False))

    sys.path.insert(0, os.path.join(args.tree, 'tools/testing/kunit'))
    import kunit_parser  # pylint: disable=import-outside-toplevel
    import kunit_printer  # pylint: disable=import-outside-toplevel
    import kunit_json  # pylint: disable=import-outside-toplevel

    if args.boots:
        boots = []
        if os.path.exists(args.boots):
            with open(args.boots) as f:
                boots = json.load(f)
    else:
        boots = [{'log': args.raw}] if os.path.exists(args.raw) else []

    # Parse quietly: kunit.py already printed the results.
    kunit_printer.stdout._output = io.StringIO()
    run = Run(kunit_parser)
    raws = []
    for n, boot in enumerate(boots, 1):
        run.add_boot(n, boot)
        with open(boot['log'], errors='replace') as f:
            raws.append(f.read().splitlines())
    if args.json:
        with open(args.json, 'w') as f:
            f.write(kunit_json.get_json_result(
                run.tree(), kunit_json.Metadata(arch='x86_64')))

    problems = []
    failed_paths = set()
    seen = set()
    reports = [(path, blocks) for path, _, blocks in run.tests.values()]
    for path, blocks in reports + run.node_reports:
        for n, (first, excerpt) in enumerate(blocks):
            failed_paths.add(path)
            seen.add(first)
            if n == MAX_REPORTS:
                excerpt = [f'... and {len(blocks) - n} more report(s), see the raw log']
            if n <= MAX_REPORTS:
                problems.append(('.'.join(path), excerpt))
    # Reports before the first suite or after the last one (boot, shutdown).
    outside = [b for raw in raws for b in report_blocks(raw)
               if not any(b[0].endswith(s) for s in seen)]
    if outside:
        problems.append(('(outside any test case)', outside[0][1]))
    for where, excerpt in run.failures:
        problems.append((where, excerpt))

    passed = failed = skipped = 0
    failed_names = []
    known_hits = []
    if not boots:
        failed = 1
        failed_names.append(f'{args.label}: no results (see above)')
    else:
        for path, status, _ in run.tests.values():
            reported = any(path[:len(p)] == p for p in failed_paths)
            name = '.'.join(path)
            finding, always = next(((why, alw) for glob, why, alw in known
                                    if fnmatch.fnmatchcase(name, glob)),
                                   (None, True))
            if finding is not None:
                # a kernel report, or a crash, can be how the bug shows (F3)
                if status in ('FAIL', 'ERROR', 'CRASHED', 'HUNG') or reported:
                    skipped += 1
                    known_hits.append(f'{name} ("{finding}")')
                elif not always and status == 'PASS':
                    passed += 1
                else:
                    failed += 1
                    failed_names.append(f'{name} ({status}: listed in '
                                        'kunit/known-upstream-failures but did '
                                        'not fail as expected)')
            elif status == 'SKIP' and not reported:
                skipped += 1
            elif status == 'PASS' and not reported:
                passed += 1
            else:
                failed += 1
                why = status if status != 'PASS' else 'PASS, but with a report'
                failed_names.append(f"{'.'.join(path)} ({why})")
        for what in run.shortfall():
            failed += 1
            failed_names.append(what)
        for what, _ in run.failures:
            failed += 1
            failed_names.append(what)
        if not passed and not failed and not skipped:
            failed = 1
            failed_names.append(f'{args.label}: no test case ran')
        if any(p[0] == '(outside any test case)' for p in problems):
            failed += 1
            failed_names.append(f'{args.label}: report outside any test case')

    for where, excerpt in problems:
        if any(fnmatch.fnmatchcase(where, glob) for glob, _, _ in known):
            where += ' (a known upstream failure)'
        print(f'\n{args.label}: kernel report in {where}:')
        for line in excerpt:
            print('    ' + line)
    if known_hits:
        print(f'\n{args.label}: known upstream failures (docs/upstream-findings.md),'
              ' counted as skipped:')
        for name in known_hits:
            print('    ' + name)
    if failed_names:
        print(f'\n{args.label}: failed:')
        for name in failed_names:
            print('    ' + name)
    line = f'{passed} passed, {failed} failed, {skipped} skipped'
    print(f'{args.label}: {line}')
    with open(args.summary, 'w') as f:
        f.write(f'{passed} {failed} {skipped}\n')
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
