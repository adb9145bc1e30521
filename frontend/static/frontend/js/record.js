// A deal's records board over the API and its live socket, and the record to beat on a numbered deal's
// table ("record 34 moves by alice; yours so far 12").

import { el, get, plural } from "./api.js";
import { LiveSocket } from "./socket.js";

/** The address of a deal's records board for one autoplay mode, everyone's or the caller's and friends'. */
export function recordsPath(deal, { autoplay = "safe", scope = "all" } = {}) {
  const query = new URLSearchParams({ autoplay });
  if (scope === "friends") query.set("scope", "friends");
  return `/api/deals/${deal}/records/?${query}`;
}

/** The leaderboards page's address for a deal's records board. */
export const recordsPage = (deal, autoplay = "safe") => `/leaderboards/?${new URLSearchParams({ deal, autoplay })}#records`;

/**
 * Calls `onFall()` whenever the server says the deal's record fell, and once on each reconnect (what
 * fell while the socket was down is read again). Returns the socket (close() ends it).
 */
export function watchRecords(deal, onFall) {
  let opened = false;
  const socket = new LiveSocket(`/ws/deals/${deal}/records/`, {
    onOpen: () => {
      if (opened) onFall();
      opened = true;
    },
    onFrame: (frame) => {
      if (frame.type !== "heartbeat" && frame.type !== "error") onFall(frame);
    },
  });
  socket.connect();
  return socket;
}

/** The record to beat on the table of a numbered deal (the element `data-testid="record"`). */
export class RecordLine {
  constructor(node, game, { me = "" } = {}) {
    this.node = node;
    this.deal = game.deal;
    this.autoplay = game.autoplay;
    this.player = game.player;
    this.me = me;
    this.moves = game.moves;
    this.status = game.status;
    this.board = null;
    this.reading = null;
    this.again = false;
    this.recordText = el("span", { class: "record-best", "data-testid": "record-best", "aria-live": "polite" });
    this.soFar = el("span", { class: "record-so-far", "data-testid": "record-so-far" });
    this.link = el("a", { href: recordsPage(this.deal, this.autoplay), text: "all records" });
    node.replaceChildren(this.recordText, this.soFar, " · ", this.link);
    this.read();
    this.socket = watchRecords(this.deal, () => this.read());
  }

  /** The table's moves so far (GameClient's onChange); a win of this game reads the board again. */
  update(game, shownMoves) {
    const won = game.status === "won" && this.status !== "won";
    this.status = game.status;
    this.moves = shownMoves;
    this.renderSoFar();
    if (won) this.read();
  }

  /** Reads the board; asked again while a read is on its way, it reads once more after it. */
  async read() {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = get(recordsPath(this.deal, { autoplay: this.autoplay }));
    try {
      const board = await this.reading;
      const before = this.board && this.board.entries[0];
      this.board = board;
      this.renderRecord(before);
    } catch (err) {
      this.recordText.textContent = `The record cannot be read: ${err.message}`;
    } finally {
      this.reading = null;
      if (this.again) {
        this.again = false;
        this.read();
      }
    }
  }

  renderRecord(before) {
    const best = this.board.entries[0];
    const by = (entry) => (entry.username === this.me ? "you" : entry.username);
    let text;
    if (!best) text = "No record yet on this deal: a win sets it";
    else if (before && before.game !== best.game) text = `New record: ${plural(best.moves, "move")} by ${by(best)}`;
    else text = `Record ${plural(best.moves, "move")} by ${by(best)}`;
    if (this.recordText.textContent !== text) this.recordText.textContent = text;
    this.node.dataset.recordMoves = best ? best.moves : "";
    this.node.dataset.recordHolder = best ? best.username : "";
    this.node.classList.toggle("fell", !!(before && best && before.game !== best.game));
    if (best && best.game) {
      const replay = this.node.querySelector("[data-testid=record-replay]")
        || el("a", { "data-testid": "record-replay", class: "record-replay" });
      replay.href = `/replay/${best.game}/`;
      replay.textContent = "replay";
      replay.setAttribute("aria-label", `Replay of the record game by ${best.username}`);
      if (!replay.isConnected) this.recordText.after(" (", replay, ")");
    }
    this.renderSoFar();
  }

  renderSoFar() {
    const mine = !!this.me && this.me === this.player;
    const own = this.board && this.board.me;
    const best = this.board && this.board.entries[0];
    let text;
    if (this.status === "playing") text = `; ${mine ? "yours" : "this game's"} so far ${this.moves}`;
    else if (this.status === "won") text = `; ${mine ? "you" : this.player} won in ${this.moves}`;
    else text = `; this game ended after ${this.moves}`;
    // A player's own best on this deal, when it is not the record itself.
    if (mine && own && !(best && best.game === own.game)) text += `; your best ${own.moves} (#${own.rank})`;
    if (this.soFar.textContent !== text) this.soFar.textContent = text;
  }
}
