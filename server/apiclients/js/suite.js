// Runs the platform's official JavaScript API client
// (@crowdin/crowdin-api-client, pinned in package.json) against croql
// serve: every endpoint croql serve has, every documented parameter, the
// single-object GETs and the two-step upload. Each call's outcome is
// printed as one JSON document on stdout (the ids it answered, or the
// status and the validation key of its error); the Go test that starts
// croql serve (server/jsclient_test.go) compares the ids with the
// evaluator's. Every object is also checked against the client's type
// declarations (the .d.ts files of the installed package): a declared
// field that an answer lacks is reported in "missing".
//
//   node suite.js http://127.0.0.1:PORT TOKEN STRING_ID USER_ID TRANSLATION_ID COMMENTED_STRING_ID APPROVED_STRING_ID APPROVED_TRANSLATION_ID
//
// (the last six pick the demo's objects the reads of one string,
// member and translation ask for).
'use strict';

const fs = require('fs');
const path = require('path');
const crowdin = require('@crowdin/crowdin-api-client');

const [, , base, token] = process.argv;
if (!base || !token) {
  console.error('usage: node suite.js BASE_URL TOKEN');
  process.exit(2);
}

const client = new crowdin.default({ token, baseUrl: base + '/api/v2' });
const out = path.join(__dirname, 'node_modules', '@crowdin', 'crowdin-api-client', 'out');

// declared lists the fields of `interface name` in a .d.ts file of the
// client (the lines indented as its members).
function declared(file, name) {
  const src = fs.readFileSync(path.join(out, file, 'index.d.ts'), 'utf8').split('\n');
  const start = src.findIndex((l) => new RegExp('^\\s*interface ' + name + ' (extends [^{]+)?\\{').test(l));
  if (start < 0) throw new Error(`no interface ${name} in ${file}`);
  const indent = src[start].match(/^\s*/)[0].length;
  const fields = [];
  for (let i = start + 1; i < src.length; i++) {
    const l = src[i];
    if (new RegExp('^\\s{' + indent + '}\\}').test(l)) break;
    const m = l.match(new RegExp('^\\s{' + (indent + 4) + '}(\\w+)\\??:'));
    if (m) fields.push(m[1]);
  }
  if (fields.length === 0) throw new Error(`interface ${name} in ${file} has no fields`);
  return fields;
}

const models = {
  Project: declared('projectsGroups', 'Project'),
  Language: declared('languages', 'Language'),
  String: declared('sourceStrings', 'String'),
  PlainLanguageTranslation: declared('stringTranslations', 'PlainLanguageTranslation'),
  PluralLanguageTranslation: declared('stringTranslations', 'PluralLanguageTranslation'),
  Plural: declared('stringTranslations', 'Plural'),
  User: declared('stringTranslations', 'User'),
  TranslationMemory: declared('translationMemory', 'TranslationMemory'),
  TMSegment: declared('translationMemory', 'TMSegment'),
  TMSegmentRecord: declared('translationMemory', 'TMSegmentRecord'),
  Glossary: declared('glossaries', 'Glossary'),
  Term: declared('glossaries', 'Term'),
  File: declared('sourceFiles', 'File'),
  Label: declared('labels', 'Label'),
  Storage: declared('uploadStorage', 'Storage'),
  UploadTranslationResponse: declared('translations', 'UploadTranslationResponse'),
  LanguageProgress: declared('translationStatus', 'LanguageProgress'),
  FileProgress: declared('translationStatus', 'FileProgress'),
  StringTranslation: declared('stringTranslations', 'StringTranslation'),
  Approval: declared('stringTranslations', 'Approval'),
  Vote: declared('stringTranslations', 'Vote'),
  StringComment: declared('stringComments', 'StringComment'),
  StringModel: declared('stringComments', 'StringModel'),
  ProjectMember: declared('users', 'ProjectMember'),
  Directory: declared('sourceFiles', 'Directory'),
  Branch: declared('sourceFiles', 'Branch'),
  Concept: declared('glossaries', 'Concept'),
  // An answer without a body (204): nothing to check.
  NoContent: [],
};

