// The FreeCell table: draws a state, fits it to its box (cards scale, long columns compress their fan),
// animates cards between states (FLIP), shows a hint on the board, and turns clicks, drags,
// double-clicks, keys on focused piles and typed notation into moves in the spec's notation for its
// owner to send.

import { el } from "./api.js";
import {
  SUITS, SUIT_SYMBOLS, capacity, cardCode, cardName, checkMove, emptyState, fits, formatMove, isRed, runLength, suitOf,
} from "./cards.js";
import { DECK_STYLES, INDEX_STRIP, faceUrl } from "./deck.js";
import { playSound } from "./sound.js";

const FOUNDATION_ORDER = ["S", "H", "C", "D"];
const SUIT_WORDS = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const DOUBLE_TAP_MS = 400;
const DRAG_THRESHOLD = 6;
// A column this long fits the table with every card's corner index showing, at any window size; a
// longer one compresses its fan further, and only past that do the cards shrink.
const PLAN_DEPTH = 12;
const MAX_CARD_W = 220;
// Narrower cards than this take the large corner index (a phone's columns).
const COMPACT_BELOW = 64;
const HINT_MS = 1100;
const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

const SINGLE_KEYS = "fc-single-keys";
let singleKeys = null; // this page's setting, kept even where the browser refuses local storage

/** Whether keys typed on the page play moves (WCAG 2.1.4: single-key shortcuts can be turned off,
 * for speech input): on unless the player unticked the box under "How to play". */
export function singleKeysOn() {
  if (singleKeys !== null) return singleKeys;
  try {
    return localStorage.getItem(SINGLE_KEYS) !== "off";
  } catch {
    return true;
  }
}

export function setSingleKeys(on) {
  singleKeys = on;
  try {
    localStorage.setItem(SINGLE_KEYS, on ? "on" : "off");
  } catch { /* private mode: for this page only */ }
}

export class Table {
  /**
   * @param root element to draw into
   * @param options.onMove(notation, {via}) called with a move to send; options.onUndo() for "u";
   *        options.onMessage(text) for a local hint; options.interactive whether input is taken;
   *        options.onReadonly() when a card is pressed while it is not (a watcher, a game over);
   *        options.fit whether the table fills its box's height (see layout()).
   */
  constructor(root, options = {}) {
    this.root = root;
    this.onMove = options.onMove || (() => {});
    // Ends an animation in progress (the owner's autoplay), so that a press acts on the latest position.
    this.onSettle = options.onSettle || (() => this.render(this.model, { animate: false }));
    this.onUndo = options.onUndo || (() => {});
    this.onMessage = options.onMessage || (() => {});
    this.onTyping = options.onTyping || (() => {});
    this.onReadonly = options.onReadonly || (() => {});
    this.interactive = options.interactive ?? true;
    this.keyboard = options.keyboard ?? this.interactive;
    // Fitted: the table fills the height its box is given (a game page during play); otherwise it
    // takes the height its columns need, up to the window's.
    this.fit = options.fit ?? false;
    this.deckName = document.documentElement.dataset.deck || "classic";
    this.faces = "";
    this.fans = [];
    this.state = emptyState(); // what is drawn (an autoplay animation draws intermediate positions)
    this.model = this.state; // the position moves are computed from: always the latest one
    this.selection = null;
    this.press = null;
    this.lastTap = null;
    this.typed = "";
    this.typedTimer = null;
    this.cards = new Map();
    this.build();
    this.resizeObserver = new ResizeObserver(() => this.layout());
    this.resizeObserver.observe(this.root);
    window.addEventListener("resize", () => this.layout());
    if (this.keyboard) document.addEventListener("keydown", (e) => this.onKey(e));
    document.addEventListener("fc-settings", (e) => {
      this.deckName = e.detail.deck;
      this.layout();
    });
  }

