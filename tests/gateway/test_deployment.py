"""`dynagate table-template` and `dynagate iam-policy` (`store/deployment.py`), pure: the
table is the one `create-table` makes, with what only an account's owner should turn off
turned on, and the policy allows exactly the DynamoDB calls the server's code makes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore import xform_name

from gateway.cli.parser import command_parser
from store import deployment
from store.tables import create_table_request

ROOT = Path(__file__).parents[2]
# A call through the SDK's client, or the stream's.
_CALL = re.compile(r"\b(?:client|_streams)\.([a-z_]+)\b")


def calls_in_code() -> set[str]:
    """Every DynamoDB and DynamoDB Streams operation the product's code calls."""
    session = botocore.session.get_session()
    operations = {
        xform_name(name): name
        for service in ("dynamodb", "dynamodbstreams")
        for name in session.get_service_model(service).operation_names
    }
    found = set()
    for package in ("store", "data", "gateway", "demo"):
        for path in (ROOT / package).rglob("*.py"):
            found |= {operations[m] for m in _CALL.findall(path.read_text()) if m in operations}
    return found


# The `printed` fixture: a command's words and settings, and what it printed (JSON).
Printed = Callable[..., Any]
SHOP = {"DYNAGATE_TABLE": "shop", "AWS_REGION": "eu-west-1"}


@pytest.fixture
def printed(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Printed:
    """A command run with `settings` set in the environment (kept for the test's later
    commands), and what it printed, read as JSON."""

    def run(*argv: str, **settings: str) -> Any:
        for name, value in settings.items():
            monkeypatch.setenv(name, value)
        args = command_parser().parse_args(list(argv))
        assert args.run(args) == 0
        return json.loads(capsys.readouterr().out)

    return run


def iam_actions(calls: set[str]) -> set[str]:
    """The IAM actions that allow `calls`: IAM knows no transaction, each is allowed by the
    actions of its parts."""
    return {a for call in calls for a in deployment.TRANSACTION_ACTIONS.get(call, (call,))}


def allowed(policy: dict[str, Any], resource: str) -> set[str]:
    actions: set[str] = set()
    for statement in policy["Statement"]:
        if statement["Resource"] == resource:
            named = statement["Action"]
            actions |= {named} if isinstance(named, str) else set(named)
    return actions


def test_the_policy_allows_exactly_what_the_server_calls(printed: Printed) -> None:
    policy = printed("iam-policy", "--account", "123456789012", **SHOP)
    arn = "arn:aws:dynamodb:eu-west-1:123456789012:table/shop"
    assert {s["Effect"] for s in policy["Statement"]} == {"Allow"}
    items, indexes = allowed(policy, arn), allowed(policy, f"{arn}/index/*")
    stream = allowed(policy, f"{arn}/stream/*")
    assert indexes == {"dynamodb:Query"}  # the classic omission: the indexes' ARN
    served = calls_in_code() - set(deployment.ADMIN_ACTIONS)
    assert "TransactWriteItems" in served
    assert {a.removeprefix("dynamodb:") for a in items | stream} == iam_actions(served)
    # Every call of the code is the server's or an administration command's, known here.
    assert calls_in_code() <= served | set(deployment.ADMIN_ACTIONS)
    assert not set(deployment.ADMIN_ACTIONS) & {a.removeprefix("dynamodb:") for a in items}


@pytest.mark.parametrize("form", deployment.FORMATS)
def test_the_template_is_the_table_create_table_makes_and_more_protected(
    printed: Printed, form: str
) -> None:
    template = printed("table-template", "--format", form, DYNAGATE_TABLE="shop")
    made = create_table_request("shop")
    if form == "cloudformation":
        table = template["Resources"]["Table"]
        assert (table["Type"], table["DeletionPolicy"]) == ("AWS::DynamoDB::Table", "Retain")
        properties = table["Properties"]
        for name in ("TableName", "BillingMode", "AttributeDefinitions", "KeySchema"):
            assert properties[name] == made[name]
        assert properties["GlobalSecondaryIndexes"] == made["GlobalSecondaryIndexes"]
        assert properties["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
        assert properties["TimeToLiveSpecification"] == {
            "AttributeName": "expiresAt",
            "Enabled": True,
        }
        assert properties["PointInTimeRecoverySpecification"] == {
            "PointInTimeRecoveryEnabled": True
        }
        assert properties["DeletionProtectionEnabled"] is True
        return
    table = template["resource"]["aws_dynamodb_table"]["dynagate"]
    assert (table["name"], table["billing_mode"]) == ("shop", "PAY_PER_REQUEST")
    assert (table["hash_key"], table["range_key"]) == ("PK", "SK")
    assert [a["name"] for a in table["attribute"]] == [
        a["AttributeName"] for a in made["AttributeDefinitions"]
    ]
    indexes = {i["name"]: (i["hash_key"], i["range_key"]) for i in table["global_secondary_index"]}
    assert indexes == {
        i["IndexName"]: tuple(k["AttributeName"] for k in i["KeySchema"])
        for i in made["GlobalSecondaryIndexes"]
    }
    assert (table["stream_enabled"], table["stream_view_type"]) == (True, "NEW_AND_OLD_IMAGES")
    assert table["ttl"] == {"attribute_name": "expiresAt", "enabled": True}
    assert table["point_in_time_recovery"] == {"enabled": True}
    assert table["deletion_protection_enabled"] is True


def test_the_migrate_policy_adds_a_scan_and_an_index_and_nothing_else(printed: Printed) -> None:
    serving = printed("iam-policy", **SHOP)
    migrating = printed("iam-policy", "--for", "migrate")
    added = [s for s in migrating["Statement"] if s not in serving["Statement"]]
    assert added == [
        {
            "Sid": "Migrate",
            "Effect": "Allow",
            "Action": ["dynamodb:Scan", "dynamodb:UpdateTable"],
            "Resource": "arn:aws:dynamodb:eu-west-1:*:table/shop",
        }
    ]
    assert len(migrating["Statement"]) == len(serving["Statement"]) + 1
    # What no policy grants is create-table's alone.
    resources = {s["Resource"] for s in migrating["Statement"]}
    granted = {a.removeprefix("dynamodb:") for r in resources for a in allowed(migrating, r)}
    ungranted = {call for call in calls_in_code() if not iam_actions({call}) <= granted}
    assert ungranted <= set(deployment.CREATE_ACTIONS)


def test_the_template_holds_the_indexes_of_the_model_it_is_given(printed: Printed) -> None:
    model = {"DYNAGATE_TABLE": "shelves", "DYNAGATE_MODEL": "tests.model.library_v1"}
    template = printed("table-template", **model)
    properties = template["Resources"]["Table"]["Properties"]
    assert [i["IndexName"] for i in properties["GlobalSecondaryIndexes"]] == ["GSI1", "GSI2"]
    assert {a["AttributeName"] for a in properties["AttributeDefinitions"]} == {
        "PK",
        "SK",
        "GSI1PK",
        "GSI1SK",
        "GSI2PK",
        "GSI2SK",
    }
