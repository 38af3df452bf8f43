// The doors into a table: a new table (the landing form), a table this browser has no seat
// at (pick a free one), a seat link for another seat than the one held here (asked).
import { h } from "preact";
import { useState } from "preact/hooks";
import { GamePhase, type GameView } from "../../gen/tabletop/v1/tabletop_pb";
import { ModeSchema, Mode } from "../../gen/tabletop/huaniao/v1/huaniao_pb";
import { Variant, DealerRule, ScoringProfile } from "../../gen/tabletop/zipai/v1/zipai_pb";
import { w, tip, term, seatWord, getLang, TERMS } from "../words";
import { savedGames, saved, type Saved } from "../seats";
import { enumName } from "../util";

// 专业's added rules (part 2 line 28: it needs one; 阳春白雪 by default, as `tabletop play`)
const PRO_RULES = ["springSnow", "continuo", "twinSwallows", "loftyTune", "blossoms"] as const;
const PRO_FIELD: Record<(typeof PRO_RULES)[number], string> = {
  springSnow: "spring_snow", continuo: "continuo", twinSwallows: "twin_swallows",
  loftyTune: "lofty_tune", blossoms: "blossoms",
};
const Field = ({ k }: { k: string }) => {
  const pair = TERMS.fields[k];
  return h("span", { title: pair ? pair[getLang() === "en" ? 0 : 1] : "" }, pair ? pair[getLang() === "en" ? 1 : 0] : k);
};
const val = (id: string) => (document.getElementById(id) as HTMLInputElement | HTMLSelectElement).value;
const checked = (id: string) => (document.getElementById(id) as HTMLInputElement).checked;

export type CreateTable = (kind: string, seats: number, options: unknown, name: string, seed: string) => void;

export function Landing({ onCreate }: { onCreate: CreateTable }) {
  const [kind, setKind] = useState("huaniao");
  const [mode, setMode] = useState(Mode.PRO);
  const [seats, setSeats] = useState("4");
  const modes = [Mode.SIMPLE, Mode.BASIC, Mode.REGULAR, Mode.FULL, Mode.PRO];
  const submit = (ev: Event) => {
    ev.preventDefault();
    const options = kind === "huaniao"
      ? { game: { case: "huaniao" as const, value: { mode, ...(mode === Mode.PRO
        ? Object.fromEntries(PRO_RULES.map((r) => [r, checked(`rule-${r}`)])) : {}) } } }
      : { game: { case: "zipai" as const, value: { variant: Number(val("variant")) as Variant,
        dealerRule: DealerRule.WINNER, scoring: ScoringProfile.LUZHOU } } };
    onCreate(kind, Number(val("seats")), options, val("name").trim(), val("seed").trim());
  };
  const mine = savedGames();
  return h("div", { class: "landing" },
    h("form", { id: "create", class: "card-box", onSubmit: submit },
      h("h2", { title: tip("newTable") }, w("newTable")),
      h("div", { class: "row" }, h("label", { for: "kind" }, w("game")),
        h("select", { id: "kind", name: "kind", value: kind, onChange: (e: Event) => {
          const k = (e.target as HTMLSelectElement).value;
          setKind(k);
          setSeats(k === "zipai" ? "3" : "4");
        } }, h("option", { value: "huaniao" }, w("huaniao")), h("option", { value: "zipai" }, w("zipai")))),
      h("div", { class: "row" }, h("label", { for: "seats" }, w("seats")),
        h("select", { id: "seats", name: "seats", value: seats, onChange: (e: Event) => setSeats((e.target as HTMLSelectElement).value) },
          [2, 3, 4].map((n) => h("option", { key: n, value: String(n) }, String(n))))),
      h("div", { id: "huaniao-rules", hidden: kind !== "huaniao" },
        h("div", { class: "row" }, h("label", { for: "mode" }, w("mode")),
          h("select", { id: "mode", name: "mode", value: String(mode), onChange: (e: Event) => setMode(Number((e.target as HTMLSelectElement).value)) },
            modes.map((m) => h("option", { key: m, value: String(m) }, term(enumName(ModeSchema, m)))))),
        h("fieldset", { class: "rules", id: "pro-rules", hidden: mode !== Mode.PRO }, h("legend", {}, w("proRules")),
          PRO_RULES.map((r) => h("label", { key: r, class: "check", for: `rule-${r}` },
            h("input", { id: `rule-${r}`, type: "checkbox", defaultChecked: r === "springSnow" }), " ", h(Field, { k: PRO_FIELD[r] }))))),
      h("div", { id: "zipai-rules", hidden: kind !== "zipai" },
        h("div", { class: "row" }, h("label", { for: "variant" }, w("variant")),
          h("select", { id: "variant" }, [Variant.LUZHOU, Variant.HEJIANG].map((v) =>
            h("option", { key: v, value: String(v) }, term(`VARIANT_${Variant[v]}`)))))),
      h("div", { class: "row" }, h("label", { for: "name" }, w("name")),
        h("input", { id: "name", name: "name", autocomplete: "nickname", maxlength: 64, defaultValue: localStorage.getItem("tabletop.name") || "" })),
      h("details", {}, h("summary", {}, w("seed")), h("div", { class: "row" },
        h("label", { for: "seed", class: "sr-only" }, w("seed")), h("input", { id: "seed", name: "seed", inputmode: "numeric", pattern: "[0-9]*" }))),
      h("button", { type: "submit", class: "primary", id: "create-button" }, w("create"))),
    h("section", { class: "card-box" }, h("h2", { title: tip("joinTable") }, w("joinTable")), h("p", {}, w("joinHelp"))),
    mine.length ? h("section", { class: "card-box", "aria-labelledby": "resume-h" },
      h("h2", { id: "resume-h", title: tip("resume") }, w("resume")),
      h("ul", {}, mine.map((g) => h("li", { key: g }, h("a", { href: `#game=${encodeURIComponent(g)}` },
        `${saved(g)?.kind ? w(saved(g)!.kind!) + " · " : ""}${g}`))))) : null);
}

