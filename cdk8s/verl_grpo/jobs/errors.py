"""What the job verbs refuse with: one line, what was asked and what would work."""


class JobsError(Exception):
    pass


def run_tool(cmd: list[str], why: str) -> str:
    """Run kubectl or gcloud for the job verbs: its output, or a JobsError saying what failed
    (its error lines, each once: kubectl repeats its retries) or that the tool is missing and
    `why` it is needed."""
    import subprocess

    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except FileNotFoundError as e:
        raise JobsError(f"{cmd[0]} is not installed: {why}") from e
    if done.returncode != 0:
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        said = " ".join(dict.fromkeys(lines)) or f"exit {done.returncode}"
        raise JobsError(f"{' '.join(cmd[:3])} failed: {said}")
    return done.stdout
