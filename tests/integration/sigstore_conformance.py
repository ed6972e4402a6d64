#!/usr/bin/python3
"""sigstore-conformance's bundle-verify cases (tests/fixtures/sigstore-conformance),
driven through `model-image-webhook verify-bundle` as the suite's CLI protocol
drives a client: a case whose name ends in _fail must be refused, every other
verified.

  sigstore_conformance.py BINARY SUITE_DIR [ONLY]
Exit 77 (skipped) when the suite's cases are not beside the repository."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

BINARY, SUITE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ONLY = sys.argv[3] if len(sys.argv) > 3 else ""
CASES = os.path.join(SUITE, "test", "assets", "bundle-verify")
if not os.path.isdir(CASES):
    print("the sigstore-conformance cases are not at %s: skipped" % CASES)
    sys.exit(77)

DEFAULT_IDENTITY = "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main"
DEFAULT_ISSUER = "https://token.actions.githubusercontent.com"


def read(case, name, default=None):
    path = os.path.join(CASES, case, name)
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return f.read().strip()


def verify(case):
    args = [BINARY, "verify-bundle", "--bundle", os.path.join(CASES, case, "bundle.sigstore.json")]
    if os.path.exists(os.path.join(CASES, case, "key.pub")):
        args += ["--key", os.path.join(CASES, case, "key.pub")]
    else:
        args += ["--certificate-identity", read(case, "identity", DEFAULT_IDENTITY), "--certificate-oidc-issuer", read(case, "issuer", DEFAULT_ISSUER)]
    if os.path.exists(os.path.join(CASES, case, "trusted_root.json")):
        args += ["--trusted-root", os.path.join(CASES, case, "trusted_root.json")]
    artifact = os.path.join(CASES, case, "artifact")
    args.append(artifact if os.path.exists(artifact) else os.path.join(CASES, "a.txt"))
    return subprocess.run(args, capture_output=True, text=True, timeout=30)


def case_test(case):
    def run():
        done = verify(case)
        expected_ok = not case.endswith("_fail")
        verdict = "verified" if done.returncode == 0 else "refused (%s)" % done.stderr.strip()
        assert done.returncode in (0, 1), (done.returncode, done.stderr)
        assert done.returncode == 0 or done.stderr.startswith("not verified: "), done.stderr
        assert (done.returncode == 0) == expected_ok, "%s: expected %s, %s" % (case, "verified" if expected_ok else "refused", verdict)
    run.__name__ = case.replace("-", "_").replace(".", "_")
    return run


TESTS = [case_test(c) for c in sorted(os.listdir(CASES)) if os.path.isdir(os.path.join(CASES, c))]
harness.run_tests(TESTS, "sigstore-conformance bundle-verify", ONLY)
