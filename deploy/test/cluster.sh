#!/usr/bin/env bash
# The Helm chart on a real single-node Kubernetes: brings up a cluster from pinned versions
# (deploy/tools.sh: Kubernetes built from the Go module proxy, cached by version outside the
# clone), loads the images from podman, runs Postgres and a 3-node NATS JetStream cluster as
# pods, installs deploy/helm/argus with ci/cluster-values.yaml and checks what a user would see:
#
#   - every object of every rendering (the defaults and each ci/*.yaml) is accepted by the API
#     server (kubectl apply --dry-run=server --validate=strict);
#   - helm install; helm test --logs shows the test pod's output;
#   - the public API and OTLP (HTTP and gRPC) through the gateway Service;
#   - a service at 2 replicas shares the work: both serve, one relay is active, both consume;
#   - a NATS pod deleted during 60 s of writes: nothing lost, no duplicate effect, events flow
#     again within 15 s;
#   - helm upgrade with a changed value rolls every Deployment without a failed request from a
#     client polling through the gateway;
#   - helm uninstall leaves nothing of the release but its kept Secret.
#
# Then it tears the cluster down (also on failure or Ctrl-C) and restores every kernel setting
# that changed while it ran. Runs as root on a Debian 12 machine (it installs etcd-server,
# containerd, iptables, conntrack and the CNI plugins from Debian when missing); the images
# must be in podman's store (deploy/images/build.sh builds them).
#
#   deploy/test/cluster.sh                    # exit 0 only when every check passes
#   ARGUS_CLUSTER_KEEP=1 deploy/test/cluster.sh   # leave the cluster up after the checks
#   deploy/test/cluster.sh up                 # only bring it up, with the images loaded
#   deploy/test/cluster.sh checks             # run the checks again on a cluster left up
#   deploy/test/cluster.sh down               # tear down a cluster left up
#   deploy/test/cluster.sh tools              # only build the pinned tools (warm the cache)
#
# Environment: ARGUS_IMAGE, POSTGRES_IMAGE, NATS_IMAGE (defaults below), ARGUS_CACHE (pinned
# tools, deploy/tools.sh), ARGUS_CLUSTER_DIR (the cluster's state, removed at the end).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=deploy/tools.sh
. "$root/deploy/tools.sh"

# ---- Settings, in one place -------------------------------------------------------------------
ARGUS_IMAGE="${ARGUS_IMAGE:-localhost/argus:dev}"
POSTGRES_IMAGE="${POSTGRES_IMAGE:-localhost/argus-postgres:15}"
NATS_IMAGE="${NATS_IMAGE:-localhost/argus-nats:dev}"
PAUSE_IMAGE="localhost/argus-pause:$PAUSE_VERSION"
CLUSTER_DIR="${ARGUS_CLUSTER_DIR:-/var/lib/argus-cluster}"
RUN_DIR=/run/argus-cluster
NODE_NAME=argus-node
BRIDGE=argus0
# Ranges no other stack here uses (podman's default network is 10.88.0.0/16); checked first.
POD_CIDR=10.244.0.0/24
POD_GATEWAY=10.244.0.1
SERVICE_CIDR=10.96.0.0/24
# Ports below the ephemeral range (32768+), where test stacks pick theirs; checked first.
PORT_ETCD=12379
PORT_ETCD_PEER=12380
PORT_APISERVER=16443
PORT_KCM=20257
PORT_SCHEDULER=20259
PORT_KUBELET=20250
PORT_KUBELET_HEALTHZ=20248
PORT_PROXY_HEALTHZ=20256
PORT_PROXY_METRICS=20249
# CoreDNS answers pods on the bridge address, port 53 (resolv.conf has no port).
PORT_DNS=53
RELEASE=argus
NS_ARGUS=argus
NS_DB=argus-db
NS_NATS=argus-nats
VALUES="$root/deploy/helm/argus/ci/cluster-values.yaml"
CHART="$root/deploy/helm/argus"

CERTS="$CLUSTER_DIR/pki"
LOGS="$CLUSTER_DIR/logs"
CONTAINERD_SOCK="$RUN_DIR/containerd/containerd.sock"
# containerd's images outlive the cluster, as a cache: unpacking the Argus image's many small
# files (and deleting them) would otherwise take a minute each run. Its containers do not.
CONTAINERD_ROOT="$ARGUS_CACHE/containerd"
export KUBECONFIG="$CLUSTER_DIR/admin.kubeconfig"

