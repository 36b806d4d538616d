"""Pre-flight checks run by the job's own Python before verl starts: seconds, not minutes.

Standalone on purpose (stdlib; pyarrow and ray when the image has them): the chart ships this
file in a ConfigMap and the entrypoint runs it on the Ray head. One line per problem, exit 1.
Missing inputs are waited for (--wait) so a training run racing the data-prep Job waits and
then says what is missing, instead of crashing deep inside verl.

    python3 preflight.py --model DIR ... --nodes 2 -- python3 -m verl.trainer.main_ppo key=value ...

Everything after `--` is the training command, exec'd in place of this process once every check
passes. The job's entrypoint is therefore ONE command with no shell operators: KubeRay's submitter
pastes `spec.entrypoint` unquoted into a `bash -c` string (ray-operator/controllers/ray/common/job.go),
so `a && b` would submit only `a` to Ray and run `b` in the submitter pod.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import uuid
from collections.abc import Callable

try:  # in the verl_grpo package
    from . import checkpoint_guard, log_shipper, nccl_gate
except ImportError:  # shipped: the pre-flight ConfigMap's files side by side, run as a script
    import checkpoint_guard  # type: ignore[no-redef]
    import log_shipper  # type: ignore[no-redef]
    import nccl_gate  # type: ignore[no-redef]

COLUMNS = ("data_source", "prompt", "ability", "reward_model", "extra_info")
# Written last into each folder by the data-prep Job and scripts/60-data.sh: a folder without it
# may still be filling (a 65 GB model arrives shard by shard), whatever else is already there.
MARKER = ".verl-grpo-complete"


def incomplete(role: str, folder: str) -> list[str]:
    if os.path.isfile(os.path.join(folder, MARKER)):
        return []
    return [f"{role}: {folder} is not complete yet (no {MARKER}: data preparation has not finished)"]


WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt")

# `--wait auto`: long enough for the data-prep Job to fetch the model, so a run started together
# with it (Flux and kubectl apply have no sync waves) waits instead of failing. The Job's time is
# its pod's start (the verl image is ~15 GB on a cold node), verl's clone and GSM8K, then the
# weights: 2 bytes per parameter (bf16) at a sustained download rate. The rate is a conservative
# assumption for one pod pulling from the Hugging Face Hub into a GCS FUSE mount, not a measured
# fact: a slower link needs preflight.waitSeconds.
AUTO_BASE_SECONDS = 900
DOWNLOAD_BYTES_PER_SECOND = 50e6
AUTO_UNKNOWN_SIZE_SECONDS = 3600  # the model folder's name does not say its size


def model_billions(path: str) -> float | None:
    """Parameter count in billions from a model folder named like Qwen2.5-32B-Instruct."""
    match = re.search(r"(\d+(?:\.\d+)?)[Bb](?![a-z])", path.rsplit("/", 1)[-1])
    return float(match.group(1)) if match else None


def wait_seconds(value: str, model: str) -> tuple[float, str]:
    """Seconds to wait for missing inputs, and how that was decided."""
    if value != "auto":
        return float(value), "preflight.waitSeconds"
    billions = model_billions(model)
    if billions is None:
        return AUTO_UNKNOWN_SIZE_SECONDS, "auto: the model's size is not in its folder name"
    seconds = AUTO_BASE_SECONDS + billions * 1e9 * 2 / DOWNLOAD_BYTES_PER_SECOND
    return seconds, (
        f"auto: {AUTO_BASE_SECONDS} s + {billions:g}B parameters in bf16 at "
        f"{DOWNLOAD_BYTES_PER_SECOND / 1e6:g} MB/s"
    )


def model_problems(model: str) -> list[str]:
    if not os.path.isdir(model):
        return [f"model: {model} does not exist (data-prep Job not done, or storage.modelDir wrong)"]
    names = os.listdir(model)
    problems = []
    if "config.json" not in names:
        problems.append(f"model: {model} has no config.json")
    if not any(n.endswith(WEIGHT_SUFFIXES) for n in names):
        problems.append(f"model: {model} has no weights (*.safetensors, *.bin)")
    return problems or incomplete("model", model)


def model_config(model: str) -> object:
    """The model's config.json, or None when unreadable (model_problems names a missing config;
    an unreadable one is vLLM's own error, not a guess)."""
    try:
        with open(os.path.join(model, "config.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def heads_problems(model: str, tensor_parallel: int) -> list[str]:
    """vLLM refuses a tensor-parallel size that does not divide the model's attention heads
    (vllm/config/model.py ModelConfig.verify_with_parallel_config: hf_text_config.num_attention_heads
    % tensor_parallel_size, "Total number of attention heads (N) must be divisible by tensor parallel
    size (M)"), and verl starts vLLM only after loading the actor: say it before."""
    config = model_config(model)
    if isinstance(config, dict) and isinstance(config.get("text_config"), dict):
        config = config["text_config"]  # multimodal models: vLLM's hf_text_config
    heads = config.get("num_attention_heads") if isinstance(config, dict) else None
    if not isinstance(heads, int) or tensor_parallel <= 0 or heads % tensor_parallel == 0:
        return []
    divisors = [d for d in range(1, heads + 1) if heads % d == 0]
    return [
        f"model: its {heads} attention heads are not divisible by training.tensorParallelSize "
        f"{tensor_parallel}; vLLM refuses it (use one of {divisors} that divides the GPUs of a node)"
    ]


def context_problems(model: str, sequence: int) -> list[str]:
    """verl's vLLM rollout asserts that the model's context holds prompt + response
    (verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py@v0.6.1 vLLMRollout.__init__:
    max_position_embeddings, of the config or its llm_config/text_config, times rope_scaling's
    factor when there is one), after the actor and the reference are loaded: say it before."""
    config = model_config(model)
    if not isinstance(config, dict) or sequence <= 0:
        return []
    rope = config.get("rope_scaling")
    if isinstance(rope, dict):
        length, factor = config.get("max_position_embeddings"), float(rope.get("factor", 1.0))
    else:
        subs = [
            config,
            *(config[k] for k in ("llm_config", "text_config") if isinstance(config.get(k), dict)),
        ]
        length = next((c["max_position_embeddings"] for c in subs if "max_position_embeddings" in c), None)
        factor = 1.0
    if not isinstance(length, int) or length * factor >= sequence:
        return []
    return [
        f"model: its context of {length * factor:g} tokens (max_position_embeddings"
        f"{f' x rope factor {factor:g}' if factor != 1.0 else ''}) is shorter than "
        f"training.maxPromptLength + maxResponseLength = {sequence}; verl's vLLM rollout refuses it"
    ]


def rollout_problems(rollout: str) -> list[str]:
    """The rollout backend verl imports in the workers (verl/workers/rollout/<name>_rollout): a
    verl image carries vLLM or SGLang, not both (verl docker/README.md)."""
    import importlib.util

    if not rollout or importlib.util.find_spec(rollout) is not None:
        return []
    return [f"rollout: training.rolloutName is {rollout!r} but the image has no {rollout} module"]


def import_problems(modules: str, verl: str) -> list[str]:
    """The modules the run's verl imports from the image (data/verl/<version>.yaml, image.imports):
    an image built for another verl release lacks some (0.9.1's trainer imports transfer_queue)."""
    import importlib.util

    missing = [m for m in modules.split(",") if m and importlib.util.find_spec(m) is None]
    if not missing:
        return []
    return [
        f"image: verl {verl} imports {', '.join(missing)}, which the image lacks: use verl {verl}'s image"
    ]


def parquet_problems(role: str, path: str) -> list[str]:
    if not os.path.isfile(path):
        return [f"{role}: {path} does not exist"]
    if os.path.getsize(path) == 0:
        return [f"{role}: {path} is empty"]
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return []  # the image decides; verl itself needs pyarrow to read the file
    try:
        meta = pq.ParquetFile(path)
    except Exception as e:  # noqa: BLE001 - any reader error means verl cannot read it either
        return [f"{role}: {path} is not readable parquet ({type(e).__name__}: {e})"]
    missing = [c for c in COLUMNS if c not in meta.schema_arrow.names]
    if missing:
        return [
            f"{role}: {path} lacks columns {', '.join(missing)} (has {', '.join(meta.schema_arrow.names)})"
        ]
    if meta.metadata.num_rows == 0:
        return [f"{role}: {path} has no rows"]
    return []


def checkpoint_problems(path: str) -> list[str]:
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, f".preflight-{uuid.uuid4().hex}")
        with open(probe, "w") as f:
            f.write("ok")
        os.remove(probe)
    except OSError as e:
        return [f"checkpoints: {path} is not writable ({e.strerror or e})"]
    return []


def gpu_problems(nodes: list[dict], per_node: int, node_count: int) -> list[str]:
    """`nodes` as ray.nodes() returns them."""
    gpu_nodes = [n for n in nodes if n.get("Alive") and n.get("Resources", {}).get("GPU", 0) > 0]
    problems = [
        f"gpus: node {n.get('NodeManagerAddress', '?')} has {n['Resources']['GPU']:g} GPUs; "
        f"trainer.n_gpus_per_node is {per_node}"
        for n in gpu_nodes
        if n["Resources"]["GPU"] != per_node
    ]
    if len(gpu_nodes) < node_count:
        problems.append(
            f"gpus: {len(gpu_nodes)} GPU nodes in the Ray cluster; trainer.nnodes is {node_count}"
        )
    return problems


def resume_problems(
    checkpoints: str,
    keep: int,
    world: int = 0,
    kinds: tuple[str, ...] = checkpoint_guard.KINDS,
    settings: dict[str, str] | None = None,
) -> list[str]:
    """Make verl resume from a complete checkpoint (of the rank files `kinds`, what verl saves)
    saved by as many GPUs as this run has and with the same training `settings` (checkpoint_guard),
    and prune past retention; nothing is pruned when the run cannot resume."""
    resume = checkpoint_guard.choose(checkpoints, kinds)
    for line in resume.notes:
        print(f"preflight: checkpoints: {line}", flush=True)
    problems = resume.problems or checkpoint_guard.world_problems(checkpoints, resume.step, world)
    if not problems and settings is not None:
        problems, notes = checkpoint_guard.settings_problems(checkpoints, resume.step is not None, settings)
        for line in notes:
            print(f"preflight: checkpoints: {line}", flush=True)
    if problems:
        return problems
    for line in checkpoint_guard.prune(checkpoints, resume.step, keep, kinds):
        print(f"preflight: checkpoints: {line}", flush=True)
    return []


def gate_settings(args: argparse.Namespace) -> nccl_gate.GateSettings | None:
    if args.nccl_gate != "true" or not args.gpus_per_node:
        return None
    return nccl_gate.GateSettings(
        per_node=args.nccl_gate_ranks_per_node or args.gpus_per_node,
        size=nccl_gate.parse_size(args.nccl_gate_size),
        threshold=args.nccl_gate_min_busbw,
        timeout=args.nccl_gate_timeout,
        backend=args.nccl_gate_backend,
        stall_rank=args.nccl_gate_stall_rank,
    )


def gate_passes(settings: nccl_gate.GateSettings, nodes: Callable[[], list[dict] | None]) -> bool:
    found = nodes()
    if found is None:
        print("preflight: nccl-gate: skipped (this Python has no ray)", flush=True)
        return True
    return nccl_gate.run_gate(
        found, settings, lambda line: print(f"preflight: nccl-gate: {line}", flush=True)
    )


def ray_nodes() -> list[dict] | None:
    try:
        import ray
    except ImportError:
        return None
    if not ray.is_initialized():
        ray.init(address=os.environ.get("RAY_ADDRESS", "auto"), logging_level="ERROR", log_to_driver=False)
    return ray.nodes()


def ray_problems(version: str, auth: str, dashboard: str) -> list[str]:
    """The image's Ray against the values: the version `ray.version` names (KubeRay's rayVersion
    and the client's pin follow it), and with `ray.auth: token` a dashboard that refuses a request
    without the token: "Unauthorized: Missing authentication token", 401 (ray 2.52.0
    ray/_private/authentication/http_token_authentication.py; docs/research/issue-27-security-facts.md
    1.3). Checked once, before anything waits."""
    problems = []
    if version:
        try:
            import ray
        except ImportError:
            return [f"the image has no Ray, but ray.version is {version!r}"]
        if ray.__version__ != version:
            problems.append(
                f"the image runs Ray {ray.__version__}, but ray.version is {version!r}: set ray.version "
                f"to {ray.__version__} (KubeRay's rayVersion and verl-grpo's client follow it)"
            )
    if auth == "token":
        import urllib.error
        import urllib.request

        try:
            with urllib.request.urlopen(f"{dashboard}/api/version", timeout=10) as answer:
                code = answer.status
        except urllib.error.HTTPError as e:
            code = e.code
        except OSError as e:
            return [*problems, f"ray.auth is 'token', but the dashboard at {dashboard} did not answer: {e}"]
        if code != 401:
            problems.append(
                f"ray.auth is 'token', but the dashboard at {dashboard} answered {code} to a request "
                "without the token: token authentication is off in this cluster"
            )
    return problems


def run_checks(args: argparse.Namespace, nodes: Callable[[], list[dict] | None]) -> list[str]:
    problems = model_problems(args.model) + heads_problems(args.model, args.tensor_parallel)
    problems += context_problems(args.model, args.sequence_length) + rollout_problems(args.rollout)
    problems += import_problems(args.imports, args.verl_version)
    data = parquet_problems("train", args.train) + parquet_problems("val", args.val)
    folders = sorted({os.path.dirname(args.train), os.path.dirname(args.val)})
    problems += data or [p for folder in folders for p in incomplete("data", folder)]
    problems += checkpoint_problems(args.checkpoints)
    if args.gpus_per_node:
        found = nodes()
        if found is not None:
            problems += gpu_problems(found, args.gpus_per_node, args.nodes)
    return problems


def name_the_run(mount: str, checkpoints: str) -> None:
    """Tell the cluster's log shippers that this run's logs go to its own folder (log_shipper.RUNS,
    under the checkpoint volume's mount). KubeRay gives the Ray container, and so this driver,
    RAY_CLUSTER_NAME (ray-operator controllers/ray/common/pod.go, v1.6.1)."""
    cluster = os.environ.get("RAY_CLUSTER_NAME", "")
    if not (mount and cluster):
        return
    pointer = log_shipper.run_pointer(mount, cluster)
    try:
        log_shipper.write_run_pointer(pointer, os.path.join(checkpoints, "logs"))
    except OSError as e:  # the logs only: never a reason to stop the run
        print(f"preflight: logs: could not name this run for the log shipper ({pointer}: {e})", flush=True)


def split_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """(pre-flight arguments, the command after `--` to run when they pass)."""
    if "--" in argv:
        at = argv.index("--")
        return argv[:at], argv[at + 1 :]
    return argv, []


def exec_command(command: list[str]) -> None:
    """Replace this process with the training command: its exit code becomes the job's."""
    if "ray" in sys.modules:
        sys.modules["ray"].shutdown()  # leave the cluster as a driver before the new one joins
    sys.stdout.flush()
    sys.stderr.flush()
    os.execvp(command[0], command)


def wait_for_inputs(
    args: argparse.Namespace, nodes: Callable[[], list[dict] | None], wait: float, why: str
) -> list[str]:
    """The checks again every --interval until they pass or `wait` seconds are over: what is left."""
    deadline = time.monotonic() + wait
    while True:
        problems = run_checks(args, nodes)
        if not problems:
            print("preflight: model, data, checkpoints and GPUs are ready", flush=True)
            return []
        if time.monotonic() >= deadline:
            return problems
        print(
            f"preflight: waiting up to {wait:.0f} s ({why}): {len(problems)} problems, first: {problems[0]}",
            flush=True,
        )
        time.sleep(min(args.interval, max(0.0, deadline - time.monotonic())))


def main(
    argv: list[str] | None = None,
    nodes: Callable[[], list[dict] | None] = ray_nodes,
    run: Callable[[list[str]], None] = exec_command,
) -> int:
    own, command = split_command(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--train", required=True)
    parser.add_argument("--val", required=True)
    parser.add_argument("--checkpoints", required=True)
    parser.add_argument(
        "--checkpoint-mount",
        default="",
        help="the checkpoint volume's mount (empty: no run named for the logs)",
    )
    parser.add_argument("--gpus-per-node", type=int, default=0, help="0 skips the GPU check")
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument("--tensor-parallel", type=int, default=0, help="rollout TP; 0 skips the heads check")
    parser.add_argument(
        "--wait", default="0", help="seconds to wait for missing inputs, or auto (sized from the model)"
    )
    parser.add_argument(
        "--sequence-length", type=int, default=0, help="prompt + response tokens; 0 skips the context check"
    )
    parser.add_argument(
        "--rollout", default="", help="the rollout module the image must have (empty: unchecked)"
    )
    parser.add_argument("--interval", type=float, default=15)
    parser.add_argument("--keep", type=int, default=0, help="checkpoints kept (0: no pruning)")
    parser.add_argument("--ray-version", default="", help="the Ray the image must run (empty: unchecked)")
    parser.add_argument("--verl-version", default="", help="the verl release the run uses")
    parser.add_argument("--imports", default="", help="modules that verl release needs in the image (a,b)")
    parser.add_argument("--ray-auth", choices=("disabled", "token"), default="disabled")
    parser.add_argument("--ray-dashboard", default="http://127.0.0.1:8265", help="the head's dashboard")
    gate = parser.add_argument_group("NCCL gate", nccl_gate.__doc__.splitlines()[0])
    gate.add_argument("--nccl-gate", choices=("true", "false"), default="false")
    gate.add_argument("--nccl-gate-size", default="256Mi", help="largest all-reduce message")
    gate.add_argument("--nccl-gate-min-busbw", type=float, default=0.0, help="GB/s of bus bandwidth")
    gate.add_argument("--nccl-gate-timeout", type=float, default=300.0, help="seconds per collective")
    gate.add_argument("--nccl-gate-backend", choices=("nccl", "gloo"), default="nccl", help="gloo: CPU tests")
    gate.add_argument("--nccl-gate-ranks-per-node", type=int, default=0, help="0: one per GPU (tests: fewer)")
    gate.add_argument("--nccl-gate-stall-rank", type=int, default=None, help="test hook: this rank stalls")
    args = parser.parse_args(own)
    try:
        gate = gate_settings(args)
    except ValueError as e:
        parser.error(f"--nccl-gate-size: {e}")
    try:
        wait, why = wait_seconds(args.wait, args.model)
    except ValueError:
        parser.error(f"--wait: {args.wait!r} is neither a number of seconds nor auto")
    problems = ray_problems(args.ray_version, args.ray_auth, args.ray_dashboard)
    problems = (
        problems
        or wait_for_inputs(args, nodes, wait, why)
        or resume_problems(
            args.checkpoints,
            args.keep,
            args.gpus_per_node * args.nodes,
            checkpoint_guard.saved_kinds(command),
            checkpoint_guard.settings_of(command) if command else None,
        )
    )
    # FAILED marks what stopped the run (verl-grpo postmortem keys on it); the rest is progress.
    for p in problems:
        print(f"preflight: FAILED: {p}", file=sys.stderr, flush=True)
    if problems:
        return 1
    if gate and not gate_passes(gate, nodes):
        stopped = "preflight: FAILED: the NCCL gate: verl would hang in its first collective"
        print(stopped, file=sys.stderr, flush=True)
        return 1
    name_the_run(args.checkpoint_mount, args.checkpoints)
    if command:
        run(command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
