"""The data-preparation Job: model, verl source and GSM8K into the bucket, each step once.

Each step writes a marker last; a step whose marker exists is skipped, so a re-run after a
crash finishes the rest and a re-run after success does nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..pod.preflight import MARKER
from ..values.decisions import Decisions
from ..values.derive import DeploySpec
from .base import WAVE_DATA, ManifestConstruct, image, pod_labels
from .gcs_fuse_storage import GcsFuseStorage
from .pod_security import (
    BATCH_EXCEPTIONS,
    HEAD_CONTAINER_SECURITY,
    NAMESPACED_EXCEPTIONS,
    hardened_pod,
)
from .scheduling import cpu_node_selector

if TYPE_CHECKING:
    from constructs import Construct

# The chart's named templates for the Job's spec and its digest (see Decisions.spec_digest).
DATA_PREP_TEMPLATE = "verl-grpo.dataPrepJob"

# curl, sha256sum and python3 are in verl's images: vLLM's image, the base of vllm011.dev7, installs
# git and curl (vllm-project/vllm docker/Dockerfile, `apt-get install -y ccache
# software-properties-common git curl sudo`), and verl's Dockerfile.stable.vllm@v0.9.0:33-36 does.
SCRIPT = f"""set -euo pipefail
step() {{  # step DIR FUNCTION: run FUNCTION unless DIR holds the marker, then write the marker
  if [ -f "$1/{MARKER}" ]; then echo "skip: $1 is complete"; return 0; fi
  echo "run: $2 -> $1"; "$2"; mkdir -p "$1"; date -u +%FT%TZ > "$1/{MARKER}"
}}
download_model() {{
  python3 - <<'PY'
import os
from huggingface_hub import snapshot_download
e = os.environ
snapshot_download(e["MODEL_ID"], revision=e["MODEL_REVISION"], local_dir=e["MODEL_DIR"])
PY
}}
fetch() {{  # fetch URL SHA256 FILE: the file at URL, kept only with that sha256
  curl --fail --silent --show-error --location --retry 3 --output "$3" "$1"
  if ! echo "$2  $3" | sha256sum --check --status; then
    got=$(sha256sum "$3" | cut -d' ' -f1)
    echo "$1 has sha256 $got, not $2: not the verl $VERL_VERSION this kit checks" >&2
    exit 1
  fi
}}
fetch_verl() {{
  # verl's release as PyPI holds it (the wheel: the verl package) and its GSM8K script (in git
  # only), each checked against its sha256 (data/verl/<version>.yaml), unpacked on the pod's
  # scratch disk, then copied into the verl folder: the Job's identity may write only inside the
  # model, data and verl managed folders (scripts/lib.sh bucket_grants), so a sibling like
  # "$VERL_DIR.partial", or removing the folder itself, is refused by Cloud Storage. A run cut short
  # left no marker: its files are cleared first, inside the folder.
  scratch=$(mktemp -d)
  fetch "$VERL_WHEEL_URL" "$VERL_WHEEL_SHA256" "$scratch/verl.whl"
  fetch "$GSM8K_SCRIPT_URL" "$GSM8K_SCRIPT_SHA256" "$scratch/gsm8k.py"
  python3 -m zipfile -e "$scratch/verl.whl" "$scratch/verl"
  mkdir -p "$scratch/verl/examples/data_preprocess"
  cp "$scratch/gsm8k.py" "$scratch/verl/examples/data_preprocess/gsm8k.py"
  mkdir -p "$VERL_DIR" && find "$VERL_DIR" -mindepth 1 -delete
  cp -R "$scratch/verl/." "$VERL_DIR/"
}}
prepare_gsm8k() {{
  # The verlai/verl images install verl for its dependencies, then uninstall it
  # (verl docker/Dockerfile.stable.vllm); gsm8k.py imports verl.utils.hdfs_io: use the release's.
  PYTHONPATH="$VERL_DIR" \\
    python3 "$VERL_DIR/examples/data_preprocess/gsm8k.py" --local_save_dir "$DATA_DIR"
}}
step "$MODEL_DIR" download_model
step "$VERL_DIR" fetch_verl
step "$DATA_DIR" prepare_gsm8k
"""


def release_downloads(decide: Decisions, version: str) -> list[dict[str, str]]:
    """What fetch_verl downloads for the release, and the sha256 each must have."""
    return [
        {"name": name, "value": decide.release_fact(version, fact)}
        for name, fact in (
            ("VERL_WHEEL_URL", "wheelUrl"),
            ("VERL_WHEEL_SHA256", "wheelSha256"),
            ("GSM8K_SCRIPT_URL", "gsm8kScriptUrl"),
            ("GSM8K_SCRIPT_SHA256", "gsm8kScriptSha256"),
        )
    ]


def data_prep_account(spec: DeploySpec) -> str:
    """The data-prep Job's own identity: it writes the model, data and verl folders of the bucket,
    which the Ray pods' account may only read (scripts/lib.sh bucket_grants)."""
    return f"{spec.values.service_account.name}-data-prep"


