"""The chart, the overlays and dist/ render the same objects (DESIGN.md invariant 1)."""

from __future__ import annotations

import hashlib
import json

import pytest

from verl_grpo.profiles import shipped_profiles
from verl_grpo.yaml_io import load, load_all

from ..conftest import DIST_VALUES, REPO
from ..helm_tools import CHART, HELMS, by_identity, helm_template, kustomize, run, tool


def dist_objects(profile: str) -> list[dict]:
    folder = REPO / "dist" / profile
    names = load((folder / "kustomization.yaml").read_text())["resources"]
    return [load((folder / n).read_text()) for n in names]


@pytest.mark.parametrize("profile", shipped_profiles(), ids=lambda p: p.name)
@pytest.mark.parametrize("helm", HELMS)
def test_helm_kustomize_and_dist_agree(profile, helm, tmp_path):
    import yaml

    from verl_grpo.output.dist import placeholder_layer

    expected = by_identity(dist_objects(profile.name))
    # dist/'s placeholders for what is the user's (output/dist.py), as a user's -f.
    mine = tmp_path / "mine.yaml"
    mine.write_text(yaml.safe_dump(placeholder_layer(profile)))
    overlay = str(REPO / profile.overlay_dir / "values.yaml")
    rendered = by_identity(helm_template("-f", overlay, "-f", str(mine), helm=helm))
    assert rendered == expected
    if helm == "helm":
        assert by_identity(kustomize(REPO / profile.overlay_dir)) == expected


