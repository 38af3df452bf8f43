'use strict';
// The published deal derivation (docs/api.md, "Audit"): a second implementation beside
// domain/table/deal.py, so an auditor depends on neither Python nor the server. Seat
// commitments and entries, the table key, a counter-mode SHA-256 stream feeding
// Fisher–Yates with rejection sampling, and `checkExport`, which recomputes every deal of a
// finished game's export (`tabletop-audit export`) from its revealed inputs.
const crypto = require('./crypto');

const TWO_32 = 2 ** 32;
const SEED_BYTES = 6; // a game seed is 48 bits: exact as a JavaScript number

const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest();
const hexOf = (text) => sha256(Buffer.from(text, 'utf8')).toString('hex');

/** The server's commitment, published in GameCreated before anyone joins. */
function commitment(secret, salt = '', preparedDeck = []) {
  return hexOf(`tabletop-commit|${secret}|${salt}|${preparedDeck.join(',')}`);
}

/** The secret of a table created with a client-given seed (a prepared deal). */
function secretFromSeed(seed) {
  return hexOf(`tabletop-seed|${seed}`);
}

/** What a seat sends at JoinGame for its contribution. */
function contributionCommitment(contribution) {
  return hexOf(`tabletop-contribution|${contribution}`);
}

/**
 * A seat's input to the table key: its reveal, or "n" for a seat that committed to nothing.
 * (Withheld, its commitment: only in records made before issue 35.)
 */
function entry(seatCommitment, revealed, withheld = false) {
  if (revealed) return `r${hexOf(`tabletop-reveal|${revealed}`)}`;
  if (seatCommitment && withheld) return `w${seatCommitment}`;
  return 'n';
}

/** The key every shuffle at the table derives from (32 bytes). */
function tableKey(secret, entries) {
  return sha256(Buffer.from(['tabletop-deal', secret, ...entries].join('|'), 'utf8'));
}

function subkey(key, label) {
  return sha256(Buffer.concat([key, Buffer.from(label, 'utf8')]));
}

/** Counter-mode SHA-256: the bytes of SHA-256(key || uint64_be(j)) for j = 0, 1, ... */
class Stream {
  constructor(key) {
    this.key = key;
    this.counter = 0n;
    this.block = Buffer.alloc(0);
    this.used = 0;
  }

  take(n) {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i += 1) {
      if (this.used === this.block.length) {
        const counter = Buffer.alloc(8);
        counter.writeBigUInt64BE(this.counter);
        this.block = sha256(Buffer.concat([this.key, counter]));
        this.counter += 1n;
        this.used = 0;
      }
      out[i] = this.block[this.used];
      this.used += 1;
    }
    return out;
  }
}

/** An integer in [0, n): 4 bytes big-endian, rejected at or above the largest multiple of n. */
function uniform(stream, n) {
  const limit = TWO_32 - (TWO_32 % n);
  for (;;) {
    const x = stream.take(4).readUInt32BE(0);
    if (x < limit) return x % n;
  }
}

