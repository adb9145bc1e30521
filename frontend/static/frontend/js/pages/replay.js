// /replay/<id>/: steps forward and back through every action of a game (moves and undos), showing
// the autoplay each move caused card by card. Positions are rebuilt from the deal's layout and
// GET /api/games/<id>/history/ with the small rules model in cards.js. Each action says how it came
// (`via`: web, the site's pages, or api, a token or an app), as a small tag in the list.
import { boot, el, get } from "../api.js";
import { applyMove, describeMove, formatClock, statusWord } from "../cards.js";
import { Table } from "../table.js";

const data = boot();
const view = document.querySelector("[data-replay]");
const q = (sel) => view.querySelector(sel);
const table = new Table(q("[data-table]"), { interactive: false, keyboard: false });
table.setInteractive(false);
const slider = q("[data-testid=replay-slider]");
const stepLabel = q("[data-testid=replay-step]");
const autoNote = q("[data-testid=replay-autoplay]");
const list = q("[data-testid=replay-actions]");
let frames = [];
// How an action came, in words.
const VIA = { web: "on the web", api: "through the API" };
let current = 0;
let animation = null;
let playing = null;

/** On a screen wider than tall, the table takes the height the replay's controls, its list of actions
 * and its links leave, so that all of it is in view at 1280x800 without scrolling. */
function fitTable() {
  const root = table.root;
  if (window.innerWidth <= window.innerHeight) {
    root.style.removeProperty("height");
    table.setFit(false);
    return;
  }
  const box = root.getBoundingClientRect();
  const below = view.getBoundingClientRect().bottom - box.bottom;
  const height = Math.max(240, Math.floor(window.innerHeight - (box.top + window.scrollY) - below - 8));
  root.style.height = `${height}px`;
  if (table.fit) table.layout();
  else table.setFit(true);
}

function build(history) {
  const start = { columns: data.columns.map((c) => c.slice()), cells: [null, null, null, null], foundations: { C: 0, D: 0, H: 0, S: 0 } };
  let state = start;
  const preludeSteps = [];
  for (const move of data.prelude || []) {
    state = applyMove(state, move).state;
    preludeSteps.push(state);
  }
  const t0 = Date.parse(data.game.created_at);
  frames = [{ label: "Deal", state, steps: preludeSteps.length ? [start, ...preludeSteps] : [state], autoplay: data.prelude || [], moves: 0, undos: 0, at: 0 }];
  const stack = [state];
  let undos = 0;
  for (const action of history.actions) {
    let steps;
    let label;
    if (action.kind === "undo") {
      stack.pop();
      state = stack[stack.length - 1];
      steps = [state];
      undos += 1;
      label = `undo (${action.move})`;
    } else {
      const before = state;
      state = applyMove(state, action.move).state;
      steps = [state];
      for (const auto of action.autoplay || []) {
        state = applyMove(state, auto).state;
        steps.push(state);
      }
      stack.push(state);
      label = `${action.move}: ${describeMove(before, action.move)}`;
    }
    frames.push({
      label, kind: action.kind, move: action.move, state, steps, autoplay: action.autoplay || [], via: action.via || null,
      // The game's clock at the action (a casual game's play time), else the time since the deal.
      moves: action.index + 1, undos, at: action.clock_ms ?? Math.max(0, Date.parse(action.at) - t0),
    });
  }
}

function show(index, { animate = true } = {}) {
  index = Math.max(0, Math.min(frames.length - 1, index));
  clearTimeout(animation);
  const forwardOne = index === current + 1;
  current = index;
  const frame = frames[index];
  slider.value = String(index);
  stepLabel.textContent = index === 0 ? "Deal" : `Action ${index} of ${frames.length - 1}`;
  slider.setAttribute("aria-valuetext", index === 0 ? "Deal" : `${stepLabel.textContent}: ${frame.label}`);
  q("[data-testid=moves]").textContent = String(frame.moves);
  q("[data-testid=undos]").textContent = String(frame.undos);
  q("[data-testid=clock]").textContent = formatClock(frame.at);
  autoNote.textContent = (index === 0 ? "" : `${frame.label}${frame.via ? ` (${VIA[frame.via] || frame.via})` : ""}. `) + (frame.autoplay.length ? `Autoplay: ${frame.autoplay.join(" ")}` : "");
  // The list is one stop of the Tab key (a roving tabindex): the current action's button, or the
  // first at the deal, so that the page's links after it are not thousands of Tabs away. The arrow
  // keys move through it, and the focus follows the current action when it was in the list.
  const focusInList = list.contains(document.activeElement);
  for (const [i, item] of [...list.children].entries()) {
    const button = item.querySelector("button");
    button.tabIndex = i + 1 === index || (index === 0 && i === 0) ? 0 : -1;
    if (i + 1 === index) {
      button.setAttribute("aria-current", "step");
      button.scrollIntoView({ block: "nearest", inline: "nearest" });
    } else button.removeAttribute("aria-current");
    if (focusInList && button.tabIndex === 0) button.focus({ preventScroll: true });
  }
  if (forwardOne && animate && frame.steps.length > 1) {
    // Step forward: the move, then each autoplay card flying home in turn.
    const steps = frame.steps.slice();
    const next = () => {
      table.render(steps.shift(), { duration: 140 });
      if (steps.length) animation = setTimeout(next, 170);
    };
    next();
  } else {
    table.render(frame.state, { animate });
  }
  const won = frame.state && Object.values(frame.state.foundations).every((h) => h === 13);
  q("[data-testid=status]").textContent = won ? "Won" : index === frames.length - 1 ? statusWord(data.game.status) : "Replaying";
}

