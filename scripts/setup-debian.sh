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
