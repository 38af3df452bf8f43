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
    // A seat's or the arbiter's link (#token=...) names it to the server, which then never
    // turns it away for a crowd of other viewers; what it is shown stays the public view.
    const own = linkToken ? "&token=" + encodeURIComponent(linkToken) : "";
    const source = new EventSource(live.steps_url + sep + "after=0" + own);
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

  // read before the page rewrites its own #v=... link
  const linkToken = new URLSearchParams((location.hash || "").replace(/^#/, "")).get("token");
  readLink();
  renderAll();
  if (DATA.live) follow(DATA.live);
})();
