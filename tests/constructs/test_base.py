"""constructs/base.py: what every object the kit adds carries."""

from __future__ import annotations

import json

CLUSTER_SCOPED = {"GKENetworkParamSet", "Network", "PersistentVolume"}


def test_cluster_scoped_objects_carry_no_namespace(shipped):
    for r in shipped.values():
        for o in r.objects:
            m = o.manifest
            if m["kind"] in CLUSTER_SCOPED:
                assert "namespace" not in m["metadata"], m["metadata"]["name"]
            else:
                assert m["metadata"]["namespace"] == "default"


def test_recorded_manifests_are_what_cdk8s_synthesizes(shipped):
    """The chart's variants are recorded in Python (constructs/base.py Recorder), dist/ goes through
    cdk8s: the same objects, fields in the same order, for every shipped profile and with the
    network objects on."""
    from verl_grpo.assembly import record

    from ..conftest import render_one

    renderings = {**shipped, "network-objects": render_one("network.createObjects=true")}
    recorded = record({name: r.spec for name, r in renderings.items()})
    for name, rendering in renderings.items():
        want = [(o.key, json.dumps(o.manifest), o.includes) for o in rendering.objects]
        assert [(o.key, json.dumps(o.manifest), o.includes) for o in recorded[name]] == want, name
    assert any(o.manifest["kind"] == "Network" for o in recorded["network-objects"])