  build() {
    this.root.classList.add("table");
    this.root.classList.toggle("fit", this.fit);
    this.root.setAttribute("role", "region");
    if (!this.root.hasAttribute("aria-label")) this.root.setAttribute("aria-label", "FreeCell table");
    this.cellsEl = el("div", { class: "cells", role: "group", "aria-label": "Free cells" });
    this.cellPiles = [..."abcd"].map((name) => {
      // A group, so that its label (the cell and its card) reaches screen readers; a bare div's is dropped.
      const pile = el("div", { class: "pile cell", role: "group", "data-pile": name, "data-label": name, tabindex: this.keyboard ? "0" : null });
      this.cellsEl.append(pile);
      return pile;
    });
    this.foundationsEl = el("div", { class: "foundations", role: "group", "aria-label": "Foundations" });
    this.foundationPiles = {};
    for (const suit of FOUNDATION_ORDER) {
      const pile = el(
        "div",
        { class: `pile foundation ${isRed("A" + suit) ? "red" : "black"}`, role: "group", "data-pile": "h", "data-suit": suit, tabindex: this.keyboard ? "0" : null },
        el("span", { class: "slot-mark", "aria-hidden": "true", text: SUIT_SYMBOLS[suit] }),
      );
      this.foundationPiles[suit] = pile;
      this.foundationsEl.append(pile);
    }
    this.columnsEl = el("div", { class: "columns", role: "group", "aria-label": "Columns" });
    this.columnPiles = [];
    for (let i = 1; i <= 8; i++) {
      const pile = el("div", { class: "pile column", role: "group", "data-pile": String(i), "data-label": String(i), tabindex: this.keyboard ? "0" : null });
      this.columnPiles.push(pile);
      this.columnsEl.append(pile);
    }
    this.root.replaceChildren(el("div", { class: "top-row" }, this.cellsEl, this.foundationsEl), this.columnsEl);
    for (const suit of SUITS) {
      for (let rank = 1; rank <= 13; rank++) {
        const code = cardCode(rank, suit);
        // The face is an SVG picture (deck.js) set as the background when the table knows its size.
        const card = el("div", { class: `card ${isRed(code) ? "red" : "black"}`, "data-card": code, role: "img", "aria-label": cardName(code) });
        this.cards.set(code, card);
      }
    }
    this.root.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    this.root.addEventListener("pointermove", (e) => this.onPointerMove(e));
    this.root.addEventListener("pointerup", (e) => this.onPointerUp(e));
    this.root.addEventListener("pointercancel", () => this.cancelDrag());
    this.root.addEventListener("lostpointercapture", () => {
      if (this.press && this.press.dragging) this.cancelDrag();
    });
    // Long-press menus and native drag of the text would fight the table's own gestures.
    this.root.addEventListener("contextmenu", (e) => {
      if (e.target.closest("[data-card]")) e.preventDefault();
    });
    this.root.addEventListener("dragstart", (e) => e.preventDefault());
  }

  setInteractive(on) {
    const changed = this.interactive !== on;
    this.interactive = on;
    this.root.classList.toggle("readonly", !on);
    if (!on) this.clearSelection();
    if (changed) this.layout();
  }

  // ------------------------------------------------------------------ drawing

  /**
   * Draws `state`; cards slide from where they were unless `animate` is false. An `intermediate`
   * state (a step of an autoplay animation) is only drawn: gestures keep using the latest position.
   */
  render(state, { animate = true, duration = 170, intermediate = false } = {}) {
    if (state !== this.state && JSON.stringify(state) !== JSON.stringify(this.state)) this.clearHint();
    this.state = state;
    if (!intermediate) this.model = state;
    const before = new Map();
    const doAnimate = animate && !reducedMotion() && this.root.isConnected;
    if (doAnimate) for (const [code, card] of this.cards) if (card.isConnected) before.set(code, card.getBoundingClientRect());
    this.place(state);
    this.layout();
    if (this.selection && !this.selectionStillValid()) this.clearSelection();
    else if (this.selection) this.markSelection();
    if (!doAnimate) return;
    const moved = [];
    for (const [code, card] of this.cards) {
      const first = before.get(code);
      if (!first) continue;
      const last = card.getBoundingClientRect();
      const dx = first.left - last.left;
      const dy = first.top - last.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      card.style.transition = "none";
      card.style.transform = `translate(${dx}px, ${dy}px)`;
      card.classList.add("moving");
      moved.push(card);
    }
    if (!moved.length) return;
    void this.root.offsetWidth; // commit the inverted positions before playing the transition
    for (const card of moved) {
      card.style.transition = `transform ${duration}ms cubic-bezier(.2,.7,.3,1)`;
      card.style.transform = "";
      const done = () => {
        card.classList.remove("moving");
        card.style.transition = "";
        card.removeEventListener("transitionend", done);
      };
      card.addEventListener("transitionend", done);
      setTimeout(done, duration + 80);
    }
  }

