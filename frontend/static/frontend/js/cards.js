// Cards, the spec's notation and a tiny rules model: enough to show a move before the server answers,
// to replay a history and to animate autoplay. The server stays the judge of every move.

export const SUITS = ["C", "D", "H", "S"];
export const RANKS = "A23456789TJQK";
const RANK_WORDS = ["ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king"];
const SUIT_WORDS = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
export const SUIT_SYMBOLS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const CELLS = "abcd";

export const rankOf = (card) => RANKS.indexOf(card[0]) + 1;
export const suitOf = (card) => card[1];
export const isRed = (card) => card[1] === "D" || card[1] === "H";
export const rankLabel = (card) => (card[0] === "T" ? "10" : card[0]);
export const cardName = (card) => `${RANK_WORDS[rankOf(card) - 1]} of ${SUIT_WORDS[suitOf(card)]}`;
export const cardCode = (rank, suit) => RANKS[rank - 1] + suit;

/** True when `card` may rest on `onto` in a column: one rank lower, the other colour. */
export const fits = (card, onto) => rankOf(onto) === rankOf(card) + 1 && isRed(card) !== isRed(onto);

export function emptyState() {
  return { columns: [[], [], [], [], [], [], [], []], cells: [null, null, null, null], foundations: { C: 0, D: 0, H: 0, S: 0 } };
}

export function cloneState(state) {
  return {
    columns: state.columns.map((column) => column.slice()),
    cells: state.cells.slice(),
    foundations: { ...state.foundations },
  };
}

export function sameState(a, b) {
  return JSON.stringify(a.columns) === JSON.stringify(b.columns)
    && JSON.stringify(a.cells) === JSON.stringify(b.cells)
    && SUITS.every((s) => a.foundations[s] === b.foundations[s]);
}

/** How many cards at the exposed end of `column` form a run (each resting on the next). */
export function runLength(column) {
  if (!column.length) return 0;
  let n = 1;
  for (let i = column.length - 1; i > 0 && fits(column[i], column[i - 1]); i--) n++;
  return n;
}

export function capacity(state, toEmptyColumn = false) {
  const cells = state.cells.filter((c) => !c).length;
  let columns = state.columns.filter((c) => !c.length).length;
  if (toEmptyColumn) columns = Math.max(columns - 1, 0);
  return (cells + 1) * 2 ** columns;
}

const MOVE_RE = /^([1-8a-d])([1-8a-dh])(?:v([0-9a-f]{1,2}))?$/;

export function parseMove(text) {
  const m = MOVE_RE.exec(String(text).trim().toLowerCase());
  if (!m) return null;
  return { source: m[1], dest: m[2], count: m[3] ? parseInt(m[3], 16) : null };
}

export function formatMove(source, dest, count) {
  return count && count > 1 ? `${source}${dest}v${count.toString(16)}` : `${source}${dest}`;
}

const isColumn = (p) => p >= "1" && p <= "8";
const colIndex = (p) => Number(p) - 1;
const cellIndex = (p) => CELLS.indexOf(p);

/** The card exposed at a source pile (column top or free cell), or null. */
export function exposedAt(state, pile) {
  if (isColumn(pile)) {
    const column = state.columns[colIndex(pile)];
    return column.length ? column[column.length - 1] : null;
  }
  if (CELLS.includes(pile)) return state.cells[cellIndex(pile)];
  return null;
}

/**
 * Checks a move against the rules and returns {move, source, dest, n} with the count filled in,
 * or {error} with a player's sentence. Mirrors the engine closely; the server still decides.
 */
