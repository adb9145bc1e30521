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

// A public race in its countdown takes racers until a second before its start (docs/races.md).
const LATE_JOIN_MS = 1500;
// Whether the lobby offers Join during the countdown: taken away by the countdown's tick when time is up.
let joinOffered = false;
const lateJoin = () => race.status === "countdown" && race.public && race.starts_at && Date.parse(race.starts_at) - Date.now() > LATE_JOIN_MS;

function say(text) {
  message = text;
  render();
}

// Where focus goes once an action has been answered (a `data-focus-key`, or the heading), so that a
// button that goes away with its own press does not leave focus on the page's <body>.
async function act(path, body, { focus = null } = {}) {
  // Planned before the request: the race's socket may bring the redraw that removes the pressed
  // button before the answer comes, and the focus should go to the planned control then too.
  if (focus) awaitedFocus = focus;
  try {
    const answer = await post(path, body);
    if (answer && answer.code) update(answer);
    message = "";
    render();
    if (focus) moveFocus(focus);
    return answer;
  } catch (err) {
    awaitedFocus = null;
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
    case "open": {
      // A ghost is no racer who joined, but a race against one may start with its owner alone.
      const count = race.racers.filter((r) => !r.ghost).length;
      const ghost = race.racers.find((r) => r.ghost);
      const who = `${count === 1 ? "1 racer is in" : `${count} racers are in`}${ghost ? `, against the ghost of ${ghost.username}` : ""}.`;
      // A public race starts by itself: its countdown begins when a second racer is in.
      if (race.public) return `Waiting for a second racer: the race starts by itself once one joins. ${who}`;
      if (count < 2 && !ghost) return `Waiting for racers to join. ${who}`;
      // The owner (a rematch's too) is the one who starts: tell them so rather than to wait for themselves.
      return `${me && me === race.owner ? "Start the race when everyone is in." : `Waiting for ${race.owner} to start.`} ${who}`;
    }
    case "countdown": return race.public && lateJoin() ? "Get ready: the race is about to start. Others may still join." : "Get ready: the race is about to start.";
    case "running": return "Go! The race is on.";
    case "finished": {
      const first = race.racers.find((r) => r.rank === 1);
      if (first) return `The race is over: ${first.username} won.`;
      // Called off: the owner left before the start (no start instant was ever set).
      return race.starts_at ? "The race is over: nobody finished." : "The race was called off before it started.";
    }
    default: return race.status;
  }
}

// --- focus and in-place updates ---------------------------------------------------------------------
// The lobby, the racers and the finish order are redrawn on every race and progress frame. Parts are
// updated in place, a part is rebuilt only when what it shows has changed, and a control that had the
// focus is found again afterwards by its `data-focus-key` (else the race's heading takes it), so that
// keyboard and screen reader users are not thrown back to the top of the page whenever someone moves.

const heading = document.getElementById("race-h");

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function setAttr(node, name, value) {
  if (node.getAttribute(name) !== String(value)) node.setAttribute(name, value);
}

/** Rebuilds `box` with `build()` only when `signature` differs from the one it was built with. */
function rebuild(box, signature, build) {
  if (box.dataset.signature === signature) return;
  box.dataset.signature = signature;
  box.replaceChildren(...[build()].flat().filter(Boolean));
}

// A control an action leads to may come with the next race frame rather than with the action's
// answer: the heading holds the focus until then, and hands it on if nobody has moved it meanwhile.
let awaitedFocus = null;

function focusable(key) {
  const target = key === "heading" ? null : root.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
  return target && !target.closest("[hidden]") ? target : null;
}

function moveFocus(key) {
  const target = focusable(key);
  awaitedFocus = target || key === "heading" ? null : key;
  (target || heading).focus();
}

// The lobby's parts, made once: the status line (its first sentence a polite live region), the
// message, the join link, the buttons and the invitations.
const statusLine = lobby.querySelector("[data-testid=race-status]");
const said = statusLine.querySelector("[data-race-said]");
const detail = statusLine.querySelector("[data-race-detail]");
const messageBox = lobby.querySelector("[data-race-message]");
const standing = lobby.querySelector("[data-testid=race-standing]");
const joinBox = el("div", { class: "join-link", hidden: true });
const buttonsBox = el("p", { class: "row", hidden: true });
const inviteBox = el("div", { class: "invite" });
lobby.append(joinBox, buttonsBox, inviteBox);