  place(state) {
    for (const card of this.cards.values()) {
      card.style.transform = "";
      card.style.transition = "";
      // A card still sliding from the last drawing stops where it is drawn now (and takes clicks again).
      card.classList.remove("dragging", "selected", "covered", "moving");
    }
    state.columns.forEach((column, i) => {
      const pile = this.columnPiles[i];
      column.forEach((code, j) => {
        const card = this.cards.get(code);
        if (pile.children[j] !== card) pile.insertBefore(card, pile.children[j] || null);
        card.removeAttribute("aria-hidden");
      });
      while (pile.children.length > column.length) pile.lastChild.remove();
      const names = column.map(cardName);
      pile.setAttribute(
        "aria-label",
        column.length ? `column ${i + 1}, ${column.length} card${column.length > 1 ? "s" : ""}: ${names.join(", ")}; exposed: ${names[names.length - 1]}` : `column ${i + 1}, empty`,
      );
    });
    state.cells.forEach((code, i) => {
      const pile = this.cellPiles[i];
      if (code) {
        const card = this.cards.get(code);
        if (pile.firstChild !== card || pile.children.length !== 1) pile.replaceChildren(card);
        card.removeAttribute("aria-hidden");
        pile.setAttribute("aria-label", `free cell ${"abcd"[i]}: ${cardName(code)}`);
      } else {
        pile.replaceChildren();
        pile.setAttribute("aria-label", `free cell ${"abcd"[i]}, empty`);
      }
    });
    for (const suit of FOUNDATION_ORDER) {
      const pile = this.foundationPiles[suit];
      const height = state.foundations[suit] || 0;
      const mark = pile.querySelector(".slot-mark");
      const want = [mark];
      for (let r = 1; r <= height; r++) want.push(this.cards.get(cardCode(r, suit)));
      want.forEach((node, j) => {
        if (pile.children[j] !== node) pile.insertBefore(node, pile.children[j] || null);
      });
      while (pile.children.length > want.length) pile.lastChild.remove();
      for (let r = 1; r <= height; r++) {
        const card = this.cards.get(cardCode(r, suit));
        if (r < height) card.setAttribute("aria-hidden", "true");
        else card.removeAttribute("aria-hidden");
      }
      pile.setAttribute(
        "aria-label",
        height ? `foundation of ${SUIT_WORDS[suit]}: up to the ${cardName(cardCode(height, suit))}` : `foundation of ${SUIT_WORDS[suit]}, empty`,
      );
    }
  }

  /**
   * Sizes the cards to the table's box and fans each column to fit it. The cards take the largest size
   * at which eight columns fit the width and, in the height, the top row plus a column of PLAN_DEPTH
   * cards with room to spare around each corner index; a longer column compresses its fan down to the
   * index alone before the cards shrink. Narrow cards switch to the large index so phones stay readable.
   */
  layout() {
    const width = this.root.clientWidth;
    if (!width) return;
    const gap = Math.round(Math.max(3, Math.min(18, width * 0.011)));
    const rowGap = Math.max(22, Math.round(gap * 2)); // room for the column numbers' tabs, apart from the top row
    const longest = Math.max(1, ...this.state.columns.map((column) => column.length));
    const top = this.root.getBoundingClientRect().top;
    const height = this.fit
      ? this.root.clientHeight
      : Math.max(320, window.innerHeight - Math.max(0, Math.min(top, window.innerHeight / 3)) - 80);
    const byWidth = (width - 7 * gap) / 8;
    const byHeight = (strip) => {
      const plan = (height - rowGap) / (2 + (PLAN_DEPTH - 1) * strip * 1.05);
      const need = (height - rowGap) / (2 + (longest - 1) * strip);
      return Math.min(plan, need) / 1.4;
    };
    let compact = !!(DECK_STYLES[this.deckName] || DECK_STYLES.classic).large;
    let cardW = Math.min(byWidth, byHeight(compact ? INDEX_STRIP.large : INDEX_STRIP.normal));
    if (!compact && cardW < COMPACT_BELOW) {
      compact = true;
      cardW = Math.min(byWidth, byHeight(INDEX_STRIP.large));
    }
    cardW = Math.floor(Math.max(24, Math.min(MAX_CARD_W, cardW)));
    const cardH = Math.round(cardW * 1.4);
    const strip = compact ? INDEX_STRIP.large : INDEX_STRIP.normal;
    this.setFaces(compact);
    this.root.classList.toggle("compact", compact);
    this.root.style.setProperty("--card-w", `${cardW}px`);
    this.root.style.setProperty("--card-h", `${cardH}px`);
    this.root.style.setProperty("--gap", `${gap}px`);
    this.root.style.setProperty("--row-gap", `${rowGap}px`);
    // The status bar and the controls line up with the board's edges (set on the play area).
    // The status bar and the controls line up with the board's edges and grow with the cards (set on the play area).
    const parent = this.root.parentElement;
    if (parent) {
      parent.style.setProperty("--board-w", `${8 * cardW + 7 * gap}px`);
      parent.style.setProperty("--card-px", `${cardW}px`);
    }
    const area = Math.max(cardH * (this.fit ? 1 : 2.5), height - cardH - rowGap);
    // Narrow cards (a phone upright) have height to spare: a wider fan shows more of each card, and on a
    // phone held upright the columns fan down the screen rather than leave its lower third bare.
    const upright = window.innerHeight > window.innerWidth * 1.3;
    const fanMax = Math.round(cardH * (compact ? (upright && this.fit ? 0.85 : 0.62) : 0.28));
    const fanMin = Math.max(6, Math.floor(cardH * strip));
    let tallest = cardH;
    this.fans = this.columnPiles.map((pile) => {
      const n = pile.children.length;
      let fan = fanMax;
      if (n > 1) {
        const fits = Math.floor((area - cardH) / (n - 1));
        fan = Math.max(fanMin, Math.min(fanMax, fits));
        // A fitted table never runs past its box (rounding, or a column beyond any plan).
        if (this.fit) fan = Math.max(4, Math.min(fan, fits));
      }
      [...pile.children].forEach((card, j) => {
        card.style.top = `${j * fan}px`;
        card.style.zIndex = String(j + 1);
      });
      tallest = Math.max(tallest, cardH + Math.max(0, n - 1) * fan);
      return fan;
    });
    // A fitted table's columns reach down to its bottom, so a drop anywhere below a column lands on it;
    // a finished game's table (or a replay's) is only as tall as its cards.
    const columnsHeight = this.fit ? Math.max(area, tallest) : tallest + 8;
    this.root.style.setProperty("--area-h", `${columnsHeight}px`);
    for (const suit of FOUNDATION_ORDER) {
      [...this.foundationPiles[suit].querySelectorAll("[data-card]")].forEach((card, j) => {
        card.style.top = "0px";
        card.style.zIndex = String(j + 1);
      });
    }
    for (const pile of this.cellPiles) {
      const card = pile.querySelector("[data-card]");
      if (card) {
        card.style.top = "0px";
        card.style.zIndex = "1";
      }
    }
  }

