"""Nothing lost, nothing crashes: failure injection in writes, a killed run, fuzzed input."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verl_grpo.cli import main
from verl_grpo.jobs.verbs import JOB_VERBS
from verl_grpo.output import atomic
from verl_grpo.profiles import shipped_profiles

from .conftest import DIST_VALUES, REPO, tree
from .scripts_harness import profile_values

MY_ZONE = profile_values("b200-autopilot")

FUZZ_CASES = int(os.environ.get("FUZZ_CASES", "150"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("gen")
    assert main(["generate", "--root", str(root)]) == 0
    return root


def snapshot(root: Path) -> dict:
    return {d: tree(root / d) for d in ("dist", "charts", "overlays")}


def older_run(generated: Path, tmp_path: Path) -> Path:
    """A checkout whose three trees differ from what generate writes, so a half-applied write shows."""
    root = tmp_path / "repo"
    shutil.copytree(generated, root)
    for path in (
        "dist/h200-standard/kustomization.yaml",
        "charts/verl-grpo/values.yaml",
        "overlays/h200-standard/values.yaml",
    ):
        with (root / path).open("a") as f:
            f.write("# an older run's\n")
    return root


def leftovers(root: Path) -> list[str]:
    return [p.name for d in (root, root / "charts") for p in d.iterdir() if p.name.startswith(".")]


# Where a write can break: while staging files, while copying the old tree, at the swap itself.
INJECTIONS = {
    "first-file": ("write_text", 1),
    "middle-of-dist": ("write_text", 60),
    "chart-templates": ("write_text", 130),
    "copy-of-old-tree": ("copytree", 1),
    "swap": ("exchange", 2),
}


@pytest.mark.parametrize("point", INJECTIONS, ids=list(INJECTIONS))
def test_failure_at_any_point_leaves_previous_output(generated, tmp_path, monkeypatch, point):
    root = older_run(generated, tmp_path)
    before = snapshot(root)
    what, n = INJECTIONS[point]
    count = {"n": 0}

    def boom():
        count["n"] += 1
        if count["n"] == n:
            raise OSError(f"injected failure: {point}")

    if what == "write_text":
        real = Path.write_text
        monkeypatch.setattr(Path, "write_text", lambda self, *a, **k: (boom(), real(self, *a, **k))[1])
    elif what == "copytree":
        real_copy = atomic.shutil.copytree
        monkeypatch.setattr(atomic.shutil, "copytree", lambda *a, **k: (boom(), real_copy(*a, **k))[1])
    else:
        real_exchange = atomic._exchange
        monkeypatch.setattr(atomic, "_exchange", lambda a, b: (boom(), real_exchange(a, b))[1])
    assert main(["generate", "--root", str(root)]) == 1
    monkeypatch.undo()
    assert snapshot(root) == before  # at "swap" the first tree was swapped in, and back out
    assert leftovers(root) == []


# Where generate can be killed: (function, its call number among those whose first argument holds
# the text, pause before or after that call, committed?).
# The journal is the commit point: before it the old trees stay; after it all three new ones come.
GENERATE_KILLS = {
    "journal-names-the-trees": ("os.replace", 1, "", "after", False),
    "staging-dist": ("Path.write_text", 40, "", "before", False),
    "staging-overlays": ("Path.write_text", 3, ".overlays.new-", "before", False),
    "journal-committed": ("os.replace", 2, "", "after", True),
    "between-swap-1-and-2": ("_exchange", 1, "", "after", True),
    "between-swap-2-and-3": ("_exchange", 2, "", "after", True),
    "before-old-trees-deleted": ("_exchange", 3, "", "after", True),
}
GENERATE_KILLER = """
import os, sys, time
from pathlib import Path
from verl_grpo.output import atomic
name, at, text, when = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
owner = {"Path.write_text": (Path, "write_text"), "os.replace": (atomic.os, "replace"),
         "_exchange": (atomic, "_exchange")}[name]
real, count = getattr(*owner), {"n": 0}
def paused(*a, **k):
    count["n"] += text in str(a[0])
    if count["n"] == at and when == "before":
        print("ready", flush=True); time.sleep(60)
    out = real(*a, **k)
    if count["n"] == at and when == "after":
        print("ready", flush=True); time.sleep(60)
    return out
