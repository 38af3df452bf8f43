'use strict';
// A viewer's events re-rendered from a verified record, byte for byte as the server renders
// them (server/wire/render.py, domain/table/redaction.py, each game's `redact` and
// `describe`): the ReceiptPayload {events} a receipt's salted hash covers. With it the
// verifier holds a validly signed receipt against the validly signed record, and proves a
// lie told to one seat (lib/proofs.js).
//
//   renderEvents(records, first, last, index)   the payload bytes of viewer `index`
//
// A fact becomes its GameEvent member by the contract's own shapes (the record stores each
// domain dataclass as {field: value}, an enum by its member's name, exactly the proto's field
// names; server/wire/protoconv.py): the message is built from the proto descriptor, keeping
// only the fields Python's deterministic encoding writes. The words of each event's `text`
// (card, cause, combo, season names) come from gen/words.json, which `make web` generates
// from the domain's own tables (server/wire/render_words.py). Views: lib/viewrender.js.
const fs = require('node:fs');
const path = require('node:path');
const { load } = require('./protos');

const WORDS_FILE = path.resolve(__dirname, '..', 'gen', 'words.json');
let words = null;

/** The generated words table (server/wire/render_words.py); a clear error if not made. */
function wordsTable() {
  if (words === null) {
    if (!fs.existsSync(WORDS_FILE)) {
      throw new Error(`${WORDS_FILE} is missing: run \`make web\` (it generates the games' words from the domain)`);
    }
    words = JSON.parse(fs.readFileSync(WORDS_FILE, 'utf8'));
  }
  return words;
}

// --- viewers (domain/table/records.py receipt_viewers: each seat, a spectator, the arbiter)

const ARBITER = { role: 'arbiter', seat: null };
const SPECTATOR = { role: 'spectator', seat: null };

function receiptViewer(index, seatCount) {
  if (index < seatCount) return { role: 'seat', seat: index };
  return index === seatCount ? SPECTATOR : ARBITER;
}

const sees = (viewer, ...seats) => viewer.role === 'arbiter' || (viewer.role === 'seat' && seats.includes(viewer.seat));

// --- redaction --------------------------------------------------------------------------

const { TABLE_FACTS, JUSTICE_FACTS } = require('./facts');

/** A table or justice fact's data as `viewer` may see it (redaction.py `redact`). */
function redactTable(type, d, viewer) {
  const arbiter = viewer.role === 'arbiter';
  switch (type) {
    case 'GameStarted':
      return arbiter ? d : { ...d, deck: [], seed: 0 };
    case 'GameCreated':
      return { ...d, arbiter_token_hash: '', secret: '', salt: '', prepared_deck: [] };
    case 'SeatTaken':
      return { ...d, token_hash: '', contribution: '' };
    case 'ContributionRevealed':
      return { ...d, contribution: '' };
    case 'RedealOpened':
      return { ...d, secret: '' };
    case 'MoveRetracted':
      return arbiter ? d : { ...d, restored: null };
    case 'GameRedealt':
      return arbiter ? d : { deck: [], seed: 0, round: d.round };
    case 'PenaltyRevoked':
      return arbiter ? d : { ...d, deck: [] };
    default:
      return d;
  }
}

const transfer = (t, viewer) => (t.shown || sees(viewer, t.from_seat, t.to_seat) ? t : { ...t, card: null });

/** domain/huaniao/views.py `redact`. */
function redactHuaniao(type, d, viewer) {
  switch (type) {
    case 'Dealt':
      return sees(viewer, d.seat) ? d : { ...d, cards: [] };
    case 'Drew':
      return d.shown || sees(viewer, d.seat) ? d : { ...d, cards: [] };
    case 'CardsExchanged':
      return { ...d, transfers: d.transfers.map((t) => transfer(t, viewer)) };
    case 'CardTaken':
      return { ...d, transfer: transfer(d.transfer, viewer) };
    case 'GuessMade':
      return sees(viewer, d.seat) ? d : { ...d, card_class: null, passed: false };
    default:
      break;
  }
  if (viewer.role !== 'arbiter') {
    if (type === 'HandsRecovered') return { ...d, cards: [] };
    if (type === 'ShowdownDealt') return { ...d, hands: d.hands.map((h) => ({ ...h, cards: [] })) };
  }
  return d;
}

