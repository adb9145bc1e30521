// /daily/<date>/: a day's leaderboard, par and histogram, and the archive of past dailies.
import { boot, el, formatDate, get } from "../api.js";
import { formatClock } from "../cards.js";
import { Leaderboard } from "../leaderboard.js";

const data = boot();
// `prev` and `next` come from the page view: the nearest days that have a daily (null: none).
const board = new Leaderboard(document.querySelector("[data-leaderboard]"), {
  date: data.date, me: data.me, today: data.today, prev: data.prev ?? null, next: data.next ?? null,
});
board.load();

async function archive() {
  const box = document.querySelector("[data-archive]");
  try {
    const page = await get("/api/daily/archive/?page_size=14");
    if (!page.dailies.length) {
      box.replaceChildren(el("p", { class: "muted", text: "No past dailies yet." }));
      return;
    }
    box.replaceChildren(el("table", { class: "board" },
      el("thead", {}, el("tr", {},
        el("th", { scope: "col", text: "Day" }), el("th", { class: "num", scope: "col", text: "Par" }),
        el("th", { class: "num", scope: "col", text: "Players" }), el("th", { scope: "col", text: "Winner" }))),
      el("tbody", {}, page.dailies.map((d) => el("tr", { class: d.date === data.date ? "me" : "" },
        el("td", {}, el("a", { href: `/daily/${d.date}/`, text: formatDate(d.date) })),
        el("td", { class: "num", text: d.par ?? "—" }),
        el("td", { class: "num", text: d.players }),
        el("td", { text: d.winner ? `${d.winner.username}, ${d.winner.moves} moves, ${formatClock(d.winner.elapsed_ms)}` : "—" }))))));
  } catch (err) {
    box.replaceChildren(el("p", { class: "muted", text: err.message }));
  }
}
archive();
