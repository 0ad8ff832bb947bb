"""Prices for a small shop: bulk discounts and totals."""

BULK_THRESHOLD = 10  # items; from this many on, the bulk discount applies
BULK_DISCOUNT = 0.1


def unit_price(base: float, quantity: int) -> float:
    """The price of one item when buying `quantity` of them."""
    if quantity > BULK_THRESHOLD:
        return round(base * (1 - BULK_DISCOUNT), 2)
    return base


def total(base: float, quantity: int) -> float:
    return round(unit_price(base, quantity) * quantity, 2)
