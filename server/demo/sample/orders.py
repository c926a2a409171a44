"""Orders of a small shop: what was bought, and what it comes to."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    sku: str
    quantity: int
    unit_price: float


def total_price(lines: list[Line], discount: float = 0.0) -> float:
    """What the order comes to: every line's quantity times its unit price, less `discount`
    (a fraction: 0.1 is ten per cent off)."""
    gross = sum(line.quantity * line.unit_price for line in lines)
    return round(gross * (1 - discount), 2)