/** Fisher–Yates (Durstenfeld) over the card ids sorted ascending, fed by Stream(key). */
function shuffle(cards, key) {
  const deck = [...cards].sort((a, b) => a - b);
  const stream = new Stream(key);
  for (let i = deck.length - 1; i > 0; i -= 1) {
    const j = uniform(stream, i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** The deck of the first deal (round 0) or of the round-th 重新洗牌发牌. */
function deckForRound(key, cards, round) {
  return shuffle(cards, subkey(key, `deck-${round}`));
}

/** The game's own seed for its in-game chance in that round. */
function seedForRound(key, round) {
  return subkey(key, `seed-${round}`).readUIntBE(0, SEED_BYTES);
}

/** The unseen part of the deck once cards a seat saw went back into it. */
function reshuffleUnseen(key, cards, label) {
  return shuffle(cards, subkey(key, `reshuffle-${label}`));
}

const sameCards = (a, b) => a.length === b.length && a.every((c, i) => c === b[i]);
const ascending = (cards) => [...cards].sort((a, b) => a - b);

/**
 * Check every deal of a finished game's export (JSON Lines of stored events, the form
 * `tabletop-audit export` writes once the game has ended): the server's commitment, every
 * reveal against its seat's commitment, then the table key, each deck and each game seed.
 * Returns a summary; throws an Error naming the first problem.
 */
function checkExport(text) {
  return checkRecords(text.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line)));
}

/** `checkExport` on records already read (objects with a `fact`), e.g. by lib/verify.js. */
function checkRecords(lines) {
  const records = lines.filter((r) => r && r.fact && typeof r.fact.type === 'string');
  const of = (type) => records.filter((r) => r.fact.type === type).map((r) => r.fact.data);
  const [created] = of('GameCreated');
  if (!created) throw new Error('no GameCreated: not a complete export');
  const revealed = of('ShuffleRevealed');
  if (revealed.length === 0) throw new Error('the secret was not revealed: the game has not ended');
  const { secret, salt = '' } = revealed[revealed.length - 1];
  const prepared = created.prepared_deck || [];
  if (commitment(secret, salt, prepared) !== created.commitment) {
    throw new Error('the revealed secret does not match the published commitment');
  }

  // Each draw's inputs, in record order: the hand's seats (a match's later hand seats them
  // first and they commit after: SeatCommitted), then each redeal's fresh ones (RedealOpened).
  // A deal is made from every seat's entropy or not at all: each input must be committed
  // (an empty commitment adds nothing, by the seat's choice) and, if not empty, revealed.
  const fresh = () => ({ commitment: '', revealed: null, withheld: false, committed: false });
  const noEntropy = []; // "seat 1 added no entropy" (" to redeal 1")
  const withheld = []; // records made before issue 35: a deal without a seat's entropy
  let abandoned = null;
  const drawName = () => (redeal ? ` to redeal ${redeal.round}` : '');
  // a table the lobby formed waits first for its reserved seats' players (issue 40)
  const reserved = Array.isArray(created.reserved_players) ? created.reserved_players : [];
  const missing = () => {
    const empty = redeal ? [] : reserved.flatMap((p, i) => (p && !seats[i] ? [i] : []));
    if (empty.length) return empty;
    const uncommitted = inputs.flatMap((s, i) => (!s || !s.committed ? [i] : []));
    if (uncommitted.length) return uncommitted;
    return inputs.flatMap((s, i) => (s.commitment && !s.revealed && !s.withheld ? [i] : []));
  };
  const allIn = (what) => {
    const out = missing();
    if (out.length) throw new Error(`${what} was made without seat(s) ${out.join(', ')}'s entropy`);
    inputs.forEach((s, i) => {
      if (!s.commitment && !s.withheld) noEntropy.push(`seat ${i} added no entropy${drawName()}`);
      if (s.withheld) withheld.push(`seat ${i}'s entropy did not go in${drawName()} (withheld: a record made before issue 35)`);
    });
  };
  const seats = Array.from({ length: created.seat_count }, () => null);
  let inputs = seats;
  let key = null;
  let decks = 0;
  const keyOf = (drawSecret) =>
    tableKey(drawSecret, inputs.map((s) => (s ? entry(s.commitment, s.revealed, s.withheld) : 'n')));
  let redeal = null;
  for (const { fact: { type, data } } of records) {
    if (type === 'SeatTaken') {
      const early = data.contribution || ''; // the older form: committed and revealed at once
      if (early && created.hand >= 2) throw new Error(`hand ${created.hand} seated with entropy`);
      seats[data.seat] = {
        commitment: data.commitment || (early ? contributionCommitment(early) : ''),
        revealed: early || null,
        withheld: false,
        committed: !(created.hand >= 2), // a match's later hand: its seats commit after
      };
    } else if (type === 'SeatCommitted') {
      inputs[data.seat].commitment = data.commitment;
      inputs[data.seat].committed = true;
    } else if (type === 'ContributionRevealed') {
      const seat = inputs[data.seat];
      if (!seat || contributionCommitment(data.contribution) !== seat.commitment) {
        throw new Error(`seat ${data.seat}'s reveal does not match its commitment`);
      }
      seat.revealed = data.contribution;
    } else if (type === 'RevealWithheld') {
      inputs[data.seat].withheld = true;
      inputs[data.seat].committed = true;
    } else if (type === 'DealAbandoned') {
      const waiting = missing();
      if (waiting.join() !== (data.waiting_for || []).join()) {
        throw new Error(`DealAbandoned: the draw was abandoned waiting for seat(s) ${(data.waiting_for || []).join(', ')}, but it waited for ${waiting.join(', ') || 'nobody'}`);
      }
      if ((data.round || 0) !== (redeal ? redeal.round : 0)) throw new Error(`the abandoned draw is not round ${data.round}`);
      abandoned = { waitingFor: waiting, round: data.round || 0 };
    } else if (type === 'GameStarted') {
      if (!prepared.length) allIn('the deal');
      key = keyOf(secret);
      const first = prepared.length ? prepared : deckForRound(key, ascending(data.deck), 0);
      if (!sameCards(data.deck, first)) throw new Error('the first deck is not the derived one');
      if (data.seed !== seedForRound(key, 0)) throw new Error('the game seed is not the derived one');
      decks += 1;
    } else if (type === 'RedealOpened') {
      if (commitment(data.secret, '', []) !== data.commitment) {
        throw new Error(`redeal ${data.round}'s secret does not match its commitment`);
      }
      redeal = data;
      inputs = seats.map(() => fresh());
    } else if (type === 'GameRedealt') {
      if (!redeal || redeal.round !== data.round) throw new Error(`redeal ${data.round} was never opened`);
      allIn(`redeal ${data.round}`);
      const redealKey = keyOf(redeal.secret); // the redeal's fresh secret and fresh entries
      if (!sameCards(data.deck, deckForRound(redealKey, ascending(data.deck), data.round))) {
        throw new Error(`the deck of redeal ${data.round} is not the derived one`);
      }
      if (data.seed !== seedForRound(redealKey, data.round)) {
        throw new Error(`redeal ${data.round}'s seed differs`);
      }
      inputs = seats;
      redeal = null;
      decks += 1;
    }
  }
  if (key === null && !abandoned) throw new Error('the game was never dealt');
  for (const p of of('PenaltyRevoked')) {
    if (!p.deck || p.deck.length === 0) continue;
    if (key === null || !sameCards(p.deck, reshuffleUnseen(key, p.deck, `revoke-${p.case_id}`))) {
      throw new Error(`the deck reshuffled on revoking case ${p.case_id} is not the derived one`);
    }
    decks += 1;
  }
  return {
    kind: created.kind,
    seats: created.seat_count,
    dealSource: created.deal_source || 'SHUFFLED',
    revealed: seats.filter((s) => s && s.revealed).length,
    withheld, // lines: a deal made without a seat's entropy (older records only)
    noEntropy, // lines: the seats that committed to nothing
    fair: withheld.length === 0, // every deal from every seat's entropy
    void: abandoned, // {waitingFor, round}: the draw abandoned, no deal; or null
    decks,
  };
}

/** A checked deal in one clause, as the Python verifier says it (AuditReport.deal_words). */
function dealWords(dealt) {
  if (dealt.void) return `void: no deal, waiting for seat(s) ${dealt.void.waitingFor.join(', ')}`;
  if (!dealt.fair) return `NOT a fair deal: ${[...dealt.withheld, ...dealt.noEntropy].join('; ')}`;
  const extra = dealt.noEntropy.length ? ` (${dealt.noEntropy.join('; ')})` : '';
  return `every deal from every seat's entropy${extra}`;
}

module.exports = {
  dealWords,
  commitment,
  secretFromSeed,
  contributionCommitment,
  entry,
  tableKey,
  subkey,
  Stream,
  uniform,
  shuffle,
  deckForRound,
  seedForRound,
  reshuffleUnseen,
  checkExport,
  checkRecords,
};
