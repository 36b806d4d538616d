// netpol-engine: is this traffic allowed by these Kubernetes NetworkPolicies?
//
// The semantics are not written here: every verdict comes from cyclonus's matcher
// (github.com/mattfenwick/cyclonus/pkg/matcher, the engine the policy-assistant of
// sigs.k8s.io/network-policy-api grew from; version in go.mod). This program only turns JSON into
// the matcher's types, doing what the API server and the kubelet would do first:
//   - a policy without spec.policyTypes gets the API server's default (Ingress, plus Egress when
//     spec.egress is non-empty: SetDefaults_NetworkPolicySpec); one without a namespace is in
//     "default" (the matcher's own rule, as `kubectl apply` without -n);
//   - every namespace carries the label kubernetes.io/metadata.name=<name> (set by the API server);
//   - a traffic item's port name, when not given and the destination is a pod, is the name of the
//     destination pod's port with that number and protocol (named ports in a policy refer to the
//     destination pod's container ports, for ingress and egress alike).
//
// Where the matcher would disagree with Kubernetes, this program refuses rather than answers: every
// label selector in the policies is also evaluated with apimachinery's labels.Selector (the API
// server's) against every declared pod or namespace it could be asked about, and any difference
// (the matcher's NotIn does not match an object without the key; Kubernetes' does) exits non-zero.
//
// Input, on stdin:
//
//	{"policies": [NetworkPolicy objects, networking.k8s.io/v1],
//	 "namespaces": {"ns": {"label": "value"}},
//	 "pods": [{"name": "p", "namespace": "ns", "labels": {}, "ip": "10.0.0.5",
//	           "ports": [{"name": "dashboard", "port": 8265, "protocol": "TCP"}]}],
//	 "traffic": [{"from": {"pod": "ns/name"} | {"ip": "1.2.3.4"}, "to": {"pod": "ns/name"} | {"ip": "…"},
//	              "port": 8265, "protocol": "TCP", "portName": "dashboard"}]}
//
// protocol defaults to TCP; port may be left out when portName names a port of the destination pod.
// A pod's ip is only needed when an ipBlock rule is checked against it. An "ip" endpoint is outside
// the cluster: only the pod side's policies apply to it.
//
// Output, on stdout, one result per traffic item, in order:
//
//	{"results": [{"allowed": bool, "ingress": bool, "egress": bool,
//	              "ingressPolicies": ["ns/name"], "egressPolicies": ["ns/name"]}]}
//
// ingress: allowed by the destination's ingress policies; egress: by the source's egress policies;
// allowed: both. *Policies: the policies that select that pod in that direction (none: not isolated).
// Bad input: exit 2, with a message on stderr.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/mattfenwick/cyclonus/pkg/kube"
	"github.com/mattfenwick/cyclonus/pkg/matcher"
	v1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

const nsNameLabel = "kubernetes.io/metadata.name"

type input struct {
	Policies   []json.RawMessage            `json:"policies"`
	Namespaces map[string]map[string]string `json:"namespaces"`
	Pods       []podIn                      `json:"pods"`
	Traffic    []trafficIn                  `json:"traffic"`
}

type podIn struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	Labels    map[string]string `json:"labels"`
	IP        string            `json:"ip"`
	Ports     []portIn          `json:"ports"`
}

type portIn struct {
	Name     string `json:"name"`
	Port     int    `json:"port"`
	Protocol string `json:"protocol"`
}

type endpoint struct {
	Pod string `json:"pod"`
	IP  string `json:"ip"`
}

type trafficIn struct {
	From     endpoint `json:"from"`
	To       endpoint `json:"to"`
	Port     int      `json:"port"`
	Protocol string   `json:"protocol"`
	PortName string   `json:"portName"`
}

