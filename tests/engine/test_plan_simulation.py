"""The replica simulation: its event jumps agree with a step-by-step run, and its queue behaves as queues do."""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from engine.levers.fields import PAGE_TOKENS
from engine.plan_costs import PREFILL_TOKENS_PER_PASS, fleet_nodes, replica_costs
from engine.plan_simulation import sample_workload, simulate_replica
from engine.scenario import Scenario
from tests.engine.fixtures import CATALOG, H800, report


def _step_by_step(costs, workload, rate):
    """The same scheduling, one decode step at a time, each step timed by the engine itself."""
    arrival = workload.unit_arrival_seconds / rate
    prompt, output = workload.prompt_tokens.tolist(), workload.output_tokens.tolist()
    n = len(prompt)
    held = [costs.kv_tokens_held(p, o) for p, o in zip(prompt, output)]
    first, last = [None] * n, [None] * n
    running: dict[int, list[int]] = {}          # request -> [context, steps left]
    waiting, clock, reserved, taken = deque(), 0.0, 0, 0
    while any(t is None for t in last):
        while taken < n and arrival[taken] <= clock:
            waiting.append(taken)
            taken += 1
        fits = lambda i: reserved == 0 or reserved + held[i] <= costs.kv_token_capacity  # noqa: E731
        if waiting and len(running) < costs.batch_limit and fits(waiting[0]):
            group, tokens = [], 0
            while (waiting and len(running) + len(group) < costs.batch_limit and fits(waiting[0])
                   and (not group or tokens + prompt[waiting[0]] <= PREFILL_TOKENS_PER_PASS)):
                i = waiting.popleft()
                group.append(i)
                tokens += prompt[i]
                reserved += held[i]
            clock += costs.prefill_seconds(len(group), round(tokens / len(group)))
            for i in group:
                first[i] = clock
                if output[i] > 1:
                    running[i] = [prompt[i], output[i] - 1]
                else:
                    last[i], reserved = clock, reserved - held[i]
            continue
        if not running:
            clock = arrival[taken]
            continue
        batch = len(running)
        clock += float(costs.decode_step_seconds(batch, sum(c for c, _ in running.values()) / batch))
        for i in list(running):
            running[i][0] += 1
            running[i][1] -= 1
            if running[i][1] == 0:
                del running[i]
                last[i], reserved = clock, reserved - held[i]
    return np.array(first), np.array(last)


@pytest.mark.parametrize("mode, tolerance", [("realistic", 1e-9), ("ideal", 2e-3)])
@pytest.mark.parametrize("rate", [0.5, 4.0, 40.0])
def test_jumping_from_event_to_event_gives_the_step_by_step_times(mode, tolerance, rate):
    costs = replica_costs(Scenario(gpu="h100-sxm", model="llama-3.1-8b", prompt_tokens=300, output_tokens=60,
                                   mode=mode), CATALOG, batch_limit=24)
    workload = sample_workload(300, 60, requests=120, seed=3, prompt_spread=1.0, output_spread=1.0)
    first, last = _step_by_step(costs, workload, rate)
    run = simulate_replica(costs, workload, rate)
    measured = workload.measured
    arrival = workload.unit_arrival_seconds[measured] / rate
    np.testing.assert_allclose(run.ttft_seconds, first[measured] - arrival, rtol=tolerance)
    decoding = workload.output_tokens[measured] > 1
    expected_tpot = (last[measured] - first[measured])[decoding] / (workload.output_tokens[measured][decoding] - 1)
    np.testing.assert_allclose(run.tpot_seconds, expected_tpot, rtol=tolerance)


def _default_costs():
    return replica_costs(Scenario(gpus=2), CATALOG)


def test_alone_a_request_waits_only_for_its_own_prefill_and_steps():
    costs = _default_costs()
    run = simulate_replica(costs, sample_workload(1000, 500, requests=300, seed=1), 0.001)
    alone = report(gpus=2)
    assert run.ttft_percentile(50) == pytest.approx(alone.ttft_seconds, rel=1e-9)
    assert run.tpot_percentile(50) == pytest.approx(alone.tpot_seconds, rel=1e-6)


def test_the_mean_batch_is_the_rate_times_the_time_in_decode_littles_law():
    costs = _default_costs()
    workload = sample_workload(1000, 500, requests=2000, seed=2)
    run = simulate_replica(costs, workload, 1.0)
    time_in_decode = run.tpot_seconds * (500 - 1)
    assert run.mean_batch == pytest.approx(1.0 * float(np.mean(time_in_decode)), rel=0.05)


def test_waiting_grows_as_the_rate_nears_what_the_replica_sustains():
    costs = _default_costs()
    workload = sample_workload(1000, 500, requests=1000, seed=4)
    ttft = [simulate_replica(costs, workload, rate).ttft_percentile() for rate in (0.2, 0.6, 1.0, 1.3, 1.6)]
    assert ttft == sorted(ttft)
    assert ttft[-1] > 10 * ttft[0]


