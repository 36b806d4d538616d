"""constructs/gcs_fuse_storage.py: the bucket's PVs, claims and FUSE mount options."""

from __future__ import annotations

import pytest

from verl_grpo.constructs.gcs_fuse_storage import CHECKPOINT_OPTIONS, FILE_CACHE_OPTIONS, READ_MOSTLY_OPTIONS
from verl_grpo.facts.quantity import parse_quantity

from ...conftest import objects_of_kind, pods


def test_volumes_are_bound_explicitly_and_retained(shipped):
    r = shipped["b200-standard"]
    pvs = {p["metadata"]["name"]: p for p in objects_of_kind(r, "PersistentVolume")}
    for pvc in objects_of_kind(r, "PersistentVolumeClaim"):
        pv = pvs[pvc["spec"]["volumeName"]]
        assert pv["spec"]["claimRef"] == {"namespace": "default", "name": pvc["metadata"]["name"]}
        assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
        # One handle per PV (bucket:suffix): equal handles make kubelet skip the second mount.
        role = pvc["metadata"]["name"].split("-")[1]
        assert pv["spec"]["csi"]["volumeHandle"] == f"replace-me-with-your-bucket:{role}"
        assert pv["spec"]["storageClassName"] == pvc["spec"]["storageClassName"] == ""


FOLDERS = {
    "model": ("models/Qwen2.5-32B-Instruct", "/data/models/Qwen2.5-32B-Instruct"),
    "data": ("data/gsm8k", "/data/data/gsm8k"),
    "verl": ("verl", "/data/verl"),
    "checkpoints": ("checkpoints", "/checkpoints"),
}


def test_each_volume_serves_one_folder_at_its_old_path(shipped):
    """No volume mounts the whole bucket: a pod's metadata prefetch walks the folder it reads, not
    the checkpoints and logs, and each mount is one folder the scripts grant. The paths the pods
    use are those of the whole-bucket mount at /data."""
    r = shipped["h200-standard"]
    pvs = {p["metadata"]["name"]: p for p in objects_of_kind(r, "PersistentVolume")}
    claims = {
        c["metadata"]["name"]: pvs[c["spec"]["volumeName"]]
        for c in objects_of_kind(r, "PersistentVolumeClaim")
    }
    only_dir = {
        pv["spec"]["csi"]["volumeHandle"].split(":")[1]: [
            o.split("=", 1)[1] for o in pv["spec"]["mountOptions"] if o.startswith("only-dir=")
        ]
        for pv in pvs.values()
    }
    assert only_dir == {role: [folder] for role, (folder, _) in FOLDERS.items()}
    for name, pod in pods(r):
        volumes = {
            v["name"]: v["persistentVolumeClaim"]["claimName"]
            for v in pod["spec"]["volumes"]
            if "persistentVolumeClaim" in v
        }
        mounts = {
            m["name"]: m["mountPath"]
            for m in pod["spec"]["containers"][0]["volumeMounts"]
            if m["name"] in volumes
        }
        assert mounts == {role: path for role, (_, path) in FOLDERS.items()}, name
        prefetched = {
            role
            for role, claim in volumes.items()
            if claims[claim]["spec"]["csi"]["volumeAttributes"].get("gcsfuseMetadataPrefetchOnMount")
        }
        assert prefetched == {"model", "data", "verl"}, name
    (job,) = objects_of_kind(r, "Job")
    spec = job["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    writes = {m["name"]: m for m in container["volumeMounts"] if m["name"] in FOLDERS}
    assert {k: m["mountPath"] for k, m in writes.items()} == {
        r: FOLDERS[r][1] for r in ("model", "data", "verl")
    }
    assert not any(m.get("readOnly") for m in writes.values())


@pytest.mark.parametrize(
    "options", [READ_MOSTLY_OPTIONS, READ_MOSTLY_OPTIONS + FILE_CACHE_OPTIONS, CHECKPOINT_OPTIONS]
)
def test_mount_options_are_coherent(options):
    if "metadata-cache:ttl-secs:0" in options:
        assert not any("cache-max-size-mb:-1" in o for o in options)
    # The file cache is sized by the PV's fileCacheCapacity, never unbounded by an option.
    assert not any(o.startswith("file-cache:max-size-mb:") for o in options)


def test_the_file_cache_is_bounded_and_the_gpu_pods_sidecar_holds_it(shipped):
    """The model volume's cache has a capacity, and on GPU pods (which read the model through it)
    the FUSE sidecar's ephemeral limit sits above it; CPU pods keep the mode's limit. No other
    volume has a file cache."""
    for name, r in shipped.items():
        cached = [
            p
            for p in objects_of_kind(r, "PersistentVolume")
            if "fileCacheCapacity" in p["spec"]["csi"]["volumeAttributes"]
        ]
        assert [p["spec"]["csi"]["volumeHandle"].split(":")[1] for p in cached] == ["model"], name
        (model,) = cached
        attributes = model["spec"]["csi"]["volumeAttributes"]
        assert "file-cache:enable-parallel-downloads:true" in model["spec"]["mountOptions"]
        cache = parse_quantity(attributes["fileCacheCapacity"])
        assert cache == parse_quantity("100Gi"), name
        by_name = dict(pods(r))
        gpu_limit = by_name["gpu-group"]["metadata"]["annotations"]["gke-gcsfuse/ephemeral-storage-limit"]
        assert parse_quantity(gpu_limit) == cache + parse_quantity("5Gi"), name
        head_limit = by_name["head"]["metadata"]["annotations"]["gke-gcsfuse/ephemeral-storage-limit"]
        assert head_limit == ("200Gi" if "autopilot" in name else "0"), name


def test_data_is_read_only_and_checkpoints_writable(shipped):
    for _, pod in pods(shipped["h200-standard"]):
        mounts = {m["name"]: m for m in pod["spec"]["containers"][0]["volumeMounts"]}
        assert mounts["model"]["readOnly"] is mounts["data"]["readOnly"] is mounts["verl"]["readOnly"] is True
        assert mounts["checkpoints"].get("readOnly", False) is False


def test_sidecar_limits_are_legal_for_the_mode(shipped):
    for name, r in shipped.items():
        for _, pod in pods(r):
            ann = pod["metadata"]["annotations"]
            assert ann["gke-gcsfuse/volumes"] == "true"
            limits = [ann[f"gke-gcsfuse/{k}-limit"] for k in ("cpu", "memory", "ephemeral-storage")]
            if "autopilot" in name:
                assert all(parse_quantity(v) > 0 for v in limits)
