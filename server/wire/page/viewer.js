// The referee's console: steps through server-rendered views. It never re-runs a move: every
// version's view comes from the server's per-viewer Replay (or, live, from its event stream).
(function () {
  "use strict";
  const DATA = JSON.parse(document.getElementById("tabletop-data").textContent);
  const $ = (id) => document.getElementById(id);
  const ENUMS = DATA.enums || {};
  const KIND_NAME = { huaniao: "花鸟风月", zipai: "川南字牌" };
  const HUANIAO = {
    CARD_KIND_BIRD: ["鸟", "bird"], CARD_KIND_TEN: ["十", "ten"],
    CARD_KIND_HUNDRED: ["百", "hundred"], CARD_KIND_THOUSAND: ["千", "thousand"],
    CARD_KIND_TEN_THOUSAND: ["万", "ten-thousand"], CARD_KIND_FLOWER: ["花", "flower"],
    CARD_KIND_WIND: ["风", "wind"], CARD_KIND_MOON: ["月", "moon"],
  };
  const SMALL = "一二三四五六七八九十";
  const BIG = "壹贰叁肆伍陆柒捌玖拾";
  // Table facts of the justice side (issue: marked on the timeline), by their proto field.
  const JUSTICE = {
    move_retracted: ["retract", "误操作 retraction"], violation_reported: ["report", "report"],
    appeal_filed: ["appeal", "appeal"], vote_cast: ["vote", "vote"],
    arbiter_ruled: ["ruling", "ruling"], case_closed: ["ruling", "case closed"],
    penalty_applied: ["penalty", "penalty"], penalty_revoked: ["penalty", "penalty revoked"],
    game_redealt: ["redeal", "redeal 重新洗牌发牌"], turn_timed_out: ["timeout", "timeout 超时"],
    attempt_refereed: ["penalty", "attempt refereed"],
    redeal_opened: ["redeal", "redeal asked for: drawn by commit–reveal"],
  };
  const HIDDEN_COUNTS = { hand_count: "cards", hand_size: "hand" }; // count -> the cards field

  const viewers = DATA.viewers || [];
  let current = viewers.find((v) => v.key === DATA.default_viewer) || viewers[0];
  let pos = current ? current.steps.length - 1 : 0;

  // --- small DOM helpers ------------------------------------------------------------------
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  const label = (key) => key.replace(/_/g, " ");
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
  function valueEl(v, before) {
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
        else box.appendChild(document.createTextNode((i ? ", " : "") + enumName(item)));
      });
      return box;
    }
    if (v && typeof v === "object") return groupEl(v, before);
    if (typeof v === "boolean") return el("span", null, v ? "yes" : "no");
    return el("span", null, enumName(v));
  }
  function groupEl(obj, before) {
    const g = el("span", "group");
    for (const [k, v] of Object.entries(obj)) {
      if (k !== "cards") g.appendChild(el("span", "tag", label(k) + ":")); // the group's own cards go bare
      g.appendChild(valueEl(v, before));
    }
    return g;
  }
  function row(key, v, before, compare) {
    const r = el("div", "row");
    if (compare && !same(v, before)) r.classList.add("changed");
    r.appendChild(el("span", "k", label(key)));
    r.appendChild(valueEl(v === undefined ? "" : v, compare ? (before === undefined ? [] : before) : undefined));
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
    return JUSTICE[k] ? { field: k, cls: JUSTICE[k][0], name: JUSTICE[k][1] } : null;
  }
  function endsGame(step, prev) {
    return step.view.outcome && !(prev && prev.view.outcome);
  }

  // --- the page -----------------------------------------------------------------------------
  function renderHeader() {
    const kind = DATA.kind || "";
    $("title").textContent = (KIND_NAME[kind] || kind) + " · game " + (DATA.game_id || "");
    const box = $("verify");
    box.textContent = "";
    const v = DATA.verify;
    if (v) {
      const ok = v.status === "verified";
      box.appendChild(el("span", "badge " + (ok ? "ok" : v.status === "failed" ? "bad" : "unknown"),
        "verify: " + v.status));
      (v.checks || []).forEach((c) => box.appendChild(el("span", "badge " + (c.ok ? "ok" : "bad"), (c.ok ? "✓ " : "✗ ") + c.name)));
      if (v.message) box.appendChild(el("span", "muted", v.message));
      if (v.report && Object.keys(v.report).length) {
        const d = el("details");
        d.appendChild(el("summary", null, "report"));
        const dl = el("dl");
        for (const [k, val] of Object.entries(v.report)) {
          dl.appendChild(el("dt", null, label(k)));
          dl.appendChild(el("dd", null, typeof val === "object" ? JSON.stringify(val) : String(val)));
        }
        d.appendChild(dl);
        box.appendChild(d);
      }
    }
    const prepared = DATA.prepared_deal;
    box.appendChild(el("span", "badge" + (prepared === null || prepared === undefined ? " unknown" : ""),
      "deal: " + (prepared === true ? "prepared" : prepared === false ? "shuffled" : "not known to this viewer")));
    $("source").textContent = DATA.source || "";
  }
  function renderViewers() {
    const sel = $("viewer");
    sel.textContent = "";
    viewers.forEach((v) => {
      const o = el("option", null, v.label);
      o.value = v.key;
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
    li.appendChild(el("span", "t", s.event ? s.event.text : ""));
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
      m.title = "v" + s.version + ": " + (j ? j.name : "the end") + " — " + (s.event ? s.event.text : "");
      m.dataset.version = String(s.version);
      m.addEventListener("click", () => go(i));
      box.appendChild(m);
    });
  }
  function renderFacts(view, step) {
    const box = $("facts");
    box.textContent = "";
    const fact = (k, v) => { const s = el("span"); s.appendChild(document.createTextNode(k + " ")); s.appendChild(el("b", null, v)); box.appendChild(s); };
    fact("phase", enumName(view.phase || ""));
    fact("seen as", enumName(view.role || "") + (view.seat !== undefined ? " " + view.seat : ""));
    if ((view.to_act || []).length) fact("to act", view.to_act.map((s) => "seat " + s).join(", "));
    if (view.outcome) {
      fact("winners", (view.outcome.winners || []).map((s) => "seat " + s).join(", ") || "none");
      fact("scores", (view.outcome.scores || []).join(" · "));
      fact("reason", view.outcome.reason || "");
    }
    if (view.paused) fact("paused", "a case is open");
    if (step.event && step.event.recorded_at) fact("recorded", step.event.recorded_at.replace("T", " ").replace("Z", " UTC"));
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
      if (view.role === "ROLE_SEAT" && (view.seat || 0) === seat) panel.classList.add("me");
      if ((view.to_act || []).includes(seat)) panel.classList.add("acting");
      const h = el("h3", null, "seat " + seat + " · " + (info.taken ? info.player_name || "anonymous" : "(free)"));
      if ((view.to_act || []).includes(seat)) h.appendChild(el("span", "badge turn", "to act"));
      if (winners.includes(seat)) h.appendChild(el("span", "badge win", "winner"));
      panel.appendChild(h);
      for (const [count, field] of Object.entries(HIDDEN_COUNTS)) {
        const n = gs[count] || 0;
        if (count in gs && !(gs[field] || []).length && n > 0) {
          const r = el("div", "row hidden-hand");
          r.appendChild(el("span", "k", label(field) + " (hidden)"));
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
    if (!game) { box.appendChild(el("span", "muted", "the game has not started")); return; }
    box.appendChild(el("h2", null, "table"));
    rows(box, game, prevView ? prevView[kind] || {} : {}, ["seats", "options", "viewer_seat"], prevView !== null);
  }
  function renderJustice(view, prevView) {
    const box = $("justice");
    box.textContent = "";
    const fields = ["cases", "penalties", "misplays_used", "violations", "redeals", "max_redeals", "redeals_requested_by", "redeal_commitment", "enforcement", "turn_time_limit_ms", "case_time_limit_ms", "case_deadline", "reports_left"];
    const shown = fields.filter((k) => k in view && !(k === "enforcement" && view[k] === "ENFORCEMENT_REJECT"));
    if (!shown.length) return;
    const c = el("div", "case");
    c.appendChild(el("h2", null, "justice"));
    const pick = (v) => Object.fromEntries(shown.map((k) => [k, v ? v[k] : undefined]));
    rows(c, pick(view), prevView ? pick(prevView) : {}, [], prevView !== null);
    box.appendChild(c);
  }
  function render() {
    if (!current || !current.steps.length) {
      $("event").textContent = "no version to show yet";
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
    $("position").textContent = "version " + step.version + " of " + steps[steps.length - 1].version;
    const ev = $("event");
    ev.textContent = "";
    ev.className = "event";
    const j = justiceOf(step.event);
    if (j) { ev.classList.add("justice"); ev.appendChild(el("span", "badge", j.name)); ev.appendChild(document.createTextNode(" ")); }
    ev.appendChild(el("span", "v", "v" + step.version));
    ev.appendChild(document.createTextNode(step.event ? step.event.text : ""));
    renderFacts(view, step);
    renderSeats(view, prevView);
    renderBoard(view, prevView);
    renderJustice(view, prevView);
    const items = $("log").children;
    for (let i = 0; i < items.length; i++) items[i].classList.toggle("current", i === pos);
    if (items[pos]) items[pos].scrollIntoView({ block: "nearest" });
    document.body.dataset.version = String(step.version);
    document.body.dataset.viewer = current.key;
  }
  function go(i) { pos = i; render(); }

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
    pos = i >= 0 ? i : current.steps.length - 1;
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
    badge.textContent = "● live";
    const sep = live.steps_url.includes("?") ? "&" : "?";
    const source = new EventSource(live.steps_url + sep + "after=0");
    source.addEventListener("step", (e) => {
      const step = JSON.parse(e.data);
      const steps = current.steps;
      if (steps.length && step.version <= steps[steps.length - 1].version) return; // resent
      const atEnd = pos >= steps.length - 1;
      steps.push(step);
      $("log").appendChild(logItem(step, steps.length - 1));
      if (atEnd) pos = steps.length - 1;
      renderMarkers();
      render();
    });
    source.addEventListener("end", () => {
      source.close();
      badge.textContent = "game over";
      badge.classList.add("ended");
    });
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) badge.textContent = "● reconnecting…";
    });
    source.addEventListener("open", () => { badge.textContent = "● live"; });
  }

  renderHeader();
  renderViewers();
  renderLog();
  renderMarkers();
  render();
  if (DATA.live) follow(DATA.live);
})();
