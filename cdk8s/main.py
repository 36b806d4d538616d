"""Entry point for the cdk8s CLI (`cdk8s synth`, see cdk8s.yaml): the shipped profiles, one chart each.

`verl-grpo synth` is the main path (validated, atomic, one file per object); this exists so
people who drive cdk8s with its CLI get the same objects.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cdk8s  # noqa: E402
from verl_grpo.app import VerlGrpoChart  # noqa: E402
from verl_grpo.profiles import shipped_profiles  # noqa: E402
from verl_grpo.values.derive import Release, deploy_spec  # noqa: E402
from verl_grpo.values.loader import load_values  # noqa: E402
from verl_grpo.values.rules import check  # noqa: E402

app = cdk8s.App()
for profile in shipped_profiles():
    spec = deploy_spec(load_values(profile.layer()), Release("verl", "default"))
    problems = check(spec)
    if problems:
        sys.exit("\n".join(f"error: {profile.name}: {p}" for p in problems))
    VerlGrpoChart(app, profile.name, spec)
app.synth()
