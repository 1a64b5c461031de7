"""Energy trees as Python objects: what Monitor, attribute_torch_trace and jouleprof.torch.profile
return (the profile schema's node fields, docs/schema.md)."""

import dataclasses


@dataclasses.dataclass
class Node:
    """One node of the breakdown tree: the run, a pass ([forward], [backward], [optimizer]), a
    module, an operator. Figures are inclusive (children's included); `self_*` are what no child
    holds. `share` is the node's fraction of the run's total energy, as in every jouleprof output.
    `provenance` says where the figure comes from: interpolated, estimated, simulated, ...
    `energy_j_low` and `energy_j_high` bound the 95 % interval of `energy_j` (docs/uncertainty.md;
    None in profiles older than schema 3); `uncertainty_dominant` names the term that dominates
    it, and `uncertainty` is the interval's farther end as a fraction of `energy_j`.
    `energy_stats` (None unless the node repeats) is the node's energy per repetition, over the
    run's steps for the step node and every node below it: a dict with n, mean, median, stdev and
    the Student-t 95 % interval of the mean (ci95_low, ci95_high); `energy_j` stays the sum over
    the steps, with the attribution's interval."""

    name: str
    category: str
    pass_: str
    energy_j: float
    self_energy_j: float
    time_ns: int
    self_time_ns: int
    calls: int
    provenance: str
    share: float
    energy_by_channel_j: dict
    children: list
    energy_j_low: float = None
    energy_j_high: float = None
    uncertainty_dominant: str = None
    energy_stats: dict = None

    @property
    def time_s(self):
        return self.time_ns * 1e-9

    @property
    def mean_power_w(self):
        return self.energy_j / self.time_s if self.time_ns > 0 else 0.0

    @property
    def uncertainty(self):
        """The 95 % interval's farther end from energy_j as a fraction of it (0.05 is ±5 %);
        None without an interval or for a figure of 0 J."""
        if self.energy_j_low is None or self.energy_j_high is None or self.energy_j == 0:
            return None
        farther = max(self.energy_j - self.energy_j_low, self.energy_j_high - self.energy_j)
        return farther / abs(self.energy_j)

    def child(self, name):
        """The child called `name`, or None."""
        return next((c for c in self.children if c.name == name), None)

    def walk(self):
        """This node and every node below it, parents before children."""
        yield self
        for c in self.children:
            yield from c.walk()

    def find(self, name):
        """The first node called `name` in walk() order, or None."""
        return next((n for n in self.walk() if n.name == name), None)

    def __repr__(self):
        band = "" if self.uncertainty is None else f" ±{100 * self.uncertainty:.1f}%"
        return (f"Node({self.name!r}, energy_j={self.energy_j:.6g}{band}, share={self.share:.4f}, "
                f"time_ns={self.time_ns}, calls={self.calls}, provenance={self.provenance!r}, "
                f"children={len(self.children)})")


def node_from_dict(node, total_j=None):
    """A Node tree from the profile JSON's `tree` object."""
    total_j = node["energy_j"] if total_j is None else total_j
    return Node(
        name=node["name"],
        category=node.get("category", "region"),
        pass_=node.get("pass", "none"),
        energy_j=node["energy_j"],
        self_energy_j=node.get("self_energy_j", 0.0),
        time_ns=node.get("time_ns", 0),
        self_time_ns=node.get("self_time_ns", 0),
        calls=node.get("calls", 0),
        provenance=node.get("provenance", "measured"),
        share=node["energy_j"] / total_j if total_j else 0.0,
        energy_by_channel_j=dict(node.get("energy_by_channel_j", {})),
        children=[node_from_dict(c, total_j) for c in node.get("children", [])],
        energy_j_low=node.get("energy_j_low"),
        energy_j_high=node.get("energy_j_high"),
        uncertainty_dominant=node.get("uncertainty_dominant"),
        energy_stats=node.get("energy_stats"),
    )
