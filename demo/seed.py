"""Demo data, written through the GraphQL mutations so it follows the API's own code paths."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from demo.model.markers import MARKER_PLACES
from dynagate import SEED_USER, Seeding, Store, rebuild_short_counts

if TYPE_CHECKING:
    from dynagate import DynamoDBClient


def _with_input(field: str, returned: str) -> str:
    """The mutation `field`, given its input object (`<Field>Input`), answering `returned`."""
    kind = field[0].upper() + field[1:] + "Input"
    return f"mutation ($input: {kind}!) {{ {field}(input: $input) {{ {returned} }} }}"


CREATE_CUSTOMER = _with_input("createCustomer", "id")
PLACE_ORDER = _with_input("placeOrder", "id")
CREATE_PRODUCT = _with_input("createProduct", "id")
POST_COMMENT = _with_input("postComment", "id")
ADD_MARKER = _with_input("addMarker", "id")
CREATE_REPO = _with_input("createRepo", "name")
OPEN_ISSUE = _with_input("openIssue", "number")
CLOSE_ISSUE = """
mutation ($owner: String!, $name: String!, $number: Int!) {
  closeIssue(owner: $owner, name: $name, number: $number) { number } }"""
STAR_REPO = """
mutation ($owner: String!, $name: String!, $username: String!) {
  starRepo(owner: $owner, name: $name, username: $username) { starCount } }"""
CREATE_ORGANIZATION = _with_input("createOrganization", "name")
CREATE_TEAM = """
mutation ($organization: String!, $name: String!) {
  createTeam(organization: $organization, name: $name) { name } }"""
ADD_MEMBER = _with_input("addMember", "username")
CREATE_QUEUE = _with_input("createQueue", "id")
OPEN_TICKET = _with_input("openTicket", "id")
UPDATE_TICKET = _with_input("updateTicket", "id")
SET_STATUS = """
mutation ($id: ID!, $status: OrderStatus!) { setOrderStatus(id: $id, status: $status) { id } }"""

_NAMES = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Tim"]
_SKUS = ["BOOK-DDB", "MUG-01", "SHIRT-M", "SHIRT-L", "STICKER", "CABLE-USB", "LAMP-03"]
_PRODUCTS = ["Desk lamp", "Espresso cup", "Trail shoes", "Notebook", "Headphones", "Kettle"]
_LANGUAGES = ["en", "en", "en", "fr", "de", "es"]
_REMARKS = [
    "Works as described.",
    "Broke after a week.",
    "Great value.",
    "Arrived late.",
    "Would buy again.",
    "Not what the pictures show.",
    "Solid and well made.",
]
# Demo map areas: (label, latitude, longitude) of each centre.
_PLACES = [("London", 51.507, -0.128), ("Paris", 48.857, 2.352), ("Auckland", -36.85, 174.76)]
_REPOS = ["gateway", "dynamo-notes", "geo-tiles", "ksuid-py", "relay-cursors", "tiny-orm"]
_ISSUES = ["Crash on empty input", "Docs typo", "Add a flag for", "Slow first request", "Support"]
_TEAMS = ["Platform", "data", "Design", "mobile", "Security", "web"]
_TICKETS = ["Cannot log in", "Refund request", "Invoice missing", "App freezes", "Wrong address"]
# Where orders end up, as (moves after PLACED, weight).
_FATES = [([], 3), (["SHIPPED"], 2), (["SHIPPED", "DELIVERED"], 6), (["CANCELLED"], 1)]
# What the summary names, in the order it is seeded: each kind with what comes with it.
_SUMMARY = [
    ("customers", "orders"),
    ("products", "comments"),
    ("markers",),
    ("repositories",),
    ("organizations",),
    ("queues",),
]


class Seeder:
    def __init__(self, client: DynamoDBClient, table: str, *, seed: int = 7) -> None:
        self.api = Seeding(client, table)
        self.client = client
        self.table = table
        self.random = random.Random(seed)
        # What the runs wrote, and what they found there already and left alone, by kind.
        self.created: Counter[str] = Counter()
        self.skipped: Counter[str] = Counter()

    def summary(self) -> str:
        """One sentence on what the runs so far wrote and what they skipped."""
        wrote = [
            " and ".join(f"{self.created[kind]} {kind}" for kind in kinds)
            for kinds in _SUMMARY
            if self.created[kinds[0]]
        ]
        skipped = [f"{count} {kind}" for kind, count in self.skipped.items() if count]
        if skipped and not wrote:
            return (
                f"the demo data already exists in {self.table!r}, nothing was added "
                f"(skipped {_listed(skipped)})"
            )
        seeded = f"seeded {_listed(wrote) or 'nothing'} into {self.table!r}"
        if not skipped:
            return seeded
        return f"{seeded}; skipped what was there already: {_listed(skipped)}"

    async def run(self, customers: int = 40, max_orders: int = 20) -> tuple[int, int]:
        """Create `customers` customers with up to `max_orders` orders each.

        Customers that exist already are skipped with their orders, so seeding twice adds
        nothing. Returns (customers created, orders placed).
        """
        now = datetime.now(UTC)
        plans = [self._plan(n, now, max_orders) for n in range(customers)]
        created = placed = 0
        with tqdm(total=len(plans), desc="seeding customers", unit="customer") as progress:
            for batch in _chunks(plans, 4):
                for done in await asyncio.gather(*(self._customer(p) for p in batch)):
                    created += done > 0
                    placed += max(done - 1, 0)
                    progress.update()
        self.created.update(customers=created, orders=placed)
        self.skipped["customers"] += customers - created
        return created, placed

    async def run_comments(self, products: int = 6, max_comments: int = 25) -> tuple[int, int]:
        """Create `products` products with up to `max_comments` comments each.

        Products that exist already are skipped with their comments. Returns (products
        created, comments posted).
        """
        now = datetime.now(UTC)
        created = posted = 0
        with tqdm(total=products, desc="seeding products", unit="product") as progress:
            for number in range(products):
                product_id = f"product-{number:02d}"
                name = _PRODUCTS[number % len(_PRODUCTS)]
                product = {"id": product_id, "name": name}
                if await self._execute(CREATE_PRODUCT, {"input": product}) is not None:
                    comments = [
                        self._comment(product_id, now)
                        for _ in range(self.random.randint(1, max_comments))
                    ]
                    await asyncio.gather(
                        *(
                            self._execute(POST_COMMENT, {"input": c}, as_user=self._someone())
                            for c in comments
                        )
                    )
                    created += 1
                    posted += len(comments)
                progress.update()
        self.created.update(products=created, comments=posted)
        self.skipped["products"] += products - created
        return created, posted

    async def run_markers(self, per_place: int = 60) -> int:
        """Scatter `per_place` markers around each demo place, unless markers exist there."""
        added = 0
        with tqdm(total=len(_PLACES), desc="seeding markers", unit="place") as progress:
            for label, lat, lon in _PLACES:
                if not await self._has_markers(lat, lon):
                    points = [
                        (lat + self.random.uniform(-0.2, 0.2), lon + self.random.uniform(-0.2, 0.2))
                        for _ in range(per_place)
                    ]
                    await asyncio.gather(
                        *(
                            self._execute(
                                ADD_MARKER,
                                {"input": {"lat": y, "lon": x, "label": f"{label} {n}"}},
                                as_user=self._someone(),
                            )
                            for n, (y, x) in enumerate(points, start=1)
                        )
                    )
                    added += per_place
                else:
                    self.skipped["places with markers"] += 1
                progress.update()
        self.created["markers"] += added
        # Markers kept from before cells of lengths 1 and 2 were counted are counted there.
        await rebuild_short_counts(Store(self.client, self.table), MARKER_PLACES)
        return added

    async def run_collections(
        self, repos: int = 4, organizations: int = 2, queues: int = 2
    ) -> tuple[int, int, int]:
        """Repositories with issues and stars, organizations with teams and members, and
        queues with tickets, some updated since. Ones that exist already are skipped."""
        users = [f"{n}{k}" if k else n for k in range(3) for n in _NAMES]
        made = [0, 0, 0]
        total = repos + organizations + queues
        with tqdm(total=total, desc="seeding repos, organizations, queues") as progress:
            for number in range(repos):
                made[0] += await self._repo(number, users)
                progress.update()
            for number in range(organizations):
                made[1] += await self._organization(number, users)
                progress.update()
            for number in range(queues):
                made[2] += await self._queue(number)
                progress.update()
        kinds = ("repositories", "organizations", "queues")
        for kind, asked, count in zip(kinds, (repos, organizations, queues), made, strict=True):
            self.created[kind] += count
            self.skipped[kind] += asked - count
        return made[0], made[1], made[2]

    async def _repo(self, number: int, users: list[str]) -> int:
        owner, name = _NAMES[number % len(_NAMES)], _REPOS[number % len(_REPOS)]
        where = {"owner": owner, "name": f"{name}-{number}" if number >= len(_REPOS) else name}
        if await self._execute(CREATE_REPO, {"input": {**where, "description": "Demo"}}) is None:
            return 0
        for _ in range(self.random.randint(5, 40)):
            title = f"{self.random.choice(_ISSUES)} #{self.random.randint(1, 999)}"
            issue = await self._execute(
                OPEN_ISSUE, {"input": {**where, "title": title}}, as_user=self._someone()
            )
            assert issue is not None
            if self.random.random() < 0.3:
                await self._execute(CLOSE_ISSUE, {**where, **issue["openIssue"]})
        stars = self.random.sample(users, self.random.randint(3, len(users)))
        await asyncio.gather(*(self._execute(STAR_REPO, {**where, "username": u}) for u in stars))
        return 1

    async def _organization(self, number: int, users: list[str]) -> int:
        organization = f"org-{number}"
        creator = _NAMES[number % len(_NAMES)]
        created = await self._execute(
            CREATE_ORGANIZATION, {"input": {"name": organization}}, as_user=creator
        )
        if created is None:
            return 0
        for team in self.random.sample(_TEAMS, self.random.randint(2, len(_TEAMS))):
            await self._execute(CREATE_TEAM, {"organization": organization, "name": team})
        others = [u for u in users if u.lower() != creator.lower()]
        members = self.random.sample(others, self.random.randint(8, len(others)))
        await asyncio.gather(
            *(
                self._execute(
                    ADD_MEMBER,
                    {
                        "input": {
                            "organization": organization,
                            "username": username,
                            "name": f"{username.title()} Example",
                            "role": "ADMIN" if self.random.random() < 0.2 else "MEMBER",
                        }
                    },
                )
                for username in members
            )
        )
        return 1

    async def _queue(self, number: int) -> int:
        queue_id = f"queue-{number}"
        created = await self._execute(
            CREATE_QUEUE, {"input": {"id": queue_id, "name": f"Support line {number + 1}"}}
        )
        if created is None:
            return 0
        tickets = []
        for _ in range(self.random.randint(10, 25)):
            title = f"{self.random.choice(_TICKETS)} ({self.random.randint(100, 999)})"
            ticket = await self._execute(
                OPEN_TICKET,
                {"input": {"queueId": queue_id, "title": title}},
                as_user=self._someone(),
            )
            assert ticket is not None
            tickets.append(ticket["openTicket"]["id"])
        # Updating some older tickets moves them back to the top of the queue.
        for ticket_id in self.random.sample(tickets, len(tickets) // 3):
            status = self.random.choice(["IN_PROGRESS", "CLOSED"])
            await self._execute(UPDATE_TICKET, {"input": {"id": ticket_id, "status": status}})
        return 1

    async def _has_markers(self, lat: float, lon: float) -> bool:
        view = {"north": lat + 0.2, "south": lat - 0.2, "east": lon + 0.2, "west": lon - 0.2}
        query = "query ($v: Viewport!) { markers(viewport: $v, limit: 1) { markers { id } } }"
        result = await self._execute(query, {"v": view})
        return bool(result and result["markers"]["markers"])

    def _comment(self, product_id: str, now: datetime) -> dict[str, Any]:
        created = now - timedelta(minutes=self.random.randint(60, 365 * 24 * 60))
        return {
            "productId": product_id,
            "language": self.random.choice(_LANGUAGES),
            "rating": self.random.choice([1, 2, 3, 4, 4, 5, 5, 5]),
            "body": self.random.choice(_REMARKS),
            "createdAt": created.isoformat(),
        }

    def _plan(self, number: int, now: datetime, max_orders: int) -> dict[str, Any]:
        name = f"{self.random.choice(_NAMES)} {chr(65 + number % 26)}."
        orders = []
        for _ in range(self.random.randint(1, max_orders)):
            placed = now - timedelta(minutes=self.random.randint(60, 2 * 365 * 24 * 60))
            lines = [
                {
                    "sku": self.random.choice(_SKUS),
                    "quantity": self.random.randint(1, 4),
                    "unitPriceCents": self.random.randint(199, 9999),
                }
                for _ in range(self.random.randint(1, 4))
            ]
            moves = self.random.choices([f for f, _ in _FATES], [w for _, w in _FATES])[0]
            orders.append({"placedAt": placed.isoformat(), "items": lines, "moves": moves})
        customer_id = f"customer-{number:03d}"
        email = f"{customer_id}@example.com"
        return {"id": customer_id, "name": name, "email": email, "orders": orders}

    async def _customer(self, plan: dict[str, Any]) -> int:
        """Writes one customer and its orders; returns 0 if it existed, else 1 + orders."""
        customer = {k: plan[k] for k in ("id", "name", "email")}
        result = await self._execute(CREATE_CUSTOMER, {"input": customer})
        if result is None:
            return 0
        await asyncio.gather(*(self._order(plan["id"], order) for order in plan["orders"]))
        return 1 + len(plan["orders"])

    async def _order(self, customer_id: str, order: dict[str, Any]) -> None:
        variables = {"customerId": customer_id, "items": order["items"]}
        placed = await self._execute(
            PLACE_ORDER, {"input": {**variables, "placedAt": order["placedAt"]}}
        )
        assert placed is not None
        for status in order["moves"]:
            await self._execute(SET_STATUS, {"id": placed["placeOrder"]["id"], "status": status})

    def _someone(self) -> str:
        return self.random.choice(_NAMES)

    async def _execute(
        self, query: str, variables: dict[str, Any], *, as_user: str = SEED_USER
    ) -> dict[str, Any] | None:
        return await self.api.execute(query, variables, as_user=as_user)


def _listed(parts: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return " and ".join(filter(None, (", ".join(parts[:-1]), *parts[-1:])))


def _chunks(items: list[dict[str, Any]], size: int) -> list[list[dict[str, Any]]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
