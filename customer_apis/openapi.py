"""The OpenAPI 3.1 contract of a domain's tenant-relative API, as served and as written into a kit."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from fastapi import FastAPI

from customer_apis.domains import get_domain
from customer_apis.rest import create_domain_app


@cache
def domain_app(domain: str) -> FastAPI:
    """The one REST app of a domain (built once; every tenant of the domain shares it)."""
    return create_domain_app(get_domain(domain))


def export_openapi(domain: str) -> dict[str, Any]:
    """The OpenAPI document of `domain`: tenant-relative paths, typed bodies, no admin routes, no defects."""
    return copy.deepcopy(domain_app(domain).openapi())
