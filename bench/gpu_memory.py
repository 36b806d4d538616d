"""One verl actor step on one GPU, its memory component by component: what docs/gpu-memory.md
compares cdk8s/verl_grpo/plan/gpu_memory.py (the model `verl-grpo plan` and `check` use) with.

The step is verl 0.6.1's actor update (verl/workers/actor/dp_actor.py, update_policy and
_forward_micro_batch) on a Qwen2-architecture model with random weights:

- fp32 master weights under FSDP2 (`fully_shard` per decoder layer, then the root, as
  verl/utils/fsdp_utils.py apply_fsdp2 does) with MixedPrecisionPolicy(bf16 params, fp32 reduce),
  here over a process group of one GPU;
- gradient checkpointing through transformers' gradient_checkpointing_enable(use_reentrant=False),
  as fsdp_workers.py enables it;
- the forward under torch.autocast(bf16), logits divided by the temperature in place, then
  log-probs as verl/utils/torch_functional.py's logprobs_from_logits computes them: flash-attn's
  cross_entropy_loss(inplace_backward=True) when flash-attn is installed (verl's image has it),
  else a torch function with the same memory behaviour ("flash-emulated"), or verl's torch
  fallback logprobs_from_logits_v2 ("torch");
- GRPO's loss (core_algos.py compute_policy_loss_vanilla, clipped ratio, plus the low_var_kl loss
  against reference log-probs), backward, gradient accumulation over the micro-batches of a
  mini-batch, clip_grad_norm_ and torch.optim.AdamW (lr 1e-6, weight decay 0.01: verl's defaults).

On CUDA it records torch.cuda's allocator counters at marks inside the step (memory_allocated,
max_memory_allocated and max_memory_reserved, the peaks reset at every mark); on the CPU (and on
CUDA too, as a cross-check) it adds up tensor sizes: parameters, gradients, optimizer state, the
tensors autograd saves (saved_tensors_hooks) and the logits. The CPU run (--tiny) exists so the test
suite covers this code; only a GPU run measures anything.

  python bench/gpu_memory.py --models bench/models/qwen2-{0.5b,1.5b,3b}.json \\
      --micro-batches 2,4,8 --seq-lens 1024,2048,4096 --out DIR       # an H200: docs/gpu-memory.md
  python bench/gpu_memory.py --tiny --out DIR                         # CPU, seconds
  python bench/gpu_memory.py --compare bench/results/*/gpu_memory.json  # the model against runs

Each model, log-prob path and checkpointing setting runs in a process of its own, in order of
tokens, with its share of the time budget: an out-of-memory error ends that process and frees
everything it held, and every model reaches both log-prob paths. Writes DIR/gpu_memory.json (every
number) and DIR/gpu_memory.md (the tables) after each configuration, so a run stopped by a time
limit keeps what it measured. --compare needs no GPU and no torch: it recomputes the current
model's estimate for every measured row of a recorded run and prints the ratios.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import socket
import statistics
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "cdk8s"))
from verl_grpo.plan import gpu_memory as model  # noqa: E402  (pure Python: the estimate to compare)

# verl's trainer_mode turns expandable segments on for the actor's phases (fsdp_workers.py).
os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")

TINY = {
    "_name": "tiny",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 1000,
    "tie_word_embeddings": True,
    "max_position_embeddings": 4096,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
}
GB = 1e9
TEMPERATURE = 1.0  # rollout.temperature, verl's default
CLIP_RATIO = 0.2  # actor.clip_ratio
KL_COEF = 0.001  # training.klLossCoef


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def words(text: str) -> list[str]:
    return [x for x in text.split(",") if x]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--models",
        type=words,
        nargs="+",
        action="extend",
        default=[],
        help="Qwen2 config.json files (space- or comma-separated)",
    )
    p.add_argument("--tiny", action="store_true", help="a 2-layer model of hidden 64, vocab 1000 (CPU tests)")
    p.add_argument("--micro-batches", type=ints, default=[2], help="sequences per micro-batch, e.g. 2,4,8")
    p.add_argument("--seq-lens", type=ints, default=[1024], help="prompt + response tokens, e.g. 1024,2048")
    p.add_argument(
        "--checkpointing", type=words, default=["on", "off"], help="gradient checkpointing: on,off"
    )
    p.add_argument(
        "--logprobs",
        type=words,
        default=["flash"],
        help="flash (flash-attn, or the emulation without it), torch (verl's logprobs_from_logits_v2)",
    )
    p.add_argument("--accumulate", type=int, default=2, help="micro-batches per optimizer step (>= 2)")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    p.add_argument(
        "--budget-seconds", type=float, default=480, help="start no configuration after this many seconds"
    )
    p.add_argument("--out", type=Path, help="folder for gpu_memory.json and gpu_memory.md")
    p.add_argument(
        "--compare",
        type=Path,
        nargs="+",
        metavar="FILE.json",
        help="recorded runs: the current model's estimate for each measured row, and the ratios",
    )
    p.add_argument("--worker", help=argparse.SUPPRESS)  # one group, in a process of its own (JSON)
    args = p.parse_args(argv)
    args.models = [path for group in args.models for path in group]
    if args.compare or args.worker:
        return args
    if not args.models and not args.tiny:
        p.error("give --models or --tiny")
    if args.out is None:
        p.error("--out: the folder for gpu_memory.json and gpu_memory.md")
    if args.accumulate < 2:
        p.error("--accumulate: at least 2, so a forward runs with the gradients of the one before")
    bad = set(args.checkpointing) - {"on", "off"} or set(args.logprobs) - {"flash", "torch"}
    if bad:
        p.error(f"unknown choice(s): {', '.join(sorted(bad))}")
    return args


def shape_of(cfg: dict[str, Any]) -> model.Shape:
    return model.Shape(
        cfg.get("_name", "model"),
        hidden=cfg["hidden_size"],
        layers=cfg["num_hidden_layers"],
        intermediate=cfg["intermediate_size"],
        heads=cfg["num_attention_heads"],
        kv_heads=cfg["num_key_value_heads"],
        vocab=cfg["vocab_size"],
        tied=cfg.get("tie_word_embeddings", False),
        head_dim=cfg.get("head_dim") or 0,
    )


# ---------------------------------------------------------------------------------------------
# Log-probs as verl computes them.


def flash_cross_entropy():
    """flash-attn's Triton cross entropy, which verl's logprobs_from_logits prefers; None without it."""
    try:
        from flash_attn.ops.triton.cross_entropy import cross_entropy_loss
    except Exception:  # not installed, or no GPU for Triton
        return None
    return cross_entropy_loss


def logprobs_function(kind: str, device_type: str):
    """(name, function(logits[n, vocab], labels[n]) -> log-probs[n])."""
    import torch
    import torch.nn.functional as F

    if kind == "torch":

        def logprobs_from_logits_v2(logits, labels):
            # verl 0.6.1 verl/utils/torch_functional.py logprobs_from_logits_v2, verbatim in effect.
            if logits.dtype in [torch.float32, torch.float64]:
                logits_labels = torch.gather(logits, dim=-1, index=labels.unsqueeze(-1)).squeeze(-1)
                logsumexp_values = torch.stack([torch.logsumexp(logit, dim=-1) for logit in logits])
                return logits_labels - logsumexp_values
            rows = []
            for row_logits, row_labels in zip(logits, labels, strict=True):
                row_logprobs = F.log_softmax(row_logits, dim=-1)
                rows.append(row_logprobs.gather(dim=-1, index=row_labels.unsqueeze(-1)).squeeze(-1))
            return torch.stack(rows)

        return "torch", logprobs_from_logits_v2
    cross_entropy_loss = flash_cross_entropy() if device_type == "cuda" else None
    if cross_entropy_loss is not None:
        # verl: logprobs_from_logits_flash_attn, -cross_entropy_loss(..., inplace_backward=True)[0]
        return "flash", lambda logits, labels: -cross_entropy_loss(logits, labels, inplace_backward=True)[0]
    return "flash-emulated", _flash_like().apply


def _flash_like():
    import torch

    class FlashLike(torch.autograd.Function):
        """What flash-attn's cross entropy keeps, in torch: the bf16 logits and an fp32 log-sum-exp per
        row; backward writes the gradient into the logits (inplace_backward=True). Chunks of rows
        bound the fp32 temporaries, as the Triton kernel's blocks do."""

        CHUNK = 1024

        @staticmethod
        def forward(ctx, logits, labels):
            n = logits.shape[0]
            lse = torch.empty(n, dtype=torch.float32, device=logits.device)
            for i in range(0, n, FlashLike.CHUNK):
                lse[i : i + FlashLike.CHUNK] = torch.logsumexp(
                    logits[i : i + FlashLike.CHUNK].float(), dim=-1
                )
            picked = logits.gather(-1, labels.unsqueeze(-1)).squeeze(-1).float()
            ctx.save_for_backward(logits, labels, lse)
            return picked - lse

        @staticmethod
        def backward(ctx, grad):
            logits, labels, lse = ctx.saved_tensors
            for i in range(0, logits.shape[0], FlashLike.CHUNK):
                rows = slice(i, i + FlashLike.CHUNK)
                g = -torch.exp(logits[rows].float() - lse[rows, None]) * grad[rows, None]
                g.scatter_add_(-1, labels[rows, None], grad[rows, None].float())
                logits[rows] = g.to(logits.dtype)
            return logits, None

    return FlashLike


