"""Northwind support bot (inherited, incomplete)."""
