// The win celebration: the cards leave the foundations one after another and bounce off the bottom of
// the window, leaving trails, as players know it from the Windows game. Drawn on a canvas over the
// page (data-testid="celebration"); with prefers-reduced-motion the cards stay still and a banner
// says the game is won.

import { el } from "./api.js";
import { RANKS } from "./cards.js";

const LAUNCH_EVERY_MS = 110;
const GRAVITY = 2400; // px/s², at a card 100 px wide (scaled with the card)
const BOUNCE = 0.72;
const LONGEST_MS = 9000;

const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** A still picture of `card` (its SVG face rasterized once at the size drawn), for fast canvas drawing. */
async function bitmap(card, width, height, ratio) {
  const image = new Image();
  const match = /url\("?(.*?)"?\)$/.exec(card.style.backgroundImage || "");
  if (!match) return null;
  image.src = match[1];
  try {
    await image.decode();
  } catch {
    return null;
  }
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
  return canvas;
}

/**
 * Celebrates a win on `table` (a Table). Returns {done, stop}: `done` settles when the celebration is
 * over; `stop()` ends it at once. The foundations' cards are hidden as they fly and shown again after.
 */
export function celebrate(table) {
  const layer = el("div", { class: "celebration", "data-testid": "celebration", "aria-hidden": "true" });
  if (reducedMotion()) {
    // No motion: a glow over the table and a word, gone when the player moves on.
    layer.classList.add("still");
    layer.append(el("p", { text: "Won!" }));
    document.body.append(layer);
    let stopped = false;
    const stop = () => {
      if (!stopped) layer.remove();
      stopped = true;
    };
    return { done: new Promise((resolve) => setTimeout(() => { stop(); resolve(); }, 4000)), stop };
  }
  const canvas = el("canvas");
  layer.append(canvas);
  document.body.append(layer);
  const ratio = Math.min(2, window.devicePixelRatio || 1);
  const width = window.innerWidth;
  const height = window.innerHeight;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const ctx = canvas.getContext("2d");
  ctx.scale(ratio, ratio);

  // The tops of the foundations in turn, kings first, as the Windows game throws them.
  const order = [];
  for (let rank = 13; rank >= 1; rank--) {
    for (const pile of table.root.querySelectorAll('[data-pile="h"]')) {
      const card = table.cards.get(RANKS[rank - 1] + pile.dataset.suit);
      if (card && pile.contains(card)) order.push(card);
    }
  }
  const hidden = [];
  let stopped = false;
  let frame = 0;
  let finish;
  const done = new Promise((resolve) => { finish = resolve; });
  const stop = () => {
    if (stopped) return;
    stopped = true;
    cancelAnimationFrame(frame);
    for (const card of hidden) card.classList.remove("launched");
    layer.classList.add("leaving");
    setTimeout(() => layer.remove(), 400);
    finish();
  };

  (async () => {
    const first = order[0];
    if (!first) {
      stop();
      return;
    }
    const box = first.getBoundingClientRect();
    const cardW = box.width;
    const cardH = box.height;
    const scale = cardW / 100;
    const pictures = await Promise.all(order.map((card) => bitmap(card, cardW, cardH, ratio)));
    const flying = [];
    let next = 0;
    let lastLaunch = -Infinity;
    let last = performance.now();
    const started = last;
    const step = (now) => {
      if (stopped) return;
      const dt = Math.min(0.05, (now - last) / 1000);
      last = now;
      if (next < order.length && now - lastLaunch >= LAUNCH_EVERY_MS) {
        const card = order[next];
        const at = card.getBoundingClientRect();
        card.classList.add("launched");
        hidden.push(card);
        const direction = Math.random() < 0.5 ? -1 : 1;
        flying.push({
          picture: pictures[next],
          x: at.left,
          y: at.top,
          vx: direction * (180 + Math.random() * 420) * scale,
          vy: -(Math.random() * 700) * scale,
        });
        next += 1;
        lastLaunch = now;
      }
      for (const card of flying) {
        card.vy += GRAVITY * scale * dt;
        card.x += card.vx * dt;
        card.y += card.vy * dt;
        if (card.y + cardH > height) {
          card.y = height - cardH;
          card.vy = -card.vy * BOUNCE;
        }
        // No clearing between frames: each card leaves its trail.
        if (card.picture) ctx.drawImage(card.picture, card.x, card.y, cardW, cardH);
      }
      for (let i = flying.length - 1; i >= 0; i--) {
        if (flying[i].x > width || flying[i].x + cardW < 0) flying.splice(i, 1);
      }
      if ((next >= order.length && !flying.length) || now - started > LONGEST_MS) {
        stop();
        return;
      }
      frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
  })();
  return { done, stop };
}
