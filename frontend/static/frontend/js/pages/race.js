// /races/<code>/: the lobby (join, invite, start), the countdown, then the live race: the player's own
// table beside every racer's progress, and the finish order.
import { boot, el, get, post } from "../api.js";
import { formatClock } from "../cards.js";
import { GameClient } from "../gameclient.js";
import { LiveSocket } from "../socket.js";

const data = boot();
const me = data.me;
const code = data.code.toUpperCase();
const root = document.querySelector("[data-race-root]");
const lobby = document.querySelector("[data-lobby]");
const countdown = document.querySelector("[data-testid=countdown]");
const panel = document.querySelector("[data-game-panel]");
const racersList = document.querySelector("[data-testid=racers]");
const finishBox = document.querySelector("[data-finish]");
let race = null;
let client = null;
let friends = null;
let countdownTimer = null;
let pollTimer = null;
let message = "";

const myEntry = () => (race ? race.racers.find((r) => r.username === me && !r.ghost) : null);

function say(text) {
  message = text;
  render();
}

async function act(path, body) {
  try {
    const answer = await post(path, body);
    if (answer && answer.code) update(answer);
    message = "";
    render();
    return answer;
  } catch (err) {
    say(err.message);
    return null;
  }
}

// A racer's newest progress from `progress` frames, by username: a whole race frame built a moment
// before one of them may arrive after it, and must not show that racer going back.
const latest = new Map();

function update(next) {
  if (race && next.version < race.version) return;
  race = next;
  race.racers = race.racers.map((racer) => {
    const newer = latest.get(racer.username);
    return newer && !racer.ghost && racer.status === "playing" && newer.moves > racer.moves ? { ...racer, ...newer } : racer;
  });
  render();
}

function progress(racer) {
  const known = latest.get(racer.username);
  if (known && known.moves >= racer.moves) return;
  latest.set(racer.username, racer);
  if (!race) return;
  race.racers = race.racers.map((r) => (r.username === racer.username && !r.ghost && r.moves < racer.moves ? { ...r, ...racer } : r));
  render();
}

function statusText() {
  switch (race.status) {
    case "open":
      if (race.racers.length < 2) return "Waiting for racers to join.";
      // The owner (a rematch's too) is the one who starts: tell them so rather than to wait for themselves.
      return me && me === race.owner ? "Start the race when everyone is in." : `Waiting for ${race.owner} to start.`;
    case "countdown": return "Get ready…";
    case "running": return "Racing!";
    case "finished": return "The race is over.";
    default: return race.status;
  }
}

