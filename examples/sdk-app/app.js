'use strict';
// A post-import app built on the platform's app SDK
// (@crowdin/app-project-module 3.2.2), as a developer would write it for
// the platform, pointed at croql serve by configuration only:
//
//   crowdinUrls.accountUrl      = {croql serve}/oauth/token  (installed event → token)
//   crowdinUrls.subscriptionUrl = {croql serve}              (the subscription check)
//
// Its file-post-import module splits source strings at blank lines
// (intro → intro.1, intro.2) and approves the translations of a
// translation upload. It is paid through the platform (pricing
// "recurring", a 14-day trial), so the SDK checks the organization's
// subscription before every job. It keeps its installations in
// PostgreSQL (postgresConfig): the SDK's default storage, better-sqlite3
// 13, needs Node 22.
//
// GET /check?organization=ORG is the app's own subscription check: the
// SDK's getSubscription (what the platform answers) and the SDK's
// checkSubscription (what the SDK makes of it), with the token stored
// by the installed event.
//
// Environment: CROQL_URL (croql serve), APP_CLIENT_ID, APP_CLIENT_SECRET,
// APP_PG_URL (a PostgreSQL database for the app's storage), PORT
// (0: any free port), APP_IDENTIFIER (default croql-sdk-splitter).
// It prints "listening http://127.0.0.1:PORT" once it serves.

const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const express = require('express');
const { addCrowdinEndpoints } = require('@crowdin/app-project-module');
const { getSubscription } = require('@crowdin/app-project-module/functions/crowdin');
const { decryptData } = require('@crowdin/app-project-module/util');
// checkSubscription is not in the package's exports map; it is loaded by
// its file, to ask the SDK's own rule (trial by initializedAt).
const { checkSubscription } = require(path.join(path.dirname(require.resolve('@crowdin/app-project-module')), 'util', 'subscription.js'));

function need(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`app.js: set ${name}`);
    process.exit(2);
  }
  return v;
}

const croqlURL = need('CROQL_URL').replace(/\/$/, '');
const identifier = process.env.APP_IDENTIFIER || 'croql-sdk-splitter';

// paragraphs splits a text at blank lines, dropping empty parts.
function paragraphs(text) {
  return text.replace(/\r\n/g, '\n').split('\n\n').map((p) => p.trim()).filter(Boolean);
}

// process is the module's work on one job's strings.
function processStrings(job, strings) {
  const translating = (job.targetLanguages || []).length > 0;
  const used = new Set(strings.map((s) => s.uniqId));
  const out = [];
  for (const s of strings) {
    if (translating) {
      for (const t of Object.values(s.translations || {})) {
        t.status = typeof t.text === 'string'
          ? 'approved'
          : Object.fromEntries(Object.keys(t.text).map((k) => [k, 'approved']));
      }
      out.push(s);
      continue;
    }
    const parts = s.hasPlurals || typeof s.text !== 'string' ? [] : paragraphs(s.text);
    if (parts.length < 2) {
      out.push(s);
      continue;
    }
    const [hash, seq = '0'] = s.uniqId.split('::');
    parts.forEach((text, i) => {
      let id = `${hash}-p${i + 1}::${seq}`;
      for (let n = 2; used.has(id); n++) id = `${hash}-p${i + 1}-${n}::${seq}`;
      used.add(id);
      out.push({ ...s, uniqId: id, identifier: `${s.identifier}.${i + 1}`, text });
    });
  }
  return out;
}

const app = express();
// http.createServer, not app.listen: the SDK replaces express's listen
// with one that takes a port only and listens on every interface.
const server = http.createServer(app);
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  const baseUrl = `http://127.0.0.1:${server.address().port}`;
  const config = {
    name: 'croql SDK splitter',
    identifier,
    description: 'Splits strings at blank lines; approves uploaded translations',
    baseUrl,
    clientId: need('APP_CLIENT_ID'),
    clientSecret: need('APP_CLIENT_SECRET'),
    dbFolder: fs.mkdtempSync(path.join(os.tmpdir(), 'croql-sdk-app-')),
    postgresConfig: { connectionString: need('APP_PG_URL') },
    disableLogsFormatter: true,
    crowdinUrls: { accountUrl: `${croqlURL}/oauth/token`, subscriptionUrl: croqlURL },
    pricing: { planType: 'recurring', trial: 14 },
    filePostImport: [
      {
        signaturePatterns: { fileName: '\\.json$' },
        fileProcess: async ({ request, content }) => ({ strings: processStrings(request, content || []) }),
      },
    ],
  };
  const { storage } = addCrowdinEndpoints(app, config);

  app.get('/check', async (req, res) => {
    const organization = String(req.query.organization || '');
    const credentials = await storage.getCrowdinCredentials(organization);
    if (!credentials) {
      res.status(404).json({ error: `not installed in organization ${organization}` });
      return;
    }
    const token = decryptData(config, credentials.accessToken);
    const out = {};
    try {
      const s = await getSubscription({ appIdentifier: identifier, token, baseUrl: croqlURL });
      out.platform = { state: 'active', expires: s.expires };
    } catch (e) {
      out.platform = e.code === 402
        ? { state: 'unpaid', subscribeLink: e.subscribeLink, initializedAt: e.initializedAt }
        : { state: 'not found', message: e.message };
    }
    const sdk = await checkSubscription({ config, token, organization, accountType: credentials.type });
    out.sdk = { expired: sdk.expired, type: sdk.type, daysLeft: sdk.daysLeft, subscribeLink: sdk.subscribeLink };
    res.json(out);
  });
  console.log(`listening ${baseUrl}`);
});
