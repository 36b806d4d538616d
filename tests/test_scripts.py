"""scripts/ against fakes of gcloud, kubectl and curl that record calls, keep state, fail on demand."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from .conftest import REPO
from .scripts_harness import (
    FAKES,
    GOLDEN_PROFILES,
    GOLDEN_SETUP,
    GOLDENS,
    already_there,
    calls,
    mutating,
    profile_values,
    recorded_up,
    run_script,
    script_env,
)


@pytest.mark.parametrize("profile", GOLDEN_PROFILES)
def test_up_issues_the_reviewed_command_sequence(profile, tmp_path):
    golden = (GOLDENS / f"up-{profile}.txt").read_text()
    assert recorded_up(profile, tmp_path) == golden, "run `make goldens` and review the diff"


def test_golden_sequences_carry_the_tutorial_fixes():
    standard = (GOLDENS / "up-h200-standard.txt").read_text()
    assert "--network-profile=us-central1-b-vpc-roce" in standard  # zonal, not the region
    assert "--location=us-central1 --node-locations=us-central1-b --machine-type=a3-ultragpu-8g" in standard
    assert (
        "--workload-pool=my-project.svc.id.goog" in standard and "--machine-type=c2-standard-16" in standard
    )
    assert standard.count("--additional-node-network=") == 9
    assert "--role=roles/storage.objectUser" in standard
    assert "gs://my-verl-bucket/models/Qwen2.5-32B-Instruct" in standard  # not the bucket root
    autopilot = (GOLDENS / "up-h200-autopilot.txt").read_text()
    assert "create-auto" in autopilot and "node-pools create" not in autopilot
    assert "nccl-rdma-installer-autopilot.yaml" in autopilot


def test_a_second_run_creates_nothing(tmp_path):
    env = script_env(tmp_path / "state", tmp_path / "data")
    assert run_script("up.sh", env).returncode == 0
    first = len(calls(tmp_path / "state"))
    assert run_script("up.sh", env).returncode == 0
    again = mutating(calls(tmp_path / "state")[first:])
    # kubectl apply is idempotent by itself; nothing else may change.
    assert [c for c in again if c["tool"] != "kubectl" or c["args"][0] != "apply"] == []


@pytest.mark.parametrize("fail_at", [3, 12, 15, 18])
def test_a_failed_run_resumes_where_it_stopped(tmp_path, fail_at):
    clean = tmp_path / "clean"
    assert run_script("up.sh", script_env(clean / "state", clean / "data")).returncode == 0
    env = script_env(tmp_path / "state", tmp_path / "data", FAKE_FAIL_AT=str(fail_at))
    assert run_script("up.sh", env).returncode != 0
    env.pop("FAKE_FAIL_AT")
    done = run_script("up.sh", env)
    assert done.returncode == 0, done.stderr

    def resources(state):
        s = json.loads((state / "state.json").read_text())
        return sorted(s["resources"]), s["iam"], sorted(s["objects"])

    ours, theirs = resources(tmp_path / "state"), resources(clean / "state")
    assert ours[:2] == theirs[:2] and len(ours[2]) == len(theirs[2])


def test_dry_run_changes_nothing(tmp_path):
    done = run_script("up.sh", script_env(tmp_path / "state", tmp_path / "data"), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert mutating(calls(tmp_path / "state")) == []
    assert "+ gcloud container node-pools create gpu-pool" in done.stderr


@pytest.mark.parametrize("via_stdin", [False, True])
def test_the_token_never_shows(tmp_path, via_stdin):
    canary = "hf_CANARY_9b1f0c2e"
    token = tmp_path / "token"
    token.write_text(canary)
    env = script_env(tmp_path / "state", tmp_path / "data", HF_TOKEN_FILE="-" if via_stdin else str(token))
    assert run_script("20-cluster.sh", env).returncode == 0
    for flags in ((), ("--dry-run",)):
        done = run_script("50-storage.sh", env, *flags, stdin=canary if via_stdin else "")
        assert done.returncode == 0, done.stderr
        assert canary not in done.stdout + done.stderr
    assert canary not in (tmp_path / "state" / "calls.jsonl").read_text()
    assert canary not in (tmp_path / "state" / "state.json").read_text()
    assert any(c["args"][:3] == ["create", "secret", "generic"] for c in calls(tmp_path / "state"))


def test_down_removes_everything_up_created(tmp_path):

    # a4x-standard: DRANET (no VPCs of ours) and the workload policy; its reservation stays (the user's).
    for profile in ("h200-standard", "b200-autopilot", "a4x-standard"):
        extra, existing = GOLDEN_SETUP.get(profile, ({}, []))
        state_dir = tmp_path / profile / "state"
        already_there(state_dir, existing)
        env = script_env(state_dir, tmp_path / profile / "data", PROFILE=profile, **extra)
        up = run_script("up.sh", env, *profile_values(profile))
        assert up.returncode == 0, up.stderr
        env["DELETE_BUCKET"] = "true"  # the bucket too (it stays by default)
        done = run_script("down.sh", env, *profile_values(profile), "--yes")
        assert done.returncode == 0, done.stderr
        state = json.loads((state_dir / "state.json").read_text())
        assert state["resources"] == existing and state["iam"] == []


def test_down_asks_first(tmp_path):
    env = script_env(tmp_path / "state", tmp_path / "data")
    assert run_script("up.sh", env).returncode == 0
    before = len(calls(tmp_path / "state"))
    done = run_script("down.sh", env, stdin="n\n")
    assert done.returncode != 0
    assert mutating(calls(tmp_path / "state")[before:]) == []


@pytest.mark.parametrize(
    ("script", "change", "needle"),
    [
        ("10-networks.sh", {"PROJECT": "", "ZONE": ""}, "set PROJECT ZONE"),
        ("10-networks.sh", {"ZONE": "europe-west4-a"}, "is not in REGION=us-central1"),
        ("10-networks.sh", {"PROJECT": "My_Project"}, "is not a GCP project id"),
        ("20-cluster.sh", {"CLUSTER": "Verl_Cluster"}, "CLUSTER=Verl_Cluster"),
        (
            "20-cluster.sh",
            {"GKE_VERSION": "1.32.2-gke.1475000"},
            "is below 1.33.0-gke.1932000, needed by gcsfuse-same-bucket-several-pvs",
        ),
        ("20-cluster.sh", {"GKE_VERSION": "1.33"}, "is not like 1.33.5-gke.1162000"),
        ("20-cluster.sh", {"RELEASE_CHANNEL": "fast"}, "allowed: rapid, regular, stable, extended"),
        ("20-cluster.sh", {"FAKE_GKE_VERSIONS": ""}, "no GKE version listed for RELEASE_CHANNEL=regular"),
        # a pinned version that went stale: refused before anything exists, with what is offered
        (
            "20-cluster.sh",
            {"GKE_VERSION": "1.33.5-gke.1932000"},
            "is not offered in the regular channel in us-central1 (newest: 1.33.0-gke.1000000 "
            "1.33.5-gke.1162000 1.34.1-gke.1431000)",
        ),
        ("30-gpu-pool.sh", {"CAPACITY": "reservation"}, "differs from cluster.capacity=spot"),
        ("60-data.sh", {"GSM8K_DIR": "/nonexistent"}, "has no train.parquet"),
    ],
)
def test_bad_input_stops_before_the_first_call(tmp_path, script, change, needle):
    env = {**script_env(tmp_path / "state", tmp_path / "data"), **change}
    done = run_script(script, env)
    assert done.returncode == 1 and needle in done.stderr, done.stderr
    assert mutating(calls(tmp_path / "state")) == []


def test_missing_reservation_is_found_before_creating(tmp_path):
    env = script_env(tmp_path / "state", tmp_path / "data")
    sets = ("--set", "cluster.capacity=reservation", "--set", "cluster.reservation=r1")
    done = run_script("30-gpu-pool.sh", env, *sets)
    assert (
        done.returncode == 1
        and "reservation r1 (cluster.reservation) not found in us-central1-b" in done.stderr
    )
    assert mutating(calls(tmp_path / "state")) == []


SUB_BLOCK_RUN = (
    *("--set", "cluster.capacity=reservation", "--set", "cluster.reservation=r1"),
    *("--set", "queue.enabled=true", "--set", "queue.topology.mode=required"),
)


def test_workers_that_fit_no_sub_block_are_found_before_creating(tmp_path):
    """Kueue requires the 2 workers in one sub-block; the reservation's healthy sub-blocks have 1
    free host each: refused before anything is created, naming what is free."""
    state = tmp_path / "state"
    already_there(state, ["compute reservations r1"])
    env = script_env(state, tmp_path / "data", FAKE_SUB_BLOCKS="b1/s0/18/17 b2/s0/4/3")
    done = run_script("30-gpu-pool.sh", env, *SUB_BLOCK_RUN)
    assert done.returncode == 1, done.stderr
    assert "no healthy sub-block of reservation r1 has 2 free hosts left" in done.stderr
    assert "b1/s0: 1 of 18 b2/s0: 1 of 4" in done.stderr
    assert mutating(calls(state)) == []
    env["FAKE_SUB_BLOCKS"] = "b1/s0/18/17 b2/s0/4/2"  # now b2's sub-block has room
    done = run_script("30-gpu-pool.sh", env, *SUB_BLOCK_RUN)
    assert (
        done.returncode == 0 and "sub-block b2/s0 of reservation r1 holds a group's 2 workers" in done.stderr
    )


def test_two_groups_that_each_need_a_sub_block_need_room_for_both(tmp_path):
    """Two reserved groups of 3 and 1 workers, each kept in one sub-block by Kueue: a sub-block
    with 3 free hosts holds the larger, and the smaller needs a host left somewhere."""
    state = tmp_path / "state"
    already_there(state, ["compute reservations r1"])
    env = script_env(state, tmp_path / "data", FAKE_SUB_BLOCKS="b1/s0/18/15 b1/s1/18/18")
    groups = "workerGroups.gpu-group=null,workerGroups.a.replicas=3,workerGroups.b.replicas=1"
    done = run_script("30-gpu-pool.sh", env, *SUB_BLOCK_RUN, "--set", groups)
    assert done.returncode == 1, done.stderr
    free = "free: b1/s0: 3 of 18 b1/s1: 0 of 18"
    assert f"has 1 free hosts left for a group's workers (pools' groups: 3 1; {free})" in done.stderr
    assert mutating(calls(state)) == []
    env["FAKE_SUB_BLOCKS"] = "b1/s0/18/15 b1/s1/18/17"
    done = run_script("30-gpu-pool.sh", env, *SUB_BLOCK_RUN, "--set", groups)
    assert done.returncode == 0, done.stderr
    assert "sub-block b1/s0 of reservation r1 holds a group's 3 workers" in done.stderr
    assert "sub-block b1/s1 of reservation r1 holds a group's 1 workers" in done.stderr
    # Each pool is created in the sub-block found for it, not against the whole reservation.
    pinned = {
        args[args.index("create") + 1]: [a for a in args if a.startswith("--reservation=")]
        for args in (c["args"] for c in mutating(calls(state)))
    }
    assert pinned == {
        "gpu-pool-a": ["--reservation=r1/reservationBlocks/b1/reservationSubBlocks/s0"],
        "gpu-pool-b": ["--reservation=r1/reservationBlocks/b1/reservationSubBlocks/s1"],
    }, pinned


def test_each_worker_group_gets_a_pool_of_its_capacity_and_a_rerun_creates_none(tmp_path):
    """A reserved and a spot group: two pools, each with its capacity's flags and its group's size;
    the reservation is checked because one group uses it; a second run finds both and creates none."""
    state = tmp_path / "state"
    already_there(state, ["compute reservations r1"])
    env = script_env(state, tmp_path / "data")
    groups = (
        "cluster.capacity=reservation,cluster.reservation=r1,workerGroups.gpu-group=null,"
        "workerGroups.reserved.replicas=3,workerGroups.spot.replicas=1,workerGroups.spot.capacity=spot"
    )
    done = run_script("30-gpu-pool.sh", env, "--set", groups)
    assert done.returncode == 0, done.stderr
    created = [c["args"] for c in mutating(calls(state))]
    assert [args[args.index("create") + 1] for args in created] == ["gpu-pool-reserved", "gpu-pool-spot"]
    reserved, spot = created
    assert "--reservation=r1" in reserved and "--total-max-nodes=3" in reserved and "--spot" not in reserved
    assert "--spot" in spot and "--total-max-nodes=1" in spot and "--reservation=r1" not in spot
    assert any("reservations" in c["args"] and "describe" in c["args"] for c in calls(state))
    before = len(mutating(calls(state)))
    assert run_script("30-gpu-pool.sh", env, "--set", groups).returncode == 0
    assert len(mutating(calls(state))) == before
    # a group on another machine (workerGroups.<name>.machine): its pool is of that machine
    state = tmp_path / "state-2"
    already_there(state, ["compute reservations r1"])
    env = script_env(state, tmp_path / "data")
    done = run_script("30-gpu-pool.sh", env, "--set", groups + ",workerGroups.spot.machine=h200")
    assert done.returncode == 0, done.stderr
    reserved, spot = (c["args"] for c in mutating(calls(state)))
    assert "--machine-type=a4-highgpu-8g" in reserved and "--machine-type=a3-ultragpu-8g" in spot
    assert "--accelerator=type=nvidia-h200-141gb,count=8,gpu-driver-version=latest" in spot


def test_settings_come_from_the_values(tmp_path):
    values = tmp_path / "v.yaml"
    values.write_text(
        "network: {prefix: lab}\nstorage: {bucket: lab-bucket}\nserviceAccount: {name: lab-sa}\n"
    )
    env = script_env(tmp_path / "state", tmp_path / "data")
    done = run_script("50-storage.sh", env, "-f", str(values), "--dry-run")
    assert "gs://lab-bucket" in done.stderr and "/sa/lab-sa" in done.stderr
    done = run_script("10-networks.sh", env, "-f", str(values), "--dry-run")
    assert "lab-gvnic-net" in done.stderr and "lab-rdma-sub-7" in done.stderr


def test_scripts_are_shellcheck_clean():
    done = subprocess.run(
        [str(REPO / ".venv" / "bin" / "shellcheck"), *map(str, sorted((REPO / "scripts").glob("*.sh")))],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout


def test_without_a_local_model_the_cluster_fills_the_bucket(tmp_path):
    env = script_env(tmp_path / "state", tmp_path / "data")
    env.pop("MODEL_SOURCE_DIR")
    done = run_script("up.sh", env)
    assert done.returncode == 0, done.stderr
    assert "in-cluster data-prep Job" in done.stderr
    assert not [c for c in calls(tmp_path / "state") if "rsync" in c["args"]]


def test_gke_version_defaults_to_the_channels_newest(tmp_path):
    env = script_env(tmp_path / "state", tmp_path / "data", RELEASE_CHANNEL="stable")
    done = run_script("20-cluster.sh", env, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "GKE_VERSION=1.34.1-gke.1431000 (newest in the stable channel)" in done.stderr
    assert "--cluster-version=1.34.1-gke.1431000 --release-channel=stable" in done.stderr
    # The channel's newest below the floor is refused, naming the feature that needs more.
    env["FAKE_GKE_VERSIONS"] = "1.32.9-gke.100;1.33.0-gke.1000"
    done = run_script("20-cluster.sh", env, "--dry-run")
    assert (
        done.returncode == 1 and "is below 1.33.0-gke.1932000, needed by gcsfuse-same-bucket" in done.stderr
    )


@pytest.mark.parametrize(
    ("cluster", "needle"),
    [
        (
            "1.5.1",
            "kuberay.version: '1.6.1' but the cluster's KubeRay CRDs lack rayclusters.spec.authOptions",
        ),
        ("1.7.0", "kuberay.version: '1.6.1' but the cluster's KubeRay CRDs are 1.7.0's"),
    ],
)
def test_the_ray_add_on_must_run_the_kuberay_the_values_name(tmp_path, cluster, needle):
    """GKE's Ray add-on names no version: its CRDs' fields say which KubeRay it runs; the chart
    renders for kuberay.version, so another one stops the scripts before any GPU pool."""
    env = script_env(tmp_path / "state", tmp_path / "data", FAKE_KUBERAY=cluster)
    done = run_script("up.sh", env)
    assert done.returncode == 1 and needle in done.stderr, done.stderr
    assert not [c for c in calls(tmp_path / "state") if "node-pools" in c["args"]]
    done = run_script("up.sh", env, "--set", f"kuberay.version={cluster}")
    assert done.returncode == 0, done.stderr
    assert "the cluster's KubeRay CRDs match kuberay.version" in done.stderr


def applied_objects(state) -> dict:

    return json.loads((state / "state.json").read_text()).get("applied", {})


def test_network_objects_have_one_owner_and_follow_the_users_values(tmp_path):
    """up.sh with a values file that changes the prefix, then the chart with the same values:
    the scripts apply the user's networks (not dist/'s defaults), the chart renders none of
    them, so `helm install` after up.sh cannot hit Helm's ownership error."""
    import yaml

    from .helm_tools import CHART, run, tool

    values = tmp_path / "my.yaml"
    values.write_text("network: {prefix: lab7}\nstorage: {bucket: lab7-bucket}\n")
    state = tmp_path / "state"
    env = script_env(state, tmp_path / "data")
    assert run_script("up.sh", env, "-f", str(values), "--dry-run").returncode == 0
    assert applied_objects(state) == {}  # a dry run applies nothing
    done = run_script("up.sh", env, "-f", str(values))
    assert done.returncode == 0, done.stderr
    applied = {
        k: v
        for k, v in applied_objects(state).items()
        if v and k.startswith(("GKENetworkParamSet/", "Network/"))
    }
    assert len(applied) == 18
    assert {v["spec"]["vpc"] for k, v in applied.items() if k.startswith("GKENetworkParamSet/")} == {
        "lab7-gvnic-net",
        "lab7-rdma-net",
    }
    assert any("2da1c92ff7bd772a2c833710bb6c21dcfe6dfaae" in k for k in applied_objects(state))  # pinned
    overlay = REPO / "overlays" / "b200-standard" / "values.yaml"
    rendered = run(tool("helm"), "template", "verl", str(CHART), "-f", str(overlay), "-f", str(values))
    assert rendered.returncode == 0, rendered.stderr
    chart = {
        f"{d['kind']}/{d['metadata'].get('namespace', '')}/{d['metadata']['name']}"
        for d in yaml.safe_load_all(rendered.stdout)
        if d
    }
    assert not chart & set(applied)
    # The chart's own copy, when asked for, names the same objects: the two owners would collide.
    owned = run(
        tool("helm"),
        "template",
        "verl",
        str(CHART),
        "-f",
        str(overlay),
        "-f",
        str(values),
        "--set",
        "network.createObjects=true",
    )
    owned_keys = {
        f"{d['kind']}/{d['metadata'].get('namespace', '')}/{d['metadata']['name']}"
        for d in yaml.safe_load_all(owned.stdout)
        if d
    }
    assert owned_keys & set(applied) == set(applied)


