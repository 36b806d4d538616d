"""The values model: defaults, merge order, schema strictness and clear errors."""

from __future__ import annotations

import json

import jsonschema
import pytest

from verl_grpo.facts.machines import gpu_profiles
from verl_grpo.problems import Problems
from verl_grpo.values.loader import deep_merge, load_values, merge_layers
from verl_grpo.values.schema import values_schema


def test_defaults_pass_the_schema_they_come_with():
    jsonschema.Draft7Validator.check_schema(values_schema())
    assert load_values(None).gpu.type == "b200"


def test_every_leaf_has_a_description():
    def walk(node, path):
        if node.get("type") == "object" and "properties" in node:
            for key, child in node["properties"].items():
                yield from walk(child, f"{path}.{key}")
        elif node.get("type") == "array" and "properties" in node.get("items", {}):
            yield from walk(node["items"], f"{path}[]")
        else:
            yield path, node

    leaves = list(walk(values_schema(), ""))
    assert len(leaves) > 60
    missing = [p for p, n in leaves if not n.get("description")]
    assert missing == []


def test_schema_is_closed_everywhere():
    def objects(node):
        if isinstance(node, dict):
            if node.get("type") == "object":
                yield node
            for v in node.values():
                yield from objects(v)

    schema = values_schema()
    # `global` is Helm's own (an umbrella chart's shared values), accepted as it comes.
    assert schema["properties"]["global"] == {
        "type": "object",
        "description": schema["properties"]["global"]["description"],
    }
    for obj in objects(
        {**schema, "properties": {k: v for k, v in schema["properties"].items() if k != "global"}}
    ):
        if "properties" not in obj:  # a map (label selectors): every value typed, no free shape
            assert obj.get("additionalProperties") == {"type": "string"}, obj.get("description")
            continue
        assert obj.get("additionalProperties") is False, obj.get("description")


def test_merge_order_defaults_profile_files_then_set(tmp_path):
    f1, f2 = tmp_path / "a.yaml", tmp_path / "b.yaml"
    f1.write_text("training: {totalEpochs: 3}\nstorage: {bucket: first-bucket}\n")
    f2.write_text("training: {totalEpochs: 4}\n")
    merged = merge_layers({"gpu": {"type": "h200"}}, [f1, f2], ["training.totalEpochs=5"])
    assert merged["gpu"]["type"] == "h200"
    assert merged["storage"]["bucket"] == "first-bucket"
    assert merged["training"]["totalEpochs"] == 5
    assert merged["worker"]["tolerations"][0]["key"] == "nvidia.com/gpu"  # untouched defaults survive


def test_lists_replace_and_null_deletes_as_in_helm():
    base = {"a": {"l": [1, 2], "k": 1, "m": {"x": 1}}}
    assert deep_merge(base, {"a": {"l": [3]}}) == {"a": {"l": [3], "k": 1, "m": {"x": 1}}}
    assert deep_merge(base, {"a": {"k": None}}) == {"a": {"l": [1, 2], "m": {"x": 1}}}


@pytest.mark.parametrize(
    ("sets", "needle"),
    [
        (
            ["head.cpus=3"],
            "head.cpus: unknown key (did you mean 'cpu'?); allowed: cpu, memory",
        ),
        (["worker.replicas=4"], "worker.replicas: moved to workerGroups (worker groups keyed by name"),
        (["training.totalEpochs=abc"], "training.totalEpochs: 'abc' is not of type 'integer'"),
        (
            ["training.learningRate=0.00001"],
            "training.learningRate: '0.00001' is not of type 'number' (Helm's --set reads decimals as text: "
            "use --set-json training.learningRate=0.00001)",
        ),
        (["training.totalEpochs=-1"], "training.totalEpochs: -1 is less than the minimum of 1"),
        (["training.checkpointsToKeep=1"], "training.checkpointsToKeep: 1 is less than the minimum of 2"),
        (["gpu.type=gb300"], "gpu.type: 'gb300' is not one of ['a4x', 'b200', 'h200']"),
        (["run.name=Run_1"], "run.name: 'Run_1' is not allowed: lowercase letters, digits and '-', starting"),
        # the naming rule in words, not the pattern (Cloud Storage's bucket naming rules)
        (["storage.bucket=gs://my-bucket"], "storage.bucket: 'gs://my-bucket' is not allowed: a bucket"),
        (["storage.bucket=MyBucket"], "'MyBucket' is not allowed: a bucket name is 3 to 63 lowercase"),
        (["worker.memory=lots"], "worker.memory: 'lots' is not allowed: a Kubernetes quantity such as 768Gi"),
        (["cluster.mode=gke"], "cluster.mode: 'gke' is not one of ['standard', 'autopilot']"),
        (["training=null"], "'training' is a required property"),
        (["storage.modelDir=../etc"], "storage.modelDir: '../etc' is not allowed: a path in the bucket"),
    ],
)
def test_bad_values_name_key_value_and_rule(sets, needle):
    with pytest.raises(Problems) as err:
        load_values(None, sets=sets)
    assert any(needle in p.line() for p in err.value.problems), str(err.value)
    assert all("\n" not in p.line() for p in err.value.problems)


