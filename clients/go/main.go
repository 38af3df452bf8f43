// A minimal tabletop client: open a 花鸟风月 table, seat four players, deal, and play the
// first legal move of the seat the game waits for.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	huaniaov1 "example.com/tabletopdemo/gen/tabletop/huaniao/v1"
	tabletopv1 "example.com/tabletopdemo/gen/tabletop/v1"
)

// gameRequest is any request that names a game.
type gameRequest interface{ GetGameId() string }

// withGameID sends the game a call names as x-game-id metadata, so a balancer can send all
// of a game's calls to one replica (deploy/haproxy.cfg hashes it). Routing only: any
// replica answers any call.
func withGameID(ctx context.Context, req interface{}) context.Context {
	if named, ok := req.(gameRequest); ok && named.GetGameId() != "" {
		return metadata.AppendToOutgoingContext(ctx, "x-game-id", named.GetGameId())
	}
	return ctx
}

func routeByGame(ctx context.Context, method string, req, reply interface{},
	cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	return invoker(withGameID(ctx, req), method, req, reply, cc, opts...)
}

// A server-streaming call (Watch, Replay) sends its request after the stream opens, so it
// names its game with withGameID on its own context: ctx = withGameID(ctx, req).

func main() {
	target := os.Getenv("TABLETOP_TARGET")
	if target == "" {
		target = "127.0.0.1:50051"
	}
	conn, err := grpc.Dial(target, grpc.WithInsecure(), // plaintext, like the server
		grpc.WithUnaryInterceptor(routeByGame))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	api := tabletopv1.NewTableServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	created, err := api.CreateGame(ctx, &tabletopv1.CreateGameRequest{
		Options: &tabletopv1.GameOptions{Game: &tabletopv1.GameOptions_Huaniao{
			Huaniao: &huaniaov1.Options{Mode: huaniaov1.Mode_MODE_BASIC}}},
		SeatCount: 4,
	})
	if err != nil {
		log.Fatal(err)
	}
	tokens := map[int32]string{}
	for seat := int32(0); seat < 4; seat++ {
		joined, err := api.JoinGame(ctx, &tabletopv1.JoinGameRequest{
			GameId: created.GameId, Seat: seat, PlayerName: fmt.Sprintf("go-%d", seat)})
		if err != nil {
			log.Fatal(err)
		}
		tokens[seat] = joined.SeatToken
	}
	as := func(seat int32) context.Context { // the seat token goes in the call metadata
		return metadata.AppendToOutgoingContext(ctx, "x-seat-token", tokens[seat])
	}
	if _, err := api.StartGame(as(0), &tabletopv1.StartGameRequest{GameId: created.GameId}); err != nil {
		log.Fatal(err)
	}
	view, err := api.GetView(as(0), &tabletopv1.GetViewRequest{GameId: created.GameId})
	if err != nil {
		log.Fatal(err)
	}
	seat := view.View.ToAct[0] // act for the seat the game waits for
	legal, err := api.LegalMoves(as(seat), &tabletopv1.LegalMovesRequest{GameId: created.GameId})
	if err != nil {
		log.Fatal(err)
	}
	played, err := api.Play(as(seat), &tabletopv1.PlayRequest{
		GameId: created.GameId, ExpectedVersion: legal.Version, Move: legal.Moves[0]})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("game %s: seat %d played %s, now version %d\n",
		created.GameId, seat, legal.Labels[0], played.Version)
}
