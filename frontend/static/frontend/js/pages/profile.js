// /u/<username>/: a player's profile, statistics and streaks, recent games (with replays and ghost
// races), and, on one's own page, friends and requests.
import { api, boot, el, formatDate, get, plural, post } from "../api.js";
import { formatClock } from "../cards.js";
import { botBadge } from "../fairplay.js";

const data = boot();
const who = data.username;
const me = data.me;
const PAGE = 20;

const pct = (x) => (x === null || x === undefined ? "—" : `${Math.round(x * 100)}%`);
const num = (x, digits = 0) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits));

// Read once: the games list needs it too (ghost races are offered on one's own games and friends').
const profileRequest = get(`/api/users/${encodeURIComponent(who)}/`);

async function profile() {
  const box = document.querySelector("[data-profile]");
  let p;
  try {
    p = await profileRequest;
  } catch (err) {
    box.replaceChildren(el("p", { class: "errors", text: err.message }));
    return;
  }
  const s = p.stats || {};
  const stat = (label, value, id) => el("div", {}, el("dt", { text: label }), el("dd", { "data-testid": id || null, text: value }));
  const parts = [];
  // dir=auto: a name or bio in a right-to-left script is laid out as one.
  if (p.display_name && p.display_name !== p.username) parts.push(el("p", { class: "big-number", dir: "auto", text: p.display_name }));
  if (p.bio) parts.push(el("p", { class: "bio", dir: "auto", text: p.bio }));
  // Fair play (docs/fair-play.md): a bot ranks among bots only; a marked account's results are off every board.
  if (p.bot) {
    parts.push(el("p", { class: "account-kind", "data-testid": "bot-account" }, botBadge(p), " account: a program's, ranked on the bots' boards only."));
  }
  if (p.marked) {
    parts.push(el("p", { class: "errors", "data-testid": "marked-account", text: "This account is marked: its results are off the boards." }));
  }
  parts.push(el("p", { class: "muted", text: `Playing since ${formatDate(p.date_joined)}` }));
  parts.push(el("dl", { class: "stats", "data-testid": "stats" },
    stat("Current streak", `${s.current_streak ?? 0} day${s.current_streak === 1 ? "" : "s"}`, "current-streak"),
    stat("Best streak", `${s.best_streak ?? 0} day${s.best_streak === 1 ? "" : "s"}`, "best-streak"),
    stat("Dailies won", `${s.dailies_won ?? 0} of ${s.dailies_played ?? 0}`, "dailies-won"),
    stat("Daily win rate", pct(s.daily_win_rate)),
    stat("Moves over par (mean)", s.mean_moves_over_par === null || s.mean_moves_over_par === undefined ? "—" : `${s.mean_moves_over_par > 0 ? "+" : ""}${num(s.mean_moves_over_par, 1)}`),
    stat("Best daily rank", s.best_rank ?? "—"),
  )); // games won of finished, streaks of casual play: the statistics panel (templates/frontend/_statistics.html)
  if (p.friendship === "friends") parts.push(el("p", { class: "muted", text: `${who} is your friend.` }));
  else if (p.friendship === "request_sent") parts.push(el("p", { class: "muted", text: `Friend request sent: waiting for ${who} to accept.` }));
  else if (p.friendship) { // "none", or "request_received": sending a request to someone who asked you accepts theirs
    const asked = p.friendship === "request_received";
    // The outcome is said in a live region that is on the page before it is needed (a region added
    // with its text is often not read), and it takes the focus when the button goes away.
    const said = el("p", { class: "muted", role: "status", tabindex: "-1", "data-testid": "friend-status" });
    const button = el("button", { type: "button", class: "primary", text: asked ? `Accept ${who}'s friend request` : `Add ${who} as a friend`, onclick: async () => {
      try {
        const path = asked ? `/api/friends/requests/${encodeURIComponent(who)}/accept/` : "/api/friends/requests/";
        const answer = await post(path, asked ? undefined : { username: who });
        const friends = answer && answer.friends && answer.friends.some((x) => (x.username || x) === who);
        said.className = "muted";
        said.textContent = asked || friends ? `${who} is your friend.` : "Friend request sent.";
        button.remove();
        said.focus();
      } catch (err) {
        said.className = "errors";
        said.textContent = err.message;
      }
    } });
    parts.push(el("p", {}, button), said);
  }
  box.replaceChildren(...parts);
}

