"""What the kit tools print: short, plain text for a coding agent's context window."""

from __future__ import annotations

import json

TRANSCRIPT_CHARS = 600  # per message


def local_test_text(record: dict) -> str:
    """Outcome, reason, API calls and transcript of one local test."""
    breakdown = record["reward_breakdown"]
    if record.get("graded"):
        outcome = f"reward {record['reward']:.0f} ({breakdown['reason']})"
    else:
        outcome = "not graded (the scenario has no `expect`)"
    lines = [f"local test {record['episode_id']}: {outcome}",
             f"termination: {record['termination']}; agent exit code: {record['agent_exit_code']}; "
             f"API calls: {len(record['api_calls'])}; model credits: {record['credits']:.6f}"]
    if record.get("error"):
        lines.append(f"error: {record['error']}")
    lines.append("transcript:")
    for message in record["messages"]:
        text = str(message["content"])
        cut = text[:TRANSCRIPT_CHARS] + (" […]" if len(text) > TRANSCRIPT_CHARS else "")
        lines.append(f"  {message['role']}: {cut}")
    for call in record["api_calls"][:30]:
        lines.append(f"  api: {call.get('method')} {call.get('path')} -> {call.get('status')}")
    return "\n".join(lines)


def budget_text(data: dict) -> str:
    """The developer's spend and cap, and the agent's menu and budget per conversation."""
    spent = data["developer"]
    lines = [f"your model spend: {spent['credits']:.4f} of {spent['cap_credits']:g} credits "
             f"({spent['calls']} calls, {spent['prompt_tokens']} prompt + {spent['completion_tokens']} "
             f"completion tokens); model: {spent['model']}"]
    for tier in data["menu"]["tiers"]:
        lines.append(f"agent tier {tier['name']}: budget {tier['budget_credits_per_conversation']:g} credits per "
                     f"conversation; reasoning: {json.dumps(tier['reasoning'])}")
        lines += [f"  {m['name']}: in {m['in_rate']:g} / out {m['out_rate']:g} credits per 1M tokens"
                  for m in tier["models"]]
    lines.append(f"credits = {data['menu']['credit_formula']}")
    return "\n".join(lines)
