"""`hypertau models list`: the rate card and a task's menu as rich tables or JSON."""

from __future__ import annotations

from rich.table import Table

from build_kits.menu import build_menu, load_rate_card, rated_models, resolve_tier
from build_kits.taskspec import TaskSpec


def _reasoning_text(rule) -> str:
    if rule is None:
        return "any"
    return "pinned off" if rule == "off" else "one of " + ", ".join(rule)


def menu_table(spec: TaskSpec) -> Table:
    """The task's tier: every model with its rates, the budget and the reasoning rule in the caption."""
    tier = resolve_tier(spec)
    table = Table(title=f"{spec.id} · tier {tier.name} · budget {tier.budget_credits_per_conversation:g} "
                        f"credits / conversation",
                  caption=f"credits = {build_menu(spec)['credit_formula']} · reasoning: "
                          f"{_reasoning_text(tier.reasoning)}")
    for column, justify in (("model", "left"), ("provider", "left"), ("class", "left"),
                            ("in / 1M tokens", "right"), ("out / 1M tokens", "right")):
        table.add_column(column, justify=justify, overflow="fold")
    for model in tier.models:
        table.add_row(model.name, model.provider, model.model_class, f"{model.in_rate:g}", f"{model.out_rate:g}")
    return table


def rate_card_menu() -> dict:
    """The whole rate card as JSON: models (with routes), tiers, budgets per domain."""
    card = load_rate_card()
    return {
        "models": [{**m.menu_entry(), "route": m.route} for m in rated_models().values()],
        "tiers": [{"name": name, "models": tier["models"], "reasoning": tier.get("reasoning")}
                  for name, tier in card["tiers"].items()],
        "offline_models": card["offline"]["models"],
        "budgets_credits_per_conversation": card["budgets"],
    }


def rate_card_table() -> Table:
    """Every model of the rate card with its rates, route and the tiers it is on."""
    card = load_rate_card()
    table = Table(title="hypertau rate card (credits per 1M tokens)",
                  caption="budgets / conversation (easy, medium, hard): " + "; ".join(
                      f"{d} {b['easy']:g}, {b['medium']:g}, {b['hard']:g}" for d, b in card["budgets"].items()))
    for column in ("model", "provider", "in", "out", "tiers", "litellm route"):
        table.add_column(column, justify="right" if column in ("in", "out") else "left", overflow="fold")
    for model in rated_models().values():
        tiers = [name for name, tier in card["tiers"].items() if model.name in tier["models"]]
        tiers = ["all (offline)"] if model.offline else tiers
        table.add_row(model.name, model.provider, f"{model.in_rate:g}", f"{model.out_rate:g}", ", ".join(tiers),
                      model.route)
    return table
