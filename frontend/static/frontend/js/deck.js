// The deck, drawn here as SVG from code (no card art is copied or fetched): pip layouts for the
// number cards, simple double-headed figures for the court cards, and a corner index that stays
// readable in a fanned column. Each face is an SVG document turned into a data: URL, used as a
// card's background and, by the win celebration, drawn on a canvas.

import { rankOf, suitOf } from "./cards.js";

// The card's own coordinates: 250 x 350, the 5:7 shape of a real card.
const W = 250;
const H = 350;

/** Suit shapes in a 100 x 100 box. */
const SUIT_PATHS = {
  H: "M50 92C34 78 3 58 3 31 3 15 15 4 29 4c10 0 17 6 21 14 4-8 11-14 21-14 14 0 26 11 26 27 0 27-31 47-47 61z",
  D: "M50 2 87 50 50 98 13 50z",
  S: "M50 3C38 22 4 40 4 63c0 14 11 24 24 24 9 0 15-4 19-10-1 9-5 16-13 21h32c-8-5-12-12-13-21 4 6 10 10 19 10 13 0 24-10 24-24C96 40 62 22 50 3z",
  C: "M50 4c-12 0-21 9-21 21 0 6 2 11 6 15-3-1-6-2-10-2C13 38 4 47 4 59s9 21 21 21c9 0 16-5 19-12-1 11-5 20-13 30h38c-8-10-12-19-13-30 3 7 10 12 19 12 12 0 21-9 21-21s-9-21-21-21c-4 0-7 1-10 2 4-4 6-9 6-15 0-12-9-21-21-21z",
};

/** The styles a player can choose (on the account page): the colours of each suit and the layout. */
export const DECK_STYLES = {
  classic: { label: "Classic", colours: { C: "#1a1a1a", S: "#1a1a1a", H: "#c8102e", D: "#c8102e" }, large: false },
  four: { label: "Four colours", colours: { C: "#0b7a36", S: "#1a1a1a", H: "#c8102e", D: "#1554c0" }, large: false },
  large: { label: "Large print", colours: { C: "#1a1a1a", S: "#1a1a1a", H: "#c8102e", D: "#c8102e" }, large: true },
};

// Pip centres (x, y) of the number cards, upper half and middle; the lower half is the mirror image.
const L = 78;
const C = 125;
const R = 172;
const ROWS4 = [92, 150, 200, 258];
const PIPS = {
  2: [[C, 92], [C, 258]],
  3: [[C, 92], [C, 175], [C, 258]],
  4: [[L, 92], [R, 92], [L, 258], [R, 258]],
  5: [[L, 92], [R, 92], [C, 175], [L, 258], [R, 258]],
  6: [[L, 92], [R, 92], [L, 175], [R, 175], [L, 258], [R, 258]],
  7: [[L, 92], [R, 92], [C, 133], [L, 175], [R, 175], [L, 258], [R, 258]],
  8: [[L, 92], [R, 92], [C, 133], [L, 175], [R, 175], [C, 217], [L, 258], [R, 258]],
  9: [...ROWS4.flatMap((y) => [[L, y], [R, y]]), [C, 175]],
  10: [...ROWS4.flatMap((y) => [[L, y], [R, y]]), [C, 121], [C, 229]],
};

const RANK_TEXT = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const FONT = "'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif";

function suit(s, x, y, size, colour, flip = false) {
  const k = size / 100;
  const turn = flip ? ` rotate(180 50 50)` : "";
  return `<path d="${SUIT_PATHS[s]}" fill="${colour}" transform="translate(${x - size / 2} ${y - size / 2}) scale(${k})${turn}"/>`;
}

/** The corner index: the rank, with the suit beside it so that both show in a column's narrow strip. */
function index(rank, s, colour, large) {
  const text = RANK_TEXT[rank];
  const size = large ? 92 : 50;
  const base = large ? 86 : 48;
  const x = large ? 12 : 10;
  const wide = text === "10";
  const length = wide ? (large ? 96 : 50) : null;
  const rankEl = `<text x="${x}" y="${base}" font-family="${FONT}" font-weight="700" font-size="${size}" fill="${colour}"${
    length ? ` textLength="${length}" lengthAdjust="spacingAndGlyphs"` : ""}>${text}</text>`;
  const pipSize = large ? 70 : 32;
  const pipX = large ? 200 : (wide ? 78 : 62) + pipSize / 2 - 12;
  const pipY = large ? 50 : 31;
  return rankEl + suit(s, pipX, pipY, pipSize, colour);
}

