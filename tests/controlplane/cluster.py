"""Start a real Kubernetes control plane plus the KubeRay operator on loopback, from the build cache.

    with ControlPlane.start() as cp:
        cp.kubectl("get", "nodes")

What runs (binaries from ``build.py``): etcd, kube-apiserver, kube-controller-manager,
kube-scheduler and the KubeRay operator, each in its own process group, logging to a file in a
temporary folder. There is no kubelet: tests create Node objects themselves, and pods are bound
by the scheduler but never run.

The apiserver flags follow envtest (sigs.k8s.io/controller-runtime
pkg/internal/testing/controlplane/apiserver.go@v0.22.4, ``defaultArgs``); the rest is what the
controller-manager, scheduler and operator need to run against it without leader election and
without any fixed port. Every process started is stopped on ``stop()``, on leaving the ``with``
block, at interpreter exit (atexit), and — through PR_SET_PDEATHSIG — when the Python process
itself is killed.
"""

from __future__ import annotations

import atexit
import base64
import ctypes
import datetime as dt
import ipaddress
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TypeVar

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from .build import KWOK_STAGES, REPO, ensure_built, kuberay_versions

KUBECTL_CANDIDATES = (REPO / ".venv" / "bin" / "kubectl",)
LOOPBACK = "127.0.0.1"
SERVICE_CIDR = "10.0.0.0/24"  # envtest's default (apiserver.go@v0.22.4)
START_TIMEOUT_S = 120.0
# The annotation kwok's own manifests select the nodes it plays the kubelet for by
# (kustomize/kwok/kwok.yaml@v0.8.0: manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake).
KWOK_ANNOTATION = "kwok.x-k8s.io/node"
STOP_TIMEOUT_S = 10.0
T = TypeVar("T")


class ControlPlaneError(RuntimeError):
    """A component failed to start (the message carries its log tail) or a kubectl call failed."""


# --- certificates -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pki:
    """Files of the throw-away PKI: one CA signs the serving cert and the admin client cert."""

    ca_crt: Path
    serving_crt: Path
    serving_key: Path
    admin_crt: Path
    admin_key: Path
    sa_key: Path  # signs service-account tokens
    sa_pub: Path  # verifies them


CA_KEY_USAGE = x509.KeyUsage(
    digital_signature=True,
    content_commitment=False,
    key_encipherment=False,
    data_encipherment=False,
    key_agreement=False,
    key_cert_sign=True,
    crl_sign=True,
    encipher_only=False,
    decipher_only=False,
)


def _new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _write_key(key: rsa.RSAPrivateKey, path: Path) -> None:
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path.write_bytes(pem)
    path.chmod(0o600)


def _cert_builder(
    subject: x509.Name,
    issuer: x509.Name,
    public_key: rsa.RSAPublicKey,
    valid: dt.timedelta = dt.timedelta(days=1),
) -> x509.CertificateBuilder:
    now = dt.datetime.now(dt.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + valid)
    )


def _name(cn: str, org: str | None = None) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    if org:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(attrs)


# Kueue's names as its kustomize install gives them (config/components/*@v0.19.2, prefix kueue-).
KUEUE_NAMESPACE = "kueue-system"
KUEUE_SERVICE = "kueue-webhook-service"
KUEUE_SECRET = "kueue-webhook-server-cert"
# The CRDs whose conversion webhook Kueue's rotator injects its CA into (cert.go@v0.19.2).
KUEUE_CONVERTED = ("localqueues", "clusterqueues", "workloads", "cohorts", "multikueueclusters")
KUEUE_WEBHOOK_GROUPS = {"kueue.x-k8s.io", "ray.io"}  # of all its webhooks, the ones the tests need


