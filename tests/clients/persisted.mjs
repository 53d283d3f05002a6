// The persisted-query cases every client library runs, each sending its documents by hash
// its own way (docs/http.md#persisted-documents).
import { check, describe, sent } from "./recording.mjs";

// Whether a request named its document by its hash alone.
function hashOnly(call) {
  const { query, extensions } = sent(call);
  return query === null && extensions?.persistedQuery?.sha256Hash?.length === 64;
}

// The two cases of a client's persisted queries sent with `method`: at first contact, the
// hash alone, then (the gateway not knowing it) the document, which `refusedThenSent` checks
// the client's way; on repeat, the hash alone. `run(ctx)` makes the query and gives the calls.
export function persistedCases(method, run, refusedThenSent) {
  return {
    first: async (ctx) => {
      const calls = await run(ctx);
      check(calls.length === 2, `two requests expected: ${describe(calls)}`);
      const [hashed, full] = calls;
      check(hashed.method === method && hashOnly(hashed), `first: ${describe(calls)}`);
      refusedThenSent(hashed, full, calls);
      return describe(calls);
    },
    repeat: async (ctx) => {
      const calls = await run(ctx);
      check(calls.length === 1 && calls[0].method === method, `one ${method}: ${describe(calls)}`);
      check(hashOnly(calls[0]), `the hash alone expected: ${describe(calls)}`);
      return describe(calls);
    },
  };
}

// A client's `cases` entries for its persisted queries, over POST and GET:
// `persistedCase(useGet)` gives the `persistedCases` of each.
export function persistedEntries(client, persistedCase) {
  const entries = {};
  for (const method of ["POST", "GET"]) {
    const { first, repeat } = persistedCase(method === "GET");
    entries[`${client} persisted ${method} first contact`] = first;
    entries[`${client} persisted ${method} repeat`] = repeat;
  }
  return entries;
}
