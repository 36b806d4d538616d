"""Every write a pod makes lands inside its identity's grants: the scripts' grants (recorded on
the fake cloud by scripts/up.sh) enforced on the twin's bucket (tests/twin/bucket.py), and what
the rendered pods run, run as the service account each pod has."""

from __future__ import annotations

import importlib.util
import json
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import REPO
from .controlplane.helpers import objects, synth
from .scripts_harness import FAKES, MY_VALUES, calls, run_script, script_env
from .twin.bucket import USER, VIEWER, Bucket, Grant, grants_from_calls, managed_folders_from_calls
from .twin.workloads import (
    bucket_mounts,
    by_kind,
    container_env,
    identity,
    network_standins,
    run_container,
)

BUCKET = yaml.safe_load(MY_VALUES.read_text())["storage"]["bucket"]
PROJECT, PROJECT_NUMBER = "my-project", "123456789012"  # script_env's PROJECT, the fake's number
NAMESPACE = "default"  # what the scripts grant (serviceAccount's namespace in the values)
PROFILE = "h200-standard"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """scripts/up.sh -f my-values.yaml on the fake cloud: its recorded calls."""
    work = tmp_path_factory.mktemp("cloud")
    done = run_script("up.sh", script_env(work / "state", work / "data", PROFILE=PROFILE))
    assert done.returncode == 0, done.stderr
    return calls(work / "state")


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The user's rendering: `verl-grpo synth --profile P -f my-values.yaml`."""
    return objects(synth(tmp_path_factory.mktemp("synth"), PROFILE, "-f", str(MY_VALUES)))


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """A temporary folder the principals' Unix users can reach (pytest's own is the owner's only)."""
    folder = Path(tempfile.mkdtemp(prefix="twin-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def bucket(cloud: list[dict[str, Any]], tmp_path: Path) -> Bucket:
    root = tmp_path / "bucket"
    root.mkdir()
    return Bucket(root, grants_from_calls(cloud, BUCKET), managed_folders_from_calls(cloud, BUCKET))


def member(template: dict[str, Any]) -> str:
    return identity(template, NAMESPACE, PROJECT, PROJECT_NUMBER)


def data_prep(docs: list[dict[str, Any]]) -> dict[str, Any]:
    (job,) = by_kind(docs, "Job")
    return job["spec"]["template"]


def ray_head(docs: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The RayJob and its head's pod template (the entrypoint runs there, as Ray's job driver)."""
    (job,) = by_kind(docs, "RayJob")
    return job, job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]


# --- the grants the twin enforces are the scripts' own ---------------------------------------------


def test_the_grants_are_read_from_the_recorded_calls(
    cloud: list[dict[str, Any]], docs: list[dict[str, Any]]
) -> None:
    grants = grants_from_calls(cloud, BUCKET)
    prep, (_, head) = member(data_prep(docs)), ray_head(docs)
    ray = member(head)
    assert Grant(ray, VIEWER, "") in grants and Grant(prep, VIEWER, "") in grants
    assert {g.folder for g in grants if g.member == ray and g.role == USER} == {"checkpoints"}
    assert {g.folder for g in grants if g.member == prep and g.role == USER} == {
        "models/Qwen2.5-32B-Instruct",
        "data/gsm8k",
        "verl",
    }
    assert sorted(managed_folders_from_calls(cloud, BUCKET)) == sorted(
        ["checkpoints", "models/Qwen2.5-32B-Instruct", "data/gsm8k", "verl"]
    )


def test_a_removed_grant_is_gone() -> None:
    add = [
        "storage",
        "managed-folders",
        "add-iam-policy-binding",
        "gs://b/x/",
        "--member=m",
        f"--role={USER}",
    ]
    remove = [a.replace("add-", "remove-") for a in add]
    recorded = [{"tool": "gcloud", "args": add}, {"tool": "gcloud", "args": remove}]
    assert grants_from_calls(recorded, "b") == []
    assert grants_from_calls(recorded[:1], "b") == [Grant("m", USER, "x")]


def test_the_bucket_refuses_a_write_outside_the_grants(
    bucket: Bucket, docs: list[dict[str, Any]], tmp_path: Path
) -> None:
    """The Ray pods' identity writes its checkpoints, and is refused the model folder, a new
    top-level folder, and the deletion of its own managed folder (which would drop its grant)."""
    _, head = ray_head(docs)
    ray = member(head)
    root = bucket.root

    def sh(script: str) -> subprocess.CompletedProcess[str]:
        return bucket.run(ray, ["bash", "-c", script], {"PATH": "/usr/bin:/bin"}, cwd=tmp_path)

    assert (
        sh(f"mkdir -p {root}/checkpoints/run/global_step_1 && echo x > {root}/checkpoints/run/f").returncode
        == 0
    )
    for refused in (
        f"echo x > {root}/models/Qwen2.5-32B-Instruct/config.json",
        f"mkdir {root}/checkpoints.partial",
        f"mv {root}/checkpoints/run {root}/elsewhere",
        f"rm -rf {root}/checkpoints",  # empties it (inside the grant), then may not remove it
    ):
        done = sh(refused)
        assert done.returncode != 0 and "Permission denied" in done.stderr, (refused, done.stderr)


# --- what each pod runs --------------------------------------------------------------------------------


def test_the_data_prep_job_writes_only_inside_its_grants(
    bucket: Bucket, docs: list[dict[str, Any]], tmp_path: Path
) -> None:
    """Its first run after one cut short: the clone's leftovers are cleared inside the verl folder."""
    template = data_prep(docs)
    (container,) = template["spec"]["containers"]
    path, extra = network_standins(tmp_path / "bin", FAKES, tmp_path / "state")
    mounts = bucket_mounts(docs, template, container["name"])
    env = container_env(container)
    leftover = Path(mounts.rewrite(env["VERL_DIR"], bucket.root)) / "verl" / "half-copied.py"
    leftover.parent.mkdir(parents=True)
    leftover.write_text("")
    done = run_container(
        bucket,
        member(template),
        container["command"],
        container_env(container) | extra,
        mounts,
        tmp_path / "tmp",
        path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not leftover.exists()
    for key in ("MODEL_DIR", "VERL_DIR", "DATA_DIR"):
        marker = Path(mounts.rewrite(env[key], bucket.root)) / ".verl-grpo-complete"
        assert marker.is_file(), f"{key}: no {marker}"


def seed_inputs(bucket: Bucket, entrypoint: list[str], mounts: Any) -> None:
    """What the data-prep Job leaves (as the bucket's owner writes it): the model, GSM8K as parquet
    with verl's columns, verl's clone, each folder with its marker."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    args = dict(zip(entrypoint[2::2], entrypoint[3::2], strict=False))
    model = Path(mounts.rewrite(args["--model"], bucket.root))
    model.mkdir(parents=True, exist_ok=True)
    (model / "config.json").write_text(json.dumps({"num_attention_heads": 40}))
    (model / "model.safetensors").write_text("weights")
    (model / ".verl-grpo-complete").write_text("done")
    columns = ("data_source", "prompt", "ability", "reward_model", "extra_info")
    for key in ("--train", "--val"):
        path = Path(mounts.rewrite(args[key], bucket.root))
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({c: ["x"] for c in columns}), path)
        (path.parent / ".verl-grpo-complete").write_text("done")


def test_the_ray_pods_write_checkpoints_and_logs_inside_their_grants(
    bucket: Bucket, docs: list[dict[str, Any]], tmp_path: Path
) -> None:
    """The entrypoint's pre-flight (its checkpoint probe, the checkpoint guard), a stand-in for
    verl's checkpoint writes (trainer.default_local_dir/global_step_N, the tracker file) in place of
    verl, and the log shipper's copy, as the Ray pods' identity."""
    job, head = ray_head(docs)
    ray = member(head)
    (container,) = [c for c in head["spec"]["containers"] if c["name"] != "log-shipper"]
    mounts = bucket_mounts(docs, head, container["name"])
    words = shlex.split(job["spec"]["entrypoint"])
    at = words.index("--")
    preflight, verl = words[:at], words[at + 1 :]
    seed_inputs(bucket, preflight, mounts)
    # The ConfigMap mounted at preflight.mountPath, as files of the twin.
    (config,) = [d for d in by_kind(docs, "ConfigMap") if "preflight.py" in d["data"]]
    shipped = tmp_path / "opt"
    shipped.mkdir()
    for name, text in config["data"].items():
        (shipped / name).write_text(text)
    mount_path = str(Path(preflight[1]).parent)
    checkpoints = next(w.split("=", 1)[1] for w in verl if w.startswith("trainer.default_local_dir="))
    standin_verl = (
        f"mkdir -p {checkpoints}/global_step_1/actor && echo w > {checkpoints}/global_step_1/actor/"
        f"model_world_size_16_rank_0.pt && echo 1 > {checkpoints}/latest_checkpointed_iteration.txt"
    )
    command = [
        str(REPO / ".venv" / "bin" / "python"),
        preflight[1].replace(mount_path, str(shipped)),
        *preflight[2:],
        "--gpus-per-node=0",
        "--nccl-gate=false",
        "--wait=0",
        "--",
        "bash",
        "-c",
        standin_verl,
    ]
    # The image's vLLM and what the run's verl imports (the pre-flight only looks their modules up;
    # those this Python has, Ray among them, are its own), and the cluster name KubeRay gives the
    # Ray container: the pre-flight names the run for the log shippers, inside the grants too.
    image = tmp_path / "image"
    imports = preflight[preflight.index("--imports") + 1].split(",")
    for module in ["vllm", *(m for m in imports if importlib.util.find_spec(m) is None)]:
        (image / module).mkdir(parents=True)
        (image / module / "__init__.py").write_text("")
    env = {"PYTHONPATH": str(image), "RAY_CLUSTER_NAME": "verl-h200"}
    done = run_container(bucket, ray, command, env, mounts, tmp_path / "tmp", "/usr/bin:/bin")
    assert done.returncode == 0, done.stdout + done.stderr
    written = Path(mounts.rewrite(checkpoints, bucket.root))
    assert (written / "latest_checkpointed_iteration.txt").read_text().strip() == "1"
    mount = preflight[preflight.index("--checkpoint-mount") + 1]
    pointer = Path(mounts.rewrite(f"{mount}/.verl-grpo/runs/verl-h200", bucket.root))
    assert pointer.read_text() == mounts.rewrite(f"{checkpoints}/logs", bucket.root)

    spec = head["spec"]
    (shipper,) = [
        c for c in spec["containers"] + spec.get("initContainers", []) if c["name"] == "log-shipper"
    ]
    source = tmp_path / "ray"
    (source / "session_latest" / "logs").mkdir(parents=True)
    (source / "session_latest" / "logs" / "raylet.out").write_text("log line\n")
    target = next(a for a in shipper["command"] if a.startswith("--target=")).removeprefix("--target=")
    copied = Path(
        bucket_mounts(docs, head, shipper["name"]).rewrite(target.replace("$(POD_NAME)", "head"), bucket.root)
    )
    # The sidecar's own command, from the shipped ConfigMap, with the twin's paths and a short interval.
    swap = {
        "--source=": f"--source={source}",
        "--target=": f"--target={copied}",
        "--interval=": "--interval=0.2",
    }
    argv = [str(REPO / ".venv" / "bin" / "python")] + [
        next((v for k, v in swap.items() if a.startswith(k)), a.replace(mount_path, str(shipped)))
        for a in shipper["command"][1:]
    ]
    proc = subprocess.Popen(
        bucket.as_member(ray, argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        for _ in range(50):
            if (copied / "raylet.out").is_file() or proc.poll() is not None:
                break
            time.sleep(0.2)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert (copied / "raylet.out").read_text() == "log line\n", out + err
