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

{{/* Every component name of the chart's services, enabled or not (NetworkPolicy peers). */}}
{{- define "argus.allComponents" -}}
{{- $names := list }}
{{- range $key, $_ := .Values.services }}
{{- $names = append $names (include "argus.component" $key) }}
{{- end }}
{{- toJson $names }}
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
{{- if $problems }}
{{- fail (printf "\n  - %s" (join "\n  - " $problems)) }}
{{- end }}
{{- end }}