/** A court figure for the upper half of the frame (the lower half is the same, turned). */
function figure(rank, s, colour) {
  const robe = { C: "#1d4e9e", S: "#1a1a1a", H: "#c8102e", D: "#c8102e" }[s];
  const trim = "#e9b31a";
  const skin = "#f5d6b4";
  const hair = { 11: "#8a5a2b", 12: "#e0a526", 13: "#6b6b6b" }[rank];
  const parts = [];
  // Shoulders and robe, down to the middle line.
  parts.push(`<path d="M70 175c0-28 18-46 55-46s55 18 55 46z" fill="${robe}"/>`);
  parts.push(`<path d="M100 175l25-40 25 40z" fill="${trim}" opacity=".9"/>`);
  parts.push(`<path d="M112 175l13-28 13 28z" fill="#fff"/>`);
  // Hair behind the head (long for the queen), the head, the face.
  if (rank === 12) parts.push(`<path d="M98 96c-6 20-4 34 4 44h46c8-10 10-24 4-44z" fill="${hair}"/>`);
  parts.push(`<circle cx="125" cy="106" r="21" fill="${skin}" stroke="#5b4636" stroke-width="1.5"/>`);
  parts.push(`<circle cx="117" cy="103" r="2.4" fill="#222"/><circle cx="133" cy="103" r="2.4" fill="#222"/>`);
  parts.push(`<path d="M118 115q7 5 14 0" stroke="#8b2a2a" stroke-width="2" fill="none"/>`);
  if (rank === 13) {
    // The king: a beard and a pointed crown.
    parts.push(`<path d="M106 110c2 18 10 26 19 26s17-8 19-26c-5 7-11 9-19 9s-14-2-19-9z" fill="${hair}"/>`);
    parts.push(`<path d="M101 90l4-22 10 12 10-16 10 16 10-12 4 22z" fill="${trim}" stroke="#7a5a00" stroke-width="1.5"/>`);
  } else if (rank === 12) {
    // The queen: a rounded crown with jewels.
    parts.push(`<path d="M104 90c2-12 8-18 21-18s19 6 21 18z" fill="${trim}" stroke="#7a5a00" stroke-width="1.5"/>`);
    parts.push(`<circle cx="125" cy="78" r="3.5" fill="${colour}"/><circle cx="112" cy="84" r="2.5" fill="${colour}"/><circle cx="138" cy="84" r="2.5" fill="${colour}"/>`);
  } else {
    // The jack: a feathered cap over short hair.
    parts.push(`<path d="M104 100c0-14 9-22 21-22s21 8 21 22c-6-6-13-8-21-8s-15 2-21 8z" fill="${hair}"/>`);
    parts.push(`<path d="M100 92c4-16 14-22 25-22s21 6 25 22z" fill="${robe}" stroke="${trim}" stroke-width="3"/>`);
    parts.push(`<path d="M146 80c10-10 20-12 26-10-8 2-16 8-22 14z" fill="${trim}"/>`);
  }
  // The suit beside the head, as on printed courts.
  parts.push(suit(s, 80, 88, 26, colour));
  return parts.join("");
}

function face(code, style) {
  const rank = rankOf(code);
  const s = suitOf(code);
  const colour = style.colours[s];
  const large = style.large;
  const parts = [
    `<rect x="1.5" y="1.5" width="${W - 3}" height="${H - 3}" rx="16" fill="#fffdf8" stroke="#8a8f98" stroke-width="3"/>`,
    index(rank, s, colour, large),
  ];
  if (!large) parts.push(`<g transform="rotate(180 ${W / 2} ${H / 2})">${index(rank, s, colour, false)}</g>`);
  if (large) {
    // One big suit (or a court's head) under a big index: readable on a phone's narrow cards.
    if (rank > 10) {
      parts.push(`<g transform="translate(0 118) scale(1 1)">${figure(rank, s, colour)}</g>`);
    } else {
      parts.push(suit(s, 125, 235, 150, colour));
    }
    return parts.join("");
  }
  if (rank === 1) {
    parts.push(suit(s, C, 175, 120, colour));
  } else if (rank <= 10) {
    for (const [x, y] of PIPS[rank]) parts.push(suit(s, x, y, 46, colour, y > 175));
  } else {
    const frame = `<rect x="56" y="62" width="138" height="226" rx="6" fill="#fbf3df" stroke="${colour}" stroke-width="2.5"/>`;
    const half = `<svg x="56" y="62" width="138" height="113" viewBox="56 62 138 113" overflow="hidden">${figure(rank, s, colour)}</svg>`;
    parts.push(frame, half, `<g transform="rotate(180 125 175)">${half}</g>`);
    parts.push(`<line x1="60" y1="175" x2="190" y2="175" stroke="${colour}" stroke-width="1.5"/>`);
  }
  return parts.join("");
}

const cache = new Map();

/** The face of `code` ("7D") in `styleName` as a data: URL; `compact` gives any style the large index
 * its narrow cards need (a phone's columns are 40-odd pixels wide). */
export function faceUrl(code, styleName = "classic", compact = false) {
  const key = `${styleName}:${compact}:${code}`;
  let url = cache.get(key);
  if (!url) {
    const chosen = DECK_STYLES[styleName] || DECK_STYLES.classic;
    const style = { ...chosen, large: chosen.large || compact };
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}">${face(code, style)}</svg>`;
    url = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
    cache.set(key, url);
  }
  return url;
}

/** The fraction of a card's height its corner index takes: a column's fan never hides it. */
export const INDEX_STRIP = { normal: 50 / H, large: 92 / H };