@pytest.mark.parametrize("delete", [None, "true", "false"])
def test_down_says_exactly_what_it_deletes_and_keeps_the_bucket_unless_told(tmp_path, delete):
    env = script_env(tmp_path / "state", tmp_path / "data")
    assert run_script("up.sh", env).returncode == 0
    if delete is not None:
        env["DELETE_BUCKET"] = delete
    before = len(calls(tmp_path / "state"))
    done = run_script("down.sh", env, stdin="y\n")
    assert done.returncode == 0, done.stderr
    (prompt,) = [line for line in done.stderr.splitlines() if "[y/N]" in line]
    deleted = [c["args"] for c in mutating(calls(tmp_path / "state")[before:])]
    bucket_deleted = ["storage", "rm", "--recursive", "gs://my-verl-bucket"] in deleted
    assert bucket_deleted == (delete == "true")
    if bucket_deleted:
        assert "DELETE bucket gs://my-verl-bucket with everything in it" in prompt
    else:
        assert "KEEP bucket gs://my-verl-bucket" in prompt and "DELETE bucket" not in prompt
    assert "cluster verl" in prompt and "verl-gvnic-net and verl-rdma-net" in prompt
    assert any(a[:3] == ["container", "clusters", "delete"] for a in deleted)


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("DELETE_BUCKET", "yes", "DELETE_BUCKET=yes: allowed: true, false"),
        ("KEEP_BUCKET", "true", "KEEP_BUCKET=true: no longer read: the bucket is kept unless DELETE_BUCKET"),
    ],
)
def test_down_refuses_an_unclear_bucket_setting(tmp_path, variable, value, message):
    env = script_env(tmp_path / "state", tmp_path / "data", **{variable: value})
    done = run_script("down.sh", env, "--yes")
    assert done.returncode == 1 and message in done.stderr
    assert mutating(calls(tmp_path / "state")) == []


