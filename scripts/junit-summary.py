#!/usr/bin/env python3
"""Totals JUnit XML reports (ctest, lit, the fuzzer, nvcc checks).

Prints the failed tests, then "N passed, N failed" as the last line; exits 1
when a test failed or a report could not be read. Skipped tests (lit's
UNSUPPORTED, ctest's not run) count as neither.
"""
import sys
import xml.etree.ElementTree as ET


def outcome(case):
    if case.find("failure") is not None or case.find("error") is not None:
        return "failed"
    if case.find("skipped") is not None:
        return "skipped"
    return "passed"


def main(paths):
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for path in paths:
        try:
            cases = ET.parse(path).getroot().iter("testcase")
        except (OSError, ET.ParseError) as err:
            print(f"unreadable report {path}: {err}")
            counts["failed"] += 1
            continue
        for case in cases:
            result = outcome(case)
            counts[result] += 1
            if result == "failed":
                name = ".".join(filter(None, [case.get("classname"), case.get("name")]))
                print(f"FAILED: {name}")
    if counts["skipped"]:
        print(f"({counts['skipped']} skipped)")
    print(f"{counts['passed']} passed, {counts['failed']} failed")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
