// Drives `croql lsp` over stdio with vscode-jsonrpc and
// vscode-languageserver-protocol, the libraries VS Code's language client
// (vscode-languageclient) is built on, sending the capabilities a VS Code
// client announces. Usage: node session.js /path/to/croql
//
// The session is the one of issue 13: initialize; didOpen `is hiden and …`
// gives a diagnostic on columns 0–8 whose fix is a code action; didChange to
// `count of translations where (is ) > 0` and completion at the cursor
// offers `is pre translated` before every field of the string; hover on
// `max length` shows int; croql.why explains the query on string 1 of the
// demo project; then semantic tokens and formatting; shutdown and exit.
// Exits non-zero with a message on any mismatch.
'use strict';

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const rpc = require('vscode-jsonrpc/node');
const lsp = require('vscode-languageserver-protocol');

const binary = process.argv[2];
if (!binary) {
  console.error('usage: node session.js /path/to/croql');
  process.exit(2);
}

// What VS Code 1.9x's client announces for the features croql serves.
const capabilities = {
  general: { positionEncodings: ['utf-16'] },
  workspace: { applyEdit: true, workspaceEdit: { documentChanges: true }, configuration: true, workspaceFolders: true },
  textDocument: {
    synchronization: { dynamicRegistration: true, willSave: true, willSaveWaitUntil: true, didSave: true },
    completion: {
      dynamicRegistration: true,
      contextSupport: true,
      completionItem: {
        snippetSupport: true, commitCharactersSupport: true, documentationFormat: ['markdown', 'plaintext'],
        deprecatedSupport: true, preselectSupport: true, insertReplaceSupport: true,
        tagSupport: { valueSet: [1] }, resolveSupport: { properties: ['documentation', 'detail'] },
        insertTextModeSupport: { valueSet: [1, 2] }, labelDetailsSupport: true,
      },
      insertTextMode: 2,
      completionItemKind: { valueSet: Array.from({ length: 25 }, (_, i) => i + 1) },
      completionList: { itemDefaults: ['commitCharacters', 'editRange', 'insertTextFormat', 'insertTextMode'] },
    },
    hover: { dynamicRegistration: true, contentFormat: ['markdown', 'plaintext'] },
    codeAction: {
      dynamicRegistration: true, isPreferredSupport: true, disabledSupport: true, dataSupport: true,
      resolveSupport: { properties: ['edit'] },
      codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'source'] } },
      honorsChangeAnnotations: false,
    },
    formatting: { dynamicRegistration: true },
    publishDiagnostics: { relatedInformation: true, versionSupport: false, tagSupport: { valueSet: [1, 2] }, codeDescriptionSupport: true, dataSupport: true },
    semanticTokens: {
      dynamicRegistration: true, tokenTypes: ['property', 'keyword', 'variable', 'string', 'number', 'operator', 'comment'],
      tokenModifiers: [], formats: ['relative'], requests: { range: true, full: { delta: true } },
      multilineTokenSupport: false, overlappingTokenSupport: false, serverCancelSupport: true, augmentsSyntaxTokens: true,
    },
  },
  window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: true } } },
};

