"""The energy of repeated work (a training step, an epoch) as the profile holds it
(`energy_per_step`, `energy_per_epoch`; docs/schema.md, docs/uncertainty.md "Repetition")."""

import dataclasses


@dataclasses.dataclass
class RepeatedEnergy:
    """One repetition's mean energy `energy_j` over `n` repetitions, with the 95 % interval
    [`energy_j_low`, `energy_j_high`]: the repetitions' Student-t interval combined with the terms
    that every repetition has alike; `uncertainty_dominant` names the term that dominates it.
    `stdev` is the repetitions' spread, [`ci95_low`, `ci95_high`] the Student-t interval alone."""

    n: int
    energy_j: float
    energy_j_low: float
    energy_j_high: float
    uncertainty_dominant: str
    median_j: float
    stdev_j: float
    ci95_low: float
    ci95_high: float

    @property
    def uncertainty(self):
        """The interval's farther end from energy_j as a fraction of it; None for 0 J."""
        if self.energy_j == 0:
            return None
        farther = max(self.energy_j - self.energy_j_low, self.energy_j_high - self.energy_j)
        return farther / abs(self.energy_j)


def repeated_energy_from_dict(figure):
    """A RepeatedEnergy from the profile JSON's energy_per_step / energy_per_epoch (None stays
    None: fewer than two repetitions, or a profile older than schema 5)."""
    if figure is None:
        return None
    stats = figure["stats"]
    return RepeatedEnergy(n=stats["n"], energy_j=figure["energy_j"],
                          energy_j_low=figure["energy_j_low"],
                          energy_j_high=figure["energy_j_high"],
                          uncertainty_dominant=figure["uncertainty_dominant"],
                          median_j=stats["median"], stdev_j=stats["stdev"],
                          ci95_low=stats["ci95_low"], ci95_high=stats["ci95_high"])