function renderLobby() {
  const entry = myEntry();
  const link = new URL(race.link || `/races/${race.code}/`, location.origin).href;
  const copy = el("button", { type: "button", text: "Copy link", onclick: async () => {
    try { await navigator.clipboard.writeText(link); copy.textContent = "Copied"; } catch { /* shown anyway */ }
  } });
  const parts = [
    el("h1", { id: "race-h" }, "Race ", el("span", { "data-testid": "race-code", text: race.code })),
    el("p", { class: "muted", "data-testid": "race-status", "data-status": race.status, text: `${statusText()} Deal ${race.deal}, opened by ${race.owner}${race.ghost ? `, against ${race.ghost.username}'s recorded game` : ""}.` }),
  ];
  if (message) parts.push(el("p", { class: "errors", role: "alert", text: message }));
  if (race.status === "open") {
    parts.push(el("div", { class: "join-link" }, "Join code ", el("code", { text: race.code }), " or link ", el("a", { href: link, "data-testid": "race-link", text: link }), copy));
  }
  const buttons = el("p", { class: "row" });
  if (race.status === "open") {
    if (!me) buttons.append(el("a", { class: "button primary", href: `/login/?next=${encodeURIComponent(location.pathname)}`, text: "Sign in to join" }));
    else if (!entry) buttons.append(el("button", { type: "button", class: "primary", "data-testid": "join-race", text: "Join the race", onclick: () => act(`/api/races/${code}/join/`) }));
    if (me && me === race.owner) {
      buttons.append(el("button", { type: "button", class: "primary", "data-testid": "start-race", text: "Start the race", onclick: () => act(`/api/races/${code}/start/`) }));
      // The owner leaving an open race cancels it (docs/races.md).
      buttons.append(el("button", { type: "button", "data-testid": "cancel-race", text: "Cancel the race", onclick: () => {
        if (window.confirm("Cancel this race for everyone?")) act(`/api/races/${code}/resign/`);
      } }));
    } else if (entry) {
      buttons.append(el("button", { type: "button", text: "Leave", onclick: () => act(`/api/races/${code}/resign/`) }));
    }
  }
  if (race.status === "running" && entry && entry.status === "playing") {
    buttons.append(el("button", { type: "button", class: "quiet-light", text: "Resign", onclick: () => {
      if (window.confirm("Resign the race?")) act(`/api/races/${code}/resign/`);
    } }));
  }
  if (buttons.childNodes.length) parts.push(buttons);
  if (race.status === "open" && entry) parts.push(invitePanel());
  lobby.replaceChildren(...parts);
}

function invitePanel() {
  const box = el("div", { class: "invite" });
  if (friends === null) {
    friends = [];
    get("/api/friends/").then((f) => {
      friends = (f.friends || []).map((x) => (typeof x === "string" ? x : x.username));
      render();
    }).catch(() => {});
    return box;
  }
  const racing = new Set(race.racers.map((r) => r.username));
  const candidates = friends.filter((f) => !racing.has(f));
  if (!candidates.length) return box;
  box.append(el("h2", { text: "Invite friends" }));
  box.append(el("ul", { class: "links" }, candidates.map((name) => el("li", {},
    race.invited.includes(name)
      ? `${name} (invited)`
      : el("button", { type: "button", text: `Invite ${name}`, onclick: () => act(`/api/races/${code}/invite/`, { username: name }) })))));
  return box;
}

function renderRacers() {
  racersList.replaceChildren(...race.racers.map((r) => {
    const pct = Math.round((r.cards_home / 52) * 100);
    const label = r.status === "won" ? `finished #${r.rank ?? "?"}${r.elapsed_ms != null ? ` in ${formatClock(r.elapsed_ms)}` : ""}`
      : r.status === "resigned" ? (r.out_of_time ? "out of time" : "resigned") : r.status === "waiting" ? "ready" : "playing";
    return el("li", { class: `racer${r.username === me && !r.ghost ? " me" : ""}`, "data-username": r.username, "data-status": r.status },
      el("span", { class: "name" }, r.game && r.username !== me ? el("a", { href: `/games/${r.game}/`, text: r.username, title: "Watch this game" }) : r.username, r.ghost ? " (ghost)" : ""),
      el("span", { class: "figures" },
        el("span", { "data-testid": "racer-home", text: `${r.cards_home}/52` }), " · ",
        el("span", { "data-testid": "racer-moves", text: `${r.moves} move${r.moves === 1 ? "" : "s"}` }), " · ",
        el("span", { "data-testid": "racer-status", text: label })),
      el("div", { class: "progress", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 52, "aria-valuenow": r.cards_home, "aria-label": `${r.username}: ${r.cards_home} of 52 cards home`, "data-testid": "progress" },
        el("span", { style: { width: `${pct}%` } })),
    );
  }));
}

function renderFinish() {
  const done = race.racers.filter((r) => r.rank != null).sort((a, b) => a.rank - b.rank);
  const out = race.racers.filter((r) => r.rank == null && r.status === "resigned");
  finishBox.hidden = !done.length && race.status !== "finished";
  finishBox.querySelector("[data-testid=finish-order]").replaceChildren(
    ...done.map((r) => el("li", { "data-username": r.username }, el("strong", { text: r.username }), ` ${r.moves} moves, ${formatClock(r.elapsed_ms || 0)}`)),
    ...out.map((r) => el("li", { class: "muted", style: { listStyle: "none" }, text: `${r.username}: ${r.out_of_time ? "out of time" : "resigned"}` })),
  );
  const after = finishBox.querySelector("[data-after-race]");
  after.replaceChildren();
  if (race.status === "finished") {
    if (race.rematch) after.append(el("a", { class: "button primary", href: `/races/${race.rematch}/`, text: "Join the rematch" }));
    else if (myEntry() && !race.ghost) after.append(el("button", { type: "button", class: "primary", text: "Rematch on a new deal", onclick: async () => {
      const next = await act(`/api/races/${code}/rematch/`);
      if (next) location.href = next.link || `/races/${next.code}/`;
    } }));
    const entry = myEntry();
    if (entry && entry.game) after.append(el("a", { href: `/replay/${entry.game}/`, text: "Your replay" }));
  }
}

function renderCountdown() {
  clearInterval(countdownTimer);
  if (race.status !== "countdown" || !race.starts_at) {
    countdown.hidden = true;
    return;
  }
  const startsAt = Date.parse(race.starts_at);
  const tick = () => {
    const left = startsAt - Date.now();
    countdown.hidden = false;
    countdown.textContent = left > 0 ? String(Math.ceil(left / 1000)) : "Go!";
    if (left <= -1500) {
      clearInterval(countdownTimer);
      refresh(); // the server reveals the boards at the start instant; ask if its push is late
    }
  };
  tick();
  countdownTimer = setInterval(tick, 100);
}

async function startMyGame() {
  const entry = myEntry();
  if (!entry || !entry.game || client) return;
  client = "loading";
  try {
    const game = await get(`/api/games/${entry.game}/`);
    panel.hidden = false;
    client = new GameClient(panel, game, { me, endsAt: race.ends_at });
    window.fc = { client, table: client.table, race: () => race };
    countdown.hidden = true;
  } catch (err) {
    client = null;
    say(err.message);
  }
}

function render() {
  if (!race) return;
  root.classList.toggle("running", race.status === "running" || race.status === "finished");
  root.dataset.status = race.status;
  renderLobby();
  renderRacers();
  renderFinish();
  renderCountdown();
  if (race.status === "running" || race.status === "finished") startMyGame();
}

async function refresh() {
  try {
    update(await get(`/api/races/${code}/`));
  } catch (err) {
    if (!race) lobby.replaceChildren(el("h1", { text: `Race ${code}` }), el("p", { class: "errors", role: "alert", text: err.message }));
  }
}

const socket = new LiveSocket(`/ws/races/${code}/`, {
  onFrame: (frame) => {
    if (frame.type === "race" && frame.race) update(frame.race);
    else if (frame.type === "progress" && frame.racer) progress(frame.racer);
    else if (frame.type === "error" && frame.message && frame.id) say(frame.message);
  },
  onOpen: () => {
    clearInterval(pollTimer);
    pollTimer = null;
  },
  onDown: () => {
    // Without the socket, keep the progress fresh by polling until it is back.
    if (!pollTimer) pollTimer = setInterval(refresh, 2000);
  },
});
refresh();
socket.connect();
window.fc = { race: () => race, socket };
