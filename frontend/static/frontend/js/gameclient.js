// One game on screen: the table, the counters and the clock, talking to the server over the game's
// websocket (REST when the socket is down). A move shows at once; the server's answer confirms it or
// puts the cards back, and the autoplay it made is animated card by card.

import { ApiError, csrfToken, el, get, plural, post } from "./api.js";
import { applyMove, cardName, describeMove, formatClock, sameState, statusWord } from "./cards.js";
import { celebrate } from "./celebrate.js";
import { LiveSocket } from "./socket.js";
import { playSound, setSound, soundOn } from "./sound.js";
import { setSingleKeys, singleKeysOn, Table } from "./table.js";

const AUTOPLAY_STEP_MS = 140;
// A long cascade (the last move of a game can send 27 cards home) goes faster, so that it lasts at most
// this long and the result is not kept waiting.
const AUTOPLAY_MAX_MS = 1200;
const AUTOPLAY_MIN_STEP_MS = 35;
const ANSWER_TIMEOUT_MS = 8000;
let frameIds = 0;

/** A player's acknowledged action in words: the move, the cards autoplay sent home, or an undo. */
function actionWords(entry, action, game) {
  if (action.kind === "undo") return `Undone. ${plural(game.undos, "undo")}.`;
  const words = [describeMove(entry.before, action.move)];
  try {
    let state = applyMove(entry.before, action.move).state;
    const home = [];
    for (const auto of action.autoplay || []) {
      const moved = applyMove(state, auto);
      home.push(cardName(moved.cards[0]));
      state = moved.state;
    }
    if (home.length) words.push(`Autoplay sent home the ${home.join(", the ")}`);
  } catch { /* the words of the move will do */ }
  if (game.status === "won") words.push("You won");
  return `${words.join(". ")}.`;
}

/** A button that deals a fresh casual game of `deal` (or "random"): a POST, as a GET of /play/ deals nothing. */
function dealButton(deal, autoplay, text) {
  return el(
    "form",
    {
      method: "post",
      action: `/play/${encodeURIComponent(deal)}/`,
    },
    // site.js puts the token of the moment in when it is pressed.
    el("input", { type: "hidden", name: "csrfmiddlewaretoken", value: csrfToken() }),
    autoplay === "none" ? el("input", { type: "hidden", name: "autoplay", value: "none" }) : null,
    el("button", { type: "submit", class: "link", text }),
  );
}

/** A fresh `seed:` deal: 64 random bits from the browser's cryptographic source, as a decimal. */
export function randomSeedDeal() {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return `seed:${((BigInt(words[0]) << 32n) | BigInt(words[1])).toString()}`;
}

/** How many cards are on the foundations. */
function homeCount(state) {
  return Object.values(state.foundations || {}).reduce((sum, rank) => sum + rank, 0);
}

function gameOnly(body) {
  const { action, repeated, ...game } = body;
  return game;
}

export class GameClient {
  /**
   * @param panel the element holding the game's HUD, table and controls (templates/frontend/_game.html)
   * @param game the REST game object
   * @param options.me the signed-in username; options.par the deal's par when known;
   *        options.onChange(game) after every confirmed change; options.live false to skip the socket
   */
  constructor(panel, game, options = {}) {
    this.panel = panel;
    this.options = options;
    this.me = options.me || "";
    this.par = options.par ?? null;
    this.endsAt = options.endsAt ?? null; // a race's time limit: a resign from then on is the limit's
    this.race = options.race ?? (this.endsAt ? "race" : null); // a race's game: never restarted
    this.place = ""; // a race's finishing place, under the result's headline (setPlace)
    this.placeShare = ""; // the same place in the share text's words ("1st of 3 in a race")
    this.localShare = true; // the share text is shareText()'s, not the server's (options.share)
    this.confirmed = game;
    this.display = game.state;
    this.pending = [];
    this.trail = [];
    this.stashed = null;
    this.sequence = null;
    this.receivedAt = performance.now();
    this.clientId = `web-${Math.random().toString(36).slice(2, 10)}`;
    this.restChain = Promise.resolve();
    this.q = (sel) => panel.querySelector(sel);
    this.announced = game.status;
    this.table = new Table(this.q("[data-table]"), {
      onMove: (move, info) => this.play(move, info),
      onUndo: () => this.undo(),
      onMessage: (text) => this.say(text, "info"),
      onTyping: (text) => {
        const typed = this.q("[data-testid=typed]");
        if (typed) typed.textContent = text ? `typed: ${text}` : "";
      },
      onReadonly: () => {
        const reason = this.readonlyReason();
        if (reason) this.say(reason, "info");
      },
      onSettle: () => this.finishSequence(),
      interactive: this.canPlay(),
      keyboard: true,
      fit: game.status === "playing",
    });
    this.playArea = this.q("[data-play]");
    this.table.render(game.state, { animate: false });
    // The play area takes the window's height below what comes before it (the header, a race's line).
    const fit = () => this.fitPlayArea();
    window.addEventListener("resize", fit);
    new ResizeObserver(fit).observe(document.body);
    fit();
    this.bindControls();
    this.stickStatus();
    this.refresh();
    this.clock = setInterval(() => this.tickClock(), 250);
    if (game.status !== "playing") this.showResult(false);
    if (options.live !== false) {
      this.socket = new LiveSocket(`/ws/games/${game.id}/`, {
        onFrame: (frame) => this.onFrame(frame),
        onOpen: () => this.onSocketOpen(),
        onDown: (info) => this.onSocketDown(info),
      });
      this.socket.connect();
    }
  }

