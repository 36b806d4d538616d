"""The project's manifests and chart against a real apiserver + KubeRay: apply, install, upgrade, uninstall.

What only a real control plane can say, and unit tests of the rendering cannot:

* the apiserver's strict field validation (unknown or duplicate fields are errors, not warnings)
  accepts every rendered object, CRD-typed ones included;
* re-applying the same rendering is a no-op, also after KubeRay has acted on it (GitOps tools
  and the scripts must not flap or conflict);
* Helm's install/upgrade/uninstall cycle works with the objects the operator and controllers
  act on in between. Helm 4 upgrades by server-side apply: a field a controller took over makes
  the upgrade conflict (found here for KubeRay and the RayJob's worker group, since fixed), and
  a field the server holds immutable makes it fail (found here for the PVs, PVCs and the
  data-prep Job, since named after what they hold immutable);
* the ownership split between scripts/40-rdma.sh (cluster-scoped Network objects) and releases.

There are no Nodes in this module: the pods KubeRay and the Job controller create stay unbound,
and are deleted at once with their owners.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from ..helpers.module_files import gke_networking_crds as networking_crd_folder
from ..scripts_harness import profile_values
from .cluster import ControlPlane
from .helpers import (
    CHART,
    DIST,
    OVERLAYS,
    Helm,
    await_namespaces_deleted,
    begin_namespace_deletion,
    existing,
    helm_error,
    items,
    labelled,
    namespaced_kinds,
    pods,
    release_pvs,
    synth,
    wait_for,
)

# One PersistentVolume per bucket folder a release mounts (constructs/gcs_fuse_storage.py).
BUCKET_VOLUMES = ("model", "data", "verl", "checkpoints")
pytestmark = pytest.mark.controlplane

FIELD_MANAGER = "verl-grpo-controlplane-test"
SCRIPTS_FIELD_MANAGER = "verl-grpo-scripts"  # what scripts/40-rdma.sh applies the Network objects as
RAYJOB_FINALIZER = "ray.io/rayjob-finalizer"

# Every shipped profile, as dist/ has them (one folder with a kustomization.yaml each).
PROFILES = sorted(p.name for p in DIST.iterdir() if (p / "kustomization.yaml").is_file())
# Every overlay values file: overlays/<profile>/values.yaml.
OVERLAY_NAMES = sorted(str(p.parent.relative_to(OVERLAYS)) for p in OVERLAYS.glob("**/values.yaml"))

# The upgrade every release gets. 4 workers rather than 3: with the default batch sizes verl
# refuses 24 GPUs (train_batch_size x rollout.n = 2048 is not divisible by 24), which
# `verl-grpo synth` catches but Helm's schema cannot. --set-json for the learning rate: Helm's
# --set types only integers, booleans and null, so `--set training.learningRate=2e-6` is the
# string "2e-6" and the chart's schema (rightly) refuses it.
UPGRADE_WORKERS = 4
UPGRADE_LR = 2e-6
UPGRADE_ARGS = (
    "--set",
    f"workerGroups.gpu-group.replicas={UPGRADE_WORKERS}",
    "--set-json",
    f"training.learningRate={UPGRADE_LR}",
    "--set",
    "dataPrep.enabled=false",
)


# --- the KubeRay round trip -----------------------------------------------------------------------
#
# KubeRay v1.6.0 adds its finalizer to a new RayJob with an Update of the whole object, written
# back from its Go types: fields those types drop (a `false` bool with omitempty, such as a
# volumeMount's `readOnly: false`) or add (`scaleStrategy: {}`, a struct without a pointer) change
# the object. workerGroupSpecs is an atomic list in the CRD's schema, so a change anywhere in it
# makes "kuberay-operator" the owner of the whole list, and the next server-side apply of the
# same rendering (kubectl apply --server-side, kubectl diff --server-side) or of any changed
# worker setting (helm upgrade) failed with
#   Apply failed with 1 conflict: conflict with "kuberay-operator" using ray.io/v1:
#   .spec.rayClusterSpec.workerGroupSpecs
# This tier found it; c9b3ee7 renders the worker group as KubeRay writes it back. The tests below
# hold every RayJob to that: re-apply and upgrade must not conflict, and when they do, the
# failure names what the round trip changes (``round_trip_changes``) as the likely cause.


def round_trip_changes(rayjob: dict[str, Any]) -> list[str]:
    """What KubeRay's write-back would change in the RayJob's worker groups (empty: nothing)."""
    changes = []
    for group in rayjob["spec"]["rayClusterSpec"]["workerGroupSpecs"]:
        if "scaleStrategy" not in group:
            changes.append(f"{group['groupName']}: adds scaleStrategy: {{}}")
        for container in group["template"]["spec"].get("containers", []):
            changes += [
                f"{group['groupName']}/{container['name']}: drops readOnly: false of {m['mountPath']}"
                for m in container.get("volumeMounts", [])
                if m.get("readOnly") is False
            ]
    return changes


def assert_not_refused(refusals: list[str], rayjobs: list[dict[str, Any]]) -> None:
    changes = [c for job in rayjobs for c in round_trip_changes(job)]
    cause = (
        f"\nKubeRay's write-back changes the worker group (the likely cause): {changes}" if changes else ""
    )
    assert not refusals, "\n".join(refusals) + cause


def wait_for_finalizer(cp: ControlPlane, namespace: str, rayjob: str) -> None:
    """KubeRay's first Update of a RayJob; what follows must compare against the settled object
    (a real upgrade comes hours after the install, never before the operator's first move)."""
    wait_for(
        f"KubeRay's finalizer on RayJob {namespace}/{rayjob}",
        lambda: (
            RAYJOB_FINALIZER
            in items(cp, "rayjob", rayjob, "-n", namespace)[0]["metadata"].get("finalizers", [])
        ),
    )


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def gke_networking_crds(control_plane: ControlPlane) -> None:
    """GKE's Network and GKENetworkParamSet CRDs, from their Go module (server-side apply:
    idempotent across modules)."""
    folder = str(networking_crd_folder())
    control_plane.kubectl("apply", "--server-side", f"--field-manager={FIELD_MANAGER}", "-f", folder)
    control_plane.kubectl("wait", "--for=condition=Established", "--timeout=60s", "-f", folder)


@pytest.fixture(scope="module")
def helm(control_plane: ControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Helm:
    return Helm(control_plane.kubeconfig, tmp_path_factory.mktemp("helm-home"))


@pytest.fixture(scope="module")
def kinds(control_plane: ControlPlane) -> list[str]:
    return namespaced_kinds(control_plane)


@pytest.fixture(scope="module")
def doomed(control_plane: ControlPlane) -> Iterator[list[str]]:
    """Namespaces whose deletion the tests started; the module waits for all of them at the end."""
    names: list[str] = []
    yield names
    await_namespaces_deleted(control_plane, names)


def cleanup(cp: ControlPlane, helm: Helm | None, namespace: str, release: str, doomed: list[str]) -> None:
    """Whatever a test left, failed or not: the release, its namespace, its PersistentVolumes."""
    if helm is not None:
        helm.run("uninstall", release, "-n", namespace, "--ignore-not-found")
    begin_namespace_deletion(cp, namespace)
    doomed.append(namespace)
    if pvs := release_pvs(cp, namespace, release):
        cp.kubectl("delete", *pvs, "--ignore-not-found", "--wait=false")


def kubectl_run(cp: ControlPlane, *args: str) -> subprocess.CompletedProcess[str]:
    """kubectl with its exit code (``ControlPlane.kubectl`` raises on any non-zero one)."""
    return subprocess.run(
        [str(cp.kubectl_path), "--kubeconfig", str(cp.kubeconfig), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def first_error(stderr: str) -> str:
    """kubectl's error line ("error: ..." or "Error from server (...): ..."), without the prefix."""
    for line in stderr.splitlines():
        if line.startswith("error: "):
            return line.removeprefix("error: ")
        if line.startswith("Error from server"):
            return re.sub(r"^Error from server( \(\w+\))?: ", "", line)
    return stderr.strip()


# --- a. every profile: strict server-side apply, then a no-op re-apply ---------------------------


def apply_args(folder: Path) -> tuple[str, ...]:
    # --validate=strict: unknown or duplicated fields are errors (kubectl's default only warns).
    return (
        "apply",
        "--server-side",
        f"--field-manager={FIELD_MANAGER}",
        "--validate=strict",
        "-k",
        str(folder),
    )


def key(obj: dict[str, Any]) -> tuple[str, str]:
    return obj["kind"], obj["metadata"]["name"]


@pytest.mark.parametrize("profile", PROFILES)
def test_profile_applies_strictly_and_reapplies_unchanged(
    control_plane: ControlPlane, doomed: list[str], profile: str, tmp_path: Path
) -> None:
    cp = control_plane
    # dist/ pins `namespace: default`; the same rendering for another namespace is `synth -n`
    # (also renaming the PersistentVolumes, <namespace>-<claim>).
    namespace = f"dist-{profile}"
    folder = synth(tmp_path, profile, "-n", namespace, *profile_values(profile))
    expected = yaml.safe_load((folder / "kustomization.yaml").read_text())["resources"]
    rayjobs = [yaml.safe_load(f.read_text()) for f in sorted(folder.glob("rayjob-*.yaml"))]
    cp.kubectl("create", "namespace", namespace)
    refusals: list[str] = []
    try:
        first = json.loads(cp.kubectl(*apply_args(folder), "-o", "json"))["items"]
        assert len(first) == len(expected), [key(o) for o in first]
        for job in rayjobs:
            wait_for_finalizer(cp, namespace, job["metadata"]["name"])
        before = {key(o): o for o in items(cp, "-k", str(folder))}

        diff = kubectl_run(cp, "diff", "--server-side", f"--field-manager={FIELD_MANAGER}", "-k", str(folder))
        # kubectl diff: 0 no differences, 1 differences (printed), >1 an error.
        assert diff.returncode != 1, f"re-applying would change objects:\n{diff.stdout}"
        if diff.returncode != 0:
            refusals.append(f"kubectl diff --server-side: {first_error(diff.stderr)}")

        second = kubectl_run(cp, *apply_args(folder), "-o", "json")
        if second.returncode != 0:
            refusals.append(f"kubectl apply --server-side: {first_error(second.stderr)}")
        else:
            again = {key(o): o for o in json.loads(second.stdout)["items"]}
            assert again.keys() == before.keys()
            for k, obj in again.items():
                # generation counts spec changes; objects without one (ConfigMaps...) are covered by the diff.
                assert obj["metadata"].get("generation") == before[k]["metadata"].get("generation"), k
    finally:
        cleanup(cp, None, namespace, "verl", doomed)
    assert_not_refused(refusals, rayjobs)


# --- b. helm install, upgrade, uninstall of each overlay -----------------------------------------


@dataclass(frozen=True)
class Overlay:
    """One overlay values file, and the release this module installs from it."""

    name: str  # the profile's, as its folder overlays/<profile>/: e.g. "h200-autopilot-raycluster"

    @property
    def values_file(self) -> Path:
        return OVERLAYS / self.name / "values.yaml"

    @property
    def values(self) -> dict[str, Any]:
        return yaml.safe_load(self.values_file.read_text())

    @property
    def run_kind(self) -> str:
        return self.values.get("run", {}).get("kind", "RayJob")  # the chart's default run.kind

    @property
    def gpu(self) -> str:
        return self.values["gpu"]["type"]

    @property
    def release(self) -> str:
        return "up-" + self.name  # also its namespace


def learning_rate(entrypoint: str) -> float:
    match = re.search(r"actor_rollout_ref\.actor\.optim\.lr=([0-9.eE+-]+)", entrypoint)
    assert match, entrypoint
    return float(match.group(1))


def live_rayjobs(cp: ControlPlane, namespace: str) -> list[dict[str, Any]]:
    """The namespace's RayJobs that are not being deleted."""
    return [j for j in items(cp, "rayjobs", "-n", namespace) if not j["metadata"].get("deletionTimestamp")]


def check_upgraded(cp: ControlPlane, overlay: Overlay, replaced: list[str]) -> None:
    """The objects read back from the server show the three changed values; a RayJob is a new one
    (its name follows its spec) and the ones it replaced are gone."""
    ns = r = overlay.release
    if overlay.run_kind == "RayJob":
        wait_for(f"RayJobs {replaced} deleted", lambda: not existing(cp, "rayjob", *replaced, namespace=ns))
        (job,) = live_rayjobs(cp, ns)
        assert (
            job["metadata"]["name"].startswith(f"{r}-grpo-001-") and job["metadata"]["name"] not in replaced
        )
        workers = job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]
        entrypoint = job["spec"]["entrypoint"]
    else:
        (cluster,) = items(cp, "raycluster", f"{r}-{overlay.gpu}", "-n", ns)
        workers = cluster["spec"]["workerGroupSpecs"][0]
        entrypoint = items(cp, "configmap", f"{r}-submit", "-n", ns)[0]["data"]["entrypoint.sh"]
        # KubeRay acts on the new size: the long-lived cluster grows to the new worker count.
        wait_for(
            f"{UPGRADE_WORKERS} worker pods",
            lambda: len(pods(cp, ns, "ray.io/node-type=worker")) == UPGRADE_WORKERS,
        )
    assert (workers["replicas"], workers["minReplicas"], workers["maxReplicas"]) == (UPGRADE_WORKERS,) * 3
    assert f"trainer.nnodes={UPGRADE_WORKERS}" in entrypoint
    assert learning_rate(entrypoint) == pytest.approx(UPGRADE_LR)
    wait_for(
        "the data-prep Job to be deleted (dataPrep.enabled=false)",
        lambda: not cp.kubectl("get", "jobs", "-n", ns, "--ignore-not-found", "-o", "name").strip(),
    )


@pytest.mark.parametrize("name", OVERLAY_NAMES)
def test_overlay_installs_upgrades_and_uninstalls(
    control_plane: ControlPlane, helm: Helm, kinds: list[str], doomed: list[str], name: str
) -> None:
    cp, overlay = control_plane, Overlay(name)
    release = namespace = overlay.release
    # With what is the user's: the zone on Autopilot, A4X's reservation and multi-arch image.
    values = ("-f", str(overlay.values_file), *profile_values(overlay.name))
    chart_args = (release, str(CHART), *values, "-n", namespace)
    refusals: list[str] = []
    rayjobs: list[dict[str, Any]] = []
    try:
        helm.ok("install", *chart_args, "--create-namespace")  # no --wait: nothing would become ready
        if overlay.run_kind == "RayJob":
            manifest = yaml.safe_load_all(helm.ok("get", "manifest", release, "-n", namespace))
            rayjobs = [d for d in manifest if d and d["kind"] == "RayJob"]
            wait_for_finalizer(cp, namespace, rayjobs[0]["metadata"]["name"])
        wait_for("KubeRay's Ray head pod", lambda: pods(cp, namespace, "ray.io/node-type=head"))

        upgrade_args = UPGRADE_ARGS
        if overlay.run_kind == "RayJob":
            # The run changes (workers, learning rate) while the RayJob has not finished: refused
            # unless run.replaceRunning (the run guard in NOTES.txt; test_run_guard below).
            refused = helm.run("upgrade", *chart_args, *upgrade_args)
            assert (
                refused.returncode != 0
                and "run.replaceRunning: this upgrade changes the run" in refused.stderr
            )
            upgrade_args = (*UPGRADE_ARGS, "--set", "run.replaceRunning=true")
        done = helm.run("upgrade", *chart_args, *upgrade_args)
        if done.returncode != 0:
            refusals.append(f"helm upgrade: {helm_error(done.stderr)}")
            # The workaround (take the worker group back), so that the rest of the cycle is checked.
            helm.ok("upgrade", *chart_args, *upgrade_args, "--force-conflicts")
        check_upgraded(cp, overlay, replaced=[j["metadata"]["name"] for j in rayjobs])

        helm.ok("uninstall", release, "-n", namespace)
        # No --wait: the controllers finish the deletion (KubeRay's finalizer, owned pods, PVC protection).
        wait_for(
            f"nothing labelled app.kubernetes.io/instance={release} and no PersistentVolume left",
            lambda: (
                not labelled(cp, kinds, f"app.kubernetes.io/instance={release}")
                and not release_pvs(cp, namespace, release)
            ),
        )
        assert not helm.ok("list", "-n", namespace, "-q").split()
    finally:
        cleanup(cp, helm, namespace, release, doomed)
    assert_not_refused(refusals, rayjobs)


# Values the server holds immutable in place: a PersistentVolume's csi source ("spec.
# persistentvolumesource is immutable after creation") and a statically bound claim's size ("only
# dynamically provisioned pvc can be resized"); before, `helm upgrade` failed with exactly these.
# The PV and PVC names now carry a digest of bucket and capacity, so such an upgrade makes a new
# pair, points the pods at it and Helm deletes the old pair.
@pytest.mark.parametrize(
    ("change", "check"),
    [
        (
            "storage.bucket=another-bucket",
            lambda pv: pv["spec"]["csi"]["volumeHandle"].startswith("another-bucket:"),
        ),
        ("storage.capacity=1Ti", lambda pv: pv["spec"]["capacity"]["storage"] == "1Ti"),
    ],
    ids=["storage.bucket", "storage.capacity"],
)
def test_upgrade_of_a_value_the_server_holds_immutable(
    control_plane: ControlPlane, helm: Helm, doomed: list[str], change: str, check: Any
) -> None:
    """A RayCluster overlay (its pod templates follow an upgrade), one storage value changed."""
    cp = control_plane
    release = namespace = "imm-" + change.split("=")[0].replace(".", "-")
    values = str(OVERLAYS / "h200-standard-raycluster" / "values.yaml")
    chart_args = (release, str(CHART), "-f", values, "-n", namespace)
    try:
        helm.ok("install", *chart_args, "--create-namespace")
        before = release_pvs(cp, namespace, release)
        helm.ok("upgrade", *chart_args, "--set", change)
        # The old claims are gone or going (PVC protection holds a claim only while a pod uses it;
        # no pod runs here); Helm deleted the old PVs, which the Retain policy would otherwise keep.
        wait_for(
            "the old PersistentVolumes deleted",
            lambda: not set(before) & set(release_pvs(cp, namespace, release)),
        )
        after = items(cp, "pv", *(n.split("/")[1] for n in release_pvs(cp, namespace, release)))
        assert len(after) == len(BUCKET_VOLUMES) and all(check(pv) for pv in after)
        claims = {c["metadata"]["name"] for c in items(cp, "pvc", "-n", namespace)}
        assert claims == {pv["spec"]["claimRef"]["name"] for pv in after}
        (cluster,) = items(cp, "rayclusters", "-n", namespace)
        used = {
            v["persistentVolumeClaim"]["claimName"]
            for group in [cluster["spec"]["headGroupSpec"], *cluster["spec"]["workerGroupSpecs"]]
            for v in group["template"]["spec"]["volumes"]
            if "persistentVolumeClaim" in v
        }
        assert used == claims
    finally:
        cleanup(cp, helm, namespace, release, doomed)


def test_upgrade_that_changes_the_data_prep_job_replaces_it(
    control_plane: ControlPlane, helm: Helm, doomed: list[str]
) -> None:
    """Before, `--set image.tag=...` (any change of the image) failed: 'Job.batch "...-data-prep" is
    invalid: spec.template: ... field is immutable'. The Job's name carries a digest of the values:
    a new Job, the old gone."""
    cp = control_plane
    release = namespace = "imm-image-tag"
    values = str(OVERLAYS / "h200-standard-raycluster" / "values.yaml")
    chart_args = (release, str(CHART), "-f", values, "-n", namespace)
    try:
        helm.ok("install", *chart_args, "--create-namespace")
        before = [j["metadata"]["name"] for j in items(cp, "jobs", "-n", namespace)]
        # the user's own build of the image (verl's tags follow training.verlVersion)
        helm.ok("upgrade", *chart_args, "--set", "image.repository=example.com/my/verl")
        after = items(cp, "jobs", "-n", namespace)
        assert [j["metadata"]["name"] for j in after] != before and len(after) == len(before) == 1
        (container,) = after[0]["spec"]["template"]["spec"]["containers"]
        assert container["image"] == "example.com/my/verl:vllm011.dev7"
    finally:
        cleanup(cp, helm, namespace, release, doomed)


def set_rayjob_status(cp: ControlPlane, namespace: str, name: str, status: str) -> None:
    """What KubeRay writes when a run ends (there is no Ray here to finish one)."""
    patch = json.dumps({"status": {"jobDeploymentStatus": status}})
    cp.kubectl("patch", "rayjob", name, "-n", namespace, "--subresource=status", "--type=merge", "-p", patch)


def test_run_guard(control_plane: ControlPlane, helm: Helm, doomed: list[str]) -> None:
    """KubeRay ignores changes to an existing RayJob, so the RayJob's name follows its spec: a
    changed run replaces the RayJob. Replacing one that has not finished fails the upgrade unless
    run.replaceRunning; a finished one is replaced; a change outside the run keeps the RayJob."""
    cp = control_plane
    release = namespace = "run-guard"
    chart_args = (release, str(CHART), "-f", str(OVERLAYS / "h200-standard" / "values.yaml"), "-n", namespace)
    try:
        helm.ok("install", *chart_args, "--create-namespace")
        (first,) = [j["metadata"]["name"] for j in live_rayjobs(cp, namespace)]
        wait_for_finalizer(cp, namespace, first)

        refused = helm.run("upgrade", *chart_args, "--set", "training.totalEpochs=3")
        assert refused.returncode != 0
        message = helm_error(refused.stderr)
        assert f"replaces RayJob {first} (status " in message and "Set run.replaceRunning=true" in message
        assert [j["metadata"]["name"] for j in live_rayjobs(cp, namespace)] == [first]  # nothing applied

        set_rayjob_status(cp, namespace, first, "Complete")
        helm.ok("upgrade", *chart_args, "--set", "training.totalEpochs=3")
        wait_for(f"RayJob {first} deleted", lambda: not existing(cp, "rayjob", first, namespace=namespace))
        (second,) = live_rayjobs(cp, namespace)
        assert (
            second["metadata"]["name"] != first and "'trainer.total_epochs=3'" in second["spec"]["entrypoint"]
        )
        wait_for_finalizer(cp, namespace, second["metadata"]["name"])

        # Not part of the run's spec: the same RayJob, updated in place by server-side apply after
        # KubeRay's own write-back, without a conflict and without the guard (it is not finished).
        helm.ok("upgrade", *chart_args, "--set", "training.totalEpochs=3", "--set", "cluster.cpuNodeCount=3")
        (same,) = live_rayjobs(cp, namespace)
        assert same["metadata"]["name"] == second["metadata"]["name"]
        assert same["metadata"]["uid"] == second["metadata"]["uid"]
    finally:
        cleanup(cp, helm, namespace, release, doomed)


# --- c. ownership of the cluster-scoped Network objects ------------------------------------------


@pytest.fixture(scope="module")
def scripts_networks(
    control_plane: ControlPlane, gke_networking_crds: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[str]]:
    """The Network and GKENetworkParamSet objects, rendered and applied as scripts/40-rdma.sh does."""
    folder = synth(tmp_path_factory.mktemp("rdma"), "b200-standard", "--set", "network.createObjects=true")
    files = sorted(folder.glob("gkenetworkparamset-*.yaml")) + sorted(folder.glob("network-*.yaml"))
    assert len(files) == 18, files  # the script's own sanity check: 9 + 9
    args = [a for f in files for a in ("-f", str(f))]
    out = control_plane.kubectl(
        "apply", "--server-side", f"--field-manager={SCRIPTS_FIELD_MANAGER}", *args, "-o", "name"
    )
    names = out.split()
    yield names
    control_plane.kubectl("delete", *names, "--ignore-not-found")


def managers(cp: ControlPlane, names: list[str]) -> set[str]:
    found = items(cp, "--show-managed-fields", *names)
    return {m["manager"] for o in found for m in o["metadata"].get("managedFields", [])}


def test_release_installs_beside_script_owned_networks(
    control_plane: ControlPlane, helm: Helm, doomed: list[str], scripts_networks: list[str]
) -> None:
    """network.createObjects=false (the overlays' default): the release neither needs nor touches them."""
    cp = control_plane
    release = namespace = "own-scripts"
    values = str(OVERLAYS / "b200-standard" / "values.yaml")
    try:
        helm.ok("install", release, str(CHART), "-f", values, "-n", namespace, "--create-namespace")
        manifest = yaml.safe_load_all(helm.ok("get", "manifest", release, "-n", namespace))
        assert not [d["kind"] for d in manifest if d and d["kind"] in {"Network", "GKENetworkParamSet"}]
        helm.ok("uninstall", release, "-n", namespace)
        assert managers(cp, scripts_networks) == {SCRIPTS_FIELD_MANAGER}  # still there, still the script's
    finally:
        cleanup(cp, helm, namespace, release, doomed)


def test_release_creating_networks_refuses_to_adopt_script_owned_ones(
    control_plane: ControlPlane, helm: Helm, doomed: list[str], scripts_networks: list[str]
) -> None:
    """network.createObjects=true while the script's objects exist: Helm refuses, touching nothing."""
    cp = control_plane
    release = namespace = "own-chart"
    values = str(OVERLAYS / "b200-standard" / "values.yaml")
    try:
        done = helm.run(
            *("install", release, str(CHART), "-f", values, "-n", namespace, "--create-namespace"),
            *("--set", "network.createObjects=true"),
        )
        assert done.returncode != 0, done.stdout
        message = helm_error(done.stderr)
        # Helm 4.1's wording (pkg/action/validate.go): the first object it finds, then why.
        assert re.match(
            r"unable to continue with install: "
            r'(GKENetworkParamSet|Network) "verl-[a-z0-9-]+" in namespace "" exists and cannot be imported '
            r"into the current release: invalid ownership metadata; annotation validation error: "
            r'missing key "meta\.helm\.sh/release-name": must be set to "own-chart"',
            message,
        ), message
        assert managers(cp, scripts_networks) == {SCRIPTS_FIELD_MANAGER}
        assert not helm.ok("list", "-n", namespace, "-q").split()  # no failed release left behind
    finally:
        cleanup(cp, helm, namespace, release, doomed)


def test_two_releases_in_two_namespaces_in_any_order(
    control_plane: ControlPlane, helm: Helm, kinds: list[str], doomed: list[str], scripts_networks: list[str]
) -> None:
    """Two users, one cluster: each release installs, upgrades and uninstalls without touching the
    other's objects or the cluster's shared networks (owned by the scripts)."""
    cp = control_plane
    users = {
        "team-a": str(OVERLAYS / "h200-standard" / "values.yaml"),
        "team-b": str(OVERLAYS / "b200-standard-raycluster" / "values.yaml"),
    }
    try:
        for namespace, values in users.items():
            helm.ok("install", "verl", str(CHART), "-f", values, "-n", namespace, "--create-namespace")
        pvs = {ns: release_pvs(cp, ns, "verl") for ns in users}
        assert all(len(names) == len(BUCKET_VOLUMES) for names in pvs.values()), pvs
        helm.ok(
            "upgrade",
            "verl",
            str(CHART),
            "-f",
            users["team-b"],
            "-n",
            "team-b",
            "--set",
            "workerGroups.gpu-group.replicas=4",
        )
        helm.ok("uninstall", "verl", "-n", "team-a")  # the first one goes first
        # Helm returns once it asked; a bound PV goes when the PV-protection finalizer lets it.
        wait_for("team-a's PVs deleted", lambda: not release_pvs(cp, "team-a", "verl"))
        assert release_pvs(cp, "team-b", "verl") == pvs["team-b"]
        team_b = items(cp, "rayclusters", "-n", "team-b")
        assert [c["spec"]["workerGroupSpecs"][0]["replicas"] for c in team_b] == [4]
        helm.ok("upgrade", "verl", str(CHART), "-f", users["team-b"], "-n", "team-b")
        helm.ok("uninstall", "verl", "-n", "team-b")
        wait_for("team-b's PVs deleted", lambda: not release_pvs(cp, "team-b", "verl"))
        assert managers(cp, scripts_networks) == {SCRIPTS_FIELD_MANAGER}  # the shared networks stay
    finally:
        for namespace in users:
            cleanup(cp, helm, namespace, "verl", doomed)
