// The game's own words. Enum values, field names, the server's event lines and how a game
// ended come from the referee page's one term table, server/wire/page/terms.py (the move
// glosses from clients/python/vocab.py), exported to gen/terms.json by `make web`; the few words only this page writes are below, [中文, English].
import termsJson from "../gen/terms.json";

type Pair = [string, string];
type Terms = {
  enums: Record<string, Pair>;
  fields: Record<string, Pair>;
  lines: [string, string][];
  reasons: Record<string, Pair>;
  ui: Record<string, Pair>;
  glosses: Record<string, string>;
};
export const TERMS = termsJson as unknown as Terms;

export const UI: Record<string, Pair> = {
  title: ["花鸟风月 · 川南字牌", "Hua Niao Feng Yue · Chuannan Zipai"],
  huaniao: ["花鸟风月", "Hua Niao Feng Yue"],
  zipai: ["川南字牌", "Chuannan Zipai"],
  lang: ["English", "中文"],
  langHelp: ["Switch to English", "切换到中文"],
  newTable: ["开桌", "New table"],
  game: ["玩法", "Game"],
  seats: ["人数", "Seats"],
  mode: ["版本", "Mode"],
  proRules: ["专业加选规则 (至少一项)", "Pro rules (at least one)"],
  variant: ["地方规则", "Regional rule"],
  name: ["你的名字", "Your name"],
  seed: ["种子 (指定牌局，可空)", "Seed (a prepared deal, optional)"],
  create: ["开桌入座", "Create and sit"],
  joinTable: ["加入牌桌", "Join a table"],
  joinHelp: ["打开牌桌链接 (#game=…) 即可入座", "Open a table's link (#game=…) to sit down"],
  sitHere: ["入座", "Sit here"],
  free: ["空位", "free"],
  you: ["你", "you"],
  resume: ["回到牌局", "Back to your games"],
  fillBots: ["机器人补位", "Fill free seats with bots"],
  waiting: ["等待入座", "Waiting for players"],
  dealWaitsFor: ["发牌等待座位提交或揭示", "The deal waits for seat(s) to commit or reveal"],
  noEntropy: ["未提供随机数的座位", "Seats that added no entropy"],
  voidGame: ["作废：未发牌，等待座位", "Void: no deal, waiting for seat(s)"],
  starting: ["即将发牌…", "Dealing soon…"],
  shareTable: ["邀请链接 (入座)", "Invite link (take a seat)"],
  seatLink: ["你的座位链接 (含口令，勿外传)", "Your seat's link (holds your token: keep it private)"],
  copy: ["复制", "Copy"],
  copied: ["已复制", "Copied"],
  hand: ["手牌", "Your hand"],
  moves: ["可行", "Your moves"],
  noMoves: ["等待他人…", "Waiting for the others…"],
  yourTurn: ["轮到你", "Your turn"],
  claimLost: ["你的{mine}输给了{by}的{theirs}", "Your {mine} lost to {by}'s {theirs}"],
  discardFed: ["你打的牌点炮：{by}胡", "Your discard fed {by}'s 胡 (点炮)"],
  pickHint: ["点选手牌可筛选出牌", "Pick cards in your hand to narrow the plays"],
  touchHint: ["先点手牌：只显示这几张牌能出的牌，只有一种出法时即为一个按钮", "Touch cards in your hand first: only the plays they make are offered, and when there is one it is a single button"],
  waitsFor: ["等待 {seats}", "waiting for {seats}"],
  left: ["剩 {s} 秒", "{s} s left"],
  turnClock: ["出牌时限", "Turn clock"],
  verifyHere: ["在浏览器中核验全部记录", "Verify the whole record in this browser"],
  console: ["裁判台", "Referee console"],
  consoleHelp: ["全部座位、逐步回放、核验", "every seat, step by step, verified"],
  more: ["另有 {n} 种，点选手牌缩小范围", "{n} more: pick cards to narrow them"],
  clear: ["清除选择", "Clear selection"],
  voteThere: ["请在「仲裁」中投票或申诉", "Vote or appeal under Justice"],
  noneWith: ["没有用这几张牌的出法", "No move uses these cards"],
  log: ["记录", "Events"],
  justice: ["仲裁", "Justice"],
  retract: ["误操作 (撤销上一手)", "Misplay: take back your last move"],
  report: ["举报", "Report"],
  accused: ["被举报", "Accused seat"],
  violation: ["违规", "Violation"],
  evidence: ["证据 (版本号)", "Evidence (versions)"],
  penalty: ["处罚", "Penalty"],
  note: ["说明", "Note"],
  send: ["提交", "Send"],
  vote: ["投票", "Vote"],
  appeal: ["申诉", "Appeal"],
  reason: ["理由", "Reason"],
  openCase: ["审理中", "Open case"],
  paused: ["暂停：案件审理中", "Paused: a case is open"],
  caseDue: ["截止 {time}", "due {time}"],
  result: ["终局", "Game over"],
  winners: ["胜者", "Winners"],
  scores: ["得分", "Scores"],
  verify: ["验证", "Verify"],
  commitOk: ["洗牌承诺相符", "the shuffle matches its commitment"],
  commitBad: ["洗牌承诺不符", "the shuffle does NOT match its commitment"],
  receiptsOk: ["份回执哈希相符", "receipts match their hashes"],
  receiptsBad: ["份回执哈希不符", "receipts do NOT match their hashes"],
  noCrypto: ["此页面非安全连接，浏览器内无法核对，请用下面的命令", "not a secure page: the browser cannot check here; use the command below"],
  fullVerify: ["完整验证", "Full check"],
  fullVerifyWhere: ["在保存回执的文件夹中运行", "run it in the folder where the receipts were saved"],
  replay: ["回放", "Replay"],
  receipts: ["回执", "Receipts"],
  prepared: ["指定牌局", "prepared deal"],
  newGame: ["再开一桌", "New table"],
  deck: ["牌堆", "deck"],
  stock: ["底牌", "stock"],
  season: ["季节", "season"],
  round: ["回合", "round"],
  need: ["须", "must"],
  limit: ["手牌上限", "hand limit"],
  lastPlay: ["上一手", "last play"],
  shown: ["亮牌", "on offer"],
  dealer: ["庄", "dealer"],
  bao: ["爆", "bao"],
  melds: ["列", "melds"],
  discards: ["打出", "discards"],
  cards: ["张", "cards"],
  toAct: ["待行动", "to act"],
  version: ["版本", "version"],
  error: ["出错", "Error"],
  notAllowed: ["规则不允许这一步", "The rules do not allow that now"],
  denied: ["无权这样做", "Not allowed for this seat"],
  badRequest: ["请求有误", "Bad request"],
  tooFast: ["太频繁，请稍候", "Too many requests: wait a moment"],
  stale: ["局面已变，请重选", "The table moved on: choose again"],
  connection: ["连接中断，重连中…", "Connection lost, reconnecting…"],
  seat: ["家", "seat"],
  contribution: ["随机数", "contribution"],
  linkOtherSeat: ["这个链接是本桌另一个座位的", "This link is for another seat at this table"],
  youSitAt: ["你在本桌坐", "You sit at"],
  linkIsFor: ["链接所指", "the link is for"],
  linkKeepsBoth: ["两个座位的口令都保留在本浏览器中，之后可在「邀请链接」里切换。", "Both seats' tokens stay kept in this browser; switch later under the invite link."],
  stayAt: ["留在", "Stay at"],
  takeSeat: ["改坐", "Play"],
  heldSeats: ["本浏览器还持有：", "Also held in this browser:"],
  switchSeat: ["切换到", "Switch to"],
  badToken: ["这个座位口令已失效，请重新入座", "That seat token is not valid here: take a seat again"],
  noFreeSeat: ["没有空位。", "No free seat."],
  notFound: ["没有这张牌桌", "No such table"],
  hidden: ["暗", "face down"],
  sitsOut: ["本局不打", "sits this hand out"],
  kind: ["类", "kind"],
  prev: ["上一步", "Back"],
  next: ["下一步", "Next"],
  backToTable: ["回到牌桌", "Back to the table"],
  myMelds: ["你的列与打出", "your melds and discards"],
  unkeyed: ["无座位密钥：其操作只凭服务器之言", "no seat key: its commands stand on the server's word alone"],
  unkeyedShort: ["无密钥", "unkeyed"],
  rekeyed: ["换过密钥 (此后的操作凭座位口令所换的新密钥)", "re-keyed (its later commands stand on a key accepted on the seat token's word)"],
  rekeyedShort: ["换钥", "re-keyed"],
  keyNotRecorded: ["服务器没有记下本座位的密钥 (SEAT KEY NOT RECORDED)：不要在此桌继续", "SEAT KEY NOT RECORDED: the server did not keep this seat's key; do not play at this table"],
  noSeatKey: ["本浏览器没有这个座位的密钥：操作会被拒绝", "This browser holds no key for this seat: its commands would be refused"],
  rekey: ["为本浏览器换新密钥 (所有人可见)", "Make a new key for this browser (everyone sees it)"],
  drawing: ["重新洗牌发牌", "重新洗牌发牌 (redeal)"],
  drawCommitting: ["重新洗牌发牌：正在提交随机数承诺…", "重新洗牌发牌 (redeal): committing to a fresh contribution…"],
  drawRevealing: ["重新洗牌发牌：正在揭示随机数…", "重新洗牌发牌 (redeal): revealing the contribution…"],
  drawWaiting: ["重新洗牌发牌：等待 {seats}", "重新洗牌发牌 (redeal): waiting for {seats}"],
  drawDealing: ["重新洗牌发牌：即将发牌…", "重新洗牌发牌 (redeal): dealing…"],
  drawNoContribution: ["本浏览器没有本座位为重新洗牌发牌提交的随机数，无法揭示：发牌在等待它", "This browser does not hold the contribution this seat committed to for the redeal: it cannot reveal, and the draw waits for it"],
  notTaken: ["服务器没有确认你的{what}（未被接受）：发牌在等待它", "Your {what} was NOT TAKEN (no valid signed acknowledgement): the draw waits for it"],
  ackCommitment: ["随机数承诺", "commitment"],
  ackReveal: ["随机数揭示", "reveal"],
  agreeRedeal: ["同意重新洗牌发牌", "Agree to 重新洗牌发牌 (redeal)"],
  redealAgreedBy: ["同意重新洗牌发牌", "agreed to redeal"],
  noEd25519: ["本浏览器不支持 Ed25519 签名 (WebCrypto)，无法入座", "This browser cannot make Ed25519 signatures (WebCrypto): it cannot take a seat"],
};

