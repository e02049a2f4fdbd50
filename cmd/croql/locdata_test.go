package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/schema"
)

// hs is a source string written by hand, as the corpus files say it.
type hs struct {
	key, typ, text, ctx string
	max                 int64 // 0: no limit
	hidden              bool
	tr                  []htr
	// sum is the languages summary by language: "t" translated, "p"
	// partially translated, "a" translated and approved; "s" after any
	// marks a translation equal to the source text.
	sum map[string]string
}

// htr is a translation written by hand.
type htr struct {
	lang, form, text string
	approved         bool
	provider         string
}

// handProject builds the project of hand-written strings, numbering
// strings and translations in order.
func handProject(src string, targets []string, strs []hs) *schema.Project {
	p := &schema.Project{Name: "hand", SourceLanguage: src, TargetLanguages: targets}
	var tid int64
	for i, h := range strs {
		s := schema.SourceString{ID: int64(i + 1), Type: h.typ, Text: h.text, Identifier: h.key, Context: h.ctx, IsHidden: h.hidden}
		if h.max > 0 {
			s.MaxLength = &h.max
		}
		for _, t := range h.tr {
			tid++
			tr := schema.Translation{ID: tid, StringID: s.ID, Text: t.text, PluralForm: t.form, Language: t.lang}
			if t.approved {
				tr.Approvals = []schema.Approval{{}}
			}
			if t.provider != "" {
				tr.Provider, tr.IsPreTranslated = &t.provider, true
			}
			s.Translations = append(s.Translations, tr)
		}
		for _, lang := range targets {
			st, ok := h.sum[lang]
			if !ok {
				continue
			}
			l := schema.LanguageSummary{Language: lang,
				IsTranslated: strings.ContainsAny(st, "ta"), IsPartiallyTranslated: strings.Contains(st, "p"),
				IsApproved: strings.Contains(st, "a"), HasTranslationAsSource: strings.Contains(st, "s")}
			for _, t := range s.Translations {
				if t.Language == lang {
					l.ApprovalsCount += int64(len(t.Approvals))
					if t.Provider != nil && l.Language == lang && !l.IsAutoTranslated {
						l.IsAutoTranslated, l.IsTranslatedByMT = true, *t.Provider == "custom_mt"
						l.IsTranslatedByTM = *t.Provider == "tm"
					}
				}
			}
			s.LanguagesSummary = append(s.LanguagesSummary, l)
		}
		p.Strings = append(p.Strings, s)
	}
	return p
}

// locQueries run on every corpus case, in the strings context, then
// (after "translations:") in the translations context.
var locQueries = []string{
	`type is plain`, `type is plural`, `type is icu`,
	`identifier contains "."`, `text contains "%"`, `text = ""`,
	`context = ""`, `context contains "the"`,
	`max length >= 10`, `not (max length >= 0 or max length < 0)`,
	`is hidden`,
	`count of translations = 0`,
	`count of translations where (plural form = "one") > 0`,
	`count of translations where (count of approvals > 0) > 0`,
	`count of translations where (is pre translated) > 0`,
	`count of languages summary where (is translated) > 0`,
	`count of languages summary where (is partially translated) > 0`,
	`count of languages summary where (is approved) > 0`,
	`count of languages summary where (has translation as source) > 0`,
	`count of languages summary where (is translated by mt) > 0`,
	"translations:" + `plural form = "other"`,
	"translations:" + `plural form = "none"`,
	"translations:" + `count of approvals > 0`,
	"translations:" + `provider = "custom_mt"`,
	"translations:" + `text contains "e"`,
}

