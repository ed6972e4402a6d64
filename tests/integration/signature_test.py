"""--signature-policy against real signers and a real registry: model images
in Debian's docker-registry (distribution 2.8, which has no referrers API, so
signatures are found by the referrers tag, as cosign v3 attaches them there),
signed keyless by sigstore-js (@sigstore/sign against @sigstore/mock's Fulcio,
CT log and Rekor) and with a key by openssl (cosign v2's legacy `.sig`). And a
hostile registry written here: a huge bundle, ten thousand referrers.

Usage: signature_test.py BINARY REPO [ONLY]. Exits 77 (skipped) without
docker-registry; the keyless cases need node and sigstore-js where
scripts/setup-debian.sh installs them (MIW_SIGSTORE_JS, default
/opt/model-image-webhook/sigstore-js/node_modules)."""
import base64
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import registry_test as rt  # noqa: E402  (the registries, their CA, the pushing client)
import server_test as st  # noqa: E402

BINARY, REPO, ONLY = rt.BINARY, rt.REPO, rt.ONLY
WORK = rt.WORK
SIGSTORE_JS = os.environ.get("MIW_SIGSTORE_JS", "/opt/model-image-webhook/sigstore-js/node_modules")
if shutil.which("node") is None or not os.path.isdir(os.path.join(SIGSTORE_JS, "@sigstore", "sign")):
    print("node and sigstore-js are not installed (bash scripts/setup-debian.sh installs them): skipped")
    sys.exit(77)

REG = rt.BASIC  # htpasswd: every signature is fetched with the --registry-auth credentials
CLIENT = rt.Client(REG)
ISSUER = "https://token.actions.githubusercontent.com"
RELEASE = "https://github.com/acme/models/.github/workflows/release.yml@refs/heads/main"
FORK = "https://github.com/mallory/models/.github/workflows/release.yml@refs/heads/main"
BUNDLE_TYPE = "application/vnd.dev.sigstore.bundle.v0.3+json"
EMPTY = b"{}"


def push_image(name, seed):
    return CLIENT.push_image(name, [64 * 1024 + seed])[0]


def sign(signatures):
    """Bundles made by sigstore-js for [{digest, subject, issuer, predicateType?, expired?}], and the mock's trusted root."""
    done = subprocess.run(["node", os.path.join(REPO, "tests", "integration", "sigstore_sign.js")], input=json.dumps({"signatures": signatures}).encode(),
                          capture_output=True, timeout=120, env=dict(os.environ, NODE_PATH=SIGSTORE_JS))
    assert done.returncode == 0, done.stderr.decode()
    out = json.loads(done.stdout)
    return out["trustedRoot"], out["bundles"], out["sigstoreJs"]


