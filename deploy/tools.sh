#!/usr/bin/env bash
# The pinned deployment tools, in one place: Helm (deploy/helm/lint.sh, deploy/test/cluster.sh),
# Kubernetes and CoreDNS (deploy/test/cluster.sh), nats-server (./argus, the tests, the NATS
# image), and the Go toolchain that builds them from the Go module proxy. Source it; `argus_tool NAME` prints the path of a pinned binary, building it
# on first use into a cache outside the clone, keyed by version (a warm machine builds nothing):
#   $ARGUS_CACHE/bin/<name>-<version>       default /var/cache/argus as root, else ~/.cache/argus
#   $ARGUS_CACHE/go/{mod,cache}             Go's module and build caches (rebuilds take seconds)
#   $ARGUS_CACHE/go/toolchain-<version>     a Go distribution, only when no local Go is new enough
# Builds log to $ARGUS_CACHE/log/<name>-<version>.log.

HELM_VERSION="v3.22.0"
# Kubernetes modules of that Helm release (k8s.io/client-go v0.37.x -> 1.37): the default
# capabilities baked into the binary, as Helm's own Makefile does.
HELM_K8S_MAJOR="1"
HELM_K8S_MINOR="37"
# 1.34: the newest release that still speaks to containerd 1.6 (Debian 12's) and runs on
# cgroup v1 by default (deploy/README.md, "The cluster test").
KUBERNETES_VERSION="v1.34.4"
COREDNS_VERSION="v1.14.7"
# Debian 12's nats-server is 2.9.10 (2022): a replica restarted with an empty store could stay
# behind its stream for good (a stalled catchup, seen in CI), fixed in later releases. The one
# built here is what the local stack, every test tier and the cluster test run.
NATS_SERVER_VERSION="v2.15.3"
# The cluster test's DNS needs only these (a plugin chain in this order; the full CoreDNS would
# build every cloud provider's SDK too, several times the work).
COREDNS_PLUGINS="bind errors cache kubernetes forward"
# The pod sandbox ("pause") image, built here from the few lines of Go below (argus_pause_image).
PAUSE_VERSION="1"
# Used only when no installed Go is at least the version a tool's go.mod asks for (Helm
# v3.22's: 1.26).
GO_FALLBACK_VERSION="1.26.11"
GO_PROXY_URL="${GOPROXY_URL:-https://proxy.golang.org}"

if [ -z "${ARGUS_CACHE:-}" ]; then
  if [ "$(id -u)" -eq 0 ]; then ARGUS_CACHE=/var/cache/argus; else ARGUS_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/argus"; fi
fi

# The Kubernetes programs the cluster test runs, all from one build of k8s.io/kubernetes.
ARGUS_KUBE_PROGRAMS="kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl"

_argus_tools_log() { echo "tools: $*" >&2; }

# version_ge A B: A >= B for dotted versions (leading "go"/"v" ignored).
_argus_version_ge() {
  local a="${1#go}" b="${2#go}"
  a="${a#v}" b="${b#v}"
  [ "$(printf '%s\n%s\n' "$a" "$b" | sort -V | head -n1)" = "$b" ]
}

# _argus_once LOCK TEST PRODUCT CMD...: runs CMD to make PRODUCT unless `[ TEST PRODUCT ]`
# already holds, one caller at a time per LOCK: a second caller waits for the first one's
# product instead of writing the same files beside it (two writing one `.part` lost a cold
# machine's tools job to the other's rename; replacing a Go toolchain would pull it from under
# a build that runs on it). Succeeds only if PRODUCT is there after.
_argus_once() {
  local lock="$1" test="$2" product="$3"
  shift 3
  [ "$test" "$product" ] && return 0
  mkdir -p "$ARGUS_CACHE/log"
  (
    flock 9
    [ "$test" "$product" ] && exit 0
    "$@"
    # errexit does not reach into a subshell on the left of `||`: the product says.
    [ "$test" "$product" ]
  ) 9>"$ARGUS_CACHE/log/$lock.lock"
}

