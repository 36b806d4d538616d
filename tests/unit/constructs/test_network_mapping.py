"""constructs/network_mapping.py: the GPUDirect networks' objects, on shipped renderings and variations."""

from __future__ import annotations

import json

import pytest

from ...conftest import objects_of_kind, pods, render_one


def test_network_objects_are_left_to_the_scripts_by_default(shipped):
    """One owner: scripts/40-rdma.sh applies them; a release renders them only when asked."""
    for r in shipped.values():
        assert not objects_of_kind(r, "GKENetworkParamSet") and not objects_of_kind(r, "Network")


@pytest.mark.parametrize("profile", ["b200-standard", "h200-autopilot-raycluster"])
def test_network_mapping_pairs_and_interfaces_agree(profile):
    for r in [render_one("network.createObjects=true", profile=profile)]:
        params = objects_of_kind(r, "GKENetworkParamSet")
        networks = objects_of_kind(r, "Network")
        assert len(params) == len(networks) == 9
        modes = [p["spec"]["deviceMode"] for p in params]
        assert modes == ["NetDevice"] + ["RDMA"] * 8
        assert len({p["spec"]["vpcSubnet"] for p in params}) == 9  # one subnet per device-mode object
        for n in networks:
            assert n["spec"]["parametersRef"]["name"] in {p["metadata"]["name"] for p in params}
        worker = dict(pods(r))["gpu-group"]
        interfaces = json.loads(worker["metadata"]["annotations"]["networking.gke.io/interfaces"])
        assert interfaces[0] == {"interfaceName": "eth0", "network": "default"}
        assert [i["network"] for i in interfaces[1:]] == [n["metadata"]["name"] for n in networks]
        assert [i["interfaceName"] for i in interfaces] == [f"eth{i}" for i in range(10)]


def test_network_names_follow_one_prefix():
    r = render_one("network.prefix=lab7", "network.createObjects=true")
    params = objects_of_kind(r, "GKENetworkParamSet")
    assert {p["spec"]["vpc"] for p in params} == {"lab7-gvnic-net", "lab7-rdma-net"}
    assert all(p["metadata"]["name"].startswith("lab7-") for p in params)
