// Apollo Client 3 as its documentation sets it up: HttpLink, the persisted query link,
// BatchHttpLink and a header link, each with its defaults but for the options named.
import { createHash } from "node:crypto";

// Apollo Client 3 has no `exports` map: Node's ES modules name its files.
import {
  ApolloClient,
  ApolloLink,
  HttpLink,
  InMemoryCache,
  gql,
} from "@apollo/client/core/index.js";
import { BatchHttpLink } from "@apollo/client/link/batch-http/index.js";
import { setContext } from "@apollo/client/link/context/index.js";
import { createPersistedQueryLink } from "@apollo/client/link/persisted-queries/index.js";

import { persistedCases, persistedEntries } from "./persisted.mjs";
import { check, describe, recordingFetch, sent } from "./recording.mjs";

const REPO = gql`
  query Repo($owner: String!, $name: String!) {
    repo(owner: $owner, name: $name) {
      owner
      name
      issues(first: 5) {
        edges {
          node {
            number
            title
          }
        }
      }
    }
  }
`;
const OPEN_ISSUE = gql`
  mutation Open($owner: String!, $name: String!, $title: String!) {
    openIssue(input: { owner: $owner, name: $name, title: $title }) {
      number
      title
    }
  }
`;
const CREATE_REPO = gql`
  mutation Create($owner: String!, $name: String!) {
    createRepo(input: { owner: $owner, name: $name }) {
      owner
      name
    }
  }
`;
const BAD_CURSOR = gql`
  query BadCursor($owner: String!, $name: String!) {
    repo(owner: $owner, name: $name) {
      issues(first: 1, after: "not-a-cursor") {
        edges {
          cursor
        }
      }
    }
  }
`;
// One document per persisted case pair and run: its hash is new at first contact.
const persisted = (operation) => gql`
  query ${operation}($owner: String!, $name: String!) {
    repo(owner: $owner, name: $name) {
      name
      starCount
    }
  }
`;
const STAR_COUNT = gql`
  query Stars($owner: String!, $name: String!) {
    repo(owner: $owner, name: $name) {
      starCount
    }
  }
`;

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

function client(link) {
  return new ApolloClient({ link, cache: new InMemoryCache() });
}

function httpLink(uri, recorder, options = {}) {
  return new HttpLink({ uri, fetch: recorder.fetch, ...options });
}

// The error Apollo rejects with, or a failure if it resolved.
async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("resolved where an error was expected");
}

function persistedCase(useGet) {
  const operation = useGet ? "PersistedGet" : "PersistedPost";
  const run = async (ctx) => {
    const document = persisted(`${operation}_${ctx.run}`);
    const recorder = recordingFetch();
    const link = createPersistedQueryLink({ sha256, useGETForHashedQueries: useGet }).concat(
      httpLink(ctx.url, recorder),
    );
    const { data } = await client(link).query({ query: document, variables: ctx.repo });
    check(data.repo.name === ctx.repo.name, `data: ${JSON.stringify(data)}`);
    return recorder.calls;
  };
  return persistedCases(useGet ? "GET" : "POST", run, (hashed, full) => {
    const missing = hashed.answer?.errors?.[0];
    check(
      missing?.extensions?.code === "PERSISTED_QUERY_NOT_FOUND",
      `first answer: ${JSON.stringify(hashed.answer)}`,
    );
    check(sent(full).query !== null && sent(full).extensions?.persistedQuery, "no retry");
  });
}

