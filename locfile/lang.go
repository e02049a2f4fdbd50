package locfile

import (
	"path"
	"strings"
)

// iso639 are the ISO 639-1 language codes, and the few three-letter codes
// translation files use.
var iso639 = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy
da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu
ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn
no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti
tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu fil haw yue ast ckb kab sah gsw`) {
		m[c] = true
	}
	return m
}()

func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// LanguageCode reads s as a language code, "de", "pt-BR", "pt_BR",
// "zh-Hans" or "sr-Latn-RS", and returns it in BCP 47 form (language in
// lower case, "-" between subtags, region in upper case, script in title
// case).
func LanguageCode(s string) (string, bool) {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) == 0 || len(parts) > 3 || strings.Count(s, "-")+strings.Count(s, "_") != len(parts)-1 {
		return "", false
	}
	lang := strings.ToLower(parts[0])
	if !iso639[lang] {
		return "", false
	}
	out := []string{lang}
	for _, p := range parts[1:] {
		switch {
		case len(p) == 2 && isAlpha(p):
			out = append(out, strings.ToUpper(p))
		case len(p) == 3 && isDigits(p):
			out = append(out, p)
		case len(p) == 4 && isAlpha(p):
			out = append(out, strings.ToUpper(p[:1])+strings.ToLower(p[1:]))
		default:
			return "", false
		}
	}
	return strings.Join(out, "-"), true
}

// PathLanguage finds the language a translation file's path names, and
// the file's resource: the path with the language replaced by {lang}, the
// same for every language's file of one resource. It knows these
// layouts, the file name first and then its directories inside out:
//
//	de.json, de.po, pt_BR.arb                the file name is the code
//	app_de.arb, messages.de.xlf, strings-de.json   the name ends in _, . or - and the code
//	de.lproj/Localizable.strings             Xcode (Base.lproj is the source: no language)
//	values-de/strings.xml, values-pt-rBR/…   Android (values/ is the source: no language)
//	locales/de/common.json, de/LC_MESSAGES/app.po  a directory is the code
//
// It returns "" when the path names no language.
func PathLanguage(name string) (code, resource string) {
	name = path.Clean(strings.ReplaceAll(name, `\`, "/"))
	dir, base := path.Split(name)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if c, ok := LanguageCode(stem); ok {
		return c, dir + "{lang}" + ext
	}
	for _, sep := range []byte{'_', '.', '-'} {
		i := strings.IndexByte(stem, sep)
		for i >= 0 {
			if c, ok := LanguageCode(stem[i+1:]); ok && i > 0 {
				return c, dir + stem[:i+1] + "{lang}" + ext
			}
			j := strings.IndexByte(stem[i+1:], sep)
			if j < 0 {
				break
			}
			i += j + 1
		}
	}
	segs := strings.Split(strings.TrimSuffix(dir, "/"), "/")
	for i := len(segs) - 1; i >= 0; i-- {
		seg := segs[i]
		with := func(r string) string {
			s := append(append(append([]string{}, segs[:i]...), r), segs[i+1:]...)
			return strings.Join(s, "/") + "/" + base
		}
		switch {
		case strings.HasSuffix(seg, ".lproj"):
			l := strings.TrimSuffix(seg, ".lproj")
			if c, ok := LanguageCode(l); ok {
				return c, with("{lang}.lproj")
			}
			return "", with("{lang}.lproj")
		case seg == "values":
			return "", with("values")
		case strings.HasPrefix(seg, "values-"):
			if c, ok := androidQualifier(seg[len("values-"):]); ok {
				return c, with("values")
			}
		default:
			if c, ok := LanguageCode(seg); ok {
				return c, with("{lang}")
			}
		}
	}
	return "", name
}

// androidQualifier reads the language of an Android resource qualifier:
// de, pt-rBR, b+sr+Latn.
func androidQualifier(q string) (string, bool) {
	if strings.HasPrefix(q, "b+") {
		return LanguageCode(strings.ReplaceAll(q[2:], "+", "-"))
	}
	parts := strings.Split(q, "-")
	if len(parts) >= 2 && len(parts[1]) == 3 && parts[1][0] == 'r' {
		return LanguageCode(parts[0] + "-" + parts[1][1:])
	}
	return LanguageCode(parts[0])
}
