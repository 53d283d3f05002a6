"""Products (seed 003): the items comments are posted to.

    product   PK = SK = PRODUCT#<id>

A product's comment lists extend its key (`keys/comments.py`).
"""

from __future__ import annotations

from keys.codecs import IdentifierCodec
from keys.table import entity_key
from keys.template import KeyTemplate, Segment

PRODUCT = KeyTemplate("PRODUCT", (Segment("product_id", IdentifierCodec()),))


def product_key(product_id: str) -> dict[str, str]:
    return entity_key(PRODUCT.render(product_id=product_id))