const missing = [];
function check(model, o, where) {
  for (const f of models[model]) {
    if (!(f in o)) missing.push(`${where}: ${model}.${f}`);
  }
  if (model === 'LanguageProgress' && o.language) check('Language', o.language, where + '.language');
  if (model === 'Project') {
    if (o.sourceLanguage) check('Language', o.sourceLanguage, where + '.sourceLanguage');
    (o.targetLanguages || []).forEach((l, i) => check('Language', l, `${where}.targetLanguages[${i}]`));
  }
  if (model === 'TMSegment') (o.records || []).forEach((r, i) => check('TMSegmentRecord', r, `${where}.records[${i}]`));
  if (['PlainLanguageTranslation', 'StringTranslation', 'Approval', 'Vote', 'StringComment'].includes(model)) check('User', o.user || {}, where + '.user');
  if (model === 'StringComment') check('StringModel', o.string || {}, where + '.string');
  if (model === 'PluralLanguageTranslation') {
    (o.plurals || []).forEach((p, i) => {
      check('Plural', p, `${where}.plurals[${i}]`);
      check('User', p.user || {}, `${where}.plurals[${i}].user`);
    });
  }
}

function idsOf(objs) {
  const ids = [];
  for (const o of objs) {
    if (Array.isArray(o.plurals)) o.plurals.forEach((p) => ids.push(p.translationId));
    else if ('translationId' in o) ids.push(o.translationId);
    else ids.push(o.id);
  }
  return ids;
}

const results = {};
async function run(name, model, fn) {
  try {
    const res = await fn();
    const objs = Array.isArray(res.data) ? res.data.map((d) => d.data) : [res.data];
    objs.forEach((o, i) => {
      let m = model;
      if (model === 'LanguageTranslation') m = Array.isArray(o.plurals) ? 'PluralLanguageTranslation' : 'PlainLanguageTranslation';
      check(m, o, `${name}[${i}]`);
    });
    results[name] = {
      ok: true, ids: idsOf(objs), stringIds: objs.map((o) => o.stringId), texts: objs.map((o) => o.text), objects: objs,
      translationIds: objs.map((o) => o.translationId), ratings: objs.map((o) => o.rating), names: objs.map((o) => o.name || o.username || o.subject), titles: objs.map((o) => o.title),
    };
  } catch (e) {
    const key = e.validationCodes && e.validationCodes.length ? e.validationCodes[0].key : '';
    results[name] = { ok: false, status: e.code, key, message: e.message };
  }
}

