// Subscriptions over `graphql-transport-ws` as clients open them: graphql-ws's own client
// (with the `ws` package's WebSocket: Node 20 has none of its own), Apollo's GraphQLWsLink
// and urql's subscriptionExchange, each receiving the event a mutation makes.
import { ApolloClient, HttpLink, InMemoryCache, gql, split } from "@apollo/client/core/index.js";
import { GraphQLWsLink } from "@apollo/client/link/subscriptions/index.js";
import { getMainDefinition } from "@apollo/client/utilities/index.js";
import { Client, cacheExchange, fetchExchange, subscriptionExchange } from "@urql/core";
import { createClient } from "graphql-ws";
import WebSocket from "ws";

import { check } from "./recording.mjs";

const ISSUE_CHANGES = `subscription Changes($owner: String!, $name: String!) {
  issueChanges(owner: $owner, name: $name) { kind number issue { title author } }
}`;
const OPEN_ISSUE = `mutation LiveOpen($owner: String!, $name: String!, $title: String!) {
  openIssue(input: {owner: $owner, name: $name, title: $title}) { number }
}`;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A subscription starts hearing the table's stream once it runs, which no message of the
// protocol tells: an issue is opened every second until the first event arrives.
async function firstEvent(event, open) {
  for (let attempt = 1; attempt <= 15; attempt += 1) {
    await open(`live ${attempt}`);
    const got = await Promise.race([event, sleep(1000).then(() => undefined)]);
    if (got !== undefined) return got;
  }
  throw new Error("no event within 15 issues opened");
}

function checkAdded(payload, source) {
  const change = payload?.data?.issueChanges;
  check(change?.kind === "ADDED" && change.number >= 1, `${source}: ${JSON.stringify(payload)}`);
  return change;
}

function wsClient(url, connectionParams) {
  return createClient({ url, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0 });
}

export const cases = {
  "graphql-ws subscription": async (ctx) => {
    const repo = await ctx.newRepo("ws");
    const client = wsClient(ctx.wsUrl);
    const events = client.iterate({ query: ISSUE_CHANGES, variables: repo });
    try {
      const first = events.next().then(({ value }) => value);
      const open = (title) => ctx.graphql(ctx.url, OPEN_ISSUE, { ...repo, title });
      const change = checkAdded(await firstEvent(first, open), "graphql-ws");
      return `${change.kind} ${change.number} "${change.issue.title}"`;
    } finally {
      await events.return();
      await client.dispose();
    }
  },
  "graphql-ws signed in": async (ctx) => {
    const repo = await ctx.newRepo("ws-signed");
    const params = { Authorization: `Bearer ${ctx.token}` };
    const client = wsClient(ctx.securedWsUrl, params);
    const events = client.iterate({ query: ISSUE_CHANGES, variables: repo });
    try {
      const first = events.next().then(({ value }) => value);
      const open = (title) =>
        ctx.graphql(ctx.securedUrl, OPEN_ISSUE, { ...repo, title }, ctx.token);
      const change = checkAdded(await firstEvent(first, open), "graphql-ws");
      check(
        change.issue.author?.toLowerCase() === ctx.subject.toLowerCase(),
        `author: ${change.issue.author}`,
      );
      return `${change.kind} ${change.number} by ${change.issue.author}`;
    } finally {
      await events.return();
      await client.dispose();
    }
  },
  "apollo subscription": async (ctx) => {
    const repo = await ctx.newRepo("apollo-live");
    const ws = wsClient(ctx.wsUrl);
    const link = split(
      ({ query }) => {
        const definition = getMainDefinition(query);
        return definition.kind === "OperationDefinition" && definition.operation === "subscription";
      },
      new GraphQLWsLink(ws),
      new HttpLink({ uri: ctx.url }),
    );
    const apollo = new ApolloClient({ link, cache: new InMemoryCache() });
    let subscription;
    try {
      const first = new Promise((resolve, reject) => {
        subscription = apollo
          .subscribe({ query: gql(ISSUE_CHANGES), variables: repo })
          .subscribe({ next: resolve, error: reject });
      });
      const mutation = gql(OPEN_ISSUE);
      const open = (title) => apollo.mutate({ mutation, variables: { ...repo, title } });
      const change = checkAdded(await firstEvent(first, open), "Apollo");
      return `${change.kind} ${change.number} "${change.issue.title}"`;
    } finally {
      subscription?.unsubscribe();
      apollo.stop();
      await ws.dispose();
    }
  },
  "urql subscription": async (ctx) => {
    const repo = await ctx.newRepo("urql-live");
    const ws = wsClient(ctx.wsUrl);
    const forwardSubscription = (request) => {
      const input = { ...request, query: request.query || "" };
      return { subscribe: (sink) => ({ unsubscribe: ws.subscribe(input, sink) }) };
    };
    const urql = new Client({
      url: ctx.url,
      exchanges: [cacheExchange, fetchExchange, subscriptionExchange({ forwardSubscription })],
    });
    let subscription;
    try {
      const first = new Promise((resolve, reject) => {
        subscription = urql.subscription(ISSUE_CHANGES, repo).subscribe((result) => {
          if (result.error) reject(result.error);
          else resolve(result);
        });
      });
      const open = async (title) => {
        const { error } = await urql.mutation(OPEN_ISSUE, { ...repo, title }).toPromise();
        if (error) throw error;
      };
      const change = checkAdded(await firstEvent(first, open), "urql");
      return `${change.kind} ${change.number} "${change.issue.title}"`;
    } finally {
      subscription?.unsubscribe();
      await ws.dispose();
    }
  },
};