type result struct {
	Allowed bool `json:"allowed"`
	Ingress bool `json:"ingress"`
	Egress  bool `json:"egress"`
	// The policies (namespace/name) whose podSelector selects the destination (ingress) or the
	// source (egress) in that direction: which ones had a say. Empty: not isolated, allowed.
	IngressPolicies []string `json:"ingressPolicies"`
	EgressPolicies  []string `json:"egressPolicies"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "netpol-engine: "+format+"\n", args...)
	os.Exit(2)
}

func strictDecode(data []byte, into any) error {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(into); err != nil {
		return err
	}
	if decoder.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

func protocol(name string) (v1.Protocol, error) {
	switch p := v1.Protocol(name); p {
	case "":
		return v1.ProtocolTCP, nil
	case v1.ProtocolTCP, v1.ProtocolUDP, v1.ProtocolSCTP:
		return p, nil
	}
	return "", fmt.Errorf("protocol %q is not TCP, UDP or SCTP", name)
}

// guarded runs f, turning a panic of the matcher (its way of rejecting input) into an error.
func guarded(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}

type world struct {
	namespaces map[string]map[string]string
	pods       map[string]*podIn // by namespace/name
	podByIP    map[string]string
}

func readWorld(in *input) *world {
	w := &world{namespaces: map[string]map[string]string{}, pods: map[string]*podIn{}, podByIP: map[string]string{}}
	for ns, given := range in.Namespaces {
		if ns == "" {
			fail("namespaces: a namespace has an empty name")
		}
		nsLabels := map[string]string{}
		for k, v := range given {
			nsLabels[k] = v
		}
		if v, ok := nsLabels[nsNameLabel]; ok && v != ns {
			fail("namespaces.%s: label %s=%q, but the API server sets it to the namespace's name", ns, nsNameLabel, v)
		}
		nsLabels[nsNameLabel] = ns
		w.namespaces[ns] = nsLabels
	}
	for i := range in.Pods {
		p := &in.Pods[i]
		where := fmt.Sprintf("pods[%d]", i)
		if p.Name == "" || p.Namespace == "" {
			fail("%s: name and namespace are required", where)
		}
		key := p.Namespace + "/" + p.Name
		where = fmt.Sprintf("pods[%d] (%s)", i, key)
		if _, ok := w.namespaces[p.Namespace]; !ok {
			fail("%s: namespace %q is not declared in \"namespaces\"", where, p.Namespace)
		}
		if _, dup := w.pods[key]; dup {
			fail("%s: declared twice", where)
		}
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		if p.IP != "" {
			if net.ParseIP(p.IP) == nil {
				fail("%s: ip %q is not an IP address", where, p.IP)
			}
			if other, dup := w.podByIP[p.IP]; dup {
				fail("%s: ip %s is also pod %s's", where, p.IP, other)
			}
			w.podByIP[p.IP] = key
		}
		names := map[string]bool{}
		for j := range p.Ports {
			port := &p.Ports[j]
			proto, err := protocol(port.Protocol)
			if err != nil {
				fail("%s.ports[%d]: %v", where, j, err)
			}
			port.Protocol = string(proto)
			if port.Port < 1 || port.Port > 65535 {
				fail("%s.ports[%d]: port %d is not in 1..65535", where, j, port.Port)
			}
			if port.Name != "" {
				if names[port.Name] {
					fail("%s.ports[%d]: port name %q used twice", where, j, port.Name)
				}
				names[port.Name] = true
			}
		}
		w.pods[key] = p
	}
	return w
}

func readPolicies(raw []json.RawMessage) []*networkingv1.NetworkPolicy {
	var policies []*networkingv1.NetworkPolicy
	seen := map[string]bool{}
	for i, data := range raw {
		np := &networkingv1.NetworkPolicy{}
		if err := strictDecode(data, np); err != nil {
			fail("policies[%d]: not a NetworkPolicy: %v", i, err)
		}
		if np.APIVersion != "networking.k8s.io/v1" || np.Kind != "NetworkPolicy" {
			fail("policies[%d]: apiVersion/kind is %q/%q, not networking.k8s.io/v1/NetworkPolicy", i, np.APIVersion, np.Kind)
		}
		if np.Name == "" {
			fail("policies[%d]: metadata.name is required", i)
		}
		if np.Namespace == "" {
			np.Namespace = metav1.NamespaceDefault
		}
		key := np.Namespace + "/" + np.Name
		if seen[key] {
			fail("policies[%d]: %s given twice", i, key)
		}
		seen[key] = true
		if len(np.Spec.PolicyTypes) == 0 {
			np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
			if len(np.Spec.Egress) > 0 {
				np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
			}
		}
		where := fmt.Sprintf("policies[%d] (%s)", i, key)
		for _, t := range np.Spec.PolicyTypes {
			if t != networkingv1.PolicyTypeIngress && t != networkingv1.PolicyTypeEgress {
				fail("%s: policyType %q is not Ingress or Egress", where, t)
			}
		}
		check := func(rule string, ports []networkingv1.NetworkPolicyPort, peers []networkingv1.NetworkPolicyPeer) {
			for j, port := range ports {
				if port.Protocol != nil {
					if _, err := protocol(string(*port.Protocol)); err != nil {
						fail("%s: %s.ports[%d]: %v", where, rule, j, err)
					}
				}
			}
			for j, peer := range peers {
				if peer.IPBlock == nil {
					continue
				}
				_, cidr, err := net.ParseCIDR(peer.IPBlock.CIDR)
				if err != nil {
					fail("%s: %s.peers[%d].ipBlock.cidr: %v", where, rule, j, err)
				}
				for _, except := range peer.IPBlock.Except {
					ip, _, err := net.ParseCIDR(except)
					if err != nil {
						fail("%s: %s.peers[%d].ipBlock.except: %v", where, rule, j, err)
					}
					if !cidr.Contains(ip) {
						fail("%s: %s.peers[%d].ipBlock.except %s is not inside cidr %s", where, rule, j, except, peer.IPBlock.CIDR)
					}
				}
			}
		}
		for j, rule := range np.Spec.Ingress {
			check(fmt.Sprintf("ingress[%d]", j), rule.Ports, rule.From)
		}
		for j, rule := range np.Spec.Egress {
			check(fmt.Sprintf("egress[%d]", j), rule.Ports, rule.To)
		}
		policies = append(policies, np)
	}
	return policies
}

// agreeOnSelectors stops when the matcher's label-selector evaluation could differ from
// Kubernetes' for some declared pod or namespace.
func agreeOnSelectors(policies []*networkingv1.NetworkPolicy, w *world) {
	compare := func(where string, sel *metav1.LabelSelector, kind string, objects map[string]map[string]string) {
		if sel == nil {
			return
		}
		k8s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			fail("%s: invalid label selector: %v", where, err)
		}
		for name, objLabels := range objects {
			var ours bool
			if err := guarded(func() { ours = kube.IsLabelsMatchLabelSelector(objLabels, *sel) }); err != nil {
				fail("%s: %v", where, err)
			}
			if theirs := k8s.Matches(labels.Set(objLabels)); ours != theirs {
				fail("%s: selector %q matches %s %s in Kubernetes (%t) but not in the matcher (%t): "+
					"cannot give a faithful verdict (NotIn on a missing key?)", where, k8s.String(), kind, name, theirs, ours)
			}
		}
	}
	allPods := map[string]map[string]string{}
	for key, p := range w.pods {
		allPods[key] = p.Labels
	}
	for _, np := range policies {
		key := np.Namespace + "/" + np.Name
		podsHere := map[string]map[string]string{}
		for k, p := range w.pods {
			if p.Namespace == np.Namespace {
				podsHere[k] = p.Labels
			}
		}
		compare(key+" spec.podSelector", &np.Spec.PodSelector, "pod", podsHere)
		peers := func(rule string, list []networkingv1.NetworkPolicyPeer) {
			for j, peer := range list {
				where := fmt.Sprintf("%s %s.peers[%d]", key, rule, j)
				compare(where+".podSelector", peer.PodSelector, "pod", allPods)
				compare(where+".namespaceSelector", peer.NamespaceSelector, "namespace", w.namespaces)
			}
		}
		for j, rule := range np.Spec.Ingress {
			peers(fmt.Sprintf("ingress[%d]", j), rule.From)
		}
		for j, rule := range np.Spec.Egress {
			peers(fmt.Sprintf("egress[%d]", j), rule.To)
		}
	}
}

func (w *world) peer(where string, e endpoint) (*matcher.TrafficPeer, *podIn) {
	switch {
	case e.Pod != "" && e.IP != "":
		fail("%s: give either \"pod\" or \"ip\", not both", where)
	case e.Pod != "":
		p, ok := w.pods[e.Pod]
		if !ok {
			fail("%s: pod %q is not declared in \"pods\" (write it namespace/name)", where, e.Pod)
		}
		return &matcher.TrafficPeer{
			IP: p.IP,
			Internal: &matcher.InternalPeer{
				PodLabels:       p.Labels,
				NamespaceLabels: w.namespaces[p.Namespace],
				Namespace:       p.Namespace,
			},
		}, p
	case e.IP != "":
		if net.ParseIP(e.IP) == nil {
			fail("%s: %q is not an IP address", where, e.IP)
		}
		if pod, ok := w.podByIP[e.IP]; ok {
			fail("%s: %s is pod %s's ip: name the pod instead", where, e.IP, pod)
		}
		return &matcher.TrafficPeer{IP: e.IP}, nil
	}
	fail("%s: needs \"pod\" or \"ip\"", where)
	return nil, nil
}

func policyNames(targets ...[]*matcher.Target) []string {
	names := []string{}
	for _, list := range targets {
		for _, t := range list {
			for _, np := range t.SourceRules {
				names = append(names, np.Namespace+"/"+np.Name)
			}
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}

func main() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("reading stdin: %v", err)
	}
	var in input
	if err := strictDecode(data, &in); err != nil {
		fail("stdin is not the expected JSON object {policies, namespaces, pods, traffic}: %v", err)
	}
	w := readWorld(&in)
	policies := readPolicies(in.Policies)
	agreeOnSelectors(policies, w)

	engine := matcher.NewPolicy()
	for i, np := range policies {
		if err := guarded(func() {
			ingress, egress := matcher.BuildTarget(np)
			if ingress != nil {
				engine.AddTarget(true, ingress)
			}
			if egress != nil {
				engine.AddTarget(false, egress)
			}
		}); err != nil {
			fail("policies[%d] (%s/%s): %v", i, np.Namespace, np.Name, err)
		}
	}

	results := []result{}
	for i, t := range in.Traffic {
		where := fmt.Sprintf("traffic[%d]", i)
		src, _ := w.peer(where+".from", t.From)
		dst, dstPod := w.peer(where+".to", t.To)
		if src.Internal == nil && dst.Internal == nil {
			fail("%s: from and to are both ips outside the cluster: no policy can apply", where)
		}
		proto, err := protocol(t.Protocol)
		if err != nil {
			fail("%s: %v", where, err)
		}
		port, portName := t.Port, t.PortName
		if dstPod != nil {
			for _, p := range dstPod.Ports {
				if v1.Protocol(p.Protocol) != proto {
					continue
				}
				if portName == "" && p.Port == port {
					portName = p.Name
				}
				if portName != "" && p.Name == portName {
					if port == 0 {
						port = p.Port
					} else if port != p.Port {
						fail("%s: port %d, but %s's port %q is %d", where, port, t.To.Pod, portName, p.Port)
					}
				}
			}
			if t.PortName != "" && port == 0 {
				fail("%s: %s has no %s port named %q", where, t.To.Pod, proto, t.PortName)
			}
		} else if t.PortName != "" {
			fail("%s: portName %q, but named ports exist only on pods and the destination is an ip", where, t.PortName)
		}
		if port < 1 || port > 65535 {
			fail("%s: port %d is not in 1..65535", where, port)
		}
		traffic := &matcher.Traffic{
			Source:           src,
			Destination:      dst,
			ResolvedPort:     port,
			ResolvedPortName: portName,
			Protocol:         proto,
		}
		var verdict *matcher.AllowedResult
		if err := guarded(func() { verdict = engine.IsTrafficAllowed(traffic) }); err != nil {
			hint := ""
			if strings.Contains(err.Error(), "unable to parse IP ''") {
				hint = " (an ipBlock rule was checked against a pod without an \"ip\": give the pods one)"
			}
			fail("%s: %v%s", where, err, hint)
		}
		results = append(results, result{
			Allowed:         verdict.IsAllowed(),
			Ingress:         verdict.Ingress.IsAllowed(),
			Egress:          verdict.Egress.IsAllowed(),
			IngressPolicies: policyNames(verdict.Ingress.AllowingTargets, verdict.Ingress.DenyingTargets),
			EgressPolicies:  policyNames(verdict.Egress.AllowingTargets, verdict.Egress.DenyingTargets),
		})
	}
	out, err := json.Marshal(map[string]any{"results": results})
	if err != nil {
		fail("encoding the results: %v", err)
	}
	os.Stdout.Write(append(out, '\n'))
}
