// The player's table settings (card style, table colour), kept in this browser's local storage and
// applied to every page as attributes of <html>, which the stylesheet and the table read.
// The server keeps no copy yet: a settings field on the account would carry them across devices.

import { DECK_STYLES } from "./deck.js";

const KEY = "fc-settings";
export const FELTS = { green: "Green baize", blue: "Blue", red: "Burgundy", slate: "Slate" };
const DEFAULTS = { deck: "classic", felt: "green" };

export function loadSettings() {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(KEY) || "{}") || {};
  } catch { /* private mode or a damaged value: the defaults */ }
  return {
    deck: saved.deck in DECK_STYLES ? saved.deck : DEFAULTS.deck,
    felt: saved.felt in FELTS ? saved.felt : DEFAULTS.felt,
  };
}

export function applySettings(settings = loadSettings()) {
  document.documentElement.dataset.deck = settings.deck;
  document.documentElement.dataset.felt = settings.felt;
  // Tables on the page redraw their faces.
  document.dispatchEvent(new CustomEvent("fc-settings", { detail: settings }));
}

export function saveSettings(changes) {
  const settings = { ...loadSettings(), ...changes };
  try {
    localStorage.setItem(KEY, JSON.stringify(settings));
  } catch { /* kept for this page only */ }
  applySettings(settings);
  return settings;
}

// Another tab's change shows here too.
window.addEventListener("storage", (event) => {
  if (event.key === KEY) applySettings();
});