# fd 9 is the run's own stderr, for what must be seen even inside wait_for (which silences its
# command).
exec 9>&2
log() { echo "cluster: $*" >&9; }
die() {
  log "$*"
  exit 1
}

# ---- Timing: every step prints its time, and the summary lists them all ------------------------
STEP_TIMES=()
step() {
  local name=$1 started=$SECONDS
  shift
  echo "== cluster: $name"
  "$@"
  local took=$((SECONDS - started))
  STEP_TIMES+=("$(printf '%-44s %4d s' "$name" "$took")")
  echo "== cluster: $name took $took s"
}

# ---- Checks: each prints ok/FAIL; the run fails when one did ---------------------------------
CHECKS_PASSED=0
CHECKS_FAILED=0
pass() {
  CHECKS_PASSED=$((CHECKS_PASSED + 1))
  echo "ok   $*"
}
fail() {
  CHECKS_FAILED=$((CHECKS_FAILED + 1))
  echo "FAIL $*"
}

# wait_for WHAT SECONDS COMMAND...: retries COMMAND every half second until it succeeds.
wait_for() {
  local what=$1 timeout=$2 end
  shift 2
  end=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$end" ]; then
      log "timed out after ${timeout}s waiting for $what"
      return 1
    fi
    sleep 0.5
  done
}

# ---- Processes this script starts: by pid file, never by name ---------------------------------
start_bg() {
  local name=$1
  shift
  # A restarted process keeps its predecessor's log beside its own.
  [ -s "$LOGS/$name.log" ] && mv "$LOGS/$name.log" "$LOGS/$name.$(date +%s%N).log"
  "$@" >"$LOGS/$name.log" 2>&1 &
  echo $! >"$RUN_DIR/pids/$name"
}

# stop_bg NAME [SECONDS]: SIGTERM, then SIGKILL after SECONDS (default 10).
stop_bg() {
  local name=$1 wait=${2:-10} pid i
  [ -f "$RUN_DIR/pids/$name" ] || return 0
  pid="$(cat "$RUN_DIR/pids/$name")"
  if kill -TERM "$pid" 2>/dev/null; then
    for i in $(seq 1 $((wait * 4))); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$RUN_DIR/pids/$name"
}

# ---- Preflight: packages, ports, address ranges -------------------------------------------------
apt_install() {
  log "installing $* from Debian packages"
  apt-get update -qq -o DPkg::Lock::Timeout=600
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=600 "$@" >/dev/null
}