/** domain/zipai/views.py `redact`. */
function redactZipai(type, d, viewer) {
  if (viewer.role === 'arbiter') return d;
  const own = viewer.role === 'seat' && viewer.seat === d.seat;
  switch (type) {
    case 'Dealt':
      return own ? d : { ...d, cards: [] };
    case 'LongLaidDown':
      return own ? d : { ...d, hidden: [] };
    case 'CardDrawn':
      return own ? d : { ...d, card: null };
    case 'ClaimMade':
      return own ? d : { ...d, claim: null, guo_zhang: false, guo_hu_fan: null };
    case 'Prompted':
      if (d.prompt === 'DISCARD') return d;
      return { ...d, seats: d.seats.filter((s) => viewer.role === 'seat' && s === viewer.seat) };
    default:
      return d;
  }
}

// --- describe (GameEvent.text) ------------------------------------------------------------

const seatList = (xs) => xs.map(String).join(', ');

function handClosedWords(d) {
  const follows = d.last ? 'the last' : `hand ${d.hand + 1} follows: ${d.next_game_id}`;
  return `hand ${d.hand} of match ${d.match_id} (${follows})`;
}

const PREPARED = {
  PREPARED_DECK: "prepared deal: chosen by the table's creator (a prepared deck)",
  PREPARED_SEED: "prepared deal: chosen by the table's creator (a client-given seed)",
};

/** redaction.py `describe` for the table's facts. */
function describeTable(type, d) {
  switch (type) {
    case 'GameCreated': {
      const opened = `table opened: ${d.kind}, ${d.seat_count} seats`;
      const marking = PREPARED[d.deal_source] || '';
      return marking ? `${opened}; ${marking}` : opened;
    }
    case 'SeatTaken':
      return `seat ${d.seat} taken by ${d.player_name || 'anonymous'}${d.commitment ? ', committed to a contribution' : ''}`;
    case 'ContributionRevealed':
      return `seat ${d.seat} revealed its contribution`;
    case 'RevealWithheld':
      return `seat ${d.seat}'s entropy did not go in (withheld: a record made before issue 35): its commitment (or nothing) stood in for it`;
    case 'DealAbandoned': {
      const which = (d.round || 0) === 0 ? 'the deal' : `重新洗牌发牌 ${d.round}`;
      return `${which} abandoned; void: no deal, waiting for seat(s) ${seatList(d.waiting_for)}`;
    }
    case 'SeatRekeyed':
      return `seat ${d.seat} re-keyed (key ${[...d.public_key].slice(0, 16).join('')}…, replacing ` +
        `${[...d.old_public_key].slice(0, 16).join('')}…): its later commands stand on a key the server accepted on the seat token's word`;
    case 'SeatCommitted':
      if (!d.commitment) return `seat ${d.seat} committed to nothing: seat ${d.seat} added no entropy`;
      return `seat ${d.seat} committed to a contribution`;
    case 'RedealOpened': {
      const by = d.requested_by === 'arbiter' ? 'the arbiter' : 'every seat';
      return `重新洗牌发牌 ${d.round} asked for by ${by}: drawn through a fresh commit–reveal (commitment ${[...d.commitment].slice(0, 12).join('')}…)`;
    }
    case 'RedealSecretsRevealed':
      return `redeal secrets revealed: ${d.secrets.join(', ')}`;
    case 'GameStarted':
      return `game started: cards dealt${d.deck.length ? '' : ' (deck hidden)'}`;
    case 'ShuffleRevealed':
      return `shuffle secret revealed: ${d.secret}`;
    case 'HandClosed':
      return `closed: ${handClosedWords(d)}`;
    default:
      return describeJustice(type, d);
  }
}