func TestLocDataQueriesMatchHandBuilt(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "locfiles")
	cases := []struct {
		name, data string
		flags      []string
		want       *schema.Project
	}{
		{"xliff 1.2", "xliff12/messages.de.xlf", nil, handProject("en", []string{"de"}, []hs{
			{key: "checkout.title", typ: "plain", text: "Checkout", ctx: "Page title of the checkout page", max: 20,
				tr: []htr{{lang: "de", form: "none", text: "Zur Kasse", approved: true}}, sum: map[string]string{"de": "a"}},
			{key: "checkout.pay_button", typ: "plain", text: "Pay %amount% now", ctx: "templates/checkout.html.twig",
				tr: []htr{{lang: "de", form: "none", text: "Jetzt %amount% zahlen"}}, sum: map[string]string{"de": "t"}},
			{key: "cart.items", typ: "icu", text: "{count, plural, one {# item} other {# items}}",
				tr: []htr{{lang: "de", form: "none", text: "{count, plural, one {# Artikel} other {# Artikel}}", provider: "custom_mt"}}, sum: map[string]string{"de": "t"}},
			{key: "cart.empty", typ: "plain", text: `Your cart is <g id="1">empty</g>.`},
			{key: "brand.name", typ: "plain", text: "ShopKit", hidden: true,
				tr: []htr{{lang: "de", form: "none", text: "ShopKit"}}, sum: map[string]string{"de": "ts"}},
			{key: "checkout.terms", typ: "plain", text: "I accept the terms & conditions",
				tr: []htr{{lang: "de", form: "none", text: "Ich akzeptiere die AGB", approved: true}}, sum: map[string]string{"de": "a"}},
		})},
		{"xliff 2.0", "xliff2/messages.fr.xlf", nil, handProject("en-US", []string{"fr-FR"}, []hs{
			{key: "welcomeHeader", typ: "plain", max: 30,
				text: `Welcome to <pc id="0" dataRefStart="START_BOLD" dataRefEnd="CLOSE_BOLD">Tour of Heroes</pc>!`,
				ctx:  "Welcome header on the home page\nsrc/app/home.component.html:3",
				tr: []htr{{lang: "fr-FR", form: "none", approved: true,
					text: `Bienvenue dans <pc id="0" dataRefStart="START_BOLD" dataRefEnd="CLOSE_BOLD">Tour of Heroes</pc> !`}},
				sum: map[string]string{"fr-FR": "a"}},
			{key: "heroCount", typ: "icu", text: "{VAR_PLURAL, plural, =0 {no heroes} one {one hero} other {{INTERPOLATION} heroes}}",
				tr:  []htr{{lang: "fr-FR", form: "none", text: "{VAR_PLURAL, plural, =0 {aucun héros} one {un héros} other {{INTERPOLATION} héros}}"}},
				sum: map[string]string{"fr-FR": "t"}},
			{key: "save", typ: "plain", text: "Save", tr: []htr{{lang: "fr-FR", form: "none", text: "Enregistrer"}}, sum: map[string]string{"fr-FR": "t"}},
			{key: "deleteConfirm", typ: "plain", text: "Delete this hero?"},
			{key: "twoSegments", typ: "plain", text: "First sentence. Second sentence.",
				tr: []htr{{lang: "fr-FR", form: "none", text: "Première phrase. Deuxième phrase.", approved: true}}, sum: map[string]string{"fr-FR": "a"}},
		})},
		{"gettext PO", "po", nil, handProject("en", []string{"de", "ru"}, []hs{
			{key: "Hello, world!", typ: "plain", text: "Hello, world!", ctx: "TRANSLATORS: the greeting on the start screen",
				tr:  []htr{{lang: "de", form: "none", text: "Hallo, Welt!"}, {lang: "ru", form: "none", text: "Привет, мир!"}},
				sum: map[string]string{"de": "t", "ru": "t"}},
			{key: "%d file removed", typ: "plural", text: "%d files removed",
				tr: []htr{{lang: "de", form: "one", text: "%d Datei entfernt"}, {lang: "de", form: "other", text: "%d Dateien entfernt"},
					{lang: "ru", form: "one", text: "%d файл удалён"}, {lang: "ru", form: "few", text: "%d файла удалено"}, {lang: "ru", form: "many", text: "%d файлов удалено"}},
				sum: map[string]string{"de": "t", "ru": "t"}},
			{key: "Open", typ: "plain", text: "Open", ctx: "menu", tr: []htr{{lang: "de", form: "none", text: "Öffnen"}}, sum: map[string]string{"de": "t"}},
			{key: "Open", typ: "plain", text: "Open", ctx: "door state", tr: []htr{{lang: "de", form: "none", text: "Offen"}}, sum: map[string]string{"de": "t"}},
			{key: "Quit without saving?", typ: "plain", text: "Quit without saving?", tr: []htr{{lang: "de", form: "none", text: "Ohne Speichern beenden?"}}, sum: map[string]string{"de": "t"}},
			{key: "This program comes with NO WARRANTY, to the extent permitted by law.", typ: "plain", text: "This program comes with NO WARRANTY, to the extent permitted by law."},
		})},
		{"iOS .strings and .stringsdict", "ios", nil, handProject("en", []string{"de"}, []hs{
			{key: "settings.title", typ: "plain", text: "Settings", ctx: "Title of the settings screen", tr: []htr{{lang: "de", form: "none", text: "Einstellungen"}}, sum: map[string]string{"de": "t"}},
			{key: "settings.signout", typ: "plain", text: "Sign out"},
			{key: "error.download", typ: "plain", text: "The download failed:\n%@", ctx: "Shown when the download fails",
				tr: []htr{{lang: "de", form: "none", text: "Der Download ist fehlgeschlagen:\n%@"}}, sum: map[string]string{"de": "t"}},
			{key: "quote.sample", typ: "plain", text: "She said \"hi\" ☺", tr: []htr{{lang: "de", form: "none", text: "Sie sagte \"hallo\" ☺"}}, sum: map[string]string{"de": "t"}},
			{key: "photos.count", typ: "plural", text: "%d photos",
				tr: []htr{{lang: "de", form: "one", text: "%d Foto"}, {lang: "de", form: "other", text: "%d Fotos"}}, sum: map[string]string{"de": "t"}},
			{key: "messages.unread", typ: "plural", text: "You have %ld unread messages",
				tr: []htr{{lang: "de", form: "other", text: "Du hast %ld ungelesene Nachrichten"}}, sum: map[string]string{"de": "p"}},
		})},
		{"ARB", "arb", nil, handProject("en", []string{"de"}, []hs{
			{key: "helloWorld", typ: "plain", text: "Hello World!", ctx: "The conventional newborn programmer greeting",
				tr: []htr{{lang: "de", form: "none", text: "Hallo Welt!"}}, sum: map[string]string{"de": "t"}},
			{key: "itemCount", typ: "icu", text: "{count, plural, =0{No items} =1{One item} other{{count} items}}", ctx: "Number of items in the cart",
				tr: []htr{{lang: "de", form: "none", text: "{count, plural, =0{Keine Artikel} =1{Ein Artikel} other{{count} Artikel}}"}}, sum: map[string]string{"de": "t"}},
			{key: "pronoun", typ: "icu", text: "{gender, select, male{he} female{she} other{they}}", ctx: "profile\nA gendered pronoun"},
			{key: "logout", typ: "plain", text: "Log out"},
		})},
		{"key-value JSON", "json/*.json", nil, handProject("en", []string{"de"}, []hs{
			{key: "nav.home", typ: "plain", text: "Home", tr: []htr{{lang: "de", form: "none", text: "Startseite"}}, sum: map[string]string{"de": "t"}},
			{key: "nav.settings", typ: "plain", text: "Settings", tr: []htr{{lang: "de", form: "none", text: "Settings"}}, sum: map[string]string{"de": "ts"}},
			{key: "welcome", typ: "plain", text: "Welcome, {name}!"},
			{key: "inbox", typ: "plural", text: "You have {count} messages",
				tr: []htr{{lang: "de", form: "one", text: "Du hast {count} Nachricht"}, {lang: "de", form: "other", text: "Du hast {count} Nachrichten"}}, sum: map[string]string{"de": "t"}},
			{key: "invite", typ: "icu", text: "{count, plural, one {Invite # friend} other {Invite # friends}}",
				tr: []htr{{lang: "de", form: "none", text: "{count, plural, one {Lade # Freund ein} other {Lade # Freunde ein}}"}}, sum: map[string]string{"de": "t"}},
		})},
		{"Android XML", "android", nil, handProject("en", []string{"de"}, []hs{
			{key: "app_name", typ: "plain", text: "Notely", hidden: true},
			{key: "action_save", typ: "plain", text: "Save", ctx: "Button that saves the current note", tr: []htr{{lang: "de", form: "none", text: "Speichern"}}, sum: map[string]string{"de": "t"}},
			{key: "welcome", typ: "plain", text: `Welcome, <xliff:g id="user" example="Bob">%1$s</xliff:g>!`,
				tr: []htr{{lang: "de", form: "none", text: `Willkommen, <xliff:g id="user" example="Bob">%1$s</xliff:g>!`}}, sum: map[string]string{"de": "t"}},
			{key: "quote", typ: "plain", text: "Don't panic"},
			{key: "notes_count", typ: "plural", text: "%d notes",
				tr: []htr{{lang: "de", form: "one", text: "%d Notiz"}, {lang: "de", form: "other", text: "%d Notizen"}}, sum: map[string]string{"de": "t"}},
		})},
		{"PO with --target-language", "po/de.po", []string{"--source-language", "en", "--target-language", "fr"}, handProject("en", []string{"de"}, []hs{
			{key: "Hello, world!", typ: "plain", text: "Hello, world!", ctx: "TRANSLATORS: the greeting on the start screen",
				tr: []htr{{lang: "de", form: "none", text: "Hallo, Welt!"}}, sum: map[string]string{"de": "t"}},
			{key: "%d file removed", typ: "plural", text: "%d files removed",
				tr: []htr{{lang: "de", form: "one", text: "%d Datei entfernt"}, {lang: "de", form: "other", text: "%d Dateien entfernt"}}, sum: map[string]string{"de": "t"}},
			{key: "Open", typ: "plain", text: "Open", ctx: "menu", tr: []htr{{lang: "de", form: "none", text: "Öffnen"}}, sum: map[string]string{"de": "t"}},
			{key: "Open", typ: "plain", text: "Open", ctx: "door state", tr: []htr{{lang: "de", form: "none", text: "Offen"}}, sum: map[string]string{"de": "t"}},
			{key: "Quit without saving?", typ: "plain", text: "Quit without saving?", tr: []htr{{lang: "de", form: "none", text: "Ohne Speichern beenden?"}}, sum: map[string]string{"de": "t"}},
			{key: "This program comes with NO WARRANTY, to the extent permitted by law.", typ: "plain", text: "This program comes with NO WARRANTY, to the extent permitted by law."},
		})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nonEmpty := 0
			for _, q := range locQueries {
				ctxName, src := croql.Strings, q
				if rest, ok := strings.CutPrefix(q, "translations:"); ok {
					ctxName, src = croql.Translations, rest
				}
				want := evalIDs(t, c.want, ctxName, src)
				if len(want) > 0 {
					nonEmpty++
				}
				args := append([]string{"query", "--data", filepath.Join(dir, c.data), "--context", ctxName, "--ids"}, c.flags...)
				code, out, errOut := runCLI("", append(args, src)...)
				require.Equal(t, 0, code, "%s: %s", src, errOut)
				assert.Equal(t, want, strings.Fields(out), "%s --context %s %q", c.data, ctxName, src)
			}
			assert.Greater(t, nonEmpty, len(locQueries)/3, "most queries match something")
		})
	}
}