  setFit(on) {
    if (this.fit === on) return;
    this.fit = on;
    this.root.classList.toggle("fit", on);
    this.layout();
  }

  /** Draws every face in the chosen style, with the large index when the cards are narrow. */
  setFaces(compact) {
    const key = `${this.deckName}:${compact}`;
    if (this.faces === key) return;
    this.faces = key;
    for (const [code, card] of this.cards) card.style.backgroundImage = `url("${faceUrl(code, this.deckName, compact)}")`;
  }

  // ------------------------------------------------------------------ the hint on the board

  /** Marks the card a hinted move takes (data-hint="from") and the pile it goes to (data-hint="to"),
   * and shows the move as a ghost of the cards gliding there. False when the move does not apply. */
  showHint(move) {
    this.clearHint();
    const checked = checkMove(this.model, move);
    if (checked.error) return false;
    const card = this.cards.get(checked.cards[0]);
    const dest = this.pileElement(checked.dest, checked.cards[0]);
    card.dataset.hint = "from";
    dest.dataset.hint = "to";
    if (!reducedMotion()) this.glideHint(checked.cards, dest);
    return true;
  }

  clearHint() {
    for (const node of this.root.querySelectorAll("[data-hint]")) node.removeAttribute("data-hint");
    for (const ghost of this.root.querySelectorAll(".hint-ghost")) ghost.remove();
  }

  pileElement(name, card) {
    if (name === "h") return this.foundationPiles[suitOf(card)];
    if ("abcd".includes(name)) return this.cellPiles["abcd".indexOf(name)];
    return this.columnPiles[Number(name) - 1];
  }

  /** Copies of the moving cards (no data-card: the table's 52 stay the only ones) slide to `dest`, twice. */
  glideHint(codes, dest) {
    const box = this.root.getBoundingClientRect();
    const target = dest.getBoundingClientRect();
    let x = target.left - box.left;
    let y = target.top - box.top;
    if (dest.classList.contains("column") && dest.lastElementChild) {
      const last = dest.lastElementChild.getBoundingClientRect();
      y = last.top - box.top + (this.fans[this.columnPiles.indexOf(dest)] || 20);
    }
    codes.forEach((code, j) => {
      const card = this.cards.get(code);
      const from = card.getBoundingClientRect();
      const ghost = card.cloneNode(false);
      for (const name of ["data-card", "data-hint", "role", "aria-label"]) ghost.removeAttribute(name);
      ghost.setAttribute("aria-hidden", "true");
      ghost.className = "card hint-ghost";
      ghost.style.backgroundImage = card.style.backgroundImage;
      ghost.style.left = `${from.left - box.left}px`;
      ghost.style.top = `${from.top - box.top}px`;
      ghost.style.zIndex = "900";
      this.root.append(ghost);
      const dx = x - (from.left - box.left);
      const dy = y + j * (this.fans[0] || 20) - (from.top - box.top);
      const glide = ghost.animate(
        [
          { transform: "translate(0, 0)", opacity: 0 },
          { transform: "translate(0, 0)", opacity: 0.95, offset: 0.15 },
          { transform: `translate(${dx}px, ${dy}px)`, opacity: 0.95, offset: 0.7 },
          { transform: `translate(${dx}px, ${dy}px)`, opacity: 0 },
        ],
        { duration: HINT_MS, iterations: 2, easing: "ease-in-out" },
      );
      glide.onfinish = () => ghost.remove();
    });
  }

