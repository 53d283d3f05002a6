// The demo table served by hand: Apollo Server 4 (standalone), the AWS SDK v3
// DocumentClient and dataloader, as a JavaScript team would write it instead of dynagate.
// `python -m bench peers` loads it beside the gateway with the same documents.
//
// An SDL shaped as dynagate's schema (connections with edges/node/pageInfo), resolvers that
// make the key-condition Queries the table was laid out for, per-request DataLoaders
// (BatchGetItem) for items read by key. Only the fields the benchmark's documents use.
//
//   PEER_DDB_ENDPOINT  DynamoDB endpoint (required)   PEER_TABLE  table (peers)
//   PORT               port (4000), on 127.0.0.1
//
// Run: NODE_ENV=production node server.mjs

import http from 'node:http';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import DataLoader from 'dataloader';
import { GraphQLError, GraphQLScalarType, Kind, getArgumentValues, getNamedType } from 'graphql';
import * as geo from './geo.mjs';

const TABLE = process.env.PEER_TABLE || 'peers';
const DEFAULT_PAGE = 20, MAX_PAGE = 100, MAX_MARKERS = 1000, SEARCH_READS = 16;

const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({
  endpoint: process.env.PEER_DDB_ENDPOINT,
  region: process.env.AWS_REGION || 'us-east-1',
  credentials: {
    accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'local',
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'local',
  },
  requestHandler: { httpAgent: new http.Agent({ keepAlive: true, maxSockets: 64 }) },
}));

const typeDefs = /* GraphQL */ `
  "ISO-8601, UTC, millisecond precision: 2020-11-09T12:00:00.123Z"
  scalar DateTime

  enum OrderStatus { PLACED SHIPPED DELIVERED CANCELLED }
  enum IssueState { OPEN CLOSED }

  type PageInfo { startCursor: String endCursor: String hasNextPage: Boolean! hasPreviousPage: Boolean! }

  type Customer {
    id: ID!
    name: String!
    email: String!
    createdAt: DateTime!
    orders(status: OrderStatus, first: Int, after: String): OrderConnection!
  }
  type Order { id: ID! status: OrderStatus! placedAt: DateTime! updatedAt: DateTime! totalCents: Int! items: [OrderItem!]! }
  type OrderItem { position: Int! sku: String! quantity: Int! unitPriceCents: Int! }
  type OrderConnection { edges: [OrderEdge!]! pageInfo: PageInfo! }
  type OrderEdge { cursor: String! node: Order! }

  type Product {
    id: ID!
    name: String!
    comments(language: String, ratings: [Int!], first: Int, after: String): CommentConnection!
  }
  type Comment { id: ID! language: String! rating: Int! body: String! createdAt: DateTime! }
  type CommentConnection { edges: [CommentEdge!]! pageInfo: PageInfo! }
  type CommentEdge { cursor: String! node: Comment! }

  type Repo {
    owner: String!
    name: String!
    description: String
    createdAt: DateTime!
    starCount: Int!
    issues(first: Int, after: String): IssueConnection!
  }
  type Issue { number: Int! title: String! state: IssueState! createdAt: DateTime! }
  type IssueConnection { edges: [IssueEdge!]! pageInfo: PageInfo! }
  type IssueEdge { cursor: String! node: Issue! }

  "\`west > east\` crosses the antimeridian."
  input Viewport { north: Float! south: Float! east: Float! west: Float! }
  type Cell { geohash: String! count: Int! }
  type Heatmap { precision: Int! cells: [Cell!]! }
  type Marker { id: ID! lat: Float! lon: Float! geohash: String! label: String! createdAt: DateTime! }
  type MarkerSearch { markers: [Marker!]! truncated: Boolean! }

  type Query {
    customer(id: ID!): Customer
    product(id: ID!): Product
    repo(owner: String!, name: String!): Repo
    markers(viewport: Viewport!, limit: Int = 100): MarkerSearch!
    heatmap(viewport: Viewport!, precision: Int): Heatmap!
  }
`;

const bad = (message) => new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });

function pageSize(first) {
  if (first == null) return DEFAULT_PAGE;
  if (!(first >= 1 && first <= MAX_PAGE)) throw bad(`\`first\` must be 1 to ${MAX_PAGE}, not ${first}`);
  return first;
}

const encodeCursor = (key) => Buffer.from(JSON.stringify(key)).toString('base64url');
function decodeCursor(cursor) {
  try { return JSON.parse(Buffer.from(cursor, 'base64url').toString()); } catch { throw bad('bad cursor'); }
}

// A page of `size` from the `size + 1` rows read; cursors are the rows' keys.
function connection(rows, size, after, keyNames) {
  const edges = rows.slice(0, size).map((row) => {
    const key = {};
    for (const k of keyNames) key[k] = row[k];
    return { cursor: encodeCursor(key), node: row };
  });
  return {
    edges,
    pageInfo: {
      startCursor: edges.length ? edges[0].cursor : null,
      endCursor: edges.length ? edges[edges.length - 1].cursor : null,
      hasNextPage: rows.length > size,
      hasPreviousPage: after != null,
    },
  };
}