preflight() {
  local need=()
  command -v etcd >/dev/null || need+=(etcd-server)
  command -v containerd >/dev/null || need+=(containerd)
  command -v runc >/dev/null || need+=(runc)
  command -v iptables >/dev/null || need+=(iptables)
  command -v conntrack >/dev/null || need+=(conntrack)
  [ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
  command -v openssl >/dev/null || need+=(openssl)
  command -v curl >/dev/null || need+=(curl)
  [ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
  command -v podman >/dev/null || die "podman is missing: build the images first (deploy/images/build.sh)"

  # Another cluster of ours, left behind by a killed run: tear it down first.
  if [ -d "$RUN_DIR/pids" ] || [ -d "$CLUSTER_DIR" ]; then
    log "a previous run left state in $RUN_DIR or $CLUSTER_DIR: tearing it down"
    teardown
  fi

  local port busy=()
  for port in $PORT_ETCD $PORT_ETCD_PEER $PORT_APISERVER $PORT_KCM $PORT_SCHEDULER $PORT_KUBELET \
    $PORT_KUBELET_HEALTHZ $PORT_PROXY_HEALTHZ $PORT_PROXY_METRICS; do
    if ss -ltnH "sport = :$port" | grep -q .; then busy+=("$port"); fi
  done
  if ss -ltunH "sport = :$PORT_DNS" | awk '{print $5}' | grep -Eq "^(\*|0\.0\.0\.0|\[::\]|$POD_GATEWAY):"; then
    busy+=("$PORT_DNS on $POD_GATEWAY")
  fi
  [ ${#busy[@]} -eq 0 ] || die "ports in use: ${busy[*]} (change them under 'Settings' in $0)"
  local cidr
  for cidr in $POD_CIDR $SERVICE_CIDR; do
    if ip -4 route show | awk '{print $1}' | grep -qx "$cidr" || ip -4 route get "${cidr%/*}" 2>/dev/null | grep -q " dev $BRIDGE"; then
      die "$cidr is already routed on this machine (change it under 'Settings' in $0)"
    fi
  done
  ip link show "$BRIDGE" >/dev/null 2>&1 && die "interface $BRIDGE exists (a cluster still up? $0 down)"
  for image in "$ARGUS_IMAGE" "$POSTGRES_IMAGE" "$NATS_IMAGE"; do
    podman image exists "$image" || die "image $image is not in podman's store (deploy/images/build.sh)"
  done
  NODE_IP="$(ip -4 route get 1.1.1.1 | sed -n 's/.* src \([0-9.]*\).*/\1/p')"
  [ -n "$NODE_IP" ] || die "no node address (the kubelet refuses loopback)"
}

# ---- Kernel settings: snapshot before, restore what changed -------------------------------------
# Counters and other values the kernel moves by itself.
SYSCTL_VOLATILE='^(kernel\.random\.|kernel\.ns_last_pid|kernel\.pty\.nr|fs\.(dentry-state|inode-nr|inode-state|file-nr|aio-nr|quota\.)|net\.netfilter\.nf_conntrack_count|kernel\.sched_|kernel\.tainted|net\.ipv4\.tcp_fastopen_key|vm\.stat_)'
sysctl_snapshot() {
  sysctl -a 2>/dev/null | grep -Ev "$SYSCTL_VOLATILE" | sort >"$1" || true
}

# Restores each setting whose value differs from the snapshot taken before the cluster started
# (settings of interfaces that went away excepted).
restore_sysctls() {
  local before="$RUN_DIR/sysctl.before" now key value restored=()
  [ -f "$before" ] || return 0
  now="$(mktemp)"
  sysctl_snapshot "$now"
  # The snapshot's lines whose key is still there with another value.
  while IFS= read -r line; do
    key="${line%% = *}"
    value="${line#* = }"
    if sysctl -q -w "$key=$value" >/dev/null 2>&1; then restored+=("$key"); fi
  done < <(awk -F ' = ' '
    # Keys with one value each (a few list several, one per line: kernel.core_modes).
    NR == FNR { n[$1]++; now[$1] = $0; next }
    { b[$1]++; was[$1] = $0 }
    END { for (k in was) if (b[k] == 1 && n[k] == 1 && now[k] != was[k]) print was[k] }' "$now" "$before")
  rm -f "$now"
  if [ ${#restored[@]} -gt 0 ]; then
    log "restored ${#restored[@]} kernel settings: ${restored[*]}"
  else
    log "no kernel setting to restore"
  fi
  rm -f "$before"
}

# ---- Certificates and kubeconfigs (openssl; ECDSA P-256) -------------------------------------
# cert NAME CN [O] [SANS]: a key and a certificate signed by the cluster CA.
cert() {
  local name=$1 cn=$2 org=${3:-} sans=${4:-} subj="/CN=$2"
  [ -n "$org" ] && subj="/O=$org/CN=$cn"
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$CERTS/$name.key" -subj "$subj" -out "$CERTS/$name.csr" 2>/dev/null
  {
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=serverAuth,clientAuth"
    [ -n "$sans" ] && echo "subjectAltName=$sans"
  } >"$CERTS/$name.ext"
  openssl x509 -req -in "$CERTS/$name.csr" -CA "$CERTS/ca.crt" -CAkey "$CERTS/ca.key" \
    -CAcreateserial -days 2 -extfile "$CERTS/$name.ext" -out "$CERTS/$name.crt" 2>/dev/null
}

kubeconfig() {
  local name=$1 file="$CLUSTER_DIR/$1.kubeconfig"
  "$KUBECTL" config set-cluster argus --server="https://127.0.0.1:$PORT_APISERVER" \
    --certificate-authority="$CERTS/ca.crt" --embed-certs --kubeconfig="$file" >/dev/null
  "$KUBECTL" config set-credentials "$name" --client-certificate="$CERTS/$name.crt" \
    --client-key="$CERTS/$name.key" --embed-certs --kubeconfig="$file" >/dev/null
  "$KUBECTL" config set-context argus --cluster=argus --user="$name" --kubeconfig="$file" >/dev/null
  "$KUBECTL" config use-context argus --kubeconfig="$file" >/dev/null
}

make_pki() {
  mkdir -p "$CERTS"
  openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -keyout "$CERTS/ca.key" -subj "/CN=argus-cluster-ca" -out "$CERTS/ca.crt" 2>/dev/null
  local svc_ip
  svc_ip="$(first_service_ip)"
  cert apiserver kube-apiserver "" \
    "IP:127.0.0.1,IP:$NODE_IP,IP:$svc_ip,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
  cert kubelet "system:node:$NODE_NAME" system:nodes "IP:$NODE_IP,DNS:$NODE_NAME"
  # The control plane's own components and the test's tools act as cluster admins: a throw-away
  # cluster, and fewer moving parts than their narrow roles.
  cert admin argus-admin system:masters
  cert controller-manager system:kube-controller-manager system:masters
  cert scheduler system:kube-scheduler system:masters
  cert kube-proxy system:kube-proxy system:node-proxier
  cert coredns coredns system:masters
  openssl ecparam -genkey -name prime256v1 -noout -out "$CERTS/sa.key" 2>/dev/null
  openssl ec -in "$CERTS/sa.key" -pubout -out "$CERTS/sa.pub" 2>/dev/null
  local k
  for k in admin controller-manager scheduler kubelet kube-proxy coredns; do kubeconfig "$k"; done
}

first_service_ip() {
  local base=${SERVICE_CIDR%/*}
  echo "${base%.*}.$((${base##*.} + 1))"
}

# ---- The control plane -------------------------------------------------------------------------
start_control_plane() {
  # On tmpfs: a throw-away cluster needs no durability, and etcd 3.4 has no --unsafe-no-fsync.
  mkdir -p "$RUN_DIR/etcd"
  mount -t tmpfs -o size=512m,mode=0700 argus-etcd "$RUN_DIR/etcd"
  start_bg etcd etcd --name argus --data-dir "$RUN_DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$PORT_ETCD" --advertise-client-urls "http://127.0.0.1:$PORT_ETCD" \
    --listen-peer-urls "http://127.0.0.1:$PORT_ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$PORT_ETCD_PEER" \
    --initial-cluster "argus=http://127.0.0.1:$PORT_ETCD_PEER" --quota-backend-bytes 1073741824
  wait_for etcd 30 curl -fsS "http://127.0.0.1:$PORT_ETCD/health"

  start_bg kube-apiserver "$(argus_tool kube-apiserver)" \
    --etcd-servers "http://127.0.0.1:$PORT_ETCD" \
    --bind-address 127.0.0.1 --secure-port "$PORT_APISERVER" --advertise-address "$NODE_IP" \
    --service-cluster-ip-range "$SERVICE_CIDR" \
    --authorization-mode Node,RBAC --anonymous-auth=false \
    --client-ca-file "$CERTS/ca.crt" \
    --tls-cert-file "$CERTS/apiserver.crt" --tls-private-key-file "$CERTS/apiserver.key" \
    --kubelet-client-certificate "$CERTS/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$CERTS/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$CERTS/ca.crt" --kubelet-preferred-address-types InternalIP \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$CERTS/sa.pub" --service-account-signing-key-file "$CERTS/sa.key" \
    --enable-admission-plugins NodeRestriction --profiling=false
  wait_for kube-apiserver 120 "$KUBECTL" get --raw /readyz

  start_bg kube-controller-manager "$(argus_tool kube-controller-manager)" \
    --kubeconfig "$CLUSTER_DIR/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$CLUSTER_DIR/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$CLUSTER_DIR/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$PORT_KCM" --leader-elect=false \
    --cluster-signing-cert-file "$CERTS/ca.crt" --cluster-signing-key-file "$CERTS/ca.key" \
    --root-ca-file "$CERTS/ca.crt" --service-account-private-key-file "$CERTS/sa.key" \
    --service-cluster-ip-range "$SERVICE_CIDR" --profiling=false
  start_bg kube-scheduler "$(argus_tool kube-scheduler)" \
    --kubeconfig "$CLUSTER_DIR/scheduler.kubeconfig" \
    --authentication-kubeconfig "$CLUSTER_DIR/scheduler.kubeconfig" \
    --authorization-kubeconfig "$CLUSTER_DIR/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$PORT_SCHEDULER" --leader-elect=false --profiling=false
}

# ---- The node: containerd, the CNI bridge, CoreDNS, the kubelet, kube-proxy ---------------------
start_containerd() {
  mkdir -p "$CLUSTER_DIR/containerd" "$RUN_DIR/containerd" "$CLUSTER_DIR/cni/net.d"
  cat >"$CLUSTER_DIR/containerd/config.toml" <<EOF
version = 2
root = "$CONTAINERD_ROOT"
state = "$RUN_DIR/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$RUN_DIR/containerd/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$CLUSTER_DIR/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # The VM forbids lowering oom_score_adj: without this every sandbox fails to start.
  restrict_oom_score_adj = true
  enable_selinux = false
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$CLUSTER_DIR/cni/net.d"
EOF
  # One bridge for the node's pods, no masquerading (pods reach only the cluster and the host).
  cat >"$CLUSTER_DIR/cni/net.d/10-argus.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "argus-cluster",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$CLUSTER_DIR/cni/ipam",
        "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$POD_GATEWAY" }]],
        "routes": [{ "dst": "0.0.0.0/0" }]
      }
    }
  ]
}
EOF
  start_bg containerd containerd --config "$CLUSTER_DIR/containerd/config.toml"
  wait_for containerd 30 ctr_ version
  # containerd answers before its CRI plugin has recovered its state, and a kubelet that connects
  # in that window exits ("server is not initialized yet"). The plugin logs this line last.
  wait_for "containerd's CRI plugin" 60 grep -q 'msg="Start streaming server"' "$LOGS/containerd.log"
}

ctr_() { ctr --address "$CONTAINERD_SOCK" --namespace k8s.io "$@"; }

# The bridge exists before the first pod, so that CoreDNS can listen on its address.
make_bridge() {
  ip link add "$BRIDGE" type bridge
  ip addr add "$POD_GATEWAY/${POD_CIDR#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
}

start_coredns() {
  cat >"$CLUSTER_DIR/Corefile" <<EOF
.:$PORT_DNS {
    bind $POD_GATEWAY
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $CLUSTER_DIR/coredns.kubeconfig
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 5
    }
    forward . /etc/resolv.conf
    cache 5
}
EOF
  start_bg coredns "$(argus_tool coredns)" -conf "$CLUSTER_DIR/Corefile"
}

start_kubelet() {
  mkdir -p "$CLUSTER_DIR/kubelet" "$CLUSTER_DIR/pod-logs"
  cat >"$CLUSTER_DIR/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: $PORT_KUBELET
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $PORT_KUBELET_HEALTHZ
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: $CERTS/ca.crt }
authorization:
  mode: Webhook
tlsCertFile: $CERTS/kubelet.crt
tlsPrivateKeyFile: $CERTS/kubelet.key
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
clusterDomain: cluster.local
clusterDNS: [$POD_GATEWAY]
podLogsDir: $CLUSTER_DIR/pod-logs
serializeImagePulls: false
# Images come from podman and are never pulled: nothing may collect them.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
# No KUBE-FIREWALL or canary chains in the machine's iptables: nothing here needs them.
makeIPTablesUtilChains: false
evictionHard:
  memory.available: 100Mi
  nodefs.available: 1%
  imagefs.available: 1%
  nodefs.inodesFree: 1%
EOF
  start_bg kubelet "$(argus_tool kubelet)" --config "$CLUSTER_DIR/kubelet.yaml" \
    --kubeconfig "$CLUSTER_DIR/kubelet.kubeconfig" --hostname-override "$NODE_NAME" \
    --node-ip "$NODE_IP" --root-dir "$CLUSTER_DIR/kubelet"
}

start_kube_proxy() {
  cat >"$CLUSTER_DIR/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: $CLUSTER_DIR/kube-proxy.kubeconfig
mode: iptables
clusterCIDR: $POD_CIDR
hostnameOverride: $NODE_NAME
healthzBindAddress: 127.0.0.1:$PORT_PROXY_HEALTHZ
metricsBindAddress: 127.0.0.1:$PORT_PROXY_METRICS
# Zeros leave the machine's conntrack settings alone; no route_localnet for localhost NodePorts.
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
  udpTimeout: 0s
  udpStreamTimeout: 0s
iptables:
  localhostNodePorts: false
nodePortAddresses: [$NODE_IP/32]
EOF
  start_bg kube-proxy "$(argus_tool kube-proxy)" --config "$CLUSTER_DIR/kube-proxy.yaml"
}

# keep_running NAME START: starts NAME again if it has exited (what systemd's Restart=always does
# for a kubelet elsewhere), showing why it exited; at most 3 times a run.
RESTARTS=0
keep_running() {
  local name=$1 start=$2
  kill -0 "$(cat "$RUN_DIR/pids/$name")" 2>/dev/null && return 0
  [ "$RESTARTS" -lt 3 ] || return 1
  RESTARTS=$((RESTARTS + 1))
  log "$name exited; its last lines, then it starts again:"
  tail -n 12 "$LOGS/$name.log" | cut -c1-400 >&9
  "$start"
}

node_ready() {
  keep_running kubelet start_kubelet
  keep_running kube-proxy start_kube_proxy
  [ "$("$KUBECTL" get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]
}

start_node() {
  # Pods reach Services through the host: DNAT, then forwarded back onto the bridge, where
  # bridged traffic must pass iptables too.
  [ -e /proc/sys/net/bridge ] || modprobe br_netfilter
  sysctl -q -w net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1
  start_containerd
  make_bridge
  start_coredns
  start_kubelet
  start_kube_proxy
  wait_for "node $NODE_NAME Ready" 120 node_ready
  wait_for "the default ServiceAccount" 60 "$KUBECTL" -n default get serviceaccount default
}

# ---- Images: podman -> OCI archive (cached by image id) -> containerd --------------------------
# An image whose podman id is already containerd's (a label says) is not moved again.
load_image() {
  local image=$1 id archive
  id="$(podman image inspect --format '{{.Id}}' "$image")"
  if [ -n "$(ctr_ images ls -q "name==$image,labels.\"org.argus.podman-id\"==$id")" ]; then
    return 0
  fi
  archive="$(mktemp -u "$RUN_DIR/image-XXXXXX.tar")"
  podman save --quiet --uncompressed --format oci-archive -o "$archive" "$image"
  ctr_ images import --base-name "${image%:*}" "$archive" >/dev/null
  rm -f "$archive"
  # podman may name the archive's image by its tag alone; containerd wants the full name.
  if ! ctr_ images ls -q | grep -qxF "$image"; then
    local imported
    imported="$(ctr_ images ls -q | grep -E "(^|/)${image##*/}\$|^${image##*:}\$" | head -n1)"
    [ -n "$imported" ] || die "image $image did not arrive in containerd"
    ctr_ images tag --force "$imported" "$image" >/dev/null
  fi
  ctr_ images label "$image" "org.argus.podman-id=$id" >/dev/null
}

load_images() {
  local wanted=("$PAUSE_IMAGE" "$POSTGRES_IMAGE" "$NATS_IMAGE" "$ARGUS_IMAGE") name
  # Earlier images (other tags, other builds) go, and with them their unshared layers.
  for name in $(ctr_ images ls -q | grep -v '^sha256:'); do
    printf '%s\n' "${wanted[@]}" | grep -qxF "$name" || ctr_ images rm "$name" >/dev/null
  done
  ctr_ images ls -q | grep -qxF "$PAUSE_IMAGE" || ctr_ images import "$(argus_pause_image)" >/dev/null
  for name in "$POSTGRES_IMAGE" "$NATS_IMAGE" "$ARGUS_IMAGE"; do load_image "$name"; done
}

# ---- Teardown -------------------------------------------------------------------------------------
# Whatever KUBE-* chains kube-proxy's --cleanup leaves (the kubelet's): this machine runs no
# other Kubernetes, so every KUBE-* chain is this cluster's.
remove_kube_iptables() {
  local cmd table rule chain
  for cmd in iptables ip6tables; do
    command -v "$cmd" >/dev/null || continue
    for table in filter nat mangle; do
      "$cmd" -t "$table" -S 2>/dev/null | grep -E '^-A (INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) .*-j KUBE-' |
        while read -r rule; do
          # The rule as iptables prints it, quoted comments included.
          eval "$cmd -t $table ${rule/-A/-D}" 2>/dev/null
        done
      for chain in $("$cmd" -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[^ ]*\)$/\1/p'); do
        "$cmd" -t "$table" -F "$chain" 2>/dev/null
      done
      for chain in $("$cmd" -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[^ ]*\)$/\1/p'); do
        "$cmd" -t "$table" -X "$chain" 2>/dev/null
      done
    done
  done
}

teardown() {
  set +e
  local started=$SECONDS
  if [ -f "$RUN_DIR/pids/kube-apiserver" ] && [ -f "$KUBECONFIG" ] && "$KUBECTL" get --raw /readyz >/dev/null 2>&1; then
    # Pods go through the kubelet, so their networks and mounts are taken down properly.
    "$KUBECTL" delete namespace "$NS_ARGUS" "$NS_DB" "$NS_NATS" --ignore-not-found --wait=false >/dev/null 2>&1
    "$KUBECTL" delete pods --all -A --grace-period=1 --wait=false >/dev/null 2>&1
    local i
    for i in $(seq 1 60); do
      [ -z "$("$KUBECTL" get pods -A -o name 2>/dev/null)" ] && break
      sleep 1
    done
  fi
  stop_bg kube-proxy
  [ -n "${KUBE_PROXY:-}" ] && [ -x "$KUBE_PROXY" ] && "$KUBE_PROXY" --cleanup >/dev/null 2>&1
  remove_kube_iptables
  # Connection tracking entries of pod and Service addresses (they would linger for days).
  local cidr
  for cidr in "$POD_CIDR" "$SERVICE_CIDR"; do
    conntrack -D -s "$cidr" >/dev/null 2>&1
    conntrack -D -d "$cidr" >/dev/null 2>&1
  done
  stop_bg kubelet
  if [ -S "$CONTAINERD_SOCK" ]; then
    local task
    for task in $(ctr_ tasks ls -q 2>/dev/null); do
      ctr_ tasks kill -s SIGKILL "$task" >/dev/null 2>&1
      ctr_ tasks delete -f "$task" >/dev/null 2>&1
    done
    for task in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers delete "$task" >/dev/null 2>&1; done
  fi
  # The control plane's state goes with the cluster: no need to wait for graceful stops.
  stop_bg coredns 2
  stop_bg kube-scheduler 2
  stop_bg kube-controller-manager 2
  stop_bg kube-apiserver 2
  stop_bg etcd 2
  stop_bg containerd
  # Shims outlive containerd; ours name our socket.
  local pid
  for pid in $(pgrep -f "containerd-shim.*-address $CONTAINERD_SOCK" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  # Network namespaces the CRI made (cni-*) that were not there before.
  if [ -f "$RUN_DIR/netns.before" ]; then
    local ns
    for ns in $(ls /var/run/netns 2>/dev/null | grep '^cni-'); do
      grep -qxF "$ns" "$RUN_DIR/netns.before" || ip netns delete "$ns" 2>/dev/null
    done
  fi
  ip link delete "$BRIDGE" 2>/dev/null
  # Mounts under our directories (overlay roots, shm, secrets, emptyDirs), innermost first.
  local mnt
  for mnt in $(findmnt -rn -o TARGET | grep -E "^($CLUSTER_DIR|$RUN_DIR)(/|$)" | sort -r); do
    umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
  done
  # The kubelet's cgroups (cgroupfs driver: kubepods under each hierarchy).
  local hierarchy
  for hierarchy in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [ -d "$hierarchy" ] && find "$hierarchy" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  restore_sysctls
  if [ -d "$LOGS" ] && [ "${ARGUS_CLUSTER_FAILED:-0}" = 1 ]; then
    mkdir -p "$root/.data/cluster-test"
    rm -rf "$root/.data/cluster-test/logs" && cp -r "$LOGS" "$root/.data/cluster-test/logs"
    log "the cluster's logs are in .data/cluster-test/logs"
  fi
  rm -rf "$CLUSTER_DIR" "$RUN_DIR"
  log "torn down in $((SECONDS - started)) s"
  set -e
}

# ---- Main -------------------------------------------------------------------------------------
tools() {
  # Helm first: CI's chart lint needs it first, while this builds in the background.
  HELM="$(argus_tool helm)"
  KUBECTL="$(argus_tool kubectl)"
  KUBE_PROXY="$(argus_tool kube-proxy)"
  local p
  for p in kube-apiserver kube-controller-manager kube-scheduler kubelet coredns; do argus_tool "$p" >/dev/null; done
  argus_pause_image >/dev/null
}

MODE="${1:-test}"
case "$MODE" in
  test | up) ;;
  tools)
    # Only build (or find) the pinned tools, e.g. to warm a machine's cache.
    tools
    exit 0
    ;;
  checks)
    # Only the checks, again, on a cluster left up (`up`, or ARGUS_CLUSTER_KEEP=1).
    tools
    [ -f "$KUBECONFIG" ] || die "no cluster is up ($0 up)"
    ARGUS_CLUSTER_KEEP=1
    . "$here/checks.sh"
    reset_namespaces
    run_checks
    [ "$CHECKS_FAILED" -eq 0 ]
    exit
    ;;
  down)
    KUBECTL="$(argus_tool kubectl)"
    KUBE_PROXY="$(argus_tool kube-proxy)"
    teardown
    exit 0
    ;;
  *)
    echo "usage: $0 [test|up|checks|down|tools]" >&2
    exit 2
    ;;
esac
# `up` brings the cluster up with the images loaded and leaves it, without the checks.
[ "$MODE" = up ] && ARGUS_CLUSTER_KEEP=1

on_exit() {
  local status=$?
  [ "$status" -ne 0 ] && ARGUS_CLUSTER_FAILED=1
  if [ "$status" -ne 0 ] && [ -n "${KUBECTL:-}" ] && [ -f "$KUBECONFIG" ]; then
    echo "== cluster: state at failure"
    # What is shown here must never stop the teardown below.
    set +e
    "$KUBECTL" get pods -A -o wide 2>&1 | head -25
    "$KUBECTL" get events -A --sort-by=.lastTimestamp 2>&1 | tail -15
    "$KUBECTL" get node "$NODE_NAME" 2>&1 | tail -1
    "$KUBECTL" get node "$NODE_NAME" -o \
      jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}' 2>&1
    local f
    for f in containerd kubelet kube-proxy; do
      [ -f "$LOGS/$f.log" ] || continue
      echo "-- $f: alive=$(kill -0 "$(cat "$RUN_DIR/pids/$f" 2>/dev/null)" 2>/dev/null && echo yes || echo no), its errors and last lines"
      { grep -E '^[EF][0-9]{4} |level=(error|fatal)' "$LOGS/$f.log" | tail -8; tail -n 4 "$LOGS/$f.log"; } | cut -c1-300
    done
  fi
  if [ "${ARGUS_CLUSTER_KEEP:-}" = 1 ]; then
    log "left up (ARGUS_CLUSTER_KEEP=1): KUBECONFIG=$KUBECONFIG; tear down with $0 down"
  else
    step teardown teardown
  fi
  echo "== cluster: step times"
  printf '   %s\n' "${STEP_TIMES[@]}"
  echo "== cluster: $((SECONDS - RUN_STARTED)) s in all"
  exit "$status"
}

RUN_STARTED=$SECONDS
[ "$(id -u)" -eq 0 ] || die "run as root (it starts containerd, the kubelet and kube-proxy)"
step "pinned tools (cached in $ARGUS_CACHE)" tools
preflight_and_state() {
  preflight
  mkdir -p "$RUN_DIR/pids" "$CLUSTER_DIR" "$LOGS"
  ls /var/run/netns 2>/dev/null >"$RUN_DIR/netns.before" || true
  sysctl_snapshot "$RUN_DIR/sysctl.before"
}
step "preflight" preflight_and_state
trap on_exit EXIT
trap 'exit 130' INT TERM
step "certificates" make_pki
step "control plane" start_control_plane
step "node" start_node
step "images into containerd" load_images
[ "$MODE" = up ] && exit 0

# shellcheck source=deploy/test/checks.sh
. "$here/checks.sh"
run_checks
[ "$CHECKS_FAILED" -eq 0 ]