/** domain/table/justice/decide.py `describe`. */
function describeJustice(type, d) {
  switch (type) {
    case 'MoveRetracted':
      return `seat ${d.seat} 误操作「${d.phrase}」: retracted versions ${d.first_version}-${d.last_version}`;
    case 'ViolationReported':
      return `seat ${d.by} reports seat ${d.accused}: ${d.violation} (${d.evidence.length} event(s) as evidence); game paused`;
    case 'AppealFiled':
      return `seat ${d.seat} appeals the penalty of case ${d.case_id}: ${d.reason}`;
    case 'VoteCast':
      return `seat ${d.seat} votes ${d.uphold ? 'to uphold' : 'to reject'} case ${d.case_id}`;
    case 'ArbiterRuled':
      return `the arbiter ${d.uphold ? 'upholds' : 'rejects'} case ${d.case_id}`;
    case 'CaseClosed':
      return `case ${d.case_id} closed: ${d.status}`;
    case 'PenaltyApplied':
      return `penalty on seat ${d.seat}: ${d.penalty.kind}${d.penalty.count ? ` ${d.penalty.count}` : ''}`;
    case 'PenaltyRevoked':
      return `the penalty of case ${d.case_id} on seat ${d.seat} is revoked`;
    case 'GameRedealt':
      return `重新洗牌发牌: a new deal (round ${d.round})`;
    case 'TurnTimedOut':
      return `seat ${d.seat} timed out (${d.limit_ms} ms)`;
    case 'RedealAgreed':
      return `seat ${d.seat} agrees to 重新洗牌发牌 on case ${d.case_id}`;
    case 'CaseTimedOut':
      return `case ${d.case_id} ran out of time (never voted: ${seatList(d.seats) || 'the arbiter'})`;
    case 'AttemptRefereed':
      return `seat ${d.seat}: ${d.violation} refereed (${d.rule}: ${d.reason})`;
    default:
      throw new Error(`a fact the renderer does not know: ${type}`);
  }
}

/** domain/huaniao/views.py `describe`. */
function describeHuaniao(type, d) {
  const w = wordsTable().huaniao;
  const cards = (cs) => cs.map((c) => w.card[c.kind]).join('+');
  const hidden = (cs, count) => (cs.length ? cards(cs) : `${count} 张`);
  switch (type) {
    case 'Dealt':
      return `seat ${d.seat} 发牌 ${hidden(d.cards, d.count)}`;
    case 'LeaderChosen':
      return `seat ${d.seat} 鸟牌最多，先手${d.tied.length ? ` (抽自 ${d.tied.join(',')})` : ''}`;
    case 'Played':
      return describePlay(d, w, cards);
    case 'Perched':
      return `seat ${d.seat} 栖`;
    case 'Drew':
      return `seat ${d.seat} 摸 ${hidden(d.cards, d.count)} (${w.cause[d.cause]})`;
    case 'DiscardRequired':
      return `seat ${d.seat} 须弃 ${d.count} 张 (${d.causes.map((c) => w.cause[c]).join('+')})`;
    case 'Discarded':
      return `seat ${d.seat} 弃 ${cards(d.cards)}`;
    case 'HandLimitChanged':
      return `手牌上限 ${d.limit} (${d.delta >= 0 ? '+' : ''}${d.delta}, ${w.combo[d.combo]})`;
    case 'CardsExchanged':
      return `花鸟风月 交换: ${d.transfers.map((x) => `${x.from_seat}→${x.to_seat} ${x.card ? w.card[x.card.kind] : '?'}`).join(', ')}`;
    case 'CardTaken': {
      const x = d.transfer;
      return `seat ${x.to_seat} 从 seat ${x.from_seat} 取 ${x.card ? w.card[x.card.kind] : '?'} (${w.cause[d.cause]})`;
    }
    case 'PlayRestarted':
      return `白昼: 全员栖, seat ${d.seat} 以鸟牌重新开始`;
    case 'GuessingOpened':
      return `曲高和寡: seat ${d.seat} 只剩1张`;
    case 'GuessMade':
      if (d.passed) return `seat ${d.seat} 不猜`;
      return `seat ${d.seat} 猜 ${d.card_class ? w.class[d.card_class] : '?'}`;
    case 'GuessesRevealed':
      return `seat ${d.seat} 的牌是${w.class[d.card_class]}, 猜对 ${d.correct} 人` +
        (d.passed.length ? `, 不猜 ${d.passed.join(',')}` : '');
    case 'SeasonChanged':
      return `seat ${d.seat} 换季 → ${w.season[d.season]} (第 ${d.round} 回合)`;
    case 'SongEnded':
      return `一曲终了 (${d.reason === 'HAND_EMPTIED' ? '手牌打完' : '牌堆打完'}) 「${d.verse}」`;
    case 'HandsRecovered':
      return `大对决: 回收手牌${d.cards.length ? ` ${d.cards.length} 张` : ''}`;
    case 'ShowdownDealt': {
      const hands = d.hands.map((h) => `seat ${h.seat} ${cards(h.cards) || '?'} ${w.pattern[h.pattern]} ${h.score}/${h.total}`).join('; ');
      return `大对决 第${d.round}轮${d.refilled ? ' (重洗)' : ''}${d.chant ? ` 「${d.chant}」` : ''}: ${hands}`;
    }
    case 'GameEnded':
      return `终局 ${d.reason}: 胜者 seat ${d.winners.join(',')}; 分值 ${d.scores.join(' ')}`;
    case 'PenaltyDiscarded':
      return `seat ${d.seat} 罚弃${d.from_table ? '桌上违规牌' : '手牌'} ${cards(d.cards)}`;
    case 'DanceBanned':
      return `seat ${d.seat} 下回合不可舞 (第 ${d.turn + 1} 回合)`;
    case 'HandOpened':
      return `seat ${d.seat} 公开手牌 ${cards(d.cards) || '0 张'} (${d.turns} 手)`;
    case 'AttemptPlayed': {
      const body = cards(d.cards);
      return `seat ${d.seat} 违规出牌 ${d.combo !== null && d.combo !== undefined ? `${w.combo[d.combo]} ${body}` : body} [${d.reason}], 待举报`;
    }
    case 'GuessingCancelled':
      return `曲高和寡取消: seat ${d.seat} 的手牌因处罚而变`;
    case 'ExtraActionsDeclined':
      return `seat ${d.seat} 繁花似锦: 余 ${d.unused} 次不用, 结束回合`;
    case 'Recited':
      return `seat ${d.seat} 诵${w.verse[d.verse]}「${d.text}」`;
    default:
      throw new Error(`a 花鸟风月 fact the renderer does not know: ${type}`);
  }
}

