"""One test module per construct concern, on the shipped renderings and a few variations."""

from __future__ import annotations

import json

import pytest
import yaml

from verl_grpo.constructs.gcs_fuse_storage import CHECKPOINT_OPTIONS, READ_MOSTLY_OPTIONS
from verl_grpo.values.machines import GIB, allocatable_cpu, allocatable_memory_gib, gpu_profiles
from verl_grpo.values.quantity import parse_quantity

from .conftest import objects_of_kind, render_one

CLUSTER_SCOPED = {"GKENetworkParamSet", "Network", "PersistentVolume"}


def ray_cluster_spec(rendering) -> dict:
    for m in (o.manifest for o in rendering.objects):
        if m["kind"] == "RayJob":
            return m["spec"]["rayClusterSpec"]
        if m["kind"] == "RayCluster":
            return m["spec"]
    raise AssertionError("no Ray object")


def pods(rendering):
    spec = ray_cluster_spec(rendering)
    yield "head", spec["headGroupSpec"]["template"]
    for group in spec["workerGroupSpecs"]:
        yield group["groupName"], group["template"]


# --- NetworkMapping ---------------------------------------------------------------------------


def test_network_objects_are_left_to_the_scripts_by_default(shipped):
    """One owner: scripts/40-rdma.sh applies them; a release renders them only when asked."""
    for r in shipped.values():
        assert not objects_of_kind(r, "GKENetworkParamSet") and not objects_of_kind(r, "Network")


@pytest.mark.parametrize("profile", ["b200-standard", "h200-autopilot-raycluster"])
def test_network_mapping_pairs_and_interfaces_agree(profile):
    for r in [render_one("network.createObjects=true", profile=profile)]:
        params = objects_of_kind(r, "GKENetworkParamSet")
        networks = objects_of_kind(r, "Network")
        assert len(params) == len(networks) == 9
        modes = [p["spec"]["deviceMode"] for p in params]
        assert modes == ["NetDevice"] + ["RDMA"] * 8
        assert len({p["spec"]["vpcSubnet"] for p in params}) == 9  # one subnet per device-mode object
        for n in networks:
            assert n["spec"]["parametersRef"]["name"] in {p["metadata"]["name"] for p in params}
        worker = dict(pods(r))["gpu-group"]
        interfaces = json.loads(worker["metadata"]["annotations"]["networking.gke.io/interfaces"])
        assert interfaces[0] == {"interfaceName": "eth0", "network": "default"}
        assert [i["network"] for i in interfaces[1:]] == [n["metadata"]["name"] for n in networks]
        assert [i["interfaceName"] for i in interfaces] == [f"eth{i}" for i in range(10)]


def test_network_names_follow_one_prefix():
    r = render_one("network.prefix=lab7", "network.createObjects=true")
    params = objects_of_kind(r, "GKENetworkParamSet")
    assert {p["spec"]["vpc"] for p in params} == {"lab7-gvnic-net", "lab7-rdma-net"}
    assert all(p["metadata"]["name"].startswith("lab7-") for p in params)


def test_cluster_scoped_objects_carry_no_namespace(shipped):
    for r in shipped.values():
        for o in r.objects:
            m = o.manifest
            if m["kind"] in CLUSTER_SCOPED:
                assert "namespace" not in m["metadata"], m["metadata"]["name"]
            else:
                assert m["metadata"]["namespace"] == "default"


# --- GcsFuseStorage ---------------------------------------------------------------------------


def test_volumes_are_bound_explicitly_and_retained(shipped):
    r = shipped["b200-standard"]
    pvs = {p["metadata"]["name"]: p for p in objects_of_kind(r, "PersistentVolume")}
    for pvc in objects_of_kind(r, "PersistentVolumeClaim"):
        pv = pvs[pvc["spec"]["volumeName"]]
        assert pv["spec"]["claimRef"] == {"namespace": "default", "name": pvc["metadata"]["name"]}
        assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
        # One handle per PV (bucket:suffix): equal handles make kubelet skip the second mount.
        assert pv["spec"]["csi"]["volumeHandle"] == f"verl-grpo-data:{pvc['metadata']['name'].split('-')[-1]}"
        assert pv["spec"]["storageClassName"] == pvc["spec"]["storageClassName"] == ""


@pytest.mark.parametrize("options", [READ_MOSTLY_OPTIONS, CHECKPOINT_OPTIONS])
def test_mount_options_are_coherent(options):
    if "metadata-cache:ttl-secs:0" in options:
        assert not any("cache-max-size-mb:-1" in o for o in options)
    if "file-cache:enable-parallel-downloads:true" in options:
        assert any(o.startswith("file-cache:max-size-mb:") for o in options)


