"""constructs/network_policy.py: the release's pods reach each other, DNS, the metadata server and
HTTPS outside the cluster; only the operator reaches the head's dashboard from outside."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from verl_grpo.constructs.network_policy import egress_rules
from verl_grpo.output.dist import dist_layer
from verl_grpo.pipeline import load_spec
from verl_grpo.profiles import find_profile
from verl_grpo.values.derive import Release

from ...conftest import objects_of_kind, pods, render_one


@pytest.fixture(scope="module")
def rendering():
    return render_one()


def admits(rules: list[dict[str, Any]], ip: str, port: int, protocol: str = "TCP") -> bool:
    """NetworkPolicy's egress semantics for an address outside the cluster's pods: some rule has an
    ipBlock holding it (and no `except` of it) and lists the port, or lists no ports."""
    address = ipaddress.ip_address(ip)
    for rule in rules:
        ports = rule.get("ports")
        if ports is not None and not any(p["port"] == port and p["protocol"] == protocol for p in ports):
            continue
        for peer in rule.get("to", []):
            block = peer.get("ipBlock")
            if block and address in ipaddress.ip_network(block["cidr"]):
                if not any(address in ipaddress.ip_network(e) for e in block.get("except", [])):
                    return True
    return False


def test_the_policy_covers_every_pod_of_the_release_both_ways(rendering) -> None:
    """It selects the head and every worker, and its first rule each way is the release's own pods,
    which takes in the data-prep Job's pod too."""
    (policy,) = objects_of_kind(rendering, "NetworkPolicy")
    spec = policy["spec"]
    assert spec["policyTypes"] == ["Ingress", "Egress"]
    selector = spec["podSelector"]["matchLabels"]
    (job,) = objects_of_kind(rendering, "Job")
    templates = [pod for _, pod in pods(rendering)] + [job["spec"]["template"]]
    for template in templates:
        assert selector.items() <= template["metadata"]["labels"].items()
    own = [{"podSelector": {"matchLabels": selector}}]
    assert spec["ingress"][0] == {"from": own} and spec["egress"][0] == {"to": own}


def test_from_outside_only_the_dashboard_port_of_the_head_is_open(rendering) -> None:
    """The one ingress rule beyond the release's own pods opens the head's dashboard port (KubeRay polls
    job status there) to networkPolicy.dashboardSources only."""
    (policy,) = objects_of_kind(rendering, "NetworkPolicy")
    outside = [rule for rule in policy["spec"]["ingress"] if "ports" in rule]
    (rule,) = outside
    head = dict(pods(rendering))["head"]["spec"]["containers"][0]
    dashboard = {p["name"]: p["containerPort"] for p in head["ports"]}["dashboard"]
    assert rule["ports"] == [{"protocol": "TCP", "port": dashboard}]
    assert rule["from"] == rendering.spec.values.network_policy.dashboard_sources


def test_egress_reaches_dns_the_metadata_server_and_https_outside_the_cluster() -> None:
    """GKE's metadata server (Workload Identity tokens: 169.254.169.254:80, and 169.254.169.252:988
    on Dataplane V2), NodeLocal DNSCache and Cloud DNS on 53, any address outside
    networkPolicy.clusterCidrs on 443; nothing else outside the release's pods."""
    spec = load_spec(
        dist_layer(find_profile("b200-standard")),
        sets=["networkPolicy.clusterCidrs={10.0.0.0/8,100.64.0.0/10}"],
    )
    rules = egress_rules(spec)
    assert admits(rules, "169.254.169.254", 80) and admits(rules, "169.254.169.252", 988)
    for protocol in ("UDP", "TCP"):
        assert admits(rules, "169.254.20.10", 53, protocol) and admits(rules, "169.254.169.254", 53, protocol)
    assert admits(rules, "142.250.72.10", 443)  # a Google API address
    assert admits(rules, "172.16.0.1", 443)  # no longer a cluster range with these values
    for inside in ("10.4.0.9", "100.64.3.2"):
        assert not admits(rules, inside, 443), inside
    assert not admits(rules, "142.250.72.10", 80)
    assert not admits(rules, "8.8.8.8", 53, "UDP")  # no resolver outside the cluster's own


def test_another_release_admits_only_its_own_pods() -> None:
    """Policies of two releases in one namespace do not open either release to the other's pods."""
    spec = load_spec(dist_layer(find_profile("h200-standard")), release=Release("other", "team"))
    own = egress_rules(spec)[0]["to"][0]["podSelector"]["matchLabels"]
    assert own["app.kubernetes.io/instance"] == "other"
