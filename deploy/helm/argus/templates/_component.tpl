{{/*
The resources of one service. Each template takes (dict "root" $ "key" <values key> "svc" <values>);
templates/services.yaml renders them for every enabled entry of .Values.services.
*/}}

{{- define "argus.component.deployment" -}}
{{- $root := .root }}
{{- $svc := .svc }}
{{- $component := include "argus.component" .key }}
{{- $name := include "argus.componentFullname" . }}
{{- $isGateway := eq .key "gateway" }}
{{- $ports := $root.Values.ports }}
{{- $probePort := ternary "http" "health" $isGateway }}
{{- $labels := dict "root" $root "component" $component }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
  labels:
    {{- include "argus.labels" $labels | nindent 4 }}
spec:
  {{- if not $svc.autoscaling.enabled }}
  replicas: {{ $svc.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
  selector:
    matchLabels:
      {{- include "argus.selectorLabels" $labels | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "argus.labels" $labels | nindent 8 }}
        {{- with (merge (deepCopy (default dict $svc.podLabels)) $root.Values.podLabels) }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
        {{- if not $root.Values.secrets.existingSecret }}
        checksum/secret: {{ include (print $root.Template.BasePath "/secret.yaml") $root | sha256sum }}
        {{- end }}
        {{- with (merge (deepCopy (default dict $svc.podAnnotations)) $root.Values.podAnnotations) }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "argus.serviceAccountName" $root }}
      {{- include "argus.podCommon" $root | trim | nindent 6 }}
      terminationGracePeriodSeconds: {{ $root.Values.terminationGracePeriodSeconds }}
      {{- with (default $root.Values.affinity $svc.affinity) }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if (default $root.Values.topologySpreadConstraints $svc.topologySpreadConstraints) }}
      topologySpreadConstraints:
        {{- toYaml (default $root.Values.topologySpreadConstraints $svc.topologySpreadConstraints) | nindent 8 }}
      {{- else if $root.Values.spreadAcrossNodes }}
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "argus.selectorLabels" $labels | nindent 14 }}
      {{- end }}
      containers:
        - name: {{ $component }}
          image: {{ include "argus.image" (dict "root" $root "image" $svc.image) }}
          imagePullPolicy: {{ include "argus.imagePullPolicy" (dict "root" $root "image" $svc.image) }}
          command:
            {{- toYaml (default (list "node" (printf "services/%s/src/main.ts" $component)) $svc.command) | nindent 12 }}
          ports:
            {{- if $isGateway }}
            - name: http
              containerPort: {{ $ports.http }}
              protocol: TCP
            - name: otlp-grpc
              containerPort: {{ $ports.otlpGrpc }}
              protocol: TCP
            - name: flight
              containerPort: {{ $ports.flight }}
              protocol: TCP
            {{- else }}
            - name: grpc
              containerPort: {{ $ports.grpc }}
              protocol: TCP
            - name: health
              containerPort: {{ $ports.health }}
              protocol: TCP
            {{- end }}
          envFrom:
            - configMapRef:
                name: {{ include "argus.configMapName" $root }}
          env:
            - name: ARGUS_SERVICE
              value: {{ $component }}
            {{- if $isGateway }}
            # Listen on the pod's addresses (the process defaults to loopback).
            - name: ARGUS_HTTP_HOST
              value: 0.0.0.0
            - name: ARGUS_HTTP_PORT
              value: {{ $ports.http | quote }}
            - name: ARGUS_OTLP_GRPC_PORT
              value: {{ $ports.otlpGrpc | quote }}
            - name: ARGUS_FLIGHT_PORT
              value: {{ $ports.flight | quote }}
            # Its NATS identity only receives principal-cache invalidations and answers them.
            {{- $gatewayName := (include "argus.registry" $root | fromJson).gateway.name }}
            - name: NATS_USER
              value: {{ $gatewayName }}
            - name: NATS_PASSWORD
              valueFrom:
                secretKeyRef:
                  name: {{ include "argus.secretName" $root }}
                  key: {{ include "argus.natsPasswordKey" $gatewayName }}
            {{- else }}
            {{- $entry := include "argus.registryService" . | fromJson }}
            {{- $serviceName := default $component $entry.name }}
            {{- $prefix := default (snakecase .key | upper) $entry.envPrefix }}
            - name: ARGUS_BIND_HOST
              value: 0.0.0.0
            - name: {{ $prefix }}_GRPC_PORT
              value: {{ $ports.grpc | quote }}
            - name: {{ $prefix }}_PROBE_PORT
              value: {{ $ports.health | quote }}
            # Its own database role (owner of its schema only) and NATS identity.
            - name: DATABASE_URL
              valueFrom:
                secretKeyRef:
                  name: {{ include "argus.secretName" $root }}
                  key: {{ include "argus.databaseUrlKey" (dict "root" $root "name" $serviceName) }}
            - name: NATS_USER
              value: {{ $serviceName }}
            - name: NATS_PASSWORD
              valueFrom:
                secretKeyRef:
                  name: {{ include "argus.secretName" $root }}
                  key: {{ include "argus.natsPasswordKey" $serviceName }}
            {{- end }}
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            - name: OTEL_SERVICE_NAME
              value: argus-{{ $component }}
            - name: OTEL_RESOURCE_ATTRIBUTES
              value: {{ include "argus.otelResourceAttributes" $root | quote }}
            # Its Ed25519 call keys (registry callKeys): its own private key if it signs calls,
            # and the public keys of those whose calls it serves; no other process's private key.
            {{- $callKeys := ternary (include "argus.registry" $root | fromJson).gateway.callKeys (include "argus.registryService" . | fromJson).callKeys $isGateway }}
            {{- with $callKeys }}
            {{- include "argus.callKeyEnv" (dict "root" $root "keys" .) | trim | nindent 12 }}
            {{- end }}
            {{- with $svc.secretKeys }}
            {{- include "argus.secretEnv" (dict "root" $root "keys" .) | trim | nindent 12 }}
            {{- end }}
            {{- with $svc.env }}
            {{- include "argus.envFromMap" . | trim | nindent 12 }}
            {{- end }}
          {{- $probes := $root.Values.probes }}
          startupProbe:
            httpGet:
              path: /healthz
              port: {{ $probePort }}
            {{- toYaml $probes.startup | nindent 12 }}
          livenessProbe:
            httpGet:
              path: /healthz
              port: {{ $probePort }}
            {{- toYaml $probes.liveness | nindent 12 }}
          readinessProbe:
            httpGet:
              path: /readyz
              port: {{ $probePort }}
            {{- toYaml $probes.readiness | nindent 12 }}
          {{- if $root.Values.preStopSleepSeconds }}
          lifecycle:
            preStop:
              exec:
                command: ["sleep", {{ $root.Values.preStopSleepSeconds | quote }}]
          {{- end }}
          resources:
            {{- toYaml $svc.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.containerSecurityContext | nindent 12 }}
          volumeMounts:
            {{- include "argus.tmpVolumeMount" $root | nindent 12 }}
      volumes:
        {{- include "argus.tmpVolume" $root | nindent 8 }}
{{- end }}

