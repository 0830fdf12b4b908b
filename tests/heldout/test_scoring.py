"""pass^k against hand-computed values."""

import pytest

from heldout.scoring import pass_hat_k


def test_single_scenario_hand_values():
    four_two = {"s": [True, False, True, False]}
    assert pass_hat_k(four_two, 1) == pytest.approx(0.5)
    assert pass_hat_k(four_two, 2) == pytest.approx(1 / 6)  # C(2,2)/C(4,2)
    assert pass_hat_k(four_two, 3) == 0.0


def test_mean_over_scenarios():
    successes = {"a": [True] * 4, "b": [True, True, True, False], "c": [False] * 4}
    # a: 1, b: C(3,2)/C(4,2) = 3/6, c: 0  -> mean 0.5
    assert pass_hat_k(successes, 2) == pytest.approx(0.5)
    # k = n: all trials must succeed
    assert pass_hat_k(successes, 4) == pytest.approx(1 / 3)


def test_bad_arguments():
    with pytest.raises(ValueError):
        pass_hat_k({"a": [True]}, 2)
    with pytest.raises(ValueError):
        pass_hat_k({"a": [True]}, 0)
    with pytest.raises(ValueError):
        pass_hat_k({}, 1)
