// dynamodb-onetable as its users set it up: accounts and their users in one table (`pk`/`sk`,
// a global index `gs1` on `gs1pk`/`gs1sk`), in OneTable's own value templates, `_type` and
// timestamps. tests/model/test_onetable_table.py drives it beside dynagate:
//   node onetable.mjs ENDPOINT TABLE ACTION [JSON]
// ACTION: create (the table), seed, users (an account's), get, add, drop (the table).
// It prints its answer as JSON on standard output.
import { Table } from "dynamodb-onetable";

import { invocation } from "./invocation.mjs";

const { table: name, action, args, client } = invocation();

const schema = {
  format: "onetable:1.1.0",
  version: "0.0.1",
  indexes: {
    primary: { hash: "pk", sort: "sk" },
    gs1: { hash: "gs1pk", sort: "gs1sk", project: "all" },
  },
  models: {
    Account: {
      pk: { type: String, value: "account#${id}" },
      sk: { type: String, value: "account#" },
      id: { type: String, required: true },
      name: { type: String, required: true },
    },
    User: {
      pk: { type: String, value: "account#${accountId}" },
      sk: { type: String, value: "user#${email}" },
      gs1pk: { type: String, value: "user#${email}" },
      gs1sk: { type: String, value: "user#" },
      accountId: { type: String, required: true },
      email: { type: String, required: true },
      name: { type: String, required: true },
    },
  },
  params: { isoDates: true, timestamps: true },
};
const table = new Table({ client, name, schema, partial: false });
const Account = table.getModel("Account");
const User = table.getModel("User");

async function run() {
  switch (action) {
    case "create":
      await table.createTable();
      return { created: name };
    case "seed":
      await Account.create({ id: "acme", name: "Acme" });
      for (const [email, person] of [
        ["ada@acme.io", "Ada"],
        ["bob@acme.io", "Bob"],
        ["cy@acme.io", "Cy"],
      ]) {
        await User.create({ accountId: "acme", email, name: person });
      }
      await Account.create({ id: "other", name: "Other" });
      await User.create({ accountId: "other", email: "dee@other.io", name: "Dee" });
      return { seeded: name };
    case "users":
      return await User.find({ accountId: args.accountId });
    case "get":
      return await User.get({ accountId: args.accountId, email: args.email });
    case "add":
      return await User.create(args);
    case "drop":
      await table.deleteTable("DeleteTableForever");
      return { dropped: name };
    default:
      throw new Error(`no action ${action}`);
  }
}

process.stdout.write(JSON.stringify(await run()));
