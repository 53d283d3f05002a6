"""What deploying the table takes, from its one declaration (`keys/table.py`,
`create_table_request`): the table as CloudFormation or Terraform define it, and the
least-privilege IAM policy of the server (docs/containers.md#on-aws).

The table is the one `create-table` makes, and more that only an account's owner should
turn off: point-in-time recovery and deletion protection.
"""

from __future__ import annotations

from typing import Any, Literal

from keys.idempotency import EXPIRES
from keys.table import Layout
from store.tables import STREAM, create_table_request

Format = Literal["cloudformation", "terraform"]
FORMATS: tuple[Format, ...] = ("cloudformation", "terraform")

# IAM has no action for a transaction: TransactWriteItems is allowed by the action of each
# part inside it (Put, Update, Delete, ConditionCheck), TransactGetItems by GetItem.
TRANSACTION_ACTIONS = {
    "TransactWriteItems": ("PutItem", "UpdateItem", "DeleteItem", "ConditionCheckItem"),
    "TransactGetItems": ("GetItem",),
}
# The item calls the server makes (`store/client.py`), transactions as the actions above.
ITEM_ACTIONS = (
    "BatchGetItem",
    "ConditionCheckItem",
    "DeleteItem",
    "DescribeTable",
    "GetItem",
    "PutItem",
    "Query",
    "UpdateItem",
)
# Reading the table's stream for subscriptions (`store/stream/reader.py`).
STREAM_ACTIONS = ("DescribeStream", "GetRecords", "GetShardIterator")
# What `migrate` and `verify` call besides the item calls: a Scan, and an index added.
MIGRATE_ACTIONS = ("Scan", "UpdateTable")
# What `create-table` alone calls, never `serve` nor `migrate`.
CREATE_ACTIONS = ("CreateTable", "DescribeTimeToLive", "UpdateTimeToLive")
ADMIN_ACTIONS = tuple(sorted((*MIGRATE_ACTIONS, *CREATE_ACTIONS)))
Purpose = Literal["serve", "migrate"]
PURPOSES: tuple[Purpose, ...] = ("serve", "migrate")


def table_template(table: str, form: Format, layout: Layout) -> dict[str, Any]:
    """The table `table` of `layout` (the model's) as a CloudFormation template or a
    Terraform JSON configuration."""
    request = create_table_request(table, layout)
    if form == "cloudformation":
        return _cloudformation(request)
    return _terraform(request)


def _cloudformation(request: dict[str, Any]) -> dict[str, Any]:
    properties = {
        **request,
        "StreamSpecification": {"StreamViewType": STREAM["StreamViewType"]},
        "TimeToLiveSpecification": {"AttributeName": EXPIRES, "Enabled": True},
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
        "DeletionProtectionEnabled": True,
    }
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": f"The dynagate table {request['TableName']!r}, its indexes and stream",
        "Resources": {
            "Table": {
                "Type": "AWS::DynamoDB::Table",
                "DeletionPolicy": "Retain",
                "UpdateReplacePolicy": "Retain",
                "Properties": properties,
            }
        },
        "Outputs": {
            "TableArn": {"Value": {"Fn::GetAtt": ["Table", "Arn"]}},
            "StreamArn": {"Value": {"Fn::GetAtt": ["Table", "StreamArn"]}},
        },
    }


def _terraform(request: dict[str, Any]) -> dict[str, Any]:
    hash_key, range_key = (k["AttributeName"] for k in request["KeySchema"])
    table = {
        "name": request["TableName"],
        "billing_mode": request["BillingMode"],
        "hash_key": hash_key,
        "range_key": range_key,
        "attribute": [
            {"name": a["AttributeName"], "type": a["AttributeType"]}
            for a in request["AttributeDefinitions"]
        ],
        "global_secondary_index": [
            {
                "name": index["IndexName"],
                "hash_key": index["KeySchema"][0]["AttributeName"],
                "range_key": index["KeySchema"][1]["AttributeName"],
                **_terraform_projection(index["Projection"]),
            }
            for index in request.get("GlobalSecondaryIndexes", [])
        ],
        "local_secondary_index": [
            {
                "name": index["IndexName"],
                "range_key": index["KeySchema"][1]["AttributeName"],
                **_terraform_projection(index["Projection"]),
            }
            for index in request.get("LocalSecondaryIndexes", [])
        ],
        "stream_enabled": True,
        "stream_view_type": STREAM["StreamViewType"],
        "ttl": {"attribute_name": EXPIRES, "enabled": True},
        "point_in_time_recovery": {"enabled": True},
        "deletion_protection_enabled": True,
        "lifecycle": {"prevent_destroy": True},
    }
    return {"resource": {"aws_dynamodb_table": {"dynagate": table}}}


def _terraform_projection(projection: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {"projection_type": projection["ProjectionType"]}
    if "NonKeyAttributes" in projection:
        found["non_key_attributes"] = projection["NonKeyAttributes"]
    return found


def iam_policy(
    table: str, region: str, account: str = "*", purpose: Purpose = "serve"
) -> dict[str, Any]:
    """The least-privilege policy `serve` needs on `table`: its item calls on the table,
    Query on its indexes, and the reads of its stream; for `migrate`, also a Scan of the
    table and UpdateTable to add an index."""
    arn = f"arn:aws:dynamodb:{region}:{account}:table/{table}"
    policy: dict[str, Any] = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "Items",
                "Effect": "Allow",
                "Action": [f"dynamodb:{a}" for a in ITEM_ACTIONS],
                "Resource": arn,
            },
            {
                "Sid": "Indexes",
                "Effect": "Allow",
                "Action": "dynamodb:Query",
                "Resource": f"{arn}/index/*",
            },
            {
                "Sid": "Stream",
                "Effect": "Allow",
                "Action": [f"dynamodb:{a}" for a in STREAM_ACTIONS],
                "Resource": f"{arn}/stream/*",
            },
        ],
    }
    if purpose == "migrate":
        policy["Statement"].append(
            {
                "Sid": "Migrate",
                "Effect": "Allow",
                "Action": [f"dynamodb:{a}" for a in MIGRATE_ACTIONS],
                "Resource": arn,
            }
        )
    return policy