# argus_go MIN: prints a `go` binary of at least version MIN (e.g. 1.24.0): the installed one
# (GO, PATH, /usr/local/go) when new enough, else the pinned distribution from the Go module
# proxy, unpacked once into the cache.
argus_go() {
  local min="$1" cand v
  for cand in "${GO:-}" "$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go; do
    [ -n "$cand" ] && [ -x "$cand" ] || continue
    v="$(GOTOOLCHAIN=local "$cand" env GOVERSION 2>/dev/null || true)"
    if [ -n "$v" ] && _argus_version_ge "$v" "$min"; then
      echo "$cand"
      return 0
    fi
  done
  _argus_version_ge "$GO_FALLBACK_VERSION" "$min" || {
    _argus_tools_log "GO_FALLBACK_VERSION $GO_FALLBACK_VERSION is older than the $min needed"
    return 1
  }
  local dir="$ARGUS_CACHE/go/toolchain-$GO_FALLBACK_VERSION"
  _argus_once go-toolchain -x "$dir/bin/go" _argus_fetch_go "$dir" || return 1
  echo "$dir/bin/go"
}

# _argus_fetch_go DIR: the pinned Go distribution from the Go module proxy, unpacked into DIR.
_argus_fetch_go() {
  local dir="$1" mod="v0.0.1-go$GO_FALLBACK_VERSION.linux-amd64" tmp
  _argus_tools_log "fetching Go $GO_FALLBACK_VERSION from the Go module proxy (golang.org/toolchain@$mod)"
  tmp="$(mktemp -d)"
  curl -fsSL --retry 3 -o "$tmp/go.zip" "$GO_PROXY_URL/golang.org/toolchain/@v/$mod.zip" || {
    rm -rf "$tmp"
    return 1
  }
  command -v unzip >/dev/null 2>&1 || _argus_apt_install unzip
  unzip -q "$tmp/go.zip" -d "$tmp/x"
  # Module zips keep no file modes.
  chmod -R a+rX "$tmp/x" && chmod a+x "$tmp/x/golang.org/toolchain@$mod"/bin/* "$tmp/x/golang.org/toolchain@$mod"/pkg/tool/*/*
  mkdir -p "$(dirname "$dir")"
  rm -rf "$dir" && mv "$tmp/x/golang.org/toolchain@$mod" "$dir"
  rm -rf "$tmp"
}

_argus_apt_install() {
  if [ "$(id -u)" -ne 0 ]; then
    _argus_tools_log "missing $*; install them (Debian: sudo apt-get install -y $*)"
    return 1
  fi
  _argus_tools_log "installing $* from Debian packages"
  apt-get update -qq -o DPkg::Lock::Timeout=600
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends "$@" >/dev/null
}

# _argus_go_run [NAME=VALUE...] GO ARGS...: runs Go with its caches in $ARGUS_CACHE, static.
_argus_go_run() {
  env GOMODCACHE="$ARGUS_CACHE/go/mod" GOCACHE="$ARGUS_CACHE/go/cache" GOFLAGS="-modcacherw" \
    GOTOOLCHAIN=local CGO_ENABLED=0 GOPROXY="$GO_PROXY_URL" "$@"
}

# _argus_go_of MODULE VERSION: a Go at least as new as that module's go.mod asks for.
_argus_go_of() {
  local wanted
  wanted="$(curl -fsSL --retry 3 "$GO_PROXY_URL/$1/@v/$2.mod" | sed -n 's/^go \([0-9.]*\)$/\1/p')"
  argus_go "${wanted:-1.22.0}"
}

_argus_build_helm() {
  local go bin="$ARGUS_CACHE/bin/helm-$HELM_VERSION" log="$ARGUS_CACHE/log/helm-$HELM_VERSION.log"
  local pkg="helm.sh/helm/v3" tmp
  go="$(_argus_go_of "$pkg" "$HELM_VERSION")" || return 1
  local ldflags="-s -w -X $pkg/internal/version.version=$HELM_VERSION"
  ldflags+=" -X $pkg/pkg/lint/rules.k8sVersionMajor=$HELM_K8S_MAJOR -X $pkg/pkg/lint/rules.k8sVersionMinor=$HELM_K8S_MINOR"
  ldflags+=" -X $pkg/pkg/chartutil.k8sVersionMajor=$HELM_K8S_MAJOR -X $pkg/pkg/chartutil.k8sVersionMinor=$HELM_K8S_MINOR"
  tmp="$(mktemp -d)"
  if ! _argus_go_run GOBIN="$tmp" "$go" install -ldflags "$ldflags" "$pkg/cmd/helm@$HELM_VERSION" >"$log" 2>&1; then
    rm -rf "$tmp"
    return 1
  fi
  mv "$tmp/helm" "$bin" && rm -rf "$tmp"
}