def grpo_loss(log_prob, old_log_prob, ref_log_prob, advantages, mask):
    """verl's policy loss (core_algos.py compute_policy_loss_vanilla, token-mean) + low_var_kl loss."""
    import torch

    def masked_mean(x):
        return (x * mask).sum() / mask.sum()

    ratio = torch.exp(torch.clamp(log_prob - old_log_prob, min=-20.0, max=20.0))
    pg_losses = torch.maximum(
        -advantages * ratio, -advantages * torch.clamp(ratio, 1 - CLIP_RATIO, 1 + CLIP_RATIO)
    )
    kl = torch.clamp(ref_log_prob - log_prob, min=-20, max=20)
    kld = torch.clamp(torch.exp(kl) - kl - 1, min=-10, max=10)
    return masked_mean(pg_losses) + KL_COEF * masked_mean(kld)


# ---------------------------------------------------------------------------------------------
# Counting: CUDA's allocator at marks, and tensor sizes everywhere.


@dataclass
class Mark:
    label: str
    allocated: int  # bytes allocated at the mark
    peak: int  # the most allocated since the previous mark
    reserved_peak: int


class Meter:
    """torch.cuda's allocator counters at named marks; every mark resets the peaks. No-op on the CPU."""

    def __init__(self, device) -> None:
        import torch

        self.torch, self.device = torch, device
        self.cuda = device.type == "cuda"
        self.marks: list[Mark] = []

    def allocated(self) -> int | None:
        return self.torch.cuda.memory_allocated(self.device) if self.cuda else None

    def mark(self, label: str) -> None:
        if not self.cuda:
            return
        c = self.torch.cuda
        self.marks.append(
            Mark(
                label,
                c.memory_allocated(self.device),
                c.max_memory_allocated(self.device),
                c.max_memory_reserved(self.device),
            )
        )
        c.reset_peak_memory_stats(self.device)

    def restart(self, label: str = "start") -> None:
        self.marks = []
        if self.cuda:
            self.torch.cuda.synchronize(self.device)
        self.mark(label)

    def at(self, label: str) -> Mark:
        return next(m for m in self.marks if m.label == label)

    def peak_between(self, first: str, last: str) -> int:
        """The most allocated after mark `first` up to mark `last`."""
        labels = [m.label for m in self.marks]
        i, j = labels.index(first), labels.index(last)
        return max(m.peak for m in self.marks[i + 1 : j + 1])