// evalIDs runs a query with the evaluator over p, as ids.
func evalIDs(t *testing.T, p *schema.Project, ctxName, src string) []string {
	t.Helper()
	env, err := croql.NewEnv(ctxName, croql.WithLanguages(p.LanguageCodes()...))
	require.NoError(t, err)
	q, d := env.Compile(src)
	require.False(t, d.HasErrors(), "%s: %v", src, d)
	require.NoError(t, p.Validate())
	cx, _ := schema.New().Context(ctxName)
	ids := []string{}
	for _, o := range p.Objects(cx) {
		ok, err := q.Match(o)
		require.NoError(t, err)
		if ok {
			id, _ := schema.ObjectID(o)
			ids = append(ids, strconv.FormatInt(id, 10))
		}
	}
	return ids
}

func TestLocDataProjectJSONStaysProject(t *testing.T) {
	// croql's own JSON project file is read as before
	tmp := t.TempDir()
	proj := filepath.Join(tmp, "project.json")
	require.NoError(t, os.WriteFile(proj, []byte(`{"name": "p", "sourceLanguageId": "en", "strings": [{"id": 7, "type": "plain", "text": "x", "identifier": "k", "added": "2024-01-01"}]}`), 0o600))
	code, out, errOut := runCLI("", "query", "--data", proj, "--ids", `identifier = "k"`)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "7\n", out)
	assert.False(t, isLocData(proj))

	kv := filepath.Join(tmp, "en.json")
	require.NoError(t, os.WriteFile(kv, []byte(`{"name": "App", "files": {"open": "Open"}}`), 0o600))
	assert.True(t, isLocData(kv), "key-value JSON whose keys are also project members")
	code, out, errOut = runCLI("", "query", "--data", kv, "--ids", `identifier = "files.open"`)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "2\n", out)
}

