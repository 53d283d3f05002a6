// Apollo Client's automatic persisted queries as apps set them up (createPersistedQueryLink
// before an HttpLink), against the gateway at the URL given: behind a load balancer, each
// request may reach another replica. Each way of sending runs three cases: a client's first
// contact (the hash alone, refused, then the document with it), another client sending the
// same document (the hash alone, answered at once), and the first client again. Prints one
// JSON line per case, {name, ok, detail}, and exits non-zero if any failed.
import { createHash, randomUUID } from "node:crypto";

import {
  ApolloClient,
  HttpLink,
  InMemoryCache,
  gql,
} from "@apollo/client/core/index.js";
import { createPersistedQueryLink } from "@apollo/client/link/persisted-queries/index.js";
import { print } from "graphql";

import { runCases } from "./cases.mjs";
import { check, describe, recordingFetch, sent } from "./recording.mjs";

const CASE_SECONDS = 30;
const [url] = process.argv.slice(2);
if (!url) {
  console.error("usage: node apq.mjs http://host:port/graphql");
  process.exit(2);
}
const sha256 = (text) => createHash("sha256").update(text).digest("hex");
const run = randomUUID().slice(0, 8);
const repo = { owner: "Ada", name: `apq-${run}` };

// Documents of their own per way and run: each hash is new at first contact.
const query = (name) => gql`
  query ${name}($owner: String!, $name: String!) {
    repo(owner: $owner, name: $name) {
      name
      starCount
    }
  }
`;
const mutation = (name) => gql`
  mutation ${name}($owner: String!, $name: String!, $title: String!) {
    openIssue(input: { owner: $owner, name: $name, title: $title }) {
      title
    }
  }
`;

// Each way a client sends its documents by hash: the link's options, the HttpLink's, the
// document, how it runs and the method its requests take.
const WAYS = {
  POST: { persisted: {}, http: {}, method: "POST", operation: query },
  GET: { persisted: { useGETForHashedQueries: true }, http: {}, method: "GET", operation: query },
  "GET, Accept: application/json": {
    persisted: { useGETForHashedQueries: true },
    http: { headers: { accept: "application/json" } },
    method: "GET",
    operation: query,
  },
  "POST, the hash computed asynchronously": {
    persisted: { generateHash: async (document) => sha256(print(document)) },
    http: {},
    method: "POST",
    operation: query,
  },
  // Apollo sends a mutation over POST, whatever the link's GET option says.
  mutation: {
    persisted: { useGETForHashedQueries: true },
    http: {},
    method: "POST",
    operation: mutation,
  },
};

function client(way, recorder) {
  const options = way.persisted.generateHash ? way.persisted : { sha256, ...way.persisted };
  const link = createPersistedQueryLink(options).concat(
    new HttpLink({ uri: url, fetch: recorder.fetch, ...way.http }),
  );
  return new ApolloClient({ link, cache: new InMemoryCache() });
}

// Runs `document` once through `apollo`; the calls it made on the wire.
async function ask(apollo, recorder, document, title) {
  const before = recorder.calls.length;
  if (document.definitions[0].operation === "mutation") {
    const { data } = await apollo.mutate({ mutation: document, variables: { ...repo, title } });
    check(data.openIssue.title === title, `data: ${JSON.stringify(data)}`);
  } else {
    const { data } = await apollo.query({
      query: document,
      variables: repo,
      fetchPolicy: "network-only",
    });
    check(data.repo.name === repo.name, `data: ${JSON.stringify(data)}`);
  }
  return recorder.calls.slice(before);
}

function hashOnly(call, method) {
  const { query: text, extensions } = sent(call);
  return call.method === method && text === null && extensions?.persistedQuery?.sha256Hash;
}

function answeredAtOnce(calls, method) {
  check(calls.length === 1, `one request expected: ${describe(calls)}`);
  check(hashOnly(calls[0], method), `the hash alone by ${method}: ${describe(calls)}`);
  check(!calls[0].answer?.errors, `answer: ${JSON.stringify(calls[0].answer)}`);
  return describe(calls);
}

// The three cases of one way, in order: they share its document and its first client.
function wayCases(label, way) {
  const document = way.operation(`${label.replace(/\W+/g, "_")}_${run}`);
  const first = recordingFetch();
  const firstClient = client(way, first);
  return {
    [`apollo persisted ${label}: first contact`]: async () => {
      const calls = await ask(firstClient, first, document, "first");
      check(calls.length === 2, `two requests expected: ${describe(calls)}`);
      const [hashed, full] = calls;
      check(hashOnly(hashed, way.method), `first: ${describe(calls)}`);
      const missing = hashed.answer?.errors?.[0];
      check(
        missing?.extensions?.code === "PERSISTED_QUERY_NOT_FOUND",
        `first answer: ${JSON.stringify(hashed.answer)}`,
      );
      check(sent(full).query !== null && sent(full).extensions?.persistedQuery, "no retry");
      return describe(calls);
    },
    [`apollo persisted ${label}: another client`]: async () => {
      const other = recordingFetch();
      return answeredAtOnce(await ask(client(way, other), other, document, "other"), way.method);
    },
    [`apollo persisted ${label}: repeat`]: async () =>
      answeredAtOnce(await ask(firstClient, first, document, "again"), way.method),
  };
}

const created = await fetch(url, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    query: "mutation ($owner: String!, $name: String!) { createRepo(input: {owner: $owner, name: $name}) { name } }",
    variables: repo,
  }),
});
check(!(await created.json()).errors, "the repository was not created");

const cases = Object.entries(WAYS).map(([label, way]) => wayCases(label, way));
await runCases(Object.assign({}, ...cases), CASE_SECONDS);
