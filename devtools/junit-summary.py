#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Sum meson's JUnit log into the one line CI reads: 'N passed, M failed[, K skipped]'.

Criterion runs under meson's TAP protocol, so every test case is counted, not
every binary. usage: junit-summary.py <testlog.junit.xml> [runner-exit-status]
Exit status: 0 when nothing failed and something ran, else 1.
"""
import sys
import xml.etree.ElementTree as ET


def main():
    path = sys.argv[1]
    runner_rc = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    passed = failed = skipped = 0
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"junit-summary: cannot read {path}: {e}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    suites = root.iter("testsuite") if root.tag == "testsuites" else [root]
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