_argus_build_nats_server() {
  local go bin="$ARGUS_CACHE/bin/nats-server-$NATS_SERVER_VERSION" tmp
  local mod="github.com/nats-io/nats-server/v2" log="$ARGUS_CACHE/log/nats-server-$NATS_SERVER_VERSION.log"
  go="$(_argus_go_of "$mod" "$NATS_SERVER_VERSION")" || return 1
  tmp="$(mktemp -d)"
  if ! _argus_go_run GOBIN="$tmp" "$go" install -trimpath -ldflags "-s -w" "$mod@$NATS_SERVER_VERSION" >"$log" 2>&1; then
    rm -rf "$tmp"
    return 1
  fi
  mv "$tmp/nats-server" "$bin" && rm -rf "$tmp"
}

# CoreDNS with COREDNS_PLUGINS only: a main package of their imports, as CoreDNS documents for
# external plugins.
_argus_coredns_key() { printf '%s' "$COREDNS_PLUGINS" | sha256sum | cut -c1-8; }
_argus_build_coredns() {
  local v="$COREDNS_VERSION" mod="github.com/coredns/coredns" go dir plugin
  local version="$v-$(_argus_coredns_key)"
  local log="$ARGUS_CACHE/log/coredns-$version.log"
  go="$(_argus_go_of "$mod" "$v")" || return 1
  dir="$ARGUS_CACHE/go/build-coredns-$version"
  mkdir -p "$dir"
  # `go mod tidy` raises the go line to what CoreDNS asks for.
  printf 'module argus.local/coredns-build\n\ngo 1.22\n\nrequire %s %s\n' "$mod" "$v" >"$dir/go.mod"
  {
    printf 'package main\n\nimport (\n\t"%s/coremain"\n' "$mod"
    for plugin in $COREDNS_PLUGINS; do printf '\t_ "%s/plugin/%s"\n' "$mod" "$plugin"; done
    printf ')\n\nfunc main() { coremain.Run() }\n'
  } >"$dir/main.go"
  (
    cd "$dir" &&
      _argus_go_run "$go" mod tidy &&
      _argus_go_run "$go" build -trimpath -ldflags "-s -w -X $mod/coremain.GitCommit=$v" -o "$dir/coredns" .
  ) >"$log" 2>&1 || return 1
  mv "$dir/coredns" "$ARGUS_CACHE/bin/coredns-$version"
}

# Kubernetes is not `go install`-able (its go.mod replaces the staging modules with local
# paths), so a throw-away module requires k8s.io/kubernetes and points each staging module at
# its published v0.<minor>.<patch>, read from that release's own go.mod.
_argus_build_kubernetes() {
  local prog v="$KUBERNETES_VERSION" log="$ARGUS_CACHE/log/kubernetes-$KUBERNETES_VERSION.log"
  local staging="v0.${v#v1.}" mod dir go goversion
  mod="$(curl -fsSL --retry 3 "$GO_PROXY_URL/k8s.io/kubernetes/@v/$v.mod")" || return 1
  goversion="$(sed -n 's/^go \([0-9.]*\)$/\1/p' <<<"$mod")"
  go="$(argus_go "$goversion")" || return 1
  dir="$ARGUS_CACHE/go/build-kubernetes-$v"
  mkdir -p "$dir"
  {
    echo "module argus.local/kubernetes-build"
    echo "go $goversion"
    sed -n 's/^godebug .*/&/p' <<<"$mod"
    echo "require k8s.io/kubernetes $v"
    echo "replace ("
    sed -n 's#^\t\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\t\1 => \1 '"$staging"'#p' <<<"$mod"
    echo ")"
  } >"$dir/go.mod"
  # A file that names the programs, so that `go mod tidy` resolves what they import
  # (build-tagged: programs cannot be imported).
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    for prog in $ARGUS_KUBE_PROGRAMS; do printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$prog"; done
    printf ')\n'
  } >"$dir/tools.go"
  local pkg="k8s.io/component-base/version" cpkg="k8s.io/client-go/pkg/version" minor="${v#v1.}"
  minor="${minor%%.*}"
  local ldflags="-s -w" p
  for p in "$pkg" "$cpkg"; do
    ldflags+=" -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    ldflags+=" -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  local out="$dir/out" pkgs=()
  mkdir -p "$out"
  for prog in $ARGUS_KUBE_PROGRAMS; do pkgs+=("k8s.io/kubernetes/cmd/$prog"); done
  (
    cd "$dir" &&
      _argus_go_run "$go" mod tidy &&
      _argus_go_run "$go" build -trimpath -ldflags "$ldflags" -o "$out/" "${pkgs[@]}"
  ) >"$log" 2>&1 || return 1
  for prog in $ARGUS_KUBE_PROGRAMS; do mv "$out/$prog" "$ARGUS_CACHE/bin/$prog-$v"; done
}

