// /account/: one's own display name and bio, e-mail address and password, API tokens, and closing the
// account, each a form over the REST API (PATCH /api/me/, POST /api/auth/password/change/,
// GET, POST /api/tokens/ and DELETE /api/tokens/<id>/, POST /api/me/close/).
import { api, el, get, post } from "../api.js";

const form = (name) => document.querySelector(`[data-form=${name}]`);
const currentEmail = document.querySelector("[data-testid=current-email]");
let knownEmail = "";

const describedBy = (input) => (input.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);

function setDescribedBy(input, ids) {
  if (ids.length) input.setAttribute("aria-describedby", ids.join(" "));
  else input.removeAttribute("aria-describedby");
}

/** Takes back what the form said last: field errors (and their links from the fields), the status. */
function clear(target) {
  for (const input of target.querySelectorAll("input[name]:not([hidden]), textarea")) {
    const error = input.closest(".field").querySelector(".errors");
    error.hidden = true;
    error.textContent = "";
    input.removeAttribute("aria-invalid");
    setDescribedBy(input, describedBy(input).filter((id) => id !== error.id));
  }
  const status = target.querySelector("[data-status]");
  status.className = "";
  status.replaceChildren();
}

/** The form's outcome, focused so that it is read: a success, or what concerns the whole form. */
function say(target, text, { ok = true, link = null } = {}) {
  const status = target.querySelector("[data-status]");
  status.className = ok ? "ok" : "errors";
  status.replaceChildren(text, ...(link ? [" ", link] : []));
  status.focus();
}

/** A refusal: under each field the server named (marked invalid, described by it, the first focused);
 * otherwise (signed out, no connection, too many tries) said for the whole form. */
function refuse(target, err) {
  const fields = (err.error && err.error.fields) || {};
  const named = Object.entries(fields)
    .map(([name, messages]) => [target.querySelector(`[name=${name}]:not([hidden])`), messages])
    .filter(([input]) => input);
  if (!named.length) {
    const signedOut = err.status === 401 || err.code === "not_authenticated";
    if (signedOut) {
      const link = Object.assign(document.createElement("a"), { href: "/login/?next=/account/", textContent: "Sign in again" });
      say(target, "You are signed out (your password was changed or your session ended).", { ok: false, link });
    } else {
      say(target, err.message.charAt(0).toUpperCase() + err.message.slice(1), { ok: false });
    }
    return;
  }
  for (const [input, messages] of named) {
    const error = input.closest(".field").querySelector(".errors");
    error.textContent = [].concat(messages).join(" ");
    error.hidden = false;
    input.setAttribute("aria-invalid", "true");
    setDescribedBy(input, [error.id, ...describedBy(input).filter((id) => id !== error.id)]);
  }
  named[0][0].focus();
}

function showEmail(email) {
  knownEmail = email || "";
  currentEmail.textContent = email ? `Your address is ${email}.` : "You have given no e-mail address: a forgotten password cannot be reset.";
}

async function load() {
  const profile = form("profile");
  try {
    const me = await get("/api/me/");
    profile.display_name.value = me.display_name || "";
    profile.bio.value = me.bio || "";
    showEmail(me.email);
    // Enabled once filled: saved empty, it would have wiped what the player had written.
    profile.querySelector("fieldset").disabled = false;
  } catch (err) {
    currentEmail.textContent = "";
    refuse(profile, err);
  }
}

function onSubmit(name, action) {
  const target = form(name);
  let busy = false;
  target.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (busy) return;
    busy = true;
    clear(target);
    const button = target.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await action(target);
    } catch (err) {
      refuse(target, err);
    } finally {
      busy = false;
      button.disabled = false;
    }
  });
}

onSubmit("profile", async (target) => {
  const me = await api("PATCH", "/api/me/", { display_name: target.display_name.value.trim(), bio: target.bio.value.trim() });
  target.display_name.value = me.display_name;
  target.bio.value = me.bio;
  say(target, "Profile saved.");
});

