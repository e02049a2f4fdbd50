module github.com/croql/croql

go 1.26
