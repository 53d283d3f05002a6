// ElectroDB as its users set it up: a ticketing service's venues and events in one table
// (`pk`/`sk`, a global index `gsi1` on `gsi1pk`/`gsi1sk`), with ElectroDB's own key formats,
// casing and identifiers. tests/model/test_other_tools.py drives it beside dynagate:
//   node electrodb.mjs ENDPOINT TABLE ACTION [JSON]
// ACTION: create (the table), seed, events (a venue's, by day), between, get, add, scan,
// drop (the table).
// It prints its answer as JSON on standard output.
import { CreateTableCommand, DeleteTableCommand, ScanCommand } from "@aws-sdk/client-dynamodb";
import { Entity } from "electrodb";

import { invocation } from "./invocation.mjs";

const { table, action, args, client } = invocation();

const Venue = new Entity(
  {
    model: { entity: "venue", version: "1", service: "ticketing" },
    attributes: {
      venueId: { type: "string", required: true },
      name: { type: "string", required: true },
    },
    indexes: {
      byId: { pk: { field: "pk", composite: ["venueId"] }, sk: { field: "sk", composite: [] } },
    },
  },
  { client, table },
);

const Event = new Entity(
  {
    model: { entity: "event", version: "1", service: "ticketing" },
    attributes: {
      eventId: { type: "string", required: true },
      venueId: { type: "string", required: true },
      day: { type: "string", required: true },
      // Stored under another name than the attribute's: ElectroDB's `field`.
      title: { type: "string", required: true, field: "eventTitle" },
      seats: { type: "number", required: true },
    },
    indexes: {
      byId: { pk: { field: "pk", composite: ["eventId"] }, sk: { field: "sk", composite: [] } },
      byVenue: {
        index: "gsi1",
        pk: { field: "gsi1pk", composite: ["venueId"] },
        sk: { field: "gsi1sk", composite: ["day", "eventId"] },
      },
    },
  },
  { client, table },
);

const SEED = {
  venue: { venueId: "V1", name: "Hall One" },
  events: [
    { eventId: "E1", venueId: "V1", day: "2025-03-01", title: "Launch", seats: 120 },
    { eventId: "E2", venueId: "V1", day: "2025-03-01", title: "Party", seats: 80 },
    { eventId: "E3", venueId: "V1", day: "2025-04-12", title: "Review", seats: 40 },
    { eventId: "E4", venueId: "V2", day: "2025-03-05", title: "Elsewhere", seats: 10 },
  ],
};

async function run() {
  switch (action) {
    case "create":
      await client.send(
        new CreateTableCommand({
          TableName: table,
          BillingMode: "PAY_PER_REQUEST",
          AttributeDefinitions: ["pk", "sk", "gsi1pk", "gsi1sk"].map((name) => ({
            AttributeName: name,
            AttributeType: "S",
          })),
          KeySchema: [
            { AttributeName: "pk", KeyType: "HASH" },
            { AttributeName: "sk", KeyType: "RANGE" },
          ],
          GlobalSecondaryIndexes: [
            {
              IndexName: "gsi1",
              KeySchema: [
                { AttributeName: "gsi1pk", KeyType: "HASH" },
                { AttributeName: "gsi1sk", KeyType: "RANGE" },
              ],
              Projection: { ProjectionType: "ALL" },
            },
          ],
        }),
      );
      return { created: table };
    case "seed":
      await Venue.create(SEED.venue).go();
      for (const event of SEED.events) await Event.create(event).go();
      return SEED;
    case "events":
      return (await Event.query.byVenue({ venueId: args.venueId }).go({ pages: "all" })).data;
    case "between":
      return (
        await Event.query
          .byVenue({ venueId: args.venueId })
          .between({ day: args.from }, { day: args.to })
          .go({ pages: "all" })
      ).data;
    case "get":
      return (await Event.get({ eventId: args.eventId }).go()).data;
    case "add":
      return (await Event.create(args).go()).data;
    case "drop":
      await client.send(new DeleteTableCommand({ TableName: table }));
      return { dropped: table };
    case "scan":
      return (await client.send(new ScanCommand({ TableName: table }))).Items;
    default:
      throw new Error(`no action ${action}`);
  }
}

process.stdout.write(JSON.stringify(await run()));
