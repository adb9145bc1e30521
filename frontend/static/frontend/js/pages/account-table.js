// The account page's "Cards and table": the card style and the table colour, chosen with radio
// buttons, shown at once in a small preview and kept with the account (settings.js).
import { el } from "../api.js";
import { DECK_STYLES, faceUrl } from "../deck.js";
import { FELTS, fromAccount, loadSettings, saveSettings } from "../settings.js";

const form = document.querySelector("[data-table-settings]");
const preview = form.querySelector("[data-preview]");
const SAMPLE = ["AS", "7H", "TD", "QC", "KH"];

function drawPreview(settings) {
  preview.dataset.felt = settings.felt;
  preview.replaceChildren(
    ...SAMPLE.map((code) => {
      const card = el("span", { class: "preview-card" });
      card.style.backgroundImage = `url("${faceUrl(code, settings.deck)}")`;
      return card;
    }),
  );
}

function choices(name, options, current) {
  const row = form.querySelector(`[data-choices=${name}]`);
  row.replaceChildren(
    ...Object.entries(options).map(([value, label]) => el(
      "label",
      { class: `choice ${name}-${value}` },
      el("input", { type: "radio", name, value, checked: value === current, "data-testid": `${name}-${value}` }),
      el("span", { text: label }),
    )),
  );
}

const settings = loadSettings();
choices("deck", Object.fromEntries(Object.entries(DECK_STYLES).map(([key, style]) => [key, style.label])), settings.deck);
choices("felt", FELTS, settings.felt);
drawPreview(settings);
const status = form.querySelector("[data-settings-status]");
const say = (text) => {
  if (status) status.textContent = text;
};

form.addEventListener("change", async (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || input.type !== "radio") return;
  drawPreview({ ...loadSettings(), [input.name]: input.value });
  say("");
  try {
    const kept = await saveSettings({ [input.name]: input.value });
    drawPreview(kept);
    say(fromAccount() ? "Saved with your account." : "Saved in this browser.");
  } catch (err) {
    // Put back as kept: the choice the server refused is not shown as made.
    const kept = loadSettings();
    for (const radio of form.querySelectorAll("input[type=radio]")) radio.checked = kept[radio.name] === radio.value;
    drawPreview(kept);
    say(`Not saved: ${err.message}`);
  }
});
