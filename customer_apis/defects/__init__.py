"""Deterministic defects of a production API (DESIGN §3.2): one composable request-pipeline layer per kind.

`stack.defect_layers` turns a tenant's defect spec (`spec.TenantDefects`) into layers; `violations` reads a
tenant's request log and names the unsafe client behaviour the layers recorded. docs/defects.md says more.
"""