# _argus_build_logged NAME VERSION BUILDER: runs BUILDER, saying what it builds, how long it
# took, and the end of its log when it fails.
_argus_build_logged() {
  local name="$1" version="$2" builder="$3" started=$SECONDS what="$1"
  [ "$builder" = _argus_build_kubernetes ] && what="kubernetes ($ARGUS_KUBE_PROGRAMS)"
  _argus_tools_log "building $what $version from the Go module proxy (log: $ARGUS_CACHE/log/)"
  mkdir -p "$ARGUS_CACHE/bin"
  if ! "$builder"; then
    tail -n 30 "$ARGUS_CACHE/log/"*"-$version.log" >&2 2>/dev/null || true
    _argus_tools_log "building $what $version failed"
    return 1
  fi
  _argus_tools_log "built $what $version in $((SECONDS - started))s"
}

# argus_tool NAME: the path of the pinned NAME (helm, coredns, nats-server, or one of
# ARGUS_KUBE_PROGRAMS), built on first use.
argus_tool() {
  local name="$1" version builder
  case "$name" in
    helm) version="$HELM_VERSION" builder=_argus_build_helm ;;
    coredns) version="$COREDNS_VERSION-$(_argus_coredns_key)" builder=_argus_build_coredns ;;
    nats-server) version="$NATS_SERVER_VERSION" builder=_argus_build_nats_server ;;
    kube-* | kubelet | kubectl) version="$KUBERNETES_VERSION" builder=_argus_build_kubernetes ;;
    *)
      _argus_tools_log "no pinned tool $name"
      return 1
      ;;
  esac
  local bin="$ARGUS_CACHE/bin/$name-$version"
  # One build at a time per builder (the Kubernetes one makes every program).
  _argus_once "${builder#_argus_build_}" -x "$bin" _argus_build_logged "$name" "$version" "$builder" || return 1
  echo "$bin"
}

# argus_pause_image: the path of an OCI archive of localhost/argus-pause:$PAUSE_VERSION, the
# pod sandbox image: a static program that sleeps until SIGINT/SIGTERM and reaps children, on
# an empty root (no registry holds one we can reach). Built once into the cache.
argus_pause_image() {
  local archive="$ARGUS_CACHE/images/argus-pause-$PAUSE_VERSION.tar"
  _argus_once pause -f "$archive" _argus_build_pause_image "$archive" || return 1
  echo "$archive"
}

_argus_build_pause_image() {
  local archive="$1" go work
  mkdir -p "$(dirname "$archive")"
  go="$(argus_go 1.22.0)" || return 1
  work="$(mktemp -d)"
  mkdir -p "$work/src" "$work/layer" "$work/oci/blobs/sha256"
  cat >"$work/src/main.go" <<'GO'
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
GO
  printf 'module pause\n\ngo 1.22\n' >"$work/src/go.mod"
  (cd "$work/src" && _argus_go_run "$go" build -trimpath -ldflags "-s -w" -o "$work/layer/pause" .) || {
    rm -rf "$work"
    return 1
  }
  local blobs="$work/oci/blobs/sha256" diff layer config manifest
  tar --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/layer" -cf "$work/layer.tar" pause
  diff="$(sha256sum "$work/layer.tar" | cut -d' ' -f1)"
  gzip -n -c "$work/layer.tar" >"$work/layer.tgz"
  layer="$(sha256sum "$work/layer.tgz" | cut -d' ' -f1)"
  mv "$work/layer.tgz" "$blobs/$layer"
  printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/pause"],"User":"65535:65535"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$diff" >"$work/config.json"
  config="$(sha256sum "$work/config.json" | cut -d' ' -f1)"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%d}]}' \
    "$config" "$(stat -c %s "$work/config.json")" "$layer" "$(stat -c %s "$blobs/$layer")" >"$work/manifest.json"
  manifest="$(sha256sum "$work/manifest.json" | cut -d' ' -f1)"
  mv "$work/config.json" "$blobs/$config"
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%d,"annotations":{"io.containerd.image.name":"localhost/argus-pause:%s","org.opencontainers.image.ref.name":"%s"}}]}' \
    "$manifest" "$(stat -c %s "$work/manifest.json")" "$PAUSE_VERSION" "$PAUSE_VERSION" >"$work/oci/index.json"
  mv "$work/manifest.json" "$blobs/$manifest"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$work/oci/oci-layout"
  tar --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/oci" -cf "$archive.part" oci-layout index.json blobs
  mv "$archive.part" "$archive"
  rm -rf "$work"
}