def test_release_name_and_namespace_flow_into_names(shipped):
    from verl_grpo.pipeline import Request, synthesize
    from verl_grpo.values.derive import Release

    rendered = by_identity(helm_template(release="lab", namespace="team-a"))
    ours = synthesize([Request("x", None, (DIST_VALUES,), release=Release("lab", "team-a"))])["x"]
    assert rendered == by_identity([o.manifest for o in ours.objects])
    (job,) = [o for (kind, _, _), o in rendered.items() if kind == "RayJob"]
    # The RayJob's name ends in 8 hex digits of sha256 over its spec as compact, key-sorted JSON.
    canonical = json.dumps(job["spec"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert job["metadata"]["name"] == f"lab-grpo-001-{hashlib.sha256(canonical.encode()).hexdigest()[:8]}"
    # The storage names end in 8 hex digits of sha256 over [bucket, capacity] as JSON (Helm:
    # `list .Values.storage.bucket .Values.storage.capacity | toJson | sha256sum | trunc 8`).
    digest = hashlib.sha256(b'["replace-me-with-your-bucket","768Gi"]').hexdigest()[:8]
    assert ("PersistentVolume", "", f"team-a-lab-data-{digest}") in rendered
    assert ("PersistentVolumeClaim", "team-a", f"lab-checkpoints-{digest}") in rendered


@pytest.mark.parametrize("values", [None, *sorted({p.overlay_dir for p in shipped_profiles()})])
@pytest.mark.parametrize("helm", HELMS)
def test_helm_lint_strict(values, helm):
    args = ["-f", str(REPO / values / "values.yaml")] if values else []
    done = run(tool(helm), "lint", "--strict", str(CHART), *args)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("flag", "needle"),
    [
        ("worker.replica=3", "replica"),
        ("workerGroups.g.replicas=abc", "replicas"),
        ("workerGroups.Bad_Name.replicas=1", "Bad_Name"),
        ("gpu.type=gb300", "type"),
        ("cluster.mode=gke", "mode"),
        ("storage.bucket=gs://x", "bucket"),
        ("training.rolloutN=0", "rolloutN"),
        ("job.backoffLimit=-2", "backoffLimit"),
        ("training.logger={console,nope}", "logger"),
        # Outside the supported KubeRay minors (facts/kuberay.py).
        ("kuberay.version=1.3.0", "version"),
        ("kuberay.version=1.8.0", "version"),
        ("kuberay.version=v1.6.0", "version"),
    ],
)
@pytest.mark.parametrize("helm", HELMS)
def test_helm_applies_the_schema(flag, needle, helm):
    done = run(tool(helm), "template", "verl", str(CHART), "-f", str(DIST_VALUES), "--set", flag)
    assert done.returncode != 0
    assert needle in done.stderr


def test_chart_metadata_and_docs():
    from verl_grpo import __version__
    from verl_grpo.facts.verl_releases import DEFAULT_VERL_VERSION

    chart = load((CHART / "Chart.yaml").read_text())
    assert chart["apiVersion"] == "v2" and chart["type"] == "application"
    assert chart["version"] == __version__ and chart["appVersion"] == DEFAULT_VERL_VERSION
    schema = json.loads((CHART / "values.schema.json").read_text())
    values_text = (CHART / "values.yaml").read_text()
    readme = (CHART / "README.md").read_text()
    leaves = _leaves(schema)
    assert len(leaves) > 60
    for path in leaves:
        assert f"`{path}`" in readme, path
    for field in schema["properties"]["workerGroups"]["additionalProperties"]["properties"]:  # a map of ours
        assert f"| `workerGroups.<name>.{field}` |" in readme, field
    assert "workerGroups:\n  # -- The chart's gpu-group" in values_text  # block style, fields commented
    # A `# --` comment precedes every key line of values.yaml.
    lines = values_text.splitlines()
    key_lines = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
    assert len(key_lines) > 60
    assert [lines[i] for i in key_lines if not lines[i - 1].lstrip().startswith("# -- ")] == []


def _leaves(schema: dict, prefix: str = "") -> list[str]:
    out = []
    for key, node in schema["properties"].items():
        if node.get("type") == "object" and "properties" in node:
            out += _leaves(node, f"{prefix}{key}.")
        else:
            out.append(f"{prefix}{key}")
    return out


def test_labels_on_top_level_objects_only(shipped):
    for r in shipped.values():
        for o in r.objects:
            labels = o.manifest["metadata"]["labels"]
            assert labels["helm.sh/chart"].startswith("verl-grpo-")
            assert {
                "app.kubernetes.io/name",
                "app.kubernetes.io/instance",
                "app.kubernetes.io/managed-by",
                "app.kubernetes.io/part-of",
            } <= set(labels)
            text = json.dumps(o.manifest.get("spec", {}))
            assert "helm.sh/chart" not in text


def test_literal_braces_in_content_are_escaped(tmp_path):
    values = tmp_path / "v.yaml"
    values.write_text('training: {extraArgs: ["+x={{ .Release.Name }}", "+y=}}", "+z={{"]}\n')
    rendered = helm_template("-f", str(values))
    (job,) = [m for m in rendered if m["kind"] == "RayJob"]
    assert job["spec"]["entrypoint"].rstrip().endswith("+x={{ .Release.Name }} +y=}} +z={{")


def test_packaged_chart_is_the_chart():
    archive = REPO / "dist" / "verl-grpo-0.1.0.tgz"
    assert by_identity(helm_template(chart=archive)) == by_identity(helm_template())
    done = run(tool("helm"), "lint", "--strict", str(archive))
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize(
    ("text", "accepted"),
    [
        ("training: {learningRate: 1e-5}\n", True),  # go-yaml: a float; plain PyYAML: a string
        ("network: {prefix: n}\n", False),  # go-yaml: the boolean false
        ("network: {prefix: 'n'}\n", True),
        ("network: {createObjects: on}\n", True),
        ("dataPrep: {cpu: 08}\n", False),  # go-yaml: the number 8 (PyYAML alone: the string '08')
        ("image: {repository: 0_8}\n", False),  # go-yaml drops '_' first: the number 8 (found by the draws)
        ("image: {repository: '0_8'}\n", True),
    ],
)
def test_values_files_are_typed_as_helm_types_them(tmp_path, text, accepted):
    from verl_grpo.pipeline import Request, synthesize
    from verl_grpo.problems import Problems

    path = tmp_path / "v.yaml"
    path.write_text(text)
    done = run(tool("helm"), "template", "verl", str(CHART), "-f", str(DIST_VALUES), "-f", str(path))
    assert (done.returncode == 0) == accepted, done.stderr
    try:
        ours = synthesize([Request("x", None, (DIST_VALUES, path))])["x"]
    except Problems:
        assert not accepted
        return
    assert accepted
    assert by_identity(load_all(done.stdout)) == by_identity([o.manifest for o in ours.objects])


def test_archive_holds_what_helm_package_would(tmp_path):
    import tarfile

    done = run(tool("helm"), "package", str(CHART), "-d", str(tmp_path))
    assert done.returncode == 0, done.stderr
    theirs = tarfile.open(tmp_path / "verl-grpo-0.1.0.tgz")
    ours = tarfile.open(REPO / "dist" / "verl-grpo-0.1.0.tgz")
    assert sorted(theirs.getnames()) == sorted(ours.getnames())
    for name in ours.getnames():
        a, b = theirs.extractfile(name).read(), ours.extractfile(name).read()  # type: ignore[union-attr]
        if name.endswith("Chart.yaml"):  # helm package rewrites Chart.yaml in its own key order
            assert load(a.decode()) == load(b.decode())
        else:
            assert a == b, name


@pytest.mark.parametrize("profile", ["b200-standard", "h200-autopilot", "h200-standard-raycluster"])
def test_install_dry_run_prints_notes_with_next_commands(profile):
    from verl_grpo.profiles import find_profile

    from ..scripts_harness import profile_values

    overlay = find_profile(profile).overlay_dir
    done = run(
        tool("helm"),
        "install",
        "lab",
        str(CHART),
        "--dry-run=client",
        "-n",
        "team-a",
        "-f",
        str(DIST_VALUES),
        "-f",
        str(REPO / overlay / "values.yaml"),
        *profile_values(profile),
    )
    assert done.returncode == 0, done.stderr
    notes = done.stdout.split("NOTES:", 1)[1]
    assert "Installed lab in namespace team-a" in notes
    assert "as ns/team-a/sa/verl-ksa" in notes and "scripts/up.sh -n team-a" in notes  # one namespace
    assert "kubectl port-forward -n team-a" in notes and "8265:8265" in notes
    assert "Checkpoints: gs://replace-me-with-your-bucket/checkpoints/verl-grpo/grpo-001/" in notes
    if overlay.endswith("raycluster"):
        assert "svc/lab-h200-head-svc" in notes and "ray job submit" in notes
    else:
        (job,) = [
            o
            for o in load_all(done.stdout.split("MANIFEST:", 1)[1].split("NOTES:", 1)[0])
            if o.get("kind") == "RayJob"
        ]
        assert job["metadata"]["name"].startswith("lab-grpo-001-")
        assert f"kubectl get rayjob {job['metadata']['name']} -n team-a -w" in notes
    # the data-prep Job that runs first (dataPrep.enabled, the default), by the name it has
    manifest = done.stdout.split("MANIFEST:", 1)[1].split("NOTES:", 1)[0]
    (prep,) = [o["metadata"]["name"] for o in load_all(manifest) if o.get("kind") == "Job"]
    assert f"First the data-prep Job {prep} fills the bucket" in notes
    assert f"kubectl logs -n team-a job/{prep} -f" in notes


@pytest.mark.parametrize("helm", HELMS)
def test_chart_works_as_a_dependency_of_an_umbrella_chart(tmp_path, helm):
    """`global` is allowed (Helm gives it to every subchart), and the subchart's values sit under
    its name: the umbrella renders what the chart alone renders for the same values."""
    import shutil

    import yaml

    umbrella = tmp_path / "platform"
    (umbrella / "charts").mkdir(parents=True)
    shutil.copytree(CHART, umbrella / "charts" / "verl-grpo")
    (umbrella / "Chart.yaml").write_text(
        "apiVersion: v2\nname: platform\nversion: 1.0.0\n"
        "dependencies:\n- name: verl-grpo\n  version: 0.1.0\n  repository: file://charts/verl-grpo\n"
    )
    overlay = yaml.safe_load((REPO / "overlays" / "h200-standard" / "values.yaml").read_text())
    overlay.setdefault("storage", {}).update(yaml.safe_load(DIST_VALUES.read_text())["storage"])
    values = {"global": {"team": "rl", "imageRegistry": "europe-docker.pkg.dev"}, "verl-grpo": overlay}
    (umbrella / "values.yaml").write_text(yaml.safe_dump(values))
    (umbrella / "templates").mkdir()
    (umbrella / "templates" / "team.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: team\ndata:\n  team: {{ .Values.global.team }}\n"
    )
    done = run(tool(helm), "lint", "--strict", str(umbrella))
    assert done.returncode == 0, done.stdout + done.stderr
    alone = helm_template("-f", str(REPO / "overlays" / "h200-standard" / "values.yaml"), helm=helm)
    within = by_identity(helm_template(helm=helm, chart=umbrella))
    assert within.pop(("ConfigMap", "", "team"))["data"] == {"team": "rl"}
    assert within == by_identity(alone)


QUEUED_VALUE_SETS = {
    "flex-start, Kueue's objects": (
        "queue.enabled=true",
        "queue.createObjects=true",
        "cluster.capacity=flex-start",
    ),
    "reservation, required sub-block, Kueue's objects": (
        "queue.enabled=true",
        "queue.createObjects=true",
        "cluster.capacity=reservation",
        "cluster.reservation=res-a",
        "queue.topology.mode=required",
    ),
    "autopilot reservation, preferred host": (
        "queue.enabled=true",
        "queue.createObjects=true",
        "cluster.mode=autopilot",
        "cluster.zone=us-central1-b",
        "cluster.capacity=reservation",
        "cluster.reservation=res-a",
        "queue.topology.mode=preferred",
        "queue.topology.level=cloud.google.com/gce-topology-host",
    ),
    "RayCluster path, queue only": ("queue.enabled=true", "run.kind=RayCluster"),
}


@pytest.mark.parametrize("sets", QUEUED_VALUE_SETS.values(), ids=list(QUEUED_VALUE_SETS))
def test_helm_and_synth_agree_on_queued_runs(sets):
    from verl_grpo.pipeline import Request, synthesize

    ours = synthesize([Request("x", None, (DIST_VALUES,), sets)])["x"]
    expected = by_identity([o.manifest for o in ours.objects])
    assert by_identity(helm_template(*(arg for s in sets for arg in ("--set", s)))) == expected
    assert any(kind.startswith("ClusterQueue") for kind, _, _ in expected) == (
        "queue.createObjects=true" in sets
    )


@pytest.mark.parametrize("helm", HELMS)
def test_a_list_of_worker_groups_gets_one_line_that_writes_it_as_the_map(helm, tmp_path):
    """workerGroups was a list; the chart's validateValues and `verl-grpo` both say how to write
    it as the map (values/worker_groups.py as_map), with the user's own groups."""
    from verl_grpo.problems import Problems
    from verl_grpo.values.loader import load_values

    values = tmp_path / "groups.yaml"
    values.write_text(
        "workerGroups:\n  - {name: a, replicas: 2}\n  - {name: spot, replicas: 3, capacity: spot}\n"
    )
    line = (
        'workerGroups: a map keyed by group name, not a list: write workerGroups: {"a":{"replicas":2},'
        '"spot":{"capacity":"spot","replicas":3}} (a map merges with the chart\'s gpu-group: set '
        "gpu-group: null to drop it)"
    )
    done = run(tool(helm), "template", "verl", str(CHART), "-f", str(DIST_VALUES), "-f", str(values))
    assert done.returncode != 0 and done.stderr.count("workerGroups") == 2, done.stderr
    assert f"): {line}\n" in done.stderr
    with pytest.raises(Problems) as refused:
        load_values(None, (DIST_VALUES, values))
    assert [f"{p.key}: {p.message}" for p in refused.value.problems] == [line]