SETTINGS_SECTION = "README.md, section 'Script settings'"


def readme_sections() -> set[str]:
    return {m.group(1) for m in re.finditer(r"^#+ (.+)$", (REPO / "README.md").read_text(), re.M)}


def test_the_sections_errors_point_to_exist():
    lib = (REPO / "scripts" / "lib.sh").read_text()
    named = set(re.findall(r"README\.md, section '([^']+)'", lib))
    assert named == {"Script settings", "Prerequisites"}
    assert named <= readme_sections()


@pytest.mark.parametrize(
    ("change", "sets", "needle"),
    [
        ({"GKE_VERSION": "1.33"}, (), "GKE_VERSION=1.33: is not like"),
        (
            {"HF_TOKEN_FILE": "/nonexistent/token"},
            (),
            "HF_TOKEN_FILE=/nonexistent/token: is not a readable file",
        ),
        ({"VERL_SOURCE_DIR": "/nonexistent"}, (), "VERL_SOURCE_DIR=/nonexistent: is not a folder"),
        ({"REGION": "us central"}, (), "REGION=us central: is not a region"),
        ({}, ("--set", "cluster.capacity=reservation", "--set", "cluster.reservation=r1"), "reservation r1"),
    ],
)
def test_up_checks_every_steps_inputs_before_creating_anything(tmp_path, change, sets, needle):
    """Before, 10-networks created the VPCs and only then 20-cluster refused a bad GKE_VERSION."""
    env = {**script_env(tmp_path / "state", tmp_path / "data"), **change}
    done = run_script("up.sh", env, *sets)
    assert done.returncode == 1 and needle in done.stderr, done.stderr
    assert mutating(calls(tmp_path / "state")) == []
    if "=" in needle:
        assert SETTINGS_SECTION in done.stderr