@dataclass
class Probe:
    """Tensor sizes: what autograd saves in the forward (unique storages, parameters left out), the
    inputs gradient checkpointing keeps, and what FSDP gathers. Active only while a forward runs."""

    phase: str = ""  # "body" (decoder layers) or "logits" (lm_head and log-probs); "" when off
    checkpointing: bool = False
    seen: dict[int, tuple[str, int]] = field(default_factory=dict)
    root_bytes: int = 0
    layer_bytes: int = 0

    def reset(self) -> None:
        self.phase, self.seen = "", {}

    def add(self, tensor, phase: str | None = None) -> None:
        import torch

        if isinstance(tensor, torch.nn.Parameter) or isinstance(tensor._base, torch.nn.Parameter):
            return  # a gathered weight (linear layers save theirs): counted as FSDP's, not here
        try:
            storage = tensor.untyped_storage()
        except Exception:  # a DTensor or a tensor without storage: not an activation
            return
        ptr = storage.data_ptr()
        if ptr and ptr not in self.seen:  # saved tensors live until backward: no reuse meanwhile
            self.seen[ptr] = (phase or self.phase, storage.nbytes())

    def pack(self, tensor):
        if self.phase:
            self.add(tensor)
        return tensor

    def total(self, phase: str) -> int:
        return sum(n for p, n in self.seen.values() if p == phase)

    def unsharded(self, module) -> int:
        """Bytes of the module's parameters that are whole (plain tensors, not DTensor shards) now."""
        return sum(
            p.numel() * p.element_size() for p in module.parameters() if not hasattr(p, "_local_tensor")
        )


def local_bytes(tensors) -> int:
    total = 0
    for t in tensors:
        local = getattr(t, "_local_tensor", t)
        total += local.numel() * local.element_size()
    return total


# ---------------------------------------------------------------------------------------------
# The model and the step.


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Actor:
    module: Any
    optimizer: Any
    shape: model.Shape
    params: int
    attention: str
    weights_measured: int | None
    weights_accounted: int