async function ghostRace(gameId) {
  try {
    const race = await post("/api/races/ghost/", { game: gameId });
    location.href = race.link || `/races/${race.code}/`;
  } catch (err) {
    window.alert(err.message);
  }
}

// A daily's game can be raced as a ghost once its day is over (POST /api/races/ghost/ refuses before).
const dailyNotOver = (g) => g.deal.startsWith("daily:") && g.deal.slice(6) >= data.today;

async function games() {
  const box = document.querySelector("[data-games]");
  let rows;
  let unlisted = 0; // games the statistics count that the list leaves out
  let canRaceGhosts = false; // of one's own games and friends' (POST /api/races/ghost/ refuses others)
  try {
    const p = await profileRequest.catch(() => null);
    canRaceGhosts = !!me && (me === who || (p && p.friendship === "friends"));
    // The export lists the newest first: its first page is the newest PAGE games.
    const first = await get(`/api/users/${encodeURIComponent(who)}/games/?page_size=${PAGE}`);
    if (p && p.stats) unlisted = Math.max(0, (p.stats.games_played || 0) - first.count);
    rows = first.results;
  } catch (err) {
    box.replaceChildren(el("p", { class: "errors", text: err.message }));
    return;
  }
  // The profile's `stats.games_played` counts games still in play, and another player's daily or race game that is
  // kept from view until its day or race is over (can_view_game): say why the list has fewer.
  const unlistedNote = unlisted
    ? [el("p", { class: "muted", "data-testid": "games-unlisted", text: me === who
      ? `${plural(unlisted, "game")} still in play ${unlisted === 1 ? "is" : "are"} not listed.`
      : `${plural(unlisted, "more game")} ${unlisted === 1 ? "is" : "are"} not listed: still in play, or a daily or race game shown once its day or race is over.` })]
    : []; // a list, spread below: replaceChildren would write a null as the text "null"
  if (!rows.length) {
    box.replaceChildren(el("p", { class: "muted", text: "No finished games yet." }), ...unlistedNote);
    return;
  }
  // In a box of its own that scrolls sideways, so a narrow phone does not scroll the whole page.
  box.replaceChildren(...unlistedNote, el("div", { class: "table-scroll" }, el("table", { class: "board", "data-testid": "games" },
    el("caption", { class: "visually-hidden", text: `Recent finished games of ${who}, newest first` }),
    el("thead", {}, el("tr", {},
      el("th", { scope: "col", text: "Deal" }), el("th", { scope: "col", text: "Result" }),
      el("th", { class: "num", scope: "col", text: "Moves" }), el("th", { class: "num", scope: "col", text: "Undos" }),
      el("th", { class: "num", scope: "col", text: "Time" }), el("th", { scope: "col" }, el("span", { class: "visually-hidden", text: "Replay and ghost race" })))),
    el("tbody", {}, rows.map((g) => el("tr", {},
      el("td", {}, g.deal.startsWith("daily:") ? el("a", { href: `/daily/${g.deal.slice(6)}/`, text: g.deal }) : g.deal),
      el("td", { text: g.status }),
      el("td", { class: "num", text: g.moves }),
      el("td", { class: "num", text: g.undos }),
      el("td", { class: "num", text: g.elapsed_ms === null ? "—" : formatClock(g.elapsed_ms) }),
      el("td", {}, el("a", { href: `/replay/${g.id}/`, text: "replay" }),
        canRaceGhosts && g.status === "won" && !dailyNotOver(g) ? [" · ", el("button", { type: "button", class: "link", text: "race this ghost", onclick: () => ghostRace(g.id) })] : null)))))));
}

// One's own friends and requests. The lists are redrawn after each change; the outcome is said in the
// section's live region, which takes the focus when the pressed button has gone with the redraw. The
// "Add a friend" form is made once, so the focus stays in it, and its error is tied to its field.
const friendsBox = document.querySelector("[data-friends]");
const friendsStatus = document.querySelector("[data-friends-status]");
const friendsLists = el("div");
const requestForm = friendsBox ? makeRequestForm() : null;

