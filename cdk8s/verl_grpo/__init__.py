"""verl-grpo: deploy kit for verl GRPO fine-tunes on GKE."""

import os

# jsii (cdk8s, constructs) prints an end-of-life banner for Node 20 on every start otherwise.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

__version__ = "0.1.0"
