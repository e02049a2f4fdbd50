package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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
	given, e := givenParams(ctxName, q, hasCroql)
	if e != nil {
		return f, e
	}
	for _, rule := range listRules[ctxName] {
		if v, ok := given[rule.name]; ok {
			if e := f.read(p, ctxName, rule.name, v, given); e != nil {
				return f, e
			}
		}
	}
	return f, nil
}

// givenParams are the platform parameters of q the list honours, by
// name; a parameter it refuses, one given twice, or one the platform does
// not allow beside croql is a 400.
func givenParams(ctxName string, q url.Values, hasCroql bool) (map[string]string, *httpError) {
	given := map[string]string{}
	for _, rule := range listRules[ctxName] {
		vs, ok := q[rule.name]
		if !ok {
			continue
		}
		if len(vs) > 1 {
			return nil, invalid(rule.name, "duplicate", rule.name+" is given more than once")
		}
		if rule.refuse != "" {
			return nil, invalid(rule.name, "notSupported", fmt.Sprintf("%s is not supported by croql serve: %s", rule.name, rule.refuse))
		}
		if hasCroql && !rule.withCroql {
			return nil, invalid(rule.name, "notAllowedWithCroql", fmt.Sprintf("%s cannot be used with croql in the same request (as on the platform): write it into the croql", rule.name))
		}
		given[rule.name] = vs[0]
	}
	// fileId, branchId and directoryId exclude each other (the platform's
	// "can't be used with" notes).
	if _, ok := given["fileId"]; ok {
		if _, ok := given["branchId"]; ok {
			return nil, invalid("branchId", "notAllowedWithFileId", "branchId cannot be used with fileId in the same request")
		}
	}
	return given, nil
}

// add adds the filter src of parameter name over the list's objects
// (strs false) or, for the translations list, over their strings.
func (f *listFilters) add(strs bool, name, src string) {
	list := &f.root
	if strs {
		list = &f.strs
	}
	*list = append(*list, filterParam{name, src})
}

// read reads parameter name of value v (given are all the parameters)
// into f as the CroQL it stands for.
func (f *listFilters) read(p *Project, ctxName, name, v string, given map[string]string) *httpError {
	overStrings := ctxName == croql.Translations
	switch name {
	case "denormalizePlaceholders", "approvedOnly", "passedWorkflow":
		// denormalizePlaceholders: the stored texts are the texts as
		// written (croql serve keeps no normalized placeholders): 0 and 1
		// answer the same.
		if v != "0" && v != "1" {
			return invalid(name, "notInArray", name+" must be 0 or 1")
		}
		if v == "1" && name == "approvedOnly" {
			f.add(false, name, "count of approvals > 0")
		} else if v == "1" && name == "passedWorkflow" {
			f.add(true, name, "isPassedWorkflow")
		}
	case "fileId", "branchId", "conceptId", "userId", "minApprovalCount":
		n, ok := digits(v)
		if !ok {
			return invalid(name, "notDigits", name+" must be an integer")
		}
		num := strconv.FormatInt(n, 10)
		switch name {
		case "fileId", "branchId":
			f.add(overStrings, name, "id of "+strings.TrimSuffix(name, "Id")+" = "+num)
		case "conceptId":
			f.add(false, name, "concept = "+num)
		case "userId":
			f.add(false, name, "user = "+num)
		case "minApprovalCount":
			f.add(false, name, "count of approvals >= "+num)
		}
	case "labelIds", "stringIds":
		ids, e := idList(name, v)
		if e != nil {
			return e
		}
		if name == "stringIds" {
			f.stringIDs = ids
			return nil
		}
		var or []string
		for _, id := range ids {
			or = append(or, "id = "+strconv.FormatInt(id, 10))
		}
		f.add(overStrings, name, "count of labels where ("+strings.Join(or, " or ")+") > 0")
	case "languageId":
		if !p.knowsLanguage(v) {
			return invalid(name, "notInArray", fmt.Sprintf("languageId %q is not a language of the project (%s)", v, strings.Join(p.Languages, ", ")))
		}
		f.add(false, name, "language = @language:"+quoteCroql(v))
	case "filter":
		return f.readFilter(v, given)
	case "scope":
		if _, ok := given["filter"]; !ok {
			return invalid("scope", "needsFilter", "scope names the fields filter searches; give filter too")
		}
	}
	return nil
}

