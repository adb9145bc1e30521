// The table's sounds, made in code with the Web Audio API (no sound files): a card picked up, a card
// moved, a card landing on its foundation, a refused move, an undo and the win. One switch turns them
// on or off (data-testid="sound" on the game pages): kept in this browser's local storage, and with a
// signed-in player's account (`settings.sound` of PATCH /api/me/, written on <html> by the server as
// data-sound="off", so the first sound of a page already obeys it).

import { api } from "./api.js";

const KEY = "fc-sound";
const root = document.documentElement;
let context = null;
let master = null;
let noise = null;

/** Whether the sounds are on: the account's choice on a signed-in page, else this browser's. */
export function soundOn() {
  if (root.dataset.settings === "account") return root.dataset.sound !== "off";
  try {
    return localStorage.getItem(KEY) !== "off";
  } catch {
    return true; // private mode: the default
  }
}

/** Turns the sounds on or off: at once on this page, kept in this browser and with the account. */
export async function setSound(on) {
  const value = on ? "on" : "off";
  if (on) delete root.dataset.sound;
  else root.dataset.sound = "off";
  try {
    localStorage.setItem(KEY, value);
  } catch { /* kept for this page only */ }
  document.dispatchEvent(new CustomEvent("fc-sound", { detail: { on } }));
  if (root.dataset.settings === "account") await api("PATCH", "/api/me/", { settings: { sound: value } });
}

/** The audio graph, made on first use (a browser lets it sound once the player has pressed something). */
function audio() {
  if (!context) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    context = new Context();
    master = context.createGain();
    master.gain.value = 0.5;
    master.connect(context.destination);
    // Half a second of white noise, the stuff of a card's slide and snap.
    noise = context.createBuffer(1, Math.round(context.sampleRate / 2), context.sampleRate);
    const data = noise.getChannelData(0);
    for (let i = 0; i < data.length; i++) data[i] = Math.random() * 2 - 1;
  }
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

/** A burst of filtered noise: a card sliding or snapping down. */
function swish(at, { length = 0.07, frequency = 1800, q = 0.8, gain = 0.5 } = {}) {
  const source = context.createBufferSource();
  source.buffer = noise;
  const filter = context.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = frequency;
  filter.Q.value = q;
  const envelope = context.createGain();
  envelope.gain.setValueAtTime(0.0001, at);
  envelope.gain.exponentialRampToValueAtTime(gain, at + 0.006);
  envelope.gain.exponentialRampToValueAtTime(0.0001, at + length);
  source.connect(filter).connect(envelope).connect(master);
  source.start(at, Math.random() * 0.3, length + 0.02);
}

/** A tone gliding from `from` to `to` Hz. */
function tone(at, { from, to = from, length = 0.12, type = "sine", gain = 0.25 }) {
  const oscillator = context.createOscillator();
  oscillator.type = type;
  oscillator.frequency.setValueAtTime(from, at);
  if (to !== from) oscillator.frequency.exponentialRampToValueAtTime(to, at + length);
  const envelope = context.createGain();
  envelope.gain.setValueAtTime(0.0001, at);
  envelope.gain.exponentialRampToValueAtTime(gain, at + 0.01);
  envelope.gain.exponentialRampToValueAtTime(0.0001, at + length);
  oscillator.connect(envelope).connect(master);
  oscillator.start(at);
  oscillator.stop(at + length + 0.02);
}

const SOUNDS = {
  // A light tick as the card leaves the table.
  pick: (at) => swish(at, { length: 0.035, frequency: 3200, q: 1.2, gain: 0.3 }),
  // The slide and the snap of a card put down.
  move: (at) => {
    swish(at, { length: 0.06, frequency: 1400, gain: 0.35 });
    swish(at + 0.05, { length: 0.04, frequency: 2600, q: 1.5, gain: 0.45 });
  },
  // A card landing on its foundation: the snap and a small bright note.
  home: (at) => {
    swish(at, { length: 0.04, frequency: 2600, q: 1.5, gain: 0.35 });
    tone(at, { from: 1320, length: 0.09, type: "triangle", gain: 0.08 });
  },
  // Two low notes falling: not there.
  refuse: (at) => {
    tone(at, { from: 220, to: 196, length: 0.1, type: "square", gain: 0.06 });
    tone(at + 0.11, { from: 175, to: 147, length: 0.14, type: "square", gain: 0.06 });
  },
  // The slide played back: noise and a falling glide.
  undo: (at) => {
    swish(at, { length: 0.08, frequency: 900, gain: 0.3 });
    tone(at, { from: 660, to: 440, length: 0.1, gain: 0.07 });
  },
  // A rising arpeggio (C E G C E).
  win: (at) => {
    [523.25, 659.25, 783.99, 1046.5, 1318.5].forEach((from, i) => tone(at + i * 0.11, { from, length: i === 4 ? 0.6 : 0.22, type: "triangle", gain: 0.18 }));
  },
};

/** Plays the sound `name` (pick, move, home, refuse, undo, win) `delay` seconds from now, when the
 * sounds are on. Each one played is counted in `window.fcSound.played` (tests, debugging). */
export function playSound(name, delay = 0) {
  if (!soundOn() || !SOUNDS[name]) return;
  try {
    if (!audio()) return;
    SOUNDS[name](context.currentTime + delay);
    window.fcSound.played.push(name);
  } catch { /* a browser without Web Audio plays silently */ }
}

window.fcSound = window.fcSound || { played: [] };