def test_up_check_calls_nothing_that_creates(tmp_path):
    env = script_env(tmp_path / "state", tmp_path / "data")
    done = run_script("up.sh", env, "--check")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(": inputs ok") == 6
    assert mutating(calls(tmp_path / "state")) == []


def path_without(tmp_path: Path, *missing: str) -> str:
    """A PATH with the fakes and the system's commands, less `missing` (this machine has a real gcloud)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for folder in (FAKES, Path("/usr/bin"), Path("/bin")):
        for tool in folder.iterdir():
            if tool.name not in missing and not (bin_dir / tool.name).exists() and os.access(tool, os.X_OK):
                (bin_dir / tool.name).symlink_to(tool)
    return str(bin_dir)


@pytest.mark.parametrize(
    ("script", "missing"), [("up.sh", "gcloud"), ("up.sh", "kubectl"), ("40-rdma.sh", "kubectl")]
)
def test_a_missing_tool_is_one_line_and_a_failure(tmp_path, script, missing):
    env = {**script_env(tmp_path / "state", tmp_path / "data"), "PATH": path_without(tmp_path, missing)}
    done = run_script(script, env)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: {missing} is not on PATH: install it (README.md, section 'Prerequisites')"
    )
    assert "command not found" not in done.stderr
    assert mutating(calls(tmp_path / "state")) == []


@pytest.mark.parametrize("script", ["up.sh", "10-networks.sh", "down.sh"])
def test_without_credentials_nothing_runs(tmp_path, script):
    env = script_env(tmp_path / "state", tmp_path / "data", FAKE_NO_CREDENTIALS="1")
    done = run_script(script, env, "--yes")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("error: gcloud has no usable credentials")
    assert mutating(calls(tmp_path / "state")) == []


def env_settings() -> set[str]:
    """What `verl-grpo env` prints: settings from the values, not the user's environment."""
    done = subprocess.run(
        [
            str(REPO / ".venv" / "bin" / "verl-grpo"),
            "env",
            "--profile",
            "h200-standard",
            "--set",
            "storage.bucket=b-1",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return {line.split("=", 1)[0] for line in done.stdout.splitlines()}


@pytest.mark.parametrize(
    "script", sorted(p.name for p in (REPO / "scripts").glob("*.sh") if p.name != "lib.sh")
)
def test_help_lists_what_a_script_creates_and_every_variable_it_reads(script):
    text = (REPO / "scripts" / script).read_text()
    read = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*):[-+]", text)) | set(
        re.findall(r"\brequire ([A-Z0-9_ ]+)", text)
    )
    read = {v for group in read for v in group.split()} - env_settings() - {"VERL_ENV", "VERL_GRPO"}
    done = subprocess.run(
        [str(REPO / "scripts" / script), "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    (variables,) = [i for i, line in enumerate(done.stdout.splitlines()) if line.startswith("Variables:")]
    listed = " ".join(done.stdout.splitlines()[variables:])
    assert {"PROJECT", "REGION", "ZONE"} | read <= set(re.findall(r"[A-Z][A-Z0-9_]{2,}", listed)), read
    assert re.search(r"^(Creates|Delete)", done.stdout, re.M) or "Creates what" in done.stdout
    assert "--dry-run" in done.stdout and "--check" in done.stdout


@pytest.mark.parametrize("script", ["up.sh", "down.sh", "50-storage.sh", "10-networks.sh"])
def test_the_scripts_take_only_a_bucket_the_user_named(tmp_path, script):
    """Without storage.bucket in the user's values, nothing runs: not even the networks of step 1."""
    env = script_env(tmp_path / "state", tmp_path / "data")
    done = run_script(script, env, "--yes", my_values=False)
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()  # one line, nothing after it
    assert "storage.bucket: not set: bucket names are global" in line and "[bucket-named]" in line
    assert calls(tmp_path / "state") == []


def test_profile_in_the_environment_and_a_different_flag_are_refused(tmp_path):
    """README exports PROFILE; a later --profile that differs would silently win."""
    env = script_env(tmp_path / "state", tmp_path / "data", PROFILE="h200-standard")
    done = run_script("10-networks.sh", env, "--profile", "b200-standard")
    assert done.returncode == 1
    assert "--profile b200-standard differs from PROFILE=h200-standard" in done.stderr
    assert calls(tmp_path / "state") == []
    assert run_script("10-networks.sh", env, "--profile", "h200-standard", "--dry-run").returncode == 0


def test_without_profile_the_scripts_take_the_one_the_values_describe(tmp_path):
    """One default on every path (issue 43): `verl-grpo init`'s file names its profile, and the
    scripts, like plan, take it from there; no PROFILE silently makes the pool of another GPU."""
    from verl_grpo.cli import main

    mine = tmp_path / "my.yaml"
    assert main(["init", "--profile", "h200-standard", "--bucket", "my-verl-bucket", "-o", str(mine)]) == 0
    env = script_env(tmp_path / "state", tmp_path / "data")
    done = run_script("30-gpu-pool.sh", env, "-f", str(mine), "--dry-run", my_values=False)
    assert done.returncode == 0, done.stderr
    assert "--machine-type=a3-ultragpu-8g" in done.stdout + done.stderr


@pytest.mark.parametrize(
    "script", sorted(p.name for p in (REPO / "scripts").glob("*.sh") if p.name != "lib.sh")
)
def test_every_values_key_a_scripts_help_cites_exists(script):
    """A `--help` that names a values key (`network.prefix`) names one the values have: a key that
    does not exist sends a user looking for a setting there is none of."""
    schema = json.loads((REPO / "charts" / "verl-grpo" / "values.schema.json").read_text())
    done = subprocess.run(
        [str(REPO / "scripts" / script), "--help"], capture_output=True, text=True, check=False
    )
    cited = set(re.findall(r"\b([a-z][A-Za-z]*(?:\.[a-z][A-Za-z]*)+)\b", done.stdout))
    missing = []
    for key in sorted(k for k in cited if k.split(".")[0] in schema["properties"]):
        node = schema
        for part in key.split("."):
            node = (node.get("properties") or {}).get(part) or node.get("additionalProperties") or {}
        if not node:
            missing.append(key)
    assert missing == [], f"{script} --help cites values keys that do not exist: {missing}"


def test_a_dry_run_without_credentials_prints_every_command(tmp_path):
    """--dry-run needs no account: gcloud's reads fail as they do without one (the fake refuses every
    call), each resource counts as absent, and every create is printed; nothing runs."""
    env = script_env(tmp_path / "state", tmp_path / "data", FAKE_NO_CREDENTIALS="1")
    done = run_script("up.sh", env, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "--dry-run without gcloud credentials" in done.stderr
    printed = [line for line in done.stderr.splitlines() if line.startswith("+ ")]
    for created in ("compute networks create", "container clusters create", "node-pools create"):
        assert any(created in line for line in printed), created
    assert mutating(calls(tmp_path / "state")) == []


def test_the_namespace_is_one_flag_the_grants_and_secrets_follow(tmp_path):
    """`-n ml` (helm install -n ml's namespace): the bucket grants name ns/ml/sa/..., the token
    Secret goes to ml, which is created first (the fake API server, as the real one, refuses a
    Secret in a namespace that does not exist); NAMESPACE and a different -n are refused."""
    token = tmp_path / "token"
    token.write_text("hf_token")
    env = script_env(tmp_path / "state", tmp_path / "data", HF_TOKEN_FILE=str(token))
    done = run_script("up.sh", env, "-n", "ml")
    assert done.returncode == 0, done.stderr
    state = json.loads((tmp_path / "state" / "state.json").read_text())
    assert {"k8s namespace ml", "k8s secret ml/hf-token"} <= set(state["resources"]), state["resources"]
    members = {member for _, member, _ in state["iam"]}
    assert members and all("/subject/ns/ml/sa/" in m for m in members), members
    env["NAMESPACE"] = "team-a"
    done = run_script("50-storage.sh", env, "-n", "ml")
    assert done.returncode == 1 and "-n ml differs from NAMESPACE=team-a" in done.stderr


def test_60_data_uploads_the_pinned_verl_and_refuses_other_bytes(tmp_path):
    """The release's wheel and GSM8K script (data/verl/<version>.yaml), served by the fake curl:
    unpacked into the verl folder with the script beside it; a file that is not the pinned one is
    refused in one line, and nothing reaches the verl folder of the bucket."""
    env = script_env(tmp_path / "state", tmp_path / "data")
    done = run_script("60-data.sh", env)
    assert done.returncode == 0, done.stderr
    uploads = [c["args"] for c in calls(tmp_path / "state") if c["args"][:2] == ["storage", "rsync"]]
    (verl,) = [a for a in uploads if a[-1] == "gs://my-verl-bucket/verl"]
    assert verl[-2].endswith("/verl")

    state = tmp_path / "tampered"
    env = {**script_env(state, tmp_path / "data2"), "FAKE_TAMPERED": "1"}
    done = run_script("60-data.sh", env)
    assert done.returncode == 1
    (line,) = [x for x in done.stderr.splitlines() if "sha256" in x]
    assert "verl-0.6.1-py3-none-any.whl has sha256 " in line
    assert line.endswith(
        "not a67dd50fb99b402db0c990d4c92710be9a728cb18607515daa0f1e8552e47983: "
        "not the verl 0.6.1 this kit checks"
    )
    assert not [c for c in calls(state) if c["args"][-1:] == ["gs://my-verl-bucket/verl"]]
