"""verl_check/config.py: verl's composed config approximated without verl: its recorded defaults
(data/verl/<version>.json) plus Hydra overrides, as Hydra's struct mode applies them."""

from __future__ import annotations

from verl_grpo.facts.verl_releases import DEFAULT_VERL_VERSION
from verl_grpo.verl_check.config import (
    ComposedConfig,
    compose,
    defaults,
    parse_override,
    parse_value,
    supported_versions,
)

BATCH = "data.train_batch_size"


def test_the_kits_verl_version_is_among_the_recorded_ones() -> None:
    """The verl the kit runs by default has its recorded defaults; the versions are listed in order."""
    versions = supported_versions()
    assert DEFAULT_VERL_VERSION in versions and versions == sorted(versions)
    for version in versions:
        assert isinstance(defaults(version)[BATCH], int)  # a flat map of dotted keys


def test_override_values_follow_hydras_grammar() -> None:
    """null, booleans in any case, ints, floats, lists and quoted strings; anything else is text."""
    assert parse_value("null") is None and parse_value("NULL") is None
    assert parse_value("True") is True and parse_value("false") is False
    assert parse_value("64") == 64 and isinstance(parse_value("64"), int)
    assert parse_value("1e-6") == 1e-6 and parse_value("0.4") == 0.4
    assert parse_value("[console, wandb]") == ["console", "wandb"] and parse_value("[]") == []
    assert parse_value("[1, 2]") == [1, 2]
    assert parse_value("'01'") == "01" and parse_value('"a b"') == "a b"
    assert parse_value(" /data/models/x ") == "/data/models/x"


def test_an_override_is_split_into_prefix_key_and_value() -> None:
    """'+' adds, '++' forces; the first '=' ends the key; a deletion (~key) is no key=value."""
    o = parse_override("++trainer.logger=[console]")
    assert o is not None and (o.prefix, o.key, o.value) == ("++", "trainer.logger", ["console"])
    o = parse_override("+trainer.note=a=b")  # the first '=' splits
    assert o is not None and (o.prefix, o.key, o.value) == ("+", "trainer.note", "a=b")
    assert parse_override("~trainer.logger") is None  # a deletion: not key=value


def test_struct_mode_refuses_unknown_keys_and_a_plus_on_a_known_one() -> None:
    """Hydra's struct mode: a new key needs '+', and '+' on an existing key is an error; '++'
    sets either way."""
    cfg = compose(
        "0.6.1", [f"{BATCH}=64", "data.train_batchsize=8", f"+{BATCH}=8", "+trainer.note=1", "oops"]
    )
    assert cfg.get(BATCH) == 64 and cfg.get("trainer.note") == 1
    assert cfg.overridden == {BATCH, "trainer.note"}
    keys = [key for key, _ in cfg.compose_errors]
    assert keys == ["data.train_batchsize", BATCH, "oops"]
    assert "use '+data.train_batchsize='" in cfg.compose_errors[0][1]
    assert "drop the '+'" in cfg.compose_errors[1][1]
    assert compose("0.6.1", [f"++{BATCH}=32"]).get(BATCH) == 32
    assert defaults("0.6.1")[BATCH] != 64  # composing copies, the recorded defaults stay


def test_get_resolves_omegaconf_interpolations() -> None:
    """`${a.b}`, `${.sibling}` (relative to the key's section) and `${oc.select:a.b,fallback}`."""
    cfg = ComposedConfig(
        "0.6.1",
        {
            "a.b": 3,
            "a.c": "${.b}",
            "x.y": "${a.c}",
            "x.z": "${oc.select:missing.key,32}",
            "x.w": "${oc.select:missing.key}",
            "x.loop": "${x.loop}",
        },
    )
    assert cfg.get("a.c") == 3 and cfg.get("x.y") == 3
    assert cfg.get("x.z") == 32 and cfg.get("x.w") is None
    assert cfg.get("x.loop") == "${x.loop}"  # a cycle ends instead of recursing forever


def test_an_interpolated_default_follows_the_key_it_points_at() -> None:
    """verl's actor.use_remove_padding reads model.use_remove_padding: overriding the model's
    setting changes the actor's."""
    actor, model = "actor_rollout_ref.actor.use_remove_padding", "actor_rollout_ref.model.use_remove_padding"
    assert defaults("0.6.1")[actor].startswith("${")
    assert compose("0.6.1", [f"{model}=false"]).get(actor) is False
    assert compose("0.6.1", [f"{model}=true"]).get(actor) is True
