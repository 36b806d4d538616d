"""The classifier over real log excerpts quoted in public issues (tests/postmortem_corpus/, each
file's first line its URL): each names its class, and the evidence it quotes is the excerpt's own
line the corpus marks; the `unknown` ones are not guessed at."""

from __future__ import annotations

from pathlib import Path

import pytest

from verl_grpo.postmortem.classify import classify, normalise, report

CORPUS = Path(__file__).resolve().parents[2] / "postmortem_corpus"


def excerpt(path: Path) -> tuple[dict[str, str], str]:
    header, _, body = path.read_text().partition("\n\n")
    fields = dict(line[2:].split(": ", 1) for line in header.splitlines() if line.startswith("# "))
    return fields, body


FILES = sorted(CORPUS.glob("*.log"))


def test_the_corpus_covers_every_class():
    classes = {excerpt(p)[0]["class"] for p in FILES}
    assert classes == {
        "nccl-timeout", "cuda-oom", "node-loss", "fuse-stall", "image-pull",
        "unschedulable", "ray-oom", "verl-config", "unknown",
    }  # fmt: skip
    assert all(excerpt(p)[0]["source"].startswith("https://github.com/") for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_excerpt_is_named_with_its_evidence(path: Path):
    fields, body = excerpt(path)
    verdict = classify({path.name: body})
    assert verdict.cause == fields["class"], "\n".join(report(verdict))
    if fields["class"] == "unknown":
        assert verdict.errors and report(verdict)[0].startswith("cause: unknown")
        return
    expect = normalise(fields["expect"]).strip()[:200]  # report() cuts a quoted line at 300
    assert any(expect in line for line in verdict.findings[0].evidence), "\n".join(report(verdict))


def test_the_preflights_progress_is_no_cause_and_its_refusal_is():
    """Our own lines (preflight.py): what it says while it works, then what stopped a run."""
    progress = "\n".join(
        [
            "preflight: waiting up to 900 s (auto: ...): 1 problems, first: model: /data/m does not exist",
            "preflight: model, data, checkpoints and GPUs are ready",
            "preflight: checkpoints: no checkpoint yet: verl starts from step 0",
            "preflight: nccl-gate: ok: lowest bus bandwidth 312.40 GB/s (all) >= 100 GB/s (x)",
        ]
    )
    assert classify({"driver.log": progress}).cause == "unknown"
    refused = progress + "\npreflight: nccl-gate: FAILED: cause: node w-1 (10.0.0.2) ...\n"
    verdict = classify({"driver.log": refused})
    assert verdict.cause == "preflight" and "cordon it" in verdict.findings[0].fix
