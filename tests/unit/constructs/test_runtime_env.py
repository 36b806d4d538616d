"""constructs/runtime_env.py: the one command both run paths submit (the pre-flight, which execs
verl), verl's overrides, and the Ray runtime environment."""

from __future__ import annotations

import shlex

import pytest
import yaml

from verl_grpo.constructs.runtime_env import (
    GIB_LIB,
    GIB_NCCL_ENV_SCRIPT,
    NVIDIA_LIB,
    compose_entrypoint,
    entrypoint,
    hydra_overrides,
    hydra_settings,
    logs_folder,
    logs_url,
    nccl_gate_flags,
    runtime_env,
    runtime_env_yaml,
    worker_setup,
)
from verl_grpo.output.dist import dist_layer
from verl_grpo.pipeline import load_spec
from verl_grpo.profiles import find_profile, shipped_profiles
from verl_grpo.values.derive import DeploySpec

EXTRA = "trainer.val_before_train=false"


def shell_words(command: str) -> list[str]:
    """The words bash reads: a backslash-newline pair is a line continuation, removed before the
    line is split (bash(1), QUOTING); shlex does not know that rule."""
    return shlex.split(command.replace("\\\n", ""))


def spec(*sets: str, profile: str = "b200-standard") -> DeploySpec:
    return load_spec(dist_layer(find_profile(profile)), sets=sets)


@pytest.mark.parametrize("profile", [p.name for p in shipped_profiles()])
def test_the_runtime_env_yaml_reads_back_as_the_runtime_env(profile: str) -> None:
    """The hand-written YAML (every value double-quoted) parses to the same strings on every machine."""
    s = spec(profile=profile)
    parsed = yaml.safe_load(runtime_env_yaml(s))
    assert parsed == runtime_env(s)
    assert all(isinstance(v, str) for v in parsed["env_vars"].values())
    assert dict(s.gpu.nccl_env).items() <= parsed["env_vars"].items()  # the machine's NCCL settings


def test_the_entrypoint_is_one_command_the_submitter_cannot_split() -> None:
    """KubeRay pastes the entrypoint unquoted into `bash -ce`: no shell operator may end the submit
    there. The shell reads it as the pre-flight, `--`, then verl with every override as one word and
    the user's extras last, verbatim."""
    s = spec(f"training.extraArgs={{{EXTRA}}}")
    words = shell_words(entrypoint(s))
    assert not {"&&", "||", ";", "|", "&"} & set(words)
    assert words[:2] == ["python3", f"{s.values.preflight.mount_path}/preflight.py"]
    verl = words[words.index("--") + 1 :]
    assert verl == ["python3", "-m", s.values.training.module, *hydra_overrides(s), EXTRA]


def test_each_override_is_set_once_and_names_a_real_values_key() -> None:
    """verl_check reports a problem under the values key an override comes from: that key exists."""
    s = spec()
    settings = hydra_settings(s)
    keys = [key for key, _, _ in settings]
    assert len(keys) == len(set(keys))
    tree = s.values.model_dump(by_alias=True)
    for _, _, source in settings:
        if source is None:
            continue
        node = tree
        for part in source.split("."):
            assert isinstance(node, dict) and part in node, source
            node = node[part]


def test_the_run_logs_folder_is_the_same_place_in_the_bucket_and_in_the_pod() -> None:
    """The checkpoint volume mounts the bucket's storage.checkpointDir at storage.checkpointMountPath:
    the folder the log shipper writes and the URL `verl-grpo logs` reads are one place."""
    s = spec("storage.bucket=my-bucket", "storage.checkpointDir=runs/ckpt", "run.name=exp-3")
    st = s.values.storage
    in_pod = logs_folder(s).removeprefix(st.checkpoint_mount_path + "/")
    assert logs_url(s) == f"gs://my-bucket/runs/ckpt/{in_pod}"
    assert in_pod.endswith("/exp-3/logs")
    assert f"'trainer.default_local_dir={logs_folder(s).removesuffix('/logs')}'" in entrypoint(s)


@pytest.mark.parametrize(
    ("sets", "from_machine"), [((), True), (("preflight.ncclGate.minBusBandwidthGbps=42",), False)]
)
def test_the_nccl_gate_threshold_is_the_machines_unless_set(
    sets: tuple[str, ...], from_machine: bool
) -> None:
    """minBusBandwidthGbps 0 takes the machine's threshold (data/gpus/); a set value wins."""
    s = spec(*sets, profile="a4x-standard")
    words = nccl_gate_flags(s).split()
    threshold = words[words.index("--nccl-gate-min-busbw") + 1]
    assert threshold == (str(s.gpu.nccl_gate_min_bus_gbps) if from_machine else "42")


def test_the_worker_setup_puts_gib_first_and_fails_without_its_script() -> None:
    """gIB's NCCL plugin before the driver's libraries, the image's own path kept after them; no
    `${` (a chart template would read it); a missing set_nccl_env.sh ends the container."""
    setup = worker_setup()
    assert f'LD_LIBRARY_PATH="{GIB_LIB}:{NVIDIA_LIB}$image"' in setup
    assert "${" not in setup
    assert f"source {GIB_NCCL_ENV_SCRIPT} ||" in setup and setup.rstrip().endswith("exit 1; }")
    compose = compose_entrypoint(spec())
    assert "preflight.py" not in compose and shell_words(compose)[-2:] == ["--cfg", "job"]
