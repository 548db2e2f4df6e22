// Command ferretdb runs FerretDB v1 with its SQLite handler, for the MongoDB store's tests.
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
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	dir := flag.String("sqlite-dir", "", "existing directory for the SQLite files (one per database)")
	flag.Parse()

	if *dir == "" {
		fail("--sqlite-dir is required")
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		fail(err.Error())
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		fail("--sqlite-dir must be an existing directory: " + abs)
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listen},
		Handler:  "sqlite",
		// FerretDB wants a file: URI naming a directory, with the trailing slash.
		SQLiteURL: "file:" + abs + "/",
	})
	if err != nil {
		fail(err.Error())
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	fmt.Fprintf(os.Stderr, "ferretdb: serving %s (SQLite in %s)\n", f.MongoDBURI(), abs)
	f.Run(ctx)
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "ferretdb: "+msg)
	os.Exit(2)
}
