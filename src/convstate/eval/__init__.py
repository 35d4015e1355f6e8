"""Evaluation: replay public dialogues through convstate and the baselines it must beat
(truncation, a sliding window, a rolling summary), and score what each context keeps.

``convstate eval`` runs it; ``docs/DATA.md`` describes the data layout and results.json.
Nothing in the core library imports this package.
"""

from .baselines import RollingSummary, SlidingWindow, Truncation
from .run import EvalConfig, evaluate, load_dialogues

__all__ = ["EvalConfig", "RollingSummary", "SlidingWindow", "Truncation", "evaluate",
           "load_dialogues"]
