"""Fill `{{FACT-ID}}` / `{{FACT-ID.param}}` tokens of an artifact template and record which facts it carries."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evidence_corpus.facts import Fact

# {{RET-CAN-002}} statement | {{RET-CAN-002.reasons.0}} a param | {{RET-RET-002.superseded[.key]}} old form
TOKEN = re.compile(r"\{\{\s*([A-Z]{3}-[A-Z]{3}-\d{3})((?:\.[A-Za-z0-9_]+)*)\s*\}\}")


class TemplateError(ValueError):
    """A template that names an unknown fact, a missing param, or a fact that must stay with the client."""


@dataclass
class Filled:
    """A filled template: its text, the facts it carries and the facts it shows only in superseded form."""

    text: str
    carried: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)


def format_value(value: Any) -> str:
    """How a param value reads in prose: money-style floats, plain ints, lists as 'a, b and c'."""
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, (list, tuple)):
        items = [format_value(v) for v in value]
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    return str(value)


def _lookup(root: Any, path: list[str], where: str) -> Any:
    node = root
    for part in path:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise TemplateError(f"{where}: no value at {'.'.join(path)!r}")
    return node


def _resolve(fact: Fact, path: list[str], where: str) -> tuple[str, bool]:
    """Text for one token and whether it shows the superseded form."""
    if path and path[0] == "superseded":
        if fact.superseded is None:
            raise TemplateError(f"{where}: fact {fact.id} has no superseded form")
        if len(path) == 1:
            return fact.superseded.statement, True
        return format_value(_lookup(fact.superseded.params, path[1:], where)), True
    if not path:
        return fact.statement, False
    return format_value(_lookup(fact.params, path, where)), False


def fill(template: str, facts: dict[str, Fact], where: str = "template") -> Filled:
    """Replace every token; refuse client-held facts, which must appear in no artifact."""
    out = Filled(text="")

    def substitute(match: re.Match[str]) -> str:
        fact_id, dotted = match.group(1), match.group(2)
        fact = facts.get(fact_id)
        if fact is None:
            raise TemplateError(f"{where}: unknown fact {fact_id}")
        if fact.client_held:
            raise TemplateError(f"{where}: fact {fact_id} is client-held and may appear in no artifact")
        text, old = _resolve(fact, [p for p in dotted.split(".") if p], where)
        bucket = out.superseded if old else out.carried
        if fact_id not in bucket:
            bucket.append(fact_id)
        return text

    out.text = TOKEN.sub(substitute, template)
    if "{{" in out.text:
        raise TemplateError(f"{where}: malformed token near {out.text[out.text.index('{{'):][:40]!r}")
    return out


def merge(parts: list[Filled], text: str) -> Filled:
    """One Filled for an artifact assembled from several filled pieces."""
    carried = list(dict.fromkeys(i for p in parts for i in p.carried))
    superseded = list(dict.fromkeys(i for p in parts for i in p.superseded))
    return Filled(text=text, carried=carried, superseded=superseded)