function renderLobby() {
  const entry = myEntry();
  setText(said, statusText());
  setText(detail, ` Deal ${race.deal}, opened by ${race.owner}${race.ghost ? `, against ${race.ghost.username}'s recorded game` : ""}${race.public ? ", a public race" : ""}.`);
  setAttr(statusLine, "data-status", race.status);
  rebuild(messageBox, message, () => (message ? el("p", { class: "errors", text: message }) : null));
  const others = standingText();
  setText(standing, others);
  standing.hidden = !others;

  const link = new URL(race.link || `/races/${race.code}/`, location.origin).href;
  joinBox.hidden = race.status !== "open";
  rebuild(joinBox, race.status === "open" ? link : "", () => {
    if (race.status !== "open") return null;
    const copy = el("button", { type: "button", "data-focus-key": "copy-link", text: "Copy link", onclick: async () => {
      try {
        await navigator.clipboard.writeText(link);
        copy.textContent = "Copied";
      } catch { /* shown anyway */ }
    } });
    return ["Join code ", el("code", { text: race.code }), " or link ", el("a", { href: link, "data-testid": "race-link", "data-focus-key": "race-link", text: link }), copy];
  });

  // Each button with its key: the signature of the row is the list of keys.
  const buttons = [];
  joinOffered = race.status === "countdown" && lateJoin();
  if (race.status === "open" || lateJoin()) {
    if (!me) buttons.push(["sign-in", () => el("a", { class: "button primary", href: `/login/?next=${encodeURIComponent(location.pathname)}`, text: "Sign in to join" })]);
    else if (!entry) buttons.push(["join", () => el("button", { type: "button", class: "primary", "data-testid": "join-race", text: "Join the race", onclick: () => act(`/api/races/${code}/join/`, undefined, { focus: race.status === "open" ? "leave" : "heading" }) })]);
  }
  if (race.status === "open") {
    if (me && me === race.owner && race.public) {
      // Nobody starts a public race: it counts down by itself. Its owner may still call it off.
      buttons.push(["cancel", () => el("button", { type: "button", "data-testid": "cancel-race", text: "Leave the race", onclick: () => {
        if (window.confirm("Leave this public race? It is called off for anyone waiting in it.")) act(`/api/races/${code}/resign/`, undefined, { focus: "heading" });
      } })]);
    } else if (me && me === race.owner) {
      buttons.push(["start", () => el("button", { type: "button", class: "primary", "data-testid": "start-race", text: "Start the race", onclick: () => act(`/api/races/${code}/start/`, undefined, { focus: "heading" }) })]);
      // The owner leaving an open race cancels it (docs/races.md).
      buttons.push(["cancel", () => el("button", { type: "button", "data-testid": "cancel-race", text: "Cancel the race", onclick: () => {
        if (window.confirm("Cancel this race for everyone?")) act(`/api/races/${code}/resign/`, undefined, { focus: "heading" });
      } })]);
    } else if (entry) {
      buttons.push(["leave", () => el("button", { type: "button", text: "Leave", onclick: () => act(`/api/races/${code}/resign/`, undefined, { focus: "join" }) })]);
    }
  }
  // A racer playing resigns with the table's own Resign button (a second one here said the same).
  buttonsBox.hidden = !buttons.length;
  rebuild(buttonsBox, buttons.map(([key]) => key).join(" "), () => buttons.map(([key, make]) => {
    const node = make();
    node.dataset.focusKey = key;
    return node;
  }));
  renderInvites(entry);
}

function renderInvites(entry) {
  if (race.status !== "open" || !entry) {
    rebuild(inviteBox, "", () => null);
    return;
  }
  if (friends === null) {
    friends = [];
    get("/api/friends/").then((f) => {
      friends = (f.friends || []).map((x) => (typeof x === "string" ? x : x.username));
      render();
    }).catch(() => {});
  }
  const racing = new Set(race.racers.map((r) => r.username));
  const candidates = friends.filter((f) => !racing.has(f));
  const signature = candidates.map((name) => `${name}${race.invited.includes(name) ? "+" : ""}`).join(" ");
  rebuild(inviteBox, signature, () => {
    if (!candidates.length) return null;
    return [
      el("h2", { text: "Invite friends" }),
      el("ul", { class: "links" }, candidates.map((name) => el("li", {},
        race.invited.includes(name)
          ? el("span", { tabindex: "-1", "data-focus-key": `invite:${name}`, text: `${name} (invited)` })
          : el("button", { type: "button", "data-focus-key": `invite:${name}`, text: `Invite ${name}`, onclick: () => act(`/api/races/${code}/invite/`, { username: name }, { focus: `invite:${name}` }) })))),
    ];
  });
}

// One row per racer (a ghost keyed apart from a live racer of the same name), updated in place.
const racerRows = new Map();

function racerRow(key) {
  let row = racerRows.get(key);
  if (row) return row;
  row = {
    name: el("span", { class: "name" }),
    home: el("span", { "data-testid": "racer-home" }),
    moves: el("span", { "data-testid": "racer-moves" }),
    status: el("span", { "data-testid": "racer-status" }),
    fill: el("span"),
  };
  row.bar = el("div", { class: "progress", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 52, "data-testid": "progress" }, row.fill);
  row.li = el("li", {}, row.name, el("span", { class: "figures" }, row.home, " · ", row.moves, " · ", row.status), row.bar);
  racerRows.set(key, row);
  return row;
}

/** How a racer's race ended, in the racers' list's words ("finished #1", "out of time"), or null. */
function outcome(r) {
  if (r.status === "won") return `finished #${r.rank ?? "?"}`;
  if (r.status === "resigned") return r.out_of_time ? "out of time" : "resigned";
  return null;
}

/** Under way, every other racer's progress in one short line ("bob 12/52 · carol finished #1"). */
function standingText() {
  if (race.status !== "running") return "";
  return race.racers
    .filter((r) => r.ghost || r.username !== me)
    .map((r) => `${r.username}${r.ghost ? " (ghost)" : ""} ${outcome(r) ?? `${r.cards_home}/52`}`)
    .join(" · ");
}

function renderRacers() {
  // A racer's game is hidden from everyone but its player until the race is over (the server hides
  // it: docs/races.md); a ghost's recorded game can be opened.
  const racing = race.status !== "finished";
  const wanted = race.racers.map((r) => {
    const key = `${r.ghost ? "ghost:" : ""}${r.username}`;
    const row = racerRow(key);
    const label = r.status === "won" ? `${outcome(r)}${r.elapsed_ms != null ? ` in ${formatClock(r.elapsed_ms)}` : ""}`
      : outcome(r) ?? (r.status === "waiting" ? "ready" : "playing");
    setAttr(row.li, "class", `racer${r.username === me && !r.ghost ? " me" : ""}`);
    setAttr(row.li, "data-username", r.username);
    setAttr(row.li, "data-status", r.status);
    const watch = r.game && r.username !== me && (r.ghost || !racing) ? r.game : "";
    rebuild(row.name, `${watch}`, () => [
      watch ? el("a", { href: `/games/${watch}/`, "data-focus-key": `watch:${key}`, text: r.username, title: "Watch this game" }) : r.username,
      r.ghost ? " (ghost)" : "",
    ]);
    setText(row.home, `${r.cards_home}/52`);
    setText(row.moves, `${r.moves} move${r.moves === 1 ? "" : "s"}`);
    setText(row.status, label);
    setAttr(row.bar, "aria-valuenow", r.cards_home);
    setAttr(row.bar, "aria-label", `${r.username}: ${r.cards_home} of 52 cards home`);
    const width = `${Math.round((r.cards_home / 52) * 100)}%`;
    if (row.fill.style.width !== width) row.fill.style.width = width;
    return row.li;
  });
  for (const [key, row] of racerRows) if (!wanted.includes(row.li)) racerRows.delete(key);
  const shown = [...racersList.children];
  if (shown.length !== wanted.length || shown.some((li, i) => li !== wanted[i])) racersList.replaceChildren(...wanted);
}

function renderFinish() {
  const done = race.racers.filter((r) => r.rank != null).sort((a, b) => a.rank - b.rank);
  const out = race.racers.filter((r) => r.rank == null && r.status === "resigned");
  finishBox.hidden = !done.length && race.status !== "finished";
  const order = finishBox.querySelector("[data-testid=finish-order]");
  const nobody = race.status === "finished" && !done.length && race.starts_at;
  const items = [
    ...(nobody ? [["", "Nobody finished."]] : []),
    ...done.map((r) => [r.username, `${r.moves} moves, ${formatClock(r.elapsed_ms || 0)}`]),
    ...out.map((r) => [r.username, `${r.out_of_time ? "out of time" : "resigned"}`]),
  ];
  rebuild(order, JSON.stringify(items), () => [
    nobody ? el("li", { style: { listStyle: "none" }, text: "Nobody finished." }) : null,
    ...done.map((r) => el("li", { "data-username": r.username }, el("strong", { text: r.username }), ` ${r.moves} moves, ${formatClock(r.elapsed_ms || 0)}`)),
    ...out.map((r) => el("li", { class: "muted", style: { listStyle: "none" }, text: `${r.username}: ${r.out_of_time ? "out of time" : "resigned"}` })),
  ]);
  const after = finishBox.querySelector("[data-after-race]");
  const entry = myEntry();
  const links = [];
  if (race.status === "finished") {
    if (race.rematch) links.push(["rematch-link", () => el("a", { class: "button primary", href: `/races/${race.rematch}/`, text: "Join the rematch" })]);
    else if (entry && !race.ghost) links.push(["rematch", () => el("button", { type: "button", class: "primary", text: "Rematch on a new deal", onclick: async () => {
      const next = await act(`/api/races/${code}/rematch/`);
      if (next) location.href = next.link || `/races/${next.code}/`;
    } })]);
    if (entry && entry.game) links.push([`replay:${entry.game}`, () => el("a", { href: `/replay/${entry.game}/`, text: "Your replay" })]);
  }
  rebuild(after, links.map(([key]) => key).join(" "), () => links.map(([key, make]) => {
    const node = make();
    node.dataset.focusKey = key;
    return node;
  }));
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
    // Written when the figure changes only (the timer ticks ten times a second).
    setText(countdown, left > 0 ? String(Math.ceil(left / 1000)) : "Go!");
    if (joinOffered && !lateJoin()) renderLobby(); // too close to the start to join now
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
    client.setPlace(...placeTexts());
    window.fc = { client, table: client.table, race: () => race };
    countdown.hidden = true;
  } catch (err) {
    client = null;
    say(err.message);
  }
}