def attach_bundle(name, subject_digest, bundle, listed=()):
    """As cosign v3 attaches a bundle where the registry has no referrers API: the referrer
    manifest, and the referrers tag's index listing it (with those listed before)."""
    data = json.dumps(bundle).encode()
    layer = {"mediaType": BUNDLE_TYPE, "digest": CLIENT.push_blob(name, data, False), "size": len(data)}
    config = {"mediaType": "application/vnd.oci.empty.v1+json", "digest": CLIENT.push_blob(name, EMPTY, False), "size": 2}
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json", "artifactType": BUNDLE_TYPE, "config": config,
                "layers": [layer], "subject": {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": subject_digest, "size": 0},
                "annotations": {"dev.sigstore.bundle.content": "dsse-envelope", "dev.sigstore.bundle.predicateType": "https://sigstore.dev/cosign/sign/v1"}}
    digest, size = CLIENT.push_manifest(name, manifest, "application/vnd.oci.image.manifest.v1+json", False)
    entries = list(listed) + [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": digest, "size": size, "artifactType": BUNDLE_TYPE}]
    index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": entries}
    body = json.dumps(index).encode()
    resp, text = CLIENT.request("PUT", "/v2/%s/manifests/%s" % (name, subject_digest.replace(":", "-")), body=body,
                                headers={"Content-Type": "application/vnd.oci.image.index.v1+json"})
    assert resp.status == 201, (resp.status, text)
    return entries


def attach_legacy(name, digest, key):
    """cosign v2's `sha256-HEX.sig`: a simple-signing payload signed with openssl."""
    payload = json.dumps({"critical": {"identity": {"docker-reference": "%s/%s" % (REG.authority, name)}, "image": {"docker-manifest-digest": digest},
                                       "type": "cosign container image signature"}, "optional": None}).encode()
    path = os.path.join(WORK, "payload-%s" % digest[7:19])
    with open(path, "wb") as f:
        f.write(payload)
    signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key, path], capture_output=True, check=True).stdout
    layer = {"mediaType": "application/vnd.dev.cosign.simplesigning.v1+json", "digest": CLIENT.push_blob(name, payload, False), "size": len(payload),
             "annotations": {"dev.cosignproject.cosign/signature": base64.b64encode(signature).decode()}}
    config_data = json.dumps({"architecture": "", "os": "", "rootfs": {"type": "layers", "diff_ids": [layer["digest"]]}}).encode()
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": CLIENT.push_blob(name, config_data, False), "size": len(config_data)},
                "layers": [layer]}
    body = json.dumps(manifest).encode()
    resp, text = CLIENT.request("PUT", "/v2/%s/manifests/%s.sig" % (name, digest.replace(":", "-")), body=body,
                                headers={"Content-Type": "application/vnd.oci.image.manifest.v1+json"})
    assert resp.status == 201, (resp.status, text)


def new_key(name):
    path = os.path.join(WORK, name + ".key")
    subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", path], check=True, capture_output=True)
    pub = subprocess.run(["openssl", "ec", "-in", path, "-pubout"], check=True, capture_output=True).stdout.decode()
    return path, pub