const given = (v) => v !== null && v !== undefined;

function describePlay(e, w, cards) {
  let head = `seat ${e.seat} ${w.play_kind[e.kind]}`;
  if (given(e.season)) head += ` [${w.season[e.season]}]`;
  let body = cards(e.cards);
  if (given(e.combo)) body = `${w.combo[e.combo]} ${body}`;
  if (e.kind !== 'WU') body += ` (${e.count})`;
  if (given(e.target)) body += ` → seat ${e.target}`;
  if (given(e.announce)) body += ` 宣言 ${e.announce}`;
  if (given(e.chosen_season)) body += ` 选${w.season[e.chosen_season]}`;
  if (e.verse) body += ` 「${e.verse}」`;
  return `${head} ${body}`;
}

/** domain/zipai/views.py `describe`. */
function describeZipai(type, e) {
  const w = wordsTable().zipai;
  const name = (c) => (c.big ? w.big : w.small)[c.rank - 1];
  const names = (cs) => cs.map(name).join('');
  const groups = (gs) => gs.map((g) => names(g.cards)).join(' ');
  switch (type) {
    case 'HandStarted':
      return `hand started: seat ${e.dealer} deals, ${e.stock_size} cards in the stock` +
        (given(e.sitting_out) ? `; seat ${e.sitting_out} sits out` : '');
    case 'Dealt':
      return `seat ${e.seat} was dealt ${e.cards.length ? names(e.cards) : `${e.count} cards`}`;
    case 'LongLaidDown':
      return `seat ${e.seat} laid down 拢 of ${name(e.face_up)}${e.taken ? ' with its own flip' : ''}${e.discard_required ? ' and must discard' : ''}`;
    case 'CardDrawn':
      return `seat ${e.seat} drew ${given(e.card) ? name(e.card) : 'a card'} (${e.reason === 'REPLACEMENT' ? '补张' : "the dealer's 21st card"})`;
    case 'Prompted':
      return `${e.prompt.toLowerCase().replaceAll('_', ' ')} prompt for ${seatList(e.seats) || 'no seat'}`;
    case 'BaoDeclared':
      return `seat ${e.seat} declared 爆`;
    case 'BaoDeclined':
      return `seat ${e.seat} declined 爆`;
    case 'CardDiscarded':
      return `seat ${e.seat} discarded ${name(e.card)}`;
    case 'CardFlipped':
      return `seat ${e.seat} flipped ${name(e.card)} (${e.stock_left} left)`;
    case 'ClaimMade': {
      if (!given(e.claim)) return `seat ${e.seat} answered`;
      let detail = '';
      if (e.claim.kind === 'CHI') {
        detail = ` with ${names(e.claim.cards)}`;
        if (e.claim.bi.length) detail += `, 比 ${groups(e.claim.bi)}`;
      }
      return `seat ${e.seat} claims ${w.claim[e.claim.kind]}${detail}${e.guo_zhang ? ' (过张)' : ''}`;
    }
    case 'Chied':
      return `seat ${e.seat} ate ${name(e.card)} with ${names(e.cards)}${e.bi.length ? `, 比 ${groups(e.bi)}` : ''}`;
    case 'Penged':
      return `seat ${e.seat} ponged ${name(e.card)}`;
    case 'Zhaoed':
      return `seat ${e.seat} konged (招) ${name(e.card)}${e.discard_required ? ' and must discard' : ''}`;
    case 'NobodyClaimed':
      return `nobody took ${name(e.card)}`;
    case 'Hued':
      return `seat ${e.seat} won (胡)${given(e.card) ? ` on ${name(e.card)}` : ''}, ${e.win_kind}: ${groups(e.groups)}; ` +
        `${e.hu_points} 胡, ${e.fan} fan, scores [${e.scores.join(', ')}]`;
    case 'HuangZhuang':
      return '荒庄: the stock ran out';
    default:
      throw new Error(`a 川南字牌 fact the renderer does not know: ${type}`);
  }
}

