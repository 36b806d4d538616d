#!/usr/bin/env python3
"""A stand-in for gcloud, kubectl and curl that cannot reach a cloud: it records every call,
keeps state (what exists) and fails on demand.

    FAKE_STATE=dir      calls.jsonl (one call per line) and state.json live here
    FAKE_FAIL_AT=N      the Nth mutating call fails (exit 1), counted across the whole run
    FAKE_PROJECT_NUMBER project number `gcloud projects describe` prints (default 123456789012)
    FAKE_FORWARD_TO     host:port `kubectl port-forward` really forwards to (a local Ray dashboard);
                        the Services it can find are state.json's "services" ({namespace, name, labels})
    FAKE_GKE_VERSIONS   what `gcloud container get-server-config` lists for any channel (';'-separated)
    FAKE_SUB_BLOCKS     a reservation's healthy sub-blocks, "BLOCK/SUB/COUNT/IN_USE ..." (any reservation):
                        what `compute reservations blocks list` and `sub-blocks list --block-name` print
    FAKE_NO_CREDENTIALS every gcloud call fails as gcloud does without an account
    FAKE_TAMPERED       `curl` serves each file with one byte more (not the bytes a release pins)
    FAKE_KUBERAY        the KubeRay release of GKE's Ray add-on (default: kuberay.py's DEFAULT_VERSION):
                        `kubectl get crd rayclusters.ray.io rayjobs.ray.io -o yaml` prints CRDs with that
                        release's own fields (data/kuberay-crd-fields.json) once a cluster exists
    FAKE_BUCKETS        a folder whose subfolders are buckets' contents: `gcloud storage cp --recursive
                        gs://B/PREFIX/* DEST` copies from FAKE_BUCKETS/B/PREFIX (a read)
    state.json's "configmaps" ({"ns/name": data}) answers `kubectl get configmap -o jsonpath={.data.KEY}`,
    its "secrets" ({"ns/name": data, base64 values}) `kubectl get secret -o jsonpath={.data.KEY}`,
    its "outputs" ({"get events": text}) what `kubectl get events ...` prints

`kubectl apply -f FILE` records each object it reads (kind, name, its YAML) in state.json's
"applied", keyed kind/namespace/name, as the API server would keep them; URLs are recorded as is.
`kubectl get configmap NAME -n NS -o json` prints an applied ConfigMap; applying one again merges
its data (server-side apply by another field manager keeps the keys it does not name).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import socketserver
import sys
import threading
from pathlib import Path

READ_VERBS = {"describe", "get", "ls", "get-iam-policy", "list", "get-credentials", "version"}
GCLOUD_VERBS = {
    "create",
    "create-auto",
    "describe",
    "delete",
    "add-iam-policy-binding",
    "remove-iam-policy-binding",
    "get-iam-policy",
    "get-credentials",
    "ls",
    "rsync",
    "rm",
    "cp",
    "get-server-config",
    "list",
}
REPO = Path(__file__).resolve().parents[2]
DEFAULT_GKE_VERSIONS = "1.33.5-gke.1162000;1.34.1-gke.1431000;1.33.0-gke.1000000"


def positional(args: list[str]) -> list[str]:
    return [a for a in args if not a.startswith("-")]


def flag(args: list[str], name: str) -> str | None:
    for a in args:
        if a.startswith(f"--{name}="):
            return a.split("=", 1)[1]
    return None


class Cloud:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.state_file = root / "state.json"
        self.state = (
            json.loads(self.state_file.read_text())
            if self.state_file.exists()
            else {"resources": [], "iam": [], "objects": [], "mutations": 0}
        )

    def save(self) -> None:
        self.state_file.write_text(json.dumps(self.state, indent=1))

    def record(self, tool: str, args: list[str]) -> None:
        with (self.root / "calls.jsonl").open("a") as f:
            f.write(json.dumps({"tool": tool, "args": args}) + "\n")

    def mutate(self) -> None:
        self.state["mutations"] += 1
        fail_at = int(os.environ.get("FAKE_FAIL_AT", "0"))
        if fail_at and self.state["mutations"] == fail_at:
            self.save()
            sys.exit(f"fake: injected failure at mutating call {fail_at}")

    def add(self, key: str) -> None:
        if key in self.state["resources"]:
            sys.exit(f"ERROR: {key} already exists")
        self.state["resources"].append(key)

    def drop(self, key: str) -> None:
        if key not in self.state["resources"]:
            sys.exit(f"ERROR: {key} not found")
        self.state["resources"].remove(key)


def gcloud(cloud: Cloud, args: list[str]) -> int:
    words = positional(args)
    if words[:2] == ["auth", "print-access-token"]:
        if os.environ.get("FAKE_NO_CREDENTIALS"):
            print(
                "ERROR: (gcloud.auth.print-access-token) "
                "You do not currently have an active account selected.",
                file=sys.stderr,
            )
            return 1
        print("fake-token")
        return 0
    if os.environ.get("FAKE_NO_CREDENTIALS"):  # as gcloud: every call that needs an account fails
        command = ".".join(w for w in words[:3] if not w.startswith("-"))
        selected = "You do not currently have an active account selected."
        print(f"ERROR: (gcloud.{command}) {selected}", file=sys.stderr)
        return 1
    if words[0] in ("alpha", "beta"):  # a release track, not part of the resource's name
        words = words[1:]
    verb_at = next(i for i, w in enumerate(words) if w in GCLOUD_VERBS or (w == "describe"))
    verb, group = words[verb_at], " ".join(words[:verb_at])
    # `compute resource-policies create workload-policy NAME`: the policy's type comes first.
    typed = group == "compute resource-policies" and verb == "create"
    name = words[verb_at + 1 + typed] if len(words) > verb_at + 1 + typed else ""
    if group == "projects" and verb == "describe":
        print(os.environ.get("FAKE_PROJECT_NUMBER", "123456789012"))
        return 0
    if group in ("compute reservations blocks", "compute reservations sub-blocks") and verb == "list":
        rows = [s.split("/") for s in os.environ.get("FAKE_SUB_BLOCKS", "").split()]
        if group.endswith(" blocks"):
            print("\n".join(dict.fromkeys(block for block, *_ in rows)))
        else:
            block = flag(args, "block-name")
            print("\n".join(f"{sub},{count},{used}" for b, sub, count, used in rows if b == block))
        return 0
    if group == "compute regions" and verb == "describe":  # its quotas, as --format=json prints them
        quotas = [q.replace("/", "=").split("=") for q in os.environ.get("FAKE_QUOTAS", "").split()]
        rows = [{"metric": m, "limit": float(limit), "usage": float(used)} for m, limit, used in quotas]
        print(json.dumps({"name": name, "quotas": rows}))
        return 0
    if verb == "get-server-config":
        print(os.environ.get("FAKE_GKE_VERSIONS", DEFAULT_GKE_VERSIONS))
        return 0
    if group == "container clusters" and verb == "get-credentials":
        return 0 if f"container clusters {name}" in cloud.state["resources"] else 1
    key = f"{group} {name}"
    if verb == "describe":
        return 0 if key in cloud.state["resources"] else 1
    if verb == "storage ls" or (group == "storage" and verb == "ls"):
        # An object by its name, or a folder (prefix) that holds one.
        return (
            0 if any(o == name or o.startswith(name.rstrip("/") + "/") for o in cloud.state["objects"]) else 1
        )
    if group == "storage" and verb == "cp" and name.startswith("gs://") and "FAKE_BUCKETS" in os.environ:
        return fetch_objects(name, words[verb_at + 2])
    if verb == "get-iam-policy":
        bindings = [{"role": role, "members": [m]} for b, m, role in cloud.state["iam"] if b == name]
        print(json.dumps({"bindings": bindings}))
        return 0
    cloud.mutate()
    if verb in ("create", "create-auto"):
        cloud.add(f"{'container clusters' if verb == 'create-auto' else group} {name}")
    elif verb == "delete":
        cloud.drop(key)
    elif verb == "rm":
        cloud.drop(f"storage buckets {name}")
        # rm --recursive takes the managed folders too unless --exclude-managed-folders
        # (https://cloud.google.com/sdk/gcloud/reference/storage/rm)
        prefix = f"storage managed-folders {name.rstrip('/')}/"
        cloud.state["resources"] = [r for r in cloud.state["resources"] if not r.startswith(prefix)]
        cloud.state["objects"] = [o for o in cloud.state["objects"] if not o.startswith(name)]
    elif verb == "rsync":  # every file of the source, as objects under the destination
        source, dest = Path(words[verb_at + 1]), words[verb_at + 2].rstrip("/")
        files = sorted(p for p in source.rglob("*") if p.is_file() and ".git" not in p.parts)
        cloud.state["objects"] += [f"{dest}/{p.relative_to(source)}" for p in files]
    elif verb == "cp":
        cloud.state["objects"].append(words[verb_at + 2])
    elif verb == "add-iam-policy-binding":
        cloud.state["iam"].append([name, flag(args, "member"), flag(args, "role")])
    elif verb == "remove-iam-policy-binding":
        cloud.state["iam"].remove([name, flag(args, "member"), flag(args, "role")])
    return 0


def fetch_objects(url: str, dest: str) -> int:
    """`gcloud storage cp --recursive gs://B/PREFIX/* DEST`: what is under PREFIX, into DEST."""
    source = Path(os.environ["FAKE_BUCKETS"]) / url.removeprefix("gs://").removesuffix("/*")
    if not source.is_dir():
        no_match = "The following URLs matched no objects or files"
        print(f"ERROR: (gcloud.storage.cp) {no_match}:\n-{url}", file=sys.stderr)
        return 1
    shutil.copytree(source, dest, dirs_exist_ok=True)
    return 0


def option(args: list[str], name: str) -> str | None:
    return next((args[i + 1] for i, a in enumerate(args[:-1]) if a == name), None)


def services(cloud: Cloud, namespace: str, selector: str) -> list[dict]:
    wanted = dict(term.split("=", 1) for term in selector.split(",") if term)
    return [
        s
        for s in cloud.state.get("services", [])
        if s["namespace"] == namespace and all(s["labels"].get(k) == v for k, v in wanted.items())
    ]


def port_forward(cloud: Cloud, namespace: str, target: str) -> int:
    """Listen on a free local port and pipe every connection to FAKE_FORWARD_TO, as kubectl would."""
    name = target.removeprefix("svc/")
    if not any(s["name"] == name for s in services(cloud, namespace, "")):
        print(f'Error from server (NotFound): services "{name}" not found', file=sys.stderr)
        return 1
    host, port = os.environ["FAKE_FORWARD_TO"].rsplit(":", 1)
    cloud.save()  # the process runs until killed: record the call now

    class Pipe(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            upstream = socket.create_connection((host, int(port)))

            def copy(src: socket.socket, dst: socket.socket) -> None:
                try:
                    while data := src.recv(65536):
                        dst.sendall(data)
                except OSError:
                    pass
                finally:
                    dst.close()

            threading.Thread(target=copy, args=(upstream, self.request), daemon=True).start()
            copy(self.request, upstream)

    socketserver.ThreadingTCPServer.daemon_threads = True
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), Pipe) as server:
        print(f"Forwarding from 127.0.0.1:{server.server_address[1]} -> 8265", flush=True)
        server.serve_forever()
    return 0


def kubectl(cloud: Cloud, args: list[str]) -> int:
    words = positional(args)
    verb = words[0]
    namespace = option(args, "-n") or "default"
    output = option(args, "-o") or next((a[3:] for a in args if a.startswith("-o=")), "")
    if verb == "get" and words[1] == "configmap" and output == "json":
        # An object `kubectl apply -f` recorded, as the API server returns it.
        doc = cloud.state.get("applied", {}).get(f"ConfigMap/{namespace}/{words[2]}")
        if doc is None:
            print(f'Error from server (NotFound): configmaps "{words[2]}" not found', file=sys.stderr)
            return 1
        print(json.dumps(doc))
        return 0
    if verb == "get" and option(args, "-l") is not None:
        found = services(cloud, namespace, option(args, "-l") or "")
        items = [{"metadata": {"name": s["name"], "labels": s["labels"]}} for s in found]
        print(json.dumps({"items": items}))
        return 0
    if verb == "port-forward":
        return port_forward(cloud, namespace, words[-2])
    if verb == "get" and words[1] in ("configmap", "secret") and output.startswith("jsonpath={.data."):
        # `-o jsonpath='{.data.runtime-env\.yaml}'`: one key of state.json's "configmaps" / "secrets".
        key = output.removeprefix("jsonpath={.data.").removesuffix("}").replace("\\.", ".")
        data = cloud.state.get(f"{words[1]}s", {}).get(f"{namespace}/{words[2]}")
        if data is None or key not in data:
            print(f'Error from server (NotFound): {words[1]}s "{words[2]}" not found', file=sys.stderr)
            return 1
        sys.stdout.write(data[key])
        return 0
    if verb == "get" and words[1] == "crd":
        return kuberay_crds(cloud, words[2:])
    if verb == "get" and " ".join(words[:2]) in cloud.state.get("outputs", {}):
        sys.stdout.write(cloud.state["outputs"][" ".join(words[:2])])  # a canned answer (events, lists)
        return 0
    if verb == "get" and words[1] == "namespace":
        return 0 if namespace_exists(cloud, words[2]) else 1
    if verb == "get":
        return 0 if k8s_key(words[1], namespace, words[2]) in cloud.state["resources"] else 1
    if verb == "create" and words[1] != "namespace" and not namespace_exists(cloud, namespace):
        print(f'Error from server (NotFound): namespaces "{namespace}" not found', file=sys.stderr)
        return 1  # as the API server: a namespaced object needs its namespace
    cloud.mutate()
    if verb == "apply":
        record_applied(cloud, args)
    if verb == "create":
        kind = words[1]
        name = words[3] if kind == "secret" else words[2]
        for a in args:  # read what --from-file points at, as kubectl would (the content is not recorded)
            if a.startswith("--from-file=") and a.split("=", 2)[-1] == "/dev/stdin":
                sys.stdin.read()
        cloud.add(k8s_key(kind, namespace, name))
    return 0


# The namespaces a cluster starts with (kubectl get namespaces on a new cluster).
BUILT_IN_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


def k8s_key(kind: str, namespace: str, name: str) -> str:
    """A Kubernetes object as state.json keeps it (a namespace by its name alone)."""
    return f"k8s namespace {name}" if kind == "namespace" else f"k8s {kind} {namespace}/{name}"


def namespace_exists(cloud: Cloud, name: str) -> bool:
    return name in BUILT_IN_NAMESPACES or k8s_key("namespace", "", name) in cloud.state["resources"]


def kuberay_crds(cloud: Cloud, names: list[str]) -> int:
    """The Ray add-on's CRDs as a List, each with the release's own fields under spec (nothing
    deeper: the check reads no more, facts/kuberay_crds.py)."""
    import yaml

    if not any(r.startswith("container clusters ") for r in cloud.state["resources"]):
        print(
            "Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io "
            f'"{names[0]}" not found',
            file=sys.stderr,
        )
        return 1
    repo = REPO / "cdk8s" / "verl_grpo"
    default = re.search(r'DEFAULT_VERSION = "([^"]+)"', (repo / "facts" / "kuberay.py").read_text()).group(1)
    data = json.loads((repo / "data" / "kuberay-crd-fields.json").read_text())
    fields = data["fields"][data["versions"][os.environ.get("FAKE_KUBERAY") or default]]
    items = []
    for plural, kind in (("rayclusters", "RayCluster"), ("rayjobs", "RayJob")):
        spec: dict = {}
        for path in fields:
            head, _, rest = path.partition(".spec.")
            if head != plural:
                continue
            node = spec
            for part in rest.split("."):
                node = node.setdefault("properties", {}).setdefault(part, {})
        schema = {"properties": {"spec": spec}}
        items.append(
            {
                "kind": "CustomResourceDefinition",
                "metadata": {"name": f"{plural}.ray.io"},
                "spec": {
                    "group": "ray.io",
                    "names": {"kind": kind},
                    "versions": [{"name": "v1", "schema": {"openAPIV3Schema": schema}}],
                },
            }
        )
    print(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return 0


def record_applied(cloud: Cloud, args: list[str]) -> None:
    import yaml  # the fakes run with the project's venv on PATH

    applied = cloud.state.setdefault("applied", {})
    for i, a in enumerate(args[:-1]):
        if a != "-f":
            continue
        source = args[i + 1]
        if "://" in source:
            applied[source] = None
            continue
        docs = [d for d in yaml.safe_load_all(Path(source).read_text()) if d]
        # A List is applied as its items (kubectl's own unpacking).
        for doc in (i for d in docs for i in (d["items"] if d["kind"] == "List" else [d])):
            meta = doc["metadata"]
            key = f"{doc['kind']}/{meta.get('namespace', '')}/{meta['name']}"
            if doc["kind"] == "ConfigMap" and key in applied:
                doc = {**doc, "data": {**applied[key].get("data", {}), **doc.get("data", {})}}
            applied[key] = doc


# Where `curl --output FILE URL` finds the files the kit downloads, by the URL's last part: the verl
# wheels `make oracle` downloads from PyPI, and verl's GSM8K script (tests/data/verl/README.md).
DOWNLOADS = (REPO / ".cache" / "verl-downloads", REPO / "tests" / "data" / "verl")


def curl(cloud: Cloud, args: list[str]) -> int:
    url, output = args[-1], args[args.index("--output") + 1]
    name = url.rsplit("/", 1)[-1]
    found = [folder / name for folder in DOWNLOADS if (folder / name).is_file()]
    if not found:
        print(
            f"curl: (22) The requested URL returned error: 404 ({url}; `make oracle` gets the wheels)",
            file=sys.stderr,
        )
        return 22
    tampered = b"\n" if os.environ.get("FAKE_TAMPERED") else b""
    Path(output).write_bytes(found[0].read_bytes() + tampered)
    return 0


def main() -> int:
    tool, args = Path(sys.argv[0]).name, sys.argv[1:]
    root = Path(os.environ["FAKE_STATE"])
    root.mkdir(parents=True, exist_ok=True)
    cloud = Cloud(root)
    cloud.record(tool, args)
    try:
        return {"gcloud": gcloud, "kubectl": kubectl, "curl": curl}[tool](cloud, args)
    finally:
        cloud.save()


if __name__ == "__main__":
    sys.exit(main())
