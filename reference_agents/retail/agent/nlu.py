"""Rule-based language understanding: intents, ids, identity, reasons, yes/no, payment, address, items."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

LEXICON = json.loads((Path(__file__).parent / "lexicon.json").read_text(encoding="utf-8"))

ORDER_ID = re.compile(r"#?\bW(\d{7})\b", re.I)
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
NAME = re.compile(
    r"(?i:\b(?:my name is|my name's|name is|name:|this is|i am|i'm|it's|it is|under|for))\s+"
    r"([A-Z][\w'\-]+)\s+([A-Z][\w'\-]+)"
)
FIRST_LAST = re.compile(r"first name\W{0,3}(?:is\s+)?([A-Z][\w'\-]+).{0,40}?last name\W{0,3}(?:is\s+)?([A-Z][\w'\-]+)",
                        re.I | re.S)
BARE_NAME = re.compile(r"^\W*(?:(?i:sure|yes|ok|okay|hi|hello)\W+)?(?!I'|I\s)([A-Z][a-z'\-]+)\s+([A-Z][a-z'\-]+)\b")
ZIP_LABELLED = re.compile(r"\b(?:zip|zipcode|zip code|postal code|postcode)\D{0,12}?(\d{5})\b", re.I)
ZIP_BARE = re.compile(r"(?<![\d#W-])\b(\d{5})\b(?![\d-])")
ADDRESS = re.compile(
    r"(?P<address1>\d+[A-Za-z]?\s[^,\n]+?),\s*(?:(?P<address2>[^,\n]*?\d[^,\n]*?),\s*)?"
    r"(?P<city>[A-Za-z][A-Za-z .'\-]*?),\s*(?P<state>[A-Z]{2})\s*,?\s*(?P<zip>\d{5})\s*,\s*"
    r"(?P<country>[A-Za-z][A-Za-z .]*?[A-Za-z])(?=\s*(?:[.!?;\n]|$|\s+(?:and|please|thanks|thank)\b))"
)
NOT_THIS = re.compile(r"(?:from|instead of|rather than|not)\s+(?:my|the|a|using)?\s*$")
LAST_FOUR = re.compile(r"(?:ending|ends|last four|last 4|last digits)\D{0,12}(\d{4})\b", re.I)


def has_any(text: str, phrases: list[str]) -> bool:
    """True when a phrase occurs in `text` as whole words (case-insensitive)."""
    lowered = text.lower()
    return any(re.search(rf"(?<![\w]){re.escape(p)}(?![\w])", lowered) for p in phrases)


@dataclass
class PaymentMention:
    """A payment method as the customer named it."""

    kind: str  # original | gift_card | paypal | credit_card
    brand: str | None = None
    last_four: str | None = None


@dataclass
class Utterance:
    """Everything read from one customer message without looking at the store."""

    text: str
    intent: str | None = None
    order_ids: list[str] = field(default_factory=list)
    email: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    zip: str | None = None
    address: dict | None = None
    reason: str | None = None
    other_reason: bool = False
    payments: list[PaymentMention] = field(default_factory=list)
    yes: bool = False
    no: bool = False
    dont_know: bool = False
    all_items: bool = False


def detect_intent(text: str) -> str | None:
    """The first intent of the lexicon whose cue phrases occur in `text`."""
    for intent, cues in LEXICON["intents"]:
        if has_any(text, cues):
            return intent
    return None


def detect_reason(text: str) -> str | None:
    """Map the customer's words to a cancellation reason of the policy, if they match one."""
    for reason, cues in LEXICON["reasons"].items():
        if has_any(text, cues):
            return reason
    return None


def detect_payments(text: str) -> list[PaymentMention]:
    """Payment methods named in `text`, in order of appearance."""
    found: list[tuple[int, PaymentMention]] = []
    lowered = text.lower()
    for match in re.finditer(r"gift[\s-]?card", lowered):
        found.append((match.start(), PaymentMention("gift_card")))
    for match in re.finditer(r"pay\s?pal", lowered):
        found.append((match.start(), PaymentMention("paypal")))
    brands = "|".join(re.escape(b) for b in LEXICON["card_brands"])
    for match in re.finditer(rf"\b({brands})\b|\bcredit card\b|\bcard ending\b", lowered):
        brand = match.group(1)
        if brand == "american express":
            brand = "amex"
        tail = LAST_FOUR.search(text[match.start(): match.start() + 60])
        if any(abs(pos - match.start()) < 25 and m.kind == "credit_card" for pos, m in found):
            continue
        found.append((match.start(), PaymentMention("credit_card", brand, tail.group(1) if tail else None)))
    if not found:
        tail = LAST_FOUR.search(text)
        if tail:
            found.append((tail.start(), PaymentMention("credit_card", None, tail.group(1))))
    if has_any(text, LEXICON["original_payment"]):
        pos = min((lowered.find(p) for p in LEXICON["original_payment"] if p in lowered), default=0)
        found.append((pos, PaymentMention("original")))
    kept = [(pos, m) for pos, m in found if not NOT_THIS.search(lowered[max(0, pos - 16): pos])]
    return [mention for _, mention in sorted(kept or found, key=lambda pair: pair[0])]


def detect_address(text: str) -> tuple[dict | None, str]:
    """A postal address written as `street, [unit,] city, ST 12345, country`, and the text without it."""
    match = ADDRESS.search(text)
    if not match:
        return None, text
    parts = {k: (v or "").strip() for k, v in match.groupdict().items()}
    return parts, text[: match.start()] + " " + text[match.end():]


def detect_name(text: str, bare_allowed: bool) -> tuple[str | None, str | None]:
    """First and last name introduced by a phrase, or a bare `First Last` when a name was asked for."""
    for pattern in (FIRST_LAST, NAME):
        match = pattern.search(text)
        if match:
            return match.group(1), match.group(2)
    if bare_allowed:
        match = BARE_NAME.search(text)
        if match:
            return match.group(1), match.group(2)
    return None, None


def yes_no(text: str) -> tuple[bool, bool]:
    """(yes, no) of a reply to a yes/no question; a leading no wins."""
    lowered = text.lower().strip()
    if re.match(r"^\W*(no|nope|nah)\b", lowered) or has_any(lowered, ["don't proceed", "do not proceed",
                                                                      "please don't", "no thanks",
                                                                      "no thank you", "rather not",
                                                                      "never mind", "nevermind"]):
        return False, True
    if has_any(lowered, LEXICON["yes"]):
        return True, False
    return False, has_any(lowered, LEXICON["no"])


def read(text: str, expecting_identity: bool = False) -> Utterance:
    """Read one customer message."""
    address, rest = detect_address(text)
    utt = Utterance(text=text, address=address)
    utt.intent = detect_intent(text)
    utt.order_ids = [f"#W{digits}" for digits in ORDER_ID.findall(text)]
    email = EMAIL.search(rest)
    utt.email = email.group(0).rstrip(".").lower() if email else None
    utt.first_name, utt.last_name = detect_name(rest, expecting_identity)
    zip_match = ZIP_LABELLED.search(rest) or (ZIP_BARE.search(rest) if (expecting_identity or utt.first_name)
                                              else None)
    utt.zip = zip_match.group(1) if zip_match else None
    utt.reason = detect_reason(text)
    utt.other_reason = utt.reason is None and has_any(text, LEXICON["reason_cues"])
    utt.payments = detect_payments(rest)
    utt.yes, utt.no = yes_no(text)
    utt.dont_know = has_any(text, LEXICON["dont_know"])
    utt.all_items = has_any(text, LEXICON["all_items"])
    return utt
