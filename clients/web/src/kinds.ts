// What a seat can report in a game (pure: the report form and its Node test use it).
import { ViolationKind, Enforcement, type GameView } from "../gen/tabletop/v1/tabletop_pb";

/** The violations a seat can report in this game: the rule violations only where the players
 * enforce the rules (花鸟风月's 由玩家举报; elsewhere the engine already refused them), 出牌超时
 * only at a table without a clock, and 其他违规 always. 川南字牌 has no rule kinds of its own. */
export function reportable(v: GameView): ViolationKind[] {
  const out: ViolationKind[] = [];
  if (v.game.case === "huaniao" && v.enforcement === Enforcement.PLAYERS) {
    out.push(ViolationKind.ILLEGAL_COMBO, ViolationKind.WRONG_DECLARATION, ViolationKind.SEASON_RULE,
      ViolationKind.DISCARD_ORDER);
  }
  if (!v.turnTimeLimitMs) out.push(ViolationKind.TIMEOUT);
  out.push(ViolationKind.OTHER);
  return out;
}
