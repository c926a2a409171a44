"""The day's takings, from the orders taken."""

from __future__ import annotations

from .orders import Line, total_price


def takings(orders: list[list[Line]]) -> float:
    """The sum of every order's total."""
    return round(sum(total_price(order) for order in orders), 2)


def largest(orders: list[list[Line]]) -> list[Line]:
    """The order that comes to the most (the first of them on a tie)."""
    return max(orders, key=total_price)