class DataPrepJob(ManifestConstruct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        spec: DeploySpec,
        storage: GcsFuseStorage,
    ) -> None:
        super().__init__(scope, id, spec, when=spec.decide.flag(spec.values.data_prep.enabled))
        v, rel, s = spec.values, spec.release, spec.values.storage
        p, version = v.data_prep, v.training.verl_version
        amounts = {"cpu": p.cpu, "memory": p.memory, "ephemeral-storage": p.ephemeral_storage}
        env = [
            {"name": "MODEL_ID", "value": p.model_id},
            {"name": "MODEL_REVISION", "value": p.model_revision},
            {"name": "MODEL_DIR", "value": f"{s.mount_path}/{s.model_dir}"},
            {"name": "VERL_DIR", "value": f"{s.mount_path}/{s.verl_dir}"},
            {"name": "DATA_DIR", "value": f"{s.mount_path}/{s.data_dir}"},
            {"name": "VERL_VERSION", "value": version},
            *release_downloads(spec.decide, version),
            {"name": "HF_HOME", "value": "/tmp/huggingface"},
            # Only when the Secret exists: public models need no token.
            {
                "name": "HF_TOKEN",
                "valueFrom": {"secretKeyRef": {"name": p.hf_token_secret, "key": "token", "optional": True}},
            },
        ]
        job_spec = {
            "backoffLimit": p.backoff_limit,
            "template": {
                "metadata": {
                    "labels": pod_labels(rel.name),
                    "annotations": storage.pod_annotations,
                },
                "spec": {
                    **hardened_pod(data_prep_account(spec)),
                    "restartPolicy": "Never",
                    "nodeSelector": cpu_node_selector(spec),
                    "containers": [
                        {
                            "name": "data-prep",
                            "image": image(spec),
                            "imagePullPolicy": v.image.pull_policy,
                            "command": ["bash", "-c", SCRIPT],
                            "env": env,
                            "resources": {"requests": amounts, "limits": dict(amounts)},
                            "securityContext": HEAD_CONTAINER_SECURITY,
                            "volumeMounts": [
                                *storage.data_prep_volume_mounts(),
                                {"name": "scratch", "mountPath": "/tmp"},
                            ],
                        }
                    ],
                    "volumes": [*storage.data_prep_volumes(), {"name": "scratch", "emptyDir": {}}],
                },
            },
        }
        self.add_object(
            "service-account",
            kind="ServiceAccount",
            name=data_prep_account(spec),
            skips=NAMESPACED_EXCEPTIONS,
            body={},
        )
        self.add_object(
            "job",
            kind="Job",
            # A Job's pod template is immutable: `helm upgrade` or a GitOps sync that changes it
            # fails ("field is immutable"). The name carries a digest of the Job's spec, so a change
            # makes a new Job (its steps skip what the markers say is done) and the old one goes.
            name=f"{rel.name}-data-prep-{spec.decide.spec_digest(job_spec, DATA_PREP_TEMPLATE)}",
            # After its ServiceAccount, volumes and ConfigMaps; Argo CD waits for it before the run.
            wave=WAVE_DATA,
            skips=BATCH_EXCEPTIONS,
            spec_template=DATA_PREP_TEMPLATE,
            body={"spec": job_spec},
        )