  get game() {
    return this.confirmed;
  }

  isMine() {
    return !!this.me && this.me === this.confirmed.player;
  }

  canPlay() {
    return this.isMine() && this.confirmed.status === "playing";
  }

  // ------------------------------------------------------------------ the player's actions

  play(move) {
    if (!this.isMine()) {
      this.say("You are watching this game; only its player can move.", "info");
      return;
    }
    if (this.confirmed.status !== "playing") {
      this.say(`The game is over (${this.confirmed.status}).`, "info");
      return;
    }
    this.finishSequence();
    const ply = this.confirmed.ply + this.pending.length;
    const entry = { id: `m${++frameIds}`, kind: "move", move, ply, before: this.display, optimistic: false };
    try {
      const result = applyMove(this.display, move);
      playSound(homeCount(result.state) > homeCount(this.display) ? "home" : "move");
      this.display = result.state;
      entry.optimistic = true;
      this.table.render(this.display);
      this.say("");
    } catch {
      // The local model thinks the move is refused; the server decides and says why.
      this.table.render(this.display);
    }
    this.pending.push(entry);
    this.refresh();
    this.send(entry);
  }

  undo() {
    if (!this.isMine() || this.confirmed.status !== "playing") return;
    this.finishSequence();
    const ply = this.confirmed.ply + this.pending.length;
    const entry = { id: `u${++frameIds}`, kind: "undo", ply, before: this.display, optimistic: false };
    playSound("undo");
    if (!this.pending.length && this.trail.length) {
      this.display = this.trail[this.trail.length - 1];
      entry.optimistic = true;
      this.table.render(this.display);
      this.say(""); // a hint shown for the position undone would name another card now
    }
    this.pending.push(entry);
    this.refresh();
    this.send(entry);
  }

  send(entry) {
    const frame = { type: entry.kind, ply: entry.ply, id: entry.id, client_id: this.clientId };
    if (entry.kind === "move") frame.move = entry.move;
    if (this.socket && this.socket.send(frame)) {
      entry.via = "ws";
      entry.timer = setTimeout(() => {
        if (this.pending.includes(entry)) {
          // No answer: take the server's word for where the game is.
          this.pending = [];
          this.sync();
        }
      }, ANSWER_TIMEOUT_MS);
      return;
    }
    entry.via = "rest";
    this.restChain = this.restChain.then(() => this.sendRest(entry));
  }

  async sendRest(entry) {
    if (!this.pending.includes(entry)) return; // dropped after an earlier refusal
    const path = `/api/games/${this.confirmed.id}/${entry.kind === "move" ? "moves" : "undo"}/`;
    const body = { ply: entry.ply, client_id: this.clientId };
    if (entry.kind === "move") body.move = entry.move;
    try {
      const answer = await post(path, body);
      this.onAck({ type: "ack", id: entry.id, game: gameOnly(answer), action: answer.action, repeated: answer.repeated });
    } catch (err) {
      if (err instanceof ApiError) {
        this.onError({ type: "error", id: entry.id, code: err.code, message: err.message, game: err.error.game });
      } else throw err;
    }
  }

  sync() {
    if (this.socket && this.socket.send({ type: "sync" })) return;
    get(`/api/games/${this.confirmed.id}/`).then((game) => this.applyServerGame(game, { force: true })).catch(() => {});
  }

  async hint() {
    try {
      const answer = await get(`/api/games/${this.confirmed.id}/hint/`);
      if (answer.move) {
        this.say(`Hint: ${answer.move}, ${describeMove(this.display, answer.move)}`, "info");
        this.table.showHint(answer.move);
      } else {
        this.say(answer.result === "unsolvable" ? "No win is possible from here: undo to go back." : "No hint found in time.", "info");
      }
    } catch (err) {
      this.say(err.message, "error");
    }
  }

