"""Prints verl's per-step console lines from a Ray actor, as verl's trainer does, with verl's own
formatter. Settings arrive as Hydra-style extra args: +probe.steps=N, +probe.fail_at=N,
+probe.step_seconds=S."""

from __future__ import annotations

import sys
import time


def expected_metrics(step: int) -> dict[str, float]:
    return {
        "critic/score/mean": round(0.05 * step, 4),
        "response_length/mean": 200.0 + 3 * step,
        "actor/pg_loss": round(-0.01 * step, 4),
        "timing_s/step": 0.25,
    }


def settings(argv: list[str]) -> dict[str, str]:
    pairs = (a.removeprefix("+probe.").split("=", 1) for a in argv if a.startswith("+probe."))
    return dict(pairs)


def main() -> int:
    import ray

    given = settings(sys.argv[1:])
    steps, fail_at = int(given.get("steps", "12")), int(given.get("fail_at", "0"))
    pause = float(given.get("step_seconds", "0.05"))

    @ray.remote(num_cpus=0)
    class TaskRunner:
        def run(self) -> None:
            import numpy as np
            from verl.utils.logger.aggregate_logger import concat_dict_to_str

            for step in range(1, steps + 1):
                metrics = {k: np.float64(v) for k, v in expected_metrics(step).items()}
                print(concat_dict_to_str(metrics, step=step), flush=True)
                if step == fail_at:
                    raise RuntimeError(f"probe: failing on purpose at step {step}")
                time.sleep(pause)

    ray.init()
    runner = TaskRunner.remote()
    ray.get(runner.run.remote())
    return 0


if __name__ == "__main__":
    sys.exit(main())
