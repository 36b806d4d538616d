"""jobs/client.py: the Ray client pinned to the cluster's Ray.
The verbs against a real Ray cluster: test_commands.py."""

from __future__ import annotations

import tomllib

from verl_grpo.jobs.client import Connection, version_problems

from ...conftest import REPO


def test_the_ray_client_is_pinned_to_the_clusters_ray() -> None:
    import ray

    from verl_grpo.values.model import Values

    pins = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    (pin,) = [p for p in pins if p.startswith("ray[default]==")]
    assert pin.split("==")[1] == Values().ray.version == ray.__version__


def test_version_mismatches_are_named() -> None:
    conn = Connection(client=None, url="http://h:8265", server_version="2.48.0")  # type: ignore[arg-type]
    (values_problem, client_problem) = version_problems(conn, "2.47.0", "2.47.0", allow_mismatch=False)
    assert values_problem.startswith(
        "ray.version: '2.47.0', but the cluster at http://h:8265 runs Ray 2.48.0"
    )
    assert "Ray client 2.47.0 (verl-grpo's pin)" in client_problem
    assert "pip install 'ray[default]==2.48.0' or pass --allow-version-mismatch" in client_problem
    assert version_problems(conn, "2.47.0", None, allow_mismatch=True) == []
    assert version_problems(conn, "2.48.0", "2.48.0", allow_mismatch=False) == []