  /** Why Restart is off for this game ("" when it is on). */
  restartReason() {
    if (!this.me) return "Sign in to play.";
    if (!this.isMine()) return `Only ${this.confirmed.player} can restart this game.`;
    if (this.confirmed.ranked) return "A ranked daily cannot be restarted: it is played once.";
    if (this.race) return "A race's game cannot be restarted.";
    return "";
  }

  /** What leaving this game costs, asked before a ranked daily or a race still being played is left
   * ("" when nothing: a casual game is kept as it stands, to come back to, and is no loss). */
  leavingCost() {
    const game = this.confirmed;
    if (!this.isMine() || game.status !== "playing") return "";
    if (game.ranked) return "Leave today's ranked daily? Its clock keeps running while you are away and the time counts in your result. You can come back to it from the Daily page.";
    if (this.race) return "Leave the race? It goes on without you: your clock keeps running, and a game not won by the race's end is a loss.";
    return "";
  }

  /** Deals `deal` afresh for this player and opens it (Restart: the same deal, `restart`). A casual game
   * left is kept unfinished, neither won nor lost (POST /api/games/<id>/restart/ on a restart). */
  async startOver(deal, what, { restart = false } = {}) {
    const game = this.confirmed;
    const cost = this.leavingCost();
    if (cost && !window.confirm(cost)) return;
    this.say(what === "Restart" ? "Dealing the same cards again…" : "Dealing a new game…", "info");
    try {
      const fresh = restart ? await post(`/api/games/${game.id}/restart/`) : await post("/api/games/", { deal, autoplay: game.autoplay });
      window.location.assign(`/games/${fresh.id}/`);
    } catch (err) {
      this.say(err.message, "error", err.code);
    }
  }

  restart() {
    const reason = this.restartReason();
    if (reason) {
      this.say(reason, "info");
      return;
    }
    this.startOver(this.confirmed.deal, "Restart", { restart: true });
  }

  newGame() {
    if (!this.me) {
      window.location.assign("/play/random/"); // a visitor deals as a guest from the start page
      return;
    }
    this.startOver(randomSeedDeal(), "New game");
  }

  /** The status bar (moves, undos, clock, status) stays on screen when the page scrolls: once its place
   * has gone above the window's top it is pinned there (`.hud.stuck`), its place kept open so that nothing
   * jumps. A window under 430 px high (a phone held sideways) keeps it in place, where the table needs
   * every line. */
  stickStatus() {
    const hud = this.q(".hud");
    if (!hud || !("IntersectionObserver" in window)) return;
    const mark = el("div", { class: "hud-mark", "aria-hidden": "true" });
    const room = el("div", { class: "hud-room", "aria-hidden": "true" });
    hud.before(mark, room);
    const set = (stuck) => {
      if (stuck === hud.classList.contains("stuck")) return;
      room.style.height = stuck ? `${hud.offsetHeight}px` : "0px";
      hud.classList.toggle("stuck", stuck);
    };
    new IntersectionObserver(([entry]) => {
      set(!entry.isIntersecting && entry.boundingClientRect.top < 0 && window.innerHeight >= 430 && !this.panel.hidden);
    }).observe(mark);
  }

  /** While the game is played the play area fits the window: the table, controls and message stay in
   * view; a finished game's page flows (the result and its links follow the table). */
  fitPlayArea() {
    const area = this.playArea;
    if (!area) return;
    const playing = this.confirmed.status === "playing" && !this.panel.hidden;
    this.table.setFit(playing);
    if (!playing) {
      area.style.removeProperty("--play-h");
      return;
    }
    const top = area.getBoundingClientRect().top + window.scrollY;
    const height = `${Math.max(300, Math.floor(window.innerHeight - top))}px`;
    if (area.style.getPropertyValue("--play-h") !== height) area.style.setProperty("--play-h", height);
  }

  async resign() {
    if (!window.confirm("Resign this game? It counts as a loss.")) return;
    // The Resign button goes away: the keyboard goes on from the result, whichever draws it first,
    // this answer or the socket's push of the resigned game.
    this.focusResult = true;
    try {
      const answer = await post(`/api/games/${this.confirmed.id}/resign/`);
      this.pending = [];
      this.applyServerGame(gameOnly(answer), { force: true });
    } catch (err) {
      this.focusResult = false;
      this.say(err.message, "error");
    }
  }

  // ------------------------------------------------------------------ the server's answers

  onFrame(frame) {
    switch (frame.type) {
      case "state":
        if (frame.game) this.onState(frame.game);
        break;
      case "ack":
        this.onAck(frame);
        break;
      case "error":
        this.onError(frame);
        break;
      default:
        break;
    }
  }

