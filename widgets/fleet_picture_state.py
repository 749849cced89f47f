"""What the fleet picture draws: nodes of GPUs, the replicas framed on them, the links inside and between nodes.

Qt-free. Each drawn node lists its GPU slots: the replica each slot's GPU
belongs to (0, 1, ...) or ``FREE`` (a slot of a node the fleet does not fill).
Inside a node the GPUs hang on one solid bar (the node's own link, NVLink or
PCIe); the nodes hang on one dashed line (the slower network between them).
A fleet of more nodes than a picture can draw one by one shows its first
nodes and a box that says how many more there are (``hidden_nodes``,
``more_label``): the count is always said, never left to the eye. The legend
names the two links and what a frame is, each beside a sample of its line.
Every text arrives formatted and translated; ``message`` is drawn instead of
the fleet (computing, a refusal).
"""
from __future__ import annotations


from engine.frozen import frozen

FREE = -1
LABEL_PRIORITY = ("message", "headline", "more", "legend")


@frozen
class FleetNode:
    slots: tuple[int, ...]            # per GPU of the node: its replica (0, 1, ...) or FREE


@frozen
class FleetPictureState:
    nodes: tuple[FleetNode, ...] = ()         # drawn one by one, in order
    hidden_nodes: int = 0                     # nodes of the fleet not drawn (the "more" box)
    hidden_gpus: int = 0                      # the fleet's GPUs on them
    slot_columns: int = 8                     # GPU slots per row inside a node
    headline: str = ""                        # "18 GPUs: 9 replicas of 2 GPUs on 3 nodes"
    more_label: str = ""                      # "+ 120 more nodes (960 GPUs)"
    node_link_label: str = ""                 # legend: the solid bar inside a node
    network_label: str = ""                   # legend: the dashed line between nodes
    replica_label: str = ""                   # legend: a frame is one replica
    free_label: str = ""                      # legend: a dashed slot is a free GPU (only when one is drawn)
    message: str = ""
    message_role: str = "muted"

    @property
    def drawn_gpus(self) -> int:
        return sum(1 for node in self.nodes for slot in node.slots if slot != FREE)

    @property
    def has_free_slots(self) -> bool:
        return any(slot == FREE for node in self.nodes for slot in node.slots)


def replica_runs(slots: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """(replica, first slot, last slot) of each run of consecutive slots of one replica (free slots skipped)."""
    runs: list[tuple[int, int, int]] = []
    for index, replica in enumerate(slots):
        if replica == FREE:
            continue
        if runs and runs[-1][0] == replica and runs[-1][2] == index - 1:
            runs[-1] = (replica, runs[-1][1], index)
        else:
            runs.append((replica, index, index))
    return runs