  // ------------------------------------------------------------------ what a gesture means

  /** {pile, index, count, cards} for a card that may be picked up (cell card or a run's bottom), or null. */
  pickable(cardEl) {
    const code = cardEl.dataset.card;
    // Where the card is in the latest position, not where an animation is drawing it.
    const cell = this.model.cells.indexOf(code);
    if (cell >= 0) return { pile: "abcd"[cell], index: 0, count: 1, cards: [code] };
    const col = this.model.columns.findIndex((c) => c.includes(code));
    if (col < 0) return null;
    const pile = String(col + 1);
    const column = this.model.columns[col];
    const index = column.indexOf(code);
    const count = column.length - index;
    if (count > runLength(column)) return { pile, index, count, cards: column.slice(index), notRun: true };
    return { pile, index, count, cards: column.slice(index) };
  }

  /**
   * The move that carries exactly the picked cards `sel` onto the pile `destPile`, as {move}, or {error}
   * with a player's sentence when no move does. The plain notation `23` moves whichever run fits, so a
   * picked run that does not fit must not be sent as `23`: the server would move part of it. A run of
   * several cards goes with its count as `v` (`23v4`, `24v3`), which the server checks against the
   * count it implies; a single exposed card keeps the plain move, so the server works out the run.
   */
  moveFor(sel, destPile) {
    const dest = destPile.dataset.pile;
    if (sel.count > 1 && !"12345678".includes(dest)) {
      return { error: `only one card goes to ${dest === "h" ? "a foundation" : "a free cell"}: pick the exposed ${cardName(sel.cards[sel.count - 1])}` };
    }
    if (dest === "h") return { move: `${sel.pile}h` };
    if ("abcd".includes(dest)) {
      // A tap or drop on a taken cell means "a free cell": use the first empty one.
      let cell = dest;
      if (this.model.cells["abcd".indexOf(dest)]) {
        const free = this.model.cells.findIndex((c) => !c);
        if (free >= 0) cell = "abcd"[free];
      }
      return { move: `${sel.pile}${cell}` };
    }
    const column = this.model.columns[Number(dest) - 1];
    if (sel.count > 1 && column.length && !fits(sel.cards[0], column[column.length - 1])) {
      return { error: `the ${cardName(sel.cards[0])} cannot go on the ${cardName(column[column.length - 1])}` };
    }
    if (!"12345678".includes(sel.pile)) return { move: `${sel.pile}${dest}` };
    return { move: formatMove(sel.pile, dest, sel.count) };
  }

  /** Sends the picked cards to `destPile`, or says why they cannot go there (and sends nothing). */
  drop(sel, destPile, via) {
    const { move, error } = this.moveFor(sel, destPile);
    if (error) {
      this.clearSelection();
      this.render(this.model); // a dragged run slides back
      playSound("refuse");
      this.onMessage(error);
      return;
    }
    this.emit(move, via);
  }

  select(sel) {
    if (!this.selection || this.selection.cards[0] !== sel.cards[0]) playSound("pick");
    this.selection = sel;
    this.markSelection();
  }

  markSelection() {
    for (const card of this.root.querySelectorAll(".card.selected")) card.classList.remove("selected");
    for (const pile of this.root.querySelectorAll(".pile.target")) pile.classList.remove("target");
    const sel = this.selection;
    if (!sel) {
      this.root.classList.remove("has-selection");
      return;
    }
    this.root.classList.add("has-selection");
    for (const code of sel.cards) this.cards.get(code).classList.add("selected");
    // Show where the selection can go, by the same rules the server will apply.
    for (const pile of this.root.querySelectorAll("[data-pile]")) {
      if (pile.dataset.pile === sel.pile) continue;
      const { move } = sel.keyboard ? this.keyMoveFor(sel, pile) : this.moveFor(sel, pile);
      if (move && !checkMove(this.model, move).error) pile.classList.add("target");
    }
  }

  selectionStillValid() {
    const sel = this.selection;
    if (!sel) return false;
    const card = this.cards.get(sel.cards[0]);
    const now = this.pickable(card);
    return !!now && now.pile === sel.pile && now.count === sel.count && !now.notRun;
  }

  clearSelection() {
    this.selection = null;
    this.markSelection();
  }

  emit(move, via) {
    this.clearSelection();
    this.onMove(move, { via });
  }