def test_data_is_read_only_and_checkpoints_writable(shipped):
    for _, pod in pods(shipped["h200-standard"]):
        mounts = {m["name"]: m for m in pod["spec"]["containers"][0]["volumeMounts"]}
        assert mounts["data"]["readOnly"] is True
        assert mounts["checkpoints"].get("readOnly", False) is False


def test_sidecar_limits_are_legal_for_the_mode(shipped):
    for name, r in shipped.items():
        for _, pod in pods(r):
            ann = pod["metadata"]["annotations"]
            assert ann["gke-gcsfuse/volumes"] == "true"
            limits = [ann[f"gke-gcsfuse/{k}-limit"] for k in ("cpu", "memory", "ephemeral-storage")]
            if "autopilot" in name:
                assert all(parse_quantity(v) > 0 for v in limits)


def test_autopilot_rejects_unlimited_sidecar():
    from verl_grpo.values.loader import ValuesError

    with pytest.raises(ValuesError, match="storage.sidecar.memoryLimit: '0' .* not allowed on Autopilot"):
        render_one("string:storage.sidecar.memoryLimit=0", profile="b200-autopilot")


# --- VerlRayCluster ---------------------------------------------------------------------------


@pytest.mark.parametrize("gpu", sorted(gpu_profiles()))
def test_worker_requests_fit_the_machine_and_feed_ray(shipped, gpu):
    facts = gpu_profiles()[gpu]
    for name, r in shipped.items():
        if not name.startswith(gpu):
            continue
        worker = dict(pods(r))["gpu-group"]["spec"]["containers"][0]["resources"]
        assert worker["requests"] == worker["limits"]
        cpu, mem = parse_quantity(worker["requests"]["cpu"]), parse_quantity(worker["requests"]["memory"])
        assert 3 * facts.gpus_per_node <= cpu <= allocatable_cpu(facts.vcpu)
        assert mem <= allocatable_memory_gib(facts.memory_gb) * GIB < facts.memory_gb * 10**9
        assert worker["requests"]["nvidia.com/gpu"] == str(facts.gpus_per_node)


def test_worker_requests_beyond_the_machine_are_refused():
    from verl_grpo.values.loader import ValuesError

    with pytest.raises(
        ValuesError,
        match=r"worker.memory: '2800Gi' plus the GCS FUSE sidecars and GKE's DaemonSets \(16.49Gi\) "
        r"exceeds what a3-ultragpu-8g can allocate \(2687.17Gi\); at most 2670.68Gi",
    ):
        render_one("worker.memory=2800Gi", profile="h200-standard")
    with pytest.raises(ValuesError, match=r"worker.cpu: '16' is below 24"):
        render_one("string:worker.cpu=16")
    with pytest.raises(
        ValuesError, match=r"worker.cpu: '230' plus the GCS FUSE sidecars .* at most 219.07 CPUs"
    ):
        render_one("string:worker.cpu=230")


