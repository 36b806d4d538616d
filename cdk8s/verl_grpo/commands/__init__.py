"""One module per verb; each `add`s its parser with `run` as the parser's default (cli.py dispatches)."""

from . import check, doctor, env, generate, init, jobs, plan, postmortem, schema, synth, validate

VERBS = (init, doctor, synth, generate, check, plan, env, validate, schema, jobs, postmortem)