  onState(game) {
    if (this.pending.length) {
      // Our own action is in flight: its ack carries the autoplay to animate; keep the newest push.
      if (!this.stashed || game.version >= this.stashed.version) this.stashed = game;
      return;
    }
    if (game.version > this.confirmed.version + 1) this.trail = [];
    else if (game.version > this.confirmed.version) this.trail = []; // changed elsewhere (another tab)
    this.applyServerGame(game);
  }

  onAck(frame) {
    const index = this.pending.findIndex((p) => p.id === frame.id);
    const entry = index >= 0 ? this.pending[index] : null;
    if (entry) {
      clearTimeout(entry.timer);
      this.pending.splice(0, index + 1);
    }
    const game = frame.game;
    if (!game) {
      this.sync();
      return;
    }
    if (game.version < this.confirmed.version) return;
    if (game.version > this.confirmed.version + 1 && !frame.repeated) {
      // Something happened in between (another tab, a dropped push): the ack's game is still complete.
      this.trail = [];
    }
    const previous = this.confirmed;
    this.confirmed = game;
    this.receivedAt = performance.now();
    const action = frame.action;
    if (action && !frame.repeated) {
      if (action.kind === "move") this.trail.push(previous.state);
      else if (action.kind === "undo") this.trail.pop();
    }
    if (this.pending.length) {
      this.rebase();
    } else {
      const steps = [];
      if (entry && action && action.kind === "move" && action.autoplay && action.autoplay.length) {
        try {
          let state = entry.optimistic && sameState(this.display, applyMove(entry.before, action.move).state)
            ? this.display
            : applyMove(entry.before, action.move).state;
          steps.push(state);
          for (const auto of action.autoplay) {
            state = applyMove(state, auto).state;
            steps.push(state);
          }
        } catch {
          steps.length = 0;
        }
      }
      this.playSequence(steps, game.state);
      if (entry && action && action.kind === "move") this.say("");
    }
    if (entry && action && !frame.repeated) this.announce(actionWords(entry, action, game));
    this.flushStash();
    this.refresh();
  }

  onError(frame) {
    const index = this.pending.findIndex((p) => p.id === frame.id);
    if (index < 0 && frame.id !== undefined && frame.id !== null && !frame.game) return; // an answer to a dropped action
    for (const p of this.pending) clearTimeout(p.timer);
    const hadPending = this.pending.length > 0;
    this.pending = [];
    if (frame.game && frame.game.version >= this.confirmed.version) {
      if (frame.game.version !== this.confirmed.version) this.trail = [];
      this.confirmed = frame.game;
      this.receivedAt = performance.now();
    }
    this.finishSequence();
    this.display = this.confirmed.state;
    this.table.render(this.display);
    if (frame.code === "not_authenticated") this.signedOut(); // says why
    // A sign-in that ended: the close (4401) that follows is checked (checkSignIn) before anything is said.
    else if (frame.code === "authentication_failed" && index < 0) { /* see onSocketDown */ }
    else if (index >= 0 || !hadPending) {
      this.say(this.refusalText(frame), "error", frame.code);
      if (index >= 0 && frame.code !== "ply_conflict") playSound("refuse");
    }
    if (frame.code === "ply_conflict" && !frame.game) this.sync();
    this.flushStash();
    this.refresh();
  }