def kueue_certificates(service_dns: str) -> tuple[bytes, bytes, bytes, bytes]:
    """CA and serving pair Kueue's rotator accepts as its own (rotator.go@v0.16.0 ValidCert and
    buildArtifactsFromSecret: the CA named kueue-ca, PKCS#1 keys, valid past the 90-day look-ahead);
    the serving name also 127.0.0.1, where the API server calls it. PEM: CA, CA key, cert, key."""

    def pkcs1(key: rsa.RSAPrivateKey) -> bytes:
        return key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )

    year = dt.timedelta(days=365)
    ca_key, ca_name = _new_key(), _name("kueue-ca", "kueue")
    ca = (
        _cert_builder(ca_name, ca_name, ca_key.public_key(), year)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(CA_KEY_USAGE, critical=True)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("kueue-ca")]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = _new_key()
    sans = [x509.DNSName(service_dns), x509.IPAddress(ipaddress.ip_address(LOOPBACK))]
    cert = (
        _cert_builder(_name(service_dns), ca_name, key.public_key(), year)
        .add_extension(x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    return ca.public_bytes(pem), pkcs1(ca_key), cert.public_bytes(pem), pkcs1(key)


def provisioning_request_tool() -> ModuleType:
    """tools/provisioning_request_crd.py, which fetches and caches the ProvisioningRequest CRD."""
    tools = str(REPO / "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import provisioning_request_crd

    return provisioning_request_crd


def make_pki(directory: Path) -> Pki:
    """Write a CA, the apiserver serving pair, an admin client pair and the service-account pair."""
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = _new_key()
    ca_name = _name("controlplane-test-ca")
    ca = (
        _cert_builder(ca_name, ca_name, ca_key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(CA_KEY_USAGE, critical=True)
        .sign(ca_key, hashes.SHA256())
    )

    def leaf(
        subject: x509.Name, usage: x509.ObjectIdentifier, sans: list[x509.GeneralName]
    ) -> tuple[x509.Certificate, rsa.RSAPrivateKey]:
        key = _new_key()
        builder = _cert_builder(subject, ca_name, key.public_key()).add_extension(
            x509.ExtendedKeyUsage([usage]), critical=False
        )
        if sans:
            builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        return builder.sign(ca_key, hashes.SHA256()), key

    # The in-cluster name and the first service IP (10.0.0.1) are in the SANs as a real cluster has them.
    serving, serving_key = leaf(
        _name("kube-apiserver"),
        x509.ExtendedKeyUsageOID.SERVER_AUTH,
        [
            x509.DNSName("localhost"),
            x509.DNSName("kubernetes.default.svc"),
            x509.IPAddress(ipaddress.ip_address(LOOPBACK)),
            x509.IPAddress(next(ipaddress.ip_network(SERVICE_CIDR).hosts())),
        ],
    )
    # O=system:masters: the group RBAC always allows (envtest's "default" user, plane.go@v0.22.4).
    admin, admin_key = leaf(_name("admin", "system:masters"), x509.ExtendedKeyUsageOID.CLIENT_AUTH, [])
    sa_key = _new_key()

    names = ("ca.crt", "apiserver.crt", "apiserver.key", "admin.crt", "admin.key", "sa.key", "sa.pub")
    pki = Pki(*(directory / n for n in names))
    pki.ca_crt.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    pki.serving_crt.write_bytes(serving.public_bytes(serialization.Encoding.PEM))
    _write_key(serving_key, pki.serving_key)
    pki.admin_crt.write_bytes(admin.public_bytes(serialization.Encoding.PEM))
    _write_key(admin_key, pki.admin_key)
    _write_key(sa_key, pki.sa_key)
    pki.sa_pub.write_bytes(
        sa_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return pki


def write_kubeconfig(path: Path, server: str, pki: Pki) -> None:
    """A kubeconfig for the admin user; file paths, not inline data, so it stays readable."""
    path.write_text(
        f"""apiVersion: v1
kind: Config
clusters:
- name: controlplane
  cluster:
    server: {server}
    certificate-authority: {pki.ca_crt}
users:
- name: admin
  user:
    client-certificate: {pki.admin_crt}
    client-key: {pki.admin_key}
contexts:
- name: controlplane
  context: {{cluster: controlplane, user: admin}}
current-context: controlplane
"""
    )


# --- processes ----------------------------------------------------------------------------------


def free_port() -> int:
    """A loopback port free right now (the kernel picks it); the tiny race is acceptable in tests."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:
    """Run in the child before exec: new process group, and SIGKILL when the parent dies."""
    os.setpgrp()
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1 (linux/prctl.h)
    except OSError:
        pass  # not Linux/glibc: the atexit hook still stops it


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """SIGTERM the whole process group, then SIGKILL what is left after ``timeout``."""
        if self.popen.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        # Also when the leader is gone: anything it forked is still in the group.
        self._signal(signal.SIGKILL)
        self.popen.wait()

    def _signal(self, sig: signal.Signals) -> None:
        try:
            os.killpg(self.popen.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def wait_until(
    what: str, check: Callable[[], bool], procs: Sequence[Proc], timeout: float = START_TIMEOUT_S
) -> None:
    """Poll ``check`` until true; fail early, with its log, if one of ``procs`` exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in procs:
            if p.popen.poll() is not None:
                raise ControlPlaneError(
                    f"{p.name} exited with {p.popen.returncode} while waiting for {what}:\n{p.tail()}"
                )
        if check():
            return
        time.sleep(0.25)
    logs = "\n".join(f"--- {p.name} ---\n{p.tail(15)}" for p in procs)
    raise ControlPlaneError(f"timed out after {timeout:.0f}s waiting for {what}\n{logs}")


def https_ok(url: str, context: ssl.SSLContext) -> bool:
    try:
        with urllib.request.urlopen(url, context=context, timeout=2) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _insecure_context() -> ssl.SSLContext:
    # The controller-manager's and scheduler's /healthz use certificates they make up themselves.
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def find_kubectl() -> Path:
    for candidate in KUBECTL_CANDIDATES:
        if candidate.is_file():
            return candidate
    found = shutil.which("kubectl")
    if found is None:
        raise ControlPlaneError("kubectl not found: run `make tools` (installs .venv/bin/kubectl)")
    return Path(found)


# --- the control plane --------------------------------------------------------------------------


@dataclass
class ControlPlane:
    """A running control plane; use ``ControlPlane.start()`` as a context manager."""

    workdir: Path
    binaries: dict[str, Path]
    crd_dir: Path
    kubectl_path: Path
    keep_workdir: bool = False
    kubeconfig: Path = field(init=False)
    server: str = ""
    procs: list[Proc] = field(default_factory=list)
    started_seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)  # start-up seconds per phase
    kuberay_version: str = ""  # the operator's version, as kuberay.version spells it

    def __post_init__(self) -> None:
        self.kubeconfig = self.workdir / "kubeconfig"

    @classmethod
    @contextmanager
    def start(cls, keep_workdir: bool | None = None, kuberay: str | None = None) -> Iterator[ControlPlane]:
        """Build (if needed) and start everything; stop everything when the block ends, however it ends.

        ``kuberay``: the operator version to run (one of build.kuberay_versions()), its own CRDs
        installed; the default operator otherwise."""
        dirs = ensure_built()
        operator = dirs["ray-operator" if kuberay is None else f"ray-operator@{kuberay}"]
        if keep_workdir is None:
            keep_workdir = os.environ.get("CONTROLPLANE_KEEP_WORKDIR") == "1"
        cp = cls(
            kuberay_version=kuberay or kuberay_versions()[0],
            workdir=Path(tempfile.mkdtemp(prefix="controlplane-")),
            binaries={
                **{name: d / name for name, d in dirs.items() if "@" not in name},
                "ray-operator": operator / "ray-operator",
            },
            crd_dir=operator / "crds",
            kubectl_path=find_kubectl(),
            keep_workdir=keep_workdir,
        )
        atexit.register(cp.stop)
        try:
            cp._boot()
            yield cp
        finally:
            cp.stop()
            atexit.unregister(cp.stop)

    # -- helpers for tests --

    def kubectl(self, *args: str, stdin: str | None = None, check: bool = True, timeout: float = 120) -> str:
        """Run kubectl against this cluster; return stdout, raise with stderr on failure."""
        proc = subprocess.run(
            [str(self.kubectl_path), "--kubeconfig", str(self.kubeconfig), *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and proc.returncode != 0:
            raise ControlPlaneError(
                f"kubectl {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}"
            )
        return proc.stdout

    def log(self, name: str) -> str:
        """Everything a component has logged so far (for assertions and failure messages)."""
        return next(p for p in self.procs if p.name == name).log.read_text(errors="replace")

    # -- start-up --

    def _spawn(self, name: str, args: list[str], env: dict[str, str] | None = None) -> Proc:
        log = self.workdir / f"{name}.log"
        with log.open("wb") as out:
            popen = subprocess.Popen(
                [str(self.binaries[name]), *args],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, **(env or {})},
                cwd=self.workdir,
                preexec_fn=_die_with_parent,
            )
        proc = Proc(name, popen, log)
        self.procs.append(proc)
        return proc

    def _boot(self) -> None:
        began = time.monotonic()
        pki = self._timed("pki", lambda: make_pki(self.workdir / "pki"))
        etcd_url = self._timed("etcd", self._start_etcd)
        self._timed("kube-apiserver", lambda: self._start_apiserver(etcd_url, pki))
        write_kubeconfig(self.kubeconfig, self.server, pki)
        self._timed(
            "kube-controller-manager",
            lambda: self._start_component("kube-controller-manager", self._controller_manager_args(pki)),
        )
        self._timed("kube-scheduler", lambda: self._start_component("kube-scheduler", self._scheduler_args()))
        self._timed("crds", self._install_crds)
        self._timed("ray-operator", self._start_operator)
        self._timed("kwok", self._start_kwok)
        self.started_seconds = round(time.monotonic() - began, 1)

    def _timed(self, phase: str, step: Callable[[], T]) -> T:
        """Run one start-up step and record how long it took (``self.timings``)."""
        began = time.monotonic()
        result = step()
        self.timings[phase] = round(time.monotonic() - began, 2)
        return result

    def _start_etcd(self) -> str:
        client, peer = f"http://{LOOPBACK}:{free_port()}", f"http://{LOOPBACK}:{free_port()}"
        proc = self._spawn(
            "etcd",
            [
                f"--data-dir={self.workdir / 'etcd'}",
                f"--listen-client-urls={client}",
                f"--advertise-client-urls={client}",
                f"--listen-peer-urls={peer}",
                f"--initial-advertise-peer-urls={peer}",
                f"--initial-cluster=default={peer}",
                # Test data is thrown away: skip fsync, as envtest does from etcd 3.5 (etcd.go@v0.22.4).
                "--unsafe-no-fsync=true",
            ],
        )
        wait_until("etcd /health", lambda: _http_ok(f"{client}/health"), [proc])
        return client

    def _start_apiserver(self, etcd_url: str, pki: Pki) -> None:
        port = free_port()
        self.server = f"https://{LOOPBACK}:{port}"
        self._spawn(
            "kube-apiserver",
            [
                f"--etcd-servers={etcd_url}",
                f"--cert-dir={pki.ca_crt.parent}",
                f"--tls-cert-file={pki.serving_crt}",
                f"--tls-private-key-file={pki.serving_key}",
                f"--client-ca-file={pki.ca_crt}",
                f"--bind-address={LOOPBACK}",
                f"--advertise-address={LOOPBACK}",
                f"--secure-port={port}",
                f"--service-account-issuer={self.server}/",
                f"--service-account-key-file={pki.sa_pub}",
                f"--service-account-signing-key-file={pki.sa_key}",
                "--authorization-mode=RBAC",
                f"--service-cluster-ip-range={SERVICE_CIDR}",
                # ServiceAccount: no pod needs a token here, and the plugin would reject pods until the
                # controller-manager made the namespace's default account (envtest's reason).
                # TaintNodesByCondition: taints every new Node node.kubernetes.io/not-ready:NoSchedule
                # (plugin/pkg/admission/nodetaint/admission.go@v1.36.3); only the node lifecycle
                # controller, off here, would lift it once a kubelet reports Ready.
                "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
                "--allow-privileged=true",
                # The "kubernetes" Service's endpoints would point at 127.0.0.1, which Endpoints
                # validation refuses; nothing here needs in-cluster access to the apiserver.
                "--endpoint-reconciler-type=none",
            ],
        )
        ctx = ssl.create_default_context(cafile=str(pki.ca_crt))
        wait_until("kube-apiserver /readyz", lambda: https_ok(f"{self.server}/readyz", ctx), self.procs)

    def _controller_manager_args(self, pki: Pki) -> list[str]:
        return [
            f"--kubeconfig={self.kubeconfig}",
            # Delegated authn/authz of its own /healthz etc.; without these it only warns.
            f"--authentication-kubeconfig={self.kubeconfig}",
            f"--authorization-kubeconfig={self.kubeconfig}",
            # Skip reading the front-proxy CA from kube-system/extension-apiserver-authentication:
            # the apiserver has no --requestheader-client-ca-file, and the lookup logs errors forever.
            "--authentication-skip-lookup=true",
            "--leader-elect=false",
            # No kubelet posts node status here, so the node lifecycle controller would taint
            # every Node not-ready/unreachable and evict pods. Name since 1.28:
            # cmd/kube-controller-manager/names/controller_names.go@v1.36.3. job-controller stays in "*".
            "--controllers=*,-node-lifecycle-controller",
            # Token signing for the legacy token controller and the CA it publishes (kube-root-ca.crt).
            f"--service-account-private-key-file={pki.sa_key}",
            f"--root-ca-file={pki.ca_crt}",
        ]

    def _scheduler_args(self) -> list[str]:
        return [
            f"--kubeconfig={self.kubeconfig}",
            f"--authentication-kubeconfig={self.kubeconfig}",
            f"--authorization-kubeconfig={self.kubeconfig}",
            # Skip reading the front-proxy CA from kube-system/extension-apiserver-authentication:
            # the apiserver has no --requestheader-client-ca-file, and the lookup logs errors forever.
            "--authentication-skip-lookup=true",
            "--leader-elect=false",
        ]

    def _start_component(self, name: str, args: list[str]) -> None:
        """controller-manager / scheduler: serve /healthz on a free loopback port and wait for it."""
        port = free_port()
        self._spawn(
            name,
            [
                *args,
                f"--bind-address={LOOPBACK}",
                f"--secure-port={port}",
                f"--cert-dir={self.workdir / name}",
            ],
        )
        ctx = _insecure_context()
        wait_until(
            f"{name} /healthz", lambda: https_ok(f"https://{LOOPBACK}:{port}/healthz", ctx), self.procs
        )

    def start_kueue(self) -> None:
        """Kueue's controller manager, its webhooks registered at a loopback URL.

        Kueue always serves its webhooks and, with its internal certificate management, waits at
        start-up until (pkg/util/cert/cert.go@v0.19.2, open-policy-agent/cert-controller
        pkg/rotator/rotator.go@v0.16.0): the Secret it keeps its certificates in exists (it only
        updates it), the certificate is in its certDir (a kubelet would mount the Secret there),
        and the CA is injected into its webhook configurations and the conversion webhooks of five
        CRDs (kustomize's crd/patches add those; the bases lack them, and injection fails on a
        CRD without one). So the harness makes the CA and serving pair itself, valid past the
        rotator's 90-day look-ahead, with 127.0.0.1 among the serving names, seeds the Secret and
        the certDir, and registers the webhooks and conversions at https://127.0.0.1:<port>: the
        API server then calls Kueue's real webhooks (RayJob suspend defaulting and validation).
        """
        home = self.binaries["kueue"].parent
        work = self.workdir / "kueue"
        certs = work / "serving-certs"
        certs.mkdir(parents=True)
        webhook_port, health = free_port(), f"{LOOPBACK}:{free_port()}"
        url = f"https://{LOOPBACK}:{webhook_port}"
        ca, ca_key, tls, tls_key = kueue_certificates(f"{KUEUE_SERVICE}.{KUEUE_NAMESPACE}.svc")
        (certs / "tls.crt").write_bytes(tls)
        (certs / "tls.key").write_bytes(tls_key)
        bundle = base64.b64encode(ca).decode()
        secret_data = {"ca.crt": ca, "ca.key": ca_key, "tls.crt": tls, "tls.key": tls_key}
        docs: list[dict] = [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": KUEUE_NAMESPACE}},
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": KUEUE_SECRET, "namespace": KUEUE_NAMESPACE},
                "data": {k: base64.b64encode(v).decode() for k, v in secret_data.items()},
            },
        ]
        crds = []
        for path in sorted((home / "crds").glob("*.yaml")):
            crd = yaml.safe_load(path.read_text())
            if crd["metadata"]["name"].split(".")[0] in KUEUE_CONVERTED:
                crd["spec"]["conversion"] = {
                    "strategy": "Webhook",
                    "webhook": {
                        "conversionReviewVersions": ["v1"],
                        "clientConfig": {"url": f"{url}/convert", "caBundle": bundle},
                    },
                }
            crds.append(crd)
        # The ProvisioningRequest CRD, on which GKE's queued provisioning (flex-start) is based
        # (https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest): Kueue sets
        # its provisioning admission check controller up only if the API is served when it starts
        # (cmd/kueue/main.go@v0.19.2 setupControllers). At the version Kueue's go.mod pins.
        crds.append(yaml.safe_load(provisioning_request_tool().fetch().read_text()))
        for config in yaml.safe_load_all((home / "extras" / "manifests.yaml").read_text()):
            if not config:
                continue
            config["metadata"]["name"] = f"kueue-{config['metadata']['name']}"  # kustomize's prefix
            config["webhooks"] = [
                {
                    **w,
                    "clientConfig": {
                        "url": f"{url}{w['clientConfig']['service']['path']}",
                        "caBundle": bundle,
                    },
                }
                for w in config["webhooks"]
                if {g for r in w["rules"] for g in r["apiGroups"]} & KUEUE_WEBHOOK_GROUPS
            ]
            docs.append(config)
        install = work / "install.yaml"
        install.write_text(yaml.safe_dump_all([*crds, *docs]))
        self.kubectl("apply", "--server-side", "--field-manager=controlplane-test", "-f", str(install))
        crd_names = [f"crd/{c['metadata']['name']}" for c in crds]
        self.kubectl("wait", "--for=condition=Established", "--timeout=60s", *crd_names)
        config_file = work / "config.yaml"
        config_file.write_text(
            yaml.safe_dump(
                {
                    # config.kueue.x-k8s.io/v1beta2 Configuration (apis/config/v1beta2@v0.19.2).
                    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
                    "kind": "Configuration",
                    "namespace": KUEUE_NAMESPACE,
                    "leaderElection": {"leaderElect": False},
                    "health": {"healthProbeBindAddress": health},
                    "metrics": {"bindAddress": "0"},
                    "webhook": {"host": LOOPBACK, "port": webhook_port, "certDir": str(certs)},
                    "internalCertManagement": {
                        "enable": True,
                        "webhookServiceName": KUEUE_SERVICE,
                        "webhookSecretName": KUEUE_SECRET,
                    },
                    "integrations": {"frameworks": ["ray.io/rayjob"]},
                    # The visibility server binds 0.0.0.0:8082 and writes to /visibility; pods
                    # never become Ready here, so an admitted run must not be evicted waiting for
                    # them (pkg/features/kube_features.go@v0.19.2).
                    "featureGates": {"VisibilityOnDemand": False, "DisableWaitForPodsReady": True},
                }
            )
        )
        self._spawn("kueue", [f"--config={config_file}"], env={"KUBECONFIG": str(self.kubeconfig)})
        wait_until("kueue /readyz", lambda: _http_ok(f"http://{health}/readyz"), self.procs)

    def _install_crds(self) -> None:
        # Server-side apply: the RayCluster CRD is larger than the 256 KiB
        # last-applied-configuration annotation that client-side apply would write.
        # With NVIDIA's ComputeDomain (A4X's IMEX channel; constructs/device_claims.py), pinned in
        # the repository because the Go module proxy does not serve the driver's module.
        for crds in (self.crd_dir, REPO / "tools" / "pinned-crds"):
            self.kubectl("apply", "--server-side", "--field-manager=controlplane-test", "-R", "-f", str(crds))
            self.kubectl("wait", "--for=condition=Established", "--timeout=60s", "-R", "-f", str(crds))

    def _start_operator(self) -> None:
        probe = f"{LOOPBACK}:{free_port()}"
        self._spawn(
            "ray-operator",
            [
                # Flags: ray-operator/main.go@v1.4.2/v1.5.1/v1.6.1 (defaults :8080, :8082, leader election).
                "--metrics-addr=0",  # "0" turns the controller-runtime metrics server off
                f"--health-probe-bind-address={probe}",
                "--enable-leader-election=false",
                "--log-stdout-encoder=console",
            ],
            env={"KUBECONFIG": str(self.kubeconfig)},
        )
        wait_until("ray-operator /readyz", lambda: _http_ok(f"http://{probe}/readyz"), self.procs)

    def _start_kwok(self) -> None:
        """kwok as the kubelet of the nodes that carry ``KWOK_ANNOTATION`` (the twin's nodes, made
        by ``twin.autoscaler``): it makes them Ready, runs the pods bound there (Running and Ready,
        native sidecars started, a pod IP from ``--cidr``) and confirms deletions; pods of Jobs keep
        running, as the data-prep Job and the submitter do for a run's length. Nodes without the
        annotation stay objects only, as before.

        Flags: pkg/kwok/cmd/root.go@v0.8.0. It binds no port unless ``--server-address`` is given;
        here it serves /healthz on loopback so start-up can wait for it. The stages are kwok's own
        "fast" ones that build.py copies."""
        home = self.binaries["kwok"].parent / "extras"
        stages = self.workdir / "kwok-stages.yaml"
        stages.write_text("\n---\n".join((home / Path(f).name).read_text() for f in KWOK_STAGES))
        address = f"{LOOPBACK}:{free_port()}"
        self._spawn(
            "kwok",
            [
                f"--kubeconfig={self.kubeconfig}",
                f"--manage-nodes-with-annotation-selector={KWOK_ANNOTATION}=fake",
                # Room for every pod of a run (the default /24 hands out addresses past its end).
                "--cidr=10.64.0.0/16",
                f"--node-ip={LOOPBACK}",
                f"--server-address={address}",
                f"--config={stages}",
            ],
        )
        wait_until("kwok /healthz", lambda: _http_ok(f"http://{address}/healthz"), self.procs)

    # -- shutdown --

    def stop(self) -> None:
        """Stop every process (newest first), then remove the work dir unless asked to keep it."""
        while self.procs:
            self.procs.pop().stop()
        if self.keep_workdir:
            print(f"controlplane: kept {self.workdir}")
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False
