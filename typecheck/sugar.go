package typecheck

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
)

// Sugar is what people write that the platform rejects but whose meaning
// is plain (docs/language.md, "Sugar"). Each form stays an error, and its
// diagnostic carries a fix marked diag.Fix.Sugar that writes the
// platform's CroQL. The parser finds in-lists and null tests; the checker
// finds the forms below: API names, relative dates and bare text.

// apiNames maps the platform API's field names (by schema.NormalKey), per
// object, to the CroQL that reads the same field. The names that are a
// member written as one word (fileId: `id of file`) are found without the
// table (checker.unknown). An empty text is an API name with no CroQL
// field in that context; note says why.
var apiNames = map[string]map[string]apiName{
	"source string": {
		"createdat":  {text: "added"},
		"updatedat":  {text: "updated"},
		"stringid":   {note: "CroQL has no string id: select strings by `identifier = \"...\"`, by `id of file = N` or by text"},
		"languageid": {note: "a string has translations in many languages: test them with, for example, `count of translations where (language = @language:\"de\") > 0`"},
		"projectid":  {note: "the project is in the endpoint's path (/projects/{projectId}/strings); the query does not name it"},
	},
	"translation (translations context)": {
		"languageid": {note: "the translations endpoint takes the language in its path (/languages/{languageId}/translations); the query does not name it"},
		"projectid":  {note: "the project is in the endpoint's path (/projects/{projectId}/...); the query does not name it"},
		"stringid":   {note: "a translation's string is not a field of the translations context; query the strings context with `count of translations where (...) > 0`"},
	},
	"glossary term": {
		"termid":     {text: "id"},
		"languageid": {text: "language"},
		"conceptid":  {text: "concept"},
	},
	"glossary concept": {
		"conceptid": {text: "id"},
	},
}

type apiName struct {
	text string
	note string
}

// apiNameDiag returns the diagnostic of an API name in one of scopes.
func (c *checker) apiNameDiag(n *ast.Ident, scopes []*schema.Object, d diag.Diagnostic) (diag.Diagnostic, bool) {
	key := schema.NormalKey(n.Name)
	for i := len(scopes) - 1; i >= 0; i-- {
		a, ok := apiNames[scopes[i].Name][key]
		if !ok {
			continue
		}
		if a.text == "" {
			d.Message = fmt.Sprintf("`%s` is a name of the platform API, not a field of %s", n.Name, article(scopes[i].Name))
			return d.WithHint("%s", a.note), true
		}
		if _, ok := scopes[i].Field(a.text); !ok {
			continue
		}
		d.Message = fmt.Sprintf("`%s` is the platform API's name; in CroQL it is `%s`", n.Name, a.text)
		return d.WithSugarFix(n.Sp, a.text), true
	}
	return d, false
}

// boolTerm returns the expression that the identifier on top of the
// checker's path stands in as a condition: the largest expression holding
// it that is an operand of and, or, xor, not, if or where (a comparison, a
// between, the name itself when it is a bool), or the whole query.
func (c *checker) boolTerm() ast.Expr {
	if len(c.path) == 0 {
		return nil
	}
	t := c.path[len(c.path)-1]
	for i := len(c.path) - 2; i >= 0; i-- {
		switch a := c.path[i].(type) {
		case *ast.Binary:
			if a.Op.IsLogical() {
				return t
			}
		case *ast.Unary:
			if a.Op == ast.OpNot {
				return t
			}
		case *ast.If:
			return t
		case *ast.Filter:
			if a.Pred == t {
				return t
			}
		}
		t = c.path[i]
	}
	return t
}

// bareText is the fix of a string literal written where a condition goes:
// the string's text or identifier contains it (in the strings context; the
// text alone where the object has no identifier). ok is false where the
// object has no text.
func (c *checker) bareText(lit string) (string, bool) {
	o := c.scopes[len(c.scopes)-1]
	if _, ok := o.Field("text"); !ok {
		return "", false
	}
	if _, ok := o.Field("identifier"); !ok {
		return "text contains " + lit, true
	}
	return "(text contains " + lit + " or identifier contains " + lit + ")", true
}

// maxRelative bounds the number of a relative date ('today - N days').
const maxRelative = 1_000_000

