"""A small stock ledger: the items a shop sells, how many of each are on hand, and what to
reorder."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Item:
    sku: str
    name: str
    on_hand: int = 0
    discontinued: bool = False


@dataclass
class Inventory:
    items: dict[str, Item] = field(default_factory=dict)

    def add(self, item: Item) -> None:
        if item.sku in self.items:
            raise ValueError(f"duplicate SKU {item.sku}")
        self.items[item.sku] = item

    def receive(self, sku: str, count: int) -> int:
        """Adds `count` units of `sku` to the stock; returns the new quantity."""
        item = self.items[sku]
        item.on_hand += count
        return item.on_hand

    def ship(self, sku: str, count: int) -> int:
        """Takes `count` units of `sku` out of the stock; returns what is left."""
        item = self.items[sku]
        if count > item.on_hand:
            raise ValueError(f"only {item.on_hand} of {sku} on hand, cannot ship {count}")
        item.on_hand -= count
        return item.on_hand

    def reorder_list(self) -> list[str]:
        """The SKUs to reorder: every item with fewer than 5 units on hand."""
        return sorted(sku for sku, item in self.items.items() if item.on_hand < 5)

    def value(self, prices: dict[str, float]) -> float:
        """What the stock on hand is worth at `prices` (by SKU)."""
        return sum(prices[sku] * item.on_hand for sku, item in self.items.items())
