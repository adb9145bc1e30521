// Fair play on the pages (docs/fair-play.md): the people / bots switch of a board, the "bot" badge of a bot's
// line, the Report link beside another player's result and its dialog, and the notice of a player's own
// result under review (GET /api/games/<id>/review/, the signals in words from GET /api/fair-play/).

import { ApiError, el, get, post } from "./api.js";

export const PLAYERS = ["people", "bots"];

/** `?players=` of the page's address: "bots", else "people". */
export function playersOf(search = location.search) {
  return new URLSearchParams(search).get("players") === "bots" ? "bots" : "people";
}

/** The "bot" badge of a bot account's line (in words: a screen reader says "bot" after the name). */
export function botBadge(entry) {
  return entry && entry.bot ? el("span", { class: "badge bot-badge", "data-testid": "bot-badge", text: "bot" }) : null;
}

/**
 * The People / Bots switch of a board (or of a page of boards): two pressed-or-not buttons.
 * `onChange(players)` when the other one is pressed; `set(players)` shows a choice made elsewhere.
 */
export function playersSwitch({ value = "people", label = "Whose board", onChange }) {
  const choose = (players) => {
    if (players === node.dataset.players) return;
    set(players);
    onChange(players);
  };
  const button = (players, text) => el("button", { type: "button", "data-players": players, text, onclick: () => choose(players) });
  const node = el("div", { class: "tabs players-switch", role: "group", "aria-label": label, "data-testid": "players-switch" },
    button("people", "People"), button("bots", "Bots"));
  const set = (players) => {
    node.dataset.players = players;
    for (const b of node.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.players === players));
  };
  set(value);
  node.set = set;
  return node;
}

/** Wires a switch drawn by the server (buttons with `data-players`) as playersSwitch() draws one. */
export function wirePlayersSwitch(node, { value = "people", onChange }) {
  const set = (players) => {
    node.dataset.players = players;
    for (const b of node.querySelectorAll("button[data-players]")) b.setAttribute("aria-pressed", String(b.dataset.players === players));
  };
  for (const b of node.querySelectorAll("button[data-players]")) {
    b.addEventListener("click", () => {
      if (b.dataset.players === node.dataset.players) return;
      set(b.dataset.players);
      onChange(b.dataset.players);
    });
  }
  set(value);
  node.set = set;
  return node;
}

// ------------------------------------------------------------------ reports

let dialog = null;

/** The one report dialog of a page, made on first use. */
class ReportDialog {
  constructor() {
    this.reason = el("textarea", { id: "report-reason", name: "reason", rows: 3, maxlength: 500, required: true, "data-testid": "report-reason" });
    this.said = el("p", { class: "report-said", role: "status", "data-testid": "report-status" });
    this.send = el("button", { type: "submit", class: "primary", "data-testid": "report-send", text: "Send report" });
    this.title = el("h2", { id: "report-h" });
    this.close = el("button", { type: "button", "data-testid": "report-close", text: "Close", onclick: () => this.node.close() });
    this.form = el("form", { method: "dialog", onsubmit: (event) => this.submit(event) },
      this.title,
      el("p", { class: "muted", text: "A report sends this result to the moderators; it changes nothing on the board until they look." }),
      el("label", { class: "stack", for: this.reason.id }, "What looks wrong?", this.reason),
      this.said,
      el("p", { class: "row" }, this.send, this.close));
    this.node = el("dialog", { class: "report-dialog", "aria-labelledby": "report-h", "data-testid": "report-dialog" }, this.form);
    this.node.addEventListener("close", () => {
      if (this.opener && this.opener.isConnected) this.opener.focus();
    });
    document.body.append(this.node);
  }

  open(entry, opener) {
    this.entry = entry;
    this.opener = opener;
    this.title.textContent = `Report ${entry.username}'s result`;
    this.reason.value = "";
    this.said.textContent = "";
    this.said.className = "report-said";
    delete this.said.dataset.code;
    this.send.disabled = false;
    this.node.showModal();
    this.reason.focus();
  }

  async submit(event) {
    event.preventDefault();
    const reason = this.reason.value.trim();
    if (!reason) {
      this.tell("Say what looks wrong first.", "invalid_request");
      this.reason.focus();
      return;
    }
    this.send.disabled = true;
    try {
      await post(`/api/games/${this.entry.game}/report/`, { reason });
    } catch (err) {
      this.tell(reportRefusal(err), err.code);
      if (err.code === "already_reported") this.done();
      else this.send.disabled = false;
      return;
    }
    this.tell("Reported: the moderators will look.", "reported");
    this.done();
  }

  /** Nothing more to send: Send goes off and the focus (which was on it) goes to Close. */
  done() {
    this.send.disabled = true;
    this.close.focus();
  }

  tell(text, code) {
    this.said.textContent = text;
    this.said.dataset.code = code;
    this.said.className = `report-said ${code === "reported" ? "ok" : "errors"}`;
  }
}

