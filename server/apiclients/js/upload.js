// Uploads localization files through the platform's official JavaScript
// API client (@crowdin/crowdin-api-client, pinned in package.json) to
// croql serve, the way an API user adds a source file: uploadStorage,
// then createFile; then reads the file's strings back with
// listProjectStrings. Prints one JSON document: for each file, its id
// and its strings (identifier, text, context), or the error.
//
//   node upload.js BASE_URL TOKEN PROJECT_ID NAME=PATH...
'use strict';

const fs = require('fs');
const crowdin = require('@crowdin/crowdin-api-client');

const [, , base, token, project, ...files] = process.argv;
if (!base || !token || !project) {
  console.error('usage: node upload.js BASE_URL TOKEN PROJECT_ID NAME=PATH...');
  process.exit(2);
}
const client = new crowdin.default({ token, baseUrl: base + '/api/v2' });

async function upload(name, file) {
  const st = await client.uploadStorageApi.addStorage(name, fs.readFileSync(file));
  const f = await client.sourceFilesApi.createFile(Number(project), { storageId: st.data.id, name });
  const list = await client.sourceStringsApi.withFetchAll().listProjectStrings(Number(project), { fileId: f.data.id });
  return {
    fileId: f.data.id,
    type: f.data.type,
    strings: list.data.map((s) => ({ identifier: s.data.identifier, text: s.data.text, context: s.data.context })),
  };
}

(async () => {
  const out = {};
  for (const arg of files) {
    const i = arg.indexOf('=');
    const name = arg.slice(0, i);
    try {
      out[name] = await upload(name, arg.slice(i + 1));
    } catch (e) {
      out[name] = { error: `${e.code || ''} ${e.message}` };
    }
  }
  process.stdout.write(JSON.stringify(out));
})();
