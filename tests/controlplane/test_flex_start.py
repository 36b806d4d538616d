"""A flex-start run queued in Kueue is admitted only once GKE has provisioned its whole gang.

The kit's flex-start ClusterQueue runs Kueue's ProvisioningRequest admission check on the GPU
flavor (constructs/kueue_queue.py). Here the real Kueue v0.19.2 controller creates the
ProvisioningRequest for the queued RayJob, and a fake plays GKE's queued provisioning
(provisioner.py): nothing is admitted, and the RayJob stays suspended, until the fake marks the
request Provisioned; after a Failed one the run waits out Kueue's backoff, is evicted and asks
again. What Kueue does at each step: pkg/controller/admissionchecks/provisioning/controller.go
@v0.19.2 and the notes in docs/research/issue-23-provisioning-on-loopback.md.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from verl_grpo.facts.kueue import GPU_RESOURCE, QUEUED_PROVISIONING_CLASS, QUEUED_TOLERATION

from .build import COMPONENTS, required_version
from .cluster import ControlPlane, provisioning_request_tool
from .helpers import items, synth, wait_for
from .provisioner import FakeProvisioner, attempt
from .test_kueue import QUEUED, condition, ray_job, workload_of

pytestmark = pytest.mark.controlplane

FLEX_START = (*QUEUED, "--set", "cluster.capacity=flex-start")
NAMESPACE = "default"
# The pod annotations by which the autoscaler matches pods to the capacity it provisioned; Kueue
# adds them to the admitted pod sets (controller.go@v0.19.2 podSetUpdates; the keys:
# autoscaling.x-k8s.io/v1 types.go ProvisioningRequestPodAnnotationKey, ...ClassPodAnnotationKey).
CONSUMES = "autoscaling.x-k8s.io/consume-provisioning-request"
CLASS = "autoscaling.x-k8s.io/provisioning-class-name"
# The kit's ProvisioningRequestConfig sets no retryStrategy, so the CRD's default holds:
# backoffLimitCount 3, backoffBaseSeconds 60 (apis/kueue/v1beta2/provisioningrequestconfig_types.go
# @v0.19.2); the first retry waits the base (pkg/workload/admissionchecks.go
# UpdateAdmissionCheckRequeueState: 60s * 2^(n-1), jitter 0.0001).
FIRST_BACKOFF_S = 60


@pytest.fixture(scope="module")
def kueue() -> Iterator[ControlPlane]:
    """A control plane of its own, as test_kueue.py has: Kueue's webhooks see every RayJob."""
    with ControlPlane.start() as cp:
        cp.start_kueue()
        yield cp


@pytest.fixture
def provisioner(kueue: ControlPlane) -> Iterator[FakeProvisioner]:
    yield FakeProvisioner(kueue, NAMESPACE)
    # The ClusterQueue admits one run of this size: each test gives its quota back.
    kueue.kubectl("delete", "rayjobs", "--all", "-n", NAMESPACE, "--wait=true")


def check_name(folder: Path) -> str:
    (path,) = folder.glob("admissioncheck-*.yaml")
    return yaml.safe_load(path.read_text())["metadata"]["name"]


def gpu_groups(job: dict[str, Any]) -> dict[str, int]:
    """The RayJob's worker groups that ask for GPUs, with their pod counts: the gang GKE must
    provision at once (Kueue counts replicas x numOfHosts per group)."""
    return {
        g["groupName"]: g["replicas"] * g.get("numOfHosts", 1)
        for g in job["spec"]["rayClusterSpec"]["workerGroupSpecs"]
        if pod_gpus(g["template"]["spec"])
    }


def pod_gpus(pod: dict[str, Any]) -> int:
    return sum(int(c["resources"].get("requests", {}).get(GPU_RESOURCE, 0)) for c in pod["containers"])


def check_state(workload: dict[str, Any], check: str) -> dict[str, Any]:
    return next(c for c in workload["status"].get("admissionChecks", []) if c["name"] == check)


def rayjob(cp: ControlPlane, name: str) -> dict[str, Any]:
    return items(cp, "rayjob", name, "-n", NAMESPACE)[0]


