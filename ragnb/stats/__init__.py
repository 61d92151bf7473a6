"""Statistics shared by every comparison: bootstrap, strata, power, multiplicity, selection."""
