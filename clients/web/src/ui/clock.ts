// A deadline's countdown: shared by the table's pauses, a case and a draw under way.
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { w } from "../words";

export const ms = (t: Timestamp) => Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6);

/** Seconds left until `at`, ticking each second; the time itself in its tooltip. */
export function Countdown({ at, id }: { at: Timestamp; id?: string }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const left = Math.max(0, Math.ceil((ms(at) - now) / 1000));
  return h("span", { class: "countdown", id, "data-left": left, role: "timer", title: new Date(ms(at)).toLocaleTimeString() },
    w("left", { s: left }));
}
