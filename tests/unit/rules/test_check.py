"""rules/check.py: the kit's cross-field rules refuse what the schema cannot, naming key and limit."""

from __future__ import annotations

import pytest

from verl_grpo.problems import Problems
from verl_grpo.values.helm_sets import SET_STRING

from ...conftest import DIST_VALUES, pods, render_one


def test_autopilot_rejects_unlimited_sidecar():
    from verl_grpo.problems import Problems

    with pytest.raises(Problems, match="storage.sidecar.memoryLimit: '0' .* not allowed on Autopilot"):
        render_one(SET_STRING + "storage.sidecar.memoryLimit=0", profile="b200-autopilot")


def test_worker_requests_beyond_the_machine_are_refused():
    from verl_grpo.problems import Problems

    with pytest.raises(
        Problems,
        match=r"worker.memory: '2800Gi' plus the sidecars \(GCS FUSE, log shipper\) and GKE's DaemonSets "
        r"\(16.74Gi\) exceeds what a3-ultragpu-8g can allocate \(2687.17Gi\); at most 2670.43Gi",
    ):
        render_one("worker.memory=2800Gi", profile="h200-standard")
    # the run's verl asks per GPU bundle: 0.6.1 one CPU, 0.9.1 three (data/verl/<version>.yaml)
    with pytest.raises(Problems, match=r"worker.cpu: '7' is below 8: verl 0.6.1 places 1 CPUs"):
        render_one(SET_STRING + "worker.cpu=7")
    with pytest.raises(Problems, match=r"worker.cpu: '16' is below 24: verl 0.9.1 places 3 CPUs"):
        render_one(SET_STRING + "worker.cpu=16", "training.verlVersion=0.9.1", "image.tag=vllm024.dev2")
    with pytest.raises(Problems, match=r"worker.cpu: '230' plus the sidecars .* at most 218.97 CPUs"):
        render_one(SET_STRING + "worker.cpu=230")


