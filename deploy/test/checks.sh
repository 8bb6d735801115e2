#!/usr/bin/env bash
# The checks of deploy/test/cluster.sh on the cluster it brought up (sourced by it: uses its
# settings, KUBECTL, HELM, step, pass and fail). Measurements that need a client (the API,
# OTLP, Postgres, NATS) are in checks.ts, run with the repository's Node from the host, which
# reaches Service and pod addresses through kube-proxy and the bridge.

k() { "$KUBECTL" "$@"; }

# Before checking again on a cluster left up: nothing of an earlier run.
reset_namespaces() {
  "$HELM" uninstall "$RELEASE" -n "$NS_ARGUS" --wait >/dev/null 2>&1 || true
  k delete namespace "$NS_ARGUS" "$NS_DB" "$NS_NATS" --ignore-not-found --wait --timeout=180s >/dev/null
}

# The test's Postgres and 3-node NATS, with the chart's NATS users.
start_backing_services() {
  k create namespace "$NS_DB" >/dev/null
  k create namespace "$NS_NATS" >/dev/null
  k create namespace "$NS_ARGUS" >/dev/null
  PG_PASSWORD="$(openssl rand -hex 16)"
  k -n "$NS_DB" create secret generic postgres-superuser --from-literal=password="$PG_PASSWORD" >/dev/null
  sed "s#__POSTGRES_IMAGE__#$POSTGRES_IMAGE#" "$here/postgres.yaml" | k apply -f - >/dev/null
  # The NATS servers' users are the chart's: its authorization block, rendered with the values
  # the release will have (deploy/README.md, Install step 3).
  "$HELM" template "$RELEASE" "$CHART" -n "$NS_ARGUS" -f "$VALUES" \
    --show-only templates/nats-authorization.yaml | k -n "$NS_NATS" apply -f - >/dev/null
  sed "s#__NATS_IMAGE__#$NATS_IMAGE#" "$here/nats.yaml" | k apply -f - >/dev/null
  k -n "$NS_DB" rollout status statefulset/postgres --timeout=180s >/dev/null
  k -n "$NS_DB" exec postgres-0 -- psql -q -h /var/run/postgresql -U postgres \
    -c "CREATE DATABASE argus" >/dev/null
  # For the chart's provision hook (ci/cluster-values.yaml: provision.superuserSecret).
  k -n "$NS_ARGUS" create secret generic argus-postgres-superuser \
    --from-literal=DATABASE_URL="postgres://postgres:$PG_PASSWORD@postgres.$NS_DB.svc:5432/argus?sslmode=disable" >/dev/null
  k -n "$NS_NATS" rollout status statefulset/nats --timeout=180s >/dev/null
  # For checks.ts, from the host.
  CHECK_ENV=(
    "PG_URL=postgres://postgres:$PG_PASSWORD@$(k -n "$NS_DB" get svc postgres -o jsonpath='{.spec.clusterIP}'):5432/argus"
    "NATS_MANAGER_URL=nats://$(k -n "$NS_NATS" get svc nats -o jsonpath='{.spec.clusterIP}'):4222"
    "NATS_MANAGER_PASSWORD=$(values_get nats.passwords.manager)"
    "ARGUS_API_KEY=$(values_get secrets.initApiKey)"
    "KUBECTL=$KUBECTL"
    "KUBECONFIG=$KUBECONFIG"
    "NS_ARGUS=$NS_ARGUS"
    "NS_NATS=$NS_NATS"
  )
}

# values_get DOTTED.PATH: a value of the CI values file.
values_get() {
  (cd "$root" && node -e '
    const { parse } = require("yaml");
    const v = parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(process.argv[2].split(".").reduce((o, k) => o?.[k], v) ?? "");
  ' "$VALUES" "$1")
}

# checks.ts COMMAND, its ok/FAIL lines counted like the script's own.
checks_ts_raw() { (cd "$root" && env "${CHECK_ENV[@]}" node deploy/test/checks.ts "$@" 2>&1); }
tally() {
  local line
  while IFS= read -r line; do
    case "$line" in
      "ok   "*) pass "${line#ok   }" ;;
      "FAIL "*) fail "${line#FAIL }" ;;
      *) echo "     $line" ;;
    esac
  done
}
checks_ts() { tally < <(checks_ts_raw "$@"); }

