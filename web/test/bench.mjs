// What one keystroke costs in the playground: the calls the page makes,
// timed in Node.js (the V8 engine Chromium has) on web/dist/croql.wasm.
//
//   web/build.sh && node web/test/bench.mjs [ITERATIONS]
//
// Prints, per call, the CPU time the process spent (user + system, from
// process.cpuUsage: on a shared machine it moves much less with the load
// than wall time) and the median wall time. It measures, it asserts
// nothing.
import { readFile } from "node:fs/promises";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
await import(join(dist, "wasm_exec.js"));

const croql = await new Promise((resolve, reject) => {
  globalThis.croqlReady = () => resolve(globalThis.croql);
  const go = new globalThis.Go();
  readFile(join(dist, "croql.wasm"))
    .then((b) => WebAssembly.instantiate(b, go.importObject))
    .then((r) => go.run(r.instance))
    .then(() => reject(new Error("croql.wasm exited")), reject);
});

const n = Number(process.argv[2] || 300);
// About 200 characters, with a filter scope, mentions and a comparison.
const src = 'count of translations where (user = @user:"alice" and language = @language:"de" and ' +
  "is pre translated) > 0 and not is hidden and max length > 10 and text contains \"checkout\" and id of file = 1";
const opts = { context: "strings", edition: "standard" };
const cursor = src.indexOf("is pre translated") + 6;

function time(name, f) {
  for (let i = 0; i < 20; i++) f(); // warm up
  const t = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    f();
    t.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  t.sort((a, b) => a - b);
  const cpuMs = (cpu.user + cpu.system) / 1000 / n;
  console.log(`${name.padEnd(46)} CPU ${cpuMs.toFixed(3)} ms   wall median ${t[n >> 1].toFixed(3)} ms`);
}

console.log(`${src.length}-character query, ${n} calls each`);
time("analyze (lint, format, 3 × SQL, evaluate 60)", () => croql.analyze(src, opts));
time("lint", () => croql.lint(src, opts));
time("complete at the cursor", () => croql.complete(src, opts, cursor));
time("hover", () => croql.hover(src, opts, cursor));
time("tokens", () => croql.tokens(src, opts));
process.exit(0);
