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

