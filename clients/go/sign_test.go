package main

import (
	"crypto/ed25519"
	"encoding/hex"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	tabletopv1 "example.com/tabletopdemo/gen/tabletop/v1"
)

// docs/api.md's seat signature test vector, byte for byte.
func TestSeatSignatureVector(t *testing.T) {
	seed, _ := hex.DecodeString("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	key := ed25519.NewKeyFromSeed(seed)
	if got := hex.EncodeToString(key.Public().(ed25519.PublicKey)); got != "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a" {
		t.Fatalf("public key %s", got)
	}
	game := "6f1c0d6e-1b9a-4c1e-9d61-000000000035"
	play := &tabletopv1.PlayRequest{GameId: game, ExpectedVersion: 12, RequestId: "r-1",
		Move: &tabletopv1.Move{Game: &tabletopv1.Move_Table{Table: &tabletopv1.TableCommand{
			Kind: &tabletopv1.TableCommand_Retract{Retract: &tabletopv1.Retract{}}}}}}
	request := "0a2436663163306436652d316239612d346331652d396436312d303030303030303030303335100c1a041a020a002203722d31"
	got, _ := proto.Marshal(play)
	if hex.EncodeToString(got) != request {
		t.Fatalf("request bytes %x", got)
	}
	sig := signCommand(key, game, "Play", 12, strings.Repeat("5f", 32), play)
	if want := "0a2436663163306436652d316239612d346331652d396436312d3030303030303030303033351204506c6179180c2240356635663566356635663566356635663566356635663566356635663566356635663566356635663566356635663566356635663566356635663566356635662a330a2436663163306436652d316239612d346331652d396436312d303030303030303030303335100c1a041a020a002203722d31"; hex.EncodeToString(sig.SignedCommand) != want {
		t.Fatalf("SignedCommand bytes %x", sig.SignedCommand)
	}
	if want := "12f292c44bd32f11cbc02660496b745c28bc2f9a290bd4176ccebc07f973bde49f4214ab18130dcf7cd04e94158d3f456927a0c9ab6a646c3874ba3044fe4706"; hex.EncodeToString(sig.Signature) != want {
		t.Fatalf("signature %x", sig.Signature)
	}
}
