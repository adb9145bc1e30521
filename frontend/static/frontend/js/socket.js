// A websocket that reconnects with backoff and says when it is up or down. Every (re)connection is
// a resync: the server's first frame is the full state.

export class LiveSocket {
  constructor(path, { onFrame, onOpen, onDown } = {}) {
    this.path = path;
    this.onFrame = onFrame || (() => {});
    this.onOpen = onOpen || (() => {});
    this.onDown = onDown || (() => {});
    this.attempts = 0;
    this.refusals = 0; // closes with 4429 in a row: too many sockets or frames (docs/websocket.md)
    this.ws = null;
    this.closed = false;
    this.timer = null;
    this.lastFrameAt = 0;
    this.everOpened = false;
    this.retryAt = 0;
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && !this.isOpen()) this.reconnectNow();
    });
    // The server closes sockets silent for 60 s and sends a heartbeat every 20 s: a socket that has
    // heard nothing for 50 s is dead even if the browser has not noticed.
    this.watchdog = setInterval(() => {
      if (this.isOpen() && Date.now() - this.lastFrameAt > 50000) this.ws.close();
    }, 5000);
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}${this.path}`;
  }

  connect() {
    if (this.closed) return;
    clearTimeout(this.timer);
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    this.startedAt = Date.now(); // the handshake carries the cookies of this moment
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.attempts = 0;
      this.everOpened = true;
      this.lastFrameAt = Date.now();
      this.onOpen();
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      this.lastFrameAt = Date.now();
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (frame.type !== "error") this.refusals = 0;
      if (frame.type === "heartbeat") this.send({ type: "ping" });
      this.onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== this.ws) return;
      this.ws = null;
      if (this.closed) return;
      // A socket refused for its client's limits opened only to be told so: the backoff goes on growing.
      if (event.code === 4429) this.attempts = ++this.refusals;
      const delay = this.scheduleRetry();
      this.onDown({ code: event.code, retryInMs: delay });
    });
  }

  scheduleRetry() {
    // 0.5 s, 1 s, 2 s ... up to 30 s, with jitter so a restarted server is not hit by everyone at once.
    const base = Math.min(30000, 500 * 2 ** this.attempts);
    const delay = Math.round(base * (0.75 + Math.random() * 0.5));
    this.attempts += 1;
    this.retryAt = Date.now() + delay;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
    return delay;
  }

  reconnectNow() {
    if (this.closed || this.isOpen()) return;
    if (this.ws && this.ws.readyState === WebSocket.CONNECTING) return;
    this.attempts = 0;
    this.connect();
  }

  isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  send(frame) {
    if (!this.isOpen()) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** Drops the connection as if the network had failed (used by tests and by the watchdog). */
  drop() {
    if (this.ws) this.ws.close();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.watchdog);
    if (this.ws) this.ws.close();
  }
}