const ordinal = (n) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${suffix}`;
};

/** The racer's finishing place: the line under their table's result, and the words their share text
 * adds ("" for both before they finish). */
function placeTexts() {
  const entry = myEntry();
  if (!entry || entry.status !== "won" || entry.rank == null) return ["", ""];
  const place = `${ordinal(entry.rank)} of ${race.racers.length}`;
  return [`You finished ${place} in this race.`, `${place} in a race`];
}

function render() {
  if (!race) return;
  // A control that had the focus and was redrawn gets it back (by its key), else the heading does.
  const active = document.activeElement;
  const inside = active && active !== document.body && root.contains(active);
  const key = inside ? active.dataset.focusKey : null;
  root.classList.toggle("running", race.status === "running" || race.status === "finished");
  root.dataset.status = race.status;
  renderLobby();
  renderRacers();
  renderFinish();
  renderCountdown();
  if (client && client !== "loading") client.setPlace(...placeTexts());
  if (inside && document.activeElement !== active) {
    if (active.isConnected && !active.closest("[hidden]")) active.focus();
    else moveFocus(awaitedFocus || key || "heading");
  } else if (awaitedFocus && document.activeElement === heading && focusable(awaitedFocus)) {
    moveFocus(awaitedFocus);
  }
  if (race.status === "running" || race.status === "finished") startMyGame();
}

async function refresh() {
  try {
    update(await get(`/api/races/${code}/`));
  } catch (err) {
    if (!race) {
      setText(said, "The race cannot be loaded.");
      rebuild(messageBox, err.message, () => el("p", { class: "errors", text: err.message }));
    }
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
