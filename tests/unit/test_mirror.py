"""The unit tier mirrors the package: the test of `x/y.py` is `tests/unit/x/test_y.py`, for every
module; a new module comes with its unit test."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "cdk8s" / "verl_grpo"
UNIT = Path(__file__).resolve().parent


def modules() -> list[str]:
    return sorted(
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if p.name != "__init__.py" and "__pycache__" not in p.parts
    )


def test_every_module_has_its_unit_test() -> None:
    without = [m for m in modules() if not (UNIT / Path(m).parent / f"test_{Path(m).name}").exists()]
    assert without == [], f"modules without tests/unit/<folder>/test_<module>.py: {without}"
    assert len(modules()) > 100  # the package, not an empty folder