def submit(cp: ControlPlane, folder: Path) -> tuple[str, str]:
    """Apply the rendered objects (queue objects and RayJob) as a user would; return the RayJob's
    name and its Workload's, once Kueue has made it."""
    cp.kubectl("apply", "-k", str(folder))
    name = ray_job(folder)["metadata"]["name"]
    workload = wait_for("the RayJob's Workload", lambda: workload_of(cp, name), timeout=60)
    return name, workload["metadata"]["name"]


def admitted(cp: ControlPlane, name: str) -> dict[str, Any] | None:
    workload = workload_of(cp, name)
    return workload if workload and condition(workload, "Admitted").get("status") == "True" else None


def assert_held(cp: ControlPlane, name: str) -> None:
    """Not admitted, and the RayJob still suspended: no pod is made."""
    workload = workload_of(cp, name)
    assert workload is not None and condition(workload, "Admitted").get("status") != "True", workload
    assert rayjob(cp, name)["spec"]["suspend"] is True


def test_the_tier_runs_the_provisioning_api_kueue_was_built_against():
    """The CRD the tier installs (tools/provisioning_request_crd.py, read from Kueue's go.mod)
    is the version linked into the Kueue binary (the wrapper module's build list)."""
    tool = provisioning_request_tool()
    (kueue,) = (c for c in COMPONENTS if c.name == "kueue")
    assert tool.pinned_version() == required_version(kueue.wrapper, tool.MODULE)


def test_a_flex_start_run_is_admitted_only_once_its_provisioning_request_is_provisioned(
    kueue, provisioner, tmp_path
):
    cp, fake = kueue, provisioner
    folder = synth(tmp_path / "a", "h200-standard", *FLEX_START)
    job, check = ray_job(folder), check_name(folder)
    name, workload = submit(cp, folder)

    # Quota reserved, Kueue asks for the capacity: one ProvisioningRequest for the whole gang.
    (request,) = wait_for("Kueue's ProvisioningRequest", lambda: fake.requests_of(workload), timeout=60)
    pr = request["metadata"]["name"]
    assert pr == f"{workload}-{check}-1"
    assert request["spec"]["provisioningClassName"] == QUEUED_PROVISIONING_CLASS
    gang = gpu_groups(job)
    assert {p["podTemplateRef"]["name"]: p["count"] for p in request["spec"]["podSets"]} == {
        f"ppt-{pr}-{group}": count for group, count in gang.items()
    }, "every GPU worker, in one request; the CPU head and submitter are not asked for"
    gpus = 0
    for pod_set in request["spec"]["podSets"]:
        # The pods the provisioner is asked to make room for (ProvisioningRequest podSets): the
        # worker pod, with the flavor's node labels and the queued-provisioning taint tolerated.
        template = items(cp, "podtemplate", pod_set["podTemplateRef"]["name"], "-n", NAMESPACE)[0]
        spec = template["template"]["spec"]
        assert QUEUED_TOLERATION in spec["tolerations"]
        assert spec["nodeSelector"]["cloud.google.com/gke-flex-start"] == "true"
        gpus += pod_set["count"] * pod_gpus(spec)
    assert gpus == sum(
        gang[g["groupName"]] * pod_gpus(g["template"]["spec"])
        for g in job["spec"]["rayClusterSpec"]["workerGroupSpecs"]
        if g["groupName"] in gang
    )

    # No condition yet: the quota is held, the check Pending, the run not admitted.
    waiting = workload_of(cp, name)
    assert condition(waiting, "QuotaReserved")["status"] == "True"
    assert check_state(waiting, check)["state"] == "Pending"
    assert_held(cp, name)

    # Accepted, not yet provisioned: Kueue reads the request (it copies the message) and waits.
    eta = fake.accept(pr)
    wait_for(
        "Kueue to copy the provisioner's message into the admission check",
        lambda: check_state(workload_of(cp, name), check).get("message") == eta,
        timeout=30,
    )
    assert check_state(workload_of(cp, name), check)["state"] == "Pending"
    assert_held(cp, name)

    # Provisioned: the check is Ready, the run admitted and unsuspended.
    done = fake.provision(pr)
    run = wait_for("the Workload admitted once provisioned", lambda: admitted(cp, name), timeout=60)
    state = check_state(run, check)
    assert state["state"] == "Ready" and state["message"] == done
    assert [(a.condition, a.status) for a in fake.actions] == [
        ("Accepted", "True"),
        ("Provisioned", "False"),
        ("Provisioned", "True"),
    ]
    unsuspended = wait_for(
        "the RayJob unsuspended", lambda: (j := rayjob(cp, name))["spec"].get("suspend") is not True and j
    )
    # The admitted workers carry the request's name and class: the autoscaler places them on the
    # capacity it provisioned for this request.
    for group in unsuspended["spec"]["rayClusterSpec"]["workerGroupSpecs"]:
        if group["groupName"] in gang:
            annotations = group["template"]["metadata"].get("annotations", {})
            assert annotations[CONSUMES] == pr and annotations[CLASS] == QUEUED_PROVISIONING_CLASS