// relativeDate reads a relative date: `today`, `yesterday`, `tomorrow` or
// `now`, optionally followed by `+` or `-`, a number and a unit; `N units
// ago`; or JQL's `-Nd`. Units are minutes, hours, days, weeks, months and
// years (singular or plural), or JQL's letters d, w, h, m (days, weeks,
// hours, minutes). Spaces between the parts are optional.
// today, yesterday and tomorrow are midnights in loc; now, `ago` and the
// JQL form count from the clock's instant, to the second. Days, weeks,
// months and years are calendar steps (time.AddDate: Jan 31 + 1 month is
// Mar 2 or 3), hours and minutes are durations. ok is false for any other
// text, and for a result outside years 1 to 9999.
func relativeDate(text string, now time.Time, loc *time.Location) (time.Time, bool) {
	now = now.In(loc).Truncate(time.Second)
	y, m, d := now.Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, loc)
	toks := relativeTokens(strings.ToLower(text))
	var base time.Time
	switch {
	case len(toks) == 0:
		return time.Time{}, false
	case toks[0] == "today":
		base = today
	case toks[0] == "yesterday":
		base = today.AddDate(0, 0, -1)
	case toks[0] == "tomorrow":
		base = today.AddDate(0, 0, 1)
	case toks[0] == "now":
		base = now
	case len(toks) == 3 && toks[2] == "ago":
		return shift(now, -1, toks[0], toks[1])
	case len(toks) == 3 && (toks[0] == "-" || toks[0] == "+"):
		sign := 1
		if toks[0] == "-" {
			sign = -1
		}
		return shift(now, sign, toks[1], toks[2])
	default:
		return time.Time{}, false
	}
	switch len(toks) {
	case 1:
		return base, toks[0] != "today" // 'today' is CroQL
	case 4:
		sign := 1
		switch toks[1] {
		case "-":
			sign = -1
		case "+":
		default:
			return time.Time{}, false
		}
		return shift(base, sign, toks[2], toks[3])
	}
	return time.Time{}, false
}

// relativeTokens splits a relative date into words, numbers and signs,
// with or without spaces between them: "today-7days" is today, -, 7, days.
// It returns nil for any other character.
func relativeTokens(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		j := i + 1
		switch {
		case c == ' ' || c == '\t':
			i = j
			continue
		case c == '-' || c == '+':
		case c >= '0' && c <= '9':
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
		case c >= 'a' && c <= 'z':
			for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
				j++
			}
		default:
			return nil
		}
		toks = append(toks, s[i:j])
		i = j
	}
	return toks
}

// shift moves t by sign × n units (a unit's name, or JQL's letter).
func shift(t time.Time, sign int, n, unit string) (time.Time, bool) {
	k, err := strconv.Atoi(n)
	if err != nil || k < 0 || k > maxRelative {
		return time.Time{}, false
	}
	k *= sign
	switch unit {
	case "d":
		unit = "days"
	case "w":
		unit = "weeks"
	case "h":
		unit = "hours"
	case "m":
		unit = "minutes"
	}
	unit = strings.TrimSuffix(unit, "s")
	var out time.Time
	switch unit {
	case "minute", "min":
		out = t.Add(time.Duration(k) * time.Minute)
	case "hour":
		out = t.Add(time.Duration(k) * time.Hour)
	case "day":
		out = t.AddDate(0, 0, k)
	case "week":
		out = t.AddDate(0, 0, 7*k)
	case "month":
		out = t.AddDate(0, k, 0)
	case "year":
		out = t.AddDate(k, 0, 0)
	default:
		return time.Time{}, false
	}
	if out.Year() < 1 || out.Year() > 9999 {
		return time.Time{}, false
	}
	return out, true
}

// datetimeLiteral writes t as a CroQL datetime literal in its own zone:
// 'YYYY-MM-DD' at midnight, else 'YYYY-MM-DD HH:MM:SS'.
func datetimeLiteral(t time.Time) string {
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
		return "'" + t.Format("2006-01-02") + "'"
	}
	return "'" + t.Format("2006-01-02 15:04:05") + "'"
}

// relativeDateDiag is the diagnostic of a datetime literal that does not
// parse, with the fix of a relative date when it is one.
func (c *checker) relativeDateDiag(n *ast.Datetime) diag.Diagnostic {
	d := c.errorf(RuleBadDatetime, n.Sp, "'%s' is not a datetime", n.Text).
		WithHint("write 'today', 'YYYY-MM-DD HH:MM:SS', 'YYYY-MM-DD' or RFC 3339 such as '2024-01-01T00:00:00Z'; strings take double quotes")
	now := c.cfg.Now()
	t, ok := relativeDate(n.Text, now, c.cfg.Location)
	if !ok {
		return d
	}
	lit := datetimeLiteral(t)
	d.Message = fmt.Sprintf("'%s' is a relative date, which the platform does not read: with the clock at %s %s it is %s",
		n.Text, now.In(c.cfg.Location).Format("2006-01-02 15:04:05"), c.cfg.Location, lit)
	d.Hint = "the fix writes the date the clock gives now: the query does not move with the clock"
	return d.WithSugarFix(n.Sp, lit)
}