func TestLocDataErrors(t *testing.T) {
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "de.po")
	require.NoError(t, os.WriteFile(bad, []byte("msgid \"a\"\nmsgstr \"b\n"), 0o600))
	code, _, errOut := runCLI("", "query", "--data", bad, "--ids", "true or true")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "de.po: line 2")

	code, _, errOut = runCLI("", "query", "--data", filepath.Join(tmp, "*.xlf"), "--ids", `text = ""`)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "matches no file")
}

func TestLocDataEveryCommand(t *testing.T) {
	data := filepath.Join("..", "..", "testdata", "locfiles", "android")
	for _, args := range [][]string{
		{"why", "--data", data, "--id", "2", "type is plural"},
		{"diff", "--data", data, "type is plural", "type is plain"},
		{"lint", "--data", data, `count of translations where (language = @language:"de") > 0`},
	} {
		code, out, errOut := runCLI("", args...)
		assert.Equal(t, 0, code, "%v: %s", args, errOut)
		if args[0] != "lint" { // a clean lint prints nothing
			assert.NotEmpty(t, out, "%v", args)
		}
	}
	code, _, errOut := runCLI("", "lint", "--data", data, `count of translations where (language = @language:"fr") > 0`)
	assert.NotEqual(t, 0, code, "fr is no language of the files: %s", errOut)
}

