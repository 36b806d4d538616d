"""The verl releases the kit runs, one data file each (data/verl/<version>.yaml, sources inside), and
the one the values take unless they name another (training.verlVersion)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

# The default stays 0.6.1 while verl documents no image for 0.9.1: the nearest (v0.9.0's CI image)
# carries older transformers and TransferQueue than 0.9.1 asks for (data/verl/0.9.1.yaml, image).
# Changing it moves the chart's appVersion, every rendered default and the goldens with it.
DEFAULT_VERL_VERSION = "0.6.1"


@dataclass(frozen=True)
class Download:
    """A file fetched by URL and accepted only with this sha256."""

    url: str
    sha256: str


@dataclass(frozen=True)
class ReleaseImage:
    repository: str
    tag: str
    documented: bool  # verl names this image for the release (else: the nearest it names)
    vllm: str
    sglang_tag: str  # the image for training.rolloutName sglang
    platforms: tuple[str, ...]
    ray: str | None  # None: the image pins none and its build is not documented
    imports: tuple[str, ...]  # modules verl imports from the image, checked by the pre-flight


@dataclass(frozen=True)
class VerlRelease:
    version: str
    tag: str
    commit: str | None  # None: the tag is not in the sources the kit was built against
    wheel: Download  # the code that runs: PyPI's wheel of the release
    gsm8k_script: Download  # examples/data_preprocess/gsm8k.py, which the wheel does not ship
    image: ReleaseImage
    module: str  # the trainer's entry module
    task_runner: str  # the Ray actor whose stdout carries the step lines
    ray_cpus_per_gpu: int  # CPUs in each GPU's placement-group bundle
    loop_workers: int  # CPU-only Ray actors verl starts beside the trainer (placed on nodes with CPUs)
    step_time_includes_save: bool  # timing_s/step covers the checkpoint save
    worker_env: dict[str, str]  # what get_ppo_ray_runtime_env gives every worker

    @property
    def image_reference(self) -> str:
        return f"{self.image.repository}:{self.image.tag}"


def _release(d: dict[str, Any]) -> VerlRelease:
    image = d["image"]
    return VerlRelease(
        version=d["version"],
        tag=d["tag"],
        commit=d["commit"],
        wheel=Download(**d["wheel"]),
        gsm8k_script=Download(**d["gsm8kScript"]),
        image=ReleaseImage(
            repository=image["repository"],
            tag=image["tag"],
            documented=bool(image["documented"]),
            vllm=image["vllm"],
            sglang_tag=image["sglangTag"],
            platforms=tuple(image["platforms"]),
            ray=image["ray"],
            imports=tuple(image["imports"]),
        ),
        module=d["trainer"]["module"],
        task_runner=d["trainer"]["taskRunner"],
        ray_cpus_per_gpu=int(d["rayCpusPerGpu"]),
        loop_workers=int(d["loopWorkers"]),
        step_time_includes_save=bool(d["stepTimeIncludesSave"]),
        worker_env={str(k): str(v) for k, v in d["workerEnv"].items()},
    )


@cache
def verl_releases() -> dict[str, VerlRelease]:
    """Every release with a data file, by version, oldest first."""
    folder = resources.files("verl_grpo") / "data" / "verl"
    found = [_release(yaml.safe_load(e.read_text())) for e in folder.iterdir() if e.name.endswith(".yaml")]
    return {r.version: r for r in sorted(found, key=lambda r: tuple(int(p) for p in r.version.split(".")))}


def verl_release(version: str) -> VerlRelease:
    return verl_releases()[version]


# The chart's table of the facts a template or a rule reads by training.verlVersion (chart/facts.py
# writes it into _facts.tpl), and the named template that gives one release's row as JSON.
RELEASES_TABLE = "verl-grpo.verlReleases"
RELEASE_HELPER = "verl-grpo.verlRelease"


def release_row(r: VerlRelease) -> dict[str, str | int]:
    return {
        "wheelUrl": r.wheel.url,
        "wheelSha256": r.wheel.sha256,
        "gsm8kScriptUrl": r.gsm8k_script.url,
        "gsm8kScriptSha256": r.gsm8k_script.sha256,
        "imageTag": r.image.tag,
        "sglangImageTag": r.image.sglang_tag,
        "imageRay": r.image.ray or "",  # "": not known
        "rayCpusPerGpu": r.ray_cpus_per_gpu,
        "imageImports": ",".join(r.image.imports),
    }


def release_rows() -> dict[str, dict[str, str | int]]:
    return {version: release_row(r) for version, r in verl_releases().items()}


def verl_pin(release: VerlRelease) -> str:
    """How the run's verl is pinned, for `plan`."""
    commit = f" = {release.commit}" if release.commit else " (its commit: not in the kit's sources)"
    return (
        f"verl {release.version}: PyPI wheel sha256:{release.wheel.sha256}, GSM8K script "
        f"sha256:{release.gsm8k_script.sha256} from tag {release.tag}{commit}"
    )
