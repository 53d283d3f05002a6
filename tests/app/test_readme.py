"""The README's first query answers with data on a freshly seeded table, on any date."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gateway.seed import Seeder
from tests.client import Api

README = Path(__file__).parents[2] / "README.md"


def first_query() -> str:
    section = README.read_text().split("## A first query", 1)[1]
    match = re.search(r"```graphql\n(.*?)```", section, re.DOTALL)
    assert match is not None
    return match.group(1)


async def test_the_first_query_answers_on_seeded_data(api: Api, client: Any, table: str) -> None:
    await Seeder(client, table).run(customers=3, max_orders=3)
    customer = (await api(first_query())).ok()["customer"]
    assert customer is not None
    assert customer["orders"]["edges"]
    assert all(e["node"]["items"] for e in customer["orders"]["edges"])


async def test_the_demo_ids_the_readme_names_are_seeded(api: Api, client: Any, table: str) -> None:
    seeder = Seeder(client, table)
    await seeder.run_collections(repos=4, organizations=2, queues=2)
    await seeder.run_comments(products=6, max_comments=1)
    text = README.read_text()
    query = (
        """query ($owner: String!, $name: String!) { repo(owner: $owner, name: $name) { name } }"""
    )
    repos = re.findall(r"`(\w+)/([\w-]+)`", text.split("**Demo data**")[1][:1500])
    assert len(repos) == 4
    for owner, name in repos:
        assert (await api(query, owner=owner, name=name)).ok()["repo"] is not None, (owner, name)
    admins = (
        "query ($n: String!) { organization(name: $n) { admins { edges { node { username } } } } }"
    )
    for organization, creator in (("org-0", "Ada"), ("org-1", "Grace")):
        found = (await api(admins, n=organization)).ok()["organization"]["admins"]["edges"]
        assert creator in [e["node"]["username"] for e in found]
    assert (await api('{ product(id: "product-05") { id } }')).ok()["product"] is not None


def test_the_dynamodb_local_versions_the_readme_states_are_the_ones_used() -> None:
    """Compose runs Amazon's image, the tests and `make run` the npm package: the README
    names both versions, and they are the ones the files pin."""
    from gateway import dynamodb_local

    compose = (README.parent / "docker-compose.yml").read_text()
    image = re.search(r"amazon/dynamodb-local:([\d.]+)", compose)
    bundled = re.search(
        r"bundles DynamoDB Local ([\d.]+)", Path(dynamodb_local.__file__).read_text()
    )
    assert image is not None and bundled is not None
    containers = README.read_text().split("## Containers", 1)[1]
    assert f"amazon/dynamodb-local:{image.group(1)}" in containers
    assert f"DynamoDB Local {bundled.group(1)}" in containers
