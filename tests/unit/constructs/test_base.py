"""constructs/base.py: what every object the kit adds carries."""

from __future__ import annotations

CLUSTER_SCOPED = {"GKENetworkParamSet", "Network", "PersistentVolume"}


def test_cluster_scoped_objects_carry_no_namespace(shipped):
    for r in shipped.values():
        for o in r.objects:
            m = o.manifest
            if m["kind"] in CLUSTER_SCOPED:
                assert "namespace" not in m["metadata"], m["metadata"]["name"]
            else:
                assert m["metadata"]["namespace"] == "default"
