"""Held-out side: scenarios, user simulator, evaluator, pass^k. Never reachable from a sandbox."""
