// Every page: the player's table settings applied, and a form posted to this site carries the CSRF
// token as it is when pressed. The token in a server-drawn form is the one of the page's first load;
// signing in again in another tab changes it, and the form then met Django's 403 "CSRF verification
// failed" (the deal buttons, sign-out).
import { csrfToken } from "./api.js";
import { adoptBrowserSettings, applySettings } from "./settings.js";

applySettings();
adoptBrowserSettings();

document.addEventListener(
  "submit",
  (event) => {
    const field = event.target instanceof HTMLFormElement ? event.target.elements.namedItem("csrfmiddlewaretoken") : null;
    const token = csrfToken();
    if (field && token) field.value = token;
  },
  true, // before the page's own handlers, which may send the form themselves
);
