"""The NetworkPolicy evaluator is real: textbook cases, each answered by one engine run."""

from __future__ import annotations

import pytest

from .netpol_engine import Flow, Pod, Port, allowed, engine_error, network_policy, verdicts

NAMESPACES = {"app": {"team": "ml"}, "web": {"team": "web"}, "kube-system": {}}

HEAD = Pod("head", "app", {"role": "head"}, "10.8.0.10", (Port(8265, "dashboard"), Port(6379, "gcs")))
WORKER = Pod("worker", "app", {"role": "worker"}, "10.8.0.11")
FRONTEND = Pod("frontend", "web", {"role": "frontend"}, "10.9.0.20")
WEB_WORKER = Pod("worker", "web", {"role": "worker"}, "10.9.0.21")
COREDNS = Pod("coredns", "kube-system", {"k8s-app": "kube-dns"}, "10.0.0.10", (Port(53, "dns", "UDP"),))
PODS = (HEAD, WORKER, FRONTEND, WEB_WORKER, COREDNS)


def test_default_deny_ingress_denies_everything_into_the_namespace():
    deny = network_policy("default-deny", "app", {"podSelector": {}, "policyTypes": ["Ingress"]})
    results = verdicts(
        [deny],
        NAMESPACES,
        PODS,
        [
            Flow(WORKER, HEAD, 8265),  # same namespace
            Flow(FRONTEND, HEAD, 8265),  # another namespace
            Flow("203.0.113.7", WORKER, 443),  # outside the cluster
            Flow(HEAD, FRONTEND, 80),  # out of app: no egress policy, web not isolated
        ],
    )
    assert allowed(results) == [False, False, False, True]
    assert [(r["ingress"], r["egress"]) for r in results[:3]] == [(False, True)] * 3
    assert results[0]["ingressPolicies"] == ["app/default-deny"]
    assert results[3]["ingressPolicies"] == results[3]["egressPolicies"] == []


def test_pod_selector_allow_admits_only_matching_pods_of_the_policy_namespace():
    policy = network_policy(
        "workers-to-head",
        "app",
        {
            "podSelector": {"matchLabels": {"role": "head"}},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"role": "worker"}}}]}],
        },
    )
    results = verdicts(
        [policy],
        NAMESPACES,
        PODS,
        [
            Flow(WORKER, HEAD, 6379),
            Flow(FRONTEND, HEAD, 6379),  # wrong labels
            Flow(WEB_WORKER, HEAD, 6379),  # right labels, but a podSelector alone means this namespace
            Flow(HEAD, WORKER, 6379),  # worker is not selected by the policy: not isolated
        ],
    )
    assert allowed(results) == [True, False, False, True]


def test_namespace_selector_across_namespaces():
    both = network_policy(
        "web-workers-to-head",
        "app",
        {
            "podSelector": {"matchLabels": {"role": "head"}},
            "policyTypes": ["Ingress"],
            # one peer: namespaceSelector AND podSelector
            "ingress": [
                {
                    "from": [
                        {
                            "namespaceSelector": {"matchLabels": {"team": "web"}},
                            "podSelector": {"matchLabels": {"role": "worker"}},
                        }
                    ]
                }
            ],
        },
    )
    system = network_policy(
        "kube-system-to-head",
        "app",
        {
            "podSelector": {"matchLabels": {"role": "head"}},
            "policyTypes": ["Ingress"],
            # the API server's own namespace label
            "ingress": [
                {
                    "from": [
                        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}
                    ]
                }
            ],
        },
    )
    results = verdicts(
        [both, system],
        NAMESPACES,
        PODS,
        [
            Flow(WEB_WORKER, HEAD, 8265),
            Flow(FRONTEND, HEAD, 8265),  # web, but not a worker
            Flow(WORKER, HEAD, 8265),  # a worker, but not in web
            Flow(COREDNS, HEAD, 8265),  # any pod of kube-system
        ],
    )
    assert allowed(results) == [True, False, False, True]
    assert results[0]["ingressPolicies"] == ["app/kube-system-to-head", "app/web-workers-to-head"]


