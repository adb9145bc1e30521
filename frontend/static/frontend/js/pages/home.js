// The home page: today's daily, dealing a game, quick races and the public races, opening or joining a race.
import { el, formatDate, get, post } from "../api.js";

async function showDaily() {
  const box = document.querySelector("[data-daily]");
  try {
    const daily = await get("/api/daily/");
    const board = document.querySelector("[data-daily-board]");
    board.href = `/daily/${daily.date}/`;
    board.hidden = false;
    // The day is UTC's, not the player's: say so, and when the next deal comes, in their time.
    const left = Math.max(0, Date.parse(daily.ends_at) - Date.now());
    const hours = Math.floor(left / 3600000);
    const minutes = Math.floor((left % 3600000) / 60000);
    box.replaceChildren(
      el("p", {}, el("strong", { text: formatDate(daily.date) }), " (a UTC day)"),
      el("p", { class: "muted", "data-testid": "next-daily", text: `Next deal in ${hours} h ${minutes} min.` }),
      el("dl", { class: "stats" },
        el("div", {}, el("dt", { text: "Par" }), el("dd", { "data-testid": "daily-par", text: daily.par ?? "—" })),
        el("div", {}, el("dt", { text: "Players" }), el("dd", { text: daily.players }))),
    );
    if (daily.game) {
      const play = document.querySelector("[data-testid=play-daily]");
      play.textContent = "Back to your daily";
    }
  } catch (err) {
    box.replaceChildren(el("p", { class: "muted", text: err.code === "daily_pending" ? "Today's deal is being prepared…" : `The daily is not available: ${err.message}` }));
    // Asked again by itself, as the daily page does: the player was told to try again and never was.
    if (err.code === "daily_pending") setTimeout(showDaily, (err.error.retry_after || 2) * 1000);
  }
}

/** A deal as typed, in the server's form: deal ids are lower case (`MS:1` is `ms:1`), spaces dropped.
 * (The "Play a deal" form needs no script: it posts to /play/, which reads the deal the same way.) */
function dealFromForm(form) {
  const input = form.querySelector("input[name=deal]");
  return input.value.replace(/\s+/g, "").toLowerCase();
}

function wireRaces() {
  const open = document.querySelector("[data-open-race]");
  if (open) {
    open.addEventListener("submit", async (event) => {
      event.preventDefault();
      const errors = open.querySelector(".errors");
      const text = dealFromForm(open);
      const deal = /^\d+$/.test(text) ? `ms:${text}` : text === "random" ? "" : text;
      try {
        const race = await post("/api/races/", deal ? { deal } : {});
        location.href = race.link || `/races/${race.code}/`;
      } catch (err) {
        errors.textContent = err.message;
        errors.hidden = false;
      }
    });
  }
  const join = document.querySelector("[data-join-race]");
  join.addEventListener("submit", (event) => {
    event.preventDefault();
    const code = join.querySelector("input[name=code]").value.replace(/[^0-9a-z]/gi, "").toUpperCase();
    if (code) location.href = `/races/${code}/`;
  });
}

/** Quick race: the server puts the player in the oldest public race with room, or opens one. */
function wireQuickRace() {
  const button = document.querySelector("button[data-testid=quick-race]");
  if (!button) return;
  const errors = document.querySelector("[data-quick-race] .errors");
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const race = await post("/api/races/quick/");
      location.href = race.link || `/races/${race.code}/`;
    } catch (err) {
      errors.textContent = err.message;
      errors.hidden = false;
      button.disabled = false;
    }
  });
}

// The public races one may join now, asked again now and then while the page is open.
const PUBLIC_EVERY_MS = 15000;
let publicTimer = null;

async function showPublicRaces() {
  const box = document.querySelector("[data-public-races]");
  if (!box) return;
  let page;
  try {
    page = await get("/api/races/?status=open&public=1&page_size=10");
  } catch {
    return; /* not essential: asked again below */
  } finally {
    clearTimeout(publicTimer);
    if (!document.hidden) publicTimer = setTimeout(showPublicRaces, PUBLIC_EVERY_MS);
  }
  if (!page.count) {
    box.replaceChildren(el("p", { class: "muted", text: "No public race is waiting: a quick race opens one." }));
    return;
  }
  const items = page.results.map((race) => {
    const racers = race.racers.length;
    const state = race.status === "countdown" ? "starting" : "waiting";
    return el("li", { "data-code": race.code },
      el("a", { href: race.link || `/races/${race.code}/`, text: `Race ${race.code}` }),
      ` · ${race.deal} · ${racers} racer${racers === 1 ? "" : "s"} · ${state}`);
  });
  box.replaceChildren(el("h3", { text: "Public races" }), el("ul", { "data-testid": "public-races-list" }, items));
}

async function showMyRaces() {
  const box = document.querySelector("[data-my-races]");
  if (!box || !document.querySelector("[data-testid=me]")) return;
  try {
    const [mine, challenges] = await Promise.all([get("/api/races/"), get("/api/challenges/").catch(() => ({ received: [] }))]);
    const items = [];
    // Challenges waiting for the player's answer, answered on the challenges page.
    for (const challenge of challenges.received || []) {
      if (challenge.status !== "open") continue;
      items.push(el("li", { "data-testid": "challenge-waiting" }, `${challenge.challenger} challenges you to ${challenge.deal}: `,
        el("a", { href: "/challenges/", text: "answer" })));
    }
    for (const invite of mine.invites || []) {
      items.push(el("li", {}, `${invite.invited_by} invites you: `, el("a", { href: invite.link, text: `race ${invite.code}` })));
    }
    for (const race of mine.races || []) {
      items.push(el("li", {}, el("a", { href: race.link, text: `race ${race.code}` }), ` (${race.status}, ${race.racers.length} racer${race.racers.length === 1 ? "" : "s"})`));
    }
    if (items.length) box.replaceChildren(el("h3", { text: "Your races and challenges" }), el("ul", {}, items));
  } catch { /* not essential */ }
}

// The player's games still playing, newest first, each with a way back to its table.
const IN_PROGRESS = 5;

async function showGamesInProgress() {
  const box = document.querySelector("[data-games-in-progress]");
  if (!box) return;
  let page;
  try {
    page = await get(`/api/games/?status=playing&page_size=${IN_PROGRESS}`);
  } catch {
    return; /* not essential: the rest of the page stands */
  }
  if (!page.count) return;
  const items = page.results.map((game) => el("li", {},
    el("a", { href: `/games/${game.id}/`, text: game.ranked ? "Today's daily" : game.deal }),
    ` · ${game.moves} move${game.moves === 1 ? "" : "s"} · ${game.cards_home} of 52 cards home · started ${formatDate(game.created_at)}`));
  const list = [el("ul", { "data-testid": "games-in-progress-list" }, items)];
  if (page.count > items.length) list.push(el("p", { class: "muted", text: `The ${items.length} newest of ${page.count} games in progress.` }));
  box.querySelector("[data-list]").replaceChildren(...list);
  box.hidden = false;
}

// After closing one's account (the account page comes here with ?closed=1).
if (new URLSearchParams(location.search).get("closed") === "1" && !document.querySelector("[data-testid=me]")) {
  const said = el("p", { class: "ok", role: "status", "data-testid": "closed-notice", text: "Your account is closed. Thank you for playing." });
  document.querySelector("main .wrap").prepend(said);
}

showDaily();
wireQuickRace();
showPublicRaces();
document.addEventListener("visibilitychange", () => { if (!document.hidden) showPublicRaces(); });
wireRaces();
showMyRaces();
showGamesInProgress();