def test_unreadable_and_non_mapping_files(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a\n- b\n")
    with pytest.raises(Problems, match="must hold a mapping"):
        load_values(None, files=[bad])
    with pytest.raises(Problems, match="cannot read"):
        load_values(None, files=[tmp_path / "missing.yaml"])
    bad.write_text("a: [\n")
    with pytest.raises(Problems, match="not valid YAML"):
        load_values(None, files=[bad])


def test_gpu_types_come_from_data_files():
    assert set(gpu_profiles()) == {"a4x", "b200", "h200"}
    enum = values_schema()["properties"]["gpu"]["properties"]["type"]["enum"]
    assert enum == list(gpu_profiles())
    assert json.dumps(values_schema())  # serializable as the chart's values.schema.json


def test_schema_patterns_mean_the_same_in_go_and_python():
    """Go's regexp (Helm) reads \\d, \\w, \\s as ASCII; Python's as Unicode. Use explicit classes."""
    text = json.dumps(values_schema())
    for escape in (r"\\d", r"\\w", r"\\s", r"\\b", "(?=", "(?!", "(?<"):
        assert escape not in text, escape


def test_a_new_gpu_type_is_one_data_file(tmp_path):
    """A made-up 4-GPU machine as a data file in a copy of the package: schema, synth and chart
    pick it up, no code."""
    import shutil
    import subprocess
    import sys

    import verl_grpo

    pkg = tmp_path / "verl_grpo"
    shutil.copytree(verl_grpo.__path__[0], pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (pkg / "data" / "gpus" / "x4.yaml").write_text(
        "name: x4\nmachineType: x4-highgpu-4g\naccelerator: nvidia-x4\ngpusPerNode: 4\n"
        "vcpu: 140\nmemoryGB: 884\ngpuMemoryGB: 186\n"
        "ncclTunerConfig: /usr/local/gib/configs/tuner_config_x4.txtpb\nminGkeVersion: 1.32.4-gke.1000000\n"
        "gpuNetworkGbps: 1600\nrdmaNics: 4\narch: amd64\nmodes: [standard, autopilot]\n"
        "capacities: [spot, reservation, flex-start, on-demand]\n"
    )
    out = tmp_path / "out"
    code = (
        "import sys; from verl_grpo.cli import main; "
        f"sys.exit(main(['synth', '-o', {str(out)!r}, '--profile', 'x4-standard', "
        "'--set', 'training.tensorParallelSize=4', '--set', 'storage.bucket=b-1']))"
    )
    env = {
        "PYTHONPATH": str(tmp_path),
        "PATH": "/usr/bin:/bin",
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    }
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    (path,) = (out / "x4-standard").glob("rayjob-verl-grpo-001-*.yaml")
    job = path.read_text()
    assert "nvidia-x4" in job and "tuner_config_x4" in job and "nvidia.com/gpu: '4'" in job
    assert "'trainer.n_gpus_per_node=4'" in job


def test_unknown_keys_get_a_did_you_mean():
    with pytest.raises(Problems) as found:
        load_values(None, sets=["training.trainBatchSze=3"])
    (problem,) = found.value.problems
    assert problem.key == "training.trainBatchSze"
    assert (
        "did you mean 'trainBatchSize'?" in problem.message
        and "allowed: verlVersion, module" in problem.message
    )


def test_values_that_contradict_the_profile_are_refused(tmp_path):
    """--profile h200-... --set gpu.type=b200 used to render b200 under the h200 name."""
    h200 = {"gpu": {"type": "h200"}, "cluster": {"mode": "standard"}, "run": {"kind": "RayJob"}}
    for sets, key in (
        (["gpu.type=b200"], "gpu.type"),
        (["cluster.mode=autopilot", "cluster.zone=us-central1-b"], "cluster.mode"),
        (["run.kind=RayCluster"], "run.kind"),
    ):
        with pytest.raises(Problems) as found:
            load_values(h200, sets=sets)
        assert [p.key for p in found.value.problems] == [key]
        assert "contradicts the profile's" in found.value.problems[0].message
    assert load_values(h200, sets=["gpu.type=h200", "cluster.zone=us-central1-c"]).gpu.type == "h200"


def test_a_yaml_error_names_its_line_and_column(tmp_path):
    """Where the file breaks, as a user looks for it: `line L, column C: problem (context)`."""
    bad = tmp_path / "my.yaml"
    bad.write_text("storage:\n  bucket: a\n bad: 1\n")
    with pytest.raises(Problems) as err:
        load_values(None, [bad])
    (problem,) = err.value.problems
    assert problem.message == (
        "not valid YAML: line 3, column 2: did not find expected key (while parsing a block mapping)"
    )


def test_nested_turns_dotted_keys_into_a_layer():
    from verl_grpo.values.loader import nested

    assert nested({"storage.bucket": "b", "cluster.zone": "z", "cluster.mode": "autopilot"}) == {
        "storage": {"bucket": "b"},
        "cluster": {"zone": "z", "mode": "autopilot"},
    }
