"""The run's bucket as a folder tree that enforces the IAM grants the scripts made.

The grants are the recorded ``gcloud storage buckets|managed-folders add-iam-policy-binding`` calls
(less any ``remove-iam-policy-binding``); the managed folders are the recorded
``managed-folders create`` calls. A pod's work runs as an unprivileged Unix user standing for its
Kubernetes service account's Workload Identity principal, over a tree whose directory modes say
what that principal may do, so a write outside its grants fails with EACCES where Cloud Storage
answers 403. The rules encoded, and their sources:

- Reading: ``roles/storage.objectViewer`` on the bucket lets a principal get and list every object
  (https://cloud.google.com/storage/docs/access-control/iam-roles); the tree is world-readable.
- Writing: ``roles/storage.objectUser`` grants creating, updating and deleting objects (and, on a
  hierarchical-namespace bucket, folders), on the whole bucket when granted there, or on "any
  object within the bucket that uses the managed folder path as a prefix in the object name" when
  granted on a managed folder (https://cloud.google.com/storage/docs/managed-folders). So a
  directory is writable where it lies inside a granted managed folder, or anywhere with a grant
  on the bucket.
- The managed folder itself: in a hierarchical-namespace bucket it is "created with the same name
  as the corresponding folder" (https://cloud.google.com/storage/docs/folders-types), and deleting
  that folder "also deletes any managed folder attached to the folder"
  (https://cloud.google.com/storage/docs/json_api/v1/folders/delete), its IAM policy with it.
  Creating, deleting or renaming a folder next to it (a sibling such as ``verl.partial/``)
  touches a name no grant covers (folders/rename needs ``storage.folders.rename`` on the source and
  ``storage.folders.create`` on the destination, https://cloud.google.com/storage/docs/rename-hns-folders).
  The twin refuses both: the folder of a managed folder is writable inside, not itself removable
  or replaceable unless its parent is granted.
- Cloud Storage FUSE maps mkdir, rmdir and directory renames on such a bucket to CreateFolder,
  DeleteFolder and RenameFolder (GoogleCloudPlatform/gcsfuse internal/fs/fs.go@v3.11.0), so the
  directory operations a script makes are the folder operations the rules above judge.

Not modelled: the real service's consistency, object generations and preconditions, retention,
the bucket-level ``storage.buckets.*`` permissions, ACLs (uniform bucket-level access is on), and
IAM conditions. Whether ``objectUser`` on a managed folder also covers folder operations inside it
is not documented; the twin allows them (they are inside the granted prefix).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .gke import Call

VIEWER, USER = "roles/storage.objectViewer", "roles/storage.objectUser"
WRITERS = {USER, "roles/storage.objectAdmin", "roles/storage.admin"}
FIRST_UID = 20000  # the principals' Unix users: outside what a distribution hands out


@dataclass(frozen=True)
class Grant:
    member: str
    role: str
    folder: str  # "" for the bucket, else the managed folder without its trailing slash


def grants_from_calls(calls: list[dict[str, Any]], bucket: str) -> list[Grant]:
    """The bindings the recorded calls left on the bucket and its managed folders, in order."""
    grants: list[Grant] = []
    for c in calls:
        if c["tool"] != "gcloud":
            continue
        call = Call.parse(c["args"])
        verb = next((w for w in call.words if w.endswith("-iam-policy-binding")), None)
        if verb is None:
            continue
        target = call.words[call.words.index(verb) + 1]
        name, _, folder = target.removeprefix("gs://").partition("/")
        if name != bucket:
            continue
        grant = Grant(call.flag("member") or "", call.flag("role") or "", folder.rstrip("/"))
        if verb.startswith("add"):
            grants.append(grant)
        elif grant in grants:
            grants.remove(grant)
    return grants


def managed_folders_from_calls(calls: list[dict[str, Any]], bucket: str) -> list[str]:
    out = []
    for c in calls:
        call = Call.parse(c["args"]) if c["tool"] == "gcloud" else None
        if call and call.words[:3] == ("storage", "managed-folders", "create"):
            name, _, folder = call.words[3].removeprefix("gs://").partition("/")
            if name == bucket:
                out.append(folder.rstrip("/"))
    return out


def principal(project_number: str, project: str, namespace: str, service_account: str) -> str:
    """A Kubernetes service account's Workload Identity Federation principal
    (https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity, "principal://...")."""
    return (
        f"principal://iam.googleapis.com/projects/{project_number}/locations/global/workloadIdentityPools/"
        f"{project}.svc.id.goog/subject/ns/{namespace}/sa/{service_account}"
    )


@dataclass
class Bucket:
    """The bucket's content under ``root``; ``run`` executes a command as a principal."""

    root: Path
    grants: list[Grant]
    managed_folders: list[str]
    uids: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for folder in self.managed_folders:
            (self.root / folder).mkdir(parents=True, exist_ok=True)

    def can_read(self, member: str) -> bool:
        return any(
            g.member == member and g.role in ({VIEWER} | WRITERS) and not g.folder for g in self.grants
        )

    def writable(self, member: str) -> list[str]:
        """The prefixes (folders, "" for all) the member may write under."""
        return sorted({g.folder for g in self.grants if g.member == member and g.role in WRITERS})

    def uid(self, member: str) -> int:
        return self.uids.setdefault(member, FIRST_UID + len(self.uids))

    def open_to(self, member: str) -> None:
        """Directory modes for one principal: 0777 inside its granted prefixes, 0755 elsewhere
        (what root made, or another principal; readable by all when the bucket grants viewing)."""
        prefixes = self.writable(member)
        for directory in [self.root, *(p for p in self.root.rglob("*") if p.is_dir())]:
            rel = directory.relative_to(self.root).as_posix()
            rel = "" if rel == "." else rel
            inside = any(p == "" or rel == p or rel.startswith(f"{p}/") for p in prefixes)
            os.chmod(directory, 0o777 if inside else 0o755)
        for path in self.root.rglob("*"):
            if path.is_file():  # objectUser may overwrite an object inside its prefix
                rel = path.parent.relative_to(self.root).as_posix()
                rel = "" if rel == "." else rel
                inside = any(p == "" or rel == p or rel.startswith(f"{p}/") for p in prefixes)
                os.chmod(path, 0o666 if inside else 0o644)
        if not self.can_read(member):
            os.chmod(self.root, 0o700)

    def as_member(self, member: str, argv: Iterable[str]) -> list[str]:
        """``argv`` to run as the principal's Unix user, the tree's modes set for it first."""
        self.open_to(member)
        uid = self.uid(member)
        return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", *argv]

    def run(
        self, member: str, argv: Iterable[str], env: dict[str, str], **kwargs: Any
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.as_member(member, argv), env=env, capture_output=True, text=True, check=False, **kwargs
        )
