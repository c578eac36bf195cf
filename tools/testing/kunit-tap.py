#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn KUnit results in a QEMU console log into one TAP line per test.

usage: kunit-tap.py CONSOLE_LOG KUNIT_PY OUT_PREFIX

Suites in a module print their KTAP without the top-level header; this
collects them from the console (between NPA-GUEST-BEGIN and NPA-RESULT),
adds the header, and hands the result to the kernel's `kunit.py parse`
(OUT_PREFIX.ktap and OUT_PREFIX.parsed are kept).  Each leaf result
("[PASSED] name", ...) becomes "ok - kunit name" or "not ok - kunit name";
parameterised cases count once per parameter.  No result at all is a
failure.
"""
import re
import subprocess
import sys

STAMP = re.compile(r'^\[ *[0-9]+\.[0-9]+\] ')
KTAP_LINE = re.compile(r'^(    |(not )?ok [0-9]+ )')
LEAF = re.compile(r'^\[[0-9:]+\] \[(PASSED|FAILED|SKIPPED|CRASHED)\] (.*)$')


def extract(console):
    lines, inside = [], False
    for line in open(console, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        if line.startswith('NPA-GUEST-BEGIN'):
            inside = True
            continue
        if line.startswith('NPA-RESULT'):
            break
        line = STAMP.sub('', line)
        if inside and KTAP_LINE.match(line):
            lines.append(line)
    suites = sum(1 for l in lines if l.startswith('    # Subtest:'))
    return ['KTAP version 1', f'1..{suites}'] + lines


def main(console, kunit_py, out):
    with open(out + '.ktap', 'w') as f:
        f.write('\n'.join(extract(console)) + '\n')
    parsed = subprocess.run([sys.executable, kunit_py, 'parse', out + '.ktap'],
                            capture_output=True, text=True).stdout
    with open(out + '.parsed', 'w') as f:
        f.write(parsed)
    count = failed = 0
    for line in parsed.splitlines():
        if '[ERROR]' in line:
            print(f'not ok - kunit parse: {line.split("[ERROR]", 1)[1].strip()}')
            failed += 1
        m = LEAF.match(line)
        if not m:
            continue
        status, name = m.groups()
        count += 1
        if status in ('PASSED', 'SKIPPED'):
            print(f'ok - kunit {name}' + (' # SKIP' if status == 'SKIPPED' else ''))
        else:
            print(f'not ok - kunit {name} ({status.lower()})')
            failed += 1
    if count == 0:
        print('not ok - kunit: no test results in the log')
        return 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:4]))