def test_autopilot_worker_leaves_room_for_its_sidecar():
    from verl_grpo.values.loader import ValuesError

    # 2 CPUs of sidecar (Autopilot's cap, request = limit), 50m prefetch, 4 for DaemonSets: 217.
    auto = dict(pods(render_one("cluster.zone=us-central1-b", profile="h200-autopilot")))
    assert auto["gpu-group"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "217"
    assert auto["gpu-group"]["metadata"]["annotations"]["gke-gcsfuse/cpu-limit"] == "2"
    assert auto["gpu-group"]["metadata"]["annotations"]["gke-gcsfuse/memory-limit"] == "14Gi"
    with pytest.raises(ValuesError, match=r"storage.sidecar.cpuLimit: '8' exceeds what Autopilot gives"):
        render_one(
            "cluster.zone=us-central1-b", "string:storage.sidecar.cpuLimit=8", profile="h200-autopilot"
        )
    with pytest.raises(ValuesError, match=r"storage.sidecar.memoryLimit: '32Gi' exceeds"):
        render_one("cluster.zone=us-central1-b", "storage.sidecar.memoryLimit=32Gi", profile="h200-autopilot")


def test_cpu_pool_must_hold_head_data_prep_and_submitter():
    from verl_grpo.values.loader import ValuesError

    # Before: one c2-standard-16 with the default 100 GB disk; the head and the data-prep Job
    # (12 + 8 CPUs, 50Gi + 100Gi ephemeral) cannot share it.
    with pytest.raises(ValuesError) as err:
        render_one("cluster.cpuNodeCount=1", "cluster.cpuDiskSizeGb=100")
    text = "\n".join(err.value.problems)
    assert (
        "the data-prep Job (8.3 CPU, 32.5Gi memory, 105Gi ephemeral) fits on none of the 1 c2-standard-16"
        in text
    )
    assert "the Ray head (12.3 CPU, 40.5Gi memory, 55Gi ephemeral) fits on none" in text  # 45Gi of disk
    render_one("cluster.cpuNodeCount=1", "cluster.cpuMachineType=c2-standard-30", "cluster.cpuDiskSizeGb=400")
    with pytest.raises(ValuesError, match="the Ray head .* fits on none of the 2 c2-standard-8 nodes"):
        render_one("cluster.cpuMachineType=c2-standard-8")
    render_one("dataPrep.enabled=false", "cluster.cpuNodeCount=1")  # the head alone fits one node


def test_selectors_per_mode(shipped):
    std = dict(pods(shipped["b200-standard"]))
    auto = dict(pods(shipped["b200-autopilot"]))
    assert std["head"]["spec"]["nodeSelector"] == {"cloud.google.com/gke-nodepool": "default-pool"}
    assert auto["head"]["spec"]["nodeSelector"]["cloud.google.com/compute-class"] == "Performance"
    assert auto["gpu-group"]["spec"]["nodeSelector"] == {
        "cloud.google.com/gke-accelerator": "nvidia-b200",
        "cloud.google.com/gke-accelerator-count": "8",
        "cloud.google.com/gke-spot": "true",
        "topology.kubernetes.io/zone": "us-central1-b",
    }


CAPACITY_SELECTORS = {
    ("standard", "spot"): {"cloud.google.com/gke-spot": "true"},
    ("standard", "reservation"): {},
    ("standard", "flex-start"): {"cloud.google.com/gke-flex-start": "true"},
    ("standard", "on-demand"): {},
    ("autopilot", "spot"): {"cloud.google.com/gke-spot": "true"},
    ("autopilot", "reservation"): {
        "cloud.google.com/reservation-name": "res-a",
        "cloud.google.com/reservation-affinity": "specific",
    },
    ("autopilot", "flex-start"): {"cloud.google.com/gke-flex-start": "true"},
    ("autopilot", "on-demand"): {},
}
POOL_FLAGS = {
    "spot": ["--spot"],
    "reservation": ["--reservation-affinity=specific", "--reservation=res-a"],
    "flex-start": ["--flex-start", "--reservation-affinity=none", "--no-enable-autorepair"],
    "on-demand": [],
}


@pytest.mark.parametrize(("mode", "capacity"), sorted(CAPACITY_SELECTORS))
def test_capacity_decides_pool_flags_and_selectors_together(mode, capacity):
    """Every capacity in both modes: the selectors select what the pool's flags make."""
    from verl_grpo.profiles import find_profile
    from verl_grpo.shell_env import shell_env

    sets = [f"cluster.capacity={capacity}", "cluster.zone=us-central1-b"]
    if capacity == "reservation":
        sets.append("cluster.reservation=res-a")
    r = render_one(*sets, profile=f"h200-{mode}")
    selector = dict(pods(r))["gpu-group"]["spec"]["nodeSelector"]
    capacity_keys = {k: v for k, v in selector.items() if "accelerator" not in k and "zone" not in k}
    assert capacity_keys == CAPACITY_SELECTORS[(mode, capacity)]
    flags = shell_env(r.spec, find_profile(f"h200-{mode}"))["GPU_POOL_FLAGS"].split()
    autoscale = ["--enable-autoscaling", "--num-nodes=0", "--total-min-nodes=0", "--location-policy=ANY"]
    assert flags == [*POOL_FLAGS[capacity], *autoscale, "--total-max-nodes=2"]
    # What the pool flags make is what the workers ask for: a spot pool gets the spot label, a
    # flex-start pool the flex-start label (GKE's autoscaler constants), nothing else does.
    assert ("cloud.google.com/gke-spot" in selector) == ("--spot" in flags)
    assert ("cloud.google.com/gke-flex-start" in selector) == ("--flex-start" in flags)
    assert ("topology.kubernetes.io/zone" in selector) == (mode == "autopilot")


def test_capacity_inputs_are_checked():
    from verl_grpo.values.loader import ValuesError

    with pytest.raises(
        ValuesError, match="cluster.reservation: required with cluster.capacity 'reservation'"
    ):
        render_one("cluster.capacity=reservation")
    with pytest.raises(ValuesError, match="cluster.reservation: 'res-a' is only used with"):
        render_one("cluster.reservation=res-a")
    with pytest.raises(ValuesError, match="cluster.zone: required on Autopilot"):
        render_one("cluster.zone=", profile="b200-autopilot")


def test_ray_start_params_and_version(shipped):
    for r in shipped.values():
        spec = ray_cluster_spec(r)
        assert spec["rayVersion"] == "2.47.0"
        for group in [spec["headGroupSpec"], *spec["workerGroupSpecs"]]:
            assert all(isinstance(v, str) for v in group["rayStartParams"].values())
        group = spec["workerGroupSpecs"][0]
        assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]


