// urql's core client as its documentation sets it up: `cacheExchange, fetchExchange`, with
// `persistedExchange` in front of the fetch where documents go by hash.
import { Client, cacheExchange, fetchExchange } from "@urql/core";
import { persistedExchange } from "@urql/exchange-persisted";

import { persistedCases, persistedEntries } from "./persisted.mjs";
import { check, describe, recordingFetch, sent } from "./recording.mjs";

const REPO = `query UrqlRepo($owner: String!, $name: String!) {
  repo(owner: $owner, name: $name) { owner name issues(first: 5) { edges { node { title } } } }
}`;
const OPEN_ISSUE = `mutation UrqlOpen($owner: String!, $name: String!, $title: String!) {
  openIssue(input: {owner: $owner, name: $name, title: $title}) { number title }
}`;
const CREATE_REPO = `mutation UrqlCreate($owner: String!, $name: String!) {
  createRepo(input: {owner: $owner, name: $name}) { owner name }
}`;
const BAD_CURSOR = `query UrqlBadCursor($owner: String!, $name: String!) {
  repo(owner: $owner, name: $name) { issues(first: 1, after: "not-a-cursor") { edges { cursor } } }
}`;
const UNKNOWN_FIELD = "query UrqlInvalid { repo(owner: \"Ada\", name: \"x\") { nothingHere } }";
const persisted = (operation) => `query ${operation}($owner: String!, $name: String!) {
  repo(owner: $owner, name: $name) { name starCount }
}`;

function client(url, recorder, options = {}) {
  const { exchanges = [cacheExchange, fetchExchange], ...rest } = options;
  return new Client({ url, exchanges, fetch: recorder.fetch, ...rest });
}

function persistedCase(preferGet) {
  const operation = preferGet ? "UrqlPersistedGet" : "UrqlPersistedPost";
  const run = async (ctx) => {
    const document = persisted(`${operation}_${ctx.run}`);
    const recorder = recordingFetch();
    const exchange = persistedExchange({ preferGetForPersistedQueries: preferGet });
    const urql = client(ctx.url, recorder, {
      exchanges: [cacheExchange, exchange, fetchExchange],
    });
    const { data, error } = await urql.query(document, ctx.repo).toPromise();
    check(!error && data.repo.name === ctx.repo.name, `answer: ${error ?? JSON.stringify(data)}`);
    return recorder.calls;
  };
  return persistedCases(preferGet ? "GET" : "POST", run, (hashed, full, calls) => {
    const message = hashed.answer?.errors?.[0]?.message;
    check(message === "PersistedQueryNotFound", `first answer: ${JSON.stringify(hashed.answer)}`);
    check(sent(full).query !== null, `the retry sent no document: ${describe(calls)}`);
  });
}

export const cases = {
  "urql query": async (ctx) => {
    const recorder = recordingFetch();
    const { data, error } = await client(ctx.url, recorder).query(REPO, ctx.repo).toPromise();
    check(!error, `error: ${error}`);
    const titles = data.repo.issues.edges.map((edge) => edge.node.title);
    check(titles.includes(ctx.firstIssue), `issues: ${JSON.stringify(titles)}`);
    // urql sends queries as GET while the URL is short enough (its default).
    return `${describe(recorder.calls)}: issues ${titles.join(", ")}`;
  },
  "urql mutation": async (ctx) => {
    const recorder = recordingFetch();
    const variables = { ...ctx.repo, title: "from urql" };
    const urql = client(ctx.url, recorder);
    const { data, error } = await urql.mutation(OPEN_ISSUE, variables).toPromise();
    check(!error && data.openIssue.number > 1, `answer: ${error ?? JSON.stringify(data)}`);
    return `issue ${data.openIssue.number} (${describe(recorder.calls)})`;
  },
  "urql error code": async (ctx) => {
    const urql = client(ctx.url, recordingFetch());
    const { error } = await urql.query(BAD_CURSOR, ctx.repo).toPromise();
    const codes = (error?.graphQLErrors ?? []).map((e) => e.extensions?.code);
    check(codes.includes("BAD_CURSOR"), `error: ${error}`);
    return codes.join(",");
  },
  "urql request error": async (ctx) => {
    // A document that does not validate: HTTP 400 for urql, which asks for
    // application/graphql-response+json, and the error still reaches `graphQLErrors`.
    const recorder = recordingFetch();
    const { error } = await client(ctx.url, recorder).query(UNKNOWN_FIELD, {}).toPromise();
    const [call] = recorder.calls;
    const codes = (error?.graphQLErrors ?? []).map((e) => e.extensions?.code);
    check(call.status === 400 && codes.length === 1 && codes[0], `error: ${error}`);
    return `${call.status} ${codes.join(",")}`;
  },
  ...persistedEntries("urql", persistedCase),
  "urql authorization header": async (ctx) => {
    const recorder = recordingFetch();
    const fetchOptions = { headers: { authorization: `Bearer ${ctx.token}` } };
    const urql = client(ctx.securedUrl, recorder, { fetchOptions });
    const name = `${ctx.repo.name}-urql-signed`;
    const { data, error } = await urql
      .mutation(CREATE_REPO, { owner: ctx.subject, name })
      .toPromise();
    check(!error && data.createRepo.name === name, `answer: ${error ?? JSON.stringify(data)}`);
    return `created ${data.createRepo.owner}/${data.createRepo.name} signed in`;
  },
};
