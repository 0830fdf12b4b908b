"""Deployment manifests (DESIGN §3.2, host side only): the defects of a production API profile, the exposure
in the developer's tenant, and the defect spec each tenant is created with. Nothing here reaches a kit."""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from customer_apis.defects.spec import DefectSpec, DefectSpecError, TenantDefects
from customer_apis.defects.stack import defect_layers
from customer_apis.errors import describe_validation_errors

NO_DEFECTS = "none"
PROFILE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
Stage = Literal["development", "evaluation"]


class DeploymentError(ValueError):
    """A manifest that cannot be used; one line naming the profile and the problem."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Exposure(_Strict):
    """How often the selected calls misbehave in one stage."""

    exposure: float = Field(default=1.0, ge=0.0, le=1.0)


class Deployment(_Strict):
    """One production profile: its domain, the exposure per stage and its defects."""

    profile: str
    domain: str
    development: Exposure = Exposure()
    evaluation: Exposure = Exposure()
    defects: list[DefectSpec] = Field(min_length=1)


def deployment_dir() -> Path:
    """Where the manifests live (inside the package, so an installed wheel has them)."""
    return Path(str(resources.files("build_kits.deployments")))


def load_deployment(profile: str) -> Deployment | None:
    """The manifest of a profile (None for `none`), validated against its domain's API."""
    if profile == NO_DEFECTS:
        return None
    path = deployment_dir() / f"{profile}.toml"
    if not PROFILE.match(profile) or not path.is_file():
        known = ", ".join(sorted(p.stem for p in deployment_dir().glob("*.toml"))) or "none"
        raise DeploymentError(f"unknown defect profile {profile!r} (known: {NO_DEFECTS}, {known})")
    try:
        deployment = Deployment.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
        defect_layers(deployment.domain, TenantDefects(task="check", defects=deployment.defects))
    except tomllib.TOMLDecodeError as err:
        raise DeploymentError(f"defect profile {profile}: not valid TOML ({err})") from None
    except ValidationError as err:
        raise DeploymentError(f"defect profile {profile}: {describe_validation_errors(err.errors())}") from None
    except (DefectSpecError, LookupError) as err:
        raise DeploymentError(f"defect profile {profile}: {err}") from None
    if deployment.profile != profile:
        raise DeploymentError(f"defect profile {profile}: the file says profile {deployment.profile!r}")
    return deployment


def tenant_defects(profile: str, task: str, stage: Stage, scenario: str = "development",
                   trial: int = 0) -> dict | None:
    """The `defects` JSON a tenant of this stage is created with (None when the profile has no defects)."""
    deployment = load_deployment(profile)
    if deployment is None:
        return None
    exposure = getattr(deployment, stage).exposure
    return TenantDefects(task=task, scenario=scenario, trial=trial, exposure=exposure,
                         defects=deployment.defects).model_dump(mode="json")


def client_defects(profile: str) -> list[dict]:
    """The defects the client simulator knows of for this profile (JSON; empty for a healthy API)."""
    deployment = load_deployment(profile)
    return [] if deployment is None else [d.model_dump(mode="json") for d in deployment.defects]