export type Lang = "zh" | "en";
let lang: Lang = (localStorage.getItem("tabletop.lang") as Lang) === "en" ? "en" : "zh";
export const getLang = (): Lang => lang;
export function setLang(value: Lang): void {
  lang = value;
  localStorage.setItem("tabletop.lang", value);
}

function pick(pair: Pair | undefined, fallback: string): string {
  if (!pair) return fallback;
  return lang === "en" ? pair[1] : pair[0];
}
function other(pair: Pair | undefined): string {
  if (!pair) return "";
  return lang === "en" ? pair[0] : pair[1];
}

/** A page word in the chosen language; ``tip`` the other one (for a tooltip). */
export const w = (key: string, vars?: Record<string, string | number>): string => {
  let s = pick(UI[key] ?? TERMS.ui[key], key);
  for (const [k, v] of Object.entries(vars ?? {})) s = s.replace(`{${k}}`, String(v));
  return s;
};
export const tip = (key: string): string => other(UI[key] ?? TERMS.ui[key]);

/** An enum value (its proto name, e.g. SEASON_SPRING) in the game's words. */
export const term = (name: string): string => {
  const pair = TERMS.enums[name];
  if (!pair) return name.toLowerCase().replace(/_/g, " ");
  return lang === "en" ? pair[1] : pair[0];
};
export const termTip = (name: string): string => other(TERMS.enums[name]);
/** A field's name (a proto field, e.g. upheld_by) in the game's words; ``fieldTip`` the other. */
export const field = (key: string): string => pick(TERMS.fields[key], key.replace(/_/g, " "));
export const fieldTip = (key: string): string => other(TERMS.fields[key]);

