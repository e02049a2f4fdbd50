package server

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/schema"
)

// The platform's documented list parameters (its API reference, as the
// official clients send them: ListProjectStringsOptions,
// ListLanguageTranslationsOptions, ListTermsOptions, ListSegmentsOptions).
// Each is honoured, written as the CroQL filter it means and compiled like
// the croql parameter, or refused with a 400 under its own name. Where
// the platform documents that croql cannot be combined with a parameter,
// the pair is a 400 too. Parameters the platform does not know stay
// ignored, as the platform ignores them.

// filterParam is one honoured parameter: its name and the CroQL it
// stands for, in the list's context (root) or, for the translations list,
// over the strings the translations belong to (strs).
type filterParam struct {
	name string
	src  string
}

// listFilters are the filters of a list's platform parameters.
type listFilters struct {
	root []filterParam
	strs []filterParam
	// stringIDs (translations' stringIds: CroQL has no string id field)
	// keep the translations of these strings.
	stringIDs []int64
}

// paramRule says how a list treats one platform parameter.
type paramRule struct {
	name string
	// withCroql: the platform allows it beside croql.
	withCroql bool
	// refuse, when set, is why croql serve cannot honour it (a 400).
	refuse string
}

var listRules = map[string][]paramRule{
	croql.Strings: {
		{name: "denormalizePlaceholders", withCroql: true},
		{name: "labelIds"}, {name: "fileId"}, {name: "branchId"},
		{name: "directoryId", refuse: "the data has no directories (no string is in one)"},
		{name: "taskId", refuse: "the data has no tasks"},
		{name: "filter"}, {name: "scope"},
	},
	croql.Translations: {
		{name: "stringIds"}, {name: "labelIds"}, {name: "fileId"},
		{name: "branchId", withCroql: true},
		{name: "directoryId", withCroql: true, refuse: "the data has no directories (no string is in one)"},
		{name: "approvedOnly"},
		{name: "passedWorkflow", withCroql: true},
		{name: "minApprovalCount", withCroql: true},
		{name: "denormalizePlaceholders", withCroql: true},
	},
	croql.Glossary: {
		{name: "userId"}, {name: "languageId"}, {name: "conceptId"},
		{name: "translationOfTermId", refuse: "it is deprecated on the platform; use conceptId (the terms of one concept are its translations)"},
	},
	croql.TM: {},
}

// filters reads the platform parameters of a list request (q is the
// query string; nil for a POST …/query body, which takes only croql's
// own parameters).
func filters(p *Project, ctxName string, q url.Values, hasCroql bool) (listFilters, *httpError) {
	var f listFilters
	if q == nil {
		return f, nil
	}
	get := func(name string) (string, bool, *httpError) {
		vs, ok := q[name]
		if !ok {
			return "", false, nil
		}
		if len(vs) > 1 {
			return "", false, invalid(name, "duplicate", name+" is given more than once")
		}
		return vs[0], true, nil
	}
	given := map[string]string{}
	for _, rule := range listRules[ctxName] {
		v, ok, e := get(rule.name)
		if e != nil {
			return f, e
		}
		if !ok {
			continue
		}
		if rule.refuse != "" {
			return f, invalid(rule.name, "notSupported", fmt.Sprintf("%s is not supported by croql serve: %s", rule.name, rule.refuse))
		}
		if hasCroql && !rule.withCroql {
			return f, invalid(rule.name, "notAllowedWithCroql", fmt.Sprintf("%s cannot be used with croql in the same request (as on the platform): write it into the croql", rule.name))
		}
		given[rule.name] = v
	}
	// fileId, branchId and directoryId exclude each other (the platform's
	// "can't be used with" notes).
	if _, ok := given["fileId"]; ok {
		if _, ok := given["branchId"]; ok {
			return f, invalid("branchId", "notAllowedWithFileId", "branchId cannot be used with fileId in the same request")
		}
	}
	add := func(list *[]filterParam, name, src string) { *list = append(*list, filterParam{name, src}) }
	for _, rule := range listRules[ctxName] {
		v, ok := given[rule.name]
		if !ok {
			continue
		}
		switch rule.name {
		case "denormalizePlaceholders":
			// The stored texts are the texts as written (croql serve
			// keeps no normalized placeholders): 0 and 1 answer the same.
			if v != "0" && v != "1" {
				return f, invalid(rule.name, "notInArray", rule.name+" must be 0 or 1")
			}
		case "fileId", "branchId", "conceptId", "userId", "minApprovalCount":
			n, ok := digits(v)
			if !ok {
				return f, invalid(rule.name, "notDigits", rule.name+" must be an integer")
			}
			switch rule.name {
			case "fileId", "branchId":
				field := strings.TrimSuffix(rule.name, "Id")
				src := "id of " + field + " = " + strconv.FormatInt(n, 10)
				if ctxName == croql.Translations {
					add(&f.strs, rule.name, src)
				} else {
					add(&f.root, rule.name, src)
				}
			case "conceptId":
				add(&f.root, rule.name, "concept = "+strconv.FormatInt(n, 10))
			case "userId":
				add(&f.root, rule.name, "user = "+strconv.FormatInt(n, 10))
			case "minApprovalCount":
				add(&f.root, rule.name, "count of approvals >= "+strconv.FormatInt(n, 10))
			}
		case "labelIds", "stringIds":
			ids, e := idList(rule.name, v)
			if e != nil {
				return f, e
			}
			if rule.name == "stringIds" {
				f.stringIDs = ids
				continue
			}
			var or []string
			for _, id := range ids {
				or = append(or, "id = "+strconv.FormatInt(id, 10))
			}
			list := &f.strs
			if ctxName == croql.Strings {
				list = &f.root
			}
			add(list, rule.name, "count of labels where ("+strings.Join(or, " or ")+") > 0")
		case "approvedOnly", "passedWorkflow":
			if v != "0" && v != "1" {
				return f, invalid(rule.name, "notInArray", rule.name+" must be 0 or 1")
			}
			if v == "1" && rule.name == "approvedOnly" {
				add(&f.root, rule.name, "count of approvals > 0")
			} else if v == "1" {
				add(&f.strs, rule.name, "isPassedWorkflow")
			}
		case "languageId":
			if !p.knowsLanguage(v) {
				return f, invalid(rule.name, "notInArray", fmt.Sprintf("languageId %q is not a language of the project (%s)", v, strings.Join(p.Languages, ", ")))
			}
			add(&f.root, rule.name, "language = @language:"+quoteCroql(v))
		case "filter":
			if v == "" {
				continue
			}
			scopes := []string{"identifier", "text", "context"}
			if sc, ok := given["scope"]; ok && sc != "" {
				scopes = nil
				for _, x := range strings.Split(sc, ",") {
					switch x {
					case "identifier", "text", "context":
						scopes = append(scopes, x)
					default:
						return f, invalid("scope", "notInArray", fmt.Sprintf("scope: %q is not one of identifier, text, context", x))
					}
				}
			}
			var or []string
			for _, sc := range scopes {
				or = append(or, sc+" contains "+quoteCroql(v))
			}
			add(&f.root, rule.name, strings.Join(or, " or "))
		case "scope":
			if _, ok := given["filter"]; !ok {
				return f, invalid("scope", "needsFilter", "scope names the fields filter searches; give filter too")
			}
		}
	}
	return f, nil
}

