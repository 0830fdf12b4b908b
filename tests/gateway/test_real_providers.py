"""Live calls through the gateway to each real provider whose key is set on the host (skipped otherwise):
the same code path as `mock`, metered the same way."""

import os

import pytest

from build_kits.menu import rated_models

CHEAPEST = {}
for _model in sorted(rated_models().values(), key=lambda m: m.in_rate + m.out_rate):
    if not _model.offline:
        CHEAPEST.setdefault(_model.provider, _model)


@pytest.mark.parametrize("model", list(CHEAPEST.values()), ids=list(CHEAPEST))
def test_live_provider(model, gateway, seat, clients):
    if not os.environ.get(model.key_env):
        pytest.skip(f"{model.key_env} is not set")
    s = seat(models=[model.name])
    oa, an = clients(s.token)
    reply = oa.chat.completions.create(model=model.name, max_tokens=20,
                                       messages=[{"role": "user", "content": "Say OK."}])
    assert reply.choices[0].message.content
    message = an.messages.create(model=model.name, max_tokens=20, messages=[{"role": "user", "content": "Say OK."}])
    assert message.content
    entries = gateway.ledger.entries(token_id=s.token_id)
    assert all(e["status"] == "ok" and e["credits"] > 0 and not e["usage_estimated"] for e in entries)
