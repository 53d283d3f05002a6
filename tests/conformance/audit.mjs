// Runs graphql-http's audits of the GraphQL over HTTP specification against the server at
// the URL given, and prints each result as one JSON line: id, name, status, reason.
import { auditServer } from "graphql-http";

const url = process.argv[2];
if (!url) {
  console.error("usage: node audit.mjs http://host:port/graphql");
  process.exit(2);
}
for (const result of await auditServer({ url })) {
  const line = { id: result.id, name: result.name, status: result.status };
  if (result.status !== "ok") line.reason = result.reason;
  console.log(JSON.stringify(line));
}
