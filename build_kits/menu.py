"""The rate card and the model menu of a task's tier, and the one credit formula every meter uses."""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib import resources

from .taskspec import TaskSpec, TaskSpecError

CREDIT_FORMULA = "(prompt_tokens * in_rate + completion_tokens * out_rate) / 1e6"


def credits(prompt_tokens: int, completion_tokens: int, in_rate: float, out_rate: float) -> float:
    """Credits of one model call; `completion_tokens` includes reasoning tokens (litellm's convention)."""
    return (prompt_tokens * in_rate + completion_tokens * out_rate) / 1e6


@dataclass(frozen=True)
class RatedModel:
    """One model of the rate card: its rates, its litellm route and its provider's key variable."""

    name: str
    provider: str
    route: str
    in_rate: float
    out_rate: float
    model_class: str
    offline: bool = False
    key_env: str | None = None
    reasoning_off: str | None = None

    def menu_entry(self) -> dict:
        """The model as the menu JSON shows it."""
        return {"name": self.name, "provider": self.provider, "class": self.model_class,
                "in_rate": self.in_rate, "out_rate": self.out_rate}


@dataclass(frozen=True)
class MenuTier:
    """A task's tier resolved against the rate card: budget per conversation, models, reasoning rule."""

    name: str
    budget_credits_per_conversation: float
    models: tuple[RatedModel, ...]
    reasoning: str | tuple[str, ...] | None = None

    @property
    def model_names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.models)


@functools.cache
def load_rate_card() -> dict:
    """The parsed `rate_card.toml` (providers, models, tiers, offline models, budgets)."""
    text = resources.files("build_kits").joinpath("rate_card.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@functools.cache
def rated_models() -> dict[str, RatedModel]:
    """Every model of the rate card by name."""
    card = load_rate_card()
    models = {}
    for name, entry in card["models"].items():
        provider = card["providers"][entry["provider"]]
        models[name] = RatedModel(
            name=name, provider=entry["provider"], route=entry["route"], in_rate=float(entry["in_rate"]),
            out_rate=float(entry["out_rate"]), model_class=entry["class"],
            offline=bool(provider.get("offline", False)), key_env=provider.get("key_env"),
            reasoning_off=entry.get("reasoning_off"))
    return models


def resolve_tier(spec: TaskSpec) -> MenuTier:
    """The task's tier: the spec's overrides, else the rate card's menu and budget; offline models added."""
    card, rated = load_rate_card(), rated_models()
    tier = spec.tier
    names = list(tier.models) if tier.models is not None else list(card["tiers"][tier.name]["models"])
    names += [m for m in card["offline"]["models"] if m not in names]
    missing = [m for m in names if m not in rated]
    if missing:
        raise TaskSpecError(f"task {spec.id}: tier models not on the rate card: {', '.join(missing)}")
    budget = tier.budget_credits_per_conversation or card["budgets"][spec.domain][tier.name]
    reasoning = tier.reasoning if tier.reasoning is not None else card["tiers"][tier.name].get("reasoning")
    return MenuTier(name=tier.name, budget_credits_per_conversation=float(budget),
                    models=tuple(rated[m] for m in names),
                    reasoning=tuple(reasoning) if isinstance(reasoning, list) else reasoning)


def build_menu(spec: TaskSpec) -> dict:
    """Menu JSON for the task's tier (written into the kit and handed to the agent)."""
    tier = resolve_tier(spec)
    reasoning = list(tier.reasoning) if isinstance(tier.reasoning, tuple) else tier.reasoning
    return {
        "tiers": [{
            "name": tier.name,
            "budget_credits_per_conversation": tier.budget_credits_per_conversation,
            "reasoning": reasoning,
            "models": [m.menu_entry() for m in tier.models],
        }],
        "credit_formula": CREDIT_FORMULA,
        "reasoning_tokens": "counted as completion tokens",
        "latency_limits_s": {"p50": spec.latency.p50_s, "p90": spec.latency.p90_s},
    }
