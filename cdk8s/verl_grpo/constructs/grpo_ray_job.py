"""The GRPO run: a RayJob, or for the `ray job submit` path a ConfigMap with what to submit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..values.derive import DeploySpec
from .base import WAVE_RUN, ManifestConstruct, image, pod_labels
from .pod_security import HEAD_CONTAINER_SECURITY, NAMESPACED_EXCEPTIONS, POD_SECURITY_CONTEXT
from .preflight_script import submit_config_map_name
from .runtime_env import entrypoint, runtime_env_yaml
from .scheduling import queue_labels
from .verl_ray_cluster import CLUSTER_SPEC_TEMPLATE, VerlRayCluster

if TYPE_CHECKING:
    from constructs import Construct

# The chart's named templates for the RayJob: `<this>.spec` holds its spec, `<this>.digest` the
# digest that ends its name (see Decisions.spec_digest).
RAY_JOB_TEMPLATE = "verl-grpo.rayJob"
# Both run paths (the RayJob, and the ConfigMap `submit` reads for a RayCluster) run the same
# entrypoint with the same runtime env: the chart keeps each once.
ENTRYPOINT_TEMPLATE = "verl-grpo.entrypoint"
RUNTIME_ENV_TEMPLATE = "verl-grpo.runtimeEnv"
SUBMITTER_CONTAINER = "ray-job-submitter"  # KubeRay's name for it (utils.SubmitterContainerName)


SUBMITTER_LABELS = {"app.kubernetes.io/component": "submitter"}


def submitter_pod_template(spec: DeploySpec) -> dict[str, object]:
    """KubeRay's default submitter (ray-operator common/job.go GetDefaultSubmitterContainer,
    v1.4-v1.7: the head's image, requests 500m / 200Mi, limits 1 / 1Gi, restartPolicy Never)
    with the release's labels, so the NetworkPolicy admits it to the dashboard and to nothing
    else, and the pods' hardening. KubeRay fills in its command and env, and with token auth the
    token (rayjob_controller.go configureSubmitterContainer). No service account of ours: it
    talks to the head only, never to the bucket. (A gated block cannot hold gated keys in the
    chart, so this template has none.)"""
    v = spec.values
    return {
        "metadata": {"labels": {**pod_labels(spec.release.name), **SUBMITTER_LABELS}},
        "spec": {
            "automountServiceAccountToken": False,
            "securityContext": POD_SECURITY_CONTEXT,
            # No node selector, as KubeRay's own: the GPU nodes' taint keeps it off them.
            "restartPolicy": "Never",
            "containers": [
                {
                    "name": SUBMITTER_CONTAINER,
                    "image": image(spec),
                    "imagePullPolicy": v.image.pull_policy,
                    "resources": {
                        "requests": {"cpu": "500m", "memory": "200Mi"},
                        "limits": {"cpu": "1", "memory": "1Gi"},
                    },
                    "securityContext": HEAD_CONTAINER_SECURITY,
                }
            ],
        },
    }


class GrpoRayJob(ManifestConstruct):
    def __init__(self, scope: Construct, id: str, spec: DeploySpec, *, cluster: VerlRayCluster) -> None:
        super().__init__(scope, id, spec)
        decide, v, rel = spec.decide, spec.values, spec.release
        ray_job = decide.is_(v.run.kind, "RayJob")
        ray_job_spec = {
            "entrypoint": entrypoint(spec),
            "runtimeEnvYAML": runtime_env_yaml(spec),
            "submissionMode": v.job.submission_mode,
            "shutdownAfterJobFinishes": v.job.shutdown_after_job_finishes,
            "ttlSecondsAfterFinished": v.job.ttl_seconds_after_finished,
            "activeDeadlineSeconds": v.job.active_deadline_seconds,
            # preRunningDeadlineSeconds from KubeRay 1.6 (facts/kuberay.py).
            **spec.derived.rayjob_version_fields,
            "backoffLimit": spec.decide.backoff_limit(v),
            "rayClusterSpec": cluster.spec,
            # SidecarMode refuses a submitter template (ValidateRayJobSpec); HTTPMode has no pod.
            **decide.when(
                decide.is_(v.job.submission_mode, "K8sJobMode"),
                {"submitterPodTemplate": submitter_pod_template(spec)},
            ),
        }
        # KubeRay ignores changes to an existing RayJob: its cluster is made once ("Disregard
        # changes in RayClusterSpec of RayJob", getOrCreateRayClusterInstance) and the job is
        # submitted once with the JobId fixed while New (initRayJobStatusIfNeed); both in
        # ray-operator/controllers/ray/rayjob_controller.go@v1.6.1. So the name follows the
        # spec: a changed run is a new RayJob, which Helm and Argo CD put in place of the old
        # one, and it resumes from run.name's newest checkpoint.
        self.name = f"{rel.name}-{v.run.name}-{spec.decide.spec_digest(ray_job_spec, RAY_JOB_TEMPLATE)}"
        self.add_object(
            "ray-job",
            kind="RayJob",
            name=self.name,
            # After the data-prep Job in Argo CD; kubectl and Flux users get the pre-flight wait.
            wave=WAVE_RUN,
            when=ray_job,
            spec_template=RAY_JOB_TEMPLATE,
            shared={
                "spec/rayClusterSpec": CLUSTER_SPEC_TEMPLATE,
                "spec/entrypoint": ENTRYPOINT_TEMPLATE,
                "spec/runtimeEnvYAML": RUNTIME_ENV_TEMPLATE,
            },
            labels=queue_labels(spec),
            body={"spec": ray_job_spec},
        )
        # The long-lived cluster path: `verl-grpo submit` and `ray job submit` read these.
        self.add_object(
            "submit-config",
            kind="ConfigMap",
            name=submit_config_map_name(spec),
            when=decide.negate(ray_job),
            skips=NAMESPACED_EXCEPTIONS,
            shared={
                "data/entrypoint.sh": ENTRYPOINT_TEMPLATE,
                "data/runtime-env.yaml": RUNTIME_ENV_TEMPLATE,
            },
            body={"data": {"entrypoint.sh": entrypoint(spec), "runtime-env.yaml": runtime_env_yaml(spec)}},
        )
