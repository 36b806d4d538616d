"""The pool guard on a real API server: the GPU pools' record as 40-rdma.sh applies it (each
pool's key by its own field manager), and `helm install` refusing a release whose workers no
recorded pool takes, in the line `verl-grpo check --cluster-pools` prints (rule
pool-matches-workers)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from verl_grpo.rules.cluster_pools import NAMESPACE, RECORDS

from ..scripts_harness import MY_VALUES, REPO
from .cluster import ControlPlane
from .helpers import CHART, OVERLAYS, Helm, helm_error

pytestmark = pytest.mark.controlplane

VERL_GRPO = REPO / ".venv" / "bin" / "verl-grpo"
TWO_GROUPS = (
    "workerGroups.gpu-group=null,workerGroups.spot.replicas=1,workerGroups.spot.capacity=spot,"
    "workerGroups.ondemand.replicas=1,workerGroups.ondemand.capacity=on-demand"
)


def script_env(profile: str, *sets: str) -> dict[str, str]:
    """What `verl-grpo env` gives 40-rdma.sh, as the shell reads it."""
    sets_args = " ".join(f"--set {s}" for s in sets)
    shown = subprocess.run(
        [
            "bash",
            "-c",
            f'eval "$({VERL_GRPO} env --profile {profile} -f {MY_VALUES} {sets_args})" && '
            'printf "%s\\0%s\\0%s" "$GPU_POOLS" "$POOL_RECORDS" "$POOL_RECORDS_ACCESS"',
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    pools, records, access = shown.split("\0")
    return {"GPU_POOLS": pools, "POOL_RECORDS": records, "POOL_RECORDS_ACCESS": access}


def record(cp: ControlPlane, env: dict[str, str]) -> None:
    """40-rdma.sh's applies: the Role once, then each pool's line as that pool's field manager."""
    cp.kubectl(
        "apply",
        "--server-side",
        "--field-manager=verl-grpo-scripts",
        "-f",
        "-",
        stdin=env["POOL_RECORDS_ACCESS"],
    )
    for pool, line in zip(env["GPU_POOLS"].split(), env["POOL_RECORDS"].splitlines(), strict=True):
        cp.kubectl("apply", "--server-side", f"--field-manager=verl-grpo-pool-{pool}", "-f", "-", stdin=line)


@pytest.fixture(scope="module")
def helm(control_plane: ControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Helm:
    return Helm(control_plane.kubeconfig, tmp_path_factory.mktemp("helm-home"))


@pytest.fixture
def recorded(control_plane: ControlPlane) -> Iterator[None]:
    record(control_plane, script_env("h200-standard"))
    yield
    control_plane.kubectl(
        "delete", "configmap,role,rolebinding", RECORDS, "-n", NAMESPACE, "--ignore-not-found"
    )


def install(helm: Helm, profile: str, *sets: str) -> subprocess.CompletedProcess[str]:
    """`helm install --dry-run=server`: rendered against the cluster (lookup sees it), nothing made."""
    sets_args = [a for s in sets for a in ("--set", s)]
    values = ["-f", str(OVERLAYS / profile / "values.yaml"), "-f", str(MY_VALUES), *sets_args]
    return helm.run("install", "verl", str(CHART), *values, "-n", "default", "--dry-run=server")


def check_line(profile: str, records: str, *sets: str) -> list[str]:
    sets_args = [a for s in sets for a in ("--set", s)]
    done = subprocess.run(
        [
            str(VERL_GRPO),
            "check",
            "--profile",
            profile,
            "-f",
            str(MY_VALUES),
            *sets_args,
            "--cluster-pools",
            "-",
        ],
        input=records,
        capture_output=True,
        text=True,
        check=False,
    )
    return [line.removeprefix(f"error: {profile}: ") for line in done.stdout.splitlines()]


def test_a_release_of_the_profile_up_sh_made_installs(helm: Helm, recorded: None) -> None:
    done = install(helm, "h200-standard")
    assert done.returncode == 0, done.stderr


def test_another_profile_s_release_is_refused_as_check_refuses_it(
    control_plane: ControlPlane, helm: Helm, recorded: None
) -> None:
    done = install(helm, "b200-standard")
    assert done.returncode == 1
    error = helm_error(done.stderr)
    records = control_plane.kubectl("get", "configmap", RECORDS, "-n", NAMESPACE, "-o", "json")
    (line,) = check_line("b200-standard", records)
    assert line.startswith(
        "workerGroups.gpu-group: its workers select cloud.google.com/gke-accelerator=nvidia-b200"
    )
    assert error.endswith(line), (error, line)


def test_groups_of_their_own_need_pools_of_their_own(
    control_plane: ControlPlane, helm: Helm, recorded: None
) -> None:
    """The default group's pool does not take groups pinned to their own pools; once up.sh made
    and recorded theirs (a second run: the first run's key stays), the release installs."""
    done = install(helm, "h200-standard", TWO_GROUPS)
    assert "workerGroups.ondemand: its workers select" in helm_error(done.stderr)
    record(control_plane, script_env("h200-standard", TWO_GROUPS))
    data = json.loads(control_plane.kubectl("get", "configmap", RECORDS, "-n", NAMESPACE, "-o", "json"))[
        "data"
    ]
    assert sorted(data) == ["gpu-pool", "gpu-pool-ondemand", "gpu-pool-spot"]
    done = install(helm, "h200-standard", TWO_GROUPS)
    assert done.returncode == 0, done.stderr


def test_every_authenticated_user_reads_the_record_and_only_it(
    control_plane: ControlPlane, recorded: None
) -> None:
    """Helm's lookup fails the release on Forbidden (pkg/engine/lookup_func.go@v4.1.4): a release's
    author without rights in kube-public must still read the record."""

    def can(*what: str) -> str:
        return control_plane.kubectl(
            "auth",
            "can-i",
            *what,
            "-n",
            NAMESPACE,
            "--as=jane",
            "--as-group=system:authenticated",
            check=False,
        ).strip()

    assert can("get", f"configmap/{RECORDS}") == "yes"
    assert can("get", "configmap/cluster-info-of-someone-else") == "no"
    assert can("list", "configmaps") == "no"


def test_without_a_record_nothing_is_refused(helm: Helm) -> None:
    """A cluster the scripts did not make: nothing is known, nothing refused."""
    done = install(helm, "b200-standard")
    assert done.returncode == 0, done.stderr
