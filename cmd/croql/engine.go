package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
	"github.com/croql/croql/typecheck"
)

// engineNames are the values of `croql query --engine` besides the
// in-memory evaluator.
const engineNames = "sqlite, postgres, mysql, vitess"

// runOnEngine runs a checked query on a SQL engine instead of the
// in-memory evaluator: it opens engine ("sqlite": embedded, in memory, dsn
// ignored unless given; "postgres", "mysql" or "vitess": the server at
// dsn, in a scratch schema, database or keyspace that is dropped
// afterwards), creates the
// reference tables (mapping.Default), loads p, runs the compiled
// query and returns the ids of the matching objects in ascending order.
func runOnEngine(ctx context.Context, engineName, dsn string, p *schema.Project, q *typecheck.Query) (ids []int64, err error) {
	all, err := runAllOnEngine(ctx, engineName, dsn, p, q)
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// runAllOnEngine is runOnEngine for several queries over one load of p:
// the ids each query matches, in the order of qs.
func runAllOnEngine(ctx context.Context, engineName, dsn string, p *schema.Project, qs ...*typecheck.Query) (ids [][]int64, err error) {
	if len(qs) == 0 || slices.Contains(qs, nil) || p == nil {
		return nil, fmt.Errorf("engine %s: no query or no data", engineName)
	}
	if engineName != "sqlite" && dsn == "" {
		return nil, fmt.Errorf("--engine %s needs --dsn (for example %s)", engineName, exampleDSN(engineName))
	}
	db, err := store.Open(ctx, engineName, dsn)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := db.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("engine %s: cleaning up: %w", engineName, cerr))
		}
	}()
	m := mapping.Default(schema.New())
	if err := store.Load(ctx, db, m, p); err != nil {
		return nil, fmt.Errorf("engine %s: loading the data: %w", engineName, err)
	}
	for _, q := range qs {
		matched, err := store.Run(ctx, db.SQL, db.Dialect, m, q)
		if err != nil {
			return nil, err
		}
		ids = append(ids, matched)
	}
	return ids, nil
}

func exampleDSN(engineName string) string {
	switch engineName {
	case "mysql":
		return "root@tcp(127.0.0.1:3306)/test"
	case "vitess":
		return "vitess://root@127.0.0.1:33303/croql"
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}
