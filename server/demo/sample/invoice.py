"""The invoice text of an order."""

from __future__ import annotations

from .orders import Line, total_price


def invoice(customer: str, lines: list[Line]) -> str:
    rows = [f"{line.quantity:>4} x {line.sku:<10} {line.unit_price:>8.2f}" for line in lines]
    return "\n".join([f"Invoice for {customer}", *rows, f"Total: {total_price(lines):.2f}"])
