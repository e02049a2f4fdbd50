package server

import (
	"errors"
	"reflect"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// Tables are the tables and columns that croql serve's own statements
// name besides the lists' resources (the files and labels lists,
// progress, the translations list's approvals and dates, a store's
// directory) and that the platform's writers name, found through the
// catalog's Go types and fields (store.RowsOf, mapping.CollectionOf):
// nothing that uses them spells a table or a column.
type Tables struct {
	Str   *store.Rows[schema.SourceString]
	File  *store.Rows[schema.File]
	Label *store.Rows[schema.Label]
	Tr    *store.Rows[schema.Translation]
	Sum   *store.Rows[schema.LanguageSummary]
	// The collections of a string and of a translation the statements
	// follow.
	StrLabels, StrTranslations, StrSummary, TrApprovals mapping.Collection
	// TrApprovalsShard is what ties a translation's approvals (alias a)
	// to it (alias t0) on one shard beside their link, on a sharded
	// engine (compile.CoShard), else "".
	TrApprovalsShard string

	StrText, StrFile, StrBranch, StrAdded, StrUpdated string
	FileName, FileTitle, FileType, FileContext        string
	LabelTitle, LabelSystem                           string
	SumLang, SumTranslated, SumApproved               string
	// TrAdded is "" for a mapping that does not store when a
	// translation was added.
	TrLang, TrAdded string
	// R are the tables of the lists of the project's other data (reads.go).
	R *readTables
}

// TablesOf finds the tables of m in dialect d.
func TablesOf(d compile.Dialect, m *mapping.Mapping) (*Tables, error) {
	t := &Tables{}
	var errs []error
	keep := func(err error) { errs = append(errs, err) }
	col := func(c string, err error) string { keep(err); return c }
	var err error
	t.Str, err = store.RowsOf[schema.SourceString](d, m)
	keep(err)
	t.File, err = store.RowsOf[schema.File](d, m)
	keep(err)
	t.Label, err = store.RowsOf[schema.Label](d, m)
	keep(err)
	t.Tr, err = store.RowsOf[schema.Translation](d, m)
	keep(err)
	t.Sum, err = store.RowsOf[schema.LanguageSummary](d, m)
	keep(err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	t.StrText = col(t.Str.Column(func(s *schema.SourceString) any { return &s.Text }))
	t.StrFile = col(t.Str.Column(func(s *schema.SourceString) any { return &s.File }))
	t.StrBranch = col(t.Str.Column(func(s *schema.SourceString) any { return &s.Branch }))
	t.StrAdded = col(t.Str.Column(func(s *schema.SourceString) any { return &s.Added }))
	t.StrUpdated = col(t.Str.Column(func(s *schema.SourceString) any { return &s.Updated }))
	t.FileName = col(t.File.Column(func(f *schema.File) any { return &f.Name }))
	t.FileTitle = col(t.File.Column(func(f *schema.File) any { return &f.Title }))
	t.FileType = col(t.File.Column(func(f *schema.File) any { return &f.Type }))
	t.FileContext = col(t.File.Column(func(f *schema.File) any { return &f.Context }))
	t.LabelTitle = col(t.Label.Column(func(l *schema.Label) any { return &l.Title }))
	t.LabelSystem = col(t.Label.Column(func(l *schema.Label) any { return &l.IsSystem }))
	t.SumLang = col(t.Sum.Column(func(e *schema.LanguageSummary) any { return &e.Language }))
	t.SumTranslated = col(t.Sum.Column(func(e *schema.LanguageSummary) any { return &e.IsTranslated }))
	t.SumApproved = col(t.Sum.Column(func(e *schema.LanguageSummary) any { return &e.IsApproved }))
	t.TrLang = col(t.Tr.Column(func(tr *schema.Translation) any { return &tr.Language }))
	// A mapping may not store when a translation was added: "".
	t.TrAdded, _ = t.Tr.Column(func(tr *schema.Translation) any { return &tr.Added })
	str, trT := reflect.TypeFor[schema.SourceString](), reflect.TypeFor[schema.Translation]()
	var ok [4]bool
	t.StrLabels, ok[0] = m.CollectionOf(str, reflect.TypeFor[schema.Label]())
	t.StrTranslations, ok[1] = m.CollectionOf(str, trT)
	t.StrSummary, ok[2] = m.CollectionOf(str, reflect.TypeFor[schema.LanguageSummary]())
	t.TrApprovals, ok[3] = m.CollectionOf(trT, reflect.TypeFor[schema.Approval]())
	if ok != [4]bool{true, true, true, true} || t.StrLabels.Child.Through == "" || t.StrTranslations.Child.Through == "" ||
		t.StrSummary.Child.FK == "" || t.TrApprovals.Child.FK == "" {
		keep(errors.New("server: the mapping does not keep a string's labels and translations in join tables and its languages summary and a translation's approvals by owner"))
	}
	t.TrApprovalsShard = compile.CoShard(d, m, "a", t.TrApprovals.Table, alias, t.Tr.Table())
	t.R, err = readTablesOf(d, m)
	keep(err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// tables are the server's tables of dialect d, found once.
func (s *Server) tables(d compile.Dialect) (*Tables, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tabs[d.Name()]; t != nil {
		return t, nil
	}
	t, err := TablesOf(d, s.mapping)
	if err != nil {
		return nil, err
	}
	if s.tabs == nil {
		s.tabs = map[string]*Tables{}
	}
	s.tabs[d.Name()] = t
	return t, nil
}
