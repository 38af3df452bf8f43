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
  // The page's language: 0 Chinese (the table's), 1 English; the toggle keeps it in localStorage.
  const LANG_KEY = "tabletop-page-lang";
  let LANG = 0;
  try { LANG = localStorage.getItem(LANG_KEY) === "en" ? 1 : 0; } catch (e) { /* no storage */ }
  const OTHER = () => 1 - LANG;
  const HUANIAO = {
    CARD_KIND_BIRD: ["鸟", "bird"], CARD_KIND_TEN: ["十", "ten"],
    CARD_KIND_HUNDRED: ["百", "hundred"], CARD_KIND_THOUSAND: ["千", "thousand"],
    CARD_KIND_TEN_THOUSAND: ["万", "ten-thousand"], CARD_KIND_FLOWER: ["花", "flower"],
    CARD_KIND_WIND: ["风", "wind"], CARD_KIND_MOON: ["月", "moon"],
  };
  const SMALL = "一二三四五六七八九十";
  const BIG = "壹贰叁肆伍陆柒捌玖拾";
  // Table facts of the justice side (marked on the timeline), by their proto field:
  // [marker class, the name shown, its English].
  const JUSTICE = {
    move_retracted: ["retract", "误操作", "misplay retracted"], violation_reported: ["report", "举报", "report"],
    appeal_filed: ["appeal", "申诉", "appeal"], vote_cast: ["vote", "投票", "vote"],
    arbiter_ruled: ["ruling", "裁定", "ruling"], case_closed: ["ruling", "结案", "case closed"],
    penalty_applied: ["penalty", "处罚", "penalty"], penalty_revoked: ["penalty", "撤销处罚", "penalty revoked"],
    game_redealt: ["redeal", "重新洗牌发牌", "redeal"], turn_timed_out: ["timeout", "超时", "timeout"],
    attempt_refereed: ["penalty", "违规裁定", "attempt refereed"],
    redeal_opened: ["redeal", "请求重发", "redeal asked for"],
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
  // Every word the page writes comes from the term table as [Chinese, English]: shown in the
  // page's language, the other one in its tooltip.
  function ui(key, lang) { return T_UI[key] ? T_UI[key][lang === undefined ? LANG : lang] : key; }
  function fmt(key, args, lang) { // a phrase with {slots}
    return ui(key, lang).replace(/\{(\w+)\}/g, (m, k) => (k in args ? String(args[k]) : m));
  }
  function uiEl(tag, cls, key, extra) {
    const e = el(tag, cls, ui(key) + (extra || ""));
    if (T_UI[key]) e.title = T_UI[key][OTHER()];
    return e;
  }
  const label = (key, lang) => (T_FIELD[key] ? T_FIELD[key][lang === undefined ? LANG : lang] : key.replace(/_/g, " "));
  function labelEl(tag, cls, key, suffix) {
    const e = el(tag, cls, label(key) + (suffix || ""));
    e.title = label(key, OTHER());
    return e;
  }
  function termOf(v, lang) { // an enum value in the page's language (else its short English name)
    if (Object.prototype.hasOwnProperty.call(T_ENUM, v)) return T_ENUM[v][lang === undefined ? LANG : lang];
    return enumName(v);
  }
  function termEl(v, cls) {
    const e = el("span", cls || null, termOf(v));
    if (T_ENUM[v]) e.title = T_ENUM[v][OTHER()];
    return e;
  }
  const seatName = (s, lang) => ((lang === undefined ? LANG : lang) ? "seat " + s : s + "家");
  const seatsName = (list) => (list && list.length ? list.map((s) => seatName(s)).join(LANG ? ", " : "、") : ui("none"));
  function line(text, lang) { // a server event line in the game's words (English: as the server wrote it)
    if (!text) return "";
    if ((lang === undefined ? LANG : lang) === 1) return text;
    let out = text;
    for (const [re, to] of LINES) {
      if (re.test(out)) { out = out.replace(re, to); break; }
    }
    out = out.replace(/seat (\d+)/g, (m, n) => seatName(n));
    out = out.replace(/⟨SEATS:([\d, ]+)⟩/g, (m, list) => seatsName(list.split(/,\s*/).map(Number)));
    return out.replace(/⟨(\w+)⟩/g, (m, v) => termOf(v));
  }
  function lineEl(tag, cls, text) {
    const e = el(tag, cls, line(text));
    if (text) e.title = line(text, OTHER());
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
      return el("span", null, seatsName(v));
    }
    if (key === "hidden_size" && typeof v === "number") return backs(v);
    if ((key === "reason" || key === "end_reason") && typeof v === "string" && (TERMS.reasons || {})[v]) {
      const e = el("span", null, TERMS.reasons[v][LANG]);
      e.title = TERMS.reasons[v][OTHER()];
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
          if (i) box.appendChild(document.createTextNode(LANG ? ", " : "、"));
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
    if (!JUSTICE[k]) return null;
    const [cls, zh, en] = JUSTICE[k];
    return { field: k, cls: cls, name: LANG ? en : zh, other: LANG ? zh : en };
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
  // The page's fixed words (viewer.html holds their Chinese; these set them in either language).
  function renderChrome() {
    document.documentElement.lang = LANG ? "en" : "zh";
    const words = (id, key, attr) => {
      const e = $(id);
      if (!e) return;
      if (attr) e.setAttribute(attr, ui(key));
      else e.textContent = ui(key);
      if (attr !== "title") e.title = ui(key, OTHER());
    };
    words("viewer-label", "viewer");
    words("first", "first version", "title");
    words("prev", "previous version", "title");
    words("next", "next version", "title");
    words("last", "latest version", "title");
    ["first", "prev", "next", "last"].forEach((id) => $(id).setAttribute("aria-label", $(id).title));
    words("slider", "version", "aria-label");
    words("log-title", "events");
    const lang = $("lang");
    lang.textContent = LANG ? "中文" : "English";
    lang.lang = LANG ? "zh" : "en";
    lang.title = LANG ? "用中文显示" : "show the page in English";
    lang.setAttribute("aria-pressed", LANG ? "true" : "false");
    renderHelp();
  }
  // The referee's workflow, named in the page's help.
  function renderHelp() {
    const box = $("help");
    box.textContent = "";
    box.appendChild(uiEl("summary", null, "help"));
    const ol = el("ol");
    ["help find", "help step", "help viewers", "help case"].forEach((k) => {
      const li = el("li");
      const [head, rest] = ui(k).split(/\|/);
      li.appendChild(el("b", null, head));
      li.appendChild(document.createTextNode(rest || ""));
      li.title = ui(k, OTHER()).replace("|", "");
      ol.appendChild(li);
    });
    box.appendChild(ol);
  }
  function renderHeader() {
    const kind = DATA.kind || "";
    const name = ui("game " + kind);
    $("title").textContent = name + (DATA.game_id ? " · " + DATA.game_id : "");
    $("title").title = ui("game " + kind, OTHER());
    const box = $("verify");
    box.textContent = "";
    const v = DATA.verify;
    if (v) {
      const ok = v.status === "verified";
      const badge = el("span", "badge " + (ok ? "ok" : v.status === "failed" ? "bad" : "unknown"),
        ui("verify") + ": " + ui(v.status));
      badge.id = "verify-status";
      badge.dataset.status = v.status;
      badge.title = ui("verify", OTHER()) + ": " + ui(v.status, OTHER());
      box.appendChild(badge);
      (v.checks || []).forEach((c) => {
        const b = el("span", "badge " + (c.ok ? "ok" : "bad"), (c.ok ? "✓ " : "✗ ") + ui("check " + c.name).replace(/^check /, ""));
        b.title = ui("check " + c.name, OTHER()).replace(/^check /, "");
        box.appendChild(b);
      });
      if (v.message) box.appendChild(el("span", "muted", v.message));
      if (v.report && Object.keys(v.report).length) {
        const d = el("details");
        d.appendChild(uiEl("summary", null, "report"));
        const dl = el("dl");
        for (const [k, val] of Object.entries(v.report)) {
          dl.appendChild(labelEl("dt", null, k));
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
    if (finished) finishLive();
    $("source").textContent = DATA.source || "";
  }
  // The deal's source: from the record when the page has it, else from the views (public).
  function dealWords(lang) {
    const steps = current ? current.steps : [];
    const source = DATA.deal_source || (steps.length ? steps[steps.length - 1].view.deal_source : undefined);
    let prepared = DATA.prepared_deal;
    if ((prepared === null || prepared === undefined) && source) prepared = source !== "DEAL_SOURCE_SHUFFLED";
    const known = prepared === true || prepared === false;
    const what = source ? termOf(source, lang) : ui(prepared === true ? "prepared" : prepared === false ? "shuffled" : "unknown", lang);
    return [known, ui("deal", lang) + ": " + what];
  }
  function renderDeal() {
    const deal = $("deal");
    if (!deal) return;
    const [known, text] = dealWords();
    deal.className = "badge" + (known ? "" : " unknown");
    deal.textContent = text;
    deal.title = dealWords(OTHER())[1];
  }
  let finished = false; // the live page after the end
  function finishLive() { // what verifies the game, once it is over
    finished = true;
    const badge = $("verify-status");
    if (!badge) return;
    const id = DATA.game_id || "GAME";
    badge.className = "badge ok";
    badge.dataset.status = "finished";
    badge.textContent = fmt("finished verify", { cmd: "tabletop-audit verify " + id });
    badge.title = fmt("finished verify", { cmd: "tabletop-audit verify " + id }, OTHER());
    [...$("verify").querySelectorAll(".muted")].forEach((m) => m.remove());
    renderDeal();
  }
  function viewerName(v, lang) { // "seat 2 · ann" -> "2家 · ann"; the arbiter and the spectator by role
    if (v.key === "arbiter") return ui("arbiter view", lang);
    if (v.key === "spectator") return ui("spectator", lang) + (DATA.live ? ui("live suffix", lang) : "");
    const m = /^seat (\d+)(.*)$/.exec(v.label || "");
    return m ? seatName(m[1], lang) + m[2] : v.label;
  }
  function renderViewers() {
    const sel = $("viewer");
    sel.textContent = "";
    viewers.forEach((v) => {
      const o = el("option", null, viewerName(v));
      o.value = v.key;
      o.title = viewerName(v, OTHER());
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
      m.type = "button";
      m.style.left = (100 * i / n) + "%";
      m.title = "v" + s.version + ": " + (j ? j.name + " (" + j.other + ")" : ui("the end") + " (" + ui("the end", OTHER()) + ")") + " — " + line(s.event ? s.event.text : "");
      m.setAttribute("aria-label", m.title);
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
    const other = (v) => (T_ENUM[v] ? T_ENUM[v][OTHER()] : "");
    fact("phase", termOf(view.phase || ""), other(view.phase));
    const seatRole = view.role === "ROLE_SEAT";
    fact("role", seatRole && LANG ? seatName(view.seat || 0) : termOf(view.role || "") + (seatRole ? " " + seatName(view.seat || 0) : ""), other(view.role));
    if ((view.to_act || []).length) fact("to_act", seatsName(view.to_act));
    if (view.outcome) {
      fact("winners", seatsName(view.outcome.winners || []));
      fact("scores", (view.outcome.scores || []).join(" · "));
      const reason = view.outcome.reason || "";
      const words = (TERMS.reasons || {})[reason];
      fact("reason", words ? words[LANG] : reason.toLowerCase().replace(/_/g, " "), words ? words[OTHER()] : "");
    }
    if (view.paused) fact("paused", ui("paused"), ui("paused", OTHER()));
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
    (view.seats || []).forEach((info) => {
      const seat = info.seat || 0;
      const gs = gameSeats.find((s, j) => (s.seat === undefined ? j : s.seat) === seat) || {};
      const ps = prevSeats.find((s, j) => (s.seat === undefined ? j : s.seat) === seat);
      const panel = el("div", "seat");
      panel.dataset.seat = String(seat);
      panel.dataset.place = place(seat, view);
      if (view.role === "ROLE_SEAT" && (view.seat || 0) === seat) panel.classList.add("me");
      if ((view.to_act || []).includes(seat)) panel.classList.add("acting");
      const h = el("h3", null, seatName(seat) + " · " + (info.taken ? info.player_name || "—" : ui("free")));
      h.title = seatName(seat, OTHER());
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
      const how = game.shown_flipped ? "flipped" : "discarded";
      const who = el("span", "who", (game.shown_by !== undefined ? seatName(game.shown_by) + " " : "") + ui(how));
      who.title = ui(how, OTHER());
      c.appendChild(who);
      if ((game.awaiting || []).length) c.appendChild(el("span", null, ui("awaiting") + " " + seatsName(game.awaiting)));
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
  // The win panel: the 川南字牌 winning hand in its 列 with its 胡, 番 and each seat's score; the
  // 花鸟风月 end with who went out, each seat's cards left and its points, the settlement.
  function winEvent(field) { // the game's fact `field` at or before the shown version, this hand
    for (let i = pos; i >= 0; i--) {
      const e = current.steps[i].event;
      const f = e && e[DATA.kind];
      if (f && f[field]) return { fact: f[field], at: i };
      if (f && (f.hand_started || f.dealt) && i < pos) return null;
    }
    return null;
  }
  function ptsEl(items) {
    const pts = el("div", "pts");
    items.forEach(([key, value]) => {
      const s = el("span");
      s.appendChild(typeof key === "number" ? el("span", null, seatName(key) + " ") : uiEl("span", null, key, " "));
      s.appendChild(el("b", null, value));
      pts.appendChild(s);
    });
    return pts;
  }
  function renderWin() {
    const box = $("win");
    box.textContent = "";
    box.classList.remove("shown");
    if (!current) return;
    if (DATA.kind === "zipai") zipaiWin(box);
    else if (DATA.kind === "huaniao") huaniaoWin(box);
  }
  function zipaiWin(box) {
    const found = winEvent("hued");
    if (!found) return;
    const hu = found.fact;
    box.classList.add("shown");
    const h = el("h2", null, seatName(hu.seat || 0) + " " + ui("hu") + " · " + termOf(hu.win_kind || ""));
    h.title = ui("win hand", OTHER());
    box.appendChild(h);
    const groups = el("div", "groups");
    (hu.groups || []).forEach((g) => { // each 列 by its shape; the winning card highlighted
      const one = el("span", "group");
      if (g.kind) one.appendChild(termEl(g.kind, "tag term"));
      const cards = el("span", "cards");
      (g.cards || []).forEach((c) => cards.appendChild(cardEl(c, hu.card && (c.id || 0) === (hu.card.id || 0))));
      one.appendChild(cards);
      groups.appendChild(one);
    });
    box.appendChild(groups);
    const items = [["hu points", String(hu.hu_points || 0)], ["fan", String(hu.fan || 0)]];
    (hu.scores || []).forEach((v, i) => items.push([i, (v > 0 ? "+" : "") + v]));
    box.appendChild(ptsEl(items));
  }
  function huaniaoWin(box) {
    const found = winEvent("game_ended");
    if (!found) return;
    const end = found.fact;
    const view = current.steps[pos].view;
    const seats = (view.huaniao || {}).seats || [];
    const winners = end.winners || [];
    const reason = end.reason || "";
    const words = (TERMS.reasons || {})[reason];
    box.classList.add("shown");
    const h = el("h2", null, seatsName(winners) + " " + ui("winner") + " · " + (words ? words[LANG] : reason));
    h.title = seatsName(winners).replace(/家/g, "") + " · " + (words ? words[OTHER()] : reason);
    box.appendChild(h);
    // the last 大对决 round, if the game went to one: each hand's pattern, score and total
    const showdown = winEvent("showdown_dealt");
    const hands = {};
    if (showdown) (showdown.fact.hands || []).forEach((hd) => { hands[hd.seat || 0] = hd; });
    const table = el("div", "settle");
    table.setAttribute("role", "table");
    table.setAttribute("aria-label", ui("settlement"));
    const head = el("div", "settle-row head");
    head.setAttribute("role", "row");
    ["seat col", "cards left", "points"].forEach((k) => { const c = uiEl("span", null, k); c.setAttribute("role", "columnheader"); head.appendChild(c); });
    table.appendChild(head);
    (view.seats || []).forEach((info) => {
      const seat = info.seat || 0;
      const gs = seats.find((s, j) => (s.seat === undefined ? j : s.seat) === seat) || {};
      const r = el("div", "settle-row" + (winners.includes(seat) ? " won" : ""));
      r.setAttribute("role", "row");
      r.dataset.seat = String(seat);
      const who = el("span", null, seatName(seat) + (info.player_name ? " · " + info.player_name : ""));
      if (winners.includes(seat)) who.appendChild(uiEl("span", "badge win", "winner"));
      const left = el("span");
      const cards = gs.cards || [];
      if (cards.length) left.appendChild(valueEl(cards));
      else if (gs.hand_count) left.appendChild(backs(gs.hand_count));
      else left.appendChild(uiEl("span", "out", "went out"));
      const hd = hands[seat];
      if (hd) {
        const sd = el("span", "group");
        if (hd.pattern) sd.appendChild(termEl(hd.pattern, "tag term"));
        sd.appendChild(valueEl(hd.cards || []));
        sd.appendChild(el("span", "tag", ui("showdown score") + " " + (hd.score || 0) + " · " + label("total") + " " + (hd.total || 0)));
        left.appendChild(sd);
      }
      const pts = el("b", null, String((end.scores || [])[seat] || 0));
      [who, left, pts].forEach((c) => { c.setAttribute("role", "cell"); r.appendChild(c); });
      table.appendChild(r);
    });
    box.appendChild(table);
    box.appendChild(uiEl("p", "note", "lower wins"));
  }
  // The justice side: every case as the table speaks of it (who reports whom for what, the
  // evidence, the votes, the ruling, the penalty), then the penalties and the record.
  function caseEl(c, view) {
    const box = el("div", "case-card");
    box.dataset.case = String(c.id || 0);
    const status = c.status || "CASE_STATUS_OPEN";
    box.dataset.status = status;
    const head = el("h3");
    head.appendChild(el("span", null, fmt("case no", { id: c.id || 0 }) + " · " + ui(c.is_appeal ? "appeal" : "case report")));
    head.appendChild(termEl(status, "badge status"));
    box.appendChild(head);
    const args = { by: seatName(c.by || 0), accused: seatName(c.accused || 0), violation: termOf(c.violation || "VIOLATION_KIND_OTHER"),
      case: (c.evidence || [])[0] || "?" };
    const argsOther = { by: seatName(c.by || 0, OTHER()), accused: seatName(c.accused || 0, OTHER()),
      violation: termOf(c.violation || "VIOLATION_KIND_OTHER", OTHER()), case: args.case };
    const what = el("p", "what", fmt(c.is_appeal ? "appeal line" : "report line", args));
    what.title = fmt(c.is_appeal ? "appeal line" : "report line", argsOther, OTHER());
    box.appendChild(what);
    const dl = el("dl");
    const item = (key, value) => {
      dl.appendChild(labelEl("dt", null, key));
      const dd = el("dd");
      if (value instanceof Node) dd.appendChild(value); else dd.textContent = value;
      dl.appendChild(dd);
    };
    if (c.penalty) item("penalty", penaltyWords(c.penalty));
    if (!c.is_appeal && (c.evidence || []).length) {
      const ev = el("span", "evidence");
      c.evidence.forEach((v) => {
        const i = current.steps.findIndex((s) => s.version === Number(v));
        const b = el("button", "link", fmt("version no", { v: v }));
        b.type = "button";
        b.title = fmt("version no", { v: v }, OTHER());
        b.dataset.version = String(v);
        if (i >= 0) b.addEventListener("click", () => go(i)); else b.disabled = true;
        ev.appendChild(b);
      });
      item("evidence", ev);
    }
    if (c.note) item("note", c.note);
    item("upheld_by", seatsName(c.upheld_by || []));
    item("rejected_by", seatsName(c.rejected_by || []));
    if ((c.recused || []).length) item("recused", seatsName(c.recused));
    if ((c.lapsed || []).length) item("lapsed", seatsName(c.lapsed));
    if ((c.redeal_agreed || []).length) item("redeal_agreed", seatsName(c.redeal_agreed));
    const votes = (c.upheld_by || []).length + (c.rejected_by || []).length;
    if (status !== "CASE_STATUS_OPEN" && !votes && view.arbitrated) item("ruled_by", ui("the arbiter"));
    const ruling = (view.penalties || []).find((p) => (p.case_id || 0) === (c.id || 0));
    if (ruling) item("ruling", penaltyWords(ruling.penalty || {}) + " → " + seatName(ruling.seat || 0)
      + (ruling.revoked ? " (" + label("revoked") + ")" : ruling.appealable ? " (" + label("appealable") + ")" : ""));
    box.appendChild(dl);
    return box;
  }
  function penaltyWords(p, lang) {
    const kind = termOf(p.kind || "PENALTY_KIND_WARNING", lang);
    return p.count ? kind + " " + fmt("n cards", { n: p.count }, lang) : kind;
  }
  function perSeat(list) { // misplays or violations per seat: "0家 1 · 1家 0"
    return (list || []).map((n, seat) => seatName(seat) + " " + n).join(" · ");
  }
  function renderJustice(view, prevView) {
    const box = $("justice");
    box.textContent = "";
    const fields = ["misplays_used", "violations", "redeals", "max_redeals", "redeals_requested_by", "redeal_commitment", "enforcement", "turn_time_limit_ms", "case_time_limit_ms", "case_deadline", "reports_left"];
    const shown = fields.filter((k) => k in view && !(k === "enforcement" && view[k] === "ENFORCEMENT_REJECT"));
    const cases = view.cases || [];
    const penalties = (view.penalties || []).filter((p) => !cases.some((c) => (c.id || 0) === (p.case_id || 0)));
    if (!shown.length && !cases.length && !penalties.length) return;
    const c = el("div", "case");
    c.appendChild(uiEl("h2", null, "justice"));
    cases.forEach((one) => c.appendChild(caseEl(one, view)));
    penalties.forEach((p) => {
      const r = el("p", "penalty", fmt("penalty on", { seat: seatName(p.seat || 0), penalty: penaltyWords(p.penalty || {}) })
        + (p.revoked ? " (" + label("revoked") + ")" : ""));
      r.title = fmt("penalty on", { seat: seatName(p.seat || 0, OTHER()), penalty: penaltyWords(p.penalty || {}, OTHER()) }, OTHER());
      c.appendChild(r);
    });
    const pick = (v) => Object.fromEntries(shown.map((k) => [k, v ? v[k] : undefined]));
    const record = pick(view);
    const before = prevView ? pick(prevView) : {};
    for (const k of ["misplays_used", "violations"]) {
      if (k in record) record[k] = perSeat(record[k]);
      if (k in before) before[k] = perSeat(before[k]);
    }
    rows(c, record, before, [], prevView !== null);
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
    const last = steps[steps.length - 1].version;
    $("position").textContent = fmt("version of", { v: step.version, n: last });
    $("position").title = fmt("version of", { v: step.version, n: last }, OTHER());
    const ev = $("event");
    ev.textContent = "";
    ev.className = "event";
    const j = justiceOf(step.event);
    if (j) {
      ev.classList.add("justice");
      const b = el("span", "badge", j.name);
      b.title = j.other;
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
    document.body.dataset.lang = LANG ? "en" : "zh";
    writeLink(step.version);
  }
  function go(i) { pos = i; render(); }
  function renderAll() { renderChrome(); renderHeader(); renderViewers(); renderLog(); renderMarkers(); render(); }

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
  $("lang").addEventListener("click", () => {
    LANG = OTHER();
    try { localStorage.setItem(LANG_KEY, LANG ? "en" : "zh"); } catch (e) { /* no storage: this page only */ }
    renderAll();
    if (liveState) liveState();
  });
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
  let liveState = null; // re-says the live badge in the page's language
  function follow(live) {
    const badge = $("live");
    badge.hidden = false;
    let state = "live";
    liveState = () => {
      const key = state === "ended" ? "game over" : state === "reconnecting" ? "reconnecting" : "live";
      badge.textContent = (state === "ended" ? "" : "● ") + ui(key);
      badge.title = ui(key, OTHER());
    };
    liveState();
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
      state = "ended";
      liveState();
      badge.dataset.state = "ended";
      badge.classList.add("ended");
      finishLive();
    });
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED && state !== "ended") { state = "reconnecting"; liveState(); }
    });
    source.addEventListener("open", () => { if (state !== "ended") { state = "live"; liveState(); } });
  }

  readLink();
  renderAll();
  if (DATA.live) follow(DATA.live);
})();
