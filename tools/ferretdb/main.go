// Command ferretdb runs FerretDB v1 with its SQLite handler (or, given --postgresql-url, its
// PostgreSQL handler), for the MongoDB store's tests and benchmarks;
// `ferretdb ping ADDR` checks that a MongoDB-wire server answers there.
//
// Why not `go install github.com/FerretDB/FerretDB/cmd/ferretdb`: that binary panics at start
// when built outside FerretDB's own tree (its build/version/version.txt is not in the module).
// The embeddable package skips that check, and it starts no telemetry, state file or debug
// server, so none of those flags are needed.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	// `ferretdb ping ADDR`: exit 0 once a MongoDB-wire server there answers {ping: 1}.
	if len(os.Args) == 3 && os.Args[1] == "ping" {
		if err := ping(os.Args[2], 2*time.Second); err != nil {
			fail("ping " + os.Args[2] + ": " + err.Error())
		}
		return
	}

	listen := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	dir := flag.String("sqlite-dir", "", "existing directory for the SQLite files (one per database)")
	pgURL := flag.String("postgresql-url", "", "run the PostgreSQL handler on this database instead of SQLite")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if *pgURL != "" {
		run(&ferretdb.Config{Listener: ferretdb.ListenerConfig{TCP: *listen}, Handler: "postgresql", PostgreSQLURL: *pgURL, Logger: logger}, "PostgreSQL")
		return
	}
	if *dir == "" {
		fail("--sqlite-dir or --postgresql-url is required")
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		fail(err.Error())
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		fail("--sqlite-dir must be an existing directory: " + abs)
	}

	run(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listen},
		Handler:  "sqlite",
		// Warnings and errors only: at INFO it logs every connection opened and closed.
		Logger: logger,
		// FerretDB wants a file: URI naming a directory, with the trailing slash.
		SQLiteURL: "file:" + abs + "/",
	}, "SQLite in "+abs)
}

func run(config *ferretdb.Config, what string) {
	f, err := ferretdb.New(config)
	if err != nil {
		fail(err.Error())
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	fmt.Fprintf(os.Stderr, "ferretdb: serving %s (%s)\n", f.MongoDBURI(), what)
	f.Run(ctx)
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "ferretdb: "+msg)
	os.Exit(2)
}
