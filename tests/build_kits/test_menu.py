"""Rate card and menus: the credit formula, a consistent card, tiers resolved from the card or the spec."""

import pytest

from build_kits.menu import build_menu, credits, load_rate_card, rated_models, resolve_tier
from build_kits.taskspec import TaskSpecError, load_task, parse_task_file


def test_credit_formula_hand_computed():
    # 1,000 prompt tokens at 2.50 / 1M + 200 completion tokens at 10.00 / 1M = 0.0025 + 0.002
    assert credits(1000, 200, 2.50, 10.00) == pytest.approx(0.0045)
    # 12 prompt at 0.15, 7 completion (5 text + 2 reasoning) at 0.60: (1.8 + 4.2) / 1e6
    assert credits(12, 7, 0.15, 0.60) == pytest.approx(6.0e-6)
    assert credits(0, 0, 15.0, 75.0) == 0.0


def test_rate_card_is_consistent():
    card, models = load_rate_card(), rated_models()
    assert len([m for m in models.values() if not m.offline]) >= 20
    assert len({m.provider for m in models.values() if not m.offline}) >= 5
    assert {m.model_class for m in models.values()} >= {"frontier", "small", "offline"}
    for model in models.values():
        assert model.in_rate >= 0 and model.out_rate >= 0
        assert "/" in model.route
        assert model.offline or model.key_env
    for name, tier in card["tiers"].items():
        assert set(tier["models"]) <= set(models), name
    for domain in ("airline", "retail", "telecom", "banking"):
        budgets = card["budgets"][domain]
        assert budgets["easy"] > budgets["medium"] > budgets["hard"] > 0
    assert card["budgets"]["airline"] == {"easy": 0.29, "medium": 0.047, "hard": 0.0067}
    assert card["budgets"]["banking"] == {"easy": 3.7, "medium": 0.60, "hard": 0.085}


def test_retail_01_menu_from_the_card():
    spec = load_task("retail-01")
    tier = resolve_tier(spec)
    assert tier.name == "easy" and tier.budget_credits_per_conversation == pytest.approx(0.40)
    assert "gpt-5" in tier.model_names and "mock/northwind-small" in tier.model_names
    menu = build_menu(spec)
    entry = menu["tiers"][0]
    assert set(entry) >= {"name", "budget_credits_per_conversation", "models"}
    assert all(set(m) >= {"name", "in_rate", "out_rate"} for m in entry["models"])
    assert menu["latency_limits_s"] == {"p50": None, "p90": 20.0}


def _spec(tmp_path, tier: str):
    path = tmp_path / "retail-98.toml"
    path.write_text(f"id = 'retail-98'\ndomain = 'retail'\ntitle = 't'\n[tier]\n{tier}")
    return parse_task_file(path)


def test_spec_overrides_budget_models_and_reasoning(tmp_path):
    spec = _spec(tmp_path, "name = 'hard'\nbudget_credits_per_conversation = 0.001\n"
                           "models = ['gpt-5-nano']\nreasoning = ['low']\n")
    tier = resolve_tier(spec)
    assert tier.budget_credits_per_conversation == 0.001
    assert tier.model_names == ("gpt-5-nano", "mock/northwind-small", "mock/northwind-large")
    assert tier.reasoning == ("low",)
    assert resolve_tier(_spec(tmp_path, "name = 'hard'\n")).reasoning == "off"


def test_model_not_on_the_card_is_one_line(tmp_path):
    spec = _spec(tmp_path, "name = 'easy'\nmodels = ['gpt-99']\n")
    with pytest.raises(TaskSpecError, match="not on the rate card: gpt-99"):
        resolve_tier(spec)