def test_a_failed_provisioning_request_holds_the_run_and_kueue_asks_again_after_the_backoff(
    kueue, provisioner, tmp_path
):
    cp, fake = kueue, provisioner
    folder = synth(tmp_path / "b", "h200-standard", *FLEX_START, "--set", "run.name=grpo-002")
    check = check_name(folder)
    name, workload = submit(cp, folder)
    (first,) = wait_for("Kueue's ProvisioningRequest", lambda: fake.requests_of(workload), timeout=60)
    assert attempt(first) == 1

    # Failed with retries left (attempt 1 <= backoffLimitCount 3): the check goes Retry with the
    # first backoff (controller.go@v0.19.2 syncCheckStates), and the Workload controller sets the
    # requeue time and waits it out before it evicts (core/workload_controller.go@v0.19.2
    # Reconcile: NeedsRequeueAtUpdate, then "Waiting for backoff to finish" ahead of
    # reconcileCheckBasedEviction). Meanwhile the run keeps its quota but is not admitted.
    message = fake.fail(first["metadata"]["name"])
    failed_at = fake.actions[-1].at
    retrying = wait_for(
        "the admission check in Retry, a requeue time set",
        lambda: (
            (w := workload_of(cp, name))
            and check_state(w, check)["state"] == "Retry"
            and (w["status"].get("requeueState") or {}).get("requeueAt")
            and w
        ),
        timeout=30,
    )
    state = check_state(retrying, check)
    assert state["message"] == f"Retrying after failure: {message}"
    assert state["requeueAfterSeconds"] == FIRST_BACKOFF_S
    assert condition(retrying, "QuotaReserved")["status"] == "True"
    assert_held(cp, name)

    # After the backoff Kueue evicts the run (releasing the quota), resets the check to Pending
    # with one retry counted (workload/evict/evict.go@v0.19.2 resetChecksOnEviction), reserves
    # the quota again, deletes the failed request and asks a second time.
    second = wait_for(
        "the second ProvisioningRequest after the backoff",
        lambda: [r for r in fake.requests_of(workload) if attempt(r) == 2],
        timeout=FIRST_BACKOFF_S + 60,
    )[0]
    waited = time.monotonic() - failed_at
    assert waited >= FIRST_BACKOFF_S - 5, f"Kueue asked again {waited:.0f}s after the failure"
    requeued = wait_for(
        "the failed request deleted (CleanupProvisioningRequestsOnEviction, on by default in v0.19)",
        lambda: [attempt(r) for r in fake.requests_of(workload)] == [2] and workload_of(cp, name),
        timeout=30,
    )
    evictions = requeued["status"]["schedulingStats"]["evictions"]
    assert [(e["reason"], e["count"]) for e in evictions] == [("AdmissionCheck", 1)], evictions
    assert condition(requeued, "Requeued")["reason"] == "BackoffFinished"
    state = check_state(requeued, check)
    assert state["state"] == "Pending" and state["retryCount"] == 1, state
    assert_held(cp, name)

    # The second request provisioned: admitted on it.
    fake.provision(second["metadata"]["name"])
    wait_for("the Workload admitted on the second request", lambda: admitted(cp, name), timeout=60)
    job = wait_for(
        "the RayJob unsuspended", lambda: (j := rayjob(cp, name))["spec"].get("suspend") is not True and j
    )
    gang = gpu_groups(job)
    for group in job["spec"]["rayClusterSpec"]["workerGroupSpecs"]:
        if group["groupName"] in gang:
            assert group["template"]["metadata"]["annotations"][CONSUMES] == second["metadata"]["name"]