/** A refused report in the player's words, with the server's own message. */
function reportRefusal(err) {
  if (!(err instanceof ApiError)) return String(err);
  if (err.code === "already_reported") return `Already reported: ${err.message}`;
  if (err.status === 429) return `Too many reports for now: ${err.message}`;
  return err.message;
}

/** The Report link beside a result on a board: for a signed-in viewer, on another player's line that
 * has a game; null otherwise. */
export function reportButton(entry, me) {
  if (!me || !entry || !entry.game || entry.username === me) return null;
  return el("button", {
    type: "button", class: "link report-link", "data-testid": "report", "aria-label": `Report ${entry.username}'s result`,
    "aria-haspopup": "dialog",
    onclick: (event) => {
      dialog = dialog || new ReportDialog();
      dialog.open(entry, event.currentTarget);
    },
  }, el("span", { text: "Report" }));
}

// ------------------------------------------------------------------ a player's own result under review

let policyRequest = null;

/** GET /api/fair-play/, read once a page. */
export function fairPlayPolicy() {
  policyRequest = policyRequest || get("/api/fair-play/").catch(() => ({ signals: [] }));
  return policyRequest;
}

const SIGNAL_NAMES = {
  steadiness: "An even rhythm",
  first_move_ms: "A quick first move",
  pace_ms: "A fast pace",
  moves_over_par: "Moves at or under par",
  hints: "Hints",
};
const SIDES = { below: "flagged below", at_or_below: "flagged at or below", above: "flagged above" };

const measure = (signal, value) => (value === null || value === undefined ? "—" : `${value}${signal.endsWith("_ms") ? " ms" : ""}`);

/** One crossed signal in words: "A fast pace: 62 ms (flagged below 150 ms). Average milliseconds per move…". */
export function signalWords(reason, published) {
  const name = SIGNAL_NAMES[reason.signal] || reason.signal.replaceAll("_", " ");
  const side = published ? SIDES[published.flags_when] || "threshold" : "threshold";
  return el("li", { "data-signal": reason.signal },
    el("strong", { text: `${name}: ` }),
    `${measure(reason.signal, reason.value)} (${side} ${measure(reason.signal, reason.threshold)}). `,
    published && published.words ? el("span", { class: "muted", text: published.words }) : "");
}

/**
 * The notice of the player's own won result when its review is not `none` (`data-testid="review"`):
 * flagged (the signals it crossed, in the policy's words, with their values), cleared or rejected (with
 * the moderator's note). `update(game)` after every change of the game; other viewers see nothing.
 */
export class ReviewNotice {
  constructor(node, { me = "" } = {}) {
    this.node = node;
    this.me = me;
    this.shown = ""; // the game id and review state drawn
  }

  update(game) {
    if (!game || !this.me || game.player !== this.me || game.status !== "won" || !game.review || game.review === "none") {
      this.node.hidden = true;
      return;
    }
    const key = `${game.id}:${game.review}`;
    if (key === this.shown) return;
    this.shown = key;
    this.draw(game);
  }

  async draw(game) {
    const key = this.shown;
    const [review, policy] = await Promise.all([
      get(`/api/games/${game.id}/review/`).catch(() => ({ review: game.review, reasons: game.review_reasons || [], note: "", in_queue: false })),
      fairPlayPolicy(),
    ]);
    if (key !== this.shown) return; // the game moved on meanwhile
    const state = review.review || game.review;
    const bySignal = Object.fromEntries((policy.signals || []).map((s) => [s.signal, s]));
    const parts = [];
    if (state === "flagged") {
      parts.push(el("p", { class: "review-head" }, el("strong", { text: "Your result is held for review." }),
        " It is off the people's boards, and others see neither its moves nor its time, until a moderator looks."));
      const reasons = review.reasons || [];
      if (reasons.length) {
        parts.push(el("p", { text: `It crossed ${reasons.length === 1 ? "this published signal" : `these ${reasons.length} published signals`}:` }));
        parts.push(el("ul", { class: "review-reasons" }, reasons.map((r) => signalWords(r, bySignal[r.signal]))));
      }
      parts.push(el("p", { class: "muted", text: review.in_queue ? "A moderator has still to look at it." : "A moderator holds it." }));
    } else if (state === "cleared") {
      parts.push(el("p", { class: "review-head" }, el("strong", { text: "Your result was reviewed and cleared:" }), " it ranks on the boards."));
    } else if (state === "rejected") {
      parts.push(el("p", { class: "review-head" }, el("strong", { text: "Your result was reviewed and rejected:" }), " it stays off the boards."));
    }
    if (review.note && state !== "flagged") parts.push(el("p", { "data-testid": "review-note" }, "The moderator's note: ", el("q", { text: review.note })));
    this.node.dataset.review = state;
    this.node.replaceChildren(...parts);
    this.node.hidden = false;
  }
}
