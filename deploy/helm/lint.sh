#!/usr/bin/env bash
# Lints and renders the Argus chart with its default values and with every file in ci/, checks
# what each must render (check-rendered.mjs: the credentials, NATS authorization and network
# policies the service registry implies; needs `pnpm install` for its YAML parser), and that
# bad values are refused with the right message.
# Uses `helm` from PATH when there is one; otherwise the pinned Helm of deploy/tools.sh, built
# from the Go module proxy into a cache outside the clone (~3 min on 2 cores the first time).
#   deploy/helm/lint.sh            # exit 0 only when every check passes
#   KUBE_VERSION=1.30.0 deploy/helm/lint.sh
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-1.33.0}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
chart="$root/deploy/helm/argus"
# shellcheck source=deploy/tools.sh
. "$root/deploy/tools.sh"

# helm from PATH, else the pinned release (deploy/tools.sh: built once into its cache).
find_helm() {
  if command -v helm >/dev/null 2>&1; then
    command -v helm
    return
  fi
  argus_tool helm
}

helm="$(find_helm)"
echo "helm: $("$helm" version --short)"
# check-rendered.mjs validates the NATS authorization block with the nats-server the stack runs.
ARGUS_NATS_SERVER="$(argus_tool nats-server)"
export ARGUS_NATS_SERVER

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }

# count KIND FILE: how many rendered documents of that kind.
count() { grep -c "^kind: $1\$" "$2" || true; }
# expect NAME ACTUAL WANTED
expect() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (got $2, want $3)"; fi; }

if ! (cd "$root" && node -e 'require.resolve("yaml")') >/dev/null 2>&1; then
  echo "lint.sh: the yaml package is missing; run pnpm install first" >&2
  exit 1
fi

