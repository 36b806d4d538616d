"""What the rendered pods run, run against the twin's bucket as the identity each pod has.

A pod's bucket volumes are its PersistentVolumeClaims' PersistentVolumes: the bucket is the CSI
``volumeHandle`` up to its first ``:`` and the folder is the ``only-dir`` mount option
(gcs-fuse-csi-driver docs: "only-dir" mounts a folder of the bucket), else the whole bucket. The
pod's paths under those mounts are rewritten to the twin's folder tree; nothing else in the
command changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .bucket import Bucket, principal


@dataclass(frozen=True)
class Mounts:
    """mountPath -> folder of the bucket (""), for one container."""

    paths: dict[str, str]

    def rewrite(self, text: str, root: Path) -> str:
        """``text`` with each mount path replaced by where that folder lies in the twin."""
        for mount in sorted(self.paths, key=len, reverse=True):
            folder = self.paths[mount]
            target = root / folder if folder else root
            if text == mount or text.startswith(f"{mount}/"):
                return f"{target}{text[len(mount) :]}"
            text = text.replace(f" {mount}/", f" {target}/").replace(f"={mount}/", f"={target}/")
        return text


def by_kind(docs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == kind]


def bucket_mounts(docs: list[dict[str, Any]], template: dict[str, Any], container: str) -> Mounts:
    claims = {d["metadata"]["name"]: d for d in by_kind(docs, "PersistentVolumeClaim")}
    volumes = {d["metadata"]["name"]: d for d in by_kind(docs, "PersistentVolume")}
    spec = template["spec"]
    by_volume = {}
    for v in spec.get("volumes", []):
        claim = claims.get(v.get("persistentVolumeClaim", {}).get("claimName", ""))
        if claim is None:
            continue
        pv = volumes[claim["spec"]["volumeName"]]
        folder = next(
            (o.split("=", 1)[1] for o in pv["spec"].get("mountOptions", []) if o.startswith("only-dir=")), ""
        )
        by_volume[v["name"]] = folder
    (found,) = [
        c for c in spec.get("containers", []) + spec.get("initContainers", []) if c["name"] == container
    ]
    return Mounts(
        {
            m["mountPath"]: by_volume[m["name"]]
            for m in found.get("volumeMounts", [])
            if m["name"] in by_volume
        }
    )


def identity(template: dict[str, Any], namespace: str, project: str, project_number: str) -> str:
    """The Workload Identity principal of the pod's Kubernetes service account."""
    return principal(project_number, project, namespace, template["spec"]["serviceAccountName"])


def container_env(container: dict[str, Any]) -> dict[str, str]:
    """The container's literal env values (``valueFrom`` ones are the cluster's to fill)."""
    return {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}


def run_container(
    bucket: Bucket,
    member: str,
    command: list[str],
    env: dict[str, str],
    mounts: Mounts,
    scratch: Path,
    path: str,
) -> Any:
    """Run ``command`` as ``member`` with the mount paths in its env and arguments rewritten."""
    scratch.mkdir(parents=True, exist_ok=True)
    scratch.chmod(0o777)
    full = {k: mounts.rewrite(v, bucket.root) for k, v in env.items()}
    full |= {"PATH": path, "HOME": str(scratch), "TMPDIR": str(scratch)}
    return bucket.run(member, [mounts.rewrite(a, bucket.root) for a in command], full, cwd=scratch)


# The data-prep script's network: the Hugging Face download (``python3 -`` reading the
# snapshot_download heredoc) and verl's GSM8K preprocessing (``python3 .../gsm8k.py
# --local_save_dir DIR``, which downloads the dataset) write what they would, without the network;
# ``curl`` is tests/fakes' curl (the release's wheel and GSM8K script, the bytes data/verl pins).
# Anything else runs the system's Python.
PYTHON_STANDIN = """#!/bin/bash
set -euo pipefail
printf '%s\\n' "python3 $*" >> "$STANDIN_CALLS"
if [ "${1:-}" = - ]; then
  cat >/dev/null
  mkdir -p "$MODEL_DIR"
  printf '{"num_attention_heads": 40, "torch_dtype": "bfloat16"}' > "$MODEL_DIR/config.json"
  printf 'weights' > "$MODEL_DIR/model-00001-of-00001.safetensors"
  exit 0
fi
case "${1:-}" in
  */examples/data_preprocess/gsm8k.py)
    [ "${2:-}" = --local_save_dir ] || { echo "stand-in: gsm8k.py without --local_save_dir" >&2; exit 2; }
    mkdir -p "$3"
    for split in train test; do printf 'PAR1' > "$3/$split.parquet"; done
    exit 0 ;;
esac
exec /usr/bin/python3 "$@"
"""


def network_standins(folder: Path, fakes: Path, state: Path) -> tuple[str, dict[str, str]]:
    """A PATH with the stand-ins first, and the environment they need."""
    folder.mkdir(parents=True, exist_ok=True)
    python = folder / "python3"
    python.write_text(PYTHON_STANDIN)
    python.chmod(0o755)
    (folder / "curl").symlink_to(fakes / "curl")
    state.mkdir(parents=True, exist_ok=True)
    state.chmod(0o777)
    calls = state / "standin-calls.txt"
    calls.touch()
    calls.chmod(0o666)
    return f"{folder}:/usr/bin:/bin", {"STANDIN_CALLS": str(calls), "FAKE_STATE": str(state)}
