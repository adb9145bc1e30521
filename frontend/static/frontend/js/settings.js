// The player's table settings (card style, table colour), applied to every page as attributes of
// <html>, which the stylesheet and the table read. A signed-in player's are kept with their account
// (GET/PATCH /api/me/ `settings`): the server writes them on <html> (data-settings="account"), so
// every device shows them from the first paint. A visitor's are kept in this browser's local storage.

import { api } from "./api.js";
import { DECK_STYLES } from "./deck.js";

const KEY = "fc-settings";
export const FELTS = { green: "Green baize", blue: "Blue", red: "Burgundy", slate: "Slate" };
const DEFAULTS = { deck: "classic", felt: "green" };
const root = document.documentElement;

/** Whether this page's settings are the signed-in account's (written on <html> by the server). */
export function fromAccount() {
  return root.dataset.settings === "account";
}

function valid(saved) {
  return {
    deck: saved && saved.deck in DECK_STYLES ? saved.deck : DEFAULTS.deck,
    felt: saved && saved.felt in FELTS ? saved.felt : DEFAULTS.felt,
  };
}

function stored() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}") || {};
  } catch {
    return {}; // private mode or a damaged value: the defaults
  }
}

export function loadSettings() {
  return valid(fromAccount() ? { deck: root.dataset.deck, felt: root.dataset.felt } : stored());
}

export function applySettings(settings = loadSettings()) {
  root.dataset.deck = settings.deck;
  root.dataset.felt = settings.felt;
  // Tables on the page redraw their faces.
  document.dispatchEvent(new CustomEvent("fc-settings", { detail: settings }));
}

/** Changes some settings: shown at once, then kept (with the account when signed in: the promise
 * settles with the account's answer, and a refusal puts the settings back as they were). */
export async function saveSettings(changes) {
  const before = loadSettings();
  const settings = valid({ ...before, ...changes });
  applySettings(settings);
  if (!fromAccount()) {
    try {
      localStorage.setItem(KEY, JSON.stringify(settings));
    } catch { /* kept for this page only */ }
    return settings;
  }
  try {
    const me = await api("PATCH", "/api/me/", { settings: changes });
    const kept = valid(me && me.settings);
    applySettings(kept);
    tellOtherTabs(kept);
    return kept;
  } catch (err) {
    applySettings(before);
    throw err;
  }
}

/** A signed-in player who never chose settings for the account, in a browser where they chose some
 * before (kept there while signed out, or before the account kept them): the account takes them up. */
export function adoptBrowserSettings() {
  if (!fromAccount() || root.dataset.settingsNew !== "true") return;
  delete root.dataset.settingsNew;
  const local = stored();
  const chosen = {};
  if (local.deck in DECK_STYLES && local.deck !== DEFAULTS.deck) chosen.deck = local.deck;
  if (local.felt in FELTS && local.felt !== DEFAULTS.felt) chosen.felt = local.felt;
  // The table's sounds turned off in this browser (sound.js keeps that under its own key).
  try {
    if (localStorage.getItem("fc-sound") === "off") {
      chosen.sound = "off";
      root.dataset.sound = "off";
    }
  } catch { /* no storage: nothing was chosen here */ }
  if (!Object.keys(chosen).length) return;
  applySettings(valid({ ...loadSettings(), ...chosen }));
  // Not kept (no CSRF cookie yet, the server away): this page shows them all the same, and the next
  // page asks again.
  api("PATCH", "/api/me/", { settings: chosen }).then((me) => tellOtherTabs(valid(me && me.settings)), () => {});
}

// The player's other tabs in this browser follow a change at once (a visitor's through the storage
// event; an account's through a message, since its settings are not in local storage).
const channel = "BroadcastChannel" in window ? new BroadcastChannel(KEY) : null;

function tellOtherTabs(settings) {
  if (channel) channel.postMessage(settings);
}

if (channel) {
  channel.addEventListener("message", (event) => {
    if (fromAccount()) applySettings(valid(event.data));
  });
}

window.addEventListener("storage", (event) => {
  if (event.key === KEY && !fromAccount()) applySettings();
});
