#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one KUnit run: kunit.py's JSON for the case results, the raw kernel
log for sanitizer and debug reports (KASAN, UBSAN, lockdep, WARNING, BUG,
Oops, ...) that KUnit itself does not turn into failures.

Reports are attributed to the case they were printed in with kunit.py's own
parser (kunit_parser, imported from the kernel tree): each parsed test keeps
the kernel log lines printed while it ran.  A case with a report counts as
failed even when KUnit said ok.

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

REPORT = re.compile(
    r'BUG:|WARNING:|UBSAN:|KASAN:|Oops|general protection fault|'
    r'kernel BUG at|Kernel panic|INFO: (possible|lockdep|task .* blocked|'
    r'rcu_.* detected stall|rcu_.* self-detected)|ODEBUG:|'
    r'list_(add|del) corruption|stack-protector|Call Trace:')

# kunit_parser's name for a case whose result line never came (crash, hang)
MISSING = '(missing: crashed or hung)'

# Reports printed in full per case; the rest are counted.
MAX_REPORTS = 2


def json_leaves(group, path=()):
    """Yield (path, status) for every leaf case of kunit.py's JSON."""
    for case in group.get('test_cases', []):
        yield path + (case['name'] or MISSING,), case['status']
    for sub in group.get('sub_groups', []):
        yield from json_leaves(sub, path + (sub['name'] or MISSING,))


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tree', required=True, help='kernel tree (for kunit_parser)')
    ap.add_argument('--raw', required=True, help='raw kernel log')
    ap.add_argument('--json', required=True, help="kunit.py's --json output")
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

    raw = []
    if os.path.exists(args.raw):
        with open(args.raw, errors='replace') as f:
            raw = f.read().splitlines()

    # Parse quietly: kunit.py already printed the results.
    kunit_printer.stdout._output = io.StringIO()
    root = kunit_parser.parse_run_tests(raw)

    problems = []
    failed_paths = set()
    seen = set()
    for path, node in parsed_nodes(root):
        blocks = report_blocks(node.log)
        for n, (first, excerpt) in enumerate(blocks):
            failed_paths.add(path)
            seen.add(first)
            if n == MAX_REPORTS:
                excerpt = [f'... and {len(blocks) - n} more report(s), see the raw log']
            if n <= MAX_REPORTS:
                problems.append(('.'.join(path), excerpt))
    # Reports before the first suite or after the last one (boot, shutdown).
    outside = [b for b in report_blocks(raw)
               if not any(b[0].endswith(s) for s in seen)]
    if outside:
        problems.append(('(outside any test case)', outside[0][1]))

    passed = failed = skipped = 0
    failed_names = []
    known_hits = []
    results = None
    if os.path.exists(args.json):
        with open(args.json) as f:
            try:
                results = json.load(f)
            except ValueError:
                results = None
    if results is None:
        failed = 1
        failed_names.append(f'{args.label}: no results (see above)')
    else:
        for path, status in json_leaves(results):
            reported = any(path[:len(p)] == p for p in failed_paths)
            name = '.'.join(path)
            finding, always = next(((why, alw) for glob, why, alw in known
                                    if fnmatch.fnmatchcase(name, glob)),
                                   (None, True))
            if finding is not None:
                # a kernel report can be how the bug shows (F3)
                if status in ('FAIL', 'ERROR') or reported:
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
