"""The model menu written into a kit: the tier's models with their credit rates and the budget."""

from __future__ import annotations

import tomllib
from importlib import resources

from .taskspec import TaskSpec, TaskSpecError


def load_rate_card() -> dict[str, dict]:
    """Credit rates per model (per million prompt / completion tokens)."""
    text = resources.files("build_kits").joinpath("rate_card.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)["models"]


def build_menu(spec: TaskSpec) -> dict:
    """Menu JSON for the task's tier; every model must be on the rate card."""
    card = load_rate_card()
    missing = [m for m in spec.tier.models if m not in card]
    if missing:
        raise TaskSpecError(f"task {spec.id}: tier models not on the rate card: {', '.join(missing)}")
    return {
        "tiers": [{
            "name": spec.tier.name,
            "budget_credits_per_conversation": spec.tier.budget_credits_per_conversation,
            "models": [{"name": m, "in_rate": card[m]["in_rate"], "out_rate": card[m]["out_rate"]}
                       for m in spec.tier.models],
        }],
        "credit_formula": "(prompt_tokens * in_rate + completion_tokens * out_rate) / 1e6",
    }