export function checkMove(state, text) {
  const parsed = typeof text === "string" ? parseMove(text) : text;
  if (!parsed) return { error: `"${text}" is not a move: write a source (1-8, a-d) then a destination (1-8, a-d, h)` };
  const { source, dest, count } = parsed;
  if (source === dest) return { error: "a card cannot move to the place it is already in" };
  const card = exposedAt(state, source);
  if (!card) return { error: isColumn(source) ? `column ${source} is empty` : `free cell ${source} is empty` };
  if (dest === "h") {
    if (count && count !== 1) return { error: "only one card moves to a foundation" };
    const height = state.foundations[suitOf(card)];
    if (height !== rankOf(card) - 1) {
      return { error: `the ${cardName(card)} cannot go to the foundation before the ${cardName(cardCode(height + 1, suitOf(card)))}` };
    }
    return { move: `${source}h`, source, dest, n: 1, cards: [card] };
  }
  if (CELLS.includes(dest)) {
    if (count && count !== 1) return { error: "only one card moves to a free cell" };
    if (state.cells[cellIndex(dest)]) return { error: `free cell ${dest} is not empty` };
    return { move: `${source}${dest}`, source, dest, n: 1, cards: [card] };
  }
  const target = state.columns[colIndex(dest)];
  if (!isColumn(source)) {
    if (count && count !== 1) return { error: "a free cell holds one card" };
    if (target.length && !fits(card, target[target.length - 1])) {
      return { error: `the ${cardName(card)} cannot go on the ${cardName(target[target.length - 1])}` };
    }
    return { move: `${source}${dest}`, source, dest, n: 1, cards: [card] };
  }
  const column = state.columns[colIndex(source)];
  const run = runLength(column);
  let n;
  if (target.length) {
    const top = target[target.length - 1];
    n = rankOf(top) - rankOf(card);
    if (n < 1 || n > run || !fits(column[column.length - n], top)) {
      return { error: n === 1 || n < 1 ? `the ${cardName(card)} cannot go on the ${cardName(top)}` : `no run in column ${source} fits on the ${cardName(top)}` };
    }
    if (count && count !== n) return { error: `that move carries ${n} cards, not ${count}` };
    const cap = capacity(state, false);
    if (n > cap) return { error: capacityMessage(cap) };
  } else {
    n = count || 1;
    if (n > run) return { error: `the top ${n} cards of column ${source} are not a run` };
    const cap = capacity(state, true);
    if (n > cap) return { error: capacityMessage(cap) };
  }
  return { move: formatMove(source, dest, n), source, dest, n, cards: column.slice(column.length - n) };
}

function capacityMessage(cap) {
  return `only ${cap} card${cap === 1 ? "" : "s"} can move at once with these free cells and empty columns`;
}

/** Applies a checked move to a copy of the state; throws when the move is refused. */
export function applyMove(state, text) {
  const checked = checkMove(state, text);
  if (checked.error) throw new Error(checked.error);
  const next = cloneState(state);
  const { source, dest, n } = checked;
  let cards;
  if (isColumn(source)) cards = next.columns[colIndex(source)].splice(-n, n);
  else {
    cards = [next.cells[cellIndex(source)]];
    next.cells[cellIndex(source)] = null;
  }
  if (dest === "h") next.foundations[suitOf(cards[0])] += 1;
  else if (CELLS.includes(dest)) next.cells[cellIndex(dest)] = cards[0];
  else next.columns[colIndex(dest)].push(...cards);
  return { state: next, move: checked.move, cards };
}

/** Safe autoplay as the server does it: the first qualifying exposed card (columns 1-8, then cells a-d), repeatedly. */
export function safeAutoplay(state) {
  let current = state;
  const moves = [];
  const opposite = { C: ["D", "H"], S: ["D", "H"], D: ["C", "S"], H: ["C", "S"] };
  for (;;) {
    let found = null;
    for (const pile of "12345678abcd") {
      const card = exposedAt(current, pile);
      if (!card) continue;
      const r = rankOf(card);
      if (current.foundations[suitOf(card)] !== r - 1) continue;
      if (r > 2 && !opposite[suitOf(card)].every((s) => current.foundations[s] >= r - 1)) continue;
      found = pile;
      break;
    }
    if (!found) return { state: current, moves };
    current = applyMove(current, `${found}h`).state;
    moves.push(`${found}h`);
  }
}

export const cardsHome = (state) => SUITS.reduce((sum, s) => sum + state.foundations[s], 0);

/** A game's status as the page shows it (the API's raw value is lower case). */
export const statusWord = (status) => ({ playing: "Playing", won: "Won", resigned: "Resigned", abandoned: "Abandoned" })[status] || status;

export function formatClock(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (x) => String(x).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

function pileWords(pile) {
  if (pile === "h") return "its foundation";
  if ("abcd".includes(pile)) return `free cell ${pile}`;
  return `column ${pile}`;
}

/** A move in words, for hints, replays and screen readers: "the seven of diamonds and the six of spades to column 7". */
export function describeMove(state, move) {
  const parsed = parseMove(move);
  if (!parsed) return move;
  let cards = null;
  try {
    cards = applyMove(state, move).cards; // the cards that go, the bottom one (the one that lands) first
  } catch { /* refused here: name the exposed card */ }
  if (cards && cards.length > 1) {
    const run = cards.length === 2
      ? `the ${cardName(cards[0])} and the ${cardName(cards[1])}`
      : `the ${cardName(cards[0])} down to the ${cardName(cards[cards.length - 1])} (${cards.length} cards)`;
    return `${run} to ${pileWords(parsed.dest)}`;
  }
  const card = exposedAt(state, parsed.source);
  const what = card ? `the ${cardName(card)}` : `the card at ${pileWords(parsed.source)}`;
  const count = parsed.count && parsed.count > 1 ? ` (${parsed.count} cards)` : "";
  return `${what}${count} to ${pileWords(parsed.dest)}`;
}
