"""Cloud Storage FUSE: read-mostly volumes for the model, data and code, a write volume for checkpoints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..values.decisions import Helper
from ..values.derive import STORAGE_DIGEST, DeploySpec
from .base import ManifestConstruct

if TYPE_CHECKING:
    from constructs import Construct

# Model, data and verl source change between runs, never during one: cache metadata forever
# (-1). A pod may mount before the data-prep Job has written everything: "not found" must not be
# cached (negative-ttl-secs 0; gcsfuse docs/semantics.md: negative entries have their own TTL,
# default 5 s, from gcsfuse v2.8.0 = GKE 1.32.1-gke.1357001; before it they took the positive TTL,
# i.e. forever with -1). Listings are
# not cached either (kernel-list-cache-ttl-secs defaults to 0, same document). Files are written
# once; the data-prep Job writes each step's marker last and the pre-flight waits for the markers,
# so a cached positive entry is never a half-written file.
READ_MOSTLY_OPTIONS = [
    "implicit-dirs",
    "metadata-cache:ttl-secs:-1",
    "metadata-cache:negative-ttl-secs:0",
    "metadata-cache:stat-cache-max-size-mb:-1",
    "metadata-cache:type-cache-max-size-mb:-1",
    "read_ahead_kb=1024",
]
# The model alone is read through a parallel-download file cache, bounded by storage.fileCacheCapacity
# (the volume attribute fileCacheCapacity, which GKE documents beside file-cache:max-size-mb: GKE's
# "Optimize Cloud Storage FUSE CSI driver for performance",
# https://cloud.google.com/kubernetes-engine/docs/how-to/persistent-volumes/cloud-storage-fuse-csi-driver-perf).
# A volume without the attribute has no file cache (gcs-fuse-csi-driver@5fcdc04
# pkg/sidecar_mounter/sidecar_mounter_config.go: "by default the gcsfuse file cache is disabled on
# GKE"), so the GPU pods' sidecar limit is derived above that one capacity.
FILE_CACHE_OPTIONS = [
    "file-cache:cache-file-for-range-read:true",
    "file-cache:enable-parallel-downloads:true",
]
# Checkpoints are written by every node and read back on resume: no metadata caching (so a
# resumed run sees the newest step) and streaming writes; no cache size options beside ttl 0.
CHECKPOINT_OPTIONS = [
    "implicit-dirs",
    "metadata-cache:ttl-secs:0",
    "write:enable-streaming-writes:true",
]


@dataclass(frozen=True)
class Folder:
    """One folder of the bucket, its own PV and claim (only-dir), mounted at one path. Each read
    folder is its own volume so that a pod's metadata prefetch and caches cover what it reads, not
    the checkpoints and logs beside it in the bucket, and so that each mount matches a grant
    (scripts/lib.sh bucket_grants: one managed folder each)."""

    role: str  # the volume's name in pods, and the suffix of its handle and claim
    folder: str  # bucket path (storage.*Dir)
    mount: str  # mount path in the pods
    read_only: bool  # in the Ray pods; the data-prep Job writes the read folders
    options: list[str]
    attributes: dict[str, str]


# A folder's claim and volume names, as Helm authors keep names: one named template each
# (`(list . "<role>")`), the Go twins of the f-strings below.
CLAIM_NAME = Helper(
    "verl-grpo.claimName",
    """{{- $root := index . 0 }}
{{- printf "%s-%s-%s" $root.Release.Name (index . 1) (include "verl-grpo.storageDigest" $root) }}""",
    "A folder's PersistentVolumeClaim: <release>-<role>-<storage digest> (gcs_fuse_storage.py).",
    uses=(STORAGE_DIGEST,),
)
VOLUME_NAME = Helper(
    "verl-grpo.volumeName",
    '{{- printf "%s-%s" (index . 0).Release.Namespace (include "verl-grpo.claimName" .) }}',
    "A folder's PersistentVolume, cluster-wide: <namespace>-<its claim's name> (gcs_fuse_storage.py).",
    uses=(CLAIM_NAME,),
)


class GcsFuseStorage(ManifestConstruct):
    """A statically bound PV/PVC pair per folder of the bucket; pods mount them through `volumes()`."""

    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id, spec)
        v, rel = spec.values.storage, spec.release
        # The names follow the bucket and capacity (Derived.storage_digest): changing either makes
        # new PVs and PVCs (Helm and Argo CD prune the old pair) instead of an upgrade refused as
        # "spec.persistentvolumesource is immutable" or "only dynamically provisioned pvc can be
        # resized" (kube-apiserver, seen on the control-plane tier).
        digest = spec.derived.storage_digest
        # The read folders keep their paths under storage.mountPath (mountPath/<dir>), so every path
        # a pod reads is the one it read when the whole bucket was mounted there.
        prefetch = {"gcsfuseMetadataPrefetchOnMount": "true"}
        self.folders = [
            Folder(
                "model",
                v.model_dir,
                f"{v.mount_path}/{v.model_dir}",
                True,
                [*READ_MOSTLY_OPTIONS, *FILE_CACHE_OPTIONS],
                {**prefetch, "fileCacheCapacity": v.file_cache_capacity},
            ),
            Folder("data", v.data_dir, f"{v.mount_path}/{v.data_dir}", True, READ_MOSTLY_OPTIONS, prefetch),
            Folder("verl", v.verl_dir, f"{v.mount_path}/{v.verl_dir}", True, READ_MOSTLY_OPTIONS, prefetch),
            Folder("checkpoints", v.checkpoint_dir, v.checkpoint_mount_path, False, CHECKPOINT_OPTIONS, {}),
        ]
        decide = spec.decide
        self._claims = {
            f.role: decide.helper(CLAIM_NAME, [f.role], lambda role: f"{rel.name}-{role}-{digest}", root=True)
            for f in self.folders
        }
        for f in self.folders:
            claim = self._claims[f.role]
            volume = decide.helper(
                VOLUME_NAME, [f.role], lambda role: f"{rel.namespace}-{self._claims[role]}", root=True
            )
            self.add_object(
                f"pv-{f.role}",
                kind="PersistentVolume",
                name=volume,
                body={
                    "spec": {
                        "accessModes": ["ReadWriteMany"],
                        "capacity": {"storage": v.capacity},
                        "persistentVolumeReclaimPolicy": "Retain",
                        "storageClassName": "",
                        "claimRef": {"namespace": rel.namespace, "name": claim},
                        "mountOptions": [*f.options, f"only-dir={f.folder}"],
                        "csi": {
                            "driver": "gcsfuse.csi.storage.gke.io",
                            # One handle per PV: kubelet and the CSI driver treat equal handles as one
                            # volume and skip the second mount. The driver drops everything from the
                            # first ':' (gcs-fuse-csi-driver pkg/util/util.go ParseVolumeID, PR #559;
                            # GKE 1.33.0-gke.1932000, docs/releases.md).
                            "volumeHandle": f"{v.bucket}:{f.role}",
                            "volumeAttributes": {"skipCSIBucketAccessCheck": "true", **f.attributes},
                        },
                    }
                },
            )
            self.add_object(
                f"pvc-{f.role}",
                kind="PersistentVolumeClaim",
                name=claim,
                body={
                    "spec": {
                        "accessModes": ["ReadWriteMany"],
                        "resources": {"requests": {"storage": v.capacity}},
                        "storageClassName": "",
                        "volumeName": volume,
                    }
                },
            )
        d = spec.derived
        self.pod_annotations = {
            "gke-gcsfuse/volumes": "true",
            "gke-gcsfuse/cpu-limit": d.sidecar_cpu_limit,
            "gke-gcsfuse/memory-limit": d.sidecar_memory_limit,
            "gke-gcsfuse/ephemeral-storage-limit": d.sidecar_ephemeral_storage_limit,
        }
        # GPU pods read the model through the file cache: their sidecar's limit sits above it.
        self.gpu_pod_annotations = {
            **self.pod_annotations,
            "gke-gcsfuse/ephemeral-storage-limit": d.gpu_sidecar_ephemeral_storage_limit,
        }

    def volumes(self) -> list[dict[str, Any]]:
        return [self._volume(f) for f in self.folders]

    def data_prep_volumes(self) -> list[dict[str, Any]]:
        """The read folders alone: the data-prep Job fills them (data_prep_volume_mounts)."""
        return [self._volume(f) for f in self.folders if f.read_only]

    def _volume(self, f: Folder) -> dict[str, Any]:
        return {"name": f.role, "persistentVolumeClaim": {"claimName": self._claims[f.role]}}

    def checkpoint_volume_mount(self) -> dict[str, Any]:
        """The writable volume alone (the run's folder: checkpoints and logs)."""
        (mount,) = [m for m in self.volume_mounts() if m["name"] == "checkpoints"]
        return mount

    def volume_mounts(self) -> list[dict[str, Any]]:
        # `readOnly: false` is left out: KubeRay round-trips the RayJob through its Go types
        # (omitempty) when it adds its finalizer, and a field it drops from the atomic
        # workerGroupSpecs list makes it that list's owner, so `helm upgrade` (server-side apply)
        # then conflicts with "kuberay-operator" (seen on the control-plane tier, KubeRay v1.6.0).
        return [
            {"name": f.role, "mountPath": f.mount, **({"readOnly": True} if f.read_only else {})}
            for f in self.folders
        ]

    def data_prep_volume_mounts(self) -> list[dict[str, Any]]:
        """The read folders, writable: the data-prep Job fills them."""
        return [{"name": f.role, "mountPath": f.mount} for f in self.folders if f.read_only]
