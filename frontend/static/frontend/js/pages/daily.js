// /daily/: today's ranked game (created by POST /api/daily/play/), then its leaderboard.
import { boot, el, get, post } from "../api.js";
import { ReviewNotice } from "../fairplay.js";
import { GameClient } from "../gameclient.js";
import { Leaderboard } from "../leaderboard.js";

const data = boot();
const intro = document.querySelector("[data-daily-intro]");
const panel = document.querySelector("[data-game-panel]");
const section = document.querySelector("[data-leaderboard-section]");
// The player's won result, when fair play holds, clears or rejects it.
const review = new ReviewNotice(document.querySelector("[data-testid=review]"), { me: data.me });
let board = null;

function showBoard(date) {
  if (board) {
    board.loadPage();
    return;
  }
  section.hidden = false;
  // Others' replays open once the player has WON (the leaderboard sees their entry); a resign is not enough.
  board = new Leaderboard(section.querySelector("[data-leaderboard]"), { date, me: data.me, today: data.date });
  board.load();
}

async function start(attempt = 0) {
  let game;
  try {
    game = await post("/api/daily/play/");
  } catch (err) {
    if (err.code === "daily_pending") {
      // The server's sweeper makes the day's deal (the solver proves it and finds its par): seconds on a
      // fresh server. The page asks again when told to, less often after the first minute.
      intro.replaceChildren(el("p", { class: "panel narrow", role: "status", "data-testid": "daily-pending" },
        "Today's daily is being prepared: the solver is proving its deal and finding its par. ",
        "This page opens it by itself in a few seconds."));
      const wait = Math.max(1, err.error.retry_after || 2) * (attempt < 30 ? 1 : 5);
      setTimeout(() => start(attempt + 1), wait * 1000);
      return;
    }
    intro.replaceChildren(el("p", { class: "panel narrow errors", role: "alert", text: `The daily cannot be played: ${err.message}` }));
    return;
  }
  const date = game.deal.replace("daily:", "");
  let par = null;
  try {
    par = (await get("/api/daily/")).par;
  } catch { /* par is a nicety */ }
  // The day's par and the ranked rules, above the table: what the game will be measured against.
  intro.replaceChildren(el(
    "p",
    { class: "daily-rules", "data-testid": "daily-rules" },
    el("strong", { text: `Daily ${date}` }),
    par ? el("span", { "data-testid": "daily-par", text: ` · par ${par}` }) : null,
    " · Ranked: one game, no hints, safe autoplay; undos count as moves; the clock runs from the deal. ",
    el("a", { href: `/daily/${date}/`, text: "Leaderboard" }),
  ));
  panel.hidden = false;
  const client = new GameClient(panel, game, {
    me: data.me,
    par,
    share: async (g) => (await get(`/api/daily/${date}/share/`)).text,
    onChange: (g) => {
      if (g.status !== "playing") showBoard(date);
      review.update(g);
    },
  });
  window.fc = { client, table: client.table };
}

start();