{{- define "argus.otelResourceAttributes" -}}
{{- $attrs := list "service.namespace=argus" (printf "service.version=%s" .Chart.AppVersion) "k8s.namespace.name=$(POD_NAMESPACE)" "k8s.pod.name=$(POD_NAME)" }}
{{- range $k, $v := .Values.otel.resourceAttributes }}
{{- $attrs = append $attrs (printf "%s=%v" $k $v) }}
{{- end }}
{{- join "," $attrs }}
{{- end }}

{{- define "argus.component.service" -}}
{{- $root := .root }}
{{- $component := include "argus.component" .key }}
{{- $name := include "argus.componentFullname" . }}
{{- $labels := dict "root" $root "component" $component }}
{{- if eq .key "gateway" }}
{{- $service := default dict .svc.service }}
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}
  labels:
    {{- include "argus.labels" $labels | nindent 4 }}
  {{- with $service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ default "ClusterIP" $service.type }}
  selector:
    {{- include "argus.selectorLabels" $labels | nindent 4 }}
  ports:
    - name: http
      port: {{ default $root.Values.ports.http $service.port }}
      targetPort: http
      protocol: TCP
      appProtocol: http
    - name: otlp-grpc
      port: {{ $root.Values.ports.otlpGrpc }}
      targetPort: otlp-grpc
      protocol: TCP
      appProtocol: grpc
    - name: flight
      port: {{ $root.Values.ports.flight }}
      targetPort: flight
      protocol: TCP
      appProtocol: grpc
{{- else }}
{{- range $headless := list false true }}
{{- if $headless }}
---
{{- end }}
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}{{ if $headless }}-headless{{ end }}
  labels:
    {{- include "argus.labels" $labels | nindent 4 }}
spec:
  {{- if $headless }}
  clusterIP: None
  publishNotReadyAddresses: false
  {{- else }}
  type: ClusterIP
  {{- end }}
  selector:
    {{- include "argus.selectorLabels" $labels | nindent 4 }}
  ports:
    - name: grpc
      port: {{ $root.Values.ports.grpc }}
      targetPort: grpc
      protocol: TCP
      appProtocol: grpc
{{- end }}
{{- end }}
{{- end }}