setattr(*owner, paused)
from verl_grpo.cli import main
sys.exit(main(["generate", "--root", sys.argv[1]]))
"""


@pytest.mark.parametrize("point", GENERATE_KILLS, ids=list(GENERATE_KILLS))
def test_a_killed_generate_leaves_all_three_trees_from_one_run(generated, tmp_path, point):
    """SIGKILL at each step of the write: the next run's first act (finish_interrupted) leaves
    dist/, the chart and overlays/ all from the older run or all from the killed one."""
    root = older_run(generated, tmp_path)
    before, new = snapshot(root), snapshot(generated)
    name, at, text, when, committed = GENERATE_KILLS[point]
    proc = subprocess.Popen(
        [sys.executable, "-c", GENERATE_KILLER, str(root), name, str(at), text, when],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    trees = ["dist", "charts/verl-grpo", "overlays"]  # what generate writes
    assert ("swaps" in json.loads(atomic.journal(root, trees).read_text())) == committed
    assert atomic.finish_interrupted(root, trees) == committed
    assert snapshot(root) == (new if committed else before)
    atomic.write_tree(root / "overlays", {"x": "y"}, replace=["x"])  # a writer drops the staged leftovers
    assert leftovers(root) == []


def stamps(root: Path) -> dict[Path, tuple[int, int]]:
    return {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in [root, *root.rglob("*")]}


def test_generate_over_its_own_output_writes_nothing_and_one_changed_tree_alone_is_written(
    generated, tmp_path
):
    root = tmp_path / "repo"
    shutil.copytree(generated, root)
    before = stamps(root)
    assert main(["generate", "--root", str(root)]) == 0
    assert stamps(root) == before  # not one file rewritten, not one folder swapped
    (root / "overlays/h200-standard/values.yaml").write_text("# edited by hand\n")
    (root / "overlays/h200-standard/stale.yaml").write_text("x: 1\n")
    assert main(["generate", "--root", str(root)]) == 0
    assert snapshot(root) == snapshot(generated)
    after = stamps(root)  # the root itself held the journal a while
    assert {p: s for p, s in after.items() if p != root and "overlays" not in p.parts} == {
        p: s for p, s in before.items() if p != root and "overlays" not in p.parts
    }
    assert after[root / "overlays"] != before[root / "overlays"]


@pytest.mark.parametrize(
    ("change", "written"),
    [
        (lambda t: None, False),
        (lambda t: (t / "keep" / "mine").write_text("edited"), False),  # outside `replace`: carried
        (lambda t: (t / "a" / "x").write_text("0"), True),
        (lambda t: (t / "a" / "stale").write_text(""), True),
        (lambda t: (t / "a" / "empty").mkdir(), True),
        (lambda t: (t / "a" / "x").unlink(), True),
        (lambda t: (t / "b").unlink(), True),
    ],
    ids=["same", "carried-edit", "changed", "stale-file", "stale-folder", "missing", "missing-top"],
)
def test_a_tree_is_written_unless_it_already_holds_the_result(tmp_path, change, written):
    files = {"a/x": "1", "a/sub/y": "2", "b": b"3"}
    target = tmp_path / "t"
    atomic.write_tree(target, files, replace=["a", "b"])
    (target / "keep").mkdir()
    (target / "keep" / "mine").write_text("theirs")
    change(target)
    inode = target.stat().st_ino
    atomic.write_tree(target, files, replace=["a", "b"])
    assert (target.stat().st_ino != inode) == written
    assert tree(target) == {"a/x": b"1", "a/sub/y": b"2", "b": b"3", "keep/mine": tree(target)["keep/mine"]}
    assert not (target / "a" / "empty").exists() and not (target / "a" / "stale").exists()


def test_writers_of_other_trees_in_one_folder_keep_out_of_each_others_journal(tmp_path):
    """`synth -o /tmp/a` and `-o /tmp/b` share a folder, not a journal."""
    atomic.write_tree(tmp_path / "a", {"x": "1"})
    # A writer of "a" killed after its commit point: its journal names a staged tree.
    stage = tmp_path / ".a.new-killed"
    stage.mkdir()
    (stage / "x").write_text("2")
    log = atomic.journal(tmp_path, ["a"])
    entry = {"target": "a", "stage": stage.name, "inode": stage.stat().st_ino}
    log.write_text(json.dumps({"swaps": [entry]}))
    atomic.write_tree(tmp_path / "b", {"y": "1"})
    assert (tmp_path / "a" / "x").read_text() == "1" and log.is_file()  # not b's to finish
    atomic.write_tree(tmp_path / "a", {"x": "3"}, replace=[])  # a's next writer finishes it first
    assert (tmp_path / "a" / "x").read_text() == "3" and not log.exists() and not stage.exists()


KILLER = """
import sys, time
from pathlib import Path
real = Path.write_text
count = {"n": 0}
def slow(self, *a, **k):
    count["n"] += 1
    if count["n"] == int(sys.argv[2]):
        print("ready", flush=True)
        time.sleep(60)
    return real(self, *a, **k)