# Every object of every rendering, as the API server validates it (which `helm template` and
# `helm install --dry-run` do not): the defaults and each ci/*.yaml.
check_server_validation() {
  local dir name file args out
  dir="$(mktemp -d)"
  node "$root/deploy/helm/required-values.mjs" >"$dir/required-values.yaml"
  for file in "$dir/required-values.yaml" "$CHART"/ci/*.yaml; do
    name="$(basename "$file" .yaml)"
    [ "$name" = required-values ] && name=default
    args=(-f "$file")
    if ! "$HELM" template "$RELEASE" "$CHART" -n "$NS_ARGUS" "${args[@]}" >"$dir/$name.yaml" 2>"$dir/$name.err"; then
      fail "server accepts $name: helm template failed: $(cat "$dir/$name.err")"
      continue
    fi
    if out="$(k apply -n "$NS_ARGUS" --dry-run=server --validate=strict -f "$dir/$name.yaml" 2>&1)"; then
      pass "server accepts every object of $name ($(grep -c '^kind:' "$dir/$name.yaml") objects)"
    else
      fail "server accepts every object of $name: $(grep -v ' (server dry run)$' <<<"$out")"
    fi
  done
  rm -rf "$dir"
}

HELM_SET=()
image_values() {
  HELM_SET=(--set "image.repository=${ARGUS_IMAGE%:*}" --set "image.tag=${ARGUS_IMAGE##*:}")
}

install_release() {
  image_values
  if "$HELM" install "$RELEASE" "$CHART" -n "$NS_ARGUS" -f "$VALUES" "${HELM_SET[@]}" \
    --wait --timeout 8m >"$LOGS/helm-install.log" 2>&1; then
    pass "helm install: every Deployment ready"
  else
    fail "helm install: $(tail -n 5 "$LOGS/helm-install.log")"
    k -n "$NS_ARGUS" get pods -o wide
    k -n "$NS_ARGUS" logs -l app.kubernetes.io/component=migrations --tail=30 2>/dev/null
    return 1
  fi
  local gateway
  gateway="$(k -n "$NS_ARGUS" get svc "$RELEASE-gateway" -o jsonpath='{.spec.clusterIP}')"
  CHECK_ENV+=("GATEWAY_URL=http://$gateway:8080" "GATEWAY_OTLP_GRPC=$gateway:4317" \
    "GATEWAY_FLIGHT=$gateway:8815")
  checks_ts stream
}

check_helm_test() {
  local out
  if out="$("$HELM" test "$RELEASE" -n "$NS_ARGUS" --logs --timeout 2m 2>&1)"; then
    pass "helm test: the test pod succeeded"
  else
    fail "helm test: $out"
  fi
  if grep -q 'GET /healthz -> 200' <<<"$out" && grep -q 'GET /readyz -> 200' <<<"$out"; then
    pass "helm test --logs shows the test pod's output"
  else
    fail "helm test --logs shows the test pod's output: $out"
  fi
}

check_api() {
  checks_ts api
}

pod_ips() {
  k -n "$NS_ARGUS" get pods -l "app.kubernetes.io/component=$1" \
    --field-selector=status.phase=Running -o jsonpath='{range .items[*]}{.status.podIP}{" "}{end}'
}

# identity at two replicas (through the chart): both serve the gateway's calls, one relay
# publishes, both consume.
check_scaled() {
  if "$HELM" upgrade "$RELEASE" "$CHART" -n "$NS_ARGUS" -f "$VALUES" "${HELM_SET[@]}" \
    --set services.identity.replicas=2 --wait --timeout 5m >"$LOGS/helm-upgrade-scale.log" 2>&1; then
    pass "scaled: helm upgrade to 2 identity replicas"
  else
    fail "scaled: helm upgrade: $(tail -n 5 "$LOGS/helm-upgrade-scale.log")"
    return 0
  fi
  # With headless addressing the gateway balances over the pods it resolved: the running gateway
  # looks the name up again when its connection ages out (the servers' 30 s, +10% at most),
  # and then takes the new pod without a restart.
  sleep 35
  CHECK_ENV+=("IDENTITY_PODS=$(pod_ips identity)")
  checks_ts scaled
  local active
  active="$(for p in $(k -n "$NS_ARGUS" get pods -l app.kubernetes.io/component=identity -o name); do
    k -n "$NS_ARGUS" logs "$p" | grep -c 'relay is active' || true
  done | awk '{ n += $1 } END { print n + 0 }')"
  if [ "$active" = 1 ]; then
    pass "scaled: one identity pod logged \"relay is active\", the other stands by"
  else
    fail "scaled: \"relay is active\" logged $active times by the identity pods"
  fi
}

check_nats_chaos() {
  checks_ts chaos
}

# A client polls through the gateway Service while helm upgrade rolls every Deployment.
check_upgrade() {
  local before after poller
  local selector="app.kubernetes.io/instance=$RELEASE,app.kubernetes.io/component!=test"
  before="$(k -n "$NS_ARGUS" get pods -l "$selector" -o jsonpath='{.items[*].metadata.uid}')"
  rm -f "$RUN_DIR/poll.stop"
  CHECK_ENV+=("POLL_STOP_FILE=$RUN_DIR/poll.stop")
  # The kubelet deletes a pod's logs with the pod: kept here, for a failed request's lines.
  local kept_logs="$LOGS/upgrade-pod-logs" keeper
  mkdir -p "$kept_logs"
  (while [ ! -e "$RUN_DIR/poll.stop" ]; do
    cp -ru "$CLUSTER_DIR/pod-logs/." "$kept_logs/" 2>/dev/null
    sleep 1
  done) &
  keeper=$!
  checks_ts_raw poll >"$LOGS/poll.log" &
  poller=$!
  sleep 3
  # The changed value: the default gRPC addressing (clusterIP) instead of headless, which every
  # Deployment's environment carries; identity stays at 2.
  if "$HELM" upgrade "$RELEASE" "$CHART" -n "$NS_ARGUS" -f "$VALUES" "${HELM_SET[@]}" \
    --set services.identity.replicas=2 --set grpcAddressing=clusterIP --wait --timeout 8m \
    >"$LOGS/helm-upgrade.log" 2>&1; then
    pass "helm upgrade: rolled and ready"
  else
    fail "helm upgrade: $(tail -n 5 "$LOGS/helm-upgrade.log")"
  fi
  sleep 3
  touch "$RUN_DIR/poll.stop"
  wait "$poller" || true
  wait "$keeper" || true
  cp -ru "$CLUSTER_DIR/pod-logs/." "$kept_logs/" 2>/dev/null || true
  tally <"$LOGS/poll.log"
  local id
  for id in $(sed -n 's/^request-id \(\S*\) failed$/\1/p' "$LOGS/poll.log"); do
    echo "     the lines of every pod that name $id:"
    grep -rh -- "$id" "$kept_logs" | cut -c1-600 | sed 's/^/       /' || true
  done
  # Old pods may still be finishing their grace period after --wait.
  local kept=0 uid i
  for i in $(seq 1 60); do
    after="$(k -n "$NS_ARGUS" get pods -l "$selector" -o jsonpath='{.items[*].metadata.uid}')"
    kept=0
    for uid in $before; do grep -qw "$uid" <<<"$after" && kept=$((kept + 1)); done
    [ "$kept" -eq 0 ] && break
    sleep 1
  done
  local annotated
  annotated="$(k -n "$NS_ARGUS" get deployments -l app.kubernetes.io/instance="$RELEASE" \
    -o jsonpath='{range .items[*]}{.spec.template.spec.containers[0].env}{"\n"}{end}' | grep -c 'dns:///' || true)"
  local deployments
  deployments="$(k -n "$NS_ARGUS" get deployments -l app.kubernetes.io/instance="$RELEASE" -o name | wc -l)"
  if [ "$kept" -eq 0 ] && [ "$annotated" -eq 0 ]; then
    pass "upgrade: all $deployments Deployments rolled to clusterIP addressing (no pod of before is left)"
  else
    fail "upgrade: $kept pods of before still run; $annotated of $deployments Deployments still address gRPC by dns:///"
  fi
}

# After helm uninstall, the namespace holds nothing of the release but the Secret it keeps on
# purpose (helm.sh/resource-policy: keep, for the API key pepper).
check_uninstall() {
  if "$HELM" uninstall "$RELEASE" -n "$NS_ARGUS" --wait --timeout 3m >"$LOGS/helm-uninstall.log" 2>&1; then
    pass "helm uninstall"
  else
    fail "helm uninstall: $(tail -n 5 "$LOGS/helm-uninstall.log")"
  fi
  local kinds left
  kinds="$(k api-resources --verbs=list --namespaced -o name | grep -vE '^(events|events\.events\.k8s\.io)$' | paste -sd, -)"
  left="$(k -n "$NS_ARGUS" get "$kinds" -o name 2>/dev/null |
    grep -vxE "secret/$RELEASE|secret/argus-postgres-superuser|configmap/kube-root-ca.crt|serviceaccount/default" || true)"
  # Pods still terminating count as left behind too: give them their grace period.
  local i
  for i in $(seq 1 30); do
    [ -z "$left" ] && break
    sleep 1
    left="$(k -n "$NS_ARGUS" get "$kinds" -o name 2>/dev/null |
      grep -vxE "secret/$RELEASE|secret/argus-postgres-superuser|configmap/kube-root-ca.crt|serviceaccount/default" || true)"
  done
  if [ -z "$left" ]; then
    pass "uninstall: nothing of the release left in namespace $NS_ARGUS but the kept Secret $RELEASE"
  else
    fail "uninstall: left behind: $(tr '\n' ' ' <<<"$left")"
  fi
  if k -n "$NS_ARGUS" get secret "$RELEASE" >/dev/null 2>&1; then
    pass "uninstall: the Secret $RELEASE is kept (resource-policy keep)"
  else
    fail "uninstall: the Secret $RELEASE is gone (it holds the API key pepper)"
  fi
  local cluster_wide
  cluster_wide="$(k get "$(k api-resources --verbs=list --namespaced=false -o name | paste -sd, -)" \
    -l app.kubernetes.io/instance="$RELEASE" -o name 2>/dev/null || true)"
  if [ -z "$cluster_wide" ]; then
    pass "uninstall: no cluster-wide object of the release"
  else
    fail "uninstall: cluster-wide objects left: $cluster_wide"
  fi
}

run_checks() {
  # ARGUS_CLUSTER_CHECKS: only these steps (function names, in order), e.g. to repeat one.
  if [ -n "${ARGUS_CLUSTER_CHECKS:-}" ]; then
    local only
    for only in $ARGUS_CLUSTER_CHECKS; do step "$only" "$only"; done
    echo "== cluster: checks: $CHECKS_PASSED passed, $CHECKS_FAILED failed"
    return
  fi
  step "postgres and a 3-node nats as pods" start_backing_services
  step "every rendering accepted by the API server" check_server_validation
  step "helm install" install_release
  step "helm test --logs" check_helm_test
  step "public API and OTLP through the gateway" check_api
  step "identity at 2 replicas shares the work" check_scaled
  step "a nats pod deleted during 60 s of writes" check_nats_chaos
  step "helm upgrade under a polling client" check_upgrade
  step "helm uninstall leaves nothing behind" check_uninstall
  echo "== cluster: checks: $CHECKS_PASSED passed, $CHECKS_FAILED failed"
}