async function batchGet(keys, extra = {}) {
  let request = { [TABLE]: { Keys: keys, ...extra } };
  const found = [];
  while (request) {
    const r = await ddb.send(new BatchGetCommand({ RequestItems: request }));
    found.push(...(r.Responses?.[TABLE] ?? []));
    request = r.UnprocessedKeys && Object.keys(r.UnprocessedKeys).length ? r.UnprocessedKeys : null;
  }
  return found;
}

// Per request: items that head their own collection (PK = SK = <TYPE>#<id>), and an order's
// lines by order id. A page of orders read from GSI1 (projection ALL) has the lines already,
// so the lines loader only reads for an order reached without them.
function loaders() {
  return {
    heads: new DataLoader(async (keys) => {
      const found = await batchGet(keys.map((k) => ({ PK: k, SK: k })));
      const byKey = new Map(found.map((i) => [i.PK, i]));
      return keys.map((k) => byKey.get(k) ?? null);
    }, { maxBatchSize: 100 }),
    orderLines: new DataLoader(async (ids) => {
      const found = await batchGet(ids.map((i) => ({ PK: `ORDER#${i}`, SK: `ORDER#${i}` })),
        { ProjectionExpression: 'id, #items', ExpressionAttributeNames: { '#items': 'items' } });
      const byId = new Map(found.map((i) => [i.id, i.items]));
      return ids.map((i) => byId.get(i) ?? []);
    }, { maxBatchSize: 100 }),
  };
}

function ratingsMask(ratings) {
  // Each comment is copied under every set of ratings holding its own: a set is a bitmask
  // (rating r is bit r-1), no filter the set of all five.
  if (ratings == null) return 31;
  if (!ratings.length || ratings.some((r) => r < 1 || r > 5)) throw bad('`ratings` must be a non-empty set of 1 to 5');
  return [...new Set(ratings)].reduce((m, r) => m | (1 << (r - 1)), 0);
}

const repoPk = (owner, name) => `REPO#${owner.toLowerCase()}#${name.toLowerCase()}`;

// Issues sort before their repo item (ISSUE# < REPO#): reading backwards from the repo item
// returns it and then its issues, highest number first, in one Query.
async function repoAndIssues(pk, size, after) {
  const r = await ddb.send(new QueryCommand({
    TableName: TABLE,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :low AND :high',
    ExpressionAttributeValues: { ':pk': pk, ':low': 'ISSUE#', ':high': pk },
    ScanIndexForward: false,
    ...(after ? { Limit: size + 1, ExclusiveStartKey: decodeCursor(after) } : { Limit: size + 2 }),
  }));
  const rows = r.Items;
  const head = rows.length && rows[0].SK === pk ? rows.shift() : null;
  return { head, rows };
}

// The child field `name` of the field being resolved (through fragments), with its arguments.
function selected(info, name) {
  const stack = [...info.fieldNodes[0].selectionSet.selections];
  while (stack.length) {
    const sel = stack.shift();
    if (sel.kind === Kind.FIELD) {
      if (sel.name.value === name) {
        return getArgumentValues(getNamedType(info.returnType).getFields()[name], sel, info.variableValues);
      }
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      stack.push(...sel.selectionSet.selections);
    } else if (sel.kind === Kind.FRAGMENT_SPREAD) {
      stack.push(...info.fragments[sel.name.value].selectionSet.selections);
    }
  }
  return null;
}

const between = (pk, low, high, extra = {}) => new QueryCommand({
  TableName: TABLE,
  KeyConditionExpression: 'PK = :pk AND SK BETWEEN :low AND :high',
  ExpressionAttributeValues: { ':pk': pk, ':low': low, ':high': high },
  ScanIndexForward: true,
  ...extra,
});

async function queryAll(command) {
  const items = [];
  let start;
  do {
    if (start) command.input.ExclusiveStartKey = start;
    const r = await ddb.send(command);
    items.push(...r.Items);
    start = r.LastEvaluatedKey;
  } while (start);
  return items;
}

function view(viewport) {
  try { return new geo.View(viewport); } catch (e) { throw bad(e.message); }
}