// readFilter reads filter (a substring of the fields scope names).
func (f *listFilters) readFilter(v string, given map[string]string) *httpError {
	if v == "" {
		return nil
	}
	scopes := []string{"identifier", "text", "context"}
	if sc, ok := given["scope"]; ok && sc != "" {
		scopes = nil
		for _, x := range strings.Split(sc, ",") {
			switch x {
			case "identifier", "text", "context":
				scopes = append(scopes, x)
			default:
				return invalid("scope", "notInArray", fmt.Sprintf("scope: %q is not one of identifier, text, context", x))
			}
		}
	}
	var or []string
	for _, sc := range scopes {
		or = append(or, sc+" contains "+quoteCroql(v))
	}
	f.add(false, "filter", strings.Join(or, " or "))
	return nil
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

// listParams are the parameters of a list request.
type listParams struct {
	croql     string
	limit     int64
	offset    int64
	orderBy   []orderTerm
	withTotal bool
	// afterID, when keyset is set, is the afterId parameter: the page
	// starts after the object whose key field (keyField: id, or stringId
	// for translations) is afterID, in key order.
	afterID  int64
	keyset   bool
	keyField string
	// query is the query string of a GET (nil for a POST …/query body,
	// which takes only croql's own parameters): the platform's filter
	// parameters are read from it.
	query url.Values
}

type orderTerm struct {
	col  column
	desc bool
}

// params reads the list parameters from the query string (GET) or the
// JSON body (POST …/query), each read once. res, when not nil, is the
// resource orderBy names its fields.
func (s *Server) params(r *http.Request, res *resource, body bool) (listParams, *httpError) {
	var raw map[string]string
	var q url.Values
	var e *httpError
	if body {
		raw, e = s.bodyParams(r)
	} else {
		raw, q, e = queryParams(r)
	}
	if e != nil {
		return listParams{}, e
	}
	p := listParams{croql: raw["croql"], limit: DefaultLimit, query: q}
	if v, ok := raw["limit"]; ok {
		n, ok := digits(v)
		if !ok {
			return p, invalid("limit", "notDigits", fmt.Sprintf("limit must be an integer from 1 to %d", MaxLimit))
		}
		if n < 1 || n > MaxLimit {
			return p, invalid("limit", "notBetween", fmt.Sprintf("limit must be from 1 to %d", MaxLimit))
		}
		p.limit = n
	}
	if v, ok := raw["offset"]; ok {
		n, ok := digits(v)
		if !ok {
			return p, invalid("offset", "notDigits", "offset must be an integer, 0 or more")
		}
		p.offset = n
	}
	if v, ok := raw["withTotal"]; ok {
		switch v {
		case "true", "1":
			p.withTotal = true
		case "false", "0", "":
		default:
			return p, invalid("withTotal", "notBoolean", "withTotal must be true or false")
		}
	}
	if v := raw["orderBy"]; v != "" {
		if res == nil {
			return p, invalid("orderBy", "notSupported", "this list takes no orderBy")
		}
		terms, e := parseOrderBy(v, res)
		if e != nil {
			return p, e
		}
		p.orderBy = terms
	}
	if v, ok := raw["afterId"]; ok {
		return p, p.parseAfterID(v, res)
	}
	return p, nil
}

// queryParams reads the list parameters of a query string, and the
// query string.
func queryParams(r *http.Request) (map[string]string, url.Values, *httpError) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, nil, invalid("query", "malformed", "the query string is not URL-encoded correctly: "+err.Error())
	}
	raw := map[string]string{}
	for k, vs := range q {
		switch k {
		case "croql", "limit", "offset", "afterId", "orderBy", "withTotal":
			if len(vs) > 1 {
				return nil, nil, invalid(k, "duplicate", k+" is given more than once")
			}
			raw[k] = vs[0]
		}
	}
	return raw, q, nil
}

