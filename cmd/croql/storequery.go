package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// loadedStore is a store `croql load` wrote, opened where it is, with the
// environment options its users give the checker.
type loadedStore struct {
	db *store.DB
	m  *mapping.Mapping
}

// openLoaded opens the store at dsn (engineName "memory" or "": the
// engine the DSN names; another must match it).
func openLoaded(ctx context.Context, engineName, dsn string) (*loadedStore, []croql.Option, error) {
	if engineName == "memory" {
		engineName = ""
	}
	db, err := store.OpenLoaded(ctx, engineName, dsn)
	if err != nil {
		return nil, nil, failure(err)
	}
	m := mapping.Default(schema.New())
	users, err := store.ReadUsers(ctx, db.SQL, db.Dialect, m)
	if err != nil {
		_ = db.Close()
		return nil, nil, failure(fmt.Errorf("reading the store's users: %w", err))
	}
	ids := make(map[string]int64, len(users))
	for _, u := range users {
		ids[u.Login] = u.ID
	}
	return &loadedStore{db: db, m: m}, []croql.Option{croql.WithUserIDs(ids)}, nil
}

// run checks src in env and runs it on the store: the ids of the matches
// in ascending order, or a diagnostic printed (errHasErrors).
func (ls *loadedStore) run(ctx context.Context, c *cli, env *croql.Env, name, src string) ([]int64, error) {
	checked, diags := env.Check(src)
	printDiags(c.stderr, name, src, diags)
	if diags.HasErrors() {
		return nil, errHasErrors
	}
	ids, err := store.Run(ctx, ls.db.SQL, ls.db.Dialect, ls.m, checked)
	if sp, ok := diag.SpanOf(err); ok {
		printDiags(c.stderr, name, src, diag.List{diag.Errorf(diag.ClassLogic, croql.RuleSQL, sp, "%v", err)})
		return nil, errHasErrors
	}
	if err != nil {
		return nil, failure(err)
	}
	return ids, nil
}

// objects reads the objects of ids back from the store, in ids' order.
func (ls *loadedStore) objects(ctx context.Context, env *croql.Env, ids []int64) ([]any, error) {
	objs, err := store.ReadObjects(ctx, ls.db.SQL, ls.db.Dialect, ls.m, env.Context(), ids, func(*schema.Object, *schema.Field) bool { return true })
	if err != nil {
		return nil, failure(fmt.Errorf("reading the matches back: %w", err))
	}
	return objs, nil
}

// queryStore runs src on the store `croql load` wrote at dsn, where it is:
// the query compiled to the engine's SQL, the matches read back from the
// store (store.ReadObjects) unless only their ids are asked for. It
// reports whether an object matched.
func (c *cli) queryStore(ctx context.Context, name, src, ctxName, language, engineName, dsn string, how queryOutput, opts []croql.Option) (bool, error) {
	ls, storeOpts, err := openLoaded(ctx, engineName, dsn)
	if err != nil {
		return false, err
	}
	defer ls.db.Close()
	env, err := croql.NewEnv(ctxName, append(opts, storeOpts...)...)
	if err != nil {
		return false, usageErrorf("%w", err)
	}
	ids, err := ls.run(ctx, c, env, name, src)
	if err != nil {
		return false, err
	}
	out := bufio.NewWriterSize(c.stdout, 64<<10)
	if how.ids && language == "" {
		for _, id := range ids {
			if _, err := out.WriteString(strconv.FormatInt(id, 10) + "\n"); err != nil {
				return false, failure(fmt.Errorf("writing: %w", err))
			}
		}
		return len(ids) > 0, flush(out)
	}
	objs, err := ls.objects(ctx, env, ids)
	if err != nil {
		return false, err
	}
	write := how.writer(out)
	n := 0
	for _, o := range objs {
		if language != "" && !ofLanguage(o, language) {
			continue
		}
		n++
		if err := write(o); err != nil {
			return false, failure(fmt.Errorf("writing: %w", err))
		}
	}
	return n > 0, flush(out)
}

// diffStore is croql diff on the store `croql load` wrote at dsn: both
// queries checked (every diagnostic printed) before either runs there,
// the objects either matches read back.
func (c *cli) diffStore(ctx context.Context, ctxName, language, engineName, dsn, format string, srcs [2]string, opts []croql.Option) error {
	ls, storeOpts, err := openLoaded(ctx, engineName, dsn)
	if err != nil {
		return err
	}
	defer ls.db.Close()
	env, err := croql.NewEnv(ctxName, append(opts, storeOpts...)...)
	if err != nil {
		return usageErrorf("%w", err)
	}
	names := [2]string{"<old>", "<new>"}
	bad := false
	for i, src := range srcs {
		_, diags := env.Check(src)
		printDiags(c.stderr, names[i], src, diags)
		bad = bad || diags.HasErrors()
	}
	if bad {
		return errHasErrors
	}
	var ids [2][]int64
	quiet := *c
	quiet.stderr = io.Discard // the diagnostics are printed above
	for i, src := range srcs {
		if ids[i], err = ls.run(ctx, &quiet, env, names[i], src); err != nil {
			return err
		}
	}
	objs, err := ls.objects(ctx, env, union(ids[0], ids[1]))
	if err != nil {
		return err
	}
	if language != "" {
		objs = slices.DeleteFunc(objs, func(o any) bool { return !ofLanguage(o, language) })
	}
	return writeDiff(c.stdout, format, srcs[0], srcs[1], diffByIDs(objs, ids[0], ids[1]))
}

// union is the ids in a or b, ascending, each once.
func union(a, b []int64) []int64 {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// whyStore is croql why on the object id of the store `croql load` wrote
// at dsn, read back from it.
func (c *cli) whyStore(ctx context.Context, ctxName, dsn, name, src, format string, id int64, opts []croql.Option) error {
	ls, storeOpts, err := openLoaded(ctx, "", dsn)
	if err != nil {
		return err
	}
	defer ls.db.Close()
	env, err := croql.NewEnv(ctxName, append(opts, storeOpts...)...)
	if err != nil {
		return usageErrorf("%w", err)
	}
	q, diags := env.Compile(src)
	printDiags(c.stderr, name, src, diags)
	if diags.HasErrors() || q == nil {
		return errHasErrors
	}
	objs, err := ls.objects(ctx, env, []int64{id})
	if err != nil {
		return err
	}
	if len(objs) == 0 {
		return failure(fmt.Errorf("the %s context of the store has no object with id %d", env.Context().Name, id))
	}
	e, err := q.Why(objs[0])
	if err != nil {
		return failure(err)
	}
	return writeWhy(c.stdout, format, e)
}
