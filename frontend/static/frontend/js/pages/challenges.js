// /challenges/: send a challenge, answer those to you, follow both lists live from the events stream;
// an accepted challenge takes both players to its race.
import { boot, el, get, post } from "../api.js";
import { followEvents } from "../events.js";

const data = boot();
const me = data.me;
const form = document.querySelector("[data-send-challenge]");
const formErrors = form.querySelector(".errors");
const receivedBox = document.querySelector("[data-received]");
const sentBox = document.querySelector("[data-sent]");
const said = document.querySelector("[data-testid=challenges-said]");
let mine = { received: [], sent: [] };

/** A deal as typed, in the server's form: a bare number is a Microsoft deal, blank or "random" a fresh one. */
function dealOf(text) {
  const typed = text.replace(/\s+/g, "").toLowerCase();
  if (!typed || typed === "random") return "";
  return /^\d+$/.test(typed) ? `ms:${typed}` : typed;
}

function minutesLeft(challenge) {
  const left = Math.max(0, Date.parse(challenge.expires_at) - Date.now());
  const minutes = Math.ceil(left / 60000);
  return minutes <= 1 ? "expires within a minute" : `expires in ${minutes} min`;
}

function goToRace(challenge) {
  if (challenge.link) location.href = challenge.link;
}

async function act(challenge, what) {
  try {
    const answer = await post(`/api/challenges/${challenge.id}/${what}/`);
    if (what === "accept") {
      goToRace(answer);
      return;
    }
    said.textContent = `Challenge ${answer.status}.`;
  } catch (err) {
    said.textContent = err.message;
  }
  refresh();
}

function item(challenge, received) {
  const other = received ? challenge.challenger : challenge.challenged;
  const words = received ? `${other} challenges you to ${challenge.deal}` : `You challenged ${other} to ${challenge.deal}`;
  // Expired since the list was read: the server says so too, without a push.
  const status = challenge.status === "open" && Date.parse(challenge.expires_at) <= Date.now() ? "expired" : challenge.status;
  const open = status === "open";
  const parts = [el("span", { text: `${words} · ${open ? minutesLeft(challenge) : status}` })];
  if (open && received) {
    parts.push(" ",
      el("button", { type: "button", class: "primary", "data-testid": "accept-challenge", text: "Accept", onclick: () => act(challenge, "accept") }),
      " ",
      el("button", { type: "button", "data-testid": "decline-challenge", text: "Decline", onclick: () => act(challenge, "decline") }));
  } else if (open) {
    parts.push(" ", el("button", { type: "button", "data-testid": "cancel-challenge", text: "Cancel", onclick: () => act(challenge, "cancel") }));
  } else if (challenge.status === "accepted" && challenge.link) {
    parts.push(" ", el("a", { href: challenge.link, text: "Go to the race" }));
  }
  return el("li", { "data-challenge": challenge.id, "data-status": status }, parts);
}

function render() {
  const list = (challenges, received) => (challenges.length
    ? el("ul", { class: "challenge-list" }, challenges.map((c) => item(c, received)))
    : el("p", { class: "muted", text: received ? "No challenges to you." : "You have not challenged anyone lately." }));
  receivedBox.replaceChildren(list(mine.received, true));
  sentBox.replaceChildren(list(mine.sent, false));
}

async function refresh() {
  try {
    mine = await get("/api/challenges/");
    render();
  } catch (err) {
    said.textContent = err.message;
  }
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  formErrors.hidden = true;
  const username = form.querySelector("input[name=username]").value.trim();
  const deal = dealOf(form.querySelector("input[name=deal]").value);
  try {
    const sent = await post("/api/challenges/", deal ? { username, deal } : { username });
    said.textContent = `Challenge sent to ${sent.challenged}. You will be taken to the race when they accept.`;
    form.reset();
    refresh();
  } catch (err) {
    formErrors.textContent = err.message;
    formErrors.hidden = false;
  }
});

followEvents((event) => {
  if (event.type !== "challenge") return;
  const challenge = event.challenge;
  // The answer to one of the player's challenges: accepted, they go to the race at once.
  if (challenge.challenger === me && challenge.status === "accepted") {
    goToRace(challenge);
    return;
  }
  if (challenge.challenged === me && challenge.status === "open") said.textContent = `${challenge.challenger} challenges you to ${challenge.deal}.`;
  refresh();
}, { onOpen: refresh });
refresh();
// The lists' "expires in" figures, and expiries, without a push.
setInterval(render, 30000);