# The images, and their signatures.
SIGNED = push_image("models/signed", 1)
UNSIGNED = push_image("models/unsigned", 2)
FORKED = push_image("models/forked", 3)
SLSA_ONLY = push_image("models/slsa", 4)
EXPIRED = push_image("models/expired", 5)
TAMPERED = push_image("models/tampered", 6)
MISATTACHED = push_image("models/misattached", 7)
LEGACY = push_image("legacy/keyed", 8)
LEGACY_WRONG_KEY = push_image("legacy/wrong-key", 9)
WARNED = push_image("staging/unsigned", 10)
UNGOVERNED = push_image("scratch/unsigned", 11)
ARM = push_image("models/multi", 12)
AMD = push_image("models/multi", 13)
INDEX = CLIENT.push_index("models/multi", [({"os": "linux", "architecture": "amd64"}, AMD, 0), ({"os": "linux", "architecture": "arm64"}, ARM, 0)])
SLSA = "https://slsa.dev/provenance/v1"
TRUSTED_ROOT, BUNDLES, SIGSTORE_JS = sign([
    {"digest": SIGNED, "subject": RELEASE, "issuer": ISSUER},
    {"digest": FORKED, "subject": FORK, "issuer": ISSUER},
    {"digest": SLSA_ONLY, "subject": RELEASE, "issuer": ISSUER, "predicateType": SLSA},
    {"digest": EXPIRED, "subject": RELEASE, "issuer": ISSUER, "expired": True},
    {"digest": TAMPERED, "subject": RELEASE, "issuer": ISSUER},
    {"digest": SIGNED, "subject": RELEASE, "issuer": ISSUER},  # attached to another image
    {"digest": INDEX, "subject": RELEASE, "issuer": ISSUER},
    {"digest": SIGNED, "subject": RELEASE, "issuer": ISSUER, "predicateType": SLSA},
])
# The SLSA provenance of the same signer is listed before the signature: every referrer is read.
attach_bundle("models/signed", SIGNED, BUNDLES[0], listed=attach_bundle("models/signed", SIGNED, BUNDLES[7]))
attach_bundle("models/forked", FORKED, BUNDLES[1])
attach_bundle("models/slsa", SLSA_ONLY, BUNDLES[2])
attach_bundle("models/expired", EXPIRED, BUNDLES[3])
tampered = json.loads(json.dumps(BUNDLES[4]))
statement = json.loads(base64.b64decode(tampered["dsseEnvelope"]["payload"]))
statement["predicate"] = {"note": "changed after signing"}
tampered["dsseEnvelope"]["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
attach_bundle("models/tampered", TAMPERED, tampered)
attach_bundle("models/misattached", MISATTACHED, BUNDLES[5])
attach_bundle("models/multi", INDEX, BUNDLES[6])
KEY, KEY_PUB = new_key("release")
OTHER_KEY, _ = new_key("other")
attach_legacy("legacy/keyed", LEGACY, KEY)
attach_legacy("legacy/wrong-key", LEGACY_WRONG_KEY, OTHER_KEY)


def pem(der_b64, label):
    body = base64.b64encode(base64.b64decode(der_b64)).decode()
    return "-----BEGIN %s-----\n%s\n-----END %s-----\n" % (label, "\n".join(body[i:i + 64] for i in range(0, len(body), 64)), label)


def b64(text):
    return base64.b64encode(text.encode()).decode()


def trust_root_document(name, root):
    """The mock's trusted root as policy-controller's TrustRoot: PEM, base64 as Go's []byte writes it."""
    keys = {
        "certificateAuthorities": [{"subject": {"organization": "sigstore.mock", "commonName": "sigstore"}, "uri": ca["uri"],
                                    "certChain": b64(pem(ca["certChain"]["certificates"][0]["rawBytes"], "CERTIFICATE"))}
                                   for ca in root["certificateAuthorities"]],
        "tLogs": [{"baseURL": t["baseUrl"], "hashAlgorithm": "sha-256", "publicKey": b64(pem(t["publicKey"]["rawBytes"], "PUBLIC KEY"))} for t in root["tlogs"]],
        "ctLogs": [{"baseURL": t["baseUrl"], "hashAlgorithm": "sha-256", "publicKey": b64(pem(t["publicKey"]["rawBytes"], "PUBLIC KEY"))} for t in root["ctlogs"]],
    }
    return {"apiVersion": "policy.sigstore.dev/v1alpha1", "kind": "TrustRoot", "metadata": {"name": name}, "spec": {"sigstoreKeys": keys}}


def cip(name, globs, authorities, mode=None):
    spec = {"images": [{"glob": g} for g in globs], "authorities": authorities}
    if mode:
        spec["mode"] = mode
    return {"apiVersion": "policy.sigstore.dev/v1beta1", "kind": "ClusterImagePolicy", "metadata": {"name": name}, "spec": spec}


RELEASE_AUTHORITY = {"name": "release-workflow", "keyless": {"trustRootRef": "mock-sigstore",
                                                             "identities": [{"issuer": ISSUER, "subjectRegExp": "^https://github[.]com/acme/models/"}]}}
DOWN = "127.0.0.1:%d" % st.free_ports(1)[0]
POLICY = os.path.join(WORK, "signature-policy.yaml")
with open(POLICY, "w") as f:
    docs = [trust_root_document("mock-sigstore", TRUSTED_ROOT),
            cip("acme-models", [REG.authority + "/models/**"], [RELEASE_AUTHORITY]),
            cip("legacy-keys", [REG.authority + "/legacy/**"], [{"name": "release-key", "key": {"data": KEY_PUB}}]),
            cip("staging", [REG.authority + "/staging/**"], [RELEASE_AUTHORITY], mode="warn"),
            cip("offline-registry", [DOWN + "/**"], [RELEASE_AUTHORITY]),
            cip("offline-registry-warn", [DOWN + "/warned/**"], [RELEASE_AUTHORITY], mode="warn")]
    f.write("\n---\n".join(json.dumps(d) for d in docs))
ROOT_FILE = os.path.join(WORK, "mock-trusted-root.json")
with open(ROOT_FILE, "w") as f:
    json.dump(TRUSTED_ROOT, f)


def ref(name, digest, authority=None):
    return "%s/%s@%s" % (authority or REG.authority, name, digest)


# A fetch asks the registry up to seven times, each with bcrypt'd Basic auth: under the
# sanitizers and a loaded machine that can pass the 3 s default, which is not what is tested.
SLOW_MACHINE = ("--registry-timeout", "30s")


def review(document, *flags, endpoint="validate"):
    return rt.review(document, "--registry-auth", rt.AUTH_FILE, "--signature-policy", POLICY, *SLOW_MACHINE, *flags, endpoint=endpoint, mode="off",
                     timeout=120)


def refusal(response):
    return response["status"]["message"] if not response["allowed"] else ""


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def a_model_image_signed_by_the_release_workflow_is_admitted():
    code, r, err = review(rt.artifact_review(ref("models/signed", SIGNED)))
    assert code == 0 and r["allowed"] and not r.get("warnings"), (code, r, err)
    # And the same bundle passes sigstore-js's own trust root, asked for by the CLI.
    code, r, err = review(rt.pod_review(ref("models/signed", SIGNED)), endpoint="mutate")
    assert code == 0 and r["allowed"] and "patch" in r, (r, err)


@test
def sigstore_js_agrees_on_the_bundles_it_made():
    # Its own verifier (@sigstore/verify) against the mock's trust root: the bundles the product
    # admits are valid to sigstore-js, and the one expired when logged is refused by both.
    for i in (0, 1, 2, 4, 5, 6, 7):
        assert SIGSTORE_JS[i] == "verified", (i, SIGSTORE_JS[i])
    assert SIGSTORE_JS[3] != "verified", SIGSTORE_JS[3]
    code, r, _ = review(rt.artifact_review(ref("models/expired", EXPIRED)))
    assert code == 1, r


@test
def an_unsigned_model_image_is_refused_naming_the_policy_and_what_to_do():
    code, r, _ = review(rt.artifact_review(ref("models/unsigned", UNSIGNED)))
    message = refusal(r)
    assert code == 1 and r["status"]["code"] == 422, r
    assert "ClusterImagePolicy acme-models asks for a signature and none of this digest was found" in message, message
    assert "sign the image (cosign sign)" in message, message
    assert r["auditAnnotations"]["rule"] == "signature-unverified", r


@test
def a_signature_by_another_identity_is_refused_with_its_identity():
    code, r, _ = review(rt.artifact_review(ref("models/forked", FORKED)))
    message = refusal(r)
    assert code == 1 and "no authority of the ClusterImagePolicy acme-models verifies a signature" in message, message
    assert FORK in message and "no identity of the policy matches" in message, message


@test
def provenance_alone_is_no_signature():
    code, r, _ = review(rt.artifact_review(ref("models/slsa", SLSA_ONLY)))
    message = refusal(r)
    assert code == 1 and "none of this digest was found" in message and "an attestation of " + SLSA in message, message


@test
def a_certificate_expired_when_logged_is_refused():
    code, r, _ = review(rt.artifact_review(ref("models/expired", EXPIRED)))
    message = refusal(r)
    assert code == 1 and "release-workflow:" in message and "certificate" in message, message


@test
def a_payload_changed_after_signing_is_refused():
    code, r, _ = review(rt.artifact_review(ref("models/tampered", TAMPERED)))
    assert code == 1 and "signature does not verify" in refusal(r), refusal(r)


@test
def a_signature_of_another_digest_is_refused():
    code, r, _ = review(rt.artifact_review(ref("models/misattached", MISATTACHED)))
    assert code == 1 and "no subject of the in-toto statement has the artifact's digest" in refusal(r), refusal(r)


@test
def an_index_digest_is_verified_as_the_index_itself():
    code, r, err = review(rt.artifact_review(ref("models/multi", INDEX)))
    assert code == 0 and r["allowed"], (r, err)
    # Its platform manifest is another digest, signed by no one.
    code, r, _ = review(rt.artifact_review(ref("models/multi", AMD)))
    assert code == 1, r


@test
def a_legacy_sig_made_with_the_policys_key_is_admitted_and_another_key_refused():
    code, r, err = review(rt.artifact_review(ref("legacy/keyed", LEGACY)))
    assert code == 0 and r["allowed"], (r, err)
    code, r, _ = review(rt.artifact_review(ref("legacy/wrong-key", LEGACY_WRONG_KEY)))
    assert code == 1 and "release-key: the signature does not verify" in refusal(r), refusal(r)


@test
def a_warn_policy_admits_with_a_warning_and_an_image_no_policy_matches_is_admitted():
    code, r, _ = review(rt.artifact_review(ref("staging/unsigned", WARNED)))
    assert code == 0 and r["allowed"] and "the ClusterImagePolicy staging (warn) does not verify the model image (unsigned" in rt.warnings_of(r), r
    code, r, _ = review(rt.artifact_review(ref("scratch/unsigned", UNGOVERNED)))
    assert code == 0 and r["allowed"] and not r.get("warnings"), r


@test
def a_registry_that_cannot_be_reached_refuses_under_enforce_and_warns_under_warn():
    code, r, _ = review(rt.artifact_review(ref("models/qwen", SIGNED, DOWN)))
    message = refusal(r)
    assert code == 1 and "could not be fetched for the ClusterImagePolicy offline-registry" in message, message
    assert "unreachable: the registry %s could not be reached" % DOWN in message, message
    # Two policies match: the enforcing one refuses; where only a warn policy matches, a warning.
    code, r, _ = review(rt.artifact_review(ref("warned/qwen", SIGNED, DOWN)))
    assert code == 1, r
    # The namespace's enforcement applies as to every rule.
    code, r, _ = review(rt.artifact_review(ref("models/qwen", SIGNED, DOWN)), "--enforcement", "warn")
    assert code == 0 and r["allowed"] and r["auditAnnotations"]["rule"] == "signature-unverified", r
    assert rt.warnings_of(r).startswith("would be denied: spec.source.image.reference:"), r


@test
def an_unsigned_pod_or_workload_is_refused_at_mutation_and_a_signed_one_rendered():
    code, r, _ = review(rt.pod_review(ref("models/unsigned", UNSIGNED)), endpoint="mutate")
    assert code == 1 and r["status"]["code"] == 403 and "gpustack.ai/model-image" in refusal(r) and "none of this digest was found" in refusal(r), r
    code, r, _ = review(rt.deployment_review(ref("models/forked", FORKED), "ml", "default"), endpoint="mutate")
    assert code == 1 and r["status"]["code"] == 403 and "no identity of the policy matches" in refusal(r), r
    code, r, err = review(rt.deployment_review(ref("models/signed", SIGNED), "ml", "default"), endpoint="mutate")
    assert code == 0 and r["allowed"] and "patch" in r, (r, err)


@test
def test_mode_fails_ci_and_reports_sarif():
    manifest = os.path.join(WORK, "artifacts.yaml")
    with open(manifest, "w") as f:
        f.write("apiVersion: worker.gpustack.ai/v1alpha1\nkind: ModelArtifact\nmetadata:\n  name: signed\n  namespace: ml\nspec:\n  source:\n"
                "    image:\n      reference: %s\n---\napiVersion: worker.gpustack.ai/v1alpha1\nkind: ModelArtifact\nmetadata:\n  name: unsigned\n"
                "  namespace: ml\nspec:\n  source:\n    image:\n      reference: %s\n" % (ref("models/signed", SIGNED), ref("models/unsigned", UNSIGNED)))
    done = subprocess.run([BINARY, "test", "--registry-ca", rt.CA, "--registry-auth", rt.AUTH_FILE, "--signature-policy", POLICY, *SLOW_MACHINE,
                           "--output", "sarif", manifest], capture_output=True, timeout=120)
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    sarif = json.loads(done.stdout)
    results = sarif["runs"][0]["results"]
    assert [x["ruleId"] for x in results] == ["signature-unverified"], results
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 11, results
    rules = {rule["id"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert "signature-unverified" in rules, rules


@test
def a_policy_that_cannot_be_used_stops_the_start_naming_its_field():
    bad = os.path.join(WORK, "bad-policy.yaml")
    with open(bad, "w") as f:
        json.dump(cip("bad", ["**"], [{"name": "a", "keyless": {"identities": [{"issuer": ISSUER, "subjectRegExp": "(unclosed"}]}}]), f)
    code, _, err = rt.review(rt.artifact_review(ref("models/signed", SIGNED)), "--signature-policy", bad, mode="off")
    assert code == 2 and "subjectRegExp" in err and "(unclosed" in err, err
    with open(bad, "w") as f:
        json.dump(cip("bad", ["**"], [{"name": "a", "keyless": {"identities": [{"issuer": ISSUER, "subject": RELEASE}]}, "attestations": []}]), f)
    code, _, err = rt.review(rt.artifact_review(ref("models/signed", SIGNED)), "--signature-policy", bad, mode="off")
    assert code == 2 and "attestations" in err, err


def signature_server(*flags):
    return st.Server("--registry-ca", rt.CA, "--registry-auth", rt.AUTH_FILE, "--signature-policy", POLICY, *SLOW_MACHINE, *flags)


@test
def served_reviews_share_one_fetch_and_the_verdict_is_kept_and_counted():
    s = signature_server()
    try:
        answers = [None] * 8

        def ask(i):
            answers[i] = rt.post_review(s, rt.artifact_review(ref("models/signed", SIGNED), uid="u-%d" % i))

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(a["allowed"] for a in answers), answers
        r = rt.post_review(s, rt.pod_review(ref("models/signed", SIGNED)), "/mutate")
        assert r["allowed"] and "patch" in r, r
        r = rt.post_review(s, rt.pod_review(ref("models/unsigned", UNSIGNED)), "/mutate")
        assert not r["allowed"] and r["status"]["code"] == 403, r
        assert s.metric('miw_signature_verifications_total{result="verified"}') == 9
        assert s.metric('miw_signature_verifications_total{result="unsigned"}') == 1
        assert s.metric('miw_signature_verifications_total{result="unavailable"}') == 0
        assert s.metric("miw_signature_fetches_total") == 2  # one for the eight reviews of one digest, one for the unsigned
    finally:
        s.stop()


# ---------------------------------------------------------------- a hostile registry

class HostileSignatures(http.server.BaseHTTPRequestHandler):
    """/v2/<behaviour>/...: referrers that are too many, a bundle too large; counts each referrers ask."""
    protocol_version = "HTTP/1.1"
    asked = {}

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        behaviour = self.path.split("/")[2]
        HostileSignatures.asked[behaviour] = HostileSignatures.asked.get(behaviour, 0) + 1
        if "/referrers/" in self.path:
            return self.answer(404, b'{"errors":[{"code":"NOT_FOUND"}]}')
        if behaviour == "many" and "/manifests/sha256-" in self.path and not self.path.endswith(".sig"):
            entry = {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:" + "1" * 64, "size": 500, "artifactType": BUNDLE_TYPE}
            return self.answer(200, json.dumps({"schemaVersion": 2, "manifests": [entry] * 10000}).encode(), "application/vnd.oci.image.index.v1+json")
        if behaviour == "huge" and "/manifests/sha256-" in self.path and not self.path.endswith(".sig"):
            entry = {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": HUGE_MANIFEST_DIGEST, "size": len(HUGE_MANIFEST),
                     "artifactType": BUNDLE_TYPE}
            return self.answer(200, json.dumps({"schemaVersion": 2, "manifests": [entry]}).encode(), "application/vnd.oci.image.index.v1+json")
        if behaviour == "loop" and "/manifests/sha256-" in self.path and not self.path.endswith(".sig"):
            # A referrer that is the image itself, whose referrers tag lists it again.
            entry = {"mediaType": "application/vnd.oci.image.index.v1+json", "digest": LOOP_INDEX_DIGEST, "size": len(LOOP_INDEX)}
            return self.answer(200, LOOP_INDEX, "application/vnd.oci.image.index.v1+json") if LOOP_INDEX_DIGEST in self.path else self.answer(
                200, json.dumps({"schemaVersion": 2, "manifests": [entry]}).encode(), "application/vnd.oci.image.index.v1+json")
        if behaviour == "loop" and LOOP_INDEX_DIGEST in self.path:
            return self.answer(200, LOOP_INDEX, "application/vnd.oci.image.index.v1+json")
        if behaviour == "huge" and HUGE_MANIFEST_DIGEST in self.path:
            return self.answer(200, HUGE_MANIFEST, "application/vnd.oci.image.manifest.v1+json")
        return self.answer(404, b'{"errors":[{"code":"MANIFEST_UNKNOWN"}]}')


HUGE_MANIFEST = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json", "artifactType": BUNDLE_TYPE,
                            "config": {"mediaType": "application/vnd.oci.empty.v1+json", "digest": "sha256:" + hashlib.sha256(EMPTY).hexdigest(), "size": 2},
                            "layers": [{"mediaType": BUNDLE_TYPE, "digest": "sha256:" + "2" * 64, "size": 64 << 20}]}).encode()
HUGE_MANIFEST_DIGEST = "sha256:" + hashlib.sha256(HUGE_MANIFEST).hexdigest()
# An index listing itself among its referrers.
LOOP_INDEX = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": [
    {"mediaType": "application/vnd.oci.image.index.v1+json", "digest": "sha256:" + "3" * 64, "size": 10}]}).encode()
