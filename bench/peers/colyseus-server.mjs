// Colyseus 0.18 server for the peer benchmark: node colyseus-server.mjs PORT.
// One room per game; the hands are Schema fields tagged .view(), so each seat's StateView
// carries its own hand only; the server validates each "play" message. Prints
// "listening PORT" once it serves.
import { Room, Server } from "colyseus";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { schema, t, StateView } from "@colyseus/schema";
import { SEATS, deal, isLegal, isOver } from "./rules.mjs";

const Seat = schema({ hand: t.array("uint8").view(), count: t.uint8() });
const Table = schema({ seats: t.array(Seat), turn: t.int8(), last: t.int8(), over: t.boolean() });

const port = Number(process.argv[2]);

function shuffle(deck) {
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

class FollowSuitRoom extends Room {
  maxClients = SEATS;

  // options.moves: the game's length (the creating client's), rules.mjs `deal`
  onCreate(options) {
    this.state = new Table();
    this.state.turn = -1; // nobody's turn until the four seats are in
    this.state.last = -1;
    this.dealt = deal(shuffle, options.moves);
    this.onMessage("play", (client, card) => this.play(client, card));
  }

  onJoin(client) {
    const seat = new Seat();
    seat.hand.push(...this.dealt[this.state.seats.length]);
    seat.count = seat.hand.length;
    client.userData = { seat: this.state.seats.length };
    this.state.seats.push(seat);
    client.view = new StateView();
    client.view.add(seat);
    if (this.state.seats.length === SEATS) this.state.turn = 0;
  }

  play(client, card) {
    const { seat } = client.userData;
    const mine = this.state.seats[seat];
    if (this.state.over || seat !== this.state.turn || !isLegal([...mine.hand], this.state.last, card)) {
      client.send("refused", card);
      return;
    }
    mine.hand.splice(mine.hand.indexOf(card), 1);
    mine.count = mine.hand.length;
    this.state.last = card;
    if (isOver(this.state.seats.map((s) => [...s.hand]))) this.state.over = true;
    else this.state.turn = (seat + 1) % SEATS;
  }
}

const server = new Server({ transport: new WebSocketTransport() });
server.define("follow_suit", FollowSuitRoom);
await server.listen(port);
console.log(`listening ${port}`);
