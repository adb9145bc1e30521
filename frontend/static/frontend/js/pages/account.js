// /account/: one's own display name and bio, e-mail address and password, and closing the account,
// each a form over the REST API (PATCH /api/me/, POST /api/auth/password/change/, POST /api/me/close/).
import { api, get, post } from "../api.js";

const form = (name) => document.querySelector(`[data-form=${name}]`);
const currentEmail = document.querySelector("[data-testid=current-email]");

// The outcome in the form's live region. An error marks the field the server named (else the form's
// first field), ties the message to it and gives it the focus, so it can be corrected at once.
function outcome(target, text, { error = null } = {}) {
  const status = target.querySelector("[data-status]");
  status.id = status.id || `${target.dataset.form}-status`;
  for (const input of target.querySelectorAll("input:not([hidden]), textarea")) {
    input.removeAttribute("aria-invalid");
    if (input.getAttribute("aria-describedby") === status.id) input.removeAttribute("aria-describedby");
  }
  status.className = error ? "errors" : "muted";
  status.textContent = text;
  if (!error) {
    status.focus();
    return;
  }
  const fields = (error.error && error.error.fields) || {};
  const named = Object.keys(fields).map((name) => target.querySelector(`[name=${name}]`)).find(Boolean);
  const field = named || target.querySelector("input:not([hidden]), textarea");
  field.setAttribute("aria-invalid", "true");
  field.setAttribute("aria-describedby", status.id);
  field.focus();
}

function showEmail(email) {
  currentEmail.textContent = email ? `Your address is ${email}.` : "You have given no e-mail address: a forgotten password cannot be reset.";
}

async function load() {
  try {
    const me = await get("/api/me/");
    form("profile").display_name.value = me.display_name || "";
    form("profile").bio.value = me.bio || "";
    showEmail(me.email);
  } catch (err) {
    currentEmail.textContent = err.message;
  }
}

function onSubmit(name, action) {
  const target = form(name);
  target.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = target.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await action(target);
    } catch (err) {
      outcome(target, err.message, { error: err.body || {} });
    } finally {
      button.disabled = false;
    }
  });
}

onSubmit("profile", async (target) => {
  const me = await api("PATCH", "/api/me/", { display_name: target.display_name.value.trim(), bio: target.bio.value.trim() });
  target.display_name.value = me.display_name;
  target.bio.value = me.bio;
  outcome(target, "Profile saved.");
});

onSubmit("email", async (target) => {
  const me = await api("PATCH", "/api/me/", { email: target.email.value.trim(), password: target.password.value });
  target.reset();
  showEmail(me.email);
  outcome(target, me.email ? `E-mail address changed to ${me.email}.` : "E-mail address removed.");
});

onSubmit("password", async (target) => {
  if (target.new_password.value !== target.new_password2.value) {
    const err = { error: { fields: { new_password2: ["The two new passwords differ."] } } };
    outcome(target, "The two new passwords differ.", { error: err });
    return;
  }
  await post("/api/auth/password/change/", { old_password: target.old_password.value, new_password: target.new_password.value });
  target.reset();
  outcome(target, "Password changed. You stay signed in here; other devices must sign in again.");
});

onSubmit("close", async (target) => {
  if (!window.confirm("Close your account for good? This cannot be undone.")) return;
  await post("/api/me/close/", { password: target.password.value });
  window.location.assign("/");
});

load();
