"""One module per verb; each `add`s its parser with `run` as the parser's default (cli.py dispatches)."""

from . import check, env, generate, init, jobs, plan, postmortem, schema, synth, validate

VERBS = (init, synth, generate, check, plan, env, validate, schema, jobs, postmortem)
