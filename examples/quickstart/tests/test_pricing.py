from shop.pricing import total, unit_price


def test_small_orders_pay_full_price():
    assert unit_price(2.0, 3) == 2.0


def test_bulk_discount_starts_at_the_threshold():
    assert unit_price(2.0, 10) == 1.8


def test_total_of_a_bulk_order():
    assert total(2.0, 12) == 21.6
