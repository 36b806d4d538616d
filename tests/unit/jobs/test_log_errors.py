from verl_grpo.jobs.log_errors import exception_line, exception_lines

# The end of a driver log seen in CI: the cause, then Ray's shutdown noise that filled the 10 lines
# Ray keeps in its failure message.
FAILED_DRIVER_LOG = """\
(TaskRunner pid=4242) step:3 - critic/score/mean:np.float64(0.15)
Traceback (most recent call last):
  File "/probe/step_lines.py", line 52, in <module>
    sys.exit(main())
ray.exceptions.RayTaskError(RuntimeError): ray::TaskRunner.run() (pid=4242, ip=127.0.0.1)
  File "/probe/step_lines.py", line 42, in run
    raise RuntimeError(f"probe: failing on purpose at step {step}")
RuntimeError: probe: failing on purpose at step 3
Exception ignored in: <function Worker.__del__ at 0x7f>
Traceback (most recent call last):
  File "/ray/_private/worker.py", line 1, in __del__
  raise RuntimeError("can't register atexit after shutdown")
RuntimeError: can't register atexit after shutdown
RuntimeError: can't register atexit after shutdown
"""


def test_the_cause_comes_first_and_each_line_once() -> None:
    assert exception_lines(FAILED_DRIVER_LOG.splitlines()) == [
        "ray.exceptions.RayTaskError(RuntimeError): ray::TaskRunner.run() (pid=4242, ip=127.0.0.1)",
        "RuntimeError: probe: failing on purpose at step 3",
        "RuntimeError: can't register atexit after shutdown",
    ]


def test_ray_prefix_and_colours_are_stripped() -> None:
    line = "\x1b[36m(WorkerDict pid=7, ip=10.0.0.2)\x1b[0m omegaconf.errors.ConfigAttributeError: Key 'x'"
    assert exception_line(line) == "omegaconf.errors.ConfigAttributeError: Key 'x'"


def test_code_and_prose_are_not_exception_lines() -> None:
    for line in (
        '    raise RuntimeError("can\'t register atexit after shutdown")',
        "Exception ignored in: <function Worker.__del__ at 0x7f>",
        "step:3 - actor/pg_loss:-0.03",
        "Error executing job with overrides: []",
        "RuntimeError:",
    ):
        assert exception_line(line) is None, line


def test_at_most_the_first_few() -> None:
    lines = [f"ValueError: number {i}" for i in range(20)]
    assert exception_lines(lines, most=3) == [
        "ValueError: number 0",
        "ValueError: number 1",
        "ValueError: number 2",
    ]
