"""pod/preflight.py's checks, one by one, on folders in tmp_path and canned ray.nodes() answers:
what verl or vLLM would refuse late, said before the run starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verl_grpo.pod import preflight


def model_folder(tmp_path: Path, config: object = None, complete: bool = True) -> Path:
    model = tmp_path / "Qwen2.5-0.5B-Instruct"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(config if config is not None else {}))
    (model / "model.safetensors").write_bytes(b"\0" * 8)
    if complete:
        (model / preflight.MARKER).write_text("done")
    return model


def test_a_model_needs_config_weights_and_the_data_prep_marker(tmp_path: Path) -> None:
    """A model folder is ready with config.json, weights and, last, the data-prep Job's marker."""
    assert preflight.model_problems(str(tmp_path / "nope")) == [
        f"model: {tmp_path / 'nope'} does not exist (data-prep Job not done, or storage.modelDir wrong)"
    ]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert [p.split(" has ")[1] for p in preflight.model_problems(str(empty))] == [
        "no config.json",
        "no weights (*.safetensors, *.bin)",
    ]
    # Config and weights, but the download is not over: the marker is written last.
    filling = model_folder(tmp_path, complete=False)
    (problem,) = preflight.model_problems(str(filling))
    assert "is not complete yet (no .verl-grpo-complete" in problem
    (filling / preflight.MARKER).write_text("done")
    assert preflight.model_problems(str(filling)) == []


def test_parquet_that_is_missing_or_empty_is_named_without_reading_it(tmp_path: Path) -> None:
    """Missing and empty files are named by the standard library; reading parquet needs pyarrow."""
    assert preflight.parquet_problems("train", str(tmp_path / "train.parquet")) == [
        f"train: {tmp_path / 'train.parquet'} does not exist"
    ]
    (tmp_path / "test.parquet").write_bytes(b"")
    assert preflight.parquet_problems("val", str(tmp_path / "test.parquet")) == [
        f"val: {tmp_path / 'test.parquet'} is empty"
    ]
    (tmp_path / "junk.parquet").write_text("not parquet at all")
    problems = preflight.parquet_problems("train", str(tmp_path / "junk.parquet"))
    try:
        import pyarrow  # noqa: F401 - only whether the image has it
    except ImportError:
        assert problems == []  # the image decides: verl needs pyarrow to read it anyway
    else:
        (problem,) = problems
        assert "is not readable parquet" in problem


@pytest.mark.parametrize(
    ("config", "sequence", "context"),
    [
        ({"max_position_embeddings": 32768}, 1024, None),
        ({"max_position_embeddings": 1024}, 1024, None),  # exactly full fits
        ({"max_position_embeddings": 1024}, 1025, "its context of 1024 tokens (max_position_embeddings)"),
        ({"max_position_embeddings": 2048, "rope_scaling": {"factor": 4.0}}, 8192, None),
        ({"max_position_embeddings": 2048, "rope_scaling": {"factor": 2.0}}, 8192, "4096 tokens"),
        ({"llm_config": {"max_position_embeddings": 512}}, 1024, "its context of 512 tokens"),
        ({"max_position_embeddings": 512}, 0, None),  # no sequence length given: not checked
    ],
)
def test_prompt_and_response_must_fit_the_context(tmp_path: Path, config, sequence, context) -> None:
    """vLLM's rollout in verl asserts max_position_embeddings (x rope factor) >= prompt + response."""
    problems = preflight.context_problems(str(model_folder(tmp_path, config)), sequence)
    if context is None:
        assert problems == []
    else:
        (problem,) = problems
        assert context in problem and f"maxResponseLength = {sequence}" in problem


def test_the_rollouts_tensor_parallel_size_must_divide_the_attention_heads(tmp_path: Path) -> None:
    """vLLM: "Total number of attention heads (N) must be divisible by tensor parallel size (M)";
    a multimodal model's heads are its text_config's."""
    model = model_folder(tmp_path, {"num_attention_heads": 14})  # Qwen2.5-0.5B's 14 heads
    assert preflight.heads_problems(str(model), 2) == preflight.heads_problems(str(model), 7) == []
    (problem,) = preflight.heads_problems(str(model), 4)
    assert "its 14 attention heads are not divisible by training.tensorParallelSize 4" in problem
    assert "[1, 2, 7, 14]" in problem  # 14's divisors
    (model / "config.json").write_text(
        json.dumps({"num_attention_heads": 16, "text_config": {"num_attention_heads": 12}})
    )
    assert preflight.heads_problems(str(model), 8) != [] and preflight.heads_problems(str(model), 4) == []


def ray_node(gpus: float, ip: str, alive: bool = True) -> dict:
    """One entry of ray.nodes(): the head has no GPU resource."""
    resources = {"CPU": 200.0, "GPU": gpus} if gpus else {"CPU": 8.0}
    return {"Alive": alive, "NodeManagerAddress": ip, "Resources": resources}


def test_the_ray_clusters_gpus_must_match_the_trainers_nodes_and_gpus() -> None:
    """The head (no GPUs) and dead nodes do not count; a node with other than
    trainer.n_gpus_per_node GPUs is named by its address."""
    head, w1, w2 = ray_node(0, "10.0.0.1"), ray_node(8, "10.0.0.2"), ray_node(8, "10.0.0.3")
    assert preflight.gpu_problems([head, w1, w2], 8, 2) == []
    assert preflight.gpu_problems([head, w1, ray_node(8, "10.0.0.3", alive=False)], 8, 2) == [
        "gpus: 1 GPU nodes in the Ray cluster; trainer.nnodes is 2"
    ]
    assert preflight.gpu_problems([head, w1, ray_node(4, "10.0.0.9")], 8, 2) == [
        "gpus: node 10.0.0.9 has 4 GPUs; trainer.n_gpus_per_node is 8"
    ]


def test_the_checkpoint_folder_is_made_and_must_be_writable(tmp_path: Path) -> None:
    """The folder is created and probed with a file that is removed; one that cannot be is named."""
    folder = tmp_path / "ckpt" / "run"
    assert preflight.checkpoint_problems(str(folder)) == []
    assert folder.is_dir() and list(folder.iterdir()) == []  # the probe file is gone
    (tmp_path / "file").write_text("a file, not a folder")
    (problem,) = preflight.checkpoint_problems(str(tmp_path / "file" / "run"))
    assert problem.startswith(f"checkpoints: {tmp_path / 'file' / 'run'} is not writable (")


def test_a_module_the_runs_verl_imports_missing_from_the_image_is_named() -> None:
    """verl 0.9.1's trainer imports transfer_queue (data/verl/0.9.1.yaml): an image built for 0.6.1
    lacks it, and the pre-flight says so before verl starts; present modules pass."""
    assert preflight.import_problems("json,pathlib", "0.9.1") == []
    assert preflight.import_problems("json,no_such_module_here", "0.9.1") == [
        "image: verl 0.9.1 imports no_such_module_here, which the image lacks: use verl 0.9.1's image"
    ]
    assert preflight.import_problems("", "0.6.1") == []