function tell(text, { focus = false, error = false } = {}) {
  friendsStatus.className = error ? "errors" : "muted";
  friendsStatus.textContent = text;
  if (focus) friendsStatus.focus();
}

function makeRequestForm() {
  const input = el("input", { name: "username", id: "friend-username", required: true, autocomplete: "off" });
  const error = el("p", { class: "errors", id: "friend-username-error", hidden: true });
  const form = el("form", { class: "row", "data-testid": "add-friend", onsubmit: async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    try {
      const answer = await post("/api/friends/requests/", { username: name });
      error.hidden = true;
      error.textContent = "";
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
      input.value = "";
      // Names are taken in any case: say the name as it is written.
      const friend = answer && answer.friends && answer.friends.find((x) => x.username.toLowerCase() === name.toLowerCase());
      tell(friend ? `${friend.username} is now your friend.` : `Friend request sent to ${name}.`);
      await friendsPanel(answer);
    } catch (err) {
      // One message, for the latest try, tied to the field; the field takes the focus to correct it.
      error.textContent = err.message;
      error.hidden = false;
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", error.id);
      tell("");
      input.focus();
    }
  } }, el("label", { class: "stack", for: input.id }, "Add a friend by username", input), el("button", { type: "submit", text: "Send request" }));
  return el("div", {}, form, error);
}

async function change(request, outcome) {
  try {
    await request();
  } catch (err) {
    tell(err.message, { focus: true, error: true });
    return;
  }
  await friendsPanel();
  tell(outcome, { focus: true });
}

async function friendsPanel(known = null) {
  if (!friendsBox) return;
  let f = known;
  try {
    if (!f || !f.friends) f = await get("/api/friends/");
  } catch (err) {
    friendsLists.replaceChildren(el("p", { class: "errors", text: err.message }));
    if (!friendsBox.contains(friendsLists)) friendsBox.replaceChildren(friendsLists);
    return;
  }
  const parts = [];
  const link = (name) => el("a", { href: `/u/${encodeURIComponent(name)}/`, text: name });
  const quoted = encodeURIComponent;
  // Each friend with a way to end the friendship (DELETE /api/friends/<name>/, as for a request).
  const remove = (name) => el("button", { type: "button", class: "link", text: "remove", "aria-label": `Remove ${name} from your friends`, onclick: () => {
    if (window.confirm(`Remove ${name} from your friends?`)) change(() => api("DELETE", `/api/friends/${quoted(name)}/`), `${name} is no longer your friend.`);
  } });
  parts.push(f.friends.length ? el("ul", {}, f.friends.map((x) => el("li", {}, link(x.username), " ", remove(x.username)))) : el("p", { class: "muted", text: "No friends yet: open a player's page to send a request." }));
  if (f.incoming.length) {
    parts.push(el("h3", { text: "Requests for you" }));
    parts.push(el("ul", {}, f.incoming.map((x) => el("li", {}, link(x.username), " ",
      el("button", { type: "button", text: "Accept", "aria-label": `Accept ${x.username}'s request`, onclick: () => change(() => post(`/api/friends/requests/${quoted(x.username)}/accept/`), `${x.username} is now your friend.`) }), " ",
      el("button", { type: "button", text: "Decline", "aria-label": `Decline ${x.username}'s request`, onclick: () => change(() => post(`/api/friends/requests/${quoted(x.username)}/decline/`), `You declined ${x.username}'s request.`) })))));
  }
  if (f.outgoing.length) {
    parts.push(el("h3", { text: "Your requests" }));
    parts.push(el("ul", {}, f.outgoing.map((x) => el("li", {}, link(x.username), " ",
      el("button", { type: "button", class: "link", text: "withdraw", "aria-label": `Withdraw your request to ${x.username}`, onclick: () => change(() => api("DELETE", `/api/friends/${quoted(x.username)}/`), `You withdrew your request to ${x.username}.`) })))));
  }
  friendsLists.replaceChildren(...parts);
  if (!friendsBox.contains(requestForm)) friendsBox.replaceChildren(friendsLists, requestForm);
}

profile();
games();
friendsPanel();
