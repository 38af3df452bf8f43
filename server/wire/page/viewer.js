// The referee's console: steps through server-rendered views. It never re-runs a move: every
// version's view comes from the server's per-viewer Replay (or, live, from its event stream).
(function () {
  "use strict";
  const DATA = JSON.parse(document.getElementById("tabletop-data").textContent);
  const $ = (id) => document.getElementById(id);
  const ENUMS = DATA.enums || {};
  // The game's words (server/wire/page/terms.py): [Chinese, English] per enum value, field
  // and page word; the rewrites of the server's event lines.
  const TERMS = DATA.terms || {};
  const T_ENUM = TERMS.enums || {};
  const T_FIELD = TERMS.fields || {};
  const T_UI = TERMS.ui || {};
  const LINES = (TERMS.lines || []).map(([re, to]) => [new RegExp(re), to]);
  const KIND_NAME = { huaniao: "花鸟风月", zipai: "川南字牌" };
  const HUANIAO = {
    CARD_KIND_BIRD: ["鸟", "bird"], CARD_KIND_TEN: ["十", "ten"],
    CARD_KIND_HUNDRED: ["百", "hundred"], CARD_KIND_THOUSAND: ["千", "thousand"],
    CARD_KIND_TEN_THOUSAND: ["万", "ten-thousand"], CARD_KIND_FLOWER: ["花", "flower"],
    CARD_KIND_WIND: ["风", "wind"], CARD_KIND_MOON: ["月", "moon"],
  };
  const SMALL = "一二三四五六七八九十";
  const BIG = "壹贰叁肆伍陆柒捌玖拾";
  // Table facts of the justice side (issue: marked on the timeline), by their proto field:
  // [marker class, the name shown, its English].
  const JUSTICE = {
    move_retracted: ["retract", "误操作", "misplay retracted"], violation_reported: ["report", "举报", "report"],
    appeal_filed: ["appeal", "申诉", "appeal"], vote_cast: ["vote", "投票", "vote"],
    arbiter_ruled: ["ruling", "裁定", "ruling"], case_closed: ["ruling", "结案", "case closed"],
    penalty_applied: ["penalty", "处罚", "penalty"], penalty_revoked: ["penalty", "撤销处罚", "penalty revoked"],
    game_redealt: ["redeal", "重新洗牌发牌", "redeal"], turn_timed_out: ["timeout", "超时", "timeout"],
    attempt_refereed: ["penalty", "违规裁定", "attempt refereed"],
    redeal_opened: ["redeal", "请求重发", "redeal asked for: drawn by commit–reveal"],
  };
  const HIDDEN_COUNTS = { hand_count: "cards", hand_size: "hand" }; // count -> the cards field

  const viewers = DATA.viewers || [];
  let current = viewers.find((v) => v.key === DATA.default_viewer) || viewers[0];
  let pos = current ? dealIndex(current.steps) : 0;
  let pendingVersion = null; // a deep link's version not yet received (live)

  // --- small DOM helpers ------------------------------------------------------------------
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  // --- the game's words --------------------------------------------------------------------
  function ui(key) { return (T_UI[key] || [key])[0]; }
  function uiEl(tag, cls, key, extra) {
    const e = el(tag, cls, ui(key) + (extra || ""));
    if (T_UI[key]) e.title = T_UI[key][1];
    return e;
  }
  const label = (key) => (T_FIELD[key] ? T_FIELD[key][0] : key.replace(/_/g, " "));
  function labelEl(tag, cls, key, suffix) {
    const e = el(tag, cls, label(key) + (suffix || ""));
    e.title = T_FIELD[key] ? T_FIELD[key][1] : key.replace(/_/g, " ");
    return e;
  }
  function termOf(v) { // an enum value in the game's words (else its short English name)
    if (Object.prototype.hasOwnProperty.call(T_ENUM, v)) return T_ENUM[v][0];
    return enumName(v);
  }
  function termEl(v, cls) {
    const e = el("span", cls || null, termOf(v));
    if (T_ENUM[v]) e.title = T_ENUM[v][1];
    return e;
  }
  const seatName = (s) => s + ui("seat");
  function line(text) { // a server event line in the game's words
    if (!text) return "";
    let out = text;
    for (const [re, to] of LINES) {
      if (re.test(out)) { out = out.replace(re, to); break; }
    }
    out = out.replace(/seat (\d+)/g, (m, n) => seatName(n));
    out = out.replace(/⟨SEATS:([\d, ]+)⟩/g, (m, list) => list.split(/,\s*/).map(seatName).join("、"));
    return out.replace(/⟨(\w+)⟩/g, (m, v) => termOf(v));
  }
  function lineEl(tag, cls, text) {
    const e = el(tag, cls, line(text));
    if (text) e.title = text;
    return e;
  }
  const same = (a, b) => JSON.stringify(a === undefined ? null : a) === JSON.stringify(b === undefined ? null : b);

  // --- cards --------------------------------------------------------------------------------
  function isCard(x) {
    if (!x || typeof x !== "object" || Array.isArray(x)) return false;
    const keys = Object.keys(x);
    if (!keys.every((k) => ["id", "kind", "rank", "big"].includes(k))) return false;
    return (typeof x.kind === "string" && x.kind.startsWith("CARD_KIND_")) || typeof x.rank === "number";
  }
  function cardIds(x, out) {
    out = out || new Set();
    if (Array.isArray(x)) x.forEach((y) => cardIds(y, out));
    else if (isCard(x)) out.add(x.id || 0);
    else if (x && typeof x === "object") Object.values(x).forEach((y) => cardIds(y, out));
    return out;
  }
  function cardEl(c, fresh) {
    const id = c.id || 0;
    let name = "?";
    let cls = "card";
    if (typeof c.kind === "string") {
      const known = HUANIAO[c.kind];
      if (known) { name = known[0]; cls += " hn-" + known[1]; }
    } else {
      const rank = c.rank || 0;
      name = (c.big ? BIG : SMALL)[rank - 1] || "?";
      if (rank === 2 || rank === 7 || rank === 10) cls += " zp-red"; // 二七十 are red
      if (c.big) cls += " zp-big";
    }
    if (fresh) cls += " new";
    const e = el("span", cls, name);
    e.dataset.card = String(id);
    e.title = name + " #" + id;
    return e;
  }
  function kindCard(k) { // a 川南字牌 face (0..19): 一…十 small, 壹…拾 big
    const e = cardEl({ id: -1, rank: (k % 10) + 1, big: k >= 10 }, false);
    delete e.dataset.card;
    e.classList.add("face");
    e.title = e.textContent;
    return e;
  }
  function kindsEl(list) {
    const box = el("span", "cards");
    list.forEach((k) => box.appendChild(kindCard(k)));
    return box;
  }
  function backs(n) {
    const box = el("span", "cards");
    for (let i = 0; i < Math.min(n, 40); i++) box.appendChild(el("span", "card back"));
    if (n > 40) box.appendChild(el("span", "muted", " +" + (n - 40)));
    return box;
  }

  // --- generic values -----------------------------------------------------------------------
  function enumName(v) {
    return Object.prototype.hasOwnProperty.call(ENUMS, v) ? ENUMS[v] : v;
  }
  function valueEl(v, before, key) {
    if ((key === "played" || key === "guo_zhang") && DATA.kind === "zipai" && Array.isArray(v)) return kindsEl(v);
    if ((key === "from_seat" || key === "shown_by" || key === "winner" || key === "leader" || key === "dealer" || key === "turn"
      || key === "seat" || key === "guess_target" || key === "accused" || key === "by") && typeof v === "number") return el("span", null, seatName(v));
    if ((key === "to_act" || key === "awaiting" || key === "winners" || key === "redeals_requested_by"
      || key === "upheld_by" || key === "rejected_by" || key === "recused") && Array.isArray(v) && v.every((x) => typeof x === "number")) {
      return el("span", null, v.length ? v.map(seatName).join("、") : ui("none"));
    }
    if (key === "hidden_size" && typeof v === "number") return backs(v);
    if ((key === "reason" || key === "end_reason") && typeof v === "string" && (TERMS.reasons || {})[v]) {
      const e = el("span", null, TERMS.reasons[v][0]);
      e.title = TERMS.reasons[v][1];
      return e;
    }
    const seen = cardIds(before);
    if (Array.isArray(v) && v.length && v.every(isCard)) {
      const box = el("span", "cards");
      v.forEach((c) => box.appendChild(cardEl(c, before !== undefined && !seen.has(c.id || 0))));
      return box;
    }
    if (isCard(v)) {
      const box = el("span", "cards");
      box.appendChild(cardEl(v, before !== undefined && !seen.has(v.id || 0)));
      return box;
    }
    if (Array.isArray(v)) {
      const box = el("span", "groups");
      v.forEach((item, i) => {
        if (item && typeof item === "object") box.appendChild(groupEl(item, before));
        else {
          if (i) box.appendChild(document.createTextNode("、"));
          box.appendChild(termEl(item));
        }
      });
      return box;
    }
    if (v && typeof v === "object") return groupEl(v, before);
    if (typeof v === "boolean") return uiEl("span", null, v ? "yes" : "no");
    return termEl(v);
  }
  // A group (a meld, a play, a case): its kind and shape by their words, its cards bare, the
  // rest labelled. A 碰/招/拢 meld names its cards by the meld (碰 three alike, 招 four).
  const BARE = ["kind", "group", "cards", "pattern"];
  function groupEl(obj, before) {
    const g = el("span", "group");
    if (obj.kind && typeof obj.kind === "string" && obj.kind.startsWith("MELD_KIND_")) g.dataset.meld = obj.kind;
    for (const [k, v] of Object.entries(obj)) {
      if (k === "group" && ["GROUP_KIND_TRIPLE", "GROUP_KIND_FOUR"].includes(v) && obj.kind) continue; // 碰/招/拢 say it
      if (BARE.includes(k) && typeof v === "string") { g.appendChild(termEl(v, "tag term")); continue; }
      if (!BARE.includes(k)) g.appendChild(labelEl("span", "tag", k, ":"));
      g.appendChild(valueEl(v, before, k));
    }
    return g;
  }
  function row(key, v, before, compare) {
    const r = el("div", "row");
    if (compare && !same(v, before)) r.classList.add("changed");
    r.dataset.key = key;
    r.appendChild(labelEl("span", "k", key));
    r.appendChild(valueEl(v === undefined ? "" : v, compare ? (before === undefined ? [] : before) : undefined, key));
    return r;
  }
  function rows(box, obj, prevObj, skip, compare) {
    const keys = [...new Set([...Object.keys(obj || {}), ...Object.keys(prevObj || {})])];
    for (const k of keys) {
      if (skip.includes(k)) continue;
      box.appendChild(row(k, (obj || {})[k], (prevObj || {})[k], compare));
    }
  }

  // --- events -------------------------------------------------------------------------------
  function justiceOf(event) {
    const t = event && event.table;
    if (!t) return null;
    const k = Object.keys(t)[0];
    return JUSTICE[k] ? { field: k, cls: JUSTICE[k][0], name: JUSTICE[k][1], en: JUSTICE[k][2] } : null;
  }
  function endsGame(step, prev) {
    return step.view.outcome && !(prev && prev.view.outcome);
  }
  function dealIndex(steps) { // where the page opens: the first deal
    const fact = (s) => (s.event && (s.event[DATA.kind] || {})) || {};
    let i = steps.findIndex((s) => "dealt" in fact(s));
    if (i < 0) i = steps.findIndex((s) => s.view && s.view[DATA.kind]);
    return i < 0 ? Math.max(0, steps.length - 1) : i;
  }

  // --- the page -----------------------------------------------------------------------------
  function renderHeader() {
    const kind = DATA.kind || "";
    $("title").textContent = (KIND_NAME[kind] || kind) + (DATA.game_id ? " · " + DATA.game_id : "");
    $("title").title = "game " + (DATA.game_id || "");
    const box = $("verify");
    box.textContent = "";
    const v = DATA.verify;
    if (v) {
      const ok = v.status === "verified";
      const badge = el("span", "badge " + (ok ? "ok" : v.status === "failed" ? "bad" : "unknown"),
        ui("verify") + ": " + ui(v.status));
      badge.id = "verify-status";
      badge.dataset.status = v.status;
      badge.title = "verify: " + v.status;
      box.appendChild(badge);
      (v.checks || []).forEach((c) => box.appendChild(el("span", "badge " + (c.ok ? "ok" : "bad"), (c.ok ? "✓ " : "✗ ") + c.name)));
      if (v.message) box.appendChild(el("span", "muted", v.message));
      if (v.report && Object.keys(v.report).length) {
        const d = el("details");
        d.appendChild(uiEl("summary", null, "report"));
        const dl = el("dl");
        for (const [k, val] of Object.entries(v.report)) {
          dl.appendChild(el("dt", null, label(k)));
          dl.appendChild(el("dd", null, typeof val === "object" ? JSON.stringify(val) : String(val)));
        }
        d.appendChild(dl);
        box.appendChild(d);
      }
    }
    const deal = el("span", "badge", "");
    deal.id = "deal";
    box.appendChild(deal);
    renderDeal();
    $("source").textContent = DATA.source || "";
  }
  function renderDeal() { // from the record when the page has it, else from the views (public)
    const deal = $("deal");
    if (!deal) return;
    let prepared = DATA.prepared_deal;
    const steps = current ? current.steps : [];
    const source = steps.length ? steps[steps.length - 1].view.deal_source : undefined;
    if ((prepared === null || prepared === undefined) && source) prepared = source !== "DEAL_SOURCE_SHUFFLED";
    const known = prepared === true || prepared === false;
    deal.className = "badge" + (known ? "" : " unknown");
    deal.textContent = ui("deal") + ": " + ui(prepared === true ? "prepared" : prepared === false ? "shuffled" : "unknown");
    deal.title = "deal: " + (prepared === true ? "prepared" : prepared === false ? "shuffled" : "not known to this viewer");
  }
  function finishLive() { // the live page after the end: what verifies the game
    const badge = $("verify-status");
    if (!badge) return;
    const id = DATA.game_id || "GAME";
    badge.className = "badge ok";
    badge.dataset.status = "finished";
    badge.textContent = "已终局 — 用 tabletop-audit verify " + id + " 验证";
    badge.title = "finished — verify with tabletop-audit verify " + id;
    [...$("verify").querySelectorAll(".muted")].forEach((m) => m.remove());
    renderDeal();
  }
  function viewerName(v) { // "seat 2 · ann" -> "2家 · ann"; the arbiter and the spectator by role
    if (v.key === "arbiter") return "裁判 (全部可见)";
    if (v.key === "spectator") return "观众" + (DATA.live ? " (直播)" : "");
    const m = /^seat (\d+)(.*)$/.exec(v.label || "");
    return m ? seatName(m[1]) + m[2] : v.label;
  }
  function renderViewers() {
    const sel = $("viewer");
    sel.textContent = "";
    viewers.forEach((v) => {
      const o = el("option", null, viewerName(v));
      o.value = v.key;
      o.title = v.label;
      sel.appendChild(o);
    });
    sel.value = current ? current.key : "";
    sel.disabled = viewers.length < 2;
  }
  function renderLog() {
    const log = $("log");
    log.textContent = "";
    if (!current) return;
    current.steps.forEach((s, i) => log.appendChild(logItem(s, i)));
  }
  function logItem(s, i) {
    const li = el("li");
    const j = justiceOf(s.event);
    if (j) li.classList.add("justice");
    li.appendChild(el("span", "v", s.version));
    li.appendChild(lineEl("span", "t", s.event ? s.event.text : ""));
    li.addEventListener("click", () => go(i));
    return li;
  }
  function renderMarkers() {
    const box = $("markers");
    box.textContent = "";
    if (!current) return;
    const steps = current.steps;
    const n = Math.max(1, steps.length - 1);
    steps.forEach((s, i) => {
      const j = justiceOf(s.event);
      const end = endsGame(s, steps[i - 1]);
      if (!j && !end) return;
      const m = el("button", "marker m-" + (j ? j.cls : "end"));
      m.style.left = (100 * i / n) + "%";
      m.title = "v" + s.version + ": " + (j ? j.name + " " + j.en : "终局 the end") + " — " + line(s.event ? s.event.text : "");
      m.dataset.version = String(s.version);
      m.addEventListener("click", () => go(i));
      box.appendChild(m);
    });
  }
  function renderFacts(view, step) {
    const box = $("facts");
    box.textContent = "";
    const fact = (k, v, title) => {
      const s = el("span");
      s.appendChild(labelEl("span", null, k, " "));
      const b = el("b", null, v);
      if (title) b.title = title;
      s.appendChild(b);
      box.appendChild(s);
    };
    const en = (v) => (T_ENUM[v] ? T_ENUM[v][1] : "");
    fact("phase", termOf(view.phase || ""), en(view.phase));
    fact("role", termOf(view.role || "") + (view.role === "ROLE_SEAT" ? " " + seatName(view.seat || 0) : ""), en(view.role));
    if ((view.to_act || []).length) fact("to_act", view.to_act.map(seatName).join("、"));
    if (view.outcome) {
      fact("winners", (view.outcome.winners || []).map(seatName).join("、") || ui("none"));
      fact("scores", (view.outcome.scores || []).join(" · "));
      const reason = view.outcome.reason || "";
      const words = (TERMS.reasons || {})[reason];
      fact("reason", words ? words[0] : reason.toLowerCase().replace(/_/g, " "), words ? words[1] : "");
    }
    if (view.paused) fact("paused", ui("paused"), T_UI.paused[1]);
    if (step.event && step.event.recorded_at) fact("recorded_at", step.event.recorded_at.replace("T", " ").replace("Z", " UTC"));
  }
  // Where a seat sits around the centre: the viewer's own seat (else seat 0) at the bottom,
  // the next seats in play order to the right, across and to the left.
  function place(seat, view) {
    const n = (view.seats || []).length || 1;
    const me = view.role === "ROLE_SEAT" ? view.seat || 0 : 0;
    const k = (seat - me + n) % n;
    const round = { 1: ["bottom"], 2: ["bottom", "top"], 3: ["bottom", "right", "left"], 4: ["bottom", "right", "top", "left"] };
    return (round[n] || round[4])[k] || "top";
  }
  function renderSeats(view, prevView) {
    const box = $("seats");
    box.textContent = "";
    const kind = DATA.kind;
    const game = view[kind] || {};
    const prevGame = prevView ? prevView[kind] || {} : null;
    const gameSeats = game.seats || [];
    const prevSeats = prevGame ? prevGame.seats || [] : [];
    const winners = view.outcome ? view.outcome.winners || [] : []; // an empty list is omitted
    (view.seats || []).forEach((info, i) => {
      const seat = info.seat || 0;
      const gs = gameSeats.find((s, j) => (s.seat === undefined ? j : s.seat) === seat) || {};
      const ps = prevSeats.find((s, j) => (s.seat === undefined ? j : s.seat) === seat);
      const panel = el("div", "seat");
      panel.dataset.seat = String(seat);
      panel.dataset.place = place(seat, view);
      if (view.role === "ROLE_SEAT" && (view.seat || 0) === seat) panel.classList.add("me");
      if ((view.to_act || []).includes(seat)) panel.classList.add("acting");
      const h = el("h3", null, seatName(seat) + " · " + (info.taken ? info.player_name || "—" : ui("free")));
      h.title = "seat " + seat;
      if ((view.to_act || []).includes(seat)) h.appendChild(uiEl("span", "badge turn", "to act"));
      if (winners.includes(seat)) h.appendChild(uiEl("span", "badge win", "winner"));
      panel.appendChild(h);
      for (const [count, field] of Object.entries(HIDDEN_COUNTS)) {
        const n = gs[count] || 0;
        if (count in gs && !(gs[field] || []).length && n > 0) {
          const r = el("div", "row hidden-hand");
          r.appendChild(labelEl("span", "k", field, " (" + ui("hidden") + ")"));
          r.appendChild(backs(n));
          panel.appendChild(r);
        }
      }
      rows(panel, gs, ps, ["seat"], prevView !== null);
      box.appendChild(panel);
    });
  }
  function renderBoard(view, prevView) {
    const box = $("board");
    box.textContent = "";
    const kind = DATA.kind;
    const game = view[kind];
    if (!game) { box.appendChild(uiEl("span", "muted", "not started")); return; }
    box.appendChild(centreEl(game));
    box.appendChild(uiEl("h2", null, "table"));
    rows(box, game, prevView ? prevView[kind] || {} : {}, ["seats", "options", "viewer_seat"], prevView !== null);
  }
  // The centre: the 川南字牌 card on offer (who showed it, who may claim it), the 花鸟风月 last play.
  function centreEl(game) {
    const c = el("div", "centre");
    c.id = "centre";
    if (DATA.kind === "zipai" && game.shown) {
      c.appendChild(valueEl(game.shown));
      const who = el("span", "who", (game.shown_by !== undefined ? seatName(game.shown_by) + " " : "") + (game.shown_flipped ? "翻" : "打"));
      who.title = game.shown_flipped ? "flipped from the stock" : "discarded";
      c.appendChild(who);
      if ((game.awaiting || []).length) c.appendChild(el("span", null, "待 " + game.awaiting.map(seatName).join("、")));
      if (game.prompt) c.appendChild(termEl(game.prompt, "badge"));
    } else if (DATA.kind === "huaniao" && game.last_play) {
      const lp = game.last_play;
      c.appendChild(el("span", "who", seatName(lp.seat || 0)));
      if (lp.kind) c.appendChild(termEl(lp.kind, "who"));
      c.appendChild(valueEl(lp.cards || []));
      if (game.need) { c.appendChild(labelEl("span", null, "need", " ")); c.appendChild(termEl(game.need, "who")); }
    } else {
      c.appendChild(uiEl("span", "muted-light", DATA.kind === "zipai" ? "on offer" : "last play", ": " + ui("none")));
    }
    return c;
  }
  // A win: the winning hand in its 列 with its 胡, 番 and each seat's score (川南字牌's 胡 event).
  function renderWin() {
    const box = $("win");
    box.textContent = "";
    box.classList.remove("shown");
    if (DATA.kind !== "zipai" || !current) return;
    let hu = null;
    for (let i = pos; i >= 0 && !hu; i--) {
      const e = current.steps[i].event;
      if (e && e.zipai && e.zipai.hued) hu = e.zipai.hued;
      if (e && e.zipai && (e.zipai.hand_started || e.zipai.dealt) && i < pos) break;
    }
    if (!hu) return;
    box.classList.add("shown");
    const h = el("h2", null, seatName(hu.seat || 0) + " 胡 · " + termOf(hu.win_kind || ""));
    h.title = "the winning hand";
    box.appendChild(h);
    const groups = el("div", "groups");
    (hu.groups || []).forEach((g) => { // each 列 by its shape; the winning card highlighted
      const box = el("span", "group");
      if (g.kind) box.appendChild(termEl(g.kind, "tag term"));
      const cards = el("span", "cards");
      (g.cards || []).forEach((c) => cards.appendChild(cardEl(c, hu.card && (c.id || 0) === (hu.card.id || 0))));
      box.appendChild(cards);
      groups.appendChild(box);
    });
    box.appendChild(groups);
    const pts = el("div", "pts");
    const pt = (k, v) => { const s = el("span"); s.appendChild(uiEl("span", null, k, " ")); s.appendChild(el("b", null, v)); pts.appendChild(s); };
    pt("hu points", String(hu.hu_points || 0));
    pt("fan", String(hu.fan || 0));
    (hu.scores || []).forEach((v, i) => { const s = el("span", null, seatName(i) + " "); s.appendChild(el("b", null, (v > 0 ? "+" : "") + v)); pts.appendChild(s); });
    box.appendChild(pts);
  }
  function renderJustice(view, prevView) {
    const box = $("justice");
    box.textContent = "";
    const fields = ["cases", "penalties", "misplays_used", "violations", "redeals", "max_redeals", "redeals_requested_by", "redeal_commitment", "enforcement", "turn_time_limit_ms", "case_time_limit_ms", "case_deadline", "reports_left"];
    const shown = fields.filter((k) => k in view && !(k === "enforcement" && view[k] === "ENFORCEMENT_REJECT"));
    if (!shown.length) return;
    const c = el("div", "case");
    c.appendChild(uiEl("h2", null, "justice"));
    const pick = (v) => Object.fromEntries(shown.map((k) => [k, v ? v[k] : undefined]));
    rows(c, pick(view), prevView ? pick(prevView) : {}, [], prevView !== null);
    box.appendChild(c);
  }
  function render() {
    if (!current || !current.steps.length) {
      $("event").textContent = ui("no version");
      $("position").textContent = "";
      return;
    }
    const steps = current.steps;
    pos = Math.max(0, Math.min(pos, steps.length - 1));
    const step = steps[pos];
    const prev = pos > 0 ? steps[pos - 1] : null;
    const view = step.view;
    const prevView = prev ? prev.view : null;
    const slider = $("slider");
    slider.max = String(steps.length - 1);
    slider.value = String(pos);
    $("position").textContent = ui("version") + " " + step.version + " / " + steps[steps.length - 1].version;
    $("position").title = "version " + step.version + " of " + steps[steps.length - 1].version;
    const ev = $("event");
    ev.textContent = "";
    ev.className = "event";
    const j = justiceOf(step.event);
    if (j) {
      ev.classList.add("justice");
      const b = el("span", "badge", j.name);
      b.title = j.en;
      ev.appendChild(b);
      ev.appendChild(document.createTextNode(" "));
    }
    ev.appendChild(el("span", "v", "v" + step.version));
    ev.appendChild(document.createTextNode(" "));
    ev.appendChild(lineEl("span", "t", step.event ? step.event.text : ""));
    renderDeal();
    renderFacts(view, step);
    renderSeats(view, prevView);
    renderBoard(view, prevView);
    renderWin();
    renderJustice(view, prevView);
    const items = $("log").children;
    for (let i = 0; i < items.length; i++) items[i].classList.toggle("current", i === pos);
    if (items[pos]) items[pos].scrollIntoView({ block: "nearest" });
    document.body.dataset.version = String(step.version);
    document.body.dataset.viewer = current.key;
    writeLink(step.version);
  }
  function go(i) { pos = i; render(); }

  // --- deep links: #v=VERSION&viewer=SEAT (a seat number, "spectator" or "arbiter") ---------
  function readLink() {
    const hash = (location.hash || "").replace(/^#/, "");
    const params = new URLSearchParams(hash.replace(/^v(\d+)$/, "v=$1"));
    const who = params.get("viewer");
    if (who !== null) {
      const key = /^\d+$/.test(who) ? "seat-" + who : who;
      const found = viewers.find((x) => x.key === key) || (/^\d+$/.test(who) ? viewers.find((x) => x.key === "seat") : null);
      if (found) current = found;
    }
    const v = params.get("v");
    if (v !== null && /^\d+$/.test(v)) {
      const i = current ? current.steps.findIndex((s) => s.version === Number(v)) : -1;
      if (i >= 0) { pos = i; pendingVersion = null; } else pendingVersion = Number(v);
    }
  }
  let linkWritten = "";
  function writeLink(version) {
    if (!current) return;
    const who = current.key.startsWith("seat-") ? current.key.slice(5) : current.key;
    const hash = "#v=" + version + "&viewer=" + who;
    if (hash === location.hash) return;
    linkWritten = hash;
    try { history.replaceState(null, "", hash); } catch (e) { /* a sandboxed page: no link */ }
  }
  window.addEventListener("hashchange", () => {
    if (location.hash === linkWritten) return;
    readLink(); renderViewers(); renderLog(); renderMarkers(); render();
  });

  // --- controls -----------------------------------------------------------------------------
  $("slider").addEventListener("input", (e) => go(Number(e.target.value)));
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(Math.max(0, pos - 1)));
  $("next").addEventListener("click", () => go(pos + 1));
  $("last").addEventListener("click", () => go(current ? current.steps.length - 1 : 0));
  $("viewer").addEventListener("change", (e) => {
    const version = current && current.steps[pos] ? current.steps[pos].version : 0;
    current = viewers.find((v) => v.key === e.target.value) || current;
    const i = current.steps.findIndex((s) => s.version === version);
    pos = i >= 0 ? i : dealIndex(current.steps);
    renderLog(); renderMarkers(); render();
  });
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (t && (t.id === "slider" || t.tagName === "SELECT")) return; // they step on their own
    if (e.key === "ArrowLeft") go(Math.max(0, pos - 1));
    else if (e.key === "ArrowRight") go(pos + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(current ? current.steps.length - 1 : 0);
    else return;
    e.preventDefault();
  });

  // --- live: the server pushes each new version (Server-Sent Events) ----------------------------
  function follow(live) {
    const badge = $("live");
    badge.hidden = false;
    badge.textContent = "● " + ui("live");
    badge.title = "live";
    const sep = live.steps_url.includes("?") ? "&" : "?";
    const source = new EventSource(live.steps_url + sep + "after=0");
    source.addEventListener("step", (e) => {
      const step = JSON.parse(e.data);
      const steps = current.steps;
      if (steps.length && step.version <= steps[steps.length - 1].version) return; // resent
      const atEnd = pos >= steps.length - 1;
      steps.push(step);
      $("log").appendChild(logItem(step, steps.length - 1));
      if (pendingVersion !== null && step.version === pendingVersion) { pos = steps.length - 1; pendingVersion = null; }
      else if (atEnd && pendingVersion === null) pos = steps.length - 1;
      renderMarkers();
      render();
    });
    source.addEventListener("end", () => {
      source.close();
      badge.textContent = ui("game over");
      badge.title = "game over";
      badge.dataset.state = "ended";
      badge.classList.add("ended");
      finishLive();
    });
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) badge.textContent = "● 重新连接…";
    });
    source.addEventListener("open", () => { badge.textContent = "● " + ui("live"); });
  }

  readLink();
  renderHeader();
  renderViewers();
  renderLog();
  renderMarkers();
  render();
  if (DATA.live) follow(DATA.live);
})();
