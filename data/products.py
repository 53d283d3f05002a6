"""Products: the item shape, its record, and the write that creates one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from data import validation
from data.clock import now
from data.creates import put_new
from keys import products as product_keys
from keys.codecs import format_timestamp, parse_timestamp
from store.client import Store
from store.cost import worst_case
from store.loaders import ItemLoader
from store.requests import Item


@dataclass(frozen=True)
class Product:
    id: str
    name: str
    created_at: datetime

    @classmethod
    def from_item(cls, item: Item) -> Product:
        return cls(item["id"], item["name"], parse_timestamp(item["createdAt"]))


def product_item(product_id: str, name: str, created_at: datetime) -> Item:
    return {
        **product_keys.product_key(product_id),
        "type": "PRODUCT",
        "id": product_id,
        "name": name,
        "createdAt": format_timestamp(created_at),
    }


@worst_case(requests=1)
async def create_product(store: Store, product_id: str, name: str) -> Product:
    item = product_item(validation.ident(product_id), validation.text(name, "name"), now())
    await put_new(store, item, f"product {product_id!r} already exists")
    return Product.from_item(item)


async def load_product(items: ItemLoader, product_id: str) -> Product | None:
    item = await items.load_item(product_keys.product_key(validation.ident(product_id)))
    return None if item is None else Product.from_item(item)