def test_port_restriction_numbered_and_named():
    numbered = network_policy(
        "dashboard-only",
        "app",
        {
            "podSelector": {"matchLabels": {"role": "head"}},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"podSelector": {}}], "ports": [{"protocol": "TCP", "port": 8265}]}],
        },
    )
    named = network_policy(
        "named-dashboard",
        "web",
        {
            "podSelector": {},
            "policyTypes": ["Ingress"],
            "ingress": [{"ports": [{"port": "dashboard"}]}],  # no from: every source
        },
    )
    web_head = Pod("head", "web", {}, "10.9.0.30", (Port(8265, "dashboard"),))
    web_other = Pod("other", "web", {}, "10.9.0.31", (Port(8265, "metrics"),))
    results = verdicts(
        [numbered, named],
        NAMESPACES,
        (*PODS, web_head, web_other),
        [
            Flow(WORKER, HEAD, 8265),
            Flow(WORKER, HEAD, 6379),
            Flow(WORKER, HEAD, 8265, "UDP"),  # the port's protocol defaults to TCP
            Flow(FRONTEND, HEAD, 8265),  # from: podSelector {} is the policy's namespace only
            Flow(WORKER, web_head, 8265),  # 8265 is web/head's "dashboard"
            Flow(WORKER, web_head, port_name="dashboard"),
            Flow(WORKER, web_other, 8265),  # same number, named "metrics" there
            Flow("198.51.100.1", web_head, 8265),
        ],
    )
    assert allowed(results) == [True, False, False, False, True, True, False, True]


def test_egress_only_dns_and_the_metadata_server():
    egress = network_policy(
        "egress-dns-metadata",
        "app",
        {
            "podSelector": {},
            "policyTypes": ["Egress"],
            "egress": [
                {
                    "to": [
                        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}
                    ],
                    "ports": [{"protocol": "UDP", "port": 53}],
                },
                {
                    "to": [{"ipBlock": {"cidr": "169.254.169.254/32"}}],
                    "ports": [{"protocol": "TCP", "port": 80}],
                },
            ],
        },
    )
    results = verdicts(
        [egress],
        NAMESPACES,
        PODS,
        [
            Flow(HEAD, COREDNS, 53, "UDP"),
            Flow(HEAD, COREDNS, 53, "TCP"),
            Flow(HEAD, "169.254.169.254", 80),
            Flow(HEAD, "169.254.169.254", 443),
            Flow(HEAD, "8.8.8.8", 443),
            Flow(HEAD, "8.8.8.8", 53, "UDP"),  # DNS, but not to kube-system
            Flow(HEAD, WORKER, 6379),  # inside the namespace too
            Flow(WORKER, HEAD, 8265),
            Flow(FRONTEND, HEAD, 8265),  # egress policies bind their own pods only
        ],
    )
    assert allowed(results) == [True, False, True, False, False, False, False, False, True]
    assert [(r["ingress"], r["egress"]) for r in results[6:8]] == [(True, False), (True, False)]
    assert results[4]["egressPolicies"] == ["app/egress-dns-metadata"]


def test_ip_block_with_except():
    ingress = network_policy(
        "from-the-vpc-but-one-subnet",
        "app",
        {
            "podSelector": {"matchLabels": {"role": "head"}},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"ipBlock": {"cidr": "172.16.0.0/12", "except": ["172.20.0.0/16"]}}]}],
        },
    )
    egress = network_policy(
        "anywhere-but-metadata",
        "app",
        {
            "podSelector": {"matchLabels": {"role": "worker"}},
            "policyTypes": ["Egress"],
            "egress": [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["169.254.169.254/32"]}}]}],
        },
    )
    results = verdicts(
        [ingress, egress],
        NAMESPACES,
        PODS,
        [
            Flow("172.16.4.5", HEAD, 8265),
            Flow("172.20.4.5", HEAD, 8265),  # in the except
            Flow("192.168.1.1", HEAD, 8265),  # outside the cidr
            Flow(WORKER, "8.8.8.8", 443),
            Flow(WORKER, "169.254.169.254", 80),
        ],
    )
    assert allowed(results) == [True, False, False, True, False]


