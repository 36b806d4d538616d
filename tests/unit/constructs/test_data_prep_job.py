"""The data-prep Job's script, run by bash where verl is not installed (as in the verlai/verl
images, whose Dockerfile uninstalls verl after installing its dependencies)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from verl_grpo.constructs.data_prep_job import SCRIPT
from verl_grpo.facts.pins import VERL_COMMIT
from verl_grpo.pod.preflight import MARKER

# What `git clone --branch v0.6.1 verl` brings, as far as the GSM8K step touches it: gsm8k.py
# imports verl.utils.hdfs_io (examples/data_preprocess/gsm8k.py at v0.6.1).
FAKE_GIT = f"""#!{sys.executable}
import os, sys
from pathlib import Path
if "rev-parse" in sys.argv:  # the clone's commit: what the tag points at upstream
    print(os.environ["UPSTREAM_COMMIT"])
    sys.exit(0)
target = Path(sys.argv[-1])
(target / "verl" / "utils").mkdir(parents=True)
(target / "verl" / "__init__.py").write_text("")
(target / "verl" / "utils" / "__init__.py").write_text("")
(target / "verl" / "utils" / "hdfs_io.py").write_text("def copy(src, dst):\\n    pass\\n")
(target / "examples" / "data_preprocess").mkdir(parents=True)
(target / "examples" / "data_preprocess" / "gsm8k.py").write_text('''
import argparse, os
from verl.utils.hdfs_io import copy  # noqa: F401 - the import that failed in the Job
parser = argparse.ArgumentParser()
parser.add_argument("--local_save_dir")
args = parser.parse_args()
os.makedirs(args.local_save_dir, exist_ok=True)
for split in ("train", "test"):
    open(os.path.join(args.local_save_dir, split + ".parquet"), "wb").write(b"PAR1")
''')
"""


def test_gsm8k_step_imports_the_cloned_verl(tmp_path: Path) -> None:
    probe = subprocess.run([sys.executable, "-c", "import verl"], capture_output=True, check=False)
    assert probe.returncode != 0, "this test needs a Python without verl, as in the image"
    bin_dir, bucket = tmp_path / "bin", tmp_path / "bucket"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(FAKE_GIT)
    (bin_dir / "git").chmod(0o755)
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
        "VERL_VERSION": "0.6.1",
        "VERL_COMMIT": VERL_COMMIT,
        "UPSTREAM_COMMIT": VERL_COMMIT,
        "HOME": os.environ.get("HOME", "/root"),
    }
    done = subprocess.run(
        ["bash", "-c", SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ModuleNotFoundError" not in done.stderr
    assert f"skip: {model} is complete" in done.stdout
    for folder in ("verl", "data"):
        assert (bucket / folder / MARKER).is_file()  # written last, after the step succeeded
    assert sorted(p.name for p in (bucket / "data").glob("*.parquet")) == ["test.parquet", "train.parquet"]
    # A second run finds every marker and does nothing.
    again = subprocess.run(
        ["bash", "-c", SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert again.returncode == 0 and again.stdout.count("skip:") == 3
    # A tag moved upstream: another commit is refused, and nothing is marked done.
    (bucket / "verl" / MARKER).unlink()
    env["UPSTREAM_COMMIT"] = "0" * 40
    moved = subprocess.run(
        ["bash", "-c", SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert moved.returncode != 0
    assert f"verl v0.6.1 is commit {'0' * 40}, not {VERL_COMMIT}" in moved.stderr
    assert not (bucket / "verl" / MARKER).exists()
