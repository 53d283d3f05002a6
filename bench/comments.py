"""Comments (seed 003): what the rating-set key style and the copy design cost.

    python -m bench.comments [--comments 1000] [--matching-every 100] [--body-chars 500]

a. Key bytes of the two rating-set styles (`bitmask` {1,2,5} -> 19, chosen; `dotted`
   1.2.5, the seed's) over a comment's 32 copies.
b. Write units of one postComment per style and body length: modelled from item sizes by
   AWS's documented rules, beside what DynamoDB Local reports (not AWS's figures).
c. Read units of one filtered page on the same data: our copy list against the seed's
   rejected way (the all-comments list with a FilterExpression, refilled page after page).

Starts DynamoDB Local, prints progress and a report, writes bench/results/comments.json.
Exits 0 whatever the figures (it is a report).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import comments_model as model
from bench import comments_reads as reads
from bench import comments_writes as writes
from bench.comments_report import render
from bench.comments_sizes import RULES
from bench.progress import Progress
from bench.servers import REPOSITORY
from gateway.dynamodb_local import DynamoDBLocal
from store.client import open_client
from store.requests import put_request
from store.tables import create_table

OUTPUT = REPOSITORY / "bench" / "results" / "comments.json"
READ_PRODUCT = "bench"


@dataclass(frozen=True)
class Options:
    comments: int
    matching_every: int
    body_chars: int
    output: Path


def parse(argv: Sequence[str] | None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m bench.comments",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--comments", type=int, default=1_000, help="for c. (default 1000)")
    parser.add_argument(
        "--matching-every", type=int, default=100, help="one fr/2 comment in N (default 100)"
    )
    parser.add_argument("--body-chars", type=int, default=500, help="for c. (default 500)")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="JSON results file")
    a = parser.parse_args(argv)
    if a.comments < 1 or a.matching_every < 1 or not 1 <= a.body_chars <= 10_000:
        parser.error("--comments and --matching-every must be positive, --body-chars 1..10000")
    return Options(a.comments, a.matching_every, a.body_chars, a.output)


def on_paper(say: Callable[[str], None]) -> dict[str, Any]:
    rows = model.key_bytes_by_rating()
    say("a. key bytes of both rating-set styles computed for every (language, rating)")
    costs = model.modelled_post_costs()
    sweep = model.body_length_sweep()
    say(f"b. modelled postComment WCU for bodies {model.BODY_LENGTHS} and lengths 1..10000")
    return {
        "key_bytes": {
            "product_id": model.PRODUCT_ID,
            "languages": model.LANGUAGES,
            "by_rating": rows,
            "summary": model.key_bytes_summary(rows),
        },
        "write_cost": {
            "language": model.POST_LANGUAGE,
            "rating": model.POST_RATING,
            "model": costs,
            "body_length_sweep": sweep,
        },
    }


async def on_local(endpoint: str, options: Options, say: Callable[[str], None]) -> dict[str, Any]:
    async with open_client(endpoint, "us-east-1", local=True, env={}) as client:
        # One table per style: the same key can mean different sets in the two styles.
        tables = {style: f"comments-{style}" for style in model.STYLES}
        for table in tables.values():
            await create_table(client, table)
            await client.put_item(**put_request(table, model.product(model.PRODUCT_ID)))
        local = []
        for style, table in tables.items():
            local += await writes.local_post_costs(client, table, model.PRODUCT_ID, style)
        say("b. one postComment transaction per style and body length sent to DynamoDB Local")
        gateway = {
            str(n): await writes.gateway_post_cost(client, tables["bitmask"], model.PRODUCT_ID, n)
            for n in model.BODY_LENGTHS
        }
        controls = await writes.local_controls(client, tables["bitmask"])
        say(f"b. gateway post_comment (TOTAL) {gateway}; Local controls done")

        table = tables["bitmask"]
        data = reads.dataset(
            READ_PRODUCT, options.comments, options.matching_every, options.body_chars
        )
        loaded = await reads.load(client, table, data)
        say(
            f"c. loaded {loaded['items']:,} items ({options.comments:,} comments) by BatchWriteItem"
        )
        runs = await reads.compare(client, table, data)
        seed = runs["seed_filter_refill"]
        say(
            f"c. ours {runs['ours']['rcu']:g} RCU; the seed's filter {seed['rcu']:g} RCU"
            f" in {seed['requests']} requests"
        )
        check = await reads.read_rule_check(client, table)
        say("c. read rule checked on simple queries")
    matching = sum(1 for c in data.comments if (c["language"], c["rating"]) == reads.WANTED)
    return {
        "local": local,
        "gateway_post_comment_wcu": gateway,
        "local_controls": controls,
        "reads": {
            "setup": {
                "product_id": READ_PRODUCT,
                "comments": options.comments,
                "matching": matching,
                "body_chars": options.body_chars,
                "style": "bitmask",
                "page": reads.PAGE,
                "filter": reads.FILTER,
            },
            "load": loaded,
            "runs": runs,
            "read_rule_check": check,
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    say = Progress()
    results = on_paper(say)
    with DynamoDBLocal() as local:
        say(f"DynamoDB Local at {local.endpoint}")
        measured = asyncio.run(on_local(local.endpoint, options, say))
    results["write_cost"].update(
        local=measured["local"],
        gateway_post_comment_wcu=measured["gateway_post_comment_wcu"],
        local_controls=measured["local_controls"],
    )
    results["reads"] = measured["reads"]
    results["rules"] = [{"rule": rule, "source": source} for rule, source in RULES]
    results["machine"] = {"python": platform.python_version(), "platform": platform.platform()}
    print(render(results))
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results: {options.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
