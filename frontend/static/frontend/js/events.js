// The signed-in player's events stream (GET /api/stream/events/, docs/streams.md) read line by line:
// newline-delimited JSON over the session, opened again after a drop (its first lines are what is
// pending, so a reopened stream misses nothing; an event may come twice).

const RETRY_MS = [1000, 2000, 5000, 10000];

/** Calls `onEvent(event)` for each event; `onOpen()` each time the stream (re)opens. Returns a stop function. */
export function followEvents(onEvent, { onOpen = () => {} } = {}) {
  let stopped = false;
  let controller = null;
  let failures = 0;

  async function readOnce() {
    controller = new AbortController();
    const response = await fetch("/api/stream/events/", {
      credentials: "same-origin",
      headers: { Accept: "application/x-ndjson" },
      signal: controller.signal,
    });
    if (!response.ok || !response.body) throw new Error(`the events stream answered ${response.status}`);
    failures = 0;
    onOpen();
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const text = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (!text) continue; // a keepalive
        let event;
        try {
          event = JSON.parse(text);
        } catch {
          continue;
        }
        if (event.error) throw new Error(event.error.message); // the stream's last line: it ends
        onEvent(event);
      }
    }
  }

  (async () => {
    while (!stopped) {
      try {
        await readOnce();
      } catch { /* dropped: opened again below */ }
      if (stopped) return;
      const wait = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)];
      failures += 1;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();

  return () => {
    stopped = true;
    if (controller) controller.abort();
  };
}