Path.write_text = slow
from verl_grpo.cli import main
FOUR = "workerGroups.gpu-group.replicas=4"
sys.exit(main(["synth", *sys.argv[3:], "-o", sys.argv[1], "--set", FOUR]))
"""


@pytest.mark.parametrize("at_file", [5, 90])
def test_a_killed_run_leaves_previous_output(generated, tmp_path, at_file):
    from verl_grpo.profiles import shipped_profiles

    out = tmp_path / "dist"
    shutil.copytree(generated / "dist", out)
    before = tree(out)
    amd64 = [arg for p in shipped_profiles() if p.arch == "amd64" for arg in ("--profile", p.name)]
    proc = subprocess.Popen(
        # every profile on amd64 nodes (A4X's take a reservation of their own), each with a zone
        [sys.executable, "-c", KILLER, str(out), str(at_file), "-f", str(DIST_VALUES), *MY_ZONE, *amd64],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert tree(out) == before


def _no_crash(capsys, argv: list[str], allowed: tuple[int, ...], lines_are_errors: bool = True) -> None:
    capsys.readouterr()  # drop what an earlier example left
    code = main(argv)
    err = capsys.readouterr().err
    assert code in allowed, err
    assert "Traceback" not in err and "internal error" not in err, err
    if code != 0 and lines_are_errors:
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines and all(line.startswith(("error:", "verl-grpo")) for line in lines), err


YAML_TEXT = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
        ),
        max_leaves=30,
    ).map(lambda v: __import__("yaml").safe_dump(v)),
    st.builds(
        lambda k, v: f"{k}:\n  {v}\n",
        st.sampled_from(["worker", "training", "gpu", "storage", "job"]),
        st.text(max_size=40),
    ),
    st.integers(1, 3000).map(lambda n: "a: " + "[" * n + "]" * n),
    st.just(
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
            f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
            for i in range(9)
        )
    ),
    st.just(""),
    st.just("workerGroups:\n  a: {replicas: 99999999999999999999999999}\n"),
)


@settings(
    max_examples=FUZZ_CASES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=YAML_TEXT)
def test_fuzzed_values_files_never_crash(tmp_path, capsys, text):
    values = tmp_path / "fuzz.yaml"
    values.write_bytes(text.encode("utf-8", "surrogatepass"))
    out = tmp_path / "out"
    _no_crash(capsys, ["synth", "--profile", "h200-standard", "-f", str(values), "-o", str(out)], (0, 1))
    if out.exists():
        assert (out / "h200-standard" / "kustomization.yaml").exists()  # whole or nothing
        shutil.rmtree(out)
    _no_crash(capsys, ["check", "--profile", "h200-standard", "-f", str(values)], (0, 1))
    # validate reports findings on stdout and a summary line on stderr
    _no_crash(capsys, ["validate", str(values)], (0, 1, 2), lines_are_errors=False)


# Argument lists: 40 derandomized draws per test, fixtures shared across draws on purpose.
FUZZ_ARGUMENTS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@FUZZ_ARGUMENTS
@given(
    args=st.lists(
        st.sampled_from(
            [
                "--set",
                "workerGroups.gpu-group.replicas=x",
                "a=b",
                "=",
                "--profile",
                "nope",
                "-f",
                "/nonexistent",
                "--set-string",
                "x",
                "--release-name",
                "UPPER",
                "-n",
                "",
            ]
        ),
        max_size=6,
    )
)
def test_fuzzed_arguments_never_crash(capsys, tmp_path, args):
    try:
        _no_crash(capsys, ["synth", "-o", str(tmp_path / "o"), *args], (0, 1, 2))
    except SystemExit as e:  # argparse usage errors
        assert e.code == 2


@pytest.mark.parametrize("args", [["--bogus"], ["--profile"], ["--set"]])
def test_script_argument_errors_are_one_line(tmp_path, args):
    from .scripts_harness import calls, run_script, script_env

    done = run_script("10-networks.sh", script_env(tmp_path / "state", tmp_path / "data"), *args)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert calls(tmp_path / "state") == []


STEP_LINE_TEXT = st.lists(
    st.one_of(
        st.text(max_size=80),
        st.builds(
            lambda step, parts: f"step:{step}" + "".join(f" - {k}:{v}" for k, v in parts),
            st.integers(-5, 10**30),
            st.lists(st.tuples(st.text(max_size=12), st.text(max_size=12)), max_size=4),
        ),
    ),
    max_size=20,
).map("\n".join)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=STEP_LINE_TEXT)
def test_fuzzed_logs_never_crash_metrics(tmp_path, capsys, text):
    log, table = tmp_path / "job.log", tmp_path / "series.csv"
    log.write_text(text, errors="surrogateescape")
    _no_crash(capsys, ["metrics", str(log), "--csv", str(table)], (0, 1))
    table.unlink(missing_ok=True)


@FUZZ_ARGUMENTS
@given(
    verb=st.sampled_from(JOB_VERBS),
    args=st.lists(
        st.sampled_from(
            [
                "job-1",
                "--follow",
                "--address",
                "http://",
                "ray://x:1",
                "127.0.0.1:9",
                "--cluster",
                "",
                "--key",
                "-n",
                "--compose-only",
                "--set",
                "run.kind=RayJob",
                "--timeout",
                "-1",
            ]
        ),
        max_size=6,
    ),
)
def test_fuzzed_job_arguments_never_crash(capsys, verb, args):
    # Port 9 (discard) has no listener here: nothing reaches a cluster, every path ends in a refusal.
    try:
        _no_crash(capsys, [verb, *args, "--address", "127.0.0.1:9"], (0, 1, 2))
    except SystemExit as e:  # argparse usage errors
        assert e.code == 2


def test_version_names_the_kit_and_its_verl(capsys) -> None:
    from verl_grpo import __version__
    from verl_grpo.facts.verl_releases import DEFAULT_VERL_VERSION

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert (
        capsys.readouterr().out.strip() == f"verl-grpo {__version__} (verl {DEFAULT_VERL_VERSION} by default)"
    )


@pytest.mark.parametrize("bad", ["-3", "nan", "inf", "ten"])
def test_plan_refuses_a_price_that_is_not_a_price(capsys, bad) -> None:
    with pytest.raises(SystemExit) as done:
        main(["plan", "--profile", "h200-standard", f"--gpu-hour-price={bad}"])
    assert done.value.code == 2
    assert "--gpu-hour-price" in capsys.readouterr().err


def test_generate_outside_the_repository_writes_nothing(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["generate"]) == 2
    assert "is not a verl-grpo checkout" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_without_profile_the_verbs_take_the_profiles_the_values_agree_with(capsys) -> None:
    """`check -f overlays/h200-standard/values.yaml` used to report under every b200 profile too."""
    h200 = str(REPO / "overlays" / "h200-standard" / "values.yaml")
    assert main(["check", "-f", h200]) == 0
    assert capsys.readouterr().err.splitlines() == ["h200-standard: verl 0.6.1: ok"]
    assert main(["plan", "-f", str(REPO / "overlays" / "h200-autopilot" / "values.yaml")]) == 0
    assert capsys.readouterr().out.startswith("h200 on a3-ultragpu-8g: 2 nodes x 8 GPUs (autopilot")
    assert main(["check", "--profile", "b200-standard", "-f", h200]) == 1
    assert "gpu.type: 'h200' from your values contradicts the profile's 'b200'" in capsys.readouterr().err


def test_an_unknown_profile_gets_a_did_you_mean(capsys) -> None:
    assert main(["check", "--profile", "h200-standar"]) == 1
    assert "(did you mean 'h200-standard'?)" in capsys.readouterr().err


def test_decimals_go_through_set_json_as_with_helm(capsys) -> None:
    """--set gives Helm's string "0.00001", which the schema refuses with the way out; --set-json works."""
    assert main(["check", "--profile", "b200-standard", "--set", "training.learningRate=0.00001"]) == 1
    assert "use --set-json training.learningRate=0.00001" in capsys.readouterr().err
    assert main(["check", "--profile", "b200-standard", "--set-json", "training.learningRate=0.00001"]) == 0


