"""facts/capacity.py: the one table of where GPU nodes come from (pool flags and node labels)."""

from __future__ import annotations

from typing import get_args

from verl_grpo.facts.capacity import AUTOSCALE_FLAGS, CAPACITIES
from verl_grpo.facts.machines import gpu_profiles
from verl_grpo.values.model import Capacity


def test_the_table_holds_exactly_the_capacities_the_values_accept() -> None:
    """cluster.capacity's choices and the table are one list: a new choice without flags and labels
    (or a row no one can pick) fails here."""
    assert set(CAPACITIES) == set(get_args(Capacity))
    assert all(name == c.name for name, c in CAPACITIES.items())


def test_every_capacity_a_machine_is_offered_with_has_a_row() -> None:
    """data/gpus/ names the capacities GKE offers each machine with; each needs its flags here."""
    for gpu in gpu_profiles().values():
        assert gpu.capacities and set(gpu.capacities) <= set(CAPACITIES), gpu.name


def test_spot_and_flex_start_nodes_carry_the_labels_gke_gives_them() -> None:
    """GKE labels Spot VMs cloud.google.com/gke-spot=true; flex-start Jobs select gke-flex-start=true
    (the sources in the module's docstring); reservation and on-demand nodes carry no such label."""
    assert CAPACITIES["spot"].labels == {"cloud.google.com/gke-spot": "true"}
    assert CAPACITIES["flex-start"].labels == {"cloud.google.com/gke-flex-start": "true"}
    assert CAPACITIES["reservation"].labels == {} and CAPACITIES["on-demand"].labels == {}


def test_flex_start_pools_take_the_flags_of_gke_s_flex_start_page() -> None:
    """dws-flex-start-training: --flex-start, --reservation-affinity none, --no-enable-autorepair
    (the autoscaling part of that command line comes from AUTOSCALE_FLAGS)."""
    flags = CAPACITIES["flex-start"].pool_flags
    assert {"--flex-start", "--reservation-affinity=none", "--no-enable-autorepair"} == set(flags)
    assert CAPACITIES["spot"].pool_flags == ("--spot",) and CAPACITIES["on-demand"].pool_flags == ()


def test_a_reservation_is_named_in_its_flags_and_in_autopilot_s_selectors() -> None:
    """Autopilot consumes specific reservations only: both the pool flag and the selector carry the
    {reservation} placeholder that the values fill in."""
    reservation = CAPACITIES["reservation"]
    assert "--reservation={reservation}" in reservation.pool_flags
    assert "--reservation-affinity=specific" in reservation.pool_flags
    assert reservation.autopilot_labels == {
        "cloud.google.com/reservation-name": "{reservation}",
        "cloud.google.com/reservation-affinity": "specific",
    }
    others = [c for c in CAPACITIES.values() if c.name != "reservation"]
    assert not any("{reservation}" in " ".join(c.pool_flags) for c in others)


def test_every_pool_scales_from_zero_with_location_policy_any() -> None:
    """Location policy ANY needs autoscaling on and 0 initial nodes (cluster-autoscaler docs), and
    no capacity's own flags may contradict the shared ones."""
    assert {"--enable-autoscaling", "--num-nodes=0", "--total-min-nodes=0", "--location-policy=ANY"} == set(
        AUTOSCALE_FLAGS
    )
    shared = {flag.split("=")[0] for flag in AUTOSCALE_FLAGS}
    for c in CAPACITIES.values():
        assert not shared & {flag.split("=")[0] for flag in c.pool_flags}, c.name
        assert c.idle_note, c.name