/** A table this browser holds no seat at: its free seats. */
export function Join({ gameId, view, onSit, replayUrl }: {
  gameId: string; view: GameView | null; onSit: (seat: number, name: string, kind?: string) => void; replayUrl: string;
}) {
  if (!view) return h("p", { class: "loading" }, "…");
  const free = view.seats.filter((s) => !s.taken);
  return h("section", { class: "card-box join" },
    h("h2", {}, `${w(view.options?.game.case || "huaniao")} · `, h("span", { class: "mono wrap" }, gameId)),
    h("p", {}, term(`GAME_PHASE_${GamePhase[view.phase]}`)),
    h("div", { class: "row" }, h("label", { for: "name" }, w("name")),
      h("input", { id: "name", autocomplete: "nickname", maxlength: 64, defaultValue: localStorage.getItem("tabletop.name") || "" })),
    h("ul", { class: "seat-list" }, view.seats.map((s) => h("li", { key: s.seat }, `${seatWord(s.seat)} `, s.taken ? s.playerName
      : h("button", { class: "primary", "data-seat": s.seat, onClick: () => onSit(s.seat, val("name").trim(), view.options?.game.case) }, w("sitHere"))))),
    free.length ? null : h("p", {}, w("noFreeSeat"), " ", view.phase === GamePhase.FINISHED ? h("a", { href: replayUrl }, w("replay")) : null));
}

export function NotFound({ gameId }: { gameId: string }) {
  return h("section", { class: "card-box" }, h("h2", {}, w("notFound")), h("p", { class: "mono wrap" }, gameId), h("a", { href: "#" }, w("newTable")));
}

/** A seat link for another seat than the one this browser plays here: stay, or take it. */
export function LinkChoice({ link, mine, onStay, onTake }: { link: Saved; mine: Saved; onStay: () => void; onTake: () => void }) {
  return h("section", { class: "card-box", id: "link-choice", "aria-labelledby": "link-choice-h" },
    h("h2", { id: "link-choice-h" }, w("linkOtherSeat")),
    h("p", {}, `${w("youSitAt")} ${seatWord(mine.seat)} · ${w("linkIsFor")} ${seatWord(link.seat)}`),
    h("p", { class: "muted small" }, w("linkKeepsBoth")),
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary", id: "link-stay", onClick: onStay }, `${w("stayAt")} ${seatWord(mine.seat)}`),
      h("button", { type: "button", class: "secondary", id: "link-take", onClick: onTake }, `${w("takeSeat")} ${seatWord(link.seat)}`)));
}
