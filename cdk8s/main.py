"""Entry point for the cdk8s CLI (`cdk8s synth`, see cdk8s.yaml): the shipped profiles, one chart each.

`verl-grpo synth` is the main path (validated, atomic, one file per object); this exists so
people who drive cdk8s with its CLI get the same objects.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cdk8s  # noqa: E402
from verl_grpo.constructs.app import VerlGrpoChart  # noqa: E402
from verl_grpo.output.dist import dist_layer  # noqa: E402
from verl_grpo.pipeline import load_spec  # noqa: E402
from verl_grpo.problems import Problems  # noqa: E402
from verl_grpo.profiles import shipped_profiles  # noqa: E402

app = cdk8s.App()
for profile in shipped_profiles():
    try:
        spec = load_spec(dist_layer(profile))  # the placeholder bucket, as dist/
    except Problems as e:
        sys.exit(str(e.at(profile.name)))
    VerlGrpoChart(app, profile.name, spec)
app.synth()