def test_output_that_is_not_a_folder_is_refused_before_rendering(tmp_path, capsys) -> None:
    (tmp_path / "afile").write_text("mine\n")
    for target, why in (
        ("afile", "is a file; -o takes a folder"),
        ("afile/x", "afile is a file, not a folder"),
    ):
        assert (
            main(
                ["synth", "-f", str(DIST_VALUES), "--profile", "h200-standard", "-o", str(tmp_path / target)]
            )
            == 2
        )
        assert why in capsys.readouterr().err
    assert (tmp_path / "afile").read_text() == "mine\n"


@pytest.mark.parametrize("failing", ["first", "second"])
def test_a_swap_that_fails_keeps_the_old_tree_and_leaves_no_old_folder(
    tmp_path, monkeypatch, capsys, failing
):
    """Where renameat2 cannot swap, two renames do; a read-only or full disk fails one of them (as
    root here nothing is read-only, so the failure is injected at the rename itself)."""
    out = tmp_path / "out"
    assert main(["synth", "-f", str(DIST_VALUES), "--profile", "h200-standard", "-o", str(out)]) == 0
    before = tree(out)
    real_replace, seen = os.replace, []

    def replace(src, dst):  # noqa: ANN001
        if Path(dst).name.startswith(atomic.JOURNAL_PREFIX) or tmp_path not in Path(dst).parents:
            return real_replace(src, dst)  # the journal's and the caches' renames
        seen.append(src)
        if (len(seen) == 1) == (failing == "first") and len(seen) <= 2:
            raise OSError(30, "Read-only file system", str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    monkeypatch.setattr(atomic.os, "replace", replace)
    assert (
        main(
            [
                "synth",
                "-f",
                str(DIST_VALUES),
                "--profile",
                "h200-standard",
                "-o",
                str(out),
                "--set",
                "run.name=second",
            ]
        )
        == 1
    )
    assert "Read-only file system" in capsys.readouterr().err  # the OS's words, no "internal error"
    monkeypatch.undo()
    assert tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no .out.new-*, no .out.old-*


def test_ctrl_c_exits_130_without_a_traceback_or_jsii_leftovers(tmp_path) -> None:
    """SIGINT to the whole process group, as a terminal's Ctrl-C, while jsii's node kernel starts."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    cli = [
        str(REPO / ".venv" / "bin" / "verl-grpo"),
        "synth",
        "--profile",
        "h200-standard",
        "-f",
        str(DIST_VALUES),
    ]
    for delay in (0.3, 0.45, 0.6, 0.8):
        proc = subprocess.Popen(
            [*cli, "-o", str(tmp_path / "out")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
        )
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        if proc.returncode == 0:
            continue  # it finished first
        assert proc.returncode == 130, err
        assert "Traceback" not in err and err.strip().splitlines()[-1] == "verl-grpo: interrupted"
        time.sleep(0.5)  # node exits on the same signal
        assert list(tmp_path.glob("**/jsii-kernel-*")) == [] and not (tmp_path / "out").exists()
        return
    pytest.fail("synth finished before every SIGINT: nothing was tested")


def test_without_node_a_rendering_verb_says_what_to_install(tmp_path) -> None:
    """cdk8s runs on jsii's node kernel: without node on PATH, one line, not jsii's traceback."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    env = {**os.environ, "PATH": str(bin_dir)}
    cli = [
        str(REPO / ".venv" / "bin" / "verl-grpo"),
        "synth",
        "--profile",
        "h200-standard",
        "-o",
        "-",
        "-f",
        str(DIST_VALUES),
    ]
    done = subprocess.run(cli, capture_output=True, text=True, env=env, check=False, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "verl-grpo synth: node (Node.js 20, which cdk8s runs on) is not on PATH: "
        "install it (README.md, 'The two commands')"
    ]


def _stderr_on_a_terminal(args: list[str]) -> tuple[int, str]:
    """The CLI with stderr on a pseudo-terminal (where the spinner shows) and stdout piped."""
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [str(REPO / ".venv" / "bin" / "verl-grpo"), *args], stdout=subprocess.PIPE, stderr=follower
    )
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the terminal's last writer is gone
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=300)
    os.close(leader)
    return proc.returncode, seen.decode(errors="replace")


def test_slow_verbs_show_what_they_do_on_a_terminal(tmp_path) -> None:
    code, err = _stderr_on_a_terminal(["generate", "--root", str(tmp_path)])
    assert code == 0 and f"rendering and validating {len(shipped_profiles())} profiles" in err, err
    code, err = _stderr_on_a_terminal(["plan", "--profile", "h200-standard"])
    assert code == 0 and "checking h200-standard with verl 0.6.1's config rules" in err, err
    folder = tmp_path / "dist" / "h200-standard"
    code, err = _stderr_on_a_terminal(["validate", str(folder)])
    objects = len([p for p in folder.glob("*.yaml") if p.name != "kustomization.yaml"])  # one per file
    assert code == 1 and f"validating {objects} objects" in err, err  # 1: dist/'s placeholder bucket


def test_captured_stderr_gets_no_spinner(tmp_path) -> None:
    done = subprocess.run(
        [str(REPO / ".venv" / "bin" / "verl-grpo"), "plan", "--profile", "h200-standard"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "checking" not in done.stderr
