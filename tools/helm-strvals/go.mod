module verl-grpo.tools/helm-strvals

go 1.26.0

require helm.sh/helm/v4 v4.1.4

require (
	go.yaml.in/yaml/v2 v2.4.3 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)
