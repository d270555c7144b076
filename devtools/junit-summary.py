#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Sum meson's JUnit log into the one line CI reads: 'N passed, M failed[, K skipped]'.

Criterion runs under meson's TAP protocol, so every test case is counted, not
every binary. With --slowest N, the N slowest tests (meson's tests: a TAP
binary as a whole, a script as itself) are listed first.
usage: junit-summary.py [--slowest N] <testlog.junit.xml> [runner-exit-status]
Exit status: 0 when nothing failed and something ran, else 1.
"""
import sys
import xml.etree.ElementTree as ET


def durations(suites):
    """(seconds, test name) of each meson test: a TAP binary is a testsuite of
    its own, timed as a whole; the other tests are timed testcases of the
    project's testsuite."""
    out = []
    for s in suites:
        timed = [c for c in s.iter("testcase") if c.get("time") is not None]
        if timed:
            out += [(float(c.get("time")), c.get("name", "?")) for c in timed]
        elif s.get("time") is not None:
            out.append((float(s.get("time")), s.get("name", "?")))
    return out


def print_slowest(suites, n):
    rows = sorted(durations(suites), reverse=True)[:n]
    if not rows:
        return
    print(f"the {len(rows)} slowest tests:")
    for secs, name in rows:
        # "ordk.ordk:func / verbs_basic" -> "func / verbs_basic"
        print(f"  {secs:7.1f} s  {name.split(':', 1)[-1]}")


def main():
    args = sys.argv[1:]
    slowest = 0
    if len(args) >= 2 and args[0] == "--slowest":
        slowest = int(args[1])
        args = args[2:]
    path = args[0]
    runner_rc = int(args[1]) if len(args) > 1 else 0
    passed = failed = skipped = 0
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"junit-summary: cannot read {path}: {e}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    suites = list(root.iter("testsuite")) if root.tag == "testsuites" else [root]
    if slowest:
        print_slowest(suites, slowest)
    for s in suites:
        tests = int(s.get("tests", 0))
        bad = int(s.get("failures", 0)) + int(s.get("errors", 0))
        skip = int(s.get("skipped", 0))
        if tests == 0 and bad == 0:
            # a binary that died before its TAP plan still counts as a failure
            for case in s.iter("testcase"):
                tests += 1
                if case.find("failure") is not None or case.find("error") is not None:
                    bad += 1
        passed += max(tests - bad - skip, 0)
        failed += bad
        skipped += skip
    if runner_rc != 0 and failed == 0:
        print("junit-summary: meson test failed but no failed case was recorded",
              file=sys.stderr)
        failed = 1
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
