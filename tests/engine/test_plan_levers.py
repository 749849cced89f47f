"""The fleet planner on the merged engine: layouts over nodes, the levers, the KV transfer between pools.

Each figure is checked against the engine's own report of the same deployment, or against what the
lever means (a draft pass over the tokens it keeps, a transfer over the link it crosses).
"""
from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.levers.disaggregation import kv_transfer_seconds
from engine.plan import Targets, Traffic, plan_fleet
from engine.plan_costs import replica_costs
from engine.scenario import Scenario
from tests.engine.fixtures import CATALOG, report

TWO_NODES = Scenario(model="llama-3.1-405b", weights="fp8", kv="fp8", gpus=16, prompt_tokens=1000, output_tokens=200)


def test_a_replica_spanning_two_nodes_counts_its_layouts_gpus_and_nodes():
    costs = replica_costs(TWO_NODES, CATALOG)
    alone = report(**{f: getattr(TWO_NODES, f) for f in ("model", "weights", "kv", "gpus", "prompt_tokens",
                                                         "output_tokens")})
    assert (costs.gpus_per_replica, costs.nodes_per_replica) == (alone.layout.gpus, alone.nodes) == (16, 2)
    p = plan_fleet(TWO_NODES, Traffic(4), Targets(5.0, 0.2), catalog=CATALOG)
    assert p.gpus == 16 * p.replicas and p.nodes == 2 * p.replicas and p.gpus_per_node == 8


def test_the_kv_of_a_disaggregated_request_crosses_the_network_when_two_replicas_do_not_share_a_node():
    small, large = (replica_costs(Scenario(gpus=g), CATALOG) for g in (2, 8))
    assert (small.kv_link, large.kv_link) == ("nvlink", "network")
    for costs, gpus in ((small, 2), (large, 8)):
        assert float(costs.kv_transfer_seconds(1000)) == pytest.approx(
            kv_transfer_seconds(Scenario(gpus=gpus), CATALOG, link=costs.kv_link))


def test_speculative_decoding_makes_a_token_cost_a_draft_and_verify_pass_over_what_it_keeps():
    plain = Scenario(gpus=2, prompt_tokens=1000, output_tokens=500)
    drafted = Scenario(gpus=2, prompt_tokens=1000, output_tokens=500, draft_model="llama-3.2-1b", draft_tokens=4,
                       acceptance=0.8)
    spec = report(gpus=2, draft_model="llama-3.2-1b", draft_tokens=4, acceptance=0.8).speculative
    context = report(gpus=2).decode.context_tokens
    per_token = float(replica_costs(drafted, CATALOG).decode_step_seconds(1, context))
    assert per_token == pytest.approx(spec.plain_step_seconds / spec.speedup)
    assert per_token < float(replica_costs(plain, CATALOG).decode_step_seconds(1, context)) / 2
    # the draft also reads the prompt, and its weights and KV take room from the batch
    assert replica_costs(drafted, CATALOG).prefill_seconds(1, 1000) > replica_costs(plain, CATALOG).prefill_seconds(1, 1000)
    assert replica_costs(drafted, CATALOG).most_sequences < replica_costs(plain, CATALOG).most_sequences


def test_plan_takes_the_layout_and_lever_options_of_report(capsys):
    code = main(["plan", "--model", "llama-3.1-405b", "--weights", "fp8", "--kv", "fp8", "--gpus", "16",
                 "--tp", "8", "--pp", "2", "--prompt", "1000", "--output", "200", "--cached-prefix", "512",
                 "--rate", "4", "--ttft-slo", "5", "--tpot-slo", "0.2", "--json"], CATALOG)
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["gpus_per_replica"] == 16 and data["nodes"] == 2 * data["replicas"]
