// End-to-end test of the croql playground in headless Chromium (Debian's
// chromium, driven by playwright-core): a person types a misspelled field,
// sees the underline and applies the fix, accepts a completion, and sees
// the match count follow; clicks a string to see why it matches or not,
// and compares the query with an earlier filter. The expected counts are computed here from
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
const responses = new Map(); // file name → response headers
page.on("response", (r) => {
  if (r.status() >= 400) errors.push(`HTTP ${r.status()} for ${r.url()}`);
  responses.set(new URL(r.url()).pathname.split("/").pop(), r.headers());
});
page.on("console", (m) => {
  if (m.type() === "error") errors.push(`console error: ${m.text()}`);
});

const doc = () => page.evaluate(() => globalThis.playground.view.state.doc.toString());
const count = () => page.locator("#count").getAttribute("data-count");
// hoverAt moves the mouse onto the character at offset pos of the text.
const hoverAt = async (pos) => {
  const c = await page.evaluate((pos) => globalThis.playground.view.coordsAtPos(pos, 1), pos);
  await page.mouse.move(0, 0);
  await page.mouse.move(c.left + 2, (c.top + c.bottom) / 2);
};
// choose selects the completion labelled label in the open list and
// accepts it with Enter. CodeMirror ignores keys for 75 ms after the list
// changes (its interactionDelay): wait that out first.
const choose = async (label) => {
  const popup = page.locator(".cm-tooltip-autocomplete");
  await popup.locator(".cm-completionLabel", { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) }).waitFor();
  await page.waitForTimeout(200);
  const labels = await popup.locator("li .cm-completionLabel").allTextContents();
  const idx = labels.indexOf(label);
  assert.ok(idx >= 0, `no ${label} in ${labels.join(" | ")}`);
  for (let i = 0; i < idx; i++) await page.keyboard.press("ArrowDown");
  assert.equal(await popup.locator("li[aria-selected] .cm-completionLabel").textContent(), label);
  const before = await doc();
  await page.keyboard.press("Enter");
  await page.waitForFunction((b) => globalThis.playground.view.state.doc.toString() !== b, before);
  return labels;
};

// settled waits until the panels and underlines show the current text.
const settled = () =>
  page.waitForFunction(() => globalThis.playground?.analyzed === globalThis.playground?.view.state.doc.toString());
const waitCount = (n) =>
  page.waitForFunction((n) => document.querySelector("#count")?.dataset.count === String(n), n);

