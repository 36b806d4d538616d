"""constructs/training_identity.py: the Kubernetes service account the training pods run as, whose
Workload Identity principal the bucket's IAM binding names."""

from __future__ import annotations

from verl_grpo.profiles import find_profile
from verl_grpo.shell_env import shell_env

from ...conftest import objects_of_kind, pods, render_one


def test_the_ray_pods_run_as_the_account_the_chart_writes() -> None:
    """The account exists in the release namespace, is a bare account, and every Ray pod runs as it."""
    r = render_one(profile="h200-standard-raycluster")
    accounts = {a["metadata"]["name"]: a for a in objects_of_kind(r, "ServiceAccount")}
    name = r.spec.values.service_account.name
    assert name in accounts
    assert accounts[name]["metadata"]["namespace"] == r.spec.release.namespace
    assert set(accounts[name]) == {"apiVersion", "kind", "metadata"}  # no secrets, no token settings
    assert {pod["spec"]["serviceAccountName"] for _, pod in pods(r)} == {name}


def test_a_renamed_account_is_the_one_the_pods_and_the_scripts_use() -> None:
    """serviceAccount.name renames the object and every Ray pod's account, and the gcloud scripts
    grant the bucket to the same name (`verl-grpo env` KSA_NAME)."""
    r = render_one("serviceAccount.name=trainer")
    assert "trainer" in {a["metadata"]["name"] for a in objects_of_kind(r, "ServiceAccount")}
    assert {pod["spec"]["serviceAccountName"] for _, pod in pods(r)} == {"trainer"}
    assert shell_env(r.spec, find_profile("b200-standard"))["KSA_NAME"] == "trainer"
    (job,) = objects_of_kind(r, "Job")  # the data-prep Job runs under its own account
    assert job["spec"]["template"]["spec"]["serviceAccountName"] != "trainer"