func TestLocDataLanguageFlags(t *testing.T) {
	tmp := t.TempDir()
	po := filepath.Join(tmp, "messages.po")
	require.NoError(t, os.WriteFile(po, []byte("msgid \"Yes\"\nmsgstr \"Так\"\n"), 0o600))
	// no language in the file or its name: the translation has none
	code, out, errOut := runCLI("", "query", "--data", po, "--context", "translations", "--ids", `text = "Так"`)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, out)
	code, out, errOut = runCLI("", "query", "--data", po, "--target-language", "uk", "--source-language", "en_GB",
		"--context", "translations", "--fields", "language", `text = "Так"`)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, `{"language":"uk"}`+"\n", out)
	// the languages are the project's: @language mentions check against them
	code, _, errOut = runCLI("", "lint", "--data", po, "--target-language", "uk", "--source-language", "en_GB",
		`count of languages summary where (language = @language:"en-GB") > 0`)
	assert.Equal(t, 0, code, errOut)
}

func TestLocFlagsNeedLocData(t *testing.T) {
	code, _, errOut := runCLI("", "query", "--source-language", "de", "--ids", "true or true")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "--source-language and --target-language are for localization files")
	code, _, errOut = runCLI("", "query", "--data", filepath.Join("..", "..", "testdata", "demo", "project.json"), "--target-language", "de", "--ids", "true or true")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "a project file says its languages")
}

func TestLocDataLoadAndSQLite(t *testing.T) {
	data := filepath.Join("..", "..", "testdata", "locfiles", "po")
	code, _, errOut := runCLI("", "load", "--dsn", filepath.Join(t.TempDir(), "po.sqlite"), data)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "croql load: 6 objects")
	// the SQL engine answers as the evaluator does
	for _, q := range []string{`type is plural`, `count of translations where (plural form = "many") > 0`, `context = "menu"`} {
		_, mem, _ := runCLI("", "query", "--data", data, "--ids", q)
		code, sql, errOut := runCLI("", "query", "--engine", "sqlite", "--data", data, "--ids", q)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, mem, sql, q)
		assert.NotEmpty(t, mem, q)
	}
}