def test_autopilot_worker_leaves_room_for_its_sidecar():
    from verl_grpo.problems import Problems

    # 2 CPUs of sidecar (Autopilot's cap, request = limit), 50m prefetch, 4 for DaemonSets: 217.
    auto = dict(pods(render_one("cluster.zone=us-central1-b", profile="h200-autopilot")))
    assert auto["gpu-group"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "217"
    assert auto["gpu-group"]["metadata"]["annotations"]["gke-gcsfuse/cpu-limit"] == "2"
    assert auto["gpu-group"]["metadata"]["annotations"]["gke-gcsfuse/memory-limit"] == "14Gi"
    with pytest.raises(Problems, match=r"storage.sidecar.cpuLimit: '8' exceeds what Autopilot gives"):
        render_one(
            "cluster.zone=us-central1-b", SET_STRING + "storage.sidecar.cpuLimit=8", profile="h200-autopilot"
        )
    with pytest.raises(Problems, match=r"storage.sidecar.memoryLimit: '32Gi' exceeds"):
        render_one("cluster.zone=us-central1-b", "storage.sidecar.memoryLimit=32Gi", profile="h200-autopilot")


def test_cpu_pool_must_hold_head_data_prep_and_submitter():
    from verl_grpo.problems import Problems

    # Before: one c2-standard-16 with the default 100 GB disk; the head and the data-prep Job
    # (12 + 8 CPUs, 50Gi + 100Gi ephemeral) cannot share it.
    with pytest.raises(Problems) as err:
        render_one("cluster.cpuNodeCount=1", "cluster.cpuDiskSizeGb=100")
    text = str(err.value)
    assert (
        "the data-prep Job (8.3 CPU, 32.5Gi memory, 105Gi ephemeral) fits on none of the 1 c2-standard-16"
        in text
    )
    assert "the Ray head (12.4 CPU, 40.7Gi memory, 55Gi ephemeral) fits on none" in text  # 45Gi of disk
    render_one("cluster.cpuNodeCount=1", "cluster.cpuMachineType=c2-standard-30", "cluster.cpuDiskSizeGb=400")
    with pytest.raises(Problems, match="the Ray head .* fits on none of the 2 c2-standard-8 nodes"):
        render_one("cluster.cpuMachineType=c2-standard-8")
    render_one("dataPrep.enabled=false", "cluster.cpuNodeCount=1")  # the head alone fits one node


def test_capacity_inputs_are_checked():
    from verl_grpo.problems import Problems

    with pytest.raises(Problems, match="cluster.reservation: required with capacity 'reservation'"):
        render_one("cluster.capacity=reservation")
    with pytest.raises(Problems, match="cluster.reservation: 'res-a' is only used with"):
        render_one("cluster.reservation=res-a")
    with pytest.raises(Problems, match="cluster.zone: required on Autopilot"):
        render_one("cluster.zone=", profile="b200-autopilot")


def test_ray_job_name_limit():
    from verl_grpo.pipeline import Request, synthesize
    from verl_grpo.problems import Problems
    from verl_grpo.values.derive import Release

    long_release = Release("r" * 10, "default")
    # <release>-<run.name>-<8 hex digits>: 10 + 1 + 28 + 9 = 48.
    with pytest.raises(Problems, match="run.name: RayJob name .* is 48 characters; KubeRay allows 47"):
        synthesize([Request("x", None, (DIST_VALUES,), ("run.name=" + "a" * 28,), long_release)])
    synthesize([Request("x", None, (DIST_VALUES,), ("run.name=" + "a" * 27,), long_release)])


def test_sidecar_mode_needs_kuberay_1_5():
    from verl_grpo.problems import Problems

    with pytest.raises(
        Problems,
        match=r"job.submissionMode: 'SidecarMode' needs KubeRay 1.5.0 or newer; kuberay.version is '1.4.2'",
    ):
        render_one("job.submissionMode=SidecarMode", "kuberay.version=1.4.2")
    render_one("job.submissionMode=SidecarMode", "kuberay.version=1.5.0")
    render_one("job.submissionMode=HTTPMode", "kuberay.version=1.4.2")


def test_ttl_needs_shutdown():
    from verl_grpo.problems import Problems

    with pytest.raises(Problems, match="job.ttlSecondsAfterFinished: > 0 needs"):
        render_one("job.shutdownAfterJobFinishes=false")
    render_one("job.shutdownAfterJobFinishes=false", "job.ttlSecondsAfterFinished=0")


@pytest.mark.parametrize(
    ("sets", "needle"),
    [
        (["storage.checkpointMountPath=/data"], "checkpointMountPath: '/data' overlaps storage.mountPath"),
        (["storage.mountPath=/usr/local/nvidia/x"], "mountPath: '/usr/local/nvidia/x' overlaps the NVIDIA"),
        (["storage.checkpointMountPath=/data/ckpt"], "overlaps storage.mountPath"),
    ],
)
def test_mount_paths_must_be_disjoint(sets, needle):
    from verl_grpo.problems import Problems

    with pytest.raises(Problems) as err:
        render_one(*sets)
    assert any(needle in p.line() for p in err.value.problems), str(err.value)


@pytest.mark.parametrize(
    ("sets", "needle"),
    [
        (["storage.dataDir=models"], "storage.dataDir: 'models' overlaps storage.modelDir"),
        (["storage.checkpointDir=verl"], "storage.checkpointDir: 'verl' overlaps storage.verlDir ('verl')"),
        (["storage.verlDir=data/gsm8k/verl"], "storage.verlDir: 'data/gsm8k/verl' overlaps storage.dataDir"),
    ],
)
def test_bucket_folders_must_be_disjoint(sets, needle):
    """Each folder is its own FUSE volume, mounted at mountPath/<dir>: one inside another would be
    mounted inside a read-only mount."""
    with pytest.raises(Problems) as err:
        render_one(*sets)
    assert any(needle in p.line() for p in err.value.problems), str(err.value)
    render_one("storage.dataDir=datasets/gsm8k", "storage.checkpointDir=runs")


def test_sglang_needs_an_image_with_sglang():
    """verl's vllm* images are built on vLLM's release image (verl docker/README.md): no SGLang."""
    with pytest.raises(Problems) as err:
        render_one("training.rolloutName=sglang")
    (problem,) = [p for p in err.value.problems if p.rule == "image-has-rollout"]
    assert problem.key == "training.rolloutName" and "verlai/verl:vllm011.dev7" in problem.message
    render_one("training.rolloutName=sglang", "image.tag=sgl055.dev2")
    render_one("training.rolloutName=sglang", "image.repository=example.com/my/verl")


@pytest.mark.parametrize("extra", ["x=1;rm -rf /", "x=1 && echo", "x=$(id)", "x=1 > /tmp/y", "'x=1"])
def test_extra_args_cannot_split_the_entrypoint(extra):
    from verl_grpo.problems import Problems

    with pytest.raises(Problems, match="training.extraArgs: the entrypoint is not"):
        render_one(f"training.extraArgs={{{extra}}}")


def test_a_mini_batch_above_the_train_batch_is_refused_unless_batch_sizes_are_dynamic():
    """verl refuses it at start-up unless batch sizes are dynamic (verl_check/rules.py, checked
    against verl itself): the kit's rule (also in the chart) refuses what verl does, no more."""
    base = ("training.trainBatchSize=64", "training.ppoMiniBatchSize=128")
    with pytest.raises(
        Problems, match=r"ppoMiniBatchSize: 128 exceeds trainBatchSize 64 .*\[verl-mini-within-train\]"
    ):
        render_one(*base, profile="h200-standard")
    dynamic = "training.extraArgs={actor_rollout_ref.actor.use_dynamic_bsz=true}"
    assert render_one(*base, dynamic, profile="h200-standard").objects