onSubmit("email", async (target) => {
  const email = target.email.value.trim();
  if (email === knownEmail) {
    refuse(target, { error: { fields: { email: [email ? "That is already your address." : "You have no address to remove."] } } });
    return;
  }
  const me = await api("PATCH", "/api/me/", { email, password: target.password.value });
  target.reset();
  showEmail(me.email);
  say(target, me.email ? `E-mail address changed to ${me.email}.` : "E-mail address removed.");
});

onSubmit("password", async (target) => {
  if (target.new_password.value !== target.new_password2.value) {
    refuse(target, { error: { fields: { new_password2: ["The two new passwords differ."] } } });
    return;
  }
  await post("/api/auth/password/change/", { old_password: target.old_password.value, new_password: target.new_password.value });
  target.reset();
  say(target, "Password changed. You stay signed in here; other devices must sign in again, and your API tokens are revoked.");
  loadTokens();
});

onSubmit("close", async (target) => {
  if (!window.confirm("Close your account for good? This cannot be undone.")) return;
  await post("/api/me/close/", { password: target.password.value });
  window.location.assign("/?closed=1");
});

// --- API tokens: listed, made (the key shown once, with a copy button), revoked --------------------

const tokens = document.getElementById("tokens");
const tokenRows = tokens.querySelector("#token-list tbody");
const tokenStatus = tokens.querySelector("[data-token-status]");
const newToken = tokens.querySelector("[data-new-token]");
const newKey = newToken.querySelector("[data-token-key]");
const copyStatus = newToken.querySelector("[data-copy-status]");

const when = (iso) => (iso ? el("time", { datetime: iso, text: new Date(iso).toLocaleString() }) : "never");

function tokenRow(token) {
  const revoke = el("button", { type: "button", class: "danger", "data-testid": "revoke-token", "aria-label": `Revoke ${token.name}` }, "Revoke");
  revoke.addEventListener("click", () => revokeToken(token, revoke));
  return el(
    "tr",
    { "data-testid": "token-row", dataset: { tokenId: String(token.id) } },
    el("td", { text: token.name }),
    el("td", { text: token.scopes.join(", ") }),
    el("td", {}, when(token.created_at)),
    el("td", {}, when(token.last_used_at)),
    el("td", {}, revoke),
  );
}

async function loadTokens() {
  try {
    const list = await get("/api/tokens/");
    tokenRows.replaceChildren(...list.map(tokenRow));
    tokenStatus.textContent = list.length ? "" : "You have no API tokens.";
  } catch (err) {
    tokenStatus.textContent = err.status === 401 || err.status === 403 ? "You are signed out: sign in again to see your tokens." : `Your tokens could not be loaded: ${err.message}.`;
  }
}

async function revokeToken(token, button) {
  if (!window.confirm(`Revoke the token “${token.name}”? Programs using it stop working at once.`)) return;
  button.disabled = true;
  let said;
  try {
    await api("DELETE", `/api/tokens/${token.id}/`);
    said = `Token “${token.name}” revoked.`;
  } catch (err) {
    said = err.status === 404 ? `Token “${token.name}” was already revoked.` : `Not revoked: ${err.message}.`;
    button.disabled = false;
  }
  await loadTokens();
  tokenStatus.textContent = said;
}

function showKey(key) {
  newToken.hidden = false;
  newKey.value = key;
  copyStatus.textContent = "";
  newKey.focus();
  newKey.select();
}

newToken.querySelector("[data-copy-token]").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText(newKey.value);
    copyStatus.textContent = "Copied.";
  } catch {
    newKey.select(); // no clipboard access (an insecure origin, a refusal): selected for a manual copy
    copyStatus.textContent = "Press Ctrl+C (⌘C on a Mac) to copy the selected token.";
  }
});

onSubmit("token", async (target) => {
  const scopes = [...target.querySelectorAll("[name=scopes]:checked")].map((box) => box.value);
  if (!scopes.length) {
    refuse(target, { error: { fields: { scopes: ["Choose at least one scope."] } } });
    return;
  }
  const nameInput = target.querySelector("[name=name]");
  const made = await post("/api/tokens/", { name: nameInput.value.trim(), scopes });
  nameInput.value = "";
  await loadTokens();
  say(target, `Token “${made.name}” created.`);
  showKey(made.token);
});

load();
loadTokens();
