// How every script here runs its cases, so that the Python tests read them one way: each in
// turn within a time limit, one JSON line per case ({name, ok, detail}), and an exit
// status that says whether any failed.

function within(seconds, promise) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no end within ${seconds} s`)), seconds * 1000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// Runs each of `cases` (name: async function of `given`) within `seconds`, then exits.
export async function runCases(cases, seconds, ...given) {
  let failed = 0;
  for (const [name, body] of Object.entries(cases)) {
    let line;
    try {
      line = { name, ok: true, detail: String(await within(seconds, body(...given))) };
    } catch (error) {
      failed += 1;
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      line = { name, ok: false, detail };
    }
    console.log(JSON.stringify(line));
  }
  process.exit(failed ? 1 : 0);
}
