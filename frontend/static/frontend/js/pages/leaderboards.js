// /leaderboards/: a deal's records (with its replays, live as records fall), the month's ladder over the
// dailies and the daily streaks; each board everyone's or the caller's and friends', and the page's
// boards people's or bots' (the People / Bots switch, `?players=bots`; a bot's line is badged "bot").
// A signed-in player may report another's record (the Report link beside it).
import { boot, el, get, plural } from "../api.js";
import { formatClock } from "../cards.js";
import { botBadge, playersOf, reportButton, wirePlayersSwitch } from "../fairplay.js";
import { recordsPath, watchRecords } from "../record.js";

const data = boot();
const me = data.me || "";
const announce = document.querySelector("[data-testid=boards-announce]");
// Whose boards the page shows: people's (the default) or bots'.
let players = playersOf();
const who = (n) => plural(n, players === "bots" ? "bot" : "player");

/** One ranked board: its scope switch (signed in only), its table and the caller's own line. */
class Board {
  /**
   * @param options.name the board's test id ("records" makes data-testid="board-records")
   * @param options.columns [{label, num, value(entry)}] after Rank and Player
   * @param options.describe(body) the table's caption
   * @param options.empty(scope) what an empty board says
   */
  constructor(root, { name, title, columns, describe, empty, record = false }) {
    this.root = root;
    this.name = name;
    this.title = title;
    this.columns = columns;
    this.describe = describe;
    this.empty = empty;
    this.record = record;
    this.scope = "all";
    this.page = 1;
    this.pageSize = null; // null: the API's own page size
    this.path = null;
    this.reads = 0;
    this.body = null;
    const tab = (scope, label) => el("button", {
      type: "button", "data-scope": scope, "aria-pressed": String(scope === this.scope), text: label,
      onclick: () => this.setScope(scope),
    });
    this.tabs = me
      ? el("div", { class: "tabs", role: "group", "aria-label": `Whose ${title}`, "data-testid": `${name}-scope` }, tab("all", "Everyone"), tab("friends", "You and friends"))
      : null;
    this.box = el("div", { class: "board-box", "data-testid": `board-${name}`, "aria-busy": "false" });
    this.pager = el("div", { class: "pager", "data-testid": `${name}-pager`, hidden: true });
    root.replaceChildren(...[this.tabs, this.box, this.pager].filter(Boolean));
  }

  setScope(scope) {
    this.scope = scope;
    this.page = 1;
    for (const b of this.tabs.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.scope === scope));
    this.load();
  }

  /** Shows what a board without a path says (no deal chosen yet). */
  idle(text) {
    this.path = null;
    this.reads += 1; // an answer still on its way is for a board no longer shown
    this.box.replaceChildren(el("p", { class: "muted", text }));
    this.pager.hidden = true;
  }

  /** Reads the board at `path(scope)` (kept for the next read; a new path starts at page 1) and draws
   * it; an older answer that comes late is dropped. */
  async load(path = this.path) {
    if (!path) return null;
    if (path !== this.path) this.page = 1;
    this.path = path;
    const read = ++this.reads;
    this.box.setAttribute("aria-busy", "true");
    const url = new URL(path(this.scope), location.origin);
    if (players === "bots") url.searchParams.set("players", "bots");
    if (this.page > 1) url.searchParams.set("page", this.page);
    if (this.pageSize) url.searchParams.set("page_size", this.pageSize);
    let body;
    try {
      body = await get(url.pathname + url.search);
    } catch (err) {
      if (read === this.reads) {
        this.box.setAttribute("aria-busy", "false");
        this.box.replaceChildren(el("p", { class: "errors", role: "alert", "data-testid": `${this.name}-error`, "data-code": err.code, text: err.message }));
      }
      return null;
    }
    if (read !== this.reads) return null;
    this.body = body;
    this.draw(body);
    this.drawPager(body);
    this.box.setAttribute("aria-busy", "false");
    return body;
  }

  /** Previous and Next stay the same buttons from page to page, so the one pressed keeps the focus. */
  drawPager(body) {
    if (!this.pagerParts) {
      const turn = (step) => () => {
        this.page += step;
        this.load();
      };
      this.pagerParts = {
        previous: el("button", { type: "button", text: "Previous", onclick: turn(-1) }),
        where: el("span", { class: "muted" }),
        next: el("button", { type: "button", text: "Next", onclick: turn(1) }),
      };
      this.pager.replaceChildren(this.pagerParts.previous, this.pagerParts.where, this.pagerParts.next);
    }
    const pages = Math.max(1, Math.ceil((body.count || 0) / (body.page_size || 1)));
    const { previous, next } = this.pagerParts;
    const pressed = document.activeElement;
    previous.disabled = !body.previous;
    next.disabled = !body.next;
    // At the first or last page the pressed button goes off: the focus moves to the other one.
    if ((pressed === previous || pressed === next) && pressed.disabled) (pressed === next ? previous : next).focus();
    this.pagerParts.where.textContent = `page ${body.page || this.page} of ${pages}`;
    this.pager.hidden = !body.next && !body.previous;
  }

  row(entry, extra = "") {
    const mine = !!me && entry.username === me;
    // The deal's record, whatever the scope shown (among friends, their best need not be it).
    const isRecord = this.record && !!this.body && !!this.body.record && this.body.record.game === entry.game;
    const classes = [mine ? "me" : "", isRecord ? "record" : "", extra].filter(Boolean).join(" ");
    return el("tr", { class: classes || null, "data-username": entry.username, "data-rank": entry.rank, "aria-current": mine ? "true" : null },
      el("td", { class: "num", text: entry.rank }),
      el("td", { class: "player" },
        el("a", { href: `/u/${encodeURIComponent(entry.username)}/`, text: entry.username }),
        mine ? " (you)" : "",
        botBadge(entry),
        isRecord ? el("span", { class: "badge", text: "record" }) : ""),
      this.columns.map((c) => el("td", { class: c.num ? "num" : null }, c.value(entry))),
    );
  }

  draw(body) {
    const entries = body.entries || [];
    const rows = entries.map((e) => this.row(e));
    const own = body.me;
    if (own && !entries.some((e) => e.username === own.username)) {
      rows.push(el("tr", { class: "gap" }, el("td", { colspan: this.columns.length + 2, class: "muted", text: "…" })));
      rows.push(this.row(own, "own"));
    }
    if (!rows.length) {
      this.box.replaceChildren(el("p", { class: "muted", "data-testid": `${this.name}-empty`, text: this.empty(this.scope) }));
      return;
    }
    const table = el("table", { class: "board" },
      el("caption", { class: "muted", text: this.describe(body, this.scope) }),
      el("thead", {}, el("tr", {},
        el("th", { class: "num", scope: "col", text: "Rank" }),
        el("th", { scope: "col", text: "Player" }),
        this.columns.map((c) => el("th", { class: c.num ? "num" : null, scope: "col" }, c.label)))),
      el("tbody", {}, rows));
    const parts = [el("div", { class: "table-scroll" }, table)];
    if (me && !own) parts.push(el("p", { class: "muted", "data-testid": `${this.name}-not-ranked`, text: "You are not on this board yet." }));
    this.box.replaceChildren(...parts);
  }
}

