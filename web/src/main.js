// The croql playground: a CodeMirror 6 editor whose diagnostics, fixes,
// completion and hover come from croql compiled to WebAssembly (web/wasm),
// and panels with the formatted query, the SQL of each dialect, the
// matching objects of the demo project, why one object matches or not
// (clicked), and the difference from an earlier filter, all computed in
// this page.
import { EditorView, keymap, hoverTooltip, ViewPlugin, Decoration, drawSelection } from "@codemirror/view";
import { EditorState, RangeSetBuilder, StateEffect } from "@codemirror/state";
import { linter, forceLinting, lintKeymap } from "@codemirror/lint";
import { autocompletion, completionKeymap, closeCompletion, startCompletion } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { bracketMatching } from "@codemirror/language";

const $ = (id) => document.getElementById(id);

// optionsChanged marks a transaction after the context or edition changed.
const optionsChanged = StateEffect.define();

const initialQuery = "count of translations where (is pre translated) > 0 and not is hidden";

// nouns names the objects of each context for the match count.
const nouns = {
  strings: "strings",
  translations: "translations",
  tm: "TM segments",
  glossary: "glossary terms",
  concepts: "glossary concepts",
};

// loadCroql instantiates croql.wasm and resolves with the global `croql`
// object its main package sets.
function loadCroql() {
  return new Promise((resolve, reject) => {
    globalThis.croqlReady = () => resolve(globalThis.croql);
    const go = new globalThis.Go();
    WebAssembly.instantiateStreaming(fetch("croql.wasm"), go.importObject)
      .then((r) => go.run(r.instance))
      .then(() => reject(new Error("croql.wasm exited")), reject);
  });
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

// markdown renders croql's hover text: paragraphs, **bold** and `code`,
// as DOM nodes (never as HTML).
function markdown(text) {
  const dom = el("div", { class: "croql-hover" });
  for (const para of text.split("\n\n")) {
    const p = el("div", { class: dom.childElementCount === 0 ? "sig" : "doc" });
    for (const part of para.split(/(\*\*[^*]+\*\*|`[^`]+`)/)) {
      if (part.startsWith("**") && part.endsWith("**") && part.length > 4) p.append(el("strong", {}, part.slice(2, -2)));
      else if (part.startsWith("`") && part.endsWith("`") && part.length > 2) p.append(el("code", {}, part.slice(1, -1)));
      else if (part) p.append(part);
    }
    dom.append(p);
  }
  return dom;
}

function options() {
  return { context: $("context").value, edition: $("edition").value };
}

function start(croql) {
  // call runs one of croql's functions; they answer JSON text.
  const call = (name, ...args) => JSON.parse(croql[name](...args));
  let analyses = 0;

  // The fix edits of a diagnostic are relative to its range at the time of
  // the analysis; apply them at the range CodeMirror has mapped since.
  const applyFix = (view, d, f, from) => {
    const at = from + (f.from - d.from);
    view.dispatch({ changes: { from: at, to: at + (f.to - f.from), insert: f.text }, userEvent: "input.fix" });
    view.focus();
  };

  // explained is the id of the object whose explanation the Why panel
  // shows; it follows the query as it is edited.
  let explained = null;
  const explain = (id) => {
    explained = id;
    const w = call("why", view.state.doc.toString(), options(), id);
    const pre = $("why");
    pre.className = w.error ? "none" : "";
    pre.dataset.id = String(id);
    pre.dataset.match = w.error ? "" : String(w.explanation.match);
    pre.textContent = w.error ? `(${w.error})` : w.text;
  };
  // item is one object of a list, clickable to explain it.
  const item = (m, sign = "") => el("li", { "data-id": String(m.id), title: "why?", onclick: () => explain(m.id) },
    el("span", { class: "id" }, `${sign}#${m.id}`),
    el("span", { class: "label" }, m.label),
    el("span", { class: "detail" }, m.detail));

  // renderDiff shows what the query adds to and removes from the matches
  // of the earlier filter typed under Diff.
  const renderDiff = () => {
    const old = $("diff-old").value;
    const summary = $("diff-summary");
    const list = $("diff-list");
    list.replaceChildren();
    if (old.trim() === "") {
      summary.className = "none";
      summary.dataset.removed = summary.dataset.added = summary.dataset.both = "";
      summary.textContent = "Type an earlier filter to see what the query above adds (+) and removes (−).";
      return;
    }
    const d = call("diff", old, view.state.doc.toString(), options(), 50);
    if (d.error) {
      summary.className = "error";
      summary.dataset.removed = summary.dataset.added = summary.dataset.both = "";
      summary.textContent = d.error;
      return;
    }
    summary.className = "";
    summary.dataset.removed = String(d.removedCount);
    summary.dataset.added = String(d.addedCount);
    summary.dataset.both = String(d.both);
    summary.textContent = `−${d.removedCount} +${d.addedCount} (${d.both} in both; ${d.countOld} → ${d.countNew})`;
    for (const m of d.onlyOld) list.append(item(m, "−"));
    for (const m of d.onlyNew) list.append(item(m, "+"));
  };

  function render(view, a) {
    // Diagnostics list, with the fixes as buttons.
    const list = $("diagnostics");
    list.replaceChildren();
    if (a.diagnostics.length === 0) list.append(el("li", { class: "none" }, "no diagnostics"));
    for (const d of a.diagnostics) {
      const pos = view.state.doc.lineAt(Math.min(d.from, view.state.doc.length));
      const li = el("li", { class: d.severity },
        el("span", { class: "sev" }, d.severity),
        `${pos.number}:${d.from - pos.from + 1} ${d.message}`,
        el("span", { class: "rule" }, `[${d.code}/${d.rule}]`));
      if (d.hint) li.append(el("div", { class: "hint" }, d.hint));
      for (const f of d.fixes || []) {
        li.append(el("button", { class: "fix", onclick: () => applyFix(view, d, f, d.from) }, `fix: ${f.text}`));
      }
      list.append(li);
    }

    const fmt = $("formatted");
    fmt.className = a.formatted.ok ? "" : "none";
    fmt.textContent = a.formatted.ok ? a.formatted.text : `(no canonical form: ${a.formatted.error})`;

    const sql = $("sql");
    sql.replaceChildren();
    for (const s of a.sql) {
      const pre = el("pre", { id: `sql-${s.dialect}`, class: s.error ? "none" : "" });
      if (s.error) {
        pre.textContent = `(${s.error})`;
      } else {
        pre.textContent = s.where + (s.args || []).map((x, i) => `\n-- arg ${i + 1} (${x.type}): ${x.value}`).join("");
      }
      sql.append(el("div", { class: "dialect" }, el("h3", {}, s.dialect), pre));
    }

    const ev = a.evaluation;
    const count = $("count");
    // An editor directive (`# croql: context=tm`) overrides the selectors
    // for this text; say so next to them.
    const o = options();
    const overridden = [];
    if (a.options.context !== o.context) overridden.push(`context=${a.options.context}`);
    if (a.options.edition !== o.edition) overridden.push(`edition=${a.options.edition}`);
    $("directive").textContent = overridden.length ? `the directive sets ${overridden.join(" ")}` : "";
    const noun = nouns[a.options.context] || "objects";
    if (ev.error) {
      count.className = "error";
      count.dataset.count = "";
      count.textContent = `— ${ev.error}`;
    } else {
      count.className = "";
      count.dataset.count = String(ev.count);
      count.textContent = `${ev.count} of ${ev.total} ${noun}`;
    }
    const matches = $("matches");
    matches.replaceChildren();
    for (const m of ev.matches) matches.append(item(m));
    if (ev.count > ev.matches.length) {
      matches.append(el("li", { class: "more" }, `… and ${ev.count - ev.matches.length} more`));
    }
    const others = $("others");
    others.replaceChildren();
    for (const m of ev.others || []) others.append(item(m));
    if (!ev.error && ev.total - ev.count > (ev.others || []).length) {
      others.append(el("li", { class: "more" }, `… and ${ev.total - ev.count - ev.others.length} more`));
    }
    if (explained !== null) explain(explained);
    renderDiff();
    document.body.dataset.analyses = String(++analyses);
  }

  // The linter runs the whole analysis: one call per change fills the
  // underlines and every panel.
  const croqlLinter = linter((view) => {
    const src = view.state.doc.toString();
    const a = call("analyze", src, options());
    if (a.error) {
      $("status").dataset.state = "error";
      $("status").textContent = a.error;
      return [];
    }
    render(view, a);
    globalThis.playground.analyzed = src; // what the panels show (tests wait on it)
    try { history.replaceState(null, "", "#q=" + encodeURIComponent(src)); } catch { /* file: URLs */ }
    const len = view.state.doc.length;
    return a.diagnostics.map((d) => {
      const from = Math.min(d.from, len);
      return {
        from,
        to: Math.min(Math.max(d.to, from), len),
        severity: d.severity,
        source: `${d.code}/${d.rule}`,
        message: d.message + (d.hint ? `\n${d.hint}` : ""),
        actions: (d.fixes || []).map((f) => ({
          name: `fix: ${f.text}`,
          apply: (v, mappedFrom) => applyFix(v, d, f, mappedFrom),
        })),
      };
    });
  }, {
    delay: 120,
    // A new context or edition is a new analysis, as a new text is.
    needsRefresh: (u) => u.transactions.some((tr) => tr.effects.some((e) => e.is(optionsChanged))),
  });

  const extensions = [
    history(),
    drawSelection(),
    bracketMatching(),
    EditorView.lineWrapping,
    croqlLinter,
    keymap.of([...completionKeymap, ...lintKeymap, ...historyKeymap, ...defaultKeymap]),
  ];

  // Completion: croql ranks the items for the cursor's scope (filter:
  // false keeps its order); each item replaces its own range, which may
  // span several words of a name (`is pr` → `is pre translated`).
  extensions.push(autocompletion({
    override: [(ctx) => {
      const before = ctx.state.sliceDoc(Math.max(0, ctx.pos - 1), ctx.pos);
      if (!ctx.explicit && !ctx.matchBefore(/\w$/) && !/["@(]/.test(before)) return null;
      const r = call("complete", ctx.state.doc.toString(), options(), ctx.pos);
      if (r.error || r.items.length === 0) return null;
      return {
        from: Math.min(...r.items.map((it) => it.from)),
        to: ctx.pos,
        filter: false,
        options: r.items.map((it) => ({
          label: it.label,
          type: it.kind,
          detail: it.detail || undefined,
          info: [it.doc, it.edition === "enterprise" ? "enterprise edition" : ""].filter(Boolean).join("\n") || undefined,
          apply: (view, _completion, _from, to) => {
            const end = Math.max(it.to, to);
            view.dispatch({
              changes: { from: it.from, to: end, insert: it.insert },
              selection: { anchor: it.from + it.insert.length },
              userEvent: "input.complete",
            });
            // `@user:"` goes on with the logins, `@language:"` with the codes.
            if (it.insert.endsWith('"') && it.kind === "mention") setTimeout(() => startCompletion(view), 0);
          },
        })),
      };
    }],
    icons: false,
  }));

  // Hover: a field's type, documentation and edition; a mention's id.
  extensions.push(hoverTooltip((view, pos) => {
    const h = call("hover", view.state.doc.toString(), options(), pos);
    if (!h.found) return null;
    return {
      pos: h.from,
      end: h.to,
      above: true,
      create: () => ({ dom: markdown(h.markdown) }),
    };
  }, { hoverTime: 250 }));

  // Highlighting from croql's semantic tokens.
  const marks = {};
  const mark = (t) => {
    const cls = `tok-${t.kind}` + (t.unknown ? " tok-unknown" : "");
    return (marks[cls] ||= Decoration.mark({ class: cls }));
  };
  const decorate = (view) => {
    const b = new RangeSetBuilder();
    const len = view.state.doc.length;
    let last = 0;
    for (const t of call("tokens", view.state.doc.toString(), options())) {
      if (t.from >= last && t.from < t.to && t.to <= len) {
        b.add(t.from, t.to, mark(t));
        last = t.to;
      }
    }
    return b.finish();
  };
  extensions.push(ViewPlugin.define((view) => ({
    decorations: decorate(view),
    update(u) {
      if (u.docChanged || u.transactions.some((tr) => tr.effects.some((e) => e.is(optionsChanged)))) {
        this.decorations = decorate(u.view);
      }
    },
  }), { decorations: (p) => p.decorations }));

  let doc = initialQuery;
  const m = /^#q=(.*)$/.exec(location.hash);
  if (m) {
    try { doc = decodeURIComponent(m[1]); } catch { /* keep the example */ }
  }
  const view = new EditorView({
    state: EditorState.create({ doc, extensions }),
    parent: $("editor"),
  });
  globalThis.playground = { view };
  $("diff-old").addEventListener("input", renderDiff);

  for (const id of ["context", "edition"]) {
    $(id).addEventListener("change", () => {
      closeCompletion(view);
      view.dispatch({ effects: optionsChanged.of(null) });
      forceLinting(view);
    });
  }
  forceLinting(view);
  $("status").dataset.state = "ready";
  $("status").textContent = "ready: croql runs in this page";
  view.focus();
}

loadCroql().then(start, (err) => {
  $("status").dataset.state = "error";
  $("status").textContent = `croql.wasm did not load: ${err.message}`;
});
