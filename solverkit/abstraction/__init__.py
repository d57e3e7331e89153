"""Card abstraction: suit isomorphism, bucket tables (EHS, EMD, OCHS) and their files."""

from .spec import CardSpec

__all__ = ["CardSpec"]
