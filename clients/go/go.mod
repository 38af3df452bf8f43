module example.com/tabletopdemo

go 1.19

// The versions this quick start was tested with (Debian bookworm's packages, see
// docs/api.md "Go"); newer ones work the same way. `go mod tidy` writes go.sum.
require (
	github.com/golang/protobuf v1.5.2
	google.golang.org/grpc v1.33.3
	google.golang.org/protobuf v1.28.1
)
