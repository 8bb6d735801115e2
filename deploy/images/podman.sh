#!/usr/bin/env bash
# Podman for Argus's image builds and container test stacks. Source it, then call:
#   argus_podman_install [command[=package]…]      podman and what its networking needs, and
#                                                   those commands, from Debian (as root), each
#                                                   only when missing (a path: that file)
#   argus_podman_service                            podman's Docker API; exports DOCKER_HOST
# Sourcing it points CONTAINERS_CONF at deploy/images/containers.conf (the fixes this machine
# kind needs: runc, bounded ulimits, no systemd).

ARGUS_PODMAN_SOCKET=${ARGUS_PODMAN_SOCKET:-/run/podman/podman.sock}
# The machine's CA bundle: the only one that verifies the registries we reach (a TLS proxy's CA
# may be in it). Builds get it bound in (deploy/images/build.sh).
ARGUS_CA_BUNDLE=${ARGUS_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
export CONTAINERS_CONF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/containers.conf"

argus_podman_install() {
  local need=() wanted have
  # runc (crun refuses hybrid cgroups), curl (the API's probe below), iptables (published
  # ports), dnsname (containers find each other by name on a network).
  for wanted in podman runc curl iptables \
    /usr/lib/cni/dnsname=golang-github-containernetworking-plugin-dnsname "$@"; do
    have="${wanted%%=*}"
    if [ "${have#/}" != "$have" ]; then
      [ -e "$have" ] && continue
    else
      command -v "$have" >/dev/null 2>&1 && continue
    fi
    need+=("${wanted#*=}")
  done
  [ ${#need[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "argus: missing ${need[*]}; install them as root (Debian: apt-get install -y ${need[*]})" >&2
    return 1
  fi
  echo "argus: installing ${need[*]} from Debian packages" >&2
  # Another job may hold the dpkg lock (unattended upgrades, a parallel install): wait for it.
  apt-get update -qq -o DPkg::Lock::Timeout=600
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=600 "${need[@]}" >/dev/null
}

# Whether the Docker API at the socket answers (curl is in Debian's minimal installs; bash's
# /dev/tcp cannot speak to a unix socket).
argus_podman_service_answers() {
  [ -S "$ARGUS_PODMAN_SOCKET" ] &&
    curl -fsS --max-time 5 --unix-socket "$ARGUS_PODMAN_SOCKET" http://d/_ping >/dev/null 2>&1
}

# A running service keeps the CONTAINERS_CONF and the directory of the checkout that started
# it: once that checkout is removed, it still answers the ping but fails to start anything
# ("write child: broken pipe"). Such a service is stopped, and one started from here.
argus_podman_service_stale() {
  local pid conf
  pid=$(cat "$ARGUS_PODMAN_SOCKET.pid" 2>/dev/null) ||
    # Started before the pid was kept: the socket's listener.
    pid=$(ss -xlpn 2>/dev/null | grep -F " $ARGUS_PODMAN_SOCKET " | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
  [ -n "$pid" ] && [ -r "/proc/$pid/environ" ] || return 1
  ARGUS_PODMAN_STALE_PID=$pid
  conf=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^CONTAINERS_CONF=//p')
  [ -n "$conf" ] && [ ! -e "$conf" ] && return 0
  case "$(readlink "/proc/$pid/cwd")" in *" (deleted)") return 0 ;; esac
  return 1
}

argus_podman_service() {
  export DOCKER_HOST="unix://$ARGUS_PODMAN_SOCKET"
  if argus_podman_service_stale; then
    echo "argus: podman's API service belongs to a removed checkout; starting a new one" >&2
    kill "$ARGUS_PODMAN_STALE_PID" 2>/dev/null
    sleep 1
  elif argus_podman_service_answers; then
    return 0
  fi
  mkdir -p "$(dirname "$ARGUS_PODMAN_SOCKET")"
  rm -f "$ARGUS_PODMAN_SOCKET"
  # --time=0: it serves until stopped, not only while a client is connected. Detached from this
  # shell's session so that it outlives the script that started it (CI's later steps use it).
  setsid podman system service --time=0 "unix://$ARGUS_PODMAN_SOCKET" \
    >>/var/log/argus-podman-service.log 2>&1 </dev/null &
  echo $! >"$ARGUS_PODMAN_SOCKET.pid"
  local i
  for i in $(seq 1 100); do
    argus_podman_service_answers && return 0
    sleep 0.1
  done
  echo "argus: podman's API did not answer at $ARGUS_PODMAN_SOCKET (see /var/log/argus-podman-service.log)" >&2
  return 1
}
