"""Where each rule of the table (cross_rules.py) holds beyond the CLI and the chart: the chart
README's rules reference is generated from these and the table (chart/files.py)."""

from __future__ import annotations

# The `verl-grpo validate` rule (or other check) that catches the same defect in any manifests; a
# rule absent here has none.
VALIDATED_BY = {
    "reservation-named": "`gke-capacity-selectors`",
    "reservation-only-reserved": "`gke-capacity-selectors`",
    "group-replicas-in-bounds": "no (KubeRay's operator)",
    "ttl-needs-shutdown": "`kuberay-ttl-needs-shutdown`",
    "ray-auth-needs-kuberay": "the CRDs of your KubeRay (`--crds`)",
    "sidecar-mode-needs-kuberay": "the CRDs of your KubeRay (`--crds`)",
    "rayjob-name-length": "`kuberay-name-length`",
    "tp-divides-node": "`tp-divides-node`",
    "image-has-rollout": "the pre-flight imports the rollout backend in the image",
    "release-name": "`k8s-object-meta`",
    "worker-fits-node": "requests against the selected machine type",
    "queue-needs-shutdown": "no (Kueue's webhook)",
    "topology-level-holds-workers": "no (Kueue never admits it)",
    "queue-without-device-claims": "no (Kueue v0.19 refuses the claims)",
    "topology-needs-reservation": "no (Kueue finds no domain)",
    "queue-objects-one-machine": "no (Kueue never admits it)",
    "sub-block-holds-workers": "no (the pool's placement policy or Kueue)",
}


def rule_rows() -> list[tuple[str, str, str, str, str]]:
    """One row per rule id: id, its keys, where the CLI holds it, where Helm does, and validate's."""
    from .cross_rules import RULES

    rows = []
    for rule_id in dict.fromkeys(r.id for r in RULES):
        rules = [r for r in RULES if r.id == rule_id]
        keys = ", ".join(f"`{k}`" if "." in k else k for k in dict.fromkeys(r.key for r in rules))
        deploy_only = rules[0].deploy_only
        cli = (
            "`synth`, `env` and the scripts (not `check`, `plan`, `submit`: they deploy nothing)"
            if deploy_only
            else "yes"
        )
        helm = (
            "yes, unless `training.extraArgs` sets a key it reads"
            if rules[0].skipped_by_extra_args
            else "yes"
        )
        rows.append((rule_id, keys, cli, helm, VALIDATED_BY.get(rule_id, "no")))
    return rows
