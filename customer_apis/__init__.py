"""Customer REST APIs per domain: data model, seed, service layer, multi-tenant FastAPI apps."""
