// A `fetch` that keeps what each request sent and what came back, as a client's own fetch
// option takes it, so a case can check what the library really put on the wire.

// Every answer any recording fetch received, for the check that each carries its cost.
export const everyAnswer = [];

export function recordingFetch() {
  const calls = [];
  const recorded = async (input, init = {}) => {
    const url = new URL(typeof input === "string" ? input : input.url);
    const method = (init.method ?? "GET").toUpperCase();
    const body = typeof init.body === "string" ? JSON.parse(init.body) : undefined;
    const headers = new Headers(init.headers);
    const response = await fetch(input, init);
    let answer;
    try {
      answer = await response.clone().json();
    } catch {
      answer = undefined; // not JSON: GraphiQL's page, say
    }
    const call = { method, url, body, headers, status: response.status, response, answer };
    calls.push(call);
    everyAnswer.push({ method, url: url.href, status: response.status, answer });
    return response;
  };
  return { fetch: recorded, calls };
}

// What a request named its document by and whether it sent the text, over GET or POST.
export function sent(call) {
  if (call.method === "GET") {
    const params = call.url.searchParams;
    const extensions = params.get("extensions");
    return { query: params.get("query"), extensions: extensions && JSON.parse(extensions) };
  }
  return { query: call.body?.query ?? null, extensions: call.body?.extensions ?? null };
}

export function check(condition, message) {
  if (!condition) throw new Error(message);
}

// A short account of the requests a case made, for its detail line.
export function describe(calls) {
  return calls
    .map((call) => {
      const { query, extensions } = sent(call);
      const parts = [call.method, call.status];
      if (extensions?.persistedQuery) parts.push("hash");
      if (query) parts.push("query");
      return parts.join(" ");
    })
    .join(", ");
}