async function main() {
  const L = { limit: 500 };
  const p = client.projectsGroupsApi;
  await run('projects.list', 'Project', () => p.listProjects());
  await run('projects.get', 'Project', () => p.getProject(1));
  await run('projects.hasManagerAccess', 'Project', () => p.listProjects({ hasManagerAccess: 1 }));
  await run('projects.orderBy', 'Project', () => p.listProjects({ orderBy: 'name desc' }));

  const s = client.sourceStringsApi;
  await run('strings.all', 'String', () => s.withFetchAll().listProjectStrings(1));
  await run('strings.croql', 'String', () => s.listProjectStrings(1, { croql: 'is hidden', ...L }));
  await run('strings.badCroql', 'String', () => s.listProjectStrings(1, { croql: 'is hiden' }));
  await run('strings.fileId', 'String', () => s.listProjectStrings(1, { fileId: 1, ...L }));
  await run('strings.branchId', 'String', () => s.listProjectStrings(1, { branchId: 2, ...L }));
  await run('strings.labelIds', 'String', () => s.listProjectStrings(1, { labelIds: '3,1', ...L }));
  await run('strings.filter', 'String', () => s.listProjectStrings(1, { filter: 'checkout', ...L }));
  await run('strings.filter.scope', 'String', () => s.listProjectStrings(1, { filter: 'button', scope: 'identifier', ...L }));
  await run('strings.denormalizePlaceholders', 'String', () => s.listProjectStrings(1, { denormalizePlaceholders: 1, ...L }));
  await run('strings.orderBy', 'String', () => s.listProjectStrings(1, { orderBy: 'identifier desc', ...L }));
  await run('strings.paging', 'String', () => s.listProjectStrings(1, { limit: 7, offset: 14 }));
  await run('strings.directoryId', 'String', () => s.listProjectStrings(1, { directoryId: 1 }));
  await run('strings.taskId', 'String', () => s.listProjectStrings(1, { taskId: 1 }));
  await run('strings.croql+fileId', 'String', () => s.listProjectStrings(1, { croql: 'is hidden', fileId: 1 }));
  await run('strings.fileId.plural', 'String', () => s.listProjectStrings(1, { fileId: 4, ...L }));
  await run('strings.get', 'String', () => s.getString(1, 8));
  await run('strings.get.missing', 'String', () => s.getString(1, 999999));

  const t = client.stringTranslationsApi;
  const de = (o) => () => t.listLanguageTranslations(1, 'de', { ...L, ...o });
  await run('translations.all', 'LanguageTranslation', () => t.withFetchAll().listLanguageTranslations(1, 'de'));
  await run('translations.stringIds', 'LanguageTranslation', de({ stringIds: '1,2,8' }));
  await run('translations.labelIds', 'LanguageTranslation', de({ labelIds: '3' }));
  await run('translations.fileId', 'LanguageTranslation', de({ fileId: 1 }));
  await run('translations.branchId', 'LanguageTranslation', de({ branchId: 2 }));
  await run('translations.approvedOnly', 'LanguageTranslation', de({ approvedOnly: 1 }));
  await run('translations.passedWorkflow', 'LanguageTranslation', de({ passedWorkflow: 1 }));
  await run('translations.minApprovalCount', 'LanguageTranslation', de({ minApprovalCount: 1 }));
  await run('translations.croql', 'LanguageTranslation', de({ croql: 'count of votes > 0' }));
  await run('translations.denormalizePlaceholders', 'LanguageTranslation', de({ denormalizePlaceholders: 1 }));
  await run('translations.orderBy', 'LanguageTranslation', de({ orderBy: 'stringId desc' }));
  await run('translations.croql+fileId', 'LanguageTranslation', de({ croql: 'count of votes > 0', fileId: 1 }));
  await run('translations.directoryId', 'LanguageTranslation', de({ directoryId: 1 }));
  await run('translations.croql+stringIds', 'LanguageTranslation', de({ croql: 'count of votes > 0', stringIds: '1' }));

  const m = client.translationMemoryApi;
  await run('tm.list', 'TranslationMemory', () => m.listTm());
  await run('tm.get', 'TranslationMemory', () => m.getTm(1));
  await run('tm.segments', 'TMSegment', () => m.withFetchAll().listTmSegments(1));
  await run('tm.segments.croql', 'TMSegment', () => m.listTmSegments(1, { croql: 'count of records where (usageCount > 5) > 0', ...L }));
  await run('tm.segments.orderBy', 'TMSegment', () => m.listTmSegments(1, { orderBy: 'id desc', ...L }));
  await run('tm.segment.get', 'TMSegment', () => m.getTmSegment(1, 3000));

  const g = client.glossariesApi;
  await run('glossary.list', 'Glossary', () => g.listGlossaries());
  await run('glossary.get', 'Glossary', () => g.getGlossary(1));
  await run('terms.all', 'Term', () => g.withFetchAll().listTerms(1));
  await run('terms.languageId', 'Term', () => g.listTerms(1, { languageId: 'de', ...L }));
  await run('terms.userId', 'Term', () => g.listTerms(1, { userId: 13, ...L }));
  await run('terms.conceptId', 'Term', () => g.listTerms(1, { conceptId: 800, ...L }));
  await run('terms.croql', 'Term', () => g.listTerms(1, { croql: 'text contains "e"', ...L }));
  await run('terms.orderBy', 'Term', () => g.listTerms(1, { orderBy: 'text', ...L }));
  await run('terms.translationOfTermId', 'Term', () => g.listTerms(1, { translationOfTermId: 9001 }));
  await run('terms.croql+languageId', 'Term', () => g.listTerms(1, { croql: 'text contains "e"', languageId: 'de' }));
  await run('terms.get', 'Term', () => g.getTerm(1, 9001));

  const f = client.sourceFilesApi;
  await run('files.list', 'File', () => f.listProjectFiles(1));
  await run('files.branchId', 'File', () => f.listProjectFiles(1, { branchId: 2 }));
  await run('files.filter', 'File', () => f.listProjectFiles(1, { filter: 'json' }));
  await run('files.orderBy', 'File', () => f.listProjectFiles(1, { orderBy: 'name desc' }));
  await run('files.directoryId', 'File', () => f.listProjectFiles(1, { directoryId: 1 }));
  await run('files.get', 'File', () => f.getFile(1, 1));

  await run('progress.project', 'LanguageProgress', () => client.translationStatusApi.getProjectProgress(1));
  await run('progress.language', 'FileProgress', () => client.translationStatusApi.getLanguageProgress(1, 'de'));
  await run('progress.file', 'LanguageProgress', () => client.translationStatusApi.getFileProgress(1, 1));

  const lb = client.labelsApi;
  await run('labels.list', 'Label', () => lb.listLabels(1));
  await run('labels.orderBy', 'Label', () => lb.listLabels(1, { orderBy: 'title desc' }));
  await run('labels.get', 'Label', () => lb.getLabel(1, 1));

  // The project's other data: string translations, approvals, votes,
  // comments, members, directories, branches, glossary concepts.
  const [trString, memberId, trId, trComments, apprString, apprId] = process.argv.slice(4).map(Number);
  await run('stringTranslations.list', 'StringTranslation', () => t.listStringTranslations(1, trString, 'de', { ...L }));
  await run('stringTranslations.orderBy', 'StringTranslation', () => t.listStringTranslations(1, trString, 'de', { orderBy: 'id desc', ...L }));
  await run('stringTranslations.noStringId', 'StringTranslation', () => t.listStringTranslations(1, undefined, 'de', { ...L }));
  await run('stringTranslations.get', 'StringTranslation', () => t.translationInfo(1, trId));
  await run('approvals.all', 'Approval', () => t.withFetchAll().listTranslationApprovals(1));
  await run('approvals.translationId', 'Approval', () => t.listTranslationApprovals(1, { translationId: apprId, ...L }));
  await run('approvals.stringId', 'Approval', () => t.listTranslationApprovals(1, { stringId: apprString, languageId: 'de', ...L }));
  await run('approvals.fileId', 'Approval', () => t.listTranslationApprovals(1, { fileId: 1, languageId: 'de', ...L }));
  await run('approvals.labelIds', 'Approval', () => t.listTranslationApprovals(1, { labelIds: '3', ...L }));
  await run('approvals.get', 'Approval', () => t.approvalInfo(1, 1));
  await run('votes.all', 'Vote', () => t.withFetchAll().listTranslationVotes(1));
  await run('votes.translationId', 'Vote', () => t.listTranslationVotes(1, { translationId: trId, ...L }));
  await run('votes.stringId', 'Vote', () => t.listTranslationVotes(1, { stringId: trString, languageId: 'de', ...L }));
  await run('votes.get', 'Vote', () => t.voteInfo(1, 1));
  const sc = client.stringCommentsApi;
  await run('comments.all', 'StringComment', () => sc.withFetchAll().listStringComments(1));
  await run('comments.stringId', 'StringComment', () => sc.listStringComments(1, { stringId: trComments, ...L }));
  await run('comments.type', 'StringComment', () => sc.listStringComments(1, { type: 'issue', ...L }));
  await run('comments.issues', 'StringComment', () => sc.listStringComments(1, { type: 'issue', issueStatus: 'unresolved', ...L }));
  await run('comments.issueType', 'StringComment', () => sc.listStringComments(1, { issueType: 'source_mistake' }));
  await run('comments.get', 'StringComment', () => sc.getStringComment(1, 1));
  const u = client.usersApi;
  await run('members.list', 'ProjectMember', () => u.listProjectMembers(1, { ...L }));
  await run('members.search', 'ProjectMember', () => u.listProjectMembers(1, { search: 'ALI', ...L }));
  await run('members.role', 'ProjectMember', () => u.listProjectMembers(1, { role: 'manager' }));
  await run('members.get', 'ProjectMember', () => u.getProjectMemberPermissions(1, memberId));
  await run('directories.list', 'Directory', () => f.listProjectDirectories(1));
  await run('directories.get', 'Directory', () => f.getDirectory(1, 1));
  await run('branches.list', 'Branch', () => f.listProjectBranches(1));
  await run('branches.name', 'Branch', () => f.listProjectBranches(1, { name: 'main' }));
  await run('branches.get', 'Branch', () => f.getBranch(1, 2));
  await run('concepts.list', 'Concept', () => g.withFetchAll().listConcepts(1));
  await run('concepts.orderBy', 'Concept', () => g.listConcepts(1, { orderBy: 'subject desc', ...L }));
  await run('concepts.paging', 'Concept', () => g.listConcepts(1, { limit: 3, offset: 2 }));
  await run('concepts.get', 'Concept', () => g.getConcept(1, 800));
  await run('files.editFile', 'File', () => f.editFile(1, 1, [{ op: 'replace', path: '/title', value: 'Edited' }]));
  await run('files.edited.get', 'File', () => f.getFile(1, 1));
  await run('files.editFile.priority', 'File', () => f.editFile(1, 1, [{ op: 'replace', path: '/priority', value: 'high' }]));
  await run('files.revisions', 'File', () => f.listFileRevisions(1, 1));

  // The two-step upload: a storage, then the file; a storage, then its
  // translations.
  let fileId = 0;
  await run('upload.storage', 'Storage', () => client.uploadStorageApi.addStorage('js-upload.json', JSON.stringify({ 'js.hello': 'Hello from JS', 'js.bye': 'Bye' })));
  if (results['upload.storage'].ok) {
    const storageId = results['upload.storage'].objects[0].id;
    await run('upload.createFile', 'File', () => f.createFile(1, { storageId, name: 'js-upload.json' }));
    if (results['upload.createFile'].ok) fileId = results['upload.createFile'].objects[0].id;
  }
  // The token's storages: listed, read, deleted.
  await run('storages.add', 'Storage', () => client.uploadStorageApi.addStorage('spare.json', '{}'));
  const spare = results['storages.add'].ok ? results['storages.add'].ids[0] : 0;
  await run('storages.list', 'Storage', () => client.uploadStorageApi.listStorages());
  await run('storages.get', 'Storage', () => client.uploadStorageApi.getStorage(spare));
  await run('storages.delete', 'NoContent', async () => { await client.uploadStorageApi.deleteStorage(spare); return { data: {} }; });
  await run('storages.deleted.get', 'Storage', () => client.uploadStorageApi.getStorage(spare));
  await run('upload.strings', 'String', () => s.listProjectStrings(1, { fileId, ...L }));
  await run('upload.translationStorage', 'Storage', () => client.uploadStorageApi.addStorage('de.json', JSON.stringify({ 'js.hello': 'Hallo aus JS' })));
  if (results['upload.translationStorage'].ok) {
    const storageId = results['upload.translationStorage'].objects[0].id;
    await run('upload.uploadTranslation', 'UploadTranslationResponse', () => client.translationsApi.uploadTranslation(1, 'de', { storageId, fileId }));
  }
  const hello = ((results['upload.strings'].objects || []).find((o) => o.identifier === 'js.hello') || {}).id || 0;
  await run('upload.translations', 'LanguageTranslation', de({ stringIds: String(hello) }));

  // Files as the platform keeps them: createFile of a name in use is
  // refused; updateOrRestoreFile updates the same file id; a restore is
  // refused (no revisions); deleteFile removes the file.
  const storage = async (name, content) => (await client.uploadStorageApi.addStorage(name, JSON.stringify(content))).data.id;
  await run('files.createFile.nameInUse', 'File', async () => f.createFile(1, { storageId: await storage('js-upload.json', { x: 'X' }), name: 'js-upload.json' }));
  await run('files.createFile.excludedTargetLanguages', 'File', async () => f.createFile(1, { storageId: await storage('other.json', { x: 'X' }), name: 'other.json', excludedTargetLanguages: ['de'] }));
  await run('files.updateOrRestoreFile', 'File', async () => f.updateOrRestoreFile(1, fileId, {
    storageId: await storage('js-upload.json', { 'js.hello': 'Hello from JS', 'js.later': 'Later' }), updateOption: 'keep_translations' }));
  await run('files.updated.strings', 'String', () => s.listProjectStrings(1, { fileId, ...L }));
  await run('files.updated.translations', 'LanguageTranslation', de({ stringIds: String(hello) }));
  await run('files.restore', 'File', () => f.updateOrRestoreFile(1, fileId, { revisionId: 1 }));
  // Plurals: every form of a JSON plural is kept and read back.
  await run('files.plural.createFile', 'File', async () => f.createFile(1, {
    storageId: await storage('plural.json', { apples: { one: 'One apple', other: '{n} apples' } }), name: 'plural.json', title: 'Plurals' }));
  const pluralFile = results['files.plural.createFile'].ok ? results['files.plural.createFile'].ids[0] : 0;
  await run('files.plural.strings', 'String', () => s.listProjectStrings(1, { fileId: pluralFile, ...L }));
  await run('files.deleteFile', 'NoContent', async () => { await f.deleteFile(1, fileId); return { data: {} }; });
  await run('files.deleted.get', 'File', () => f.getFile(1, fileId));

  for (const r of Object.values(results)) delete r.objects;
  process.stdout.write(JSON.stringify({ results, missing }) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
