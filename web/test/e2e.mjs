// End-to-end test of the croql playground in headless Chromium (Debian's
// chromium, driven by playwright-core): a person types a misspelled field,
// sees the underline and applies the fix, accepts a completion, and sees
// the match count follow. The expected counts are computed here from
// testdata/demo/project.json, not taken from croql.
//
//   node web/test/e2e.mjs URL [ARTIFACT_DIR]
//
// URL is the playground page (served by `go test ./web -run Chromium`, which
// runs this script); screenshots go to ARTIFACT_DIR (web/test-results by
// default). Chromium is /usr/bin/chromium unless CROQL_CHROMIUM names another.
import { chromium } from "playwright-core";
import { mkdtemp, mkdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const here = dirname(fileURLToPath(import.meta.url));
const [url, outDir = join(here, "..", "test-results")] = process.argv.slice(2);
if (!url) {
  console.error("usage: node e2e.mjs URL [ARTIFACT_DIR]");
  process.exit(2);
}

// The expected counts, from the demo project's data.
const project = JSON.parse(await readFile(join(here, "..", "..", "testdata", "demo", "project.json"), "utf8"));
const preTranslated = (s) => (s.translations || []).some((t) => t.isPreTranslated);
const countStrings = (pred) => project.strings.filter(pred).length;
const want = {
  initial: countStrings((s) => preTranslated(s) && !s.isHidden),
  hidden: countStrings((s) => s.isHidden),
  hiddenPre: countStrings((s) => s.isHidden && preTranslated(s)),
  total: project.strings.length,
};
assert.notEqual(want.hidden, want.hiddenPre, "the demo data must make the completion step change the count");

let passed = 0;
let failed = 0;
const errors = [];

let skipped = 0;

// step runs one check; needs, when given, names a function of the page's
// croql object the check needs: a build without it reports the step as
// skipped (never as passed).
async function step(name, fn, needs) {
  if (needs && !(await page.evaluate((f) => typeof globalThis.croql?.[f] === "function", needs))) {
    skipped++;
    console.log(`ok ${passed + failed + skipped} - ${name} # SKIP this build of croql.wasm has no croql.${needs}`);
    return;
  }
  try {
    await fn();
    passed++;
    console.log(`ok ${passed + failed + skipped} - ${name}`);
  } catch (err) {
    failed++;
    console.log(`not ok ${passed + failed + skipped} - ${name}\n  ${String(err.stack || err).replaceAll("\n", "\n  ")}`);
    throw err;
  }
}

const userDataDir = await mkdtemp(join(tmpdir(), "croql-chromium-"));
const browser = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CROQL_CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
  viewport: { width: 1280, height: 900 },
  timeout: 60_000,
});
await mkdir(outDir, { recursive: true });

const page = browser.pages()[0] || (await browser.newPage());
page.setDefaultTimeout(20_000);
page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
page.on("response", (r) => {
  if (r.status() >= 400) errors.push(`HTTP ${r.status()} for ${r.url()}`);
});
page.on("console", (m) => {
  if (m.type() === "error") errors.push(`console error: ${m.text()}`);
});

const doc = () => page.evaluate(() => globalThis.playground.view.state.doc.toString());
const count = () => page.locator("#count").getAttribute("data-count");
const waitCount = (n) =>
  page.waitForFunction((n) => document.querySelector("#count")?.dataset.count === String(n), n);

