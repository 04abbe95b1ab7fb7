"""The cascade: rounds of rewrites until no name loses its last reader."""
