"""The GRPO run: a RayJob, or for the `ray job submit` path a ConfigMap with what to submit."""

from __future__ import annotations

from constructs import Construct

from ..values.derive import DeploySpec
from .base import WAVE_RUN, ManifestConstruct
from .pod_security import NAMESPACED_EXCEPTIONS
from .preflight_script import submit_config_map_name
from .runtime_env import entrypoint, runtime_env_yaml
from .scheduling import queue_labels
from .verl_ray_cluster import CLUSTER_SPEC_TEMPLATE, VerlRayCluster

# The chart's named templates for the RayJob: `<this>.spec` holds its spec, `<this>.digest` the
# digest that ends its name (see Ops.spec_digest).
RAY_JOB_TEMPLATE = "verl-grpo.rayJob"
# Both run paths (the RayJob, and the ConfigMap `submit` reads for a RayCluster) run the same
# entrypoint with the same runtime env: the chart keeps each once.
ENTRYPOINT_TEMPLATE = "verl-grpo.entrypoint"
RUNTIME_ENV_TEMPLATE = "verl-grpo.runtimeEnv"


class GrpoRayJob(ManifestConstruct):
    def __init__(self, scope: Construct, id: str, spec: DeploySpec, *, cluster: VerlRayCluster) -> None:
        super().__init__(scope, id, spec.release.namespace)
        v, rel = spec.values, spec.release
        if v.run.kind == "RayJob":
            ray_job_spec = {
                "entrypoint": entrypoint(spec),
                "runtimeEnvYAML": runtime_env_yaml(spec),
                "submissionMode": v.job.submission_mode,
                "shutdownAfterJobFinishes": v.job.shutdown_after_job_finishes,
                "ttlSecondsAfterFinished": v.job.ttl_seconds_after_finished,
                "activeDeadlineSeconds": v.job.active_deadline_seconds,
                # preRunningDeadlineSeconds from KubeRay 1.6 (values/kuberay.py).
                **spec.derived.rayjob_version_fields,
                "backoffLimit": v.job.backoff_limit,
                "rayClusterSpec": cluster.spec,
            }
            # KubeRay ignores changes to an existing RayJob: its cluster is made once ("Disregard
            # changes in RayClusterSpec of RayJob", getOrCreateRayClusterInstance) and the job is
            # submitted once with the JobId fixed while New (initRayJobStatusIfNeed); both in
            # ray-operator/controllers/ray/rayjob_controller.go@v1.6.1. So the name follows the
            # spec: a changed run is a new RayJob, which Helm and Argo CD put in place of the old
            # one, and it resumes from run.name's newest checkpoint.
            self.name = f"{rel.name}-{v.run.name}-{spec.ops.spec_digest(ray_job_spec, RAY_JOB_TEMPLATE)}"
            self.add_object(
                "ray-job",
                kind="RayJob",
                name=self.name,
                # After the data-prep Job in Argo CD; kubectl and Flux users get the pre-flight wait.
                wave=WAVE_RUN,
                spec_template=RAY_JOB_TEMPLATE,
                shared={
                    "spec/rayClusterSpec": CLUSTER_SPEC_TEMPLATE,
                    "spec/entrypoint": ENTRYPOINT_TEMPLATE,
                    "spec/runtimeEnvYAML": RUNTIME_ENV_TEMPLATE,
                },
                labels=queue_labels(spec),
                body={"spec": ray_job_spec},
            )
        else:
            # The long-lived cluster path: `verl-grpo submit` and `ray job submit` read these.
            self.add_object(
                "submit-config",
                kind="ConfigMap",
                name=submit_config_map_name(spec),
                skips=NAMESPACED_EXCEPTIONS,
                shared={
                    "data/entrypoint.sh": ENTRYPOINT_TEMPLATE,
                    "data/runtime-env.yaml": RUNTIME_ENV_TEMPLATE,
                },
                body={
                    "data": {"entrypoint.sh": entrypoint(spec), "runtime-env.yaml": runtime_env_yaml(spec)}
                },
            )
