"""Cross-field rules written once, as data that both the CLI evaluates and the chart compiles
into `fail` calls (templates/_rules.tpl), so `helm install` refuses what `verl-grpo check` refuses,
with the same rule id, key and message.

A rule is an expression over the values (and the release name) that holds when the values are
wrong. The expression language is the part Python and Go templates share: comparisons, and/or/not,
string length, integer arithmetic, semver order. Rules that need more (quantities, node packing,
shell parsing) stay in rules.py and are listed in the README as CLI-only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .kuberay import NAME_MAX, SUBMISSION_MODE_SINCE
from .machines import gpu_profiles
from .refs import version_at_least

Scope = dict[str, Any]  # {"Values": values by alias, "Release": {"Name": ...}}


class Expr:
    def py(self, scope: Scope) -> Any:
        raise NotImplementedError

    def go(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class V(Expr):
    """`.Values.a.b` (or `.Release.Name`)."""

    path: str

    def py(self, scope: Scope) -> Any:
        node: Any = scope
        for part in self.path.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node

    def go(self) -> str:
        return f".{self.path}"


@dataclass(frozen=True)
class C(Expr):
    value: Any

    def py(self, scope: Scope) -> Any:
        return self.value

    def go(self) -> str:
        return json.dumps(self.value)


@dataclass(frozen=True)
class Op(Expr):
    """A function of its arguments: FUNCTIONS[name] holds its Python meaning and Go spelling."""

    name: str
    args: tuple[Expr, ...]

    def py(self, scope: Scope) -> Any:
        return FUNCTIONS[self.name][0](*(a.py(scope) for a in self.args))

    def go(self) -> str:
        return FUNCTIONS[self.name][1](*(a.go() for a in self.args))


def _nested(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


# name -> (Python, Go template). Numbers go through `int` in Go: values from YAML are int64, from
# JSON float64, and Go's comparisons refuse the mix. `print` of strings joins them as they are.
FUNCTIONS: dict[str, tuple[Callable[..., Any], Callable[..., str]]] = {
    "eq": (lambda a, b: a == b, lambda a, b: f"(eq {a} {b})"),
    "ne": (lambda a, b: a != b, lambda a, b: f"(ne {a} {b})"),
    "and": (lambda *xs: all(xs), lambda *xs: f"(and {' '.join(xs)})"),
    "not": (lambda a: not a, lambda a: f"(not {a})"),
    "gt": (lambda a, b: int(a) > int(b), lambda a, b: f"(gt (int {a}) (int {b}))"),
    "mod": (lambda a, b: int(a) % int(b), lambda a, b: f"(mod (int {a}) (int {b}))"),
    "plus": (lambda a, b: int(a) + int(b), lambda a, b: f"(add {a} {b})"),
    "length": (lambda *xs: len("".join(map(str, xs))), lambda *xs: f"(len (print {' '.join(xs)}))"),
    "older": (
        lambda version, minimum: not version_at_least(str(version), minimum),
        lambda version, minimum: f"(not (semverCompare {json.dumps('>=' + json.loads(minimum))} {version}))",
    ),
    # two absolute paths, one the other or below it (the values' paths end without '/')
    "nested": (
        lambda a, b: _nested(str(a), str(b)),
        lambda a, b: f'(or (eq {a} {b}) (hasPrefix (print {b} "/") {a}) (hasPrefix (print {a} "/") {b}))',
    ),
}


def _e(x: Expr | Any) -> Expr:
    return x if isinstance(x, Expr) else C(x)


def op(name: str, *args: Expr | Any) -> Op:
    return Op(name, tuple(_e(a) for a in args))


@dataclass(frozen=True)
class Lookup(Expr):
    """A fact by a value, e.g. GPUs per node by gpu.type (the table comes from data files)."""

    key: Expr
    table: tuple[tuple[str, Any], ...]

    def py(self, scope: Scope) -> Any:
        return dict(self.table)[self.key.py(scope)]

    def go(self) -> str:
        pairs = " ".join(f"{json.dumps(k)} {json.dumps(v)}" for k, v in self.table)
        return f"(index (dict {pairs}) {self.key.go()})"


@dataclass(frozen=True)
class CrossRule:
    id: str
    key: str
    when: Expr  # holds when the values are wrong
    message: tuple[str | Expr, ...]  # text and values, put together

    def text(self, scope: Scope) -> str:
        return "".join(p if isinstance(p, str) else str(p.py(scope)) for p in self.message)

    def go_message(self) -> str:
        parts = [json.dumps(p) if isinstance(p, str) else p.go() for p in self.message]
        return f"(print {json.dumps(self.key + ': ')} {' '.join(parts)} {json.dumps(f' [{self.id}]')})"


# KubeRay's name limits (kuberay.NAME_MAX); the kit appends '-' and 8 hex digits of the spec's
# digest to a RayJob's name (constructs/grpo_ray_job.py).
RAYJOB_NAME_MAX = NAME_MAX["RayJob"]
RAYCLUSTER_NAME_MAX = NAME_MAX["RayCluster"]
DIGEST_SUFFIX = len("-xxxxxxxx")

RELEASE = V("Release.Name")
RUN_KIND, MODE, CAPACITY = V("Values.run.kind"), V("Values.cluster.mode"), V("Values.cluster.capacity")
SIDECAR_MODE_SINCE = SUBMISSION_MODE_SINCE["SidecarMode"]
GPUS_PER_NODE = Lookup(
    V("Values.gpu.type"), tuple((t, p.gpus_per_node) for t, p in sorted(gpu_profiles().items()))
)
RAYJOB_NAME_LENGTH = op("plus", op("length", RELEASE, "-", V("Values.run.name")), DIGEST_SUFFIX)

# Paths the pods already mount (the GPU stack, Ray's scratch space): a values mount path must not
# be one of them, nor hold one, nor sit inside one; nor may the kit's own mounts overlap.
MOUNTS = {
    "storage.mountPath": V("Values.storage.mountPath"),
    "storage.checkpointMountPath": V("Values.storage.checkpointMountPath"),
    "preflight.mountPath": V("Values.preflight.mountPath"),
}
RESERVED_MOUNTS = {
    "the NVIDIA driver": C("/usr/local/nvidia"),
    "the gIB plugin": C("/usr/local/gib"),
    "/tmp": C("/tmp"),
}


def _mount_rules() -> tuple[CrossRule, ...]:
    out = []
    for key, path in MOUNTS.items():
        for other_key, other in {**MOUNTS, **RESERVED_MOUNTS}.items():
            if other_key == key:
                continue
            out.append(
                CrossRule(
                    "mounts-disjoint",
                    key,
                    op("nested", path, other),
                    ("'", path, f"' overlaps {other_key} ('", other, "'); mount paths must be disjoint"),
                )
            )
    return tuple(out)


RULES = (
    CrossRule(
        "zone-on-autopilot",
        "cluster.zone",
        op("and", op("eq", MODE, "autopilot"), op("eq", V("Values.cluster.zone"), "")),
        (
            "required on Autopilot: the RDMA network profile is zonal and the workers must be pinned "
            "to its zone (e.g. us-central1-b)",
        ),
    ),
    CrossRule(
        "reservation-named",
        "cluster.reservation",
        op("and", op("eq", CAPACITY, "reservation"), op("eq", V("Values.cluster.reservation"), "")),
        ("required with cluster.capacity 'reservation' (the reservation's name)",),
    ),
    CrossRule(
        "reservation-only-reserved",
        "cluster.reservation",
        op("and", op("ne", CAPACITY, "reservation"), op("ne", V("Values.cluster.reservation"), "")),
        (
            "'",
            V("Values.cluster.reservation"),
            "' is only used with cluster.capacity 'reservation' (capacity is '",
            CAPACITY,
            "')",
        ),
    ),
    CrossRule(
        "ttl-needs-shutdown",
        "job.ttlSecondsAfterFinished",
        op(
            "and",
            op("gt", V("Values.job.ttlSecondsAfterFinished"), 0),
            op("not", V("Values.job.shutdownAfterJobFinishes")),
        ),
        ("> 0 needs job.shutdownAfterJobFinishes: true (or set it to 0)",),
    ),
    CrossRule(
        "sidecar-mode-needs-kuberay",
        "job.submissionMode",
        op(
            "and",
            op("eq", RUN_KIND, "RayJob"),
            op("eq", V("Values.job.submissionMode"), "SidecarMode"),
            op("older", V("Values.kuberay.version"), SIDECAR_MODE_SINCE),
        ),
        (
            f"'SidecarMode' needs KubeRay {SIDECAR_MODE_SINCE} or newer; kuberay.version is '",
            V("Values.kuberay.version"),
            "' (use K8sJobMode or HTTPMode)",
        ),
    ),
    CrossRule(
        "rayjob-name-length",
        "run.name",
        op(
            "and",
            op("eq", RUN_KIND, "RayJob"),
            op("gt", RAYJOB_NAME_LENGTH, RAYJOB_NAME_MAX),
        ),
        (
            "RayJob name '",
            RELEASE,
            "-",
            V("Values.run.name"),
            "-<8 hex digits>' is ",
            RAYJOB_NAME_LENGTH,
            f" characters; KubeRay allows {RAYJOB_NAME_MAX}",
        ),
    ),
    CrossRule(
        "tp-divides-node",
        "training.tensorParallelSize",
        op("ne", op("mod", GPUS_PER_NODE, V("Values.training.tensorParallelSize")), 0),
        (V("Values.training.tensorParallelSize"), " must divide the ", GPUS_PER_NODE, " GPUs of a node"),
    ),
    CrossRule(
        "raycluster-name-length",
        "release name",
        op(
            "and",
            op("eq", RUN_KIND, "RayCluster"),
            op("gt", op("length", RELEASE, "-", V("Values.gpu.type")), RAYCLUSTER_NAME_MAX),
        ),
        (
            "RayCluster name '",
            RELEASE,
            "-",
            V("Values.gpu.type"),
            f"' exceeds {RAYCLUSTER_NAME_MAX} characters",
        ),
    ),
    *_mount_rules(),
)


def violations(values: dict[str, Any], release_name: str) -> list[tuple[CrossRule, str]]:
    """Each rule the values break, with its message."""
    scope = {"Values": values, "Release": {"Name": release_name}}
    return [(r, r.text(scope)) for r in RULES if r.when.py(scope)]


def rules_template() -> str:
    """templates/_rules.tpl: every rule as `fail`; each object's template includes it."""
    lines = [
        "{{- /* The kit's cross-field rules (values/cross_rules.py), as `verl-grpo check` runs them. */}}"
    ]
    lines.append('{{- define "verl-grpo.rules" }}')
    for r in RULES:
        lines += [f"{{{{- if {r.when.go()} }}}}", f"{{{{- fail {r.go_message()} }}}}", "{{- end }}"]
    lines.append("{{- end }}")
    return "\n".join(lines) + "\n"