def test_host_paths_are_exactly_the_gpu_stack_and_read_only(shipped):
    for r in shipped.values():
        for _, pod in pods(r):
            host = {v["name"]: v["hostPath"]["path"] for v in pod["spec"]["volumes"] if "hostPath" in v}
            mounts = {m["name"]: m for c in pod["spec"]["containers"] for m in c["volumeMounts"]}
            assert set(host) <= {"nvidia", "gib"}
            for name in host:
                assert mounts[name]["readOnly"] is True
            declared = {v["name"] for v in pod["spec"]["volumes"]}
            assert declared == set(mounts)  # nothing declared that is not mounted


# --- GrpoRayJob and runtime env -----------------------------------------------------------------


def test_one_profile_starts_one_gpu_cluster(shipped):
    for name, r in shipped.items():
        kinds = [o.manifest["kind"] for o in r.objects]
        assert kinds.count("RayJob") + kinds.count("RayCluster") == 1, name
        assert ("RayCluster" in kinds) == name.endswith("raycluster")


def test_ray_job_settings(shipped):
    (job,) = objects_of_kind(shipped["h200-standard"], "RayJob")
    s = job["spec"]
    assert job["metadata"]["name"] == "verl-grpo-001"
    assert s["shutdownAfterJobFinishes"] is True and s["ttlSecondsAfterFinished"] > 0
    assert s["backoffLimit"] >= 1 and s["submissionMode"] == "K8sJobMode"
    env = yaml.safe_load(s["runtimeEnvYAML"])
    assert set(env) == {"env_vars"}
    assert all(isinstance(v, str) for v in env["env_vars"].values())
    assert env["env_vars"]["NCCL_NET"] == "gIB"
    # One command: the pre-flight, which execs verl (the words after its `--`).
    preflight, verl = s["entrypoint"].split(" -- \\\n  ", 1)
    assert preflight.startswith(
        "python3 /opt/verl-grpo/preflight.py --model /data/models/Qwen2.5-32B-Instruct"
    )
    assert "--gpus-per-node 8 --nodes 2 --wait 1800" in preflight
    assert verl.startswith("python3 -m verl.trainer.main_ppo")
    assert "&&" not in s["entrypoint"] and ";" not in s["entrypoint"]
    assert s["ttlSecondsAfterFinished"] == 300  # minutes, not an hour of idle GPUs


def test_entrypoint_carries_training_values(tmp_path):
    values = tmp_path / "v.yaml"
    values.write_text("training: {learningRate: 2.0e-07, gpuMemoryUtilization: 0.55}\n")
    r = render_one(
        "training.extraArgs={trainer.val_before_train=false}",
        "training.logger={console,wandb}",
        "worker.replicas=4",
        "run.name=exp-7",
        files=[values],
    )
    (job,) = objects_of_kind(r, "RayJob")
    ep = job["spec"]["entrypoint"]
    assert "'trainer.nnodes=4'" in ep
    assert "'actor_rollout_ref.actor.optim.lr=2e-7'" in ep  # Go's JSON number format, as Helm prints it
    assert "'actor_rollout_ref.rollout.gpu_memory_utilization=0.55'" in ep
    assert "'trainer.logger=[console,wandb]'" in ep
    assert "'trainer.experiment_name=exp-7'" in ep
    assert "'trainer.default_local_dir=/checkpoints/verl-grpo/exp-7'" in ep
    assert ep.rstrip().endswith("'trainer.resume_mode=auto' trainer.val_before_train=false")
    assert job["metadata"]["name"] == "verl-exp-7"


def test_ray_job_name_limit():
    from verl_grpo.synth import Request, synthesize
    from verl_grpo.values.derive import Release
    from verl_grpo.values.loader import ValuesError

    long_release = Release("r" * 10, "default")
    with pytest.raises(ValuesError, match="run.name: RayJob name .* is 48 characters; KubeRay allows 47"):
        synthesize([Request("x", None, (), ("run.name=" + "a" * 37,), long_release)])
    synthesize([Request("x", None, (), ("run.name=" + "a" * 36,), long_release)])


def test_ttl_needs_shutdown():
    from verl_grpo.values.loader import ValuesError

    with pytest.raises(ValuesError, match="job.ttlSecondsAfterFinished: > 0 needs"):
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
    from verl_grpo.values.loader import ValuesError

    with pytest.raises(ValuesError) as err:
        render_one(*sets)
    assert any(needle in p for p in err.value.problems), err.value.problems


@pytest.mark.parametrize("extra", ["x=1;rm -rf /", "x=1 && echo", "x=$(id)", "x=1 > /tmp/y", "'x=1"])
def test_extra_args_cannot_split_the_entrypoint(extra):
    from verl_grpo.values.loader import ValuesError

    with pytest.raises(ValuesError, match="training.extraArgs: the entrypoint is not"):
        render_one(f"training.extraArgs={{{extra}}}")
