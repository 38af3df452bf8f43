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
    // the server's command runs as shown from any folder; the bare name needs .venv/bin on PATH
    const cmd = (DATA.verify && DATA.verify.command) || "tabletop-audit verify " + id;
    badge.className = "badge ok";
    badge.dataset.status = "finished";
    badge.textContent = fmt("finished verify", { cmd });
    badge.title = fmt("finished verify", { cmd }, OTHER());
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