async function main() {
  const proc = spawn(binary, ['lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  const conn = lsp.createProtocolConnection(new rpc.StreamMessageReader(proc.stdout), new rpc.StreamMessageWriter(proc.stdin));
  const published = [];
  let waiter = null;
  conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => {
    published.push(p);
    if (waiter) { const w = waiter; waiter = null; w(); }
  });
  const nextDiagnostics = async () => {
    if (published.length === 0) {
      await new Promise((resolve, reject) => {
        waiter = resolve;
        setTimeout(() => reject(new Error('no diagnostics published')), 10000);
      });
    }
    return published.shift();
  };
  conn.listen();

  const init = await conn.sendRequest(lsp.InitializeRequest.type, {
    processId: process.pid, rootUri: null, capabilities,
    initializationOptions: { context: 'strings', users: { alice: 11 }, languages: ['de', 'fr'] },
    workspaceFolders: null,
  });
  assert.equal(init.serverInfo.name, 'croql');
  assert.ok(init.capabilities.completionProvider, 'completion provider');
  assert.deepEqual(init.capabilities.semanticTokensProvider.legend.tokenTypes[0], 'property');
  await conn.sendNotification(lsp.InitializedNotification.type, {});

  const uri = 'file:///work/query.croql';
  const doc = { uri };
  await conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'croql', version: 1, text: 'is hiden and max length > 10' },
  });
  let pub = await nextDiagnostics();
  assert.equal(pub.uri, uri);
  assert.equal(pub.diagnostics.length, 1);
  const d = pub.diagnostics[0];
  assert.deepEqual(d.range, { start: { line: 0, character: 0 }, end: { line: 0, character: 8 } });
  assert.equal(d.severity, lsp.DiagnosticSeverity.Error);
  const actions = await conn.sendRequest(lsp.CodeActionRequest.type, {
    textDocument: doc, range: d.range, context: { diagnostics: [d], triggerKind: 1 },
  });
  assert.ok(actions.length >= 1, 'a code action');
  assert.equal(actions[0].kind, 'quickfix');
  assert.deepEqual(actions[0].edit.changes[uri], [{ range: d.range, newText: 'is hidden' }]);

  const src = 'count of translations where (is ) > 0';
  await conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 }, contentChanges: [{ text: src }],
  });
  pub = await nextDiagnostics();
  const cursor = src.indexOf(')');
  const list = await conn.sendRequest(lsp.CompletionRequest.type, {
    textDocument: doc, position: { line: 0, character: cursor }, context: { triggerKind: 1 },
  });
  const items = Array.isArray(list) ? list : list.items;
  const at = (label) => items.findIndex((it) => it.label === label);
  const pre = at('is pre translated');
  assert.ok(pre >= 0, 'is pre translated offered');
  assert.equal(items[pre].kind, lsp.CompletionItemKind.Field);
  assert.deepEqual(items[pre].textEdit, {
    range: { start: { line: 0, character: 29 }, end: { line: 0, character: cursor } }, newText: 'is pre translated',
  });
  for (const outer of ['is hidden', 'is visible', 'is duplicate']) {
    const i = at(outer);
    assert.ok(i >= 0, `${outer} offered`);
    assert.ok(pre < i, `is pre translated before ${outer}`);
    assert.ok(items[pre].sortText < items[i].sortText, `sortText before ${outer}`);
  }

  const v3 = 'MAX LENGTH  > 80 and count of comments where (user = @user:"alice") > 0';
  await conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 3 }, contentChanges: [{ text: v3 }],
  });
  pub = await nextDiagnostics();
  assert.deepEqual(pub.diagnostics, []);
  const hover = await conn.sendRequest(lsp.HoverRequest.type, { textDocument: doc, position: { line: 0, character: 4 } });
  assert.equal(hover.contents.kind, 'markdown');
  assert.match(hover.contents.value, /`int`/);
  const mention = await conn.sendRequest(lsp.HoverRequest.type, { textDocument: doc, position: { line: 0, character: v3.indexOf('@user') + 3 } });
  assert.match(mention.contents.value, /user id 11/);

  // croql.why: the query on string 1 of the demo project, clause by clause.
  assert.deepEqual(init.capabilities.executeCommandProvider.commands, ['croql.why']);
  const data = require('node:path').resolve(__dirname, '../../testdata/demo/project.json');
  const why = await conn.sendRequest(lsp.ExecuteCommandRequest.type, { command: 'croql.why', arguments: [{ uri, id: 1, data }] });
  assert.equal(why.explanation.match, false);
  assert.equal(why.text, [
    '1: no match',
    '`MAX LENGTH  > 80 and count of comments where (user = @user:"alice") > 0` is false',
    '  `MAX LENGTH` is absent; `> 80` is false  (decides)',
    '  `count of comments where (user = @user:"alice")` = 0 (0 of 0 `comments`); `> 0` is false  (decides)',
    ''].join('\n'));

  const tokens = await conn.sendRequest(lsp.SemanticTokensRequest.type, { textDocument: doc });
  // MAX LENGTH > 80 and count of comments where user = @user:"alice" > 0
  assert.deepEqual(tokens.data.filter((_, i) => i % 5 === 3), [0, 5, 4, 1, 1, 1, 0, 1, 0, 5, 2, 5, 4]);
  const edits = await conn.sendRequest(lsp.DocumentFormattingRequest.type, { textDocument: doc, options: { tabSize: 2, insertSpaces: true } });
  assert.equal(edits.length, 1);
  assert.equal(edits[0].newText, 'max length > 80 and count of comments where (user = @user:"alice") > 0');

  await conn.sendRequest(lsp.ShutdownRequest.type);
  await conn.sendNotification(lsp.ExitNotification.type);
  const code = await exited;
  assert.equal(code, 0, 'croql lsp exit status');
  conn.dispose();
  console.log(JSON.stringify({ ok: true, completionItems: items.length, rank: { 'is pre translated': pre, 'is hidden': at('is hidden') } }));
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
