// Runs Apollo Client, urql and graphql-ws, set up as app developers set them up, against
// the gateway at the URLs given: one in open mode (with batches on), one that checks
// tokens, and a token it signs. Prints one JSON line per case, {name, ok, detail}, and
// exits non-zero if any failed.
import { randomUUID } from "node:crypto";

import { cases as apollo } from "./apollo.mjs";
import { runCases } from "./cases.mjs";
import { cases as live } from "./live.mjs";
import { check, everyAnswer } from "./recording.mjs";
import { cases as urql } from "./urql.mjs";

const CASE_SECONDS = 30;
const [url, securedUrl, token] = process.argv.slice(2);
if (!url || !securedUrl || !token) {
  console.error("usage: node clients.mjs http://host:port/graphql http://host:port/graphql TOKEN");
  process.exit(2);
}
const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());

// A request as a plain program sends it, for the data the cases start from.
async function graphql(at, query, variables = {}, bearer = undefined) {
  const headers = { "content-type": "application/json" };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const response = await fetch(at, {
    method: "POST",
    headers,
    body: JSON.stringify({ query, variables }),
  });
  const answer = await response.json();
  check(!answer.errors, `${query.slice(0, 40)}…: ${JSON.stringify(answer.errors)}`);
  return answer.data;
}

const CREATE_REPO = `mutation ($owner: String!, $name: String!) {
  createRepo(input: {owner: $owner, name: $name}) { name }
}`;
const run = randomUUID().slice(0, 8);
const ctx = {
  url,
  securedUrl,
  token,
  subject: claims.sub,
  run,
  wsUrl: url.replace(/^http/, "ws"),
  securedWsUrl: securedUrl.replace(/^http/, "ws"),
  repo: { owner: "Ada", name: `clients-${run}` },
  firstIssue: "first",
  graphql,
  // A repository of a case's own, so that only its writes reach its subscription.
  newRepo: async (suffix) => {
    const repo = { owner: "Ada", name: `${suffix}-${run}` };
    await graphql(url, CREATE_REPO, repo);
    return repo;
  },
};
await graphql(url, CREATE_REPO, ctx.repo);
await graphql(
  url,
  `mutation ($owner: String!, $name: String!, $title: String!) {
    openIssue(input: {owner: $owner, name: $name, title: $title}) { number }
  }`,
  { ...ctx.repo, title: ctx.firstIssue },
);

// Last: every answer any case received over HTTP carried its cost, batches' each.
const every = {
  "every answer carries extensions.cost": async () => {
    const answers = everyAnswer.flatMap((seen) =>
      Array.isArray(seen.answer) ? seen.answer.map((answer) => ({ ...seen, answer })) : [seen],
    );
    const without = answers.filter((seen) => seen.answer?.extensions?.cost === undefined);
    check(answers.length > 20, `only ${answers.length} answers seen`);
    check(without.length === 0, `without: ${JSON.stringify(without.slice(0, 3))}`);
    return `${answers.length} answers`;
  },
};

await runCases({ ...apollo, ...urql, ...live, ...every }, CASE_SECONDS, ctx);