{{- define "argus.component.hpa" -}}
{{- $a := .svc.autoscaling }}
{{- if $a.enabled }}
{{- $component := include "argus.component" .key }}
{{- $name := include "argus.componentFullname" . }}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ $name }}
  labels:
    {{- include "argus.labels" (dict "root" .root "component" $component) | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ $name }}
  minReplicas: {{ $a.minReplicas }}
  maxReplicas: {{ $a.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $a.targetCPUUtilizationPercentage }}
    {{- with $a.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
  {{- with $a.behavior }}
  behavior:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

{{- define "argus.component.pdb" -}}
{{- $pdb := .svc.podDisruptionBudget }}
{{- if $pdb.enabled }}
{{- $component := include "argus.component" .key }}
{{- $labels := dict "root" .root "component" $component }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "argus.componentFullname" . }}
  labels:
    {{- include "argus.labels" $labels | nindent 4 }}
spec:
  {{- if not (kindIs "invalid" $pdb.minAvailable) }}
  minAvailable: {{ $pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ default 1 $pdb.maxUnavailable }}
  {{- end }}
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector:
    matchLabels:
      {{- include "argus.selectorLabels" $labels | nindent 6 }}
{{- end }}
{{- end }}

{{/* Peers: the chart's pods of the given components. Takes (dict "root" $ "components" list). */}}
{{- define "argus.podPeer" -}}
- podSelector:
    matchExpressions:
      - key: app.kubernetes.io/name
        operator: In
        values: [{{ include "argus.name" .root }}]
      - key: app.kubernetes.io/instance
        operator: In
        values: [{{ .root.Release.Name | quote }}]
      - key: app.kubernetes.io/component
        operator: In
        values: {{ toJson .components }}
{{- end }}

{{/*
Egress rules to Postgres, NATS, DNS and OTLP. Takes (dict "root" $ "postgres" bool "nats" bool
"name" who): the Postgres port is that of who's own URL (argus.postgresUrlOf).
*/}}
{{- define "argus.infraEgress" -}}
{{- $v := .root.Values }}
- ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
  {{- with $v.networkPolicy.dns.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- if .postgres }}
- ports:
    - port: {{ include "argus.urlPort" (dict "url" (include "argus.postgresUrlOf" (dict "root" .root "name" .name)) "override" $v.postgres.networkPolicy.port "default" 5432) }}
      protocol: TCP
  {{- with $v.postgres.networkPolicy.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- if .nats }}
- ports:
    - port: {{ include "argus.urlPort" (dict "url" $v.nats.url "override" $v.nats.networkPolicy.port "default" 4222) }}
      protocol: TCP
  {{- with $v.nats.networkPolicy.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- if $v.otel.endpoint }}
- ports:
    - port: {{ include "argus.otelPort" .root }}
      protocol: TCP
  {{- with $v.otel.networkPolicy.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

{{- define "argus.component.networkPolicy" -}}
{{- $root := .root }}
{{- $v := $root.Values }}
{{- if $v.networkPolicy.enabled }}
{{- $component := include "argus.component" .key }}
{{- $labels := dict "root" $root "component" $component }}
{{- $egress := default dict .svc.egress }}
{{- $internet := default dict $egress.internet }}
{{- /* gRPC peers from the registry: a service takes calls from its `callers` only; a process
calls the enabled services that list it among theirs (the gateway: all of them; a service: its
calls and optionalCalls). */}}
{{- $registry := include "argus.registry" $root | fromJson }}
{{- $self := ternary $registry.gateway.name (default $component (include "argus.registryService" . | fromJson).name) (eq .key "gateway") }}
{{- $callers := list }}
{{- $grpcComponents := list }}
{{- range $registry.services }}
{{- if eq .name $self }}
{{- $callers = .callers }}
{{- end }}
{{- $target := get $v.services .valuesKey }}
{{- if and $target $target.enabled (has $self .callers) }}
{{- $grpcComponents = append $grpcComponents (include "argus.component" .valuesKey) }}
{{- end }}
{{- end }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "argus.componentFullname" . }}
  labels:
    {{- include "argus.labels" $labels | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "argus.selectorLabels" $labels | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress:
    {{- if eq .key "gateway" }}
    - ports:
        - port: {{ $v.ports.http }}
          protocol: TCP
        - port: {{ $v.ports.otlpGrpc }}
          protocol: TCP
        - port: {{ $v.ports.flight }}
          protocol: TCP
      {{- with $v.networkPolicy.gatewayIngressFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- else if $callers }}
    # gRPC only from the processes that call this service (its registry `callers`).
    - ports:
        - port: {{ $v.ports.grpc }}
          protocol: TCP
      from:
        {{- include "argus.podPeer" (dict "root" $root "components" $callers) | nindent 8 }}
    {{- end }}
    {{- with $v.networkPolicy.extraIngress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  egress:
    {{- include "argus.infraEgress" (dict "root" $root "postgres" $egress.postgres "nats" $egress.nats "name" $self) | trim | nindent 4 }}
    {{- if $grpcComponents }}
    - ports:
        - port: {{ $v.ports.grpc }}
          protocol: TCP
      to:
        {{- include "argus.podPeer" (dict "root" $root "components" $grpcComponents) | nindent 8 }}
    {{- end }}
    {{- if $internet.enabled }}
    - to:
        - ipBlock:
            cidr: 0.0.0.0/0
            {{- with $internet.exceptCIDRs }}
            except:
              {{- toYaml . | nindent 14 }}
            {{- end }}
        - ipBlock:
            cidr: ::/0
            {{- with $internet.exceptCIDRsV6 }}
            except:
              {{- toYaml . | nindent 14 }}
            {{- end }}
      {{- with $internet.ports }}
      ports:
        {{- range . }}
        - port: {{ . }}
          protocol: TCP
        {{- end }}
      {{- end }}
    {{- end }}
    {{- with $v.networkPolicy.extraEgress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}
{{- end }}