LOOP_INDEX_DIGEST = "sha256:" + hashlib.sha256(LOOP_INDEX).hexdigest()
HOSTILE = rt.serve_https(HostileSignatures)
HOSTILE_AUTHORITY = "127.0.0.1:%d" % HOSTILE.server_address[1]


@test
def a_hostile_registry_ends_in_a_bounded_refusal():
    policy = os.path.join(WORK, "hostile-policy.yaml")
    with open(policy, "w") as f:
        f.write("\n---\n".join(json.dumps(d) for d in [trust_root_document("mock-sigstore", TRUSTED_ROOT), cip("all", [HOSTILE_AUTHORITY + "/**"], [RELEASE_AUTHORITY])]))
    for behaviour, words in (("many", "lists 10000 manifests, more than the 64 read"), ("huge", "over the 1 MiB read")):
        code, r, err = rt.review(rt.artifact_review("%s/%s/m@%s" % (HOSTILE_AUTHORITY, behaviour, SIGNED)), "--signature-policy", policy, mode="off")
        assert code == 1 and words in refusal(r), (behaviour, r, err)
    # Ten thousand referrers are one answer read, not ten thousand asks.
    assert HostileSignatures.asked["many"] == 2, HostileSignatures.asked
    # A referrer that lists itself is read once, as what it is: no signature.
    code, r, err = rt.review(rt.artifact_review("%s/loop/m@%s" % (HOSTILE_AUTHORITY, LOOP_INDEX_DIGEST)), "--signature-policy", policy, mode="off")
    assert code == 1 and "none of this digest was found" in refusal(r), (r, err)
    assert HostileSignatures.asked["loop"] <= 4, HostileSignatures.asked


if __name__ == "__main__":
    harness.run_tests(TESTS, "signature policies", ONLY, rt.cleanup)