// --- facts as messages ----------------------------------------------------------------------

const snake = (name) => name.replace(/(?!^)(?=[A-Z])/g, '_').toLowerCase();
const BIG = (v) => typeof v === 'bigint';

/** A 64-bit integer protobufjs writes exactly: a BigInt as its low and high words. */
function int64(v) {
  if (!BIG(v)) return v;
  const u = BigInt.asUintN(64, v);
  return { low: Number(u & 0xffffffffn) | 0, high: Number(u >> 32n) | 0 };
}

const isDefault = (v) => v === 0 || v === 0n || v === '' || v === false || (Array.isArray(v) && !v.length);
const hasPresence = (field) => Boolean(field.options && field.options.proto3_optional);

/** One scalar or enum value as the message holds it (an enum by its PREFIX_MEMBER number). */
function scalar(field, v) {
  const type = field.resolvedType;
  if (type && type.values) {
    const number = type.values[`${snake(type.name).toUpperCase()}_${v}`];
    if (number === undefined) throw new Error(`${field.name}: ${v} is no ${type.name}`);
    return number;
  }
  return /64$/.test(field.type) ? int64(v) : v;
}

/**
 * A dataclass's data as the plain object of message `type` that encodes as Python's
 * ``type(**as_kwargs(desc, value))`` does: a None is unset, a message always set, a scalar
 * without presence only when it is not its default (server/wire/protoconv.py).
 */
function message(type, data) {
  const out = {};
  for (const [name, v] of Object.entries(data)) {
    if (v === null || v === undefined) continue;
    const field = type.fields[name];
    if (!field) throw new Error(`${type.name} has no field ${name}`);
    field.resolve();
    const sub = field.resolvedType && !field.resolvedType.values ? field.resolvedType : null;
    if (field.repeated) {
      if (v.length) out[name] = v.map((x) => (sub ? message(sub, x) : scalar(field, x)));
    } else if (sub) {
      out[name] = message(sub, v);
    } else if (hasPresence(field) || !isDefault(v)) {
      out[name] = scalar(field, v);
    }
  }
  return out;
}

const bytesOf = (hex) => Buffer.from(hex, 'hex');

/** The facts server/wire/render.py writes field by field (parts of them never sent). */
function writtenTable(type, d, kind, T) {
  const set = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => !isDefault(v) && v !== null));
  switch (type) {
    case 'GameCreated': {
      const options = T.lookupType('tabletop.v1.GameOptions');
      const created = set({
        seat_count: d.seat_count,
        commitment: d.commitment,
        match_id: d.match_id || '',
        hand: d.hand || 0,
        deal_source: scalar(T.lookupType('tabletop.v1.GameCreated').fields.deal_source, `${d.deal_source || 'SHUFFLED'}`),
        reveal_timeout_ms: d.reveal_timeout_ms || 0,
        case_time_limit_ms: d.case_time_limit_ms || 0,
        abandon_after_ms: d.abandon_after_ms || 0,
        justice_budget_ms: d.justice_budget_ms || 0,
        match_redeals_used: d.match_redeals_used || 0,
        match_failed_reports: d.match_failed_reports || [],
        allow_unkeyed_seats: !d.seat_keys_required,
        arbiter_public_key: bytesOf(d.arbiter_public_key || ''),
        player_login_required: !!d.player_login_required,
        reserved_players: d.reserved_players || [],
        app: d.app || '',
      });
      if (created.arbiter_public_key && !created.arbiter_public_key.length) delete created.arbiter_public_key;
      created.options = { [kind]: message(options.fields[kind].resolve().resolvedType, d.options) };
      if (given(d.max_redeals)) created.max_redeals = d.max_redeals;
      return { game_created: created };
    }
    case 'RedealOpened':
      return { redeal_opened: set({ round: d.round, requested_by: d.requested_by, commitment: d.commitment }) };
    case 'SeatTaken': {
      const taken = set({
        seat: d.seat,
        player_name: d.player_name,
        contribution_commitment: d.commitment || '',
        player: d.player || '',
      });
      if (d.public_key) taken.public_key = bytesOf(d.public_key);
      return { seat_taken: taken };
    }
    case 'SeatRekeyed': {
      const k = set({ seat: d.seat });
      if (d.public_key) k.public_key = bytesOf(d.public_key);
      if (d.old_public_key) k.old_public_key = bytesOf(d.old_public_key);
      return { seat_rekeyed: k };
    }
    case 'ContributionRevealed':
      return { contribution_revealed: set({ seat: d.seat }) };
    case 'RevealWithheld':
      return { reveal_withheld: set({ seat: d.seat }) };
    case 'GameStarted':
      return { game_started: set({ deck: d.deck, deck_hidden: !d.deck.length, seed: int64(d.seed) }) };
    case 'ShuffleRevealed':
      return { shuffle_revealed: set({ secret: d.secret, salt: d.salt || '' }) };
    case 'MoveRetracted':
      return {
        move_retracted: set({ seat: d.seat, first_version: d.first_version, last_version: d.last_version, phrase: d.phrase }),
      };
    default:
      return null;
  }
}

