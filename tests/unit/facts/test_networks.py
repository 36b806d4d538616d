"""facts/networks.py: VPC, subnet and Network names from one prefix, and GKE's managed DRANET."""

from __future__ import annotations

import json

from verl_grpo.facts.networks import (
    DRANET_LABEL,
    DRANET_POOL_FLAGS,
    gvnic_network,
    nic_networks,
    pod_interfaces,
    rdma_network,
)

from ...conftest import pods, render_one


def test_a_pod_gets_eth0_on_default_then_the_gvnic_then_one_interface_per_rdma_nic() -> None:
    """Interface order is the pod's eth order: eth0 default, eth1 gVNIC, eth2.. the RDMA NICs."""
    interfaces = pod_interfaces("verl", 8)
    assert [i["interfaceName"] for i in interfaces] == [f"eth{n}" for n in range(10)]
    assert [i["network"] for i in interfaces[:3]] == ["default", "verl-gvnic", "verl-rdma-0"]
    assert interfaces[-1]["network"] == "verl-rdma-7"
    assert pod_interfaces("verl", 0) == interfaces[:2]


def test_rdma_nics_share_one_vpc_with_a_subnet_each() -> None:
    """One RDMA VPC, one subnet and Network object per NIC; the gVNIC is a NetDevice network."""
    networks = nic_networks("lab", 4)
    gvnic, rdma = networks[0], networks[1:]
    assert gvnic == gvnic_network("lab") and gvnic.device_mode == "NetDevice"
    assert {n.vpc for n in rdma} == {"lab-rdma-net"} and {n.device_mode for n in rdma} == {"RDMA"}
    assert len({n.subnet for n in networks}) == len({n.name for n in networks}) == 5
    assert all(n.name.startswith("lab-") and n.vpc.startswith("lab-") for n in networks)


def test_the_chart_s_range_index_can_stand_for_the_nic_number() -> None:
    """The chart loops over NICs in Go templates: the index is spliced as given."""
    net = rdma_network("verl", "{{ $i }}")
    assert net.name == "verl-rdma-{{ $i }}" and net.subnet == "verl-rdma-sub-{{ $i }}"


def test_a_dranet_pool_is_made_with_the_auto_profile_and_the_driver_s_label() -> None:
    """GKE managed DRANET: --accelerator-network-profile=auto, node label ...dra-driver=true."""
    assert "--accelerator-network-profile=auto" in DRANET_POOL_FLAGS
    assert f"--node-labels={DRANET_LABEL}=true" in DRANET_POOL_FLAGS
    assert DRANET_LABEL == "cloud.google.com/gke-networking-dra-driver"


def test_the_rendered_workers_carry_the_interfaces_of_the_machine_s_nics() -> None:
    """The GPU workers' networking.gke.io/interfaces annotation is pod_interfaces, one per RDMA NIC."""
    from verl_grpo.facts.machines import gpu_profiles

    worker = dict(pods(render_one("network.prefix=lab")))["gpu-group"]
    annotation = json.loads(worker["metadata"]["annotations"]["networking.gke.io/interfaces"])
    assert annotation == pod_interfaces("lab", gpu_profiles()["b200"].rdma_nics)
