// A minimal tabletop client: open a 花鸟风月 table, seat four players, deal, and play the
// first legal move of the seat the game waits for. Each seat holds its own Ed25519 key and
// signs its commands (docs/api.md, "Seat signatures"), and adds its own entropy to the deal:
// it commits to a random value when it joins and reveals it once every seat is taken.
package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

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

// signCommand is the seat's signature over req (its SeatSignature still unset) as the
// `method` call for gameID, made having seen version `seen` whose chain hash is `head`:
// Ed25519 over "tabletop-seat-command/1\n" + the SignedCommand's bytes.
func signCommand(key ed25519.PrivateKey, gameID, method string, seen int64, head string,
	req proto.Message) *tabletopv1.SeatSignature {
	request, err := proto.Marshal(req)
	if err != nil {
		log.Fatal(err)
	}
	signed, err := proto.Marshal(&tabletopv1.SignedCommand{GameId: gameID, Method: method,
		ExpectedVersion: seen, HeadHash: head, Request: request})
	if err != nil {
		log.Fatal(err)
	}
	return &tabletopv1.SeatSignature{SignedCommand: signed,
		Signature: ed25519.Sign(key, append([]byte("tabletop-seat-command/1\n"), signed...))}
}

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
	keys := map[int32]ed25519.PrivateKey{} // made here, never sent: only the public half is
	entropy := map[int32]string{}          // each seat's contribution, revealed once all sit
	for seat := int32(0); seat < 4; seat++ {
		public, private, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			log.Fatal(err)
		}
		random := make([]byte, 16)
		if _, err := rand.Read(random); err != nil {
			log.Fatal(err)
		}
		entropy[seat] = hex.EncodeToString(random)
		committed := sha256.Sum256([]byte("tabletop-contribution|" + entropy[seat]))
		join := &tabletopv1.JoinGameRequest{GameId: created.GameId, Seat: seat,
			PlayerName: fmt.Sprintf("go-%d", seat), SeatPublicKey: public,
			ContributionCommitment: hex.EncodeToString(committed[:])}
		join.SeatSignature = signCommand(private, created.GameId, "JoinGame", 0, "", join)
		joined, err := api.JoinGame(ctx, join)
		if err != nil {
			log.Fatal(err)
		}
		tokens[seat], keys[seat] = joined.SeatToken, private
	}
	as := func(seat int32) context.Context { // the seat token goes in the call metadata
		return metadata.AppendToOutgoingContext(ctx, "x-seat-token", tokens[seat])
	}
	seated, err := api.GetView(as(0), &tabletopv1.GetViewRequest{GameId: created.GameId})
	if err != nil {
		log.Fatal(err)
	}
	for seat, key := range keys { // the server must show each seat's own key: else it could stand in for it
		if !bytes.Equal(seated.View.Seats[seat].PublicKey, key.Public().(ed25519.PublicKey)) {
			log.Fatalf("SEAT KEY NOT RECORDED: seat %d", seat)
		}
	}
	for seat, key := range keys { // every seat's reveal: the deal waits for all of them
		reveal := &tabletopv1.RevealContributionRequest{GameId: created.GameId,
			Contribution: entropy[seat]}
		reveal.SeatSignature = signCommand(key, created.GameId, "RevealContribution",
			seated.View.Version, seated.View.HeadHash, reveal)
		revealed, err := api.RevealContribution(as(seat), reveal)
		if err != nil {
			log.Fatal(err)
		}
		if len(revealed.Events) == 0 || revealed.Receipt == nil { // no acknowledgement: not taken
			log.Fatalf("seat %d's reveal was not acknowledged", seat)
		}
	}
	ready, err := api.GetView(as(0), &tabletopv1.GetViewRequest{GameId: created.GameId})
	if err != nil {
		log.Fatal(err)
	}
	start := &tabletopv1.StartGameRequest{GameId: created.GameId}
	start.SeatSignature = signCommand(keys[0], created.GameId, "StartGame",
		ready.View.Version, ready.View.HeadHash, start)
	if _, err := api.StartGame(as(0), start); err != nil {
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
	if legal.Version != view.View.Version { // a signed Play names the chain hash it saw
		log.Fatalf("the game moved on: version %d, not %d", legal.Version, view.View.Version)
	}
	play := &tabletopv1.PlayRequest{
		GameId: created.GameId, ExpectedVersion: legal.Version, Move: legal.Moves[0]}
	play.SeatSignature = signCommand(keys[seat], created.GameId, "Play",
		legal.Version, view.View.HeadHash, play)
	played, err := api.Play(as(seat), play)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("game %s: seat %d played %s, now version %d\n",
		created.GameId, seat, legal.Labels[0], played.Version)
}