  // ------------------------------------------------------------------ pointer: tap, double tap, drag

  onPointerDown(e) {
    if (e.button !== undefined && e.button !== 0) return;
    if (!this.interactive) {
      // Say why nothing moves, rather than nothing at all.
      if (e.target.closest("[data-card]")) this.onReadonly();
      return;
    }
    if (e.isPrimary === false) {
      // A second finger (a pinch): neither finger's lifting is a tap, and a drag under way ends.
      this.cancelDrag();
      return;
    }
    let cardEl = e.target.closest("[data-card]");
    let pileEl = e.target.closest("[data-pile]");
    const settled = this.root.classList.contains("autoplaying") || !!this.root.querySelector(".card.moving");
    if (settled) {
      // A press while autoplay is still drawing its cards home: the animation ends at once and the press
      // is taken where the cards lie now (a card it sent home was a refusal, "cards never leave the
      // foundations", though the player pressed the column).
      this.onSettle();
      const under = document.elementFromPoint(e.clientX, e.clientY);
      cardEl = under ? under.closest("[data-card]") : null;
      pileEl = under ? under.closest("[data-pile]") : null;
      if (pileEl && !this.root.contains(pileEl)) pileEl = null;
    }
    if (!pileEl) return;
    this.press = { x: e.clientX, y: e.clientY, cardEl, pileEl, id: e.pointerId, dragging: false, sel: null, settled };
    if (cardEl) {
      const sel = this.pickable(cardEl);
      if (sel && !sel.notRun) {
        this.press.sel = sel;
        try {
          this.root.setPointerCapture(e.pointerId);
        } catch { /* capture is a nicety */ }
      }
      e.preventDefault();
    }
  }

