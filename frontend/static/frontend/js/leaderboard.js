// A daily's leaderboard: summary, histogram of winning move counts (SVG), the ranked table with the
// caller's row highlighted, all/friends tabs, the people / bots switch (bots' lines badged "bot"), a
// Report link beside another player's result, pages, and links to the neighbouring days.

import { el, formatDate, get, svgEl } from "./api.js";
import { formatClock } from "./cards.js";
import { botBadge, playersOf, playersSwitch, reportButton } from "./fairplay.js";

const PAGE_SIZE = 25;

/** Draws the histogram of winning move counts as an SVG bar chart; marks par and the caller's bar. */
export function histogramSvg(buckets, { par = null, me = null, width = 640, height = 220 } = {}) {
  const title = buckets.length
    ? `Winning move counts: ${buckets.reduce((s, b) => s + b.count, 0)} wins from ${buckets[0].moves} to ${buckets[buckets.length - 1].moves} moves${par ? `, par ${par}` : ""}${me ? `, yours ${me}` : ""}`
    : "No wins yet";
  const svg = svgEl("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title, "data-testid": "histogram" }, svgEl("title", { text: title }));
  if (!buckets.length) {
    svg.append(svgEl("text", { x: width / 2, y: height / 2, "text-anchor": "middle", text: "No wins yet" }));
    return svg;
  }
  // One bar per move count from the fewest to the most (and par, so its marker fits), binned when wide.
  let lo = buckets[0].moves;
  let hi = buckets[buckets.length - 1].moves;
  if (par) {
    lo = Math.min(lo, par);
    hi = Math.max(hi, par);
  }
  const span = hi - lo + 1;
  const binSize = Math.max(1, Math.ceil(span / 60));
  const bins = [];
  for (let start = lo; start <= hi; start += binSize) bins.push({ start, end: Math.min(hi, start + binSize - 1), count: 0 });
  for (const b of buckets) bins[Math.floor((b.moves - lo) / binSize)].count += b.count;
  const maxCount = Math.max(...bins.map((b) => b.count), 1);
  const left = 34;
  const right = 8;
  // The band above the plot holds the par label alone, so the "you" over a tall bar never covers it.
  const top = par ? 32 : 12;
  const bottom = 34;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const barW = plotW / bins.length;
  const y = (count) => top + plotH - (count / maxCount) * plotH;
  // Axes and a few gridlines.
  const ticks = [0, Math.ceil(maxCount / 2), maxCount].filter((v, i, a) => a.indexOf(v) === i);
  for (const t of ticks) {
    svg.append(svgEl("line", { x1: left, x2: width - right, y1: y(t), y2: y(t), stroke: "#d4d9d2" }));
    svg.append(svgEl("text", { x: left - 6, y: y(t) + 4, "text-anchor": "end", text: String(t) }));
  }
  bins.forEach((bin, i) => {
    const isMe = me !== null && me >= bin.start && me <= bin.end;
    const label = bin.start === bin.end ? `${bin.start} moves` : `${bin.start}-${bin.end} moves`;
    if (bin.count) {
      const bar = svgEl("rect", {
        class: `bar${isMe ? " me" : ""}`,
        x: left + i * barW + barW * 0.1,
        width: Math.max(1, barW * 0.8),
        y: y(bin.count),
        height: top + plotH - y(bin.count),
        rx: Math.min(3, barW * 0.2),
        "data-moves": bin.start,
        "data-count": bin.count,
      }, svgEl("title", { text: `${label}: ${bin.count} player${bin.count === 1 ? "" : "s"}${isMe ? " (you)" : ""}` }));
      svg.append(bar);
      if (isMe) {
        // Said in words too, not by colour alone.
        svg.append(svgEl("text", { class: "me-label", x: left + i * barW + barW / 2, y: Math.max(10, y(bin.count) - 4), "text-anchor": "middle", text: "you" }));
      }
    }
    const every = Math.max(1, Math.ceil(bins.length / Math.max(4, Math.min(10, Math.floor(plotW / 56)))));
    if (i % every === 0 || (i === bins.length - 1 && i % every > every / 2)) {
      svg.append(svgEl("text", { x: left + i * barW + barW / 2, y: height - bottom + 16, "text-anchor": "middle", text: String(bin.start) }));
    }
  });
  svg.append(svgEl("text", { x: left + plotW / 2, y: height - 4, "text-anchor": "middle", text: "moves" }));
  if (par) {
    const x = left + (Math.floor((par - lo) / binSize) + 0.5) * barW;
    svg.append(svgEl("line", { class: "par", x1: x, x2: x, y1: top - 4, y2: top + plotH }));
    const flip = x > width - right - 60; // near the right edge the label goes left of the line
    svg.append(svgEl("text", { class: "par-label", x: flip ? x - 4 : x + 4, y: 12, "text-anchor": flip ? "end" : "start", text: `par ${par}` }));
  }
  return svg;
}

export class Leaderboard {
  /** `prev` and `next`: the neighbouring days that have a daily (null: none), when the page knows them;
   * left out, today's board finds the day before from the archive. */
  constructor(root, { date, me = "", today = null, prev, next }) {
    this.root = root;
    this.date = date;
    this.me = me;
    this.today = today;
    this.prev = prev;
    this.next = next;
    this.scope = "all";
    // People's board or bots' (docs/fair-play.md), from the page's address (`?players=bots`), which keeps it.
    this.players = playersOf();
    this.page = 1;
    this.detail = null;
  }

  /** The board's query: its scope and, for the bots' board, `players=bots`. */
  query(extra = {}) {
    const query = new URLSearchParams(extra);
    if (this.players === "bots") query.set("players", "bots");
    return query;
  }

  setPlayers(players) {
    this.players = players;
    this.scope = "all";
    this.page = 1;
    const address = new URLSearchParams(location.search);
    if (players === "bots") address.set("players", "bots");
    else address.delete("players");
    const search = address.toString();
    history.replaceState(null, "", `${location.pathname}${search ? `?${search}` : ""}${location.hash}`);
    this.load({ keepFocus: true });
  }

  async load({ keepFocus = false } = {}) {
    // A reload for the other players keeps its switch (and the focus on it) while the board is read.
    if (keepFocus && this.switcher) this.tableBox.setAttribute("aria-busy", "true");
    else this.root.replaceChildren(el("p", { class: "muted", text: "Loading the leaderboard…" }));
    const histogramQuery = this.query().toString();
    try {
      const [detail, histogram] = await Promise.all([
        get(`/api/daily/${this.date}/`),
        get(`/api/daily/${this.date}/histogram/${histogramQuery ? `?${histogramQuery}` : ""}`).catch(() => null),
      ]);
      this.detail = detail;
      this.histogram = histogram;
    } catch (err) {
      if (err.code === "daily_pending") {
        // Today's daily is still being made by the server's sweeper: asked again when told to.
        this.root.replaceChildren(el("p", { class: "muted", role: "status", "data-testid": "daily-pending", text: "Today's daily is being prepared: its leaderboard opens in a few seconds." }));
        setTimeout(() => this.load(), Math.max(1, err.error.retry_after || 2) * 1000);
        return;
      }
      this.root.replaceChildren(el("p", { class: "errors", role: "alert", text: err.message }));
      return;
    }
    const focused = document.activeElement;
    this.build();
    // build() puts the same switch back: the button pressed keeps the focus.
    if (this.switcher && this.switcher.contains(focused)) focused.focus();
    await this.loadPage();
  }

  build() {
    const d = this.detail;
    const h = this.histogram;
    this.summary = el("dl", { class: "stats", "data-testid": "daily-summary" },
      el("div", {}, el("dt", { text: "Par" }), el("dd", { "data-testid": "par", text: d.par ?? "—" })),
      el("div", {}, el("dt", { text: "Players" }), el("dd", { text: d.players })),
      // The bots' board counts the bots' wins (its histogram's total); the day's own count is people's.
      el("div", {}, el("dt", { text: this.players === "bots" ? "Bots' wins ranked" : "Wins ranked" }),
        el("dd", { text: this.players === "bots" ? (h ? h.total : "—") : d.results ?? (h ? h.total : "—") })),
    );
    this.chart = el("figure", { class: "histogram" },
      // Drawn at about the width it is shown at: a 640-wide drawing shrunk onto a phone had labels
      // 4 px tall.
      h ? histogramSvg(h.buckets, { par: h.par ?? d.par, me: h.me, width: Math.max(300, Math.min(640, this.root.clientWidth || 640)) })
        : el("p", { class: "muted", text: "No histogram for this day." }),
      // Said of a chart with bars only: under "No wins yet" it described nothing.
      h && h.buckets.length
        ? el("figcaption", { class: "muted", text: "How many moves the winners needed (undos count). The dashed line is par, the fewest moves our solver found; your bar is highlighted." })
        : null,
    );
    const tab = (scope, label) => el("button", {
      type: "button", "aria-pressed": String(this.scope === scope), "data-scope": scope, text: label,
      onclick: () => {
        this.scope = scope;
        this.page = 1;
        for (const b of this.tabs.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.scope === scope));
        this.loadPage();
      },
    });
    this.tabs = el("div", { class: "tabs", role: "group", "aria-label": "Whose results" }, tab("all", "Everyone"), this.me ? tab("friends", "You and friends") : null);
    // Made once: its buttons (and the focus on the one pressed) outlive the board's redraws.
    this.switcher = this.switcher || playersSwitch({ value: this.players, label: "People or bots", onChange: (players) => this.setPlayers(players) });
    this.switcher.set(this.players);
    this.tableBox = el("div", { "data-testid": "leaderboard", "data-players": this.players });
    this.pager = el("div", { class: "pager" });
    // Links to the neighbouring days that HAVE a daily: the day before or after may have none (a new
    // site, a day the server was down), and its page is a 404.
    const nav = el("p", { class: "links", "data-testid": "day-links" });
    this.neighbours().then(({ prev, next }) => {
      if (prev) nav.append(el("a", { href: `/daily/${prev}/`, rel: "prev", "aria-label": `Previous daily: ${formatDate(prev)}`, text: `← ${formatDate(prev)}` }));
      if (next) nav.append(el("a", { href: `/daily/${next}/`, rel: "next", "aria-label": `Next daily: ${formatDate(next)}`, text: `${formatDate(next)} →` }));
    });
    const parts = [this.summary, this.chart, el("div", { class: "board-switches" }, this.tabs, this.switcher), this.tableBox, this.pager];
    if (d.par_line) {
      parts.push(el("details", {}, el("summary", { text: `The solver's line for par (${d.par} moves)` }), el("p", {}, el("code", { text: d.par_line }))));
    }
    parts.push(nav);
    this.root.replaceChildren(...parts);
  }

  async neighbours() {
    if (this.prev !== undefined) return { prev: this.prev, next: this.next ?? null };
    if (!this.today || this.date !== this.today) return { prev: null, next: null };
    try {
      const newest = (await get("/api/daily/archive/?page_size=1")).dailies[0];
      return { prev: newest && newest.date < this.date ? newest.date : null, next: null };
    } catch {
      return { prev: null, next: null };
    }
  }

  canSeeReplays() {
    // Others' ranked games open once the day is over (docs/daily.md).
    return !!this.today && this.date < this.today;
  }

  async loadPage() {
    if (!this.tableBox) return; // asked again before load() has built the page: load() reads the board itself
    let board;
    try {
      board = await get(`/api/daily/${this.date}/leaderboard/?${this.query({ scope: this.scope, page: this.page, page_size: PAGE_SIZE })}`);
    } catch (err) {
      this.tableBox.replaceChildren(el("p", { class: "errors", role: "alert", text: err.message }));
      return;
    }
    const row = (entry, extra = "") => {
      const mine = entry.username === this.me;
      const overPar = board.par ? entry.moves - board.par : null;
      return el("tr", { class: `${mine ? "me" : ""} ${extra}`.trim(), "data-username": entry.username, "aria-current": mine ? "true" : null },
        el("td", { class: "num", text: entry.rank }),
        el("td", {}, el("a", { href: `/u/${encodeURIComponent(entry.username)}/`, text: entry.username }), mine ? " (you)" : "", botBadge(entry)),
        el("td", { class: "num", text: entry.moves }),
        el("td", { class: "num vs-par", text: overPar === null ? "" : `${overPar > 0 ? "+" : ""}${overPar}` }),
        el("td", { class: "num", text: entry.undos }),
        el("td", { class: "num", text: formatClock(entry.elapsed_ms) }),
        el("td", { class: "links-cell" },
          entry.game && (mine || this.canSeeReplays()) ? el("a", { href: `/replay/${entry.game}/`, class: "replay-link" }, el("span", { text: "replay" })) : "",
          reportButton(entry, this.me)),
      );
    };
    const rows = board.entries.map((e) => row(e));
    if (board.me && !board.entries.some((e) => e.username === board.me.username)) {
      rows.push(el("tr", { class: "gap" }, el("td", { colspan: 7, class: "muted", text: "…" })));
      rows.push(row(board.me));
    }
    const table = rows.length
      ? el("div", { class: "table-scroll" }, el("table", { class: "board" },
        el("caption", { class: "muted", text: `${board.count} ranked result${board.count === 1 ? "" : "s"}${this.players === "bots" ? " of bots" : ""}${board.scope === "friends" ? " among you and your friends" : ""}` }),
        el("thead", {}, el("tr", {},
          el("th", { class: "num", scope: "col", text: "Rank" }),
          el("th", { scope: "col", text: "Player" }),
          el("th", { class: "num", scope: "col", text: "Moves" }),
          el("th", { class: "num vs-par", scope: "col", text: "vs par" }),
          el("th", { class: "num", scope: "col", text: "Undos" }),
          el("th", { class: "num", scope: "col", text: "Time" }),
          el("th", { scope: "col" }, el("span", { class: "visually-hidden", text: this.me ? "Replay and report" : "Replay" })))),
        el("tbody", {}, rows)))
      : el("p", { class: "muted", text: this.players === "bots" ? "No bot has won this one yet." : board.scope === "friends" ? "Nobody among you and your friends has won this one yet." : "Nobody has won this one yet." });
    this.tableBox.replaceChildren(table);
    this.tableBox.dataset.players = this.players;
    this.tableBox.removeAttribute("aria-busy");
    const pages = Math.max(1, Math.ceil(board.count / PAGE_SIZE));
    this.pager.replaceChildren(
      el("button", { type: "button", text: "Previous", disabled: this.page <= 1, onclick: () => { this.page -= 1; this.loadPage(); } }),
      el("span", { class: "muted", text: `page ${this.page} of ${pages}` }),
      el("button", { type: "button", text: "Next", disabled: !board.next, onclick: () => { this.page += 1; this.loadPage(); } }),
    );
    this.pager.hidden = pages <= 1;
  }
}