export const cases = {
  "apollo query": async (ctx) => {
    const recorder = recordingFetch();
    const { data } = await client(httpLink(ctx.url, recorder)).query({
      query: REPO,
      variables: ctx.repo,
    });
    check(data.repo.owner === ctx.repo.owner, `data: ${JSON.stringify(data)}`);
    const titles = data.repo.issues.edges.map((edge) => edge.node.title);
    check(titles.includes(ctx.firstIssue), `issues: ${JSON.stringify(titles)}`);
    const [call] = recorder.calls;
    check(call.method === "POST" && call.headers.get("accept") === "*/*", "a POST as */*");
    return `repo ${data.repo.name}, issues ${titles.join(", ")}`;
  },
  "apollo mutation": async (ctx) => {
    const { data } = await client(httpLink(ctx.url, recordingFetch())).mutate({
      mutation: OPEN_ISSUE,
      variables: { ...ctx.repo, title: "from Apollo" },
    });
    check(data.openIssue.number > 1, `data: ${JSON.stringify(data)}`);
    return `issue ${data.openIssue.number}`;
  },
  "apollo error code": async (ctx) => {
    const error = await rejection(
      client(httpLink(ctx.url, recordingFetch())).query({ query: BAD_CURSOR, variables: ctx.repo }),
    );
    const codes = (error.graphQLErrors ?? []).map((e) => e.extensions?.code);
    check(codes.includes("BAD_CURSOR"), `graphQLErrors: ${JSON.stringify(error.graphQLErrors)}`);
    return codes.join(",");
  },
  "apollo cost extension": async (ctx) => {
    let extensions;
    const afterware = new ApolloLink((operation, forward) =>
      forward(operation).map((result) => {
        extensions = result.extensions;
        return result;
      }),
    );
    await client(afterware.concat(httpLink(ctx.url, recordingFetch()))).query({
      query: STAR_COUNT,
      variables: ctx.repo,
    });
    check(extensions?.cost?.requests >= 1, `extensions: ${JSON.stringify(extensions)}`);
    return JSON.stringify(extensions.cost);
  },
  "apollo GET query": async (ctx) => {
    const recorder = recordingFetch();
    const link = httpLink(ctx.url, recorder, { useGETForQueries: true });
    const { data } = await client(link).query({ query: STAR_COUNT, variables: ctx.repo });
    check(data.repo.starCount === 0, `data: ${JSON.stringify(data)}`);
    const [call] = recorder.calls;
    check(call.method === "GET" && sent(call).query, `a GET with its query: ${describe([call])}`);
    return describe(recorder.calls);
  },
  ...persistedEntries("apollo", persistedCase),
  "apollo batch of 3 in one fetch": async (ctx) => {
    const recorder = recordingFetch();
    const apollo = client(new BatchHttpLink({ uri: ctx.url, fetch: recorder.fetch }));
    const names = ["a", "b", "c"].map((suffix) => `${ctx.repo.name}-batch-${suffix}`);
    const answers = await Promise.all(
      names.map((name) =>
        apollo.mutate({ mutation: CREATE_REPO, variables: { owner: ctx.repo.owner, name } }),
      ),
    );
    check(recorder.calls.length === 1, `one fetch expected: ${recorder.calls.length}`);
    const [call] = recorder.calls;
    check(Array.isArray(call.body) && call.body.length === 3, "a body of 3 requests");
    check(Array.isArray(call.answer) && call.answer.length === 3, "an array of 3 answers");
    const got = answers.map((answer) => answer.data.createRepo.name);
    check(JSON.stringify(got) === JSON.stringify(names), `in order: ${got}`);
    return `1 fetch, answers ${got.join(", ")}`;
  },
  "apollo batch keeps others' answers": async (ctx) => {
    const recorder = recordingFetch();
    const apollo = client(new BatchHttpLink({ uri: ctx.url, fetch: recorder.fetch }));
    const [good, bad] = await Promise.allSettled([
      apollo.query({ query: STAR_COUNT, variables: ctx.repo }),
      apollo.query({ query: BAD_CURSOR, variables: ctx.repo }),
    ]);
    check(recorder.calls.length === 1, `one fetch expected: ${recorder.calls.length}`);
    check(good.status === "fulfilled", `the good one: ${good.reason}`);
    const code = bad.reason?.graphQLErrors?.[0]?.extensions?.code;
    check(bad.status === "rejected" && code === "BAD_CURSOR", `the bad one: ${bad.reason}`);
    return `stars ${good.value.data.repo.starCount}, then ${code}`;
  },
  "apollo authorization header": async (ctx) => {
    const auth = setContext((_, { headers }) => ({
      headers: { ...headers, authorization: `Bearer ${ctx.token}` },
    }));
    const recorder = recordingFetch();
    const name = `${ctx.repo.name}-signed`;
    const { data } = await client(auth.concat(httpLink(ctx.securedUrl, recorder))).mutate({
      mutation: CREATE_REPO,
      variables: { owner: ctx.subject, name },
    });
    check(data.createRepo.name === name, `data: ${JSON.stringify(data)}`);
    return `created ${data.createRepo.owner}/${data.createRepo.name} signed in`;
  },
  "apollo without a token is refused": async (ctx) => {
    const error = await rejection(
      client(httpLink(ctx.securedUrl, recordingFetch())).mutate({
        mutation: CREATE_REPO,
        variables: { owner: ctx.subject, name: `${ctx.repo.name}-anonymous` },
      }),
    );
    const code = error.graphQLErrors?.[0]?.extensions?.code;
    check(code === "UNAUTHENTICATED", `graphQLErrors: ${JSON.stringify(error.graphQLErrors)}`);
    return code;
  },
  "apollo bad token is HTTP 401": async (ctx) => {
    const auth = setContext(() => ({ headers: { authorization: "Bearer not.a.token" } }));
    const error = await rejection(
      client(auth.concat(httpLink(ctx.securedUrl, recordingFetch()))).query({
        query: STAR_COUNT,
        variables: ctx.repo,
      }),
    );
    const network = error.networkError;
    const code = network?.result?.errors?.[0]?.extensions?.code;
    check(network?.statusCode === 401 && code === "UNAUTHENTICATED", `error: ${error}`);
    return `${network.statusCode} ${code}`;
  },
  "apollo idempotent retry": async (ctx) => {
    const key = `apollo-${ctx.run}`;
    const headed = setContext(() => ({ headers: { "idempotency-key": key } }));
    const recorder = recordingFetch();
    const variables = { ...ctx.repo, title: "once" };
    const numbers = [];
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const apollo = client(headed.concat(httpLink(ctx.url, recorder)));
      const { data } = await apollo.mutate({ mutation: OPEN_ISSUE, variables });
      numbers.push(data.openIssue.number);
    }
    const replayed = recorder.calls.map((call) => call.response.headers.get("idempotent-replayed"));
    check(numbers[0] === numbers[1], `one issue expected: ${numbers}`);
    check(replayed[0] === null && replayed[1] === "true", `replayed: ${replayed}`);
    return `issue ${numbers[0]} twice, the second replayed`;
  },
};