started=$SECONDS
# The defaults need one value: each service's database URL and the migration role's
# (postgres.perService). Derived from the registry, so a new service needs nothing here.
required="$out/required-values.yaml"
node "$root/deploy/helm/required-values.mjs" >"$required"
cases=("default:$required")
for f in "$chart"/ci/*.yaml; do cases+=("$(basename "$f" .yaml):$f"); done

for case in "${cases[@]}"; do
  name="${case%%:*}"
  file="${case#*:}"
  args=()
  [ -n "$file" ] && args=(-f "$file")
  if "$helm" lint --strict --quiet --kube-version "$KUBE_VERSION" "$chart" "${args[@]}" >"$out/$name.lint" 2>&1; then
    pass "lint $name"
  else
    fail "lint $name"
    cat "$out/$name.lint"
  fi
  if "$helm" template argus "$chart" --namespace argus --kube-version "$KUBE_VERSION" "${args[@]}" \
    >"$out/$name.yaml" 2>"$out/$name.err"; then
    pass "template $name"
  else
    fail "template $name"
    cat "$out/$name.err"
    continue
  fi
  y="$out/$name.yaml"
  # Every Deployment, Job and Pod container runs hardened.
  pods=$(($(count Deployment "$y") + $(count Job "$y") + $(count Pod "$y")))
  expect "$name: every pod read-only, non-root, no capabilities" \
    "$(grep -c 'readOnlyRootFilesystem: true' "$y")/$(grep -c 'runAsNonRoot: true' "$y")/$(grep -c -- '- ALL' "$y")" \
    "$pods/$((2 * pods))/$pods"
  # Credentials, NATS authorization and network policies against the registry.
  while IFS= read -r line; do
    case "$line" in
      "ok   "*) pass "${line#ok   }" ;;
      "FAIL "*) fail "${line#FAIL }" ;;
      *) echo "$line" ;;
    esac
  done < <(node "$root/deploy/helm/check-rendered.mjs" "$name" "$y" "${args[@]:1}" 2>&1 || echo "FAIL $name: check-rendered.mjs failed")
done

# What each values file must produce.
if [ -f "$out/default.yaml" ]; then
  y="$out/default.yaml"
  # Every process of the service registry (files/registry.json, generated from
  # packages/platform/src/registry.ts) is rendered, and nothing else.
  registry=$(node -e 'const r=require(process.argv[1]);console.log([r.gateway.name,...r.services.map(s=>s.name)].join(" "))' "$chart/files/registry.json")
  for name in $registry; do
    expect "default: registry process $name runs services/$name/src/main.ts" \
      "$(grep -c "services/$name/src/main.ts" "$y")" 1
  done
  processes=$(wc -w <<<"$registry" | tr -d ' ')
  expect "default: one Deployment per registry process" "$(count Deployment "$y")" "$processes"
  expect "default: one HPA and PDB per process" "$(count HorizontalPodAutoscaler "$y")/$(count PodDisruptionBudget "$y")" "$processes/$processes"
  expect "default: one NetworkPolicy per process plus migrations" "$(count NetworkPolicy "$y")" "$((processes + 1))"
  expect "default: gateway learns catalog's address" \
    "$(grep -c 'CATALOG_GRPC_URL: "argus-catalog:50051"' "$y")" 1
  expect "default: gateway learns identity's address" \
    "$(grep -c 'IDENTITY_GRPC_URL: "argus-identity:50051"' "$y")" 1
  expect "default: migrations Job and its Secret are pre-install/pre-upgrade hooks" \
    "$(grep -c 'helm.sh/hook: pre-install,pre-upgrade' "$y")" 2
  expect "default: the release Secret, the hook Secret and the NATS authorization" "$(count Secret "$y")" 3
fi
if [ -f "$out/all-services-values.yaml" ]; then
  y="$out/all-services-values.yaml"
  # Plus the gateway's OTLP/gRPC and Arrow Flight ports on its own Service.
  expect "all-services: a gRPC Service and its headless twin per registry service, OTLP/gRPC and Flight" \
    "$(grep -c 'appProtocol: grpc' "$y")" "$((2 * ($(count Deployment "$y") - 1) + 2))"
  expect "all-services: the gateway listens for OTLP/gRPC" \
    "$(grep -c 'name: ARGUS_OTLP_GRPC_PORT' "$y")" 1
  expect "all-services: the gateway listens for Arrow Flight on its own port" \
    "$(grep -A1 'name: ARGUS_FLIGHT_PORT' "$y" | grep -c 'value: "8815"')" 1
  expect "all-services: OTLP endpoint configured" "$(grep -c 'OTEL_EXPORTER_OTLP_ENDPOINT' "$y")" 1
fi
if [ -f "$out/provision-values.yaml" ]; then
  y="$out/provision-values.yaml"
  processes=$(node -e 'const r=require(process.argv[1]);console.log(1+r.services.length)' "$chart/files/registry.json")
  expect "provision: provision and migrations Jobs, each with its NetworkPolicy" \
    "$(count Job "$y")/$(count NetworkPolicy "$y")" "2/$((processes + 2))"
fi
if [ -f "$out/existing-secret-values.yaml" ]; then
  y="$out/existing-secret-values.yaml"
  expect "existing-secret: no chart-made Secret" "$(count Secret "$y")" 0
  expect "existing-secret: fixed replicas, HPA only for catalog" "$(count HorizontalPodAutoscaler "$y")" 1
  expect "existing-secret: headless gRPC targets" \
    "$(grep -c 'dns:///argus-identity-headless:50051' "$y")" 1
fi

# Values the chart must refuse, each with its own message (an extended regex on stderr).
# Every case but the first starts from valid values ($required), so it fails for its reason.
refuse() {
  local why="$1"
  shift
  local label="${*:-the default values}"
  label="${label//$required/required-values}"
  if "$helm" template argus "$chart" --kube-version "$KUBE_VERSION" "$@" >/dev/null 2>"$out/refused"; then
    fail "refuses $label (rendered)"
  elif grep -Ezq -- "$why" "$out/refused"; then
    pass "refuses $label"
  else
    fail "refuses $label (not for the expected reason /$why/: $(tr '\n' ' ' <"$out/refused"))"
  fi
}
ok_values=(-f "$required")
# Per-service database roles: no URLs and no existing Secret.
refuse 'postgres\.urls\.identity is required.*postgres\.urls\.catalog is required.*postgres\.urls\.migrate is required'
refuse 'postgres\.urls\.catalog is required' "${ok_values[@]}" --set postgres.urls.catalog=
refuse 'postgres\.urls\.migrate is required' "${ok_values[@]}" --set postgres.urls.migrate=
refuse 'postgres\.urls\.identity logs in as "argus", but the role of identity is argus_identity' \
  "${ok_values[@]}" --set postgres.urls.identity=postgres://argus:pw@db:5432/argus
refuse 'postgres\.urls\.identiy: no service identiy' "${ok_values[@]}" --set postgres.urls.identiy=postgres://x@db/argus
refuse 'services\.identity\.secretKeys lists DATABASE_URL' \
  "${ok_values[@]}" --set 'services.identity.secretKeys={DATABASE_URL,ARGUS_API_KEY_PEPPER}'
# Call keys: the chart passes each process its own; a pair is given whole; signers only.
refuse 'services\.catalog\.secretKeys lists GATEWAY_PRIVATE_KEY: the chart passes each process the call keys' \
  "${ok_values[@]}" --set 'services.catalog.secretKeys={GATEWAY_PRIVATE_KEY}'
refuse 'callKeys\.gateway: give privateKey and publicKey together' \
  "${ok_values[@]}" --set callKeys.gateway.privateKey=MC4CAQAwBQYDK2VwBCIEIJsYKK
refuse 'callKeys\.identity: identity signs no calls' "${ok_values[@]}" --set callKeys.identity.existingSecret=x
refuse 'provision\.superuserSecret\.name is required' "${ok_values[@]}" --set provision.enabled=true
refuse 'provision\.enabled needs postgres\.perService' \
  --set provision.enabled=true --set provision.superuserSecret.name=su \
  --set postgres.perService=false --set postgres.url=postgres://argus@db/argus
# NATS identities.
refuse 'nats\.passwords\.gatway: no NATS identity gatway' "${ok_values[@]}" --set nats.passwords.gatway=0123456789abcdef0123
refuse 'passwords' "${ok_values[@]}" --set nats.passwords.identity=short
refuse 'subjectRoot' "${ok_values[@]}" --set 'nats.subjectRoot=argus.>'
refuse 'config\.ARGUS_SUBJECT_ROOT is set by the chart' "${ok_values[@]}" --set config.ARGUS_SUBJECT_ROOT=x
# Everything else.
refuse 'grpcAddressing' "${ok_values[@]}" --set grpcAddressing=roundrobin
refuse 'services\.gateway\.enabled must be true' "${ok_values[@]}" --set services.gateway.enabled=false
refuse 'minReplicas is above maxReplicas' "${ok_values[@]}" \
  --set services.identity.autoscaling.minReplicas=9 --set services.identity.autoscaling.maxReplicas=3
refuse 'replica' "${ok_values[@]}" --set services.identity.replica=3
# A service the registry does not have yet cannot be switched on.
refuse "/services/scheduler': missing properties" "${ok_values[@]}" --set services.scheduler.enabled=true

echo "lint.sh: checks took $((SECONDS - started))s"
echo "helm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
