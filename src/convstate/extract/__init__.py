"""Extractors: turn a batch of expiring turns into a StateDelta."""

from .base import Extraction, Extractor
from .rules import RuleExtractor

__all__ = ["Extraction", "Extractor", "RuleExtractor"]