def test_a_pod_no_policy_selects_is_allowed_both_ways():
    policies = [
        network_policy("deny-web", "web", {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}),
        network_policy(
            "deny-app-head",
            "app",
            {"podSelector": {"matchLabels": {"role": "head"}}, "policyTypes": ["Ingress", "Egress"]},
        ),
    ]
    results = verdicts(
        policies,
        NAMESPACES,
        PODS,
        [
            Flow(WORKER, COREDNS, 53, "UDP"),
            Flow(COREDNS, WORKER, 9000),
            Flow(WORKER, "8.8.8.8", 443),
            Flow("8.8.8.8", WORKER, 443),
            Flow(WORKER, HEAD, 8265),  # the other pod of app is isolated
            Flow(WORKER, FRONTEND, 80),  # and so is all of web
        ],
    )
    assert allowed(results) == [True, True, True, True, False, False]
    assert all(r["ingressPolicies"] == r["egressPolicies"] == [] for r in results[:4])


def test_policies_add_up_and_policy_types_default_like_the_api_server():
    deny = network_policy("default-deny", "app", {"podSelector": {}, "policyTypes": ["Ingress"]})
    # no policyTypes, egress rules: Ingress (with no rule: deny) and Egress
    untyped = network_policy(
        "untyped",
        "app",
        {"podSelector": {"matchLabels": {"role": "worker"}}, "egress": [{"ports": [{"port": 6379}]}]},
    )
    allow = network_policy(
        "allow-gcs",
        "app",
        {"podSelector": {"matchLabels": {"role": "head"}}, "ingress": [{"ports": [{"port": "gcs"}]}]},
    )
    results = verdicts(
        [deny, untyped, allow],
        NAMESPACES,
        PODS,
        [
            Flow(WORKER, HEAD, 6379),  # deny-all plus allow-gcs: allowed
            Flow(WORKER, HEAD, 8265),  # egress of worker: 6379 only
            Flow(HEAD, WORKER, 6379),  # worker's ingress: the untyped policy isolates it too
        ],
    )
    assert allowed(results) == [True, False, False]
    assert results[1]["egress"] is False
    assert results[2]["ingressPolicies"] == ["app/default-deny", "app/untyped"]


@pytest.mark.parametrize(
    "policy, pods, flow, message",
    [
        (
            network_policy("typo", "app", {"podSelecter": {}}),
            PODS,
            Flow(WORKER, HEAD, 80),
            'unknown field "podSelecter"',
        ),
        (None, (*PODS, Pod("x", "nowhere")), Flow(WORKER, HEAD, 80), 'namespace "nowhere" is not declared'),
        (None, PODS, Flow(WORKER, "app/ghost", 80), 'pod "app/ghost" is not declared'),
        (None, PODS, Flow(WORKER, HEAD, port_name="metrics"), 'no TCP port named "metrics"'),
        # Kubernetes' NotIn matches a pod without the key; the matcher's does not: refuse.
        (
            network_policy(
                "notin",
                "app",
                {
                    "podSelector": {
                        "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["x"]}]
                    },
                    "policyTypes": ["Ingress"],
                },
            ),
            PODS,
            Flow(WORKER, HEAD, 80),
            "cannot give a faithful verdict",
        ),
    ],
    ids=["unknown-field", "undeclared-namespace", "undeclared-pod", "unknown-port-name", "notin"],
)
def test_bad_input_is_refused_with_a_message(policy, pods, flow, message):
    assert message in engine_error([policy] if policy else [], NAMESPACES, pods, [flow])
