"""Shared machinery of limit poker games: cards, ACPC game definitions, evaluators, public trees."""