function togglePlay() {
  const button = q("[data-step=play]");
  if (playing) {
    clearInterval(playing);
    playing = null;
    button.textContent = "Play";
    return;
  }
  if (current >= frames.length - 1) show(0, { animate: false });
  button.textContent = "Pause";
  playing = setInterval(() => {
    if (current >= frames.length - 1) {
      togglePlay();
      return;
    }
    show(current + 1);
  }, 650);
}

function wire() {
  view.querySelector(".replay-controls").addEventListener("click", (event) => {
    const button = event.target.closest("[data-step]");
    if (!button) return;
    const step = button.dataset.step;
    if (step === "play") return togglePlay();
    if (playing) togglePlay();
    if (step === "first") show(0);
    else if (step === "prev") show(current - 1);
    else if (step === "next") show(current + 1);
    else if (step === "last") show(frames.length - 1);
  });
  slider.addEventListener("input", () => show(Number(slider.value), { animate: false }));
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" && event.target.type !== "range") return;
    if (event.altKey || event.ctrlKey || event.metaKey) return; // Alt+Left is the browser's Back
    const inList = list.contains(event.target);
    if (event.key === "ArrowRight" || (inList && event.key === "ArrowDown")) { event.preventDefault(); show(current + 1); }
    else if (event.key === "ArrowLeft" || (inList && event.key === "ArrowUp")) { event.preventDefault(); show(current - 1); }
    else if (event.key === "Home") show(0);
    else if (event.key === "End") show(frames.length - 1);
    else if (event.key === " " && event.target.tagName !== "BUTTON") { event.preventDefault(); togglePlay(); }
  });
}

async function main() {
  table.render(frames.length ? frames[0].state : { columns: data.columns, cells: [null, null, null, null], foundations: { C: 0, D: 0, H: 0, S: 0 } }, { animate: false });
  let history;
  try {
    history = await get(`/api/games/${data.game.id}/history/`);
  } catch (err) {
    q("[data-testid=message]").textContent = err.message;
    return;
  }
  try {
    build(history);
  } catch (err) {
    q("[data-testid=message]").textContent = `This history cannot be replayed here: ${err.message}`;
    return;
  }
  slider.max = String(frames.length - 1);
  list.replaceChildren(...frames.slice(1).map((frame, i) => el("li", { class: frame.kind === "undo" ? "undo" : "", "data-via": frame.via || "" },
    el("button", {
      type: "button", title: `${frame.label}${frame.via ? ` (${VIA[frame.via] || frame.via})` : ""}`,
      // The name starts with the button's visible text (WCAG 2.5.3: "click 5a" works by voice).
      "aria-label": `${frame.kind === "undo" ? "u" : frame.move}: action ${i + 1}, ${frame.label}${frame.via ? `, ${VIA[frame.via] || frame.via}` : ""}`,
      onclick: () => { if (playing) togglePlay(); show(i + 1, { animate: false }); },
      text: frame.kind === "undo" ? "u" : frame.move,
    }),
    // Beside the button, not in it: the button's text stays the move; its label says how it came.
    frame.via ? el("span", { class: "via", "aria-hidden": "true", text: frame.via }) : null)));
  // How the actions came, counted: "80 on the web" or "52 on the web, 28 through the API".
  const counts = {};
  for (const frame of frames.slice(1)) counts[frame.via || "unknown"] = (counts[frame.via || "unknown"] || 0) + 1;
  const said = Object.entries(counts).map(([via, n]) => `${n} ${via === "unknown" ? "not recorded (older actions)" : VIA[via] || via}`);
  q("[data-testid=replay-via]").textContent = said.length ? `How the actions came: ${said.join(", ")}.` : "";
  wire();
  show(0, { animate: false });
  fitTable();
  window.addEventListener("resize", fitTable);
  view.dataset.ready = "true";
  window.fc = { table, frames: () => frames, show, current: () => current };
}

main();