export const seatWord = (s: number): string => (lang === "en" ? `seat ${s}` : `${s}家`);
/** Seats by name ("1家、3家"), or 无 for none. */
export const seatsWord = (list: readonly number[]): string =>
  list.length ? list.map(seatWord).join(lang === "en" ? ", " : "、") : w("none");

const LINES = TERMS.lines.map(([re, to]) => [new RegExp(re), to] as const);

/** A server event line (GameEvent.text) in the game's words, as the referee page says it. */
export function line(text: string): string {
  if (!text) return text;
  if (lang === "en") { // the record's line names a 胡's kind and a game's end by their codes
    return text
      .replace(/, (ZI_MO|DIAN_PAO|FAN_PAI): /, (_m, k: string) => `, ${term("WIN_KIND_" + k)}: `)
      .replace(/^终局 ([A-Z_]+):/, (_m, r: string) => `终局 ${term("REASON_" + r)}:`);
  }
  let out = text;
  for (const [re, to] of LINES) {
    if (re.test(out)) {
      out = out.replace(re, to);
      break;
    }
  }
  out = out.replace(/seat (\d+)/g, (_m, n) => seatWord(Number(n)));
  out = out.replace(/⟨SEATS:([\d, ]+)⟩/g, (_m, list: string) =>
    list.split(/,\s*/).map((n) => seatWord(Number(n))).join("、"),
  );
  for (const [re, to] of EXTRA) out = out.replace(re, to);
  return out.replace(/⟨(\w+)⟩/g, (_m, v: string) => term(v));
}

// Phrases of the server's lines the term table does not rewrite yet.
const EXTRA: [RegExp, string][] = [
  [/, committed to a contribution$/, "，已提交随机数承诺"],
  [/ committed to a contribution$/, " 提交随机数承诺"],
  [/^(\S+) reports (\S+): (\w+) \((\d+) event\(s\) as evidence\); game paused$/,
    "$1 举报 $2: ⟨VIOLATION_KIND_$3⟩ (证据 $4 条)，暂停"],
  [/未投票: the arbiter\)/, "未投票: 裁判)"],
];

/** The English of a label's kind word ("诵 5" -> "raise"), from the terminal's vocabulary
 * (clients/python/vocab.py GLOSSES). */
export function gloss(label: string): string {
  const words = label.split(" ");
  return TERMS.glosses[words.slice(0, 2).join(" ")] ?? TERMS.glosses[words[0]] ?? "";
}

/** A legal move's label (LegalMovesResponse.labels) in the game's words; in English with
 * its kind glossed first. */
export function moveLabel(label: string): string {
  if (lang === "en") return gloss(label) ? `${gloss(label)} · ${label}` : label;
  return label
    .replace(/seat (\d+)/g, (_m, n) => seatWord(Number(n)))
    .replace(/ with /g, " 配 ")
    .replace(/\bTable\b/g, "");
}