const among = (scope) => (scope === "friends" ? " among you and your friends" : "");

// ------------------------------------------------------------------ deal records

const dealForm = document.querySelector("[data-deal-form]");
const records = new Board(document.querySelector("[data-records]"), {
  name: "records",
  title: "records",
  record: true,
  columns: [
    { label: "Moves", num: true, value: (e) => String(e.moves) },
    { label: "Undos", num: true, value: (e) => String(e.undos) },
    { label: "Time", num: true, value: (e) => formatClock(e.elapsed_ms) },
    {
      label: el("span", { class: "visually-hidden", text: "Replay" }),
      value: (e) => [
        e.game ? el("a", { href: `/replay/${e.game}/`, class: "replay-link", "aria-label": `Replay of ${e.username}'s game` }, el("span", { text: "replay" })) : "",
        reportButton(e, me),
      ],
    },
  ],
  describe: (body, scope) => `${body.deal || shownDeal}, autoplay ${body.autoplay || shownAutoplay}: ${who(body.count ?? body.entries.length)}${among(scope)}`,
  empty: (scope) => (players === "bots" ? "No bot has won this deal yet."
    : scope === "friends" ? "Nobody among you and your friends has won this deal yet." : "Nobody has won this deal yet: win it to set the record."),
});
let shownDeal = "";
let shownAutoplay = "safe";
let recordSocket = null;

/** A deal as a player types it: `1234` is `ms:1234`, in any case and with stray spaces; the server judges the rest. */
function dealId(text) {
  const deal = text.replace(/\s+/g, "").toLowerCase();
  return /^\d+$/.test(deal) ? `ms:${deal}` : deal;
}

function showRecords(deal, autoplay) {
  shownDeal = deal;
  shownAutoplay = autoplay;
  dealForm.elements.deal.value = deal;
  dealForm.elements.autoplay.value = autoplay;
  remember();
  if (recordSocket) recordSocket.close();
  recordSocket = null;
  if (!deal) {
    records.idle("Choose a deal to see its records.");
    return;
  }
  const shownPlayers = players;
  records.load((scope) => recordsPath(deal, { autoplay, scope })).then((body) => {
    // A deal the server knows gets its live board: each change is read again, and a record that falls
    // is said.
    if (!body || deal !== shownDeal || autoplay !== shownAutoplay || shownPlayers !== players) return;
    let first = true;
    recordSocket = watchRecords(deal, autoplay, (frame) => {
      if (first) {
        first = false; // the state on connecting: read only if the board moved since the page's read
        if (frame.count === body.count && (frame.record && frame.record.game) === (body.record && body.record.game)) return;
      }
      records.load();
      if (frame.record_fell && frame.record) {
        announce.textContent = `New ${shownPlayers === "bots" ? "bots' " : ""}record on ${deal}: ${plural(frame.record.moves, "move")} by ${frame.record.username}.`;
      }
    }, { players: shownPlayers });
  });
}

