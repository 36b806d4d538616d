"""Which KubeRay operator versions the chart renders for, and what each one knows.

`kuberay.version` names the operator in the cluster (GKE's Ray add-on or the kuberay-operator
Helm chart). Fields and modes that only newer operators know are rendered, or allowed, only for
them: an older operator's CRD prunes an unknown field silently (or a strict apply refuses it).
"""

from __future__ import annotations

# The supported minors: 1.4 to 1.7. The tier (tests/controlplane) runs the operators 1.4.2, 1.5.1
# and 1.6.1 built from their Go modules; `validate` checks objects against v1.6.2's CRDs, the newest
# the Go module proxy serves (tools/module_crds.py): the kit renders no field newer than 1.6.0.
# A bounded patch number: Helm's semverCompare fails on one that overflows uint64.
VERSION_PATTERN = r"^1\.[4-7]\.(0|[1-9][0-9]{0,3})$"
DEFAULT_VERSION = "1.6.1"

# RayJob spec fields we render that exist only from a version on. Source: the field in
# ray-operator/apis/ray/v1/rayjob_types.go at each tag (absent at v1.5.1, present at v1.6.0).
RAYJOB_FIELD_SINCE: dict[str, str] = {"preRunningDeadlineSeconds": "1.6.0"}

# RayJob submissionMode values and the version that added them. Source: JobSubmissionMode in
# ray-operator/apis/ray/v1/rayjob_types.go (SidecarMode absent at v1.4.2, present at v1.5.0).
SUBMISSION_MODE_SINCE: dict[str, str] = {"K8sJobMode": "1.0.0", "HTTPMode": "1.0.0", "SidecarMode": "1.5.0"}

# Token authentication of the Ray dashboard, Jobs API and Ray's RPCs (RAY_AUTH_MODE=token): from
# Ray 2.52.0 (ray python/ray/_private/authentication/, docs/research/issue-27-security-facts.md §1).
# KubeRay renders it from RayCluster spec.authOptions.mode (v1.5.1) and takes the token from our
# own Secret with authOptions.secretName (v1.6.0); without secretName it makes a Secret named
# after the cluster, which a RayJob's generated cluster name makes unknowable in advance
# (ray-operator/apis/ray/v1/raycluster_types.go AuthOptions; controllers/ray/raycluster_controller.go).
RAY_TOKEN_AUTH_SINCE = "2.52.0"
AUTH_SECRET_SINCE = "1.6.0"

# The longest names KubeRay accepts: it derives the names of a RayJob's cluster and submitter from
# the RayJob's, and of a RayCluster's pods and services from the RayCluster's, and refuses longer
# ones at reconcile time (ray-operator/controllers/ray/utils/validation.go).
NAME_MAX: dict[str, int] = {"RayJob": 47, "RayCluster": 53}

# The Ray dashboard's port (Ray's default `--dashboard-port`), which KubeRay's operator polls for
# job status (ray-operator utils FetchHeadServiceURL: <head-svc>.<ns>.svc.cluster.local:<port>),
# the NetworkPolicy opens, and `verl-grpo submit`/`status` port-forward to.
DASHBOARD_PORT = 8265
