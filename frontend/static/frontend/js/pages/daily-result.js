// A shared daily result's page: its Copy button puts the shareable text on the clipboard.
const area = document.querySelector("[data-testid=share]");
const button = document.querySelector("[data-copy]");
if (area && button) {
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(area.value);
      button.textContent = "Copied";
    } catch {
      area.select(); // no clipboard here: selected, for the keyboard's copy
    }
  });
}
