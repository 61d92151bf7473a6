"""Labels a model judge filled in: how far the judge agrees with people, and estimates
that carry its error (prediction-powered inference).

- :mod:`ragnb.io.judges` (inputs) — the judge's labels beside the people's, never merged
- :mod:`ragnb.judge.agreement` — confusion by grade, exact agreement, weighted κ,
  precision and recall, bias per grade, per query, and on each config's own passages
- :mod:`ragnb.judge.ppi` — people only, judge only (biased) and prediction-powered
  (PPI++) estimates of each run's mean and each paired difference
"""
from ragnb.io.judges import PEOPLE, attach_judge, paired_grades
from ragnb.judge.agreement import Agreement, agreement, quadratic_kappa
from ragnb.judge.ppi import JudgedEstimates, judged_estimates, ppi_mean

__all__ = ["PEOPLE", "Agreement", "JudgedEstimates", "agreement", "attach_judge",
           "judged_estimates", "paired_grades", "ppi_mean", "quadratic_kappa"]