def build_actor(cfg: dict[str, Any], device, mesh, meter: Meter, probe: Probe, marks: dict) -> Actor:
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    try:
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    except ImportError:  # torch < 2.6: FSDP2's earlier home, which verl 0.6.1 falls back to as well
        from torch.distributed._composable.fsdp import MixedPrecisionPolicy, fully_shard

    use_flash = device.type == "cuda" and flash_cross_entropy() is not None
    attention = "flash_attention_2" if use_flash else "sdpa"  # verl's default is flash_attention_2
    config = Qwen2Config(**{k: v for k, v in cfg.items() if not k.startswith("_")})
    before = meter.allocated()
    with torch.device(device):
        module = AutoModelForCausalLM.from_config(config, attn_implementation=attention)
    module.to(torch.float32)  # fsdp_workers.py: actor_module.to(torch_dtype), fp32 for the actor
    module.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    policy = MixedPrecisionPolicy(
        param_dtype=torch.bfloat16, reduce_dtype=torch.float32, cast_forward_inputs=True
    )
    # verl's apply_fsdp2: the decoder layers, the embedding when untied, then the root.
    for sub in module.modules():
        if type(sub).__name__ in module._no_split_modules or (
            isinstance(sub, torch.nn.Embedding) and not config.tie_word_embeddings
        ):
            fully_shard(sub, mesh=mesh, mp_policy=policy, reshard_after_forward=True)
    fully_shard(module, mesh=mesh, mp_policy=policy)
    module.train()
    weights = None if before is None else meter.allocated() - before
    optimizer = torch.optim.AdamW(module.parameters(), lr=1e-6, betas=(0.9, 0.999), weight_decay=0.01)

    def at_embedding(_module, _args):  # the root unit has been gathered
        if probe.phase:
            meter.mark(f"{marks['prefix']}:root")

    def at_layer(layer, args, kwargs):
        if not probe.phase:  # also runs when checkpointing recomputes the layer in backward
            return
        probe.layer_bytes = max(probe.layer_bytes, probe.unsharded(layer))
        if probe.checkpointing:  # the layer's input is all the checkpoint keeps
            hidden = args[0] if args else kwargs["hidden_states"]
            probe.add(hidden, "body")

    def at_lm_head(_module, _args):
        if probe.phase:
            probe.root_bytes = probe.unsharded(module) - sum(probe.unsharded(x) for x in module.model.layers)
            meter.mark(f"{marks['prefix']}:body")
            probe.phase = "logits"

    module.model.embed_tokens.register_forward_pre_hook(at_embedding)
    for layer in module.model.layers:
        layer.register_forward_pre_hook(at_layer, with_kwargs=True)
    module.lm_head.register_forward_pre_hook(at_lm_head)
    shape = shape_of(cfg)
    return Actor(
        module,
        optimizer,
        shape,
        sum(p.numel() for p in module.parameters()),
        attention,
        weights,
        local_bytes(module.parameters()),
    )


