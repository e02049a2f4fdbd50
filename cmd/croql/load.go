package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// newLoadCmd returns `croql load --dsn DSN FILE`: it streams a project
// file into a database (store.LoadFile), creating the reference tables
// (docs/sql.md), with its progress on a terminal.
func newLoadCmd(c *cli) *cobra.Command {
	var (
		dsn, engineName, schemaName string
		strict, skipBad             bool
	)
	cmd := &cobra.Command{
		Use:   "load --dsn DSN [--engine sqlite|postgres|mysql|vitess] [--schema S] [--strict] [--skip-bad] FILE",
		Short: "Load a project file into a database: the reference tables of croql sql",
		Long: "Creates the reference tables (docs/sql.md) in the database DSN names and streams the\n" +
			"project FILE (JSON or NDJSON, docs/data-format.md; - reads stdin) into them: PostgreSQL\n" +
			"through COPY, SQLite and MySQL in multi-row INSERTs, indexes built after the rows.\n" +
			"The load is atomic: it completes or leaves the target as it was, so a retry works\n" +
			"(SQLite: one transaction; PostgreSQL, MySQL: a scratch schema moved in at the end).\n" +
			"The tables must not exist. The engine follows from the DSN (postgres://...,\n" +
			"mysql://user@host:3306/db or user@tcp(host)/db, vitess://user@host:port/keyspace, else a SQLite\n" +
			"file) unless --engine says.\n" +
			"Exit 0 when loaded, 1 when the data or the database fails, 2 on bad usage.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dsn == "" {
				return usageErrorf("--dsn is required (for example %s, or a SQLite file name)", exampleDSN("postgres"))
			}
			if engineName == "" {
				engineName = store.EngineOfDSN(dsn)
			}
			ctx, stop := signalContext()
			defer stop()
			db, err := store.OpenTarget(ctx, engineName, dsn, schemaName)
			if err != nil {
				return failure(err)
			}
			defer db.Close()
			r, size, closeFn, err := c.openData(args[0])
			if err != nil {
				return failure(err)
			}
			defer closeFn()
			defer streamingGC()()
			prog := newProgress(c.stderr, "croql load: ", c.stderrTerminal)
			defer prog.done()
			pr := &progressReader{r: r, size: size, name: args[0], prog: prog}
			opts := schema.ReadOptions{Strict: strict, SkipBad: skipBad}
			if skipBad {
				opts.Skipped = skipReporter(c.stderr, prog, "croql load")
			}
			st, err := store.LoadFile(ctx, db, pr, opts, func(st store.LoadStats) {
				prog.show("%d objects, %d rows", st.Objects, st.Rows)
			})
			prog.done()
			if err != nil {
				return failure(fmt.Errorf("%s: %w", args[0], err))
			}
			fmt.Fprintf(c.stderr, "croql load: %d objects, %d rows into %s", st.Objects, st.Rows, engineName)
			if st.Skipped > 0 {
				fmt.Fprintf(c.stderr, ", %d lines skipped", st.Skipped)
			}
			fmt.Fprintln(c.stderr)
			return nil
		},
	}
	cmd.Flags().StringVar(&dsn, "dsn", "", "where to load: postgres://..., mysql://user@host:port/db, user@tcp(host:port)/db, or a SQLite file name")
	cmd.Flags().StringVar(&engineName, "engine", "", "sqlite, postgres, mysql or vitess (default: from the DSN)")
	completeFlag(cmd, "engine", "sqlite", "postgres", "mysql", "vitess")
	cmd.Flags().StringVar(&schemaName, "schema", "", "PostgreSQL schema or MySQL database to load into, created if missing (default: the DSN's)")
	cmd.Flags().BoolVar(&strict, "strict", false, "reject unknown members and member names repeated within an object")
	addLocFlags(cmd, &c.loc)
	cmd.Flags().BoolVar(&skipBad, "skip-bad", false, "skip object lines that cannot be read or fail a check, reporting each on stderr")
	_ = cmd.MarkFlagFilename("dsn", "db", "sqlite")
	return cmd
}