// idList reads a comma-separated list of ids (at most MaxLimit).
func idList(name, v string) ([]int64, *httpError) {
	parts := strings.Split(v, ",")
	if len(parts) > MaxLimit {
		return nil, invalid(name, "tooLong", fmt.Sprintf("%s takes at most %d ids", name, MaxLimit))
	}
	out := make([]int64, 0, len(parts))
	for _, s := range parts {
		n, ok := digits(strings.TrimSpace(s))
		if !ok {
			return nil, invalid(name, "notDigits", name+" is a comma-separated list of integer ids (1,2,3)")
		}
		out = append(out, n)
	}
	return out, nil
}

// quoteCroql writes s as a CroQL string literal.
func quoteCroql(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// knowsLanguage reports whether code is one of the project's languages.
func (p *Project) knowsLanguage(code string) bool {
	for _, c := range p.Languages {
		if c == code {
			return true
		}
	}
	_, ok := p.LanguageInfo[code]
	return ok
}

// compileParams compiles the filters of params in context ctxName for
// purpose; the parameters of the SQL are numbered after base
// (PostgreSQL's $n). A filter the project's data cannot take is a 400
// under its parameter.
func (s *Server) compileParams(p *Project, ctxName string, params []filterParam, base int, purpose compile.Purpose) ([]string, []any, *httpError) {
	if len(params) == 0 {
		return nil, nil, nil
	}
	env, err := s.paramEnv(p, ctxName)
	if err != nil {
		return nil, nil, &httpError{status: 500, message: "Internal Server Error"}
	}
	var where []string
	var args []any
	for _, fp := range params {
		c, diags := env.SQLFor(fp.src, p.Dialect(), s.mapping, purpose)
		if c == nil {
			msg := fp.src
			if err := diags.Err(); err != nil {
				msg = err.Error()
			}
			return nil, nil, invalid(fp.name, "invalid", fmt.Sprintf("%s cannot be applied: %s", fp.name, msg))
		}
		where = append(where, "("+shiftParams(p.Dialect(), c.Where, base+len(args))+")")
		args = append(args, c.Args...)
	}
	return where, args, nil
}

// paramEnv is the environment the parameters' filters are checked in:
// the project's, in the enterprise edition (passedWorkflow reads an
// enterprise field; the filter is croql serve's, not the caller's).
func (s *Server) paramEnv(p *Project, ctxName string) (*croql.Env, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := envKey{project: p.ID, context: "params:" + ctxName}
	if e := s.envs[k]; e != nil {
		return e, nil
	}
	opts := []croql.Option{croql.WithEdition(schema.Enterprise), croql.WithUserIDs(p.Users),
		croql.WithClock(s.cfg.Now), croql.WithLocation(s.cfg.Location), croql.WithMaxCost(-1)}
	langs := append([]string{}, p.Languages...)
	for c := range p.LanguageInfo {
		if !p.knowsLanguageList(c) {
			langs = append(langs, c)
		}
	}
	if len(langs) > 0 {
		opts = append(opts, croql.WithLanguages(langs...))
	}
	e, err := croql.NewEnv(ctxName, opts...)
	if err != nil {
		return nil, err
	}
	s.envs[k] = e
	return e, nil
}

func (p *Project) knowsLanguageList(code string) bool {
	for _, c := range p.Languages {
		if c == code {
			return true
		}
	}
	return false
}

var pgParam = regexp.MustCompile(`\$([0-9]+)::`)

// shiftParams renumbers the parameters of a compiled WHERE clause by base
// where the dialect numbers them (PostgreSQL's $1::type); placeholders
// that are not numbered (?) stay as they are.
func shiftParams(d compile.Dialect, where string, base int) string {
	if d.Placeholder(1) == d.Placeholder(2) || base == 0 {
		return where
	}
	return pgParam.ReplaceAllStringFunc(where, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-2])
		return "$" + strconv.Itoa(n+base) + "::"
	})
}
