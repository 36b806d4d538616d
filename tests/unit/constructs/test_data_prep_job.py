"""The data-prep Job's script, run by bash where verl is not installed (as in the verlai/verl
images, whose Dockerfile uninstalls verl after installing its dependencies)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from verl_grpo.constructs.data_prep_job import SCRIPT
from verl_grpo.pod.preflight import MARKER

# What the release's files bring, as far as the GSM8K step touches them: the wheel's verl package
# (gsm8k.py imports verl.utils.hdfs_io: examples/data_preprocess/gsm8k.py@v0.6.1:24) and the script.
GSM8K = """
import argparse, os
from verl.utils.hdfs_io import copy  # noqa: F401 - the import that failed in the Job
parser = argparse.ArgumentParser()
parser.add_argument("--local_save_dir")
args = parser.parse_args()
os.makedirs(args.local_save_dir, exist_ok=True)
for split in ("train", "test"):
    open(os.path.join(args.local_save_dir, split + ".parquet"), "wb").write(b"PAR1")
"""
# `curl ... --output FILE URL`: the file named like the URL's last part, from the "web" folder.
FAKE_CURL = f"""#!{sys.executable}
import os, shutil, sys
from pathlib import Path
name, output = sys.argv[-1].rsplit("/", 1)[-1], sys.argv[sys.argv.index("--output") + 1]
shutil.copyfile(Path(os.environ["WEB"]) / name, output)
"""


def _release_files(web: Path) -> dict[str, str]:
    web.mkdir()
    with zipfile.ZipFile(web / "verl-9.9.9-py3-none-any.whl", "w") as wheel:
        wheel.writestr("verl/__init__.py", "")
        wheel.writestr("verl/utils/__init__.py", "")
        wheel.writestr("verl/utils/hdfs_io.py", "def copy(src, dst):\n    pass\n")
    (web / "gsm8k.py").write_text(GSM8K)

    def sha(name: str) -> str:
        return hashlib.sha256((web / name).read_bytes()).hexdigest()

    return {
        "VERL_VERSION": "9.9.9",
        "VERL_WHEEL_URL": "https://files.example/verl-9.9.9-py3-none-any.whl",
        "VERL_WHEEL_SHA256": sha("verl-9.9.9-py3-none-any.whl"),
        "GSM8K_SCRIPT_URL": "https://raw.example/verl/v9.9.9/examples/data_preprocess/gsm8k.py",
        "GSM8K_SCRIPT_SHA256": sha("gsm8k.py"),
        "WEB": str(web),
    }


def test_gsm8k_step_imports_the_releases_verl(tmp_path: Path) -> None:
    probe = subprocess.run([sys.executable, "-c", "import verl"], capture_output=True, check=False)
    assert probe.returncode != 0, "this test needs a Python without verl, as in the image"
    bin_dir, bucket = tmp_path / "bin", tmp_path / "bucket"
    bin_dir.mkdir()
    (bin_dir / "curl").write_text(FAKE_CURL)
    (bin_dir / "curl").chmod(0o755)
    (bin_dir / "python3").symlink_to(sys.executable)
    model = bucket / "model"
    model.mkdir(parents=True)
    (model / MARKER).write_text("done")  # the 65 GB download is done: its step is skipped
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "MODEL_ID": "Qwen/Qwen2.5-32B-Instruct",
        "MODEL_DIR": str(model),
        "VERL_DIR": str(bucket / "verl"),
        "DATA_DIR": str(bucket / "data"),
        "HOME": os.environ.get("HOME", "/root"),
        **_release_files(tmp_path / "web"),
    }
    done = subprocess.run(
        ["bash", "-c", SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ModuleNotFoundError" not in done.stderr
    assert f"skip: {model} is complete" in done.stdout
    assert (bucket / "verl" / "verl" / "utils" / "hdfs_io.py").is_file()  # the wheel, unpacked
    for folder in ("verl", "data"):
        assert (bucket / folder / MARKER).is_file()  # written last, after the step succeeded
    assert sorted(p.name for p in (bucket / "data").glob("*.parquet")) == ["test.parquet", "train.parquet"]
    # A second run finds every marker and does nothing.
    again = subprocess.run(
        ["bash", "-c", SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert again.returncode == 0 and again.stdout.count("skip:") == 3
    # Other bytes than the release's (a file replaced upstream) are refused, and nothing is marked done.
    (bucket / "verl" / MARKER).unlink()
    (Path(env["WEB"]) / "gsm8k.py").write_text(GSM8K + "# changed\n")
    moved = subprocess.run(
        ["bash", "-c", SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert moved.returncode != 0
    assert moved.stderr.strip().endswith(
        f"not {env['GSM8K_SCRIPT_SHA256']}: not the verl 9.9.9 this kit checks"
    ), moved.stderr
    assert moved.stderr.startswith(f"{env['GSM8K_SCRIPT_URL']} has sha256 ")
    assert not (bucket / "verl" / MARKER).exists()