const resolvers = {
  DateTime: new GraphQLScalarType({
    name: 'DateTime',
    serialize: (v) => v, // stored as the API shows it
    parseValue: (v) => v,
    parseLiteral: (ast) => ast.value,
  }),

  Query: {
    customer: (_, { id }, ctx) => ctx.heads.load(`CUSTOMER#${id}`),
    product: (_, { id }, ctx) => ctx.heads.load(`PRODUCT#${id}`),
    async repo(_, { owner, name }, ctx, info) {
      const pk = repoPk(owner, name);
      const issues = selected(info, 'issues');
      if (issues && !issues.after) {
        // The page of issues asked for is read with the repo item, in one Query.
        const size = pageSize(issues.first);
        const { head, rows } = await repoAndIssues(pk, size, null);
        return head && { ...head, prefetched: { size, rows } };
      }
      return ctx.heads.load(pk);
    },

    async heatmap(_, { viewport, precision }) {
      const v = view(viewport);
      let length;
      try { length = geo.precision(v, precision); } catch (e) { throw bad(e.message); }
      const plan = geo.heatmapPlan(v, length);
      const results = await Promise.all(plan.map((q) => queryAll(between(q.pk, q.low, q.high))));
      const cells = [];
      plan.forEach((q, i) => {
        for (const item of results[i]) {
          const cell = geo.cellOf(item.PK, item.SK);
          if (item.count > 0 && q.boxes.some((b) => geo.intersects(geo.cellBox(cell), b))) {
            cells.push({ geohash: cell, count: item.count });
          }
        }
      });
      cells.sort((a, b) => (a.geohash < b.geohash ? -1 : a.geohash > b.geohash ? 1 : 0));
      return { precision: length, cells };
    },

    async markers(_, { viewport, limit }) {
      const most = limit ?? 100;
      if (!(most >= 1 && most <= MAX_MARKERS)) throw bad(`\`limit\` must be 1 to ${MAX_MARKERS}`);
      const v = view(viewport);
      try { geo.checkPlaceView(v); } catch (e) { throw bad(e.message); }
      const plan = geo.placePlan(v);
      const first = plan.slice(0, SEARCH_READS), beyond = plan.slice(SEARCH_READS);
      const pages = await Promise.all(first.map((q) => ddb.send(between(q.pk, q.low, q.high, { Limit: most + 1 }))));
      const inside = (items) => items.filter((m) => v.contains(m.lat, m.lon));
      const found = [];
      let calls = first.length, unread = false, stopped = false;
      for (let i = 0; i < first.length; i++) { // in key order; a range with more is read on
        const q = first[i];
        let page = pages[i];
        found.push(...inside(page.Items));
        let start = page.LastEvaluatedKey;
        while (start && found.length <= most) {
          if (calls === SEARCH_READS) { unread = true; break; }
          page = await ddb.send(between(q.pk, q.low, q.high, { Limit: most + 1 - found.length, ExclusiveStartKey: start }));
          calls += 1;
          found.push(...inside(page.Items));
          start = page.LastEvaluatedKey;
        }
        if (found.length > most || unread) { stopped = true; break; }
      }
      if (!stopped) unread = beyond.length > 0;
      return { markers: found.slice(0, most), truncated: found.length > most || unread };
    },
  },

  Customer: {
    async orders(customer, { status, first, after }) {
      const size = pageSize(first);
      // GSI1: a customer's orders by time; GSI2: by status, then time.
      const [index, prefix] = status ? ['GSI2', `ORDER#${status}#`] : ['GSI1', 'ORDER#'];
      const r = await ddb.send(new QueryCommand({
        TableName: TABLE,
        IndexName: index,
        KeyConditionExpression: `${index}PK = :pk AND begins_with(${index}SK, :prefix)`,
        ExpressionAttributeValues: { ':pk': `CUSTOMER#${customer.id}`, ':prefix': prefix },
        ScanIndexForward: false,
        Limit: size + 1,
        ...(after ? { ExclusiveStartKey: decodeCursor(after) } : {}),
      }));
      return connection(r.Items, size, after, ['PK', 'SK', `${index}PK`, `${index}SK`]);
    },
  },
  Order: {
    items: (order, _, ctx) => order.items ?? ctx.orderLines.load(order.id),
  },

  Product: {
    async comments(product, { language, ratings, first, after }) {
      const size = pageSize(first);
      const lang = language == null ? '~' : language.toLowerCase();
      const r = await ddb.send(new QueryCommand({
        TableName: TABLE,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)',
        ExpressionAttributeValues: { ':pk': `PRODUCT#${product.id}#${lang}#${ratingsMask(ratings)}`, ':prefix': 'COMMENT#' },
        ScanIndexForward: false,
        Limit: size + 1,
        ...(after ? { ExclusiveStartKey: decodeCursor(after) } : {}),
      }));
      return connection(r.Items, size, after, ['PK', 'SK', 'GSI1PK', 'GSI1SK']);
    },
  },

  Repo: {
    starCount: (repo) => repo.starCount ?? 0,
    async issues(repo, { first, after }) {
      const size = pageSize(first);
      let rows;
      if (repo.prefetched && repo.prefetched.size === size && !after) {
        rows = repo.prefetched.rows;
      } else {
        rows = (await repoAndIssues(repoPk(repo.owner, repo.name), size, after)).rows;
      }
      return connection(rows, size, after, ['PK', 'SK']);
    },
  },
};

const server = new ApolloServer({ typeDefs, resolvers });
const { url } = await startStandaloneServer(server, {
  listen: { port: Number(process.env.PORT || 4000), host: '127.0.0.1' },
  context: async () => loaders(),
});
console.log(`apollo peer at ${url}`);
