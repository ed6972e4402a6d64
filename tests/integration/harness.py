"""What the Python integration tests share: a runner that prints one line per
test and the closing count, and the Kubernetes OpenAPI schemas made strict."""
import json
import os
import sys
import time
import traceback


def run_tests(tests, title, only="", cleanup=None):
    """Runs the tests whose name holds `only`, prints each verdict and
    "TITLE: N passed, M failed", and exits with the verdict."""
    passed = failed = 0
    for fn in tests:
        if only and only not in fn.__name__:
            continue
        start = time.time()
        try:
            fn()
            passed += 1
            print("ok   %s (%.1fs)" % (fn.__name__, time.time() - start))
        except Exception:
            failed += 1
            print("FAIL %s\n%s" % (fn.__name__, traceback.format_exc()))
    if cleanup:
        cleanup()
    print("%s: %d passed, %d failed" % (title, passed, failed))
    sys.exit(1 if failed else 0)


def peak_rss_mib(pid):
    """The most a process has held resident (VmHWM), in MiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    raise AssertionError("no VmHWM for %d" % pid)


def strict(schema):
    """Refuses unknown fields: Kubernetes' schemas leave additionalProperties
    open, which would let a misspelt field through."""
    if isinstance(schema, dict):
        out = {k: strict(v) for k, v in schema.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [strict(v) for v in schema]
    return schema


def load_components(path):
    """The components of an OpenAPI v3 document, made strict."""
    with open(path) as f:
        return strict(json.load(f)["components"])
