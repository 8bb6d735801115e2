{{/*
Names, labels and values shared by every template. Per-service resources are built by
the named templates in _component.tpl, called once per enabled entry of .Values.services.

Convention: a per-service template receives (dict "root" $ "key" <values key> "svc" <values>).
*/}}

{{- define "argus.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "argus.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "argus.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The component name of a values key: taskRunner -> task-runner (also its source dir). */}}
{{- define "argus.component" -}}
{{- kebabcase . }}
{{- end }}

{{/* <fullname>-<component>, e.g. argus-identity. Takes (dict "root" $ "key" key). */}}
{{- define "argus.componentFullname" -}}
{{- printf "%s-%s" (include "argus.fullname" .root) (include "argus.component" .key) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The environment variable naming a service's gRPC address: taskRunner -> TASK_RUNNER_GRPC_URL. */}}
{{- define "argus.grpcUrlVar" -}}
{{- printf "%s_GRPC_URL" (snakecase . | upper) }}
{{- end }}

{{- define "argus.selectorLabels" -}}
app.kubernetes.io/name: {{ include "argus.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end }}

{{/* Common labels. Takes (dict "root" $ "component" name-or-empty). */}}
{{- define "argus.labels" -}}
helm.sh/chart: {{ include "argus.chart" .root }}
{{ include "argus.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: argus
{{- end }}

{{- define "argus.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "argus.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "argus.secretName" -}}
{{- default (include "argus.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{/* The hook-scoped Secret the migrations (and provision) Jobs read on a chart-made Secret. */}}
{{- define "argus.hookSecretName" -}}
{{- printf "%s-migrations" (include "argus.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "argus.configMapName" -}}
{{- include "argus.fullname" . }}
{{- end }}

{{/* Image reference. Takes (dict "root" $ "image" <per-service overrides or nil>). */}}
{{- define "argus.image" -}}
{{- $img := merge (deepCopy (default dict .image)) .root.Values.image }}
{{- $tag := default .root.Chart.AppVersion $img.tag }}
{{- if $img.digest }}
{{- printf "%s@%s" $img.repository $img.digest }}
{{- else }}
{{- printf "%s:%s" $img.repository $tag }}
{{- end }}
{{- end }}

{{- define "argus.imagePullPolicy" -}}
{{- $img := merge (deepCopy (default dict .image)) .root.Values.image }}
{{- $img.pullPolicy }}
{{- end }}

{{/* Enabled service keys other than the gateway, sorted, as a JSON list. */}}
{{- define "argus.grpcServiceKeys" -}}
{{- $keys := list }}
{{- range $key, $svc := .Values.services }}
{{- if and $svc.enabled (ne $key "gateway") }}
{{- $keys = append $keys $key }}
{{- end }}
{{- end }}
{{- toJson $keys }}
{{- end }}

{{/* host:port or dns:/// target of a gRPC service. Takes (dict "root" $ "key" key). */}}
{{- define "argus.grpcTarget" -}}
{{- $host := include "argus.componentFullname" . }}
{{- if eq .root.Values.grpcAddressing "headless" }}
{{- printf "dns:///%s-headless:%v" $host .root.Values.ports.grpc }}
{{- else }}
{{- printf "%s:%v" $host .root.Values.ports.grpc }}
{{- end }}
{{- end }}

{{/*
The TCP port of a URL, else a default. Takes (dict "url" u "override" p "default" d).
For a comma-separated list (NATS servers) the first entry counts.
*/}}
{{- define "argus.urlPort" -}}
{{- if .override }}
{{- .override }}
{{- else }}
{{- $first := trim (first (splitList "," (default "" .url))) }}
{{- $hostPort := "" }}
{{- if $first }}
{{- $hostPort = (urlParse $first).host }}
{{- end }}
{{- $parts := splitList ":" $hostPort }}
{{- $last := last $parts }}
{{- if and (gt (len $parts) 1) (regexMatch "^[0-9]+$" $last) }}
{{- $last }}
{{- else }}
{{- .default }}
{{- end }}
{{- end }}
{{- end }}

{{- define "argus.otelPort" -}}
{{- $default := 4318 }}
{{- if hasPrefix "https://" .Values.otel.endpoint }}
{{- $default = 443 }}
{{- end }}
{{- include "argus.urlPort" (dict "url" .Values.otel.endpoint "override" .Values.otel.networkPolicy.port "default" $default) }}
{{- end }}

{{/* The service registry (files/registry.json, generated from packages/platform/src/registry.ts). */}}
{{- define "argus.registry" -}}
{{- .Files.Get "files/registry.json" }}
{{- end }}

{{/* A registry entry by values key, as JSON ("{}" when the registry has none). Takes (dict "root" $ "key" key). */}}
{{- define "argus.registryService" -}}
{{- $found := dict }}
{{- range (include "argus.registry" .root | fromJson).services }}
{{- if eq .valuesKey $.key }}
{{- $found = . }}
{{- end }}
{{- end }}
{{- toJson $found }}
{{- end }}

{{/* Registry names of the enabled services (not the gateway), as a JSON list. */}}
{{- define "argus.enabledServiceNames" -}}
{{- $names := list }}
{{- range (include "argus.registry" . | fromJson).services }}
{{- $svc := get $.Values.services .valuesKey }}
{{- if and $svc $svc.enabled }}
{{- $names = append $names .name }}
{{- end }}
{{- end }}
{{- toJson $names }}
{{- end }}

{{/* The environment-variable form of a name: task-runner -> TASK_RUNNER (the registry's envPrefix). */}}
{{- define "argus.envPrefix" -}}
{{- replace "-" "_" . | upper }}
{{- end }}

{{/*
The Secret key holding a service's DATABASE_URL (or the migration role's, for "migrate"):
DATABASE_URL_<ENVPREFIX> with postgres.perService, else the shared DATABASE_URL.
Takes (dict "root" $ "name" registry name or "migrate").
*/}}
{{- define "argus.databaseUrlKey" -}}
{{- if .root.Values.postgres.perService }}
{{- printf "DATABASE_URL_%s" (include "argus.envPrefix" .name) }}
{{- else -}}
DATABASE_URL
{{- end }}
{{- end }}

{{/* The Secret key holding a NATS identity's password: NATS_PASSWORD_<ENVPREFIX>. */}}
{{- define "argus.natsPasswordKey" -}}
{{- printf "NATS_PASSWORD_%s" (include "argus.envPrefix" .) }}
{{- end }}

{{/* The data of the chart's Secret as it is in the cluster (base64 values), as JSON; {} without one. */}}
{{- define "argus.liveSecretData" -}}
{{- $data := dict }}
{{- if not .Values.secrets.existingSecret }}
{{- with (lookup "v1" "Secret" .Release.Namespace (include "argus.secretName" .)) }}
{{- $data = default dict .data }}
{{- end }}
{{- end }}
{{- toJson $data }}
{{- end }}

{{/*
The password of every NATS identity of the registry (each service and the manager), by user,
as JSON: nats.passwords.<user> when given, else the live Secret's, else 48 random characters.
Computed once per render and kept in .Values, so the Secret, the migrations hook Secret and
the server's authorization block all carry the same ones.
*/}}
{{- define "argus.natsPasswords" -}}
{{- if not (hasKey .Values "__argusNatsPasswords") }}
{{- $live := include "argus.liveSecretData" . | fromJson }}
{{- $given := default dict .Values.nats.passwords }}
{{- $out := dict }}
{{- range $user, $_ := (include "argus.registry" . | fromJson).nats.permissions }}
{{- $key := include "argus.natsPasswordKey" $user }}
{{- if get $given $user }}
{{- $_ := set $out $user (get $given $user) }}
{{- else if get $live $key }}
{{- $_ := set $out $user (get $live $key | b64dec) }}
{{- else }}
{{- $_ := set $out $user (randAlphaNum 48) }}
{{- end }}
{{- end }}
{{- $_ := set .Values "__argusNatsPasswords" $out }}
{{- end }}
{{- toJson (get .Values "__argusNatsPasswords") }}
{{- end }}

{{/*
A value of the registry's NATS permissions in nats-server's configuration syntax (JSON-style;
strings double-quoted with only \" and \\ escapes, which the server accepts), with the
subject root and stream placeholders replaced. Takes (dict "root" $ "value" v).
*/}}
{{- define "argus.natsConfValue" -}}
{{- $v := .value }}
{{- if kindIs "string" $v }}
{{- $ph := (include "argus.registry" .root | fromJson).nats.placeholders }}
{{- $v | replace $ph.root .root.Values.nats.subjectRoot | replace $ph.stream .root.Values.nats.stream | quote }}
{{- else if kindIs "slice" $v }}
{{- $items := list }}
{{- range $v }}
{{- $items = append $items (include "argus.natsConfValue" (dict "root" $.root "value" .)) }}
{{- end }}
{{- printf "[%s]" (join ", " $items) }}
{{- else if kindIs "map" $v }}
{{- $items := list }}
{{- range $k := keys $v | sortAlpha }}
{{- $items = append $items (printf "%s: %s" (quote $k) (include "argus.natsConfValue" (dict "root" $.root "value" (get $v $k)))) }}
{{- end }}
{{- printf "{%s}" (join ", " $items) }}
{{- else }}
{{- toJson $v }}
{{- end }}
{{- end }}

{{/*
authorization.conf: nats-server's `authorization { users: [...] }` block with every NATS identity
of the registry (files/registry.json `nats.permissions`), for nats.subjectRoot / nats.stream, and
the passwords of the release's Secret. With it the server refuses anonymous clients.
*/}}
{{- define "argus.natsAuthorizationConf" -}}
{{- $registry := include "argus.registry" . | fromJson }}
{{- $passwords := include "argus.natsPasswords" . | fromJson }}
{{- $users := list }}
{{- range $user := keys $registry.nats.permissions | sortAlpha }}
{{- $permissions := include "argus.natsConfValue" (dict "root" $ "value" (get $registry.nats.permissions $user)) }}
{{- $users = append $users (printf "    {\n      \"user\": %s,\n      \"password\": %s,\n      \"permissions\": %s\n    }" (quote $user) (quote (get $passwords $user)) $permissions) }}
{{- end -}}
# Argus NATS identities of release {{ .Release.Name }} (namespace {{ .Release.Namespace }}):
# subject root {{ .Values.nats.subjectRoot | quote }}, stream {{ .Values.nats.stream | quote }}. Generated by the Helm chart from
# its service registry; include it in the nats-server configuration (deploy/README.md).
authorization {
  users: [
{{ join ",\n" $users }}
  ]
}
{{ end }}

{{/*
The URL a process reaches Postgres by, for its egress port: with postgres.perService its own
postgres.urls.<name> ("migrate" for the migration and provision Jobs), else postgres.url.
Takes (dict "root" $ "name" name).
*/}}
{{- define "argus.postgresUrlOf" -}}
{{- $p := .root.Values.postgres }}
{{- if $p.perService }}
{{- get (default dict $p.urls) .name | default "" }}
{{- else }}
{{- $p.url }}
{{- end }}
{{- end }}

{{/* Keys of the chart's Secret that may be absent; a pod starts without them. */}}
{{- define "argus.optionalSecretKeys" -}}
{{- toJson (list "ARGUS_INIT_API_KEY") }}
{{- end }}

{{/* Pod-level fields shared by Deployments, the migrations Job and the test pod. */}}
{{- define "argus.podCommon" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
automountServiceAccountToken: false
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* The writable /tmp a read-only root filesystem still needs. */}}
{{- define "argus.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end }}

{{- define "argus.tmpVolumeMount" -}}
- name: tmp
  mountPath: /tmp
{{- end }}

{{/* env entries from a map: NAME: "value" or NAME: {valueFrom: ...}. */}}
{{- define "argus.envFromMap" -}}
{{- range $name, $value := . }}
- name: {{ $name }}
{{- if kindIs "map" $value }}
  {{- toYaml $value | nindent 2 }}
{{- else }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* env entries reading keys of the Secret. Takes (dict "root" $ "keys" list). */}}
{{- define "argus.secretEnv" -}}
{{- $optional := include "argus.optionalSecretKeys" .root | fromJsonArray }}
{{- range .keys }}
- name: {{ . }}
  valueFrom:
    secretKeyRef:
      name: {{ include "argus.secretName" $.root }}
      key: {{ . }}
      {{- if has . $optional }}
      optional: true
      {{- end }}
{{- end }}
{{- end }}

{{/* Fails rendering with one message per bad setting. */}}
{{- define "argus.validate" -}}
{{- $problems := list }}
{{- if not (has .Values.grpcAddressing (list "clusterIP" "headless")) }}
{{- $problems = append $problems (printf "grpcAddressing must be clusterIP or headless, got %q" .Values.grpcAddressing) }}
{{- end }}
{{- if not (and .Values.services.gateway .Values.services.gateway.enabled) }}
{{- $problems = append $problems "services.gateway.enabled must be true: it is the only entry point" }}
{{- end }}
{{- $registry := .Files.Get "files/registry.json" | fromJson }}
{{- $known := list $registry.gateway.valuesKey }}
{{- range $registry.services }}
{{- $known = append $known .valuesKey }}
{{- if not (hasKey $.Values.services .valuesKey) }}
{{- $problems = append $problems (printf "services.%s is missing: %s is in this version's service registry" .valuesKey .name) }}
{{- end }}
{{- end }}
{{- range $key, $svc := .Values.services }}
{{- if and $svc.enabled (not (has $key $known)) }}
{{- $problems = append $problems (printf "services.%s is enabled but no such service is in this version's registry (files/registry.json)" $key) }}
{{- end }}
{{- end }}
{{- range $key, $svc := .Values.services }}
{{- if and $svc.enabled $svc.autoscaling.enabled (gt (int $svc.autoscaling.minReplicas) (int $svc.autoscaling.maxReplicas)) }}
{{- $problems = append $problems (printf "services.%s.autoscaling.minReplicas is above maxReplicas" $key) }}
{{- end }}
{{- end }}
{{- /* Credentials the chart passes itself: never from secretKeys or config. */}}
{{- range $key, $svc := .Values.services }}
{{- range $taken := list "DATABASE_URL" "NATS_USER" "NATS_PASSWORD" }}
{{- if has $taken (default list $svc.secretKeys) }}
{{- $problems = append $problems (printf "services.%s.secretKeys lists %s: the chart passes each service its own credential (see postgres.perService, nats.passwords); remove it" $key $taken) }}
{{- end }}
{{- end }}
{{- end }}
{{- range $taken := list "NATS_URL" "ARGUS_EVENTS_STREAM" "ARGUS_SUBJECT_ROOT" }}
{{- if hasKey $.Values.config $taken }}
{{- $problems = append $problems (printf "config.%s is set by the chart (nats.url, nats.stream, nats.subjectRoot); set it there" $taken) }}
{{- end }}
{{- end }}
{{- /* Per-service database roles (scripts/provision.ts creates <prefix>_<service> and <prefix>_migrate). */}}
{{- $pg := .Values.postgres }}
{{- $urls := default dict $pg.urls }}
{{- $serviceNames := list }}
{{- range $registry.services }}
{{- $serviceNames = append $serviceNames .name }}
{{- end }}
{{- range $name, $_ := $urls }}
{{- if not (has $name (append $serviceNames "migrate")) }}
{{- $problems = append $problems (printf "postgres.urls.%s: no service %s in this version's registry (keys are service names, e.g. %s, and migrate)" $name $name (join ", " $serviceNames)) }}
{{- end }}
{{- end }}
{{- if and $pg.perService (not .Values.secrets.existingSecret) }}
{{- $needed := include "argus.enabledServiceNames" . | fromJsonArray }}
{{- if .Values.provision.enabled }}
{{- $needed = $serviceNames }}
{{- end }}
{{- if or .Values.migrations.enabled .Values.provision.enabled }}
{{- $needed = append $needed "migrate" }}
{{- end }}
{{- range $name := $needed }}
{{- $role := printf "%s_%s" $pg.rolePrefix (replace "-" "_" $name) }}
{{- $url := get $urls $name }}
{{- if not $url }}
{{- $problems = append $problems (printf "postgres.urls.%s is required: with postgres.perService %s logs in as its own role %s (created by scripts/provision.ts); set it, or use secrets.existingSecret with key %s, or postgres.perService=false to share postgres.url" $name (ternary "the migrations Job" (printf "the %s service" $name) (eq $name "migrate")) $role (include "argus.databaseUrlKey" (dict "root" $ "name" $name))) }}
{{- else }}
{{- $user := first (splitList ":" (default "" (urlParse $url).userinfo)) }}
{{- if and $user (ne $user $role) }}
{{- $problems = append $problems (printf "postgres.urls.%s logs in as %q, but the role of %s is %s (postgres.rolePrefix %q)" $name $user $name $role $pg.rolePrefix) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if .Values.provision.enabled }}
{{- if not $pg.perService }}
{{- $problems = append $problems "provision.enabled needs postgres.perService: it creates the per-service roles" }}
{{- end }}
{{- if not .Values.provision.superuserSecret.name }}
{{- $problems = append $problems "provision.superuserSecret.name is required: the Secret holding the database superuser's URL" }}
{{- end }}
{{- end }}
{{- /* NATS identities. */}}
{{- range $user, $_ := default dict .Values.nats.passwords }}
{{- if not (hasKey $registry.nats.permissions $user) }}
{{- $problems = append $problems (printf "nats.passwords.%s: no NATS identity %s in this version's registry (users: %s)" $user $user (join ", " (keys $registry.nats.permissions | sortAlpha))) }}
{{- end }}
{{- end }}
{{- /* Call keys (Ed25519): one pair per registry signer, passed by the chart itself. */}}
{{- $signerNames := list }}
{{- range $registry.callSigners }}
{{- $signerNames = append $signerNames .name }}
{{- end }}
{{- range $name, $v := default dict .Values.callKeys }}
{{- $v = default dict $v }}
{{- if not (has $name $signerNames) }}
{{- $problems = append $problems (printf "callKeys.%s: %s signs no calls in this version's registry (signers: %s)" $name $name (join ", " $signerNames)) }}
{{- else if and (not $v.existingSecret) (ne (empty $v.privateKey) (empty $v.publicKey)) }}
{{- $problems = append $problems (printf "callKeys.%s: give privateKey and publicKey together (or neither: the chart generates the pair)" $name) }}
{{- end }}
{{- end }}
{{- range $key, $svc := .Values.services }}
{{- range $k := default list $svc.secretKeys }}
{{- if regexMatch "_(PRIVATE|PUBLIC)_KEY$" $k }}
{{- $problems = append $problems (printf "services.%s.secretKeys lists %s: the chart passes each process the call keys the registry gives it (see callKeys); remove it" $key $k) }}
{{- end }}
{{- end }}
{{- end }}
{{- if $problems }}
{{- fail (printf "\n  - %s" (join "\n  - " $problems)) }}
{{- end }}
{{- end }}

{{/*
The Secret holding a signer's call key pair (<PREFIX>_PRIVATE_KEY, <PREFIX>_PUBLIC_KEY):
callKeys.<name>.existingSecret when set, else the release's Secret (or secrets.existingSecret).
Takes (dict "root" $ "name" registry name).
*/}}
{{- define "argus.callKeySecretName" -}}
{{- $given := get (default dict .root.Values.callKeys) .name | default dict }}
{{- default (include "argus.secretName" .root) $given.existingSecret }}
{{- end }}

{{/*
The Ed25519 call key pair of every registry signer the chart's Secret holds (those without
callKeys.<name>.existingSecret), by name, as JSON {name: {privateKey, publicKey}} of PEM text:
callKeys.<name> when given, else the live Secret's, else generated. Helm has no function that
derives a public key, so a generated pair's public key is a self-signed certificate wrapping it
(services read either form). Computed once per render and kept in .Values, like the NATS
passwords, so every include sees the same pair.
*/}}
{{- define "argus.callKeys" -}}
{{- if not (hasKey .Values "__argusCallKeys") }}
{{- $live := include "argus.liveSecretData" . | fromJson }}
{{- $given := default dict .Values.callKeys }}
{{- $out := dict }}
{{- if not .Values.secrets.existingSecret }}
{{- range (include "argus.registry" . | fromJson).callSigners }}
{{- $v := get $given .name | default dict }}
{{- if not $v.existingSecret }}
{{- if and $v.privateKey $v.publicKey }}
{{- $_ := set $out .name (dict "privateKey" $v.privateKey "publicKey" $v.publicKey) }}
{{- else if and (get $live .privateKey) (get $live .publicKey) }}
{{- $_ := set $out .name (dict "privateKey" (get $live .privateKey | b64dec) "publicKey" (get $live .publicKey | b64dec)) }}
{{- else }}
{{- $key := genPrivateKey "ed25519" }}
{{- $cert := genSelfSignedCertWithKey (printf "argus-%s" .name) nil nil 36500 $key }}
{{- $_ := set $out .name (dict "privateKey" $key "publicKey" $cert.Cert) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- $_ := set .Values "__argusCallKeys" $out }}
{{- end }}
{{- toJson (get .Values "__argusCallKeys") }}
{{- end }}

{{/*
env entries of a process's call keys (registry `callKeys`): its own private key when it signs,
and the public keys it verifies calls with, each from its signer's Secret. Takes (dict "root" $
"keys" <registry callKeys>).
*/}}
{{- define "argus.callKeyEnv" -}}
{{- $signers := (include "argus.registry" .root | fromJson).callSigners }}
{{- range $signers }}
{{- if eq .privateKey (default "" $.keys.privateKeyVar) }}
- name: {{ .privateKey }}
  valueFrom:
    secretKeyRef:
      name: {{ include "argus.callKeySecretName" (dict "root" $.root "name" .name) }}
      key: {{ .privateKey }}
{{- end }}
{{- if has .publicKey $.keys.publicKeyVars }}
- name: {{ .publicKey }}
  valueFrom:
    secretKeyRef:
      name: {{ include "argus.callKeySecretName" (dict "root" $.root "name" .name) }}
      key: {{ .publicKey }}
{{- end }}
{{- end }}
{{- end }}
