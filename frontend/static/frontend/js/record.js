// A deal's records board over the API and its live socket, and the record to beat on a numbered deal's
// table ("record 34 moves by alice; yours so far 12").

import { el, get, plural } from "./api.js";
import { LiveSocket } from "./socket.js";

/** The address of a deal's records board for one autoplay mode, everyone's or the caller's and friends',
 * people's (the default) or bots' (`players: "bots"`). */
export function recordsPath(deal, { autoplay = "safe", scope = "all", players = "people" } = {}) {
  const query = new URLSearchParams({ autoplay });
  if (scope === "friends") query.set("scope", "friends");
  if (players === "bots") query.set("players", "bots");
  return `/api/deals/${encodeURIComponent(deal)}/records/?${query}`;
}

/** The leaderboards page's address for a deal's records board. */
export const recordsPage = (deal, autoplay = "safe", players = "people") =>
  `/leaderboards/?${new URLSearchParams({ deal, autoplay, ...(players === "bots" ? { players } : {}) })}#records`;

/**
 * Follows a deal's board live (`/ws/deals/<deal>/records/`): `onBoard(frame)` gets each `records` frame
 * (its `record`, top `entries`, `count`, the viewer's `me`, and `record_fell` on a push when the record
 * just fell). The server sends one on every (re)connection, so a reconnect is a resync. `players: "bots"`
 * follows the bots' board. Returns the socket.
 */
export function watchRecords(deal, autoplay, onBoard, { players = "people" } = {}) {
  const query = new URLSearchParams({ autoplay });
  if (players === "bots") query.set("players", "bots");
  const socket = new LiveSocket(`/ws/deals/${encodeURIComponent(deal)}/records/?${query}`, {
    onFrame: (frame) => {
      if (frame.type === "records") onBoard(frame);
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
    this.record = undefined; // unknown until the board is read
    this.own = null;
    this.recordText = el("span", { class: "record-best", "data-testid": "record-best", "aria-live": "polite" });
    this.replay = el("a", { class: "record-replay", "data-testid": "record-replay", text: "replay" });
    this.replayBox = el("span", { hidden: true }, " (", this.replay, ")");
    this.soFar = el("span", { class: "record-so-far", "data-testid": "record-so-far" });
    this.link = el("a", { href: recordsPage(this.deal, this.autoplay), text: "all records" });
    node.replaceChildren(this.recordText, this.replayBox, this.soFar, " · ", this.link);
    // The first read is REST's, so the line is drawn even where websockets do not get through; the socket
    // then brings every change.
    get(recordsPath(this.deal, { autoplay: this.autoplay }))
      .then((board) => {
        if (this.record === undefined) this.show(board);
      })
      .catch((err) => {
        if (this.record === undefined) this.recordText.textContent = `The record cannot be read: ${err.message}`;
      });
    this.socket = watchRecords(this.deal, this.autoplay, (frame) => this.show(frame, frame.record_fell));
  }

  /** The table's moves so far (GameClient's onChange). */
  update(game, shownMoves) {
    this.status = game.status;
    this.moves = shownMoves;
    this.renderSoFar();
  }

  /** Draws a board's `record` (its first line) and the viewer's own `me`. */
  show(board, fell = false) {
    const best = board.record ?? (board.entries && board.entries[0]) ?? null;
    this.record = best;
    this.own = board.me ?? null;
    const by = best && best.username === this.me ? "you" : best && best.username;
    let text = "No record yet";
    if (best) text = `${fell ? "New record:" : "Record"} ${plural(best.moves, "move")} by ${by}`;
    if (this.recordText.textContent !== text) this.recordText.textContent = text;
    this.node.dataset.recordMoves = best ? best.moves : "";
    this.node.dataset.recordHolder = best ? best.username : "";
    this.node.classList.toggle("fell", fell);
    this.replayBox.hidden = !best;
    // A random (seed:) deal is rarely dealt twice: "No record yet" there says nothing. Its line shows
    // once it has a record (the player's own win makes one).
    this.node.hidden = !best && this.deal.startsWith("seed:");
    if (best) {
      this.replay.href = `/replay/${best.game}/`;
      this.replay.setAttribute("aria-label", `Replay of the record game by ${best.username}`);
    }
    this.renderSoFar();
  }

  renderSoFar() {
    const mine = !!this.me && this.me === this.player;
    let text;
    if (this.status === "playing") text = `; ${mine ? "yours" : "this game's"} so far ${this.moves}`;
    else if (this.status === "won") text = `; ${mine ? "you" : this.player} won in ${this.moves}`;
    else text = `; this game ended after ${this.moves}`;
    // A player's own best on this deal, when it is not the record itself.
    const own = this.own;
    if (mine && own && !(this.record && this.record.game === own.game)) text += `; your best ${own.moves} (#${own.rank})`;
    if (this.soFar.textContent !== text) this.soFar.textContent = text;
  }
}
