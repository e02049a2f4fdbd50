package server

import (
	"errors"
	"reflect"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// tables are the tables and columns the server's own reads name besides
// the lists' resources (the files and labels lists, progress, the
// translations list's approvals and dates, a store's directory), found
// once per dialect through the catalog's Go types and fields
// (store.RowsOf, mapping.CollectionOf): nothing here spells a table or a
// column.
type tables struct {
	str   *store.Rows[schema.SourceString]
	file  *store.Rows[schema.File]
	label *store.Rows[schema.Label]
	tr    *store.Rows[schema.Translation]
	sum   *store.Rows[schema.LanguageSummary]
	// The collections of a string and of a translation the reads follow.
	strLabels, strSummary, trApprovals mapping.Collection

	strText, strFile, strBranch, strAdded, strUpdated string
	fileName, fileTitle, fileType, fileContext        string
	labelTitle, labelSystem                           string
	sumLang, sumTranslated, sumApproved               string
	trLang, trAdded                                   string
}

// newTables finds the tables of d over m.
func newTables(d compile.Dialect, m *mapping.Mapping) (*tables, error) {
	t := &tables{}
	var errs []error
	keep := func(err error) { errs = append(errs, err) }
	col := func(c string, err error) string { keep(err); return c }
	var err error
	t.str, err = store.RowsOf[schema.SourceString](d, m)
	keep(err)
	t.file, err = store.RowsOf[schema.File](d, m)
	keep(err)
	t.label, err = store.RowsOf[schema.Label](d, m)
	keep(err)
	t.tr, err = store.RowsOf[schema.Translation](d, m)
	keep(err)
	t.sum, err = store.RowsOf[schema.LanguageSummary](d, m)
	keep(err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	t.strText = col(t.str.Column(func(s *schema.SourceString) any { return &s.Text }))
	t.strFile = col(t.str.Column(func(s *schema.SourceString) any { return &s.File }))
	t.strBranch = col(t.str.Column(func(s *schema.SourceString) any { return &s.Branch }))
	t.strAdded = col(t.str.Column(func(s *schema.SourceString) any { return &s.Added }))
	t.strUpdated = col(t.str.Column(func(s *schema.SourceString) any { return &s.Updated }))
	t.fileName = col(t.file.Column(func(f *schema.File) any { return &f.Name }))
	t.fileTitle = col(t.file.Column(func(f *schema.File) any { return &f.Title }))
	t.fileType = col(t.file.Column(func(f *schema.File) any { return &f.Type }))
	t.fileContext = col(t.file.Column(func(f *schema.File) any { return &f.Context }))
	t.labelTitle = col(t.label.Column(func(l *schema.Label) any { return &l.Title }))
	t.labelSystem = col(t.label.Column(func(l *schema.Label) any { return &l.IsSystem }))
	t.sumLang = col(t.sum.Column(func(e *schema.LanguageSummary) any { return &e.Language }))
	t.sumTranslated = col(t.sum.Column(func(e *schema.LanguageSummary) any { return &e.IsTranslated }))
	t.sumApproved = col(t.sum.Column(func(e *schema.LanguageSummary) any { return &e.IsApproved }))
	t.trLang = col(t.tr.Column(func(tr *schema.Translation) any { return &tr.Language }))
	// A mapping may not store when a translation was added: "".
	t.trAdded, _ = t.tr.Column(func(tr *schema.Translation) any { return &tr.Added })
	str, trT := reflect.TypeFor[schema.SourceString](), reflect.TypeFor[schema.Translation]()
	var ok [3]bool
	t.strLabels, ok[0] = m.CollectionOf(str, reflect.TypeFor[schema.Label]())
	t.strSummary, ok[1] = m.CollectionOf(str, reflect.TypeFor[schema.LanguageSummary]())
	t.trApprovals, ok[2] = m.CollectionOf(trT, reflect.TypeFor[schema.Approval]())
	if !ok[0] || !ok[1] || !ok[2] || t.strLabels.Child.Through == "" || t.strSummary.Child.FK == "" || t.trApprovals.Child.FK == "" {
		keep(errors.New("server: the mapping does not keep a string's labels in a join table and its languages summary and a translation's approvals by owner"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// tables are the server's tables of dialect d, found once.
func (s *Server) tables(d compile.Dialect) (*tables, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tabs[d.Name()]; t != nil {
		return t, nil
	}
	t, err := newTables(d, s.mapping)
	if err != nil {
		return nil, err
	}
	if s.tabs == nil {
		s.tabs = map[string]*tables{}
	}
	s.tabs[d.Name()] = t
	return t, nil
}