try {
  await step("the page loads croql.wasm and analyses the example query", async () => {
    const res = await page.goto(url);
    assert.equal(res.status(), 200);
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    await waitCount(want.initial);
    assert.equal(await page.locator("#count").textContent(), `${want.initial} of ${want.total} strings`);
    assert.equal(await page.locator("#formatted").textContent(),
      "count of translations where (is pre translated) > 0 and not is hidden");
    for (const d of ["postgres", "sqlite", "mysql"]) {
      const sql = await page.locator(`#sql-${d}`).textContent();
      assert.match(sql, /EXISTS \(SELECT 1 FROM/, `${d}: ${sql}`);
    }
  });

  await step("a misspelled field is underlined, and the match count shows the error", async () => {
    await page.click(".cm-content");
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Backspace");
    await page.keyboard.type("is hiden", { delay: 25 });
    const underline = page.locator(".cm-lintRange-error");
    await underline.first().waitFor();
    assert.equal(await underline.count(), 1);
    assert.equal(await underline.textContent(), "is hiden");
    await page.waitForFunction(() => document.querySelector("#count")?.classList.contains("error"));
    assert.match(await page.locator("#count").textContent(), /is not a field of a source string/);
    assert.match(await page.locator("#diagnostics").textContent(), /did you mean `is hidden`\?/);
  });

  await step("hovering the underline shows the diagnostic with its fix, and the fix applies", async () => {
    await page.locator(".cm-lintRange-error").hover();
    const action = page.locator(".cm-tooltip-lint .cm-diagnosticAction");
    await action.first().waitFor();
    assert.equal(await action.first().textContent(), "fix: is hidden");
    await page.screenshot({ path: join(outDir, "playground-fix.png") });
    await action.first().click();
    await page.waitForFunction(() => globalThis.playground.view.state.doc.toString() === "is hidden");
    await waitCount(want.hidden);
    assert.equal(await page.locator(".cm-lintRange-error").count(), 0);
    assert.equal(await page.locator("#count").textContent(), `${want.hidden} of ${want.total} strings`);
    assert.equal(await page.locator("#matches > li").count(), want.hidden);
  });

  await step("completion inside `count of translations where (` offers the translation's fields; accepting one changes the count", async () => {
    await page.click(".cm-content");
    await page.keyboard.press("End");
    await page.keyboard.type(" and count of translations where (is pr", { delay: 25 });
    const popup = page.locator(".cm-tooltip-autocomplete");
    await popup.waitFor();
    const labels = await popup.locator("li .cm-completionLabel").allTextContents();
    assert.ok(labels.includes("is pre translated"), `completions: ${labels.join(" | ")}`);
    // Select it (it may not be first) and accept with Enter.
    const idx = labels.indexOf("is pre translated");
    for (let i = 0; i < idx; i++) await page.keyboard.press("ArrowDown");
    await page.screenshot({ path: join(outDir, "playground-completion.png") });
    await page.keyboard.press("Enter");
    await page.waitForFunction(() =>
      globalThis.playground.view.state.doc.toString().endsWith("(is pre translated"));
    await page.keyboard.type(") > 0", { delay: 25 });
    assert.equal(await doc(), "is hidden and count of translations where (is pre translated) > 0");
    await waitCount(want.hiddenPre);
    assert.equal(await page.locator(".cm-lintRange-error").count(), 0);
    assert.equal(await page.locator("#formatted").textContent(),
      "is hidden and count of translations where (is pre translated) > 0");
  }, "complete");

  await step("hovering a field shows its type", async () => {
    const box = await page.locator(".cm-content").boundingBox();
    // "hidden" in the first line: a few characters in from the left.
    const line = page.locator(".cm-line").first();
    const text = await line.textContent();
    assert.ok(text.startsWith("is hidden"), text);
    const lb = await line.boundingBox();
    const charWidth = lb.width / Math.max(text.length, 1);
    await page.mouse.move(box.x + 4 * charWidth, lb.y + 8);
    const tip = page.locator(".croql-hover");
    await tip.waitFor();
    assert.match(await tip.textContent(), /bool/);
  }, "hover");

  await step("the context selector re-runs the query on translations", async () => {
    await page.click(".cm-content");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("is pre translated", { delay: 10 });
    await page.selectOption("#context", "translations");
    // Each translation once: a duplicate lists its master's too (stringId is the master's).
    const wantTr = project.strings
      .flatMap((s) => (s.translations || []).filter((t) => (t.stringId ?? s.id) === s.id))
      .filter((t) => t.isPreTranslated).length;
    await waitCount(wantTr);
    assert.match(await page.locator("#count").textContent(), /translations$/);
    await page.selectOption("#context", "strings");
  });

  await step("no error in the page's console", async () => {
    assert.deepEqual(errors, []);
  });
} catch {
  // reported by step
} finally {
  await page.screenshot({ path: join(outDir, "playground.png"), fullPage: true }).catch(() => {});
  await browser.close();
  await rm(userDataDir, { recursive: true, force: true });
  console.log(`screenshots in ${outDir}`);
  console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
  // A skipped step fails the run when CROQL_REQUIRE_PLAYGROUND is set (CI).
  process.exitCode = failed > 0 || (skipped > 0 && process.env.CROQL_REQUIRE_PLAYGROUND) ? 1 : 0;
}
