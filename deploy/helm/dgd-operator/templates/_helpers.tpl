{{/* Names, labels, images and value checks shared by the templates. */}}

{{/* The chart name, or nameOverride: the app.kubernetes.io/name label. */}}
{{- define "dgd-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object name: fullnameOverride, else the release name when it holds
the chart name (release "dgd-operator" names its objects "dgd-operator"), else
"<release>-<name>". 63 characters at most (a label value and a Service name).
*/}}
{{- define "dgd-operator.fullname" -}}
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

{{/*
The name of a cluster-scoped object, and of an object outside the release namespace:
"<fullname>-<release namespace>", so releases of the same name in two namespaces never
share (and overwrite) one.
*/}}
{{- define "dgd-operator.clusterName" -}}
{{- printf "%s-%s" (include "dgd-operator.fullname" .) .Release.Namespace | trunc 253 | trimSuffix "-" }}
{{- end }}

{{- define "dgd-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* What selects the release's operator pods (immutable in the Deployment: never change). */}}
{{- define "dgd-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dgd-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The standard labels of every object; (dict "ctx" $ "component" "operator"). */}}
{{- define "dgd-operator.labels" -}}
helm.sh/chart: {{ include "dgd-operator.chart" .ctx }}
{{ include "dgd-operator.selectorLabels" .ctx }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: dgd-operator
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* The operator pods (selector labels plus the component). */}}
{{- define "dgd-operator.podSelectorLabels" -}}
{{ include "dgd-operator.selectorLabels" . }}
app.kubernetes.io/component: operator
{{- end }}

{{/*
An image reference from (dict "image" .Values.image "global" .Values.global "tag" default):
[registry/]repository then @digest, or :tag (the default when tag is "").
*/}}
{{- define "dgd-operator.image" -}}
{{- $registry := .image.registry }}
{{- with .global.imageRegistry }}{{ $registry = . }}{{ end }}
{{- $ref := .image.repository }}
{{- if $registry }}{{ $ref = printf "%s/%s" $registry $ref }}{{ end }}
{{- if .image.digest }}
{{- printf "%s@%s" $ref .image.digest }}
{{- else }}
{{- printf "%s:%v" $ref (.image.tag | default .tag) }}
{{- end }}
{{- end }}

{{/* The pull secrets of a pod: global.imagePullSecrets then imagePullSecrets. */}}
{{- define "dgd-operator.imagePullSecrets" -}}
{{- concat .Values.global.imagePullSecrets .Values.imagePullSecrets | uniq | toYaml }}
{{- end }}

{{- define "dgd-operator.leaseName" -}}
{{- .Values.leaderElection.leaseName | default (printf "%s-leader" (include "dgd-operator.fullname" .)) }}
{{- end }}

{{/* Values that contradict each other: refused with a message naming them. */}}
{{- define "dgd-operator.validate" -}}
{{- $le := .Values.leaderElection }}
{{- if and (not $le.enabled) (gt (int .Values.replicaCount) 1) }}
{{- fail (printf "leaderElection.enabled=false with replicaCount=%d: every replica would reconcile and write the same objects; set replicaCount: 1 or enable leader election" (int .Values.replicaCount)) }}
{{- end }}
{{- if $le.enabled }}
{{- if le (float64 $le.leaseDuration) (float64 $le.renewDeadline) }}
{{- fail (printf "leaderElection.leaseDuration (%v) must be greater than leaderElection.renewDeadline (%v)" $le.leaseDuration $le.renewDeadline) }}
{{- end }}
{{- if le (float64 $le.renewDeadline) (mulf (float64 $le.retryPeriod) 1.2) }}
{{- fail (printf "leaderElection.renewDeadline (%v) must be greater than 1.2 x leaderElection.retryPeriod (%v)" $le.renewDeadline $le.retryPeriod) }}
{{- end }}
{{- end }}
{{- if eq (int .Values.metrics.port) (int .Values.health.port) }}
{{- fail (printf "metrics.port and health.port are both %d: the two servers need two ports" (int .Values.metrics.port)) }}
{{- end }}
{{- end }}

{{/* The ClusterRole each namespace's planner-serviceaccount is bound to (planner-clusterrole.yaml). */}}
{{- define "dgd-operator.plannerClusterRole" -}}
{{- printf "%s-planner" (include "dgd-operator.clusterName" .) | trunc 253 | trimSuffix "-" }}
{{- end }}
