"""Northwind Outfitters support agent (rule-based): stdio loop, store API client, NLU, policy layer."""
