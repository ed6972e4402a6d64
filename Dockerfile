# syntax=docker/dockerfile:1
# model-image-webhook: built on Debian 12 packages, shipped as the binary and its shared
# libraries alone, running as a non-root user.
#   docker build -t model-image-webhook:0.1.0 .

FROM debian:12 AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends g++ cmake ninja-build binutils rapidjson-dev libyaml-dev pkg-config \
      libcxxopts-dev libboost-dev libssl-dev libcurl4-openssl-dev libtomlplusplus-dev libre2-dev ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY include include
COPY src src
COPY manifests/base/webhooks.yaml manifests/base/
COPY sigstore/trusted_root.public-good.json sigstore/
COPY scripts/collect-runtime.sh scripts/
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIW_BUILD_TESTS=OFF -DMIW_BUILD_BENCH=OFF \
 && cmake --build build -j"$(nproc)" --target model-image-webhook \
 && bash scripts/collect-runtime.sh build/model-image-webhook /rootfs

FROM scratch
COPY --from=build /rootfs /
USER 65532:65532
EXPOSE 8443 9090
ENTRYPOINT ["/model-image-webhook"]
CMD ["serve"]
