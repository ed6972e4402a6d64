{{/* The name every object takes: the release's, or the chart's after it. */}}
{{- define "miw.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* What selects the release's Pods. */}}
{{- define "miw.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Every object's labels: the kustomize manifests' two, and Helm's own. */}}
{{- define "miw.labels" -}}
{{ include "miw.selectorLabels" . }}
app.kubernetes.io/part-of: gpustack
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The image: repository, then :tag (appVersion by default), then @digest where one is given. */}}
{{- define "miw.image" -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion -}}
{{- if .Values.image.digest -}}
{{- printf "%s:%s@%s" .Values.image.repository $tag .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/* The Secret the serving certificate is read from. */}}
{{- define "miw.tlsSecret" -}}
{{- if eq .Values.certificates.mode "provided" -}}
{{- required "certificates.provided.secretName is required with certificates.mode=provided" .Values.certificates.provided.secretName -}}
{{- else -}}
{{- printf "%s-tls" (include "miw.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
The self-signed pair, made once per render with genCA and genSignedCert (or
read back from the Secret an earlier release made, so an upgrade keeps it):
a dict of ca, cert and key, PEM.
*/}}
{{- define "miw.selfSigned" -}}
{{- $name := include "miw.fullname" . -}}
{{- $secret := lookup "v1" "Secret" .Release.Namespace (printf "%s-tls" $name) -}}
{{- if and $secret (index ($secret.data | default dict) "ca.crt") -}}
{{- dict "ca" (index $secret.data "ca.crt" | b64dec) "cert" (index $secret.data "tls.crt" | b64dec) "key" (index $secret.data "tls.key" | b64dec) | toJson -}}
{{- else -}}
{{- $ca := genCA (printf "%s CA" $name) 3650 -}}
{{- $dns := list (printf "%s.%s.svc" $name .Release.Namespace) (printf "%s.%s.svc.cluster.local" $name .Release.Namespace) -}}
{{- $cert := genSignedCert (printf "%s.%s.svc" $name .Release.Namespace) nil $dns 825 $ca -}}
{{- dict "ca" $ca.Cert "cert" $cert.Cert "key" $cert.Key | toJson -}}
{{- end -}}
{{- end -}}

{{/* A namespace selector's first term: never kube-system nor the release's own namespace. */}}
{{- define "miw.notSystem" -}}
{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, {{ .Release.Namespace }}]}
{{- end -}}