  onPointerMove(e) {
    const press = this.press;
    if (!press || press.id !== e.pointerId || !press.sel) return;
    const dx = e.clientX - press.x;
    const dy = e.clientY - press.y;
    if (!press.dragging) {
      if (Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
      press.dragging = true;
      this.select(press.sel);
      press.els = press.sel.cards.map((code) => this.cards.get(code));
      for (const card of press.els) card.classList.add("dragging");
    }
    for (const card of press.els) card.style.transform = `translate(${dx}px, ${dy}px)`;
    const over = this.pileAt(e.clientX, e.clientY, press.els);
    for (const pile of this.root.querySelectorAll(".pile.over")) if (pile !== over) pile.classList.remove("over");
    if (over && over !== press.pileEl) over.classList.add("over");
  }

  pileAt(x, y, exclude = []) {
    for (const node of document.elementsFromPoint(x, y)) {
      if (exclude.some((el) => el.contains(node))) continue;
      const pile = node.closest && node.closest("[data-pile]");
      if (pile && this.root.contains(pile)) return pile;
    }
    return null;
  }

  onPointerUp(e) {
    const press = this.press;
    if (!press || press.id !== e.pointerId) return;
    this.press = null;
    for (const pile of this.root.querySelectorAll(".pile.over")) pile.classList.remove("over");
    if (press.dragging) {
      const target = this.pileAt(e.clientX, e.clientY, press.els);
      for (const card of press.els) card.classList.remove("dragging");
      if (target && target.dataset.pile !== press.sel.pile) {
        this.drop(press.sel, target, "drag");
      } else {
        this.clearSelection();
        this.render(this.model); // slide back
      }
      return;
    }
    // A finger that travelled without dragging (a swipe to scroll, from a card that cannot be
    // picked up) made no tap: it must not drop the selection where it happened to lift.
    if (Math.hypot(e.clientX - press.x, e.clientY - press.y) >= DRAG_THRESHOLD) return;
    this.tap(press.cardEl, press.pileEl, press.settled);
  }

  cancelDrag() {
    const press = this.press;
    this.press = null;
    if (press && press.dragging) {
      for (const card of press.els) card.classList.remove("dragging");
      this.clearSelection();
      this.render(this.model);
    }
  }

  /** A tap on a card or a pile; `settled`: it came while autoplay was drawing cards home, so a card it
   * finds on a foundation is one that flew there under the finger, not one the player meant to take back. */
  tap(cardEl, pileEl, settled = false) {
    const now = performance.now();
    const code = cardEl ? cardEl.dataset.card : null;
    const last = this.lastTap;
    this.lastTap = null;
    // Double tap (or double click) on a card that can go home: send it there. One that cannot goes
    // on as a second tap on the selection, which drops it (a quick "never mind" is no move).
    if (code && last && last.code === code && now - last.at < DOUBLE_TAP_MS) {
      const sel = this.pickable(cardEl);
      if (sel && sel.count === 1 && !checkMove(this.model, `${sel.pile}h`).error) {
        this.emit(`${sel.pile}h`, "double");
        return;
      }
    }
    const sel = this.selection;
    if (sel) {
      if (pileEl.dataset.pile === sel.pile) {
        // Tapping the selection again drops it; tapping another card of that column picks that run.
        const again = code ? this.pickable(cardEl) : null;
        if (again && !again.notRun && code !== sel.cards[0]) this.select(again);
        else this.clearSelection();
        if (code) this.lastTap = { code, at: now };
        return;
      }
      this.drop(sel, pileEl, "click");
      return;
    }
    if (!code) return;
    const picked = this.pickable(cardEl);
    if (!picked) {
      if (pileEl.dataset.pile === "h" && !settled) {
        playSound("refuse");
        this.onMessage("cards never leave the foundations");
      }
      return;
    }
    if (picked.notRun) {
      playSound("refuse");
      this.onMessage(`the ${cardName(code)} is covered by cards that are not a run`);
      return;
    }
    this.select(picked);
    this.lastTap = { code, at: now };
  }

  // ------------------------------------------------------------------ keyboard: the spec's notation

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    // Keys on a focused pile (arrows, Enter, Space) act on that pile only: they are no single-key
    // shortcuts, so they work with typing on the page turned off.
    const pile = t instanceof Element ? t.closest("[data-pile]") : null;
    if (pile && this.root.contains(pile) && !this.typed && !document.querySelector("dialog[open]")) {
      if (e.key.startsWith("Arrow")) {
        e.preventDefault();
        this.focusNeighbour(pile, e.key);
        return;
      }
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        if (this.interactive) this.keyPick(pile);
        else this.onReadonly();
        return;
      }
      if (e.key === "Escape" && this.selection) {
        this.clearSelection();
        this.onMessage("");
        return;
      }
    }
    if (!this.interactive || !singleKeysOn()) return;
    // A key pressed on a link, a summary or in the site's header is not a move (a "u" there undid one).
    if (t && t instanceof Element && (t.closest("a, summary, header") !== null)) return;
    // Enter and space belong to a focused button, unless a typed move is waiting for Enter.
    if (t && t.tagName === "BUTTON" && (e.key === " " || (e.key === "Enter" && !this.typed))) return;
    if (document.querySelector("dialog[open]")) return;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (key === "Escape") {
      this.swallow = false;
      this.setTyped("");
      this.clearSelection();
      return;
    }
    if (key === "Backspace") {
      if (this.swallow) this.endSwallow();
      else if (this.typed) {
        e.preventDefault();
        this.setTyped(this.typed.slice(0, -1));
      }
      return;
    }
    if (key === "Enter") {
      if (this.swallow) {
        e.preventDefault();
        this.endSwallow();
      } else if (this.typed) {
        e.preventDefault();
        this.submitTyped(true);
      }
      return;
    }
    if (key.length !== 1) return;
    if (!this.typed && key === "u") {
      e.preventDefault();
      this.clearSelection();
      this.onUndo();
      return;
    }
    if (!/[0-9a-fhv]/.test(key)) return;
    e.preventDefault();
    // A count typed after a column-to-column move that went at once (`57v3`) only repeats what the
    // move implies: take it in and drop it, rather than read it as the start of a new move.
    const sent = this.lastTyped;
    if (!this.typed && key === "v" && sent && performance.now() - sent.at < 1500) {
      this.swallow = true;
      this.setTyped(`${sent.move}v`);
      return;
    }
    if (this.swallow) {
      // A count is one hex digit (a run holds at most 13 cards): it ends the swallowed move.
      const digit = /^[0-9a-f]$/.test(key);
      this.endSwallow();
      if (digit) return;
    }
    this.setTyped(this.typed + key);
    this.submitTyped(false);
  }

  // ------------------------------------------------------------------ keyboard: focused piles

  /** The piles in reading order, as two rows: cells and foundations, then the columns. */
  pileRows() {
    return [[...this.cellPiles, ...FOUNDATION_ORDER.map((suit) => this.foundationPiles[suit])], this.columnPiles];
  }

  focusNeighbour(pile, key) {
    const rows = this.pileRows();
    const row = rows.findIndex((r) => r.includes(pile));
    let index = rows[row].indexOf(pile);
    let next = row;
    if (key === "ArrowLeft") index = Math.max(0, index - 1);
    else if (key === "ArrowRight") index = Math.min(7, index + 1);
    else if (key === "ArrowUp") next = 0;
    else if (key === "ArrowDown") next = 1;
    rows[next][index].focus();
  }

  /** Enter or Space on a pile: picks up its movable cards, or puts the picked-up cards on it. */
  keyPick(pile) {
    const sel = this.selection;
    if (sel) {
      if (pile.dataset.pile === sel.pile) {
        // Again on the same pile: one card fewer (for a move of part of a run to an empty column),
        // and from a single card, put back.
        if (sel.count > 1) this.pickUp({ ...sel, index: sel.index + 1, count: sel.count - 1, cards: sel.cards.slice(1) });
        else {
          this.clearSelection();
          this.onMessage("");
        }
        return;
      }
      const { move, error } = this.keyMoveFor(sel, pile);
      if (error) {
        this.clearSelection();
        this.onMessage(error);
        return;
      }
      this.emit(move, "keyboard");
      return;
    }
    const picked = this.pileSelection(pile);
    if (!picked) {
      const name = pile.dataset.pile;
      this.onMessage(name === "h" ? "cards never leave the foundations" : `${"abcd".includes(name) ? `free cell ${name}` : `column ${name}`} is empty`);
      return;
    }
    this.pickUp(picked);
  }

  pickUp(picked) {
    this.select({ ...picked, keyboard: true });
    const what = picked.count === 1 ? `the ${cardName(picked.cards[0])}` : `the ${cardName(picked.cards[0])} and the ${picked.count - 1} card${picked.count > 2 ? "s" : ""} on it`;
    const them = picked.count === 1 ? "it" : "them";
    const fewer = picked.count > 1 ? ", Enter here again for one card fewer" : "";
    this.onMessage(`Picked up ${what}: arrow keys to a pile, Enter puts ${them} there${fewer}, Esc puts ${them} back.`);
  }

  /** The movable cards of a pile: a free cell's card, or the run at the exposed end of a column. */
  pileSelection(pile) {
    const name = pile.dataset.pile;
    if ("abcd".includes(name)) {
      const code = this.model.cells["abcd".indexOf(name)];
      return code ? { pile: name, index: 0, count: 1, cards: [code] } : null;
    }
    if (name === "h") return null;
    const column = this.model.columns[Number(name) - 1];
    const count = runLength(column);
    if (!count) return null;
    return { pile: name, index: column.length - count, count, cards: column.slice(column.length - count) };
  }

  /** The move that puts as much of a picked-up run on `destPile` as may go: the exposed card to a cell
   * or foundation, the part of the run that fits onto a column, as many as may move to an empty one. */
  keyMoveFor(sel, destPile) {
    const dest = destPile.dataset.pile;
    const exposed = { ...sel, index: sel.index + sel.count - 1, count: 1, cards: [sel.cards[sel.count - 1]] };
    if (!"12345678".includes(dest)) return this.moveFor(exposed, destPile);
    if (!"12345678".includes(sel.pile)) return { move: `${sel.pile}${dest}` };
    if (this.model.columns[Number(dest) - 1].length) return { move: `${sel.pile}${dest}` };
    return { move: formatMove(sel.pile, dest, Math.min(sel.count, capacity(this.model, true))) };
  }

  endSwallow() {
    this.swallow = false;
    this.lastTyped = null;
    this.setTyped("");
  }

  setTyped(text) {
    this.typed = text;
    clearTimeout(this.typedTimer);
    this.onTyping(text);
    for (const pile of this.root.querySelectorAll(".pile.typed")) pile.classList.remove("typed");
    if (text && /^[1-8a-d]/.test(text)) {
      const pile = "abcd".includes(text[0]) ? this.cellPiles["abcd".indexOf(text[0])] : this.columnPiles[Number(text[0]) - 1];
      pile.classList.add("typed");
    }
  }

  submitTyped(force) {
    const text = this.typed;
    if (/^[1-8a-d]$/.test(text) || /^[1-8][1-8]v$/.test(text)) return; // wait for more
    if (/^[1-8a-d][1-8a-dh]$/.test(text)) {
      const [src, dest] = text;
      const waitForCount = !force && "12345678".includes(src) && "12345678".includes(dest)
        && !this.model.columns[Number(dest) - 1].length && runLength(this.model.columns[Number(src) - 1]) > 1;
      if (waitForCount) {
        // A move to an empty column may carry a count (`24v3`): give the player a moment to type it.
        this.typedTimer = setTimeout(() => this.submitTyped(true), 1200);
        return;
      }
      this.setTyped("");
      this.emit(text, "keyboard");
      if ("12345678".includes(src) && "12345678".includes(dest)) this.lastTyped = { move: text, at: performance.now() };
      return;
    }
    if (/^[1-8][1-8]v[0-9a-f]+$/.test(text)) {
      this.setTyped("");
      this.emit(text, "keyboard");
      return;
    }
    this.setTyped("");
    this.onMessage(`"${text}" is not a move: type a source (1-8 or a-d) then a destination (1-8, a-d or h), or u to undo`);
  }
}