def test_the_batch_never_holds_more_kv_than_fits():
    costs = _default_costs()
    run = simulate_replica(costs, sample_workload(1000, 500, requests=1000, seed=5), 50.0)
    assert run.mean_batch <= costs.most_sequences and run.room_waits > 0
    assert run.peak_kv_tokens <= costs.kv_token_capacity
    # paged: each request holds the pages of all its tokens, so the batch is the report's max_batch at that batch
    assert costs.kv_tokens_held(1000, 500) == -(-1500 // PAGE_TOKENS) * PAGE_TOKENS
    assert costs.most_sequences == report(gpus=2, batch=costs.most_sequences).max_batch
    assert report(gpus=2, batch=costs.most_sequences + 1).max_batch < costs.most_sequences + 1


def test_a_reserved_allocation_holds_its_reservation_and_a_shared_prefix_is_held_once():
    reserved = replica_costs(Scenario(gpus=2, kv_allocation="reserved", reserve_tokens=4000), CATALOG)
    assert reserved.kv_tokens_held(1000, 500) == 4000
    assert reserved.most_sequences == report(gpus=2, batch=reserved.most_sequences, kv_allocation="reserved",
                                             reserve_tokens=4000).max_batch
    paged, shared = _default_costs(), replica_costs(Scenario(gpus=2, cached_prefix_tokens=512), CATALOG)
    assert paged.kv_tokens_held(1000, 500) - shared.kv_tokens_held(1000, 500) == 512
    assert shared.most_sequences > paged.most_sequences
    assert shared.prefill_seconds(8, 1000) < paged.prefill_seconds(8, 1000) / 1.5     # 512 of 1,000 not computed


def test_a_decode_replica_counts_the_kv_transfer_in_the_time_per_token():
    costs = _default_costs()
    workload = sample_workload(1000, 2, requests=200, seed=6)
    run = simulate_replica(costs, workload, 0.01, "decode")
    one_step = float(costs.decode_step_seconds(1, 1000))
    assert run.tpot_percentile(50) == pytest.approx(one_step + float(costs.kv_transfer_seconds(1000)), rel=1e-6)
    assert 0 < float(costs.kv_transfer_seconds(1000)) < one_step      # 328 MB over NVLink: a millisecond or two


def test_a_prefill_replica_batches_prompts_up_to_its_token_budget():
    costs = _default_costs()
    workload = sample_workload(1000, 500, requests=400, seed=7)
    run = simulate_replica(costs, workload, 1000.0, "prefill")        # a flood: passes as full as allowed
    per_pass = costs.prefill_seconds(PREFILL_TOKENS_PER_PASS // 1000, 1000)
    assert run.prefill_busy_seconds == pytest.approx(per_pass * 400 / (PREFILL_TOKENS_PER_PASS // 1000), rel=0.01)
    assert run.decode_busy_seconds == 0 and len(run.tpot_seconds) == 0


def test_lengths_are_log_normal_with_the_mean_and_spread_asked_for():
    workload = sample_workload(1000, 200, requests=20000, seed=8, prompt_spread=1.0, output_spread=0.5)
    prompts, outputs = workload.prompt_tokens, workload.output_tokens
    assert prompts.mean() == pytest.approx(1000, rel=0.03) and outputs.mean() == pytest.approx(200, rel=0.03)
    assert prompts.std() / prompts.mean() == pytest.approx(1.0, rel=0.1)
    assert outputs.std() / outputs.mean() == pytest.approx(0.5, rel=0.1)
    assert np.median(prompts) < prompts.mean()                       # long-tailed
    gaps = np.diff(workload.unit_arrival_seconds)
    assert gaps.mean() == pytest.approx(1.0, rel=0.03) and gaps.std() == pytest.approx(1.0, rel=0.05)


def test_lengths_are_cut_to_the_longest_context():
    workload = sample_workload(1000, 1000, requests=5000, seed=9, prompt_spread=4, output_spread=4,
                               max_context_tokens=3000)
    assert (workload.prompt_tokens + workload.output_tokens).max() <= 3000
    assert workload.prompt_tokens.min() >= 1 and workload.output_tokens.min() >= 1


def test_replicas_fill_whole_nodes_of_their_gpu_and_none_is_split_across_two():
    assert [replica_costs(Scenario(gpus=g, model="llama-3.1-405b", prompt_tokens=100, output_tokens=10),
                          CATALOG).nodes_per_replica for g in (8, 16)] == [1, 2]        # the report's nodes
    assert H800.node_gpus == 8
    assert fleet_nodes(H800, 2, 5, 1) == 2                # four 2-GPU replicas to a node
    assert fleet_nodes(H800, 3, 5, 1) == 3                # two 3-GPU replicas to a node, two GPUs left idle
    assert fleet_nodes(H800, 16, 3, 2) == 6
    gb200 = CATALOG.gpu("gb200")                          # a 72-GPU rack holds eighteen 4-GPU replicas
    assert fleet_nodes(gb200, 4, 18, 1) == 1 and fleet_nodes(gb200, 4, 19, 1) == 2