def micro_batches(shape: model.Shape, micro: int, seq: int, count: int, device) -> list[dict[str, Any]]:
    import torch

    out = []
    for _ in range(count):
        ids = torch.randint(0, shape.vocab, (micro, seq), device=device)
        n = micro * seq
        mask = torch.zeros(micro, seq, device=device)
        mask[:, seq // 2 :] = 1  # the response half: the loss's tokens
        out.append(
            {
                "input_ids": ids,
                "position_ids": torch.arange(seq, device=device).expand(micro, seq),
                "labels": torch.roll(ids, shifts=-1, dims=1).reshape(n),
                "old_log_prob": torch.randn(n, device=device) * 0.01 - 5,
                "ref_log_prob": torch.randn(n, device=device) * 0.01 - 5,
                "advantages": torch.randn(n, device=device),
                "mask": mask.reshape(n),
            }
        )
    return out


def actor_step(actor: Actor, batches, logprobs, meter: Meter, probe: Probe, marks: dict) -> dict[str, Any]:
    """verl's update_policy for one mini-batch: zero_grad, forward/backward per micro-batch, step."""
    import torch

    module, device_type = actor.module, next(actor.module.parameters()).device.type
    counts: dict[str, Any] = {}
    actor.optimizer.zero_grad(set_to_none=True)
    meter.restart()
    for k, batch in enumerate(batches):
        marks["prefix"] = f"fwd{k}"
        meter.mark(f"fwd{k}:start")
        probe.reset()
        probe.phase = "body"
        with torch.autograd.graph.saved_tensors_hooks(probe.pack, lambda t: t):
            with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
                out = module(
                    input_ids=batch["input_ids"], position_ids=batch["position_ids"], use_cache=False
                )
                logits = out.logits.view(-1, actor.shape.vocab)
                del out
                logits.div_(TEMPERATURE)
                probe.add(logits, "logits")
                log_prob = logprobs(logits, batch["labels"])
            del logits
            loss = grpo_loss(
                log_prob, batch["old_log_prob"], batch["ref_log_prob"], batch["advantages"], batch["mask"]
            )
            loss = loss / len(batches)
        probe.phase = ""
        meter.mark(f"fwd{k}:logits")
        counts[f"fwd{k}"] = {"activations": probe.total("body"), "logits": probe.total("logits")}
        loss.backward()
        del loss, log_prob
        meter.mark(f"bwd{k}")
        if k == 0:
            counts["grads"] = local_bytes(p.grad for p in module.parameters() if p.grad is not None)
    torch.nn.utils.clip_grad_norm_(module.parameters(), max_norm=1.0)
    actor.optimizer.step()
    meter.mark("step")
    return counts


def optimizer_bytes(optimizer) -> int:
    return local_bytes(v for state in optimizer.state.values() for v in state.values() if hasattr(v, "numel"))


def measured(meter: Meter, accumulate: int) -> dict[str, int] | None:
    if not meter.cuda:
        return None
    last = accumulate - 1  # the micro-batch that runs with the gradients of the ones before
    start, root, body = (meter.at(f"fwd{last}:{x}") for x in ("start", "root", "body"))
    logits = meter.at(f"fwd{last}:logits")
    return {
        "grads": meter.at("bwd0").allocated - meter.at("fwd0:start").allocated,
        "root_gathered": root.allocated - start.allocated,
        "activations": body.allocated - root.allocated,
        "body_peak": meter.peak_between(f"fwd{last}:root", f"fwd{last}:body") - root.allocated,
        "logits": meter.peak_between(f"fwd{last}:body", f"fwd{last}:logits") - body.allocated,
        "logits_kept": logits.allocated - body.allocated,
        "backward_peak": meter.peak_between(f"fwd{last}:logits", f"bwd{last}") - logits.allocated,
        "step_peak": meter.peak_between(f"bwd{last}", "step") - meter.at(f"bwd{last}").allocated,
        "peak_allocated": max(m.peak for m in meter.marks[1:]),
        "peak_reserved": max(m.reserved_peak for m in meter.marks[1:]),
        "start_allocated": meter.at("fwd0:start").allocated,
    }


def estimate(actor: Actor, tokens: int, checkpointing: bool, logprobs: str) -> dict[str, float]:
    """The plan's update-phase terms for this step on one GPU and its peak (the backward's or the
    step's), in bytes."""
    kind = "torch" if logprobs == "torch" else "flash"
    terms = model.update_terms(actor.shape, actor.params, 1, tokens, checkpointing, kind, {})
    out = {t.name: t.gb * GB for t in terms}
    out["total"] = model.update_peak_gb(actor.shape, actor.params, 1, tokens, checkpointing, kind) * GB
    out["total_reserved"] = out["total"] * (1 + model.c("allocator_slack"))
    return out


def cuda_context(device) -> dict[str, int] | None:
    """What the process holds on the GPU beyond PyTorch's allocator: the CUDA context, cuBLAS, NCCL."""
    import torch

    if device.type != "cuda":
        return None
    free, total = torch.cuda.mem_get_info(device)
    return {"used": total - free - torch.cuda.memory_reserved(device), "total": total}


def release(device) -> None:
    """Free what the last step left (verl empties the cache between phases: aggressive_empty_cache)."""
    gc.collect()
    if device.type == "cuda":
        import torch

        torch.cuda.empty_cache()


@contextmanager
def cleanup(device):
    try:
        yield
    finally:
        release(device)


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.compare:
        print(compare(args.compare), end="")
        return 0
    if args.worker:
        return worker(args, json.loads(args.worker))
    import torch
    import transformers

    report: dict[str, Any] = {
        "command": " ".join(["python", "bench/gpu_memory.py", *(argv if argv is not None else sys.argv[1:])]),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "device": None,
        "counts": None,
        "flash_attn": None,
        "models": {},
        "rows": [],
        "groups": [],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    models = [("tiny", TINY)] if args.tiny else []
    models += [(str(p), json.loads(Path(p).read_text())) for p in args.models]
    # Each model gets both log-prob paths and both checkpointing settings before the next model:
    # a budget spent on one path no longer leaves the other unmeasured.
    groups = [
        {"kind": kind, "source": source, "config": cfg, "checkpointing": ckpt}
        for source, cfg in models
        for kind in args.logprobs
        for ckpt in args.checkpointing
    ]
    began = time.monotonic()
    for n, group in enumerate(groups):
        left = args.budget_seconds - (time.monotonic() - began)
        if left <= 0:
            report["groups"].append({**_group_name(group), "status": "not run: the budget is spent"})
            continue
        share = left / (len(groups) - n)
        report["groups"].append({**_group_name(group), **run_worker(args, group, share, report)})
        write(args.out, report)
    write(args.out, report)
    return 0


def _group_name(group: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": group["config"].get("_name", "model"),
        "logprobs": group["kind"],
        "checkpointing": group["checkpointing"],
    }


def run_worker(args, group: dict[str, Any], seconds: float, report: dict[str, Any]) -> dict[str, Any]:
    """One group in a child process: its GPU memory is the driver's to free when it exits, whatever
    an out-of-memory error left behind (FSDP's gathered state, autograd's graph, the allocator)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        part = Path(tmp) / "part.json"
        job = {**group, "budget_seconds": seconds, "part": str(part)}
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            *_worker_args(args),
            "--worker",
            json.dumps(job),
        ]
        began = time.monotonic()
        try:
            done = subprocess.run(command, timeout=seconds + 120, check=False)
            status = "ok" if done.returncode == 0 else f"the worker exited with {done.returncode}"
        except subprocess.TimeoutExpired:
            status = "the worker outran its time and was stopped"
        if part.exists():
            found = json.loads(part.read_text())
            report["models"].update(found["models"])
            report["rows"] += found["rows"]
            for key in ("device", "counts", "flash_attn", "context_start", "context_end"):
                if report.get(key) is None:  # the first worker's; context_end: the last one's
                    report[key] = found.get(key)
            report["context_end"] = found.get("context_end")
        return {"status": status, "seconds": round(time.monotonic() - began, 1)}


def _worker_args(args) -> list[str]:
    return [
        "--micro-batches",
        ",".join(map(str, args.micro_batches)),
        "--seq-lens",
        ",".join(map(str, args.seq_lens)),
        "--accumulate",
        str(args.accumulate),
        "--device",
        args.device,
    ]


def worker(args, job: dict[str, Any]) -> int:
    """One model, log-prob path and checkpointing setting, its configurations in order of tokens;
    the first out of memory ends it (every later one has at least as many tokens)."""
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh

    want = args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(want, 0) if want == "cuda" else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
        torch.ones(1, device=device)  # create the context
    dist.init_process_group(
        "nccl" if device.type == "cuda" else "gloo",
        init_method=f"tcp://127.0.0.1:{free_port()}",
        rank=0,
        world_size=1,
    )
    mesh = init_device_mesh(device.type, (1,))
    part: dict[str, Any] = {
        "device": torch.cuda.get_device_name(device)
        if device.type == "cuda"
        else platform.processor() or "cpu",
        "counts": "torch.cuda allocator counters" if device.type == "cuda" else "tensor sizes (no CUDA)",
        "flash_attn": flash_cross_entropy() is not None,
        "context_start": cuda_context(device),
        "models": {},
        "rows": [],
    }
    cfg, on = job["config"], job["checkpointing"] == "on"
    name, logprobs = logprobs_function(job["kind"], device.type)
    sizes = sorted(
        ((m, s) for m in args.micro_batches for s in args.seq_lens), key=lambda ms: (ms[0] * ms[1], ms)
    )
    began, probe, marks, meter = time.monotonic(), Probe(), {"prefix": ""}, Meter(device)
    actor = fresh_actor(args, job["kind"], job["source"], cfg, device, mesh, meter, probe, marks, part)
    if on:
        actor.module.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    else:
        actor.module.gradient_checkpointing_disable()
    probe.checkpointing = on
    for k, (micro, seq) in enumerate(sizes):
        if time.monotonic() - began > job["budget_seconds"]:
            part["rows"] += [
                {**row_head(cfg, name, on, m, q, args), "status": "not run: the group's time is spent"}
                for m, q in sizes[k:]
            ]
            break
        row = run_config(args, actor, name, logprobs, on, micro, seq, device, meter, probe, marks)
        part["rows"].append(row)
        if row["status"] == "oom":
            part["rows"] += [
                {**row_head(cfg, name, on, m, q, args), "status": "skipped (OOM at fewer tokens)"}
                for m, q in sizes[k + 1 :]
            ]
            break
        Path(job["part"]).write_text(json.dumps(part))
    part["context_end"] = cuda_context(device)
    Path(job["part"]).write_text(json.dumps(part))
    dist.destroy_process_group()
    return 0


def fresh_actor(args, kind, source, cfg, device, mesh, meter, probe, marks, report) -> Actor:
    """A new actor, after a first step at the smallest size (which makes AdamW's state)."""
    actor = build_actor(cfg, device, mesh, meter, probe, marks)
    _, logprobs = logprobs_function(kind, device.type)
    first = micro_batches(actor.shape, min(args.micro_batches), min(args.seq_lens), args.accumulate, device)
    probe.checkpointing = True
    actor_step(actor, first, logprobs, meter, probe, marks)
    del first
    if actor.shape.name not in report["models"]:
        last = f"bwd{args.accumulate - 1}"
        report["models"][actor.shape.name] = {
            "source": source,
            "config": cfg,
            "params": actor.params,
            "attention": actor.attention,
            "weights_measured": actor.weights_measured,
            "weights_accounted": actor.weights_accounted,
            "optimizer_measured": meter.at("step").allocated - meter.at(last).allocated
            if meter.cuda
            else None,
            "optimizer_accounted": optimizer_bytes(actor.optimizer),
        }
    return actor


def row_head(cfg: dict[str, Any], logprobs: str, on: bool, micro: int, seq: int, args) -> dict[str, Any]:
    return {
        "model": cfg.get("_name", "model"),
        "checkpointing": on,
        "logprobs": logprobs,
        "micro_batch": micro,
        "seq_len": seq,
        "tokens": micro * seq,
        "accumulate": args.accumulate,
    }


def run_config(args, actor, name, logprobs, on, micro, seq, device, meter, probe, marks) -> dict[str, Any]:
    import torch

    tokens = micro * seq
    row = {**row_head({"_name": actor.shape.name}, name, on, micro, seq, args), "attention": actor.attention}
    began = time.monotonic()
    with cleanup(device):
        try:
            batches = micro_batches(actor.shape, micro, seq, args.accumulate, device)
            counts = actor_step(actor, batches, logprobs, meter, probe, marks)
            del batches
        except (torch.cuda.OutOfMemoryError, RuntimeError) as error:  # Triton kernels raise RuntimeError
            if "out of memory" not in str(error).lower():
                raise
            actor.optimizer.zero_grad(set_to_none=True)
            probe.reset()
            row.update(status="oom", seconds=round(time.monotonic() - began, 2))
            return row
    last = counts[f"fwd{args.accumulate - 1}"]
    row.update(
        status="ok",
        seconds=round(time.monotonic() - began, 2),
        measured=measured(meter, args.accumulate),
        accounted={
            "weights": local_bytes(actor.module.parameters()),
            "grads": counts["grads"],
            "optimizer": optimizer_bytes(actor.optimizer),
            "root_gathered": probe.root_bytes,
            "layer_gathered": probe.layer_bytes,
            "activations": last["activations"],
            "logits": last["logits"],
        },
        estimate=estimate(actor, tokens, on, name),
    )
    actor.optimizer.zero_grad(set_to_none=True)
    return row


# ---------------------------------------------------------------------------------------------
# What the rows say about the model's coefficients, and the tables.


def fit(report: dict[str, Any]) -> dict[str, Any]:
    """Each coefficient of gpu_memory.COEFFICIENTS the rows measure: the median over the rows of
    measured / what the coefficient's formula gives at 1. Empty without CUDA counts."""
    rows = [r for r in report["rows"] if r.get("status") == "ok" and r.get("measured")]
    if not rows:
        return {}
    shapes = {name: shape_of(m["config"]) for name, m in report["models"].items()}
    out: dict[str, Any] = {}

    def median(values):
        values = [v for v in values if v is not None and math.isfinite(v)]
        return round(statistics.median(values), 3) if values else None

    def activation_base(r, ckpt):
        s = shapes[r["model"]]
        body = r["measured"]["activations"] - r["tokens"] * 6 * s.hidden  # the final norm: 6h
        unit = 2 * s.hidden * s.layers if ckpt else model.activation_bytes_per_token_layer(s) * s.layers
        return body / (r["tokens"] * unit)

    out["activation_scale"] = median(activation_base(r, False) for r in rows if not r["checkpointing"])
    out["checkpoint_scale"] = median(activation_base(r, True) for r in rows if r["checkpointing"])
    for kind in ("flash", "torch"):
        out[f"logits_bytes_{kind}"] = median(
            r["measured"]["logits_kept"] / (r["tokens"] * shapes[r["model"]].vocab)
            for r in rows
            if (r["logprobs"] == "torch") == (kind == "torch")
        )
    for kind in ("flash", "torch"):
        out[f"logits_backward_bytes_{kind}"] = median(
            r["measured"]["backward_peak"] / (r["tokens"] * shapes[r["model"]].vocab)
            for r in rows
            if (r["logprobs"] == "torch") == (kind == "torch")
        )
    out["root_unit_bytes"] = median(
        r["measured"]["root_gathered"] / shapes[r["model"]].root_params() for r in rows
    )
    params = {name: m["params"] for name, m in report["models"].items()}
    out["adam_step_bytes"] = median(r["measured"]["step_peak"] / params[r["model"]] for r in rows)
    out["allocator_slack"] = median(
        r["measured"]["peak_reserved"] / r["measured"]["peak_allocated"] - 1 for r in rows
    )
    ctx = report.get("context_end") or report.get("context_start")
    out["cuda_context_gb"] = None if not ctx else round(ctx["used"] / GB, 2)
    ratios = [est / measured_gb for _, measured_gb, est in compare_rows(report)]
    out["estimate_over_measured"] = {
        "median": median(ratios),
        "min": round(min(ratios), 3),
        "max": round(max(ratios), 3),
        "within_10_percent": sum(abs(x - 1) <= 0.1 for x in ratios),
        "rows": len(ratios),
    }
    return out


def compare_rows(report: dict[str, Any]) -> list[tuple[dict[str, Any], float, float]]:
    """(row, measured peak allocated, the current model's estimate) in GB for each measured row."""
    out = []
    for r in report["rows"]:
        if r.get("status") != "ok" or not r.get("measured"):
            continue
        m = report["models"][r["model"]]
        kind = "torch" if r["logprobs"] == "torch" else "flash"
        est = model.update_peak_gb(
            shape_of(m["config"]), m["params"], 1, r["tokens"], r["checkpointing"], kind
        )
        out.append((r, r["measured"]["peak_allocated"] / GB, est))
    return out


def compare(files: list[Path]) -> str:
    """The ratio table of every measured row of every file, and how many are within 10%."""
    lines = [
        "| run | model | ckpt | log-probs | micro x seq | measured GB | estimate GB | est / meas |",
        "| --- | --- | --- | --- | --- | ---: | ---: | ---: |",
    ]
    ratios = []
    for path in files:
        report = json.loads(path.read_text())
        for r, measured_gb, est in compare_rows(report):
            ratios.append(est / measured_gb)
            lines.append(
                f"| {path.parent.name} | {r['model']} | {'on' if r['checkpointing'] else 'off'} | "
                f"{r['logprobs']} | {r['micro_batch']} x {r['seq_len']} | {measured_gb:.2f} | {est:.2f} | "
                f"{est / measured_gb:.3f} |"
            )
    within = sum(abs(x - 1) <= 0.10 for x in ratios)
    lines += [
        "",
        f"{within} of {len(ratios)} within 10%"
        + (f" (estimate / measured: {min(ratios):.3f} to {max(ratios):.3f})" if ratios else ""),
    ]
    return "\n".join(lines) + "\n"


def markdown(report: dict[str, Any]) -> str:
    counts = report.get("counts") or "none (no worker reported)"
    cuda = counts.startswith("torch.cuda")
    # GB for real models; kB for --tiny's, whose numbers would all round to 0.00 GB.
    big = any(m["params"] > 1e7 for m in report["models"].values())
    unit, unit_name = (GB, "GB = 10^9 bytes") if big else (1e3, "kB = 10^3 bytes")

    def gb(value: float | None) -> str:
        return "" if value is None else f"{value / unit:.2f}"

    lines = [
        f"# verl actor step, memory per component ({report['device']})",
        "",
        f"`{report['command']}`",
        "",
        f"torch {report['torch']}, transformers {report['transformers']}, flash-attn: "
        f"{'yes' if report['flash_attn'] else 'no'}; counts: {counts}; {unit_name}.",
        "",
        "| model | params | weights | Adam state | attention |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for name, m in report["models"].items():
        weights = m["weights_measured"] if cuda else m["weights_accounted"]
        adam = m.get("optimizer_measured") if cuda else m.get("optimizer_accounted")
        count = f"{m['params'] / 1e9:.3f}B" if big else f"{m['params']:,}"
        lines.append(f"| {name} | {count} | {gb(weights)} | {gb(adam)} | {m['attention']} |")
    lines += [
        "",
        "| model | ckpt | log-probs | micro x seq | grads | root gathered | activations | logits | "
        "backward peak | peak allocated | peak reserved | estimate | est / meas |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in report["rows"]:
        head = (
            f"| {r['model']} | {'on' if r['checkpointing'] else 'off'} | {r['logprobs']} | "
            f"{r['micro_batch']} x {r['seq_len']} |"
        )
        if r["status"] != "ok":
            lines.append(f"{head} {r['status']} |" + " |" * 8)
            continue
        m, a, e = r.get("measured"), r["accounted"], r["estimate"]
        if m:
            cells = [m["grads"], m["root_gathered"], m["activations"], m["logits"], m["backward_peak"]]
            cells += [m["peak_allocated"], m["peak_reserved"], e["total"]]
            ratio = f"{e['total'] / m['peak_allocated']:.2f}"
        else:
            cells = [
                a["grads"],
                a["root_gathered"],
                a["activations"],
                a["logits"],
                None,
                None,
                None,
                e["total"],
            ]
            ratio = ""
        lines.append(head + "".join(f" {gb(v)} |" for v in cells) + f" {ratio} |")
    groups = report.get("groups") or []
    if groups:
        lines += ["", "| model | log-probs | ckpt | process | seconds |", "| --- | --- | --- | --- | ---: |"]
        for g in groups:
            cells = (g["model"], g["logprobs"], g["checkpointing"], g["status"], g.get("seconds", ""))
            lines.append("| " + " | ".join(map(str, cells)) + " |")
    fitted = dict(report.get("fit") or {})
    ratio = fitted.pop("estimate_over_measured", None)
    if fitted:
        lines += ["", "| coefficient | now (gpu_memory.py) | fitted here |", "| --- | ---: | ---: |"]
        for key, value in fitted.items():
            now = model.COEFFICIENTS[key].value if key in model.COEFFICIENTS else ""
            lines.append(f"| {key} | {now} | {value} |")
    if ratio:
        lines += [
            "",
            f"Estimate / measured peak allocated: median {ratio['median']}, "
            f"{ratio['min']} to {ratio['max']}; {ratio['within_10_percent']} of {ratio['rows']} "
            "configurations within 10%.",
        ]
    return "\n".join(lines) + "\n"


def write(out: Path, report: dict[str, Any]) -> None:
    """Both files, the fit included, after every configuration: a run cut short keeps its rows."""
    report["fit"] = fit(report)
    (out / "gpu_memory.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "gpu_memory.md").write_text(markdown(report))


if __name__ == "__main__":
    sys.exit(main())