dealForm.addEventListener("submit", (event) => {
  event.preventDefault();
  showRecords(dealId(dealForm.elements.deal.value), dealForm.elements.autoplay.value);
});
for (const radio of dealForm.querySelectorAll("input[name=autoplay]")) {
  radio.addEventListener("change", () => {
    if (shownDeal) showRecords(shownDeal, dealForm.elements.autoplay.value);
  });
}

// ------------------------------------------------------------------ the month's ladder

const monthForm = document.querySelector("[data-month-form]");
const rule = document.querySelector("[data-testid=points-rule]");
const ladder = new Board(document.querySelector("[data-ladder]"), {
  name: "ladder",
  title: "ladder",
  columns: [
    { label: "Points", num: true, value: (e) => String(e.points) },
    { label: "Played", num: true, value: (e) => String(e.played) },
    { label: "Won", num: true, value: (e) => String(e.won) },
  ],
  describe: (body, scope) => `${monthName(shownMonth)}: ${who(body.count ?? body.entries.length)}${among(scope)}`,
  empty: (scope) => (players === "bots" ? "No bot has played a daily this month."
    : scope === "friends" ? "Nobody among you and your friends has played a daily this month." : "Nobody has played a daily this month yet."),
});
let shownMonth = data.month;

function monthName(month) {
  const [year, number] = month.split("-").map(Number);
  return new Date(Date.UTC(year, number - 1, 1)).toLocaleDateString(undefined, { year: "numeric", month: "long", timeZone: "UTC" });
}

function stepMonth(month, step) {
  const [year, number] = month.split("-").map(Number);
  const date = new Date(Date.UTC(year, number - 1 + step, 1));
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, "0")}`;
}

async function showLadder(month) {
  if (!/^\d{4}-\d{2}$/.test(month)) return;
  shownMonth = month;
  monthForm.elements.month.value = month;
  // No month after the current one has a ladder.
  monthForm.querySelector("[data-step='1']").disabled = month >= data.month;
  monthForm.elements.month.max = data.month;
  remember();
  const body = await ladder.load((scope) => `/api/ladder/${month}/${scope === "friends" ? "?scope=friends" : ""}`);
  if (body && body.points_rule) rule.textContent = body.points_rule;
}

monthForm.addEventListener("submit", (event) => event.preventDefault());
monthForm.elements.month.addEventListener("change", () => showLadder(monthForm.elements.month.value));
for (const button of monthForm.querySelectorAll("[data-step]")) {
  button.addEventListener("click", () => showLadder(stepMonth(shownMonth, Number(button.dataset.step))));
}

// ------------------------------------------------------------------ streaks

const streaks = new Board(document.querySelector("[data-streaks]"), {
  name: "streaks",
  title: "streaks",
  columns: [
    { label: "Current", num: true, value: (e) => String(e.current) },
    { label: "Longest", num: true, value: (e) => String(e.longest) },
  ],
  describe: (body, scope) => `${who(body.count ?? body.entries.length)}${among(scope)}`,
  empty: (scope) => (players === "bots" ? "No bot has a streak yet."
    : scope === "friends" ? "Nobody among you and your friends has a streak yet." : "Nobody has a streak yet."),
});

// ------------------------------------------------------------------ the page's address

/** The deal, autoplay and month shown, in the address: a board can be linked to and reloaded. */
function remember() {
  const query = new URLSearchParams(location.search);
  const set = (key, value, plain) => (value && value !== plain ? query.set(key, value) : query.delete(key));
  set("deal", shownDeal, "");
  set("autoplay", shownDeal ? shownAutoplay : "", "safe");
  set("month", shownMonth, data.month);
  set("players", players, "people");
  const search = query.toString();
  history.replaceState(null, "", `${location.pathname}${search ? `?${search}` : ""}${location.hash}`);
}

const asked = new URLSearchParams(location.search);
showRecords(dealId(asked.get("deal") || ""), asked.get("autoplay") === "none" ? "none" : "safe");
showLadder(/^\d{4}-\d{2}$/.test(asked.get("month") || "") && asked.get("month") <= data.month ? asked.get("month") : data.month);
const showStreaks = () => streaks.load((scope) => `/api/ladder/streaks/${scope === "friends" ? "?scope=friends" : ""}`).then((body) => {
  if (body && body.order) document.querySelector("[data-testid=streaks-order]").textContent = body.order;
});
showStreaks();

// ------------------------------------------------------------------ people or bots

// One switch for every board of the page: each is read again (the records' live socket too), from page 1.
wirePlayersSwitch(document.querySelector("[data-testid=players-switch]"), {
  value: players,
  onChange: (chosen) => {
    players = chosen;
    for (const board of [records, ladder, streaks]) board.page = 1;
    showRecords(shownDeal, shownAutoplay);
    showLadder(shownMonth);
    showStreaks();
    announce.textContent = chosen === "bots" ? "Showing the bots' boards." : "Showing the people's boards.";
  },
});
window.fc = { records, ladder, streaks, get recordSocket() { return recordSocket; } };