// bodyParams reads the list parameters of a POST …/query body: a JSON
// object of at most Config.MaxBody bytes.
func (s *Server) bodyParams(r *http.Request) (map[string]string, *httpError) {
	// The body is read as JSON whatever its Content-Type says: `curl -d`
	// sends application/x-www-form-urlencoded. A body that is no JSON
	// object is refused below.
	// Its memory is the body memory budget's while it is read and parsed.
	b, held, err := s.bodies.ReadAll(r.Context(), http.MaxBytesReader(nil, r.Body, s.cfg.MaxBody), r.ContentLength, s.cfg.MaxBody)
	defer s.bodies.Release(held)
	var tooLarge *http.MaxBytesError
	var full *BodyMemoryError
	switch {
	case errors.As(err, &full):
		return nil, &httpError{status: http.StatusServiceUnavailable, message: full.Error(), retryAfter: 1}
	case errors.Is(err, ErrBodyTooLarge), errors.As(err, &tooLarge):
		return nil, invalid("body", "tooLarge", fmt.Sprintf("the body is longer than %d bytes", s.cfg.MaxBody))
	case err != nil:
		return nil, invalid("body", "unreadable", "the body could not be read")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		return nil, invalid("body", "notJson", `the body must be a JSON object such as {"croql":"count of translations > 0","limit":25}`)
	}
	raw := map[string]string{}
	for k, v := range obj {
		switch k {
		case "croql", "orderBy":
			var str string
			if err := json.Unmarshal(v, &str); err != nil {
				return nil, invalid(k, "notString", k+" must be a JSON string")
			}
			raw[k] = str
		case "limit", "offset", "afterId":
			var n json.Number
			if err := json.Unmarshal(v, &n); err != nil || len(v) == 0 || v[0] == '"' {
				return nil, invalid(k, "notDigits", k+" must be a JSON number")
			}
			raw[k] = n.String()
		case "withTotal":
			var t bool
			if err := json.Unmarshal(v, &t); err != nil {
				return nil, invalid(k, "notBoolean", "withTotal must be true or false")
			}
			raw[k] = strconv.FormatBool(t)
		default:
			return nil, invalid(k, "unknownKey", fmt.Sprintf("%q is not a parameter: the body takes croql, limit, offset, afterId, orderBy and withTotal", k))
		}
	}
	return raw, nil
}

// parseAfterID reads the afterId parameter v (keyset paging): an id, with the
// list in its key order (no orderBy, or orderBy of the key field
// ascending) and no offset.
func (p *listParams) parseAfterID(v string, res *resource) *httpError {
	n, ok := digits(v)
	if !ok {
		return invalid("afterId", "notDigits", "afterId must be an integer, 0 or more")
	}
	if res == nil {
		return invalid("afterId", "notSupported", "this list takes no afterId")
	}
	p.keyField = "id"
	if _, ok := res.column("id"); !ok {
		p.keyField = "stringId"
	}
	if p.offset > 0 {
		return invalid("afterId", "notWithOffset", "afterId and offset cannot be combined: afterId starts the page after that id, offset must be 0")
	}
	for _, t := range p.orderBy {
		if t.col.json != p.keyField || t.desc {
			return invalid("afterId", "notWithOrderBy", fmt.Sprintf("afterId pages in %s order: orderBy must be empty or %q", p.keyField, p.keyField))
		}
	}
	p.afterID, p.keyset = n, true
	return nil
}

// digits parses a non-negative decimal integer of ASCII digits only.
func digits(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// parseOrderBy reads the platform's orderBy form: `field [asc|desc]`,
// comma-separated, over the scalar fields of the response.
func parseOrderBy(v string, res *resource) ([]orderTerm, *httpError) {
	var out []orderTerm
	parts := strings.Split(v, ",")
	if len(parts) > 8 {
		return nil, invalid("orderBy", "tooLong", "orderBy takes at most 8 fields")
	}
	for _, part := range parts {
		f := strings.Fields(part)
		if len(f) == 0 || len(f) > 2 {
			return nil, invalid("orderBy", "invalidOrderBy", "orderBy is a comma-separated list of `field` or `field asc|desc`")
		}
		c, ok := res.column(f[0])
		if !ok {
			return nil, invalid("orderBy", "notInArray", fmt.Sprintf("orderBy: %q is not a field of this list (one of %s)", f[0], strings.Join(res.orderable(), ", ")))
		}
		t := orderTerm{col: c}
		if len(f) == 2 {
			switch strings.ToLower(f[1]) {
			case "asc":
			case "desc":
				t.desc = true
			default:
				return nil, invalid("orderBy", "invalidOrderBy", fmt.Sprintf("orderBy: %q is neither asc nor desc", f[1]))
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// pathID reads a positive integer path value.
func pathID(r *http.Request, name string) (int64, bool) {
	raw := r.PathValue(name)
	n, err := strconv.ParseInt(raw, 10, 64)
	return n, err == nil && n > 0 && strconv.FormatInt(n, 10) == raw
}

// only refuses every query parameter of a single-object GET except
// allowed (the platform's documented ones), and checks the 0/1 ones.
func only(r *http.Request, allowed ...string) *httpError {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return invalid("query", "malformed", "the query string is not URL-encoded correctly: "+err.Error())
	}
	for _, k := range allowed {
		if vs, ok := q[k]; ok && (len(vs) != 1 || vs[0] != "0" && vs[0] != "1") {
			return invalid(k, "notInArray", k+" must be 0 or 1")
		}
	}
	return nil
}