try {
  await step("the page loads croql.wasm and analyses the example query", async () => {
    const res = await page.goto(url);
    assert.equal(res.status(), 200);
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    await waitCount(want.initial);
    assert.equal(await page.locator("#count").textContent(), `${want.initial} of ${want.total} strings`);
    // The module came compressed, with the type instantiateStreaming needs.
    const wasm = responses.get("croql.wasm");
    assert.equal(wasm?.["content-type"], "application/wasm");
    assert.equal(wasm?.["content-encoding"], "gzip");
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
    await settled();
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
    // The list follows the typing: wait for the one at the end of it.
    await popup.locator(".cm-completionLabel", { hasText: /^is pre translated$/ }).waitFor();
    await page.screenshot({ path: join(outDir, "playground-completion.png") });
    await choose("is pre translated");
    await page.waitForFunction(() =>
      globalThis.playground.view.state.doc.toString().endsWith("(is pre translated"));
    await page.keyboard.type(") > 0", { delay: 25 });
    await settled();
    assert.equal(await doc(), "is hidden and count of translations where (is pre translated) > 0");
    await waitCount(want.hiddenPre);
    assert.equal(await page.locator(".cm-lintRange-error").count(), 0);
    assert.equal(await page.locator("#formatted").textContent(),
      "is hidden and count of translations where (is pre translated) > 0");
  }, "complete");

  await step("completing `@` offers the mention kinds, then the project's logins", async () => {
    await page.click(".cm-content");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("count of translations where (user = @", { delay: 25 });
    await choose('@user:"');
    // The logins follow without another keystroke.
    const logins = await choose("alice");
    assert.deepEqual([...logins].sort(), project.users.map((u) => u.login).sort());
    await page.keyboard.type(") > 0", { delay: 25 });
    await settled();
    const first = "alice";
    assert.match(await doc(), new RegExp(`^count of translations where \\(user = @user:"${first}"\\) > 0$`));
    const id = project.users.find((u) => u.login === first).id;
    await waitCount(countStrings((s) => (s.translations || []).some((t) => t.user === id)));
    // Back to the query of the next step.
    await page.keyboard.press("Control+A");
    await page.keyboard.type("is hidden and count of translations where (is pre translated) > 0", { delay: 5 });
    await settled();
  }, "complete");

  await step("hovering a field shows its type", async () => {
    assert.ok((await doc()).startsWith("is hidden"));
    await hoverAt(4); // "hidden"
    const tip = page.locator(".croql-hover");
    await tip.waitFor();
    assert.match(await tip.textContent(), /bool/);
  }, "hover");

  await step("the context selector re-runs the query on translations", async () => {
    await page.click(".cm-content");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("is pre translated", { delay: 10 });
    await settled();
    await page.selectOption("#context", "translations");
    // Each translation once: a duplicate lists its master's too (stringId is the master's).
    const wantTr = project.strings
      .flatMap((s) => (s.translations || []).filter((t) => (t.stringId ?? s.id) === s.id))
      .filter((t) => t.isPreTranslated).length;
    await waitCount(wantTr);
    assert.match(await page.locator("#count").textContent(), /translations$/);
    // Back on strings, the translation's field is an error again.
    await page.selectOption("#context", "strings");
    await page.waitForFunction(() => document.querySelector("#count")?.classList.contains("error"));
    assert.equal(await page.locator(".cm-lintRange-error").textContent(), "is pre translated");
  });

  await step("a directive on the first line sets the context", async () => {
    await page.click(".cm-content");
    await page.keyboard.press("Control+A");
    // Escape before Enter: on a slow machine a completion popup may be
    // open at the end of the first line, and Enter would accept it.
    await page.keyboard.type("# croql: context=translations", { delay: 10 });
    await page.keyboard.press("Escape");
    await page.keyboard.press("Enter");
    await page.keyboard.type("is pre translated", { delay: 10 });
    await settled();
    assert.equal(await page.locator("#directive").textContent(), "the directive sets context=translations");
    assert.equal(await page.locator("#context").inputValue(), "strings");
    assert.equal(await page.locator(".cm-lintRange-error").count(), 0);
    assert.match(await page.locator("#count").textContent(), /translations$/);
  });

  await step("a final query for the screenshot", async () => {
    await page.click(".cm-content");
    await page.keyboard.press("Control+A");
    await page.keyboard.type('count of translations where (user = @user:"alice" and language = @language:"de") > 0 and not is hidden', { delay: 5 });
    await settled();
    const alice = project.users.find((u) => u.login === "alice").id;
    const wantAlice = countStrings((s) => !s.isHidden && (s.translations || []).some((t) => t.user === alice && t.language === "de"));
    assert.ok(wantAlice > 0);
    await page.keyboard.press("Escape"); // close the completion list
    await waitCount(wantAlice);
    assert.equal(await page.locator("#directive").textContent(), "");
    assert.equal(await page.locator("#count").textContent(), `${wantAlice} of ${want.total} strings`);
    // Hover the mention: it resolves to alice's id.
    await hoverAt((await doc()).indexOf("@user") + 4);
    const tip = page.locator(".croql-hover");
    await tip.waitFor();
    assert.match(await tip.textContent(), new RegExp(`user id ${alice}(?!\\d)`));
  });

  await step("clicking a matched string shows why it matches, an unmatched one why not", async () => {
    const alice = project.users.find((u) => u.login === "alice").id;
    const matches = (s) => !s.isHidden && (s.translations || []).some((t) => t.user === alice && t.language === "de");
    const firstMatch = project.strings.find(matches).id;
    const firstOther = project.strings.find((s) => !matches(s)).id;
    await page.locator(`#matches li[data-id="${firstMatch}"]`).click();
    await page.waitForFunction((id) => document.querySelector("#why")?.dataset.id === String(id), firstMatch);
    assert.equal(await page.locator("#why").getAttribute("data-match"), "true");
    const why = await page.locator("#why").textContent();
    assert.ok(why.startsWith(`${firstMatch}: match\n`), why);
    assert.match(why, /`not is hidden` is true/);
    await page.locator(`#others li[data-id="${firstOther}"]`).click();
    await page.waitForFunction((id) => document.querySelector("#why")?.dataset.id === String(id), firstOther);
    assert.equal(await page.locator("#why").getAttribute("data-match"), "false");
    const whyNot = await page.locator("#why").textContent();
    assert.ok(whyNot.startsWith(`${firstOther}: no match\n`), whyNot);
    assert.match(whyNot, /\(decides\)/);
    await page.screenshot({ path: join(outDir, "playground-why.png") });
  }, "why");

  await step("the diff view shows what the query adds to and removes from an earlier filter", async () => {
    const alice = project.users.find((u) => u.login === "alice").id;
    const aliceDe = (s) => (s.translations || []).some((t) => t.user === alice && t.language === "de");
    const now = countStrings((s) => !s.isHidden && aliceDe(s));
    const diffIs = (removed, added, both) => page.waitForFunction(([r, a, b]) => {
      const d = document.querySelector("#diff-summary")?.dataset;
      return d && d.removed === String(r) && d.added === String(a) && d.both === String(b);
    }, [removed, added, both]);
    await page.fill("#diff-old", "not is hidden");
    await diffIs(countStrings((s) => !s.isHidden) - now, 0, now);
    assert.equal(await page.locator("#diff-list > li").count(), countStrings((s) => !s.isHidden) - now);
    await page.fill("#diff-old", "is hidden");
    await diffIs(want.hidden, now, 0);
    const first = await page.locator("#diff-list > li").first().getAttribute("data-id");
    assert.equal(first, String(project.strings.find((s) => s.isHidden).id));
    await page.locator("#diff-list > li").first().click();
    await page.waitForFunction((id) => document.querySelector("#why")?.dataset.id === id, first);
    assert.equal(await page.locator("#why").getAttribute("data-match"), "false");
    await page.screenshot({ path: join(outDir, "playground-diff.png") });
  }, "diff");

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