const WRITTEN = new Set(['GameCreated', 'RedealOpened', 'SeatTaken', 'SeatRekeyed', 'ContributionRevealed',
  'RevealWithheld', 'GameStarted', 'ShuffleRevealed', 'MoveRetracted']);

/** A "Z" time with six decimals (the chained form) as a google.protobuf.Timestamp. */
function timestamp(text) {
  const m = /^(.*T[0-9:]{8})\.([0-9]{6})Z$/.exec(text);
  if (!m) throw new Error(`recorded_at ${text} is not in the chained form`);
  const seconds = Date.parse(`${m[1]}Z`) / 1000;
  const nanos = Number(m[2]) * 1000;
  const out = {};
  if (seconds) out.seconds = seconds;
  if (nanos) out.nanos = nanos;
  return out;
}

/** One record's event as `viewer` is sent it: a GameEvent plain object. */
function eventMessage(kind, record, viewer, T) {
  const { type } = record.fact;
  const table = TABLE_FACTS.has(type) || JUSTICE_FACTS.has(type);
  let data;
  let text;
  if (table) {
    data = redactTable(type, record.fact.data, viewer);
    text = describeTable(type, data);
  } else if (kind === 'huaniao') {
    data = redactHuaniao(type, record.fact.data, viewer);
    text = describeHuaniao(type, data);
  } else if (kind === 'zipai') {
    data = redactZipai(type, record.fact.data, viewer);
    text = describeZipai(type, data);
  } else {
    throw new Error(`a game kind the renderer does not know: ${kind}`);
  }
  const event = { version: record.version, recorded_at: timestamp(record.recorded_at), hash: record.hash };
  if (text) event.text = text;
  const outer = table ? 'table' : kind;
  if (WRITTEN.has(type)) {
    event.table = writtenTable(type, data, kind, T);
  } else {
    const body = T.lookupType('tabletop.v1.GameEvent').fields[outer].resolve().resolvedType;
    const member = body.fields[snake(type)];
    if (!member) throw new Error(`a fact the contract does not name: ${outer}.${snake(type)}`);
    member.resolve();
    const { restored, ...rest } = data; // a retraction's state is never part of a message
    event[outer] = { [snake(type)]: message(member.resolvedType, type === 'MoveRetracted' ? rest : data) };
  }
  return event;
}

/**
 * The ReceiptPayload bytes of viewer `index` (receipt order: seats, spectator, arbiter) for
 * the move `first`..`last` of a verified game's `records`: what its events hash covers.
 */
function renderEvents(records, first, last, index, lean = false) {
  const { root } = load();
  const created = records[0].fact.data;
  const viewer = receiptViewer(index, created.seat_count);
  const events = records.slice(first - 1, last).map((r) => eventMessage(created.kind, r, viewer, root));
  if (lean) for (const e of events) delete e.hash; // receipts of format 3: sent without chain hashes
  const payload = root.lookupType('tabletop.v1.ReceiptPayload');
  return Buffer.from(payload.encode({ events }).finish());
}

module.exports = { renderEvents, receiptViewer, message, wordsTable, WORDS_FILE };