  /** After a socket closed because a sign-in ended: a password change made in this browser keeps its
   * session under a new key (the socket reconnects with it and the page plays on), any other ending
   * signs the page out. */
  async checkSignIn() {
    if (!this.me) return;
    // The close comes before this browser has the session's new cookie (the answer to the change is
    // still on its way), and a check sent with the old cookie would do harm: its answer deletes the
    // session cookie, by then the new one. So the check waits a moment first, and is made twice.
    for (const wait of [1500, 2500]) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      const asked = Date.now();
      try {
        const me = await get("/api/me/");
        if (me && me.username === this.me) {
          // A socket that reconnected before the new cookie came is a watcher's: connect it again.
          if (this.socket && this.socket.ws && this.socket.startedAt < asked) this.socket.drop();
          return;
        }
      } catch { /* not signed in, or not yet */ }
    }
    this.signedOut();
  }

  /** The page's sign-in has ended: from now on it only watches (the socket comes back as a watcher's). */
  signedOut() {
    this.me = null;
    this.refresh();
    this.say("You were signed out (in another tab or on another device): sign in again to play.", "error", "signed_out");
  }

  /** What to tell the player about a refusal: the server's reason, except where it is an API's advice. */
  refusalText(frame) {
    if (frame.code === "ply_conflict") {
      // The server's "the game is at ply 3, not 2: refresh and try again" is for API clients; this page
      // has already taken the game it sent along (or asks for it), so there is nothing to refresh.
      return frame.game
        ? "This game changed in another tab or device; the board is up to date now."
        : "This game changed in another tab or device; bringing the board up to date.";
    }
    return frame.message || frame.code;
  }

  flushStash() {
    if (this.pending.length || !this.stashed) return;
    const game = this.stashed;
    this.stashed = null;
    if (game.version > this.confirmed.version) this.applyServerGame(game);
  }

  /** Shows the confirmed state with the still-pending actions replayed on top of it. */
  rebase() {
    this.finishSequence();
    let state = this.confirmed.state;
    for (const p of this.pending) {
      if (p.kind !== "move") break;
      try {
        state = applyMove(state, p.move).state;
      } catch {
        break;
      }
    }
    this.display = state;
    this.table.render(state);
  }

  applyServerGame(game, { force = false } = {}) {
    if (!force && game.version < this.confirmed.version) return;
    this.confirmed = game;
    this.receivedAt = performance.now();
    this.finishSequence();
    if (!sameState(this.display, game.state)) {
      this.display = game.state;
      this.table.render(this.display);
    }
    this.refresh();
  }

  /** Animates through intermediate states (the player's move, then each autoplay move) to `final`. */
  playSequence(steps, final) {
    this.finishSequence();
    this.display = final;
    const queue = steps.slice();
    if (!queue.length || !sameState(queue[queue.length - 1], final)) queue.push(final);
    if (sameState(queue[0], this.table.state)) queue.shift();
    if (!queue.length) return;
    this.table.model = final;
    const step = Math.max(AUTOPLAY_MIN_STEP_MS, Math.min(AUTOPLAY_STEP_MS, Math.floor(AUTOPLAY_MAX_MS / queue.length)));
    const run = () => {
      const state = queue.shift();
      // A card of the autoplay lands on its foundation.
      if (homeCount(state) > homeCount(this.table.state)) playSound("home");
      this.table.render(state, { duration: step - 10, intermediate: queue.length > 0 });
      if (queue.length) this.sequence = setTimeout(run, step);
      else this.sequence = null;
    };
    this.table.root.classList.add("autoplaying");
    this.sequenceEndsAt = performance.now() + step * queue.length;
    const total = step * (queue.length + 1);
    run();
    setTimeout(() => this.table.root.classList.remove("autoplaying"), total);
  }

  finishSequence() {
    if (this.sequence) {
      clearTimeout(this.sequence);
      this.sequence = null;
      this.table.render(this.display, { animate: false });
    } else if (this.table.root.querySelector(".card.moving")) {
      this.table.render(this.display, { animate: false }); // the last card's slide
    }
    this.table.root.classList.remove("autoplaying");
  }

  // ------------------------------------------------------------------ the connection

  onSocketOpen() {
    this.hideBanner();
    // "The server cannot be reached", said of a move sent while it was down, is over now.
    if (this.q("[data-testid=message]")?.dataset.code === "network") this.say("");
    // What was in flight over the old socket is settled by the state frame that opens the new one.
    this.pending = this.pending.filter((p) => p.via === "rest");
    this.panel.dataset.live = "on";
  }

  onSocketDown(info) {
    this.panel.dataset.live = "off";
    if (info.code === 4401) this.checkSignIn(); // a sign-in ended (a sign-out, a password change): this page's?
    for (const p of this.pending.filter((q) => q.via === "ws")) clearTimeout(p.timer);
    if (this.pending.some((p) => p.via === "ws")) {
      this.pending = this.pending.filter((p) => p.via === "rest");
      this.sync();
    }
    const banner = this.q("[data-testid=connection]");
    if (!banner) return;
    const until = Date.now() + info.retryInMs;
    const lead = this.socket.everOpened ? "Connection lost." : "Live connection unavailable.";
    // Built once per drop and only the seconds ticked after: the banner is an alert, read out whenever
    // it changes, and a rebuilt "Retry now" took the keyboard focus with it every second.
    const seconds = el("span", { "aria-hidden": "true" });
    banner.replaceChildren(
      // Only a player has moves to send; a watcher's board waits for the socket.
      el("span", {}, `${lead} Reconnecting`, seconds, this.canPlay() ? " (your moves still go to the server). " : ". "),
      el("button", { type: "button", class: "link", text: "Retry now", onclick: () => this.socket.reconnectNow() }),
    );
    const update = () => {
      const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      const text = left ? ` in ${left}s` : "…";
      if (seconds.textContent !== text) seconds.textContent = text;
    };
    clearInterval(this.bannerTimer);
    update();
    this.bannerTimer = setInterval(update, 1000);
    banner.hidden = false;
  }

  hideBanner() {
    clearInterval(this.bannerTimer);
    const banner = this.q("[data-testid=connection]");
    if (banner) banner.hidden = true;
  }

  // ------------------------------------------------------------------ what the player sees

  /** Says `text` to screen readers only (the visible table already shows it). */
  announce(text) {
    const region = this.q("[data-testid=announce]");
    if (!region) return;
    // The same words twice in a row (two undos) must still be read: clear, then write on the next frame.
    region.textContent = "";
    requestAnimationFrame(() => { region.textContent = text; });
  }

  say(text, kind = "info", code = "") {
    const message = this.q("[data-testid=message]");
    if (!message) return;
    message.textContent = text;
    message.dataset.kind = text ? kind : "";
    message.dataset.code = code || "";
  }

  bindControls() {
    const on = (sel, fn) => {
      const node = this.q(sel);
      if (node) node.addEventListener("click", fn);
    };
    const keys = this.q("[data-testid=single-keys]");
    if (keys) {
      keys.checked = singleKeysOn();
      keys.addEventListener("change", () => setSingleKeys(keys.checked));
    }
    on("[data-action=undo]", () => this.undo());
    on("[data-action=hint]", (event) => {
      const reason = event.currentTarget.getAttribute("aria-disabled") === "true" ? event.currentTarget.title : "";
      if (reason) this.say(reason, "info");
      else this.hint();
    });
    on("[data-action=restart]", () => this.restart());
    on("[data-action=new-game]", () => this.newGame());
    on("[data-action=resign]", () => this.resign());
    const sound = this.q("[data-action=sound]");
    if (sound) {
      const show = () => {
        const on = soundOn();
        sound.setAttribute("aria-pressed", String(on));
        sound.title = on ? "Sounds on: press to turn them off" : "Sounds off: press to turn them on";
      };
      show();
      document.addEventListener("fc-sound", show);
      sound.addEventListener("click", async () => {
        try {
          await setSound(!soundOn());
        } catch (err) {
          this.say(`The sound setting was not kept with your account: ${err.message}`, "error", err.code);
        }
        show();
      });
    }
    const form = this.q("[data-move-form]");
    if (form) {
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const input = form.querySelector("input");
        const text = input.value.trim().toLowerCase();
        if (!text) return;
        input.value = "";
        if (text === "u" || text === "undo") this.undo();
        else this.play(text);
      });
    }
  }

  shownPly() {
    return this.confirmed.ply + this.pending.length;
  }

  refresh() {
    const game = this.confirmed;
    const set = (id, value) => {
      const node = this.q(`[data-testid=${id}]`);
      if (node && node.textContent !== String(value)) node.textContent = String(value);
    };
    set("moves", this.shownPly());
    set("undos", game.undos + this.pending.filter((p) => p.kind === "undo").length);
    set("deal", game.deal);
    const dealName = this.q("[data-testid=deal]");
    if (dealName && dealName.title !== game.deal) dealName.title = game.deal; // the whole name, when cut short
    set("player", game.player.startsWith("guest ") ? "Guest" : game.player); // accounts/guests.py
    const status = this.q("[data-testid=status]");
    if (status) {
      let text = statusWord(game.status);
      let key = game.status;
      if (game.status === "playing" && game.stuck && !this.pending.length) {
        text = "Stuck: no legal move is left. Undo to go back.";
        key = "stuck";
      }
      if (status.textContent !== text) status.textContent = text;
      status.dataset.status = key;
      this.panel.dataset.status = key;
    }
    this.table.setInteractive(this.canPlay());
    for (const button of this.panel.querySelectorAll("[data-action=undo], [data-action=hint], [data-action=resign]")) {
      button.disabled = !this.canPlay();
    }
    // Restart and New game say why they are off (a disabled button says nothing), so they stay
    // focusable and answer a press with the reason.
    const offWith = (button, reason) => {
      if (!button) return;
      button.setAttribute("aria-disabled", reason ? "true" : "false");
      button.title = reason;
    };
    offWith(this.q("[data-action=restart]"), this.restartReason());
    offWith(this.q("[data-action=new-game]"), this.me ? "" : "Sign in to play.");
    // A racer's way on is the race's rematch, not a deal of their own.
    const newGame = this.q("[data-action=new-game]");
    if (newGame) newGame.hidden = !!this.race;
    const hint = this.q("[data-action=hint]");
    // A race's page has no Hint (the API refuses hints there); a ranked daily's says why it is off, on the
    // button itself (a title alone shows only to a mouse that waits).
    if (hint && game.ranked) {
      offWith(hint, "No hints in a ranked daily.");
      if (!hint.querySelector(".off-reason")) hint.append(" ", el("span", { class: "off-reason", text: "off: ranked" }));
    }
    this.refreshMoveForm();
    this.tickClock();
    if (game.status !== "playing" && this.announced === "playing") {
      this.announced = game.status;
      // Let the last autoplay cascade land before the result covers the table.
      const wait = Math.max(0, (this.sequenceEndsAt || 0) - performance.now());
      if (wait && game.status === "won") this.say("Won! The last cards are going home…", "info");
      setTimeout(() => this.showResult(true), wait + (wait ? 250 : 0));
    }
    this.fitPlayArea();
    if (this.options.onChange) this.options.onChange(game, this);
  }

  /** Why this page takes no move ("" when it does): the move box says it, and so does a pressed card. */
  readonlyReason() {
    const game = this.confirmed;
    if (game.status !== "playing") return `The game is over (${game.status}).`;
    if (!this.isMine()) return `You are watching: only ${game.player} can move.`;
    return "";
  }

  /** The "Type a move" box follows the other controls: off when this page cannot move, saying why. */
  refreshMoveForm() {
    const form = this.q("[data-move-form]");
    if (!form) return;
    const reason = this.readonlyReason();
    for (const control of form.querySelectorAll("input, button")) {
      control.disabled = !!reason;
      control.title = reason;
    }
    let note = form.querySelector("[data-testid=move-note]");
    if (!note) {
      note = el("span", { class: "move-note", "data-testid": "move-note" });
      form.append(note);
    }
    note.textContent = reason;
    note.hidden = !reason;
  }

  /** The clock as the server counts it: a casual game's clock waits for the first action and stands
   * still while no page of its player has the game open (`clock_running` false); this page ticks it on
   * only while it runs (the answer to the first action starts it). */
  elapsed() {
    const game = this.confirmed;
    if (game.status !== "playing" || game.clock_running === false) return game.elapsed_ms || 0;
    return (game.elapsed_ms || 0) + (performance.now() - this.receivedAt);
  }

  tickClock() {
    const clock = this.q("[data-testid=clock]");
    if (!clock) return;
    const text = formatClock(this.elapsed());
    if (clock.textContent !== text) clock.textContent = text;
  }

  /** A line under the result's headline, in the panel and the win dialog alike: a racer's finishing
   * place (`line`), which the race's socket may bring a moment after the winning move's answer; `share` is
   * that place as the share text gives it, and a share box already shown is rewritten with it. */
  setPlace(line, share = "") {
    this.place = line || "";
    this.placeShare = share || "";
    for (const node of this.panel.querySelectorAll("[data-testid=race-place]")) {
      if (node.textContent !== this.place) node.textContent = this.place;
      node.hidden = !this.place;
    }
    if (!this.localShare) return;
    const text = this.shareText();
    for (const area of this.panel.querySelectorAll("textarea[data-testid=share]")) {
      if (area.value !== text) area.value = text;
    }
  }

  shareText() {
    const game = this.confirmed;
    const undos = `${game.undos} undo${game.undos === 1 ? "" : "s"}`;
    const par = this.par ? ` (par ${this.par})` : "";
    const name = game.ranked ? `daily ${game.deal.replace("daily:", "")}` : game.deal;
    const outcome = game.status === "won" ? `won in ${game.moves} moves${par}` : game.status;
    const place = this.placeShare ? `, ${this.placeShare}` : "";
    return `FreeCell Online ${name}: ${outcome}, ${undos}, ${formatClock(game.elapsed_ms || 0)}${place}\n${location.origin}/replay/${game.id}/`;
  }

  async showResult(fresh) {
    const game = this.confirmed;
    if (fresh) this.say(""); // the result says it all now
    // A fresh win is celebrated at once; the dialog comes once the celebration is over (it covered the
    // cards a second in), or as soon as the player presses a key, clicks or taps.
    let celebrated = null;
    if (fresh && game.status === "won") {
      if (this.isMine()) playSound("win");
      if (this.celebration) this.celebration.stop();
      this.celebration = celebrate(this.table);
      const { done } = this.celebration;
      celebrated = new Promise((resolve) => {
        const over = () => {
          for (const type of ["pointerdown", "keydown"]) window.removeEventListener(type, over, true);
          resolve();
        };
        for (const type of ["pointerdown", "keydown"]) window.addEventListener(type, over, true);
        done.then(over);
      });
    }
    // Par for a casual deal: what the solver knows of it (counted under safe autoplay, as this game is),
    // asked while the celebration plays and waited for a moment at most: on a fresh win only (the solver's
    // answers are throttled; a finished game's page, opened again, does without). A racer's deal gets
    // none: the solver's answer is refused while the race runs (docs/fair-play.md).
    if (fresh && game.status === "won" && this.par === null && !game.ranked && !this.race && game.autoplay === "safe") {
      const asked = get(`/api/deals/${encodeURIComponent(game.deal)}/facts/`)
        .then((facts) => { if (typeof facts.par === "number") this.par = facts.par; })
        .catch(() => { /* no par known (the solver busy) */ });
      if (celebrated) await celebrated;
      await Promise.race([asked, new Promise((resolve) => setTimeout(resolve, 1500))]);
    }
    let share = this.shareText();
    this.localShare = true;
    if (this.options.share) {
      try {
        const served = await this.options.share(game);
        if (served) [share, this.localShare] = [served, false];
      } catch { /* the local text will do */ }
    }
    const result = this.q("[data-testid=result]");
    const diff = this.par ? game.moves - this.par : null;
    const parText = this.par ? ` against a par of ${this.par} (${diff > 0 ? "+" : ""}${diff})` : "";
    const headline = game.status === "won"
      ? `${game.player === this.me ? "You won" : `${game.player} won`} in ${plural(game.moves, "move")}${parText}, ${game.undos} undo${game.undos === 1 ? "" : "s"}, ${formatClock(game.elapsed_ms || 0)}.`
      : this.endsAt && game.finished_at && Date.parse(game.finished_at) >= Date.parse(this.endsAt)
        ? `Time ran out after ${plural(game.moves, "move")}.`
        : `${game.player === this.me ? "You resigned" : `${game.player} resigned`} after ${plural(game.moves, "move")}.`;
    // A fresh row each time it is asked for: the panel and the dialog each need their own nodes (one
    // node appended to both would move into the dialog and leave the panel without links).
    const linksRow = () => el(
      "div",
      { class: "links" },
      el("a", { href: `/replay/${game.id}/`, text: "Watch the replay" }),
      // A ranked daily's result has a page to share at once (the replay waits for the day's end).
      game.ranked && game.status !== "playing"
        ? el("a", { href: `/daily/${game.deal.replace("daily:", "")}/result/${encodeURIComponent(game.player)}/`, text: "Result to share", "data-testid": "result-page" })
        : null,
      game.ranked
        ? el("a", { href: `/daily/${game.deal.replace("daily:", "")}/`, text: "Leaderboard" })
        // "again" for its player only; a visitor plays it as a guest (docs/frontend.md).
        : dealButton(game.deal, game.autoplay, this.isMine() ? "Play this deal again" : "Play this deal"),
      dealButton("random", game.autoplay, "New random deal"),
    );
    const placeLine = () => el("p", { class: "place", "data-testid": "race-place", text: this.place, hidden: !this.place });
    const shareBox = () => {
      const area = el("textarea", { readonly: true, rows: 3, "data-testid": "share", "aria-label": "Shareable result" });
      area.value = share;
      const copy = el("button", {
        type: "button",
        text: "Copy result",
        onclick: async () => {
          try {
            await navigator.clipboard.writeText(area.value); // setPlace may have rewritten it
            copy.textContent = "Copied";
          } catch {
            area.select();
          }
        },
      });
      return el("div", { class: "share" }, area, copy);
    };
    if (result) {
      // replaceChildren writes a null as the text "null": leave the share box out for a resignation.
      const parts = [el("p", { class: "headline", "data-testid": "result-headline", text: headline }), placeLine()];
      if (game.status === "won") parts.push(shareBox());
      parts.push(linksRow());
      result.replaceChildren(...parts);
      // A fresh win of one's own says it in the dialog; the result under the table comes once it is closed.
      result.hidden = fresh && game.status === "won" && this.isMine() && !!this.q("dialog[data-testid=win]");
      if (this.focusResult) {
        this.focusResult = false;
        result.focus();
      }
    }
    const dialog = this.q("dialog[data-testid=win]");
    if (celebrated) await celebrated;
    if (fresh && game.status === "won" && dialog && this.isMine()) {
      dialog.replaceChildren(
        el("h2", { text: "You won!" }),
        el("p", { class: "headline", text: headline }),
        placeLine(),
        shareBox(),
        linksRow(),
        el("form", { method: "dialog" }, el("button", { class: "primary", text: "Close" })),
      );
      // Closed, the dialog would leave the keyboard at the top of the page: on to the result below.
      dialog.addEventListener("close", () => {
        if (this.celebration) this.celebration.stop();
        if (result) {
          result.hidden = false;
          result.focus();
        }
      }, { once: true });
      if (typeof dialog.showModal === "function") dialog.showModal();
      else dialog.setAttribute("open", "");
    }
  }
}
