"""The GRPO run: a RayJob, or for the `ray job submit` path a ConfigMap with what to submit."""

from __future__ import annotations

from constructs import Construct

from ..values.derive import DeploySpec
from .base import WAVE_RUN, ManifestConstruct
from .pod_security import NAMESPACED_EXCEPTIONS, skip_annotations
from .preflight_script import submit_config_map_name
from .runtime_env import entrypoint, runtime_env_yaml
from .verl_ray_cluster import VerlRayCluster


class GrpoRayJob(ManifestConstruct):
    def __init__(self, scope: Construct, id: str, spec: DeploySpec, *, cluster: VerlRayCluster) -> None:
        super().__init__(scope, id)
        v, rel = spec.values, spec.release
        self.name = f"{rel.name}-{v.run.name}"
        if v.run.kind == "RayJob":
            self.add_object(
                "ray-job",
                api_version="ray.io/v1",
                kind="RayJob",
                name=self.name,
                namespace=rel.namespace,
                # After the data-prep Job in Argo CD; kubectl and Flux users get the pre-flight wait.
                wave=WAVE_RUN,
                body={
                    "spec": {
                        "entrypoint": entrypoint(spec),
                        "runtimeEnvYAML": runtime_env_yaml(spec),
                        "submissionMode": v.job.submission_mode,
                        "shutdownAfterJobFinishes": v.job.shutdown_after_job_finishes,
                        "ttlSecondsAfterFinished": v.job.ttl_seconds_after_finished,
                        "activeDeadlineSeconds": v.job.active_deadline_seconds,
                        "preRunningDeadlineSeconds": v.job.pre_running_deadline_seconds,
                        "backoffLimit": v.job.backoff_limit,
                        "rayClusterSpec": cluster.spec,
                    }
                },
            )
        else:
            # The long-lived cluster path: `verl-grpo submit` and `ray job submit` read these.
            self.add_object(
                "submit-config",
                api_version="v1",
                kind="ConfigMap",
                name=submit_config_map_name(spec),
                namespace=rel.namespace,
                annotations=skip_annotations(NAMESPACED_EXCEPTIONS),
                body={
                    "data": {"entrypoint.sh": entrypoint(spec), "runtime-env.yaml": runtime_env_yaml(spec)}
                },
            )
