"""verl-grpo: deploy kit for verl GRPO fine-tunes on GKE."""

__version__ = "0.1.0"
# The verl release the job's image and overrides target; the chart's appVersion.
VERL_VERSION = "0.6.1"
