#!/usr/bin/env bash
# Builds the container image of patience from scratch: no base image is pulled (these machines
# cannot pull one, and a static binary needs none). The image holds the static binary
# (CGO_ENABLED=0) at /usr/local/bin/patience as its entrypoint, an empty /src as the working
# directory (mount the repository there), /tmp, and the build host's CA bundle so that
# `patience probe https://…` can verify certificates. Written as an OCI image layout by Debian's
# umoci and archived as one tar (an "oci-archive": `podman load -i`, `skopeo copy
# oci-archive:FILE docker-daemon:patience:TAG`, or `docker load -i` on Docker 25 and later).
#
#   .ci/image.sh BINARY OUT.tar OS ARCH VERSION
#
# The release calls it once per binary it builds (.goreleaser.yaml, builds[].hooks.post) and
# skips every OS but linux; .ci/integrations.sh calls it on a binary of the clone and runs it.
set -euo pipefail
umask 022 # the image's directories are readable by any user it runs as
if [ $# -ne 5 ]; then
  echo "usage: $0 BINARY OUT.tar OS ARCH VERSION" >&2
  exit 2
fi
bin=$1 out=$2 os=$3 arch=$4 version=$5
if [ "$os" != linux ]; then
  echo "image.sh: no image for $os/$arch (the image is linux only)"
  exit 0
fi
if [ ! -f "$bin" ]; then
  echo "image.sh: $bin: no such binary" >&2
  exit 2
fi
command -v umoci >/dev/null || { echo "image.sh: umoci is missing (Debian: apt-get install umoci)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
layout=$work/layout
img=$layout:$version
umoci init --layout "$layout"
umoci new --image "$img"
# One layer: the image's whole tree is staged here and inserted at / by umoci insert.
stage=$work/root
install -D -m 0755 "$bin" "$stage/usr/local/bin/patience"
mkdir -m 0755 "$stage/src" && mkdir -m 1777 "$stage/tmp"
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$stage/etc/ssl/certs/ca-certificates.crt"
else
  echo "image.sh: warning: no /etc/ssl/certs/ca-certificates.crt on this host: probe of https targets in the image will not verify certificates" >&2
fi
umoci insert --image "$img" "$stage" /
umoci config --image "$img" --os linux --architecture "$arch" \
  --config.entrypoint /usr/local/bin/patience \
  --config.workingdir /src \
  --config.env PATH=/usr/local/bin \
  --config.label "org.opencontainers.image.title=patience" \
  --config.label "org.opencontainers.image.version=$version" \
  --config.label "org.opencontainers.image.source=https://github.com/patience-dev/patience"
umoci gc --layout "$layout"
mkdir -p "$(dirname "$out")"
tar -C "$layout" -cf "$out" .
echo "image.sh: $out (OCI layout, tag $version, $(du -k "$out" | cut -f1) KiB)"
